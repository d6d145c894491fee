//! Run conditions: `schedule.add(system.run_if(condition))`. What a
//! condition may read and what a skipped system sees are documented on
//! [`RunIfExt`], the trait that gives systems `run_if`.
//!
//! A condition is type-erased into a [`Condition`] when its system is added;
//! the executor evaluates it when the system comes up (`SystemNode::
//! condition_holds`), before the system's stage lends the world out, and
//! records a skip in the world's change state (`Changes::skip`).

use super::{guard, Group, IntoSystems, Res, SystemNode, SystemParam};
use super::{system_name, Access, IntoSystem, Local, LocalSlots, Param, ParamStates, SystemFn};
use crate::changes::ChangeWindow;
use crate::event::{Event, EventReader};
use crate::layout::{Resource, Tracked};
use crate::lend::SplitBuffers;
use crate::query::{Query, QueryFilter, ReadOnlyQueryData, SchemaQuery};
use crate::removed::Removed;
use crate::stable_hash::{StableHash, StableHasher};
use crate::world_impl::Schema;
use crate::world_impl::{LocalState, Locals, World};
use core::fmt;
use core::marker::PhantomData;
use std::borrow::Cow;

/// A system parameter a run condition may take: one that only reads.
/// Implemented by [`Res`], [`Query`] with read-only items
/// ([`ReadOnlyQueryData`]), [`EventReader`], [`Removed`] and [`Local`] (the
/// condition's own state).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a run condition of schema `{S}`: a condition \
               only reads",
    label = "a condition cannot take this",
    note = "a run condition's parameters are `Res<T>`, `Query<Q, F>` with read-only items \
            (`&T`, `Entity`, `Has<T>`, `Option<&T>`), `EventReader<E>`, `Removed<T>` and \
            `Local<T>`; make the change in a system (the condition decides whether it runs)"
)]
pub trait ConditionParam<S: Schema>: SystemParam<S> {
    /// Whether [`ConditionParam::fetch_shared`] gives the parameter: a
    /// condition whose parameters all do is evaluated on the world as it
    /// is, without lending it out (a skipped system then costs a few
    /// nanoseconds).
    #[doc(hidden)]
    const SHARED: bool = false;

    /// The parameter, taken from a world that is not lent out, if
    /// [`ConditionParam::SHARED`].
    #[doc(hidden)]
    fn fetch_shared<'w>(
        _state: &'w mut Self::State,
        _world: &'w World<S>,
    ) -> Option<Self::Item<'w>> {
        None
    }
}

impl<S: Schema, T: Resource<S>> ConditionParam<S> for Res<'_, T> {
    const SHARED: bool = true;

    #[inline]
    fn fetch_shared<'w>(_: &'w mut (), world: &'w World<S>) -> Option<Res<'w, T>> {
        Some(Res(world.resource::<T>()))
    }
}

impl<S, Q, F> ConditionParam<S> for Query<'_, Q, F>
where
    S: Schema,
    Q: SchemaQuery<S> + ReadOnlyQueryData + 'static,
    F: QueryFilter<S> + 'static,
{
}

impl<S: Schema, T: Tracked<S>> ConditionParam<S> for Removed<'_, T> {}

/// A run condition may keep state of its own; it needs nothing of the world.
impl<S: Schema, T: LocalState> ConditionParam<S> for Local<'_, T> {
    const SHARED: bool = true;

    #[inline]
    fn fetch_shared<'w>(state: &'w mut Option<Box<T>>, _: &'w World<S>) -> Option<Local<'w, T>> {
        state.as_deref_mut().map(Local::new)
    }
}

/// A run condition may read events; it reads them from the world as it is.
impl<S: Schema, T: Event<S>> ConditionParam<S> for EventReader<'_, T> {
    const SHARED: bool = true;

    #[inline]
    fn fetch_shared<'w>(
        state: &'w mut ChangeWindow,
        world: &'w World<S>,
    ) -> Option<EventReader<'w, T>> {
        Some(EventReader::new(T::queue(world.resources()), *state))
    }
}

/// A run condition of schema `S`, ready for a system: what
/// [`IntoCondition`] makes of a function or a ready-made condition. Build
/// one to give a condition a name of your own ([`Condition::named`]) or to
/// choose between conditions at run time.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::{condition::Condition, condition::IntoCondition};
/// #[derive(Debug)] struct Pos(i32);
/// #[derive(Default)] struct Lives(u32);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] lives: Lives }
///
/// fn alive(lives: Res<Lives>) -> bool { lives.0 > 0 }
/// fn step(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
///
/// let condition: Condition<Game> = alive.into_condition().named("alive?");
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(step.run_if(condition));
/// assert!(schedule.describe().contains("step if alive?"));
/// ```
pub struct Condition<S: Schema> {
    pub(crate) name: Cow<'static, str>,
    /// What its parameters read, in order (those of `a` then `b` for a
    /// combination).
    pub(crate) access: Vec<Access>,
    /// Whether a parameter is a [`Local`].
    pub(crate) has_locals: bool,
    /// Whether it is a combination (its name is bracketed inside another).
    compound: bool,
    pub(crate) system: Box<dyn ConditionSystem<S>>,
}

impl<S: Schema> Condition<S> {
    /// The condition, shown as `name` by
    /// [`Schedule::describe`](crate::schedule::Schedule::describe).
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self.compound = false;
        self
    }

    /// The name [`Schedule::describe`](crate::schedule::Schedule::describe) shows.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `self` and then, if it holds, `other`.
    pub(crate) fn both(self, other: Condition<S>) -> Condition<S> {
        Self::combine(self, other, "and", |a, b| Box::new(All(a, b)))
    }

    fn either(self, other: Condition<S>) -> Condition<S> {
        Self::combine(self, other, "or", |a, b| Box::new(Any(a, b)))
    }

    fn combine(
        a: Condition<S>,
        b: Condition<S>,
        word: &str,
        system: impl FnOnce(
            Box<dyn ConditionSystem<S>>,
            Box<dyn ConditionSystem<S>>,
        ) -> Box<dyn ConditionSystem<S>>,
    ) -> Condition<S> {
        let name = format!("{} {word} {}", a.name_inside(), b.name_inside());
        let mut access = a.access;
        access.extend(b.access);
        Condition {
            name: Cow::Owned(name),
            access,
            has_locals: a.has_locals || b.has_locals,
            compound: true,
            system: system(a.system, b.system),
        }
    }

    /// Evaluates the condition with `window` (the turn's), its locals
    /// checked out of the world at `place` for the evaluation: `place.0`
    /// finds the places (`Locals::condition` for a system's condition,
    /// `Locals::group_condition` for a group's), `place.1` is the
    /// schedule's fingerprint and `place.2` the system's or group's index;
    /// `owner` names it in a message about a local.
    pub(crate) fn holds(
        &mut self,
        world: &mut World<S>,
        buffers: &mut SplitBuffers<S>,
        window: ChangeWindow,
        (places, fingerprint, index): (LocalPlaces, u64, usize),
        owner: &str,
    ) -> bool {
        if self.has_locals {
            self.system
                .check_out(&mut places(world.locals_mut(), fingerprint, index, owner));
        }
        let holds = self.system.evaluate(world, buffers, window);
        if self.has_locals {
            self.system
                .check_in(&mut places(world.locals_mut(), fingerprint, index, owner));
        }
        holds
    }

    /// Puts the locals still out back into the world, after a panic (see
    /// [`Condition::holds`] for `place`).
    pub(crate) fn check_in_after_panic(
        &mut self,
        world: &mut World<S>,
        (places, fingerprint, index): (LocalPlaces, u64, usize),
        owner: &str,
    ) {
        if self.has_locals {
            self.system
                .check_in(&mut places(world.locals_mut(), fingerprint, index, owner));
        }
    }

    /// The name, bracketed if it is a combination.
    fn name_inside(&self) -> Cow<'_, str> {
        if self.compound {
            Cow::Owned(format!("({})", self.name))
        } else {
            Cow::Borrowed(&self.name)
        }
    }
}

impl<S: Schema> fmt::Debug for Condition<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Condition").field(&self.name).finish()
    }
}

/// Where the locals of a condition are kept in the world: `Locals::condition`
/// or `Locals::group_condition`.
pub(crate) type LocalPlaces = for<'a> fn(&'a mut Locals, u64, usize, &'a str) -> LocalSlots<'a>;

/// A condition, its parameter types erased (see `ParamSystem`).
pub(crate) trait ConditionSystem<S: Schema>: Send {
    /// Prepares the parameters for `window`, lends the world out to them and
    /// calls the function. Its locals are checked out.
    fn evaluate(
        &mut self,
        world: &mut World<S>,
        buffers: &mut SplitBuffers<S>,
        window: ChangeWindow,
    ) -> bool;
    fn check_out(&mut self, slots: &mut LocalSlots<'_>);
    fn check_in(&mut self, slots: &mut LocalSlots<'_>);
}

/// A function shaped like a run condition, whatever its parameters: at most
/// 8 of them, returning `bool`; or a ready-made condition or combination.
/// The `Marker` is inferred.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a run condition: a condition is a function of at most 8 \
               read-only parameters that returns `bool`",
    label = "not a run condition",
    note = "a run condition's parameters are `Res<T>`, `Query<Q, F>` with read-only items, \
            `EventReader<E>`, `Removed<T>` and `Local<T>`; ready-made conditions are \
            `in_state(..)`, `on_event::<E>()` and `resource_changed::<T>()`"
)]
pub trait ConditionFn<Marker> {}

/// Something `run_if` accepts for schema `S`: a [`ConditionFn`] whose
/// parameters are all [`ConditionParam`]s of `S`, a ready-made condition,
/// a combination, or a [`Condition`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run condition of schema `{S}`",
    label = "not a run condition of `{S}`",
    note = "a run condition is a function returning `bool` whose parameters only read \
            (`Res<T>`, `Query<Q, F>` with read-only items, `EventReader<E>`, `Removed<T>`, \
            `Local<T>`), or `in_state(..)`, `on_event::<E>()`, `resource_changed::<T>()`"
)]
pub trait IntoCondition<S: Schema, Marker>: Sized {
    /// The condition, type-erased.
    fn into_condition(self) -> Condition<S>;
}

/// Marker of a [`Condition`] as an [`IntoCondition`].
#[doc(hidden)]
pub struct Built;

impl<S: Schema> ConditionFn<Built> for Condition<S> {}

impl<S: Schema> IntoCondition<S, Built> for Condition<S> {
    fn into_condition(self) -> Condition<S> {
        self
    }
}

/// A function and the states of its parameters, as a condition.
struct FunctionCondition<Func, Params: ParamStates> {
    func: Func,
    state: Params::States,
    params: PhantomData<fn() -> Params>,
}

macro_rules! impl_condition {
    ($($p:ident),*) => {
        impl<Func: FnMut($($p),*) -> bool, $($p),*> ConditionFn<fn($($p,)*) -> bool> for Func {}

        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        impl<S, Func, $($p),*> IntoCondition<S, fn($($p,)*) -> bool> for Func
        where
            S: Schema,
            $($p: ConditionParam<S> + 'static,)*
            Func: Send + 'static,
            Func: FnMut($($p),*) -> bool + for<'w> FnMut($($p::Item<'w>),*) -> bool,
        {
            fn into_condition(self) -> Condition<S> {
                Condition {
                    name: system_name(core::any::type_name::<Func>()),
                    access: vec![$($p::ACCESS),*],
                    has_locals: 0 $(+ $p::LOCALS)* > 0,
                    compound: false,
                    system: Box::new(FunctionCondition::<Func, ($(Param<S, $p>,)*)> {
                        func: self,
                        state: ($($p::init(),)*),
                        params: PhantomData,
                    }),
                }
            }
        }

        #[allow(non_snake_case, unused_variables, unused_mut, clippy::unused_unit)]
        impl<S, Func, $($p),*> ConditionSystem<S> for FunctionCondition<Func, ($(Param<S, $p>,)*)>
        where
            S: Schema,
            $($p: ConditionParam<S> + 'static,)*
            Func: Send + 'static,
            Func: FnMut($($p),*) -> bool + for<'w> FnMut($($p::Item<'w>),*) -> bool,
        {
            fn evaluate(
                &mut self,
                world: &mut World<S>,
                buffers: &mut SplitBuffers<S>,
                window: ChangeWindow,
            ) -> bool {
                let ($($p,)*) = &mut self.state;
                $($p::prepare($p, world, window);)*
                if true $(&& $p::SHARED)* {
                    let world: &World<S> = world;
                    return (self.func)($(match $p::fetch_shared($p, world) {
                        Some(item) => item,
                        None => unreachable!("a parameter that says it is shared gives itself"),
                    }),*);
                }
                let mut split = world.split(buffers);
                let holds = (self.func)($($p::fetch($p, &mut split)),*);
                split.reclaim(buffers);
                holds
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

impl_condition!();
impl_condition!(P0);
impl_condition!(P0, P1);
impl_condition!(P0, P1, P2);
impl_condition!(P0, P1, P2, P3);
impl_condition!(P0, P1, P2, P3, P4);
impl_condition!(P0, P1, P2, P3, P4, P5);
impl_condition!(P0, P1, P2, P3, P4, P5, P6);
impl_condition!(P0, P1, P2, P3, P4, P5, P6, P7);

/// Both conditions: `b` is evaluated only if `a` holds.
struct All<S: Schema>(Box<dyn ConditionSystem<S>>, Box<dyn ConditionSystem<S>>);
/// Either condition: `b` is evaluated only if `a` does not hold.
struct Any<S: Schema>(Box<dyn ConditionSystem<S>>, Box<dyn ConditionSystem<S>>);
/// The opposite of a condition.
struct Opposite<S: Schema>(Box<dyn ConditionSystem<S>>);

impl<S: Schema> ConditionSystem<S> for All<S> {
    fn evaluate(&mut self, world: &mut World<S>, b: &mut SplitBuffers<S>, w: ChangeWindow) -> bool {
        self.0.evaluate(world, b, w) && self.1.evaluate(world, b, w)
    }

    fn check_out(&mut self, slots: &mut LocalSlots<'_>) {
        self.0.check_out(slots);
        self.1.check_out(slots);
    }

    fn check_in(&mut self, slots: &mut LocalSlots<'_>) {
        self.0.check_in(slots);
        self.1.check_in(slots);
    }
}

impl<S: Schema> ConditionSystem<S> for Any<S> {
    fn evaluate(&mut self, world: &mut World<S>, b: &mut SplitBuffers<S>, w: ChangeWindow) -> bool {
        self.0.evaluate(world, b, w) || self.1.evaluate(world, b, w)
    }

    fn check_out(&mut self, slots: &mut LocalSlots<'_>) {
        self.0.check_out(slots);
        self.1.check_out(slots);
    }

    fn check_in(&mut self, slots: &mut LocalSlots<'_>) {
        self.0.check_in(slots);
        self.1.check_in(slots);
    }
}

impl<S: Schema> ConditionSystem<S> for Opposite<S> {
    fn evaluate(&mut self, world: &mut World<S>, b: &mut SplitBuffers<S>, w: ChangeWindow) -> bool {
        !self.0.evaluate(world, b, w)
    }

    fn check_out(&mut self, slots: &mut LocalSlots<'_>) {
        self.0.check_out(slots);
    }

    fn check_in(&mut self, slots: &mut LocalSlots<'_>) {
        self.0.check_in(slots);
    }
}

/// The combinators, as methods of every condition: `a.and(b)`, `a.or(b)`.
/// (The opposite is the function [`not`].)
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(i32);
/// #[derive(Default)] struct Input { fire: bool, jammed: bool }
/// #[derive(Default)] struct Shots(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(resource)] input: Input, #[ecs(resource)] shots: Shots }
///
/// fn firing(input: Res<Input>) -> bool { input.fire }
/// fn jammed(input: Res<Input>) -> bool { input.jammed }
/// fn shoot(mut shots: ResMut<Shots>) { shots.0 += 1; }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(shoot.run_if(firing.and(not(jammed))));
/// world.resource_mut::<Input>().fire = true;
/// schedule.run(&mut world);
/// world.resource_mut::<Input>().jammed = true;
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Shots>().0, 1);
/// assert!(schedule.describe().contains("shoot if firing and not jammed"));
/// ```
pub trait ConditionExt<Marker>: ConditionFn<Marker> + Sized {
    /// Holds when both hold; `other` is evaluated only if `self` holds.
    fn and<C: ConditionFn<M>, M>(self, other: C) -> AndCondition<Self, C, Marker, M> {
        AndCondition(self, other, PhantomData)
    }

    /// Holds when either holds; `other` is evaluated only if `self` does not.
    fn or<C: ConditionFn<M>, M>(self, other: C) -> OrCondition<Self, C, Marker, M> {
        OrCondition(self, other, PhantomData)
    }
}

impl<Marker, C: ConditionFn<Marker>> ConditionExt<Marker> for C {}

/// Holds when `condition` does not.
pub fn not<C: ConditionFn<M>, M>(condition: C) -> NotCondition<C, M> {
    NotCondition(condition, PhantomData)
}

/// The condition [`ConditionExt::and`] returns.
pub struct AndCondition<A, B, MA, MB>(A, B, PhantomData<fn() -> (MA, MB)>);
/// The condition [`ConditionExt::or`] returns.
pub struct OrCondition<A, B, MA, MB>(A, B, PhantomData<fn() -> (MA, MB)>);
/// The condition [`not`] returns.
pub struct NotCondition<C, M>(C, PhantomData<fn() -> M>);

impl<A, B, MA, MB> ConditionFn<AndCondition<(), (), MA, MB>> for AndCondition<A, B, MA, MB> {}
impl<A, B, MA, MB> ConditionFn<OrCondition<(), (), MA, MB>> for OrCondition<A, B, MA, MB> {}
impl<C, M> ConditionFn<NotCondition<(), M>> for NotCondition<C, M> {}

impl<S, A, B, MA, MB> IntoCondition<S, AndCondition<(), (), MA, MB>> for AndCondition<A, B, MA, MB>
where
    S: Schema,
    A: IntoCondition<S, MA>,
    B: IntoCondition<S, MB>,
{
    fn into_condition(self) -> Condition<S> {
        self.0.into_condition().both(self.1.into_condition())
    }
}

impl<S, A, B, MA, MB> IntoCondition<S, OrCondition<(), (), MA, MB>> for OrCondition<A, B, MA, MB>
where
    S: Schema,
    A: IntoCondition<S, MA>,
    B: IntoCondition<S, MB>,
{
    fn into_condition(self) -> Condition<S> {
        self.0.into_condition().either(self.1.into_condition())
    }
}

impl<S, C, M> IntoCondition<S, NotCondition<(), M>> for NotCondition<C, M>
where
    S: Schema,
    C: IntoCondition<S, M>,
{
    fn into_condition(self) -> Condition<S> {
        let inner = self.0.into_condition();
        Condition {
            name: Cow::Owned(format!("not {}", inner.name_inside())),
            access: inner.access,
            has_locals: inner.has_locals,
            compound: false,
            system: Box::new(Opposite(inner.system)),
        }
    }
}

/// A condition that holds when at least one event `E` was sent since its
/// system's previous turn in the schedule (run or skipped), in program
/// order: an [`EventReader`] that is not empty.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::condition::on_event;
/// struct Pos(i32);
/// struct Hit;
/// #[derive(Default)] struct Flashes(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(event)] hit: Hit, #[ecs(resource)] flashes: Flashes }
///
/// fn flash(mut flashes: ResMut<Flashes>) { flashes.0 += 1; }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(flash.run_if(on_event::<Hit>()));
/// schedule.run(&mut world);
/// world.send_event(Hit);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Flashes>().0, 1);
/// ```
pub fn on_event<E>() -> OnEvent<E> {
    OnEvent(PhantomData)
}

/// The condition [`on_event`] returns.
pub struct OnEvent<E>(PhantomData<fn() -> E>);

impl<E> ConditionFn<OnEvent<()>> for OnEvent<E> {}

impl<S: Schema, E: Event<S>> IntoCondition<S, OnEvent<()>> for OnEvent<E> {
    fn into_condition(self) -> Condition<S> {
        let condition = |events: EventReader<E>| !events.is_empty();
        IntoCondition::<S, _>::into_condition(condition)
            .named(format!("on_event::<{}>", short_type_name::<E>()))
    }
}

/// A condition that holds when resource `T`'s value differs from what it
/// was the last time the condition was evaluated, and the first time it is
/// evaluated on a world.
///
/// "Differs" is by value: the condition keeps the digest of `T`'s
/// [`StableHash`] in a [`Local`] (world state, so a snapshot or a save
/// carries it, and two worlds that agree decide alike) and compares the
/// digest each time, at the cost of hashing `T`. Writing the same value
/// back is no change; a change that is undone before the condition's next
/// turn is none either.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::condition::resource_changed;
/// use schemecs::checksum::StableHash;
/// struct Pos(i32);
/// #[derive(Default, StableHash)] struct Score(u32);
/// #[derive(Default)] struct Redraws(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(resource)] score: Score, #[ecs(resource)] redraws: Redraws }
///
/// fn redraw(mut redraws: ResMut<Redraws>) { redraws.0 += 1; }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(redraw.run_if(resource_changed::<Score>()));
/// schedule.run(&mut world); // first time: holds
/// schedule.run(&mut world); // unchanged
/// world.resource_mut::<Score>().0 = 5;
/// schedule.run(&mut world); // changed
/// world.resource_mut::<Score>().0 = 5;
/// schedule.run(&mut world); // the same value: unchanged
/// assert_eq!(world.resource::<Redraws>().0, 2);
/// ```
pub fn resource_changed<T>() -> ResourceChanged<T> {
    ResourceChanged(PhantomData)
}

/// The condition [`resource_changed`] returns.
pub struct ResourceChanged<T>(PhantomData<fn() -> T>);

impl<T> ConditionFn<ResourceChanged<()>> for ResourceChanged<T> {}

impl<S: Schema, T: Resource<S> + StableHash> IntoCondition<S, ResourceChanged<()>>
    for ResourceChanged<T>
{
    fn into_condition(self) -> Condition<S> {
        let condition = |value: Res<T>, mut seen: Seen<'_>| {
            let mut hasher = StableHasher::new();
            (*value).stable_hash(&mut hasher);
            let digest = Some(hasher.finish());
            let changed = *seen != digest;
            *seen = digest;
            changed
        };
        IntoCondition::<S, _>::into_condition(condition)
            .named(format!("resource_changed::<{}>", short_type_name::<T>()))
    }
}

/// What [`resource_changed`] keeps: the digest of the value it saw last,
/// which a save writes (with feature `serde`) as it writes the resource.
#[cfg(feature = "serde")]
type Seen<'s> = super::SavedLocal<'s, Option<u128>>;
#[cfg(not(feature = "serde"))]
type Seen<'s> = Local<'s, Option<u128>>;

/// `T`'s name without its module path.
fn short_type_name<T>() -> &'static str {
    let full = core::any::type_name::<T>();
    let end = full.find('<').unwrap_or(full.len());
    let start = full[..end].rfind("::").map_or(0, |at| at + 2);
    &full[start..]
}

/// A system with a run condition: what [`RunIfExt::run_if`] returns, for
/// [`Schedule::add`](crate::schedule::Schedule::add).
pub struct RunIf<T, C, M, CM> {
    system: T,
    condition: C,
    marker: PhantomData<fn() -> (M, CM)>,
}

/// `run_if`, a method of every system: `schedule.add(system.run_if(condition))`.
///
/// A condition is a read-only system that returns `bool`: a function whose
/// parameters are all [`ConditionParam`]s (`Res`, `Query` with read-only
/// items, `EventReader`, `Removed`, `Local`), one of the ready-made
/// conditions ([`in_state`](crate::state::in_state), [`on_event`],
/// [`resource_changed`]), or a combination ([`ConditionExt::and`],
/// [`ConditionExt::or`], [`not`]). A condition that writes fails to compile.
///
/// # When a condition runs, and what it sees
///
/// A system's condition is evaluated when the system comes up in the run,
/// in program order: right before the system would run, it sees the world
/// as the system would. Its reads count in the system's access, so the
/// schedule orders it after every earlier writer of what it reads, as if the
/// system read it. Its change and event windows are the system's turn in
/// the run (what happened since the system's previous turn, whether it ran
/// or was skipped); its [`Local`]s are world state like any system's, kept
/// per schedule and system. It records nothing. `a.and(b)` evaluates `b`
/// only if `a` holds, `a.or(b)` only if `a` does not.
///
/// # A skipped system
///
/// A system whose condition does not hold records nothing: no commands, no
/// events, no writes, its `Local`s untouched. Its windows accumulate: when
/// it next runs, its `Changed`, `Added`, `Removed` and `EventReader`
/// parameters see everything since its last *run*, not just since its last
/// turn (a record of the skip that is world state: clones, checksums and
/// saves carry it). A system skipped from its first turn on first runs as a
/// new system does, seeing what the world still keeps.
///
/// For that, the world keeps the events and removal records a skipped
/// system with an `EventReader` or `Removed` has not seen, of the types it
/// reads, as it keeps them for a schedule that has not run again, for
/// [`HOLD_RUNS`](crate::retention::HOLD_RUNS) runs of the world after it
/// was first skipped (see [`crate::retention`]). Skipped for longer, it
/// holds nothing back, and when it runs again it reads what is still kept
/// and learns how many it missed from
/// [`EventReader::missed`](crate::event::EventReader::missed) and
/// [`Removed::missed`](crate::change::Removed::missed). A skipped system that reads
/// neither holds nothing back.
///
/// # Groups: one condition for several systems
///
/// A tuple of systems (up to 16; tuples nest) is added as its systems one
/// after another, in order, as one [`Schedule::add`](crate::schedule::Schedule::add)
/// each would: `schedule.add((a, b, c))`. `(a, b, c).run_if(condition)`
/// guards all three with one condition, evaluated **once per run, at the
/// turn of the group's first system** (`a`), as bevy evaluates a system
/// set's condition: it sees the world as `a` would, with `a`'s windows (what
/// happened since `a`'s previous turn), and `b` and `c` follow that
/// decision even if `a` changes what the condition reads. A group that
/// does not hold costs one evaluation, whatever its size: its systems are
/// skipped as a skipped single system is, each recording its skip, so that
/// each one's next run sees everything since its last run.
///
/// The condition's reads count in the access of each system of the group,
/// and no system of the group runs in a stage before the first one's (see
/// [`Schedule::describe`](crate::schedule::Schedule::describe)), so parallel and
/// sequential runs agree. Its [`Local`]s are world state, kept per
/// schedule and group.
///
/// Conditions stack from the outside in: a group's condition is decided
/// before those of the groups inside it, and a system's own condition
/// last; a group that does not hold evaluates none of them. A second
/// `run_if` on a group is a second condition of the same group, evaluated
/// after the first and only if it holds.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
/// enum Phase { #[default] Menu, Playing }
/// struct Pos(i32);
/// #[derive(Default)] struct Log(Vec<&'static str>);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(resource)] log: Log, #[ecs(state)] phase: Phase }
///
/// fn walk(mut log: ResMut<Log>) { log.0.push("walk"); }
/// fn collide(mut log: ResMut<Log>) { log.0.push("collide"); }
/// fn score(mut log: ResMut<Log>) { log.0.push("score"); }
/// fn draw(mut log: ResMut<Log>) { log.0.push("draw"); }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule
///     .apply_transitions::<Phase>()
///     .add((walk, collide, score).run_if(in_state(Phase::Playing)))
///     .add(draw);
/// schedule.run(&mut world); // in the menu: the group is skipped
/// world.set_next_state(Phase::Playing);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, ["draw", "walk", "collide", "score", "draw"]);
/// ```
pub trait RunIfExt<Marker>: SystemFn<Marker> + Sized {
    /// The system, run only when `condition` holds; on a tuple of systems,
    /// the systems, run only when `condition` holds at the first one's
    /// turn (see "Groups" above). A second `run_if` adds a condition: both
    /// must hold.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// #[derive(Default)] struct Paused(bool);
    /// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] paused: Paused }
    ///
    /// fn running(paused: Res<Paused>) -> bool { !paused.0 }
    /// fn step(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
    ///
    /// let mut world = World::<Game>::new();
    /// let e = world.spawn((Pos(0),));
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add(step.run_if(running));
    /// schedule.run(&mut world);
    /// world.resource_mut::<Paused>().0 = true;
    /// schedule.run(&mut world);
    /// assert_eq!(world.get::<Pos>(e).unwrap().0, 1);
    /// ```
    fn run_if<C: ConditionFn<CM>, CM>(self, condition: C) -> RunIf<Self, C, Marker, CM> {
        RunIf {
            system: self,
            condition,
            marker: PhantomData,
        }
    }
}

impl<Marker, T: SystemFn<Marker>> RunIfExt<Marker> for T {}

/// What makes a [`RunIf`] a system. The impls of [`SystemFn`] and
/// [`IntoSystem`] for it are written over any type with these parts rather
/// than for `RunIf` itself, so that the compiler does not list them among
/// the "other types" that are systems when a function is not one.
#[doc(hidden)]
pub trait RunIfParts<S: Schema, M, CM>: Sized {
    const ACCESS: &'static [Access];
    const CHECK: ();
    fn into_node(self) -> SystemNode<S>;
}

/// The shape of a [`RunIf`], for [`SystemFn`] (see [`RunIfParts`]).
#[doc(hidden)]
pub trait RunIfShape<M, CM> {}

impl<T, C, M, CM> RunIfShape<M, CM> for RunIf<T, C, M, CM> {}

impl<R: RunIfShape<M, CM>, M, CM> SystemFn<RunIf<(), (), M, CM>> for R {}
#[diagnostic::do_not_recommend]
impl<R: RunIfShape<M, CM>, M, CM> super::sealed::Sealed<RunIf<(), (), M, CM>> for R {}

impl<S, T, C, M, CM> RunIfParts<S, M, CM> for RunIf<T, C, M, CM>
where
    S: Schema,
    T: IntoSystem<S, M>,
    C: IntoCondition<S, CM>,
{
    const ACCESS: &'static [Access] = T::ACCESS;
    const CHECK: () = T::CHECK;

    fn into_node(self) -> SystemNode<S> {
        let mut node = self.system.into_system();
        let condition = self.condition.into_condition();
        node.condition = Some(Box::new(match node.condition.take() {
            Some(first) => first.both(condition),
            None => condition,
        }));
        node
    }
}

/// What makes a [`RunIf`] something [`Schedule::add`](crate::schedule::Schedule::add)
/// takes, whether it guards one system or a tuple of them (see
/// [`RunIfParts`] for why the impl is written this way).
#[doc(hidden)]
pub trait RunIfGroupParts<S: Schema, M, CM>: Sized {
    const CHECK: ();
    fn add_guarded(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>);
}

impl<S, T, C, M, CM> RunIfGroupParts<S, M, CM> for RunIf<T, C, M, CM>
where
    S: Schema,
    T: IntoSystems<S, M>,
    C: IntoCondition<S, CM>,
{
    const CHECK: () = T::CHECK;

    fn add_guarded(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>) {
        let start = (systems.len(), groups.len());
        self.system.add_to(systems, groups);
        guard(start, self.condition.into_condition(), systems, groups);
    }
}

impl<S, R, M, CM> IntoSystems<S, RunIf<(), (), M, CM>> for R
where
    S: Schema,
    R: RunIfGroupParts<S, M, CM>,
{
    const CHECK: () = R::CHECK;

    fn add_to(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>) {
        self.add_guarded(systems, groups);
    }
}

impl<S, R, M, CM> IntoSystem<S, RunIf<(), (), M, CM>> for R
where
    S: Schema,
    R: RunIfParts<S, M, CM>,
{
    const ACCESS: &'static [Access] = R::ACCESS;
    const CHECK: () = R::CHECK;

    fn into_system(self) -> SystemNode<S> {
        self.into_node()
    }
}

impl<S: Schema> SystemNode<S> {
    /// Whether a parameter moves rows after the system's stage (a
    /// [`Migrator`](crate::command::Migrator)): see [`SystemParam::migrate`](crate::system::SystemParam).
    pub(crate) fn moves(&self) -> bool {
        self.access.iter().any(|access| access.moves)
    }

    /// Every access of the system: its parameters', then its condition's.
    pub(crate) fn accesses(&self) -> Cow<'_, [Access]> {
        match &self.condition {
            None => Cow::Borrowed(self.access),
            Some(condition) => {
                let mut all = self.access.to_vec();
                all.extend_from_slice(&condition.access);
                Cow::Owned(all)
            }
        }
    }

    /// Whether the system's own condition holds this turn, evaluated with
    /// `window` (the turn's), or `true` without one. `place` is the
    /// schedule's fingerprint and the system's index, where the
    /// condition's locals are kept.
    pub(crate) fn condition_holds(
        &mut self,
        world: &mut World<S>,
        buffers: &mut SplitBuffers<S>,
        window: ChangeWindow,
        (fingerprint, index): (u64, usize),
    ) -> bool {
        match &mut self.condition {
            Some(condition) => condition.holds(
                world,
                buffers,
                window,
                (Locals::condition, fingerprint, index),
                &self.name,
            ),
            None => true,
        }
    }

    /// Puts the condition's locals back after a panic (those still out).
    pub(crate) fn check_in_condition(
        &mut self,
        world: &mut World<S>,
        (fingerprint, index): (u64, usize),
    ) {
        if let Some(condition) = &mut self.condition {
            let place = (Locals::condition as LocalPlaces, fingerprint, index);
            condition.check_in_after_panic(world, place, &self.name);
        }
    }
}
