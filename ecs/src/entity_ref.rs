//! [`EntityRef`] and [`EntityMut`]: one live entity, its location looked up
//! once, for reading (or writing) several of its components.

use crate::entity::Entity;
use crate::layout::{Component, Layout};
use crate::mask::Mask;
use crate::storage::{is_sparse, Bins, Column, Soa, Table, Values};
use core::fmt;

/// One live entity of a [`World`](crate::world::World), read-only: what
/// [`World::entity`](crate::world::World::entity) returns.
///
/// The entity's table and row are looked up once, when it is made; each
/// [`get`](EntityRef::get) is then a column index and a row. It borrows the
/// world shared, so it is `Copy`, and any number of them may be held beside
/// queries and other readers.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Debug, PartialEq)] struct Frozen;
/// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel, frozen: Frozen }
///
/// let mut world = World::<Physics>::new();
/// let a = world.spawn((Pos(1), Frozen));
///
/// let e = world.entity(a).unwrap();
/// assert_eq!(e.id(), a);
/// assert_eq!(e.get::<Pos>(), Some(&Pos(1)));
/// assert_eq!(e.get::<Vel>(), None);
/// assert!(e.has::<Frozen>() && !e.has::<Vel>());
/// assert_eq!(e.archetype(), PhysicsMask::POS | PhysicsMask::FROZEN);
/// assert_eq!(format!("{e:?}"), format!("EntityRef({a:?}: Pos, Frozen)"));
/// ```
pub struct EntityRef<'w, S: Layout> {
    id: Entity,
    /// The entity's table; its row is `row`.
    table: &'w Table<S>,
    row: usize,
    /// For the entity's tags, which have no column, and its sparse
    /// components.
    bins: &'w Bins<S>,
}

impl<'w, S: Layout> EntityRef<'w, S> {
    /// The view of live entity `id`, at `row` of `table`.
    #[inline]
    pub(crate) fn new(id: Entity, table: &'w Table<S>, row: usize, bins: &'w Bins<S>) -> Self {
        EntityRef {
            id,
            table,
            row,
            bins,
        }
    }

    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.id
    }

    /// Its component `C`; `None` if it lacks it. The reference lives as long
    /// as the world's borrow, not just this `EntityRef`.
    #[inline]
    pub fn get<C: Component<S>>(&self) -> Option<&'w C> {
        const { crate::layout::whole_check::<S>(C::BIT) };
        self.get_after_check()
    }

    /// [`EntityRef::get`] for a caller that has made its compile-time check
    /// itself ([`World::get`](crate::world::World::get)), so that a misuse is
    /// reported once, at the user's call.
    #[inline]
    pub(crate) fn get_after_check<C: Component<S>>(&self) -> Option<&'w C> {
        let (table, bins) = (self.table, self.bins);
        if const { is_sparse::<S>(C::BIT) } {
            bins.sparse().get(self.id.into())
        } else if !table.mask().has(C::BIT) {
            None
        } else if const { S::DATA_BITS & (1 << C::BIT) != 0 } {
            C::column(table.column(C::BIT)).get(self.row)
        } else {
            // A tag: every value of a zero-sized type is the same.
            bins.tag()
        }
    }

    /// Its `#[ecs(soa)]` component `C`, field by field (`CRef`: a reference
    /// to each field); `None` if it lacks it. A compile error for a
    /// component stored whole.
    #[inline]
    pub fn get_soa<C: Component<S> + Soa>(&self) -> Option<C::Ref<'w>> {
        const { crate::layout::soa_check::<S>(C::BIT) };
        let table = self.table;
        if !table.mask().has(C::BIT) {
            return None;
        }
        let fields = C::values(table.column(C::BIT)).fields()?;
        (self.row < C::slices_len(&fields)).then(|| C::row(fields, self.row))
    }

    /// Whether it has component `C`.
    #[inline]
    pub fn has<C: Component<S>>(&self) -> bool {
        if const { is_sparse::<S>(C::BIT) } {
            self.bins.sparse().has(C::BIT, self.id.into())
        } else {
            self.table.mask().has(C::BIT)
        }
    }

    /// Its archetype: the set of its components (sparse ones included).
    #[inline]
    pub fn archetype(&self) -> S::Mask {
        archetype(self.id, self.table, self.bins)
    }
}

/// The archetype of `id`, whose row is in `table`.
#[inline]
fn archetype<S: Layout>(id: Entity, table: &Table<S>, bins: &Bins<S>) -> S::Mask {
    if const { S::SPARSE_BITS == 0 } {
        table.mask()
    } else {
        table.mask().union(bins.sparse().mask_of(id.into()))
    }
}

impl<S: Layout> Clone for EntityRef<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Layout> Copy for EntityRef<'_, S> {}

/// Written `EntityRef(3v1: Pos, Frozen)`: the entity and the names of its
/// components, in bit order (`EntityRef(3v1: no components)` for none).
impl<S: Layout> fmt::Debug for EntityRef<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_entity::<S>(f, "EntityRef", self.id, self.archetype())
    }
}

/// One live entity of a [`World`](crate::world::World), for reading and writing
/// its components: what [`World::entity_mut`](crate::world::World::entity_mut)
/// returns. As [`EntityRef`], with [`get_mut`](EntityMut::get_mut) beside
/// [`get`](EntityMut::get).
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel }
///
/// let mut world = World::<Physics>::new();
/// let a = world.spawn((Pos(1), Vel(2)));
///
/// let mut e = world.entity_mut(a).unwrap();
/// let step = e.get::<Vel>().unwrap().0;
/// e.get_mut::<Pos>().unwrap().0 += step;
/// assert_eq!(world.get::<Pos>(a), Some(&Pos(3)));
/// ```
pub struct EntityMut<'w, S: Layout> {
    id: Entity,
    table: &'w mut Table<S>,
    row: usize,
    bins: &'w mut Bins<S>,
    /// The tick a write of a tracked component is stamped with.
    tick: u32,
}

impl<'w, S: Layout> EntityMut<'w, S> {
    /// The view of live entity `id`, at `row` of `table`; writes of tracked
    /// components are stamped with `tick`.
    #[inline]
    pub(crate) fn new(
        id: Entity,
        table: &'w mut Table<S>,
        row: usize,
        bins: &'w mut Bins<S>,
        tick: u32,
    ) -> Self {
        EntityMut {
            id,
            table,
            row,
            bins,
            tick,
        }
    }

    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.id
    }

    /// Its component `C`; `None` if it lacks it.
    #[inline]
    pub fn get<C: Component<S>>(&self) -> Option<&C> {
        EntityRef::new(self.id, self.table, self.row, self.bins).get()
    }

    /// Its component `C`, mutably; `None` if it lacks it.
    #[inline]
    pub fn get_mut<C: Component<S>>(&mut self) -> Option<&mut C> {
        self.reborrow().into_mut()
    }

    /// A shorter-lived view of the same entity.
    #[inline]
    fn reborrow(&mut self) -> EntityMut<'_, S> {
        EntityMut::new(
            self.id,
            &mut *self.table,
            self.row,
            &mut *self.bins,
            self.tick,
        )
    }

    /// Its component `C`, mutably, for as long as the world's borrow: the
    /// `EntityMut` is used up.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i64);
    /// #[derive(Schema)] struct S { pos: Pos }
    ///
    /// fn pos_of(world: &mut World<S>, e: Entity) -> Option<&mut Pos> {
    ///     world.entity_mut(e)?.into_mut::<Pos>()
    /// }
    ///
    /// let mut world = World::<S>::new();
    /// let a = world.spawn((Pos(1),));
    /// pos_of(&mut world, a).unwrap().0 = 5;
    /// assert_eq!(world.get::<Pos>(a).unwrap().0, 5);
    /// ```
    #[inline]
    pub fn into_mut<C: Component<S>>(self) -> Option<&'w mut C> {
        const { crate::layout::kept_check::<S>(C::BIT) };
        const { crate::layout::whole_check::<S>(C::BIT) };
        self.into_mut_kept()
    }

    /// Its `#[ecs(soa)]` component `C`, field by field and mutably
    /// (`CMut`: an exclusive reference to each field); `None` if it lacks
    /// it. A compile error for a component stored whole.
    #[inline]
    pub fn get_soa_mut<C: Component<S> + Soa>(&mut self) -> Option<C::Mut<'_>> {
        self.reborrow().into_soa_mut::<C>()
    }

    /// [`EntityMut::get_soa_mut`] for as long as the world's borrow: the
    /// `EntityMut` is used up.
    #[inline]
    pub fn into_soa_mut<C: Component<S> + Soa>(self) -> Option<C::Mut<'w>> {
        const { crate::layout::soa_check::<S>(C::BIT) };
        const { crate::layout::kept_check::<S>(C::BIT) };
        if !self.table.mask().has(C::BIT) {
            return None;
        }
        let column = self.table.column_mut(C::BIT);
        if const { S::TRACKED_BITS & (1 << C::BIT) != 0 } {
            column.mark_changed(self.row, self.tick);
        }
        let fields = C::values_mut(column).fields_mut()?;
        (self.row < C::slices_mut_len(&fields)).then(|| C::row_mut(fields, self.row))
    }

    /// [`EntityMut::into_mut`] without its check: also for the relations
    /// and inverse lists the world keeps.
    #[inline]
    pub(crate) fn into_mut_kept<C: Component<S>>(self) -> Option<&'w mut C> {
        if const { is_sparse::<S>(C::BIT) } {
            self.bins.sparse_mut().get_mut(self.id.into(), self.tick)
        } else if !self.table.mask().has(C::BIT) {
            None
        } else if const { S::DATA_BITS & (1 << C::BIT) != 0 } {
            let column = self.table.column_mut(C::BIT);
            if const { S::TRACKED_BITS & (1 << C::BIT) != 0 } {
                column.mark_changed(self.row, self.tick);
            }
            C::column_mut(column).get_mut(self.row)
        } else {
            self.bins.tag_mut()
        }
    }

    /// Whether it has component `C`.
    #[inline]
    pub fn has<C: Component<S>>(&self) -> bool {
        if const { is_sparse::<S>(C::BIT) } {
            self.bins.sparse().has(C::BIT, self.id.into())
        } else {
            self.table.mask().has(C::BIT)
        }
    }

    /// Its archetype: the set of its components (sparse ones included).
    #[inline]
    pub fn archetype(&self) -> S::Mask {
        archetype(self.id, self.table, self.bins)
    }
}

impl<'w, S: Layout> From<EntityMut<'w, S>> for EntityRef<'w, S> {
    fn from(entity: EntityMut<'w, S>) -> Self {
        EntityRef::new(entity.id, entity.table, entity.row, entity.bins)
    }
}

/// Written `EntityMut(3v1: Pos, Vel)`, as [`EntityRef`].
impl<S: Layout> fmt::Debug for EntityMut<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_entity::<S>(f, "EntityMut", self.id, self.archetype())
    }
}

fn fmt_entity<S: Layout>(
    f: &mut fmt::Formatter<'_>,
    kind: &str,
    id: Entity,
    archetype: S::Mask,
) -> fmt::Result {
    write!(f, "{kind}({id:?}: ")?;
    if archetype.is_empty() {
        f.write_str("no components")?;
    }
    for (i, bit) in archetype.iter_bits().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str(S::COMPONENT_NAMES[bit as usize])?;
    }
    f.write_str(")")
}
