//! [`QueryState`]: what a query keeps between uses, the one state behind
//! every form of query.
//!
//! A query is found in two steps. *Matching* picks the tables whose
//! archetype fits the query's [`TableCondition`](super::TableCondition)s
//! ([`MatchedTables`], extended as tables appear). *Reaching* finds, in
//! those tables, what this use of the query covers ([`Reach`]): with a row
//! filter ([`Added`](crate::query::Added), [`Changed`](crate::query::Changed)) the rows
//! that pass it, for a query that reaches sparse components only through
//! its filter's `With`/`Without` the rows whose entities pass, and for
//! other queries that reach sparse components their runs of rows. A
//! [`Query`] is then built over the tables and what they reach
//! ([`Query::exclusive`], [`Query::shared`], [`Query::split`]).
//!
//! The three forms differ only in who keeps what:
//!
//! * a system's `Query` parameter and a [`PreparedQuery`](super::PreparedQuery)
//!   keep a whole [`QueryState`], so a warm one matches only new tables and
//!   reaches into memory it already has;
//! * [`World::query`](crate::world::World::query) and its kin match through the
//!   world's cache (one [`MatchedTables`] per list of conditions, shared by
//!   every query with the same conditions) and reach into a fresh [`Reach`].

use super::filter::{QueryFilter, QueryReach};
use super::rows::{PassingRows, RowSet};
use super::sparse::{filter_rows_by_presence, Presence};
use super::{filter_rows, MatchedTables, Query, QueryData, SchemaQuery, SparseRuns};
use crate::changes::ChangeWindow;
use crate::entity::Entities;
use crate::layout::Layout;
use crate::lend::SplitWorld;
use crate::storage::{SparseSets, Table, TableId, Tables};
use std::borrow::Cow;

/// What one use of a query reaches in its matched tables: see the module
/// docs. Only the part the query needs is filled: nothing for a query with
/// neither a row filter nor a sparse component.
#[derive(Default)]
pub(crate) struct Reach {
    /// With a row filter or a sparse filter: the rows that pass it.
    rows: PassingRows,
    /// Working memory of the row filter.
    scratch: RowSet,
    /// For a query that reaches sparse components: its runs.
    sparse: SparseRuns,
    /// Working memory of a query that reaches sparse components: which
    /// rows hold them.
    presence: Presence,
}

impl Reach {
    /// Finds what query `Q` with filter `F` reaches in the tables `matched`
    /// of `tables` (whose entities are in `entities`, their sparse
    /// components in `sparse`), seen through `window`.
    pub(crate) fn find<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
        &mut self,
        tables: &[Table<S>],
        (sparse, entities): (&SparseSets<S>, &Entities),
        matched: &[TableId],
        window: ChangeWindow,
    ) {
        if QueryReach::<S, Q, F>::SPARSE_RUNS {
            let sets = (sparse, entities);
            let presence = &mut self.presence;
            self.sparse
                .find::<S, Q, F>(tables, sets, matched, window, presence);
        } else if QueryReach::<S, Q, F>::SPARSE_FILTER {
            let scratch = (&mut self.presence, &mut self.scratch);
            let rows = &mut self.rows;
            filter_rows_by_presence::<S, Q, F>(tables, sparse, entities, matched, scratch, rows);
        } else if F::ROWS {
            filter_rows::<S, F>(tables, matched, window, &mut self.scratch, &mut self.rows);
        }
    }

    /// What a build takes, the passing rows lent for `'w`: for a state that
    /// outlives the query (a system's).
    pub(crate) fn lend(&mut self) -> Reached<'_, '_> {
        Reached {
            runs: &mut self.sparse,
            rows: Some(Cow::Borrowed(&self.rows)),
        }
    }

    /// What a build takes, the passing rows copied: for a state the query
    /// may not borrow (a [`PreparedQuery`](super::PreparedQuery)'s, free for
    /// its next call while the query lives).
    pub(crate) fn copy<'w>(&mut self) -> Reached<'_, 'w> {
        Reached {
            runs: &mut self.sparse,
            rows: Some(Cow::Owned(self.rows.clone())),
        }
    }

    /// What a build takes, the passing rows moved into the query: for a
    /// reach found for this one query.
    pub(crate) fn give<'w>(&mut self) -> Reached<'_, 'w> {
        Reached {
            runs: &mut self.sparse,
            rows: Some(Cow::Owned(core::mem::take(&mut self.rows))),
        }
    }
}

/// A [`Reach`] as a query build takes it: the runs of a sparse query to cut
/// the tables into, and the passing rows of a row filter, which the query
/// keeps (used only with a row filter).
pub(crate) struct Reached<'a, 'w> {
    runs: &'a mut SparseRuns,
    rows: Option<Cow<'w, PassingRows>>,
}

impl<'w> Reached<'_, 'w> {
    /// The passing rows, for a query `Q` with filter `F` that keeps them
    /// ([`QueryReach::ROWS`]).
    fn rows<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
        &mut self,
    ) -> Option<Cow<'w, PassingRows>> {
        if QueryReach::<S, Q, F>::ROWS {
            self.rows.take()
        } else {
            None
        }
    }
}

/// What a query keeps between uses: the tables it matches, what it reached
/// the last time, and the change window it was last brought up to date
/// with. Behind a system's `Query` parameter and a
/// [`PreparedQuery`](super::PreparedQuery); see the module docs.
#[doc(hidden)]
pub struct QueryState {
    matched: MatchedTables,
    reach: Reach,
    window: Option<ChangeWindow>,
}

impl Default for QueryState {
    /// Out of line: built into every query's generic code, the empty
    /// state's many fields cost 170 lines of LLVM IR per query type.
    #[inline(never)]
    fn default() -> Self {
        QueryState {
            matched: MatchedTables::default(),
            reach: Reach::default(),
            window: None,
        }
    }
}

impl QueryState {
    /// Brings the state up to date with a world's `tables`, `sparse` sets
    /// and `entities`, seen through `window`: matches the tables it has not
    /// seen (all of them, for a world other than the last one) and finds
    /// what the query reaches in them now.
    pub(crate) fn update<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>>(
        &mut self,
        tables: &Tables<S>,
        sparse: (&SparseSets<S>, &Entities),
        window: ChangeWindow,
    ) {
        if !self.matched.is_current(tables) {
            let conditions = const { QueryReach::<S, Q, F>::TABLE_CONDITIONS.as_slice() };
            self.matched.update(tables, conditions);
        }
        self.window = Some(window);
        self.reach
            .find::<S, Q, F>(tables.as_slice(), sparse, self.matched.tables(), window);
    }

    /// The tables matched so far, ascending.
    pub(crate) fn tables(&self) -> &[TableId] {
        self.matched.tables()
    }

    /// The tick of the window of the last update, which writes are stamped
    /// with (0 before any).
    pub(crate) fn tick(&self) -> u32 {
        self.window.map_or(0, |window| window.this_run)
    }

    /// The matched tables and what the query reaches in them, the passing
    /// rows lent to the query (see [`Reach::lend`]).
    pub(crate) fn lend(&mut self) -> (&[TableId], Reached<'_, '_>) {
        (self.matched.tables(), self.reach.lend())
    }

    /// The matched tables and what the query reaches in them, the passing
    /// rows copied (see [`Reach::copy`]).
    pub(crate) fn copy<'w>(&mut self) -> (&[TableId], Reached<'_, 'w>) {
        (self.matched.tables(), self.reach.copy())
    }

    /// The passing rows of the last update (empty without a row filter).
    pub(crate) fn rows(&self) -> &PassingRows {
        &self.reach.rows
    }
}

impl<'w, Q: QueryData, F> Query<'w, Q, F> {
    /// The query over the tables `matched` of an exclusively borrowed world
    /// and what it reaches there; `tick` stamps writes.
    pub(crate) fn exclusive<S: Layout>(
        entities: &'w Entities,
        tables: &'w mut [Table<S>],
        sparse: &'w mut SparseSets<S>,
        matched: &[TableId],
        mut reached: Reached<'_, 'w>,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
        F: QueryFilter<S>,
    {
        if QueryReach::<S, Q, F>::SPARSE_RUNS {
            return Query::build_sparse(entities, tables, sparse, reached.runs, tick);
        }
        let rows = reached.rows::<S, Q, F>();
        Query::build(entities, tables, matched, rows, tick)
    }

    /// The read-only query over the tables `matched` of a shared world and
    /// what it reaches there.
    pub(crate) fn shared<S: Layout>(
        entities: &'w Entities,
        tables: &'w [Table<S>],
        sparse: &'w SparseSets<S>,
        matched: &[TableId],
        mut reached: Reached<'_, 'w>,
    ) -> Self
    where
        Q: SchemaQuery<S> + super::ReadOnlyQueryData,
        F: QueryFilter<S>,
    {
        if QueryReach::<S, Q, F>::SPARSE_RUNS {
            return Query::build_sparse_shared(entities, tables, sparse, reached.runs);
        }
        let rows = reached.rows::<S, Q, F>();
        Query::build_shared(entities, tables, matched, rows)
    }

    /// The query over the tables `matched` of a world taken apart for
    /// systems, taking its columns out of their slots, and what it reaches
    /// there; `tick` stamps writes.
    pub(crate) fn split<S: Layout>(
        world: &mut SplitWorld<'w, S>,
        matched: &[TableId],
        mut reached: Reached<'_, 'w>,
        tick: u32,
    ) -> Self
    where
        Q: SchemaQuery<S>,
        F: QueryFilter<S>,
    {
        if QueryReach::<S, Q, F>::SPARSE_RUNS {
            return Query::from_split_sparse(world, reached.runs, tick);
        }
        let rows = reached.rows::<S, Q, F>();
        Query::from_split(world, matched, rows, tick)
    }
}
