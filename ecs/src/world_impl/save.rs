//! `Serialize` and `Deserialize` for [`World`] (feature `serde`).
//!
//! A save is a tuple of nine parts, in this order:
//!
//! 1. the format tag, [`FORMAT`];
//! 2. the header: the schema's name, its component names in bit order, its
//!    data bits (which components carry data rather than being tags), its
//!    sparse bits and its resource names. Loading compares it with the
//!    target schema first and names the difference;
//! 3. the entity slots (see `entity/save.rs`);
//! 4. the tables, in id order: `(mask, entity indices, columns)`, one column
//!    per data component of the mask, in bit order (a table's mask never
//!    holds a sparse bit);
//! 5. the tag values, one sequence per tag bit;
//! 6. the resources, as a tuple in field order;
//! 7. the change state (its ticks, each schedule's last run, the removal
//!    logs, and the systems skipped by their run conditions since they
//!    last ran);
//! 8. the sparse sets, one per sparse bit in bit order: `(owners, values)`,
//!    the entity index of each dense slot and the column of values, in their
//!    dense order. Every owner must be a live entity, named once;
//! 9. the systems' locals (see `system/local.rs`): per schedule that ran on
//!    the world, its fingerprint and, per system, each `SavedLocal`'s value
//!    in postcard's format with its checksum digest. They are decoded when
//!    their system first runs on the loaded world, since only it knows their
//!    types. A plain `Local`'s value is never written: a world holding one is
//!    refused before anything is written. Saves made before `SavedLocal`
//!    existed have the same layout; their locals load as `SavedLocal`
//!    values (a plain `Local` that meets one panics, naming the fix).
//!
//! The caches (migration edges, matched tables) are not saved: a loaded
//! world rebuilds them as it goes, with the same results.

use super::Locals;
use super::World;
use crate::changes::Changes;
use crate::entity::{Entities, EntitiesSeed, SavedEntities};
use crate::mask::{Mask, MaskBits};
use crate::save::{bounded, reject, take_reason, Bounded, LoadColumn, LoadError};
use crate::storage::{
    sparse_bits, Bins, Column, EntityIndex, SparseSet, SparseSets, TableId, Tables,
};
use crate::structure::EntityStore;
use crate::world_impl::Schema;
use core::fmt;
use core::marker::PhantomData;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeSeq, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};
use std::sync::RwLock;

/// The first part of every save: marks the data as a world of this crate, in
/// this layout. 7: event queues and removal logs carry what readers whose
/// hold ended missed, the change state counts runs and records what each
/// schedule and skipped system reads (see [`crate::retention`]), a
/// fixed-step clock holds its frame time cap, and a state whether it was
/// entered. 6: the change state ends with the systems skipped by their
/// run conditions. 5: the systems' locals follow the sparse sets. 4: the header holds the sparse bits, and the sparse sets
/// follow the change state (3 had neither). 3: the entity part holds one
/// generation per slot and the free list as a sequence (2 saved each slot as
/// a `(kind, generation, next)` triple, and 1 had no change state).
pub(super) const FORMAT: u32 = 0xec5_0007;

/// Saves the whole world: entities with their generations and free-list
/// order, tables in order with their rows, tag values and resources, with a
/// header naming the schema, and the values of the systems'
/// [`SavedLocal`](crate::system::SavedLocal)s. Exists when every component and
/// resource is `Serialize`.
///
/// A world that holds the value of a plain [`Local`](crate::system::Local) (whose
/// type need not be `Serialize`) is refused with the serializer's error,
/// which names the system and the type, before anything is written: a save
/// without the value would load as a world that goes on differently. Make
/// it a `SavedLocal`, or keep the value in a resource. A `Local` whose
/// system never ran on the world holds no value and stops nothing.
///
/// ```
/// use schemecs::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)] struct Pos(f32);
/// #[derive(Clone, Default, Serialize, Deserialize)] struct Frame(u64);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] frame: Frame }
///
/// let mut world = World::<Game>::new();
/// let e = world.spawn((Pos(1.5),));
/// let json = serde_json::to_string(&world).unwrap();
/// let loaded: World<Game> = serde_json::from_str(&json).unwrap();
/// assert_eq!(loaded.get::<Pos>(e), Some(&Pos(1.5)));
/// ```
impl<S: Schema> Serialize for World<S>
where
    S::Column: Serialize,
    S::Resources: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        // Checked before anything is written: a world holding a plain
        // `Local`'s value is refused, never saved without it.
        if let Some(reason) = self.locals.unsaveable() {
            return Err(Ser::Error::custom(reason));
        }
        let mut tuple = serializer.serialize_tuple(9)?;
        tuple.serialize_element(&FORMAT)?;
        tuple.serialize_element(&(
            S::NAME,
            S::COMPONENT_NAMES,
            S::DATA_BITS,
            S::SPARSE_BITS,
            S::RESOURCE_NAMES,
        ))?;
        tuple.serialize_element(self.store.entities())?;
        tuple.serialize_element(&SaveTables(self.store.tables()))?;
        tuple.serialize_element(&SaveTags(self.store.bins()))?;
        tuple.serialize_element(&self.resources)?;
        tuple.serialize_element(self.store.changes())?;
        tuple.serialize_element(&SaveSparse(self.store.bins()))?;
        tuple.serialize_element(&self.locals)?;
        tuple.end()
    }
}

/// The sparse sets, as a tuple: their number follows from the schema.
struct SaveSparse<'w, S: Schema>(&'w Bins<S>);

impl<S: Schema> Serialize for SaveSparse<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let sets = self.0.sparse().sets();
        let mut tuple = serializer.serialize_tuple(sets.len())?;
        for set in sets {
            tuple.serialize_element(&(SaveIndices(set.owners()), set.values()))?;
        }
        tuple.end()
    }
}

struct SaveTables<'w, S: Schema>(&'w Tables<S>);

impl<S: Schema> Serialize for SaveTables<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for table in self.0.iter() {
            let indices = SaveIndices(table.entities());
            let columns = SaveColumns(table.columns());
            seq.serialize_element(&(table.mask().bits().to_u128(), indices, columns))?;
        }
        seq.end()
    }
}

struct SaveIndices<'w>(&'w [EntityIndex]);

impl Serialize for SaveIndices<'_> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.collect_seq(self.0.iter().map(|index| index.0))
    }
}

/// Columns as a tuple: their number follows from the table's mask.
struct SaveColumns<'w, C>(&'w [C]);

impl<C: Serialize> Serialize for SaveColumns<'_, C> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut tuple = serializer.serialize_tuple(self.0.len())?;
        for column in self.0 {
            tuple.serialize_element(column)?;
        }
        tuple.end()
    }
}

struct SaveTags<'w, S: Schema>(&'w Bins<S>);

impl<S: Schema> Serialize for SaveTags<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let tags = self.0.tags();
        let bags = S::Mask::TAGS.iter_bits().map(|bit| &tags[bit as usize]);
        let mut tuple = serializer.serialize_tuple(S::Mask::TAGS.bits().count_ones() as usize)?;
        for bag in bags {
            tuple.serialize_element(bag)?;
        }
        tuple.end()
    }
}

/// Loads a save made by the `Serialize` impl, exactly, after checking it:
/// a save of another schema, or one that is truncated, corrupted or made up,
/// is an error (the format's, with a message saying what is wrong), never a
/// panic and never a world that breaks an invariant. No vector is sized by a
/// length read from the input before the data is there.
///
/// One part is checked later: the values of systems'
/// [`SavedLocal`](crate::system::SavedLocal)s are kept as the bytes and digest saved
/// until each system first runs, since only the system knows their type.
/// Bytes that were altered (their digest kept) are found then: that run
/// panics with a message naming the system and its local. So does a system
/// that keeps a plain `Local` where the save holds a value (a `SavedLocal`
/// when saved, or any `Local` in a save made before `SavedLocal` existed):
/// make it a `SavedLocal`.
impl<'de, S: Schema> Deserialize<'de> for World<S>
where
    S::Column: LoadColumn,
    S::Resources: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A self-describing format says which form it holds: an object is
        // the readable form, a sequence the compact one.
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(WorldVisitor::<S>(PhantomData))
        } else {
            deserializer.deserialize_tuple(9, WorldVisitor::<S>(PhantomData))
        }
    }
}

impl<S: Schema> World<S> {
    /// Loads a save, like `World::deserialize`, keeping the reason when the
    /// save is refused: a save of another schema, or one that would break
    /// the world, is [`LoadError::Invalid`] with a `reason` that says what is
    /// wrong, also through a format whose errors keep no message (postcard
    /// reports every such refusal as "Serde Deserialization Error").
    ///
    /// # Errors
    ///
    /// [`LoadError::Invalid`], with the reason, if the input reads as a save
    /// but not as one of a world of this schema, or one that would break an
    /// invariant of the world; [`LoadError::Format`] if the format cannot
    /// read the input as a save. No world is built.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::world::LoadError;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Clone, Serialize, Deserialize)] struct Pos(f32);
    /// #[derive(Clone, Serialize, Deserialize)] struct Vel(f32);
    /// #[derive(Schema)] struct Game { pos: Pos }
    /// #[derive(Schema)] struct Other { vel: Vel }
    ///
    /// let json = serde_json::to_string(&World::<Game>::new()).unwrap();
    /// // With postcard: `World::<Other>::load(&mut postcard::Deserializer::from_bytes(&bytes))`.
    /// match World::<Other>::load(&mut serde_json::Deserializer::from_str(&json)) {
    ///     Err(LoadError::Invalid { reason, .. }) => {
    ///         assert!(reason.contains("schema `Game`"), "{reason}");
    ///     }
    ///     _ => panic!("a Game save is not an Other world"),
    /// }
    /// ```
    pub fn load<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, LoadError<D::Error>>
    where
        Self: Deserialize<'de>,
    {
        take_reason();
        let loaded = World::deserialize(deserializer);
        let reason = take_reason();
        loaded.map_err(|format| match reason {
            Some(reason) => LoadError::Invalid { reason, format },
            None => LoadError::Format(format),
        })
    }
}

struct WorldVisitor<S>(PhantomData<S>);

impl<'de, S: Schema> Visitor<'de> for WorldVisitor<S>
where
    S::Column: LoadColumn,
    S::Resources: Deserialize<'de>,
{
    type Value = World<S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a saved World<{}> (a sequence, or an object in the readable form)",
            S::NAME
        )
    }

    /// The readable form ([`super::Readable`]).
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<World<S>, A::Error> {
        super::readable::visit_world(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<World<S>, A::Error> {
        let cut =
            |part: &str| reject::<A::Error>(format!("the save is cut short before its {part}"));
        let format = seq.next_element::<u32>()?.ok_or_else(|| cut("format"))?;
        if format != FORMAT {
            return Err(reject::<A::Error>(format!(
                "not a saved world of this version of `schemecs` (format tag {format:#x}, expected \
                 {FORMAT:#x})"
            )));
        }
        seq.next_element_seed(HeaderSeed::<S>(PhantomData))?
            .ok_or_else(|| cut("header"))?;
        let entities = seq
            .next_element_seed(EntitiesSeed)?
            .ok_or_else(|| cut("entities"))?;
        let tables = seq
            .next_element_seed(TablesSeed::<S> {
                slots: entities.slot_count(),
                marker: PhantomData,
            })?
            .ok_or_else(|| cut("tables"))?;
        let tags = seq
            .next_element_seed(TagsSeed { tables: &tables })?
            .ok_or_else(|| cut("tags"))?;
        let resources = seq
            .next_element::<S::Resources>()?
            .ok_or_else(|| cut("resources"))?;
        let changes = seq
            .next_element_seed(ChangesSeed::<S>(PhantomData))?
            .ok_or_else(|| cut("change state"))?;
        let sparse = seq
            .next_element_seed(SparseSeed::<S> {
                slots: entities.slot_count(),
                marker: PhantomData,
            })?
            .ok_or_else(|| cut("sparse sets"))?;
        let locals = seq
            .next_element::<Locals>()?
            .ok_or_else(|| cut("systems' locals"))?;
        assemble(entities, tables, tags, resources, changes, sparse, locals)
            .map_err(reject::<A::Error>)
    }
}

/// The world of a save's parts, read in either form, after the checks
/// that span parts: every live entity in one row, every sparse value's
/// owner alive, relations whole, no tick past the world's.
pub(super) fn assemble<S: Schema>(
    entities: SavedEntities,
    tables: Tables<S>,
    tags: Vec<S::Column>,
    resources: S::Resources,
    changes: Changes,
    sparse: Vec<(Vec<EntityIndex>, S::Column)>,
    locals: Locals,
) -> Result<World<S>, String> {
    let entities = restore_entities(entities, &tables)?;
    let sparse = restore_sparse(sparse, &tables)?;
    let mut bins = Bins::<S>::default();
    let (bags, _) = bins.tags_and_trash_mut();
    for (bit, bag) in S::Mask::TAGS.iter_bits().zip(tags) {
        bags[bit as usize] = bag;
    }
    *bins.sparse_mut() = sparse;
    let world = World {
        store: EntityStore::from_parts(entities, tables, bins, changes),
        queries: RwLock::default(),
        resources,
        locals,
        spawned: Vec::new(),
        owners: Default::default(),
    };
    if const { S::RELATION_BITS != 0 } {
        world.check_relations()?;
    }
    // Nothing changed or sent after the world's own tick.
    let now = world.store.changes().tick;
    world.store.check_ticks(now)?;
    S::check_event_ticks(&world.resources, now)?;
    Ok(world)
}

/// The change state ([`Changes::load`]).
pub(super) struct ChangesSeed<S>(pub(super) PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for ChangesSeed<S> {
    type Value = Changes;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Changes, D::Error> {
        Changes::load(deserializer, S::NAME, S::COMPONENT_NAMES, S::TRACKED_BITS)
    }
}

fn restore_entities<S: Schema>(
    saved: SavedEntities,
    tables: &Tables<S>,
) -> Result<Entities, String> {
    let rows = tables
        .iter()
        .enumerate()
        .map(|(id, table)| (TableId(id as u32), table.entities()));
    Entities::restore(saved, rows)
}

/// The sparse sets of a save, after checking that each owner is an entity of
/// the tables (so, alive), named once per set.
fn restore_sparse<S: Schema>(
    saved: Vec<(Vec<EntityIndex>, S::Column)>,
    tables: &Tables<S>,
) -> Result<SparseSets<S>, String> {
    let mut alive = Vec::new();
    if const { S::SPARSE_BITS != 0 } {
        for table in tables.iter() {
            for index in table.entities() {
                let at = index.0 as usize;
                if alive.len() <= at {
                    alive.resize(at + 1, false);
                }
                alive[at] = true;
            }
        }
    }
    let mut sets = Vec::new();
    for ((owners, values), bit) in saved.into_iter().zip(sparse_bits::<S>()) {
        let name = S::COMPONENT_NAMES[bit as usize];
        if let Some(dead) = owners
            .iter()
            .find(|index| !alive.get(index.0 as usize).copied().unwrap_or(false))
        {
            return Err(format!(
                "the sparse set of `{name}` holds a value of entity index {}, which is in no table",
                dead.0
            ));
        }
        sets.push(SparseSet::from_parts(values, owners).map_err(|index| {
            format!(
                "the sparse set of `{name}` holds two values of entity index {}",
                index.0
            )
        })?);
    }
    Ok(SparseSets::from_sets(sets))
}

/// Reads the sparse sets: per sparse bit, at most `slots` owners and as many
/// values.
struct SparseSeed<S> {
    slots: usize,
    marker: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for SparseSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<(Vec<EntityIndex>, S::Column)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(S::SPARSE_BITS.count_ones() as usize, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for SparseSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<(Vec<EntityIndex>, S::Column)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the sparse sets of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut sets = Vec::new();
        for bit in sparse_bits::<S>() {
            let seed = SparseSetSeed::<S> {
                bit,
                slots: self.slots,
                marker: PhantomData,
            };
            let set = seq.next_element_seed(seed)?.ok_or_else(|| {
                reject::<A::Error>(format!(
                    "the save lacks the sparse set of `{}`",
                    S::COMPONENT_NAMES[bit as usize]
                ))
            })?;
            sets.push(set);
        }
        Ok(sets)
    }
}

/// One sparse set: `(owners, values)`.
struct SparseSetSeed<S> {
    bit: u32,
    slots: usize,
    marker: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for SparseSetSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (Vec<EntityIndex>, S::Column);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(2, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for SparseSetSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (Vec<EntityIndex>, S::Column);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sparse set of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let cut = || reject::<A::Error>("the save is cut short in a sparse set");
        let owners = seq
            .next_element_seed(Bounded {
                min: 0,
                max: self.slots,
                seed: IndexSeed,
                what: "owners of a sparse set",
                marker: PhantomData,
            })?
            .ok_or_else(cut)?;
        let values = seq
            .next_element_seed(ColumnSeed::<S> {
                bit: self.bit,
                rows: owners.len(),
                marker: PhantomData,
            })?
            .ok_or_else(cut)?;
        Ok((owners, values))
    }
}

/// Checks that the header names schema `S`, as it is now.
struct HeaderSeed<S>(PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for HeaderSeed<S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(5, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for HeaderSeed<S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the header of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let cut = || reject::<A::Error>("the save is cut short in its header");
        let name: String = seq.next_element()?.ok_or_else(cut)?;
        let components = seq
            .next_element_seed(bounded::<String>(128, "component names"))?
            .ok_or_else(cut)?;
        let data_bits: u128 = seq.next_element()?.ok_or_else(cut)?;
        let sparse_bits: u128 = seq.next_element()?.ok_or_else(cut)?;
        let resources = seq
            .next_element_seed(bounded::<String>(1 << 16, "resource names"))?
            .ok_or_else(cut)?;
        check_header::<S>(
            &name,
            &components,
            S::COMPONENT_NAMES,
            data_bits,
            sparse_bits,
            &resources,
            S::RESOURCE_NAMES,
        )
        .map_err(reject::<A::Error>)
    }
}

/// Checks that a save's header, read in either form, names schema `S` as
/// it is now, and names the difference if not.
pub(super) fn check_header<S: Schema>(
    name: &str,
    components: &[String],
    expected: &[&str],
    data_bits: u128,
    sparse_bits: u128,
    resources: &[String],
    expected_resources: &[&str],
) -> Result<(), String> {
    let same_names = name == S::NAME
        && components.iter().eq(expected)
        && resources.iter().eq(expected_resources);
    if !same_names {
        return Err(format!(
            "the save holds a world of schema `{name}` (components: {}; resources: {}), \
             not of schema `{}` (components: {}; resources: {})",
            list(components.iter()),
            list(resources.iter()),
            S::NAME,
            list(expected.iter()),
            list(expected_resources.iter()),
        ));
    }
    if data_bits != S::DATA_BITS {
        let differ = (0..expected.len())
            .filter(|bit| (data_bits ^ S::DATA_BITS) >> bit & 1 == 1)
            .map(|bit| expected[bit]);
        return Err(format!(
            "the save's schema `{name}` has the same components, but these are tags \
             (zero-sized) in one and carry data in the other: {}",
            list(differ)
        ));
    }
    if sparse_bits != S::SPARSE_BITS {
        let differ = (0..expected.len())
            .filter(|bit| (sparse_bits ^ S::SPARSE_BITS) >> bit & 1 == 1)
            .map(|bit| expected[bit]);
        return Err(format!(
            "the save's schema `{name}` has the same components, but these are \
             `#[ecs(sparse)]` in one and not in the other: {}",
            list(differ)
        ));
    }
    Ok(())
}

fn list<T: AsRef<str>>(names: impl Iterator<Item = T>) -> String {
    let names: Vec<T> = names.collect();
    if names.is_empty() {
        return "none".into();
    }
    names
        .iter()
        .map(|name| format!("`{}`", name.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the tables, checking each mask (components of the schema only, no
/// two tables alike, the empty archetype first) and each column's length.
struct TablesSeed<S> {
    /// The number of entity slots: every row names one of them.
    slots: usize,
    marker: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for TablesSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Tables<S>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tables<S>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for TablesSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Tables<S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the tables of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tables<S>, A::Error> {
        let mut tables = Tables::<S>::default();
        let mut count = 0usize;
        let all = u128::MAX >> (128 - S::COMPONENT_NAMES.len());
        loop {
            let seed = TableSeed::<S> {
                slots: self.slots,
                all,
                marker: PhantomData,
            };
            let Some((mask, entities, columns)) = seq.next_element_seed(seed)? else {
                break;
            };
            push_table(&mut tables, count, mask, entities, columns).map_err(reject::<A::Error>)?;
            count += 1;
        }
        if count == 0 {
            return Err(reject::<A::Error>("a saved world has at least one table"));
        }
        Ok(tables)
    }
}

/// Adds the `count`th table of a save, after checking its place: the empty
/// archetype's first, no two tables alike.
pub(super) fn push_table<S: Schema>(
    tables: &mut Tables<S>,
    count: usize,
    mask: S::Mask,
    entities: Vec<EntityIndex>,
    columns: Vec<S::Column>,
) -> Result<(), String> {
    if count == 0 && mask != S::Mask::EMPTY {
        return Err("the first table of a saved world must be the empty archetype's".into());
    }
    if count >= u32::MAX as usize - 1 {
        return Err("more tables than table ids".into());
    }
    if count > 0 && tables.get_or_create(mask) != TableId(count as u32) {
        return Err(format!(
            "two tables of the save have the archetype {mask:?}"
        ));
    }
    let (rows, slots) = tables.get_mut(TableId(count as u32)).rows_mut();
    *rows = entities;
    for (slot, column) in slots.iter_mut().zip(columns) {
        *slot = column;
    }
    Ok(())
}

struct TableSeed<S> {
    slots: usize,
    all: u128,
    marker: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for TableSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (S::Mask, Vec<EntityIndex>, Vec<S::Column>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(3, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for TableSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (S::Mask, Vec<EntityIndex>, Vec<S::Column>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let cut = || reject::<A::Error>("the save is cut short in a table");
        let bits: u128 = seq.next_element()?.ok_or_else(cut)?;
        if bits & !self.all != 0 {
            return Err(reject::<A::Error>(format!(
                "a table's archetype {bits:#x} has bits of no component of schema `{}`",
                S::NAME
            )));
        }
        if bits & S::SPARSE_BITS != 0 {
            return Err(reject::<A::Error>(format!(
                "a table's archetype {bits:#x} holds a sparse component of schema `{}`, which \
                 only sparse sets hold",
                S::NAME
            )));
        }
        let mask = S::Mask::from_u128(bits);
        let indices = seq
            .next_element_seed(Bounded {
                min: 0,
                max: self.slots,
                seed: IndexSeed,
                what: "entities of a table",
                marker: PhantomData,
            })?
            .ok_or_else(cut)?;
        let rows = indices.len();
        let columns = seq
            .next_element_seed(ColumnsSeed::<S> {
                mask,
                rows,
                marker: PhantomData,
            })?
            .ok_or_else(cut)?;
        Ok((mask, indices, columns))
    }
}

/// One row's entity, read straight into an [`EntityIndex`].
#[derive(Clone, Copy)]
struct IndexSeed;

impl<'de> DeserializeSeed<'de> for IndexSeed {
    type Value = EntityIndex;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<EntityIndex, D::Error> {
        u32::deserialize(deserializer).map(EntityIndex)
    }
}

/// The columns of one table: one per data component of `mask`, each `rows`
/// long.
struct ColumnsSeed<S: Schema> {
    mask: S::Mask,
    rows: usize,
    marker: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for ColumnsSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let count = self.mask.count();
        deserializer.deserialize_tuple(count, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for ColumnsSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the columns of a table of archetype {:?}", self.mask)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut columns = Vec::new();
        for bit in self.mask.intersection(S::Mask::DATA).iter_bits() {
            let seed = ColumnSeed::<S> {
                bit,
                rows: self.rows,
                marker: PhantomData,
            };
            let column = seq.next_element_seed(seed)?.ok_or_else(|| {
                reject::<A::Error>(format!(
                    "a table of archetype {:?} lacks its `{}` column",
                    self.mask,
                    S::COMPONENT_NAMES[bit as usize]
                ))
            })?;
            debug_assert_eq!(column.len(), self.rows);
            columns.push(column);
        }
        Ok(columns)
    }
}

/// One column: component `bit`, exactly `rows` values.
pub(super) struct ColumnSeed<S> {
    pub(super) bit: u32,
    pub(super) rows: usize,
    pub(super) marker: PhantomData<S>,
}

impl<S: Schema> ColumnSeed<S> {
    /// The values of tag `bit`: one per entity of the tables `tables` that
    /// have it.
    pub(super) fn of_tag(tables: &Tables<S>, bit: u32) -> Self {
        let rows = tables
            .iter()
            .filter(|table| table.mask().has(bit))
            .map(|table| table.len())
            .sum();
        ColumnSeed {
            bit,
            rows,
            marker: PhantomData,
        }
    }
}

impl<'de, S: Schema> DeserializeSeed<'de> for ColumnSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = S::Column;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Column, D::Error> {
        S::Column::load(self.bit, self.rows, deserializer)
    }
}

/// The tag values: for each tag bit, one per entity of the tables that have
/// it.
struct TagsSeed<'t, S: Schema> {
    tables: &'t Tables<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for TagsSeed<'_, S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(S::Mask::TAGS.bits().count_ones() as usize, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for TagsSeed<'_, S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the tag values of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut bags = Vec::new();
        for bit in S::Mask::TAGS.iter_bits() {
            let bag = seq
                .next_element_seed(ColumnSeed::of_tag(self.tables, bit))?
                .ok_or_else(|| {
                    reject::<A::Error>(format!(
                        "the save lacks the values of tag `{}`",
                        S::COMPONENT_NAMES[bit as usize]
                    ))
                })?;
            bags.push(bag);
        }
        Ok(bags)
    }
}
