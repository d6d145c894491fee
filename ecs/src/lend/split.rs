//! [`SplitWorld`]: every table's columns and every resource of one world in
//! [`Lent`] slots, for the systems of one stage.

use super::Lent;
use crate::entity::Entities;
use crate::schema::Schema;
use crate::storage::{EntityIndex, Table, TableId};

/// A world taken apart for the systems of one stage: each table's columns and
/// each resource in a [`Lent`] slot, from which a system parameter takes what
/// it declared.
#[doc(hidden)]
pub struct SplitWorld<'w, S: Schema> {
    pub(crate) entities: &'w Entities,
    /// Indexed by [`TableId`].
    pub(crate) tables: Vec<LentTable<'w, S>>,
    pub(crate) resources: S::ResourceSlots<'w>,
}

/// One table taken apart: its archetype, its entities (shared by everyone)
/// and a slot per column, in the table's column order.
pub(crate) struct LentTable<'w, S: Schema> {
    pub(crate) mask: S::Mask,
    /// The table's entities, by slot index.
    pub(crate) entities: &'w [EntityIndex],
    pub(crate) columns: Vec<Lent<'w, S::Column>>,
}

impl<'w, S: Schema> SplitWorld<'w, S> {
    /// Lends out `tables` and `resources`.
    pub(crate) fn new(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        resources: S::ResourceSlots<'w>,
    ) -> Self {
        SplitWorld {
            entities,
            tables: tables.iter_mut().map(LentTable::new).collect(),
            resources,
        }
    }

    /// The slots of table `id`.
    #[inline]
    pub(crate) fn table(&mut self, id: TableId) -> &mut LentTable<'w, S> {
        &mut self.tables[id.index()]
    }
}

impl<'w, S: Schema> LentTable<'w, S> {
    fn new(table: &'w mut Table<S>) -> Self {
        let mask = table.mask();
        let (entities, columns) = table.split_mut();
        LentTable {
            mask,
            entities,
            columns: columns.iter_mut().map(Lent::Free).collect(),
        }
    }
}
