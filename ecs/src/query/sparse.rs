//! Queries that reach sparse components (`#[ecs(sparse)]`), in an item
//! (`&B`, `&mut B`, `Option<&B>`, `Has<B>`) or in the filter (`With<B>`,
//! `Without<B>`, `Added<B>`, `Or<...>`).
//!
//! No table holds a sparse bit, so the tables are matched on the query's
//! conditions less their sparse bits
//! ([`QueryReach::TABLE_CONDITIONS`](super::QueryReach::TABLE_CONDITIONS)),
//! and then every row of the matched tables is judged on its own, by its
//! full archetype (table mask plus sparse components) and ticks
//! ([`QueryFilter::row_passes`]). The rows that pass are cut into runs of
//! consecutive rows ([`RowRun`]), as the slice forms of a query with the
//! row filters `Added`/`Changed` cut tables, with two more reasons to start
//! a new run: a change in which of the query's sparse
//! components the rows have, and a gap in the dense slots of one of the
//! sparse components whose values the query takes. Within a run, then, each
//! sparse component is present in every row or in none, and its values are
//! one contiguous slice of its set: a run is fetched like a table, and
//! everything downstream (iteration, `get`, the table form, parallel
//! chunks) is the same code as for tables.
//!
//! Building takes two passes, because a table's rows and a sparse set's
//! values are borrowed from different places and in different orders:
//!
//! 1. table by table, each table's fetch is cut into its runs (the sparse
//!    items fetch nothing yet: empty slices);
//! 2. for each sparse component whose values the query takes, its whole set
//!    is fetched once (a *donor*) and cut, in dense order, into the slices
//!    of the runs that have it, each grafted into its run's fetch
//!    ([`SchemaQuery::graft`]). Cutting in dense order is what lets `&mut B`
//!    hand out disjoint slices without `unsafe`.
//!
//! Cost: a query that reaches sparse components reads every row of its
//! matched tables and looks up each sparse component per row; it allocates
//! its runs, and one index vector per sparse component it takes values of.
//! Iteration order is the tables' and their rows', as for any query: the
//! dense order of the sets never shows. A query that reaches no sparse
//! component never comes here (a constant, [`QueryReach::SPARSE`]).
//!
//! [`QueryReach::SPARSE`]: super::QueryReach::SPARSE

use super::fetch::{Donor, RowSplit, SchemaQuery, TableView, NO_COLUMN};
use super::filter::{QueryFilter, QueryReach, RowView};
use super::rows::RowRun;
use super::FetchedTable;
use crate::change::ChangeWindow;
use crate::entity::Entities;
use crate::lend::{recycle, Lent};
use crate::mask::{Mask, MaskBits};
use crate::schema::Schema;
use crate::storage::{EntityIndex, SparseSet, SparseSets, Table, TableId};

/// The runs of a query that reaches sparse components: see the module docs.
#[derive(Default)]
#[doc(hidden)]
pub struct SparseRuns {
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
    /// and filter `F`, seen through `window`.
    pub(crate) fn find<S: Schema, Q: SchemaQuery<S>, F: QueryFilter<S>>(
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
        self.runs.clear();
        self.present.clear();
        self.starts.clear();
        self.stride = valued.count_ones() as usize;
        // The sets to look each entity up in, found once, in the memory of
        // the last call's list (`recycle`: the same layout, a bit and a
        // reference).
        let mut sets: Vec<(u32, &SparseSet<S>)> = recycle(core::mem::take(&mut self.lookups));
        sets.extend(
            S::Mask::from_u128(relevant)
                .iter_bits()
                .map(|bit| (bit, sparse.set(bit))),
        );
        let mut slots = core::mem::take(&mut self.slots);
        for &id in matched {
            let table = &tables[id.index()];
            let mask = table.mask().bits().to_u128();
            // The rows of the open run (this table's, the last pushed), if
            // any, and its sparse components.
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
                let present = full & observed;
                // The row continues the open run if it has the same sparse
                // components, each value right after the run's last.
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
}

/// A sparse component's values, lent to a query build.
pub(crate) type SparseValues<'w, S> = Lent<'w, <S as Schema>::Column>;

/// Builds the fetched tables of query `Q` from its runs: `fetch_table`
/// fetches the rows of a table (with no sparse values), and `values` lends
/// each sparse set's values, by position among the sparse components.
pub(super) fn build<'w, S: Schema, Q: SchemaQuery<S>>(
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
