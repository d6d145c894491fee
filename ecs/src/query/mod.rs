//! Queries: typed views of every entity that has a set of components.
//!
//! A query is written as a type: `world.query::<(Entity, &mut Pos, Option<&Vel>)>()`.
//! Its item types give the components it reads and writes (the
//! [`SchemaQuery`] consts `REQUIRED`, `READS`, `WRITES`), and an optional
//! filter ([`With`], [`Without`]) adds conditions on the archetype. A table
//! matches when `mask & REQUIRED == REQUIRED && mask & EXCLUDED == 0`; the world
//! caches the matching tables per pair of masks and extends the list as new
//! tables appear.

mod fetch;
mod filter;
mod par;

pub use fetch::{Has, QueryData, ReadOnlyQueryData, SchemaQuery, TableView};
pub use filter::{QueryFilter, With, Without};

use crate::entity::{Entities, Entity};
use crate::lend::{Lent, SplitWorld};
use crate::mask::Mask;
use crate::schema::Schema;
use crate::storage::{Table, TableId, Tables};
use core::marker::PhantomData;
use fetch::ViewColumns;

/// The result of [`World::query`](crate::World::query): for every entity that
/// matches `Q` and filter `F`, its item `Q::Item`.
///
/// It borrows the world for `'w` and holds, per matching table, the column
/// slices the query needs. Iterate it with [`Query::iter`] (read-only
/// queries) or [`Query::iter_mut`], or with [`Query::for_each`] /
/// [`Query::for_each_mut`], which run over the slices directly and are the
/// fastest way through a query.
///
/// ```
/// use ecs::prelude::*;
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
///     .query_filtered::<(&mut Pos, &Vel), Without<Frozen>>()
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
    filter: PhantomData<fn() -> F>,
}

/// One matching, non-empty table of a query.
struct FetchedTable<'w, Q: QueryData> {
    id: TableId,
    len: usize,
    fetch: Q::Fetch<'w>,
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// Builds the query over the tables `matched` (ascending ids).
    pub(crate) fn new<S: Schema>(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        matched: &[TableId],
    ) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let mut fetched = Vec::with_capacity(matched.len());
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
            let mask = table.mask();
            let len = table.len();
            let (indices, columns) = table.split_mut();
            // A query whose items take columns in ascending order, each once,
            // walks the columns with a cursor; others go through slots, which
            // tell shared from exclusive borrows. frag_iter (26 tables of 20
            // rows) measured the slots at about half of its time.
            let columns = if Q::ORDERED {
                ViewColumns::Ascending {
                    rest: columns,
                    next: 0,
                }
            } else {
                slots.clear();
                slots.extend(columns.iter_mut().map(Lent::Free));
                ViewColumns::Slots(&mut slots)
            };
            let mut view = TableView::new(mask, indices, entities, columns);
            let fetch = Q::fetch(&mut view);
            fetched.push(FetchedTable { id, len, fetch });
        }
        Query {
            entities,
            tables: fetched,
            filter: PhantomData,
        }
    }

    /// Builds the query over the tables `matched` of a world taken apart for
    /// systems, taking its columns out of their slots.
    pub(crate) fn from_split<S: Schema>(world: &mut SplitWorld<'w, S>, matched: &[TableId]) -> Self
    where
        Q: SchemaQuery<S>,
    {
        let mut fetched = Vec::with_capacity(matched.len());
        let all_entities = world.entities;
        for &id in matched {
            let table = world.table(id);
            if table.entities.is_empty() {
                continue;
            }
            let mut view = TableView::new(
                table.mask,
                table.entities,
                all_entities,
                ViewColumns::Slots(table.columns),
            );
            let fetch = Q::fetch(&mut view);
            fetched.push(FetchedTable {
                id,
                len: table.entities.len(),
                fetch,
            });
        }
        Query {
            entities: world.entities,
            tables: fetched,
            filter: PhantomData,
        }
    }

    /// Iterates over the items, mutably.
    pub fn iter_mut(&mut self) -> QueryIter<'_, 'w, Q> {
        QueryIter::new(IterSource::Exclusive(self.tables.iter_mut()))
    }

    /// Calls `f` with every item, mutably: the fast path, a loop over each
    /// table's column slices.
    #[inline]
    pub fn for_each_mut(&mut self, mut f: impl FnMut(Q::Item<'_>)) {
        for table in &mut self.tables {
            Q::fold(Q::reborrow(&mut table.fetch), table.len, (), |(), item| {
                f(item)
            });
        }
    }

    /// The item of `entity`, mutably; `None` if it is not alive or does not match.
    pub fn get_mut(&mut self, entity: Entity) -> Option<Q::Item<'_>> {
        let (table, row) = self.locate(entity)?;
        Some(Q::get(Q::reborrow(&mut self.tables[table].fetch), row))
    }

    /// Number of matching entities.
    pub fn count(&self) -> usize {
        self.tables.iter().map(|table| table.len).sum()
    }

    /// Whether no entity matches.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Whether `entity` is alive and matches.
    pub fn contains(&self, entity: Entity) -> bool {
        self.locate(entity).is_some()
    }

    fn locate(&self, entity: Entity) -> Option<(usize, usize)> {
        let location = self.entities.location(entity)?;
        let table = self
            .tables
            .binary_search_by_key(&location.table, |table| table.id)
            .ok()?;
        Some((table, location.row.index()))
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
        QueryIter::new(IterSource::Shared(self.tables.iter(), Q::shared))
    }

    /// Calls `f` with every item of a read-only query: the fast path, a loop
    /// over each table's column slices.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(Q::Item<'_>))
    where
        Q: ReadOnlyQueryData,
    {
        for table in &self.tables {
            Q::fold(Q::shared(&table.fetch), table.len, (), |(), item| f(item));
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

/// Iterator over a [`Query`]'s items, table by table.
pub struct QueryIter<'a, 'w, Q: QueryData> {
    tables: IterSource<'a, 'w, Q>,
    /// The current table's remaining rows.
    fetch: Q::Fetch<'a>,
    remaining: usize,
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

impl<'a, 'w, Q: QueryData> QueryIter<'a, 'w, Q> {
    fn new(tables: IterSource<'a, 'w, Q>) -> Self {
        QueryIter {
            tables,
            fetch: Q::Fetch::default(),
            remaining: 0,
        }
    }

    /// Moves to the next table; `None` when there is none. Tables are never
    /// empty (the query skips empty ones).
    #[inline]
    fn next_table(&mut self) -> Option<()> {
        let (len, fetch) = match &mut self.tables {
            IterSource::Shared(tables, shared) => {
                let table = tables.next()?;
                (table.len, shared(&table.fetch))
            }
            IterSource::Exclusive(tables) => {
                let table = tables.next()?;
                (table.len, Q::reborrow(&mut table.fetch))
            }
        };
        self.fetch = fetch;
        self.remaining = len;
        Some(())
    }

    fn rows_after_current(&self) -> usize {
        match &self.tables {
            IterSource::Shared(tables, _) => tables.as_slice().iter().map(|t| t.len).sum(),
            IterSource::Exclusive(tables) => tables.as_slice().iter().map(|t| t.len).sum(),
        }
    }
}

impl<'a, 'w, Q: QueryData> Iterator for QueryIter<'a, 'w, Q> {
    type Item = Q::Item<'a>;

    #[inline]
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

    /// Table by table, each with the loop of `for_each`: what
    /// `iter().for_each(…)`, `sum` and most adapters run on.
    #[inline]
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let mut acc = init;
        loop {
            acc = Q::fold(
                core::mem::take(&mut self.fetch),
                self.remaining,
                acc,
                &mut g,
            );
            if self.next_table().is_none() {
                return acc;
            }
        }
    }
}

impl<Q: QueryData> ExactSizeIterator for QueryIter<'_, '_, Q> {}

/// The tables matching one `(required, excluded)` pair, kept up to date as
/// tables are created.
#[derive(Default)]
#[doc(hidden)]
pub struct MatchedTables {
    tables: Vec<TableId>,
    /// Tables with an id below this have been tested.
    seen: usize,
}

impl MatchedTables {
    /// The matching tables found so far, ascending.
    pub(crate) fn tables(&self) -> &[TableId] {
        &self.tables
    }

    pub(crate) fn update<S: Schema>(
        &mut self,
        tables: &Tables<S>,
        required: S::Mask,
        excluded: S::Mask,
    ) -> &[TableId] {
        for (id, table) in tables.iter().enumerate().skip(self.seen) {
            let mask = table.mask();
            if mask.contains(required) && mask.intersection(excluded).is_empty() {
                self.tables.push(TableId(id as u32));
            }
        }
        self.seen = tables.len();
        &self.tables
    }
}
