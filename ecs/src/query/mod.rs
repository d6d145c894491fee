//! Queries: typed views of every entity that has a set of components.
//!
//! A query is written as a type: `world.query_mut::<(Entity, &mut Pos, Option<&Vel>)>()`.
//! Its item types give the components it reads and writes (the
//! [`SchemaQuery`] consts `REQUIRED`, `READS`, `WRITES`), and an optional
//! filter ([`With`], [`Without`], [`Or`], tuples) adds conditions on the
//! archetype. Query and filter together are a list of [`TableCondition`]s; a
//! table matches when it satisfies one of them. Without `Or` there is one,
//! and a table matches when `mask & REQUIRED == REQUIRED && mask & EXCLUDED
//! == 0`. The world caches the matching tables per list of conditions (per
//! pair of masks when there is one) and extends the list as new tables
//! appear.

mod entities;
mod fetch;
mod filter;
mod lookup;
mod par;
mod prepared;
mod rows;
mod sparse;
mod table;

pub use entities::{TableEntities, TableEntitiesIter};
pub use fetch::{Has, QueryData, ReadOnlyQueryData, SchemaQuery, TableView};
pub(crate) use filter::QueryReach;
pub use filter::{Added, Changed, Or, QueryFilter, TableCondition, With, Without};
pub use lookup::{QueryEntityError, QuerySingleError};
pub use prepared::PreparedQuery;
use rows::{for_each_reached, BitRuns, TableRows};
pub(crate) use rows::{PassingRows, RowSet};
pub(crate) use sparse::SparseRuns;
pub use table::TableChunk;

use crate::change::ChangeWindow;
use crate::entity::{Entities, Entity};
use crate::lend::{Lent, SplitWorld};
use crate::mask::{Mask, MaskBits};
use crate::schema::Schema;
use crate::storage::{EntityIndex, MaskMap, SparseSets, Table, TableId, Tables};
use core::marker::PhantomData;
use fetch::ViewColumns;
use std::borrow::Cow;

/// The result of [`World::query`](crate::World::query): for every entity that
/// matches `Q` and filter `F`, its item `Q::Item`.
///
/// It borrows the world for `'w` and holds, per matching table, the column
/// slices the query needs. Iterate it with [`Query::iter`] (read-only
/// queries) or [`Query::iter_mut`], or with [`Query::for_each`] /
/// [`Query::for_each_mut`], which run over the slices directly and are the
/// fastest way through a query. [`Query::for_each_table_mut`] hands the
/// slices themselves to a loop written by hand, one table at a time.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Pos(i64);
/// #[derive(Debug)] struct Vel(i64);
/// #[derive(Debug)] struct Frozen;
/// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel, frozen: Frozen }
///
/// let mut world = World::<Physics>::new();
/// let a = world.spawn((Pos(0), Vel(2)));
/// let b = world.spawn((Pos(0), Vel(5), Frozen));
///
/// world
///     .query_filtered_mut::<(&mut Pos, &Vel), Without<Frozen>>()
///     .for_each_mut(|(pos, vel)| pos.0 += vel.0);
///
/// assert_eq!(world.get::<Pos>(a).unwrap().0, 2);
/// assert_eq!(world.get::<Pos>(b).unwrap().0, 0);
/// let mut query = world.query::<(Entity, &Pos)>();
/// assert_eq!(query.count(), 2);
/// assert_eq!(query.get(a).map(|(e, p)| (e, p.0)), Some((a, 2)));
/// ```
pub struct Query<'w, Q: QueryData, F = ()> {
    entities: &'w Entities,
    tables: Vec<FetchedTable<'w, Q>>,
    /// With a row filter, the rows of each table that pass it.
    rows: Cow<'w, PassingRows>,
    /// The schema of the world, by type name: a query's type leaves it out,
    /// and [`TableChunk::mask`] checks what it is asked for against this.
    schema: &'static str,
    filter: PhantomData<fn() -> F>,
}

/// One matching, non-empty table of a query.
struct FetchedTable<'w, Q: QueryData> {
    id: TableId,
    /// The table's archetype, as the bits of its `S::Mask`.
    mask: u128,
    /// The table's entities, one per row (of the rows this query reaches:
    /// for a query that reaches sparse components, one run of consecutive
    /// rows of the table).
    entities: &'w [EntityIndex],
    /// The table row of `entities[0]` (0 unless the rows are such a run).
    first_row: u32,
    fetch: Q::Fetch<'w>,
    /// With a row filter: which of the rows above pass it (bits of the
    /// query's [`PassingRows`]); without one, all do.
    rows: Option<TableRows>,
}

impl<'w, Q: QueryData> FetchedTable<'w, Q> {
    /// The table of `entities` and `fetch`, all of whose rows, or with a
    /// row filter the rows `rows`, the query reaches.
    #[inline]
    fn new(
        id: TableId,
        mask: u128,
        entities: &'w [EntityIndex],
        fetch: Q::Fetch<'w>,
        rows: Option<TableRows>,
    ) -> Self {
        FetchedTable {
            id,
            mask,
            entities,
            first_row: 0,
            fetch,
            rows,
        }
    }

    /// The number of rows the query reaches here, the rows of a row
    /// filter in `passing`.
    #[inline]
    fn len(&self, passing: &PassingRows) -> usize {
        match self.rows {
            None => self.entities.len(),
            Some(rows) => passing.count(rows),
        }
    }

    /// Whether the query reaches the row at `offset` into `entities`.
    fn reaches(&self, offset: usize, passing: &PassingRows) -> bool {
        match self.rows {
            None => offset < self.entities.len(),
            Some(rows) => passing
                .bits(rows)
                .get(offset / 64)
                .is_some_and(|word| word >> (offset % 64) & 1 == 1),
        }
    }
}

/// Folds the runs of set bits of `bits` with `each(acc, start, end,
/// fetch)`: the rows `start..end` of `fetch` (a whole table's), in row
/// order.
#[inline]
fn fold_runs<'a, Q: QueryData, B>(
    fetch: Q::Fetch<'a>,
    bits: &[u64],
    init: B,
    mut each: impl FnMut(B, usize, usize, Q::Fetch<'a>) -> B,
) -> B {
    let mut acc = init;
    let mut rest = fetch;
    let mut at = 0;
    for (start, end) in BitRuns::new(bits) {
        let (start, end) = (start as usize, end as usize);
        let (_, tail) = Q::split_at(rest, start - at);
        let (run, tail) = Q::split_at(tail, end - start);
        acc = each(acc, start, end, run);
        rest = tail;
        at = end;
    }
    acc
}

/// Consecutive rows of one table that a query reaches: the whole table, or
/// with a row filter one run of its passing rows.
struct Run<'a, Q: QueryData> {
    fetch: Q::Fetch<'a>,
    entities: &'a [EntityIndex],
    /// The table's archetype, as the bits of its `S::Mask`.
    mask: u128,
    /// The table row of `entities[0]`.
    first_row: usize,
}

impl<'a, Q: QueryData> Run<'a, Q> {
    /// The rows of `fetch` and `entities` (starting at table row
    /// `first_row`) that the query reaches, as runs handed to `each`:
    /// without a row filter (`bits` is `None`) one run of every row.
    #[inline]
    fn split(
        fetch: Q::Fetch<'a>,
        entities: &'a [EntityIndex],
        mask: u128,
        first_row: u32,
        bits: Option<&[u64]>,
        mut each: impl FnMut(Self),
    ) {
        let first_row = first_row as usize;
        let Some(bits) = bits else {
            each(Run {
                fetch,
                entities,
                mask,
                first_row,
            });
            return;
        };
        fold_runs::<Q, ()>(fetch, bits, (), |(), start, end, fetch| {
            each(Run {
                fetch,
                entities: &entities[start..end],
                mask,
                first_row: first_row + start,
            })
        });
    }

    /// Rows `..mid` and `mid..`.
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (head_fetch, tail_fetch) = Q::split_at(self.fetch, mid);
        let (head, tail) = self.entities.split_at(mid);
        (
            Run {
                fetch: head_fetch,
                entities: head,
                mask: self.mask,
                first_row: self.first_row,
            },
            Run {
                fetch: tail_fetch,
                entities: tail,
                mask: self.mask,
                first_row: self.first_row + mid,
            },
        )
    }
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Hands `each` the runs of rows the query reaches (see [`Run`]), in
    /// iteration order, their fetches borrowed mutably.
    fn runs_mut<'a>(&'a mut self, mut each: impl FnMut(Run<'a, Q>)) {
        let passing = &*self.rows;
        for table in &mut self.tables {
            let bits = table.rows.map(|rows| passing.bits(rows));
            let fetch = Q::reborrow(&mut table.fetch);
            let (entities, mask, first_row) = (table.entities, table.mask, table.first_row);
            Run::split(fetch, entities, mask, first_row, bits, &mut each);
        }
    }

    /// Hands `each` the runs of rows of a read-only query, in iteration
    /// order; see [`Query::runs_mut`].
    fn runs<'a>(&'a self, mut each: impl FnMut(Run<'a, Q>))
    where
        Q: ReadOnlyQueryData,
    {
        for table in &self.tables {
            let bits = table.rows.map(|rows| self.rows.bits(rows));
            let fetch = Q::shared(&table.fetch);
            let (entities, mask, first_row) = (table.entities, table.mask, table.first_row);
            Run::split(fetch, entities, mask, first_row, bits, &mut each);
        }
    }
}

/// For a query made on the world, the rows of the tables `matched` that
/// pass the row filter `F` (see [`filter_rows`]); `None` without one.
fn passing_rows<S: Schema, F: QueryFilter<S>>(
    tables: &[Table<S>],
    matched: &[TableId],
    window: ChangeWindow,
) -> Option<PassingRows> {
    F::ROWS.then(|| {
        let mut rows = PassingRows::default();
        filter_rows::<S, F>(tables, matched, window, &mut RowSet::default(), &mut rows);
        rows
    })
}

/// The rows of the tables `matched` that pass the row conditions of filter
/// `F`, seen through `window`, in `rows` (which is cleared first).
/// `scratch` is working memory.
pub(crate) fn filter_rows<S: Schema, F: QueryFilter<S>>(
    tables: &[Table<S>],
    matched: &[TableId],
    window: ChangeWindow,
    scratch: &mut RowSet,
    rows: &mut PassingRows,
) {
    rows.clear();
    for &id in matched {
        let table = &tables[id.index()];
        if table.len() == 0 {
            continue;
        }
        scratch.fill(table.len());
        F::filter_rows(table.mask(), table.columns(), window, scratch);
        rows.push(id, scratch);
    }
}

/// The rows of `table` (a non-empty table matching `Q`) and `Q`'s fetch of
/// them, its writes stamped with `tick`. A query whose items take their
/// columns in ascending order, each once (any query whose items' columns do
/// not interleave, in whatever order the items are listed), walks the
/// columns with a cursor; others go through `slots`, which tell shared from
/// exclusive borrows (a buffer the caller reuses from table to table).
#[inline]
pub(crate) fn fetch_table<'w, S: Schema, Q: SchemaQuery<S>>(
    table: &'w mut Table<S>,
    entities: &'w Entities,
    tick: u32,
    slots: &mut Vec<Lent<'w, S::Column>>,
) -> (&'w [EntityIndex], Q::Fetch<'w>) {
    let mask = table.mask();
    let (indices, columns) = table.split_mut();
    let columns = if Q::ORDERED {
        ViewColumns::Ascending {
            rest: columns,
            next: 0,
        }
    } else {
        slots.clear();
        slots.extend(columns.iter_mut().map(Lent::Free));
        ViewColumns::Slots(slots)
    };
    let mut view = TableView::new(mask, indices, entities, columns, tick);
    (indices, Q::fetch(&mut view))
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Builds the query over the tables `matched` (ascending ids).
    pub(crate) fn new<S: Schema>(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        matched: &[TableId],
        window: ChangeWindow,
    ) -> Self
    where
        Q: SchemaQuery<S>,
        F: QueryFilter<S>,
    {
        let rows = passing_rows::<S, F>(tables, matched, window).map(Cow::Owned);
        Self::build(entities, tables, matched, rows, window.this_run)
    }

    /// Builds the query over the tables `matched` (ascending ids), with a
    /// row filter over the rows `rows` of each; `tick` stamps writes.
    pub(crate) fn build<S: Schema>(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        matched: &[TableId],
        rows: Option<Cow<'w, PassingRows>>,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let mut passing = rows.as_deref().map(PassingRows::tables);
        let mut fetched = Vec::with_capacity(passing.map_or(matched.len(), <[_]>::len));
        let mut slots: Vec<Lent<'w, S::Column>> = Vec::new();
        let mut rest = tables;
        let mut offset = 0;
        for &id in matched {
            let (table, tail) =
                match core::mem::take(&mut rest)[id.index() - offset..].split_first_mut() {
                    Some(split) => split,
                    None => unreachable!("matched table ids are ascending and in range"),
                };
            rest = tail;
            offset = id.index() + 1;
            if table.len() == 0 {
                continue;
            }
            let Some(table_rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            let bits = table.mask().bits().to_u128();
            let (indices, fetch) = fetch_table::<S, Q>(table, entities, tick, &mut slots);
            fetched.push(FetchedTable::new(id, bits, indices, fetch, table_rows));
        }
        Query::from_tables::<S>(entities, fetched, rows)
    }

    fn from_tables<S: Schema>(
        entities: &'w Entities,
        tables: Vec<FetchedTable<'w, Q>>,
        rows: Option<Cow<'w, PassingRows>>,
    ) -> Self {
        Query {
            entities,
            tables,
            rows: rows.unwrap_or_default(),
            schema: core::any::type_name::<S>(),
            filter: PhantomData,
        }
    }

    /// Builds a read-only query over the tables `matched` of a shared world.
    pub(crate) fn new_shared<S: Schema>(
        entities: &'w Entities,
        tables: &'w [Table<S>],
        matched: &[TableId],
        window: ChangeWindow,
    ) -> Self
    where
        Q: SchemaQuery<S> + ReadOnlyQueryData,
        F: QueryFilter<S>,
    {
        let rows = passing_rows::<S, F>(tables, matched, window).map(Cow::Owned);
        Self::build_shared(entities, tables, matched, rows)
    }

    /// Builds a read-only query over the tables `matched` (ascending ids) of
    /// a shared world, with a row filter over the rows `rows` of each.
    pub(crate) fn build_shared<S: Schema>(
        entities: &'w Entities,
        tables: &'w [Table<S>],
        matched: &[TableId],
        rows: Option<Cow<'w, PassingRows>>,
    ) -> Self
    where
        Q: SchemaQuery<S> + ReadOnlyQueryData,
    {
        let mut passing = rows.as_deref().map(PassingRows::tables);
        let mut fetched = Vec::with_capacity(passing.map_or(matched.len(), <[_]>::len));
        for &id in matched {
            let table = &tables[id.index()];
            if table.len() == 0 {
                continue;
            }
            let Some(table_rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            let fetch = Self::fetch_shared::<S>(table, entities, 0);
            let bits = table.mask().bits().to_u128();
            let indices = table.entities();
            fetched.push(FetchedTable::new(id, bits, indices, fetch, table_rows));
        }
        Query::from_tables::<S>(entities, fetched, rows)
    }

    /// `Q`'s fetch of the rows of `table`, a table of a shared world.
    #[inline]
    pub(crate) fn fetch_shared<S: Schema>(
        table: &'w Table<S>,
        entities: &'w Entities,
        tick: u32,
    ) -> Q::Fetch<'w>
    where
        Q: SchemaQuery<S>,
    {
        let columns = ViewColumns::Shared(table.columns());
        let mut view = TableView::new(table.mask(), table.entities(), entities, columns, tick);
        Q::fetch(&mut view)
    }

    /// Builds a query that reaches sparse components (see `sparse.rs`) over
    /// the runs `runs` of an exclusively borrowed world; `tick` stamps writes.
    pub(crate) fn build_sparse<S: Schema>(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        sparse: &'w mut SparseSets<S>,
        runs: &SparseRuns,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let mut values: Vec<_> = sparse
            .sets_mut()
            .iter_mut()
            .map(|set| Lent::Free(set.values_mut()))
            .collect();
        let mut slots: Vec<Lent<'w, S::Column>> = Vec::new();
        let mut rest = tables;
        let mut offset = 0;
        let fetched = sparse::build::<S, Q>(runs, entities, &mut values, tick, |id| {
            let (table, tail) =
                match core::mem::take(&mut rest)[id.index() - offset..].split_first_mut() {
                    Some(split) => split,
                    None => unreachable!("runs are ascending by table and in range"),
                };
            rest = tail;
            offset = id.index() + 1;
            let bits = table.mask().bits().to_u128();
            let (indices, fetch) = fetch_table::<S, Q>(table, entities, tick, &mut slots);
            (bits, indices, fetch)
        });
        Query::from_tables::<S>(entities, fetched, None)
    }

    /// Builds a read-only query that reaches sparse components over the runs
    /// `runs` of a shared world.
    pub(crate) fn build_sparse_shared<S: Schema>(
        entities: &'w Entities,
        tables: &'w [Table<S>],
        sparse: &'w SparseSets<S>,
        runs: &SparseRuns,
    ) -> Self
    where
        Q: SchemaQuery<S> + ReadOnlyQueryData,
    {
        let mut values: Vec<_> = sparse
            .sets()
            .iter()
            .map(|set| Lent::Shared(set.values()))
            .collect();
        let fetched = sparse::build::<S, Q>(runs, entities, &mut values, 0, |id| {
            let table = &tables[id.index()];
            let fetch = Self::fetch_shared::<S>(table, entities, 0);
            (table.mask().bits().to_u128(), table.entities(), fetch)
        });
        Query::from_tables::<S>(entities, fetched, None)
    }

    /// Builds a query that reaches sparse components over the runs `runs`
    /// of a world taken apart for systems.
    pub(crate) fn from_split_sparse<S: Schema>(
        world: &mut SplitWorld<'w, S>,
        runs: &SparseRuns,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let entities = world.entities;
        let mut values = core::mem::take(&mut world.sparse);
        let fetched = sparse::build::<S, Q>(runs, entities, &mut values, tick, |id| {
            let table = world.table(id);
            let mut view = TableView::new(
                table.mask,
                table.entities,
                entities,
                ViewColumns::Slots(table.columns),
                tick,
            );
            let fetch = Q::fetch(&mut view);
            (table.mask.bits().to_u128(), table.entities, fetch)
        });
        world.sparse = values;
        Query::from_tables::<S>(entities, fetched, None)
    }

    /// Builds the query over the tables `matched` of a world taken apart for
    /// systems, taking its columns out of their slots.
    /// With a row filter, `rows` are the rows that pass it (found by
    /// [`filter_rows`] before the split); `tick` stamps writes.
    pub(crate) fn from_split<S: Schema>(
        world: &mut SplitWorld<'w, S>,
        matched: &[TableId],
        rows: Option<&'w PassingRows>,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let mut passing = rows.map(PassingRows::tables);
        let mut fetched = Vec::with_capacity(passing.map_or(matched.len(), <[_]>::len));
        let all_entities = world.entities;
        for &id in matched {
            let Some(table_rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            let table = world.table(id);
            if table.entities.is_empty() {
                continue;
            }
            let mut view = TableView::new(
                table.mask,
                table.entities,
                all_entities,
                ViewColumns::Slots(table.columns),
                tick,
            );
            let fetch = Q::fetch(&mut view);
            let bits = table.mask.bits().to_u128();
            fetched.push(FetchedTable::new(
                id,
                bits,
                table.entities,
                fetch,
                table_rows,
            ));
        }
        Query::from_tables::<S>(world.entities, fetched, rows.map(Cow::Borrowed))
    }

    /// Iterates over the items, mutably.
    ///
    /// Every row the query covers counts as handed out, so for a tracked
    /// component ([`Changed`]) every one is written, even if the iteration
    /// stops early: the rows are stamped here, at once, which keeps the
    /// iterator's step what it is without tracking.
    pub fn iter_mut(&mut self) -> QueryIter<'_, 'w, Q> {
        // Without a row filter, a loop of whole tables' stamps, which is no
        // loop at all for an untracked query (through `runs_mut`, this took
        // `frag_iter`'s `for` loop to 1.4× its time).
        let passing = &*self.rows;
        if passing.tables().is_empty() {
            for table in &mut self.tables {
                Q::stamp_rows(&mut table.fetch, table.entities.len());
            }
        } else {
            for table in &mut self.tables {
                match table.rows {
                    None => Q::stamp_rows(&mut table.fetch, table.entities.len()),
                    Some(rows) => {
                        let fetch = Q::reborrow(&mut table.fetch);
                        let bits = passing.bits(rows);
                        fold_runs::<Q, ()>(fetch, bits, (), |(), start, end, mut run| {
                            Q::stamp_rows(&mut run, end - start);
                        });
                    }
                }
            }
        }
        QueryIter::new(IterSource::Exclusive(self.tables.iter_mut()), &self.rows)
    }

    /// Calls `f` with every item, mutably: the fast path, a loop over each
    /// table's column slices.
    #[inline]
    pub fn for_each_mut(&mut self, mut f: impl FnMut(Q::Item<'_>)) {
        let passing = &*self.rows;
        for table in &mut self.tables {
            let fetch = Q::reborrow(&mut table.fetch);
            let bits = table.rows.map(|rows| passing.bits(rows));
            for_each_reached::<Q>(fetch, table.entities.len(), bits, &mut f);
        }
    }

    /// The item of `entity`, mutably; `None` if it is not alive or does not match.
    pub fn get_mut(&mut self, entity: Entity) -> Option<Q::Item<'_>> {
        let (table, row) = self.locate(entity)?;
        Some(Q::get(Q::reborrow(&mut self.tables[table].fetch), row))
    }

    /// Number of matching entities.
    pub fn count(&self) -> usize {
        self.tables.iter().map(|table| table.len(&self.rows)).sum()
    }

    /// Whether no entity matches.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Whether `entity` is alive and matches.
    pub fn contains(&self, entity: Entity) -> bool {
        self.locate(entity).is_some()
    }

    /// The fetched table holding `entity`, and its row there.
    fn locate(&self, entity: Entity) -> Option<(usize, usize)> {
        let location = self.entities.location(entity)?;
        let row = location.row.index() as u32;
        let after = self
            .tables
            .partition_point(|table| (table.id, table.first_row) <= (location.table, row));
        let index = after.checked_sub(1)?;
        let table = &self.tables[index];
        // The table before the entity's place may be another table, whose
        // first row is past the entity's row.
        if table.id != location.table {
            return None;
        }
        let offset = (row - table.first_row) as usize;
        table.reaches(offset, &self.rows).then_some((index, offset))
    }
}

// The read-only bound sits on each method rather than on the impl, so that
// calling one on a writing query reports the bound's message, not "method not
// found".
impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Iterates over the items of a read-only query.
    pub fn iter(&self) -> QueryIter<'_, 'w, Q>
    where
        Q: ReadOnlyQueryData,
    {
        QueryIter::new(
            IterSource::Shared(self.tables.iter(), Q::shared),
            &self.rows,
        )
    }

    /// Calls `f` with every item of a read-only query: the fast path, a loop
    /// over each table's column slices.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(Q::Item<'_>))
    where
        Q: ReadOnlyQueryData,
    {
        for table in &self.tables {
            let fetch = Q::shared(&table.fetch);
            let bits = table.rows.map(|rows| self.rows.bits(rows));
            for_each_reached::<Q>(fetch, table.entities.len(), bits, &mut f);
        }
    }

    /// The item of `entity`; `None` if it is not alive or does not match.
    pub fn get(&self, entity: Entity) -> Option<Q::Item<'_>>
    where
        Q: ReadOnlyQueryData,
    {
        let (table, row) = self.locate(entity)?;
        Some(Q::get(Q::shared(&self.tables[table].fetch), row))
    }
}

impl<'a, 'w, Q: ReadOnlyQueryData, F> IntoIterator for &'a Query<'w, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, 'w, Q>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, 'w, Q: QueryData, F> IntoIterator for &'a mut Query<'w, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, 'w, Q>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// Iterator over a [`Query`]'s items, table by table (with a row filter,
/// run of passing rows by run).
pub struct QueryIter<'a, 'w, Q: QueryData> {
    /// The tables (none with a row filter: they are in `filtered`).
    tables: IterSource<'a, 'w, Q>,
    /// The current table's (or run's) remaining rows.
    fetch: Q::Fetch<'a>,
    remaining: usize,
    /// With a row filter: the tables, cut into runs of passing rows. Boxed
    /// and walked out of line, so that a query without one carries one
    /// more word and a test per table: with the runs' state kept here, the
    /// iterator no longer fit in registers, and a `for` loop over
    /// `frag_iter`'s 26 tables took 1.4× its time (2.6× over
    /// `simple_iter`'s one table where the walk was inlined).
    filtered: Option<Box<FilteredTables<'a, 'w, Q>>>,
}

/// Where a [`QueryIter`] takes its tables from: shared (read-only queries) or
/// exclusive borrows of the query's fetches.
enum IterSource<'a, 'w, Q: QueryData> {
    Shared(
        core::slice::Iter<'a, FetchedTable<'w, Q>>,
        fn(&'a Q::Fetch<'w>) -> Q::Fetch<'a>,
    ),
    Exclusive(core::slice::IterMut<'a, FetchedTable<'w, Q>>),
}

impl<'a, 'w, Q: QueryData> IterSource<'a, 'w, Q> {
    /// The next table: its length, its rows in the row filter's bits and
    /// its fetch.
    #[inline(always)]
    fn next_fetched(&mut self) -> Option<(usize, Option<TableRows>, Q::Fetch<'a>)> {
        Some(match self {
            IterSource::Shared(tables, shared) => {
                let table = tables.next()?;
                (table.entities.len(), table.rows, shared(&table.fetch))
            }
            IterSource::Exclusive(tables) => {
                let table = tables.next()?;
                (
                    table.entities.len(),
                    table.rows,
                    Q::reborrow(&mut table.fetch),
                )
            }
        })
    }

    /// The tables not handed out yet.
    fn rest(&self) -> &[FetchedTable<'w, Q>] {
        match self {
            IterSource::Shared(tables, _) => tables.as_slice(),
            IterSource::Exclusive(tables) => tables.as_slice(),
        }
    }
}

/// The tables of a [`QueryIter`] with a row filter, with the table whose
/// runs are being handed out.
struct FilteredTables<'a, 'w, Q: QueryData> {
    tables: IterSource<'a, 'w, Q>,
    passing: &'a PassingRows,
    /// The runs of the current table after the last one handed out, and
    /// the rows after it (`rest`, from table row `rest_row` on).
    runs: BitRuns<'a>,
    rest: Q::Fetch<'a>,
    rest_row: u32,
}

impl<'a, 'w, Q: QueryData> FilteredTables<'a, 'w, Q> {
    /// The next run of passing rows, or whole table: its length and fetch.
    #[inline]
    fn next_run(&mut self) -> Option<(usize, Q::Fetch<'a>)> {
        loop {
            if let Some((start, end)) = self.runs.next() {
                let rest = core::mem::take(&mut self.rest);
                let (_, tail) = Q::split_at(rest, (start - self.rest_row) as usize);
                let (run, tail) = Q::split_at(tail, (end - start) as usize);
                self.rest = tail;
                self.rest_row = end;
                return Some(((end - start) as usize, run));
            }
            let (len, rows, fetch) = self.tables.next_fetched()?;
            match rows {
                // Not reached today: with a row filter, every table the
                // query keeps has passing rows. A whole table if it were.
                None => return Some((len, fetch)),
                Some(rows) => {
                    self.runs = BitRuns::new(self.passing.bits(rows));
                    self.rest = fetch;
                    self.rest_row = 0;
                }
            }
        }
    }

    /// [`FilteredTables::next_run`], out of line for [`QueryIter::next`].
    #[inline(never)]
    fn next_run_out_of_line(&mut self) -> Option<(usize, Q::Fetch<'a>)> {
        self.next_run()
    }

    /// The number of rows not handed out yet.
    fn rows_left(&self) -> usize {
        let later: usize = self.tables.rest().iter().map(|t| t.len(self.passing)).sum();
        later + self.runs.rows()
    }
}

impl<'a, 'w, Q: QueryData> QueryIter<'a, 'w, Q> {
    fn new(tables: IterSource<'a, 'w, Q>, passing: &'a PassingRows) -> Self {
        // Without passing rows, no table has a row filter's rows.
        let (tables, filtered) = if passing.tables().is_empty() {
            (tables, None)
        } else {
            let filtered = FilteredTables {
                tables,
                passing,
                runs: BitRuns::new(&[]),
                rest: Q::Fetch::default(),
                rest_row: 0,
            };
            let none = IterSource::Exclusive(Default::default());
            (none, Some(Box::new(filtered)))
        };
        QueryIter {
            tables,
            fetch: Q::Fetch::default(),
            remaining: 0,
            filtered,
        }
    }

    /// Moves to the next table (or run); `None` when there is none. Tables
    /// and runs are never empty (the query skips tables no row of which it
    /// reaches). Always inlined: left out of line (as `#[inline]` allowed in
    /// `benches/changes.rs`), the call keeps the iterator in memory, at 2.7×
    /// the time of a `for` loop.
    #[inline(always)]
    fn next_table(&mut self) -> Option<()> {
        let (len, fetch) = match &mut self.filtered {
            None => {
                let (len, _, fetch) = self.tables.next_fetched()?;
                (len, fetch)
            }
            Some(filtered) => filtered.next_run_out_of_line()?,
        };
        self.fetch = fetch;
        self.remaining = len;
        Some(())
    }

    fn rows_after_current(&self) -> usize {
        match &self.filtered {
            None => self.tables.rest().iter().map(|t| t.entities.len()).sum(),
            Some(filtered) => filtered.rows_left(),
        }
    }
}

impl<'a, 'w, Q: QueryData> Iterator for QueryIter<'a, 'w, Q> {
    type Item = Q::Item<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<Q::Item<'a>> {
        if self.remaining == 0 {
            self.next_table()?;
        }
        self.remaining -= 1;
        Some(Q::next(&mut self.fetch))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.remaining + self.rows_after_current();
        (len, Some(len))
    }

    /// Table by table (run by run), each with the loop of `for_each`: what
    /// `iter().for_each(…)`, `sum` and most adapters run on.
    #[inline]
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let mut acc = Q::fold(
            core::mem::take(&mut self.fetch),
            self.remaining,
            init,
            &mut g,
        );
        match self.filtered.take() {
            None => {
                while let Some((len, _, fetch)) = self.tables.next_fetched() {
                    acc = Q::fold(fetch, len, acc, &mut g);
                }
            }
            Some(filtered) => {
                let mut filtered = *filtered;
                while let Some((len, fetch)) = filtered.next_run() {
                    acc = Q::fold(fetch, len, acc, &mut g);
                }
            }
        }
        acc
    }
}

impl<Q: QueryData> ExactSizeIterator for QueryIter<'_, '_, Q> {}

/// The tables matching one query's list of [`TableCondition`]s, kept up to
/// date as tables are created.
#[derive(Default)]
#[doc(hidden)]
pub struct MatchedTables {
    /// The [`Tables::layout`] the ids below belong to.
    layout: u64,
    tables: Vec<TableId>,
    /// Tables with an id below this have been tested.
    seen: usize,
}

/// By hand, for a `clone_from` that keeps the target's list (world snapshots).
impl Clone for MatchedTables {
    fn clone(&self) -> Self {
        MatchedTables {
            layout: self.layout,
            tables: self.tables.clone(),
            seen: self.seen,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.layout = source.layout;
        self.tables.clone_from(&source.tables);
        self.seen = source.seen;
    }
}

impl MatchedTables {
    /// The matching tables found so far, ascending.
    pub(crate) fn tables(&self) -> &[TableId] {
        &self.tables
    }

    /// Whether every table of `tables` has been tested.
    #[inline]
    pub(crate) fn is_current<S: Schema>(&self, tables: &Tables<S>) -> bool {
        self.layout == tables.layout() && self.seen == tables.len()
    }

    /// Tests the tables created since the last update against `conditions`
    /// (a table matches when it satisfies any one of them). Tables of
    /// another history (another world, or this one after a restore or a
    /// load) are all tested anew.
    pub(crate) fn update<S: Schema>(
        &mut self,
        tables: &Tables<S>,
        conditions: &[TableCondition],
    ) -> &[TableId] {
        if self.layout != tables.layout() {
            self.layout = tables.layout();
            self.tables.clear();
            self.seen = 0;
        }
        let new = tables.iter().enumerate().skip(self.seen);
        match conditions {
            // Without `Or`: the two mask tests, as the masks' own type.
            [condition] => {
                let required = S::Mask::from_u128(condition.required);
                let excluded = S::Mask::from_u128(condition.excluded);
                for (id, table) in new {
                    let mask = table.mask();
                    if mask.contains(required) && mask.intersection(excluded).is_empty() {
                        self.tables.push(TableId(id as u32));
                    }
                }
            }
            _ => {
                for (id, table) in new {
                    let mask = table.mask().bits().to_u128();
                    if conditions.iter().any(|condition| condition.matches(mask)) {
                        self.tables.push(TableId(id as u32));
                    }
                }
            }
        }
        self.seen = tables.len();
        &self.tables
    }
}

/// The world's [`MatchedTables`], one per list of conditions queried so far.
/// A list of one condition (a query without `Or`, by far the most common) is
/// keyed by its two masks, which is cheaper to hash than the list.
pub(crate) struct QueryCache<S: Schema> {
    by_masks: MaskMap<(S::Mask, S::Mask), MatchedTables>,
    by_conditions: MaskMap<&'static [TableCondition], MatchedTables>,
}

impl<S: Schema> Default for QueryCache<S> {
    fn default() -> Self {
        QueryCache {
            by_masks: MaskMap::default(),
            by_conditions: MaskMap::default(),
        }
    }
}

impl<S: Schema> Clone for QueryCache<S> {
    fn clone(&self) -> Self {
        QueryCache {
            by_masks: self.by_masks.clone(),
            by_conditions: self.by_conditions.clone(),
        }
    }

    /// Keeps each entry's list of tables where the key is in both caches:
    /// `HashMap::clone_from` would clone the values anew.
    fn clone_from(&mut self, source: &Self) {
        clone_map_from(&mut self.by_masks, &source.by_masks);
        clone_map_from(&mut self.by_conditions, &source.by_conditions);
    }
}

/// `target.clone_from(source)`, reusing the values of the keys both have.
fn clone_map_from<K, V>(target: &mut MaskMap<K, V>, source: &MaskMap<K, V>)
where
    K: Copy + Eq + core::hash::Hash,
    V: Clone,
{
    target.retain(|key, _| source.contains_key(key));
    for (key, value) in source {
        match target.get_mut(key) {
            Some(kept) => kept.clone_from(value),
            None => {
                target.insert(*key, value.clone());
            }
        }
    }
}

impl<S: Schema> QueryCache<S> {
    /// Makes the entries kept for table history `from` belong to `to`: for
    /// a world's cache copied along with its tables, whose copy gets a
    /// history token of its own.
    pub(crate) fn relabel(&mut self, from: u64, to: u64) {
        let entries = self
            .by_masks
            .values_mut()
            .chain(self.by_conditions.values_mut());
        for matched in entries.filter(|matched| matched.layout == from) {
            matched.layout = to;
        }
    }

    /// The tables matched so far for `conditions`, if it was queried before.
    #[inline]
    pub(crate) fn get(&self, conditions: &'static [TableCondition]) -> Option<&MatchedTables> {
        match conditions {
            [condition] => self.by_masks.get(&Self::masks(condition)),
            _ => self.by_conditions.get(conditions),
        }
    }

    /// The tables matched so far for `conditions`, made empty if it was never
    /// queried.
    #[inline]
    pub(crate) fn entry(&mut self, conditions: &'static [TableCondition]) -> &mut MatchedTables {
        match conditions {
            [condition] => self.by_masks.entry(Self::masks(condition)).or_default(),
            _ => self.by_conditions.entry(conditions).or_default(),
        }
    }

    #[inline]
    fn masks(condition: &TableCondition) -> (S::Mask, S::Mask) {
        (
            S::Mask::from_u128(condition.required),
            S::Mask::from_u128(condition.excluded),
        )
    }
}
