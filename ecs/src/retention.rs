//! What a world keeps of its event queues and removal records, and for
//! whom: the one home of their retention rule.
//!
//! Both are logs of values stamped with the tick they were sent or logged
//! at, oldest first. A reader reads what was stamped within its change
//! window: after its previous run, up to its current one (see
//! [`Tick`](crate::change::Tick)). A log entry is kept while a reader may still
//! have to read it:
//!
//! * every entry lives through two schedule runs (or
//!   [`World::clear_trackers`](crate::world::World::clear_trackers) marks), for
//!   readers outside systems;
//! * past that, an entry is *held* for each reader of *its* log that has
//!   not run since it was stamped: a schedule whose systems read the log
//!   (an [`EventReader`](crate::event::EventReader) of that event type, a
//!   [`Removed`](crate::change::Removed) of that component) holds it until the
//!   schedule runs again, and a system skipped by its run condition holds
//!   it until the system runs again. A schedule or a skipped system that
//!   does not read a log holds nothing of it;
//! * a hold lasts [`HOLD_RUNS`] runs at most: a schedule that has not run
//!   for that many runs and marks of the world, or a system skipped for
//!   that many, no longer holds anything back. When it runs again, its
//!   readers read what is still kept, and
//!   [`EventReader::missed`](crate::event::EventReader::missed) and
//!   [`Removed::missed`](crate::change::Removed::missed) say exactly how many
//!   entries of their window were dropped unread.
//!
//! So the memory a log takes is bounded by what is sent in `HOLD_RUNS`
//! runs, however long a game stays in one state, and nothing is lost
//! silently. Where a hold expired, the log keeps a few *marks* (per expired
//! reader, one per tick its readers may resume from) so that `missed` is
//! exact; they go when the reader runs or is forgotten. Marks, like
//! everything here, are world state: clones, checksums and saves carry
//! them.

use crate::stable_hash::{StableHash, StableHasher};
use crate::tick::{clamp, is_after, ChangeWindow};

/// How many runs (schedule runs and `clear_trackers` marks) of a world a
/// reader that has not run holds events and removal records back for. A
/// schedule that has not run for longer (a state's enter systems, a
/// schedule that will never run again), or a system skipped for longer,
/// holds nothing: its readers then learn what they missed with
/// [`EventReader::missed`](crate::event::EventReader::missed) and
/// [`Removed::missed`](crate::change::Removed::missed).
///
/// 256 runs is over two seconds of a game that runs a fixed step and a
/// frame schedule at 60 frames a second, and covers a fixed step at half a
/// step a second beside it.
pub const HOLD_RUNS: u64 = 256;

/// The logs a reader reads: event queues by their resource bit, removal
/// logs by their component bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct LogReads {
    pub(crate) events: u128,
    pub(crate) removals: u128,
}

impl LogReads {
    /// Reads nothing.
    pub(crate) const NONE: LogReads = LogReads {
        events: 0,
        removals: 0,
    };

    /// Whether it reads no log.
    pub(crate) fn is_empty(self) -> bool {
        self.events == 0 && self.removals == 0
    }

    /// Whether it reads `log`.
    #[inline]
    pub(crate) fn reads(self, log: LogId) -> bool {
        match log {
            LogId::Event(bit) => self.events & (1 << bit) != 0,
            LogId::Removal(bit) => self.removals & (1 << bit) != 0,
        }
    }

    /// What either reads.
    pub(crate) fn union(self, other: LogReads) -> LogReads {
        LogReads {
            events: self.events | other.events,
            removals: self.removals | other.removals,
        }
    }
}

/// One log of a world: an event queue (by its resource bit) or the removal
/// log of a tracked component (by its component bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum LogId {
    /// The queue of the event type whose resource bit this is.
    Event(u32),
    /// The removal log of the tracked component of this bit.
    Removal(u32),
}

/// Whether a holder still holds back what it has not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HoldState {
    /// It has run (or was first skipped) within the last [`HOLD_RUNS`] runs.
    Holding,
    /// Its hold ends with the run starting now: its marks are taken now.
    Ending,
    /// Its hold ended before; its marks are kept.
    Ended,
}

/// A reader that may hold log entries back: a schedule (its readers read
/// from `from + i`, `i` below `span`, the number of its systems) or a
/// skipped system (from `from`, `span` 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hold {
    pub(crate) reads: LogReads,
    pub(crate) from: u32,
    pub(crate) span: u32,
    pub(crate) state: HoldState,
}

/// What a run (or mark) starting at tick `now` keeps of each log: every
/// entry after `floor`, and what the holders need.
#[doc(hidden)]
pub struct Retention<'a> {
    pub(crate) now: u32,
    /// The start of the run or mark before this one.
    pub(crate) floor: u32,
    pub(crate) holds: &'a [Hold],
}

impl Retention<'_> {
    /// Whether a log entry stamped `tick` is no later than `bound` (both at
    /// or before `now`).
    #[inline]
    fn at_or_before(&self, tick: u32, bound: u32) -> bool {
        self.now.wrapping_sub(tick) >= self.now.wrapping_sub(bound)
    }
}

/// A log of values stamped with ticks, oldest first: an event queue or a
/// removal log. Entries are numbered in the order logged (the first has
/// number 0); dropping the oldest keeps the numbers of the rest.
pub(crate) struct TickLog<T> {
    /// (tick, value), oldest first; ticks never decrease along it.
    pub(crate) entries: Vec<(u32, T)>,
    /// The number of `entries[0]`: how many entries were dropped.
    pub(crate) first: u64,
    /// The tick of the newest entry dropped (when `first > 0`).
    pub(crate) dropped_through: u32,
    /// For readers whose hold ended: `(tick, n)`, `n` the number of entries
    /// ever logged at or before `tick`, oldest tick first.
    pub(crate) marks: Vec<(u32, u64)>,
}

impl<T> Default for TickLog<T> {
    fn default() -> Self {
        TickLog {
            entries: Vec::new(),
            first: 0,
            dropped_through: 0,
            marks: Vec::new(),
        }
    }
}

impl<T: core::fmt::Debug> core::fmt::Debug for TickLog<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TickLog")
            .field("entries", &self.entries)
            .field("first", &self.first)
            .field("dropped_through", &self.dropped_through)
            .field("marks", &self.marks)
            .finish()
    }
}

impl<T: Clone> Clone for TickLog<T> {
    fn clone(&self) -> Self {
        TickLog {
            entries: self.entries.clone(),
            first: self.first,
            dropped_through: self.dropped_through,
            marks: self.marks.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.entries.clone_from(&source.entries);
        self.first = source.first;
        self.dropped_through = source.dropped_through;
        self.marks.clone_from(&source.marks);
    }
}

impl<T> TickLog<T> {
    #[inline]
    pub(crate) fn push(&mut self, tick: u32, value: T) {
        self.entries.push((tick, value));
    }

    /// Where the entries within `window` start: those before are a prefix
    /// (ticks never decrease), found by bisection.
    fn window_start(&self, window: ChangeWindow) -> usize {
        let span = window.this_run.wrapping_sub(window.last_run);
        self.entries
            .partition_point(|&(tick, _)| window.this_run.wrapping_sub(tick) >= span)
    }

    /// The entries stamped within `window`, oldest first.
    pub(crate) fn in_window(&self, window: ChangeWindow) -> impl Iterator<Item = &T> + Clone {
        self.entries[self.window_start(window)..]
            .iter()
            .take_while(move |&&(tick, _)| window.contains(tick))
            .map(|(_, value)| value)
    }

    /// How many entries stamped within `window` were dropped before a
    /// reader with that window could read them (0 for a reader's first run,
    /// which reads what is kept).
    pub(crate) fn missed(&self, window: ChangeWindow) -> u64 {
        if self.first == 0 || window.is_first() {
            return 0;
        }
        let now = window.this_run;
        let age = |tick: u32| now.wrapping_sub(tick);
        let from = window.last_run;
        // Nothing after `from` was dropped: nothing missed.
        if age(self.dropped_through) >= age(from) {
            return 0;
        }
        // The reader's hold ended: the mark at or before `from` nearest to
        // it counts what was logged up to `from`.
        let at = self
            .marks
            .partition_point(|&(tick, _)| age(tick) >= age(from));
        match at.checked_sub(1) {
            Some(at) => self.first.saturating_sub(self.marks[at].1),
            None => 0,
        }
    }

    /// Keeps what `retention` says log `log` must keep: takes the marks of
    /// the holders whose hold ends now, drops the marks no reader needs any
    /// more, then drops the entries older than every hold.
    pub(crate) fn retain_for(&mut self, log: LogId, retention: &Retention<'_>) {
        let mut oldest = retention.floor;
        for hold in retention.holds {
            if !hold.reads.reads(log) {
                continue;
            }
            match hold.state {
                HoldState::Holding => {
                    if retention.at_or_before(hold.from, oldest) {
                        oldest = hold.from;
                    }
                }
                HoldState::Ending => self.take_marks(hold, retention),
                HoldState::Ended => {}
            }
        }
        if !self.marks.is_empty() {
            self.marks.retain(|&(tick, _)| {
                retention.holds.iter().any(|hold| {
                    hold.state != HoldState::Holding
                        && hold.reads.reads(log)
                        && tick.wrapping_sub(hold.from) < hold.span
                })
            });
        }
        self.drop_before(oldest, retention.now);
    }

    /// Marks the ticks `hold`'s readers may read from: its first, and each
    /// tick an entry was logged at within its span.
    fn take_marks(&mut self, hold: &Hold, retention: &Retention<'_>) {
        let from = hold.from;
        let mut at = self
            .entries
            .partition_point(|&(tick, _)| retention.at_or_before(tick, from));
        let mut marks = vec![(from, self.first + at as u64)];
        while let Some(&(tick, _)) = self.entries.get(at) {
            if tick.wrapping_sub(from) >= hold.span {
                break;
            }
            while self.entries.get(at).is_some_and(|&(t, _)| t == tick) {
                at += 1;
            }
            marks.push((tick, self.first + at as u64));
        }
        let now = retention.now;
        self.marks.extend(marks);
        self.marks
            .sort_by_key(|&(tick, _)| core::cmp::Reverse(now.wrapping_sub(tick)));
        self.marks.dedup_by_key(|&mut (tick, _)| tick);
    }

    /// Drops the entries logged before `keep_from` (ages relative to `now`).
    fn drop_before(&mut self, keep_from: u32, now: u32) {
        let limit = now.wrapping_sub(keep_from);
        let old = self
            .entries
            .iter()
            .take_while(|&&(tick, _)| now.wrapping_sub(tick) > limit)
            .count();
        if old > 0 {
            self.dropped_through = self.entries[old - 1].0;
            self.entries.drain(..old);
            self.first += old as u64;
        }
    }

    /// Clamps the ticks (see [`crate::change`]).
    pub(crate) fn clamp_ticks(&mut self, now: u32) {
        for (tick, _) in &mut self.entries {
            clamp(tick, now);
        }
        clamp(&mut self.dropped_through, now);
        for (tick, _) in &mut self.marks {
            clamp(tick, now);
        }
    }

    /// `Ok` if the ticks are in log order (each at or after the one
    /// before, as ticks that wrap go), none after tick `now`, and the marks
    /// in order and within the numbers logged. `what` names the log.
    pub(crate) fn check(&self, now: u32, what: &dyn Fn() -> String) -> Result<(), String> {
        if let Some(at) = self
            .entries
            .windows(2)
            .position(|pair| is_after(pair[0].0, pair[1].0))
        {
            return Err(format!(
                "the entries of {} are not in the order they were logged (entry {} at tick {}, \
                 the one after at tick {})",
                what(),
                at,
                self.entries[at].0,
                self.entries[at + 1].0
            ));
        }
        if let Some(&(tick, _)) = self.entries.iter().find(|(tick, _)| is_after(*tick, now)) {
            return Err(format!(
                "an entry of {} logged at tick {tick}, after the world's tick {now}",
                what()
            ));
        }
        let logged = self.first.saturating_add(self.entries.len() as u64);
        // No world logs 2^63 entries: a number past that is no save's.
        if logged > u64::MAX / 2 {
            return Err(format!(
                "{} is numbered from {}: more entries than a world logs",
                what(),
                self.first
            ));
        }
        let marks_sorted = self
            .marks
            .windows(2)
            .all(|pair| is_after(pair[1].0, pair[0].0) && pair[0].1 <= pair[1].1);
        let marks_bounded = self
            .marks
            .iter()
            .all(|&(tick, n)| n <= logged && !is_after(tick, now));
        if !marks_sorted
            || !marks_bounded
            || (self.first > 0 && is_after(self.dropped_through, now))
        {
            return Err(format!(
                "the record of what readers of {} missed does not fit its entries",
                what()
            ));
        }
        Ok(())
    }
}

impl<T> TickLog<T> {
    /// Hashes the log's numbering and marks, the parts beside its entries;
    /// nothing while no reader's hold has ended, so that the checksums of
    /// worlds without such readers stay what they were.
    pub(crate) fn hash_marks(&self, hasher: &mut StableHasher) {
        if !self.marks.is_empty() {
            self.marks.len().stable_hash(hasher);
            for &(tick, n) in &self.marks {
                tick.stable_hash(hasher);
                n.stable_hash(hasher);
            }
            self.dropped_through.stable_hash(hasher);
        }
    }
}

/// With feature `serde`: a log saves as its first number, its entries, the
/// tick of the newest dropped one and its marks.
#[cfg(feature = "serde")]
pub(crate) mod save {
    use super::TickLog;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// The saved parts of a log of `V`s.
    pub(crate) type Parts<V> = (u64, Vec<(u32, V)>, u32, Vec<(u32, u64)>);

    impl<T> TickLog<T> {
        /// Saves the log, its values as `value` gives them.
        pub(crate) fn save_as<S: Serializer, V: Serialize>(
            &self,
            serializer: S,
            value: impl Fn(&T) -> V,
        ) -> Result<S::Ok, S::Error> {
            let entries: Vec<(u32, V)> = self.entries.iter().map(|(t, v)| (*t, value(v))).collect();
            (self.first, entries, self.dropped_through, &self.marks).serialize(serializer)
        }

        /// A log from its saved parts (not checked yet: see `check`).
        pub(crate) fn from_parts((first, entries, dropped_through, marks): Parts<T>) -> Self {
            TickLog {
                entries,
                first,
                dropped_through,
                marks,
            }
        }
    }

    impl<T: Serialize> Serialize for TickLog<T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            (self.first, &self.entries, self.dropped_through, &self.marks).serialize(serializer)
        }
    }

    impl<'de, T: Deserialize<'de>> Deserialize<'de> for TickLog<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            Ok(TickLog::from_parts(Parts::<T>::deserialize(deserializer)?))
        }
    }
}
