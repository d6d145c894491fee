//! Changing and testing a state: [`NextState`], the system parameter that
//! requests a transition; [`in_state`], the run condition; and the world's
//! own access to its states.

use super::{state_text, State, States};
use crate::changes::ChangeWindow;
use crate::lend::SplitWorld;
use crate::system::{Access, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::World;
use core::fmt;

/// A system parameter that requests a transition of state `T`: it is
/// applied at the start of the next run of a schedule that applies `T`'s
/// transitions (see [`Schedule::on_enter`](crate::schedule::Schedule::on_enter)).
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
