//! [`SplitWorld`]: one world's columns and resources, borrowed apart so that
//! several systems can hold parts of it at once, without `unsafe`.

use crate::entity::{Entities, EntityIndex};
use crate::query::ColumnSlot;
use crate::schema::Schema;
use crate::storage::TableId;

/// A world taken apart for the systems of one stage: each table's columns and
/// each resource sit in a slot of their own, from which a system parameter
/// takes the column (or resource) shared or exclusively.
///
/// A slot hands out one exclusive borrow, or any number of shared ones; a
/// second borrow that would alias panics. The schedule only lets systems share
/// a stage when their accesses are disjoint, and a system's own parameters are
/// checked for conflicts at compile time, so that panic is a last line of
/// defence that is never reached.
#[doc(hidden)]
pub struct SplitWorld<'w, S: Schema> {
    pub(crate) entities: &'w Entities,
    /// Indexed by [`TableId`].
    pub(crate) tables: Vec<TableSlots<'w, S>>,
    pub(crate) resources: S::ResourceSlots<'w>,
}

/// One table, taken apart: its archetype, its entities (shared by everyone)
/// and a slot per column.
pub(crate) struct TableSlots<'w, S: Schema> {
    pub(crate) mask: S::Mask,
    /// The table's entities, by slot index.
    pub(crate) entities: &'w [EntityIndex],
    pub(crate) columns: Vec<ColumnSlot<'w, S::Column>>,
}

impl<'w, S: Schema> SplitWorld<'w, S> {
    /// The slots of table `id`.
    #[inline]
    pub(crate) fn table(&mut self, id: TableId) -> &mut TableSlots<'w, S> {
        &mut self.tables[id.index()]
    }
}

/// One resource of a [`SplitWorld`], free or lent out.
#[doc(hidden)]
pub enum ResourceSlot<'a, T> {
    /// Not borrowed yet.
    Free(&'a mut T),
    /// Lent to readers.
    Shared(&'a T),
    /// Lent to a writer.
    Taken,
}

const RESOURCE_ALIASING: &str = "ecs internal error: a resource was borrowed while a system \
                                 writes it; the schedule's conflict checks should have \
                                 prevented this";

impl<'a, T> ResourceSlot<'a, T> {
    /// The resource, shared with any other readers.
    #[inline]
    pub(crate) fn shared(&mut self) -> &'a T {
        let resource: &'a T = match core::mem::replace(self, ResourceSlot::Taken) {
            ResourceSlot::Free(resource) => resource,
            ResourceSlot::Shared(resource) => resource,
            ResourceSlot::Taken => panic!("{RESOURCE_ALIASING}"),
        };
        *self = ResourceSlot::Shared(resource);
        resource
    }

    /// The resource, for one writer.
    #[inline]
    pub(crate) fn exclusive(&mut self) -> &'a mut T {
        match core::mem::replace(self, ResourceSlot::Taken) {
            ResourceSlot::Free(resource) => resource,
            _ => panic!("{RESOURCE_ALIASING}"),
        }
    }
}
