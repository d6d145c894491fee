//! [`PreparedQuery`]: a query kept by its user from one call to the next.

use super::fetch::{ReadOnlyQueryData, SchemaQuery};
use super::filter::{QueryFilter, QueryReach};
use super::rows::{for_each_reached, PassingRows, RowSet};
use super::{fetch_table, filter_rows, MatchedTables, Query, SparseRuns};
use crate::lend::Lent;
use crate::schema::Schema;
use crate::storage::TableId;
use crate::World;
use core::fmt;
use core::marker::PhantomData;
use std::borrow::Cow;

/// A query that keeps what it found from one call to the next: the tables it
/// matches (later calls look only at tables created since) and its working
/// memory. Made by [`World::prepare`] or [`World::prepare_filtered`] (or
/// [`PreparedQuery::new`]); each call takes the world.
///
/// [`World::query_mut`] looks the query's tables up in the world's cache and
/// gathers every table's columns into a fresh list before the first item;
/// [`PreparedQuery::for_each_mut`] does neither: it walks its own list of
/// tables and runs the loop over each table as soon as it has its columns,
/// with no allocation. Keep one where a loop over many small tables runs
/// every frame. [`PreparedQuery::query_mut`] gives the full [`Query`]
/// (iterators, `get`, parallel iteration) without the cache lookup.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Debug, PartialEq)] struct Frozen;
/// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel, frozen: Frozen }
///
/// // Kept in a struct, a prepared query names its items with `'static`.
/// struct Mover {
///     query: PreparedQuery<Physics, (&'static mut Pos, &'static Vel), Without<Frozen>>,
/// }
///
/// let mut world = World::<Physics>::new();
/// let a = world.spawn((Pos(0), Vel(2)));
/// let mut mover = Mover { query: world.prepare_filtered() };
/// mover.query.for_each_mut(&mut world, |(pos, vel)| pos.0 += vel.0);
///
/// // Tables made since the last call are found on the next.
/// let b = world.spawn((Pos(0), Vel(5), Frozen));
/// let c = world.spawn((Pos(0), Vel(1), Frozen));
/// world.remove::<Frozen>(c).unwrap();
/// mover.query.for_each_mut(&mut world, |(pos, vel)| pos.0 += vel.0);
/// assert_eq!(world.get::<Pos>(a), Some(&Pos(4)));
/// assert_eq!(world.get::<Pos>(b), Some(&Pos(0)));
/// assert_eq!(world.get::<Pos>(c), Some(&Pos(1)));
/// assert_eq!(mover.query.query_mut(&mut world).count(), 2);
/// ```
///
/// A prepared query answers what the same query made on the world answers,
/// in the same order; [`Added`](crate::Added) and
/// [`Changed`](crate::Changed) measure from the world's mark, as there (see
/// [`World::clear_trackers`]). It can be used with any world of schema `S`:
/// given a world other than the one it last saw, or the same world after a
/// `clone_from` or a load replaced its tables, it matches that world's
/// tables anew.
pub struct PreparedQuery<S: Schema, Q, F = ()> {
    matched: MatchedTables,
    /// With a row filter: the rows that pass it, this call.
    rows: PassingRows,
    /// Working memory of the row filter.
    scratch: RowSet,
    /// For a query that reaches sparse components: its runs, this call.
    sparse: SparseRuns,
    query: PhantomData<Types<S, Q, F>>,
}

/// What a [`PreparedQuery`] is about, as a type that owns none of it (so
/// the query is `Send` and `Sync` whatever its items).
type Types<S, Q, F> = fn() -> (S, Q, F);

impl<S, Q, F> PreparedQuery<S, Q, F>
where
    S: Schema,
    Q: SchemaQuery<S>,
    F: QueryFilter<S>,
{
    /// A prepared query that has not looked at any world yet. A query that
    /// aliases a `&mut` or can never match fails to compile here, as at
    /// [`World::query_filtered_mut`].
    pub fn new() -> Self {
        const { Q::CHECK };
        const { QueryReach::<S, Q, F>::CHECK };
        PreparedQuery {
            matched: MatchedTables::default(),
            rows: PassingRows::default(),
            sparse: SparseRuns::default(),
            scratch: RowSet::default(),
            query: PhantomData,
        }
    }

    /// Brings the matched tables up to date with `world`, and with a row
    /// filter finds the rows that pass it now.
    fn update(&mut self, world: &World<S>) {
        let conditions = const { QueryReach::<S, Q, F>::TABLE_CONDITIONS.as_slice() };
        let tables = world.tables();
        if !self.matched.is_current(tables) {
            self.matched.update(tables, conditions);
        }
        if QueryReach::<S, Q, F>::SPARSE {
            let (matched, window) = (self.matched.tables(), world.outside_window());
            self.sparse
                .find::<S, Q, F>(tables.as_slice(), world.sparse_sets(), matched, window);
        } else if F::ROWS {
            let (matched, window) = (self.matched.tables(), world.outside_window());
            filter_rows::<S, F>(
                tables.as_slice(),
                matched,
                window,
                &mut self.scratch,
                &mut self.rows,
            );
        }
    }

    /// The tables this query matched in the world it last looked at, in the
    /// order it visits them.
    fn tables(&self) -> &[TableId] {
        self.matched.tables()
    }

    /// Calls `f` with every item, mutably, table by table: the loop of
    /// [`Query::for_each_mut`] without building the [`Query`].
    pub fn for_each_mut(&mut self, world: &mut World<S>, mut f: impl FnMut(Q::Item<'_>)) {
        if QueryReach::<S, Q, F>::SPARSE {
            self.query_mut(world).for_each_mut(f);
            return;
        }
        self.update(world);
        let tick = world.outside_window().this_run;
        let mut passing = F::ROWS.then_some(self.rows.tables());
        let (entities, tables) = world.lend_tables();
        for &id in self.matched.tables() {
            let table = &mut tables[id.index()];
            let len = table.len();
            if len == 0 {
                continue;
            }
            let Some(rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            // Used only by a query whose items' columns interleave (see
            // `fetch_table`); empty, it allocates nothing.
            let mut slots: Vec<Lent<'_, S::Column>> = Vec::new();
            let (_, fetch) = fetch_table::<S, Q>(table, entities, tick, &mut slots);
            let bits = rows.map(|rows| self.rows.bits(rows));
            for_each_reached::<Q>(fetch, len, bits, &mut f);
        }
    }

    /// Calls `f` with every item of a read-only query, table by table: the
    /// loop of [`Query::for_each`] without building the [`Query`].
    pub fn for_each(&mut self, world: &World<S>, mut f: impl FnMut(Q::Item<'_>))
    where
        Q: ReadOnlyQueryData,
    {
        if QueryReach::<S, Q, F>::SPARSE {
            self.query(world).for_each(f);
            return;
        }
        self.update(world);
        let mut passing = F::ROWS.then_some(self.rows.tables());
        let (entities, tables) = (world.entities(), world.tables().as_slice());
        for &id in self.matched.tables() {
            let table = &tables[id.index()];
            let len = table.len();
            if len == 0 {
                continue;
            }
            let Some(rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            let fetch = Query::<Q, F>::fetch_shared::<S>(table, entities, 0);
            let bits = rows.map(|rows| self.rows.bits(rows));
            for_each_reached::<Q>(fetch, len, bits, &mut f);
        }
    }

    /// The query over `world`, with everything [`Query`] offers; built from
    /// this query's tables instead of the world's cache.
    pub fn query_mut<'w>(&mut self, world: &'w mut World<S>) -> Query<'w, Q, F> {
        self.update(world);
        let window = world.outside_window();
        if QueryReach::<S, Q, F>::SPARSE {
            let (entities, tables, sparse) = world.lend_with_sparse();
            return Query::build_sparse(entities, tables, sparse, &self.sparse, window.this_run);
        }
        let rows = F::ROWS.then(|| Cow::Owned(self.rows.clone()));
        let (entities, tables) = world.lend_tables();
        Query::build(
            entities,
            tables,
            self.matched.tables(),
            rows,
            window.this_run,
        )
    }

    /// The read-only query over `world` (several may be alive at once);
    /// built from this query's tables instead of the world's cache.
    pub fn query<'w>(&mut self, world: &'w World<S>) -> Query<'w, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        self.update(world);
        let (entities, tables) = (world.entities(), world.tables().as_slice());
        if QueryReach::<S, Q, F>::SPARSE {
            return Query::build_sparse_shared(entities, tables, world.sparse_sets(), &self.sparse);
        }
        let rows = F::ROWS.then(|| Cow::Owned(self.rows.clone()));
        Query::build_shared(entities, tables, self.tables(), rows)
    }
}

impl<S, Q, F> Default for PreparedQuery<S, Q, F>
where
    S: Schema,
    Q: SchemaQuery<S>,
    F: QueryFilter<S>,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Schema, Q, F> fmt::Debug for PreparedQuery<S, Q, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedQuery")
            .field("schema", &S::NAME)
            .field("query", &core::any::type_name::<Q>())
            .field("filter", &core::any::type_name::<F>())
            .field("matched_tables", &self.matched.tables().len())
            .finish()
    }
}
