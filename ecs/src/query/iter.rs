//! Iterating a [`Query`](super::Query): [`QueryIter`], over the fetched tables (and with a
//! row filter, their passing rows).

use super::fetch::QueryData;
use super::fetched::FetchedTable;
use super::rows::{BitRuns, PassingRows, TableRows};

/// Iterator over a [`Query`](super::Query)'s items, table by table (with a row filter,
/// run of passing rows by run).
pub struct QueryIter<'a, 'w, Q: QueryData> {
    /// The tables (none with a row filter: they are in `filtered`).
    tables: IterSource<'a, 'w, Q>,
    /// The current table's (or run's) remaining rows.
    fetch: Q::Fetch<'a>,
    remaining: usize,
    /// With a row filter: the tables, cut into runs of passing rows. Boxed
    /// and walked out of line, so that a query without one carries one
    /// more word and a test per table: with the runs' state kept here, the
    /// iterator no longer fit in registers, and a `for` loop over
    /// `frag_iter`'s 26 tables took 1.4× its time (2.6× over
    /// `simple_iter`'s one table where the walk was inlined).
    filtered: Option<Box<FilteredTables<'a, 'w, Q>>>,
}

/// Where a [`QueryIter`] takes its tables from: shared (read-only queries) or
/// exclusive borrows of the query's fetches.
pub(super) enum IterSource<'a, 'w, Q: QueryData> {
    Shared(
        core::slice::Iter<'a, FetchedTable<'w, Q>>,
        fn(&'a Q::Fetch<'w>) -> Q::Fetch<'a>,
    ),
    Exclusive(core::slice::IterMut<'a, FetchedTable<'w, Q>>),
}

impl<'a, 'w, Q: QueryData> IterSource<'a, 'w, Q> {
    /// The next table: its length, its rows in the row filter's bits and
    /// its fetch.
    #[inline(always)]
    fn next_fetched(&mut self) -> Option<(usize, Option<TableRows>, Q::Fetch<'a>)> {
        Some(match self {
            IterSource::Shared(tables, shared) => {
                let table = tables.next()?;
                (table.entities.len(), table.rows, shared(&table.fetch))
            }
            IterSource::Exclusive(tables) => {
                let table = tables.next()?;
                (
                    table.entities.len(),
                    table.rows,
                    Q::reborrow(&mut table.fetch),
                )
            }
        })
    }

    /// The tables not handed out yet.
    fn rest(&self) -> &[FetchedTable<'w, Q>] {
        match self {
            IterSource::Shared(tables, _) => tables.as_slice(),
            IterSource::Exclusive(tables) => tables.as_slice(),
        }
    }
}

/// The tables of a [`QueryIter`] with a row filter, with the table whose
/// runs are being handed out.
struct FilteredTables<'a, 'w, Q: QueryData> {
    tables: IterSource<'a, 'w, Q>,
    passing: &'a PassingRows,
    /// The runs of the current table after the last one handed out, and
    /// the rows after it (`rest`, from table row `rest_row` on).
    runs: BitRuns<'a>,
    rest: Q::Fetch<'a>,
    rest_row: u32,
}

impl<'a, 'w, Q: QueryData> FilteredTables<'a, 'w, Q> {
    /// The next run of passing rows, or whole table: its length and fetch.
    #[inline]
    fn next_run(&mut self) -> Option<(usize, Q::Fetch<'a>)> {
        loop {
            if let Some((start, end)) = self.runs.next() {
                let rest = core::mem::take(&mut self.rest);
                let (_, tail) = Q::split_at(rest, (start - self.rest_row) as usize);
                let (run, tail) = Q::split_at(tail, (end - start) as usize);
                self.rest = tail;
                self.rest_row = end;
                return Some(((end - start) as usize, run));
            }
            let (len, rows, fetch) = self.tables.next_fetched()?;
            match rows {
                // Not reached today: with a row filter, every table the
                // query keeps has passing rows. A whole table if it were.
                None => return Some((len, fetch)),
                Some(rows) => {
                    self.runs = BitRuns::new(self.passing.bits(rows));
                    self.rest = fetch;
                    self.rest_row = 0;
                }
            }
        }
    }

    /// [`FilteredTables::next_run`], out of line for [`QueryIter::next`].
    #[inline(never)]
    fn next_run_out_of_line(&mut self) -> Option<(usize, Q::Fetch<'a>)> {
        self.next_run()
    }

    /// The number of rows not handed out yet.
    fn rows_left(&self) -> usize {
        let later: usize = self.tables.rest().iter().map(|t| t.len(self.passing)).sum();
        later + self.runs.rows()
    }
}

impl<'a, 'w, Q: QueryData> QueryIter<'a, 'w, Q> {
    pub(super) fn new(tables: IterSource<'a, 'w, Q>, passing: &'a PassingRows) -> Self {
        // Without passing rows, no table has a row filter's rows.
        let (tables, filtered) = if passing.tables().is_empty() {
            (tables, None)
        } else {
            let filtered = FilteredTables {
                tables,
                passing,
                runs: BitRuns::new(&[]),
                rest: Q::Fetch::default(),
                rest_row: 0,
            };
            let none = IterSource::Exclusive(Default::default());
            (none, Some(Box::new(filtered)))
        };
        QueryIter {
            tables,
            fetch: Q::Fetch::default(),
            remaining: 0,
            filtered,
        }
    }

    /// Moves to the next table (or run); `None` when there is none. Tables
    /// and runs are never empty (the query skips tables no row of which it
    /// reaches). Always inlined: left out of line (as `#[inline]` allowed in
    /// `benches/changes.rs`), the call keeps the iterator in memory, at 2.7×
    /// the time of a `for` loop.
    #[inline(always)]
    fn next_table(&mut self) -> Option<()> {
        let (len, fetch) = match &mut self.filtered {
            None => {
                let (len, _, fetch) = self.tables.next_fetched()?;
                (len, fetch)
            }
            Some(filtered) => filtered.next_run_out_of_line()?,
        };
        self.fetch = fetch;
        self.remaining = len;
        Some(())
    }

    fn rows_after_current(&self) -> usize {
        match &self.filtered {
            None => self.tables.rest().iter().map(|t| t.entities.len()).sum(),
            Some(filtered) => filtered.rows_left(),
        }
    }
}

impl<'a, 'w, Q: QueryData> Iterator for QueryIter<'a, 'w, Q> {
    type Item = Q::Item<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<Q::Item<'a>> {
        if self.remaining == 0 {
            self.next_table()?;
        }
        self.remaining -= 1;
        Some(Q::next(&mut self.fetch))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.remaining + self.rows_after_current();
        (len, Some(len))
    }

    /// Table by table (run by run), each with the loop of `for_each`: what
    /// `iter().for_each(…)`, `sum` and most adapters run on.
    #[inline]
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let mut acc = Q::fold(
            core::mem::take(&mut self.fetch),
            self.remaining,
            init,
            &mut g,
        );
        match self.filtered.take() {
            None => {
                while let Some((len, _, fetch)) = self.tables.next_fetched() {
                    acc = Q::fold(fetch, len, acc, &mut g);
                }
            }
            Some(filtered) => {
                let mut filtered = *filtered;
                while let Some((len, fetch)) = filtered.next_run() {
                    acc = Q::fold(fetch, len, acc, &mut g);
                }
            }
        }
        acc
    }
}

impl<Q: QueryData> ExactSizeIterator for QueryIter<'_, '_, Q> {}
