//! Running a schedule one system at a time with a look at the world after
//! each ([`Schedule::run_inspected`]), and finding the first system whose
//! result differs between two runs from equal worlds
//! ([`Schedule::find_divergence`]): the system a desync starts in.

use super::executor::{admit, apply, run_alone};
use super::Schedule;
use crate::component_bounds::ChecksumSchema;
use crate::world_impl::{Schema, SendSchema, World, WorldDiff};
use core::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Where in a run of a schedule [`Schedule::run_inspected`] looks at the
/// world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step<'a> {
    /// After the state transitions that run before the first system (the
    /// exit and enter systems of states whose change was requested), in a
    /// schedule that has states.
    Transitions,
    /// After the system (its index in program order, and its name) ran and
    /// its commands were applied.
    System {
        /// The system's place in program order, from 0.
        index: usize,
        /// The system's name, as [`Schedule`]'s reports write it.
        name: &'a str,
    },
    /// At the end of the run: after the despawns that systems'
    /// [`Despawner`](crate::command::Despawner)s recorded.
    End,
}

impl fmt::Display for Step<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Transitions => f.write_str("the state transitions before the first system"),
            Step::System { index, name } => {
                write!(f, "system `{name}` (number {} in program order)", index + 1)
            }
            Step::End => f.write_str(
                "the end of the run (the despawns `Despawner`s recorded, made in one batch)",
            ),
        }
    }
}

/// The first step of a run of a schedule whose result differs between two
/// runs from equal worlds ([`Schedule::find_divergence`]), and how the two
/// worlds differ right after it.
#[derive(Clone, Debug)]
pub struct Divergence {
    step: OwnedStep,
    diff: WorldDiff,
}

/// A [`Step`] that owns the system's name.
#[derive(Clone, Debug, PartialEq, Eq)]
enum OwnedStep {
    Transitions,
    System { index: usize, name: String },
    End,
}

impl Divergence {
    /// The step after which the two runs first differ.
    pub fn step(&self) -> Step<'_> {
        match &self.step {
            OwnedStep::Transitions => Step::Transitions,
            OwnedStep::System { index, name } => Step::System {
                index: *index,
                name,
            },
            OwnedStep::End => Step::End,
        }
    }

    /// The name of the system after which the two runs first differ, if
    /// that step is a system's.
    pub fn system(&self) -> Option<&str> {
        match &self.step {
            OwnedStep::System { name, .. } => Some(name),
            _ => None,
        }
    }

    /// How the two worlds differ right after that step: the first run's
    /// world against the second's. Since they were equal before it, what
    /// it lists is what the step wrote differently.
    pub fn diff(&self) -> &WorldDiff {
        &self.diff
    }
}

/// "system `glitch` (number 6 in program order) is the first step whose
/// result differs between two runs from the same world; right after it,"
/// then the [`WorldDiff`] report.
impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is the first step whose result differs between two runs from the same world; \
             right after it, {}",
            self.step(),
            self.diff
        )
    }
}

impl<S: Schema> Schedule<S> {
    /// [`Schedule::run_sequential`], calling `inspect` with the world after
    /// each step: the state transitions (in a schedule that has states),
    /// each system that runs (after its commands are applied), and the end
    /// of the run. A system that its run condition skips has no step. For
    /// finding which system does what to a world (see
    /// [`Schedule::find_divergence`]), not for every frame.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::schedule::Step;
    /// #[derive(Debug, PartialEq)] struct Pos(i32);
    /// #[derive(Schema)] struct Game { pos: Pos }
    ///
    /// fn right(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
    /// fn double(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 *= 2); }
    ///
    /// let mut world = World::<Game>::new();
    /// let e = world.spawn((Pos(1),));
    /// let mut schedule = Schedule::new();
    /// schedule.add(right).add(double);
    /// let mut seen = Vec::new();
    /// schedule.run_inspected(&mut world, |step, world| {
    ///     if let Step::System { name, .. } = step {
    ///         seen.push((name.to_owned(), world.get::<Pos>(e).unwrap().0));
    ///     }
    /// });
    /// assert_eq!(seen, [("right".to_owned(), 2), ("double".to_owned(), 4)]);
    /// ```
    pub fn run_inspected(
        &mut self,
        world: &mut World<S>,
        mut inspect: impl FnMut(Step<'_>, &World<S>),
    ) where
        S: SendSchema,
    {
        self.claim(world);
        self.apply_pending(world, true);
        if !self.transitions.is_empty() {
            inspect(Step::Transitions, world);
        }
        let fingerprint = self.start(world);
        let (base, previous) =
            world.begin_schedule_run(fingerprint, self.systems.len() as u32, self.logs_read());
        self.undecide_groups();
        let result = catch_unwind(AssertUnwindSafe(|| {
            let buffers = self.executor.buffers();
            let groups = &mut self.groups;
            for (i, system) in self.systems.iter_mut().enumerate() {
                let window = World::<S>::system_window(base, previous, i);
                let place = (fingerprint, i);
                let Some(window) = admit(system, groups, world, buffers, window, place) else {
                    continue;
                };
                run_alone(system, world, buffers, window, place);
                world.set_change_tick(window.this_run);
                apply(system, world);
                let step = Step::System {
                    index: i,
                    name: &system.name,
                };
                inspect(step, world);
            }
        }));
        world.set_change_tick(base.wrapping_add(self.systems.len() as u32));
        self.finish(result, world, fingerprint);
        inspect(Step::End, world);
    }

    /// Runs the schedule twice, each time on a copy of `start`, one system
    /// at a time ([`Schedule::run_inspected`]), and compares the two worlds
    /// after each step: the first step after which they differ, with how
    /// they differ then, or `None` if the two runs agree all the way.
    ///
    /// A deterministic schedule never diverges: equal worlds in, equal
    /// worlds out. A system that reads something outside the world (a
    /// global counter, the clock, a thread-local generator, the order of a
    /// `HashMap`) can, and this names it, with the entities and components
    /// it wrote differently. It costs two runs, a checksum and a copy of the
    /// world per step.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::checksum::StableHash;
    /// use std::sync::atomic::{AtomicI32, Ordering};
    /// #[derive(Clone, Debug, PartialEq, StableHash)] struct Pos(i32);
    /// #[derive(Schema)] struct Game { pos: Pos }
    ///
    /// static CALLS: AtomicI32 = AtomicI32::new(0);
    /// fn walk(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
    /// // A bug: world state from outside the world.
    /// fn jitter(mut q: Query<&mut Pos>) {
    ///     q.for_each_mut(|p| p.0 += CALLS.fetch_add(1, Ordering::Relaxed));
    /// }
    ///
    /// let mut world = World::<Game>::new();
    /// let e = world.spawn((Pos(0),));
    /// let mut schedule = Schedule::new();
    /// schedule.add(walk).add(jitter).add(walk);
    /// let divergence = schedule.find_divergence(&world).expect("jitter diverges");
    /// assert_eq!(divergence.system(), Some("jitter"));
    /// assert_eq!(divergence.diff().component("Pos").unwrap().values(), [e]);
    /// ```
    pub fn find_divergence(&mut self, start: &World<S>) -> Option<Divergence>
    where
        S: SendSchema + ChecksumSchema,
        World<S>: Clone,
    {
        let mut steps: Vec<(OwnedStep, World<S>)> = Vec::new();
        let mut first = start.clone();
        self.run_inspected(&mut first, |step, world| {
            steps.push((owned(step), world.clone()));
        });
        let mut second = start.clone();
        let mut at = 0;
        let mut found = None;
        self.run_inspected(&mut second, |step, world| {
            if found.is_some() {
                return;
            }
            let step = owned(step);
            // The two runs take the same steps until they differ: a step
            // of one only is a difference too (a run condition that read
            // what differs).
            match steps.get(at) {
                Some((theirs, mine)) if *theirs == step && mine.checksum() == world.checksum() => {}
                Some((_, mine)) => {
                    found = Some(Divergence {
                        step,
                        diff: mine.diff(world),
                    });
                }
                None => {
                    found = Some(Divergence {
                        diff: first.diff(world),
                        step,
                    });
                }
            }
            at += 1;
        });
        found
    }
}

fn owned(step: Step<'_>) -> OwnedStep {
    match step {
        Step::Transitions => OwnedStep::Transitions,
        Step::System { index, name } => OwnedStep::System {
            index,
            name: name.to_owned(),
        },
        Step::End => OwnedStep::End,
    }
}
