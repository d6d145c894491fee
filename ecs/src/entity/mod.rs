//! Entities: generational ids.
//!
//! An [`Entity`] is an index and a generation. When an entity is despawned
//! its index is reused under the next generation, so an old id is *stale*:
//! every operation on it is an error ([`NoSuchEntity`]) that changes
//! nothing, never an access to the entity that took its place.

// Here too: the allocator that maps ids to rows (`Entities`).

use crate::stable_hash::{StableHash, StableHasher};
use crate::storage::{EntityIndex, TableId, TableRow};
use core::fmt;
use core::num::NonZeroU32;
use core::sync::atomic::{AtomicU64, Ordering};

#[cfg(feature = "serde")]
mod save;
#[cfg(feature = "serde")]
pub(crate) use save::{EntitiesSeed, SavedEntities};

/// A handle to an entity of a [`World`](crate::world::World).
///
/// An entity is an `index` (a slot, reused after the entity is despawned) and a
/// `generation` (bumped each time the slot is freed), so a handle kept past its
/// entity's despawn is *stale*: every operation on it fails with
/// [`NoSuchEntity`], even after the slot holds a new entity.
/// The generation is non-zero, so `Option<Entity>` is as small as `Entity`.
///
/// ```
/// use schemecs::entity::Entity;
/// assert_eq!(size_of::<Option<Entity>>(), 8);
/// ```
///
/// With the feature `serde`, an entity is `Serialize` and `Deserialize` as
/// the `u64` of [`Entity::to_bits`] (bits with a zero generation are an
/// error), so components that refer to other entities can derive both; a
/// world saved and loaded whole keeps every such reference meaning what it
/// did, stale ones included. The `Serialize` impl has an example.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    index: u32,
    generation: NonZeroU32,
}

impl Entity {
    /// The entity's slot; unique among live entities, reused after despawn.
    #[inline]
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many times the slot had been freed before this entity took it, plus one.
    #[inline]
    pub fn generation(self) -> NonZeroU32 {
        self.generation
    }

    /// The handle as one integer, for storing outside the world: the index
    /// in the low 32 bits, the generation in the high 32 (so never below
    /// 2³²). [`Entity::from_bits`] reverses it; it is also what a checksum
    /// and a save (feature `serde`) hold. A fixed layout: it will not change.
    ///
    /// ```
    /// use schemecs::{entity::Entity, world::World};
    /// # #[derive(schemecs::schema::Schema)] struct Game { pos: Pos }
    /// # struct Pos;
    /// let e = World::<Game>::new().spawn(());
    /// assert_eq!(e.to_bits(), (u64::from(e.generation().get()) << 32) | u64::from(e.index()));
    /// assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
    /// ```
    #[inline]
    pub fn to_bits(self) -> u64 {
        (u64::from(self.generation.get()) << 32) | u64::from(self.index)
    }

    /// The handle of [`Entity::to_bits`], or `None` for bits no handle has
    /// (a zero generation).
    #[inline]
    pub fn from_bits(bits: u64) -> Option<Entity> {
        Some(Entity {
            index: bits as u32,
            generation: NonZeroU32::new((bits >> 32) as u32)?,
        })
    }
}

/// Written `index v generation`: `7v2` is slot 7, second occupant.
impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// In a checksum, the 8 little-endian bytes of [`Entity::to_bits`].
impl StableHash for Entity {
    const __FIXED_SIZE: Option<usize> = Some(size_of::<Entity>());

    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hasher.write_array(self.to_bits().to_le_bytes());
    }

    #[inline]
    fn __write_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_bits().to_le_bytes());
    }
}

/// The error of an operation on an entity that is not alive: despawned, or a
/// stale handle to a slot that has since been reused. The operation changed
/// nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NoSuchEntity(pub Entity);

impl fmt::Display for NoSuchEntity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "entity {} does not exist (it was despawned, or the handle is stale)",
            self.0
        )
    }
}

impl std::error::Error for NoSuchEntity {}

/// The error of [`World::try_spawn`](crate::world::World::try_spawn) when every one
/// of the 2³² − 1 entity slots is live or retired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EntitiesExhausted;

impl fmt::Display for EntitiesExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no entity index is left: every slot is live or retired")
    }
}

impl std::error::Error for EntitiesExhausted {}

/// Where an entity's components are: a table and a row in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EntityLocation {
    pub(crate) table: TableId,
    pub(crate) row: TableRow,
}

/// One slot of [`Entities`]: 12 bytes (the generation's zero niche tells the
/// states apart, as a unit test checks).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    /// An entity lives here: its generation, and where its components are.
    Alive {
        generation: NonZeroU32,
        location: EntityLocation,
    },
    /// No entity lives here. `reuse` is the generation the slot's next
    /// occupant gets while the slot waits in the free list (`next_free` is the
    /// next slot of the list, [`NO_SLOT`] at its end), and `None` once the
    /// slot is retired: its generations are spent and it is never reused.
    Dead {
        reuse: Option<NonZeroU32>,
        next_free: u32,
    },
}

impl Slot {
    /// Where the entity of `generation` is, if it lives here. A dead slot's
    /// handles all fail: no handle has a generation the slot is waiting for,
    /// since generations are handed out only by [`Entities::alloc`].
    #[inline]
    fn location(&self, generation: NonZeroU32) -> Option<EntityLocation> {
        match *self {
            Slot::Alive {
                generation: live,
                location,
            } if live == generation => Some(location),
            _ => None,
        }
    }
}

/// The end of the free list.
const NO_SLOT: u32 = u32::MAX;

/// The entity allocator and the entity → location map.
///
/// ```text
/// slots:  [ 0: gen 1, live at (T2, r0) ][ 1: dead, next gen 3, next free - ][ 2: gen 1, live at (T1, r4) ]
/// free:   1                 next spawn takes slot 1 as entity 1v3
/// ```
///
/// A slot's generation is bumped when its entity is despawned, so every handle
/// to the old occupant is stale at once, before the slot is reused. A slot
/// whose generation would overflow is retired instead: it never enters the free
/// list again, so a generation never wraps onto a live entity.
///
/// The free list runs through the dead slots themselves (last-in first-out),
/// so freed entities cost no memory beyond their slots.
///
/// Entities can also be *reserved* through a shared borrow (by commands that
/// must know the id of what they spawn): a reservation hands out the entity
/// the next allocation would, walking the free list without changing it.
/// Reserved entities are not alive until [`Entities::flush`] makes them so;
/// every allocation and free flushes first, so the walk always sees the free
/// list as it was when the reservations began.
#[derive(Debug)]
pub(crate) struct Entities {
    slots: Vec<Slot>,
    /// The most recently freed slot, or [`NO_SLOT`].
    free: u32,
    /// Number of slots in the free list.
    free_len: usize,
    /// Number of live entities.
    live: usize,
    /// The entities reserved and not flushed yet: a [`Reserved`] in one
    /// word, so that a reservation is one compare-and-swap.
    reserved: AtomicU64,
}

/// The reservations since the last flush: `count` entities, the first slots
/// of the free list (as many as it holds) and then new slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reserved {
    count: u32,
    /// The next free-list slot to hand out ([`NO_SLOT`] at the list's end);
    /// meaningful once `count` is non-zero.
    next: u32,
}

impl Reserved {
    /// No reservations.
    const NONE: u64 = Reserved {
        count: 0,
        next: NO_SLOT,
    }
    .word();

    #[inline]
    const fn word(self) -> u64 {
        ((self.count as u64) << 32) | self.next as u64
    }

    #[inline]
    const fn from_word(word: u64) -> Reserved {
        Reserved {
            count: (word >> 32) as u32,
            next: word as u32,
        }
    }
}

impl Clone for Entities {
    fn clone(&self) -> Self {
        Entities {
            slots: self.slots.clone(),
            free: self.free,
            free_len: self.free_len,
            live: self.live,
            reserved: AtomicU64::new(self.reserved.load(Ordering::Relaxed)),
        }
    }

    /// Keeps the target's slot vector: a ring of snapshots allocates nothing.
    fn clone_from(&mut self, source: &Self) {
        self.slots.clone_from(&source.slots);
        self.free = source.free;
        self.free_len = source.free_len;
        self.live = source.live;
        *self.reserved.get_mut() = source.reserved.load(Ordering::Relaxed);
    }
}

/// Every slot as it is, the free list and the pending reservations: all that
/// decides which entities exist and which the next spawns get, written as a
/// save holds it. Each slot writes the generation of the entity living there
/// (a `u32`, never 0) or 0 if none; then the free list, from its head, writes
/// each slot and the generation its next occupant gets; then the numbers of
/// reservations taken from the free list and past the end. A dead slot
/// outside the free list is retired. Where a live entity is is not written:
/// the tables' row lists, which a world's checksum covers, say it.
impl StableHash for Entities {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hasher.write_word(self.slots.len() as u64);
        hasher.write_fixed(&self.slots, 4, |slot, out| {
            let generation = match *slot {
                Slot::Alive { generation, .. } => generation.get(),
                Slot::Dead { .. } => 0,
            };
            out.copy_from_slice(&generation.to_le_bytes());
        });
        hasher.write_word(self.free_len as u64);
        let mut at = self.free;
        while at != NO_SLOT {
            let (generation, next) = self.listed(at);
            let mut listed = [0; 8];
            listed[..4].copy_from_slice(&at.to_le_bytes());
            listed[4..].copy_from_slice(&generation.get().to_le_bytes());
            hasher.write_array(listed);
            at = next;
        }
        let reserved = Reserved::from_word(self.reserved.load(Ordering::Relaxed));
        let (from_list, fresh) = self.split(reserved.count);
        hasher.write_array(from_list.to_le_bytes());
        hasher.write_array(fresh.to_le_bytes());
    }
}

impl Default for Entities {
    fn default() -> Self {
        Entities::new()
    }
}

impl From<Entity> for EntityIndex {
    #[inline]
    fn from(entity: Entity) -> Self {
        EntityIndex(entity.index)
    }
}

/// What names a live entity's slot: an [`Entity`] or an [`EntityIndex`].
pub(crate) trait SlotName: Copy {
    /// The slot's index.
    fn slot(self) -> usize;
    /// Records that the live entity of `slot` now sits at `location`.
    fn relocate(self, slot: &mut Slot, location: EntityLocation);
}

impl SlotName for Entity {
    #[inline]
    fn slot(self) -> usize {
        self.index as usize
    }

    /// Writes the whole slot: the handle carries the generation, so the old
    /// slot need not be read first.
    #[inline]
    fn relocate(self, slot: &mut Slot, location: EntityLocation) {
        debug_assert!(slot.location(self.generation).is_some());
        *slot = Slot::Alive {
            generation: self.generation,
            location,
        };
    }
}

impl SlotName for EntityIndex {
    #[inline]
    fn slot(self) -> usize {
        self.0 as usize
    }

    #[inline]
    fn relocate(self, slot: &mut Slot, location: EntityLocation) {
        match slot {
            Slot::Alive { location: at, .. } => *at = location,
            Slot::Dead { .. } => unreachable!("only a live entity has a location"),
        }
    }
}

/// The entity slots borrowed for one migration, which looks its entity up
/// once and then records two locations (the entity's and that of the
/// entity swapped into the row it left). A slice, unlike the `Vec` behind
/// it, keeps its pointer and length in registers across the stores to the
/// tables in between, which the compiler cannot tell apart from the `Vec`.
pub(crate) struct SlotsMut<'a>(&'a mut [Slot]);

impl SlotsMut<'_> {
    /// The location of `entity`, if it is alive.
    #[inline(always)]
    pub(crate) fn location(&self, entity: Entity) -> Option<EntityLocation> {
        self.0
            .get(entity.index as usize)?
            .location(entity.generation)
    }

    /// Records that the live `entity` now sits at `location`.
    #[inline(always)]
    pub(crate) fn set_location(&mut self, entity: impl SlotName, location: EntityLocation) {
        entity.relocate(&mut self.0[entity.slot()], location);
    }
}

/// The entity slots, shared: for a loop of lookups
/// ([`View`](crate::query::View)), which keeps the slice's pointer and length
/// itself rather than reaching them through the `Vec` at each lookup.
#[derive(Clone, Copy)]
pub(crate) struct Slots<'a>(&'a [Slot]);

impl Slots<'_> {
    /// The location of `entity`, if it is alive.
    #[inline(always)]
    pub(crate) fn location(&self, entity: Entity) -> Option<EntityLocation> {
        self.0
            .get(entity.index as usize)?
            .location(entity.generation)
    }
}

/// Slot indices run from 0 to `MAX_INDEX`; `u32::MAX` is never handed out (it
/// is [`NO_SLOT`]), so the slot count always fits in a `u32`.
const MAX_INDEX: u32 = u32::MAX - 1;

/// The index of a new slot when `slot_count` slots exist.
#[inline]
fn next_fresh_index(slot_count: usize) -> Result<u32, EntitiesExhausted> {
    u32::try_from(slot_count)
        .ok()
        .filter(|&index| index <= MAX_INDEX)
        .ok_or(EntitiesExhausted)
}

impl Entities {
    /// No slots at all.
    pub(crate) const fn new() -> Entities {
        Entities {
            slots: Vec::new(),
            free: NO_SLOT,
            free_len: 0,
            live: 0,
            reserved: AtomicU64::new(Reserved::NONE),
        }
    }

    /// The entity the next allocation after the earlier reservations will
    /// return, reserved: [`Entities::flush`] makes it alive. The same
    /// sequence of reservations and allocations gives the same entities,
    /// whatever thread reserves.
    pub(crate) fn reserve_entity(&self) -> Result<Entity, EntitiesExhausted> {
        // Nothing else is published through the word (the slots do not
        // change while it is shared): the exchange only has to be atomic.
        let mut word = self.reserved.load(Ordering::Relaxed);
        loop {
            let reserved = Reserved::from_word(word);
            let next = if reserved.count == 0 {
                self.free
            } else {
                reserved.next
            };
            let (entity, next) = if next != NO_SLOT {
                let (generation, next_free) = self.listed(next);
                (
                    Entity {
                        index: next,
                        generation,
                    },
                    next_free,
                )
            } else {
                let (_, fresh) = self.split(reserved.count);
                let index = next_fresh_index(self.slots.len() + fresh as usize)?;
                (
                    Entity {
                        index,
                        generation: NonZeroU32::MIN,
                    },
                    NO_SLOT,
                )
            };
            // At most `MAX_INDEX + 1` entities can be reserved at once (the
            // free list and the fresh indices): the count cannot overflow.
            let after = Reserved {
                count: reserved.count + 1,
                next,
            };
            match self.reserved.compare_exchange_weak(
                word,
                after.word(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(entity),
                Err(current) => word = current,
            }
        }
    }

    /// How `count` reservations divide: the first slots of the free list
    /// (as many as it holds), then new slots.
    #[inline]
    fn split(&self, count: u32) -> (u32, u32) {
        // The free list holds at most `MAX_INDEX + 1` slots.
        let from_list = count.min(self.free_len as u32);
        (from_list, count - from_list)
    }

    /// Whether `entity` is reserved and not made alive yet: the next flush
    /// makes it alive. Walks the reserved part of the free list.
    pub(crate) fn is_reserved(&self, entity: Entity) -> bool {
        let reserved = Reserved::from_word(self.reserved.load(Ordering::Relaxed));
        if reserved.count == 0 {
            return false;
        }
        let (from_list, fresh) = self.split(reserved.count);
        let index = entity.index as usize;
        if index >= self.slots.len() {
            return entity.generation == NonZeroU32::MIN
                && index - self.slots.len() < fresh as usize;
        }
        let mut next = self.free;
        for _ in 0..from_list {
            let (generation, next_free) = self.listed(next);
            if next == entity.index {
                return generation == entity.generation;
            }
            next = next_free;
        }
        false
    }

    /// The entity that reservation `i` (from 0, of those since the last
    /// flush) hands out; `i` below the reservations' count.
    fn reserved_at(&self, i: u32) -> Entity {
        let (from_list, _) = self.split(i + 1);
        if i < from_list {
            let mut index = self.free;
            for _ in 0..i {
                index = self.listed(index).1;
            }
            Entity {
                index,
                generation: self.listed(index).0,
            }
        } else {
            Entity {
                index: self.slots.len() as u32 + (i - from_list),
                generation: NonZeroU32::MIN,
            }
        }
    }

    /// Takes back the reservations of `entities` (in the order they were
    /// reserved) if they are the last ones made, as if they had never been:
    /// the spawns they were for were dropped. Whether it did; nothing
    /// changes otherwise.
    pub(crate) fn unreserve(&mut self, entities: &[Entity]) -> bool {
        let reserved = Reserved::from_word(*self.reserved.get_mut());
        let Some(kept) = reserved.count.checked_sub(entities.len() as u32) else {
            return false;
        };
        let last = (kept..reserved.count).map(|i| self.reserved_at(i));
        if !last.eq(entities.iter().copied()) {
            return false;
        }
        let next = if kept == 0 {
            NO_SLOT
        } else {
            let (from_list, _) = self.split(kept + 1);
            // The free-list slot reservation `kept` would take, if any.
            if kept < from_list {
                self.reserved_at(kept).index
            } else {
                NO_SLOT
            }
        };
        let after = if kept == 0 {
            Reserved::NONE
        } else {
            Reserved { count: kept, next }.word()
        };
        *self.reserved.get_mut() = after;
        true
    }

    /// Whether entities were reserved since the last flush.
    #[inline]
    pub(crate) fn has_reserved(&mut self) -> bool {
        Reserved::from_word(*self.reserved.get_mut()).count != 0
    }

    /// Makes every reserved entity alive, in reservation order, each at the
    /// location `place` gives it.
    pub(crate) fn flush(&mut self, mut place: impl FnMut(Entity) -> EntityLocation) {
        let reserved =
            Reserved::from_word(core::mem::replace(self.reserved.get_mut(), Reserved::NONE));
        let (from_list, fresh) = self.split(reserved.count);
        for _ in 0..from_list {
            let (index, generation) = self.unlist_head();
            let location = place(Entity { index, generation });
            self.slots[index as usize] = Slot::Alive {
                generation,
                location,
            };
        }
        for _ in 0..fresh {
            let entity = Entity {
                index: self.slots.len() as u32,
                generation: NonZeroU32::MIN,
            };
            let location = place(entity);
            self.slots.push(Slot::Alive {
                generation: entity.generation,
                location,
            });
        }
        self.live += reserved.count as usize;
    }

    /// Whether `count` more entities can be allocated.
    pub(crate) fn can_alloc(&self, count: usize) -> bool {
        let fresh = (MAX_INDEX as usize + 1).saturating_sub(self.slots.len());
        self.free_len + fresh >= count
    }

    /// Number of live entities.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// The generation the next occupant of listed slot `index` gets, and the
    /// next slot of the free list.
    #[inline]
    fn listed(&self, index: u32) -> (NonZeroU32, u32) {
        match self.slots[index as usize] {
            Slot::Dead {
                reuse: Some(generation),
                next_free,
            } => (generation, next_free),
            _ => unreachable!("the free list holds only dead slots that are not retired"),
        }
    }

    /// Takes the first slot off the free list (which must not be empty):
    /// its index and the generation its next occupant gets. The caller makes
    /// the slot alive.
    #[inline]
    fn unlist_head(&mut self) -> (u32, NonZeroU32) {
        let index = self.free;
        let (generation, next_free) = self.listed(index);
        self.free = next_free;
        self.free_len -= 1;
        (index, generation)
    }

    /// Makes room for `additional` new slots.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.slots.reserve(additional.saturating_sub(self.free_len));
    }

    /// A new live entity, at `location`.
    #[inline]
    pub(crate) fn alloc(&mut self, location: EntityLocation) -> Result<Entity, EntitiesExhausted> {
        let (index, generation) = if self.free != NO_SLOT {
            let (index, generation) = self.unlist_head();
            self.slots[index as usize] = Slot::Alive {
                generation,
                location,
            };
            (index, generation)
        } else {
            let index = next_fresh_index(self.slots.len())?;
            self.slots.push(Slot::Alive {
                generation: NonZeroU32::MIN,
                location,
            });
            (index, NonZeroU32::MIN)
        };
        self.live += 1;
        Ok(Entity { index, generation })
    }

    /// `count` new entities at once, in fresh slots (never in freed ones),
    /// for rows `first_row..first_row + count` of `table`: returns the first
    /// slot index, the others following it. `None`, changing nothing, if
    /// freed slots are waiting to be reused (they go first) or the indices
    /// would run out.
    pub(crate) fn alloc_fresh_run(
        &mut self,
        table: TableId,
        first_row: u32,
        count: u32,
    ) -> Option<u32> {
        if self.free_len != 0 || count == 0 {
            return None;
        }
        let first = next_fresh_index(self.slots.len()).ok()?;
        first
            .checked_add(count - 1)
            .filter(|&last| last <= MAX_INDEX)?;
        let end_row = first_row.checked_add(count)?;
        self.slots
            .extend((first_row..end_row).map(|row| Slot::Alive {
                generation: NonZeroU32::MIN,
                location: EntityLocation {
                    table,
                    row: TableRow(row),
                },
            }));
        self.live += count as usize;
        Some(first)
    }

    /// Undoes the last `count` entities of [`Entities::alloc_fresh_run`]
    /// (its slots must be the last and none of those entities handed out):
    /// the slots are gone, as if never allocated.
    pub(crate) fn unalloc_fresh_run(&mut self, count: u32) {
        let count = count as usize;
        debug_assert!(self.slots[self.slots.len() - count..]
            .iter()
            .all(|slot| slot.location(NonZeroU32::MIN).is_some()));
        self.slots.truncate(self.slots.len() - count);
        self.live -= count;
    }

    /// The location of `entity`, if it is alive.
    #[inline]
    pub(crate) fn location(&self, entity: Entity) -> Option<EntityLocation> {
        self.slots
            .get(entity.index as usize)?
            .location(entity.generation)
    }

    /// Whether `entity` is alive.
    #[inline]
    pub(crate) fn contains(&self, entity: Entity) -> bool {
        self.location(entity).is_some()
    }

    /// Where the entity of slot `index` is, if one is alive there.
    #[inline]
    pub(crate) fn location_at(&self, index: EntityIndex) -> Option<EntityLocation> {
        match self.slots.get(index.0 as usize) {
            Some(&Slot::Alive { location, .. }) => Some(location),
            _ => None,
        }
    }

    /// Whether slot `index` holds no live entity.
    #[inline]
    pub(crate) fn is_free(&self, index: EntityIndex) -> bool {
        !matches!(self.slots.get(index.0 as usize), Some(Slot::Alive { .. }))
    }

    /// Records that the live `entity` now sits at `location`.
    #[inline]
    pub(crate) fn set_location(&mut self, entity: impl SlotName, location: EntityLocation) {
        entity.relocate(&mut self.slots[entity.slot()], location);
    }

    /// The slots alone, for a loop of lookups; see [`Slots`].
    #[inline]
    pub(crate) fn slots(&self) -> Slots<'_> {
        Slots(&self.slots)
    }

    /// The slots alone, for one migration; see [`SlotsMut`].
    #[inline(always)]
    pub(crate) fn slots_mut(&mut self) -> SlotsMut<'_> {
        SlotsMut(&mut self.slots)
    }

    /// The live entity of slot `index`, with its generation.
    #[inline]
    pub(crate) fn entity(&self, index: EntityIndex) -> Entity {
        match self.slots[index.0 as usize] {
            Slot::Alive { generation, .. } => Entity {
                index: index.0,
                generation,
            },
            Slot::Dead { .. } => unreachable!("a table row's entity is alive"),
        }
    }

    /// Kills `entity`, returning where it was; `None` (and no change) if it was
    /// not alive.
    pub(crate) fn free(&mut self, entity: Entity) -> Option<EntityLocation> {
        let slot = self.slots.get_mut(entity.index as usize)?;
        let location = slot.location(entity.generation)?;
        self.live -= 1;
        // A slot whose generation space is spent is retired: never freed again.
        let reuse = entity.generation.checked_add(1);
        *slot = Slot::Dead {
            reuse,
            next_free: self.free,
        };
        if reuse.is_some() {
            self.free = entity.index;
            self.free_len += 1;
        }
        Some(location)
    }

    #[cfg(test)]
    fn set_generation(&mut self, index: u32, new: NonZeroU32) {
        if let Slot::Alive { generation, .. } = &mut self.slots[index as usize] {
            *generation = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reservations taken back from the end are as if never made: the next
    /// ones hand out the same ids, from the free list and fresh alike; a
    /// list that is not the last reserved is refused.
    #[test]
    fn unreserving_the_last_reservations_is_as_if_they_were_never_made() {
        let mut entities = Entities::new();
        let alive: Vec<Entity> = (0..3).map(|_| entities.alloc(at(0)).unwrap()).collect();
        entities.free(alive[1]);
        entities.free(alive[0]);
        let reserve = |entities: &Entities, n| -> Vec<Entity> {
            (0..n).map(|_| entities.reserve_entity().unwrap()).collect()
        };
        let first = reserve(&entities, 4);
        // Two from the free list (slots 0 and 1, newer generations), two fresh.
        assert_eq!(
            first.iter().map(|e| e.index).collect::<Vec<_>>(),
            [0, 1, 3, 4]
        );
        assert!(!entities.unreserve(&first[1..3]), "not the last ones");
        assert!(!entities.unreserve(&first[2..3]), "not the last ones");
        for cut in [3, 1, 0] {
            assert!(entities.unreserve(&first[cut..]));
            assert!(!entities.is_reserved(first[cut]));
            assert_eq!(reserve(&entities, 4 - cut), first[cut..]);
        }
        assert!(entities.unreserve(&first));
        assert!(!entities.has_reserved());
        entities.flush(|_| at(0));
        assert_eq!(entities.len(), 1, "nothing reserved came alive");
        assert_eq!(reserve(&entities, 4), first);
    }

    #[test]
    fn a_fresh_run_is_consecutive_slots_at_consecutive_rows_and_can_be_undone() {
        let mut entities = Entities::new();
        let before = entities.alloc(at(0)).unwrap();
        let first = entities.alloc_fresh_run(TableId(3), 5, 4).unwrap();
        assert_eq!(first, 1);
        assert_eq!(entities.len(), 5);
        for k in 0..4 {
            let e = entities.entity(EntityIndex(first + k));
            assert_eq!(e.generation, NonZeroU32::MIN);
            assert_eq!(
                entities.location(e),
                Some(EntityLocation {
                    table: TableId(3),
                    row: TableRow(5 + k)
                })
            );
        }
        // Undo the last three: the next entity takes the first undone slot.
        entities.unalloc_fresh_run(3);
        assert_eq!(entities.len(), 2);
        assert!(entities.contains(entities.entity(EntityIndex(first))));
        assert_eq!(entities.alloc(at(9)).unwrap().index, 2);
        assert!(entities.contains(before));
    }

    #[test]
    fn a_fresh_run_waits_for_freed_slots_and_refuses_to_run_out() {
        let mut entities = Entities::new();
        let e = entities.alloc(at(0)).unwrap();
        entities.free(e).unwrap();
        assert_eq!(entities.alloc_fresh_run(TableId(1), 0, 2), None);
        assert_eq!(entities.len(), 0);
        entities.alloc(at(0)).unwrap();
        assert_eq!(entities.alloc_fresh_run(TableId(1), 0, 0), None);
        assert_eq!(entities.alloc_fresh_run(TableId(1), u32::MAX, 2), None);
        assert_eq!(entities.alloc_fresh_run(TableId(1), 0, u32::MAX), None);
        assert_eq!(entities.len(), 1);
        assert_eq!(entities.alloc_fresh_run(TableId(1), 0, 2), Some(1));
    }

    fn at(row: u32) -> EntityLocation {
        EntityLocation {
            table: TableId(0),
            row: TableRow(row),
        }
    }

    #[test]
    fn a_clone_has_the_same_live_entities_free_list_and_reservations() {
        let mut original = Entities::default();
        let all: Vec<Entity> = (0..4).map(|row| original.alloc(at(row)).unwrap()).collect();
        original.free(all[1]).unwrap();
        original.free(all[2]).unwrap();
        let reserved = original.reserve_entity().unwrap();
        let mut copy = original.clone();
        assert_eq!(copy.len(), original.len());
        for &e in &all {
            assert_eq!(copy.location(e), original.location(e));
        }
        assert!(copy.has_reserved() && original.has_reserved());
        for entities in [&mut original, &mut copy] {
            entities.flush(|e| {
                assert_eq!(e, reserved);
                at(7)
            });
        }
        assert_eq!(copy.location(reserved), Some(at(7)));
        assert_eq!(copy.alloc(at(8)), original.alloc(at(8)));
        assert_eq!(copy.alloc(at(9)), original.alloc(at(9)));
        assert_eq!(copy.len(), original.len());
    }

    #[test]
    fn a_flush_makes_reservations_alive_and_uses_up_the_freed_slots_they_took() {
        let mut entities = Entities::default();
        assert!(!entities.has_reserved());
        let a = entities.alloc(at(0)).unwrap();
        entities.free(a).unwrap();
        let reused = entities.reserve_entity().unwrap();
        let fresh = entities.reserve_entity().unwrap();
        assert_eq!(reused.index(), a.index());
        assert_eq!(fresh.index(), 1);
        assert!(entities.has_reserved());
        let mut row = 0;
        entities.flush(|_| {
            row += 1;
            at(row)
        });
        assert!(!entities.has_reserved());
        assert_eq!(entities.location(reused), Some(at(1)));
        assert_eq!(entities.location(fresh), Some(at(2)));
        assert_eq!(entities.len(), 2);
        // No freed slot is left waiting, so a fresh run may be allocated.
        assert_eq!(entities.alloc_fresh_run(TableId(1), 0, 2), Some(2));
    }

    #[test]
    fn reservations_from_many_threads_hand_out_each_entity_once() {
        // Freed slots first, then fresh ones: four threads reserving at
        // once through a shared borrow get 4,000 distinct entities, exactly
        // those that as many reservations from one thread would get.
        let mut entities = Entities::default();
        let all: Vec<Entity> = (0..1_000)
            .map(|row| entities.alloc(at(row)).unwrap())
            .collect();
        for &e in all.iter().step_by(2) {
            entities.free(e).unwrap();
        }
        let alone = entities.clone();
        let mut expected: Vec<Entity> = (0..4_000)
            .map(|_| alone.reserve_entity().unwrap())
            .collect();
        let mut got: Vec<Entity> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..1_000)
                            .map(|_| entities.reserve_entity().unwrap())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .flat_map(|thread| thread.join().unwrap())
                .collect()
        });
        let key = |e: &Entity| (e.index(), e.generation().get());
        got.sort_by_key(key);
        expected.sort_by_key(key);
        assert_eq!(got, expected);
        entities.flush(|_| at(0));
        assert_eq!(entities.len(), 500 + 4_000);
    }

    #[test]
    fn freed_index_is_reused_with_a_new_generation() {
        let mut entities = Entities::default();
        let a = entities.alloc(at(0)).unwrap();
        assert_eq!(entities.free(a), Some(at(0)));
        let b = entities.alloc(at(1)).unwrap();
        assert_eq!(b.index(), a.index());
        assert_eq!(b.generation().get(), a.generation().get() + 1);
        assert_eq!(entities.location(a), None);
        assert_eq!(entities.location(b), Some(at(1)));
    }

    #[test]
    fn free_slots_are_reused_last_in_first_out() {
        let mut entities = Entities::default();
        let all: Vec<Entity> = (0..4).map(|row| entities.alloc(at(row)).unwrap()).collect();
        for &e in &all[..3] {
            entities.free(e).unwrap();
        }
        for expected in [2, 1, 0] {
            let e = entities.alloc(at(9)).unwrap();
            assert_eq!((e.index(), e.generation().get()), (expected, 2));
        }
        assert_eq!(
            entities.alloc(at(9)).unwrap().index(),
            4,
            "free list used up"
        );
        assert_eq!(entities.len(), 5);
    }

    #[test]
    fn a_forged_handle_to_a_free_slot_is_not_alive() {
        let mut entities = Entities::default();
        let a = entities.alloc(at(0)).unwrap();
        entities.free(a).unwrap();
        // The generation the slot's next occupant will get: no handle has it yet.
        let next = Entity::from_bits((2 << 32) | u64::from(a.index())).unwrap();
        assert_eq!(entities.location(next), None);
        assert_eq!(entities.free(next), None);
    }

    #[test]
    fn freeing_a_stale_handle_changes_nothing() {
        let mut entities = Entities::default();
        let a = entities.alloc(at(0)).unwrap();
        entities.free(a).unwrap();
        let b = entities.alloc(at(3)).unwrap();
        assert_eq!(entities.free(a), None);
        assert_eq!(entities.location(b), Some(at(3)));
        assert_eq!(entities.len(), 1);
    }

    #[test]
    fn slot_with_spent_generations_is_retired_not_wrapped() {
        let mut entities = Entities::default();
        let a = entities.alloc(at(0)).unwrap();
        entities.set_generation(a.index(), NonZeroU32::MAX);
        let last = Entity {
            index: a.index(),
            generation: NonZeroU32::MAX,
        };
        assert_eq!(entities.free(last), Some(at(0)));
        let b = entities.alloc(at(1)).unwrap();
        assert_ne!(b.index(), a.index(), "a retired slot must not be reused");
        assert_eq!(entities.location(last), None);
        assert_eq!(entities.len(), 1);
    }

    #[test]
    fn index_space_exhaustion_is_an_error() {
        // 2^32 slots cannot be allocated in a test, so the limit is checked on
        // the function the allocator asks for each fresh index.
        assert_eq!(next_fresh_index(0), Ok(0));
        assert_eq!(next_fresh_index(MAX_INDEX as usize), Ok(MAX_INDEX));
        assert_eq!(
            next_fresh_index(MAX_INDEX as usize + 1),
            Err(EntitiesExhausted)
        );
        assert_eq!(next_fresh_index(usize::MAX), Err(EntitiesExhausted));
    }

    #[test]
    fn a_slot_takes_12_bytes() {
        // 16 bytes per entity beyond component data: the slot and the
        // table's 4-byte entity index.
        assert_eq!(size_of::<Slot>(), 12);
    }

    #[test]
    fn bits_round_trip() {
        let mut entities = Entities::default();
        let a = entities.alloc(at(0)).unwrap();
        assert_eq!(Entity::from_bits(a.to_bits()), Some(a));
        assert_eq!(Entity::from_bits(5), None);
        assert_eq!(format!("{a:?}"), "0v1");
    }
}
