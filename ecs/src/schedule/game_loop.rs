//! [`GameLoop`]: a fixed-step schedule and a per-frame schedule over one
//! world, with the fixed step's clock ([`FixedTime`]) kept in the world.

use super::Schedule;
use crate::layout::Resource;
use crate::stable_hash::{StableHash, StableHasher};
use crate::world_impl::Schema;
use crate::world_impl::SendSchema;
use crate::world_impl::World;
use core::time::Duration;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// The clock of a fixed step: its length, the frame time not yet spent on
/// steps, and counts of what ran. A resource the schema declares
/// (`#[ecs(resource)] time: FixedTime`) for [`GameLoop`] to keep in the
/// world: a snapshot, a checksum and a save carry the accumulator, so a
/// rolled-back or loaded world runs the same steps for the same frame
/// times.
///
/// All in integer nanoseconds: adding frame times never loses a
/// nanosecond, and the number of steps a frame runs depends on nothing but
/// the frame times fed in (no wall clock is read).
///
/// **A frame adds at most 250 ms.** A longer frame time (a stall: the
/// window dragged, a breakpoint, a slow load) counts as 250 ms, so that a
/// 10-second hitch of a 50 Hz game runs 12 steps in its frame, not 500,
/// and the game slows down for that frame instead of freezing to catch
/// up (bevy's `Time<Virtual>::max_delta` does the same, with the same
/// default). [`FixedTime::with_max_delta`] changes the cap;
/// `with_max_delta(Duration::MAX)` accepts any frame time.
/// [`FixedTime::with_max_steps`] limits the steps of a frame as well. The
/// cap is part of the clock, so it is world state as the rest: the same
/// frame times give the same steps after a rollback or a load.
///
/// ```
/// use core::time::Duration;
/// use schemecs::schedule::FixedTime;
///
/// let mut time = FixedTime::from_hz(50); // 20 ms steps
/// assert_eq!(time.step(), Duration::from_millis(20));
/// assert_eq!(time.advance(Duration::from_millis(45)), 2);
/// assert_eq!(time.overstep(), Duration::from_millis(5));
/// assert_eq!(time.advance(Duration::from_millis(15)), 1);
/// assert_eq!(time.overstep(), Duration::ZERO);
/// // A 10 s stall counts as 250 ms: 12 steps, 10 ms left over.
/// assert_eq!(time.advance(Duration::from_secs(10)), 12);
/// assert_eq!(time.overstep(), Duration::from_millis(10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedTime {
    /// The length of a step, in nanoseconds (at least 1).
    step_ns: u64,
    /// Frame time fed in and not yet spent on steps (less than a step
    /// between frames).
    accumulated_ns: u64,
    /// At most this many steps per frame; the time of any more is dropped.
    max_steps: u32,
    /// At most this much of a frame's time is fed in (at least 1).
    max_delta_ns: u64,
    /// Steps run, in all.
    steps: u64,
    /// Frame time fed in, in all, each frame's capped at `max_delta_ns`
    /// (saturating).
    elapsed_ns: u64,
}

impl Default for FixedTime {
    /// 64 steps a second (15.625 ms, exact in nanoseconds), a frame
    /// counting for at most 250 ms, with no other limit on the steps a
    /// frame runs.
    fn default() -> Self {
        FixedTime::new(Duration::from_nanos(15_625_000))
    }
}

impl FixedTime {
    /// The frame time a clock accepts by default: 250 ms (see
    /// [`FixedTime::with_max_delta`]).
    pub const DEFAULT_MAX_DELTA: Duration = Duration::from_millis(250);

    /// A clock of steps of `step` (at least 1 ns), nothing accumulated, a
    /// frame counting for at most [`FixedTime::DEFAULT_MAX_DELTA`].
    pub fn new(step: Duration) -> Self {
        FixedTime {
            step_ns: nanos(step).max(1),
            accumulated_ns: 0,
            max_steps: u32::MAX,
            max_delta_ns: nanos(Self::DEFAULT_MAX_DELTA),
            steps: 0,
            elapsed_ns: 0,
        }
    }

    /// A clock of `hz` steps a second (the step rounded down to whole
    /// nanoseconds).
    pub fn from_hz(hz: u32) -> Self {
        FixedTime::new(Duration::from_nanos(1_000_000_000 / u64::from(hz.max(1))))
    }

    /// Limits the steps one frame runs to `max_steps`: a frame that would
    /// run more (after a stall) runs that many and drops the rest of its
    /// time, so that the game slows down rather than falling ever further
    /// behind.
    pub fn with_max_steps(mut self, max_steps: u32) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// Caps the time one frame adds at `max_delta` (at least 1 ns; by
    /// default [`FixedTime::DEFAULT_MAX_DELTA`], 250 ms): a longer frame
    /// counts as `max_delta`, and the rest of its time is dropped, so that
    /// after a stall the game slows down for a frame rather than running
    /// every step it missed. `Duration::MAX` accepts any frame time (then
    /// only [`FixedTime::with_max_steps`] limits a frame's steps).
    ///
    /// ```
    /// use core::time::Duration;
    /// use schemecs::schedule::FixedTime;
    ///
    /// let stall = Duration::from_secs(10);
    /// let mut capped = FixedTime::from_hz(50).with_max_delta(Duration::from_millis(100));
    /// assert_eq!(capped.advance(stall), 5);
    /// let mut uncapped = FixedTime::from_hz(50).with_max_delta(Duration::MAX);
    /// assert_eq!(uncapped.advance(stall), 500);
    /// ```
    pub fn with_max_delta(mut self, max_delta: Duration) -> Self {
        self.max_delta_ns = nanos(max_delta).max(1);
        self
    }

    /// The most steps one frame runs (`u32::MAX` unless set with
    /// [`FixedTime::with_max_steps`]).
    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    /// The most time one frame adds (see [`FixedTime::with_max_delta`]).
    pub fn max_delta(&self) -> Duration {
        Duration::from_nanos(self.max_delta_ns)
    }

    /// The length of a step.
    pub fn step(&self) -> Duration {
        Duration::from_nanos(self.step_ns)
    }

    /// Frame time fed in and not spent on steps yet (less than a step
    /// between frames): how far the frame is past the last step, e.g. for
    /// drawing between two steps' positions.
    pub fn overstep(&self) -> Duration {
        Duration::from_nanos(self.accumulated_ns)
    }

    /// The steps run so far, in all: the number of the step running, in
    /// a fixed-step system (counting from 1).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The frame time fed in so far, in all, each frame's capped as
    /// [`FixedTime::with_max_delta`] says: the time the game has advanced
    /// by, not the wall-clock time of its frames.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.elapsed_ns)
    }

    /// Adds a frame's `elapsed` time (at most the cap, see
    /// [`FixedTime::with_max_delta`]) and takes out the whole steps it
    /// completes (at most the limit, see [`FixedTime::with_max_steps`]):
    /// returns how many steps to run. [`GameLoop::run_frame`] calls it.
    pub fn advance(&mut self, elapsed: Duration) -> u32 {
        let elapsed = nanos(elapsed).min(self.max_delta_ns);
        self.elapsed_ns = self.elapsed_ns.saturating_add(elapsed);
        let total = self.accumulated_ns.saturating_add(elapsed);
        let due = total / self.step_ns;
        let steps = due.min(u64::from(self.max_steps));
        self.accumulated_ns = if steps < due {
            total % self.step_ns
        } else {
            total - steps * self.step_ns
        };
        steps as u32
    }

    /// Counts one step as run.
    fn count_step(&mut self) {
        self.steps += 1;
    }

    /// Puts `steps` steps that [`FixedTime::advance`] handed out but that
    /// did not run back in the accumulator: they are due again.
    fn give_back(&mut self, steps: u32) {
        let time = u64::from(steps).saturating_mul(self.step_ns);
        self.accumulated_ns = self.accumulated_ns.saturating_add(time);
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

impl StableHash for FixedTime {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.step_ns.stable_hash(hasher);
        self.accumulated_ns.stable_hash(hasher);
        self.max_steps.stable_hash(hasher);
        self.max_delta_ns.stable_hash(hasher);
        self.steps.stable_hash(hasher);
        self.elapsed_ns.stable_hash(hasher);
    }
}

/// With feature `serde`: a clock saves as its six integers: step,
/// accumulator, step limit, frame time cap, steps run, time fed in.
#[cfg(feature = "serde")]
impl serde::Serialize for FixedTime {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        (
            self.step_ns,
            self.accumulated_ns,
            self.max_steps,
            self.max_delta_ns,
            self.steps,
            self.elapsed_ns,
        )
            .serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for FixedTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (step_ns, accumulated_ns, max_steps, max_delta_ns, steps, elapsed_ns) =
            <(u64, u64, u32, u64, u64, u64)>::deserialize(deserializer)?;
        if step_ns == 0 || accumulated_ns >= step_ns {
            return Err(crate::save::reject::<D::Error>(
                "the save's fixed-step clock has a step of 0 ns, or a whole step not run",
            ));
        }
        if max_delta_ns == 0 {
            return Err(crate::save::reject::<D::Error>(
                "the save's fixed-step clock accepts 0 ns of a frame's time: it could never step",
            ));
        }
        // No world runs 2^63 steps: a count past that is no save's.
        if steps > u64::MAX / 2 {
            return Err(crate::save::reject::<D::Error>(format!(
                "the save's fixed-step clock counts {steps} steps run: more than a world runs"
            )));
        }
        Ok(FixedTime {
            step_ns,
            accumulated_ns,
            max_steps,
            max_delta_ns,
            steps,
            elapsed_ns,
        })
    }
}

/// Two schedules over one world: `fixed`, run a whole number of times per
/// frame at the fixed step of the world's [`FixedTime`], then `frame`, run
/// once per frame.
///
/// [`GameLoop::run_frame`] is given the frame's elapsed time; the clock
/// lives in the world, so the loop holds no state of its own that matters
/// to the result: the same world and frame times give the same steps, on
/// any machine and after any rollback. Each schedule keeps its own change
/// windows and `Local`s (they are told apart by their systems), and an
/// event sent in one reaches the readers of the other exactly once.
///
/// State transitions are applied by the schedules that apply them (see
/// [`Schedule::apply_transitions`]): usually `frame`, so that a frame's
/// fixed steps all run in one state.
///
/// ```
/// use core::time::Duration;
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// struct Vel(i64);
/// #[derive(Default)] struct Frames(u32);
/// #[derive(Schema)]
/// struct Game {
///     pos: Pos,
///     vel: Vel,
///     #[ecs(resource)] time: FixedTime,
///     #[ecs(resource)] frames: Frames,
/// }
///
/// fn physics(mut q: Query<(&mut Pos, &Vel)>) { q.for_each_mut(|(p, v)| p.0 += v.0); }
/// fn draw(mut frames: ResMut<Frames>) { frames.0 += 1; }
///
/// let mut world = World::<Game>::new();
/// *world.resource_mut::<FixedTime>() = FixedTime::from_hz(50); // 20 ms
/// let ball = world.spawn((Pos(0), Vel(1)));
/// let mut fixed = Schedule::<Game>::new();
/// fixed.add(physics);
/// let mut frame = Schedule::<Game>::new();
/// frame.add(draw);
/// let mut game = GameLoop::new(fixed, frame);
/// let steps: Vec<u32> = [16, 16, 50, 5]
///     .map(|ms| game.run_frame(&mut world, Duration::from_millis(ms)))
///     .into();
/// assert_eq!(steps, [0, 1, 3, 0]);
/// assert_eq!(world.get::<Pos>(ball), Some(&Pos(4)));
/// assert_eq!(world.resource::<Frames>().0, 4);
/// ```
pub struct GameLoop<S: Schema> {
    fixed: Schedule<S>,
    frame: Schedule<S>,
}

impl<S: Schema> GameLoop<S> {
    /// A loop of the `fixed` step's schedule and the `frame`'s.
    ///
    /// The two are told apart in the world even when their systems have the
    /// same names (one function built both): each is labelled, unless it
    /// already is, so that each keeps its own change windows, removal
    /// records and locals.
    pub fn new(mut fixed: Schedule<S>, mut frame: Schedule<S>) -> Self {
        fixed.label_unless_labelled("fixed step of a GameLoop");
        frame.label_unless_labelled("frame of a GameLoop");
        GameLoop { fixed, frame }
    }

    /// The fixed step's schedule.
    pub fn fixed(&mut self) -> &mut Schedule<S> {
        &mut self.fixed
    }

    /// The per-frame schedule.
    pub fn frame(&mut self) -> &mut Schedule<S> {
        &mut self.frame
    }

    /// Runs one frame of `elapsed` time: adds it to the world's
    /// [`FixedTime`] (at most its cap, 250 ms unless
    /// [`FixedTime::with_max_delta`] says otherwise), runs the fixed schedule once per whole step completed
    /// (0, 1 or several times), then the frame schedule once. Returns the
    /// number of fixed steps run.
    pub fn run_frame(&mut self, world: &mut World<S>, elapsed: Duration) -> u32
    where
        FixedTime: Resource<S>,
        S: SendSchema,
    {
        self.frame_with(world, elapsed, Schedule::run)
    }

    /// [`GameLoop::run_frame`], each schedule run with
    /// [`Schedule::run_sequential`]: the definition of its result.
    pub fn run_frame_sequential(&mut self, world: &mut World<S>, elapsed: Duration) -> u32
    where
        FixedTime: Resource<S>,
        S: SendSchema,
    {
        self.frame_with(world, elapsed, Schedule::run_sequential)
    }

    fn frame_with(
        &mut self,
        world: &mut World<S>,
        elapsed: Duration,
        run: impl Fn(&mut Schedule<S>, &mut World<S>),
    ) -> u32
    where
        FixedTime: Resource<S>,
    {
        let steps = world.resource_mut::<FixedTime>().advance(elapsed);
        for step in 0..steps {
            world.resource_mut::<FixedTime>().count_step();
            let ran = catch_unwind(AssertUnwindSafe(|| run(&mut self.fixed, world)));
            if let Err(panic) = ran {
                // The step that panicked counts as run; those after it stay
                // due, for the next frame.
                world
                    .resource_mut::<FixedTime>()
                    .give_back(steps - step - 1);
                resume_unwind(panic);
            }
        }
        run(&mut self.frame, world);
        steps
    }
}
