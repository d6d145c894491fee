//! Reading and sending events: [`EventReader`] and [`EventWriter`], the
//! system parameters; [`EventCursor`], a reader outside systems; and the
//! events form of parallel iteration ([`ChunkEvents`]).

use super::{Event, Events};
use crate::changes::ChangeWindow;
use crate::lend::SplitWorld;
use crate::query::{ChunkRecorder, Sealed};
use crate::system::{Access, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::World;
use core::fmt;

/// Where a reader outside systems is in one event queue: [`EventCursor::read`]
/// returns the events sent since its last read (those still kept).
///
/// A cursor is the caller's, not the world's: snapshots do not include it.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::event::EventCursor;
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
        let (first, entries) = T::queue(world.resources()).numbered();
        let skip = self.next.saturating_sub(first);
        let skip = usize::try_from(skip)
            .unwrap_or(usize::MAX)
            .min(entries.len());
        self.next = first + entries.len() as u64;
        entries[skip..].iter().map(|(_, event)| event)
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
        self.events.extend(self.tick, events);
    }
}

impl<T> fmt::Debug for EventWriter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventWriter")
            .field("tick", &self.tick)
            .finish()
    }
}

impl<T> Sealed for &mut EventWriter<'_, T> {}

/// Events sent from the chunks of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
/// each chunk through [`ChunkEvents`]: the events a sequential loop would
/// send, in its order.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Heat(f32);
/// #[derive(Debug, PartialEq)] struct Melted(u32);
/// #[derive(Schema)] struct S { heat: Heat, #[ecs(event)] melted: Melted }
///
/// fn warm(mut bodies: Query<(Entity, &mut Heat)>, mut melted: EventWriter<Melted>) {
///     bodies.par_for_each_mut_with(&mut melted, |melted, (entity, heat)| {
///         heat.0 += 1.0;
///         if heat.0 >= 100.0 {
///             melted.send(Melted(entity.index()));
///         }
///     });
/// }
///
/// let mut world = World::<S>::new();
/// world.spawn_batch((0..5000).map(|i| (Heat((i % 100) as f32),)));
/// let mut schedule = Schedule::<S>::new();
/// schedule.add(warm);
/// schedule.run(&mut world);
/// let melted: Vec<u32> = world.events::<Melted>().iter().map(|m| m.0).collect();
/// let expected: Vec<u32> = (0..5000).filter(|i| i % 100 == 99).collect();
/// assert_eq!(melted, expected);
/// ```
impl<T: Send> ChunkRecorder for &mut EventWriter<'_, T> {
    type Chunk = ChunkEvents<T>;

    fn chunk(&mut self) -> ChunkEvents<T> {
        ChunkEvents(Vec::new())
    }

    fn append(&mut self, chunk: ChunkEvents<T>) {
        self.send_batch(chunk.0);
    }
}

/// The events one chunk of a parallel loop sends
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
/// kept in the chunk's order, sent after the chunks before it.
#[derive(Debug)]
pub struct ChunkEvents<T>(Vec<T>);

impl<T> ChunkEvents<T> {
    /// Sends `event` (after the chunk's earlier ones).
    #[inline]
    pub fn send(&mut self, event: T) {
        self.0.push(event);
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
    /// The reader of `events` through `window` (for a run condition, which
    /// reads the world as it is).
    pub(crate) fn new(events: &'w Events<T>, window: ChangeWindow) -> Self {
        EventReader { events, window }
    }

    /// The events not seen yet, oldest first. Reading does not consume
    /// them: every call in one run returns the same events.
    pub fn read(&self) -> impl Iterator<Item = &'w T> + Clone {
        self.events.in_window(self.window)
    }

    /// Number of events not seen yet.
    pub fn len(&self) -> usize {
        self.read().count()
    }

    /// How many events sent since this system's previous run were dropped
    /// before it could read them: 0, unless the system did not run for
    /// more than [`HOLD_RUNS`](crate::retention::HOLD_RUNS) runs of the
    /// world (its schedule did not run, or its run condition skipped it),
    /// after which the world stops keeping events for it (see
    /// [`crate::retention`]). Exact, and world state like the events.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::retention::HOLD_RUNS;
    /// struct Pos(i32);
    /// struct Ping;
    /// #[derive(Default)] struct Seen { read: usize, missed: u64 }
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, #[ecs(event)] ping: Ping, #[ecs(resource)] seen: Seen }
    ///
    /// fn ping(mut pings: EventWriter<Ping>) { pings.send(Ping); }
    /// fn count(pings: EventReader<Ping>, mut seen: ResMut<Seen>) {
    ///     seen.read += pings.len();
    ///     seen.missed += pings.missed();
    /// }
    ///
    /// let mut world = World::<Game>::new();
    /// let mut play = Schedule::<Game>::new();
    /// play.add(ping);
    /// let mut rare = Schedule::<Game>::new();
    /// rare.add(count);
    /// rare.run(&mut world);
    /// for _ in 0..1000 {
    ///     play.run(&mut world);
    /// }
    /// // `rare` held the pings back for HOLD_RUNS runs, then let them go.
    /// assert!(world.events::<Ping>().len() < 2 * HOLD_RUNS as usize);
    /// rare.run(&mut world);
    /// let seen = world.resource::<Seen>();
    /// assert_eq!(seen.read as u64 + seen.missed, 1000);
    /// assert!(seen.missed > 0);
    /// ```
    pub fn missed(&self) -> u64 {
        self.events.missed(self.window)
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
