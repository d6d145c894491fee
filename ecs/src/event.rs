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
//! [`World::clear_trackers`] mark) once it is older than both the previous
//! run or mark and the last run of every schedule that has run on the world.
//! With one schedule, an event lives through two runs at most; with
//! several, until each has run once after it. A schedule that will never run
//! on a world again holds events back: [`Schedule::forget`] it. A schedule's
//! first run on a world reads every event still kept.
//!
//! [`Schedule::forget`]: crate::Schedule::forget

use crate::change::{clamp, ChangeWindow};
use crate::lend::Lent;
use crate::lend::SplitWorld;
use crate::schema::Schema;
use crate::system::{Access, SystemParam};
use crate::world::World;
use crate::{StableHash, StableHasher};
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
/// [`World::send_event`] and an [`EventCursor`].
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

/// Where a reader outside systems is in one event queue: [`EventCursor::read`]
/// returns the events sent since its last read (those still kept).
///
/// A cursor is the caller's, not the world's: snapshots do not include it.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i32);
/// #[derive(Debug, PartialEq)] struct Hit(u32);
/// #[derive(Schema)] struct S { pos: Pos, #[ecs(event)] hit: Hit }
///
/// let mut world = World::<S>::new();
/// let mut cursor = EventCursor::<Hit>::default();
/// world.send_event(Hit(1));
/// world.send_event(Hit(2));
/// assert_eq!(cursor.read(&world).collect::<Vec<_>>(), [&Hit(1), &Hit(2)]);
/// world.send_event(Hit(3));
/// assert_eq!(cursor.read(&world).collect::<Vec<_>>(), [&Hit(3)]);
/// assert_eq!(cursor.read(&world).count(), 0);
/// ```
pub struct EventCursor<T> {
    next: u64,
    event: core::marker::PhantomData<fn() -> T>,
}

impl<T> Default for EventCursor<T> {
    fn default() -> Self {
        EventCursor {
            next: 0,
            event: core::marker::PhantomData,
        }
    }
}

impl<T> Clone for EventCursor<T> {
    fn clone(&self) -> Self {
        EventCursor {
            next: self.next,
            event: core::marker::PhantomData,
        }
    }
}

impl<T> fmt::Debug for EventCursor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventCursor")
            .field("next", &self.next)
            .finish()
    }
}

impl<T> EventCursor<T> {
    /// The events of `world` sent since this cursor last read, oldest first
    /// (events already dropped are skipped).
    pub fn read<'w, S: Schema>(&mut self, world: &'w World<S>) -> impl Iterator<Item = &'w T>
    where
        T: Event<S>,
    {
        let events = T::queue(world.resources());
        let skip = self.next.saturating_sub(events.first);
        let skip = usize::try_from(skip)
            .unwrap_or(usize::MAX)
            .min(events.queue.len());
        self.next = events.first + events.queue.len() as u64;
        events.queue[skip..].iter().map(|(_, event)| event)
    }
}

/// A system parameter that sends events of type `T`.
///
/// A reader after this system in program order reads the events in the same
/// run; a reader before it, in the next run. Two writers of one event type,
/// or a writer and a reader, never run at once (the order of events is part
/// of the result).
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Health(i32);
/// #[derive(Debug)] struct Died(Entity);
/// #[derive(Default)] struct Obituaries(Vec<Entity>);
/// #[derive(Schema)]
/// struct Game { health: Health, #[ecs(event)] died: Died, #[ecs(resource)] log: Obituaries }
///
/// fn check(living: Query<(Entity, &Health)>, mut died: EventWriter<Died>) {
///     living.for_each(|(entity, health)| if health.0 <= 0 { died.send(Died(entity)) });
/// }
/// fn mourn(mut died: EventReader<Died>, mut log: ResMut<Obituaries>) {
///     log.0.extend(died.read().map(|event| event.0));
/// }
///
/// let mut world = World::<Game>::new();
/// let doomed = world.spawn((Health(0),));
/// world.spawn((Health(5),));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(check).add(mourn);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Obituaries>().0, [doomed]);
/// schedule.run(&mut world); // a second event, read once
/// assert_eq!(world.resource::<Obituaries>().0, [doomed, doomed]);
/// ```
pub struct EventWriter<'w, T> {
    events: &'w mut Events<T>,
    tick: u32,
}

impl<T> EventWriter<'_, T> {
    /// Sends `event`.
    #[inline]
    pub fn send(&mut self, event: T) {
        self.events.send(self.tick, event);
    }

    /// Sends every event of `events`, in order.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = T>) {
        let tick = self.tick;
        self.events
            .queue
            .extend(events.into_iter().map(|event| (tick, event)));
    }
}

impl<T> fmt::Debug for EventWriter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventWriter")
            .field("tick", &self.tick)
            .finish()
    }
}

/// A system parameter that reads the events of type `T` this system has not
/// seen yet: those sent since its previous run (in program order), each
/// once, in the order sent.
///
/// Any number of readers of one event type may run at once; see
/// [`EventWriter`] for an example.
pub struct EventReader<'w, T> {
    events: &'w Events<T>,
    window: ChangeWindow,
}

impl<'w, T> EventReader<'w, T> {
    /// The events not seen yet, oldest first. Reading does not consume
    /// them: every call in one run returns the same events.
    pub fn read(&self) -> impl Iterator<Item = &'w T> + Clone {
        self.events.in_window(self.window)
    }

    /// Number of events not seen yet.
    pub fn len(&self) -> usize {
        self.read().count()
    }

    /// Whether there is no event not seen yet.
    pub fn is_empty(&self) -> bool {
        self.read().next().is_none()
    }
}

impl<T> fmt::Debug for EventReader<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventReader")
            .field("unread", &self.len())
            .finish()
    }
}

impl<S: Schema, T: Event<S>> SystemParam<S> for EventWriter<'_, T> {
    type State = ChangeWindow;
    type Item<'w> = EventWriter<'w, T>;
    const ACCESS: Access = Access {
        resource_writes: 1 << T::BIT,
        ..Access::NONE
    };
    const CHECK: () = ();

    fn init() -> ChangeWindow {
        ChangeWindow::first(0)
    }

    fn prepare(state: &mut ChangeWindow, _: &World<S>, window: ChangeWindow) {
        *state = window;
    }

    fn fetch<'w>(state: &'w mut ChangeWindow, world: &mut SplitWorld<'w, S>) -> EventWriter<'w, T> {
        EventWriter {
            events: T::slot(&mut world.resources).exclusive(),
            tick: state.this_run,
        }
    }
}

impl<S: Schema, T: Event<S>> SystemParam<S> for EventReader<'_, T> {
    type State = ChangeWindow;
    type Item<'w> = EventReader<'w, T>;
    const ACCESS: Access = Access {
        resource_reads: 1 << T::BIT,
        ..Access::NONE
    };
    const CHECK: () = ();
    const READS_LOGS: bool = true;

    fn init() -> ChangeWindow {
        ChangeWindow::first(0)
    }

    fn prepare(state: &mut ChangeWindow, _: &World<S>, window: ChangeWindow) {
        *state = window;
    }

    fn fetch<'w>(state: &'w mut ChangeWindow, world: &mut SplitWorld<'w, S>) -> EventReader<'w, T> {
        EventReader {
            events: T::slot(&mut world.resources).shared(),
            window: *state,
        }
    }
}

/// A run condition may read events; it reads them from the world as it is.
impl<S: Schema, T: Event<S>> crate::system::ConditionParam<S> for EventReader<'_, T> {
    const SHARED: bool = true;

    #[inline]
    fn fetch_shared<'w>(
        state: &'w mut ChangeWindow,
        world: &'w World<S>,
    ) -> Option<EventReader<'w, T>> {
        Some(EventReader {
            events: T::queue(world.resources()),
            window: *state,
        })
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
        let (first, queue) = <(u64, Vec<(u32, T)>)>::deserialize(deserializer)?;
        Ok(Events { queue, first })
    }
}
