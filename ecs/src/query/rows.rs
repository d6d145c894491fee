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
    // A Changed<T> pass reads 4 bytes a row and keeps few: each word's 64
    // ticks are compared at once into 64 flag bytes (a fixed-size loop that
    // vectorizes), and a word with any flag set packs them into bits, eight
    // at a time, by one multiplication each.
    pub(crate) fn retain_ticks(&mut self, ticks: &[u32], window: ChangeWindow) {
        debug_assert_eq!(ticks.len(), self.len);
        let (now, span) = (
            window.this_run,
            window.this_run.wrapping_sub(window.last_run),
        );
        let new = |tick: u32| now.wrapping_sub(tick) < span;
        let full = ticks.len() / 64;
        let (words, last) = self.words.split_at_mut(full);
        for (word, chunk) in words.iter_mut().zip(ticks.chunks_exact(64)) {
            let mut flags = [0u8; 64];
            for (flag, &tick) in flags.iter_mut().zip(chunk) {
                *flag = u8::from(new(tick));
            }
            let mut bits = 0u64;
            if flags.iter().fold(0u8, |any, &flag| any | flag) != 0 {
                for (j, eight) in flags.chunks_exact(8).enumerate() {
                    let Ok(eight) = <[u8; 8]>::try_from(eight) else {
                        unreachable!("chunks_exact(8) gives 8 flags");
                    };
                    // Byte i (0 or 1) lands on bit 56 + i of the product.
                    let packed =
                        u64::from_le_bytes(eight).wrapping_mul(0x0102_0408_1020_4080) >> 56;
                    bits |= packed << (8 * j);
                }
            }
            *word &= bits;
        }
        if let Some(word) = last.first_mut() {
            let mut bits = 0u64;
            for (i, &tick) in ticks[full * 64..].iter().enumerate() {
                bits |= u64::from(new(tick)) << i;
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
                    // Fewer than 64: a word of all ones took the path above.
                    let ones = bits.trailing_ones();
                    open.get_or_insert(base + at);
                    at += ones;
                    bits >>= ones;
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
    pub(crate) fn new(table: TableId, start: u32, end: u32) -> Self {
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
    fn filling_leaves_no_row_past_the_end_of_the_table() {
        // The last rows dropped: no run may start in the bits of the last
        // word past the table's end (it would be an empty table to iterate).
        let mut set = RowSet::default();
        set.fill(70);
        set.words[1] &= !0b11_1111;
        let mut runs = Vec::new();
        set.push_runs(TableId(0), &mut runs);
        assert_eq!(runs, [RowRun::new(TableId(0), 0, 64)]);
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
    fn retaining_by_tick_keeps_exactly_the_rows_in_the_window_wherever_they_are() {
        // Every row in the window at a pseudo-random third of the rows,
        // across whole words and the last partial one.
        let ticks: Vec<u32> = (0..1000u32)
            .map(|i| {
                if i.wrapping_mul(2654435761) % 3 == 0 {
                    15
                } else {
                    5
                }
            })
            .collect();
        let mut set = RowSet::default();
        set.fill(ticks.len());
        set.retain_ticks(
            &ticks,
            ChangeWindow {
                last_run: 10,
                this_run: 20,
            },
        );
        for (row, &tick) in ticks.iter().enumerate() {
            let kept = set.words[row / 64] >> (row % 64) & 1 == 1;
            assert_eq!(kept, tick == 15, "row {row}");
        }
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
