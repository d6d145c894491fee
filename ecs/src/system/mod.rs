//! Systems: plain functions whose parameters say what they touch.
//!
//! A function whose parameters are all [`SystemParam`]s ([`Query`], [`Res`],
//! [`ResMut`], [`Commands`]), or one that takes only `&mut World<S>`, is a
//! system: [`Schedule::add`](crate::schedule::Schedule::add) accepts it as it is. Each
//! parameter declares an [`Access`] as a constant; two parameters of one
//! system that could reach the same component with a write fail to compile.

mod access;
mod condition;
mod conflict;
mod group;
mod local;

pub use access::Access;
pub(crate) use condition::Condition as ConditionNode;
// Run conditions are documented in the public module `condition`.
pub use crate::world_impl::LocalState;
#[cfg(feature = "serde")]
pub use crate::world_impl::SavedLocalState;
#[doc(hidden)]
pub use condition::{
    not, on_event, resource_changed, AndCondition, Condition, ConditionExt, ConditionFn,
    ConditionParam, IntoCondition, NotCondition, OnEvent, OrCondition, ResourceChanged, RunIf,
    RunIfExt,
};
use conflict::conflict;
pub(crate) use conflict::Message;
pub use group::IntoSystems;
pub(crate) use group::{add_one, guard, Group};
pub use local::Local;
#[cfg(feature = "serde")]
pub use local::SavedLocal;

use crate::changes::ChangeWindow;
use crate::commands::{CommandQueue, Commands};
use crate::layout::Resource;
use crate::lend::SplitWorld;
use crate::query::{Query, QueryFilter, QueryReach, QueryState, SchemaQuery};
use crate::world_impl::Schema;
use crate::world_impl::SendSchema;
use crate::world_impl::{LocalSlots, World};
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use std::borrow::Cow;
use std::sync::{Mutex, PoisonError};

/// A parameter of a system: what it borrows from the world, declared as an
/// [`Access`] constant, and how it is taken out of a world split among
/// systems. Implemented by [`Query`], [`Res`], [`ResMut`], [`Commands`],
/// [`Local`], [`EventReader`](crate::event::EventReader),
/// [`EventWriter`](crate::event::EventWriter), [`Removed`](crate::change::Removed),
/// [`SparseMut`](crate::command::SparseMut), [`Spawner`](crate::command::Spawner),
/// [`UnnamedSpawner`](crate::command::UnnamedSpawner),
/// [`Migrator`](crate::command::Migrator), [`Despawner`](crate::command::Despawner),
/// [`NextState`](crate::state::NextState) and, with feature `serde`,
/// `SavedLocal`.
///
/// Only this crate implements it (it is sealed: its hidden methods take
/// types that no other crate can name).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system parameter of schema `{S}`",
    label = "not a system parameter",
    note = "system parameters are `Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Commands<S>`, `Local<T>`, \
            `EventReader<E>`, `EventWriter<E>`, `Removed<T>`, `SparseMut<S, C>`, `Spawner<S, B>`, `UnnamedSpawner<S, B>`, `Migrator<S, C, F>`, `Despawner<S>`, `NextState<T>` and, with feature `serde`, `SavedLocal<T>`; a system that needs the whole \
            world takes only `&mut World<S>`"
)]
pub trait SystemParam<S: Schema>: Sized {
    /// What the system keeps for this parameter between runs.
    #[doc(hidden)]
    type State: Send + 'static;
    /// The parameter as the system receives it, borrowing the world for `'w`.
    type Item<'w>;
    /// What the parameter reads and writes.
    const ACCESS: Access;
    /// Fails to evaluate (a compile error) if the parameter is malformed,
    /// e.g. a query that aliases.
    #[doc(hidden)]
    const CHECK: ();

    /// The state of a system that was just added.
    #[doc(hidden)]
    fn init() -> Self::State;

    /// Brings the state up to date with `world` before a run (e.g. a query's
    /// matching tables); `window` is what this run of the system sees of the
    /// world's changes (see [`Tick`](crate::change::Tick)).
    #[doc(hidden)]
    fn prepare(_state: &mut Self::State, _world: &World<S>, _window: ChangeWindow) {}

    /// Takes the parameter out of `world`.
    #[doc(hidden)]
    fn fetch<'w>(state: &'w mut Self::State, world: &mut SplitWorld<'w, S>) -> Self::Item<'w>;

    /// Makes, after the system's stage, the structural changes its run
    /// recorded for the tables it alone reaches (a
    /// [`Migrator`](crate::command::Migrator)'s row moves), on a fresh split of the
    /// world, beside the other systems of the stage doing the same. Called
    /// only for a parameter whose [`Access::moves`] is set.
    #[doc(hidden)]
    fn migrate<'w>(_state: &'w mut Self::State, _world: &Mutex<SplitWorld<'w, S>>) {}

    /// Finishes what the run did at once and left for its end (the rows a
    /// [`Spawner`](crate::command::Spawner) added become alive), before any
    /// parameter of the system is applied.
    #[doc(hidden)]
    fn apply_first(_state: &mut Self::State, _world: &mut World<S>) {}

    /// Applies what the run deferred (commands) to `world`.
    #[doc(hidden)]
    fn apply(_state: &mut Self::State, _world: &mut World<S>) {}

    /// After a panic: drops what the run deferred without applying it
    /// (commands), and finishes what it already did at once.
    #[doc(hidden)]
    fn discard(_state: &mut Self::State, _world: &mut World<S>) {}

    /// How many places of the world's [`Local`] store the parameter keeps
    /// its state in (1 for a `Local`, 0 for the others).
    #[doc(hidden)]
    const LOCALS: usize = 0;

    /// Whether the parameter reads what the world keeps only until its
    /// readers have seen it: events and removal logs. While a system with
    /// such a parameter is skipped by its run condition, the world keeps
    /// them for its next run.
    #[doc(hidden)]
    const READS_LOGS: bool = false;

    /// Whether the parameter despawns entities when the schedule's run
    /// ends ([`Despawner`](crate::command::Despawner)): then
    /// [`SystemParam::end_of_run`] hands them over.
    #[doc(hidden)]
    const DESPAWNS_AT_END: bool = false;

    /// Appends to `doomed` the entities the parameter's applied runs
    /// despawn at the end of the schedule's run, in the order recorded.
    #[doc(hidden)]
    fn end_of_run(_state: &mut Self::State, _doomed: &mut Vec<crate::entity::Entity>) {}

    /// Takes the parameter's locals out of the world's store, before the
    /// system's stage.
    #[doc(hidden)]
    fn check_out(_state: &mut Self::State, _slots: &mut LocalSlots<'_>) {}

    /// Puts them back, after the stage (or after a panic).
    #[doc(hidden)]
    fn check_in(_state: &mut Self::State, _slots: &mut LocalSlots<'_>) {}
}

impl<S, Q, F> SystemParam<S> for Query<'_, Q, F>
where
    S: Schema,
    Q: SchemaQuery<S> + 'static,
    F: QueryFilter<S> + 'static,
{
    type State = QueryState;
    type Item<'w> = Query<'w, Q, F>;
    const ACCESS: Access = Access {
        reads: Q::READS | F::READS,
        writes: Q::WRITES,
        whole: (Q::READS | Q::WRITES | F::READS) & S::SPARSE_BITS,
        // The table conditions: systems are lent whole table columns, so
        // only components that tables hold can keep two queries apart (a
        // sparse component splits entities, not columns).
        required: QueryReach::<S, Q, F>::TABLE_CONDITIONS.required(),
        excluded: QueryReach::<S, Q, F>::TABLE_CONDITIONS.excluded(),
        any_of: QueryReach::<S, Q, F>::ANY_OF,
        presence: (Q::SPARSE | QueryReach::<S, Q, F>::CONDITIONS.mentions()) & S::SPARSE_BITS,
        observes_entities: true,
        iterates: true,
        ..Access::NONE
    };
    const CHECK: () = {
        let () = Q::CHECK;
        QueryReach::<S, Q, F>::CHECK
    };

    fn init() -> QueryState {
        QueryState::default()
    }

    fn prepare(state: &mut QueryState, world: &World<S>, window: ChangeWindow) {
        let (tables, sparse) = (world.tables(), (world.sparse_sets(), world.entities()));
        state.update::<S, Q, F>(tables, sparse, window);
    }

    fn fetch<'w>(state: &'w mut QueryState, world: &mut SplitWorld<'w, S>) -> Query<'w, Q, F> {
        let tick = state.tick();
        let (matched, reached) = state.lend();
        Query::split(world, matched, reached, tick)
    }
}

/// A system parameter that reads resource `T`.
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(f32);
/// #[derive(Default)] struct Gravity(f32);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] gravity: Gravity }
///
/// fn fall(mut bodies: Query<&mut Pos>, gravity: Res<Gravity>) {
///     bodies.for_each_mut(|pos| pos.0 -= gravity.0);
/// }
///
/// let mut world = World::<Game>::new();
/// world.resource_mut::<Gravity>().0 = 9.5;
/// let body = world.spawn((Pos(100.0),));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(fall);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Pos>(body).unwrap().0, 90.5);
/// ```
pub struct Res<'w, T>(&'w T);

/// A system parameter that reads and writes resource `T`.
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(f32);
/// #[derive(Default)] struct Tick(u64);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] tick: Tick }
///
/// fn count(mut tick: ResMut<Tick>) {
///     tick.0 += 1;
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(count);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Tick>().0, 2);
/// ```
pub struct ResMut<'w, T>(&'w mut T);

impl<T> Deref for Res<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T> Deref for ResMut<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T> DerefMut for ResMut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

impl<T: fmt::Debug> fmt::Debug for Res<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Res").field(self.0).finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for ResMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ResMut").field(self.0).finish()
    }
}

impl<S: Schema, T: Resource<S>> SystemParam<S> for Res<'_, T> {
    type State = ();
    type Item<'w> = Res<'w, T>;
    const ACCESS: Access = Access {
        resource_reads: 1 << T::BIT,
        ..Access::NONE
    };
    const CHECK: () = ();

    fn init() {}

    fn fetch<'w>(_: &'w mut (), world: &mut SplitWorld<'w, S>) -> Res<'w, T> {
        Res(T::slot(&mut world.resources).shared())
    }
}

impl<S: Schema, T: Resource<S>> SystemParam<S> for ResMut<'_, T> {
    type State = ();
    type Item<'w> = ResMut<'w, T>;
    const ACCESS: Access = Access {
        resource_writes: 1 << T::BIT,
        ..Access::NONE
    };
    const CHECK: () = ();

    fn init() {}

    fn fetch<'w>(_: &'w mut (), world: &mut SplitWorld<'w, S>) -> ResMut<'w, T> {
        ResMut(T::slot(&mut world.resources).exclusive())
    }
}

impl<S: Schema> SystemParam<S> for Commands<'_, S>
where
    S: SendSchema,
{
    type State = CommandQueue<S>;
    type Item<'w> = Commands<'w, S>;
    const ACCESS: Access = Access {
        commands: true,
        ..Access::NONE
    };
    const CHECK: () = ();

    fn init() -> CommandQueue<S> {
        CommandQueue::default()
    }

    fn fetch<'w>(state: &'w mut CommandQueue<S>, world: &mut SplitWorld<'w, S>) -> Commands<'w, S> {
        Commands::new(state, world.entities)
    }

    fn apply(state: &mut CommandQueue<S>, world: &mut World<S>) {
        world.apply_commands(state);
    }

    fn discard(state: &mut CommandQueue<S>, world: &mut World<S>) {
        // The ids reserved for the spawns dropped are taken back (they are
        // the last reserved: a later system that records waits until these
        // are applied), so that no entity is left of them.
        world.unreserve(&state.reserved());
        state.clear();
    }
}

/// A function shaped like a system, whatever its parameters: at most 8 of
/// them, returning `()`; also a system with a run condition
/// ([`RunIfExt::run_if`]) and a tuple of up to 16 of those. What
/// [`RunIfExt::run_if`] applies to, and what
/// [`Schedule::add`](crate::schedule::Schedule::add) checks before [`IntoSystems`], so
/// that a parameter that is not a system parameter is reported as such, by
/// type. `Marker` tells the kinds of function apart; it is inferred.
///
/// Only this crate implements it (it is sealed): a type is a system by its
/// shape, never by an impl of its own.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a system: a system is a function of at most 8 parameters \
               that returns `()`",
    label = "not a system",
    note = "system parameters are `Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Commands<S>`, `Local<T>`, \
            `EventReader<E>`, `EventWriter<E>`, `Removed<T>`, `SparseMut<S, C>`, `Spawner<S, B>` and `UnnamedSpawner<S, B>`; an exclusive system takes only \
            `&mut World<S>`"
)]
pub trait SystemFn<Marker>: sealed::Sealed<Marker> {}

/// Keeps [`SystemFn`] to the impls of this crate: `Sealed` is public, so
/// that a public trait may have it as a supertrait, in a module no other
/// crate can reach, so that no other crate can implement it. Each impl of
/// `SystemFn` has one of `Sealed` with the same bounds beside it.
mod sealed {
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be made a system by an impl of `SystemFn`: only schemecs \
                   implements `SystemFn`",
        label = "`SystemFn` implemented outside schemecs",
        note = "a system is a function whose parameters are all system parameters (`Query<Q, F>`, \
                `Res<T>`, `ResMut<T>`, `Commands<S>`, ...), or one taking only `&mut World<S>`, \
                with or without a run condition, or a tuple of those; write the work of \
                `{Self}` as such a function and add the function"
    )]
    pub trait Sealed<Marker> {}
}

/// Something [`Schedule::add`](crate::schedule::Schedule::add) accepts: a function whose
/// parameters are all [`SystemParam`]s (up to 8), or one that takes only
/// `&mut World<S>` (an exclusive system). `Marker` tells the two kinds, and the
/// parameter lists, apart; it is inferred.
///
/// Only this crate implements it (it is sealed: its hidden method returns a
/// type that no other crate can name).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system of schema `{S}`",
    label = "not a system of `{S}`",
    note = "a system is a function whose parameters are all system parameters of `{S}` \
            (`Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Commands<{S}>`, `Local<T>`, `EventReader<E>`, \
            `EventWriter<E>`, `Removed<T>`, `SparseMut<{S}, C>`, `Migrator<{S}, C, F>`, `Spawner<{S}, B>`, `UnnamedSpawner<{S}, B>`, `Despawner<{S}>`, `NextState<T>` and, with feature `serde`, `SavedLocal<T>`; up to 8), or a function \
            taking only `&mut World<{S}>`; it returns `()` and must be `Send + 'static`"
)]
pub trait IntoSystem<S: Schema, Marker>: Sized {
    /// What each parameter touches, in order.
    const ACCESS: &'static [Access];
    /// Fails to evaluate (a compile error) if two parameters conflict.
    #[doc(hidden)]
    const CHECK: ();

    /// The system, ready for a schedule.
    #[doc(hidden)]
    fn into_system(self) -> SystemNode<S>;
}

/// A system in a schedule: its name, its parameters' accesses and the code.
#[doc(hidden)]
pub struct SystemNode<S: Schema> {
    pub(crate) name: Cow<'static, str>,
    pub(crate) access: &'static [Access],
    pub(crate) kind: SystemKind<S>,
    /// Whether a parameter is a [`Local`], whose value the system takes out
    /// of the world for its stage.
    pub(crate) has_locals: bool,
    /// The event queues and removal logs its parameters read
    /// ([`SystemParam::READS_LOGS`]).
    pub(crate) logs_read: crate::retention::LogReads,
    /// Whether a parameter despawns entities when the schedule's run ends
    /// ([`SystemParam::DESPAWNS_AT_END`]).
    pub(crate) despawns_at_end: bool,
    /// The system's run condition, if it has one (see [`RunIfExt::run_if`]);
    /// boxed, so that a system without one stays small.
    pub(crate) condition: Option<Box<ConditionNode<S>>>,
    /// The groups it is in (`(a, b).run_if(condition)`), outermost first:
    /// indices into its schedule's groups.
    pub(crate) groups: Vec<u32>,
    /// Where the world's record of the system's skips was last found: a
    /// guess, right while the system is skipped turn after turn on one
    /// world, and harmless when wrong (see `Changes::skip`).
    pub(crate) skip_hint: usize,
}

pub(crate) enum SystemKind<S: Schema> {
    Params(Box<dyn ParamSystem<S>>),
    Exclusive(Box<ExclusiveFn<S>>),
}

/// An exclusive system: a function of the whole world.
type ExclusiveFn<S> = dyn FnMut(&mut World<S>) + Send;

/// A system of [`SystemParam`]s, with its parameter types erased so that one
/// schedule can hold systems of different signatures. (This is the only
/// dynamic dispatch in the crate: once per system per run, never per entity.)
pub(crate) trait ParamSystem<S: Schema>: Send {
    fn prepare(&mut self, world: &World<S>, window: ChangeWindow);
    fn run<'w>(&'w mut self, world: &Mutex<SplitWorld<'w, S>>);
    fn migrate<'w>(&'w mut self, world: &Mutex<SplitWorld<'w, S>>);
    fn apply(&mut self, world: &mut World<S>);
    fn discard(&mut self, world: &mut World<S>);
    fn end_of_run(&mut self, doomed: &mut Vec<crate::entity::Entity>);
    fn check_out(&mut self, slots: &mut LocalSlots<'_>);
    fn check_in(&mut self, slots: &mut LocalSlots<'_>);
}

/// A function and the states of its parameters.
struct FunctionSystem<Func, Params: ParamStates> {
    func: Func,
    state: Params::States,
    params: PhantomData<fn() -> Params>,
}

/// The states of a tuple of parameters (a helper for [`FunctionSystem`]).
trait ParamStates {
    type States: Send;
}

/// Marker of an exclusive system (one taking `&mut World<S>`), for [`IntoSystem`].
#[doc(hidden)]
pub struct Exclusive<S>(PhantomData<fn() -> S>);

impl<S: Schema, Func: FnMut(&mut World<S>)> SystemFn<Exclusive<S>> for Func {}
#[diagnostic::do_not_recommend]
impl<S: Schema, Func: FnMut(&mut World<S>)> sealed::Sealed<Exclusive<S>> for Func {}

impl<S, Func> IntoSystem<S, Exclusive<S>> for Func
where
    S: Schema,
    Func: FnMut(&mut World<S>) + Send + 'static,
{
    const ACCESS: &'static [Access] = &[Access {
        world: true,
        ..Access::NONE
    }];
    const CHECK: () = ();

    fn into_system(self) -> SystemNode<S> {
        SystemNode {
            name: system_name(core::any::type_name::<Func>()),
            access: <Self as IntoSystem<S, Exclusive<S>>>::ACCESS,
            kind: SystemKind::Exclusive(Box::new(self)),
            has_locals: false,
            logs_read: crate::retention::LogReads::NONE,
            despawns_at_end: false,
            condition: None,
            groups: Vec::new(),
            skip_hint: 0,
        }
    }
}

impl<S, Func> IntoSystems<S, Exclusive<S>> for Func
where
    S: Schema,
    Func: IntoSystem<S, Exclusive<S>>,
{
    const CHECK: () = ();

    fn add_to(self, systems: &mut Vec<SystemNode<S>>, _: &mut Vec<Group<S>>) {
        add_one(self, systems);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The name a system is shown by: its function's name without the module
/// path (`game::physics::inertia` -> `inertia`, `game::step<game::Hero>` ->
/// `step<game::Hero>`), or for a closure, the function it is written in
/// (`game::main::{{closure}}` -> `closure in main`).
/// [`Schedule::add_named`](crate::schedule::Schedule::add_named) gives any other name.
pub(crate) fn system_name(full: &'static str) -> Cow<'static, str> {
    fn last_segment(path: &str) -> &str {
        path.rsplit("::").next().unwrap_or(path)
    }
    if let Some(at) = full.find("::{{closure}}") {
        return Cow::Owned(format!("closure in {}", last_segment(&full[..at])));
    }
    match full.find('<') {
        Some(at) => Cow::Owned(format!("{}{}", last_segment(&full[..at]), &full[at..])),
        None => Cow::Borrowed(last_segment(full)),
    }
}

/// Parameters `A` (at position `I`, from 1) and `B` (at `J`) of one system
/// of schema `S`: a type only for its [`ParamPair::CHECK`].
pub(crate) struct ParamPair<S, const I: usize, A, const J: usize, B>(
    PhantomData<fn() -> S>,
    PhantomData<fn() -> A>,
    PhantomData<fn() -> B>,
);

impl<S: Schema, const I: usize, A: SystemParam<S>, const J: usize, B: SystemParam<S>>
    ParamPair<S, I, A, J, B>
{
    /// Fails to evaluate (a compile error naming both parameters) if the
    /// two conflict.
    pub(crate) const CHECK: () = if let Some(message) = conflict::<S>(&A::ACCESS, I, &B::ACCESS, J)
    {
        // Parameters `I` (of type `A`) and `J` (of type `B`) of one system
        // conflict: the compiler names this const with both types.
        panic!("{}", message.as_str());
    };
}

/// `let () = ParamPair::<S, i, Pi, j, Pj>::CHECK;` for every pair of the
/// parameters, with their positions (from 1), in the order (1, 2), (1, 3),
/// ..., (2, 3), ...: the first conflict found is the one reported.
macro_rules! check_pairs {
    ($s:ident;) => {};
    ($s:ident; $a:ident $(, $b:ident)*) => {
        $(let () = ParamPair::<$s, { position!($a) }, $a, { position!($b) }, $b>::CHECK;)*
        check_pairs!($s; $($b),*);
    };
}

/// The position (from 1) of parameter `P0` ... `P7`.
#[rustfmt::skip]
macro_rules! position {
    (P0) => { 1 }; (P1) => { 2 }; (P2) => { 3 }; (P3) => { 4 };
    (P4) => { 5 }; (P5) => { 6 }; (P6) => { 7 }; (P7) => { 8 };
}

macro_rules! impl_system {
    ($($p:ident),*) => {
        impl<$($p: 'static),*> ParamStates for ($($p,)*)
        where
            $($p: ParamStateOf,)*
        {
            type States = ($(<$p as ParamStateOf>::State,)*);
        }

        impl<Func: FnMut($($p),*), $($p),*> SystemFn<fn($($p,)*)> for Func {}
        #[diagnostic::do_not_recommend]
        impl<Func: FnMut($($p),*), $($p),*> sealed::Sealed<fn($($p,)*)> for Func {}

        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        impl<S, Func, $($p),*> IntoSystem<S, fn($($p,)*)> for Func
        where
            S: Schema,
            $($p: SystemParam<S> + 'static,)*
            Func: Send + 'static,
            Func: FnMut($($p),*) + for<'w> FnMut($($p::Item<'w>),*),
        {
            const ACCESS: &'static [Access] = &[$($p::ACCESS),*];
            const CHECK: () = {
                $(let () = $p::CHECK;)*
                check_pairs!(S; $($p),*);
            };

            fn into_system(self) -> SystemNode<S> {
                SystemNode {
                    name: system_name(core::any::type_name::<Func>()),
                    access: <Self as IntoSystem<S, fn($($p,)*)>>::ACCESS,
                    kind: SystemKind::Params(Box::new(FunctionSystem::<Func, ($(Param<S, $p>,)*)> {
                        func: self,
                        state: ($($p::init(),)*),
                        params: PhantomData,
                    })),
                    has_locals: 0 $(+ $p::LOCALS)* > 0,
                    logs_read: crate::retention::LogReads {
                        events: 0 $(| if $p::READS_LOGS { $p::ACCESS.resource_reads } else { 0 })*,
                        removals: 0 $(| if $p::READS_LOGS { $p::ACCESS.removals_read } else { 0 })*,
                    },
                    despawns_at_end: false $(|| $p::DESPAWNS_AT_END)*,
                    condition: None,
                    groups: Vec::new(),
                    skip_hint: 0,
                }
            }
        }

        impl<S, Func, $($p),*> IntoSystems<S, fn($($p,)*)> for Func
        where
            S: Schema,
            $($p: SystemParam<S> + 'static,)*
            Func: IntoSystem<S, fn($($p,)*)>,
        {
            // The checks themselves, not `IntoSystem::CHECK`: one constant
            // fewer between the user's `add` and a conflict's message.
            const CHECK: () = {
                $(let () = $p::CHECK;)*
                check_pairs!(S; $($p),*);
            };

            fn add_to(self, systems: &mut Vec<SystemNode<S>>, _: &mut Vec<Group<S>>) {
                add_one(self, systems);
            }
        }

        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        impl<S, Func, $($p),*> ParamSystem<S> for FunctionSystem<Func, ($(Param<S, $p>,)*)>
        where
            S: Schema,
            $($p: SystemParam<S> + 'static,)*
            Func: Send + 'static,
            Func: FnMut($($p),*) + for<'w> FnMut($($p::Item<'w>),*),
        {
            fn prepare(&mut self, world: &World<S>, window: ChangeWindow) {
                let ($($p,)*) = &mut self.state;
                $($p::prepare($p, world, window);)*
            }

            fn run<'w>(&'w mut self, world: &Mutex<SplitWorld<'w, S>>) {
                let ($($p,)*) = &mut self.state;
                let ($($p,)*) = {
                    #[allow(unused_mut)]
                    let mut world = lock(world);
                    ($($p::fetch($p, &mut world),)*)
                };
                (self.func)($($p),*);
            }

            fn migrate<'w>(&'w mut self, world: &Mutex<SplitWorld<'w, S>>) {
                let ($($p,)*) = &mut self.state;
                $(if $p::ACCESS.moves {
                    $p::migrate($p, world);
                })*
            }

            fn apply(&mut self, world: &mut World<S>) {
                let ($($p,)*) = &mut self.state;
                $($p::apply_first($p, world);)*
                $($p::apply($p, world);)*
            }

            fn discard(&mut self, world: &mut World<S>) {
                let ($($p,)*) = &mut self.state;
                $($p::discard($p, world);)*
            }

            fn end_of_run(&mut self, doomed: &mut Vec<crate::entity::Entity>) {
                let ($($p,)*) = &mut self.state;
                $(if $p::DESPAWNS_AT_END {
                    $p::end_of_run($p, doomed);
                })*
            }

            fn check_out(&mut self, slots: &mut LocalSlots<'_>) {
                let ($($p,)*) = &mut self.state;
                $($p::check_out($p, slots);)*
            }

            fn check_in(&mut self, slots: &mut LocalSlots<'_>) {
                let ($($p,)*) = &mut self.state;
                $($p::check_in($p, slots);)*
            }
        }
    };
}

/// Parameter `P` of a system of schema `S`, as a type whose state is known
/// without naming `S` in [`ParamStates`].
struct Param<S, P>(PhantomData<fn() -> (S, P)>);

trait ParamStateOf {
    type State: Send;
}

impl<S: Schema, P: SystemParam<S>> ParamStateOf for Param<S, P> {
    type State = P::State;
}

impl_system!();
impl_system!(P0);
impl_system!(P0, P1);
impl_system!(P0, P1, P2);
impl_system!(P0, P1, P2, P3);
impl_system!(P0, P1, P2, P3, P4);
impl_system!(P0, P1, P2, P3, P4, P5);
impl_system!(P0, P1, P2, P3, P4, P5, P6);
impl_system!(P0, P1, P2, P3, P4, P5, P6, P7);
