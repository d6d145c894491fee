//! [`View`] and [`ViewMut`]: one component of any entity, by id, at the
//! cost of one lookup.

use crate::entity::{Entity, Slots};
use crate::layout::{Component, Layout};
use crate::mask::Mask;
use crate::storage::{is_sparse, Bins, Column, Table};
use crate::structure::EntityStore;
use core::fmt;

/// Whether component `bit` of `S` lives in table columns: not sparse, not a
/// tag.
const fn in_columns<S: Layout>(bit: u32) -> bool {
    !is_sparse::<S>(bit) && S::DATA_BITS & (1 << bit) != 0
}

/// Whether component `bit` of `S` is tracked (`#[ecs(track)]`).
const fn is_tracked<S: Layout>(bit: u32) -> bool {
    S::TRACKED_BITS & (1 << bit) != 0
}

/// Component `C` of any entity, read by id: made by [`World::view`], kept
/// for a loop that reaches entities through their ids (a parent's children,
/// a unit's target, a cell's neighbours).
///
/// [`World::get`] finds the entity's table, then the table's column of `C`
/// (a count of the bits below `C`'s in the table's archetype), then the
/// row. A view finds every table's column once, when it is made; each
/// [`View::get`] is then the entity's slot (its generation checked) and two
/// indexed loads. Making one costs a pass over the world's tables and a
/// list of one slice per table: keep it for the loop, not for one entity.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Health(u32);
/// #[derive(Debug, PartialEq)] struct Target(Entity);
/// #[derive(Schema)] struct Arena { health: Health, target: Target }
///
/// let mut world = World::<Arena>::new();
/// let orc = world.spawn((Health(30),));
/// let elf = world.spawn((Health(20), Target(orc)));
/// let imp = world.spawn((Health(5), Target(elf)));
///
/// // The health of each attacker's target.
/// let health = world.view::<Health>();
/// let targets: Vec<u32> = world
///     .query::<&Target>()
///     .iter()
///     .filter_map(|target| health.get(target.0))
///     .map(|health| health.0)
///     .collect();
/// assert_eq!(targets, [30, 20]);
///
/// world.despawn(imp).unwrap();
/// assert_eq!(world.view::<Health>().get(imp), None); // a stale id: `None`
/// ```
///
/// [`World::get`]: crate::world::World::get
/// [`World::view`]: crate::world::World::view
pub struct View<'w, S: Layout, C: Component<S>> {
    slots: Slots<'w>,
    store: &'w EntityStore<S>,
    /// By table id: the table's values of `C`, empty where the table lacks
    /// `C` (and for every table when `C` is sparse or a tag, which
    /// [`EntityStore::get`] reads instead).
    columns: Vec<&'w [C]>,
}

impl<'w, S: Layout, C: Component<S>> View<'w, S, C> {
    /// The view of `store`'s values of `C`.
    pub(crate) fn new(store: &'w EntityStore<S>) -> Self {
        let columns = if const { in_columns::<S>(C::BIT) } {
            store
                .tables()
                .iter()
                .map(|table| column_of::<S, C>(table))
                .collect()
        } else {
            Vec::new()
        };
        View {
            slots: store.entities().slots(),
            store,
            columns,
        }
    }

    /// Component `C` of `entity`; `None` if the entity is not alive or
    /// lacks `C`.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&'w C> {
        if const { in_columns::<S>(C::BIT) } {
            let location = self.slots.location(entity)?;
            self.columns
                .get(location.table.index())?
                .get(location.row.index())
        } else {
            self.store.get(entity)
        }
    }

    /// Whether `entity` is alive and has `C`.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }
}

/// The values of `C` in `table`, empty if it has none.
fn column_of<S: Layout, C: Component<S>>(table: &Table<S>) -> &[C] {
    if table.mask().has(C::BIT) {
        C::column(table.column(C::BIT))
    } else {
        &[]
    }
}

impl<S: Layout, C: Component<S>> Clone for View<'_, S, C> {
    fn clone(&self) -> Self {
        View {
            slots: self.slots,
            store: self.store,
            columns: self.columns.clone(),
        }
    }
}

impl<S: Layout, C: Component<S>> fmt::Debug for View<'_, S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("component", &S::COMPONENT_NAMES[C::BIT as usize])
            .finish_non_exhaustive()
    }
}

/// Component `C` of any entity, read and written by id: made by
/// [`World::view_mut`]; see [`View`], its shared form, for what it costs
/// and when to keep one.
///
/// Writing through [`ViewMut::get_mut`] marks the value changed, as
/// [`World::get_mut`] does, when `C` is tracked (`#[ecs(track)]`).
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Health(u32);
/// #[derive(Debug, PartialEq)] struct Target(Entity);
/// #[derive(Schema)] struct Arena { health: Health, target: Target }
///
/// let mut world = World::<Arena>::new();
/// let orc = world.spawn((Health(30),));
/// let elf = world.spawn((Health(20), Target(orc)));
///
/// // Each attacker hits its target for 7.
/// let targets: Vec<Entity> = world.query::<&Target>().iter().map(|t| t.0).collect();
/// let mut health = world.view_mut::<Health>();
/// for target in targets {
///     if let Some(health) = health.get_mut(target) {
///         health.0 -= 7;
///     }
/// }
/// assert_eq!(world.get::<Health>(orc), Some(&Health(23)));
/// assert_eq!(world.get::<Health>(elf), Some(&Health(20)));
/// ```
///
/// [`World::view_mut`]: crate::world::World::view_mut
/// [`World::get_mut`]: crate::world::World::get_mut
pub struct ViewMut<'w, S: Layout, C: Component<S>> {
    slots: Slots<'w>,
    /// By table id: the table's values of `C`, empty where the table lacks
    /// `C`, and for every table when `C` is tracked, sparse or a tag.
    columns: Vec<&'w mut [C]>,
    /// By table id, when `C` is tracked: the table's column of `C` (`None`
    /// where it has none), whose change ticks and their summaries a write
    /// updates row by row, as `World::get_mut` does. Empty otherwise.
    tracked: Vec<Option<&'w mut S::Column>>,
    /// By table id, for a tag: whether the table has it. Empty otherwise.
    tagged: Vec<bool>,
    /// The sparse sets and the tags' values.
    bins: &'w mut Bins<S>,
    /// The change tick that writes are marked with.
    tick: u32,
}

impl<'w, S: Layout, C: Component<S>> ViewMut<'w, S, C> {
    /// The view of `store`'s values of `C`, to write.
    pub(crate) fn new(store: &'w mut EntityStore<S>) -> Self {
        let (entities, tables, bins, tick) = store.lend_all();
        let mut columns = Vec::new();
        let mut tracked = Vec::new();
        let mut tagged = Vec::new();
        if const { is_tracked::<S>(C::BIT) && in_columns::<S>(C::BIT) } {
            tracked.extend(
                tables
                    .iter_mut()
                    .map(|table| table.mask().has(C::BIT).then(|| table.column_mut(C::BIT))),
            );
        } else if const { in_columns::<S>(C::BIT) } {
            columns.extend(tables.iter_mut().map(|table| {
                if table.mask().has(C::BIT) {
                    C::column_mut(table.column_mut(C::BIT)).as_mut_slice()
                } else {
                    &mut []
                }
            }));
        } else if const { !is_sparse::<S>(C::BIT) } {
            tagged.extend(tables.iter().map(|table| table.mask().has(C::BIT)));
        }
        ViewMut {
            slots: entities.slots(),
            columns,
            tracked,
            tagged,
            bins,
            tick,
        }
    }

    /// Component `C` of `entity`; `None` if the entity is not alive or
    /// lacks `C`.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&C> {
        let location = self.slots.location(entity)?;
        let row = location.row.index();
        if const { is_tracked::<S>(C::BIT) && in_columns::<S>(C::BIT) } {
            let column = self.tracked.get(location.table.index())?.as_deref()?;
            C::column(column).get(row)
        } else if const { in_columns::<S>(C::BIT) } {
            self.columns.get(location.table.index())?.get(row)
        } else if const { is_sparse::<S>(C::BIT) } {
            self.bins.sparse().get(entity.into())
        } else if *self.tagged.get(location.table.index())? {
            self.bins.tag()
        } else {
            None
        }
    }

    /// Component `C` of `entity`, mutably; `None` if the entity is not
    /// alive or lacks `C`. A tracked `C` is marked changed.
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut C> {
        let location = self.slots.location(entity)?;
        let row = location.row.index();
        if const { is_tracked::<S>(C::BIT) && in_columns::<S>(C::BIT) } {
            let column = self
                .tracked
                .get_mut(location.table.index())?
                .as_deref_mut()?;
            if row >= C::column(column).len() {
                return None;
            }
            column.mark_changed(row, self.tick);
            C::column_mut(column).get_mut(row)
        } else if const { in_columns::<S>(C::BIT) } {
            self.columns.get_mut(location.table.index())?.get_mut(row)
        } else if const { is_sparse::<S>(C::BIT) } {
            self.bins.sparse_mut().get_mut(entity.into(), self.tick)
        } else if *self.tagged.get(location.table.index())? {
            self.bins.tag_mut()
        } else {
            None
        }
    }

    /// Whether `entity` is alive and has `C`.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }
}

impl<S: Layout, C: Component<S>> fmt::Debug for ViewMut<'_, S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ViewMut")
            .field("component", &S::COMPONENT_NAMES[C::BIT as usize])
            .finish_non_exhaustive()
    }
}
