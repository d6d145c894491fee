//! Row filters: [`Added`](super::Added) and [`Changed`](super::Changed) select
//! rows, not tables. A query with one computes, per matching table, the set
//! of rows that pass ([`RowSet`]) before it borrows any column, and keeps
//! those sets as bits ([`PassingRows`]). Its loops visit the set bits one
//! by one (`for_each_row`: a lookup per passing row, so a pass over a few
//! changed rows among many costs little more than the bit scan); the forms
//! that hand out slices (the iterator, the table form, the parallel forms)
//! cut each table into the runs of consecutive passing rows
//! ([`BitRuns`]). A query without one never gets here.

use super::QueryData;
use crate::changes::{ChangeWindow, GROUP, MAX_AGE, SWEEP_INTERVAL};
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
        // Resized only when the length changes, then filled as a whole: a
        // memset, where `resize` from empty stores word by word.
        self.words.resize(len.div_ceil(64), u64::MAX);
        self.words.fill(u64::MAX);
        if len % 64 != 0 {
            if let Some(last) = self.words.last_mut() {
                *last = (1u64 << (len % 64)) - 1;
            }
        }
    }

    /// The rows of a table of `len` rows given word by word: `word(w)`
    /// holds rows `64 * w..` (bits past `len` are ignored).
    pub(crate) fn build(&mut self, len: usize, mut word: impl FnMut(usize) -> u64) {
        self.clear(len);
        for (w, slot) in self.words.iter_mut().enumerate() {
            *slot = word(w);
        }
        if len % 64 != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << (len % 64)) - 1;
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
    /// (`latest`, see [`TrackedVec`](crate::storage::TrackedVec)) is after
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

    /// The runs of consecutive rows in the set, in row order.
    #[cfg(test)]
    pub(crate) fn runs(&self) -> BitRuns<'_> {
        BitRuns::new(&self.words)
    }
}

/// The rows of each table that pass a query's row filter, as bits: the
/// words of each table's [`RowSet`] back to back, and where each table's
/// start. Tables none of whose rows pass are left out.
#[derive(Clone, Debug, Default)]
#[doc(hidden)]
pub(crate) struct PassingRows {
    words: Vec<u64>,
    tables: Vec<TableRows>,
}

/// The passing rows of one table: words `start..end` of a [`PassingRows`],
/// bit `r` of them row `r` of the table, at least one of them set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableRows {
    pub(crate) table: TableId,
    start: u32,
    end: u32,
}

impl PassingRows {
    /// Forgets every table's rows, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.words.clear();
        self.tables.clear();
    }

    /// Adds the rows of `set` as those of table `table` (after every table
    /// added so far); nothing if none is in the set. The first table's
    /// words are taken from `set` rather than copied, so `set` is left with
    /// no rows (and, as working memory, whatever memory it is given back).
    pub(crate) fn push(&mut self, table: TableId, set: &mut RowSet) {
        // An or of every word (which vectorizes), not a count of the bits.
        if set.words.iter().fold(0, |any, word| any | word) == 0 {
            return;
        }
        let start = self.words.len() as u32;
        if self.words.is_empty() {
            core::mem::swap(&mut self.words, &mut set.words);
            set.clear(0);
        } else {
            self.words.extend_from_slice(&set.words);
        }
        self.tables.push(TableRows {
            table,
            start,
            end: self.words.len() as u32,
        });
    }

    /// The number of passing rows of `table`, one of
    /// [`PassingRows::tables`].
    pub(crate) fn count(&self, table: TableRows) -> usize {
        let bits = self.bits(table);
        bits.iter().map(|word| word.count_ones() as usize).sum()
    }

    /// Each table with passing rows, ascending.
    pub(crate) fn tables(&self) -> &[TableRows] {
        &self.tables
    }

    /// The bits of `table`'s rows (bit `r` for row `r`), one of
    /// [`PassingRows::tables`].
    #[inline]
    pub(crate) fn bits(&self, table: TableRows) -> &[u64] {
        &self.words[table.start as usize..table.end as usize]
    }

    /// For a query whose row filter's tables not yet taken are `passing`
    /// (`None` without a row filter), the rows of table `id`: `Some(None)`
    /// without a row filter, `Some(Some(rows))` with one, and `None` when
    /// none of the table's rows pass, which the query skips.
    #[inline]
    pub(crate) fn take_for(
        passing: &mut Option<&[TableRows]>,
        id: TableId,
    ) -> Option<Option<TableRows>> {
        match passing {
            None => Some(None),
            Some(tables) => Self::take(tables, id).map(Some),
        }
    }

    /// The rows of table `id` from the front of `tables` (ascending, what is
    /// left of [`PassingRows::tables`] after the tables before `id`), taken
    /// off it; `None` when none of its rows pass.
    #[inline]
    pub(crate) fn take(tables: &mut &[TableRows], id: TableId) -> Option<TableRows> {
        while let Some((first, rest)) = tables.split_first() {
            if first.table > id {
                return None;
            }
            *tables = rest;
            if first.table == id {
                return Some(*first);
            }
        }
        None
    }
}

/// The runs of consecutive set bits of a bit set, ascending, as rows
/// `start..end`: each found with a few bit scans, not a step per row.
#[derive(Clone, Debug)]
pub(crate) struct BitRuns<'a> {
    /// The words after `word`.
    words: &'a [u64],
    /// The bits of the current word not yet handed out.
    word: u64,
    /// The row of the current word's bit 0.
    base: u32,
}

impl<'a> BitRuns<'a> {
    pub(crate) fn new(words: &'a [u64]) -> Self {
        match words.split_first() {
            Some((&word, words)) => BitRuns {
                words,
                word,
                base: 0,
            },
            None => BitRuns {
                words,
                word: 0,
                base: 0,
            },
        }
    }

    /// The number of rows in the runs not yet handed out.
    pub(crate) fn rows(&self) -> usize {
        let rest: u32 = self.words.iter().map(|word| word.count_ones()).sum();
        (self.word.count_ones() + rest) as usize
    }
}

impl Iterator for BitRuns<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        while self.word == 0 {
            let (&word, rest) = self.words.split_first()?;
            self.words = rest;
            self.word = word;
            self.base += 64;
        }
        let start = self.word.trailing_zeros();
        let end = start + (self.word >> start).trailing_ones();
        if end < 64 {
            self.word &= u64::MAX << end;
            return Some((self.base + start, self.base + end));
        }
        // The run reaches the end of the word: it goes on through the
        // words that follow, as far as their low bits are set.
        let first = self.base + start;
        self.word = 0;
        while let Some((&word, rest)) = self.words.split_first() {
            self.words = rest;
            self.base += 64;
            let ones = word.trailing_ones();
            if ones < 64 {
                self.word = word & (u64::MAX << ones);
                return Some((first, self.base + ones));
            }
        }
        Some((first, self.base + 64))
    }
}

/// Calls `f` with the item of each row of `fetch` (a whole table's, of
/// `len` rows) that a query reaches: every row, or with a row filter the
/// rows set in `bits`.
#[inline]
pub(crate) fn for_each_reached<Q: QueryData>(
    fetch: Q::Fetch<'_>,
    len: usize,
    bits: Option<&[u64]>,
    f: &mut impl FnMut(Q::Item<'_>),
) {
    match bits {
        None => Q::fold(fetch, len, (), |(), item| f(item)),
        Some(bits) => for_each_row::<Q>(fetch, bits, f),
    }
}

/// Calls `f` with the item of each row of `fetch` (a whole table's) whose
/// bit is set in `bits`, in row order: for a word whose set bits come in
/// runs of three or more on average, the loop over a table of each run of
/// consecutive rows (of all 64 when all are set); otherwise one lookup per
/// row.
#[inline]
fn for_each_row<Q: QueryData>(
    mut fetch: Q::Fetch<'_>,
    bits: &[u64],
    f: &mut impl FnMut(Q::Item<'_>),
) {
    for (w, &word) in bits.iter().enumerate() {
        if word == 0 {
            continue;
        }
        let base = w * 64;
        let mut rest = word;
        // Runs of three rows or more on average: the set bits against the
        // runs they make (a run starts at a set bit whose lower neighbour
        // is clear), counted only for a word with a run of three at all.
        let long_runs = word & (word >> 1) & (word >> 2) != 0
            && word.count_ones() >= 3 * (word & !(word << 1)).count_ones();
        if long_runs {
            while rest != 0 {
                let start = rest.trailing_zeros();
                let len = (rest >> start).trailing_ones();
                let (_, tail) = Q::split_at(Q::reborrow(&mut fetch), base + start as usize);
                let (rows, _) = Q::split_at(tail, len as usize);
                Q::fold(rows, len as usize, (), |(), item| f(item));
                rest = rest
                    .checked_shr(start + len)
                    .map_or(0, |left| left << (start + len));
            }
            continue;
        }
        while rest != 0 {
            let row = base + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            f(Q::get(Q::reborrow(&mut fetch), row));
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

/// Rows `start..start + len` of table `table`, all passing the filter of a
/// query that reaches sparse components (see `sparse.rs`).
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

/// Folds the runs of set bits of `bits` with `each(acc, start, end,
/// fetch)`: the rows `start..end` of `fetch` (a whole table's), in row
/// order.
#[inline]
pub(super) fn fold_runs<'a, Q: QueryData, B>(
    fetch: Q::Fetch<'a>,
    bits: &[u64],
    init: B,
    mut each: impl FnMut(B, usize, usize, Q::Fetch<'a>) -> B,
) -> B {
    let mut acc = init;
    let mut rest = fetch;
    let mut at = 0;
    for (start, end) in BitRuns::new(bits) {
        let (start, end) = (start as usize, end as usize);
        let (_, tail) = Q::split_at(rest, start - at);
        let (run, tail) = Q::split_at(tail, end - start);
        acc = each(acc, start, end, run);
        rest = tail;
        at = end;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(set: &RowSet) -> Vec<RowRun> {
        set.runs()
            .map(|(start, end)| RowRun::new(TableId(0), start, end))
            .collect()
    }

    fn runs_of(rows: &[bool]) -> Vec<(u32, u32)> {
        let mut set = RowSet::default();
        set.clear(rows.len());
        for (row, &keep) in rows.iter().enumerate() {
            if keep {
                set.words[row / 64] |= 1 << (row % 64);
            }
        }
        set.runs()
            .map(|(start, end)| (start, end - start))
            .collect()
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
    fn runs_end_at_word_boundaries_and_count_the_rows_left() {
        let mut rows = vec![false; 256];
        for row in (60..64).chain([100]).chain(128..256) {
            rows[row] = true;
        }
        assert_eq!(runs_of(&rows), [(60, 4), (100, 1), (128, 128)]);
        let mut set = RowSet::default();
        set.clear(rows.len());
        for row in (0..rows.len()).filter(|&row| rows[row]) {
            set.words[row / 64] |= 1 << (row % 64);
        }
        let mut runs = set.runs();
        assert_eq!(runs.rows(), 133);
        runs.next();
        assert_eq!(runs.rows(), 129);
        runs.next();
        assert_eq!(runs.rows(), 128);
        assert_eq!(runs.next(), Some((128, 256)));
        assert_eq!((runs.rows(), runs.next()), (0, None));
    }

    #[test]
    fn passing_rows_keep_the_tables_with_rows_and_are_taken_in_table_order() {
        let mut passing = PassingRows::default();
        let mut set = RowSet::default();
        for (table, rows) in [(1, 70), (2, 0), (3, 5), (5, 130)] {
            set.clear(rows.max(1));
            if rows > 0 {
                set.words[0] = 1;
                set.words[rows.div_ceil(64) - 1] |= 1 << ((rows - 1) % 64);
            }
            passing.push(TableId(table), &mut set);
        }
        let ids: Vec<u32> = passing.tables().iter().map(|t| t.table.0).collect();
        assert_eq!(ids, [1, 3, 5]);
        let counts: Vec<usize> = passing.tables().iter().map(|&t| passing.count(t)).collect();
        assert_eq!(counts, [2, 2, 2]);
        assert_eq!(passing.bits(passing.tables()[2]), [1, 0, 1 << 1]);
        let mut left = passing.tables();
        assert_eq!(PassingRows::take(&mut left, TableId(0)), None);
        assert_eq!(left.len(), 3, "a table before the first is not taken");
        assert_eq!(
            PassingRows::take(&mut left, TableId(1)),
            Some(passing.tables()[0])
        );
        assert_eq!(PassingRows::take(&mut left, TableId(2)), None);
        assert_eq!(
            PassingRows::take(&mut left, TableId(5)),
            Some(passing.tables()[2])
        );
        assert!(left.is_empty());
    }

    #[test]
    fn filling_leaves_no_row_past_the_end_of_the_table() {
        // The last rows dropped: no run may start in the bits of the last
        // word past the table's end (it would be an empty table to iterate).
        let mut set = RowSet::default();
        set.fill(70);
        set.words[1] &= !0b11_1111;
        let runs = runs(&set);
        assert_eq!(runs, [RowRun::new(TableId(0), 0, 64)]);
    }

    #[test]
    fn filling_sets_exactly_the_rows_of_the_table() {
        let mut set = RowSet::default();
        set.fill(70);
        let runs = runs(&set);
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
        let runs = runs(&set);
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
            let runs = runs(&set);
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
        let runs = runs(&set);
        let starts: Vec<u32> = runs.iter().map(|run| run.start).collect();
        assert_eq!(starts, [5, 1023, 1500, 2047, 2999]);
        assert_eq!(runs[1].len, 2);
        assert_eq!(runs[3].len, 2);
    }
}
