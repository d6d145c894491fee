//! The entity slots in a save, and their checked restoration.
//!
//! Saved: every slot as `(kind, a, b)` (alive: `(0, generation, 0)`; dead:
//! `(1, next generation or 0 when retired, next free slot)`), the free
//! list's head, and the pending reservations `(from_list, fresh)`. Locations
//! are not saved: the tables give them back, and [`Entities::restore`]
//! checks that they give each live entity exactly one.

use super::{Entities, EntityLocation, Reserved, Slot, MAX_INDEX, NO_SLOT};
use crate::save::Bounded;
use crate::storage::{EntityIndex, TableId, TableRow};
use core::fmt;
use core::marker::PhantomData;
use core::num::NonZeroU32;
use serde::de::{DeserializeSeed, Deserializer, Error, SeqAccess, Visitor};
use serde::ser::{SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

impl Serialize for Entities {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let slots = self.slots.iter().map(|slot| match *slot {
            Slot::Alive { generation, .. } => (0u8, generation.get(), 0u32),
            Slot::Dead { reuse, next_free } => (1u8, reuse.map_or(0, NonZeroU32::get), next_free),
        });
        let reserved = *super::lock(&self.reserved);
        let mut tuple = serializer.serialize_tuple(4)?;
        tuple.serialize_element(&Slots(core::cell::Cell::new(Some(slots))))?;
        tuple.serialize_element(&self.free)?;
        tuple.serialize_element(&reserved.from_list)?;
        tuple.serialize_element(&reserved.fresh)?;
        tuple.end()
    }
}

/// An iterator serialized once as a sequence.
struct Slots<I>(core::cell::Cell<Option<I>>);

impl<I: Iterator<Item = (u8, u32, u32)>> Serialize for Slots<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.take() {
            Some(slots) => serializer.collect_seq(slots),
            None => Err(serde::ser::Error::custom("slots serialized twice")),
        }
    }
}

/// The entity part of a save as read, not checked yet.
pub(crate) struct SavedEntities {
    slots: Vec<Slot>,
    free: u32,
    from_list: u32,
    fresh: u32,
}

impl SavedEntities {
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
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
        let missing = || A::Error::custom("the entity part of the save is cut short");
        let slots = seq
            .next_element_seed(Bounded {
                min: 0,
                max: MAX_INDEX as usize + 1,
                seed: SlotSeed,
                what: "entity slots",
                marker: PhantomData,
            })?
            .ok_or_else(missing)?;
        let free = seq.next_element::<u32>()?.ok_or_else(missing)?;
        let from_list = seq.next_element::<u32>()?.ok_or_else(missing)?;
        let fresh = seq.next_element::<u32>()?.ok_or_else(missing)?;
        Ok(SavedEntities {
            slots,
            free,
            from_list,
            fresh,
        })
    }
}

/// One slot, `(kind, a, b)`, read straight into a [`Slot`].
#[derive(Clone, Copy)]
struct SlotSeed;

impl<'de> DeserializeSeed<'de> for SlotSeed {
    type Value = Slot;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot, D::Error> {
        let (kind, a, b) = <(u8, u32, u32)>::deserialize(deserializer)?;
        match (kind, NonZeroU32::new(a)) {
            (0, Some(generation)) if b == 0 => Ok(Slot::Alive {
                generation,
                location: UNPLACED,
            }),
            (1, reuse) => Ok(Slot::Dead {
                reuse,
                next_free: b,
            }),
            _ => Err(D::Error::custom(
                "an entity slot is neither alive (with a non-zero generation) nor dead",
            )),
        }
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
    /// each live entity in exactly one row and each row's entity alive; the
    /// free list a chain without cycles through exactly the dead slots that
    /// wait for reuse; the reservations within the free list and the index
    /// space. An error says which invariant the save breaks.
    pub(crate) fn restore<'t>(
        saved: SavedEntities,
        tables: impl Iterator<Item = (TableId, &'t [EntityIndex])>,
    ) -> Result<Entities, String> {
        let SavedEntities {
            mut slots,
            free,
            from_list,
            fresh,
        } = saved;
        let mut placed = 0usize;
        for (table, rows) in tables {
            for (row, &EntityIndex(index)) in rows.iter().enumerate() {
                match slots.get_mut(index as usize) {
                    Some(Slot::Alive { location, .. }) if *location == UNPLACED => {
                        *location = EntityLocation {
                            table,
                            row: TableRow(row as u32),
                        };
                        placed += 1;
                    }
                    Some(Slot::Alive { .. }) => {
                        return Err(format!("entity slot {index} is in two table rows"))
                    }
                    _ => {
                        return Err(format!(
                            "table {} row {row} holds entity slot {index}, which is not alive",
                            table.0
                        ))
                    }
                }
            }
        }
        let live = slots
            .iter()
            .filter(|slot| matches!(slot, Slot::Alive { .. }))
            .count();
        if live != placed {
            return Err(format!("{} live entities are in no table", live - placed));
        }
        // The free list: a chain from `free` through dead, reusable slots,
        // each visited once, ending at NO_SLOT.
        let mut listed = vec![false; slots.len()];
        let mut free_len = 0usize;
        let mut at = free;
        while at != NO_SLOT {
            let next = match slots.get(at as usize) {
                Some(Slot::Dead {
                    reuse: Some(_),
                    next_free,
                }) if !listed[at as usize] => *next_free,
                _ => {
                    return Err(format!(
                        "the free list reaches slot {at}, which is not a dead slot waiting for \
                         reuse, or reaches it twice"
                    ))
                }
            };
            listed[at as usize] = true;
            free_len += 1;
            at = next;
        }
        let reusable = slots
            .iter()
            .filter(|slot| matches!(slot, Slot::Dead { reuse: Some(_), .. }))
            .count();
        if reusable != free_len {
            return Err(format!(
                "{} dead slots wait for reuse outside the free list",
                reusable - free_len
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
            live,
            reserved: Mutex::new(Reserved {
                from_list,
                fresh,
                next: if from_list == 0 && fresh == 0 {
                    NO_SLOT
                } else {
                    next
                },
            }),
        })
    }
}
