//! States: a value of an enum declared in the schema (`#[ecs(state)] phase:
//! Phase`), such as a game's phase, with transitions that run exit and enter
//! systems.
//!
//! The world keeps each state as the resource [`State<T>`]: the current
//! value and the transition a system requested, if any. Both are world
//! state: `clone`, `clone_from`, [`World::checksum`](crate::world::World::checksum) and saves carry them
//! like any resource, so a rolled-back world applies the same transition at
//! the same point.
//!
//! A system requests a transition with [`NextState<T>`]; the request waits
//! until the start of the next run of a schedule that applies `T`'s
//! transitions (one with an [`on_enter`](crate::schedule::Schedule::on_enter) or
//! [`on_exit`](crate::schedule::Schedule::on_exit) system for `T`, or told so with
//! [`Schedule::apply_transitions`](crate::schedule::Schedule::apply_transitions)).
//! That schedule runs the exit systems of the state it leaves, switches the
//! state, runs the enter systems of the state it enters, and only then its
//! own systems: so every system of a run sees one state throughout, and the
//! conditions [`in_state`] of one run agree.
//!
//! **The initial state is entered too.** The state a world starts in is
//! entered once, at the world's first run of a schedule that applies the
//! state's transitions: that run runs the enter systems of the initial
//! state (no exit systems: no state was left), before it applies a
//! transition requested before it, as bevy runs `OnEnter` of the initial
//! state at startup before any transition. Whether the state was entered
//! is world state, kept in [`State<T>`] with the value: a snapshot or save
//! taken before that first run enters the initial state when it runs, one
//! taken after does not enter it again.

mod next;

pub use next::{in_state, InState, NextState};

use crate::layout::{Layout, Resource};
use crate::stable_hash::{StableHash, StableHasher};
use core::fmt;

/// A state type of schema `S`: the type of an `#[ecs(state)]` field.
///
/// Implemented by `#[derive(Schema)]`; the world keeps the value as the
/// resource [`State<Self>`]. A state is compared (`Eq`) to decide which
/// enter and exit systems run, cloned into them, and shown (`Debug`) by
/// [`Schedule::describe`](crate::schedule::Schedule::describe).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a state of schema `{S}`",
    label = "not a state of `{S}`",
    note = "states are the fields of `{S}` marked `#[ecs(state)]`; add \
            `#[ecs(state)] name: {Self}` to `{S}` to use it here (a state of another schema \
            is not one of `{S}`)"
)]
pub trait States<S: Layout>: Clone + Eq + fmt::Debug + Send + Sync + 'static {
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
/// [`World::resource`](crate::world::World::resource).
impl<S: Layout, T: States<S>> Resource<S> for State<T> {
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

/// What the world keeps of state `T`: its current value, the transition
/// requested, if any (applied at the start of the next run of a schedule
/// that applies `T`'s transitions), and whether the state was entered.
///
/// A new world's state has not been entered: the first run of a schedule
/// that applies `T`'s transitions runs the enter systems of the current
/// state ([`Schedule::on_enter`](crate::schedule::Schedule::on_enter)), then applies
/// the transition requested, if any; no later run enters it again. The
/// flag is world state like the value: `clone`, the checksum and saves
/// carry it.
///
/// A system reads it as `Res<State<T>>`; it requests a transition with
/// [`NextState<T>`]. Outside systems: [`World::state`](crate::world::World::state),
/// [`World::set_next_state`](crate::world::World::set_next_state).
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
    /// Whether `current` was entered (see [`State::entered`]).
    entered: bool,
}

impl<T> State<T> {
    /// A state that starts as `current`, not entered yet, with no
    /// transition requested (for
    /// [`World::with_resources`](crate::world::World::with_resources) when `T` has no `Default`).
    pub fn new(current: T) -> Self {
        State {
            current,
            next: None,
            entered: false,
        }
    }

    /// Whether the state was entered: `false` in a new world, until the
    /// first run of a schedule that applies `T`'s transitions, which runs
    /// the enter systems of the initial state; `true` from then on.
    #[inline]
    pub fn entered(&self) -> bool {
        self.entered
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

    /// Marks the current state entered; whether it was not yet, for the
    /// schedule that runs its enter systems.
    pub(crate) fn enter(&mut self) -> bool {
        !core::mem::replace(&mut self.entered, true)
    }
}

/// Current value, then the request (a `0` for none or a `1` and the
/// value), then whether it was entered.
impl<T: StableHash> StableHash for State<T> {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.current.stable_hash(hasher);
        self.next.stable_hash(hasher);
        self.entered.stable_hash(hasher);
    }
}

/// With feature `serde`: a cell saves as `(current, requested, entered)`.
#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for State<T> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        (&self.current, &self.next, self.entered).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for State<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (current, next, entered) = <(T, Option<T>, bool)>::deserialize(deserializer)?;
        Ok(State {
            current,
            next,
            entered,
        })
    }
}

/// `Phase::Playing` for a `Phase` whose `Debug` writes `Playing`: the
/// type's own name (without its path) before a variant's.
pub(crate) fn state_text<T: fmt::Debug>(state: &T) -> String {
    let full = core::any::type_name::<T>();
    let short = full.rsplit("::").next().unwrap_or(full);
    format!("{short}::{state:?}")
}
