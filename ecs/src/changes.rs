//! Change detection: the world's change tick, the ticks a tracked component
//! keeps per row, and the windows that `Added<T>`, `Changed<T>`, events and
//! removal logs are read through.
//!
//! Only components marked `#[ecs(track)]` keep ticks (in a
//! [`TrackedVec`](crate::storage::TrackedVec) column instead of a `Vec`);
//! every other code path asks
//! [`Layout::TRACKED_BITS`](crate::schema::Layout::TRACKED_BITS), a constant, so a
//! schema without tracked components compiles to the code it had before.
//!
//! # Ticks
//!
//! The world's tick advances once per system run, in program order, whatever
//! the executor does: a schedule run starting at tick `b` runs its `i`-th
//! system at tick `b + i` and leaves the world at `b + n`. Changes are stamped
//! with the tick of the system (or, outside systems, the world's tick) that
//! made them. A system sees what was stamped after its previous run and up
//! to its current one: the window `(b' + i, b + i]`, where `b'` is the start of
//! the schedule's previous run on this world (kept in the world, so snapshots
//! and saves restore it).
//!
//! Ticks are `u32` and compared by age (`now - tick`, wrapping), which is
//! exact while every age is below 2³². Every [`SWEEP_INTERVAL`] ticks the
//! world clamps every stored tick to at most [`MAX_AGE`] old, so ages never
//! exceed `MAX_AGE + SWEEP_INTERVAL` (3·2²⁹), and any two stored ticks are
//! less than 2³¹ apart, so that they can be ordered too ([`later`]). The
//! bound this gives: a change is reported exactly to a system that runs at
//! least once every [`MAX_AGE`] ticks (2³⁰: at 64 systems a frame and 60
//! frames a second, over three days); older changes are forgotten, never
//! reported twice.

use crate::entity::Entity;
use crate::retention::{Hold, HoldState, LogId, LogReads, Retention, TickLog, HOLD_RUNS};
use crate::stable_hash::{StableHash, StableHasher};
pub use crate::tick::ChangeWindow;
pub(crate) use crate::tick::{clamp, later, MAX_AGE, SWEEP_INTERVAL};

/// A point in a world's history: the value of its change tick
/// ([`World::change_tick`](crate::world::World::change_tick)).
///
/// The tick advances once per system run, in program order, whatever the
/// executor does (a schedule of `n` systems advances it by `n` per run), and
/// once per [`World::clear_trackers`](crate::world::World::clear_trackers). Changes
/// are stamped with the tick of the system that made them; a system sees
/// the changes stamped after its previous run. Ticks are 32-bit and wrap;
/// they are compared by age, and every 2²⁹ ticks the world clamps every
/// stored tick to at most 2³⁰ old. So [`Added`](crate::query::Added),
/// [`Changed`](crate::query::Changed), [`Removed`](crate::change::Removed) and events are
/// exact for a reader that runs at least once every 2³⁰ ticks (at 64
/// systems a frame and 60 frames a second: over three days); changes older
/// than that are forgotten, never reported twice or out of order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tick(pub(crate) u32);

impl Tick {
    /// The raw counter value (it wraps).
    pub fn get(self) -> u32 {
        self.0
    }
}

/// Rows per group of a tracked column's summary (see
/// [`TrackedVec`](crate::storage::TrackedVec)).
pub(crate) const GROUP: usize = 16;

/// Where a schedule's last run on a world started, and what its readers
/// hold back (see [`crate::retention`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScheduleRecord {
    /// The schedule's fingerprint.
    pub(crate) fingerprint: u64,
    /// The tick its last run started at.
    pub(crate) start: u32,
    /// The number of that run among the world's runs and marks.
    pub(crate) run: u64,
    /// Its number of systems in that run.
    pub(crate) systems: u32,
    /// The logs its systems read.
    pub(crate) reads: LogReads,
}

/// A system skipped by its run condition since it last ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SkipRecord {
    /// Its schedule's fingerprint.
    pub(crate) fingerprint: u64,
    /// Its index in the schedule.
    pub(crate) index: u32,
    /// Where the window of the first turn it skipped started (`None`: it
    /// never ran), where the window of its next run starts, so that it sees
    /// everything since its last run.
    pub(crate) last_run: Option<u32>,
    /// The logs it reads, held back for it from `last_run` on.
    pub(crate) reads: LogReads,
    /// The number of the run it was first skipped in.
    pub(crate) since: u64,
}

/// The change state of a world, beside its entities: the change tick, where
/// each schedule's last run started, the point [`World::clear_trackers`]
/// marked, and the log of tracked components removed (by bit).
///
/// [`World::clear_trackers`]: crate::world::World::clear_trackers
#[derive(Debug)]
pub(crate) struct Changes {
    /// The tick the next change outside systems is stamped with.
    pub(crate) tick: u32,
    /// The tick at the last clamping sweep.
    pub(crate) last_sweep: u32,
    /// The world's tick at the last `clear_trackers` (queries made on the
    /// world itself read `(marked, tick]`).
    pub(crate) marked: u32,
    /// How many schedule runs and marks have started on this world.
    pub(crate) runs: u64,
    /// Per schedule that has run (and was not forgotten): its last run.
    pub(crate) schedules: Vec<ScheduleRecord>,
    /// The ticks the last two schedule runs on this world started at
    /// (older first): logs and events older than the first are dropped.
    pub(crate) run_starts: [u32; 2],
    /// Per component bit (tracked ones only): entities that lost it, and when.
    pub(crate) removed: Vec<TickLog<Entity>>,
    /// The systems skipped by their run condition since they last ran,
    /// sorted by schedule and index.
    pub(crate) skipped: Vec<SkipRecord>,
    /// What the run or mark that started last keeps of each log (scratch,
    /// not state: made anew at each start).
    retention: RetentionScratch,
}

/// The holds of the run or mark that started last, and its floor (see
/// [`Retention`]).
#[derive(Debug, Default)]
struct RetentionScratch {
    now: u32,
    floor: u32,
    holds: Vec<Hold>,
}

impl Default for Changes {
    /// A new world: its first changes are stamped 1, after the mark at 0, so
    /// queries made on the world see them as new.
    fn default() -> Self {
        Changes {
            tick: 1,
            last_sweep: 0,
            marked: 0,
            runs: 0,
            schedules: Vec::new(),
            run_starts: [0; 2],
            removed: Vec::new(),
            skipped: Vec::new(),
            retention: RetentionScratch::default(),
        }
    }
}

/// `clone_from` refills the vectors in place, so a ring of snapshots of a
/// world that schedules run on allocates nothing once warm.
impl Clone for Changes {
    fn clone(&self) -> Self {
        Changes {
            tick: self.tick,
            last_sweep: self.last_sweep,
            marked: self.marked,
            runs: self.runs,
            schedules: self.schedules.clone(),
            run_starts: self.run_starts,
            removed: self.removed.clone(),
            skipped: self.skipped.clone(),
            retention: RetentionScratch::default(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.tick = source.tick;
        self.last_sweep = source.last_sweep;
        self.marked = source.marked;
        self.runs = source.runs;
        self.schedules.clone_from(&source.schedules);
        self.run_starts = source.run_starts;
        self.removed.clone_from(&source.removed);
        self.skipped.clone_from(&source.skipped);
    }
}

impl StableHash for LogReads {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.events.stable_hash(hasher);
        self.removals.stable_hash(hasher);
    }
}

impl StableHash for Changes {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.tick.stable_hash(hasher);
        self.last_sweep.stable_hash(hasher);
        self.marked.stable_hash(hasher);
        self.runs.stable_hash(hasher);
        self.schedules.len().stable_hash(hasher);
        for record in &self.schedules {
            record.fingerprint.stable_hash(hasher);
            record.start.stable_hash(hasher);
            record.run.stable_hash(hasher);
            record.systems.stable_hash(hasher);
            record.reads.stable_hash(hasher);
        }
        self.run_starts.stable_hash(hasher);
        for log in &self.removed {
            log.first.stable_hash(hasher);
            log.entries.len().stable_hash(hasher);
            for &(tick, entity) in &log.entries {
                entity.to_bits().stable_hash(hasher);
                tick.stable_hash(hasher);
            }
            log.hash_marks(hasher);
        }
        // Nothing when no system is skipped, so that the checksums of
        // worlds without run conditions stay what they were.
        if !self.skipped.is_empty() {
            self.skipped.len().stable_hash(hasher);
            for record in &self.skipped {
                record.fingerprint.stable_hash(hasher);
                record.index.stable_hash(hasher);
                record.last_run.stable_hash(hasher);
                record.reads.stable_hash(hasher);
                record.since.stable_hash(hasher);
            }
        }
    }
}

impl Changes {
    /// The window of a query or reader made on the world directly.
    pub(crate) fn outside_window(&self) -> ChangeWindow {
        ChangeWindow {
            last_run: self.marked,
            this_run: self.tick,
        }
    }

    /// Records that `entity` lost tracked component `bit` at the current tick.
    #[inline]
    pub(crate) fn log_removed(&mut self, bit: u32, entity: Entity) {
        let bit = bit as usize;
        if self.removed.len() <= bit {
            self.removed.resize_with(bit + 1, TickLog::default);
        }
        self.removed[bit].push(self.tick, entity);
    }

    /// The entities that lost component `bit` within `window`, oldest first.
    pub(crate) fn removed(
        &self,
        bit: u32,
        window: ChangeWindow,
    ) -> impl Iterator<Item = Entity> + '_ {
        self.removed
            .get(bit as usize)
            .into_iter()
            .flat_map(move |log| log.in_window(window).copied())
    }

    /// How many removals of component `bit` within `window` were dropped
    /// before a reader with that window could read them.
    pub(crate) fn removals_missed(&self, bit: u32, window: ChangeWindow) -> u64 {
        self.removed
            .get(bit as usize)
            .map_or(0, |log| log.missed(window))
    }

    /// Starts a schedule run of `systems` systems for the schedule
    /// `fingerprint`, whose systems read the logs `reads`: works out what
    /// each log must keep (see [`crate::retention`]) and drops the removals
    /// no reader can need any more (the caller drops the events, through
    /// [`Changes::retention`]), advances the tick past the run, and says
    /// where the run starts.
    pub(crate) fn begin_run(
        &mut self,
        fingerprint: u64,
        systems: u32,
        reads: LogReads,
    ) -> RunStart {
        let base = self.tick;
        // Before this schedule's own record moves: its readers still need
        // what was sent since its previous run.
        self.start_run(base);
        let run = self.runs;
        let record = ScheduleRecord {
            fingerprint,
            start: base,
            run,
            systems,
            reads,
        };
        let previous = match self
            .schedules
            .iter_mut()
            .find(|r| r.fingerprint == fingerprint)
        {
            Some(old) => Some(core::mem::replace(old, record).start),
            None => {
                self.schedules.push(record);
                None
            }
        };
        self.tick = base.wrapping_add(systems);
        RunStart { base, previous }
    }

    /// What the run or mark that started last keeps of each log.
    pub(crate) fn retention(&self) -> Retention<'_> {
        Retention {
            now: self.retention.now,
            floor: self.retention.floor,
            holds: &self.retention.holds,
        }
    }

    /// The holds of a run or mark starting at `now`, the `run`-th: a
    /// schedule holds from its last run's start for `HOLD_RUNS` runs, a
    /// skipped system from its last run for `HOLD_RUNS` runs after it was
    /// first skipped; only what they read.
    fn collect_holds(&mut self, now: u32, run: u64) {
        let state = |since: u64| match run.saturating_sub(since) {
            age if age <= HOLD_RUNS => HoldState::Holding,
            age if age == HOLD_RUNS + 1 => HoldState::Ending,
            _ => HoldState::Ended,
        };
        let scratch = &mut self.retention;
        scratch.now = now;
        scratch.floor = self.run_starts[1];
        scratch.holds.clear();
        for record in &self.schedules {
            if !record.reads.is_empty() {
                scratch.holds.push(Hold {
                    reads: record.reads,
                    from: record.start,
                    span: record.systems.max(1),
                    state: state(record.run),
                });
            }
        }
        // A skipped reader reads, when it next runs, from its last run.
        for record in &self.skipped {
            if let (Some(last_run), false) = (record.last_run, record.reads.is_empty()) {
                scratch.holds.push(Hold {
                    reads: record.reads,
                    from: last_run,
                    span: 1,
                    state: state(record.since),
                });
            }
        }
    }

    /// Records that system `index` of schedule `fingerprint` is skipped
    /// this turn, whose window is `window`: unless it was skipped before
    /// (and has not run since), its next run reads from where this window
    /// starts. `holds`: it reads events or removal logs, to be kept for it.
    /// `hint` is where the record was last found or put (a guess that
    /// spares the search when a system is skipped turn after turn), updated.
    pub(crate) fn skip(
        &mut self,
        (fingerprint, index): (u64, u32),
        (window, reads): (ChangeWindow, LogReads),
        hint: &mut usize,
    ) {
        match self.find_skipped(fingerprint, index, hint) {
            Ok(_) => {}
            Err(at) => {
                let last_run = (!window.is_first()).then_some(window.last_run);
                let record = SkipRecord {
                    fingerprint,
                    index,
                    last_run,
                    reads,
                    since: self.runs,
                };
                self.skipped.insert(at, record);
                *hint = at;
            }
        }
    }

    /// Where the record of system `index` of schedule `fingerprint` is
    /// (`Ok`), or would go (`Err`), trying `hint` first.
    #[inline]
    fn find_skipped(&self, fingerprint: u64, index: u32, hint: &mut usize) -> Result<usize, usize> {
        if let Some(record) = self.skipped.get(*hint) {
            if (record.fingerprint, record.index) == (fingerprint, index) {
                return Ok(*hint);
            }
        }
        let found = self
            .skipped
            .binary_search_by_key(&(fingerprint, index), |r| (r.fingerprint, r.index));
        if let Ok(at) = found {
            *hint = at;
        }
        found
    }

    /// The window of a run of system `index` of schedule `fingerprint`
    /// whose turn's window is `window`: from its last run, if it was
    /// skipped since; the record of the skips is dropped.
    pub(crate) fn resume(
        &mut self,
        (fingerprint, index): (u64, u32),
        window: ChangeWindow,
        hint: &mut usize,
    ) -> ChangeWindow {
        if self.skipped.is_empty() {
            return window;
        }
        match self.find_skipped(fingerprint, index, hint) {
            Ok(at) => match self.skipped.remove(at).last_run {
                Some(last_run) => ChangeWindow {
                    last_run,
                    this_run: window.this_run,
                },
                None => ChangeWindow::first(window.this_run),
            },
            Err(_) => window,
        }
    }

    /// Records that a run (or a `clear_trackers` mark) starts at tick
    /// `start`: counts it, works out what each log keeps (see
    /// [`crate::retention`]) and drops the removals no reader needs.
    pub(crate) fn start_run(&mut self, start: u32) {
        self.runs += 1;
        self.collect_holds(start, self.runs);
        let retention = Retention {
            now: self.retention.now,
            floor: self.retention.floor,
            holds: &self.retention.holds,
        };
        for (bit, log) in self.removed.iter_mut().enumerate() {
            log.retain_for(LogId::Removal(bit as u32), &retention);
        }
        self.run_starts = [self.run_starts[1], start];
    }

    /// Whether schedule `fingerprint` has run (and not been forgotten).
    pub(crate) fn has_run(&self, fingerprint: u64) -> bool {
        self.schedules.iter().any(|r| r.fingerprint == fingerprint)
    }

    /// Forgets schedule `fingerprint`: where its last run started, which
    /// held back what its readers had not seen. Whether it was known.
    pub(crate) fn forget_schedule(&mut self, fingerprint: u64) -> bool {
        let before = self.schedules.len();
        self.schedules.retain(|r| r.fingerprint != fingerprint);
        self.skipped.retain(|r| r.fingerprint != fingerprint);
        self.schedules.len() != before
    }

    /// Whether the tick has moved far enough since the last sweep that the
    /// stored ticks must be clamped now.
    #[inline]
    pub(crate) fn sweep_due(&self) -> bool {
        self.tick.wrapping_sub(self.last_sweep) >= SWEEP_INTERVAL
    }

    /// Clamps the ticks kept here; the caller clamps the columns' and the
    /// events'.
    pub(crate) fn sweep(&mut self) {
        let now = self.tick;
        self.last_sweep = now;
        clamp(&mut self.marked, now);
        for record in &mut self.schedules {
            clamp(&mut record.start, now);
        }
        for start in &mut self.run_starts {
            clamp(start, now);
        }
        for record in &mut self.skipped {
            if let Some(last_run) = &mut record.last_run {
                clamp(last_run, now);
            }
        }
        for log in &mut self.removed {
            log.clamp_ticks(now);
        }
    }
}

/// Where a schedule run starts ([`Changes::begin_run`]).
pub(crate) struct RunStart {
    /// The tick of its first system.
    pub(crate) base: u32,
    /// Where the schedule's previous run on this world started (`None` for
    /// its first).
    pub(crate) previous: Option<u32>,
}

/// The window of the `index`-th system of a schedule run that started at
/// `base`, whose previous run on this world started at `previous`.
pub(crate) fn system_window(base: u32, previous: Option<u32>, index: u32) -> ChangeWindow {
    let this_run = base.wrapping_add(index);
    match previous {
        Some(previous) => ChangeWindow {
            last_run: previous.wrapping_add(index),
            this_run,
        },
        None => ChangeWindow::first(this_run),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_holds_what_came_after_its_last_run_up_to_this_one() {
        let window = ChangeWindow {
            last_run: 10,
            this_run: 20,
        };
        assert!(!window.contains(10));
        assert!(window.contains(11));
        assert!(window.contains(20));
        assert!(!window.contains(21));
    }

    #[test]
    fn windows_that_straddle_the_wrap_of_the_counter_stay_exact() {
        let window = ChangeWindow {
            last_run: u32::MAX - 2,
            this_run: 3,
        };
        assert!(!window.contains(u32::MAX - 2));
        assert!(window.contains(u32::MAX));
        assert!(window.contains(0));
        assert!(window.contains(3));
        assert!(!window.contains(4));
    }

    #[test]
    fn clamping_keeps_recent_ticks_and_ages_old_ones_to_the_limit() {
        let now = 5u32;
        let mut recent = now.wrapping_sub(100);
        clamp(&mut recent, now);
        assert_eq!(recent, now.wrapping_sub(100));
        let mut old = now.wrapping_sub(MAX_AGE + 7);
        clamp(&mut old, now);
        assert_eq!(old, now.wrapping_sub(MAX_AGE));
    }

    #[test]
    fn a_first_run_sees_every_tick_up_to_its_own() {
        let window = ChangeWindow::first(1000);
        assert!(window.contains(1000));
        assert!(window.contains(0));
        assert!(window.contains(1000u32.wrapping_sub(MAX_AGE + SWEEP_INTERVAL)));
        assert!(!window.contains(1001));
    }
}

/// With feature `serde`: the change state saves as a tuple of its parts;
/// loading checks what the world relies on (logs only for tracked
/// components, real entity ids).
#[cfg(feature = "serde")]
mod save {
    use super::{Changes, ScheduleRecord, SkipRecord};
    use crate::entity::Entity;
    use crate::retention::{save::Parts as LogParts, LogReads, TickLog};
    use crate::save::reject;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// A schedule's record: fingerprint, start, run, systems, and the logs
    /// read (events, removals).
    type ScheduleParts = (u64, u32, u64, u32, (u128, u128));
    /// A skipped system's record: fingerprint, index, last run, the logs
    /// read (events, removals), the run it was first skipped in.
    type SkipParts = (u64, u32, Option<u32>, (u128, u128), u64);

    type Parts = (
        u32,
        u32,
        u32,
        Vec<ScheduleParts>,
        [u32; 2],
        Vec<LogParts<u64>>,
        Vec<SkipParts>,
        u64,
    );

    /// A log of removals, saved with entity ids as numbers.
    struct SavedLog<'a>(&'a TickLog<Entity>);

    impl Serialize for SavedLog<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.0.save_as(serializer, |entity| entity.to_bits())
        }
    }

    impl Serialize for Changes {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let schedules: Vec<ScheduleParts> = self
                .schedules
                .iter()
                .map(|r| {
                    let reads = (r.reads.events, r.reads.removals);
                    (r.fingerprint, r.start, r.run, r.systems, reads)
                })
                .collect();
            let removed: Vec<SavedLog<'_>> = self.removed.iter().map(SavedLog).collect();
            let skipped: Vec<SkipParts> = self
                .skipped
                .iter()
                .map(|r| {
                    let reads = (r.reads.events, r.reads.removals);
                    (r.fingerprint, r.index, r.last_run, reads, r.since)
                })
                .collect();
            (
                self.tick,
                self.last_sweep,
                self.marked,
                schedules,
                self.run_starts,
                removed,
                skipped,
                self.runs,
            )
                .serialize(serializer)
        }
    }

    impl Changes {
        /// Loads the change state of a world of `schema`, whose components
        /// are named `components` in bit order and tracked where
        /// `tracked_bits` has a bit (the schema's constants: the change state
        /// sits below the schema, so it is handed them).
        pub(crate) fn load<'de, D: Deserializer<'de>>(
            deserializer: D,
            schema: &str,
            components: &[&str],
            tracked_bits: u128,
        ) -> Result<Self, D::Error> {
            let (tick, last_sweep, marked, schedules, run_starts, removed, skipped, runs): Parts =
                Deserialize::deserialize(deserializer)?;
            let sorted = skipped
                .windows(2)
                .all(|pair| (pair[0].0, pair[0].1) < (pair[1].0, pair[1].1));
            if !sorted {
                return Err(reject::<D::Error>(
                    "the save's record of skipped systems is not sorted by schedule and system, \
                     or names one twice",
                ));
            }
            let twice = schedules
                .iter()
                .enumerate()
                .any(|(i, record)| schedules[..i].iter().any(|other| other.0 == record.0));
            if twice {
                return Err(reject::<D::Error>(
                    "the save's change state names one schedule twice",
                ));
            }
            // No world makes 2^63 runs: a count past that is no save's.
            if runs > u64::MAX / 2 {
                return Err(reject::<D::Error>(format!(
                    "the save's change state counts {runs} runs: more than a world makes"
                )));
            }
            let later_run =
                schedules.iter().any(|r| r.2 > runs) || skipped.iter().any(|r| r.4 > runs);
            if later_run {
                return Err(reject::<D::Error>(
                    "the save's change state names a run after the world's last",
                ));
            }
            if removed.len() > components.len() {
                return Err(reject::<D::Error>(
                    "the save logs removals of more components than the schema has",
                ));
            }
            let mut logs = Vec::with_capacity(removed.len());
            for (bit, (first, log, dropped_through, marks)) in removed.into_iter().enumerate() {
                if (!log.is_empty() || first > 0) && tracked_bits & (1 << bit) == 0 {
                    return Err(reject::<D::Error>(format!(
                        "the save logs removals of `{}`, which schema `{}` does not track",
                        components[bit], schema
                    )));
                }
                let mut entities = Vec::with_capacity(log.len());
                for (tick, bits) in log {
                    let entity = Entity::from_bits(bits).ok_or_else(|| {
                        reject::<D::Error>(format!(
                            "the save's removal log holds no entity id ({bits:#x})"
                        ))
                    })?;
                    entities.push((tick, entity));
                }
                let log = TickLog::from_parts((first, entities, dropped_through, marks));
                log.check(tick, &|| {
                    format!("the removal log of `{}`", components[bit])
                })
                .map_err(reject::<D::Error>)?;
                logs.push(log);
            }
            let reads = |(events, removals): (u128, u128)| LogReads { events, removals };
            Ok(Changes {
                tick,
                last_sweep,
                marked,
                runs,
                schedules: schedules
                    .into_iter()
                    .map(|(fingerprint, start, run, systems, r)| ScheduleRecord {
                        fingerprint,
                        start,
                        run,
                        systems,
                        reads: reads(r),
                    })
                    .collect(),
                run_starts,
                removed: logs,
                skipped: skipped
                    .into_iter()
                    .map(|(fingerprint, index, last_run, r, since)| SkipRecord {
                        fingerprint,
                        index,
                        last_run,
                        reads: reads(r),
                        since,
                    })
                    .collect(),
                retention: Default::default(),
            })
        }
    }
}
