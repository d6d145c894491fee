//! [`SplitWorld`]: the tables and resources of one world, lent out in
//! [`Lent`] slots to the systems of one stage.
//!
//! A split costs nothing up front and nothing per table of the world: a table
//! is taken apart into column slots only when a system first asks for it, and
//! the slots live in vectors the caller keeps between splits
//! ([`SplitBuffers`]), so a warm schedule allocates nothing to split its world.

use super::Lent;
use crate::entity::Entities;
use crate::layout::Layout;
use crate::storage::{column_index, EntityIndex, SparseIndex, Table, TableId};

/// A world taken apart for the systems of one stage: each table's columns and
/// each resource in a [`Lent`] slot, from which a system parameter takes what
/// it declared.
#[doc(hidden)]
pub struct SplitWorld<'w, S: Layout> {
    pub(crate) entities: &'w Entities,
    /// The tables nobody asked for yet, as runs of consecutive ids, ascending.
    unlent: Vec<Unlent<'w, S>>,
    /// The tables taken apart so far, ascending by id.
    lent: Vec<LentTable<'w, S>>,
    /// The column slots of every table in `lent`, each table's in one run.
    columns: Vec<Lent<'w, S::Column>>,
    pub(crate) resources: S::ResourceSlots<'w>,
    /// The values of each sparse set, by position among the sparse
    /// components (empty in a schema without them).
    pub(crate) sparse: Vec<Lent<'w, S::Column>>,
    /// The index of each sparse set (its owners and slots), by position
    /// among the sparse components: lent only to a
    /// [`SparseMut`](crate::command::SparseMut), which adds and removes values.
    pub(crate) sparse_index: Vec<Lent<'w, SparseIndex>>,
}

/// Consecutive tables, not taken apart yet; the first has id `first`.
struct Unlent<'w, S: Layout> {
    first: u32,
    tables: &'w mut [Table<S>],
}

/// One table taken apart: its archetype, its entities (shared by everyone)
/// and where its column slots sit in [`SplitWorld::columns`].
struct LentTable<'w, S: Layout> {
    id: TableId,
    mask: S::Mask,
    /// The table's entities, by slot index.
    entities: &'w [EntityIndex],
    /// The index of each component's column, by bit (the table's).
    column_index: column_index::Lookup<'w>,
    /// `columns[start..end]` of the split world: one slot per column, in the
    /// table's column order.
    start: u32,
    end: u32,
}

/// What a query takes a table's columns from: the table's archetype, its
/// entities and its column slots.
pub(crate) struct TableSlots<'s, 'w, S: Layout> {
    pub(crate) mask: S::Mask,
    /// The table's entities, by slot index.
    pub(crate) entities: &'w [EntityIndex],
    /// The index of each component's column, by bit.
    pub(crate) column_index: column_index::Lookup<'w>,
    pub(crate) columns: &'s mut [Lent<'w, S::Column>],
}

/// The vectors of a [`SplitWorld`], kept empty between splits so that the
/// next split reuses their memory.
#[doc(hidden)]
pub(crate) struct SplitBuffers<S: Layout> {
    unlent: Vec<Unlent<'static, S>>,
    lent: Vec<LentTable<'static, S>>,
    columns: Vec<Lent<'static, S::Column>>,
    /// The sparse sets' values, lent whole.
    sparse: Vec<Lent<'static, S::Column>>,
    /// The sparse sets' indexes.
    sparse_index: Vec<Lent<'static, SparseIndex>>,
}

impl<S: Layout> Default for SplitBuffers<S> {
    fn default() -> Self {
        SplitBuffers {
            unlent: Vec::new(),
            lent: Vec::new(),
            columns: Vec::new(),
            sparse: Vec::new(),
            sparse_index: Vec::new(),
        }
    }
}

impl<S: Layout> SplitBuffers<S> {
    /// An empty vector for the sparse sets' values, in the memory of the
    /// last split's.
    pub(crate) fn sparse<'w>(&mut self) -> Vec<Lent<'w, S::Column>> {
        recycle(core::mem::take(&mut self.sparse))
    }

    /// An empty vector for the sparse sets' indexes, in the memory of the
    /// last split's.
    pub(crate) fn sparse_index<'w>(&mut self) -> Vec<Lent<'w, SparseIndex>> {
        recycle(core::mem::take(&mut self.sparse_index))
    }
}

impl<'w, S: Layout> SplitWorld<'w, S> {
    /// Lends out `tables` and `resources`, in vectors taken from `buffers`;
    /// [`SplitWorld::reclaim`] gives them back.
    pub(crate) fn new(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        resources: S::ResourceSlots<'w>,
        (sparse, sparse_index): (Vec<Lent<'w, S::Column>>, Vec<Lent<'w, SparseIndex>>),
        buffers: &mut SplitBuffers<S>,
    ) -> Self {
        let mut unlent = recycle(core::mem::take(&mut buffers.unlent));
        if !tables.is_empty() {
            unlent.push(Unlent { first: 0, tables });
        }
        SplitWorld {
            entities,
            unlent,
            lent: recycle(core::mem::take(&mut buffers.lent)),
            columns: recycle(core::mem::take(&mut buffers.columns)),
            resources,
            sparse,
            sparse_index,
        }
    }

    /// Ends the split, putting its (emptied) vectors back into `buffers`.
    pub(crate) fn reclaim(self, buffers: &mut SplitBuffers<S>) {
        buffers.unlent = recycle(self.unlent);
        buffers.lent = recycle(self.lent);
        buffers.columns = recycle(self.columns);
        buffers.sparse = recycle(self.sparse);
        buffers.sparse_index = recycle(self.sparse_index);
    }

    /// The slots of table `id`, taking the table apart on the first call.
    #[inline]
    pub(crate) fn table(&mut self, id: TableId) -> TableSlots<'_, 'w, S> {
        let index = match self.lent.binary_search_by_key(&id, |table| table.id) {
            Ok(index) => index,
            Err(index) => {
                self.lend(id, index);
                index
            }
        };
        let table = &self.lent[index];
        TableSlots {
            mask: table.mask,
            entities: table.entities,
            column_index: table.column_index,
            columns: &mut self.columns[table.start as usize..table.end as usize],
        }
    }

    /// Table `id` whole, for one borrower that adds rows to it (a
    /// [`Spawner`](crate::command::Spawner)); no one else may take it or its
    /// columns during this split.
    pub(crate) fn take_table(&mut self, id: TableId) -> &'w mut Table<S> {
        self.detach(id)
    }

    /// Takes table `id` out of its run of unlent tables, splitting the run
    /// around it. Panics if it is not there (lent already: the checks of
    /// systems and the schedule's plan make that unreachable).
    fn detach(&mut self, id: TableId) -> &'w mut Table<S> {
        // The last run starting at or before `id`.
        let run = self.unlent.partition_point(|run| run.first <= id.0);
        let holds = run.checked_sub(1).is_some_and(|run| {
            let run = &self.unlent[run];
            ((id.0 - run.first) as usize) < run.tables.len()
        });
        assert!(holds, "{}", super::ALIASING);
        let Unlent { first, tables } = self.unlent.remove(run - 1);
        let (before, from) = tables.split_at_mut((id.0 - first) as usize);
        let (table, after) = from.split_first_mut().expect("checked above");
        let mut at = run - 1;
        if !before.is_empty() {
            self.unlent.insert(
                at,
                Unlent {
                    first,
                    tables: before,
                },
            );
            at += 1;
        }
        if !after.is_empty() {
            self.unlent.insert(
                at,
                Unlent {
                    first: id.0 + 1,
                    tables: after,
                },
            );
        }
        table
    }

    /// Takes table `id` out of its run of unlent tables and puts it, as
    /// slots, at `index` of `lent`.
    #[cold]
    fn lend(&mut self, id: TableId, index: usize) {
        let table = self.detach(id);
        let mask = table.mask();
        let (entities, columns, column_index) = table.view_parts();
        let start = self.columns.len() as u32;
        self.columns.extend(columns.iter_mut().map(Lent::Free));
        let end = self.columns.len() as u32;
        self.lent.insert(
            index,
            LentTable {
                id,
                mask,
                entities,
                column_index,
                start,
                end,
            },
        );
    }
}

/// An empty vector with `items`'s memory, for elements of the same type
/// under other lifetimes.
///
/// A vector of borrows cannot outlive what they borrow, but its memory can:
/// cleared, it holds no borrow, and collecting it through `map` reuses its
/// allocation (std collects a `vec::IntoIter` in place when the element
/// layouts match, which is what makes a warm split allocation-free; should
/// that ever stop, this still works and merely allocates).
pub(crate) fn recycle<T, U>(mut items: Vec<T>) -> Vec<U> {
    items.clear();
    items
        .into_iter()
        .map(|_| unreachable!("the vector was cleared"))
        .collect()
}
