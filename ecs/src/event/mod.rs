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
//! the lifetime of an event: it is dropped at the start of a run (or a
//! [`World::clear_trackers`](crate::World::clear_trackers) mark) once it is older than both the previous
//! run or mark and the last run of every schedule that has run on the world.
//! With one schedule, an event lives through two runs at most; with
//! several, until each has run once after it. A schedule that will never run
//! on a world again holds events back: [`Schedule::forget`] it. A schedule's
//! first run on a world reads every event still kept.
//!
//! [`Schedule::forget`]: crate::Schedule::forget

mod read;

pub use read::{ChunkEvents, EventCursor, EventReader, EventWriter};

use crate::change::{clamp, ChangeWindow};
use crate::checksum::{StableHash, StableHasher};
use crate::lend::Lent;
use crate::schema::Schema;
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
pub trait Event<S: Schema>: Sized + Send + Sync + 'static {
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
/// yet, in the order sent, each with the tick it was sent at. An event is
/// kept until every schedule that has run on the world has run again (at
/// most two runs with one schedule; see
/// [`Schedule::forget`](crate::Schedule::forget)).
///
/// A world keeps one per `#[ecs(event)]` field, as a resource: systems send
/// with [`EventWriter`] and read with [`EventReader`]; outside systems use
/// [`World::send_event`](crate::World::send_event) and an [`EventCursor`].
pub struct Events<T> {
    /// (tick, event), oldest first.
    queue: Vec<(u32, T)>,
    /// The sequence number of `queue[0]`: every event sent to this queue
    /// gets the next one, for [`EventCursor`]s.
    first: u64,
}

impl<T> Default for Events<T> {
    fn default() -> Self {
        Events {
            queue: Vec::new(),
            first: 0,
        }
    }
}

impl<T: Clone> Clone for Events<T> {
    fn clone(&self) -> Self {
        Events {
            queue: self.queue.clone(),
            first: self.first,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.queue.clone_from(&source.queue);
        self.first = source.first;
    }
}

impl<T: fmt::Debug> fmt::Debug for Events<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.queue.iter().map(|(_, event)| event))
            .finish()
    }
}

impl<T: StableHash> StableHash for Events<T> {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.first.stable_hash(hasher);
        self.queue.len().stable_hash(hasher);
        for (tick, event) in &self.queue {
            tick.stable_hash(hasher);
            event.stable_hash(hasher);
        }
    }
}

impl<T> Events<T> {
    /// Number of events kept (those some reader may not have read yet).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no event is kept.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Every event kept, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.queue.iter().map(|(_, event)| event)
    }

    #[inline]
    pub(crate) fn send(&mut self, tick: u32, event: T) {
        self.queue.push((tick, event));
    }

    /// The events sent within `window`, oldest first.
    pub(crate) fn in_window(&self, window: ChangeWindow) -> impl Iterator<Item = &T> + Clone {
        // Ticks never decrease along the queue, so ages never increase: the
        // events before the window are a prefix, found by bisection.
        let span = window.this_run.wrapping_sub(window.last_run);
        let start = self
            .queue
            .partition_point(|&(tick, _)| window.this_run.wrapping_sub(tick) >= span);
        self.queue[start..]
            .iter()
            .take_while(move |&&(tick, _)| window.contains(tick))
            .map(|(_, event)| event)
    }

    /// Drops the events sent before `keep_from` (ages relative to `now`).
    #[doc(hidden)]
    pub fn prune(&mut self, keep_from: u32, now: u32) {
        let limit = now.wrapping_sub(keep_from);
        let old = self
            .queue
            .iter()
            .take_while(|&&(tick, _)| now.wrapping_sub(tick) > limit)
            .count();
        if old > 0 {
            self.queue.drain(..old);
            self.first += old as u64;
        }
    }

    /// Clamps the events' ticks (see [`crate::change`]).
    #[doc(hidden)]
    pub fn clamp_ticks(&mut self, now: u32) {
        for (tick, _) in &mut self.queue {
            clamp(tick, now);
        }
    }
}

/// With feature `serde`: a queue saves as its first sequence number and its
/// (tick, event) pairs, oldest first.
#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for Events<T> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        (self.first, &self.queue).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Events<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let (first, queue) = <(u64, Vec<(u32, T)>)>::deserialize(deserializer)?;
        // No world sends 2^63 events: a number past that is no save's.
        if first.saturating_add(queue.len() as u64) > u64::MAX / 2 {
            return Err(D::Error::custom(format!(
                "an event queue of `{}` numbered from {first}: more events than a world sends",
                core::any::type_name::<T>()
            )));
        }
        let events = Events { queue, first };
        events.check_order().map_err(D::Error::custom)?;
        Ok(events)
    }
}

impl<T> Events<T> {
    /// `Ok` if the events' ticks are in send order (each at or after the
    /// one before, as ticks that wrap go).
    #[cfg(feature = "serde")]
    fn check_order(&self) -> Result<(), String> {
        let out_of_order = |pair: &[(u32, T)]| crate::change::is_after(pair[0].0, pair[1].0);
        match self.queue.windows(2).position(out_of_order) {
            None => Ok(()),
            Some(at) => Err(format!(
                "the events of `{}` are not in the order they were sent (event {} at tick {}, \
                 the one after at tick {})",
                core::any::type_name::<T>(),
                at,
                self.queue[at].0,
                self.queue[at + 1].0
            )),
        }
    }

    /// `Ok` if no event was sent after tick `now` (the world's, in a save
    /// being loaded).
    #[doc(hidden)]
    pub fn check_ticks(&self, now: u32) -> Result<(), String> {
        match self
            .queue
            .iter()
            .find(|(tick, _)| crate::change::is_after(*tick, now))
        {
            None => Ok(()),
            Some(&(tick, _)) => Err(format!(
                "an event of `{}` sent at tick {tick}, after the world's tick {now}",
                core::any::type_name::<T>()
            )),
        }
    }
}
