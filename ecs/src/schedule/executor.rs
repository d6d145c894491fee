//! The executor: runs a [`Plan`]'s stages in order, each one either on the
//! calling thread or spread over rayon's pool, whichever the measurements of
//! earlier runs say is faster, and applies commands in program order.
//!
//! Handing a system to another thread costs a wake-up and a wait (10 to 40 µs
//! on small VMs), more than a frame of small systems does in all. So a stage
//! goes parallel only when the work its systems took in the previous runs,
//! spread over the pool's threads, would save more than [`HANDOFF_NS`] on the
//! calling thread; otherwise its systems run one after another right here.
//! How a stage runs never changes the result: its systems' accesses are
//! disjoint, and commands are applied in program order either way.
//!
//! Why stages and not a system-by-system graph: a stage lends the world out
//! once ([`SplitWorld`]), and a borrow handed to a system can only come back
//! when every system holding one has returned; applying commands needs the
//! whole world. Starting a system as soon as its own predecessors finish
//! would need the columns they borrowed back mid-stage, which safe Rust
//! cannot do without a second split, that is, a barrier.

use super::plan::Plan;
use crate::changes::ChangeWindow;
use crate::lend::{recycle, SplitBuffers, SplitWorld};
use crate::pool;
use crate::system::{Group, ParamSystem, SystemKind, SystemNode};
use crate::world_impl::Schema;
use crate::world_impl::SendSchema;
use crate::world_impl::World;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// Nanoseconds of work a stage must be expected to move off the calling
/// thread before it is handed out: waking a pool thread and waiting for it
/// at the end of the stage cost 10 to 40 µs on the 2-core VMs of issue 15.
pub(super) const HANDOFF_NS: u64 = 50_000;

/// A stage that took less than a quarter of [`HANDOFF_NS`] when last timed
/// is timed again on one run in this many: timing costs two clock reads
/// (about 50 ns), a few percent of a stage of small systems. Growth is
/// noticed within this many runs, and once a stage is timed big it is timed
/// on every run.
const RESAMPLE: usize = 4;

/// What the executor keeps between runs: the memory of the world's split
/// and of the parallel queue, and per system the measured work.
pub(super) struct Executor<S: Schema> {
    buffers: SplitBuffers<S>,
    /// The systems of a parallel stage, longest expected last; empty between
    /// stages.
    queue: Vec<Member<'static, S>>,
    /// Per system: nanoseconds of work in the last run that measured it
    /// (0: never measured). Atomic because pool threads write it.
    last: Vec<AtomicU64>,
    /// Per system: the same, from the measurement before.
    before: Vec<u64>,
    /// Per system: nanoseconds its row moves took after its stage, the
    /// last time they ran on this thread ([`Executor::migrate_stage`]; 0:
    /// never).
    moves: Vec<AtomicU64>,
    /// Per stage, by its first system: nanoseconds the moves phase took
    /// the last time it ran on the pool (0: never).
    moves_shared: Vec<u64>,
    /// Per system: whether it ran in the current run.
    done: Vec<bool>,
    /// Per stage: how it ran the last time (`None` before the first run).
    runs: Vec<Option<StageRun>>,
    /// Set by [`Schedule::force_parallel`](super::Schedule::force_parallel).
    pub(super) force: Option<bool>,
    /// Runs since the last reset, for [`RESAMPLE`].
    runs_since_reset: usize,
}

/// A system of a stage, by index, borrowed for the stage's split.
type Member<'w, S> = (usize, &'w mut (dyn ParamSystem<S> + 'static));

/// How a stage ran, for [`Schedule::describe`](super::Schedule::describe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StageRun {
    pub(super) parallel: bool,
    pub(super) why: Why,
    /// Nanoseconds of work its systems took, together (0 for a stage of one
    /// system, which is not measured).
    pub(super) work_ns: u64,
}

/// Why a stage ran the way it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// A single system: nothing to share.
    OneSystem,
    /// [`Schedule::force_parallel`](super::Schedule::force_parallel) said so.
    Forced,
    /// The pool has one thread.
    OneThread,
    /// A system of the stage had not been measured yet.
    Unmeasured,
    /// The work, spread evenly, would save less than a hand-off costs.
    TooLittle,
    /// Enough work, but one system holds most of it: the others would not
    /// save a hand-off's cost beside it.
    Lopsided,
    /// Spreading the work saves more than a hand-off costs.
    Pays,
}

impl<S: Schema> Default for Executor<S> {
    fn default() -> Self {
        Executor {
            buffers: SplitBuffers::default(),
            queue: Vec::new(),
            last: Vec::new(),
            before: Vec::new(),
            moves: Vec::new(),
            moves_shared: Vec::new(),
            done: Vec::new(),
            runs: Vec::new(),
            force: None,
            runs_since_reset: 0,
        }
    }
}

impl<S: Schema> Executor<S> {
    /// Makes room for `systems` systems in `stages` stages, after systems
    /// were added: forgets how the stages ran, keeps what each system
    /// measured (systems are only ever appended, so indices stay).
    pub(super) fn reset(&mut self, systems: usize, stages: usize) {
        self.last.resize_with(systems, || AtomicU64::new(0));
        self.before.resize(systems, 0);
        self.moves.resize_with(systems, || AtomicU64::new(0));
        self.moves_shared.resize(systems, 0);
        self.done.clear();
        self.done.resize(systems, false);
        self.runs.clear();
        self.runs.resize(stages, None);
        self.runs_since_reset = 0;
    }

    /// How each stage ran the last time; empty if the schedule has not run
    /// since it last changed.
    pub(super) fn runs(&self) -> &[Option<StageRun>] {
        &self.runs
    }

    /// The split buffers, for [`Schedule::run_sequential`](super::Schedule::run_sequential).
    pub(super) fn buffers(&mut self) -> &mut SplitBuffers<S> {
        &mut self.buffers
    }

    /// Runs every stage of `plan` once; `reset` must have been called for
    /// this plan.
    /// `ticks` are where the run's change ticks start and where the
    /// schedule's previous run on this world started ([`crate::change`]).
    pub(super) fn run(
        &mut self,
        (systems, groups): (&mut [SystemNode<S>], &mut [Group<S>]),
        plan: &Plan,
        world: &mut World<S>,
        (base, previous): (u32, Option<u32>),
        fingerprint: u64,
    ) where
        S: SendSchema,
    {
        let threads = pool::current_num_threads();
        self.runs_since_reset = self.runs_since_reset.wrapping_add(1);
        self.done.fill(false);
        let mut applied = 0;
        for (number, stage) in plan.stages.iter().enumerate() {
            let window = |i| World::<S>::system_window(base, previous, i);
            let run = if let [only] = stage[..] {
                let place = (fingerprint, only);
                let system = &mut systems[only];
                let buffers = &mut self.buffers;
                if let Some(window) = admit(system, groups, world, buffers, window(only), place) {
                    run_alone(system, world, buffers, window, place);
                }
                StageRun {
                    parallel: false,
                    why: Why::OneSystem,
                    work_ns: 0,
                }
            } else {
                // Staggered, so that resampling costs every run the same.
                let sample = (self.runs_since_reset + number) % RESAMPLE == 0;
                self.run_stage(
                    (systems, groups),
                    stage,
                    world,
                    (threads, sample),
                    &window,
                    fingerprint,
                )
            };
            self.runs[number] = Some(run);
            for &i in stage {
                self.done[i] = true;
            }
            while applied < systems.len() && self.done[applied] {
                world.set_change_tick(window(applied).this_run);
                apply(&mut systems[applied], world);
                applied += 1;
            }
        }
    }

    /// Makes the row moves that the systems of `stage` recorded (their
    /// [`Migrator`](crate::command::Migrator)s'), on a fresh split of the world. The
    /// planner gave each its own tables, so they can run side by side: on
    /// the pool (`threads` threads) when the moves they took on this thread
    /// last time pay for the hand-off by the rule of [`decide`], and the
    /// last time the pool ran them it was faster than that (moves touch
    /// rows the stage left in this thread's cache); tried again when
    /// `sample`. A system that recorded nothing returns at once.
    fn migrate_stage(
        &mut self,
        systems: &mut [SystemNode<S>],
        stage: &[usize],
        world: &mut World<S>,
        (threads, sample): (usize, bool),
    ) where
        S: SendSchema,
    {
        let mut members: Vec<Member<'_, S>> = recycle(core::mem::take(&mut self.queue));
        for (i, system) in stage_systems(systems, stage) {
            if let (true, SystemKind::Params(params)) = (system.moves(), &mut system.kind) {
                members.push((i, &mut **params));
            }
        }
        let alone: u64 = members.iter().map(|&(i, _)| *self.moves[i].get_mut()).sum();
        let expected = members.iter().map(|&(i, _)| *self.moves[i].get_mut());
        let (pays, why) = decide(expected, threads, self.force);
        let shared = &mut self.moves_shared[stage[0]];
        let parallel = match why {
            Why::Forced => pays,
            _ => pays && (sample || *shared == 0 || *shared < alone),
        };
        let split = Mutex::new(world.split(&mut self.buffers));
        let moves = &self.moves;
        if parallel && members.len() > 1 {
            let start = Instant::now();
            members.sort_by_key(|&(i, _)| moves[i].load(Ordering::Relaxed));
            members = run_parallel(members, &split, (Phase::Migrate, None), threads);
            *shared = nanos(start.elapsed()).max(1);
        } else {
            for (i, system) in members.drain(..) {
                let start = Instant::now();
                { system }.migrate(&split);
                moves[i].store(nanos(start.elapsed()).max(1), Ordering::Relaxed);
            }
        }
        let split = split.into_inner().unwrap_or_else(PoisonError::into_inner);
        split.reclaim(&mut self.buffers);
        self.queue = recycle(members);
    }

    /// The work system `i` is expected to take: the smaller of its last two
    /// measurements (a thread preempted once does not make a stage parallel),
    /// 0 if never measured.
    fn expected(&self, i: usize) -> u64 {
        let last = self.last[i].load(Ordering::Relaxed);
        match self.before[i] {
            0 => last,
            before => last.min(before),
        }
    }

    /// Runs the systems of `stage` (two or more, none exclusive, their
    /// accesses disjoint) on one split of the world: on this thread, or on
    /// the pool if that pays.
    fn run_stage(
        &mut self,
        (systems, groups): (&mut [SystemNode<S>], &mut [Group<S>]),
        stage: &[usize],
        world: &mut World<S>,
        (threads, sample): (usize, bool),
        window: &dyn Fn(usize) -> ChangeWindow,
        fingerprint: u64,
    ) -> StageRun
    where
        S: SendSchema,
    {
        let expected = stage.iter().map(|&i| self.expected(i));
        let (parallel, why) = decide(expected, threads, self.force);
        let last_ns: u64 = stage.iter().map(|&i| *self.last[i].get_mut()).sum();
        let measure = parallel || sample || why == Why::Unmeasured || last_ns >= HANDOFF_NS / 4;
        if measure {
            for &i in stage {
                self.before[i] = *self.last[i].get_mut();
            }
        }
        let start = measure.then(Instant::now);
        let mut members: Vec<Member<'_, S>> = recycle(core::mem::take(&mut self.queue));
        // Whether a system of the stage took locals out of the world.
        let mut any_locals = false;
        for (i, system) in stage_systems(systems, stage) {
            let place = (fingerprint, i);
            let buffers = &mut self.buffers;
            let Some(window) = admit(system, groups, world, buffers, window(i), place) else {
                continue;
            };
            match &mut system.kind {
                SystemKind::Params(params) => {
                    if system.has_locals {
                        any_locals = true;
                        let name = &system.name;
                        params.check_out(&mut world.locals_mut().system(fingerprint, i, name));
                    }
                    params.prepare(world, window);
                    members.push((i, &mut **params));
                }
                SystemKind::Exclusive(_) => unreachable!("an exclusive system runs alone"),
            }
        }
        let split = Mutex::new(world.split(&mut self.buffers));
        if parallel {
            // Longest first (popped from the end), so the last system to
            // start is a short one.
            members.sort_by_key(|&(i, _)| self.before[i]);
            members = run_parallel(members, &split, (Phase::Run, Some(&self.last)), threads);
        } else {
            // As on the pool, a panic lets the rest of the stage run before
            // it goes on: the choice of threads never shows, even then.
            let mut panic = None;
            let split = &split;
            for (_, system) in members.drain(..) {
                // `{ system }` moves the borrow in, so it lasts as the split does.
                let run = move || { system }.run(split);
                if let Err(payload) = catch_unwind(AssertUnwindSafe(run)) {
                    panic.get_or_insert(payload);
                }
            }
            if let Some(payload) = panic {
                resume_unwind(payload);
            }
        }
        let split = split.into_inner().unwrap_or_else(PoisonError::into_inner);
        split.reclaim(&mut self.buffers);
        self.queue = recycle(members);
        if stage.iter().any(|&i| systems[i].moves()) {
            self.migrate_stage(systems, stage, world, (threads, sample));
        }
        if any_locals {
            for &i in stage {
                check_in(&mut systems[i], world, (fingerprint, i));
            }
        }
        if let (false, Some(start)) = (parallel, start) {
            self.share_out(stage, nanos(start.elapsed()));
        }
        let work_ns = stage.iter().map(|&i| *self.last[i].get_mut()).sum();
        StageRun {
            parallel,
            why,
            work_ns,
        }
    }

    /// Records `total` nanoseconds of work for the systems of `stage`, run
    /// on this thread and timed together: shared in proportion to their
    /// earlier measurements, or evenly if some were never measured.
    ///
    /// `before` already holds the earlier measurements; a parallel run
    /// measured each system on its own and wrote `last` itself.
    fn share_out(&mut self, stage: &[usize], total: u64) {
        let known: u64 = stage.iter().map(|&i| self.before[i]).sum();
        let all_known = stage.iter().all(|&i| self.before[i] != 0);
        // In floating point: the product of two durations overflows u64, and
        // u128 division costs more than the rest of a small stage's
        // bookkeeping.
        let per_known = total as f64 / known as f64;
        for &i in stage {
            let share = if all_known {
                (self.before[i] as f64 * per_known) as u64
            } else {
                total / stage.len() as u64
            };
            // 0 means "never measured".
            *self.last[i].get_mut() = share.max(1);
        }
    }
}

/// Whether a stage whose systems are expected to take `expected`
/// nanoseconds each (0: never measured) should run on `threads` threads,
/// and why.
///
/// The best a pool can do is the longest system, or the work spread evenly,
/// whichever is longer; what that saves on this thread must exceed a
/// hand-off's cost ([`HANDOFF_NS`]).
pub(super) fn decide(
    expected: impl Iterator<Item = u64>,
    threads: usize,
    force: Option<bool>,
) -> (bool, Why) {
    let (mut total, mut longest, mut unmeasured) = (0u64, 0u64, false);
    for work in expected {
        unmeasured |= work == 0;
        total = total.saturating_add(work);
        longest = longest.max(work);
    }
    let even = total / threads.max(1) as u64;
    if unmeasured && force != Some(true) {
        (false, Why::Unmeasured)
    } else if let Some(parallel) = force {
        (parallel, Why::Forced)
    } else if threads < 2 {
        (false, Why::OneThread)
    } else if total - even < HANDOFF_NS {
        (false, Why::TooLittle)
    } else if total - longest.max(even) < HANDOFF_NS {
        (false, Why::Lopsided)
    } else {
        (true, Why::Pays)
    }
}

/// Runs `members` on `threads` threads, this one among them: each thread
/// takes the next system from the end of the queue until none is left,
/// and runs it or makes its moves (`phase`). Records each system's work in
/// `last`, if given. Returns the emptied queue.
fn run_parallel<'w, S: SendSchema>(
    members: Vec<Member<'w, S>>,
    split: &Mutex<SplitWorld<'w, S>>,
    (phase, last): (Phase, Option<&[AtomicU64]>),
    threads: usize,
) -> Vec<Member<'w, S>> {
    let helpers = threads.min(members.len()).saturating_sub(1);
    let queue = Mutex::new(members);
    let panic = Mutex::new(None);
    let work = || loop {
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let Some((i, system)) = next else {
            return;
        };
        let start = Instant::now();
        // A panic does not stop this thread taking the next system: every
        // system of the stage runs, however many threads there are.
        let run = move || match phase {
            Phase::Run => { system }.run(split),
            Phase::Migrate => { system }.migrate(split),
        };
        if let Err(payload) = catch_unwind(AssertUnwindSafe(run)) {
            let mut first = panic.lock().unwrap_or_else(PoisonError::into_inner);
            first.get_or_insert(payload);
        }
        if let Some(last) = last {
            last[i].store(nanos(start.elapsed()).max(1), Ordering::Relaxed);
        }
    };
    // The calling thread works too, rather than sleeping while the pool
    // runs the stage: with two threads only one wake-up is paid.
    pool::with_helpers(helpers, work);
    if let Some(payload) = panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
        resume_unwind(payload);
    }
    queue.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// What [`run_parallel`] does with each system: run it, or make the row
/// moves its run recorded ([`ParamSystem::migrate`]).
#[derive(Clone, Copy)]
enum Phase {
    Run,
    Migrate,
}

/// The systems of `stage` (ascending indices into `systems`) with their
/// indices, found in one walk of `systems`.
fn stage_systems<'s, S: Schema>(
    systems: &'s mut [SystemNode<S>],
    stage: &'s [usize],
) -> impl Iterator<Item = (usize, &'s mut SystemNode<S>)> {
    let mut rest = systems;
    let mut offset = 0;
    stage.iter().map(move |&i| {
        let (system, tail) = match core::mem::take(&mut rest)[i - offset..].split_first_mut() {
            Some(split) => split,
            None => unreachable!("stage indices are ascending and in range"),
        };
        rest = tail;
        offset = i + 1;
        (i, system)
    })
}

/// The window system `place.1` runs with this turn, given the turn's
/// `window`; `None` if a run condition skips it, which the world records
/// (its next run reads from its last run).
///
/// The conditions of its groups come first, outermost first: each is
/// decided once per run, at the turn of the group's first system (`window`
/// is that turn's when the decision is made), and a group that does not
/// hold skips its systems without evaluating anything else. Then the
/// system's own condition, if every group holds.
pub(super) fn admit<S: Schema>(
    system: &mut SystemNode<S>,
    groups: &mut [Group<S>],
    world: &mut World<S>,
    buffers: &mut SplitBuffers<S>,
    window: ChangeWindow,
    place: (u64, usize),
) -> Option<ChangeWindow> {
    if system.condition.is_none() && system.groups.is_empty() {
        return Some(window);
    }
    let (fingerprint, _) = place;
    let runs = system.groups.iter().all(|&group| {
        let group_place = (fingerprint, group as usize);
        groups[group as usize].holds(world, buffers, window, group_place)
    }) && system.condition_holds(world, buffers, window, place);
    let hint = &mut system.skip_hint;
    if runs {
        Some(world.resume_system(place, window, hint))
    } else {
        world.skip_system(place, (window, system.logs_read), hint);
        None
    }
}

/// Runs one system with the whole world to itself; `place` is the
/// schedule's fingerprint and the system's index, where its locals are.
pub(super) fn run_alone<S: Schema>(
    system: &mut SystemNode<S>,
    world: &mut World<S>,
    buffers: &mut SplitBuffers<S>,
    window: ChangeWindow,
    place: (u64, usize),
) {
    let moves = system.moves();
    match &mut system.kind {
        SystemKind::Params(params) => {
            if system.has_locals {
                let (fingerprint, i) = place;
                params.check_out(&mut world.locals_mut().system(fingerprint, i, &system.name));
            }
            params.prepare(world, window);
            let split = Mutex::new(world.split(buffers));
            params.run(&split);
            let split = split.into_inner().unwrap_or_else(PoisonError::into_inner);
            split.reclaim(buffers);
            if moves {
                let split = Mutex::new(world.split(buffers));
                params.migrate(&split);
                let split = split.into_inner().unwrap_or_else(PoisonError::into_inner);
                split.reclaim(buffers);
            }
            check_in(system, world, place);
        }
        SystemKind::Exclusive(system) => {
            world.set_change_tick(window.this_run);
            system(world);
        }
    }
}

/// Puts the locals `system` took out for its stage back into the world (if
/// it has any, and holds them: after a panic some may be back already).
/// `place` is the schedule's fingerprint and the system's index.
pub(super) fn check_in<S: Schema>(
    system: &mut SystemNode<S>,
    world: &mut World<S>,
    (fingerprint, i): (u64, usize),
) {
    if let (true, SystemKind::Params(params)) = (system.has_locals, &mut system.kind) {
        params.check_in(&mut world.locals_mut().system(fingerprint, i, &system.name));
    }
}

/// Applies the commands `system` recorded in its last run.
pub(super) fn apply<S: Schema>(system: &mut SystemNode<S>, world: &mut World<S>) {
    if let SystemKind::Params(system) = &mut system.kind {
        system.apply(world);
    }
}

fn nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::{decide, Why, HANDOFF_NS};

    const MS: u64 = 1_000_000;

    fn choose<const N: usize>(
        expected: [u64; N],
        threads: usize,
        force: Option<bool>,
    ) -> (bool, Why) {
        decide(expected.into_iter(), threads, force)
    }

    #[test]
    fn small_stages_run_inline() {
        assert_eq!(choose([400, 300, 500], 2, None), (false, Why::TooLittle));
        // Just under: spreading 2 * HANDOFF_NS - 2 over two threads saves
        // HANDOFF_NS - 1.
        let half = HANDOFF_NS - 1;
        assert_eq!(choose([half, half], 2, None), (false, Why::TooLittle));
        assert_eq!(choose([half + 1, half + 1], 2, None), (true, Why::Pays));
    }

    #[test]
    fn large_balanced_stages_go_parallel() {
        assert_eq!(choose([4 * MS; 8], 2, None), (true, Why::Pays));
        assert_eq!(choose([4 * MS; 8], 16, None), (true, Why::Pays));
    }

    #[test]
    fn a_stage_dominated_by_one_system_stays_inline() {
        assert_eq!(
            choose([30 * MS, 10_000, 10_000], 4, None),
            (false, Why::Lopsided)
        );
        assert_eq!(choose([30 * MS, 10 * MS], 4, None), (true, Why::Pays));
    }

    #[test]
    fn unmeasured_systems_one_thread_and_forcing_decide_first() {
        assert_eq!(choose([4 * MS, 0], 2, None), (false, Why::Unmeasured));
        assert_eq!(choose([4 * MS, 0], 1, None), (false, Why::Unmeasured));
        assert_eq!(choose([4 * MS, 0], 2, Some(true)), (true, Why::Forced));
        assert_eq!(choose([4 * MS; 8], 1, None), (false, Why::OneThread));
        assert_eq!(choose([1, 1], 1, Some(true)), (true, Why::Forced));
        assert_eq!(choose([4 * MS; 8], 8, Some(false)), (false, Why::Forced));
    }
}
