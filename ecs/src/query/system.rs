//! [`Query`]: a system's query parameter, a [`WorldQuery`] lent to one run
//! of the system.

use super::{QueryData, QueryIter, ReadOnlyQueryData, WorldQuery};
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
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// The system's query over what `query` reaches.
    pub(crate) fn new(query: WorldQuery<'w, Q, F>) -> Self {
        Query { query }
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
