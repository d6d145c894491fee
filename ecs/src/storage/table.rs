//! [`Table`]: the rows of one archetype; [`Tables`]: all of them, by mask.

use super::{Column, EntityIndex, MaskMap, TableId, TableRow};
use crate::layout::Layout;
use crate::mask::{Mask, MaskBits};
use core::sync::atomic::{AtomicU64, Ordering};

/// Every entity of one archetype, and one column per data component of it.
///
/// Invariants, kept by every method here and relied on by the world:
///
/// * `columns` holds one column per data component of `mask`, in bit order, so
///   the column of component bit `b` is `mask.index(b)` (popcount; see
///   [`Mask`]), which `column_index` also gives (see [`column_index`]).
///   Tags have no column.
/// * Every column and `entities` have the same length; row `r` of each column
///   belongs to `entities[r]`. Rows are dense.
/// * Removing row `r` (despawn, migration) swap-removes it from every column
///   and from `entities`: the entity that was last now sits at `r`. The method
///   returns that entity, and the caller must update its location.
pub(crate) struct Table<S: Layout> {
    mask: S::Mask,
    /// The entity of each row, by slot index; its generation is in its slot.
    entities: Vec<EntityIndex>,
    columns: Box<[S::Column]>,
    /// By component bit, the index of its column (see [`column_index`]).
    column_index: column_index::ByBit,
    /// Cached migration targets that differ from `mask` in several bits
    /// (multi-component bundles), searched linearly: there are few. Single-bit
    /// edges live in [`Tables`].
    multi_edges: Vec<(S::Mask, TableId)>,
}

/// The index of each component's column in a table, by component bit:
/// `mask.index(bit)`, a popcount. On x86-64 without the `popcnt`
/// instruction (the default flags) a popcount is a dozen instructions, and
/// a query pays it per component per table; there each table works the
/// indices out once, when it is made, and a query reads one byte. Where the
/// instruction is there (`-C target-cpu=native`, other targets), reading
/// the byte was the slower (frag_iter's iterator 25% slower, its other
/// loops 8 to 19%), so the lookup is not kept: `ByBit` and `Lookup` are
/// empty structs and [`column_index::column`] counts.
pub(crate) mod column_index {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    mod imp {
        use crate::layout::Layout;
        use crate::mask::Mask;

        /// A table's lookup: by bit, the column's index, or
        /// [`ABSENT`] where the table has no column of that component.
        pub(crate) type ByBit = Box<[u8]>;
        /// A table's lookup, borrowed.
        pub(crate) type Lookup<'a> = &'a [u8];

        /// No column of that component.
        const ABSENT: u8 = u8::MAX;

        /// The lookup of a table of archetype `mask`.
        pub(crate) fn of<S: Layout>(mask: S::Mask) -> ByBit {
            (0..S::COMPONENT_NAMES.len() as u32)
                .map(|bit| match mask.index_of(bit) {
                    // At most 128 components, so every index fits.
                    Some(index) => index as u8,
                    None => ABSENT,
                })
                .collect()
        }

        /// `lookup`, borrowed.
        #[inline(always)]
        pub(crate) fn borrow(lookup: &ByBit) -> Lookup<'_> {
            lookup
        }

        /// The index of the column of data component `bit`, which the
        /// table of archetype `mask` has.
        #[inline(always)]
        pub(crate) fn column<M: Mask>(lookup: Lookup<'_>, mask: M, bit: u32) -> usize {
            let index = usize::from(lookup[bit as usize]);
            debug_assert_eq!(index, mask.index(bit), "the column of bit {bit}");
            index
        }

        /// `target` made a copy of `source`.
        pub(crate) fn clone_from(target: &mut ByBit, source: &ByBit) {
            super::super::clone_slice_from(target, source);
        }
    }

    #[cfg(not(all(target_arch = "x86_64", not(target_feature = "popcnt"))))]
    mod imp {
        use crate::layout::Layout;
        use crate::mask::Mask;

        /// No lookup: the popcount is one instruction here.
        #[derive(Clone, Default)]
        pub(crate) struct ByBit;
        /// No lookup, borrowed.
        pub(crate) type Lookup<'a> = NoLookup;

        /// No lookup, borrowed.
        #[derive(Clone, Copy, Default)]
        pub(crate) struct NoLookup;

        pub(crate) fn of<S: Layout>(_: S::Mask) -> ByBit {
            ByBit
        }

        #[inline(always)]
        pub(crate) fn borrow(_: &ByBit) -> Lookup<'_> {
            NoLookup
        }

        /// The index of the column of data component `bit`, which the
        /// table of archetype `mask` has.
        #[inline(always)]
        pub(crate) fn column<M: Mask>(_: Lookup<'_>, mask: M, bit: u32) -> usize {
            mask.index(bit)
        }

        pub(crate) fn clone_from(_: &mut ByBit, _: &ByBit) {}
    }

    pub(crate) use imp::{borrow, clone_from, column, of, ByBit, Lookup};
}

impl<S: Layout> Table<S> {
    fn new(mask: S::Mask) -> Self {
        Table {
            mask,
            entities: Vec::new(),
            columns: Self::new_columns(mask),
            column_index: column_index::of::<S>(mask),
            multi_edges: Vec::new(),
        }
    }

    /// Takes the table's contents out into a table of their own, whose
    /// headers (the row count, each column's length and capacity) sit in
    /// memory the calling thread allocates: the rows stay where they are.
    /// This table keeps its mask and empty columns until
    /// [`Table::attach`] puts the contents back.
    pub(crate) fn detach(&mut self) -> Self {
        let columns = self
            .columns
            .iter_mut()
            .map(|column| {
                let empty = S::new_column(column.bit());
                core::mem::replace(column, empty)
            })
            .collect();
        Table {
            mask: self.mask,
            entities: core::mem::take(&mut self.entities),
            columns,
            // Moved out and back with the rows: the moves look columns up
            // in the contents, and nothing looks at this table meanwhile.
            column_index: core::mem::take(&mut self.column_index),
            multi_edges: core::mem::take(&mut self.multi_edges),
        }
    }

    /// Puts back the contents [`Table::detach`] took out (changed since).
    pub(crate) fn attach(&mut self, mut contents: Self) {
        for (mine, theirs) in self.columns.iter_mut().zip(contents.columns.iter_mut()) {
            core::mem::swap(mine, theirs);
        }
        self.entities = core::mem::take(&mut contents.entities);
        self.column_index = core::mem::take(&mut contents.column_index);
        self.multi_edges = core::mem::take(&mut contents.multi_edges);
    }

    /// Empty columns for the data components of `mask`, in bit order.
    fn new_columns(mask: S::Mask) -> Box<[S::Column]> {
        mask.intersection(S::Mask::DATA)
            .iter_bits()
            .map(S::new_column)
            .collect()
    }

    #[inline]
    pub(crate) fn mask(&self) -> S::Mask {
        self.mask
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.entities.len()
    }

    #[inline]
    pub(crate) fn entities(&self) -> &[EntityIndex] {
        &self.entities
    }

    /// The columns, in bit order.
    #[inline]
    pub(crate) fn columns(&self) -> &[S::Column] {
        &self.columns
    }

    /// The column of data component `bit`; the table must have it.
    #[inline]
    pub(crate) fn column(&self, bit: u32) -> &S::Column {
        &self.columns[column_index::column(self.column_index(), self.mask, bit)]
    }

    /// The column of data component `bit`; the table must have it.
    #[inline]
    pub(crate) fn column_mut(&mut self, bit: u32) -> &mut S::Column {
        let index = column_index::column(self.column_index(), self.mask, bit);
        &mut self.columns[index]
    }

    /// The entity list and the columns, borrowed apart (for queries).
    #[inline]
    pub(crate) fn split_mut(&mut self) -> (&[EntityIndex], &mut [S::Column]) {
        (&self.entities, &mut self.columns)
    }

    /// The index of each component's column, by bit (see
    /// [`column_index`]).
    #[inline]
    pub(crate) fn column_index(&self) -> column_index::Lookup<'_> {
        column_index::borrow(&self.column_index)
    }

    /// The entity list, the columns and the index of each component's
    /// column, borrowed apart (for queries).
    #[inline]
    pub(crate) fn view_parts(
        &mut self,
    ) -> (&[EntityIndex], &mut [S::Column], column_index::Lookup<'_>) {
        let lookup = column_index::borrow(&self.column_index);
        (&self.entities, &mut self.columns, lookup)
    }

    /// The entity list, growable, and the columns, borrowed apart: for
    /// building many rows at the end at once (`World::spawn_batch`). The
    /// caller must leave every column as long as the entity list.
    #[inline]
    pub(crate) fn rows_mut(&mut self) -> (&mut Vec<EntityIndex>, &mut [S::Column]) {
        (&mut self.entities, &mut self.columns)
    }

    /// Names the entity of `row` (a row pushed before its entity was known).
    pub(crate) fn set_entity(&mut self, row: TableRow, entity: impl Into<EntityIndex>) {
        self.entities[row.index()] = entity.into();
    }

    /// Appends `entity`; its values must then be pushed to every column.
    #[inline]
    pub(crate) fn push_entity(&mut self, entity: impl Into<EntityIndex>) -> TableRow {
        let row = TableRow(self.entities.len() as u32);
        self.entities.push(entity.into());
        row
    }

    /// Stamps the rows pushed to tracked columns without ticks as added at
    /// `tick` (see [`crate::change`]).
    pub(crate) fn sync_ticks(&mut self, tick: u32) {
        for column in self.columns.iter_mut() {
            if S::TRACKED_BITS & (1 << column.bit()) != 0 {
                column.sync_ticks(tick);
            }
        }
    }

    /// Clamps the ticks of the tracked columns (see [`crate::change`]).
    pub(crate) fn clamp_ticks(&mut self, now: u32) {
        for column in self.columns.iter_mut() {
            column.clamp_ticks(now);
        }
    }

    /// Makes room for `additional` more rows in every column.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entities.reserve(additional);
        for column in self.columns.iter_mut() {
            column.reserve(additional);
        }
    }

    /// Removes `row`, taking each of its values out: one with drop glue goes
    /// to `trash[bit]`, to be dropped by the caller once the world is
    /// consistent ([`Column::discard_row`]). Returns the entity moved into
    /// `row`.
    pub(crate) fn remove_row(
        &mut self,
        row: TableRow,
        trash: &mut [S::Column],
    ) -> Option<EntityIndex> {
        for column in self.columns.iter_mut() {
            column.discard_row(row.index(), &mut trash[column.bit() as usize]);
        }
        self.swap_remove_entity(row)
    }

    /// Removes the last `count` rows, taking their values out as
    /// [`Table::remove_row`] does; no entity moves.
    pub(crate) fn remove_tail(&mut self, count: usize, trash: &mut [S::Column]) {
        for column in self.columns.iter_mut() {
            column.discard_tail(count, &mut trash[column.bit() as usize]);
        }
        self.entities.truncate(self.entities.len() - count);
    }

    /// Moves `row` to the end of `destination`: each column `destination` also
    /// has is moved; a column it lacks must already have had `row` taken out by
    /// the caller (the values being removed).
    #[inline(always)]
    pub(crate) fn move_row(&mut self, row: TableRow, destination: &mut Table<S>) -> TableMove {
        let target_mask = destination.mask;
        for column in self.columns.iter_mut() {
            let bit = column.bit();
            if target_mask.has(bit) {
                column.move_row(
                    row.index(),
                    &mut destination.columns[target_mask.index(bit)],
                );
            }
        }
        self.move_entity(row, destination)
    }

    /// [`Table::move_row`] for a row whose values of the components `taken`
    /// the caller has taken out (swap-removed from their columns) although
    /// `destination` has columns for some of them, which the caller fills:
    /// every other column is moved. `destination` must have a column for
    /// each data component of this table outside `taken`.
    pub(crate) fn move_row_except(
        &mut self,
        row: TableRow,
        destination: &mut Table<S>,
        taken: S::Mask,
    ) -> TableMove {
        let target_mask = destination.mask;
        for column in self.columns.iter_mut() {
            let bit = column.bit();
            if !taken.has(bit) {
                debug_assert!(target_mask.has(bit));
                column.move_row(
                    row.index(),
                    &mut destination.columns[target_mask.index(bit)],
                );
            }
        }
        self.move_entity(row, destination)
    }

    /// Puts back in place the columns of `bits` after their value at `row`
    /// was swap-removed and a new one pushed (with its ticks): the new value
    /// goes to `row` and the one the swap-remove moved there goes back last,
    /// its ticks with it, so that every column agrees with the entity list
    /// again. `scratch[bit]` (empty, and left empty) holds that value on
    /// the way.
    pub(crate) fn restore_row_after_swap(
        &mut self,
        row: TableRow,
        bits: S::Mask,
        scratch: &mut [S::Column],
    ) {
        for bit in bits.intersection(S::Mask::DATA).iter_bits() {
            let column = &mut self.columns[self.mask.index(bit)];
            if row.index() + 1 < column.len() {
                let held = &mut scratch[bit as usize];
                debug_assert!(held.is_empty());
                column.move_row(row.index(), held);
                held.move_row(0, column);
            }
        }
    }

    /// Where component `bit`'s column is or would go among this table's
    /// columns (the data components of the archetype below `bit`), or
    /// `usize::MAX` for a tag (no column): what the column moves of an
    /// insert or removal of `bit` split the columns at.
    #[inline]
    pub(crate) fn column_of(&self, bit: u32) -> usize {
        if S::Mask::DATA.has(bit) {
            self.mask.index(bit)
        } else {
            usize::MAX
        }
    }

    /// The entity half of removing `row`, whose values the caller has taken
    /// out of every column: swap-removes its entity. Returns the entity
    /// moved into `row`, whose location the caller fixes.
    pub(crate) fn remove_entity(&mut self, row: TableRow) -> Option<EntityIndex> {
        self.swap_remove_entity(row)
    }

    /// The column half of [`Table::move_row`] to a table whose archetype is
    /// this one's plus component `bit`: the columns pair up in order, except
    /// that a data `bit` has a column in `destination` (at the same index as in
    /// this table's bit order) which the caller fills. No mask test per column.
    ///
    /// Returns the destination's columns from the added one on: the added
    /// component's column first (none for a tag), found without reading a
    /// mask again.
    // Not always inlined: it is called from `World::insert` of each
    // component type, and its two column loops are each a match over every
    // component of the schema; forced into every one of those callers, they
    // made a user's release rebuild about 7% longer (`benches/compile`, a
    // one-system edit: 9.97 against 9.32 s of CPU). The `_at`
    // form, inlined into the one `Migrator` loop, stays always inlined.
    #[inline]
    pub(crate) fn move_columns_adding<'t>(
        &mut self,
        row: TableRow,
        destination: &'t mut Table<S>,
        bit: u32,
    ) -> &'t mut [S::Column] {
        let column = self.column_of(bit);
        self.move_columns_adding_at(row, destination, column)
    }

    /// [`Table::move_columns_adding`] with the added component's
    /// [`Table::column_of`] known (a `Migrator` keeps it per table).
    #[inline(always)]
    pub(crate) fn move_columns_adding_at<'t>(
        &mut self,
        row: TableRow,
        destination: &'t mut Table<S>,
        column: usize,
    ) -> &'t mut [S::Column] {
        let from: &mut [S::Column] = &mut self.columns;
        let to: &mut [S::Column] = &mut destination.columns;
        // The columns before the added one pair up at the same index, the
        // ones after it one further on (a tag adds no column: all pair up).
        // Zipped slices, so no index arithmetic or bounds check per column.
        let added = column.min(from.len());
        let (from_head, from_tail) = from.split_at_mut(added);
        let (to_head, to_tail) = to.split_at_mut(added);
        for (column, to) in from_head.iter_mut().zip(to_head) {
            column.move_row(row.index(), to);
        }
        if !from_tail.is_empty() {
            for (column, to) in from_tail.iter_mut().zip(&mut to_tail[1..]) {
                column.move_row(row.index(), to);
            }
        }
        to_tail
    }

    /// The column half of [`Table::move_row`] to a table whose archetype is
    /// this one's minus component `bit`: the columns pair up in order, except
    /// that a data `bit`'s column here is skipped. No mask test per column.
    ///
    /// Returns that skipped column, still holding the value at `row`, which
    /// the caller then takes out (a swap-remove, as the moves were): a slice
    /// of the one column, empty for a tag.
    // Not always inlined: see `move_columns_adding`.
    #[inline]
    pub(crate) fn move_columns_removing(
        &mut self,
        row: TableRow,
        destination: &mut Table<S>,
        bit: u32,
    ) -> &mut [S::Column] {
        let column = self.column_of(bit);
        self.move_columns_removing_at(row, destination, column)
    }

    /// [`Table::move_columns_removing`] with the removed component's
    /// [`Table::column_of`] known (a `Migrator` keeps it per table).
    #[inline(always)]
    pub(crate) fn move_columns_removing_at(
        &mut self,
        row: TableRow,
        destination: &mut Table<S>,
        column: usize,
    ) -> &mut [S::Column] {
        let from: &mut [S::Column] = &mut self.columns;
        let to: &mut [S::Column] = &mut destination.columns;
        // As in `move_columns_adding`: the destination's columns before the
        // removed one pair up at the same index, the ones after it with ours
        // one further on.
        let removed = column.min(to.len());
        let (from_head, from_tail) = from.split_at_mut(removed);
        let (to_head, to_tail) = to.split_at_mut(removed);
        for (column, to) in from_head.iter_mut().zip(to_head) {
            column.move_row(row.index(), to);
        }
        match from_tail.split_first_mut() {
            Some((removed, rest)) => {
                for (column, to) in rest.iter_mut().zip(to_tail) {
                    column.move_row(row.index(), to);
                }
                core::slice::from_mut(removed)
            }
            // A tag: it has no column, and every column has moved.
            None => &mut [],
        }
    }

    /// The entity half of a move: swap-removes `row`'s entity and appends it to
    /// `destination`.
    // Always inlined, up to the caller's loop (see `EntityStore::insert`):
    // it is a few instructions, the same for every component.
    #[inline(always)]
    pub(crate) fn move_entity(&mut self, row: TableRow, destination: &mut Table<S>) -> TableMove {
        // The entity that will fill `row` is the last one, read before the
        // swap: then fixing its location does not wait for the load of `row`.
        let last = *self.entities.last().expect("a table row to move");
        let entity = core::mem::replace(&mut self.entities[row.index()], last);
        self.entities.pop();
        let swapped = (row.index() < self.entities.len()).then_some(last);
        TableMove {
            row: destination.push_entity(entity),
            swapped,
        }
    }

    fn swap_remove_entity(&mut self, row: TableRow) -> Option<EntityIndex> {
        self.entities.swap_remove(row.index());
        self.entities.get(row.index()).copied()
    }

    /// Removes every row, returning the old columns (for the caller to drop
    /// once the world is consistent); the entities must be freed by the caller.
    pub(crate) fn take_rows(&mut self) -> Box<[S::Column]> {
        self.entities.clear();
        core::mem::replace(&mut self.columns, Self::new_columns(self.mask))
    }
}

/// A copy with the same rows in the same order; `clone_from` keeps the
/// target's allocations (the columns' `Vec`s) where the shapes agree.
impl<S: Layout> Clone for Table<S>
where
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        Table {
            mask: self.mask,
            entities: self.entities.clone(),
            columns: self.columns.clone(),
            column_index: self.column_index.clone(),
            multi_edges: self.multi_edges.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.mask = source.mask;
        self.entities.clone_from(&source.entities);
        clone_slice_from(&mut self.columns, &source.columns);
        column_index::clone_from(&mut self.column_index, &source.column_index);
        self.multi_edges.clone_from(&source.multi_edges);
    }
}

/// `target.clone_from(source)` for a boxed slice, element by element (each
/// keeping its allocation) when the lengths agree.
pub(crate) fn clone_slice_from<T: Clone>(target: &mut Box<[T]>, source: &[T]) {
    if target.len() == source.len() {
        for (to, from) in target.iter_mut().zip(source) {
            to.clone_from(from);
        }
    } else {
        *target = source.into();
    }
}

/// Where a move of one row between tables left things: the row's new place
/// in the destination table, and the entity swapped into the row it left
/// (`None` when it was the source table's last row). The caller must record
/// both locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableMove {
    pub(crate) row: TableRow,
    pub(crate) swapped: Option<EntityIndex>,
}

/// All tables of a world, by id and by mask.
///
/// The single-bit migration edges of all tables sit here, flat, rather than in
/// each table: `insert_edges[table * components + bit]` is the table of
/// `mask.with(bit)` ([`TableId::UNKNOWN`] until known). A migration then finds its
/// target one load after the entity's location, without reading the table.
pub(crate) struct Tables<S: Layout> {
    /// Which history of tables this is: a token no other `Tables` has, new
    /// whenever the list is replaced rather than extended (a copy, a
    /// `clone_from`, a load). State kept outside the world about its tables
    /// (a system's or a prepared query's matched tables) records the token,
    /// and starts over when it differs: table ids are only meaningful
    /// within one history.
    layout: u64,
    tables: Vec<Table<S>>,
    by_mask: MaskMap<S::Mask, TableId>,
    insert_edges: Vec<TableId>,
    remove_edges: Vec<TableId>,
    /// The last target that differed from its source in several bits, and
    /// its table: a loop that spawns one bundle, or inserts one, asks for
    /// the same table each time (see [`Tables::hinted`]).
    hint: (S::Mask, TableId),
}

/// The tables a single-bit edge joins: an entity of table `from` that
/// inserts (or removes) the component goes to table `to`, which is `from`
/// itself when it has (or lacks) the component already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) from: TableId,
    pub(crate) to: TableId,
}

/// The same tables under the same ids, with the same cached edges.
impl<S: Layout> Clone for Tables<S>
where
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        Tables {
            layout: next_layout(),
            tables: self.tables.clone(),
            by_mask: self.by_mask.clone(),
            insert_edges: self.insert_edges.clone(),
            remove_edges: self.remove_edges.clone(),
            hint: self.hint,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.layout = next_layout();
        // `Vec::clone_from` calls `Table::clone_from` on the tables both have.
        self.tables.clone_from(&source.tables);
        self.by_mask.clone_from(&source.by_mask);
        self.insert_edges.clone_from(&source.insert_edges);
        self.remove_edges.clone_from(&source.remove_edges);
        self.hint = source.hint;
    }
}

impl<S: Layout> Default for Tables<S> {
    fn default() -> Self {
        let mut tables = Tables {
            layout: next_layout(),
            tables: Vec::new(),
            by_mask: MaskMap::default(),
            insert_edges: Vec::new(),
            remove_edges: Vec::new(),
            hint: (S::Mask::EMPTY, TableId::EMPTY),
        };
        let empty = tables.get_or_create(S::Mask::EMPTY);
        debug_assert_eq!(empty, TableId::EMPTY);
        tables
    }
}

/// A token for [`Tables::layout`] that no table list of this process had.
fn next_layout() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl<S: Layout> Tables<S> {
    /// This table list's history token (see the field).
    #[inline]
    pub(crate) fn layout(&self) -> u64 {
        self.layout
    }

    #[inline]
    pub(crate) fn get(&self, id: TableId) -> &Table<S> {
        &self.tables[id.index()]
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: TableId) -> &mut Table<S> {
        &mut self.tables[id.index()]
    }

    /// Two distinct tables at once.
    #[inline]
    pub(crate) fn pair_mut(&mut self, a: TableId, b: TableId) -> (&mut Table<S>, &mut Table<S>) {
        match self.tables.get_disjoint_mut([a.index(), b.index()]) {
            Ok([a, b]) => (a, b),
            Err(_) => panic!("pair_mut needs two distinct, existing tables"),
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tables.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Table<S>> {
        self.tables.iter()
    }

    pub(crate) fn as_slice(&self) -> &[Table<S>] {
        &self.tables
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [Table<S>] {
        &mut self.tables
    }

    /// The table of `mask`, if one was made.
    pub(crate) fn find(&self, mask: S::Mask) -> Option<TableId> {
        self.by_mask.get(&mask).copied()
    }

    /// The table of `mask`, created if this is the first entity of that shape.
    pub(crate) fn get_or_create(&mut self, mask: S::Mask) -> TableId {
        if let Some(&id) = self.by_mask.get(&mask) {
            return id;
        }
        let id = u32::try_from(self.tables.len())
            .ok()
            .map(TableId)
            .filter(|&id| id != TableId::UNKNOWN)
            .expect("more than 2^32 - 1 archetypes");
        self.tables.push(Table::new(mask));
        self.by_mask.insert(mask, id);
        let components = S::COMPONENT_NAMES.len();
        self.insert_edges
            .resize(self.tables.len() * components, TableId::UNKNOWN);
        self.remove_edges
            .resize(self.tables.len() * components, TableId::UNKNOWN);
        id
    }

    /// The table of `from`'s archetype plus the components `added`: `from`
    /// itself if it has them all, else through the cached edge when one bit is
    /// new (read without `from`'s mask when `added` is that one bit), else by
    /// [`Tables::target_slow`].
    #[inline]
    pub(crate) fn insert_target(&mut self, from: TableId, added: S::Mask) -> TableId {
        if let Some(bit) = single_bit(added) {
            return self.insert_edge(from, bit);
        }
        let mask = self.tables[from.index()].mask;
        let new = added.difference(mask);
        if new.is_empty() {
            return from;
        }
        if let Some(bit) = single_bit(new) {
            return self.insert_edge(from, bit);
        }
        let to = mask.union(added);
        match self.hinted(to) {
            Some(id) => id,
            None => self.target_slow(from, to),
        }
    }

    /// The table of `from`'s archetype minus the components `removed`, as
    /// [`Tables::insert_target`].
    #[inline]
    pub(crate) fn remove_target(&mut self, from: TableId, removed: S::Mask) -> TableId {
        if let Some(bit) = single_bit(removed) {
            return self.remove_edge(from, bit);
        }
        let mask = self.tables[from.index()].mask;
        let gone = removed.intersection(mask);
        if gone.is_empty() {
            return from;
        }
        if let Some(bit) = single_bit(gone) {
            return self.remove_edge(from, bit);
        }
        let to = mask.difference(removed);
        match self.hinted(to) {
            Some(id) => id,
            None => self.target_slow(from, to),
        }
    }

    /// The table of `from`'s archetype plus component `bit` (`from` itself if
    /// it has it): one load from the edge cache, without reading `from`'s mask.
    #[inline]
    pub(crate) fn insert_edge(&mut self, from: TableId, bit: u32) -> TableId {
        match self.insert_edges.get(edge_index::<S>(from, bit)) {
            Some(&id) if id != TableId::UNKNOWN => id,
            _ => self.edge_slow(from, bit, true),
        }
    }

    /// The table of `from`'s archetype minus component `bit` (`from` itself if
    /// it lacks it), as [`Tables::insert_edge`].
    #[inline]
    pub(crate) fn remove_edge(&mut self, from: TableId, bit: u32) -> TableId {
        match self.remove_edges.get(edge_index::<S>(from, bit)) {
            Some(&id) if id != TableId::UNKNOWN => id,
            _ => self.edge_slow(from, bit, false),
        }
    }

    /// The insert edge of component `bit` from table `from`, for a migration
    /// on the fast path; `None` if the edge is not cached yet.
    #[inline]
    pub(crate) fn migration_insert(&self, from: TableId, bit: u32) -> Option<Edge> {
        Self::cached(&self.insert_edges, from, bit)
    }

    /// The remove edge of component `bit` from table `from`, as
    /// [`Tables::migration_insert`].
    #[inline]
    pub(crate) fn migration_remove(&self, from: TableId, bit: u32) -> Option<Edge> {
        Self::cached(&self.remove_edges, from, bit)
    }

    #[inline]
    fn cached(edges: &[TableId], from: TableId, bit: u32) -> Option<Edge> {
        let to = *edges.get(edge_index::<S>(from, bit))?;
        (to != TableId::UNKNOWN).then_some(Edge { from, to })
    }

    /// The table of archetype `mask`, reached from table `from`: `from`
    /// itself, or through (and then into) `from`'s cache of multi-bit edges.
    pub(crate) fn target(&mut self, from: TableId, mask: S::Mask) -> TableId {
        if self.tables[from.index()].mask == mask {
            return from;
        }
        match self.hinted(mask) {
            Some(id) => id,
            None => self.target_slow(from, mask),
        }
    }

    /// The table of archetype `to` if it is the hint's: the last target
    /// [`Tables::target_slow`] found. Checked against that table's mask, so
    /// that a hint from another list of tables (copied by `clone_from`)
    /// can only miss.
    #[inline]
    fn hinted(&self, to: S::Mask) -> Option<TableId> {
        let (mask, id) = self.hint;
        (mask == to
            && self
                .tables
                .get(id.index())
                .is_some_and(|table| table.mask == to))
        .then_some(id)
    }

    /// A single-bit edge not cached yet: found (or created) by mask, then
    /// cached, also when it leads back to `from`.
    #[cold]
    #[inline(never)]
    fn edge_slow(&mut self, from: TableId, bit: u32, insert: bool) -> TableId {
        let mask = self.tables[from.index()].mask;
        let (to, edges) = if insert {
            (mask.with(bit), &mut self.insert_edges)
        } else {
            (mask.without(bit), &mut self.remove_edges)
        };
        let edge = edge_index::<S>(from, bit);
        if to == mask {
            edges[edge] = from;
            return from;
        }
        let id = self.get_or_create(to);
        if insert {
            self.insert_edges[edge] = id;
        } else {
            self.remove_edges[edge] = id;
        }
        id
    }

    /// A target that differs from `from` in several bits: searched among the
    /// table's few multi-bit edges, or (first migration) found by mask and
    /// cached there.
    #[cold]
    #[inline(never)]
    fn target_slow(&mut self, from: TableId, to: S::Mask) -> TableId {
        let multi_edges = &self.tables[from.index()].multi_edges;
        if let Some(&(_, id)) = multi_edges.iter().find(|(mask, _)| *mask == to) {
            self.hint = (to, id);
            return id;
        }
        let id = self.get_or_create(to);
        self.tables[from.index()].multi_edges.push((to, id));
        self.hint = (to, id);
        id
    }
}

/// The one bit of `mask`, if exactly one is set.
#[inline]
fn single_bit<M: Mask>(mask: M) -> Option<u32> {
    let bits = mask.bits();
    if bits != M::Bits::ZERO && bits & (bits - M::Bits::ONE) == M::Bits::ZERO {
        Some(bits.trailing_zeros())
    } else {
        None
    }
}

/// Where the single-bit edge of table `from` for component `bit` is kept.
#[inline]
fn edge_index<S: Layout>(from: TableId, bit: u32) -> usize {
    from.index() * S::COMPONENT_NAMES.len() + bit as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Marked;

    #[derive(Debug)]
    struct Value(#[allow(dead_code)] u32);

    /// Bits: Marked 0 (a tag), Value 1, Other 2.
    #[derive(schemecs_macros::Schema)]
    struct Rows {
        marked: Marked,
        value: Value,
        other: Other,
    }

    #[derive(Debug)]
    struct Other;

    #[test]
    fn a_move_reports_the_entity_swapped_into_the_row_it_left_and_none_for_the_last_row() {
        let mut from = Table::<Rows>::new(RowsMask::EMPTY);
        let mut to = Table::<Rows>::new(RowsMask::MARKED);
        for index in [7, 8, 9] {
            from.push_entity(EntityIndex(index));
        }
        let moved = from.move_entity(TableRow(0), &mut to);
        assert_eq!(
            moved,
            TableMove {
                row: TableRow(0),
                swapped: Some(EntityIndex(9)),
            }
        );
        assert_eq!(from.entities(), [EntityIndex(9), EntityIndex(8)]);
        // The last row leaves: nothing takes its place.
        let moved = from.move_entity(TableRow(1), &mut to);
        assert_eq!(
            moved,
            TableMove {
                row: TableRow(1),
                swapped: None,
            }
        );
        let moved = from.move_entity(TableRow(0), &mut to);
        assert_eq!(moved.swapped, None);
        assert_eq!(from.len(), 0);
        assert_eq!(
            to.entities(),
            [EntityIndex(7), EntityIndex(8), EntityIndex(9)]
        );
    }

    #[test]
    fn single_bit_is_the_one_bit_of_a_mask_and_none_otherwise() {
        assert_eq!(single_bit(RowsMask::EMPTY), None);
        assert_eq!(single_bit(RowsMask::MARKED), Some(0));
        assert_eq!(single_bit(RowsMask::VALUE), Some(1));
        assert_eq!(single_bit(RowsMask::OTHER), Some(2));
        assert_eq!(single_bit(RowsMask::MARKED | RowsMask::OTHER), None);
        assert_eq!(single_bit(RowsMask::VALUE | RowsMask::OTHER), None);
    }

    /// A table's lookup gives, for each data component it has, the column
    /// the popcount gives.
    #[test]
    fn the_column_index_of_a_table_is_the_popcount_of_its_mask() {
        struct D0(#[allow(dead_code)] u8);
        struct D2(#[allow(dead_code)] u8);
        struct D3(#[allow(dead_code)] u8);
        struct D5(#[allow(dead_code)] u8);
        struct T1;
        struct T4;
        /// Data components at bits 0, 2, 3 and 5, tags at 1 and 4.
        #[derive(schemecs_macros::Schema)]
        struct Mixed {
            d0: D0,
            t1: T1,
            d2: D2,
            d3: D3,
            t4: T4,
            d5: D5,
        }
        for bits in 0..1u8 << 6 {
            let mask = MixedMask::from_bits_truncate(bits);
            let table = Table::<Mixed>::new(mask);
            for bit in mask.intersection(MixedMask::DATA).iter_bits() {
                let index = column_index::column(table.column_index(), mask, bit);
                assert_eq!(index, mask.index(bit), "{mask:?}, bit {bit}");
                assert!(index < table.columns().len());
            }
        }
    }

    /// Every multi-bit target is the table of its mask, whether the hint
    /// names it, names another, or comes from a list of tables whose ids
    /// mean other masks (as `clone_from` copies it).
    #[test]
    fn a_multi_bit_target_is_the_table_of_its_mask_whatever_the_hint() {
        let (both, all) = (
            RowsMask::MARKED | RowsMask::VALUE,
            RowsMask::MARKED | RowsMask::VALUE | RowsMask::OTHER,
        );
        let mut tables = Tables::<Rows>::default();
        for to in [both, both, all, both, all, all] {
            let id = tables.insert_target(TableId::EMPTY, to);
            assert_eq!(tables.get(id).mask(), to);
        }
        // From `all`, removing two bits lands in the table of the third.
        let from = tables.insert_target(TableId::EMPTY, all);
        let id = tables.remove_target(from, RowsMask::MARKED | RowsMask::VALUE);
        assert_eq!(tables.get(id).mask(), RowsMask::OTHER);
        let id = tables.target(from, both);
        assert_eq!(tables.get(id).mask(), both);
        // Another list, whose table 1 is `all` and table 2 `both`: the hint
        // copied from it names `both` as table 2, which here is `all`.
        let mut other = Tables::<Rows>::default();
        other.insert_target(TableId::EMPTY, all);
        other.insert_target(TableId::EMPTY, both);
        let mut copy = Tables::<Rows>::default();
        copy.insert_target(TableId::EMPTY, both);
        copy.insert_target(TableId::EMPTY, all);
        copy.hint = other.hint;
        let id = copy.insert_target(TableId::EMPTY, both);
        assert_eq!(copy.get(id).mask(), both);
    }
}
