//! Exact copies of a world (`Clone`, `clone_from`) and its checksum.
//!
//! A copy keeps everything that decides what the world does next: the entity
//! slots with their generations, the free list in its order and the pending
//! reservations (so the next `spawn` returns the same [`Entity`] on both), the
//! tables under the same ids with their rows in the same order (so queries
//! iterate alike), the tag values, the resources, the values of the systems'
//! [`Local`](crate::system::Local)s, and the caches (migration
//! edges, matched tables), which are copied rather than rebuilt so that a
//! restored world is as warm as its original.
//!
//! [`Entity`]: crate::entity::Entity

use super::World;
use crate::component_bounds::{ChecksumSchema, CloneSchema};
use crate::layout::Layout;
use crate::mask::{Mask, MaskBits};
use crate::stable_hash::{StableHash, StableHasher};
use std::sync::{PoisonError, RwLock};

/// An exact copy: same entities, generations, free-slot order, tables, row
/// order and resources. Exists when every component and resource is `Clone`;
/// when one is not, `world.clone()` is an error that names it.
///
/// `clone_from` reuses the target's allocations (every column, entity list
/// and slot vector is refilled with `Vec::clone_from`), so a ring of
/// snapshots of a world whose shape settles allocates nothing.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Clone, Debug, PartialEq)] struct Pos(f32);
/// #[derive(Clone, Default)] struct Frame(u64);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] frame: Frame }
///
/// let mut world = World::<Game>::new();
/// let doomed = world.spawn((Pos(1.0),));
/// world.spawn((Pos(2.0),));
/// world.despawn(doomed).unwrap();
///
/// let mut snapshot = world.clone();
/// assert_eq!(snapshot.spawn((Pos(3.0),)), world.spawn((Pos(3.0),)));
///
/// // Roll back: the old snapshot takes the world's state, in place.
/// snapshot.clone_from(&world);
/// assert!(snapshot.iter().eq(world.iter()));
/// ```
impl<S: Layout> Clone for World<S>
where
    S: CloneSchema<S>,
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        let queries = self.queries.read().unwrap_or_else(PoisonError::into_inner);
        let store = self.store.clone();
        // The copy's tables are a history of their own (see
        // `Tables::layout`); its cache is about them.
        let mut queries = queries.clone();
        queries.relabel(self.store.tables().layout(), store.tables().layout());
        World {
            store,
            queries: RwLock::new(queries),
            resources: S::clone_resources(&self.resources),
            locals: self.locals.clone(),
            spawned: Vec::new(),
            // A copy is run by whichever schedule runs it.
            owners: Default::default(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.store.clone_from(&source.store);
        let queries = source
            .queries
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let cache = self
            .queries
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        cache.clone_from(&queries);
        cache.relabel(source.store.tables().layout(), self.store.tables().layout());
        S::clone_resources_from(&mut self.resources, &source.resources);
        self.locals.clone_from(&source.locals);
        // A restored world may be run by a new schedule built as the one
        // that ran it (a rollback's): what ran it before is past.
        self.owners.clear();
    }
}

/// `clone` and `clone_from` as inherent methods too, so that calling them on
/// a world that is not `Clone` is an error that names the component or
/// resource lacking `Clone`. (Called as methods, the trait's would fail
/// early, on the bound of the hidden column type, and the compiler would
/// name only that.)
impl<S: Layout> World<S> {
    /// An exact copy: the same as [`Clone::clone`] (see the `Clone` impl).
    #[allow(
        clippy::should_implement_trait,
        reason = "it is `Clone::clone`, for the message"
    )]
    #[inline]
    pub fn clone(&self) -> Self
    where
        Self: Clone,
    {
        Clone::clone(self)
    }

    /// Makes this world an exact copy of `source`, keeping its allocations:
    /// the same as [`Clone::clone_from`] (see the `Clone` impl).
    #[inline]
    pub fn clone_from(&mut self, source: &Self)
    where
        Self: Clone,
    {
        Clone::clone_from(self, source)
    }

    /// A 128-bit digest of the whole world, for desync detection (the `u128`
    /// a GGRS session takes with each saved frame): equal worlds give equal
    /// values in every run, process, thread count and platform; a change to
    /// any component value, entity, slot or resource changes it (with
    /// probability 1 − 2⁻¹²⁸). Covers exactly what a copy keeps, except the
    /// caches.
    ///
    /// It is XXH3-128 (see [`StableHasher`]) of these bytes, each integer
    /// little-endian, each length a `u64`, each value as its [`StableHash`]
    /// writes it:
    ///
    /// 1. the entity slots: their number, then per slot the generation of
    ///    the entity living there, or 0 (`u32` each); then the free list:
    ///    its length, then from its head each slot and the generation its
    ///    next occupant gets (`u32` each; a dead slot outside it is
    ///    retired); then the numbers of pending reservations taken from the
    ///    free list and past its end (`u32` each);
    /// 2. the number of tables, then per table, in the order they were
    ///    made: its archetype's mask (`u128`), its number of rows, each row's
    ///    entity index (`u32`; so where every live entity is), and its
    ///    columns in component order, each its length then its values (a
    ///    tracked component's column then its added and changed ticks, the
    ///    same way);
    /// 3. per tag, the number of entities that have it;
    /// 4. per sparse component, the number of its owners, their indices
    ///    (`u32`) and its values as a column, in stored order;
    /// 5. the resources and event queues, in field order (an event queue:
    ///    the number of its first event, its length and its (tick, event)
    ///    pairs, then, if a reader's hold on it ended (see
    ///    [`crate::retention`]), the record of what such readers missed);
    /// 6. where the schema has tracked components or events, the change
    ///    state: the world's ticks, the number of runs and marks, each
    ///    schedule's last run (where it started, its number, its number of
    ///    systems and the logs they read), the removals kept for `Removed`
    ///    (per tracked component: the number of its first removal, its
    ///    length and its (entity, tick) pairs, then what readers missed, as
    ///    for an event queue), and, if any system
    ///    is skipped by its run condition since it last ran, their number
    ///    and per system its schedule's fingerprint (`u64`), its place
    ///    (`u32`), where its next run reads from (an `Option<u32>`: `0u64`,
    ///    or `1u64` and the tick), the logs it reads (two `u128` masks) and
    ///    the run it was first skipped in (`u64`).
    /// 7. if a schedule with a [`Local`](crate::system::Local) ran on the world, the
    ///    systems' locals: per schedule its fingerprint and per system each
    ///    value's digest (the XXH3-128 of its own `StableHash` bytes).
    ///
    /// Exists when every component and resource is [`StableHash`]
    /// (`#[derive(schemecs::checksum::StableHash)]`).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::checksum::StableHash;
    ///
    /// #[derive(Clone, StableHash)] struct Pos(f32);
    /// #[derive(Schema)] struct Game { pos: Pos }
    ///
    /// let mut world = World::<Game>::new();
    /// let e = world.spawn((Pos(1.0),));
    /// let before = world.checksum();
    /// assert_eq!(world.clone().checksum(), before);
    /// world.get_mut::<Pos>(e).unwrap().0 += f32::EPSILON;
    /// assert_ne!(world.checksum(), before);
    /// ```
    pub fn checksum(&self) -> u128
    where
        S: ChecksumSchema,
    {
        let mut hasher = StableHasher::new();
        self.store.entities().stable_hash(&mut hasher);
        let tables = self.store.tables();
        hasher.write_word(tables.len() as u64);
        for table in tables.iter() {
            table.mask().bits().to_u128().stable_hash(&mut hasher);
            table.entities().stable_hash(&mut hasher);
            for column in table.columns() {
                S::hash_column(column, &mut hasher);
            }
        }
        for bag in self.store.bins().tags() {
            use crate::storage::Column;
            hasher.write_word(bag.len() as u64);
        }
        // The sparse sets in their dense order, which a copy keeps: their
        // owners, then their values (with ticks, as a column).
        for set in self.store.bins().sparse().sets() {
            set.owners().stable_hash(&mut hasher);
            S::hash_column(set.values(), &mut hasher);
        }
        S::hash_resources(&self.resources, &mut hasher);
        // The change state matters only where something reads it: tracked
        // components and events.
        if uses_change_state::<S>() {
            self.store.changes().stable_hash(&mut hasher);
        }
        // The systems' locals, if a schedule with any ran on this world.
        if !self.locals.is_empty() {
            self.locals.stable_hash(&mut hasher);
        }
        hasher.finish()
    }
}

/// Whether schema `S` has tracked components or events, whose readers depend
/// on the world's change state.
pub(crate) fn uses_change_state<S: Layout>() -> bool {
    S::TRACKED_BITS != 0 || !S::EVENT_NAMES.is_empty()
}
