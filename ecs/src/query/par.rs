//! Parallel iteration over a query: each table's column slices cut into
//! row ranges that run on rayon's thread pool (in order on the calling
//! thread without the `parallel` feature). The forms that only call a
//! function cut the ranges as rayon cuts a slice, adaptively; the forms that
//! collect commands or events, beside their features (`command.rs`,
//! `event.rs`), cut them into fixed chunks ([`Query::exclusive_chunks`]),
//! one buffer each, put back in chunk order.

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

    /// The query's rows, mutably, cut into chunks for the pool: what the
    /// forms that collect per chunk (`par_for_each_mut_with` in
    /// `command.rs`, `par_for_each_mut_send` in `event.rs`) hand each
    /// chunk's buffer.
    pub(crate) fn exclusive_chunks(&mut self) -> Vec<(Q::Fetch<'_>, usize)> {
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
