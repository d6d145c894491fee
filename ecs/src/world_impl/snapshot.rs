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

impl<S: Layout> World<S> {
    /// The world's [`checksum`](World::checksum) cut into parts, one digest
    /// (XXH3-128) per part: the entities and the tables they are in, each
    /// component's values, each resource, event queue and state, the change
    /// state and the systems' [`Local`](crate::system::Local)s. Two worlds
    /// of one schema have equal checksums exactly when they have equal
    /// parts (barring a collision of the hash), and
    /// [`ChecksumParts::differing`] names the parts that differ: two peers
    /// that disagree can compare a few hundred bytes rather than their
    /// worlds. It costs about what [`World::checksum`] does (it hashes the
    /// same bytes, into one hasher per part).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::checksum::{ChecksumPart, StableHash};
    ///
    /// #[derive(Clone, StableHash)] struct Pos(f32);
    /// #[derive(Clone, StableHash)] struct Vel(f32);
    /// #[derive(Clone, Default, StableHash)] struct Frame(u64);
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, vel: Vel, #[ecs(resource)] frame: Frame }
    ///
    /// let mut world = World::<Game>::new();
    /// let e = world.spawn((Pos(1.0), Vel(2.0)));
    /// let copy = world.clone();
    /// world.get_mut::<Vel>(e).unwrap().0 = 2.5;
    /// world.resource_mut::<Frame>().0 += 1;
    ///
    /// let differing = world.checksum_parts().differing(&copy.checksum_parts());
    /// assert_eq!(
    ///     differing,
    ///     [ChecksumPart::OfComponent("Vel"), ChecksumPart::OfResource("Frame")]
    /// );
    /// assert_eq!(differing[0].to_string(), "component `Vel`");
    /// ```
    pub fn checksum_parts(&self) -> ChecksumParts
    where
        S: ChecksumSchema,
    {
        let mut parts = Vec::with_capacity(3 + S::COMPONENT_NAMES.len() + S::RESOURCE_NAMES.len());
        // The entities, the tables' archetypes and rows, the tag bags:
        // where everything is.
        let mut hasher = StableHasher::new();
        self.store.entities().stable_hash(&mut hasher);
        let tables = self.store.tables();
        hasher.write_word(tables.len() as u64);
        for table in tables.iter() {
            table.mask().bits().to_u128().stable_hash(&mut hasher);
            table.entities().stable_hash(&mut hasher);
        }
        for bag in self.store.bins().tags() {
            use crate::storage::Column;
            hasher.write_word(bag.len() as u64);
        }
        parts.push((ChecksumPart::Entities, hasher.finish()));
        // Each component: its column in each table that has one (with the
        // table's index), or its sparse set's owners and values; each tag,
        // the entities that have it.
        let mut components: Vec<StableHasher> = S::COMPONENT_NAMES
            .iter()
            .map(|_| StableHasher::new())
            .collect();
        for (index, table) in tables.iter().enumerate() {
            for column in table.columns() {
                use crate::storage::Column;
                let hasher = &mut components[column.bit() as usize];
                hasher.write_word(index as u64);
                S::hash_column(column, hasher);
            }
            // A tag has no column: its part says which entities have it.
            for bit in table.mask().iter_bits() {
                if S::DATA_BITS & (1 << bit) == 0 {
                    let hasher = &mut components[bit as usize];
                    hasher.write_word(index as u64);
                    table.entities().stable_hash(hasher);
                }
            }
        }
        for set in self.store.bins().sparse().sets() {
            use crate::storage::Column;
            let hasher = &mut components[set.values().bit() as usize];
            set.owners().stable_hash(hasher);
            S::hash_column(set.values(), hasher);
        }
        let names = S::COMPONENT_NAMES.iter();
        parts.extend(
            names
                .zip(components)
                .map(|(name, hasher)| (ChecksumPart::OfComponent(name), hasher.finish())),
        );
        let mut resources: Vec<StableHasher> = S::RESOURCE_NAMES
            .iter()
            .map(|_| StableHasher::new())
            .collect();
        S::hash_each_resource(&self.resources, &mut resources);
        let names = S::RESOURCE_NAMES.iter();
        parts.extend(
            names
                .zip(resources)
                .map(|(name, hasher)| (ChecksumPart::OfResource(name), hasher.finish())),
        );
        let mut hasher = StableHasher::new();
        if uses_change_state::<S>() {
            self.store.changes().stable_hash(&mut hasher);
        }
        parts.push((ChecksumPart::Changes, hasher.finish()));
        let mut hasher = StableHasher::new();
        if !self.locals.is_empty() {
            self.locals.stable_hash(&mut hasher);
        }
        parts.push((ChecksumPart::Locals, hasher.finish()));
        ChecksumParts { parts }
    }
}

/// One part of a world's checksum (see [`World::checksum_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChecksumPart {
    /// The entities (slots, generations, free list, reservations), which
    /// table each is in and at which row, and the tags' values.
    Entities,
    /// The values of one component, by its type's name in the schema.
    OfComponent(&'static str),
    /// One resource, event queue (`Events<T>`) or state (`State<T>`), by
    /// its name in the schema.
    OfResource(&'static str),
    /// The change state: the world's tick, which run of each schedule saw
    /// what (tracked components and events read it).
    Changes,
    /// The values of the systems' [`Local`](crate::system::Local)s.
    Locals,
}

impl core::fmt::Display for ChecksumPart {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ChecksumPart::Entities => f.write_str("the entities and their tables"),
            ChecksumPart::OfComponent(name) => write!(f, "component `{name}`"),
            ChecksumPart::OfResource(name) => write!(f, "resource `{name}`"),
            ChecksumPart::Changes => f.write_str("the change state"),
            ChecksumPart::Locals => f.write_str("the systems' locals"),
        }
    }
}

/// A world's checksum by part ([`World::checksum_parts`]): one 128-bit
/// digest per [`ChecksumPart`], in a fixed order (the entities, the
/// components and the resources in schema order, the change state, the
/// locals), the same for every world of the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksumParts {
    parts: Vec<(ChecksumPart, u128)>,
}

impl ChecksumParts {
    /// Each part and its digest, in order.
    pub fn iter(&self) -> impl Iterator<Item = (ChecksumPart, u128)> + '_ {
        self.parts.iter().copied()
    }

    /// The digest of `part`, if the schema has it.
    pub fn get(&self, part: ChecksumPart) -> Option<u128> {
        self.iter()
            .find_map(|(each, digest)| (each == part).then_some(digest))
    }

    /// The parts whose digests differ from `other`'s, in order: empty
    /// exactly when the two worlds' checksums are equal. Both must come
    /// from worlds of one schema; a part only one of them has counts as
    /// differing.
    pub fn differing(&self, other: &ChecksumParts) -> Vec<ChecksumPart> {
        let mut differing: Vec<ChecksumPart> = self
            .iter()
            .filter(|&(part, digest)| other.get(part) != Some(digest))
            .map(|(part, _)| part)
            .collect();
        for (part, _) in other.iter() {
            if self.get(part).is_none() {
                differing.push(part);
            }
        }
        differing
    }
}

/// Whether schema `S` has tracked components or events, whose readers depend
/// on the world's change state.
pub(crate) fn uses_change_state<S: Layout>() -> bool {
    S::TRACKED_BITS != 0 || !S::EVENT_NAMES.is_empty()
}
