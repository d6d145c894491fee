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

// Here: the [`Query`] type and its item-by-item access. Beside it, by
// concept: `fetch` (what an item takes from a table), `fetched` (one table
// of a built query), `entities` (the `Entity` item's table form) and
// `filter` (conditions on archetypes and rows); `matched` (which tables
// match, cached) and `state` (what a query keeps between uses); `build` (a
// query's tables fetched, over each kind of borrowed world), `rows` (row
// filters' passing rows) and `sparse` (runs of rows for sparse components);
// `iter`, `lookup` (`get`, `single`, `get_many_mut`), `table` (the table
// form) and `par` (parallel iteration); `prepared` ([`PreparedQuery`]).

mod build;
mod entities;
mod fetch;
mod fetched;
mod fields;
mod filter;
mod iter;
mod lookup;
mod matched;
mod par;
mod prepared;
mod rows;
mod sparse;
mod state;
mod table;
mod view;

pub(crate) use build::{fetch_table, filter_rows};
pub use entities::{TableEntities, TableEntitiesIter};
#[doc(hidden)]
pub use fetch::TableView;
pub use fetch::{Has, QueryData, ReadOnlyQueryData, SchemaQuery};
use fetched::FetchedTable;
pub use fields::Fields;
pub(crate) use filter::QueryReach;
pub use filter::{Added, Changed, Or, QueryFilter, TableCondition, With, Without};
use iter::IterSource;
pub use iter::QueryIter;
pub use lookup::{QueryEntityError, QuerySingleError};
#[doc(hidden)]
pub use matched::MatchedTables;
pub(crate) use matched::QueryCache;
pub(crate) use par::sealed::Sealed;
pub use par::ChunkRecorder;
pub use prepared::PreparedQuery;
pub(crate) use rows::PassingRows;
use rows::{fold_runs, for_each_reached};
pub(crate) use sparse::SparseRuns;
pub(crate) use state::QueryState;
pub(crate) use state::Reach;
pub use table::TableChunk;
pub use view::{View, ViewMut};

use crate::entity::{Entities, Entity, EntityLocation};
use crate::storage::{EntityIndex, TableId};
use core::marker::PhantomData;
use std::borrow::Cow;
use std::sync::OnceLock;

/// The result of [`World::query`](crate::world::World::query): for every entity that
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
/// assert_eq!(query.get(a).map(|(e, p)| (e, p.0)), Ok((a, 2)));
/// ```
pub struct Query<'w, Q: QueryData, F = ()> {
    entities: &'w Entities,
    tables: Vec<FetchedTable<'w, Q>>,
    /// With a row filter, the rows of each table that pass it.
    rows: Cow<'w, PassingRows>,
    /// The schema of the world, by type name: a query's type leaves it out,
    /// and [`TableChunk::mask`] checks what it is asked for against this.
    schema: &'static str,
    /// Made by the first lookup of an entity (`get`, `get_mut`,
    /// `contains`, ...) and kept for the query's life; see [`TablePlaces`].
    by_table: OnceLock<TablePlaces>,
    filter: PhantomData<fn() -> F>,
}

/// Where each table of a query is in its list, by table id: for the ids
/// from the first table matched to the last, the index of the table's first
/// piece (`u32::MAX` for a table the query does not match) and whether the
/// table is [`WHOLE`], so that a lookup finds its table in one step rather
/// than a binary search. Its size is kept to a few times the query's own
/// list: when the matched ids are spread wider than that (a few tables
/// among thousands), it is left empty and lookups search, as making it
/// would cost more than the lookups save.
struct TablePlaces {
    /// The first table id `places` covers.
    first: usize,
    places: Box<[u32]>,
}

impl TablePlaces {
    /// The widest range of ids indexed, for a query of `tables` tables.
    fn widest(tables: usize) -> usize {
        16 * tables + 64
    }

    /// `tables` sorted by table id, then first row.
    fn new<Q: QueryData>(tables: &[FetchedTable<'_, Q>]) -> Self {
        let (Some(first), Some(last)) = (tables.first(), tables.last()) else {
            return TablePlaces {
                first: 0,
                places: Box::default(),
            };
        };
        let first = first.id.index();
        let span = last.id.index() - first + 1;
        if span > Self::widest(tables.len()) {
            return TablePlaces {
                first,
                places: Box::default(),
            };
        }
        let mut places = vec![u32::MAX; span];
        for (index, table) in tables.iter().enumerate().rev() {
            let next_id = tables.get(index + 1).map(|next| next.id);
            let whole = table.first_row == 0 && table.rows.is_none() && next_id != Some(table.id);
            places[table.id.index() - first] = index as u32 | if whole { WHOLE } else { 0 };
        }
        TablePlaces {
            first,
            places: places.into_boxed_slice(),
        }
    }
}

/// The flag of a [`TablePlaces`] entry whose table is in one piece, every
/// row of it reached (no row filter): a lookup there needs no more checks
/// than the row's. Indices stay below it: a query's list of tables is
/// shorter than `u32::MAX / 2`, as table ids are.
const WHOLE: u32 = 1 << 31;

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
impl<'w, Q: QueryData, F> Query<'w, Q, F> {
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

    /// The item of `entity`, mutably.
    ///
    /// # Errors
    ///
    /// [`QueryEntityError::NoSuchEntity`] if `entity` is not alive, and
    /// [`QueryEntityError::DoesNotMatch`] if it is alive but the query does
    /// not match it.
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryEntityError> {
        let (table, row) = self.locate_or_err(entity)?;
        Ok(Q::get(Q::reborrow(&mut self.tables[table].fetch), row))
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

    /// The entry of table `id` in [`TablePlaces`]: the index in `tables` of
    /// its first piece, or of the first table after it when the query does
    /// not match it, and the flag [`WHOLE`].
    #[inline]
    fn place(&self, id: TableId) -> u32 {
        // Made on the first lookup; until then, and outside the range it
        // covers, found (or not) by a search.
        if let Some(places) = self.by_table.get() {
            if let Some(&place) = places.places.get(id.index().wrapping_sub(places.first)) {
                return place;
            }
        }
        self.place_slow(id)
    }

    /// [`Query::place`] without the index at hand: the first lookup makes
    /// it; an id outside its range is searched for (and never `WHOLE`).
    #[cold]
    #[inline(never)]
    fn place_slow(&self, id: TableId) -> u32 {
        let places = self.by_table.get_or_init(|| TablePlaces::new(&self.tables));
        match places.places.get(id.index().wrapping_sub(places.first)) {
            Some(&place) => place,
            None => self.tables.partition_point(|table| table.id < id) as u32,
        }
    }

    /// The fetched table holding `entity`, and its row there.
    #[inline]
    fn locate(&self, entity: Entity) -> Option<(usize, usize)> {
        let location = self.entities.location(entity)?;
        let place = self.place(location.table);
        // `u32::MAX`, a table not matched, has the flag, and its index is
        // past the end of `tables`.
        if place & WHOLE != 0 {
            let index = (place & !WHOLE) as usize;
            let row = location.row.index();
            return (row < self.tables.get(index)?.entities.len()).then_some((index, row));
        }
        self.locate_in_pieces(place as usize, location)
    }

    /// [`Query::locate`] for a table in pieces (where a query was split,
    /// or reaches sparse components) or with a row filter, from the first
    /// piece at `index`.
    #[inline(never)]
    fn locate_in_pieces(
        &self,
        mut index: usize,
        location: EntityLocation,
    ) -> Option<(usize, usize)> {
        let row = location.row.index() as u32;
        loop {
            let table = self.tables.get(index)?;
            if table.id != location.table || row < table.first_row {
                return None;
            }
            let offset = (row - table.first_row) as usize;
            if offset < table.entities.len() {
                return table.reaches(offset, &self.rows).then_some((index, offset));
            }
            index += 1;
        }
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

    /// The item of `entity`.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::query::QueryEntityError;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// let mover = world.spawn((Pos(1), Vel(2)));
    /// let rock = world.spawn((Pos(5),));
    /// let gone = world.spawn((Pos(9), Vel(0)));
    /// world.despawn(gone).unwrap();
    ///
    /// let movers = world.query::<(&Pos, &Vel)>();
    /// assert_eq!(movers.get(mover), Ok((&Pos(1), &Vel(2))));
    /// assert_eq!(movers.get(rock), Err(QueryEntityError::DoesNotMatch(rock)));
    /// assert_eq!(movers.get(gone), Err(QueryEntityError::NoSuchEntity(gone)));
    /// ```
    ///
    /// # Errors
    ///
    /// [`QueryEntityError::NoSuchEntity`] if `entity` is not alive, and
    /// [`QueryEntityError::DoesNotMatch`] if it is alive but the query does
    /// not match it.
    #[inline]
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'_>, QueryEntityError>
    where
        Q: ReadOnlyQueryData,
    {
        let (table, row) = self.locate_or_err(entity)?;
        Ok(Q::get(Q::shared(&self.tables[table].fetch), row))
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
