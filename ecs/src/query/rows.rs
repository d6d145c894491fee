//! Row filters: [`Added`](super::Added) and [`Changed`](super::Changed) select
//! rows, not tables. A query with one computes, per matching table, the set
//! of rows that pass ([`RowSet`]) before it borrows any column, and then
//! iterates the runs of consecutive passing rows as if each were a table of
//! its own ([`RowRun`]). A query without one never gets here.

use crate::change::ChangeWindow;
use crate::storage::TableId;

/// A set of rows of one table, as bits.
#[derive(Clone, Debug, Default)]
#[doc(hidden)]
pub struct RowSet {
    words: Vec<u64>,
    len: usize,
}

impl RowSet {
    /// The number of rows of the table.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Every row of a table of `len` rows.
    pub(crate) fn fill(&mut self, len: usize) {
        self.len = len;
        self.words.clear();
        self.words.resize(len.div_ceil(64), u64::MAX);
        if len % 64 != 0 {
            if let Some(last) = self.words.last_mut() {
                *last = (1u64 << (len % 64)) - 1;
            }
        }
    }

    /// No row of a table of `len` rows.
    pub(crate) fn clear(&mut self, len: usize) {
        self.len = len;
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
    }

    /// Keeps the rows whose tick (`ticks[row]`) falls in `window`.
    // The inner loop builds each word without a branch, so that it
    // vectorizes: a `Changed<T>` pass reads 4 bytes a row.
    pub(crate) fn retain_ticks(&mut self, ticks: &[u32], window: ChangeWindow) {
        debug_assert_eq!(ticks.len(), self.len);
        let span = window.this_run.wrapping_sub(window.last_run);
        for (word, chunk) in self.words.iter_mut().zip(ticks.chunks(64)) {
            let mut bits = 0u64;
            for (i, &tick) in chunk.iter().enumerate() {
                bits |= u64::from(window.this_run.wrapping_sub(tick) < span) << i;
            }
            *word &= bits;
        }
    }

    /// Keeps the rows also in `other` (a set of the same table).
    pub(crate) fn intersect(&mut self, other: &RowSet) {
        for (word, other) in self.words.iter_mut().zip(&other.words) {
            *word &= other;
        }
    }

    /// Adds the rows of `other` (a set of the same table).
    pub(crate) fn unite(&mut self, other: &RowSet) {
        for (word, other) in self.words.iter_mut().zip(&other.words) {
            *word |= other;
        }
    }

    /// Appends the runs of consecutive rows in the set, in row order, as runs
    /// of table `table`.
    pub(crate) fn push_runs(&self, table: TableId, runs: &mut Vec<RowRun>) {
        let mut open: Option<u32> = None;
        for (w, &word) in self.words.iter().enumerate() {
            let base = (w * 64) as u32;
            if word == 0 {
                if let Some(start) = open.take() {
                    runs.push(RowRun::new(table, start, base));
                }
                continue;
            }
            if word == u64::MAX {
                open.get_or_insert(base);
                continue;
            }
            let mut bits = word;
            let mut at = 0u32;
            while at < 64 {
                if bits & 1 == 1 {
                    let ones = bits.trailing_ones().min(64 - at);
                    open.get_or_insert(base + at);
                    at += ones;
                    bits = bits.checked_shr(ones).unwrap_or(0);
                } else {
                    if let Some(start) = open.take() {
                        runs.push(RowRun::new(table, start, base + at));
                    }
                    if bits == 0 {
                        break;
                    }
                    let zeros = bits.trailing_zeros();
                    at += zeros;
                    bits >>= zeros;
                }
            }
        }
        if let Some(start) = open {
            runs.push(RowRun::new(table, start, self.len as u32));
        }
    }
}

/// Rows `start..start + len` of table `table`, all passing a row filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowRun {
    pub(crate) table: TableId,
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl RowRun {
    fn new(table: TableId, start: u32, end: u32) -> Self {
        RowRun {
            table,
            start,
            len: end - start,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(rows: &[bool]) -> Vec<(u32, u32)> {
        let mut set = RowSet::default();
        set.clear(rows.len());
        for (row, &keep) in rows.iter().enumerate() {
            if keep {
                set.words[row / 64] |= 1 << (row % 64);
            }
        }
        let mut runs = Vec::new();
        set.push_runs(TableId(3), &mut runs);
        runs.iter().map(|run| (run.start, run.len)).collect()
    }

    #[test]
    fn runs_are_the_maximal_stretches_of_set_rows() {
        let mut rows = vec![false; 200];
        for row in [0, 1, 2, 63, 64, 65, 100, 127, 128, 199] {
            rows[row] = true;
        }
        assert_eq!(
            runs_of(&rows),
            [(0, 3), (63, 3), (100, 1), (127, 2), (199, 1)]
        );
        assert_eq!(runs_of(&[true; 130]), [(0, 130)]);
        assert_eq!(runs_of(&[false; 130]), []);
    }

    #[test]
    fn filling_sets_exactly_the_rows_of_the_table() {
        let mut set = RowSet::default();
        set.fill(70);
        let mut runs = Vec::new();
        set.push_runs(TableId(0), &mut runs);
        assert_eq!(runs, [RowRun::new(TableId(0), 0, 70)]);
    }

    #[test]
    fn retaining_by_tick_keeps_the_rows_in_the_window() {
        let ticks: Vec<u32> = (0..100).collect();
        let mut set = RowSet::default();
        set.fill(100);
        set.retain_ticks(
            &ticks,
            ChangeWindow {
                last_run: 10,
                this_run: 20,
            },
        );
        let mut runs = Vec::new();
        set.push_runs(TableId(0), &mut runs);
        assert_eq!(runs, [RowRun::new(TableId(0), 11, 21)]);
    }
}
