//! The entity slots in a save, and their checked restoration.
//!
//! Saved, as a tuple: one number per slot, its generation (alive: the
//! entity's; dead: the one its next occupant gets, or 0 once the slot is
//! retired); the free list as the slot indices it chains, from its head; and
//! the pending reservations `(from_list, fresh)`. Which slots are alive and
//! where their entities are is not saved: the table rows name them, and
//! [`Entities::restore`] checks that every slot is accounted for exactly
//! once, by a row, by the free list, or as retired.

use super::{Entities, Entity, EntityLocation, Reserved, Slot, MAX_INDEX, NO_SLOT};
use crate::save::{reject, Bounded};
use crate::storage::{EntityIndex, TableId, TableRow};
use core::fmt;
use core::marker::PhantomData;
use core::num::NonZeroU32;
use core::sync::atomic::{AtomicU64, Ordering};
use serde::de::{DeserializeSeed, Deserializer, Error as _, SeqAccess, Unexpected, Visitor};
use serde::ser::{SerializeSeq, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

/// An entity handle is saved as one `u64`, that of [`Entity::to_bits`]: the
/// index in the low 32 bits, the generation in the high 32. So a component
/// that refers to other entities derives `Serialize` and `Deserialize`, and a
/// world saved and loaded whole keeps what each reference means: the load
/// restores every slot's generation, so a handle to a live entity finds it
/// again and a stale one stays stale.
///
/// ```
/// use schemecs::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// struct Target(Entity);
/// #[derive(Schema)] struct Game { target: Target }
///
/// let mut world = World::<Game>::new();
/// let prey = world.spawn(());
/// let hunter = world.spawn((Target(prey),));
/// world.despawn(prey).unwrap();
///
/// let json = serde_json::to_string(&world).unwrap();
/// let loaded: World<Game> = serde_json::from_str(&json).unwrap();
/// assert_eq!(loaded.get::<Target>(hunter), Some(&Target(prey)));
/// assert!(!loaded.is_alive(prey));
///
/// // The number is the handle's bits; a generation of 0 is no handle.
/// assert_eq!(serde_json::to_string(&prey).unwrap(), prey.to_bits().to_string());
/// assert!(serde_json::from_str::<Entity>("7").is_err());
/// ```
impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.to_bits())
    }
}

/// The `u64` of [`Entity::to_bits`]; bits whose high 32 (the generation) are
/// 0 are an error, since no handle has them.
impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bits = u64::deserialize(deserializer)?;
        Entity::from_bits(bits).ok_or_else(|| {
            D::Error::invalid_value(
                Unexpected::Unsigned(bits),
                &"the bits of an entity (`Entity::to_bits`), whose high 32 bits, the \
                  generation, are not 0",
            )
        })
    }
}

impl Serialize for Entities {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reserved = Reserved::from_word(self.reserved.load(Ordering::Relaxed));
        let (from_list, fresh) = self.split(reserved.count);
        let mut tuple = serializer.serialize_tuple(4)?;
        tuple.serialize_element(&Generations(&self.slots))?;
        tuple.serialize_element(&FreeList(self))?;
        tuple.serialize_element(&from_list)?;
        tuple.serialize_element(&fresh)?;
        tuple.end()
    }
}

/// Each slot's generation: the live entity's, or the next occupant's, or 0
/// for a retired slot.
struct Generations<'e>(&'e [Slot]);

impl Serialize for Generations<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|slot| match *slot {
            Slot::Alive { generation, .. } => generation.get(),
            Slot::Dead { reuse, .. } => reuse.map_or(0, NonZeroU32::get),
        }))
    }
}

/// The free list's slots, from its head.
struct FreeList<'e>(&'e Entities);

impl Serialize for FreeList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entities = self.0;
        let mut seq = serializer.serialize_seq(Some(entities.free_len))?;
        let mut at = entities.free;
        while at != NO_SLOT {
            seq.serialize_element(&at)?;
            at = entities.listed(at).1;
        }
        seq.end()
    }
}

/// The entity part of a save as read: the slots, with the free list linked
/// and checked, and the live ones not placed yet.
pub(crate) struct SavedEntities {
    /// A slot with a generation and outside the free list is
    /// `Alive { location: UNPLACED }` until a table row names it.
    slots: Vec<Slot>,
    /// The number of slots with a generation (not retired).
    waiting: usize,
    free: u32,
    free_len: usize,
    from_list: u32,
    fresh: u32,
}

impl SavedEntities {
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The generation of slot `index`, if an entity waits there for its
    /// row.
    pub(crate) fn waiting_generation(&self, index: u32) -> Option<NonZeroU32> {
        match self.slots.get(index as usize)? {
            Slot::Alive { generation, .. } => Some(*generation),
            Slot::Dead { .. } => None,
        }
    }
}

/// Reads [`SavedEntities`].
pub(crate) struct EntitiesSeed;

impl<'de> DeserializeSeed<'de> for EntitiesSeed {
    type Value = SavedEntities;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<SavedEntities, D::Error> {
        deserializer.deserialize_tuple(4, self)
    }
}

impl<'de> Visitor<'de> for EntitiesSeed {
    type Value = SavedEntities;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the entity slots of a world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SavedEntities, A::Error> {
        let missing = || reject::<A::Error>("the entity part of the save is cut short");
        let mut slots = seq
            .next_element_seed(Bounded {
                min: 0,
                max: MAX_INDEX as usize + 1,
                seed: SlotSeed,
                what: "entity slots",
                marker: PhantomData,
            })?
            .ok_or_else(missing)?;
        let waiting = slots
            .iter()
            .filter(|slot| matches!(slot, Slot::Alive { .. }))
            .count();
        let (free, free_len) = seq
            .next_element_seed(FreeListSeed { slots: &mut slots })?
            .ok_or_else(missing)?;
        let from_list = seq.next_element::<u32>()?.ok_or_else(missing)?;
        let fresh = seq.next_element::<u32>()?.ok_or_else(missing)?;
        Ok(SavedEntities {
            slots,
            waiting,
            free,
            free_len,
            from_list,
            fresh,
        })
    }
}

/// One slot's generation, read straight into a [`Slot`]: alive and not
/// placed yet, or retired (generation 0).
#[derive(Clone, Copy)]
struct SlotSeed;

impl<'de> DeserializeSeed<'de> for SlotSeed {
    type Value = Slot;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot, D::Error> {
        Ok(match NonZeroU32::new(u32::deserialize(deserializer)?) {
            Some(generation) => Slot::Alive {
                generation,
                location: UNPLACED,
            },
            None => Slot::Dead {
                reuse: None,
                next_free: NO_SLOT,
            },
        })
    }
}

/// Reads the free list, linking each slot it names (which must wait, not be
/// retired, and appear once) into the chain: `(head, length)`.
struct FreeListSeed<'s> {
    slots: &'s mut [Slot],
}

impl<'de> DeserializeSeed<'de> for FreeListSeed<'_> {
    type Value = (u32, usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(u32, usize), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FreeListSeed<'_> {
    type Value = (u32, usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the free list of a world's entity slots")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(u32, usize), A::Error> {
        let (mut head, mut tail, mut len) = (NO_SLOT, NO_SLOT, 0usize);
        while let Some(index) = seq.next_element::<u32>()? {
            let reuse = match self.slots.get(index as usize) {
                Some(&Slot::Alive {
                    generation,
                    location: UNPLACED,
                }) => generation,
                slot => {
                    return Err(reject::<A::Error>(format!(
                        "the free list names slot {index}, {}",
                        unfit(slot, self.slots.len())
                    )))
                }
            };
            self.slots[index as usize] = Slot::Dead {
                reuse: Some(reuse),
                next_free: NO_SLOT,
            };
            if tail == NO_SLOT {
                head = index;
            } else if let Slot::Dead { next_free, .. } = &mut self.slots[tail as usize] {
                *next_free = index;
            }
            tail = index;
            len += 1;
        }
        Ok((head, len))
    }
}

/// Why `slot` cannot be named by a table row or by the free list (both want
/// a slot with a generation that neither names yet): "which is ...".
fn unfit(slot: Option<&Slot>, count: usize) -> String {
    match slot {
        None => format!("which does not exist (the save has {count} slots)"),
        Some(Slot::Dead { reuse: None, .. }) => "which is retired".into(),
        Some(Slot::Dead { reuse: Some(_), .. }) => "which the free list names already".into(),
        Some(Slot::Alive { .. }) => "which a table row names already".into(),
    }
}

/// The location of a live slot before the tables have named its row.
const UNPLACED: EntityLocation = EntityLocation {
    table: TableId::UNKNOWN,
    row: TableRow(u32::MAX),
};

impl Entities {
    /// The slots of `saved`, each live one placed at the row of `tables`
    /// (table id, entity list) that names it, after checking every invariant:
    /// each row names a slot that waits for it, no slot is named twice, and
    /// every slot with a generation is named by a row or by the free list;
    /// the reservations lie within the free list and the index space. An
    /// error says which invariant the save breaks.
    pub(crate) fn restore<'t>(
        saved: SavedEntities,
        tables: impl Iterator<Item = (TableId, &'t [EntityIndex])>,
    ) -> Result<Entities, String> {
        let SavedEntities {
            mut slots,
            waiting,
            free,
            free_len,
            from_list,
            fresh,
        } = saved;
        let (mut placed, count) = (0usize, slots.len());
        for (table, rows) in tables {
            for (row, &EntityIndex(index)) in rows.iter().enumerate() {
                match slots.get_mut(index as usize) {
                    Some(Slot::Alive { location, .. }) if *location == UNPLACED => {
                        *location = EntityLocation {
                            table,
                            row: TableRow(row as u32),
                        };
                    }
                    Some(Slot::Alive { .. }) => {
                        return Err(format!("entity slot {index} is in two table rows"))
                    }
                    slot => {
                        return Err(format!(
                            "table {} row {row} holds entity slot {index}, {}",
                            table.0,
                            unfit(slot.as_deref(), count)
                        ))
                    }
                }
            }
            placed += rows.len();
        }
        if placed + free_len != waiting {
            let (n, verbs) = match waiting - placed - free_len {
                1 => (1, "slot has a generation but is"),
                n => (n, "slots have a generation but are"),
            };
            return Err(format!(
                "{n} entity {verbs} in no table row and not in the free list"
            ));
        }
        if from_list as usize > free_len || (fresh != 0 && from_list as usize != free_len) {
            return Err(format!(
                "{from_list} reservations from a free list of {free_len} slots, then {fresh} \
                 fresh ones: reservations take the whole free list before fresh slots"
            ));
        }
        if slots.len() as u64 + u64::from(fresh) > u64::from(MAX_INDEX) + 1 {
            return Err("the reservations run past the last entity index".into());
        }
        let count = from_list
            .checked_add(fresh)
            .ok_or("the reservations run past the last entity index")?;
        let mut next = free;
        for _ in 0..from_list {
            next = match slots[next as usize] {
                Slot::Dead { next_free, .. } => next_free,
                Slot::Alive { .. } => unreachable!("checked above: the free list is dead slots"),
            };
        }
        Ok(Entities {
            slots,
            free,
            free_len,
            live: placed,
            reserved: AtomicU64::new(
                Reserved {
                    count,
                    next: if count == 0 { NO_SLOT } else { next },
                }
                .word(),
            ),
        })
    }
}
