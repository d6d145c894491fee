//! Events: values one system sends and others read, declared in the schema
//! with `#[ecs(event)]`.
//!
//! The world keeps one queue per event type, [`Events<T>`], beside its
//! resources (as the resource `Events<T>`, so snapshots, checksums and saves
//! include it). Each event is stamped with the tick of the system that sent
//! it; a reader system reads the events stamped within its change window
//! (see [`crate::change`]): after its previous run, up to its current one.
//! On the sequential run that means: each reader sees each event exactly
//! once, in the order sent; a reader after the writer in program order sees
//! it in the same run, a reader before it in the next run.
//!
//! **Several schedules on one world.** Ticks are the world's, so a reader's
//! window also covers what the other schedules sent since its last run: an
//! event sent in one schedule reaches the readers of every other schedule of
//! the world exactly once, in send order, however often each runs (a fixed
//! step run 0, 1 or 5 times a frame, a per-frame schedule after it). Hence
//! the lifetime of an event ([`crate::retention`] has the whole rule): it
//! is dropped at the start of a run (or a
//! [`World::clear_trackers`](crate::world::World::clear_trackers) mark) once it is
//! older than the previous run or mark, every schedule *whose systems read
//! its type* has run since it was sent, and every system skipped by its
//! run condition that reads it has run again. With one schedule, an event
//! lives through two runs at most. A reader that does not run for more
//! than [`HOLD_RUNS`](crate::retention::HOLD_RUNS) runs of the world holds
//! nothing back any more, so a queue never grows past what that many runs
//! send; when the reader runs again, [`EventReader::missed`] says exactly
//! how many it missed. A schedule that will never run on a world again can
//! let go at once: [`Schedule::forget`] it. A schedule's first run on a
//! world reads every event still kept.
//!
//! [`Schedule::forget`]: crate::schedule::Schedule::forget

mod read;

pub use read::{ChunkEvents, EventCursor, EventReader, EventWriter};

use crate::changes::ChangeWindow;
use crate::layout::Layout;
use crate::lend::Lent;
use crate::retention::{LogId, Retention, TickLog};
use crate::stable_hash::{StableHash, StableHasher};
use core::fmt;

/// An event type of schema `S`, declared by a field marked `#[ecs(event)]`.
///
/// Implemented by `#[derive(Schema)]`; its queue is the resource
/// [`Events<Self>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event of schema `{S}`",
    label = "not an event of `{S}`",
    note = "events are the fields of `{S}` marked `#[ecs(event)]`; add \
            `#[ecs(event)] name: {Self}` to the schema to send and read it \
            (a component or resource type cannot also be an event)"
)]
pub trait Event<S: Layout>: Sized + Send + Sync + 'static {
    /// The resource bit of this event type's queue.
    #[doc(hidden)]
    const BIT: u32;
    /// The queue's slot among the resource slots.
    #[doc(hidden)]
    fn slot<'s, 'a>(slots: &'s mut S::ResourceSlots<'a>) -> &'s mut Lent<'a, Events<Self>>;
    /// The queue, from the schema's resources.
    #[doc(hidden)]
    fn queue(resources: &S::Resources) -> &Events<Self>;
    /// The queue, from the schema's resources.
    #[doc(hidden)]
    fn queue_mut(resources: &mut S::Resources) -> &mut Events<Self>;
}

/// The queue of one event type: the events some reader may not have read
/// yet, in the order sent, each with the tick it was sent at. How long an
/// event is kept is the rule of [`crate::retention`]: two schedule runs,
/// and past that for as long as a reader of this type that has not run
/// since needs it, [`HOLD_RUNS`](crate::retention::HOLD_RUNS) runs at
/// most.
///
/// A world keeps one per `#[ecs(event)]` field, as a resource: systems send
/// with [`EventWriter`] and read with [`EventReader`]; outside systems use
/// [`World::send_event`](crate::world::World::send_event) and an [`EventCursor`].
pub struct Events<T> {
    log: TickLog<T>,
}

impl<T> Default for Events<T> {
    fn default() -> Self {
        Events {
            log: TickLog::default(),
        }
    }
}

impl<T: Clone> Clone for Events<T> {
    fn clone(&self) -> Self {
        Events {
            log: self.log.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.log.clone_from(&source.log);
    }
}

impl<T: fmt::Debug> fmt::Debug for Events<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: StableHash> StableHash for Events<T> {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.log.first.stable_hash(hasher);
        self.log.entries.len().stable_hash(hasher);
        for (tick, event) in &self.log.entries {
            tick.stable_hash(hasher);
            event.stable_hash(hasher);
        }
        self.log.hash_marks(hasher);
    }
}

impl<T> Events<T> {
    /// Number of events kept (those some reader may not have read yet).
    pub fn len(&self) -> usize {
        self.log.entries.len()
    }

    /// Whether no event is kept.
    pub fn is_empty(&self) -> bool {
        self.log.entries.is_empty()
    }

    /// Every event kept, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.log.entries.iter().map(|(_, event)| event)
    }

    /// How many events were sent to this queue since the world was made
    /// (those dropped and those kept).
    pub fn sent(&self) -> u64 {
        self.log.first + self.log.entries.len() as u64
    }

    #[inline]
    pub(crate) fn send(&mut self, tick: u32, event: T) {
        self.log.push(tick, event);
    }

    pub(crate) fn extend(&mut self, tick: u32, events: impl IntoIterator<Item = T>) {
        self.log
            .entries
            .extend(events.into_iter().map(|event| (tick, event)));
    }

    /// The events sent within `window`, oldest first.
    pub(crate) fn in_window(&self, window: ChangeWindow) -> impl Iterator<Item = &T> + Clone {
        self.log.in_window(window)
    }

    /// How many events sent within `window` were dropped unread.
    pub(crate) fn missed(&self, window: ChangeWindow) -> u64 {
        self.log.missed(window)
    }

    /// The first number and the entries, for an [`EventCursor`].
    pub(crate) fn numbered(&self) -> (u64, &[(u32, T)]) {
        (self.log.first, &self.log.entries)
    }

    /// Keeps what `retention` says the queue of the event type of resource
    /// bit `bit` must keep (see [`crate::retention`]).
    #[doc(hidden)]
    pub fn retain(&mut self, bit: u32, retention: &Retention<'_>) {
        self.log.retain_for(LogId::Event(bit), retention);
    }

    /// Clamps the events' ticks (see [`crate::change`]).
    #[doc(hidden)]
    pub fn clamp_ticks(&mut self, now: u32) {
        self.log.clamp_ticks(now);
    }
}

/// With feature `serde`: a queue saves as its first sequence number, its
/// (tick, event) pairs, oldest first, and what readers whose hold ended
/// missed (see [`crate::retention`]).
#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for Events<T> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        self.log.serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Events<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let log = TickLog::<T>::deserialize(deserializer)?;
        // No world sends 2^63 events: a number past that is no save's.
        if log.first.saturating_add(log.entries.len() as u64) > u64::MAX / 2 {
            return Err(D::Error::custom(format!(
                "an event queue of `{}` numbered from {}: more events than a world sends",
                core::any::type_name::<T>(),
                log.first
            )));
        }
        Ok(Events { log })
    }
}

impl<T> Events<T> {
    /// `Ok` if the events are in send order, none was sent after tick
    /// `now` (the world's, in a save being loaded), and the record of what
    /// readers missed fits them.
    #[doc(hidden)]
    pub fn check_ticks(&self, now: u32) -> Result<(), String> {
        self.log.check(now, &|| {
            format!("the event queue of `{}`", core::any::type_name::<T>())
        })
    }
}
