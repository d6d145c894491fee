//! Parallel iteration over a query: each table's column slices cut into
//! row ranges that run on rayon's thread pool (in order on the calling
//! thread without the `parallel` feature). The forms that only call a
//! function cut the ranges as rayon cuts a slice, adaptively; the forms that
//! collect commands or events cut them into fixed chunks, one buffer each,
//! put back in chunk order.

use super::{Query, QueryData, ReadOnlyQueryData};
use crate::command::{ChunkCommands, CommandQueue, Commands};
use crate::event::EventWriter;
use crate::pool;
use crate::schema::Schema;

/// Chunks per thread: enough for rayon to balance uneven work, few enough
/// that the per-chunk overhead stays small.
pub(super) const CHUNKS_PER_THREAD: usize = 8;

/// Cuts `tables` (fetches with their row counts) into chunks of about equal
/// size, in iteration order.
fn chunks<'a, Q: QueryData>(
    tables: impl Iterator<Item = (Q::Fetch<'a>, usize)>,
    total: usize,
) -> Vec<(Q::Fetch<'a>, usize)> {
    let size = (total / (pool::current_num_threads() * CHUNKS_PER_THREAD)).max(1);
    let mut chunks = Vec::with_capacity(total / size + 1);
    for (mut fetch, mut len) in tables {
        while len > size {
            let (head, tail) = Q::split_at(fetch, size);
            chunks.push((head, size));
            fetch = tail;
            len -= size;
        }
        chunks.push((fetch, len));
    }
    chunks
}

/// Calls `f` with every item of `tables` (fetches with their row counts):
/// the tables spread over rayon's pool, and each table holding more than a
/// thread's share of the rows cut into row ranges as rayon cuts a slice
/// (see [`pool::split_for_each`]), so that the work balances as
/// `par_iter_mut` over a `Vec` does while small tables cost no cuts.
/// Nothing is collected, so how the rows are cut cannot show in the result.
fn run_split<'a, Q: QueryData>(
    tables: Vec<(Q::Fetch<'a>, usize)>,
    f: impl Fn(Q::Item<'_>) + Send + Sync,
) where
    Q::Fetch<'a>: Send,
{
    let f = &f;
    let total = tables.iter().map(|&(_, len)| len).sum();
    pool::for_each(tables, |(fetch, len)| {
        pool::split_for_each(
            fetch,
            len,
            total,
            &|fetch, mid| Q::split_at(fetch, mid),
            &|fetch, len| Q::fold(fetch, len, (), |(), item| f(item)),
        );
    });
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Calls `f` with every item, mutably, on rayon's thread pool: the
    /// tables' column slices are cut into chunks that run in parallel.
    ///
    /// Each call sees only its own entity's components (the Core ECS paper's
    /// `conc(s)` for one query), so the result does not depend on how the
    /// work is spread over threads. Without the `parallel` feature the chunks
    /// run one after another on the calling thread, with the same result.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(f64);
    /// struct Vel(f64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn_batch((0..10_000).map(|i| (Pos(0.0), Vel(i as f64))));
    /// world
    ///     .query_mut::<(&mut Pos, &Vel)>()
    ///     .par_for_each_mut(|(pos, vel)| pos.0 += vel.0.sqrt());
    /// let total: f64 = world.query::<&Pos>().iter().map(|pos| pos.0).sum();
    /// assert!(total > 660_000.0);
    /// ```
    pub fn par_for_each_mut<Func>(&mut self, f: Func)
    where
        Func: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        run_split::<Q>(self.exclusive_runs(), f);
    }

    /// Calls `f` with every item of a read-only query on rayon's thread
    /// pool; see [`Query::par_for_each_mut`].
    pub fn par_for_each<Func>(&self, f: Func)
    where
        Q: ReadOnlyQueryData,
        Func: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        let mut runs = Vec::with_capacity(self.tables.len());
        self.runs(|run| runs.push((run.fetch, run.entities.len())));
        run_split::<Q>(runs, f);
    }

    /// [`Query::par_for_each_mut`] for a function that also records
    /// commands. Each chunk records into a buffer of its own; the buffers are
    /// then appended to `commands` in iteration order, so the commands are
    /// the same, in the same order, as a sequential loop would record. A
    /// chunk records through [`ChunkCommands`], whose `spawn` does not return
    /// the new entity: its id is given when the commands are applied, since
    /// chunks record in any order.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug)] struct Health(i32);
    /// #[derive(Debug)] struct Dead;
    /// #[derive(Schema)] struct S { health: Health, dead: Dead }
    ///
    /// fn reap(mut living: Query<(Entity, &mut Health), Without<Dead>>, mut commands: Commands<S>) {
    ///     living.par_for_each_mut_with(&mut commands, |commands, (entity, health)| {
    ///         health.0 -= 1;
    ///         if health.0 <= 0 {
    ///             commands.insert(entity, (Dead,));
    ///         }
    ///     });
    /// }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn_batch((0..1000).map(|i| (Health(i % 3),)));
    /// let mut schedule = Schedule::<S>::new();
    /// schedule.add(reap);
    /// schedule.run(&mut world);
    /// assert_eq!(world.query_filtered::<Entity, With<Dead>>().count(), 667);
    /// ```
    pub fn par_for_each_mut_with<S, Func>(&mut self, commands: &mut Commands<'_, S>, f: Func)
    where
        S: Schema,
        S::Column: Send,
        Func: Fn(&mut ChunkCommands<'_, S>, Q::Item<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        let queues: Vec<CommandQueue<S>> =
            pool::map(self.exclusive_chunks(), |(mut fetch, len)| {
                let mut queue = CommandQueue::default();
                let mut chunk_commands = ChunkCommands::new(&mut queue);
                Q::stamp_rows(&mut fetch, len);
                for _ in 0..len {
                    f(&mut chunk_commands, Q::next(&mut fetch));
                }
                queue
            });
        for mut queue in queues {
            commands.append(&mut queue);
        }
    }

    /// [`Query::par_for_each_mut`] for a function that also sends events.
    /// Each chunk sends into a buffer of its own; the buffers are then sent
    /// through `events` in iteration order, so the events are the same, in
    /// the same order, as a sequential loop would send.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug)] struct Heat(f32);
    /// #[derive(Debug, PartialEq)] struct Melted(u32);
    /// #[derive(Schema)] struct S { heat: Heat, #[ecs(event)] melted: Melted }
    ///
    /// fn warm(mut bodies: Query<(Entity, &mut Heat)>, mut melted: EventWriter<Melted>) {
    ///     bodies.par_for_each_mut_send(&mut melted, |melted, (entity, heat)| {
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
    pub fn par_for_each_mut_send<T, Func>(&mut self, events: &mut EventWriter<'_, T>, f: Func)
    where
        T: Send,
        Func: Fn(&mut ChunkEvents<T>, Q::Item<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        let buffers: Vec<Vec<T>> = pool::map(self.exclusive_chunks(), |(mut fetch, len)| {
            let mut chunk = ChunkEvents(Vec::new());
            Q::stamp_rows(&mut fetch, len);
            for _ in 0..len {
                f(&mut chunk, Q::next(&mut fetch));
            }
            chunk.0
        });
        for buffer in buffers {
            events.send_batch(buffer);
        }
    }

    /// The query's rows, mutably, cut into chunks for the pool.
    fn exclusive_chunks(&mut self) -> Vec<(Q::Fetch<'_>, usize)> {
        let total = self.count();
        chunks::<Q>(self.exclusive_runs().into_iter(), total)
    }

    /// The fetches of the rows the query reaches, mutably, with their row
    /// counts: one per table, or with a row filter one per run of passing
    /// rows.
    fn exclusive_runs(&mut self) -> Vec<(Q::Fetch<'_>, usize)> {
        let mut runs = Vec::with_capacity(self.tables.len());
        self.runs_mut(|run| runs.push((run.fetch, run.entities.len())));
        runs
    }
}

/// The events one chunk of [`Query::par_for_each_mut_send`] sends: kept in
/// the chunk's order, sent after the chunks before it.
#[derive(Debug)]
pub struct ChunkEvents<T>(Vec<T>);

impl<T> ChunkEvents<T> {
    /// Sends `event` (after the chunk's earlier ones).
    #[inline]
    pub fn send(&mut self, event: T) {
        self.0.push(event);
    }
}
