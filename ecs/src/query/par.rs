//! Parallel iteration over a query: each table's column slices cut into
//! row ranges that run on rayon's thread pool (in order on the calling
//! thread without the `parallel` feature). The forms that only call a
//! function cut the ranges as rayon cuts a slice, adaptively; the form that
//! records changes ([`Query::par_for_each_mut_with`], through a
//! [`ChunkRecorder`], implemented beside each recorder: `commands.rs`,
//! `event/read.rs`, `migrator.rs`, `sparse_mut.rs`, `spawner.rs`) cuts them
//! into fixed chunks ([`Query::exclusive_chunks`]), one buffer each, put
//! back in chunk order.

use super::{Query, QueryData, ReadOnlyQueryData};
use crate::pool;

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
    /// If `f` panics, the panic reaches the caller once the chunks already
    /// running have stopped. Each item was then written by its call or not
    /// at all, but which items of other chunks ran depends on the threads:
    /// only a loop that completes is the same on any number of them.
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

    /// The query's rows, mutably, cut into chunks for the pool: what
    /// [`Query::par_for_each_mut_with`] hands each chunk's recorder.
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

/// A system parameter whose changes the chunks of a parallel loop can
/// record ([`Query::par_for_each_mut_with`]): each chunk records into a
/// buffer of its own, through a [`ChunkRecorder::Chunk`], and the buffers
/// are handed back in iteration order, so the changes are those, in the
/// order, a sequential loop would record, on any number of threads.
///
/// Implemented for `&mut` [`Commands`](crate::command::Commands),
/// [`Despawner`](crate::command::Despawner), [`EventWriter`](crate::event::EventWriter),
/// [`Migrator`](crate::command::Migrator),
/// [`SparseMut`](crate::command::SparseMut), [`Spawner`](crate::command::Spawner) and
/// [`UnnamedSpawner`](crate::command::UnnamedSpawner), and for tuples of up to four
/// of them (each chunk then gets a tuple of chunk recorders). The trait is
/// sealed: the crate's recorders are the only ones.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot record changes from the chunks of a parallel loop",
    label = "not a recorder the chunks can share",
    note = "pass `&mut` to one of the system's `Commands`, `Despawner`, `EventWriter`, \
            `Migrator`, `SparseMut`, `Spawner` or `UnnamedSpawner`, or a tuple of up to four of those \
            (`(&mut commands, &mut events)`); the values they record must be `Send`"
)]
pub trait ChunkRecorder: sealed::Sealed {
    /// What the loop's function records through, for one chunk: it keeps
    /// the chunk's changes until they are appended.
    type Chunk: Send;
    /// A recorder for one chunk, with nothing recorded yet.
    #[doc(hidden)]
    fn chunk(&mut self) -> Self::Chunk;
    /// Takes a chunk's changes, after those of the chunks before it.
    #[doc(hidden)]
    fn append(&mut self, chunk: Self::Chunk);
}

/// Keeps [`ChunkRecorder`] to the crate's recorders.
pub(crate) mod sealed {
    pub trait Sealed {}
}

macro_rules! tuple_recorder {
    ($($r:ident $i:tt),+) => {
        impl<$($r: sealed::Sealed),+> sealed::Sealed for ($($r,)+) {}

        impl<$($r: ChunkRecorder),+> ChunkRecorder for ($($r,)+) {
            type Chunk = ($($r::Chunk,)+);

            fn chunk(&mut self) -> Self::Chunk {
                ($(self.$i.chunk(),)+)
            }

            fn append(&mut self, chunk: Self::Chunk) {
                $(self.$i.append(chunk.$i);)+
            }
        }
    };
}

tuple_recorder!(A 0);
tuple_recorder!(A 0, B 1);
tuple_recorder!(A 0, B 1, C 2);
tuple_recorder!(A 0, B 1, C 2, D 3);

/// The forms of parallel iteration that record changes.
impl<Q: QueryData, F> Query<'_, Q, F> {
    /// [`Query::par_for_each_mut`] for a function that also records changes
    /// through `recorder`: commands, events, a migrator's moves, a sparse
    /// component's insertions and removals, spawns, or a tuple of those.
    ///
    /// The rows are cut into chunks of about equal size that run on the
    /// pool; each chunk records into a buffer of its own, through the
    /// chunk recorder `f` is handed, and the buffers are then appended to
    /// `recorder` in iteration order. So the changes are the same, in the
    /// same order, as a sequential loop would record, on any number of
    /// threads. What a chunk cannot know in advance it does not tell: a
    /// spawn's id, say, which is given when the chunk's spawns are
    /// appended.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::command::Migrator;
    /// #[derive(Debug)] struct Health(i32);
    /// #[derive(Debug)] struct Dead;
    /// #[derive(Debug, PartialEq)] struct Died(u32);
    /// #[derive(Schema)]
    /// struct S { health: Health, dead: Dead, #[ecs(event)] died: Died }
    ///
    /// fn reap(
    ///     mut living: Query<(Entity, &mut Health), Without<Dead>>,
    ///     mut dead: Migrator<S, Dead>,
    ///     mut died: EventWriter<Died>,
    /// ) {
    ///     living.par_for_each_mut_with((&mut dead, &mut died), |(dead, died), (entity, health)| {
    ///         health.0 -= 1;
    ///         if health.0 <= 0 {
    ///             dead.insert(entity, Dead).unwrap();
    ///             died.send(Died(entity.index()));
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
    /// let died: Vec<u32> = world.events::<Died>().iter().map(|d| d.0).collect();
    /// let expected: Vec<u32> = (0..1000).filter(|i| i % 3 != 2).collect();
    /// assert_eq!(died, expected);
    /// ```
    pub fn par_for_each_mut_with<R, Func>(&mut self, mut recorder: R, f: Func)
    where
        R: ChunkRecorder,
        Func: Fn(&mut R::Chunk, Q::Item<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        let chunks: Vec<_> = self
            .exclusive_chunks()
            .into_iter()
            .map(|(fetch, len)| (fetch, len, recorder.chunk()))
            .collect();
        let recorded = pool::map(chunks, |(mut fetch, len, mut chunk)| {
            Q::stamp_rows(&mut fetch, len);
            for _ in 0..len {
                f(&mut chunk, Q::next(&mut fetch));
            }
            chunk
        });
        for chunk in recorded {
            recorder.append(chunk);
        }
    }
}
