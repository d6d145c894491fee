//! The transitions a schedule applies at the start of its runs: per state
//! type, the initial state's entry (at the world's first such run) and the
//! pending transition, with their exit and enter systems.
//!
//! Each state's exit systems form a schedule of their own, and so do its
//! enter systems, each system guarded by the condition `in_state(..)` of the
//! state it is for: they have change windows, ticks and `Local`s like any
//! schedule's (told apart from other schedules by a label mixed into their
//! fingerprint: the state's name, and the label of the schedule they belong
//! to, if it has one), and they run only when a transition is applied.

use super::Schedule;
use crate::state::in_state;
use crate::state::{state_text, State, States};
use crate::system::{IntoSystems, RunIfExt, SystemFn};
use crate::world_impl::Schema;
use crate::world_impl::SendSchema;
use crate::world_impl::{ScheduleOwner, World};
use core::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe, Location};
use std::sync::Arc;

/// The transitions of one state type, its type erased.
pub(super) trait Transitions<S: Schema>: Send {
    /// The state type's name (`type_name`), which tells entries apart.
    fn state(&self) -> &'static str;
    /// Applies the pending transition, if any: the exit systems, the
    /// switch, the enter systems. `sequential`: run them one by one.
    fn apply(&mut self, world: &mut World<S>, sequential: bool);
    /// The exit and enter systems, each with its label (`on_exit(Phase::Menu)`).
    fn systems(&self) -> [(&Schedule<S>, &[String]); 2];
    /// Makes `world` forget both schedules.
    fn forget(&mut self, world: &mut World<S>) -> bool;
    /// The exit and enter systems' schedules.
    fn schedules_mut(&mut self) -> [&mut Schedule<S>; 2];
    /// Labels both schedules after `parent`, the label of the schedule
    /// they belong to (see [`StateTransitions::new`]).
    fn relabel(&mut self, parent: Option<&str>);
    /// For adding systems: the entry of a state type is found by name, and
    /// its exit and enter systems are added through its own type.
    fn as_any_mut(&mut self) -> &mut dyn core::any::Any;
}

/// The transitions of state `T`.
pub(super) struct StateTransitions<S: Schema, T> {
    exits: Schedule<S>,
    exit_labels: Vec<String>,
    enters: Schedule<S>,
    enter_labels: Vec<String>,
    state: PhantomData<fn() -> T>,
}

impl<S: Schema, T: States<S>> StateTransitions<S, T> {
    /// The transitions of `T` of a schedule labelled `parent` (if it is),
    /// created at `created`: their schedules are labelled `on_exit of T`
    /// and `on_enter of T`, followed by ` in {parent}`, so that the exit
    /// and enter systems of two schedules told apart by their labels are
    /// told apart too.
    pub(super) fn new(parent: Option<&str>, created: &'static Location<'static>) -> Self {
        let part = |label: Option<String>| Schedule {
            label,
            owner: Arc::new(ScheduleOwner { created }),
            ..Schedule::default()
        };
        let mut transitions = StateTransitions {
            exits: part(None),
            exit_labels: Vec::new(),
            enters: part(None),
            enter_labels: Vec::new(),
            state: PhantomData,
        };
        transitions.label_after(parent);
        transitions
    }

    fn label_after(&mut self, parent: Option<&str>) {
        let name = core::any::type_name::<T>();
        let label = |part: &str| match parent {
            Some(parent) => format!("{part} of {name} in {parent}"),
            None => format!("{part} of {name}"),
        };
        self.exits.set_label(label("on_exit"));
        self.enters.set_label(label("on_enter"));
    }

    pub(super) fn add_exit<M, F>(&mut self, state: T, system: F)
    where
        F: SystemFn<M> + IntoSystems<S, M>,
        S: SendSchema,
    {
        let label = format!("on_exit({})", state_text(&state));
        let before = self.exits.len();
        self.exits.add(system.run_if(in_state(state)));
        let added = self.exits.len() - before;
        self.exit_labels.extend(core::iter::repeat_n(label, added));
    }

    pub(super) fn add_enter<M, F>(&mut self, state: T, system: F)
    where
        F: SystemFn<M> + IntoSystems<S, M>,
        S: SendSchema,
    {
        let label = format!("on_enter({})", state_text(&state));
        let before = self.enters.len();
        self.enters.add(system.run_if(in_state(state)));
        let added = self.enters.len() - before;
        self.enter_labels.extend(core::iter::repeat_n(label, added));
    }
}

impl<S, T> Transitions<S> for StateTransitions<S, T>
where
    S: SendSchema,
    T: States<S>,
{
    fn state(&self) -> &'static str {
        core::any::type_name::<T>()
    }

    fn apply(&mut self, world: &mut World<S>, sequential: bool) {
        let run = |schedule: &mut Schedule<S>, world: &mut World<S>| {
            if schedule.is_empty() {
                return;
            }
            if sequential {
                schedule.run_sequential(world);
            } else {
                schedule.run(world);
            }
        };
        // The initial state is entered at the first run, before a
        // transition requested before it (or by one of these enter
        // systems) is applied. If an enter system panics, the state counts
        // as entered, as after a transition's.
        if world.resource_mut::<State<T>>().enter() {
            run(&mut self.enters, world);
        }
        let cell = world.resource_mut::<State<T>>();
        let Some(next) = cell.take_next() else {
            return;
        };
        if next == *cell.get() {
            return;
        }
        // If an exit system panics, the switch has not happened: the
        // request stays pending, for the next run to make.
        let exits = catch_unwind(AssertUnwindSafe(|| run(&mut self.exits, world)));
        if let Err(panic) = exits {
            world.resource_mut::<State<T>>().set_next(next);
            resume_unwind(panic);
        }
        world.resource_mut::<State<T>>().switch(next);
        run(&mut self.enters, world);
    }

    fn systems(&self) -> [(&Schedule<S>, &[String]); 2] {
        [
            (&self.exits, &self.exit_labels),
            (&self.enters, &self.enter_labels),
        ]
    }

    fn forget(&mut self, world: &mut World<S>) -> bool {
        let exits = self.exits.forget(world);
        let enters = self.enters.forget(world);
        exits || enters
    }

    fn schedules_mut(&mut self) -> [&mut Schedule<S>; 2] {
        [&mut self.exits, &mut self.enters]
    }

    fn relabel(&mut self, parent: Option<&str>) {
        self.label_after(parent);
    }

    fn as_any_mut(&mut self) -> &mut dyn core::any::Any {
        self
    }
}
