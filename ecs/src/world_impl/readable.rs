//! The readable form of a save (feature `serde`): [`Readable`], and its
//! reading, which [`World`]'s `Deserialize` picks when the format hands it
//! an object (see `save.rs` for the compact form, whose parts are the same).
//!
//! The world is an object of nine parts, keyed by name. The ones a person
//! reads or patches are keyed by the schema's names and written with entity
//! ids (`"3v1"`: index, `v`, generation):
//!
//! - `schema`: `{ name, components, tags, sparse, resources }`, the
//!   schema's field names only (`pos` for `pos: Pos`, as everywhere below);
//! - `tables`: one `{ components, entities, values }` per table, in id
//!   order: the archetype's component names, the id of each row's entity,
//!   and per component that carries data, its column of values in row
//!   order, keyed by name;
//! - `tags`: per tag, the values held (one per entity that has it);
//! - `resources`: keyed by field name;
//! - `sparse`: per sparse component, `{ entities, values }`.
//!
//! The rest (`format`, `entities`: the allocator, `changes`, `locals`) are
//! written as in the compact form.
//!
//! Keys may come in any order (`serde_json::Value` sorts them), with two
//! rules that the written order and the sorted order both keep: `tags`
//! after `tables`, and in a table or a sparse set `values` after
//! `components` and `entities`.

use super::save::{assemble, check_header, ChangesSeed, ColumnSeed, FORMAT};
use super::{Locals, World};
use crate::changes::Changes;
use crate::entity::{Entities, EntitiesSeed, Entity, SavedEntities};
use crate::mask::{Mask, MaskBits};
use crate::save::{key_missing, key_twice, key_unknown, reject, Bounded, Key, LoadColumn};
use crate::storage::{sparse_bits, Bins, EntityIndex, Tables};
use crate::world_impl::Schema;
use core::fmt;
use core::marker::PhantomData;
use core::num::NonZeroU32;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// A world written in the readable form: an object keyed by the schema's
/// names, with entity ids as text, for a person to read, diff or patch.
/// Made by [`World::readable`].
///
/// A world's own `Serialize` writes the compact form: positional, the
/// fastest to write and read, and the only one for binary formats. Both
/// load through `World`'s `Deserialize` (and [`World::load`]) with the
/// same checks: in a self-describing format, an object is read as the
/// readable form and a sequence as the compact one.
///
/// ```
/// use schemecs::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// struct Pos { x: f32, y: f32 }
/// #[derive(Clone, Default, Serialize, Deserialize)]
/// struct Frame(u64);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(resource)] frame: Frame }
///
/// let mut world = World::<Game>::new();
/// let ship = world.spawn((Pos { x: 1.5, y: 0.0 },));
/// let json = serde_json::to_string_pretty(&world.readable()).unwrap();
/// assert!(json.contains(r#""entities": [
///         "0v1"
///       ],
///       "values": {
///         "pos": [
///           {
///             "x": 1.5,"#));
///
/// // A person moves the ship; the save loads with every check.
/// let patched = json.replace(r#""x": 1.5"#, r#""x": 4.0"#);
/// let loaded: World<Game> = serde_json::from_str(&patched).unwrap();
/// assert_eq!(loaded.get::<Pos>(ship), Some(&Pos { x: 4.0, y: 0.0 }));
/// ```
pub struct Readable<'w, S: Schema>(&'w World<S>);

impl<S: Schema> World<S> {
    /// The world in the readable form of a save, to serialize: see
    /// [`Readable`]. It holds what the compact form (the world's own
    /// `Serialize`) holds, and loads back the same way.
    pub fn readable(&self) -> Readable<'_, S> {
        Readable(self)
    }
}

impl<S: Schema> fmt::Debug for Readable<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Readable(World<{}>)", S::NAME)
    }
}

/// The readable form: see [`Readable`]. Refused, as the compact form is,
/// for a world that holds a plain `Local`'s value.
impl<S: Schema> Serialize for Readable<'_, S>
where
    S::Column: Serialize,
    S::Resources: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let world = self.0;
        if let Some(reason) = world.locals.unsaveable() {
            return Err(Ser::Error::custom(reason));
        }
        let store = &world.store;
        let entities = store.entities();
        let mut parts = serializer.serialize_struct("World", 9)?;
        parts.serialize_field("format", &FORMAT)?;
        parts.serialize_field("schema", &Header::<S>(PhantomData))?;
        parts.serialize_field("entities", entities)?;
        parts.serialize_field("tables", &TablesText(entities, store.tables()))?;
        parts.serialize_field("tags", &TagsText(store.bins()))?;
        parts.serialize_field("resources", &world.resources)?;
        parts.serialize_field("changes", store.changes())?;
        parts.serialize_field("sparse", &SparseText(entities, store.bins()))?;
        parts.serialize_field("locals", &world.locals)?;
        parts.end()
    }
}

/// The component names of `bits`, in bit order.
fn names_of<S: Schema>(bits: u128) -> impl Iterator<Item = &'static str> + Clone {
    (0..S::COMPONENT_FIELDS.len())
        .filter(move |bit| bits >> bit & 1 == 1)
        .map(|bit| S::COMPONENT_FIELDS[bit])
}

/// The schema's names.
struct Header<S>(PhantomData<S>);

impl<S: Schema> Serialize for Header<S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let all = u128::MAX >> (128 - S::COMPONENT_FIELDS.len());
        let mut header = serializer.serialize_struct("Schema", 5)?;
        header.serialize_field("name", S::NAME)?;
        header.serialize_field("components", S::COMPONENT_FIELDS)?;
        header.serialize_field("tags", &Names(names_of::<S>(all & !S::DATA_BITS)))?;
        header.serialize_field("sparse", &Names(names_of::<S>(S::SPARSE_BITS)))?;
        header.serialize_field("resources", S::RESOURCE_FIELDS)?;
        header.end()
    }
}

/// A sequence of names.
struct Names<I>(I);

impl<I: Iterator<Item = &'static str> + Clone> Serialize for Names<I> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.collect_seq(self.0.clone())
    }
}

/// An entity as its id's text, `3v1`.
struct Id(Entity);

impl Serialize for Id {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.collect_str(&self.0)
    }
}

/// The ids of the live entities of slots `indices`.
struct Ids<'w>(&'w Entities, &'w [EntityIndex]);

impl Serialize for Ids<'_> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.collect_seq(self.1.iter().map(|&index| Id(self.0.entity(index))))
    }
}

struct TablesText<'w, S: Schema>(&'w Entities, &'w Tables<S>);

impl<S: Schema> Serialize for TablesText<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.collect_seq(self.1.iter().map(|table| {
            let mask = table.mask();
            TableText {
                components: Names(names_of::<S>(mask.bits().to_u128())),
                entities: Ids(self.0, table.entities()),
                values: ColumnsText::<S>(mask, table.columns()),
            }
        }))
    }
}

struct TableText<'w, I, S: Schema> {
    components: Names<I>,
    entities: Ids<'w>,
    values: ColumnsText<'w, S>,
}

impl<I: Iterator<Item = &'static str> + Clone, S: Schema> Serialize for TableText<'_, I, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut table = serializer.serialize_struct("Table", 3)?;
        table.serialize_field("components", &self.components)?;
        table.serialize_field("entities", &self.entities)?;
        table.serialize_field("values", &self.values)?;
        table.end()
    }
}

/// A table's columns, keyed by component name.
struct ColumnsText<'w, S: Schema>(S::Mask, &'w [S::Column]);

impl<S: Schema> Serialize for ColumnsText<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let bits = self.0.intersection(S::Mask::DATA).iter_bits();
        let mut map = serializer.serialize_map(Some(self.1.len()))?;
        for (bit, column) in bits.zip(self.1) {
            map.serialize_entry(S::COMPONENT_FIELDS[bit as usize], column)?;
        }
        map.end()
    }
}

struct TagsText<'w, S: Schema>(&'w Bins<S>);

impl<S: Schema> Serialize for TagsText<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let tags = self.0.tags();
        let mut map = serializer.serialize_map(Some(S::Mask::TAGS.bits().count_ones() as usize))?;
        for bit in S::Mask::TAGS.iter_bits() {
            map.serialize_entry(S::COMPONENT_FIELDS[bit as usize], &tags[bit as usize])?;
        }
        map.end()
    }
}

struct SparseText<'w, S: Schema>(&'w Entities, &'w Bins<S>);

impl<S: Schema> Serialize for SparseText<'_, S>
where
    S::Column: Serialize,
{
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let sets = self.1.sparse().sets();
        let mut map = serializer.serialize_map(Some(sets.len()))?;
        for (set, bit) in sets.iter().zip(sparse_bits::<S>()) {
            let set = SetText {
                entities: Ids(self.0, set.owners()),
                values: set.values(),
            };
            map.serialize_entry(S::COMPONENT_FIELDS[bit as usize], &set)?;
        }
        map.end()
    }
}

struct SetText<'w, C> {
    entities: Ids<'w>,
    values: &'w C,
}

impl<C: Serialize> Serialize for SetText<'_, C> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut set = serializer.serialize_struct("SparseSet", 2)?;
        set.serialize_field("entities", &self.entities)?;
        set.serialize_field("values", self.values)?;
        set.end()
    }
}

// Reading.

/// The entity slots named by a part, with the generation each id gave:
/// checked against the allocator's slots once both are read.
type Named = (Vec<EntityIndex>, Vec<NonZeroU32>);

/// Reads the readable form, from the world's object.
pub(super) fn visit_world<'de, S: Schema, A: MapAccess<'de>>(
    mut map: A,
) -> Result<World<S>, A::Error>
where
    S::Column: LoadColumn,
    S::Resources: Deserialize<'de>,
{
    const WITHIN: &str = "the world";
    const KEYS: [&str; 9] = [
        "format",
        "schema",
        "entities",
        "tables",
        "tags",
        "resources",
        "changes",
        "sparse",
        "locals",
    ];
    let mut format = false;
    let mut header = false;
    let mut entities: Option<SavedEntities> = None;
    let mut tables: Option<(Tables<S>, Vec<Vec<NonZeroU32>>)> = None;
    let mut tags: Option<Vec<S::Column>> = None;
    let mut resources: Option<S::Resources> = None;
    let mut changes: Option<Changes> = None;
    let mut sparse: Option<Vec<(Named, S::Column)>> = None;
    let mut locals: Option<Locals> = None;
    while let Some(key) = map.next_key::<Key>()? {
        match &*key {
            "format" if !format => {
                let tag: u32 = map.next_value()?;
                if tag != FORMAT {
                    return Err(reject(format_args!(
                        "not a saved world of this version of `schemecs` (format tag {tag:#x}, \
                         expected {FORMAT:#x})"
                    )));
                }
                format = true;
            }
            "schema" if !header => {
                map.next_value_seed(HeaderSeed::<S>(PhantomData))?;
                header = true;
            }
            "entities" if entities.is_none() => entities = Some(map.next_value_seed(EntitiesSeed)?),
            "tables" if tables.is_none() => {
                tables = Some(map.next_value_seed(TablesSeed::<S>(PhantomData))?)
            }
            "tags" if tags.is_none() => {
                let Some((tables, _)) = &tables else {
                    return Err(reject(
                        "in the world of the save, `tags` comes before `tables`, which says how \
                         many values each tag has",
                    ));
                };
                tags = Some(map.next_value_seed(TagsSeed { tables })?);
            }
            "resources" if resources.is_none() => resources = Some(map.next_value()?),
            "changes" if changes.is_none() => {
                changes = Some(map.next_value_seed(ChangesSeed::<S>(PhantomData))?)
            }
            "sparse" if sparse.is_none() => {
                sparse = Some(map.next_value_seed(SparseSeed::<S>(PhantomData))?)
            }
            "locals" if locals.is_none() => locals = Some(map.next_value()?),
            key if KEYS.contains(&key) => return Err(key_twice(WITHIN, key)),
            key => return Err(key_unknown(WITHIN, key, &KEYS)),
        }
    }
    let missing = |key| key_missing::<A::Error>(WITHIN, key);
    if !format {
        return Err(missing("format"));
    }
    if !header {
        return Err(missing("schema"));
    }
    let entities = entities.ok_or_else(|| missing("entities"))?;
    let (tables, generations) = tables.ok_or_else(|| missing("tables"))?;
    for (table, generations) in tables.iter().zip(&generations) {
        check_ids(&entities, table.entities(), generations).map_err(reject::<A::Error>)?;
    }
    let mut sets = Vec::new();
    for ((owners, generations), values) in sparse.ok_or_else(|| missing("sparse"))? {
        check_ids(&entities, &owners, &generations).map_err(reject::<A::Error>)?;
        sets.push((owners, values));
    }
    assemble(
        entities,
        tables,
        tags.ok_or_else(|| missing("tags"))?,
        resources.ok_or_else(|| missing("resources"))?,
        changes.ok_or_else(|| missing("changes"))?,
        sets,
        locals.ok_or_else(|| missing("locals"))?,
    )
    .map_err(reject::<A::Error>)
}

/// Checks that each id names its slot's generation. A slot that holds no
/// waiting entity is left to the allocator's checks, which say why.
fn check_ids(
    entities: &SavedEntities,
    indices: &[EntityIndex],
    generations: &[NonZeroU32],
) -> Result<(), String> {
    for (&EntityIndex(index), &generation) in indices.iter().zip(generations) {
        match entities.waiting_generation(index) {
            Some(slot) if slot != generation => {
                return Err(format!(
                    "the save names entity {index}v{generation}, but the entity of slot {index} \
                     is {index}v{slot}"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Reads an object keyed by the field names of the components `bits`, each
/// once, in any order: each value by `read(bit, map)`, returned in the
/// order of `bits`. `unknown` and `missing` make the errors for a name
/// that is not one of them and for one that is not there; `within` names
/// the object for a name given twice.
fn read_by_component<'de, S: Schema, A: MapAccess<'de>, T>(
    map: &mut A,
    bits: &[u32],
    within: &str,
    mut read: impl FnMut(u32, &mut A) -> Result<T, A::Error>,
    unknown: impl Fn(&str) -> A::Error,
    missing: impl Fn(&str) -> A::Error,
) -> Result<Vec<T>, A::Error> {
    let name = |bit: u32| S::COMPONENT_FIELDS[bit as usize];
    let mut read_values: Vec<Option<T>> = bits.iter().map(|_| None).collect();
    while let Some(key) = map.next_key::<Key>()? {
        let at = bits
            .iter()
            .position(|&bit| name(bit) == key)
            .ok_or_else(|| unknown(&key))?;
        if read_values[at].is_some() {
            return Err(key_twice(within, &key));
        }
        read_values[at] = Some(read(bits[at], map)?);
    }
    read_values
        .into_iter()
        .zip(bits)
        .map(|(value, &bit)| value.ok_or_else(|| missing(name(bit))))
        .collect()
}

/// The header: the schema's names.
struct HeaderSeed<S>(PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for HeaderSeed<S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        const KEYS: [&str; 5] = ["name", "components", "tags", "sparse", "resources"];
        deserializer.deserialize_struct("Schema", &KEYS, self)
    }
}

impl<'de, S: Schema> Visitor<'de> for HeaderSeed<S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the schema of a saved world: its name and its names")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        const WITHIN: &str = "the schema";
        const KEYS: [&str; 5] = ["name", "components", "tags", "sparse", "resources"];
        let mut read: [Option<Vec<String>>; 4] = Default::default();
        let mut name: Option<String> = None;
        while let Some(key) = map.next_key::<Key>()? {
            let at = match &*key {
                "name" if name.is_none() => {
                    name = Some(map.next_value()?);
                    continue;
                }
                "components" => 0,
                "tags" => 1,
                "sparse" => 2,
                "resources" => 3,
                key if KEYS.contains(&key) => return Err(key_twice(WITHIN, key)),
                key => return Err(key_unknown(WITHIN, key, &KEYS)),
            };
            if read[at].is_some() {
                return Err(key_twice(WITHIN, &key));
            }
            let limit = if at == 3 { 1 << 16 } else { 128 };
            read[at] = Some(map.next_value_seed(bounded_names(limit))?);
        }
        let name = name.ok_or_else(|| key_missing::<A::Error>(WITHIN, "name"))?;
        let [components, tags, sparse, resources] = read;
        let take = |list: Option<Vec<String>>, key| {
            list.ok_or_else(|| key_missing::<A::Error>(WITHIN, key))
        };
        let components = take(components, "components")?;
        let (tags, sparse) = (take(tags, "tags")?, take(sparse, "sparse")?);
        let resources = take(resources, "resources")?;
        // Named bits; a name outside `components` is an error of its own.
        let bits = |list: &[String], what: &str| -> Result<u128, A::Error> {
            let mut bits = 0u128;
            for named in list {
                let Some(bit) = components.iter().position(|c| c == named) else {
                    return Err(reject(format_args!(
                        "the save's schema `{name}` names `{named}` among its {what}, but not \
                         among its components"
                    )));
                };
                bits |= 1 << bit;
            }
            Ok(bits)
        };
        let all = u128::MAX
            .checked_shr(128 - components.len() as u32)
            .unwrap_or(0);
        let data_bits = all & !bits(&tags, "tags")?;
        let sparse_bits = bits(&sparse, "sparse components")?;
        check_header::<S>(
            &name,
            &components,
            S::COMPONENT_FIELDS,
            data_bits,
            sparse_bits,
            &resources,
            S::RESOURCE_FIELDS,
        )
        .map_err(reject::<A::Error>)
    }
}

/// A list of at most `max` names.
fn bounded_names(max: usize) -> Bounded<String, PhantomData<String>> {
    Bounded {
        min: 0,
        max,
        seed: PhantomData,
        what: "names",
        marker: PhantomData,
    }
}

/// One entity id, `3v1`.
#[derive(Clone, Copy)]
struct IdSeed;

impl<'de> DeserializeSeed<'de> for IdSeed {
    type Value = Entity;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Entity, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for IdSeed {
    type Value = Entity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entity id such as \"3v1\": its index, `v`, its generation (not 0)")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Entity, E> {
        let parsed = text.split_once('v').and_then(|(index, generation)| {
            let index: u32 = index.parse().ok()?;
            let generation: u32 = generation.parse().ok()?;
            Entity::from_bits(u64::from(generation) << 32 | u64::from(index))
        });
        parsed.ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(text), &self))
    }
}

/// A list of entity ids, split into slots and generations.
struct IdsSeed(&'static str);

impl<'de> DeserializeSeed<'de> for IdsSeed {
    type Value = Named;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Named, D::Error> {
        let ids = deserializer.deserialize_seq(Bounded {
            min: 0,
            // Within the index space; each id is checked against its slot
            // once the allocator is read.
            max: u32::MAX as usize,
            seed: IdSeed,
            what: self.0,
            marker: PhantomData,
        })?;
        Ok(ids
            .into_iter()
            .map(|id| (EntityIndex(id.index()), id.generation()))
            .unzip())
    }
}

/// The tables, in id order, each checked as in the compact form.
struct TablesSeed<S>(PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for TablesSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (Tables<S>, Vec<Vec<NonZeroU32>>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for TablesSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (Tables<S>, Vec<Vec<NonZeroU32>>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the tables of a saved world")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut tables = Tables::<S>::default();
        let mut generations = Vec::new();
        while let Some((mask, (indices, ids), columns)) =
            seq.next_element_seed(TableSeed::<S>(PhantomData))?
        {
            let count = generations.len();
            super::save::push_table(&mut tables, count, mask, indices, columns)
                .map_err(reject::<A::Error>)?;
            generations.push(ids);
        }
        if generations.is_empty() {
            return Err(reject("a saved world has at least one table"));
        }
        Ok((tables, generations))
    }
}

/// One table: `{ components, entities, values }`.
struct TableSeed<S>(PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for TableSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (S::Mask, Named, Vec<S::Column>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_struct("Table", &["components", "entities", "values"], self)
    }
}

impl<'de, S: Schema> Visitor<'de> for TableSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (S::Mask, Named, Vec<S::Column>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table of a saved world: its components, entities and values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        const WITHIN: &str = "a table";
        const KEYS: [&str; 3] = ["components", "entities", "values"];
        let (mut mask, mut named, mut columns) = (None, None, None);
        while let Some(key) = map.next_key::<Key>()? {
            match &*key {
                "components" if mask.is_none() => {
                    mask = Some(map.next_value_seed(MaskSeed::<S>(PhantomData))?)
                }
                "entities" if named.is_none() => {
                    named = Some(map.next_value_seed(IdsSeed("entities of a table"))?)
                }
                "values" if columns.is_none() => {
                    let (Some(mask), Some((indices, _))) = (mask, &named) else {
                        return Err(reject(
                            "in a table of the save, `values` comes before `components` and \
                             `entities`, which say what it holds",
                        ));
                    };
                    columns = Some(map.next_value_seed(ValuesSeed::<S> {
                        mask,
                        rows: indices.len(),
                    })?);
                }
                key if KEYS.contains(&key) => return Err(key_twice(WITHIN, key)),
                key => return Err(key_unknown(WITHIN, key, &KEYS)),
            }
        }
        let mask = mask.ok_or_else(|| key_missing::<A::Error>(WITHIN, "components"))?;
        let named = named.ok_or_else(|| key_missing::<A::Error>(WITHIN, "entities"))?;
        let columns = columns.ok_or_else(|| key_missing::<A::Error>(WITHIN, "values"))?;
        Ok((mask, named, columns))
    }
}

/// An archetype, as its component names.
struct MaskSeed<S>(PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for MaskSeed<S> {
    type Value = S::Mask;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Mask, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for MaskSeed<S> {
    type Value = S::Mask;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the names of components of schema `{}`", S::NAME)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<S::Mask, A::Error> {
        let mut bits = 0u128;
        while let Some(name) = seq.next_element::<Key>()? {
            let Some(bit) = S::COMPONENT_FIELDS.iter().position(|c| *c == name) else {
                return Err(reject(format_args!(
                    "a table of the save has component `{name}`, which schema `{}` does not have \
                     (its components: {})",
                    S::NAME,
                    S::COMPONENT_FIELDS.join(", ")
                )));
            };
            if bits >> bit & 1 == 1 {
                return Err(reject(format_args!(
                    "a table of the save names component `{name}` twice"
                )));
            }
            if S::SPARSE_BITS >> bit & 1 == 1 {
                return Err(reject(format_args!(
                    "a table of the save has component `{name}`, which is sparse: only its \
                     sparse set holds it"
                )));
            }
            bits |= 1 << bit;
        }
        Ok(S::Mask::from_u128(bits))
    }
}

/// The named columns of `mask`'s data components, each `rows` long, in
/// any order.
struct ValuesSeed<S: Schema> {
    mask: S::Mask,
    rows: usize,
}

impl<'de, S: Schema> DeserializeSeed<'de> for ValuesSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for ValuesSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table's columns of values, keyed by component")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let bits: Vec<u32> = self.mask.intersection(S::Mask::DATA).iter_bits().collect();
        let components = || names_of::<S>(self.mask.bits().to_u128()).collect::<Vec<_>>();
        read_by_component::<S, _, _>(
            &mut map,
            &bits,
            "a table's `values` object",
            |bit, map| {
                map.next_value_seed(ColumnSeed::<S> {
                    bit,
                    rows: self.rows,
                    marker: PhantomData,
                })
            },
            |name| {
                reject(format_args!(
                    "a table of [{}] has values of `{name}`, which is not one of its \
                     components that carry data",
                    components().join(", ")
                ))
            },
            |name| {
                reject(format_args!(
                    "a table of [{}] lacks the values of `{name}`",
                    components().join(", ")
                ))
            },
        )
    }
}

/// The tag values, keyed by tag, in any order: each tag's count follows
/// from the tables.
struct TagsSeed<'t, S: Schema> {
    tables: &'t Tables<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for TagsSeed<'_, S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for TagsSeed<'_, S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<S::Column>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the tag values of a saved world, keyed by tag")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        const WITHIN: &str = "the `tags` object";
        let bits: Vec<u32> = S::Mask::TAGS.iter_bits().collect();
        let names: Vec<&str> = names_of::<S>(S::Mask::TAGS.bits().to_u128()).collect();
        read_by_component::<S, _, _>(
            &mut map,
            &bits,
            WITHIN,
            |bit, map| map.next_value_seed(ColumnSeed::of_tag(self.tables, bit)),
            |name| key_unknown(WITHIN, name, &names),
            |name| key_missing(WITHIN, name),
        )
    }
}

/// The sparse sets, keyed by component, in any order; returned in bit
/// order.
struct SparseSeed<S>(PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for SparseSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<(Named, S::Column)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for SparseSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = Vec<(Named, S::Column)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the sparse sets of a saved world, keyed by component")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        const WITHIN: &str = "the `sparse` object";
        let bits: Vec<u32> = sparse_bits::<S>().collect();
        let names: Vec<&str> = names_of::<S>(S::SPARSE_BITS).collect();
        read_by_component::<S, _, _>(
            &mut map,
            &bits,
            WITHIN,
            |bit, map| {
                map.next_value_seed(SetSeed::<S> {
                    bit,
                    marker: PhantomData,
                })
            },
            |name| key_unknown(WITHIN, name, &names),
            |name| key_missing(WITHIN, name),
        )
    }
}

/// One sparse set: `{ entities, values }`.
struct SetSeed<S> {
    bit: u32,
    marker: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for SetSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (Named, S::Column);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_struct("SparseSet", &["entities", "values"], self)
    }
}

impl<'de, S: Schema> Visitor<'de> for SetSeed<S>
where
    S::Column: LoadColumn,
{
    type Value = (Named, S::Column);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sparse set of a saved world: its entities and values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        const WITHIN: &str = "a sparse set";
        const KEYS: [&str; 2] = ["entities", "values"];
        let (mut named, mut values) = (None, None);
        while let Some(key) = map.next_key::<Key>()? {
            match &*key {
                "entities" if named.is_none() => {
                    named = Some(map.next_value_seed(IdsSeed("owners of a sparse set"))?)
                }
                "values" if values.is_none() => {
                    let Some((owners, _)) = &named else {
                        return Err(reject(
                            "in a sparse set of the save, `values` comes before `entities`, \
                             which says how many there are",
                        ));
                    };
                    values = Some(map.next_value_seed(ColumnSeed::<S> {
                        bit: self.bit,
                        rows: owners.len(),
                        marker: PhantomData,
                    })?);
                }
                key if KEYS.contains(&key) => return Err(key_twice(WITHIN, key)),
                key => return Err(key_unknown(WITHIN, key, &KEYS)),
            }
        }
        let named = named.ok_or_else(|| key_missing::<A::Error>(WITHIN, "entities"))?;
        let values = values.ok_or_else(|| key_missing::<A::Error>(WITHIN, "values"))?;
        Ok((named, values))
    }
}
