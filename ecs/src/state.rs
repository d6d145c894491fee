//! States: a value of an enum declared in the schema (`#[ecs(state)] phase:
//! Phase`), such as a game's phase, with transitions that run exit and enter
//! systems.
//!
//! The world keeps each state as the resource [`State<T>`]: the current
//! value and the transition a system requested, if any. Both are world
//! state: `clone`, `clone_from`, [`World::checksum`] and saves carry them
//! like any resource, so a rolled-back world applies the same transition at
//! the same point.
//!
//! A system requests a transition with [`NextState<T>`]; the request waits
//! until the start of the next run of a schedule that applies `T`'s
//! transitions (one with an [`on_enter`](crate::Schedule::on_enter) or
//! [`on_exit`](crate::Schedule::on_exit) system for `T`, or told so with
//! [`Schedule::apply_transitions`](crate::Schedule::apply_transitions)).
//! That schedule runs the exit systems of the state it leaves, switches the
//! state, runs the enter systems of the state it enters, and only then its
//! own systems: so every system of a run sees one state throughout, and the
//! conditions [`in_state`] of one run agree.

use crate::change::ChangeWindow;
use crate::checksum::{StableHash, StableHasher};
use crate::lend::SplitWorld;
use crate::schema::{Resource, Schema};
use crate::system::{Access, SystemParam};
use crate::world::World;
use core::fmt;

/// A state type of schema `S`: the type of an `#[ecs(state)]` field.
///
/// Implemented by `#[derive(Schema)]`; the world keeps the value as the
/// resource [`State<Self>`]. A state is compared (`Eq`) to decide which
/// enter and exit systems run, cloned into them, and shown (`Debug`) by
/// [`Schedule::describe`](crate::Schedule::describe).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a state of schema `{S}`",
    label = "not a state of `{S}`",
    note = "states are the fields of `{S}` marked `#[ecs(state)]`; add \
            `#[ecs(state)] name: {Self}` to `{S}` to use it here (a state of another schema \
            is not one of `{S}`)"
)]
pub trait States<S: Schema>: Clone + Eq + fmt::Debug + Send + Sync + 'static {
    /// The resource bit of this state's [`State`] cell.
    const BIT: u32;

    /// The state's slot.
    #[doc(hidden)]
    fn slot<'s, 'a>(
        slots: &'s mut S::ResourceSlots<'a>,
    ) -> &'s mut crate::lend::Lent<'a, State<Self>>;

    /// The state's cell inside the schema's resources struct.
    #[doc(hidden)]
    fn cell(resources: &S::Resources) -> &State<Self>;

    /// The state's cell inside the schema's resources struct.
    #[doc(hidden)]
    fn cell_mut(resources: &mut S::Resources) -> &mut State<Self>;
}

/// Every state's cell is a resource: read it with `Res<State<T>>` or
/// [`World::resource`].
impl<S: Schema, T: States<S>> Resource<S> for State<T> {
    const BIT: u32 = T::BIT;

    #[inline]
    fn slot<'s, 'a>(slots: &'s mut S::ResourceSlots<'a>) -> &'s mut crate::lend::Lent<'a, Self> {
        T::slot(slots)
    }

    #[inline]
    fn get(resources: &S::Resources) -> &Self {
        T::cell(resources)
    }

    #[inline]
    fn get_mut(resources: &mut S::Resources) -> &mut Self {
        T::cell_mut(resources)
    }
}

/// What the world keeps of state `T`: its current value and the transition
/// requested, if any (applied at the start of the next run of a schedule
/// that applies `T`'s transitions).
///
/// A system reads it as `Res<State<T>>`; it requests a transition with
/// [`NextState<T>`]. Outside systems: [`World::state`],
/// [`World::set_next_state`].
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Clone)] struct Pos(i32);
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
/// enum Phase { #[default] Menu, Playing }
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(state)] phase: Phase }
///
/// fn start(mut next: NextState<Phase>) { next.set(Phase::Playing); }
/// fn report(phase: Res<State<Phase>>) { assert_eq!(*phase.get(), Phase::Menu); }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.apply_transitions::<Phase>().add(start).add(report);
/// schedule.run(&mut world); // report still sees Menu: the request waits
/// assert_eq!(world.resource::<State<Phase>>().pending(), Some(&Phase::Playing));
/// world.clone_from(&world.clone()); // a snapshot keeps the request
/// let mut next_run = Schedule::<Game>::new();
/// next_run.apply_transitions::<Phase>();
/// next_run.run(&mut world);
/// assert_eq!(*world.state::<Phase>(), Phase::Playing);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State<T> {
    current: T,
    next: Option<T>,
}

impl<T> State<T> {
    /// A state that starts as `current`, with no transition requested (for
    /// [`World::with_resources`] when `T` has no `Default`).
    pub fn new(current: T) -> Self {
        State {
            current,
            next: None,
        }
    }

    /// The current state.
    #[inline]
    pub fn get(&self) -> &T {
        &self.current
    }

    /// The transition requested and not yet applied, if any.
    #[inline]
    pub fn pending(&self) -> Option<&T> {
        self.next.as_ref()
    }

    /// Requests a transition to `next`, replacing an earlier request not
    /// yet applied.
    #[inline]
    pub fn set_next(&mut self, next: T) {
        self.next = Some(next);
    }

    /// Takes the requested transition, for the schedule that applies it.
    pub(crate) fn take_next(&mut self) -> Option<T> {
        self.next.take()
    }

    /// Switches to `state` (during a transition).
    pub(crate) fn switch(&mut self, state: T) {
        self.current = state;
    }
}

/// Current value, then the request: a `0` for none or a `1` and the value.
impl<T: StableHash> StableHash for State<T> {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.current.stable_hash(hasher);
        self.next.stable_hash(hasher);
    }
}

/// With feature `serde`: a cell saves as `(current, requested)`.
#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for State<T> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        (&self.current, &self.next).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for State<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (current, next) = <(T, Option<T>)>::deserialize(deserializer)?;
        Ok(State { current, next })
    }
}

/// A system parameter that requests a transition of state `T`: it is
/// applied at the start of the next run of a schedule that applies `T`'s
/// transitions (see [`Schedule::on_enter`](crate::Schedule::on_enter)).
/// The last request before then wins; a request for the current state
/// does nothing.
///
/// Named after what it changes, the *next* state: the current one stays
/// what it is for the rest of the run, for every system. It writes the
/// state's cell, so it waits for the systems before it that read the state
/// (and those after it wait for it), as a `ResMut` would.
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(i32);
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
/// enum Phase { #[default] Playing, Paused }
/// #[derive(Default)] struct Input { pause: bool }
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(resource)] input: Input, #[ecs(state)] phase: Phase }
///
/// fn pause(input: Res<Input>, mut next: NextState<Phase>) {
///     if input.pause && *next.current() == Phase::Playing {
///         next.set(Phase::Paused);
///     }
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.apply_transitions::<Phase>().add(pause);
/// world.resource_mut::<Input>().pause = true;
/// schedule.run(&mut world);
/// assert_eq!(*world.state::<Phase>(), Phase::Playing);
/// schedule.run(&mut world);
/// assert_eq!(*world.state::<Phase>(), Phase::Paused);
/// ```
pub struct NextState<'w, T> {
    cell: &'w mut State<T>,
}

impl<T> NextState<'_, T> {
    /// Requests a transition to `next` (replacing an earlier request).
    #[inline]
    pub fn set(&mut self, next: T) {
        self.cell.set_next(next);
    }

    /// The current state, which stays for the rest of the run.
    #[inline]
    pub fn current(&self) -> &T {
        &self.cell.current
    }

    /// The transition requested so far, if any.
    #[inline]
    pub fn pending(&self) -> Option<&T> {
        self.cell.next.as_ref()
    }
}

impl<T: fmt::Debug> fmt::Debug for NextState<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("NextState").field(&self.cell.next).finish()
    }
}

impl<S: Schema, T: States<S>> SystemParam<S> for NextState<'_, T> {
    type State = ();
    type Item<'w> = NextState<'w, T>;
    const ACCESS: Access = Access {
        resource_writes: 1 << T::BIT,
        ..Access::NONE
    };
    const CHECK: () = ();

    fn init() {}

    fn prepare(_: &mut (), _: &World<S>, _: ChangeWindow) {}

    fn fetch<'w>(_: &'w mut (), world: &mut SplitWorld<'w, S>) -> NextState<'w, T> {
        NextState {
            cell: T::slot(&mut world.resources).exclusive(),
        }
    }
}

/// A run condition: whether state `T` is `state` (compared when the
/// condition's system comes up in the run; a transition requested in the
/// run takes effect at the next).
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(i32);
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
/// enum Phase { #[default] Menu, Playing }
/// #[derive(Default)] struct Frames(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(resource)] frames: Frames, #[ecs(state)] phase: Phase }
///
/// fn count(mut frames: ResMut<Frames>) { frames.0 += 1; }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.apply_transitions::<Phase>().add(count.run_if(in_state(Phase::Playing)));
/// schedule.run(&mut world);
/// world.set_next_state(Phase::Playing);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Frames>().0, 1);
/// ```
pub fn in_state<T>(state: T) -> InState<T> {
    InState(state)
}

/// The condition [`in_state`] returns.
#[derive(Clone, Debug)]
pub struct InState<T>(pub(crate) T);

impl<S: Schema, T: States<S>> crate::system::IntoCondition<S, InState<()>> for InState<T> {
    fn into_condition(self) -> crate::system::Condition<S> {
        let name = format!("in_state({})", state_text(&self.0));
        let wanted = self.0;
        let condition = move |cell: crate::system::Res<State<T>>| *cell.get() == wanted;
        crate::system::IntoCondition::<S, _>::into_condition(condition).named(name)
    }
}

impl<T> crate::system::ConditionFn<InState<()>> for InState<T> {}

/// `Phase::Playing` for a `Phase` whose `Debug` writes `Playing`: the
/// type's own name (without its path) before a variant's.
pub(crate) fn state_text<T: fmt::Debug>(state: &T) -> String {
    let full = core::any::type_name::<T>();
    let short = full.rsplit("::").next().unwrap_or(full);
    format!("{short}::{state:?}")
}

impl<S: Schema> World<S> {
    /// The current value of state `T` (an `#[ecs(state)]` field).
    pub fn state<T: States<S>>(&self) -> &T {
        T::cell(self.resources()).get()
    }

    /// Requests a transition of state `T` to `next`, as a system's
    /// [`NextState`] would: applied at the start of the next run of a
    /// schedule that applies `T`'s transitions.
    pub fn set_next_state<T: States<S>>(&mut self, next: T) {
        self.resource_mut::<State<T>>().set_next(next);
    }
}
