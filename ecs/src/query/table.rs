//! The table form of a query: one call per matching table (in the parallel
//! forms, per row range of a table) with the table's archetype, its entities
//! and one slice per query item. This is the Zig model's system signature:
//! the user writes the loop over whole columns, and can branch once per
//! table rather than once per entity.

use super::entities::TableEntities;
use super::par::CHUNKS_PER_THREAD;
use super::{Query, QueryData, ReadOnlyQueryData, Run};
use crate::entity::Entities;
use crate::layout::Layout;
use crate::mask::Mask;
use crate::pool;
use core::fmt;
use core::ops::Range;

/// One matching table of a [`Query`], or a row range of one, as the table
/// form ([`Query::for_each_table_mut`] and its siblings) hands it out beside
/// the item slices: the table's archetype and the entities of the rows.
///
/// Row `i` of every item slice belongs to entity `entities().get(i)`.
#[derive(Clone, Copy)]
pub struct TableChunk<'a> {
    entities: TableEntities<'a>,
    /// The table's archetype, as the bits of its `S::Mask`.
    mask: u128,
    /// The schema's type name (see [`Query`]'s field of the same name).
    schema: &'static str,
    first_row: usize,
}

impl<'a> TableChunk<'a> {
    /// The archetype of the chunk's table: every component its entities
    /// have, asked for by the query or not. `S` is the world's schema, which
    /// a query's type leaves out, hence the turbofish:
    /// `chunk.mask::<Physics>().contains(PhysicsMask::FROZEN)`.
    ///
    /// # Panics
    ///
    /// If `S` is not the schema of the world the query came from.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// struct Frozen;
    /// #[derive(Schema)] struct S { pos: Pos, frozen: Frozen }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn((Pos(1),));
    /// world.spawn((Pos(2), Frozen));
    /// let mut masks = Vec::new();
    /// world.query::<&Pos>().for_each_table(|table, _| masks.push(table.mask::<S>()));
    /// assert_eq!(masks, [SMask::POS, SMask::POS | SMask::FROZEN]);
    /// ```
    #[inline]
    pub fn mask<S: Layout>(&self) -> S::Mask {
        let asked = core::any::type_name::<S>();
        assert!(
            asked == self.schema,
            "TableChunk::mask::<{asked}>() on a query of a World<{}>: name the world's schema",
            self.schema
        );
        S::Mask::from_u128(self.mask)
    }

    /// The entities of the chunk's rows, in row order.
    #[inline]
    pub fn entities(&self) -> TableEntities<'a> {
        self.entities
    }

    /// Number of rows: the length of every item slice.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the chunk has no row; never true for a chunk a query hands
    /// out, since queries skip empty tables.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The rows of its table that the chunk holds: `0..len()` for the
    /// sequential forms, one range of the table for the parallel ones.
    #[inline]
    pub fn rows(&self) -> Range<usize> {
        self.first_row..self.first_row + self.len()
    }
}

/// The schema, the archetype's bits and the rows; not the entities, which
/// may be many.
impl fmt::Debug for TableChunk<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableChunk")
            .field("schema", &self.schema)
            .field("mask", &format_args!("{:#b}", self.mask))
            .field("rows", &self.rows())
            .finish_non_exhaustive()
    }
}

/// Rows a parallel call gets at least (unless its table is shorter): the
/// table form is for loops that vectorize, which want long runs, and each
/// call costs a rayon task.
const MIN_CHUNK_ROWS: usize = 256;

/// Parallel chunks start at multiples of this many rows, so that a
/// `chunks_exact(n)` loop with `n` dividing it leaves a remainder only at
/// the end of a table.
const CHUNK_ROW_MULTIPLE: usize = 64;

/// Cuts whole tables into row ranges for the parallel table forms: of
/// about `total / (threads * CHUNKS_PER_THREAD)` rows, at least
/// [`MIN_CHUNK_ROWS`], a multiple of [`CHUNK_ROW_MULTIPLE`]; the last range
/// of a table takes what is left. Every row is in exactly one range.
fn pieces<'a, Q: QueryData>(tables: Vec<Run<'a, Q>>, total: usize) -> Vec<Run<'a, Q>> {
    let size = (total / (pool::current_num_threads() * CHUNKS_PER_THREAD))
        .max(MIN_CHUNK_ROWS)
        .next_multiple_of(CHUNK_ROW_MULTIPLE);
    let mut pieces = Vec::new();
    for mut piece in tables {
        while piece.entities.len() > size {
            let (head, tail) = piece.split_at(size);
            pieces.push(head);
            piece = tail;
        }
        pieces.push(piece);
    }
    pieces
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Calls `f` once per matching table with the table's slices, mutably:
    /// a [`TableChunk`] (the table's archetype and its entities in row
    /// order) and one slice per query item ([`QueryData::Slice`]: `&mut [T]`
    /// for `&mut T`, `&[T]` for `&T`, `Option<…>` for an optional item, one
    /// `bool` per table for `Has<T>`, [`TableEntities`] for `Entity`). Empty
    /// tables are skipped; filters select tables as for any other form.
    ///
    /// With a row filter ([`Added`](crate::query::Added), [`Changed`](crate::query::Changed))
    /// or a sparse component (`#[ecs(sparse)]`) in the query, a chunk is a
    /// run of consecutive rows of a table rather than the whole table
    /// ([`TableChunk::rows`]); a sparse item's slice then holds the run's
    /// values, row for row like the others, and its `Option` and `Has`
    /// are the same for every row of the chunk.
    ///
    /// This is the form for loops written by hand: over two columns at once,
    /// in `chunks_exact` steps the compiler turns into SIMD code, with an
    /// early exit or a branch on the archetype taken once per table.
    ///
    /// For a loop to vectorize, hand the slices on to a function that takes
    /// them as arguments, as `advance` does below: rustc tells LLVM that a
    /// function's `&mut` and `&` arguments do not overlap, and slices that
    /// arrive in the closure's tuple lose that fact, so the same loop written
    /// in the closure body runs one value at a time.
    ///
    /// Chunks of eight help a component of one field (below) and, with SSE
    /// only (the default target), one of several; but with AVX-512
    /// (`-C target-cpu=native` on recent x86), LLVM vectorizes a chunked loop
    /// over a component of several fields across chunks with gathers and
    /// scatters, 10× to 25× slower than a plain `zip` loop over the slices,
    /// which it vectorizes well there. Measure on your target; `examples/
    /// tables.rs` and `benches/simple_iter.rs` show both forms.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Clone, Copy)] struct Pos(f32);
    /// #[derive(Clone, Copy)] struct Vel(f32);
    /// struct Slow;
    /// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel, slow: Slow }
    ///
    /// /// Eight entities per step: the chunks have a known length, so the
    /// /// body has no bounds checks and becomes vector adds; then the rest.
    /// fn advance(pos: &mut [Pos], vel: &[Vel], dt: f32) {
    ///     let mut pos8 = pos.chunks_exact_mut(8);
    ///     let mut vel8 = vel.chunks_exact(8);
    ///     for (p, v) in (&mut pos8).zip(&mut vel8) {
    ///         for i in 0..8 {
    ///             p[i].0 += v[i].0 * dt;
    ///         }
    ///     }
    ///     for (p, v) in pos8.into_remainder().iter_mut().zip(vel8.remainder()) {
    ///         p.0 += v.0 * dt;
    ///     }
    /// }
    ///
    /// let mut world = World::<Physics>::new();
    /// world.spawn_batch((0..100).map(|_| (Pos(0.0), Vel(2.0))));
    /// let slow = world.spawn((Pos(0.0), Vel(2.0), Slow));
    ///
    /// world.query_mut::<(&mut Pos, &Vel)>().for_each_table_mut(|table, (pos, vel)| {
    ///     // One branch per table, not per entity.
    ///     let slow = table.mask::<Physics>().contains(PhysicsMask::SLOW);
    ///     advance(pos, vel, if slow { 0.5 } else { 1.0 });
    /// });
    ///
    /// assert_eq!(world.get::<Pos>(slow).unwrap().0, 1.0);
    /// assert_eq!(world.query::<&Pos>().iter().filter(|p| p.0 == 2.0).count(), 100);
    /// ```
    pub fn for_each_table_mut(&mut self, mut f: impl FnMut(TableChunk<'_>, Q::Slice<'_>)) {
        let (entities, schema) = (self.entities, self.schema);
        self.runs_mut(|run| {
            let (chunk, slice) = run.chunk(entities, schema);
            f(chunk, slice);
        });
    }

    /// Calls `f` once per matching table of a read-only query with the
    /// table's slices (`&[T]` for `&T`); see [`Query::for_each_table_mut`].
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Hp(u32);
    /// struct Boss;
    /// #[derive(Schema)] struct Game { hp: Hp, boss: Boss }
    ///
    /// let mut world = World::<Game>::new();
    /// world.spawn_batch((0..10).map(|i| (Hp(i),)));
    /// let boss = world.spawn((Hp(500), Boss));
    ///
    /// // The weakest entity of each table, and whether it is a boss.
    /// let mut weakest = Vec::new();
    /// world.query::<(Entity, &Hp, Has<Boss>)>().for_each_table(|_, (entities, hp, boss)| {
    ///     let row = (0..hp.len()).min_by_key(|&row| hp[row].0).unwrap();
    ///     weakest.push((entities.get(row).unwrap(), boss));
    /// });
    /// assert_eq!(weakest.len(), 2);
    /// assert_eq!(weakest[1], (boss, true));
    /// ```
    pub fn for_each_table(&self, mut f: impl FnMut(TableChunk<'_>, Q::Slice<'_>))
    where
        Q: ReadOnlyQueryData,
    {
        self.runs(|run| {
            let (chunk, slice) = run.chunk(self.entities, self.schema);
            f(chunk, slice);
        });
    }

    /// [`Query::for_each_table_mut`] on rayon's thread pool: large tables
    /// are cut into row ranges ([`TableChunk::rows`]) and `f` is called once
    /// per range, the ranges in parallel. Each row is in exactly one range.
    /// Ranges hold a few hundred rows at least (unless the table is
    /// shorter) and start at multiples of 64 rows, so a `chunks_exact(n)`
    /// loop with `n` dividing 64 has a remainder only at a table's end.
    /// Without the `parallel` feature the ranges are the same and `f` gets
    /// them one after another, in row order, on the calling thread.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn_batch((0..100_000).map(|i| (Pos(0.0), Vel(i as f32))));
    /// world.query_mut::<(&mut Pos, &Vel)>().par_for_each_table_mut(|_, (pos, vel)| {
    ///     for (p, v) in pos.iter_mut().zip(vel) {
    ///         p.0 += v.0;
    ///     }
    /// });
    /// assert!(world.query::<(&Pos, &Vel)>().iter().all(|(p, v)| p.0 == v.0));
    /// ```
    pub fn par_for_each_table_mut<Func>(&mut self, f: Func)
    where
        Func: Fn(TableChunk<'_>, Q::Slice<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        let total = self.count();
        let (entities, schema) = (self.entities, self.schema);
        let mut runs = Vec::with_capacity(self.tables.len());
        self.runs_mut(|run| runs.push(run));
        run_pieces(pieces(runs, total), entities, schema, f);
    }

    /// [`Query::for_each_table`] on rayon's thread pool, for read-only
    /// queries; see [`Query::par_for_each_table_mut`].
    pub fn par_for_each_table<Func>(&self, f: Func)
    where
        Q: ReadOnlyQueryData,
        Func: Fn(TableChunk<'_>, Q::Slice<'_>) + Send + Sync,
        for<'a> Q::Fetch<'a>: Send,
    {
        let mut runs = Vec::with_capacity(self.tables.len());
        self.runs(|run| runs.push(run));
        run_pieces(pieces(runs, self.count()), self.entities, self.schema, f);
    }
}

/// Calls `f` with every piece, the pieces on rayon's pool.
fn run_pieces<'a, Q: QueryData>(
    pieces: Vec<Run<'a, Q>>,
    entities: &'a Entities,
    schema: &'static str,
    f: impl Fn(TableChunk<'_>, Q::Slice<'_>) + Send + Sync,
) where
    Q::Fetch<'a>: Send,
{
    pool::for_each(pieces, |piece| {
        let (chunk, slice) = piece.chunk(entities, schema);
        f(chunk, slice);
    });
}

impl<'a, Q: QueryData> Run<'a, Q> {
    /// The run as the table form hands it out.
    fn chunk(self, entities: &'a Entities, schema: &'static str) -> (TableChunk<'a>, Q::Slice<'a>) {
        let chunk = TableChunk {
            entities: TableEntities::new(self.entities, entities),
            mask: self.mask,
            schema,
            first_row: self.first_row,
        };
        (chunk, Q::slice(self.fetch))
    }
}
