//! [`FetchedTable`]: one table of a built query, its columns fetched.

use super::fetch::QueryData;
use super::rows::{PassingRows, TableRows};
use crate::storage::{EntityIndex, TableId};

/// One matching, non-empty table of a query.
pub(super) struct FetchedTable<'w, Q: QueryData> {
    pub(super) id: TableId,
    /// The table's archetype, as the bits of its `S::Mask`.
    pub(super) mask: u128,
    /// The table's entities, one per row (of the rows this query reaches:
    /// for a query that reaches sparse components, one run of consecutive
    /// rows of the table).
    pub(super) entities: &'w [EntityIndex],
    /// The table row of `entities[0]` (0 unless the rows are such a run).
    pub(super) first_row: u32,
    pub(super) fetch: Q::Fetch<'w>,
    /// With a row filter: which of the rows above pass it (bits of the
    /// query's [`PassingRows`]); without one, all do.
    pub(super) rows: Option<TableRows>,
}

impl<'w, Q: QueryData> FetchedTable<'w, Q> {
    /// The table of `entities` and `fetch`, all of whose rows, or with a
    /// row filter the rows `rows`, the query reaches.
    #[inline]
    pub(super) fn new(
        id: TableId,
        mask: u128,
        entities: &'w [EntityIndex],
        fetch: Q::Fetch<'w>,
        rows: Option<TableRows>,
    ) -> Self {
        FetchedTable {
            id,
            mask,
            entities,
            first_row: 0,
            fetch,
            rows,
        }
    }

    /// The number of rows the query reaches here, the rows of a row
    /// filter in `passing`.
    #[inline]
    pub(super) fn len(&self, passing: &PassingRows) -> usize {
        match self.rows {
            None => self.entities.len(),
            Some(rows) => passing.count(rows),
        }
    }

    /// Whether the query reaches the row at `offset` into `entities`.
    pub(super) fn reaches(&self, offset: usize, passing: &PassingRows) -> bool {
        match self.rows {
            None => offset < self.entities.len(),
            Some(rows) => passing
                .bits(rows)
                .get(offset / 64)
                .is_some_and(|word| word >> (offset % 64) & 1 == 1),
        }
    }
}
