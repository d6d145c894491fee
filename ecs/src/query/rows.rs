//! Row filters: [`Added`](super::Added) and [`Changed`](super::Changed) select
//! rows, not tables. A query with one computes, per matching table, the set
//! of rows that pass ([`RowSet`]) before it borrows any column, and then
//! iterates the runs of consecutive passing rows as if each were a table of
//! its own ([`RowRun`]). A query without one never gets here.

use crate::change::{ChangeWindow, GROUP, MAX_AGE, SWEEP_INTERVAL};
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
    pub(crate) fn retain_ticks(&mut self, ticks: &[u32], window: ChangeWindow) {
        debug_assert_eq!(ticks.len(), self.len);
        let new = InWindow::new(window);
        for (word, chunk) in self.words.iter_mut().zip(ticks.chunks(64)) {
            *word &= bits_where(chunk, |tick| new.contains(tick));
        }
    }

    /// Keeps the rows whose changed tick (`changed[row]`) falls in
    /// `window`, reading only the groups of [`GROUP`] rows whose summary
    /// (`latest`, see [`TrackedVec`](crate::change::TrackedVec)) is after
    /// the window's start: a group whose latest change is at or before it
    /// has no row to keep. The summaries are read 64 at a time, and each
    /// group that may hold a change costs one more read of 16 ticks, so a
    /// pass over thinly spread changes reads little more than a sixteenth
    /// of the ticks.
    pub(crate) fn retain_changed(&mut self, changed: &[u32], latest: &[u32], window: ChangeWindow) {
        debug_assert_eq!(changed.len(), self.len);
        debug_assert_eq!(latest.len(), self.len.div_ceil(GROUP));
        const GROUPS_PER_WORD: usize = 64 / GROUP;
        const WORDS_PER_CHUNK: usize = 64 / GROUPS_PER_WORD;
        let new = InWindow::new(window);
        let word_chunks = self.words.chunks_mut(WORDS_PER_CHUNK);
        for (c, (words, summaries)) in word_chunks.zip(latest.chunks(64)).enumerate() {
            // Bit g: group g of these 64 may hold a change. Only those are
            // read, one by one.
            let mut candidates = bits_where(summaries, |latest| !new.stale(latest));
            let mut kept = [0u64; WORDS_PER_CHUNK];
            while candidates != 0 {
                let group = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let start = (c * 64 + group) * GROUP;
                let ticks = &changed[start..changed.len().min(start + GROUP)];
                let bits = bits_where(ticks, |tick| new.contains(tick));
                kept[group / GROUPS_PER_WORD] |= bits << (group % GROUPS_PER_WORD * GROUP);
            }
            for (word, kept) in words.iter_mut().zip(kept) {
                *word &= kept;
            }
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

/// A window, as the two numbers its tests need.
#[derive(Clone, Copy)]
struct InWindow {
    now: u32,
    span: u32,
}

impl InWindow {
    fn new(window: ChangeWindow) -> Self {
        InWindow {
            now: window.this_run,
            span: window.this_run.wrapping_sub(window.last_run),
        }
    }

    /// Whether `tick` is in the window.
    #[inline(always)]
    fn contains(self, tick: u32) -> bool {
        self.now.wrapping_sub(tick) < self.span
    }

    /// Whether `latest`, a group's summary, is at or before the window's
    /// start, and a tick of the past (a world holds none older than
    /// `MAX_AGE + SWEEP_INTERVAL`; anything else is read, to be safe).
    #[inline(always)]
    fn stale(self, latest: u32) -> bool {
        let age = self.now.wrapping_sub(latest);
        // `&`, not `&&`: no branch, so that a loop of these vectorizes.
        (age >= self.span) & (age <= MAX_AGE + SWEEP_INTERVAL)
    }
}

/// Bit `i` set where `keep(values[i])`, for at most 64 values.
#[inline(always)]
fn bits_where(values: &[u32], keep: impl Fn(u32) -> bool) -> u64 {
    if let Ok(values) = <&[u32; 64]>::try_from(values) {
        pack(values, keep)
    } else if let Ok(values) = <&[u32; GROUP]>::try_from(values) {
        // Unrolled, each flag shifted by a constant: a compare and a
        // mask extraction.
        values
            .iter()
            .enumerate()
            .fold(0, |bits, (i, &value)| bits | u64::from(keep(value)) << i)
    } else {
        values
            .iter()
            .enumerate()
            .fold(0, |bits, (i, &value)| bits | u64::from(keep(value)) << i)
    }
}

/// [`bits_where`] of `N` values (a multiple of 8, at most 64): they are
/// tested at once into `N` flag bytes (a fixed-size loop that vectorizes),
/// and if any is set the flags are packed into bits, eight at a time, by
/// one multiplication each.
#[inline(always)]
fn pack<const N: usize>(values: &[u32; N], keep: impl Fn(u32) -> bool) -> u64 {
    let mut flags = [0u8; N];
    for (flag, &value) in flags.iter_mut().zip(values) {
        *flag = u8::from(keep(value));
    }
    let mut bits = 0u64;
    if flags.iter().fold(0u8, |any, &flag| any | flag) != 0 {
        for (j, eight) in flags.chunks_exact(8).enumerate() {
            let Ok(eight) = <[u8; 8]>::try_from(eight) else {
                unreachable!("chunks_exact(8) gives 8 flags");
            };
            // Byte i (0 or 1) lands on bit 56 + i of the product.
            let packed = u64::from_le_bytes(eight).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            bits |= packed << (8 * j);
        }
    }
    bits
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

    #[test]
    fn retaining_changes_reads_only_the_groups_whose_summary_is_in_the_window() {
        let window = ChangeWindow {
            last_run: 10,
            this_run: 20,
        };
        // 100 rows: rows 3, 40 and 99 changed at 15, the rest at 5.
        let mut changed = vec![5u32; 100];
        for row in [3, 40, 99] {
            changed[row] = 15;
        }
        let exact: Vec<u32> = changed
            .chunks(GROUP)
            .map(|group| group.iter().copied().max().unwrap())
            .collect();
        let kept = |latest: &[u32]| {
            let mut set = RowSet::default();
            set.fill(100);
            set.retain_changed(&changed, latest, window);
            let mut runs = Vec::new();
            set.push_runs(TableId(0), &mut runs);
            runs.iter().map(|run| run.start).collect::<Vec<_>>()
        };
        assert_eq!(kept(&exact), [3, 40, 99]);
        // A summary at or before the window's start hides its group (which
        // the summaries' invariant makes right); one after it, or one that
        // is not a past tick at all, does not.
        let mut summaries = exact.clone();
        summaries[40 / GROUP] = 10;
        assert_eq!(kept(&summaries), [3, 99]);
        summaries[40 / GROUP] = 11;
        assert_eq!(kept(&summaries), [3, 40, 99]);
        summaries[40 / GROUP] = 25;
        assert_eq!(kept(&summaries), [3, 40, 99]);
    }

    #[test]
    fn retaining_changes_finds_them_past_the_first_thousand_rows() {
        // Tables longer than the 1,024 rows one word of summaries covers.
        let window = ChangeWindow {
            last_run: 10,
            this_run: 20,
        };
        let kept_rows = [5u32, 1023, 1024, 1500, 2047, 2048, 2999];
        let mut changed = vec![5u32; 3000];
        for &row in &kept_rows {
            changed[row as usize] = 15;
        }
        let latest: Vec<u32> = changed
            .chunks(GROUP)
            .map(|group| group.iter().copied().max().unwrap())
            .collect();
        let mut set = RowSet::default();
        set.fill(changed.len());
        set.retain_changed(&changed, &latest, window);
        let mut runs = Vec::new();
        set.push_runs(TableId(0), &mut runs);
        let starts: Vec<u32> = runs.iter().map(|run| run.start).collect();
        assert_eq!(starts, [5, 1023, 1500, 2047, 2999]);
        assert_eq!(runs[1].len, 2);
        assert_eq!(runs[3].len, 2);
    }
}
