//! [`Query`]: a system's query parameter, a [`WorldQuery`] lent to one run
//! of the system.
//!
//! A query holds a list of its tables' columns. A system's query takes the
//! memory of that list from the system ([`QueryHome`]) and gives it back
//! when dropped, so a warm system allocates nothing to build its queries.
//! The list's type names the world's borrow `'w`; what the system keeps
//! names no borrow (`'static`), and the memory passes from one to the other
//! through an empty list collected in place ([`relabel`]). The `Drop` that
//! gives it back is why this is a type of its own: on the world's
//! [`WorldQuery`] it would keep the world borrowed to the end of the
//! query's scope rather than its last use, which a system's parameter, alive
//! for the whole call, does not mind.

use super::rows::TableRows;
use super::{FetchedTable, QueryData, QueryIter, ReadOnlyQueryData, TablePlaces, WorldQuery};
use crate::storage::{EntityIndex, TableId};
use core::ops::{Deref, DerefMut};

/// A system's query: for every entity that matches `Q` and filter `F`, its
/// item `Q::Item`.
///
/// A system asks for one by naming it as a parameter; the schedule builds it
/// for each run of the system from the columns it lends the system (see
/// [`Schedule`](crate::schedule::Schedule)). Everything a query does is on
/// [`WorldQuery`], which this type dereferences to: iteration
/// ([`iter`](WorldQuery::iter), [`for_each_mut`](WorldQuery::for_each_mut)),
/// lookups ([`get`](WorldQuery::get), [`get_mut`](WorldQuery::get_mut)), the
/// table form and parallel loops. [`World::query`](crate::world::World::query)
/// and its kin return a `WorldQuery` directly, so a helper function that
/// takes `&WorldQuery<..>` or `&mut WorldQuery<..>` serves both.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::query::WorldQuery;
/// #[derive(Debug)] struct Pos(i64);
/// #[derive(Debug)] struct Vel(i64);
/// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel }
///
/// fn total(positions: &WorldQuery<&Pos>) -> i64 {
///     positions.iter().map(|p| p.0).sum()
/// }
///
/// fn advance(mut movers: Query<(&mut Pos, &Vel)>) {
///     movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
/// }
/// fn check(positions: Query<&Pos>) {
///     assert_eq!(total(&positions), 7);
/// }
///
/// let mut world = World::<Physics>::new();
/// world.spawn((Pos(1), Vel(2)));
/// world.spawn((Pos(4),));
/// let mut schedule = Schedule::<Physics>::new();
/// schedule.add(advance).add(check);
/// schedule.run(&mut world);
/// assert_eq!(total(&world.query::<&Pos>()), 7);
/// ```
pub struct Query<'w, Q: QueryData, F = ()> {
    query: WorldQuery<'w, Q, F>,
    /// Where the list's memory goes back to.
    home: &'w mut QueryHome<Q>,
}

/// What a system keeps of its query from one run to the next, beside the
/// query's state: the memory of the list of tables, as a list of
/// [`SpareTable`]s (a system's state is `Send`, which a list of
/// [`FetchedTable`]s is not where a component is not `Sync`). Public in a
/// private module, as [`QueryState`](super::QueryState) is: the type of a
/// hidden associated type, which no other crate can name.
#[doc(hidden)]
pub struct QueryHome<Q: QueryData> {
    tables: Vec<SpareTable<Q>>,
    /// The index that lookups by entity made in the last run
    /// ([`WorldQuery::get`]), which borrows nothing: its memory, or none if
    /// the last run made no lookup.
    places: Vec<u32>,
}

/// A [`FetchedTable`] with [`QueryData::Spare`] for its fetch: the same
/// fields but for that one, so the same size and alignment where the spare
/// has the fetch's (a test in `tests/world/allocations.rs` checks a warm
/// system allocates nothing). Never built: only lists of none are.
#[allow(dead_code)]
struct SpareTable<Q: QueryData> {
    id: TableId,
    mask: u128,
    entities: &'static [EntityIndex],
    first_row: u32,
    fetch: Q::Spare,
    rows: Option<TableRows>,
}

impl<Q: QueryData> Default for QueryHome<Q> {
    fn default() -> Self {
        QueryHome {
            tables: Vec::new(),
            places: Vec::new(),
        }
    }
}

impl<Q: QueryData> QueryHome<Q> {
    /// The list's memory, empty, for a query that borrows the world for
    /// `'w`.
    pub(crate) fn lend<'w>(&mut self) -> Vec<FetchedTable<'w, Q>> {
        relabel(core::mem::take(&mut self.tables))
    }
}

/// The memory of `list`, emptied, as a list of `U`: collected in place
/// where `T` and `U` have one size and alignment, which then allocates
/// nothing (and allocates a list of none where they do not).
fn relabel<T, U>(mut list: Vec<T>) -> Vec<U> {
    list.clear();
    list.into_iter()
        .map(|_| -> U { unreachable!("the list is empty") })
        .collect()
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// The system's query over what `query` reaches, whose list's memory
    /// (and its index's) goes back to `home` when it is dropped.
    ///
    /// If the last run looked entities up, this one is likely to as well: its
    /// index is made now, in the last one's memory (lookups borrow the query
    /// shared, and could not take the memory from `home`).
    pub(crate) fn new(query: WorldQuery<'w, Q, F>, home: &'w mut QueryHome<Q>) -> Self {
        if home.places.capacity() > 0 {
            let places = core::mem::take(&mut home.places);
            let _ = query.by_table.set(TablePlaces::new(&query.tables, places));
        }
        Query { query, home }
    }
}

impl<Q: QueryData, F> Drop for Query<'_, Q, F> {
    fn drop(&mut self) {
        let query = &mut self.query;
        self.home.tables = relabel(core::mem::take(&mut query.tables));
        if let Some(index) = query.by_table.take() {
            self.home.places = index.places;
        }
    }
}

impl<'w, Q: QueryData, F> Deref for Query<'w, Q, F> {
    type Target = WorldQuery<'w, Q, F>;

    #[inline]
    fn deref(&self) -> &WorldQuery<'w, Q, F> {
        &self.query
    }
}

impl<Q: QueryData, F> DerefMut for Query<'_, Q, F> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.query
    }
}

impl<'a, 'w, Q: ReadOnlyQueryData, F> IntoIterator for &'a Query<'w, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, 'w, Q>;

    fn into_iter(self) -> Self::IntoIter {
        self.query.iter()
    }
}

impl<'a, 'w, Q: QueryData, F> IntoIterator for &'a mut Query<'w, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, 'w, Q>;

    fn into_iter(self) -> Self::IntoIter {
        self.query.iter_mut()
    }
}
