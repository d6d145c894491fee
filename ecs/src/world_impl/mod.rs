//! [`World`]: the entities, tables and resources of one schema; and the
//! whole [`Schema`] (its [`Layout`] with the hooks and relations that need
//! the world), the [`DeferredWorld`] a hook receives and [`SendSchema`].
//! The three refer to each other (a world's methods run the schema's hooks,
//! which receive the world), so they share this file, and the ground of the
//! crate, which knows only `Layout`, never names any of them.

use crate::bundle::Bundle;
use crate::changes::{ChangeWindow, Tick};
use crate::commands::{Command, CommandQueue, Commands};
use crate::entity::{Entities, EntitiesExhausted, Entity, EntityLocation, NoSuchEntity};
use crate::entity_ref::{EntityMut, EntityRef};
use crate::event::{Event, Events};
use crate::layout::{Component, Layout, Resource, Tracked};
use crate::lend::{Lent, SplitBuffers, SplitWorld};
use crate::mask::{Mask, MaskBits};
use crate::query::{
    Query, QueryCache, QueryFilter, QueryReach, Reach, ReadOnlyQueryData, SchemaQuery,
};
use crate::relations::RelationVisitor;
use crate::retention::LogReads;
use crate::storage::{Bins, EntityIndex, SparseSets, Staged, Table, TableId, Tables};
use crate::structure::{DespawnBatch, EntityStore, ExchangeError, InsertError, Spawned, TakeError};
use core::fmt;
use std::sync::{PoisonError, RwLock};

mod diff;
mod hierarchy;
mod lifecycle;
mod locals;
mod owners;
#[cfg(feature = "serde")]
mod readable;
#[cfg(feature = "serde")]
mod save;
mod snapshot;

pub use diff::{ComponentDiff, WorldDiff};
pub use hierarchy::{Ancestors, Descendants};
pub(crate) use locals::LocalSlots;
pub use locals::LocalState;
pub(crate) use locals::Locals;
#[cfg(feature = "serde")]
pub use locals::SavedLocalState;
pub(crate) use owners::{ScheduleOwner, ScheduleOwners};
#[cfg(feature = "serde")]
pub use readable::Readable;
pub use snapshot::{ChecksumPart, ChecksumParts};

/// All entities and resources of schema `S`.
///
/// Entities with the same set of components (the same archetype) share a
/// table, one column per component; inserting or removing a component moves
/// the entity to the table of its new archetype.
///
/// ```
/// use schemecs::prelude::*;
///
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Debug, PartialEq, Default)] struct Frozen;
/// #[derive(Debug, PartialEq, Default)] struct Tick(u64);
///
/// #[derive(Schema)]
/// struct Physics { pos: Pos, vel: Vel, frozen: Frozen, #[ecs(resource)] tick: Tick }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
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
pub struct World<S: Layout> {
    /// The entities and their components; every structural change goes
    /// through it.
    store: EntityStore<S>,
    /// The tables matching each query's conditions, for every query made so
    /// far; behind a lock so that queries of a shared world keep it too.
    queries: RwLock<QueryCache<S>>,
    resources: S::Resources,
    /// The values of the systems' [`Local`](crate::system::Local)s, per schedule
    /// and system.
    locals: Locals,
    /// The entities of the last [`World::spawn_batch`] of a bundle with a
    /// lifecycle (which moves them as it goes): scratch, not state.
    spawned: Vec<Entity>,
    /// Which live schedule runs each schedule fingerprint here: not state
    /// (a copy starts without), only for refusing two schedules that would
    /// share their systems' state.
    owners: ScheduleOwners,
}

impl<S: Layout> World<S>
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

impl<S: Layout> Default for World<S>
where
    S::Resources: Default,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Schema> World<S> {
    /// Creates an entity with the components of `bundle` (a tuple). Many
    /// at once: [`World::spawn_batch`], or [`World::reserve`] before a loop
    /// of `spawn`s, so that the columns do not grow as they fill.
    ///
    /// # Panics
    ///
    /// If all 2³² − 1 entity indices are in use; see [`World::try_spawn`].
    #[inline]
    pub fn spawn<B: Bundle<S>>(&mut self, bundle: B) -> Entity {
        const { B::INSERT_CHECK };
        let spawned = if const { Self::has_lifecycle(B::BITS) } {
            self.spawn_lifecycle(bundle)
        } else {
            self.store.spawn(bundle)
        };
        match spawned {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        }
    }

    /// Creates an entity with the components of `bundle`, or fails (dropping
    /// the bundle) when no entity index is left.
    ///
    /// # Errors
    ///
    /// [`EntitiesExhausted`] if all 2³² − 1 entity indices are in use; then
    /// nothing changes.
    pub fn try_spawn<B: Bundle<S>>(&mut self, bundle: B) -> Result<Entity, EntitiesExhausted> {
        const { B::INSERT_CHECK };
        if const { Self::has_lifecycle(B::BITS) } {
            return self.spawn_lifecycle(bundle);
        }
        self.store.spawn(bundle)
    }

    /// Creates one entity per bundle, with a single table lookup and room
    /// reserved for the iterator's lower size bound. Every entity is spawned
    /// before this returns; the returned [`Spawned`] lists them in order
    /// (collect it to keep them), and costs nothing if dropped.
    ///
    /// ```
    /// use schemecs::prelude::*;
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
        const { B::INSERT_CHECK };
        if const { Self::has_lifecycle(B::BITS) } {
            return self.spawn_batch_lifecycle(bundles.into_iter());
        }
        self.store.spawn_batch(bundles.into_iter())
    }

    /// Makes room for `additional` more entities with the components of
    /// bundle `B`, so that that many `spawn`s of such bundles, one at a
    /// time, move no column and grow no list: the room is in the table of
    /// `B`'s archetype (made now if the world has none yet) and in the
    /// entity allocator. Reserving changes no entity, id or value; like any
    /// first spawn of `B`'s archetype, it may make that table, which a
    /// snapshot, clone or save carries.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// #[derive(Schema)] struct Game { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<Game>::new();
    /// world.reserve::<(Pos, Vel)>(1_000);
    /// for i in 0..1_000 {
    ///     world.spawn((Pos(i as f32), Vel(1.0)));
    /// }
    /// assert_eq!(world.len(), 1_000);
    /// ```
    pub fn reserve<B: Bundle<S>>(&mut self, additional: usize) {
        self.store.reserve::<B>(additional);
    }

    /// Adds the components of `bundle` to `entity`. A component it already has
    /// is overwritten in place (the old value is dropped); otherwise the entity
    /// moves to the table of its new archetype.
    ///
    /// # Errors
    ///
    /// Fails, dropping `bundle` and changing nothing, with
    /// [`InsertError::NoSuchEntity`] if `entity` is not alive or a relation
    /// in `bundle` names a target that is not, and with
    /// [`InsertError::Cycle`] if a relation in `bundle` declared
    /// `on_target_despawn = despawn` would close a cycle (see
    /// [`Relation`](crate::relation::Relation)).
    // Always inlined, as the migration it calls (see `EntityStore::insert`).
    #[inline(always)]
    pub fn insert<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) -> Result<(), InsertError> {
        const { B::INSERT_CHECK };
        if const { Self::has_lifecycle(B::BITS) } {
            return self.insert_lifecycle(entity, bundle);
        }
        self.store.insert(entity, bundle).map_err(InsertError::from)
    }

    /// Removes component `C` from `entity` and returns it: `Ok(None)` if the
    /// entity does not have it.
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive; then nothing changes.
    // Always inlined, as `remove_bundle`: LLVM left this wrapper out of line,
    // which kept the migration out of the caller's loop.
    #[inline(always)]
    pub fn remove<C: Component<S>>(&mut self, entity: Entity) -> Result<Option<C>, NoSuchEntity> {
        self.remove_bundle::<(C,)>(entity)
            .map(|taken| taken.map(|(value,)| value))
    }

    /// Removes every component of bundle `B` from `entity` and returns them,
    /// if the entity has all of them; if it lacks any, removes nothing and
    /// returns `Ok(None)`.
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive; then nothing changes.
    ///
    /// ```
    /// use schemecs::prelude::*;
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
    // Always inlined, as `insert`.
    #[inline(always)]
    pub fn remove_bundle<B: Bundle<S>>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<B>, NoSuchEntity> {
        const { B::CHECK };
        if const { Self::has_lifecycle(B::BITS) } {
            return self.remove_lifecycle(entity);
        }
        self.store.remove_bundle(entity)
    }

    /// Moves `entity` out of the world: returns its components as the bundle
    /// `B` and despawns it (its id is freed, as by [`World::despawn`]; a
    /// tracked component is logged as removed). Nothing is lost: this
    /// succeeds only when the entity's components are exactly `B`'s.
    ///
    /// # Errors
    ///
    /// [`TakeError::NoSuchEntity`] if `entity` is not alive, and
    /// [`TakeError::Mismatch`], naming the difference, if its components
    /// are not exactly `B`'s; then nothing changes.
    ///
    /// The bundle can then be spawned into another world of the same
    /// schema (or of another schema with those components):
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Body(u32);
    /// #[derive(Debug, PartialEq)] struct Transform(i32);
    /// #[derive(Debug, PartialEq)] struct Docked;
    /// #[derive(Schema)] struct Space { body: Body, transform: Transform, docked: Docked }
    ///
    /// #[derive(Bundle, Debug, PartialEq)]
    /// struct Ship { body: Body, transform: Transform }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let (mut here, mut there) = (World::<Space>::new(), World::<Space>::new());
    /// let ship = here.spawn(Ship { body: Body(7), transform: Transform(3) });
    ///
    /// let parts: Ship = here.take(ship)?;
    /// assert!(!here.is_alive(ship));
    /// let arrived = there.spawn(parts);
    /// assert_eq!(there.get::<Body>(arrived), Some(&Body(7)));
    ///
    /// // A docked ship has a component the bundle lacks: it stays.
    /// there.insert(arrived, (Docked,))?;
    /// let error = there.take::<Ship>(arrived).unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     format!(
    ///         "cannot take entity {arrived} of schema `Space` as this bundle: the entity has \
    ///          `Docked`, which the bundle does not hold; `take` moves every component of the \
    ///          entity out, so the bundle must hold exactly the entity's components. Nothing \
    ///          changed"
    ///     )
    /// );
    /// assert!(there.is_alive(arrived));
    /// # Ok(()) }
    /// ```
    ///
    /// In a schema with relations or hooks, taking runs them as
    /// [`World::despawn`] does: `on_remove` hooks, the relations unlinked,
    /// the sources pointing at the entity despawned or orphaned as their
    /// relation declares (its inverse lists come out holding the sources
    /// they had, as when they are removed).
    pub fn take<B: Bundle<S>>(&mut self, entity: Entity) -> Result<B, TakeError> {
        const { B::CHECK };
        if const { S::LIFECYCLE_BITS != 0 } {
            return self.take_lifecycle(entity);
        }
        self.store.take(entity)
    }

    /// Removes the components of bundle `R` from `entity` and inserts
    /// `bundle` in one step, returning the removed components: the entity
    /// moves at most once, straight to the table of its archetype less `R`
    /// plus `B`, where a [`World::remove_bundle`] then [`World::insert`]
    /// would move it twice (through a table of its own).
    ///
    /// What the entity has before and after is replaced, as
    /// [`World::insert`] overwrites a component the entity has: a component
    /// in both `R` and `B` (its old value is in the returned `R`, its new
    /// one in place), and one of `B` only that the entity has. Such a
    /// component, if tracked, is changed, never added and never logged as
    /// removed (`Changed<T>` sees it; `Added<T>` and `Removed<T>` do not);
    /// its `on_insert` hook runs, its `on_add` and `on_remove` hooks do not;
    /// a relation moves from its old target's list to its new target's (and
    /// keeps its place in the list if the target is the same). A component
    /// of `R` only is removed as by [`World::remove_bundle`] (logged as
    /// removed, `on_remove` run, relation unlinked); one of `B` only that
    /// the entity lacks is added as by [`World::insert`] (added, `on_add`
    /// then `on_insert` run), with what it requires. A requirement of `B`
    /// that `R` takes is made again, and is replaced like the rest.
    ///
    /// The exchange is one change, whatever the bundles hold. The entity
    /// moves once, requirements included (but where `R` takes its list
    /// while `B` points its relation at itself again, it moves once more,
    /// to get a new list). The `on_remove` hooks run first, while the
    /// values are still there, then the `on_add` hooks, then the
    /// `on_insert` hooks; the commands they record are applied after.
    ///
    /// # Errors
    ///
    /// [`ExchangeError::NoSuchEntity`] if the entity is not alive, or a
    /// relation in `bundle` names a target that is not (the error names the
    /// target); [`ExchangeError::Missing`] if the entity lacks any component
    /// of `R`; [`ExchangeError::Cycle`] if a relation in `bundle` would close
    /// a cycle in a relation declared `on_target_despawn = despawn` (judged
    /// on the world before the exchange). Then nothing changes, no hook
    /// runs, nothing is recorded and the error hands `bundle` back
    /// ([`ExchangeError::into_bundle`]).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Walking(u32);
    /// #[derive(Debug, PartialEq)] struct Flying(u32);
    /// #[derive(Schema)] struct S { pos: Pos, walking: Walking, flying: Flying }
    ///
    /// let mut world = World::<S>::new();
    /// let e = world.spawn((Pos(0), Walking(4)));
    /// let (Walking(speed),) = world.exchange::<(Walking,), _>(e, (Flying(9),)).unwrap();
    /// assert_eq!(speed, 4);
    /// assert_eq!(world.archetype(e), Some(SMask::POS | SMask::FLYING));
    ///
    /// // It walks no more: nothing changes, and the bundle comes back.
    /// let error = world.exchange::<(Walking,), _>(e, (Flying(1),)).unwrap_err();
    /// assert_eq!(error.into_bundle(), (Flying(1),));
    /// assert_eq!(world.get::<Flying>(e), Some(&Flying(9)));
    /// ```
    pub fn exchange<R: Bundle<S>, B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<R, ExchangeError<B>> {
        const { R::CHECK };
        const { B::INSERT_CHECK };
        if const { Self::has_lifecycle(R::BITS | B::BITS) } {
            return self.exchange_lifecycle(entity, bundle);
        }
        self.store.exchange(entity, bundle)
    }

    /// Applies the commands of `queue` in recording order, leaving it empty;
    /// each as the `World` operation of the same name, with a dead entity
    /// skipped (its values dropped).
    pub(crate) fn apply_commands(&mut self, queue: &mut CommandQueue<S>) {
        // The entities reserved by spawns become alive (with no components
        // yet); each spawn then inserts its bundle.
        self.store.flush();
        if const { S::LIFECYCLE_BITS != 0 } {
            return self.apply_commands_lifecycle(queue);
        }
        queue.replay(|command, values| match command {
            Command::Spawn(None, mask) => self.store.spawn_staged(mask, values),
            Command::Spawn(Some(entity), mask) => self.store.spawn_reserved(entity, mask, values),
            Command::Insert(entity, mask) => self.store.insert_staged(entity, mask, values),
            Command::Remove(entity, mask) => self.store.remove_staged(entity, mask),
            Command::Despawn(entity) => {
                let _ = self.store.despawn(entity);
            }
        });
    }

    /// [`World::apply_commands`] in a schema with a lifecycle: each command
    /// that touches one goes through it, and the commands its hooks record
    /// are applied right after it.
    #[inline(never)]
    fn apply_commands_lifecycle(&mut self, queue: &mut CommandQueue<S>) {
        let mut hooks = CommandQueue::default();
        queue.replay(|command, values| {
            match command {
                Command::Spawn(None, mask) if Self::has_lifecycle(mask.bits().to_u128()) => {
                    let entity = match self.store.spawn(()) {
                        Ok(entity) => entity,
                        Err(error) => panic!("{error}"),
                    };
                    self.insert_staged_lifecycle(entity, mask, values, &mut hooks);
                }
                Command::Spawn(None, mask) => self.store.spawn_staged(mask, values),
                Command::Spawn(Some(entity), mask) | Command::Insert(entity, mask)
                    if Self::has_lifecycle(mask.bits().to_u128()) =>
                {
                    self.insert_staged_lifecycle(entity, mask, values, &mut hooks);
                }
                Command::Spawn(Some(entity), mask) => {
                    self.store.spawn_reserved(entity, mask, values);
                }
                Command::Insert(entity, mask) => self.store.insert_staged(entity, mask, values),
                Command::Remove(entity, mask) if Self::has_lifecycle(mask.bits().to_u128()) => {
                    self.remove_staged_lifecycle(entity, mask, &mut hooks);
                }
                Command::Remove(entity, mask) => self.store.remove_staged(entity, mask),
                Command::Despawn(entity) => {
                    let _ = self.despawn_lifecycle(entity, &mut hooks);
                }
            }
            self.apply_hooks(&mut hooks);
        });
    }

    /// Destroys `entity`, dropping its components.
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive (a second despawn, or a
    /// stale handle); then nothing changes.
    pub fn despawn(&mut self, entity: Entity) -> Result<(), NoSuchEntity> {
        if const { S::LIFECYCLE_BITS != 0 } {
            let mut hooks = CommandQueue::default();
            let despawned = self.despawn_lifecycle(entity, &mut hooks);
            self.apply_hooks(&mut hooks);
            return despawned;
        }
        self.store.despawn(entity)
    }

    /// Despawns each live entity of `entities`, skipping the entities not
    /// alive (or listed before), in one pass per table and per sparse set.
    /// Returns how many it despawned.
    ///
    /// The entities end as [`World::despawn`] of each, in the order given,
    /// leaves them: the ids are freed in that order (so later spawns get the
    /// same ids), and the removals are logged in that order. What differs
    /// is deterministic: the rows left in a table, and the values left in a
    /// sparse set, land in an order of the batch's own (each table's rows
    /// are removed last first; the rows that end a table go at once), and
    /// the values let go of are dropped once every entity is gone. In a
    /// schema with hooks or relations, the entities are despawned one by
    /// one, exactly as `despawn` does.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i32);
    /// #[derive(Debug, PartialEq)] struct Spark(u8);
    /// #[derive(Schema)] struct S { pos: Pos, spark: Spark }
    ///
    /// let mut world = World::<S>::new();
    /// let sparks: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), Spark(1)))).collect();
    /// let rock = world.spawn((Pos(9),));
    /// // A stale handle and a repeat are skipped.
    /// assert_eq!(world.despawn_batch(&[sparks[0], sparks[2], sparks[0]]), 2);
    /// assert_eq!(world.len(), 3);
    /// assert!(!world.is_alive(sparks[2]) && world.is_alive(sparks[3]));
    /// assert_eq!(world.get::<Pos>(rock), Some(&Pos(9)));
    /// ```
    pub fn despawn_batch(&mut self, entities: &[Entity]) -> usize {
        self.despawn_batch_with(entities, &mut DespawnBatch::default())
    }

    /// [`World::despawn_batch`] with the memory of earlier batches.
    pub(crate) fn despawn_batch_with(
        &mut self,
        entities: &[Entity],
        batch: &mut DespawnBatch,
    ) -> usize {
        if const { S::LIFECYCLE_BITS != 0 } {
            return entities
                .iter()
                .filter(|&&entity| self.despawn(entity).is_ok())
                .count();
        }
        self.store.despawn_batch(entities, batch)
    }

    /// Despawns every entity. Handles to them become stale; tables and the
    /// resources stay. No `on_remove` hook runs (nothing is left for one to
    /// read or change), and with every entity gone no relation is left to
    /// keep.
    ///
    /// If a component's `Drop` panics, the world is already empty and every
    /// other value is still dropped.
    pub fn clear(&mut self) {
        self.store.clear();
    }
}

impl<S: Layout> World<S> {
    /// An empty world with the given resources (the `…Resources` struct
    /// generated for the schema, which also holds each event's queue and
    /// each state: give those `Default::default()`).
    ///
    /// ```
    /// use schemecs::prelude::*;
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
            store: EntityStore::default(),
            queries: RwLock::default(),
            resources,
            locals: Locals::default(),
            spawned: Vec::new(),
            owners: ScheduleOwners::default(),
        }
    }

    /// The world taken apart for the systems of one stage: every column and
    /// resource in a slot of its own, in vectors taken from `buffers` (give
    /// them back with [`SplitWorld::reclaim`]).
    pub(crate) fn split(&mut self, buffers: &mut SplitBuffers<S>) -> SplitWorld<'_, S> {
        let (entities, tables, sparse) = self.store.lend_with_sparse();
        let mut values = buffers.sparse();
        let mut indexes = buffers.sparse_index();
        if const { S::SPARSE_BITS != 0 } {
            for set in sparse.sets_mut() {
                let (set_values, index) = set.parts_mut();
                values.push(Lent::Free(set_values));
                indexes.push(Lent::Free(index));
            }
        }
        let resources = S::resource_slots(&mut self.resources);
        SplitWorld::new(entities, tables, resources, (values, indexes), buffers)
    }

    /// The sparse sets (for queries that reach sparse components).
    pub(crate) fn sparse_sets(&self) -> &SparseSets<S> {
        self.store.bins().sparse()
    }

    /// The entity slots, the tables and the sparse sets, for a query that
    /// reaches sparse components to borrow columns from.
    pub(crate) fn lend_with_sparse(&mut self) -> (&Entities, &mut [Table<S>], &mut SparseSets<S>) {
        self.store.lend_with_sparse()
    }

    /// The entity slots, where commands reserve the ids of what they spawn.
    pub(crate) fn entities(&self) -> &Entities {
        self.store.entities()
    }

    /// The tables, for bringing a query's matched tables up to date.
    pub(crate) fn tables(&self) -> &Tables<S> {
        self.store.tables()
    }

    /// The entity slots and the tables, for a query to borrow columns from.
    pub(crate) fn lend_tables(&mut self) -> (&Entities, &mut [Table<S>]) {
        self.store.lend()
    }

    /// The window of queries made outside systems: since the mark of
    /// [`World::clear_trackers`].
    pub(crate) fn outside_window(&self) -> ChangeWindow {
        self.store.changes().outside_window()
    }

    /// `entity`, for reading several of its components: its table and row
    /// are looked up once, here. `None` if it is not alive.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(1), Vel(2)));
    /// let e = world.entity(a).unwrap();
    /// assert_eq!((e.get::<Pos>(), e.get::<Vel>()), (Some(&Pos(1)), Some(&Vel(2))));
    /// assert!(e.has::<Vel>());
    /// assert_eq!(e.archetype(), SMask::POS | SMask::VEL);
    ///
    /// world.despawn(a).unwrap();
    /// assert!(world.entity(a).is_none());
    /// ```
    #[inline]
    pub fn entity(&self, entity: Entity) -> Option<EntityRef<'_, S>> {
        self.store.entity(entity)
    }

    /// `entity`, for reading and writing several of its components; `None`
    /// if it is not alive. See [`EntityMut`].
    #[inline]
    pub fn entity_mut(&mut self, entity: Entity) -> Option<EntityMut<'_, S>> {
        self.store.entity_mut(entity)
    }

    /// Component `C` of `entity`; `None` if the entity is not alive or lacks it.
    #[inline]
    pub fn get<C: Component<S>>(&self, entity: Entity) -> Option<&C> {
        const { crate::layout::whole_check::<S>(C::BIT) };
        self.store.get(entity)
    }

    /// Component `C` of `entity`, mutably; `None` if the entity is not alive or
    /// lacks it.
    #[inline]
    pub fn get_mut<C: Component<S>>(&mut self, entity: Entity) -> Option<&mut C> {
        const { crate::layout::kept_check::<S>(C::BIT) };
        const { crate::layout::whole_check::<S>(C::BIT) };
        self.store.get_mut(entity)
    }

    /// Component `C` of any entity, by id, for a loop that reaches many
    /// entities through their ids: see [`View`](crate::query::View). Each
    /// lookup is cheaper than [`World::get`]'s; making the view costs a pass
    /// over the tables.
    #[inline]
    pub fn view<C: Component<S>>(&self) -> crate::query::View<'_, S, C> {
        const { crate::layout::whole_check::<S>(C::BIT) };
        crate::query::View::new(&self.store)
    }

    /// Component `C` of any entity, by id, to read and write: see
    /// [`ViewMut`](crate::query::ViewMut).
    #[inline]
    pub fn view_mut<C: Component<S>>(&mut self) -> crate::query::ViewMut<'_, S, C> {
        const { crate::layout::kept_check::<S>(C::BIT) };
        const { crate::layout::whole_check::<S>(C::BIT) };
        crate::query::ViewMut::new(&mut self.store)
    }

    /// The `#[ecs(soa)]` component `C` of `entity`, field by field (`CRef`:
    /// a reference to each field, see [`Soa`](trait@crate::soa::Soa)); `None` if
    /// the entity is not alive or lacks it. A compile error for a component
    /// stored whole (use [`World::get`]).
    #[inline]
    pub fn get_soa<C: Component<S> + crate::storage::Soa>(
        &self,
        entity: Entity,
    ) -> Option<C::Ref<'_>> {
        self.store.entity(entity)?.get_soa::<C>()
    }

    /// The `#[ecs(soa)]` component `C` of `entity`, field by field and
    /// mutably (`CMut`: an exclusive reference to each field); `None` if
    /// the entity is not alive or lacks it.
    #[inline]
    pub fn get_soa_mut<C: Component<S> + crate::storage::Soa>(
        &mut self,
        entity: Entity,
    ) -> Option<C::Mut<'_>> {
        self.store.entity_mut(entity)?.into_soa_mut::<C>()
    }

    /// Whether `entity` is alive and has component `C`.
    #[inline]
    pub fn has<C: Component<S>>(&self, entity: Entity) -> bool {
        self.store.entity(entity).is_some_and(|e| e.has::<C>())
    }

    /// The archetype of `entity`, if it is alive.
    #[inline]
    pub fn archetype(&self, entity: Entity) -> Option<S::Mask> {
        self.store.archetype(entity)
    }

    /// Whether `entity` is alive.
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.store.entities().contains(entity)
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.store.entities().len()
    }

    /// Whether no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The live entities, table by table.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        let entities = self.store.entities();
        self.store.tables().iter().flat_map(move |table| {
            table
                .entities()
                .iter()
                .map(move |&index| entities.entity(index))
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

    /// Every entity that matches the read-only query `Q`; see [`Query`].
    ///
    /// `Q` is `&T`, `Option<&T>`, [`Entity`], [`Has<T>`](crate::query::Has) or a
    /// tuple of them. It borrows the world shared, so any number of queries
    /// may be alive at once, beside [`World::get`] and the other readers. A
    /// query that writes (`&mut T`) is [`World::query_mut`]'s; asking for one
    /// here fails to compile.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// fn report(world: &World<S>) -> (usize, i64) {
    ///     let movers = world.query_filtered::<&Vel, With<Pos>>();
    ///     let positions = world.query::<&Pos>();
    ///     (movers.count(), positions.iter().map(|pos| pos.0).sum())
    /// }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn((Pos(1), Vel(2)));
    /// world.spawn((Pos(5),));
    /// assert_eq!(report(&world), (1, 6));
    /// ```
    #[inline]
    pub fn query<Q: SchemaQuery<S> + ReadOnlyQueryData>(&self) -> Query<'_, Q, ()> {
        const { Q::CHECK };
        self.query_shared()
    }

    /// Every entity that matches the read-only query `Q` and filter `F`
    /// ([`With`](crate::query::With), [`Without`](crate::query::Without),
    /// [`Or`](crate::query::Or), or a tuple of them); see [`World::query`].
    ///
    /// A query and filter that can never match, such as `(&Pos,
    /// Without<Pos>)`, fail to compile.
    #[inline]
    pub fn query_filtered<Q, F>(&self) -> Query<'_, Q, F>
    where
        Q: SchemaQuery<S> + ReadOnlyQueryData,
        F: QueryFilter<S>,
    {
        const { Q::CHECK };
        const { QueryReach::<S, Q, F>::CHECK };
        self.query_shared()
    }

    /// Every entity that matches `Q`, which may write; see [`Query`].
    ///
    /// `Q` is `&T`, `&mut T`, `Option<…>`, [`Entity`], [`Has<T>`](crate::query::Has)
    /// or a tuple of them. A query that borrows a component mutably twice, or
    /// mutably and shared, such as `(&mut Pos, &Pos)`, fails to compile.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Vel(i64);
    /// #[derive(Schema)] struct S { pos: Pos, vel: Vel }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(1), Vel(2)));
    /// world.query_mut::<(&mut Pos, &Vel)>().for_each_mut(|(pos, vel)| pos.0 += vel.0);
    /// assert_eq!(world.get::<Pos>(a), Some(&Pos(3)));
    /// ```
    #[inline]
    pub fn query_mut<Q: SchemaQuery<S>>(&mut self) -> Query<'_, Q, ()> {
        const { Q::CHECK };
        self.query_exclusive()
    }

    /// Every entity that matches `Q`, which may write, and filter `F`; see
    /// [`World::query_mut`].
    #[inline]
    pub fn query_filtered_mut<Q: SchemaQuery<S>, F: QueryFilter<S>>(&mut self) -> Query<'_, Q, F> {
        const { Q::CHECK };
        const { QueryReach::<S, Q, F>::CHECK };
        self.query_exclusive()
    }

    fn query_shared<Q, F>(&self) -> Query<'_, Q, F>
    where
        Q: SchemaQuery<S> + ReadOnlyQueryData,
        F: QueryFilter<S>,
    {
        let conditions = const { QueryReach::<S, Q, F>::TABLE_CONDITIONS.as_slice() };
        let tables = self.store.tables();
        let build = |matched: &[TableId]| {
            let (entities, sparse) = (self.store.entities(), self.store.bins().sparse());
            let mut reach = Reach::default();
            let window = self.store.changes().outside_window();
            reach.find::<S, Q, F>(tables.as_slice(), (sparse, entities), matched, window);
            Query::shared(entities, tables.as_slice(), sparse, matched, reach.give())
        };
        // Warm: the tables matched so far are all there is; a shared lock
        // suffices, and readers on other threads do not wait for each other.
        {
            let queries = self.queries.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(matched) = queries.get(conditions) {
                if matched.is_current(tables) {
                    return build(matched.tables());
                }
            }
        }
        let mut queries = self.queries.write().unwrap_or_else(PoisonError::into_inner);
        build(queries.entry(conditions).update(tables, conditions))
    }

    fn query_exclusive<Q: SchemaQuery<S>, F: QueryFilter<S>>(&mut self) -> Query<'_, Q, F> {
        let conditions = const { QueryReach::<S, Q, F>::TABLE_CONDITIONS.as_slice() };
        let queries = self
            .queries
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let matched = queries
            .entry(conditions)
            .update(self.store.tables(), conditions);
        let window = self.store.changes().outside_window();
        let mut reach = Reach::default();
        let (tables, sparse) = (self.store.tables(), self.store.bins().sparse());
        let entities = self.store.entities();
        reach.find::<S, Q, F>(tables.as_slice(), (sparse, entities), matched, window);
        let (entities, tables, sparse) = self.store.lend_with_sparse();
        Query::exclusive(
            entities,
            tables,
            sparse,
            matched,
            reach.give(),
            window.this_run,
        )
    }

    /// The world's change tick: where changes made now (outside systems) are
    /// stamped. It advances once per system run, and at
    /// [`World::clear_trackers`]; see [`Changed`](crate::query::Changed).
    pub fn change_tick(&self) -> Tick {
        Tick(self.store.changes().tick)
    }

    /// Marks the point that queries made on the world itself (not in
    /// systems) measure [`Added`](crate::query::Added) and
    /// [`Changed`](crate::query::Changed) from, and [`World::removed`] too: after
    /// this call they report only what happens from now on.
    ///
    /// For what the world keeps, a mark counts as a schedule run: events
    /// and removal records older than the previous run or mark are dropped,
    /// so a world used without schedules does not keep them forever.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug)] struct Pos(i32);
    /// #[derive(Schema)] struct S { #[ecs(track)] pos: Pos }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(0),));
    /// assert_eq!(world.query_filtered::<Entity, Added<Pos>>().iter().count(), 1);
    /// world.clear_trackers();
    /// assert_eq!(world.query_filtered::<Entity, Added<Pos>>().iter().count(), 0);
    /// world.query_mut::<&mut Pos>().for_each_mut(|pos| pos.0 += 1);
    /// assert_eq!(world.query_filtered::<Entity, Changed<Pos>>().iter().next(), Some(a));
    /// ```
    pub fn clear_trackers(&mut self) {
        let changes = self.store.changes_mut();
        let mark = changes.tick;
        changes.marked = mark;
        // What comes after the mark starts at the next tick.
        changes.start_run(mark.wrapping_add(1));
        changes.tick = mark.wrapping_add(1);
        S::prune_events(&mut self.resources, &changes.retention());
        self.sweep_if_due();
    }

    /// Sends `event` from outside the systems: every reader system reads it
    /// in its next run.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// #[derive(Debug, PartialEq)] struct Hit(u32);
    /// #[derive(Schema)] struct S { pos: Pos, #[ecs(event)] hit: Hit }
    ///
    /// let mut world = World::<S>::new();
    /// world.send_event(Hit(7));
    /// assert_eq!(world.events::<Hit>().iter().collect::<Vec<_>>(), [&Hit(7)]);
    /// ```
    pub fn send_event<T: Event<S>>(&mut self, event: T) {
        let tick = self.store.changes().tick;
        T::queue_mut(&mut self.resources).send(tick, event);
    }

    /// The queue of event type `T`: the events sent in the last two schedule
    /// runs, and older ones a reader that has not run since still needs
    /// (see [`crate::retention`]; read them in order with an
    /// [`EventCursor`](crate::event::EventCursor)).
    pub fn events<T: Event<S>>(&self) -> &Events<T> {
        T::queue(&self.resources)
    }

    /// The entities that lost tracked component `T` (removed, or despawned
    /// with it) since the last [`World::clear_trackers`], oldest first, of
    /// those the world still keeps: a mark counts as a schedule run, and a
    /// record older than the run or mark before the last one is dropped
    /// (unless a schedule that has not run again since still needs it), so
    /// read them before two more runs come. A system reads them with
    /// [`Removed`](crate::change::Removed), which misses none.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug)] struct Pos(i32);
    /// #[derive(Schema)] struct S { #[ecs(track)] pos: Pos }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(0),));
    /// let b = world.spawn((Pos(0),));
    /// world.clear_trackers();
    /// world.despawn(b).unwrap();
    /// world.remove::<Pos>(a).unwrap();
    /// assert_eq!(world.removed::<Pos>().collect::<Vec<_>>(), [b, a]);
    /// ```
    pub fn removed<T: Tracked<S>>(&self) -> impl Iterator<Item = Entity> + '_ {
        let changes = self.store.changes();
        changes.removed(T::BIT, changes.outside_window())
    }

    /// How many removals of component `bit` within `window` were dropped
    /// unread (see [`crate::retention`]).
    pub(crate) fn removals_missed(&self, bit: u32, window: ChangeWindow) -> u64 {
        self.store.changes().removals_missed(bit, window)
    }

    /// The entities that lost component `bit` within `window`.
    pub(crate) fn removed_in(
        &self,
        bit: u32,
        window: ChangeWindow,
    ) -> impl Iterator<Item = Entity> + '_ {
        self.store.changes().removed(bit, window)
    }

    /// Moves the change tick `by` ticks ahead, as that many system runs
    /// would, without the sweeps they would trigger (the next schedule run
    /// or `clear_trackers` does them): for tests near the tick's limits.
    #[doc(hidden)]
    pub fn advance_change_tick_for_tests(&mut self, by: u32) {
        let changes = self.store.changes_mut();
        changes.tick = changes.tick.wrapping_add(by);
    }

    /// Starts a run of `systems` systems of the schedule `fingerprint`,
    /// which read the logs `reads`: drops the events and removal log
    /// entries no reader can need any more, and returns where the run's
    /// ticks start and where its previous run on this world started.
    pub(crate) fn begin_schedule_run(
        &mut self,
        fingerprint: u64,
        systems: u32,
        reads: LogReads,
    ) -> (u32, Option<u32>) {
        let changes = self.store.changes_mut();
        let start = changes.begin_run(fingerprint, systems, reads);
        let (base, previous) = (start.base, start.previous);
        S::prune_events(&mut self.resources, &changes.retention());
        self.sweep_if_due();
        (base, previous)
    }

    /// Records that system `index` of schedule `fingerprint` is skipped by
    /// its run condition at the turn whose window is `window`.
    /// `reads`: the logs it reads, which the world keeps for its next run
    /// (for a while: see [`crate::retention`]); `hint` speeds up finding
    /// the record (see `Changes::skip`).
    pub(crate) fn skip_system(
        &mut self,
        (fingerprint, index): (u64, usize),
        window: (ChangeWindow, LogReads),
        hint: &mut usize,
    ) {
        let changes = self.store.changes_mut();
        changes.skip((fingerprint, index as u32), window, hint);
    }

    /// The window a run of system `index` of schedule `fingerprint` reads,
    /// given its turn's `window`: from its last run if it was skipped since.
    pub(crate) fn resume_system(
        &mut self,
        (fingerprint, index): (u64, usize),
        window: ChangeWindow,
        hint: &mut usize,
    ) -> ChangeWindow {
        let changes = self.store.changes_mut();
        changes.resume((fingerprint, index as u32), window, hint)
    }

    /// Takes back the ids reserved for the spawns of `entities`, which were
    /// dropped with their commands, if no reservation came after them: no
    /// entity is left of those spawns, and the next ones get the ids they
    /// would have got. Whether it did.
    pub(crate) fn unreserve(&mut self, entities: &[Entity]) -> bool {
        entities.is_empty() || self.store.unreserve(entities)
    }

    /// Whether schedule `fingerprint` has run on the world (and not been
    /// forgotten since).
    pub(crate) fn has_run(&self, fingerprint: u64) -> bool {
        self.store.changes().has_run(fingerprint)
    }

    /// Forgets what this world keeps for schedule `fingerprint` (see
    /// [`Schedule::forget`](crate::schedule::Schedule::forget)). Whether it had run here.
    pub(crate) fn forget_schedule(&mut self, fingerprint: u64) -> bool {
        self.owners.release(fingerprint);
        self.locals.forget_schedule(fingerprint);
        self.store.changes_mut().forget_schedule(fingerprint)
    }

    /// Which live schedule runs each schedule fingerprint here.
    #[inline]
    pub(crate) fn schedule_owners_mut(&mut self) -> &mut ScheduleOwners {
        &mut self.owners
    }

    /// The values of the systems' locals.
    #[inline]
    pub(crate) fn locals_mut(&mut self) -> &mut Locals {
        &mut self.locals
    }

    /// Makes the reserved entities alive, a `Spawner`'s at the rows it
    /// pushed to table `id` (see `EntityStore::place_spawned`).
    pub(crate) fn place_spawned(
        &mut self,
        id: TableId,
        first_row: u32,
        spawned: &[Entity],
        tags: &mut Bins<S>,
    ) {
        self.store.place_spawned(id, first_row, spawned, tags);
    }

    /// Makes the reserved entities alive, then gives each of `spawned` (in
    /// order) the next staged values of the bits of `mask`, as applied
    /// commands do.
    pub(crate) fn place_staged_spawns(
        &mut self,
        mask: S::Mask,
        spawned: &[Entity],
        values: &mut Staged<S>,
    ) {
        self.store.place_staged_spawns(mask, spawned, values);
    }

    /// Settles the rows a `Migrator` moved (see `EntityStore::settle_moves`).
    pub(crate) fn settle_moves(
        &mut self,
        locations: &[(EntityIndex, EntityLocation)],
        bins: &mut Bins<S>,
        dropped_tags: (u32, u32),
    ) {
        self.store.settle_moves(locations, bins, dropped_tags);
    }

    /// Gives the rows an `UnnamedSpawner` pushed to table `id` their
    /// entities (see `EntityStore::place_unnamed`).
    pub(crate) fn place_unnamed(
        &mut self,
        id: TableId,
        first_row: u32,
        count: u32,
        tags: &mut Bins<S>,
    ) {
        self.store.place_unnamed(id, first_row, count, tags);
    }

    /// Spawns `count` entities of the staged values of `mask`'s bits.
    pub(crate) fn spawn_staged_many(&mut self, mask: S::Mask, count: u32, values: &mut Staged<S>) {
        self.store.spawn_staged_many(mask, count, values);
    }

    /// Logs that `entities` lost tracked component `bit`, at the change
    /// tick (in order).
    pub(crate) fn log_removals(&mut self, bit: u32, entities: &[Entity]) {
        let changes = self.store.changes_mut();
        for &entity in entities {
            changes.log_removed(bit, entity);
        }
    }

    /// Sets the tick changes are stamped with (the schedule, per system).
    #[inline]
    pub(crate) fn set_change_tick(&mut self, tick: u32) {
        self.store.changes_mut().tick = tick;
    }

    /// The window of the `index`-th system of a schedule run; see
    /// [`crate::change`].
    pub(crate) fn system_window(base: u32, previous: Option<u32>, index: usize) -> ChangeWindow {
        crate::changes::system_window(base, previous, index as u32)
    }

    /// Clamps every stored tick if the change tick moved far enough since
    /// the last time (see [`crate::change`]).
    fn sweep_if_due(&mut self) {
        if !self.store.changes().sweep_due() {
            return;
        }
        let now = self.store.changes().tick;
        self.store.clamp_ticks(now);
        S::clamp_event_ticks(&mut self.resources, now);
        self.store.changes_mut().sweep();
    }

    /// The world's tables: for each, its components and entity count.
    ///
    /// ```
    /// use schemecs::prelude::*;
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
                .store
                .tables()
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

impl<S: Layout> fmt::Debug for World<S> {
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

/// A world's complete list of component and resource types, fixed at compile
/// time. Implement it with `#[derive(Schema)]`; never by hand.
///
/// The derive reads a struct whose fields are the components (one bit each, in
/// field order) and, marked `#[ecs(resource)]`, the resources:
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::mask::Mask;
///
/// #[derive(Debug, PartialEq)] pub struct Pos(pub i64);
/// #[derive(Debug, PartialEq)] pub struct Vel(pub i64);
/// #[derive(Debug, PartialEq, Default)] pub struct Frozen;   // zero-sized: a tag
/// #[derive(Debug, PartialEq, Default)] pub struct Tick(pub u64);
///
/// #[derive(Schema)]
/// pub struct Physics {
///     pos: Pos,
///     vel: Vel,
///     frozen: Frozen,
///     #[ecs(resource)]
///     tick: Tick,
/// }
///
/// assert_eq!(Physics::NAME, "Physics");
/// assert_eq!(Physics::COMPONENT_NAMES, ["Pos", "Vel", "Frozen"]);
/// assert_eq!(PhysicsMask::DATA, PhysicsMask::POS | PhysicsMask::VEL);
/// ```
///
/// # The `#[ecs(..)]` keys
///
/// A field without a key is a component. These keys, in `#[ecs(...)]` on
/// a field (several in one attribute, or in several), say otherwise or
/// give a component more; the struct itself takes none. Each links to its
/// chapter of the [guide](crate::guide):
///
/// | Key | Meaning |
/// | --- | --- |
/// | `resource` | A resource: one value per world, not a component ([`Res`], [`ResMut`], [`World::resource`]). [schema](crate::guide::schema) |
/// | `event` | An event type, whose queue the world keeps beside its resources ([`EventWriter`], [`EventReader`]). [events](crate::guide::events_and_changes) |
/// | `state` | A state, such as a game's phase: kept as the resource [`State<T>`](crate::state::State), changed through [`NextState`](crate::state::NextState). [game loop](crate::guide::game_loop) |
/// | `track` | A component with change detection: [`Added<T>`], [`Changed<T>`], [`Removed<T>`]. [changes](crate::guide::events_and_changes) |
/// | `sparse` | A component kept in a sparse set keyed by entity index instead of a table column: inserting or removing it moves nothing else. [sparse](crate::guide::sparse) |
/// | `soa` | A component stored field by field, one array per field; its type derives [`Soa`](crate::soa::Soa) and queries read it as [`Fields`](crate::query::Fields). [soa](crate::guide::soa) |
/// | `relation(inverse = <field>)` | A component that points at another entity (a [`Relation`]); the world keeps the target's list of sources in the field named (an [`Inverse`]). [relations](crate::guide::relations) |
/// | `relation(.., on_target_despawn = despawn)` | Despawning a target despawns its sources too; `= remove` (the default) takes the relation off them. [relations](crate::guide::relations) |
/// | `requires(T, U = make_u)` | Spawning or inserting this component adds the components it requires that the entity lacks, by `Default` or the named function, transitively, in the same migration. [hooks](crate::guide::hooks) |
/// | `on_add = f` | Runs `f(&mut DeferredWorld<S>, Entity)` when the component is added to an entity that lacked it (see [`DeferredWorld`]). [hooks](crate::guide::hooks) |
/// | `on_insert = f` | Runs `f` when an insert writes the component, added or overwritten. [hooks](crate::guide::hooks) |
/// | `on_remove = f` | Runs `f` when the component is taken: removed, or its entity despawned (the value is still there to read). [hooks](crate::guide::hooks) |
///
/// A component that an insert or an exchange writes over is neither added
/// nor taken: only its `on_insert` runs (see [`World::exchange`]).
///
/// Keys that make no sense together are compile errors that say why:
/// `resource` with `event`; `state` with any of `resource`, `event`,
/// `track`, `sparse`, `soa`; `track`, `sparse` or `soa` on a resource or
/// an event; `requires`, `relation` or a hook on a resource, an event or
/// a state; `soa` with `sparse` or with `relation`; `sparse` on a tag (a
/// zero-sized component); one key twice; and an unknown key, whose message
/// lists the keys above.
///
/// [`Relation`]: crate::relation::Relation
/// [`Inverse`]: crate::relation::Inverse
/// [`World::exchange`]: crate::world::World::exchange
/// [`World::resource`]: crate::world::World::resource
/// [`Res`]: crate::system::Res
/// [`ResMut`]: crate::system::ResMut
/// [`EventWriter`]: crate::event::EventWriter
/// [`EventReader`]: crate::event::EventReader
/// [`Added<T>`]: crate::query::Added
/// [`Changed<T>`]: crate::query::Changed
/// [`Removed<T>`]: crate::change::Removed
///
/// A sparse component's bit stays in the mask, so `get`, `has`,
/// `archetype`, bundles, commands, queries, filters and change detection
/// (with `track`) treat it like any other component; no table's archetype
/// ever holds it. A filter on it does not separate two systems' queries
/// (they are lent whole table columns), and its set is lent whole: two
/// writers of it never run at once, whatever their filters.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i32);
/// #[derive(Debug, PartialEq)] struct Stun(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(sparse)] stun: Stun }
///
/// let mut world = World::<Game>::new();
/// let e = world.spawn((Pos(0), Stun(2)));
/// assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::STUN));
/// assert_eq!(world.describe().to_string().lines().last(), Some("  [Pos]: 1 entity"));
/// ```
///
/// Besides this impl and that of [`Layout`], the part of the schema that
/// storage and queries read (its masks, columns, names and bit sets), the
/// derive generates next to the struct: `PhysicsMask` (the archetype mask,
/// see [`Mask`](crate::mask::Mask)), `PhysicsResources` (the resources a
/// `World<Physics>` owns) and a hidden column enum.
pub trait Schema: Layout {
    /// Hands `visitor` the relation whose field has `bit`, or whose inverse
    /// has it; does nothing for any other bit.
    #[doc(hidden)]
    #[inline]
    fn visit_relation<V: RelationVisitor<Self>>(bit: u32, visitor: &mut V) {
        let _ = (bit, visitor);
    }

    /// Runs the `kind` hook of the component of `bit` on `entity`.
    #[doc(hidden)]
    #[inline]
    fn run_hook(kind: HookKind, bit: u32, world: &mut DeferredWorld<'_, Self>, entity: Entity) {
        let _ = (kind, bit, world, entity);
    }
}

/// A schema whose worlds a [`Schedule`](crate::schedule::Schedule) can run: every
/// component, resource, event and state of it can be sent to another
/// thread and shared between threads (`Send + Sync`), which running systems
/// in parallel needs. Every such schema implements it, with or without the
/// `parallel` feature, so code written for one builds with the other; name
/// it as the bound of code generic over schemas that builds or runs
/// schedules.
///
/// A schema with a type that is not `Send` or not `Sync` (an `Rc`, a
/// `Cell`) does not implement it; the compiler names that type where the
/// bound is required.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::schedule::SendSchema;
///
/// fn run_twice<S: SendSchema>(schedule: &mut Schedule<S>, world: &mut World<S>) {
///     schedule.run(world);
///     schedule.run(world);
/// }
///
/// struct Pos(i32);
/// #[derive(Schema)] struct Game { pos: Pos }
///
/// let mut world = World::<Game>::new();
/// let e = world.spawn((Pos(0),));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(|mut q: Query<&mut Pos>| q.for_each_mut(|p| p.0 += 1));
/// run_twice(&mut schedule, &mut world);
/// assert_eq!(world.get::<Pos>(e).unwrap().0, 2);
/// ```
//
// The two bounds are supertraits (associated type bounds) rather than a
// where-clause so that code bounded by `SendSchema` may rely on them: a
// trait's where-clauses on its associated types are not implied where the
// trait is named, its supertraits are.
pub trait SendSchema:
    Schema + Layout<Column: Send + Sync> + for<'a> Layout<ResourceSlots<'a>: Send>
{
}

impl<S> SendSchema for S
where
    S: Schema,
    S::Column: Send + Sync,
    for<'a> S::ResourceSlots<'a>: Send,
{
}

/// Which change a hook runs on.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    /// The entity did not have the component and now has it.
    Add,
    /// The component was written: added, or overwritten by an insert or
    /// by an exchange that keeps it.
    Insert,
    /// The component is about to be taken: removed (an exchange that gives
    /// it back does not remove it), or the entity despawned.
    Remove,
}

/// What a hook sees: the world, to read, and commands, to change it. The
/// commands a hook records are applied once the structural change that ran
/// it is complete (with every hook it ran), before anything else happens;
/// hooks run in the order the changes are made, which is program order, so
/// their effects are the same on any number of threads.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::world::DeferredWorld;
/// #[derive(Debug, PartialEq)] struct Collider(u32);
/// #[derive(Debug, Default)] struct Registry(Vec<Entity>);
/// #[derive(Debug, PartialEq)] struct Registered;
///
/// fn register(world: &mut DeferredWorld<Game>, entity: Entity) {
///     // A hook reads freely and records what it changes.
///     assert!(world.get::<Collider>(entity).is_some());
///     world.commands().insert(entity, (Registered,));
/// }
///
/// #[derive(Schema)]
/// struct Game {
///     #[ecs(on_add = register)]
///     collider: Collider,
///     registered: Registered,
/// }
///
/// let mut world = World::<Game>::new();
/// let e = world.spawn((Collider(3),));
/// assert!(world.has::<Registered>(e));
/// ```
pub struct DeferredWorld<'w, S: Schema> {
    world: &'w World<S>,
    commands: Commands<'w, S>,
}

impl<'w, S: Schema> DeferredWorld<'w, S> {
    pub(crate) fn new(world: &'w World<S>, commands: Commands<'w, S>) -> Self {
        DeferredWorld { world, commands }
    }

    /// The world, as the change that ran the hook left it (for `on_remove`,
    /// the component is still there).
    pub fn world(&self) -> &'w World<S> {
        self.world
    }

    /// Records changes, applied after the hook; see [`DeferredWorld`].
    pub fn commands(&mut self) -> &mut Commands<'w, S> {
        &mut self.commands
    }

    /// Component `C` of `entity`, as [`World::get`].
    pub fn get<C: Component<S>>(&self, entity: Entity) -> Option<&'w C> {
        self.world.get(entity)
    }

    /// `entity`, as [`World::entity`].
    pub fn entity(&self, entity: Entity) -> Option<EntityRef<'w, S>> {
        self.world.entity(entity)
    }

    /// Resource `R`, as [`World::resource`].
    pub fn resource<R: Resource<S>>(&self) -> &'w R {
        self.world.resource()
    }
}
