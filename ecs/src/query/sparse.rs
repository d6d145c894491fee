//! Queries that reach sparse components (`#[ecs(sparse)]`), in an item
//! (`&B`, `&mut B`, `Option<&B>`, `Has<B>`) or in the filter (`With<B>`,
//! `Without<B>`, `Added<B>`, `Or<...>`).
//!
//! No table holds a sparse bit, so the tables are matched on the query's
//! conditions less their sparse bits
//! ([`QueryReach::TABLE_CONDITIONS`](super::QueryReach::TABLE_CONDITIONS)),
//! and then the rows of the matched tables are judged by their full
//! archetype (table mask plus sparse components) and, with a row filter,
//! their ticks.
//!
//! Which rows hold each sparse component asked about is found first, as
//! bits ([`Presence`]): from the set's owners, each marking its row, when
//! the set is small beside the tables; row by row otherwise. The query's
//! conditions are then evaluated 64 rows at a time on those bits. Then:
//!
//! * a query whose sparse components are only in its filter's `With` /
//!   `Without` ([`QueryReach::SPARSE_FILTER`]) keeps the passing rows as
//!   bits, as one with a row filter does ([`filter_rows_by_presence`]): its
//!   tables are fetched whole, and its loops visit the passing rows;
//! * any other ([`QueryReach::SPARSE_RUNS`]) cuts the passing rows into
//!   runs of consecutive rows ([`RowRun`]), as the slice forms of a query
//!   with the row filters `Added`/`Changed` cut tables, with two more
//!   reasons to start a new run: a change in which of the query's sparse
//!   components the rows have, and a gap in the dense slots of one of the
//!   sparse components whose values the query takes. Within a run, then,
//!   each sparse component is present in every row or in none, and its
//!   values are one contiguous slice of its set: a run is fetched like a
//!   table, and everything downstream (iteration, `get`, the table form,
//!   parallel chunks) is the same code as for tables. With a row filter
//!   (`Added`, `Changed`) every row is judged on its own instead
//!   ([`QueryFilter::row_passes`]).
//!
//! Building runs takes two passes, because a table's rows and a sparse
//! set's values are borrowed from different places and in different
//! orders:
//!
//! 1. table by table, each table's fetch is cut into its runs (the sparse
//!    items fetch nothing yet: empty slices);
//! 2. for each sparse component whose values the query takes, its whole set
//!    is fetched once (a *donor*) and cut, in dense order, into the slices
//!    of the runs that have it, each grafted into its run's fetch
//!    ([`SchemaQuery::graft`]). Cutting in dense order is what lets `&mut B`
//!    hand out disjoint slices without `unsafe`.
//!
//! Cost: the presence bits of each sparse component asked about (a walk of
//! its owners, or a lookup per row of the matched tables), then a few
//! instructions per 64 rows, and per passing row of a query cut into runs;
//! a run costs about as much as a table. Iteration order is the tables' and
//! their rows', as for any query: the dense order of the sets never shows.
//! A query that reaches no sparse component never comes here (a constant,
//! [`QueryReach::SPARSE`]).
//!
//! [`QueryReach::SPARSE`]: super::QueryReach::SPARSE
//! [`QueryReach::SPARSE_FILTER`]: super::QueryReach::SPARSE_FILTER
//! [`QueryReach::SPARSE_RUNS`]: super::QueryReach::SPARSE_RUNS

use super::fetch::{Donor, RowSplit, SchemaQuery, TableView, NO_COLUMN};
use super::filter::{QueryFilter, QueryReach, RowView, TableCondition};
use super::rows::{PassingRows, RowRun, RowSet};
use super::FetchedTable;
use crate::changes::ChangeWindow;
use crate::entity::Entities;
use crate::layout::Layout;
use crate::lend::{recycle, Lent};
use crate::mask::{Mask, MaskBits};
use crate::storage::{EntityIndex, SparseSet, SparseSets, Table, TableId};

/// The runs of a query that reaches sparse components: see the module docs.
#[derive(Default)]
#[doc(hidden)]
pub(crate) struct SparseRuns {
    runs: Vec<RowRun>,
    /// By run: the query's sparse components its rows have.
    present: Vec<u128>,
    /// By run, `stride` entries: the dense slot of the run's first row in the
    /// set of each sparse component whose values the query takes (in bit
    /// order; 0 where the run lacks it).
    starts: Vec<u32>,
    stride: usize,
    /// Working memory, kept so that a warm query allocates nothing for it:
    /// the memory of the list of the sets looked up per row (see `find`);
    /// one row's dense slots; the runs in the dense order of one set.
    lookups: Vec<(u32, usize)>,
    slots: Vec<u32>,
    order: Vec<usize>,
}

impl SparseRuns {
    /// Finds the runs of the rows of tables `matched` that pass query `Q`
    /// and filter `F`, seen through `window`; `presence` is working memory.
    pub(crate) fn find<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
        &mut self,
        tables: &[Table<S>],
        (sparse, entities): (&SparseSets<S>, &Entities),
        matched: &[TableId],
        window: ChangeWindow,
        presence: &mut Presence,
    ) {
        let valued = (Q::READS | Q::WRITES) & S::SPARSE_BITS;
        self.runs.clear();
        self.present.clear();
        self.starts.clear();
        self.stride = valued.count_ones() as usize;
        // A query that takes the values of a component most rows have looks
        // each row up anyway, for the value's dense slot: one lookup a row
        // gives both that and the presence bits would.
        let rows = || -> usize { matched.iter().map(|id| tables[id.index()].len()).sum() };
        let common = valued != 0
            && S::Mask::from_u128(valued)
                .iter_bits()
                .any(|bit| !is_small(sparse.set(bit).owners().len(), rows()));
        if F::ROWS || common {
            self.find_row_by_row::<S, Q, F>(tables, sparse, matched, window);
        } else {
            self.find_by_words::<S, Q, F>(tables, (sparse, entities), matched, presence);
        }
    }

    /// [`SparseRuns::find`] for a filter without row filters: the rows
    /// that pass are found 64 at a time from the presence bits of the
    /// sparse components, and only those are looked at one by one.
    fn find_by_words<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
        &mut self,
        tables: &[Table<S>],
        (sparse, entities): (&SparseSets<S>, &Entities),
        matched: &[TableId],
        presence: &mut Presence,
    ) {
        let observed = Q::SPARSE;
        let valued = (Q::READS | Q::WRITES) & S::SPARSE_BITS;
        let reach = const { QueryReach::<S, Q, F>::CONDITIONS };
        let conditions = reach.as_slice();
        let asked = (observed | reach.mentions()) & S::SPARSE_BITS;
        presence.find(tables, sparse, entities, matched, asked);
        // The sets whose values the query takes.
        let sets = self.lookups(sparse, valued);
        let mut slots = core::mem::take(&mut self.slots);
        for &id in matched {
            let table = &tables[id.index()];
            let len = table.len();
            if len == 0 {
                continue;
            }
            let admitted = admitted::<S>(conditions, table.mask().bits().to_u128());
            if admitted == 0 {
                continue;
            }
            let start = presence.start(id);
            if valued == 0 {
                self.cut_by_words::<S>(
                    id,
                    len,
                    (conditions, admitted),
                    (presence, start),
                    observed,
                );
                continue;
            }
            let entities = table.entities();
            let mut open: Option<(u32, u128)> = None;
            // The row after the last passing one: a run continues only
            // into it.
            let mut next = 0;
            for w in 0..len.div_ceil(64) {
                let mut pass = presence.passing::<S>(conditions, admitted, start, w);
                pass &= in_table(len, w);
                while pass != 0 {
                    let row = w * 64 + pass.trailing_zeros() as usize;
                    pass &= pass - 1;
                    if row != next {
                        open = None;
                    }
                    next = row + 1;
                    let mut present = 0;
                    for bit in S::Mask::from_u128(observed).iter_bits() {
                        present |=
                            u128::from(presence.word(bit, start, w) >> (row % 64) & 1) << bit;
                    }
                    slots.clear();
                    let index = entities[row];
                    for &(_, set) in &sets {
                        slots.push(set.slot(index).map_or(0, |slot| slot as u32));
                    }
                    self.add_row(id, row as u32, present, &slots, &mut open);
                }
            }
        }
        self.slots = slots;
        self.lookups = recycle(sets);
    }

    /// The runs of table `id` (of `len` rows, its words at `start` in
    /// `presence`) for a query that takes no sparse values: a run ends
    /// where the rows stop passing the `admitted` conditions or a row's
    /// `observed` sparse components differ from the row before, both found
    /// 64 rows at a time, so the cost is per run, not per row.
    fn cut_by_words<S: Layout>(
        &mut self,
        id: TableId,
        len: usize,
        (conditions, admitted): (&[TableCondition], u32),
        (presence, start): (&Presence, usize),
        observed: u128,
    ) {
        let mut last_pass = 0u64;
        for w in 0..len.div_ceil(64) {
            let pass = presence.passing::<S>(conditions, admitted, start, w) & in_table(len, w);
            // Bit r: row r's observed components differ from row r - 1's
            // (row -1 of the table counts as differing from none: its
            // rows start a run anyway where the row before does not pass).
            let mut change = 0u64;
            for bit in S::Mask::from_u128(observed).iter_bits() {
                let word = presence.word(bit, start, w);
                let before = if w == 0 {
                    0
                } else {
                    presence.word(bit, start, w - 1) >> 63
                };
                change |= word ^ (word << 1 | before);
            }
            // A run starts at a passing row whose row before does not pass
            // or differs.
            let before_passes = pass << 1 | last_pass >> 63;
            let starts = pass & (!before_passes | change);
            last_pass = pass;
            let mut rest = pass;
            while rest != 0 {
                let first = rest.trailing_zeros();
                // The passing rows from `first`, up to the next start.
                let later_starts = starts & (u64::MAX << first) & !(1 << first);
                let until = if later_starts == 0 {
                    64
                } else {
                    later_starts.trailing_zeros()
                };
                let run = ((rest >> first).trailing_ones()).min(until - first);
                let row = w as u32 * 64 + first;
                // A piece that starts no run begins a word, the last run
                // pushed (this table's) reaching the row before it.
                if starts >> first & 1 == 0 {
                    if let Some(last) = self.runs.last_mut() {
                        last.len += run;
                    }
                } else {
                    let mut present = 0;
                    for bit in S::Mask::from_u128(observed).iter_bits() {
                        let word = presence.word(bit, start, w);
                        present |= u128::from(word >> first & 1) << bit;
                    }
                    self.runs.push(RowRun::new(id, row, row + run));
                    self.present.push(present);
                }
                rest = rest
                    .checked_shr(first + run)
                    .map_or(0, |left| left << (first + run));
            }
        }
    }

    /// [`SparseRuns::find`] for a filter with row filters ([`Added`],
    /// [`Changed`]), or for a query that takes the values of a sparse
    /// component most rows have: every row of the matched tables is judged
    /// on its own, its sparse components looked up and its ticks read.
    ///
    /// [`Added`]: crate::query::Added
    /// [`Changed`]: crate::query::Changed
    fn find_row_by_row<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
        &mut self,
        tables: &[Table<S>],
        sparse: &SparseSets<S>,
        matched: &[TableId],
        window: ChangeWindow,
    ) {
        let observed = Q::SPARSE;
        let valued = (Q::READS | Q::WRITES) & S::SPARSE_BITS;
        // The sparse components anything here asks about; the others are
        // never looked up.
        let conditions = QueryReach::<S, Q, F>::CONDITIONS.mentions();
        let relevant = (observed | valued | conditions | Q::REQUIRED | F::READS) & S::SPARSE_BITS;
        // The sets to look each entity up in, found once.
        let sets = self.lookups(sparse, relevant);
        let mut slots = core::mem::take(&mut self.slots);
        for &id in matched {
            let table = &tables[id.index()];
            let mask = table.mask().bits().to_u128();
            // The length and sparse components of the open run (this
            // table's, the last pushed), if any.
            let mut open: Option<(u32, u128)> = None;
            for (row, &index) in table.entities().iter().enumerate() {
                // The entity's relevant sparse components, and its dense
                // slot in each set whose values the query takes.
                let mut full = mask;
                slots.clear();
                for &(bit, set) in &sets {
                    let slot = set.slot(index);
                    if slot.is_some() {
                        full |= 1 << bit;
                    }
                    if valued & (1 << bit) != 0 {
                        slots.push(slot.map_or(0, |slot| slot as u32));
                    }
                }
                let view = RowView {
                    mask: full,
                    window,
                    table,
                    row,
                    index,
                    sparse,
                };
                if full & Q::REQUIRED != Q::REQUIRED || !F::row_passes(&view) {
                    open = None;
                    continue;
                }
                // `add_row`, written out: so it compiles to what it did
                // before the word-wise finder shared it (9 instructions a
                // row fewer).
                let present = full & observed;
                let continues = open.is_some_and(|(len, open_present)| {
                    let starts = &self.starts[self.starts.len() - self.stride..];
                    open_present == present
                        && starts
                            .iter()
                            .zip(&slots)
                            .all(|(&start, &slot)| slot == start + len)
                });
                if continues {
                    if let (Some(run), Some((len, _))) = (self.runs.last_mut(), open.as_mut()) {
                        run.len += 1;
                        *len += 1;
                    }
                } else {
                    self.runs.push(RowRun::new(id, row as u32, row as u32 + 1));
                    self.present.push(present);
                    self.starts.extend_from_slice(&slots);
                    open = Some((1, present));
                }
            }
        }
        self.slots = slots;
        self.lookups = recycle(sets);
    }

    /// The sets of the sparse components of `bits`, each with its bit, in
    /// the memory of the last call's list (`recycle`: the same layout, a bit
    /// and a reference; give it back with `self.lookups = recycle(sets)`).
    fn lookups<'s, S: Layout>(
        &mut self,
        sparse: &'s SparseSets<S>,
        bits: u128,
    ) -> Vec<(u32, &'s SparseSet<S>)> {
        let mut sets: Vec<(u32, &SparseSet<S>)> = recycle(core::mem::take(&mut self.lookups));
        sets.extend(
            S::Mask::from_u128(bits)
                .iter_bits()
                .map(|bit| (bit, sparse.set(bit))),
        );
        sets
    }

    /// Adds row `row` of table `id`, which passes, with the observed sparse
    /// components `present` and the dense `slots` of its values: to the
    /// open run (`open`: its length and sparse components) if the row has
    /// the same components and each value comes right after the run's last,
    /// else as a new run, now the open one.
    #[inline]
    fn add_row(
        &mut self,
        id: TableId,
        row: u32,
        present: u128,
        slots: &[u32],
        open: &mut Option<(u32, u128)>,
    ) {
        let continues = open.is_some_and(|(len, open_present)| {
            let starts = &self.starts[self.starts.len() - self.stride..];
            open_present == present
                && starts
                    .iter()
                    .zip(slots)
                    .all(|(&start, &slot)| slot == start + len)
        });
        if continues {
            if let (Some(run), Some((len, _))) = (self.runs.last_mut(), open.as_mut()) {
                run.len += 1;
                *len += 1;
            }
        } else {
            self.runs.push(RowRun::new(id, row, row + 1));
            self.present.push(present);
            self.starts.extend_from_slice(slots);
            *open = Some((1, present));
        }
    }
}

/// Which rows of a query's matched tables hold each sparse component the
/// query asks about, as bits: found once per use of the query
/// ([`Presence::find`]), then read 64 rows at a time.
#[derive(Default)]
pub(crate) struct Presence {
    /// By table id: where the table's words start among a component's
    /// words, or [`NOT_MATCHED`] for a table not matched or empty.
    start: Vec<u32>,
    /// How many words each component's bits take: those of every matched,
    /// non-empty table, one table after another.
    stride: usize,
    /// The bits of the `k`-th component asked about (in bit order) at
    /// `words[k * stride..][..stride]`; bit `r` of a table's words is row
    /// `r`.
    words: Vec<u64>,
    /// By component bit, its `k` among the components asked about (empty
    /// until a query asks, so that a fresh one costs nothing to make).
    k_of: Vec<u8>,
}

/// A sparse set is *small* beside tables of `rows` rows when it holds at
/// most a quarter as many entities: its presence bits are then found from
/// its owners, and a query taking its values finds the passing rows first.
fn is_small(owners: usize, rows: usize) -> bool {
    owners * 4 <= rows
}

/// [`Presence::start`] of a table whose rows have no bits.
const NOT_MATCHED: u32 = u32::MAX;

impl Presence {
    /// Finds, for each sparse component of `asked`, which rows of the
    /// tables `matched` hold it. A component held by few entities is found
    /// from its set, each owner's location marking its row; one held by
    /// many is looked up row by row.
    pub(crate) fn find<S: Layout>(
        &mut self,
        tables: &[Table<S>],
        sparse: &SparseSets<S>,
        entities: &Entities,
        matched: &[TableId],
        asked: u128,
    ) {
        self.start.clear();
        self.start.resize(tables.len(), NOT_MATCHED);
        let (mut stride, mut rows) = (0, 0);
        for &id in matched {
            let len = tables[id.index()].len();
            if len != 0 {
                self.start[id.index()] = stride as u32;
                stride += len.div_ceil(64);
                rows += len;
            }
        }
        self.stride = stride;
        self.words.clear();
        self.words.resize(stride * asked.count_ones() as usize, 0);
        self.k_of.resize(128, 0);
        for (k, bit) in S::Mask::from_u128(asked).iter_bits().enumerate() {
            self.k_of[bit as usize] = k as u8;
            let set = sparse.set(bit);
            let owners = set.owners();
            let bits = &mut self.words[k * stride..(k + 1) * stride];
            if is_small(owners.len(), rows) {
                for &owner in owners {
                    let Some(location) = entities.location_at(owner) else {
                        continue;
                    };
                    let start = self.start[location.table.index()];
                    if start != NOT_MATCHED {
                        let row = location.row.index();
                        bits[start as usize + row / 64] |= 1 << (row % 64);
                    }
                }
            } else {
                for &id in matched {
                    let start = self.start[id.index()];
                    if start == NOT_MATCHED {
                        continue;
                    }
                    let chunks = tables[id.index()].entities().chunks(64);
                    for (word, chunk) in bits[start as usize..].iter_mut().zip(chunks) {
                        *word = set.presence(chunk);
                    }
                }
            }
        }
    }

    /// Where table `id`'s words start, for a matched, non-empty table.
    #[inline]
    fn start(&self, id: TableId) -> usize {
        self.start[id.index()] as usize
    }

    /// Rows `64 * w..` of the table whose words start at `start` that hold
    /// sparse component `bit` (one of those asked about).
    #[inline]
    fn word(&self, bit: u32, start: usize, w: usize) -> u64 {
        self.words[self.k_of[bit as usize] as usize * self.stride + start + w]
    }

    /// Rows `64 * w..` of the table whose words start at `start` that
    /// satisfy any of the `conditions` whose positions are set in
    /// `admitted` (those the table's own components satisfy): each narrowed
    /// by the sparse components it requires and excludes.
    #[inline]
    fn passing<S: Layout>(
        &self,
        conditions: &[TableCondition],
        admitted: u32,
        start: usize,
        w: usize,
    ) -> u64 {
        let mut pass = 0;
        for (i, condition) in conditions.iter().enumerate() {
            if admitted & 1 << i == 0 {
                continue;
            }
            let mut word = u64::MAX;
            let required = condition.required & S::SPARSE_BITS;
            for bit in S::Mask::from_u128(required).iter_bits() {
                word &= self.word(bit, start, w);
            }
            let excluded = condition.excluded & S::SPARSE_BITS;
            for bit in S::Mask::from_u128(excluded).iter_bits() {
                word &= !self.word(bit, start, w);
            }
            pass |= word;
        }
        pass
    }
}

/// The positions of the `conditions` that a table of archetype `mask`
/// satisfies in its own components (a table holds no sparse bit: only the
/// table part of a condition can fail here).
#[inline]
fn admitted<S: Layout>(conditions: &[TableCondition], mask: u128) -> u32 {
    conditions
        .iter()
        .enumerate()
        .filter(|(_, condition)| {
            let required = condition.required & !S::SPARSE_BITS;
            mask & required == required && mask & condition.excluded == 0
        })
        .fold(0, |admitted, (i, _)| admitted | 1 << i)
}

/// The bits of a table of `len` rows past its last row, cleared from word
/// `w`.
#[inline]
fn in_table(len: usize, w: usize) -> u64 {
    if (w + 1) * 64 <= len {
        u64::MAX
    } else {
        (1u64 << (len % 64)) - 1
    }
}

/// The rows of the tables `matched` whose entities satisfy the conditions
/// of query `Q` with filter `F` once their sparse components are counted,
/// in `rows` (cleared first), for a query that reaches sparse components
/// only through its filter's conditions ([`QueryReach::SPARSE_FILTER`]);
/// `presence` and `scratch` are working memory.
///
/// [`QueryReach::SPARSE_FILTER`]: super::QueryReach::SPARSE_FILTER
pub(crate) fn filter_rows_by_presence<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
    tables: &[Table<S>],
    sparse: &SparseSets<S>,
    entities: &Entities,
    matched: &[TableId],
    (presence, scratch): (&mut Presence, &mut RowSet),
    rows: &mut PassingRows,
) {
    let conditions = const { QueryReach::<S, Q, F>::CONDITIONS.as_slice() };
    let asked = const { QueryReach::<S, Q, F>::CONDITIONS.mentions() } & S::SPARSE_BITS;
    presence.find(tables, sparse, entities, matched, asked);
    rows.clear();
    for &id in matched {
        let table = &tables[id.index()];
        let len = table.len();
        if len == 0 {
            continue;
        }
        let admitted = admitted::<S>(conditions, table.mask().bits().to_u128());
        let start = presence.start(id);
        scratch.build(len, |w| {
            presence.passing::<S>(conditions, admitted, start, w)
        });
        rows.push(id, scratch);
    }
}

/// A sparse component's values, lent to a query build.
pub(crate) type SparseValues<'w, S> = Lent<'w, <S as Layout>::Column>;

/// Builds the fetched tables of query `Q` from its runs: `fetch_table`
/// fetches the rows of a table (with no sparse values), and `values` lends
/// each sparse set's values, by position among the sparse components.
pub(super) fn build<'w, S: Layout, Q: SchemaQuery<S>>(
    runs: &mut SparseRuns,
    entities: &'w Entities,
    values: &mut [SparseValues<'w, S>],
    tick: u32,
    mut fetch_table: impl FnMut(TableId) -> (u128, &'w [EntityIndex], Q::Fetch<'w>),
) -> Vec<FetchedTable<'w, Q>> {
    let mut fetched: Vec<FetchedTable<'w, Q>> = Vec::with_capacity(runs.runs.len());
    // 1. The table items, table by table.
    let mut next = 0;
    while next < runs.runs.len() {
        let id = runs.runs[next].table;
        let (mask, indices, fetch) = fetch_table(id);
        let mut rest = fetch;
        let mut at = 0;
        while next < runs.runs.len() && runs.runs[next].table == id {
            let run = runs.runs[next];
            let (start, len) = (run.start as usize, run.len as usize);
            let skip = RowSplit {
                rows: start - at,
                bit: NO_COLUMN,
                values: 0,
                present: 0,
            };
            let (_, tail) = Q::split_rows(rest, skip);
            let take = RowSplit {
                rows: len,
                present: runs.present[next],
                ..skip
            };
            let (head, tail) = Q::split_rows(tail, take);
            fetched.push(FetchedTable {
                id,
                mask,
                entities: &indices[start..start + len],
                first_row: run.start,
                fetch: head,
                rows: None,
            });
            rest = tail;
            at = start + len;
            next += 1;
        }
    }
    // 2. The sparse values, component by component, in dense order.
    let valued = (Q::READS | Q::WRITES) & S::SPARSE_BITS;
    let mut order = core::mem::take(&mut runs.order);
    for (k, bit) in S::Mask::from_u128(valued).iter_bits().enumerate() {
        let position = (S::SPARSE_BITS & ((1 << bit) - 1)).count_ones() as usize;
        let start = |run: usize| runs.starts[run * runs.stride + k] as usize;
        order.clear();
        order.extend((0..runs.runs.len()).filter(|&run| runs.present[run] & (1 << bit) != 0));
        order.sort_unstable_by_key(|&run| start(run));
        let lent = if Q::WRITES & (1 << bit) != 0 {
            Lent::Free(values[position].exclusive())
        } else {
            Lent::Shared(values[position].shared())
        };
        let donor = Donor {
            bit,
            values: Some(lent),
        };
        let mut rest = Q::fetch(&mut TableView::donor(entities, donor, tick));
        let mut at = 0;
        for &run in &order {
            let skip = RowSplit {
                rows: 0,
                bit,
                values: start(run) - at,
                present: u128::MAX,
            };
            let (_, tail) = Q::split_rows(rest, skip);
            let len = runs.runs[run].len as usize;
            let (head, tail) = Q::split_rows(
                tail,
                RowSplit {
                    values: len,
                    ..skip
                },
            );
            let table = &mut fetched[run];
            table.fetch = Q::graft(core::mem::take(&mut table.fetch), head, bit);
            rest = tail;
            at = start(run) + len;
        }
    }
    runs.order = order;
    fetched
}
