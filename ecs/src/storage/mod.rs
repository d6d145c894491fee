//! Archetype storage: one [`Table`] per archetype, found by mask, linked by
//! cached migration edges; beside the tables, in the [`Bins`], the tag
//! values and one [`SparseSets`] entry per `#[ecs(sparse)]` component. A
//! table's or a sparse set's values are kept in typed [`Column`]s; the
//! values of recorded commands wait in [`Staged`] columns.

mod bins;
mod column;
mod hash;
mod soa;
mod sparse;
mod staged;
mod table;

pub(crate) use bins::Bins;
pub use column::{AsVec, Column, ColumnVec, TrackedVec, Values};
pub(crate) use hash::MaskMap;
pub use soa::{Soa, SoaComponent, SoaField, SoaVec};
#[cfg(feature = "serde")]
pub(crate) use sparse::sparse_bits;
pub(crate) use sparse::{
    is_sparse, position as sparse_position, table_part, SparseIndex, SparseSet, SparseSets,
};
pub use staged::Staged;
pub(crate) use table::{clone_slice_from, column_index, Edge, Table, TableMove, Tables};

/// Index of a table in [`Tables`]. Tables are never removed, so an id stays
/// valid for the world's life; ids grow in creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct TableId(pub(crate) u32);

impl TableId {
    /// The table of the empty archetype, created with the world.
    pub(crate) const EMPTY: TableId = TableId(0);
    /// No table: a migration edge not followed yet. Never a real id (table
    /// creation stops before it).
    pub(crate) const UNKNOWN: TableId = TableId(u32::MAX);

    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a row in one table's columns and entity list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct TableRow(pub(crate) u32);

impl TableRow {
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// The slot index of a live entity, without its generation: what a table row
/// keeps (4 bytes, where an [`Entity`](crate::entity::Entity) takes 8). The world keeps
/// every row's entity alive, so the slot's generation completes it
/// (`Entities::entity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct EntityIndex(pub(crate) u32);

/// Its `u32`, in a checksum.
impl crate::stable_hash::StableHash for EntityIndex {
    const __FIXED_SIZE: Option<usize> = Some(4);

    #[inline]
    fn stable_hash(&self, hasher: &mut crate::stable_hash::StableHasher) {
        self.0.stable_hash(hasher);
    }

    #[inline]
    fn __write_fixed(&self, out: &mut [u8]) {
        self.0.__write_fixed(out);
    }
}
