//! [`World::diff`]: what differs between two worlds of one schema, down to
//! the entity and the component, for finding where two peers (or two runs)
//! went apart.

use super::snapshot::ChecksumPart;
use super::World;
use crate::component_bounds::ChecksumSchema;
use crate::entity::Entity;
use crate::layout::Layout;
use crate::mask::Mask;
use crate::stable_hash::StableHasher;
use crate::storage::is_sparse;
use crate::structure::EntityStore;
use core::fmt;

/// What differs between two worlds of one schema ([`World::diff`]), part
/// by part of their [checksums](World::checksum_parts): empty exactly when
/// the checksums are equal.
///
/// The entities alive in one world only are listed; for each component
/// whose part differs, the entities alive in both whose values (or change
/// ticks) differ, and those that have the component in one world only;
/// resources, event queues and states by name; the systems' locals by the
/// system (or run condition) that keeps them; the change state as a whole.
/// Its `Display` is a report bounded in length: the first
/// [`WorldDiff::SHOWN`] entities of each list, then a count. With
/// `#[ecs(debug)]` on the schema, it also prints both values of each of
/// those entities ([`ComponentDiff::printed`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldDiff {
    parts: Vec<ChecksumPart>,
    only_in_self: Vec<Entity>,
    only_in_other: Vec<Entity>,
    components: Vec<ComponentDiff>,
    locals: Vec<String>,
}

/// How one component differs between two worlds (see [`WorldDiff`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentDiff {
    component: &'static str,
    values: Vec<Entity>,
    only_in_self: Vec<Entity>,
    only_in_other: Vec<Entity>,
    printed: Vec<(Entity, String, String)>,
}

impl ComponentDiff {
    /// The component, by its type's name in the schema.
    pub fn component(&self) -> &'static str {
        self.component
    }

    /// The entities alive in both worlds, with the component in both,
    /// whose values (or, for a tracked component, change ticks) differ; in
    /// slot order.
    pub fn values(&self) -> &[Entity] {
        &self.values
    }

    /// With `#[ecs(debug)]` on the schema: the first [`WorldDiff::SHOWN`]
    /// entities of [`ComponentDiff::values`], each with its value in the
    /// first world and in the second, as `Debug` prints them (`{:?}`).
    /// Empty without it.
    pub fn printed(&self) -> &[(Entity, String, String)] {
        &self.printed
    }

    /// The entities alive in both worlds that have the component in the
    /// first world (the one `diff` was called on) only.
    pub fn only_in_self(&self) -> &[Entity] {
        &self.only_in_self
    }

    /// The entities alive in both worlds that have the component in the
    /// second world only.
    pub fn only_in_other(&self) -> &[Entity] {
        &self.only_in_other
    }

    /// Whether every entity alive in both worlds has the same value of the
    /// component in both: the part differs only in where the values are
    /// kept (row order, tables) or in entities alive in one world only.
    pub fn is_layout_only(&self) -> bool {
        self.values.is_empty() && self.only_in_self.is_empty() && self.only_in_other.is_empty()
    }
}

impl WorldDiff {
    /// How many entities of each list the report shows before a count of
    /// the rest.
    pub const SHOWN: usize = 8;

    /// Whether the two worlds are equal: every part of their checksums is.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The parts of the checksum that differ, in order (see
    /// [`ChecksumParts::differing`](crate::checksum::ChecksumParts::differing)).
    pub fn parts(&self) -> &[ChecksumPart] {
        &self.parts
    }

    /// The entities alive in the first world (the one `diff` was called
    /// on) only, in slot order. A slot alive in both under different
    /// generations is listed here and in [`WorldDiff::only_in_other`].
    pub fn only_in_self(&self) -> &[Entity] {
        &self.only_in_self
    }

    /// The entities alive in the second world only, in slot order.
    pub fn only_in_other(&self) -> &[Entity] {
        &self.only_in_other
    }

    /// Each component whose part differs, in schema order.
    pub fn components(&self) -> &[ComponentDiff] {
        &self.components
    }

    /// The component `name`'s differences, if its part differs.
    pub fn component(&self, name: &str) -> Option<&ComponentDiff> {
        self.components.iter().find(|each| each.component == name)
    }

    /// Who keeps the [`Local`](crate::system::Local)s that differ, when the
    /// locals' part does, as the report words it: "system \`name\`", "the
    /// run condition of system \`name\`", ...; "system number N of a
    /// schedule" for a system neither world knows the name of (as after a
    /// load).
    pub fn locals(&self) -> &[String] {
        &self.locals
    }

    /// The resources, event queues and states whose parts differ, by name.
    pub fn resources(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.parts.iter().filter_map(|part| match part {
            ChecksumPart::OfResource(name) => Some(*name),
            _ => None,
        })
    }
}

/// Writes `entities`, the first [`WorldDiff::SHOWN`] of them, then how many
/// more.
fn write_entities(f: &mut fmt::Formatter<'_>, entities: &[Entity]) -> fmt::Result {
    for (i, entity) in entities.iter().take(WorldDiff::SHOWN).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{entity}")?;
    }
    if entities.len() > WorldDiff::SHOWN {
        write!(f, " and {} more", entities.len() - WorldDiff::SHOWN)?;
    }
    Ok(())
}

/// A report, one line per difference:
///
/// ```text
/// 2 parts differ
///   entities alive in the first world only (1): 7v1
///   component `Pos`: values differ for 2 entities: 3v1, 5v1
///   resource `Score`
/// ```
impl fmt::Display for WorldDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("the worlds are equal");
        }
        let count = self.parts.len();
        if count == 1 {
            f.write_str("1 part differs")?;
        } else {
            write!(f, "{count} parts differ")?;
        }
        for part in &self.parts {
            f.write_str("\n  ")?;
            match part {
                ChecksumPart::Entities => {
                    let mut any = false;
                    for (list, which) in [
                        (&self.only_in_self, "first"),
                        (&self.only_in_other, "second"),
                    ] {
                        if !list.is_empty() {
                            if any {
                                f.write_str("\n  ")?;
                            }
                            write!(
                                f,
                                "entities alive in the {which} world only ({}): ",
                                list.len()
                            )?;
                            write_entities(f, list)?;
                            any = true;
                        }
                    }
                    if !any {
                        f.write_str(
                            "the same entities are alive, but the entity slots (generations, \
                             free list) or their tables and rows differ",
                        )?;
                    }
                }
                ChecksumPart::OfComponent(name) => {
                    write!(f, "component `{name}`:")?;
                    let Some(diff) = self.component(name) else {
                        continue;
                    };
                    if diff.is_layout_only() {
                        f.write_str(
                            " the same value for every entity alive in both worlds; the \
                             rows differ (their order, or entities alive in one world only)",
                        )?;
                    }
                    let mut first = true;
                    for (list, what) in [
                        (&diff.values, "values (or change ticks) differ for"),
                        (&diff.only_in_self, "in the first world only for"),
                        (&diff.only_in_other, "in the second world only for"),
                    ] {
                        if list.is_empty() {
                            continue;
                        }
                        f.write_str(if first { " " } else { "; " })?;
                        first = false;
                        let plural = if list.len() == 1 {
                            "entity"
                        } else {
                            "entities"
                        };
                        write!(f, "{what} {} {plural}: ", list.len())?;
                        write_entities(f, list)?;
                    }
                    for (entity, first, second) in &diff.printed {
                        write!(f, "\n    {entity}: {first} in the first world, ")?;
                        if first == second {
                            f.write_str("the same value in the second (its change ticks differ)")?;
                        } else {
                            write!(f, "{second} in the second")?;
                        }
                    }
                }
                ChecksumPart::OfResource(name) => write!(f, "resource `{name}`")?,
                ChecksumPart::Changes => f.write_str(
                    "the change state (the world's tick, or which run of a schedule saw what)",
                )?,
                ChecksumPart::Locals => {
                    f.write_str("the systems' locals")?;
                    for (i, owner) in self.locals.iter().enumerate() {
                        f.write_str(if i == 0 { ": of " } else { ", " })?;
                        f.write_str(owner)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The digest of what entity `entity` (alive) holds of component `bit`, or
/// `None` if it lacks it: its value and, if tracked, its change ticks.
fn value_digest<S: ChecksumSchema>(
    store: &EntityStore<S>,
    entity: Entity,
    bit: u32,
) -> Option<u128> {
    let location = store.entities().location(entity)?;
    let mut hasher = StableHasher::new();
    if is_sparse::<S>(bit) {
        let set = store.bins().sparse().set(bit);
        let dense = set.slot(entity.into())?;
        S::hash_row(set.values(), dense, &mut hasher);
    } else {
        let table = store.tables().get(location.table);
        if !table.mask().has(bit) {
            return None;
        }
        if S::DATA_BITS & (1 << bit) != 0 {
            S::hash_row(table.column(bit), location.row.index(), &mut hasher);
        }
        // A tag: having it is all there is.
    }
    Some(hasher.finish())
}

/// What entity `entity` (alive, with data component `bit`) holds of it,
/// as `Debug` prints it (`#[ecs(debug)]`).
fn value_text<S: ChecksumSchema>(store: &EntityStore<S>, entity: Entity, bit: u32) -> String {
    struct Row<'c, S: ChecksumSchema>(&'c S::Column, usize);
    impl<S: ChecksumSchema> fmt::Display for Row<'_, S> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            S::fmt_row(self.0, self.1, f)
        }
    }
    if is_sparse::<S>(bit) {
        let set = store.bins().sparse().set(bit);
        match set.slot(entity.into()) {
            Some(dense) => Row::<S>(set.values(), dense).to_string(),
            None => String::new(),
        }
    } else {
        match store.entities().location(entity) {
            Some(location) => {
                let table = store.tables().get(location.table);
                Row::<S>(table.column(bit), location.row.index()).to_string()
            }
            None => String::new(),
        }
    }
}

/// The entities alive in `store`, in slot order.
fn alive<S: Layout>(store: &EntityStore<S>) -> Vec<Entity> {
    let entities = store.entities();
    let mut alive: Vec<Entity> = store
        .tables()
        .iter()
        .flat_map(|table| table.entities().iter().map(|&index| entities.entity(index)))
        .collect();
    alive.sort_unstable_by_key(|entity| entity.index());
    alive
}

impl<S: Layout> World<S> {
    /// What differs between this world and `other`, a world of the same
    /// schema: see [`WorldDiff`]. Empty exactly when the two checksums are
    /// equal; it covers what [`World::checksum`] covers.
    ///
    /// It costs two [`World::checksum_parts`], then a look at each entity
    /// alive in both worlds for each component whose part differs: meant
    /// for finding a desync, not for every frame.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::checksum::StableHash;
    /// #[derive(Clone, StableHash)] struct Pos(i32);
    /// #[derive(Clone, StableHash)] struct Vel(i32);
    /// #[derive(Clone, Default, StableHash)] struct Score(u32);
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, vel: Vel, #[ecs(resource)] score: Score }
    ///
    /// let mut a = World::<Game>::new();
    /// let ids: Vec<Entity> = a.spawn_batch((0..4).map(|i| (Pos(i), Vel(1)))).collect();
    /// let mut b = a.clone();
    /// assert!(a.diff(&b).is_empty());
    ///
    /// b.get_mut::<Pos>(ids[2]).unwrap().0 += 1;
    /// b.resource_mut::<Score>().0 = 10;
    /// let diff = a.diff(&b);
    /// assert_eq!(diff.component("Pos").unwrap().values(), [ids[2]]);
    /// assert_eq!(diff.resources().collect::<Vec<_>>(), ["Score"]);
    /// assert_eq!(
    ///     diff.to_string(),
    ///     "2 parts differ\n  \
    ///      component `Pos`: values (or change ticks) differ for 1 entity: 2v1\n  \
    ///      resource `Score`"
    /// );
    /// ```
    pub fn diff(&self, other: &World<S>) -> WorldDiff
    where
        S: ChecksumSchema,
    {
        let parts = self.checksum_parts().differing(&other.checksum_parts());
        let mut diff = WorldDiff {
            parts,
            only_in_self: Vec::new(),
            only_in_other: Vec::new(),
            components: Vec::new(),
            locals: Vec::new(),
        };
        if diff.parts.is_empty() {
            return diff;
        }
        if diff.parts.contains(&ChecksumPart::Locals) {
            diff.locals = self.locals.differing_owners(&other.locals);
        }
        let (mine, theirs) = (alive(&self.store), alive(&other.store));
        // A merge of the two lists, by slot: a slot alive in both under
        // different generations holds two entities, one in each list.
        let mut both = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < mine.len() || j < theirs.len() {
            match (mine.get(i), theirs.get(j)) {
                (Some(&a), Some(&b)) if a == b => {
                    both.push(a);
                    i += 1;
                    j += 1;
                }
                (Some(&a), Some(&b)) if a.index() <= b.index() => {
                    diff.only_in_self.push(a);
                    i += 1;
                }
                (Some(&a), None) => {
                    diff.only_in_self.push(a);
                    i += 1;
                }
                (_, Some(&b)) => {
                    diff.only_in_other.push(b);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        for part in &diff.parts {
            let ChecksumPart::OfComponent(name) = *part else {
                continue;
            };
            let Some(bit) = S::COMPONENT_NAMES.iter().position(|&each| each == name) else {
                continue;
            };
            let bit = bit as u32;
            let mut component = ComponentDiff {
                component: name,
                values: Vec::new(),
                only_in_self: Vec::new(),
                only_in_other: Vec::new(),
                printed: Vec::new(),
            };
            for &entity in &both {
                match (
                    value_digest(&self.store, entity, bit),
                    value_digest(&other.store, entity, bit),
                ) {
                    (Some(a), Some(b)) if a != b => component.values.push(entity),
                    (Some(_), None) => component.only_in_self.push(entity),
                    (None, Some(_)) => component.only_in_other.push(entity),
                    _ => {}
                }
            }
            // A tag's values all print alike; only data is worth printing.
            if S::PRINTS_VALUES && S::DATA_BITS & (1 << bit) != 0 {
                for &entity in component.values.iter().take(WorldDiff::SHOWN) {
                    let first = value_text(&self.store, entity, bit);
                    let second = value_text(&other.store, entity, bit);
                    component.printed.push((entity, first, second));
                }
            }
            diff.components.push(component);
        }
        diff
    }
}
