//! Several entities of a query at once ([`Query::get_many`],
//! [`Query::get_many_mut`]) and the one entity of a query ([`Query::single`],
//! [`Query::single_mut`]), with their errors.

use super::{Query, QueryData, ReadOnlyQueryData};
use crate::entity::{Entity, NoSuchEntity};
use core::fmt;

/// Why [`Query::get`], [`Query::get_mut`], [`Query::get_many`] or
/// [`Query::get_many_mut`] could not hand out the item of an entity asked
/// for. Each names the entity at fault (for `get_many` and `get_many_mut`,
/// the first in the order given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QueryEntityError {
    /// The entity is not alive: despawned, or a stale handle.
    NoSuchEntity(Entity),
    /// The entity is alive but the query does not match it: it lacks a
    /// component the query requires, or the filter excludes it.
    DoesNotMatch(Entity),
    /// [`Query::get_many_mut`] was given the entity more than once; it
    /// cannot hand out two mutable borrows of one entity's components.
    Repeated(Entity),
}

impl fmt::Display for QueryEntityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryEntityError::NoSuchEntity(entity) => write!(
                f,
                "entity {entity} does not exist (it was despawned, or the handle is stale)"
            ),
            QueryEntityError::DoesNotMatch(entity) => write!(
                f,
                "entity {entity} does not match the query: it lacks a component the query \
                 requires, or the query's filter excludes it"
            ),
            QueryEntityError::Repeated(entity) => write!(
                f,
                "entity {entity} is asked for more than once; `get_many_mut` lends each \
                 entity's items mutably, so list each entity once"
            ),
        }
    }
}

impl std::error::Error for QueryEntityError {}

impl From<NoSuchEntity> for QueryEntityError {
    fn from(NoSuchEntity(entity): NoSuchEntity) -> Self {
        QueryEntityError::NoSuchEntity(entity)
    }
}

/// Why [`Query::single`] or [`Query::single_mut`] found no item to return.
/// Each names the query type, which its `Display` writes without module
/// paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QuerySingleError {
    /// No entity matches the query.
    NoEntities {
        /// The query's item type, as [`core::any::type_name`] writes it.
        query: &'static str,
    },
    /// More than one entity matches the query.
    MultipleEntities {
        /// The query's item type, as [`core::any::type_name`] writes it.
        query: &'static str,
        /// How many entities match.
        count: usize,
    },
}

/// Names the query as written in code, without module paths:
/// "2 entities match the query `(Entity, &Pos)`, ...".
impl fmt::Display for QuerySingleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            QuerySingleError::NoEntities { query } => write!(
                f,
                "no entity matches the query `{}`, which was expected to match exactly one",
                without_paths(query)
            ),
            QuerySingleError::MultipleEntities { query, count } => write!(
                f,
                "{count} entities match the query `{}`, which was expected to match exactly \
                 one",
                without_paths(query)
            ),
        }
    }
}

/// `type_name` without the module paths: `(schemecs::entity::Entity, &game::Pos)`
/// becomes `(Entity, &Pos)`.
fn without_paths(type_name: &str) -> String {
    let mut short = String::with_capacity(type_name.len());
    // Where the path being written started in `short`.
    let mut path_start = 0;
    let mut rest = type_name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("::") {
            short.truncate(path_start);
            rest = after;
            continue;
        }
        short.push(c);
        if !(c.is_alphanumeric() || c == '_') {
            path_start = short.len();
        }
        rest = &rest[c.len_utf8()..];
    }
    short
}

impl std::error::Error for QuerySingleError {}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// The items of `N` entities at once, mutably, in the order given: to
    /// let two entities act on each other. Fails, naming the entity, if one
    /// is not alive, does not match, or is given twice.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::query::QueryEntityError;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// # fn main() -> Result<(), QueryEntityError> {
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(0), Vel(3)));
    /// let b = world.spawn((Pos(10), Vel(-1)));
    /// let mut movers = world.query_mut::<(&Pos, &mut Vel)>();
    ///
    /// // a collision: each takes the other's velocity
    /// let [(_, x), (_, y)] = movers.get_many_mut([a, b])?;
    /// core::mem::swap(x, y);
    /// assert_eq!(movers.get_many_mut([b, a])?.map(|(_, v)| v.0), [3, -1]);
    ///
    /// assert_eq!(movers.get_many_mut([a, a]).err(), Some(QueryEntityError::Repeated(a)));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// For the first entity at fault, in the order given:
    /// [`QueryEntityError::NoSuchEntity`] if it is not alive,
    /// [`QueryEntityError::DoesNotMatch`] if the query does not match it,
    /// and [`QueryEntityError::Repeated`] if it is given twice.
    pub fn get_many_mut<const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'_>; N], QueryEntityError> {
        let located = self.locate_all(&entities)?;
        for (i, &entity) in entities.iter().enumerate() {
            if entities[..i].contains(&entity) {
                return Err(QueryEntityError::Repeated(entity));
            }
        }
        // The requested (table, row) places are distinct. Visited in
        // ascending order, each table's fetch is cut just before the next
        // place, and the item of the place is taken off the front of the
        // rest: every item comes from a piece of its own, so the borrows are
        // disjoint without `unsafe`.
        let mut order: [usize; N] = core::array::from_fn(|i| i);
        order.sort_unstable_by_key(|&i| located[i]);
        let mut items: [Option<Q::Item<'_>>; N] = core::array::from_fn(|_| None);
        let mut places = order.iter().peekable();
        for (index, table) in self.tables.iter_mut().enumerate() {
            let Some(&&first) = places.peek() else {
                break;
            };
            if located[first].0 != index {
                continue;
            }
            let mut rest = Q::reborrow(&mut table.fetch);
            // The row `rest` starts at.
            let mut start = 0;
            while let Some(&i) = places.next_if(|&&i| located[i].0 == index) {
                let row = located[i].1;
                let (_, mut tail) = Q::split_at(rest, row - start);
                Q::stamp_rows(&mut tail, 1);
                items[i] = Some(Q::next(&mut tail));
                rest = tail;
                start = row + 1;
            }
        }
        Ok(items.map(|item| match item {
            Some(item) => item,
            None => unreachable!("every located entity's table is among the query's tables"),
        }))
    }

    /// The item of the one entity that matches, mutably; an error if none or
    /// several match.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Score(u32);
    /// #[derive(Debug, PartialEq)] struct Player;
    /// #[derive(Schema)] struct S { score: Score, player: Player }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn((Score(0), Player));
    /// world.spawn((Score(0),));
    /// world
    ///     .query_filtered_mut::<&mut Score, With<Player>>()
    ///     .single_mut()
    ///     .unwrap()
    ///     .0 += 10;
    /// let scores: Vec<u32> = world.query::<&Score>().iter().map(|s| s.0).collect();
    /// assert_eq!(scores.iter().sum::<u32>(), 10);
    /// ```
    ///
    /// # Errors
    ///
    /// [`QuerySingleError::NoEntities`] if no entity matches, and
    /// [`QuerySingleError::MultipleEntities`] if more than one does.
    pub fn single_mut(&mut self) -> Result<Q::Item<'_>, QuerySingleError> {
        self.check_single()?;
        Ok(Q::get(Q::reborrow(&mut self.tables[0].fetch), 0))
    }

    /// The place of each of `entities` in the query: (index in
    /// `self.tables`, row); the first one that is dead or does not match is
    /// the error.
    fn locate_all<const N: usize>(
        &self,
        entities: &[Entity; N],
    ) -> Result<[(usize, usize); N], QueryEntityError> {
        let mut located = [(0, 0); N];
        for (place, &entity) in located.iter_mut().zip(entities) {
            *place = self.locate_or_err(entity)?;
        }
        Ok(located)
    }

    /// The place of `entity` in the query: (index in `self.tables`, row);
    /// the error says whether it is dead or does not match.
    #[inline]
    pub(super) fn locate_or_err(&self, entity: Entity) -> Result<(usize, usize), QueryEntityError> {
        match self.locate(entity) {
            Some(place) => Ok(place),
            None => Err(self.not_found(entity)),
        }
    }

    /// Why `entity`, which the query does not reach, is not found.
    #[cold]
    fn not_found(&self, entity: Entity) -> QueryEntityError {
        if self.entities.contains(entity) {
            QueryEntityError::DoesNotMatch(entity)
        } else {
            QueryEntityError::NoSuchEntity(entity)
        }
    }

    /// `Ok` if exactly one entity matches: then it is row 0 of the one
    /// table (the query keeps no empty table).
    fn check_single(&self) -> Result<(), QuerySingleError> {
        let query = core::any::type_name::<Q>();
        match self.count() {
            0 => Err(QuerySingleError::NoEntities { query }),
            1 => Ok(()),
            count => Err(QuerySingleError::MultipleEntities { query, count }),
        }
    }
}

// The read-only bound on each method, as in `query/mod.rs`.
impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// The items of `N` entities at once, in the order given; an entity may
    /// be given more than once. Fails, naming the entity, if one is not
    /// alive or does not match.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::query::QueryEntityError;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(1),));
    /// let b = world.spawn((Pos(5), Vel(0)));
    /// let positions = world.query::<&Pos>();
    /// let [p, q] = positions.get_many([a, b]).unwrap();
    /// assert_eq!(q.0 - p.0, 4);
    ///
    /// let movers = world.query::<(&Pos, &Vel)>();
    /// assert_eq!(movers.get_many([b, a]).err(), Some(QueryEntityError::DoesNotMatch(a)));
    /// ```
    ///
    /// # Errors
    ///
    /// For the first entity at fault, in the order given:
    /// [`QueryEntityError::NoSuchEntity`] if it is not alive, and
    /// [`QueryEntityError::DoesNotMatch`] if the query does not match it.
    pub fn get_many<const N: usize>(
        &self,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'_>; N], QueryEntityError>
    where
        Q: ReadOnlyQueryData,
    {
        let located = self.locate_all(&entities)?;
        Ok(located.map(|(table, row)| Q::get(Q::shared(&self.tables[table].fetch), row)))
    }

    /// The item of the one entity that matches; an error, naming the query,
    /// if none or several match.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::query::QuerySingleError;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Player;
    /// #[derive(Schema)] struct S { pos: Pos, player: Player }
    ///
    /// # fn main() -> Result<(), QuerySingleError> {
    /// let mut world = World::<S>::new();
    /// let hero = world.spawn((Pos(3), Player));
    /// world.spawn((Pos(8),));
    ///
    /// let players = world.query_filtered::<(Entity, &Pos), With<Player>>();
    /// let only = players.single()?;
    /// assert_eq!(only, (hero, &Pos(3)));
    ///
    /// let everyone = world.query::<&Pos>();
    /// assert!(matches!(
    ///     everyone.single(),
    ///     Err(QuerySingleError::MultipleEntities { count: 2, .. })
    /// ));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`QuerySingleError::NoEntities`] if no entity matches, and
    /// [`QuerySingleError::MultipleEntities`] if more than one does.
    pub fn single(&self) -> Result<Q::Item<'_>, QuerySingleError>
    where
        Q: ReadOnlyQueryData,
    {
        self.check_single()?;
        Ok(Q::get(Q::shared(&self.tables[0].fetch), 0))
    }
}
