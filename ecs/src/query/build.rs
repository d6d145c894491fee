//! Building a [`Query`]: its matching tables' columns fetched into a list,
//! over an exclusively borrowed world, a shared one, or one taken apart for
//! systems, with a row filter's passing rows or a sparse query's runs.

use super::fetch::{QueryData, ReadOnlyQueryData, SchemaQuery, TableView, ViewColumns};
use super::filter::QueryFilter;
use super::rows::{PassingRows, RowSet};
use super::sparse::{self, SparseRuns};
use super::{FetchedTable, Query};
use crate::changes::ChangeWindow;
use crate::entity::Entities;
use crate::layout::Layout;
use crate::lend::{Lent, SplitWorld};
use crate::mask::{Mask, MaskBits};
use crate::storage::{EntityIndex, SparseSets, Table, TableId};
use core::marker::PhantomData;
use std::borrow::Cow;
use std::sync::OnceLock;

/// The rows of the tables `matched` that pass the row conditions of filter
/// `F`, seen through `window`, in `rows` (which is cleared first).
/// `scratch` is working memory.
pub(crate) fn filter_rows<S: Layout, F: QueryFilter<S>>(
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
pub(crate) fn fetch_table<'w, S: Layout, Q: SchemaQuery<S>>(
    table: &'w mut Table<S>,
    entities: &'w Entities,
    tick: u32,
    slots: &mut Vec<Lent<'w, S::Column>>,
) -> (&'w [EntityIndex], Q::Fetch<'w>) {
    let mask = table.mask();
    let (indices, columns, column_index) = table.view_parts();
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
    let mut view = TableView::new((mask, column_index), indices, entities, columns, tick);
    (indices, Q::fetch(&mut view))
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Builds the query over the tables `matched` (ascending ids), with a
    /// row filter over the rows `rows` of each; `tick` stamps writes.
    pub(crate) fn build<S: Layout>(
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

    fn from_tables<S: Layout>(
        entities: &'w Entities,
        tables: Vec<FetchedTable<'w, Q>>,
        rows: Option<Cow<'w, PassingRows>>,
    ) -> Self {
        Query {
            entities,
            tables,
            rows: rows.unwrap_or_default(),
            schema: core::any::type_name::<S>(),
            by_table: OnceLock::new(),
            filter: PhantomData,
        }
    }

    /// Builds a read-only query over the tables `matched` (ascending ids) of
    /// a shared world, with a row filter over the rows `rows` of each.
    pub(crate) fn build_shared<S: Layout>(
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
    pub(crate) fn fetch_shared<S: Layout>(
        table: &'w Table<S>,
        entities: &'w Entities,
        tick: u32,
    ) -> Q::Fetch<'w>
    where
        Q: SchemaQuery<S>,
    {
        let columns = ViewColumns::Shared(table.columns());
        let shape = (table.mask(), table.column_index());
        let mut view = TableView::new(shape, table.entities(), entities, columns, tick);
        Q::fetch(&mut view)
    }

    /// Builds a query that reaches sparse components (see `sparse.rs`) over
    /// the runs `runs` of an exclusively borrowed world; `tick` stamps writes.
    pub(crate) fn build_sparse<S: Layout>(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        sparse: &'w mut SparseSets<S>,
        runs: &mut SparseRuns,
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
    pub(crate) fn build_sparse_shared<S: Layout>(
        entities: &'w Entities,
        tables: &'w [Table<S>],
        sparse: &'w SparseSets<S>,
        runs: &mut SparseRuns,
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
    pub(crate) fn from_split_sparse<S: Layout>(
        world: &mut SplitWorld<'w, S>,
        runs: &mut SparseRuns,
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
                (table.mask, table.column_index),
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
    pub(crate) fn from_split<S: Layout>(
        world: &mut SplitWorld<'w, S>,
        matched: &[TableId],
        rows: Option<Cow<'w, PassingRows>>,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let mut passing = rows.as_deref().map(PassingRows::tables);
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
                (table.mask, table.column_index),
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
        Query::from_tables::<S>(world.entities, fetched, rows)
    }
}
