//! Groups of systems: `schedule.add((a, b, c))` adds three systems in
//! order, and `(a, b, c).run_if(condition)` guards them with one condition,
//! evaluated once per run. What a group's condition sees is documented on
//! [`RunIfExt`](super::RunIfExt).
//!
//! A tuple of systems is [`IntoSystems`]: it adds its members, in order, to
//! the schedule's list of systems. A `run_if` on a tuple (or on anything
//! that adds more than one system) adds a [`Group`]: the range of systems
//! it guards and its condition. Each member lists the groups it is in,
//! outermost first. The executor decides a group at its first member's
//! turn (`Group::decided`, for the current run only) and the other members
//! follow that decision; the plan never runs a member in a stage before its
//! group's first member (`Plan::new`).

use super::condition::LocalPlaces;
use super::{Condition, IntoSystem, SystemFn, SystemNode};
use crate::changes::ChangeWindow;
use crate::lend::SplitBuffers;
use crate::world_impl::Schema;
use crate::world_impl::{Locals, World};
use core::ops::Range;
use std::borrow::Cow;

/// Something [`Schedule::add`](crate::schedule::Schedule::add) accepts: a system, a
/// system with a run condition ([`RunIfExt::run_if`](crate::condition::RunIfExt::run_if)),
/// or a tuple of up to 16 of those (tuples nest), which adds its systems in
/// order, as one `add` each would; a tuple with a run condition guards all
/// of them with it. `Marker` is inferred.
///
/// Only this crate implements it (it is sealed: its hidden method takes a
/// type that no other crate can name). Name it, beside [`SystemFn`], as the
/// bound of a function that adds systems its caller chooses:
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::schedule::SendSchema;
/// use schemecs::system::{IntoSystems, SystemFn};
///
/// /// Adds `systems`, then one that counts the runs.
/// fn add_counted<S, M>(
///     schedule: &mut Schedule<S>,
///     systems: impl SystemFn<M> + IntoSystems<S, M>,
/// ) where
///     S: SendSchema,
///     Runs: Resource<S>,
/// {
///     schedule.add(systems).add(|mut runs: ResMut<Runs>| runs.0 += 1);
/// }
///
/// struct Pos(i32);
/// #[derive(Default)] struct Runs(u32);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] runs: Runs }
///
/// fn step(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
/// fn check(q: Query<&Pos>) { assert!(q.iter().all(|p| p.0 > 0)); }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// add_counted(&mut schedule, (step, check));
/// world.spawn((Pos(0),));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Runs>().0, 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system of schema `{S}`",
    label = "not a system of `{S}`",
    note = "a system is a function whose parameters are all system parameters of `{S}` \
            (`Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Commands<{S}>`, `Local<T>`, `EventReader<E>`, \
            `EventWriter<E>`, `Removed<T>`, `SparseMut<{S}, C>`, `Migrator<{S}, C, F>`, `Spawner<{S}, B>`, `UnnamedSpawner<{S}, B>`, `Despawner<{S}>`, `NextState<T>` and, with feature `serde`, `SavedLocal<T>`; up to 8), or a function \
            taking only `&mut World<{S}>`; it returns `()` and must be `Send + 'static`; \
            `Schedule::add` also takes a tuple of systems"
)]
pub trait IntoSystems<S: Schema, Marker>: Sized {
    /// Fails to evaluate (a compile error) if two parameters of a system
    /// conflict.
    #[doc(hidden)]
    const CHECK: ();

    /// Appends the systems to `systems`, and the groups they make to
    /// `groups` (inner groups before the groups around them).
    #[doc(hidden)]
    fn add_to(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>);
}

/// Adds a system made by [`IntoSystem`] (for the impls of [`IntoSystems`]
/// of single systems).
pub(crate) fn add_one<S: Schema, M, T: IntoSystem<S, M>>(
    system: T,
    systems: &mut Vec<SystemNode<S>>,
) {
    systems.push(system.into_system());
}

/// Systems of a schedule guarded by one run condition:
/// `(a, b, c).run_if(condition)`.
#[doc(hidden)]
pub struct Group<S: Schema> {
    /// The indices of its systems in the schedule.
    pub(crate) systems: Range<usize>,
    pub(crate) condition: Condition<S>,
    /// The name of its first system, which messages about the condition's
    /// locals name (as they name a system for its own condition's).
    owner: Cow<'static, str>,
    /// Whether the condition held at the first system's turn in the
    /// current run; `None` until then. Not world state: decided anew in
    /// every run, and forgotten when the run ends.
    pub(crate) decided: Option<bool>,
}

impl<S: Schema> Group<S> {
    /// The decision of the current run: the one made already, or, at the
    /// group's first system's turn, the condition evaluated with that
    /// turn's `window`. `place` is the schedule's fingerprint and the
    /// group's index, where the condition's locals are kept.
    pub(crate) fn holds(
        &mut self,
        world: &mut World<S>,
        buffers: &mut SplitBuffers<S>,
        window: ChangeWindow,
        (fingerprint, index): (u64, usize),
    ) -> bool {
        if let Some(decided) = self.decided {
            return decided;
        }
        let place = (Locals::group_condition as LocalPlaces, fingerprint, index);
        let holds = self
            .condition
            .holds(world, buffers, window, place, &self.owner);
        self.decided = Some(holds);
        holds
    }

    /// Puts the condition's locals back after a panic (those still out).
    pub(crate) fn check_in_after_panic(&mut self, world: &mut World<S>, place: (u64, usize)) {
        let (fingerprint, index) = place;
        let place = (Locals::group_condition as LocalPlaces, fingerprint, index);
        self.condition
            .check_in_after_panic(world, place, &self.owner);
    }
}

/// Guards the systems `add` appended from `first` on with `condition`: a
/// single system (`system.run_if(condition)`) gets it as its own; several
/// make a group, and a group of exactly those systems made inside (`(a,
/// b).run_if(x).run_if(y)`) takes it as a second condition, evaluated
/// after its first, as a single system's second `run_if` is.
pub(crate) fn guard<S: Schema>(
    (first, groups_before): (usize, usize),
    condition: Condition<S>,
    systems: &mut [SystemNode<S>],
    groups: &mut Vec<Group<S>>,
) {
    let end = systems.len();
    if end == first {
        return;
    }
    if end == first + 1 && groups.len() == groups_before {
        let node = &mut systems[first];
        node.condition = Some(Box::new(match node.condition.take() {
            Some(earlier) => earlier.both(condition),
            None => condition,
        }));
        return;
    }
    let same = |group: &Group<S>| group.systems == (first..end);
    if groups.len() > groups_before && groups.last().is_some_and(same) {
        if let Some(mut last) = groups.pop() {
            last.condition = last.condition.both(condition);
            groups.push(last);
        }
        return;
    }
    let index = u32::try_from(groups.len()).unwrap_or(u32::MAX);
    for node in &mut systems[first..end] {
        node.groups.insert(0, index);
    }
    groups.push(Group {
        systems: first..end,
        condition,
        owner: systems[first].name.clone(),
        decided: None,
    });
}

/// Marker of a tuple of systems, for [`SystemFn`] and [`IntoSystems`].
#[doc(hidden)]
pub struct Tuple<M>(core::marker::PhantomData<fn() -> M>);

/// What makes a tuple of systems a [`SystemFn`]. The impls of [`SystemFn`]
/// and [`IntoSystems`] for tuples are written over any type with these
/// parts (as those of `RunIf` are), so that the compiler does not list
/// every tuple among the "other types" that are systems when a function
/// is not one.
#[doc(hidden)]
pub trait TupleShape<M> {}

/// What makes a tuple of systems [`IntoSystems`] (see [`TupleShape`]).
#[doc(hidden)]
pub trait TupleParts<S: Schema, M>: Sized {
    const CHECK: ();
    fn add_all(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>);
}

impl<T: TupleShape<M>, M> SystemFn<Tuple<M>> for T {}
#[diagnostic::do_not_recommend]
impl<T: TupleShape<M>, M> super::sealed::Sealed<Tuple<M>> for T {}

impl<S: Schema, T: TupleParts<S, M>, M> IntoSystems<S, Tuple<M>> for T {
    const CHECK: () = T::CHECK;

    fn add_to(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>) {
        self.add_all(systems, groups);
    }
}

macro_rules! impl_tuple {
    ($(($t:ident, $m:ident)),*) => {
        impl<$($t: SystemFn<$m>, $m),*> TupleShape<($($m,)*)> for ($($t,)*) {}

        #[allow(non_snake_case)]
        impl<S: Schema, $($t: IntoSystems<S, $m>, $m),*> TupleParts<S, ($($m,)*)> for ($($t,)*) {
            const CHECK: () = {
                $(let () = $t::CHECK;)*
            };

            fn add_all(self, systems: &mut Vec<SystemNode<S>>, groups: &mut Vec<Group<S>>) {
                let ($($t,)*) = self;
                $($t.add_to(systems, groups);)*
            }
        }
    };
}

/// Implements the tuple traits for every prefix of the list: tuples of 1
/// to 16 systems.
macro_rules! impl_tuple_prefixes {
    ([$($done:tt),*];) => {};
    ([$($done:tt),*]; $next:tt $(, $rest:tt)*) => {
        impl_tuple!($($done,)* $next);
        impl_tuple_prefixes!([$($done,)* $next]; $($rest),*);
    };
}

impl_tuple_prefixes!([];
    (T0, M0), (T1, M1), (T2, M2), (T3, M3), (T4, M4), (T5, M5), (T6, M6), (T7, M7),
    (T8, M8), (T9, M9), (T10, M10), (T11, M11), (T12, M12), (T13, M13), (T14, M14), (T15, M15)
);
