//! Structural change: where entities are created, move between tables as
//! components are inserted and removed, and are destroyed.
//!
//! [`EntityStore`] owns the three things every such change must keep in step
//! (the entity slots, the tables and the tag bins) and is the only code that
//! changes them. [`World`](crate::world::World) calls it for its typed operations;
//! command replay calls it, through the world, for the mask-driven ones.
//!
//! A sparse component (`#[ecs(sparse)]`) never decides a table: every path
//! here sends the sparse bits of a bundle or mask to the sparse sets (kept in
//! the bins, see [`crate::storage::SparseSets`]) and the rest to the tables,
//! so inserting or removing only sparse components leaves the entity's row
//! where it is. An entity's archetype is its table's mask plus its sparse
//! bits.
//!
//! Every change here follows one order: move the rows and fix every location
//! first, drop the values let go of (overwritten, removed, despawned) last,
//! from the trash. A `Drop` that panics then finds the world consistent.

use crate::bundle::{Bundle, NewRows, Placement, SpawnRows};
use crate::changes::Changes;
use crate::entity::{Entities, EntitiesExhausted, Entity, EntityLocation, NoSuchEntity, SlotsMut};
use crate::entity_ref::{EntityMut, EntityRef};
use crate::layout::{Component, Layout};
use crate::mask::{Mask, MaskBits};
use crate::storage::{
    is_sparse, table_part, Bins, Column, Edge, EntityIndex, Staged, Table, TableId, TableMove,
    TableRow, Tables,
};
use core::fmt;

/// Every entity of a world and its components: the entity slots (entity →
/// table and row), the tables (one per archetype) and the tag bins.
///
/// Invariants, kept by every method: a live entity's slot names the table and
/// row that hold its components, and that row's entity is it; a dead entity
/// is in no table and no sparse set; no table's mask holds a sparse bit; each
/// tag's bag holds one value per live entity that has the tag; the trash is
/// empty between operations.
pub(crate) struct EntityStore<S: Layout> {
    entities: Entities,
    tables: Tables<S>,
    /// Tag values and values waiting to be dropped; see [`Bins`].
    bins: Bins<S>,
    /// The change tick and the log of tracked components removed; see
    /// [`crate::change`].
    changes: Changes,
}

impl<S: Layout> Default for EntityStore<S> {
    fn default() -> Self {
        EntityStore {
            entities: Entities::default(),
            tables: Tables::default(),
            bins: Bins::default(),
            changes: Changes::default(),
        }
    }
}

impl<S: Layout> Clone for EntityStore<S>
where
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        EntityStore {
            entities: self.entities.clone(),
            tables: self.tables.clone(),
            bins: self.bins.clone(),
            changes: self.changes.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.entities.clone_from(&source.entities);
        self.tables.clone_from(&source.tables);
        self.changes.clone_from(&source.changes);
        self.bins.clone_from(&source.bins);
    }
}

/// Reading.
impl<S: Layout> EntityStore<S> {
    #[inline]
    pub(crate) fn entities(&self) -> &Entities {
        &self.entities
    }

    #[inline]
    pub(crate) fn tables(&self) -> &Tables<S> {
        &self.tables
    }

    /// The tag bins (whose trash is empty between operations).
    pub(crate) fn bins(&self) -> &Bins<S> {
        &self.bins
    }

    /// A store of parts that the caller has checked to keep its invariants
    /// (a loaded save).
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(
        entities: Entities,
        tables: Tables<S>,
        bins: Bins<S>,
        changes: Changes,
    ) -> Self {
        EntityStore {
            entities,
            tables,
            bins,
            changes,
        }
    }

    /// The entity slots, shared, and the tables, to be lent out column by
    /// column (queries, systems).
    #[inline]
    pub(crate) fn lend(&mut self) -> (&Entities, &mut [Table<S>]) {
        (&self.entities, self.tables.as_mut_slice())
    }

    /// The entity slots, shared, the tables and the sparse sets, to be lent
    /// out column by column (queries that reach sparse components).
    #[inline]
    pub(crate) fn lend_with_sparse(
        &mut self,
    ) -> (
        &Entities,
        &mut [Table<S>],
        &mut crate::storage::SparseSets<S>,
    ) {
        (
            &self.entities,
            self.tables.as_mut_slice(),
            self.bins.sparse_mut(),
        )
    }

    /// The entity slots, shared, the tables and the bins, to be lent out
    /// together, and the change tick that writes are marked with
    /// ([`ViewMut`](crate::query::ViewMut)).
    #[inline]
    pub(crate) fn lend_all(&mut self) -> (&Entities, &mut [Table<S>], &mut Bins<S>, u32) {
        (
            &self.entities,
            self.tables.as_mut_slice(),
            &mut self.bins,
            self.changes.tick,
        )
    }

    /// The change tick and removal log.
    #[inline]
    pub(crate) fn changes(&self) -> &Changes {
        &self.changes
    }

    /// The change tick and removal log, mutably.
    #[inline]
    pub(crate) fn changes_mut(&mut self) -> &mut Changes {
        &mut self.changes
    }

    /// Clamps the ticks of every tracked column (see [`crate::change`]).
    pub(crate) fn clamp_ticks(&mut self, now: u32) {
        if const { S::TRACKED_BITS != 0 } {
            for id in 0..self.tables.len() {
                self.tables.get_mut(TableId(id as u32)).clamp_ticks(now);
            }
        }
        if const { S::TRACKED_BITS & S::SPARSE_BITS != 0 } {
            self.bins.sparse_mut().clamp_ticks(now);
        }
    }

    /// `Ok` if no tracked component was changed or added after tick `now`
    /// (the world's, in a save being loaded): each tick at most 2^31 before
    /// it, as ticks that wrap go.
    #[cfg(feature = "serde")]
    pub(crate) fn check_ticks(&self, now: u32) -> Result<(), String> {
        if const { S::TRACKED_BITS == 0 } {
            return Ok(());
        }
        let tables = self.tables.iter().flat_map(|table| table.columns());
        let sets = self.bins.sparse().sets().iter().map(|set| set.values());
        for column in tables.chain(sets) {
            let Some((added, changed)) = column.ticks() else {
                continue;
            };
            if let Some(&tick) = added
                .iter()
                .chain(changed)
                .find(|&&tick| crate::tick::is_after(tick, now))
            {
                return Err(format!(
                    "a tracked component was changed at tick {tick}, after the world's tick {now}"
                ));
            }
        }
        Ok(())
    }

    /// Stamps the rows just pushed to the tracked columns of table `id` as
    /// added now. Nothing (at compile time) in a schema without tracked
    /// components.
    #[inline(always)]
    fn stamp(&mut self, id: TableId) {
        if const { S::TRACKED_BITS != 0 } {
            let table = self.tables.get_mut(id);
            if table.mask().bits().to_u128() & S::TRACKED_BITS != 0 {
                table.sync_ticks(self.changes.tick);
            }
        }
    }

    /// Logs that `entity` lost the tracked components among `lost`.
    #[inline(always)]
    fn log_removed(&mut self, entity: Entity, lost: S::Mask) {
        if const { S::TRACKED_BITS != 0 } {
            let tracked = lost.bits().to_u128() & S::TRACKED_BITS;
            if tracked != 0 {
                self.log_removed_bits(entity, tracked);
            }
        }
    }

    #[cold]
    fn log_removed_bits(&mut self, entity: Entity, mut bits: u128) {
        while bits != 0 {
            let bit = bits.trailing_zeros();
            self.changes.log_removed(bit, entity);
            bits &= bits - 1;
        }
    }

    /// `entity`, its location looked up once; `None` if it is not alive.
    #[inline]
    pub(crate) fn entity(&self, entity: Entity) -> Option<EntityRef<'_, S>> {
        let location = self.entities.location(entity)?;
        let table = self.tables.get(location.table);
        Some(EntityRef::new(
            entity,
            table,
            location.row.index(),
            &self.bins,
        ))
    }

    /// `entity`, mutably, its location looked up once; `None` if it is not
    /// alive.
    #[inline]
    pub(crate) fn entity_mut(&mut self, entity: Entity) -> Option<EntityMut<'_, S>> {
        let location = self.entities.location(entity)?;
        let table = self.tables.get_mut(location.table);
        Some(EntityMut::new(
            entity,
            table,
            location.row.index(),
            &mut self.bins,
            self.changes.tick,
        ))
    }

    /// Component `C` of `entity`; `None` if the entity is not alive or lacks it.
    #[inline]
    pub(crate) fn get<C: Component<S>>(&self, entity: Entity) -> Option<&C> {
        self.entity(entity)?.get_after_check()
    }

    /// Component `C` of `entity`, mutably; `None` if the entity is not alive or
    /// lacks it.
    #[inline]
    pub(crate) fn get_mut<C: Component<S>>(&mut self, entity: Entity) -> Option<&mut C> {
        self.entity_mut(entity)?.into_mut_kept()
    }

    /// The archetype of `entity`, if it is alive: its table's mask and its
    /// sparse components.
    #[inline]
    pub(crate) fn archetype(&self, entity: Entity) -> Option<S::Mask> {
        let location = self.entities.location(entity)?;
        Some(self.full_mask(entity.into(), self.tables.get(location.table).mask()))
    }

    /// Whether entity `index`, whose table's mask is `table_mask`, has every
    /// component of `mask`. Only the sparse sets of `mask` are looked at,
    /// not every set of the schema as [`EntityStore::full_mask`] does.
    #[inline(always)]
    fn has_all(&self, index: EntityIndex, table_mask: S::Mask, mask: S::Mask) -> bool {
        if !table_mask.contains(table_part::<S>(mask)) {
            return false;
        }
        if const { S::SPARSE_BITS == 0 } {
            return true;
        }
        let sparse = self.bins.sparse();
        sparse_part::<S>(mask)
            .iter_bits()
            .all(|bit| sparse.has(bit, index))
    }

    /// The archetype of entity `index`, whose table's mask is `table_mask`.
    #[inline(always)]
    fn full_mask(&self, index: EntityIndex, table_mask: S::Mask) -> S::Mask {
        if const { S::SPARSE_BITS == 0 } {
            table_mask
        } else {
            table_mask.union(self.bins.sparse().mask_of(index))
        }
    }
}

/// Spawning.
impl<S: Layout> EntityStore<S> {
    /// Makes the entities reserved since the last flush alive, with no
    /// components. Every operation that allocates or frees entities calls it
    /// first: the reservations were made against the free list as it was.
    #[inline]
    pub(crate) fn flush(&mut self) {
        if self.entities.has_reserved() {
            self.flush_reserved();
        }
    }

    /// Takes back the reservations of `entities`, the spawns they were for
    /// dropped, if they are the last made; see [`Entities::unreserve`].
    pub(crate) fn unreserve(&mut self, entities: &[Entity]) -> bool {
        self.entities.unreserve(entities)
    }

    /// Whether `entity` is alive, or reserved and made alive by the next
    /// [`EntityStore::flush`]: what an operation that frees or changes it
    /// checks before flushing, so that one that fails leaves the
    /// reservations pending.
    #[inline]
    fn is_alive_or_reserved(&self, entity: Entity) -> bool {
        self.entities.contains(entity) || self.entities.is_reserved(entity)
    }

    #[cold]
    #[inline(never)]
    fn flush_reserved(&mut self) {
        let table = self.tables.get_mut(TableId::EMPTY);
        self.entities.flush(|entity| EntityLocation {
            table: TableId::EMPTY,
            row: table.push_entity(entity),
        });
    }

    /// Makes the reserved entities alive, in reservation order: those of
    /// `spawned` (a subsequence of them) at rows `first_row..` of table `id`,
    /// where a [`Spawner`](crate::command::Spawner) pushed their rows, in order; the
    /// others (reserved by commands) with no components, as
    /// [`EntityStore::flush`] does. The new rows of a tracked table are
    /// stamped as added now; the values of `tags` join the world's.
    pub(crate) fn place_spawned(
        &mut self,
        id: TableId,
        first_row: u32,
        spawned: &[Entity],
        tags: &mut Bins<S>,
    ) {
        let tables = &mut self.tables;
        let mut next = 0;
        self.entities.flush(|entity| {
            if spawned.get(next) == Some(&entity) {
                next += 1;
                EntityLocation {
                    table: id,
                    row: TableRow(first_row + next as u32 - 1),
                }
            } else {
                let empty = tables.get_mut(TableId::EMPTY);
                EntityLocation {
                    table: TableId::EMPTY,
                    row: empty.push_entity(entity),
                }
            }
        });
        debug_assert_eq!(next, spawned.len(), "every spawned entity was reserved");
        self.stamp(id);
        self.bins.absorb_tags(tags);
    }

    /// Settles the rows a [`Migrator`](crate::command::Migrator) moved among tables
    /// it held: each entity it moved or displaced goes to its new location
    /// (in order: a later one for the same entity wins), the tag values it
    /// placed join the world's bags, and `dropped` values of tag `bit` leave
    /// them (the tags it removed, `0` for a data component); then its
    /// trash is emptied, the world being consistent.
    pub(crate) fn settle_moves(
        &mut self,
        locations: &[(EntityIndex, EntityLocation)],
        bins: &mut Bins<S>,
        (bit, dropped): (u32, u32),
    ) {
        let mut slots = self.entities.slots_mut();
        for &(entity, location) in locations {
            slots.set_location(entity, location);
        }
        self.bins.absorb_tags(bins);
        let tag = S::Mask::bit(bit);
        for _ in 0..dropped {
            self.bins.discard_tags(tag);
        }
        self.bins.empty_trash(tag);
        bins.empty_trash(tag);
    }

    /// Gives the rows `first_row..first_row + count` of table `id`, pushed by
    /// an [`UnnamedSpawner`](crate::command::UnnamedSpawner) with no entity yet, an
    /// entity each, in row order, after the reserved entities are made alive.
    /// Stamps the new rows as added now; the values of `tags` join the
    /// world's. If the entity indices run out, the rows are dropped and
    /// this panics, leaving the world as it was.
    pub(crate) fn place_unnamed(
        &mut self,
        id: TableId,
        first_row: u32,
        count: u32,
        tags: &mut Bins<S>,
    ) {
        self.flush();
        if !self.entities.can_alloc(count as usize) {
            // Ticks first, so that every column is as long as its ticks.
            self.stamp(id);
            let table = self.tables.get_mut(id);
            let (_, trash) = self.bins.tags_and_trash_mut();
            for row in (first_row..first_row + count).rev() {
                table.remove_row(TableRow(row), trash);
            }
            let mask = table.mask();
            self.bins.empty_trash(mask);
            tags.clear_tags();
            panic!("{}", EntitiesExhausted);
        }
        let table = self.tables.get_mut(id);
        for row in first_row..first_row + count {
            let location = EntityLocation {
                table: id,
                row: TableRow(row),
            };
            let entity = match self.entities.alloc(location) {
                Ok(entity) => entity,
                Err(_) => unreachable!("checked by can_alloc"),
            };
            table.set_entity(TableRow(row), entity);
        }
        self.stamp(id);
        self.bins.absorb_tags(tags);
    }

    /// Makes the reserved entities alive, then gives each of `spawned` (in
    /// order) the next staged values of the bits of `mask`, as applied
    /// commands do (a [`Spawner`](crate::command::Spawner) whose table did not
    /// exist).
    pub(crate) fn place_staged_spawns(
        &mut self,
        mask: S::Mask,
        spawned: &[Entity],
        values: &mut Staged<S>,
    ) {
        self.flush();
        values.reverse();
        for &entity in spawned {
            self.insert_staged(entity, mask, values);
        }
        values.clear();
    }

    /// Makes the reserved entities alive, then spawns `count` entities, each
    /// with the next staged values of the bits of `mask` (an
    /// [`UnnamedSpawner`](crate::command::UnnamedSpawner) whose table did not exist).
    pub(crate) fn spawn_staged_many(&mut self, mask: S::Mask, count: u32, values: &mut Staged<S>) {
        self.flush();
        values.reverse();
        for _ in 0..count {
            self.spawn_staged(mask, values);
        }
        values.clear();
    }

    /// Creates an entity with the components of `bundle`, or fails (dropping
    /// the bundle) when no entity index is left.
    #[inline]
    pub(crate) fn spawn<B: Bundle<S>>(&mut self, bundle: B) -> Result<Entity, EntitiesExhausted> {
        self.flush();
        let mask = table_part::<S>(B::mask());
        let id = self.tables.insert_target(TableId::EMPTY, mask);
        let table = self.tables.get_mut(id);
        let row = TableRow(table.len() as u32);
        let entity = self.entities.alloc(EntityLocation { table: id, row })?;
        table.push_entity(entity);
        // The table's archetype is the bundle's (less its sparse bits), a
        // constant: each value's column index folds at compile time instead
        // of a popcount per value.
        debug_assert!(table.mask() == mask);
        let (_, columns) = table.split_mut();
        bundle.place(&mut Placement {
            columns,
            mask,
            previous: S::Mask::EMPTY,
            row: row.index(),
            entity: entity.into(),
            bins: &mut self.bins,
            tick: self.changes.tick,
        });
        self.stamp(id);
        Ok(entity)
    }

    /// Makes room for `additional` more entities with `B`'s components; see
    /// [`World::reserve`](crate::world::World::reserve).
    pub(crate) fn reserve<B: Bundle<S>>(&mut self, additional: usize) {
        self.flush();
        let id = self
            .tables
            .insert_target(TableId::EMPTY, table_part::<S>(B::mask()));
        self.tables.get_mut(id).reserve(additional);
        self.entities.reserve(additional);
    }

    /// Creates one entity per bundle at the end of one table; see
    /// [`World::spawn_batch`](crate::world::World::spawn_batch).
    pub(crate) fn spawn_batch<B, I>(&mut self, bundles: I) -> Spawned<'_>
    where
        B: Bundle<S>,
        I: Iterator<Item = B>,
    {
        self.flush();
        let id = self
            .tables
            .insert_target(TableId::EMPTY, table_part::<S>(B::mask()));
        let (additional, upper) = bundles.size_hint();
        let table = self.tables.get_mut(id);
        table.reserve(additional);
        self.entities.reserve(additional);
        let first = table.len();
        let (rows, columns) = table.rows_mut();
        // A batch of known length gets its entities in one run of fresh
        // slots, and its entity list filled, before any value is pushed: the
        // loop below then only pushes values.
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
                tick: self.changes.tick,
            },
        );
        self.stamp(id);
        Spawned::of(&self.entities, &self.tables.get(id).entities()[first..])
    }

    /// Spawns an entity of archetype `mask`, its values the next staged ones
    /// of each bit: a recorded [`Commands::spawn`](crate::command::Commands::spawn).
    ///
    /// # Panics
    ///
    /// If the entity indices run out, as [`World::spawn`](crate::world::World::spawn).
    pub(crate) fn spawn_staged(&mut self, mask: S::Mask, values: &mut Staged<S>) {
        self.flush();
        let table_mask = table_part::<S>(mask);
        let id = self.tables.insert_target(TableId::EMPTY, table_mask);
        let table = self.tables.get_mut(id);
        let row = TableRow(table.len() as u32);
        let entity = match self.entities.alloc(EntityLocation { table: id, row }) {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        };
        table.push_entity(entity);
        let (_, columns) = table.split_mut();
        let (tags, _) = self.bins.tags_and_trash_mut();
        place_staged::<S>(table_mask, columns, tags, values);
        self.stamp(id);
        self.put_staged_sparse(entity, mask, values);
    }
}

/// Spawns recorded by commands.
impl<S: Layout> EntityStore<S> {
    /// Gives `entity`, reserved by a spawn command and made alive with no
    /// components when the commands' application began, the components of
    /// `mask` from `values`: what [`EntityStore::insert_staged`] does, but
    /// straight from the empty table, which has no columns, to the bundle's
    /// table, as [`EntityStore::spawn_staged`] places a new entity. An entity
    /// no longer in the empty table (or dead) takes the general path.
    pub(crate) fn spawn_reserved(&mut self, entity: Entity, mask: S::Mask, values: &mut Staged<S>) {
        let table_mask = table_part::<S>(mask);
        let location = match self.entities.location(entity) {
            Some(location) if location.table == TableId::EMPTY && !table_mask.is_empty() => {
                location
            }
            _ => return self.insert_staged(entity, mask, values),
        };
        let target = self.tables.insert_target(TableId::EMPTY, table_mask);
        // `migrate` without its walk over the source's columns, of which the
        // empty table has none (about 11 instructions a spawn in
        // benches/commands.rs).
        let (empty, table) = self.tables.pair_mut(TableId::EMPTY, target);
        let moved = empty.move_entity(location.row, table);
        relocate(
            &mut self.entities.slots_mut(),
            entity,
            location,
            target,
            moved,
        );
        let (_, columns) = self.tables.get_mut(target).split_mut();
        let (tags, _) = self.bins.tags_and_trash_mut();
        place_staged::<S>(table_mask, columns, tags, values);
        self.stamp(target);
        // The entity may have been given sparse values since it was made
        // alive: those the bundle overwrites go now.
        self.put_staged_sparse(entity, mask, values);
        self.bins.empty_trash(sparse_part::<S>(mask));
    }
}

/// Inserting components.
impl<S: Layout> EntityStore<S> {
    /// Adds the components of `bundle` to `entity`; see
    /// [`World::insert`](crate::world::World::insert).
    // Always inlined, up to the caller's loop: a migration is a chain of
    // dependent loads (slot, edge, tables, columns), and a loop of them
    // overlaps the chains of successive entities only when it sees the code.
    #[inline(always)]
    pub(crate) fn insert<B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<(), NoSuchEntity> {
        if const { B::BITS & S::SPARSE_BITS != 0 } {
            if const { B::BITS & !S::SPARSE_BITS == 0 } {
                return self.insert_sparse(entity, bundle);
            }
            return self.insert_any(entity, bundle);
        }
        if const { B::BITS.count_ones() != 1 } {
            return self.insert_any(entity, bundle);
        }
        // One component along a known edge: straight paths that read no
        // mask, for a migration and for an overwrite. The rest (an edge not
        // known yet, a dead entity) goes through `insert_cold`, out of line,
        // so that these paths have the caller's registers to themselves.
        let bit = B::BITS.trailing_zeros();
        let mut slots = self.entities.slots_mut();
        let Some(location) = slots.location(entity) else {
            return self.insert_cold(entity, bundle);
        };
        match self.tables.migration_insert(location.table, bit) {
            Some(Edge { from, to }) if to != from => {
                let (source, destination) = self.tables.pair_mut(from, to);
                // The entity first, then the columns: less stays live in
                // registers across the column loop.
                let moved = source.move_entity(location.row, destination);
                relocate(&mut slots, entity, location, to, moved);
                let added = source.move_columns_adding(location.row, destination, bit);
                // The bundle's one column is the first of `added`: with the
                // bundle's own mask, its index is a constant.
                bundle.place(&mut Placement {
                    columns: added,
                    mask: B::mask(),
                    previous: S::Mask::EMPTY,
                    row: moved.row.index(),
                    entity: entity.into(),
                    bins: &mut self.bins,
                    tick: self.changes.tick,
                });
                self.stamp(to);
                Ok(())
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
                    self.changes.tick,
                ));
                if B::NEEDS_DROP {
                    self.bins.empty_trash(B::mask());
                }
                Ok(())
            }
            None => self.insert_cold(entity, bundle),
        }
    }

    /// [`EntityStore::insert`] of a one-component bundle off the straight
    /// path.
    #[cold]
    #[inline(never)]
    fn insert_cold<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        self.insert_any(entity, bundle)
    }

    /// [`EntityStore::insert`] of a bundle of sparse components only: no
    /// table changes, each value goes to its set.
    #[inline(always)]
    fn insert_sparse<B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<(), NoSuchEntity> {
        if self.entities.location(entity).is_none() {
            return Err(NoSuchEntity(entity));
        }
        bundle.place(&mut Placement {
            columns: &mut [],
            mask: S::Mask::EMPTY,
            previous: S::Mask::EMPTY,
            row: 0,
            entity: entity.into(),
            bins: &mut self.bins,
            tick: self.changes.tick,
        });
        if B::NEEDS_DROP {
            self.bins.empty_trash(B::mask());
        }
        Ok(())
    }

    /// [`EntityStore::insert`] for any bundle.
    #[inline(always)]
    fn insert_any<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        let location = self.entities.location(entity).ok_or(NoSuchEntity(entity))?;
        let previous = self.tables.get(location.table).mask();
        let (target, row) =
            self.migrate_adding_shared(entity, location, table_part::<S>(B::mask()));
        let tick = self.changes.tick;
        let table = self.tables.get_mut(target);
        bundle.place(&mut Placement::at(
            table,
            row,
            previous,
            &mut self.bins,
            tick,
        ));
        self.stamp(target);
        self.bins.empty_trash(
            previous
                .intersection(B::mask())
                .union(sparse_part::<S>(B::mask())),
        );
        Ok(())
    }

    /// Inserts the next staged value of each bit of `mask` into `entity`, as
    /// [`World::insert`](crate::world::World::insert): a recorded
    /// [`Commands::insert`](crate::command::Commands::insert). Drops the values if the
    /// entity is not alive.
    pub(crate) fn insert_staged(&mut self, entity: Entity, mask: S::Mask, values: &mut Staged<S>) {
        let Some(location) = self.entities.location(entity) else {
            let (_, trash) = self.bins.tags_and_trash_mut();
            for bit in mask.iter_bits() {
                values.pop_into(bit, &mut trash[bit as usize]);
            }
            self.bins.empty_trash(mask);
            return;
        };
        if S::SPARSE_BITS != 0 && table_part::<S>(mask).is_empty() {
            // Sparse components only: the entity's row stays where it is.
            self.put_staged_sparse(entity, mask, values);
            self.bins.empty_trash(mask);
            return;
        }
        let previous = self.tables.get(location.table).mask();
        let (target, row) = self.migrate_adding(entity, location, table_part::<S>(mask));
        let tick = self.changes.tick;
        let table = self.tables.get_mut(target);
        let table_mask = table.mask();
        let (_, columns) = table.split_mut();
        let (tags, trash) = self.bins.tags_and_trash_mut();
        for bit in table_part::<S>(mask).iter_bits() {
            let present = previous.has(bit);
            if S::Mask::DATA.has(bit) {
                let column = &mut columns[table_mask.index(bit)];
                let old_ticks = present.then(|| column.row_ticks(row.index())).flatten();
                values.pop_into(bit, column);
                if present {
                    // The old value goes (to the trash if it has drop glue);
                    // the new one, last, takes its row: for a tracked
                    // component, a change, not an addition.
                    column.sync_ticks(tick);
                    column.discard_row(row.index(), &mut trash[bit as usize]);
                    if let Some((added, _)) = old_ticks {
                        column.set_row_ticks(row.index(), (added, tick));
                    }
                }
            } else if present {
                values.pop_into(bit, &mut trash[bit as usize]);
            } else {
                values.pop_into(bit, &mut tags[bit as usize]);
            }
        }
        self.stamp(target);
        self.put_staged_sparse(entity, mask, values);
        self.bins
            .empty_trash(previous.intersection(mask).union(sparse_part::<S>(mask)));
    }

    /// Gives `entity` the next staged value of each sparse bit of `mask`.
    #[inline]
    fn put_staged_sparse(&mut self, entity: Entity, mask: S::Mask, values: &mut Staged<S>) {
        if const { S::SPARSE_BITS != 0 } {
            let tick = self.changes.tick;
            let (sparse, trash) = self.bins.sparse_and_trash_mut();
            for bit in sparse_part::<S>(mask).iter_bits() {
                sparse.put_staged(bit, entity.into(), values, trash, tick);
            }
        }
    }

    /// Moves `entity`, at `location`, to the table of its archetype plus
    /// `added` (if that is another table); returns that table and the
    /// entity's row in it. The rows of the added components are not filled.
    #[inline(always)]
    fn migrate_adding(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        added: S::Mask,
    ) -> (TableId, TableRow) {
        let target = self.tables.insert_target(location.table, added);
        if target == location.table {
            return (target, location.row);
        }
        let row = self.migrate(entity, location, target);
        (target, row)
    }

    /// [`EntityStore::migrate_adding`] out of line: one copy for the
    /// functions made per bundle (`insert_any`), which would otherwise each
    /// hold the whole column loop, a match over every component.
    #[inline(never)]
    fn migrate_adding_shared(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        added: S::Mask,
    ) -> (TableId, TableRow) {
        self.migrate_adding(entity, location, added)
    }
}

/// Removing components.
impl<S: Layout> EntityStore<S> {
    /// Removes every component of `B` from `entity` and returns them; see
    /// [`World::remove_bundle`](crate::world::World::remove_bundle).
    // Inlined for the same reason as `insert`.
    #[inline(always)]
    pub(crate) fn remove_bundle<B: Bundle<S>>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<B>, NoSuchEntity> {
        if const { B::BITS & S::SPARSE_BITS != 0 } {
            if const { B::BITS & !S::SPARSE_BITS == 0 } {
                return self.remove_sparse(entity);
            }
            return self.remove_any(entity);
        }
        if const { B::BITS.count_ones() != 1 } {
            return self.remove_any(entity);
        }
        // As in `insert`: a straight path along a known edge.
        let bit = B::BITS.trailing_zeros();
        let mut slots = self.entities.slots_mut();
        let Some(location) = slots.location(entity) else {
            return self.remove_cold(entity);
        };
        let Some(Edge { from, to }) = self.tables.migration_remove(location.table, bit) else {
            return self.remove_cold(entity);
        };
        if to == from {
            return Ok(None);
        }
        let (source, destination) = self.tables.pair_mut(from, to);
        let moved = source.move_entity(location.row, destination);
        relocate(&mut slots, entity, location, to, moved);
        // The bundle's one column, left behind by the moves: with the
        // bundle's own mask, its index is a constant.
        let removed = source.move_columns_removing(location.row, destination, bit);
        let taken = B::take(&mut Placement {
            columns: removed,
            mask: B::mask(),
            previous: B::mask(),
            row: location.row.index(),
            entity: entity.into(),
            bins: &mut self.bins,
            tick: self.changes.tick,
        });
        self.log_removed(entity, B::mask());
        Ok(Some(taken))
    }

    /// [`EntityStore::remove_bundle`] of a one-component bundle off the
    /// straight path.
    #[cold]
    #[inline(never)]
    fn remove_cold<B: Bundle<S>>(&mut self, entity: Entity) -> Result<Option<B>, NoSuchEntity> {
        self.remove_any(entity)
    }

    /// [`EntityStore::remove_bundle`] of a bundle of sparse components only:
    /// no table changes, each value comes out of its set.
    #[inline(always)]
    fn remove_sparse<B: Bundle<S>>(&mut self, entity: Entity) -> Result<Option<B>, NoSuchEntity> {
        if self.entities.location(entity).is_none() {
            return Err(NoSuchEntity(entity));
        }
        let index = EntityIndex::from(entity);
        let sparse = self.bins.sparse();
        if !B::mask().iter_bits().all(|bit| sparse.has(bit, index)) {
            return Ok(None);
        }
        let taken = B::take(&mut Placement {
            columns: &mut [],
            mask: S::Mask::EMPTY,
            previous: S::Mask::EMPTY,
            row: 0,
            entity: index,
            bins: &mut self.bins,
            tick: self.changes.tick,
        });
        self.log_removed(entity, B::mask());
        Ok(Some(taken))
    }

    /// [`EntityStore::remove_bundle`] for any bundle.
    #[inline(always)]
    fn remove_any<B: Bundle<S>>(&mut self, entity: Entity) -> Result<Option<B>, NoSuchEntity> {
        let location = self.entities.location(entity).ok_or(NoSuchEntity(entity))?;
        let mask = self.tables.get(location.table).mask();
        if !self.has_all(entity.into(), mask, B::mask()) {
            return Ok(None);
        }
        let target = self
            .tables
            .remove_target(location.table, table_part::<S>(B::mask()));
        let tick = self.changes.tick;
        if target == location.table {
            // The empty bundle: nothing to take, nowhere to go.
            let table = self.tables.get_mut(target);
            return Ok(Some(B::take(&mut Placement::at(
                table,
                location.row,
                mask,
                &mut self.bins,
                tick,
            ))));
        }
        let taken = B::take(&mut Placement::at(
            self.tables.get_mut(location.table),
            location.row,
            mask,
            &mut self.bins,
            tick,
        ));
        self.migrate_shared(entity, location, target);
        self.log_removed(entity, B::mask());
        Ok(Some(taken))
    }

    /// Removes the components of `mask` from `entity` if it is alive and has
    /// all of them, dropping the values, as
    /// [`World::remove_bundle`](crate::world::World::remove_bundle): a recorded
    /// [`Commands::remove_bundle`](crate::command::Commands::remove_bundle).
    pub(crate) fn remove_staged(&mut self, entity: Entity, mask: S::Mask) {
        let Some(location) = self.entities.location(entity) else {
            return;
        };
        let table_mask = self.tables.get(location.table).mask();
        if !self.has_all(entity.into(), table_mask, mask) {
            return;
        }
        if const { S::SPARSE_BITS != 0 } {
            let (sparse, trash) = self.bins.sparse_and_trash_mut();
            for bit in sparse_part::<S>(mask).iter_bits() {
                sparse.discard(bit, entity.into(), trash);
            }
        }
        let removed = table_part::<S>(mask);
        let target = self.tables.remove_target(location.table, removed);
        if target != location.table {
            let (_, columns) = self.tables.get_mut(location.table).split_mut();
            let trash = self.bins.trash_mut();
            for bit in removed.intersection(S::Mask::DATA).iter_bits() {
                columns[table_mask.index(bit)]
                    .discard_row(location.row.index(), &mut trash[bit as usize]);
            }
            self.bins.discard_tags(removed);
            self.migrate(entity, location, target);
        }
        self.log_removed(entity, mask);
        self.bins.empty_trash(mask);
    }
}

/// Moving components out: an entity taken apart, components exchanged.
impl<S: Layout> EntityStore<S> {
    /// `Ok` if `entity`, at `location` (`None`: reserved, with no
    /// component yet), has exactly the components of bundle `B`.
    fn check_take<B: Bundle<S>>(
        &self,
        entity: Entity,
        location: Option<EntityLocation>,
    ) -> Result<(), TakeError> {
        let archetype = match location {
            Some(location) => {
                let table_mask = self.tables.get(location.table).mask();
                self.full_mask(entity.into(), table_mask)
            }
            None => S::Mask::EMPTY,
        };
        if archetype != B::mask() {
            return Err(TakeError::Mismatch {
                entity,
                schema: S::NAME,
                not_in_bundle: component_names::<S>(archetype.difference(B::mask())),
                not_in_entity: component_names::<S>(B::mask().difference(archetype)),
            });
        }
        Ok(())
    }

    /// Moves every component of `entity` out, as bundle `B`, and frees the
    /// entity; see [`World::take`](crate::world::World::take). Changes nothing
    /// unless the entity's archetype is exactly `B`'s.
    pub(crate) fn take<B: Bundle<S>>(&mut self, entity: Entity) -> Result<B, TakeError> {
        // The flush makes a reserved entity alive (with no component),
        // which a refused take must not do: with reservations pending, the
        // checks come first.
        if self.entities.has_reserved() {
            if !self.is_alive_or_reserved(entity) {
                return Err(TakeError::NoSuchEntity(entity));
            }
            self.check_take::<B>(entity, self.entities.location(entity))?;
            self.flush_reserved();
        }
        let location = self
            .entities
            .location(entity)
            .ok_or(TakeError::NoSuchEntity(entity))?;
        self.check_take::<B>(entity, Some(location))?;
        // Checked: the entity has exactly the bundle's components.
        let archetype = B::mask();
        let table_mask = self.tables.get(location.table).mask();
        let tick = self.changes.tick;
        let taken = B::take(&mut Placement::at(
            self.tables.get_mut(location.table),
            location.row,
            table_mask,
            &mut self.bins,
            tick,
        ));
        // Every value is out of the row; the entity is all that is left.
        self.entities.free(entity);
        let table = self.tables.get_mut(location.table);
        if let Some(swapped) = table.remove_entity(location.row) {
            self.entities.set_location(swapped, location);
        }
        self.log_removed(entity, archetype);
        Ok(taken)
    }

    /// Removes the components of `R` from `entity` and inserts `bundle`, in
    /// one move to the table of its archetype less `R` plus `B`; see
    /// [`World::exchange`](crate::world::World::exchange). Changes nothing, and
    /// hands `bundle` back, unless the entity is alive and has all of `R`.
    ///
    /// `R`'s values are taken out of the entity's row first (swap-removed
    /// from their columns), then the rest of the row moves, then `bundle`'s
    /// values are placed as an insert places them: a component of `B` that
    /// is not in `R` and that the entity has is overwritten; one in both is
    /// pushed anew, then given back the ticks it was added at (a tracked
    /// component replaced is changed, not added).
    pub(crate) fn exchange<R: Bundle<S>, B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<R, ExchangeError<B>> {
        self.exchange_adding(entity, bundle, S::Mask::EMPTY, &mut Staged::default())
    }

    /// [`EntityStore::exchange`] that also places the next staged value of
    /// each component of `extra` (what `B` requires and the entity lacks
    /// once `R` is out: none of `B`, none it keeps), in the same move. A
    /// component of `extra` that was in `R` is replaced as one in both
    /// bundles is.
    pub(crate) fn exchange_adding<R: Bundle<S>, B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
        extra: S::Mask,
        values: &mut Staged<S>,
    ) -> Result<R, ExchangeError<B>> {
        let Some(location) = self.entities.location(entity) else {
            return Err(ExchangeError::NoSuchEntity { entity, bundle });
        };
        let table_mask = self.tables.get(location.table).mask();
        let archetype = self.full_mask(entity.into(), table_mask);
        if !archetype.contains(R::mask()) {
            return Err(ExchangeError::Missing {
                entity,
                schema: S::NAME,
                missing: component_names::<S>(R::mask().difference(archetype)),
                bundle,
            });
        }
        let index = EntityIndex::from(entity);
        let tick = self.changes.tick;
        let removed = table_part::<S>(R::mask());
        let kept = table_mask.difference(removed);
        let inserted = B::mask().union(extra);
        debug_assert!(
            extra.intersection(B::mask()).is_empty()
                && extra
                    .intersection(archetype.difference(R::mask()))
                    .is_empty(),
            "an extra component is new to the entity once `R` is out"
        );
        let target = self
            .tables
            .target(location.table, kept.union(table_part::<S>(inserted)));
        // The tracked components taken out and put back, and the ticks they
        // were added at, which they keep.
        let replaced = R::mask()
            .intersection(inserted)
            .intersection(S::Mask::from_u128(S::TRACKED_BITS));
        let mut added_at = [0u32; 128];
        if S::TRACKED_BITS & R::BITS != 0 && !replaced.is_empty() {
            let table = self.tables.get(location.table);
            for (i, bit) in replaced.iter_bits().enumerate() {
                let ticks = if is_sparse::<S>(bit) {
                    self.bins.sparse().row_ticks(bit, index)
                } else {
                    table.column(bit).row_ticks(location.row.index())
                };
                added_at[i] = ticks.map_or(tick, |(added, _)| added);
            }
        }

        let taken = R::take(&mut Placement::at(
            self.tables.get_mut(location.table),
            location.row,
            table_mask,
            &mut self.bins,
            tick,
        ));
        let row = if target == location.table {
            location.row
        } else {
            let (source, destination) = self.tables.pair_mut(location.table, target);
            let moved = source.move_row_except(location.row, destination, removed);
            relocate(
                &mut self.entities.slots_mut(),
                entity,
                location,
                target,
                moved,
            );
            moved.row
        };
        bundle.place(&mut Placement::at(
            self.tables.get_mut(target),
            row,
            kept,
            &mut self.bins,
            tick,
        ));
        if !extra.is_empty() {
            // New to the row: each value is pushed, as a spawn places it.
            let table = self.tables.get_mut(target);
            let table_mask = table.mask();
            let (_, columns) = table.split_mut();
            let (tags, _) = self.bins.tags_and_trash_mut();
            for bit in table_part::<S>(extra).iter_bits() {
                if S::Mask::DATA.has(bit) {
                    values.pop_into(bit, &mut columns[table_mask.index(bit)]);
                } else {
                    values.pop_into(bit, &mut tags[bit as usize]);
                }
            }
            self.put_staged_sparse(entity, extra, values);
        }
        self.stamp(target);
        if target == location.table {
            // `R`'s table components, all in `B` or `extra` here, were
            // swap-removed and pushed back last: each goes back to the
            // entity's row.
            let table = self.tables.get_mut(target);
            table.restore_row_after_swap(row, removed, self.bins.trash_mut());
        }
        if S::TRACKED_BITS & R::BITS != 0 && !replaced.is_empty() {
            for (i, bit) in replaced.iter_bits().enumerate() {
                let ticks = (added_at[i], tick);
                if is_sparse::<S>(bit) {
                    self.bins.sparse_mut().set_row_ticks(bit, index, ticks);
                } else {
                    let column = self.tables.get_mut(target).column_mut(bit);
                    column.set_row_ticks(row.index(), ticks);
                }
            }
        }
        self.log_removed(entity, R::mask().difference(inserted));
        self.bins.empty_trash(B::mask());
        Ok(taken)
    }
}

/// Moving rows and destroying entities.
impl<S: Layout> EntityStore<S> {
    /// Moves `entity` from `location` to the end of table `target`, moving
    /// the columns both tables have (the caller has taken out the others), and
    /// fixes the locations. Returns the new row.
    #[inline(always)]
    fn migrate(&mut self, entity: Entity, location: EntityLocation, target: TableId) -> TableRow {
        let (source, destination) = self.tables.pair_mut(location.table, target);
        let moved = source.move_row(location.row, destination);
        relocate(
            &mut self.entities.slots_mut(),
            entity,
            location,
            target,
            moved,
        );
        moved.row
    }

    /// [`EntityStore::migrate`] out of line, for the functions made per
    /// bundle (see [`EntityStore::migrate_adding_shared`]).
    #[inline(never)]
    fn migrate_shared(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        target: TableId,
    ) -> TableRow {
        self.migrate(entity, location, target)
    }

    /// Destroys `entity`, dropping its components. `Err(NoSuchEntity)` if it is
    /// not alive: nothing changes.
    pub(crate) fn despawn(&mut self, entity: Entity) -> Result<(), NoSuchEntity> {
        // A despawn that fails leaves the reservations pending.
        if self.entities.has_reserved() {
            if !self.is_alive_or_reserved(entity) {
                return Err(NoSuchEntity(entity));
            }
            self.flush_reserved();
        }
        let location = self.entities.free(entity).ok_or(NoSuchEntity(entity))?;
        let table = self.tables.get_mut(location.table);
        let mut mask = table.mask();
        if let Some(swapped) = table.remove_row(location.row, self.bins.trash_mut()) {
            self.entities.set_location(swapped, location);
        }
        self.bins.discard_tags(mask);
        if const { S::SPARSE_BITS != 0 } {
            let (sparse, trash) = self.bins.sparse_and_trash_mut();
            mask = mask.union(sparse.discard_all(entity.into(), trash));
        }
        self.log_removed(entity, mask);
        self.bins.empty_trash(mask);
        Ok(())
    }

    /// Despawns each live entity of `entities`, as [`EntityStore::despawn`]
    /// of each in order would (an entity not alive, or listed again, is
    /// skipped), except that each table's rows are removed last first, so
    /// they land in an order of their own, and that the values let go of are
    /// dropped once all are gone. The ids are freed and the removals logged
    /// in the order given; the sparse values are then taken out set by set
    /// (a set's values left may land in an order of their own, see
    /// [`SparseSets::discard_many`]), and the rows table by table. Returns
    /// how many were despawned. The caller handles entities with a
    /// lifecycle.
    pub(crate) fn despawn_batch(&mut self, entities: &[Entity], batch: &mut DespawnBatch) -> usize {
        // A batch that despawns nothing leaves the reservations pending.
        if self.entities.has_reserved()
            && !entities
                .iter()
                .any(|&entity| self.is_alive_or_reserved(entity))
        {
            return 0;
        }
        self.flush();
        // One pass in the order given: each entity's slot is freed (a dead
        // or repeated one is skipped), its place noted as `table << 32 |
        // row`, its tag values let go of, its removals logged.
        let (places, freed) = (&mut batch.places, &mut batch.freed);
        places.clear();
        freed.clear();
        let mut lost = S::Mask::EMPTY;
        for &entity in entities {
            let Some(location) = self.entities.free(entity) else {
                continue;
            };
            places.push(u64::from(location.table.0) << 32 | u64::from(location.row.0));
            let mask = self.tables.get(location.table).mask();
            self.bins.discard_tags(mask);
            self.log_removed(entity, mask);
            lost = lost.union(mask);
            if const { S::SPARSE_BITS != 0 } {
                freed.push(entity);
            }
        }
        let despawned = places.len();
        // Then their sparse values, set by set.
        if S::SPARSE_BITS != 0 && !freed.is_empty() {
            let (sparse, trash) = self.bins.sparse_and_trash_mut();
            batch.released.resize_with(sparse.len(), Vec::new);
            let released = &mut batch.released;
            let entities = &self.entities;
            let is_free = |index| entities.is_free(index);
            lost = lost.union(sparse.discard_many(freed, is_free, trash, released));
            // Each tracked set's removals, in the order given.
            let sparse_bits = S::Mask::from_u128(S::SPARSE_BITS).iter_bits();
            for (bit, released) in sparse_bits.zip(released.iter_mut()) {
                for position in released.drain(..) {
                    self.changes.log_removed(bit, freed[position as usize]);
                }
            }
        }
        // Table by table, each table's places in ascending order (each once:
        // the slots were freed once) and visited last first: no removal
        // moves a row still to be removed, and each row is where it was
        // found. Recorded while walking queries, the places come in runs of
        // one table, rising, one run per table: then they need no sorting.
        let groups = &mut batch.groups;
        groups.clear();
        if !runs_of_tables(&batch.places, |table, rows| groups.push((table, rows))) {
            batch.places.sort_unstable();
            runs_of_tables(&batch.places, |table, rows| groups.push((table, rows)));
        }
        let trash = self.bins.trash_mut();
        for (id, rows) in groups.drain(..) {
            let table = self.tables.get_mut(id);
            let places = &batch.places[rows];
            // The rows that end the table go at once (despawning a whole
            // archetype, or its newest entities); the others one by one,
            // last first.
            let tail = places
                .iter()
                .rev()
                .zip((0..table.len()).rev())
                .take_while(|&(&place, row)| place as u32 as usize == row)
                .count();
            table.remove_tail(tail, trash);
            for &place in places[..places.len() - tail].iter().rev() {
                let row = TableRow(place as u32);
                if let Some(swapped) = table.remove_row(row, trash) {
                    self.entities
                        .set_location(swapped, EntityLocation { table: id, row });
                }
            }
        }
        // The world is consistent: the values let go of are dropped.
        self.bins.empty_trash(lost);
        despawned
    }

    /// Despawns every entity; see [`World::clear`](crate::world::World::clear).
    pub(crate) fn clear(&mut self) {
        self.flush();
        let mut columns = Vec::new();
        for id in 0..self.tables.len() {
            let table = self.tables.get_mut(TableId(id as u32));
            let mask = table.mask();
            for &index in table.entities() {
                let entity = self.entities.entity(index);
                self.entities.free(entity);
                if const { S::TRACKED_BITS != 0 } {
                    let mut mask = mask;
                    if const { S::SPARSE_BITS & S::TRACKED_BITS != 0 } {
                        mask = mask.union(self.bins.sparse().mask_of(index));
                    }
                    let tracked = mask.bits().to_u128() & S::TRACKED_BITS;
                    let mut bits = tracked;
                    while bits != 0 {
                        self.changes.log_removed(bits.trailing_zeros(), entity);
                        bits &= bits - 1;
                    }
                }
            }
            columns.push(table.take_rows());
        }
        columns.push(self.bins.take_tags());
        if const { S::SPARSE_BITS != 0 } {
            columns.push(self.bins.sparse_mut().take_values().into_boxed_slice());
        }
        drop(columns);
    }
}

/// Pushes the next staged value of each component of `mask` onto `columns`,
/// the columns of the table whose mask is exactly `mask` (a new row), or for
/// a tag onto its bin in `tags`. The columns are in bit order, so each data
/// component's column is the next one: no column's position is counted
/// from its bit.
#[inline(always)]
fn place_staged<S: Layout>(
    mask: S::Mask,
    columns: &mut [S::Column],
    tags: &mut [S::Column],
    values: &mut Staged<S>,
) {
    let mut columns = columns.iter_mut();
    for bit in mask.iter_bits() {
        if S::Mask::DATA.has(bit) {
            let column = columns
                .next()
                .expect("a column for each data bit of the mask");
            values.pop_into(bit, column);
        } else {
            values.pop_into(bit, &mut tags[bit as usize]);
        }
    }
}

/// The sparse bits of `mask`.
#[inline(always)]
fn sparse_part<S: Layout>(mask: S::Mask) -> S::Mask {
    mask.intersection(S::Mask::from_u128(S::SPARSE_BITS))
}

/// Records a move of `entity` from `location` to `moved.row` of table
/// `target`, and of the entity swapped into the row it left (if any).
// Always inlined, as `migrate`: part of the inlined migration.
#[inline(always)]
fn relocate(
    entities: &mut SlotsMut<'_>,
    entity: Entity,
    location: EntityLocation,
    target: TableId,
    moved: TableMove,
) {
    if let Some(swapped) = moved.swapped {
        entities.set_location(swapped, location);
    }
    entities.set_location(
        entity,
        EntityLocation {
            table: target,
            row: moved.row,
        },
    );
}

/// The entities one [`World::spawn_batch`](crate::world::World::spawn_batch)
/// created, in order: an iterator that reads them from the table they were
/// spawned into, so that a batch whose entities are not wanted allocates no
/// list of them. Collect it to keep them past the next change to the world.
#[derive(Clone)]
pub struct Spawned<'w> {
    from: SpawnedFrom<'w>,
}

/// Where a [`Spawned`] reads its entities.
#[derive(Clone)]
enum SpawnedFrom<'w> {
    /// From the rows of the table they were spawned into, each slot's
    /// entity as it is now (no change came between).
    Rows {
        entities: &'w Entities,
        rows: core::slice::Iter<'w, EntityIndex>,
    },
    /// From the handles recorded as they were spawned (a batch whose hooks
    /// may have despawned some of them before the batch ended).
    Handles(core::slice::Iter<'w, Entity>),
}

impl<'w> Spawned<'w> {
    /// The entities of `rows`, in order.
    pub(crate) fn of(entities: &'w Entities, rows: &'w [EntityIndex]) -> Self {
        Spawned {
            from: SpawnedFrom::Rows {
                entities,
                rows: rows.iter(),
            },
        }
    }

    /// The entities `handles`, in order, as they were when spawned.
    pub(crate) fn of_handles(handles: &'w [Entity]) -> Self {
        Spawned {
            from: SpawnedFrom::Handles(handles.iter()),
        }
    }
}

impl Iterator for Spawned<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        match &mut self.from {
            SpawnedFrom::Rows { entities, rows } => {
                rows.next().map(|&index| entities.entity(index))
            }
            SpawnedFrom::Handles(handles) => handles.next().copied(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.from {
            SpawnedFrom::Rows { rows, .. } => rows.size_hint(),
            SpawnedFrom::Handles(handles) => handles.size_hint(),
        }
    }

    #[inline]
    fn fold<B, F: FnMut(B, Entity) -> B>(self, init: B, mut f: F) -> B {
        match self.from {
            SpawnedFrom::Rows { entities, rows } => {
                rows.fold(init, |acc, &index| f(acc, entities.entity(index)))
            }
            SpawnedFrom::Handles(handles) => handles.fold(init, |acc, &entity| f(acc, entity)),
        }
    }
}

impl DoubleEndedIterator for Spawned<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Entity> {
        match &mut self.from {
            SpawnedFrom::Rows { entities, rows } => {
                rows.next_back().map(|&index| entities.entity(index))
            }
            SpawnedFrom::Handles(handles) => handles.next_back().copied(),
        }
    }
}

impl ExactSizeIterator for Spawned<'_> {}

impl core::iter::FusedIterator for Spawned<'_> {}

impl fmt::Debug for Spawned<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

/// The names of the components of `mask`, in bit order.
fn component_names<S: Layout>(mask: S::Mask) -> Vec<&'static str> {
    mask.iter_bits()
        .map(|bit| S::COMPONENT_NAMES[bit as usize])
        .collect()
}

/// Writes `names` as a list in words: `` `A` ``, `` `A` and `B` ``,
/// `` `A`, `B` and `C` ``.
fn write_names(f: &mut fmt::Formatter<'_>, names: &[&str]) -> fmt::Result {
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == names.len() { " and " } else { ", " })?;
        }
        write!(f, "`{name}`")?;
    }
    Ok(())
}

/// The error of [`World::insert`](crate::world::World::insert). The world is
/// unchanged, and the bundle was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InsertError {
    /// The entity, or the target of a relation in the bundle, is not alive
    /// (despawned, or a stale handle); the variant holds that entity.
    NoSuchEntity(Entity),
    /// A relation in the bundle would close a cycle in a relation declared
    /// `on_target_despawn = despawn`.
    Cycle(RelationCycle),
}

impl From<NoSuchEntity> for InsertError {
    fn from(NoSuchEntity(entity): NoSuchEntity) -> Self {
        InsertError::NoSuchEntity(entity)
    }
}

impl From<RelationCycle> for InsertError {
    fn from(cycle: RelationCycle) -> Self {
        InsertError::Cycle(cycle)
    }
}

impl fmt::Display for InsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InsertError::NoSuchEntity(entity) => fmt::Display::fmt(&NoSuchEntity(*entity), f),
            InsertError::Cycle(cycle) => write!(f, "cannot insert: {cycle}. Nothing changed"),
        }
    }
}

impl std::error::Error for InsertError {}

/// A relation that would close a cycle: `source`'s relation would point at
/// `target`, and `target` is `source` itself or lies below it (its
/// relation, its target's, and so on lead up to `source`). A relation
/// declared `on_target_despawn = despawn` is a hierarchy, a forest of
/// trees, and the world refuses such a change to it (see
/// [`Relation`](crate::relation::Relation)); what refused it says how:
/// [`InsertError::Cycle`], [`ExchangeError::Cycle`], or a command or spawn
/// that leaves the relation out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RelationCycle {
    /// The relation's type name (`ChildOf`).
    pub relation: &'static str,
    /// The entity that was to take the relation.
    pub source: Entity,
    /// The entity the relation was to point at.
    pub target: Entity,
}

impl fmt::Display for RelationCycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let RelationCycle {
            relation,
            source,
            target,
        } = self;
        if source == target {
            write!(f, "entity {source}'s `{relation}` would point at itself")?;
        } else {
            write!(
                f,
                "entity {source}'s `{relation}` would point at entity {target}, which is below \
                 it (the `{relation}` of entity {target} leads up to entity {source})"
            )?;
        }
        write!(
            f,
            ", closing a cycle; `{relation}` despawns its sources with their target \
             (`on_target_despawn = despawn`), so it must form a tree"
        )
    }
}

impl std::error::Error for RelationCycle {}

/// The error of [`World::take`](crate::world::World::take). The world is
/// unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TakeError {
    /// The entity is not alive (despawned, or a stale handle).
    NoSuchEntity(Entity),
    /// The entity's components are not exactly the bundle's: taking it
    /// would lose those the bundle does not hold, and the bundle would have
    /// no value for those the entity lacks.
    Mismatch {
        /// The entity.
        entity: Entity,
        /// The schema's name.
        schema: &'static str,
        /// The components the entity has and the bundle does not hold, in
        /// bit order.
        not_in_bundle: Vec<&'static str>,
        /// The components the bundle holds and the entity lacks, in bit
        /// order.
        not_in_entity: Vec<&'static str>,
    },
}

impl TakeError {
    /// The entity that could not be taken.
    pub fn entity(&self) -> Entity {
        match self {
            TakeError::NoSuchEntity(entity) | TakeError::Mismatch { entity, .. } => *entity,
        }
    }
}

impl fmt::Display for TakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TakeError::NoSuchEntity(entity) => write!(
                f,
                "cannot take entity {entity}: it does not exist (it was despawned, or the \
                 handle is stale)"
            ),
            TakeError::Mismatch {
                entity,
                schema,
                not_in_bundle,
                not_in_entity,
            } => {
                write!(
                    f,
                    "cannot take entity {entity} of schema `{schema}` as this bundle: "
                )?;
                if !not_in_bundle.is_empty() {
                    f.write_str("the entity has ")?;
                    write_names(f, not_in_bundle)?;
                    f.write_str(", which the bundle does not hold")?;
                    if !not_in_entity.is_empty() {
                        f.write_str(", and ")?;
                    }
                }
                if !not_in_entity.is_empty() {
                    f.write_str("the bundle holds ")?;
                    write_names(f, not_in_entity)?;
                    f.write_str(", which the entity lacks")?;
                }
                f.write_str(
                    "; `take` moves every component of the entity out, so the bundle must \
                     hold exactly the entity's components. Nothing changed",
                )
            }
        }
    }
}

impl std::error::Error for TakeError {}

impl From<NoSuchEntity> for TakeError {
    fn from(NoSuchEntity(entity): NoSuchEntity) -> Self {
        TakeError::NoSuchEntity(entity)
    }
}

/// The error of [`World::exchange`](crate::world::World::exchange), which hands
/// back the bundle that was to be inserted
/// ([`ExchangeError::into_bundle`]). The world is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExchangeError<B> {
    /// The entity is not alive (despawned, or a stale handle).
    NoSuchEntity {
        /// The entity.
        entity: Entity,
        /// The bundle that was to be inserted.
        bundle: B,
    },
    /// The entity lacks components of the bundle to be removed: an exchange
    /// removes all of them or none.
    Missing {
        /// The entity.
        entity: Entity,
        /// The schema's name.
        schema: &'static str,
        /// The components to be removed that the entity lacks, in bit order.
        missing: Vec<&'static str>,
        /// The bundle that was to be inserted.
        bundle: B,
    },
    /// A relation in the bundle to insert would close a cycle in a relation
    /// declared `on_target_despawn = despawn`, judged on the world before
    /// the exchange.
    Cycle {
        /// The relation, its source (the entity) and its target.
        cycle: RelationCycle,
        /// The bundle that was to be inserted.
        bundle: B,
    },
}

impl<B> ExchangeError<B> {
    /// The entity whose components were to be exchanged.
    pub fn entity(&self) -> Entity {
        match self {
            ExchangeError::NoSuchEntity { entity, .. } | ExchangeError::Missing { entity, .. } => {
                *entity
            }
            ExchangeError::Cycle { cycle, .. } => cycle.source,
        }
    }

    /// The bundle that was to be inserted, back.
    pub fn into_bundle(self) -> B {
        match self {
            ExchangeError::NoSuchEntity { bundle, .. }
            | ExchangeError::Missing { bundle, .. }
            | ExchangeError::Cycle { bundle, .. } => bundle,
        }
    }
}

impl<B> fmt::Display for ExchangeError<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExchangeError::NoSuchEntity { entity, .. } => write!(
                f,
                "cannot exchange components of entity {entity}: it does not exist (it was \
                 despawned, or the handle is stale)"
            )?,
            ExchangeError::Missing {
                entity,
                schema,
                missing,
                ..
            } => {
                write!(
                    f,
                    "cannot exchange components of entity {entity} of schema `{schema}`: it \
                     lacks "
                )?;
                write_names(f, missing)?;
                f.write_str(
                    ", which the exchange was to remove; an exchange removes all of the \
                     components it names or none",
                )?;
            }
            ExchangeError::Cycle { cycle, .. } => {
                write!(
                    f,
                    "cannot exchange components of entity {}: {cycle}",
                    cycle.source
                )?;
            }
        }
        f.write_str(". Nothing changed; the bundle to insert is in the error")
    }
}

impl<B: fmt::Debug> std::error::Error for ExchangeError<B> {}

/// The buffers of [`EntityStore::despawn_batch`], kept from one call to
/// the next.
#[derive(Default)]
pub(crate) struct DespawnBatch {
    /// The place of each entity to go, as `table << 32 | row`.
    places: Vec<u64>,
    /// Each table's range of `places`.
    groups: Vec<(TableId, core::ops::Range<usize>)>,
    /// The entities despawned, in order.
    freed: Vec<Entity>,
    /// Per sparse set: the positions in `freed` of the entities it held.
    released: Vec<Vec<u32>>,
}

/// Calls `group` with each run of `places` (as `table << 32 | row`) of one
/// table, its rows rising, as the table and the run's range, the runs
/// ordered by table; `false`, calling it for none, if two runs share a
/// table (then the places must be sorted first).
fn runs_of_tables(places: &[u64], mut group: impl FnMut(TableId, core::ops::Range<usize>)) -> bool {
    let mut runs: Vec<(u32, core::ops::Range<usize>)> = Vec::new();
    let mut start = 0;
    for (i, pair) in places.windows(2).enumerate() {
        if pair[1] <= pair[0] || pair[1] >> 32 != pair[0] >> 32 {
            runs.push(((places[start] >> 32) as u32, start..i + 1));
            start = i + 1;
        }
    }
    if start < places.len() {
        runs.push(((places[start] >> 32) as u32, start..places.len()));
    }
    runs.sort_unstable_by_key(|(table, _)| *table);
    if runs.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return false;
    }
    for (table, rows) in runs {
        group(TableId(table), rows);
    }
    true
}
