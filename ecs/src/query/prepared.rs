//! [`PreparedQuery`]: a query kept by its user from one call to the next.

use super::fetch::{ReadOnlyQueryData, SchemaQuery};
use super::filter::{QueryFilter, QueryReach};
use super::rows::{for_each_reached, PassingRows};
use super::state::QueryState;
use super::{fetch_table, Query};
use crate::layout::Layout;
use crate::lend::Lent;
use crate::world_impl::World;
use core::fmt;
use core::marker::PhantomData;

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
/// use schemecs::query::PreparedQuery;
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
/// in the same order; [`Added`](crate::query::Added) and
/// [`Changed`](crate::query::Changed) measure from the world's mark, as there (see
/// [`World::clear_trackers`]). It can be used with any world of schema `S`:
/// given a world other than the one it last saw, or the same world after a
/// `clone_from` or a load replaced its tables, it matches that world's
/// tables anew.
pub struct PreparedQuery<S: Layout, Q, F = ()> {
    state: QueryState,
    query: PhantomData<Types<S, Q, F>>,
}

/// What a [`PreparedQuery`] is about, as a type that owns none of it (so
/// the query is `Send` and `Sync` whatever its items).
type Types<S, Q, F> = fn() -> (S, Q, F);

impl<S, Q, F> PreparedQuery<S, Q, F>
where
    S: Layout,
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
            state: QueryState::default(),
            query: PhantomData,
        }
    }

    /// Brings the state up to date with `world`: its matched tables, and
    /// what the query reaches in them now.
    fn update(&mut self, world: &World<S>) {
        let (tables, sparse) = (world.tables(), (world.sparse_sets(), world.entities()));
        self.state
            .update::<S, Q, F>(tables, sparse, world.outside_window());
    }

    /// Calls `f` with every item, mutably, table by table: the loop of
    /// [`Query::for_each_mut`] without building the [`Query`].
    pub fn for_each_mut(&mut self, world: &mut World<S>, mut f: impl FnMut(Q::Item<'_>)) {
        if QueryReach::<S, Q, F>::SPARSE_RUNS {
            self.query_mut(world).for_each_mut(f);
            return;
        }
        self.update(world);
        let tick = world.outside_window().this_run;
        let rows = self.state.rows();
        let mut passing = QueryReach::<S, Q, F>::ROWS.then_some(rows.tables());
        let (entities, tables) = world.lend_tables();
        for &id in self.state.tables() {
            let table = &mut tables[id.index()];
            let len = table.len();
            if len == 0 {
                continue;
            }
            let Some(table_rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            // Used only by a query whose items' columns interleave (see
            // `fetch_table`); empty, it allocates nothing.
            let mut slots: Vec<Lent<'_, S::Column>> = Vec::new();
            let (_, fetch) = fetch_table::<S, Q>(table, entities, tick, &mut slots);
            let bits = table_rows.map(|table_rows| rows.bits(table_rows));
            for_each_reached::<Q>(fetch, len, bits, &mut f);
        }
    }

    /// Calls `f` with every item of a read-only query, table by table: the
    /// loop of [`Query::for_each`] without building the [`Query`].
    pub fn for_each(&mut self, world: &World<S>, mut f: impl FnMut(Q::Item<'_>))
    where
        Q: ReadOnlyQueryData,
    {
        if QueryReach::<S, Q, F>::SPARSE_RUNS {
            self.query(world).for_each(f);
            return;
        }
        self.update(world);
        let rows = self.state.rows();
        let mut passing = QueryReach::<S, Q, F>::ROWS.then_some(rows.tables());
        let (entities, tables) = (world.entities(), world.tables().as_slice());
        for &id in self.state.tables() {
            let table = &tables[id.index()];
            let len = table.len();
            if len == 0 {
                continue;
            }
            let Some(table_rows) = PassingRows::take_for(&mut passing, id) else {
                continue;
            };
            let fetch = Query::<Q, F>::fetch_shared::<S>(table, entities, 0);
            let bits = table_rows.map(|table_rows| rows.bits(table_rows));
            for_each_reached::<Q>(fetch, len, bits, &mut f);
        }
    }

    /// The query over `world`, with everything [`Query`] offers; built from
    /// this query's tables instead of the world's cache.
    pub fn query_mut<'w>(&mut self, world: &'w mut World<S>) -> Query<'w, Q, F> {
        self.update(world);
        let tick = world.outside_window().this_run;
        let (matched, reached) = self.state.copy();
        let (entities, tables, sparse) = world.lend_with_sparse();
        Query::exclusive(entities, tables, sparse, matched, reached, tick)
    }

    /// The read-only query over `world` (several may be alive at once);
    /// built from this query's tables instead of the world's cache.
    pub fn query<'w>(&mut self, world: &'w World<S>) -> Query<'w, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        self.update(world);
        let (entities, tables) = (world.entities(), world.tables().as_slice());
        let (matched, reached) = self.state.copy();
        Query::shared(entities, tables, world.sparse_sets(), matched, reached)
    }
}

impl<S: Layout> World<S> {
    /// A [`PreparedQuery`] for `Q`, to keep and call with this world (or
    /// another of its schema) again and again: it keeps its matched tables
    /// between calls, and its `for_each_mut` builds nothing.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(1), Vel(2)));
    /// let mut movers = world.prepare::<(&mut Pos, &Vel)>();
    /// for _ in 0..3 {
    ///     movers.for_each_mut(&mut world, |(pos, vel)| pos.0 += vel.0);
    /// }
    /// assert_eq!(world.get::<Pos>(a), Some(&Pos(7)));
    /// ```
    #[inline]
    pub fn prepare<Q: SchemaQuery<S>>(&self) -> PreparedQuery<S, Q, ()> {
        const { Q::CHECK };
        PreparedQuery::new()
    }

    /// A [`PreparedQuery`] for `Q` and filter `F`; see [`World::prepare`].
    #[inline]
    pub fn prepare_filtered<Q: SchemaQuery<S>, F: QueryFilter<S>>(&self) -> PreparedQuery<S, Q, F> {
        const { Q::CHECK };
        const { QueryReach::<S, Q, F>::CHECK };
        PreparedQuery::new()
    }
}

impl<S, Q, F> Default for PreparedQuery<S, Q, F>
where
    S: Layout,
    Q: SchemaQuery<S>,
    F: QueryFilter<S>,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Layout, Q, F> fmt::Debug for PreparedQuery<S, Q, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedQuery")
            .field("schema", &S::NAME)
            .field("query", &core::any::type_name::<Q>())
            .field("filter", &core::any::type_name::<F>())
            .field("matched_tables", &self.state.tables().len())
            .finish()
    }
}
