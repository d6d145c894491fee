//! [`World`]: the entities, tables and resources of one schema.

use crate::bundle::{Bundle, NewRows, Placement, SpawnRows};
use crate::entity::{
    Entities, EntitiesExhausted, Entity, EntityIndex, EntityLocation, NoSuchEntity,
};
use crate::mask::Mask;
use crate::query::{ColumnSlot, MatchedTables, Query, QueryFilter, SchemaQuery};
use crate::schema::{Component, Resource, Schema};
use crate::storage::{Bins, Edge, MaskMap, Table, TableId, TableRow, Tables};
use crate::system::{SplitWorld, TableSlots};
use core::fmt;

/// All entities and resources of schema `S`.
///
/// Entities with the same set of components (the same archetype) share a
/// table, one column per component; inserting or removing a component moves
/// the entity to the table of its new archetype.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Debug, PartialEq, Default)] struct Frozen;
/// #[derive(Debug, PartialEq, Default)] struct Tick(u64);
///
/// #[derive(Schema)]
/// struct Physics { pos: Pos, vel: Vel, frozen: Frozen, #[ecs(resource)] tick: Tick }
///
/// # fn main() -> Result<(), NoSuchEntity> {
/// let mut world = World::<Physics>::new();
/// let a = world.spawn((Pos(1), Vel(6)));
/// world.insert(a, (Frozen,))?;
/// assert_eq!(world.remove::<Vel>(a)?, Some(Vel(6)));
/// assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
/// assert!(world.has::<Frozen>(a) && !world.has::<Vel>(a));
/// world.resource_mut::<Tick>().0 += 1;
/// world.despawn(a)?;
/// assert_eq!(world.despawn(a), Err(NoSuchEntity(a)));
/// assert!(world.is_empty());
/// # Ok(()) }
/// ```
pub struct World<S: Schema> {
    pub(crate) entities: Entities,
    pub(crate) tables: Tables<S>,
    /// Tag values and values waiting to be dropped; see [`Bins`].
    pub(crate) bins: Bins<S>,
    queries: MaskMap<(S::Mask, S::Mask), MatchedTables>,
    resources: S::Resources,
}

impl<S: Schema> World<S>
where
    S::Resources: Default,
{
    /// An empty world, its resources made with `Default`.
    ///
    /// When a resource type has no `Default`, use [`World::with_resources`].
    pub fn new() -> Self {
        Self::with_resources(S::Resources::default())
    }
}

impl<S: Schema> Default for World<S>
where
    S::Resources: Default,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Schema> World<S> {
    /// An empty world with the given resources (the `…Resources` struct
    /// generated for the schema).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// struct Pos(f32);
    /// struct Gravity(f32); // no Default: supplied here
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, #[ecs(resource)] gravity: Gravity }
    ///
    /// let world = World::<Game>::with_resources(GameResources { gravity: Gravity(9.8) });
    /// assert_eq!(world.resource::<Gravity>().0, 9.8);
    /// ```
    pub fn with_resources(resources: S::Resources) -> Self {
        World {
            entities: Entities::default(),
            tables: Tables::default(),
            bins: Bins::default(),
            queries: MaskMap::default(),
            resources,
        }
    }

    /// Creates an entity with the components of `bundle` (a tuple).
    ///
    /// # Panics
    ///
    /// If all 2³² − 1 entity indices are in use; see [`World::try_spawn`].
    #[inline]
    pub fn spawn<B: Bundle<S>>(&mut self, bundle: B) -> Entity {
        const { B::CHECK };
        match self.spawn_checked(bundle) {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        }
    }

    /// Creates an entity with the components of `bundle`, or fails (dropping
    /// the bundle) when no entity index is left.
    pub fn try_spawn<B: Bundle<S>>(&mut self, bundle: B) -> Result<Entity, EntitiesExhausted> {
        const { B::CHECK };
        self.spawn_checked(bundle)
    }

    #[inline]
    fn spawn_checked<B: Bundle<S>>(&mut self, bundle: B) -> Result<Entity, EntitiesExhausted> {
        let table = self.tables.insert_target(TableId::EMPTY, B::mask());
        self.spawn_in(table, bundle)
    }

    /// Spawns into `table`, whose archetype must be exactly `B`'s.
    #[inline]
    fn spawn_in<B: Bundle<S>>(
        &mut self,
        id: TableId,
        bundle: B,
    ) -> Result<Entity, EntitiesExhausted> {
        let table = self.tables.get_mut(id);
        let row = TableRow(table.len() as u32);
        let entity = self.entities.alloc(EntityLocation { table: id, row })?;
        table.push_entity(entity);
        // The table's archetype is the bundle's, a constant: each value's
        // column index folds at compile time instead of a popcount per value.
        debug_assert!(table.mask() == B::mask());
        let mask = B::mask();
        let (_, columns) = table.split_mut();
        bundle.place(&mut Placement {
            columns,
            mask,
            previous: S::Mask::EMPTY,
            row: row.index(),
            bins: &mut self.bins,
        });
        Ok(entity)
    }

    /// Creates one entity per bundle, with a single table lookup and room
    /// reserved for the iterator's lower size bound. Every entity is spawned
    /// before this returns; the returned [`Spawned`] lists them in order
    /// (collect it to keep them), and costs nothing if dropped.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// struct Pos(i64);
    /// #[derive(Schema)] struct S { pos: Pos }
    ///
    /// let mut world = World::<S>::new();
    /// let spawned: Vec<Entity> = world.spawn_batch((0..1000).map(|i| (Pos(i),))).collect();
    /// assert_eq!(spawned.len(), 1000);
    /// assert_eq!(world.get::<Pos>(spawned[7]).unwrap().0, 7);
    ///
    /// // Spawned but not listed: the entities exist all the same.
    /// world.spawn_batch((0..10).map(|i| (Pos(i),)));
    /// assert_eq!(world.len(), 1010);
    /// ```
    ///
    /// # Panics
    ///
    /// If the entity indices run out, as [`World::spawn`].
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> Spawned<'_>
    where
        B: Bundle<S>,
        I: IntoIterator<Item = B>,
    {
        const { B::CHECK };
        let bundles = bundles.into_iter();
        let id = self.tables.insert_target(TableId::EMPTY, B::mask());
        let (additional, upper) = bundles.size_hint();
        let table = self.tables.get_mut(id);
        table.reserve(additional);
        self.entities.reserve(additional);
        let first = table.len();
        let (rows, columns) = table.rows_mut();
        // A batch of known length gets its entities in one run of fresh
        // slots, and its entity list filled, before any value is pushed
        // (simple_insert: 82 -> 66 instructions per entity; the four pushes
        // into plain `Vec`s take 54).
        let mut ahead = 0;
        if upper == Some(additional) {
            if let Ok(count) = u32::try_from(additional) {
                if let Some(index) = self.entities.alloc_fresh_run(id, first as u32, count) {
                    rows.extend((index..index + count).map(EntityIndex));
                    ahead = count;
                }
            }
        }
        B::extend(
            bundles,
            &mut SpawnRows {
                columns,
                bins: &mut self.bins,
                entities: NewRows {
                    table: id,
                    allocator: &mut self.entities,
                    rows,
                    ahead,
                },
            },
        );
        Spawned {
            entities: &self.entities,
            rows: self.tables.get(id).entities()[first..].iter(),
        }
    }

    /// Adds the components of `bundle` to `entity`. A component it already has
    /// is overwritten in place (the old value is dropped); otherwise the entity
    /// moves to the table of its new archetype.
    ///
    /// Fails with [`NoSuchEntity`], dropping `bundle` and changing nothing, if
    /// `entity` is not alive.
    // Inlined into the caller: migration is a chain of dependent loads
    // (location, edge, tables, columns), and inlining lets the caller's loop
    // overlap them; add_remove measured 341 µs without, 241 µs with.
    #[inline(always)]
    pub fn insert<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        const { B::CHECK };
        if B::BITS.count_ones() == 1 {
            // One component along a known edge: straight paths that read no
            // mask, for a migration and for an overwrite. The rest (an edge
            // not known yet, a dead entity) goes through `insert_cold`, out of
            // line, so that these paths have the caller's registers to
            // themselves. The overwrite path costs add_remove about 2% (170 ->
            // 174 µs); without it, overwriting through `insert_cold` took 79
            // µs per 10,000 entities, 47 with it.
            let bit = B::BITS.trailing_zeros();
            if let Some(location) = self.entities.location(entity) {
                match self.tables.migration_insert(location.table, bit) {
                    Some(Edge { from, to }) if to != from => {
                        // `from` rather than `location.table`: equal, but see
                        // `Tables::migration_insert` for why this one is quicker.
                        let location = EntityLocation {
                            table: from,
                            row: location.row,
                        };
                        let (source, destination) = self.tables.pair_mut(from, to);
                        // The entity first: then less is kept in registers
                        // across the column loop (add_remove: 153.4 -> 141.1
                        // instructions per operation, fewer spills).
                        let (row, moved) = source.move_entity(location.row, destination);
                        Self::relocate(&mut self.entities, entity, location, to, row, moved);
                        source.move_columns_adding(location.row, destination, bit);
                        bundle.place(&mut Placement::at(
                            destination,
                            row,
                            S::Mask::EMPTY,
                            &mut self.bins,
                        ));
                        return Ok(());
                    }
                    Some(Edge { from, .. }) => {
                        // The entity has the component: overwrite it in place.
                        let table = self.tables.get_mut(from);
                        let mask = table.mask();
                        bundle.place(&mut Placement::at(
                            table,
                            location.row,
                            mask,
                            &mut self.bins,
                        ));
                        self.bins.empty_trash(B::mask());
                        return Ok(());
                    }
                    None => {}
                }
            }
            return self.insert_cold(entity, bundle);
        }
        self.insert_any(entity, bundle)
    }

    /// Moves `entity`, at `location`, to the table of its archetype plus
    /// `added` (if that is another table); returns that table and the
    /// entity's row in it. The rows of the added components are not filled.
    #[inline(always)]
    pub(crate) fn migrate_adding(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        added: S::Mask,
    ) -> (TableId, TableRow) {
        let target = self.tables.insert_target(location.table, added);
        if target == location.table {
            return (target, location.row);
        }
        let (source, destination) = self.tables.pair_mut(location.table, target);
        let row = Self::move_row(
            &mut self.entities,
            entity,
            location,
            source,
            destination,
            target,
        );
        (target, row)
    }

    /// [`World::insert`] of a one-component bundle off the straight path.
    #[cold]
    #[inline(never)]
    fn insert_cold<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        self.insert_any(entity, bundle)
    }

    /// [`World::insert`] for any bundle.
    #[inline(always)]
    fn insert_any<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        let location = self.entities.location(entity).ok_or(NoSuchEntity(entity))?;
        let previous = self.tables.get(location.table).mask();
        let (target, row) = self.migrate_adding(entity, location, B::mask());
        let table = self.tables.get_mut(target);
        bundle.place(&mut Placement::at(table, row, previous, &mut self.bins));
        self.bins.empty_trash(previous.intersection(B::mask()));
        Ok(())
    }

    /// Removes component `C` from `entity` and returns it: `Ok(None)` if the
    /// entity does not have it, `Err(NoSuchEntity)` (changing nothing) if the
    /// entity is not alive.
    pub fn remove<C: Component<S>>(&mut self, entity: Entity) -> Result<Option<C>, NoSuchEntity> {
        self.remove_bundle::<(C,)>(entity)
            .map(|taken| taken.map(|(value,)| value))
    }

    /// Removes every component of bundle `B` from `entity` and returns them,
    /// if the entity has all of them; if it lacks any, removes nothing and
    /// returns `Ok(None)`. `Err(NoSuchEntity)` (changing nothing) if the entity
    /// is not alive.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// let e = world.spawn((Pos(1), Vel(2)));
    /// assert_eq!(world.remove_bundle::<(Pos, Vel)>(e), Ok(Some((Pos(1), Vel(2)))));
    /// assert_eq!(world.remove_bundle::<(Pos, Vel)>(e), Ok(None));
    /// assert!(world.is_alive(e));
    /// ```
    // Inlined for the same reason as `insert`.
    #[inline(always)]
    pub fn remove_bundle<B: Bundle<S>>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<B>, NoSuchEntity> {
        const { B::CHECK };
        if B::BITS.count_ones() == 1 {
            // As in `insert`: a straight path along a known edge.
            let bit = B::BITS.trailing_zeros();
            if let Some(location) = self.entities.location(entity) {
                if let Some(Edge { from, to }) = self.tables.migration_remove(location.table, bit) {
                    if to == from {
                        return Ok(None);
                    }
                    // `from` rather than `location.table`, as in `insert`.
                    let location = EntityLocation {
                        table: from,
                        row: location.row,
                    };
                    let (source, destination) = self.tables.pair_mut(from, to);
                    let mask = source.mask();
                    let taken = B::take(&mut Placement::at(
                        source,
                        location.row,
                        mask,
                        &mut self.bins,
                    ));
                    let (row, moved) = source.move_entity(location.row, destination);
                    Self::relocate(&mut self.entities, entity, location, to, row, moved);
                    source.move_columns_removing(location.row, destination, bit);
                    return Ok(Some(taken));
                }
            }
            return self.remove_cold(entity);
        }
        self.remove_any(entity)
    }

    /// [`World::remove_bundle`] of a one-component bundle off the straight
    /// path.
    #[cold]
    #[inline(never)]
    fn remove_cold<B: Bundle<S>>(&mut self, entity: Entity) -> Result<Option<B>, NoSuchEntity> {
        self.remove_any(entity)
    }

    /// [`World::remove_bundle`] for any bundle.
    #[inline(always)]
    fn remove_any<B: Bundle<S>>(&mut self, entity: Entity) -> Result<Option<B>, NoSuchEntity> {
        let location = self.entities.location(entity).ok_or(NoSuchEntity(entity))?;
        let mask = self.tables.get(location.table).mask();
        if !mask.contains(B::mask()) {
            return Ok(None);
        }
        let target = self.tables.remove_target(location.table, B::mask());
        if target == location.table {
            // The empty bundle: nothing to take, nowhere to go.
            let table = self.tables.get_mut(target);
            return Ok(Some(B::take(&mut Placement::at(
                table,
                location.row,
                mask,
                &mut self.bins,
            ))));
        }
        let (source, destination) = self.tables.pair_mut(location.table, target);
        let taken = B::take(&mut Placement::at(
            source,
            location.row,
            mask,
            &mut self.bins,
        ));
        Self::move_row(
            &mut self.entities,
            entity,
            location,
            source,
            destination,
            target,
        );
        Ok(Some(taken))
    }

    /// The world taken apart for the systems of one stage: every column and
    /// resource in a slot of its own.
    pub(crate) fn split(&mut self) -> SplitWorld<'_, S> {
        SplitWorld {
            entities: &self.entities,
            tables: self
                .tables
                .as_mut_slice()
                .iter_mut()
                .map(|table| {
                    let mask = table.mask();
                    let (entities, columns) = table.split_mut();
                    TableSlots {
                        mask,
                        entities,
                        columns: columns.iter_mut().map(ColumnSlot::Free).collect(),
                    }
                })
                .collect(),
            resources: S::resource_slots(&mut self.resources),
        }
    }

    /// Moves `entity` from `location` (in `source`) to the end of
    /// `destination` (table `target`), moving the columns both tables have (the
    /// caller has taken out the others), and fixes the location of the entity
    /// swapped into its old row. Returns the new row.
    #[inline(always)]
    pub(crate) fn move_row(
        entities: &mut Entities,
        entity: Entity,
        location: EntityLocation,
        source: &mut Table<S>,
        destination: &mut Table<S>,
        target: TableId,
    ) -> TableRow {
        let (row, moved) = source.move_row(location.row, destination);
        Self::relocate(entities, entity, location, target, row, moved);
        row
    }

    /// Records a move of `entity` from `location` to `row` of table `target`,
    /// and of `moved` (if any) into the row it left.
    // Always inlined, as `move_row`: part of the inlined migration.
    #[inline(always)]
    fn relocate(
        entities: &mut Entities,
        entity: Entity,
        location: EntityLocation,
        target: TableId,
        row: TableRow,
        moved: Option<EntityIndex>,
    ) {
        if let Some(moved) = moved {
            entities.set_location(moved, location);
        }
        entities.set_location(entity, EntityLocation { table: target, row });
    }

    /// Destroys `entity`, dropping its components. `Err(NoSuchEntity)` if it is
    /// not alive (a second despawn, or a stale handle): nothing changes.
    pub fn despawn(&mut self, entity: Entity) -> Result<(), NoSuchEntity> {
        let location = self.entities.free(entity).ok_or(NoSuchEntity(entity))?;
        let table = self.tables.get_mut(location.table);
        let mask = table.mask();
        if let Some(moved) = table.remove_row(location.row, self.bins.trash_mut()) {
            self.entities.set_location(moved, location);
        }
        self.bins.discard_tags(mask);
        self.bins.empty_trash(mask);
        Ok(())
    }

    /// Despawns every entity. Handles to them become stale; tables and the
    /// resources stay.
    ///
    /// If a component's `Drop` panics, the world is already empty and every
    /// other value is still dropped.
    pub fn clear(&mut self) {
        let mut columns = Vec::new();
        for id in 0..self.tables.len() {
            let table = self.tables.get_mut(TableId(id as u32));
            for &index in table.entities() {
                self.entities.free(self.entities.entity(index));
            }
            columns.push(table.take_rows());
        }
        columns.push(self.bins.take_tags());
        drop(columns);
    }

    /// Component `C` of `entity`; `None` if the entity is not alive or lacks it.
    #[inline]
    pub fn get<C: Component<S>>(&self, entity: Entity) -> Option<&C> {
        let location = self.entities.location(entity)?;
        let table = self.tables.get(location.table);
        if !table.mask().has(C::BIT) {
            None
        } else if S::Mask::DATA.has(C::BIT) {
            C::column(table.column(C::BIT)).get(location.row.index())
        } else {
            // A tag: every value of a zero-sized type is the same.
            self.bins.tag()
        }
    }

    /// Component `C` of `entity`, mutably; `None` if the entity is not alive or
    /// lacks it.
    #[inline]
    pub fn get_mut<C: Component<S>>(&mut self, entity: Entity) -> Option<&mut C> {
        let location = self.entities.location(entity)?;
        let table = self.tables.get_mut(location.table);
        if !table.mask().has(C::BIT) {
            None
        } else if S::Mask::DATA.has(C::BIT) {
            C::column_mut(table.column_mut(C::BIT)).get_mut(location.row.index())
        } else {
            self.bins.tag_mut()
        }
    }

    /// Whether `entity` is alive and has component `C`.
    #[inline]
    pub fn has<C: Component<S>>(&self, entity: Entity) -> bool {
        self.archetype(entity).is_some_and(|mask| mask.has(C::BIT))
    }

    /// The archetype of `entity`, if it is alive.
    #[inline]
    pub fn archetype(&self, entity: Entity) -> Option<S::Mask> {
        let location = self.entities.location(entity)?;
        Some(self.tables.get(location.table).mask())
    }

    /// Whether `entity` is alive.
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.entities.contains(entity)
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The live entities, table by table.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.tables.iter().flat_map(|table| {
            table
                .entities()
                .iter()
                .map(|&index| self.entities.entity(index))
        })
    }

    /// Resource `R`.
    #[inline]
    pub fn resource<R: Resource<S>>(&self) -> &R {
        R::get(&self.resources)
    }

    /// Resource `R`, mutably.
    #[inline]
    pub fn resource_mut<R: Resource<S>>(&mut self) -> &mut R {
        R::get_mut(&mut self.resources)
    }

    /// All resources.
    pub fn resources(&self) -> &S::Resources {
        &self.resources
    }

    /// All resources, mutably.
    pub fn resources_mut(&mut self) -> &mut S::Resources {
        &mut self.resources
    }

    /// Every entity that matches `Q`; see [`Query`].
    ///
    /// `Q` is `&T`, `&mut T`, `Option<…>`, [`Entity`], [`Has<T>`](crate::Has) or
    /// a tuple of them. A query that borrows a component mutably twice, or
    /// mutably and shared, such as `(&mut Pos, &Pos)`, fails to compile.
    #[inline]
    pub fn query<Q: SchemaQuery<S>>(&mut self) -> Query<'_, Q, ()> {
        const { Q::CHECK };
        self.query_checked()
    }

    /// Every entity that matches `Q` and filter `F` ([`With`](crate::With),
    /// [`Without`](crate::Without), or a tuple of them); see [`Query`].
    #[inline]
    pub fn query_filtered<Q: SchemaQuery<S>, F: QueryFilter<S>>(&mut self) -> Query<'_, Q, F> {
        const { Q::CHECK };
        self.query_checked()
    }

    fn query_checked<Q: SchemaQuery<S>, F: QueryFilter<S>>(&mut self) -> Query<'_, Q, F> {
        let required = S::Mask::from_u128(Q::REQUIRED | F::REQUIRED);
        let excluded = S::Mask::from_u128(F::EXCLUDED);
        let matched = self.queries.entry((required, excluded)).or_default();
        let matched = matched.update(&self.tables, required, excluded);
        Query::new(&self.entities, self.tables.as_mut_slice(), matched)
    }

    /// The world's tables: for each, its components and entity count.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// struct Pos(i64);
    /// struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn((Pos(0), Vel(1)));
    /// world.spawn((Pos(0),));
    /// assert_eq!(
    ///     world.describe().to_string(),
    ///     "World<S>: 2 entities in 3 tables\n  []: 0 entities\n  [Pos, Vel]: 1 entity\n  [Pos]: 1 entity\n"
    /// );
    /// ```
    pub fn describe(&self) -> Description {
        Description {
            schema: S::NAME,
            entities: self.len(),
            tables: self
                .tables
                .iter()
                .map(|table| TableDescription {
                    components: table
                        .mask()
                        .iter_bits()
                        .map(|bit| S::COMPONENT_NAMES[bit as usize])
                        .collect(),
                    entities: table.len(),
                })
                .collect(),
        }
    }
}

impl<S: Schema> fmt::Debug for World<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.describe(), f)
    }
}

/// What [`World::describe`] returns: the world's tables. Printed with
/// `Display`, one line per table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// The schema's name.
    pub schema: &'static str,
    /// Number of live entities.
    pub entities: usize,
    /// The tables, in creation order.
    pub tables: Vec<TableDescription>,
}

/// One table of a [`Description`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDescription {
    /// The table's components (its archetype), in bit order.
    pub components: Vec<&'static str>,
    /// Number of entities in it.
    pub entities: usize,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "World<{}>: {} in {}",
            self.schema,
            plural(self.entities, "entity", "entities"),
            plural(self.tables.len(), "table", "tables"),
        )?;
        for table in &self.tables {
            writeln!(
                f,
                "  [{}]: {}",
                table.components.join(", "),
                plural(table.entities, "entity", "entities")
            )?;
        }
        Ok(())
    }
}

/// The entities one [`World::spawn_batch`] created, in order: an iterator
/// that reads them from the table they were spawned into, so that a batch
/// whose entities are not wanted allocates no list of them. Collect it to
/// keep them past the next change to the world.
#[derive(Clone)]
pub struct Spawned<'w> {
    entities: &'w Entities,
    rows: core::slice::Iter<'w, EntityIndex>,
}

impl Iterator for Spawned<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        self.rows.next().map(|&index| self.entities.entity(index))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.rows.size_hint()
    }
}

impl DoubleEndedIterator for Spawned<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Entity> {
        self.rows
            .next_back()
            .map(|&index| self.entities.entity(index))
    }
}

impl ExactSizeIterator for Spawned<'_> {}

impl core::iter::FusedIterator for Spawned<'_> {}

impl fmt::Debug for Spawned<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}
