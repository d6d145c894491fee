//! Query filters: conditions on a table's archetype that select tables without
//! borrowing anything.
//!
//! Every filter, however nested, is kept as a short list of
//! [`TableCondition`]s, any one of which admits a table (its disjunctive
//! normal form): `With<A>` is one condition, a tuple joins the conditions of
//! its members pairwise, and an [`Or`] lists those of its branches. A filter
//! without `Or` is one condition, matched as `mask & required == required &&
//! mask & excluded == 0`.

use super::fetch::SchemaQuery;
use super::rows::RowSet;
use crate::changes::ChangeWindow;
use crate::layout::{Component, Layout, Tracked};
use crate::mask::{Mask, MaskBits};
use crate::storage::{Column, EntityIndex, SparseSets, Table};
use core::marker::PhantomData;

/// A condition on the archetype: [`With<T>`], [`Without<T>`], [`Or`] of
/// filters, `()` (no condition) and tuples of filters (all must hold, up to
/// 12; tuples nest).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query filter of schema `{S}`",
    label = "not a filter of `{S}`",
    note = "a filter is `With<T>` or `Without<T>` with `T` a component of `{S}`, `Added<T>` or \
            `Changed<T>` with `T` a tracked one (`#[ecs(track)]`), \
            `Or<(F1, F2, ...)>`, or a tuple of up to 12 filters (tuples nest)"
)]
pub trait QueryFilter<S: Layout> {
    /// Components every matching table has.
    const REQUIRED: u128;
    /// Components no matching table has.
    const EXCLUDED: u128;
    /// The conditions any one of which admits a table: one for a filter
    /// without [`Or`].
    #[doc(hidden)]
    const CONDITIONS: Conditions;
    /// Components whose change ticks the filter reads ([`Added`],
    /// [`Changed`]): a read of the component for the schedule.
    #[doc(hidden)]
    const READS: u128 = 0;
    /// Whether the filter selects rows ([`Added`], [`Changed`]), not only
    /// tables.
    #[doc(hidden)]
    const ROWS: bool = false;

    /// Narrows `rows`, rows of a table of archetype `mask` with `columns`
    /// that the filter's conditions admit, to those that pass the row
    /// conditions, as seen through `window`.
    #[doc(hidden)]
    #[inline(always)]
    fn filter_rows(
        _mask: S::Mask,
        _columns: &[S::Column],
        _window: ChangeWindow,
        _rows: &mut RowSet,
    ) {
    }

    /// Whether one entity passes the filter, its archetype (table and
    /// sparse components) and ticks read through `row`: how a query that
    /// reaches sparse components filters, row by row.
    #[doc(hidden)]
    #[inline]
    fn row_passes(row: &RowView<'_, S>) -> bool {
        Self::CONDITIONS.admits(row.mask)
    }
}

/// Filter: only entities that have component `T` (a tag or a data component).
pub struct With<T>(PhantomData<fn() -> T>);

/// Filter: only entities that do not have component `T`.
pub struct Without<T>(PhantomData<fn() -> T>);

/// Filter: only entities that match at least one of the filters of the tuple
/// `T` (up to 12; each a [`With`], a [`Without`], a tuple, or another `Or`).
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Pos(i64);
/// #[derive(Debug)] struct Vel(i64);
/// #[derive(Debug)] struct Player;
/// #[derive(Debug)] struct Frozen;
/// #[derive(Schema)] struct Game { pos: Pos, vel: Vel, player: Player, frozen: Frozen }
///
/// let mut world = World::<Game>::new();
/// let mover = world.spawn((Pos(0), Vel(1)));
/// let player = world.spawn((Pos(0), Player));
/// let frozen_player = world.spawn((Pos(0), Player, Frozen));
/// world.spawn((Pos(0),));
///
/// // Everything that moves or is a player.
/// let found: Vec<Entity> =
///     world.query_filtered::<Entity, Or<(With<Vel>, With<Player>)>>().iter().collect();
/// assert_eq!(found, [mover, player, frozen_player]);
///
/// // Branches are filters themselves: movers, and players that are not frozen.
/// let active = world
///     .query_filtered::<Entity, Or<(With<Vel>, (With<Player>, Without<Frozen>))>>()
///     .count();
/// assert_eq!(active, 2);
/// ```
///
/// Two queries of one system may both write a component when no entity can
/// match both: `Query<&mut Pos, Or<(With<Vel>, With<Player>)>>` beside
/// `Query<&mut Pos, (Without<Vel>, Without<Player>)>` compiles, while beside
/// `Query<&mut Pos, Without<Vel>>` (a player without `Vel` matches both) it
/// does not.
pub struct Or<T>(PhantomData<fn() -> T>);

/// Filter: only entities whose component `T` was added (spawned with it, or
/// inserted) since the system last ran; `T` must be tracked
/// (`#[ecs(track)]`).
///
/// In a system, "since the system last ran" is exact: the change happened
/// after the system's previous run, in program order (or before its first
/// run). A query made on the world directly, including one in an exclusive
/// system (`&mut World`), sees what happened since the last
/// [`World::clear_trackers`](crate::world::World::clear_trackers).
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Pos(i32);
/// #[derive(Schema)] struct S { #[ecs(track)] pos: Pos }
///
/// let mut world = World::<S>::new();
/// let old = world.spawn((Pos(0),));
/// world.clear_trackers();
/// let new = world.spawn((Pos(1),));
/// let added: Vec<Entity> = world.query_filtered::<Entity, Added<Pos>>().iter().collect();
/// assert_eq!(added, [new]);
/// # let _ = old;
/// ```
pub struct Added<T>(PhantomData<fn() -> T>);

/// Filter: only entities whose component `T` was added or written since the
/// system last ran (see [`Added`] for "since"); `T` must be tracked
/// (`#[ecs(track)]`).
///
/// A write is any mutable access: an item `&mut T` handed out by a query
/// (by `for_each_mut`, `get_mut`, `get_many_mut`, the table form, or a
/// parallel loop), [`World::get_mut`](crate::world::World::get_mut), an
/// [`EntityMut`](crate::world::EntityMut), or an insert that replaces the value.
/// It is recorded per entity. An `iter_mut()` iterator hands out every row
/// of the query at once: if it is dropped part-way, the rows it did not reach
/// count as written too (so that stepping through rows costs nothing extra).
/// Filter out what you will not write rather than skipping it in the loop.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Pos(i32);
/// #[derive(Schema)] struct S { #[ecs(track)] pos: Pos }
///
/// let mut world = World::<S>::new();
/// let a = world.spawn((Pos(0),));
/// let b = world.spawn((Pos(0),));
/// world.clear_trackers();
/// world.get_mut::<Pos>(b).unwrap().0 = 5;
/// let changed: Vec<Entity> = world.query_filtered::<Entity, Changed<Pos>>().iter().collect();
/// assert_eq!(changed, [b]);
/// # let _ = a;
/// ```
pub struct Changed<T>(PhantomData<fn() -> T>);

/// `Added<T>` and `Changed<T>`: the tables that have `T`, as `With<T>`, then
/// the rows `$keep` keeps (given the column, the window and the rows); one
/// entity at a time (`row_passes`), its tick `$ticks` of (added, changed).
macro_rules! tick_filter {
    ($filter:ident, $ticks:tt, $keep:expr) => {
        impl<S: Layout, T: Tracked<S>> QueryFilter<S> for $filter<T> {
            const REQUIRED: u128 = 1 << T::BIT;
            const EXCLUDED: u128 = 0;
            const CONDITIONS: Conditions = Conditions::one(TableCondition {
                required: 1 << T::BIT,
                excluded: 0,
            });
            const READS: u128 = 1 << T::BIT;
            const ROWS: bool = true;

            fn filter_rows(
                mask: S::Mask,
                columns: &[S::Column],
                window: ChangeWindow,
                rows: &mut RowSet,
            ) {
                // A sparse `T` is never in a table: its queries filter
                // through `row_passes`.
                if const { crate::storage::is_sparse::<S>(T::BIT) } {
                    return;
                }
                let keep: fn(&S::Column, ChangeWindow, &mut RowSet) = $keep;
                keep(&columns[mask.index(T::BIT)], window, rows);
            }

            fn row_passes(row: &RowView<'_, S>) -> bool {
                row.mask & (1 << T::BIT) != 0
                    && row
                        .ticks(T::BIT)
                        .is_some_and(|ticks| row.window.contains(ticks.$ticks))
            }
        }
    };
}

// The rows added in the window.
tick_filter!(Added, 0, |column, window, rows| {
    if let Some((added, _)) = column.ticks() {
        rows.retain_ticks(added, window);
    }
});
// The rows changed in the window, skipping the groups of rows whose
// summary says none was.
tick_filter!(Changed, 1, |column, window, rows| {
    if let Some((changed, latest)) = column.changed_and_latest() {
        rows.retain_changed(changed, latest, window);
    }
});

impl<S: Layout, T: Component<S>> QueryFilter<S> for With<T> {
    const REQUIRED: u128 = 1 << T::BIT;
    const EXCLUDED: u128 = 0;
    const CONDITIONS: Conditions = Conditions::one(TableCondition {
        required: 1 << T::BIT,
        excluded: 0,
    });
}

impl<S: Layout, T: Component<S>> QueryFilter<S> for Without<T> {
    const REQUIRED: u128 = 0;
    const EXCLUDED: u128 = 1 << T::BIT;
    const CONDITIONS: Conditions = Conditions::one(TableCondition {
        required: 0,
        excluded: 1 << T::BIT,
    });
}

macro_rules! impl_filter_tuple {
    ($($f:ident),*) => {
        impl<S: Layout, $($f: QueryFilter<S>),*> QueryFilter<S> for ($($f,)*) {
            const REQUIRED: u128 = 0 $(| $f::REQUIRED)*;
            const EXCLUDED: u128 = 0 $(| $f::EXCLUDED)*;
            const CONDITIONS: Conditions = Conditions::ALL $(.and(&$f::CONDITIONS))*;
            const READS: u128 = 0 $(| $f::READS)*;
            const ROWS: bool = false $(|| $f::ROWS)*;

            #[inline]
            #[allow(unused_variables)]
            fn filter_rows(mask: S::Mask, columns: &[S::Column], window: ChangeWindow, rows: &mut RowSet) {
                $(if $f::ROWS {
                    $f::filter_rows(mask, columns, window, rows);
                })*
            }

            #[inline]
            #[allow(unused_variables)]
            fn row_passes(row: &RowView<'_, S>) -> bool {
                true $(&& $f::row_passes(row))*
            }
        }
    };
}

macro_rules! impl_or {
    ($($f:ident),+) => {
        impl<S: Layout, $($f: QueryFilter<S>),+> QueryFilter<S> for Or<($($f,)+)> {
            const REQUIRED: u128 = Self::CONDITIONS.required();
            const EXCLUDED: u128 = Self::CONDITIONS.excluded();
            const CONDITIONS: Conditions = Conditions::NONE $(.or(&$f::CONDITIONS))+;
            const READS: u128 = 0 $(| $f::READS)+;
            const ROWS: bool = false $(|| $f::ROWS)+;

            // The rows that pass any branch whose table conditions admit the
            // table: all of its rows for a branch without row conditions.
            fn filter_rows(mask: S::Mask, columns: &[S::Column], window: ChangeWindow, rows: &mut RowSet) {
                if !Self::ROWS {
                    return;
                }
                let bits = mask.bits().to_u128();
                let mut union = RowSet::default();
                union.clear(rows.len());
                let mut branch = RowSet::default();
                $(if $f::CONDITIONS.admits(bits) {
                    branch.fill(rows.len());
                    $f::filter_rows(mask, columns, window, &mut branch);
                    union.unite(&branch);
                })+
                rows.intersect(&union);
            }

            fn row_passes(row: &RowView<'_, S>) -> bool {
                false $(|| $f::row_passes(row))+
            }
        }
    };
}

macro_rules! impl_filters {
    ($($f:ident),*) => {
        impl_filter_tuple!($($f),*);
        impl_or!($($f),*);
    };
}

impl_filter_tuple!();
impl_filters!(A);
impl_filters!(A, B);
impl_filters!(A, B, C);
impl_filters!(A, B, C, D);
impl_filters!(A, B, C, D, E);
impl_filters!(A, B, C, D, E, F);
impl_filters!(A, B, C, D, E, F, G);
impl_filters!(A, B, C, D, E, F, G, H);
impl_filters!(A, B, C, D, E, F, G, H, I);
impl_filters!(A, B, C, D, E, F, G, H, I, J);
impl_filters!(A, B, C, D, E, F, G, H, I, J, K);
impl_filters!(A, B, C, D, E, F, G, H, I, J, K, L);

/// One way for a table to match a query: its archetype has every component
/// of `required` and none of `excluded` (bits as in the schema's mask).
///
/// A query reaches the tables that satisfy any one of its conditions: one
/// for a filter without [`Or`], one per branch (after distributing tuples
/// over branches) with it. See [`Access::any_of`](crate::system::Access::any_of).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableCondition {
    /// Components the table must have.
    pub required: u128,
    /// Components the table must not have.
    pub excluded: u128,
}

impl TableCondition {
    /// Whether a table of archetype `mask` (as bits) satisfies it.
    #[inline]
    pub const fn matches(self, mask: u128) -> bool {
        mask & self.required == self.required && mask & self.excluded == 0
    }

    /// Whether no archetype satisfies both: one requires a component the
    /// other excludes. Exact for conditions that are each satisfiable.
    pub const fn is_disjoint(self, other: TableCondition) -> bool {
        self.required & other.excluded != 0 || other.required & self.excluded != 0
    }
}

/// The most conditions a filter may have once its tuples are distributed
/// over its `Or` branches: `(Or<(A, B)>, Or<(C, D)>)` has four.
pub(crate) const MAX_CONDITIONS: usize = 16;

/// A filter as the list of [`TableCondition`]s any one of which admits a
/// table, built at compile time. Conditions that no archetype satisfies
/// (`(With<A>, Without<A>)`) are dropped, and their clashing components kept
/// for the message of a query that can never match.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Conditions {
    len: usize,
    items: [TableCondition; MAX_CONDITIONS],
    /// Components both required and excluded by a dropped condition.
    contradicted: u128,
}

const TOO_MANY_CONDITIONS: &str = "this query filter has more than 16 alternatives once its \
                                   tuples are multiplied out over its `Or` branches (a tuple of \
                                   two `Or`s of four branches each has 16); split the query in two";

impl Conditions {
    /// Matches every table: the one condition that asks nothing.
    pub const ALL: Conditions = Conditions::one(TableCondition {
        required: 0,
        excluded: 0,
    });

    /// Matches no table: no condition.
    pub const NONE: Conditions = Conditions {
        len: 0,
        items: [TableCondition {
            required: 0,
            excluded: 0,
        }; MAX_CONDITIONS],
        contradicted: 0,
    };

    /// Exactly `condition`.
    pub const fn one(condition: TableCondition) -> Conditions {
        Conditions::NONE.with(condition)
    }

    /// Whether a table of archetype `mask` satisfies any of the conditions.
    #[inline]
    pub fn admits(&self, mask: u128) -> bool {
        self.as_slice()
            .iter()
            .any(|condition| condition.matches(mask))
    }

    /// The conditions, in the order the filter names them.
    #[inline]
    pub const fn as_slice(&self) -> &[TableCondition] {
        self.items.split_at(self.len).0
    }

    /// How many conditions there are.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether no table can match.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Components that made a dropped condition impossible; when no condition
    /// is left, why the filter matches nothing.
    pub const fn contradicted(&self) -> u128 {
        self.contradicted
    }

    /// Components every condition requires (none if there is no condition).
    pub const fn required(&self) -> u128 {
        let mut i = 0;
        let mut all = if self.len == 0 { 0 } else { u128::MAX };
        while i < self.len {
            all &= self.items[i].required;
            i += 1;
        }
        all
    }

    /// Components every condition excludes (none if there is no condition).
    pub const fn excluded(&self) -> u128 {
        let mut i = 0;
        let mut all = if self.len == 0 { 0 } else { u128::MAX };
        while i < self.len {
            all &= self.items[i].excluded;
            i += 1;
        }
        all
    }

    /// The same conditions, each without the components of `bits` (a
    /// condition that then repeats another is listed once).
    pub const fn without_bits(&self, bits: u128) -> Conditions {
        let mut out = Conditions::NONE;
        out.contradicted = self.contradicted;
        let mut i = 0;
        while i < self.len {
            let condition = self.items[i];
            out = out.with(TableCondition {
                required: condition.required & !bits,
                excluded: condition.excluded & !bits,
            });
            i += 1;
        }
        out
    }

    /// Every component any condition requires or excludes.
    pub const fn mentions(&self) -> u128 {
        let mut bits = 0;
        let mut i = 0;
        while i < self.len {
            bits |= self.items[i].required | self.items[i].excluded;
            i += 1;
        }
        bits
    }

    /// Tables that satisfy a condition of either.
    pub const fn or(&self, other: &Conditions) -> Conditions {
        let mut result = *self;
        result.contradicted |= other.contradicted;
        let mut i = 0;
        while i < other.len {
            result = result.with(other.items[i]);
            i += 1;
        }
        result
    }

    /// Tables that satisfy a condition of each: every pair joined.
    pub const fn and(&self, other: &Conditions) -> Conditions {
        let mut result = Conditions::NONE;
        result.contradicted = self.contradicted | other.contradicted;
        let mut i = 0;
        while i < self.len {
            let mut j = 0;
            while j < other.len {
                let (a, b) = (self.items[i], other.items[j]);
                result = result.with(TableCondition {
                    required: a.required | b.required,
                    excluded: a.excluded | b.excluded,
                });
                j += 1;
            }
            i += 1;
        }
        result
    }

    /// These and `condition`, unless no table can satisfy it or it is
    /// already listed.
    const fn with(mut self, condition: TableCondition) -> Conditions {
        let clash = condition.required & condition.excluded;
        if clash != 0 {
            self.contradicted |= clash;
            return self;
        }
        let mut i = 0;
        while i < self.len {
            if self.items[i].required == condition.required
                && self.items[i].excluded == condition.excluded
            {
                return self;
            }
            i += 1;
        }
        if self.len == MAX_CONDITIONS {
            panic!("{}", TOO_MANY_CONDITIONS);
        }
        self.items[self.len] = condition;
        self.len += 1;
        self
    }
}

/// The tables query `Q` with filter `F` reaches in schema `S`: its items'
/// required components joined with the filter's conditions.
#[doc(hidden)]
#[allow(clippy::type_complexity)]
pub(crate) struct QueryReach<S, Q, F>(PhantomData<fn() -> (S, Q, F)>);

impl<S: Layout, Q: SchemaQuery<S>, F: QueryFilter<S>> QueryReach<S, Q, F> {
    /// The conditions any one of which admits a table.
    pub(crate) const CONDITIONS: &'static Conditions = &Conditions::one(TableCondition {
        required: Q::REQUIRED,
        excluded: 0,
    })
    .and(&F::CONDITIONS);

    /// The conditions on tables: [`QueryReach::CONDITIONS`] less the sparse
    /// components, which no table holds (the rows are then filtered one by
    /// one, see [`QueryReach::SPARSE`]). The same conditions in a schema
    /// without sparse components.
    pub(crate) const TABLE_CONDITIONS: &'static Conditions =
        &Self::CONDITIONS.without_bits(S::SPARSE_BITS);

    /// Whether the query reaches a sparse component, in an item or in its
    /// filter: its rows are then judged one by one (see `query/sparse.rs`).
    pub(crate) const SPARSE: bool =
        Q::SPARSE != 0 || Self::CONDITIONS.mentions() & S::SPARSE_BITS != 0;

    /// Whether the query reaches sparse components only through the
    /// `With`/`Without` conditions of its filter: no item reads a sparse
    /// component, and the filter has no row filter ([`Added`],
    /// [`Changed`]). Its passing rows are then found as bits, by the
    /// presence of each entity's sparse components, and the query is built
    /// as one with a row filter is, whole tables and their bits.
    pub(crate) const SPARSE_FILTER: bool = Self::SPARSE && Q::SPARSE == 0 && !F::ROWS;

    /// Whether the query is built run by run (see `query/sparse.rs`): it
    /// reaches sparse components other than through its filter's
    /// conditions alone.
    pub(crate) const SPARSE_RUNS: bool = Self::SPARSE && !Self::SPARSE_FILTER;

    /// Whether the query keeps the rows that pass, as bits, beside its
    /// tables: a row filter's, or a sparse filter's
    /// ([`QueryReach::SPARSE_FILTER`]).
    pub(crate) const ROWS: bool = F::ROWS || Self::SPARSE_FILTER;

    /// The table conditions as a list, empty when there is only one (see
    /// [`Access::any_of`](crate::system::Access::any_of)).
    pub(crate) const ANY_OF: &'static [TableCondition] = if Self::TABLE_CONDITIONS.len() > 1 {
        Self::TABLE_CONDITIONS.as_slice()
    } else {
        &[]
    };

    /// Fails to evaluate (a compile error naming the component) if no table
    /// can ever match: the query requires a component it also excludes.
    pub(crate) const CHECK: () = {
        if Self::CONDITIONS.is_empty() {
            let bit = Self::CONDITIONS.contradicted().trailing_zeros();
            panic!("{}", S::NEVER_MATCHES_MESSAGES[bit as usize]);
        }
    };
}

/// One entity of a matched table, as a row filter sees it: its full
/// archetype and its ticks.
#[doc(hidden)]
pub struct RowView<'a, S: Layout> {
    /// The entity's archetype: its table's mask and its sparse components.
    pub(crate) mask: u128,
    pub(crate) window: ChangeWindow,
    pub(super) table: &'a Table<S>,
    pub(super) row: usize,
    pub(super) index: EntityIndex,
    pub(super) sparse: &'a SparseSets<S>,
}

impl<S: Layout> RowView<'_, S> {
    /// The (added, changed) ticks of the entity's tracked component `bit`.
    pub(crate) fn ticks(&self, bit: u32) -> Option<(u32, u32)> {
        if crate::storage::is_sparse::<S>(bit) {
            let set = self.sparse.set(bit);
            set.values().row_ticks(set.slot(self.index)?)
        } else {
            self.table.column(bit).row_ticks(self.row)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Conditions, TableCondition};

    const A: u128 = 1;
    const B: u128 = 2;
    const C: u128 = 4;

    fn with(bits: u128) -> Conditions {
        Conditions::one(TableCondition {
            required: bits,
            excluded: 0,
        })
    }

    fn without(bits: u128) -> Conditions {
        Conditions::one(TableCondition {
            required: 0,
            excluded: bits,
        })
    }

    fn pairs(conditions: &Conditions) -> Vec<(u128, u128)> {
        conditions
            .as_slice()
            .iter()
            .map(|c| (c.required, c.excluded))
            .collect()
    }

    #[test]
    fn a_tuple_of_ors_distributes_over_the_branches() {
        let either = with(A).or(&with(B));
        let conditions = either.and(&without(C).or(&with(C)));
        assert_eq!(pairs(&conditions), [(A, C), (A | C, 0), (B, C), (B | C, 0)]);
    }

    #[test]
    fn impossible_conditions_are_dropped_and_remembered() {
        let conditions = with(A).or(&with(B)).and(&without(A));
        assert_eq!(pairs(&conditions), [(B, A)]);
        assert_eq!(conditions.contradicted(), A);
        let never = with(A).and(&without(A));
        assert!(never.is_empty());
        assert_eq!(never.contradicted(), A);
    }

    #[test]
    fn repeated_conditions_are_listed_once() {
        let conditions = with(A).or(&with(A)).or(&Conditions::ALL.and(&with(A)));
        assert_eq!(pairs(&conditions), [(A, 0)]);
    }

    #[test]
    fn the_summary_is_what_every_condition_shares() {
        let conditions = with(A | B)
            .and(&without(C))
            .or(&with(A).and(&without(C | B)));
        assert_eq!(conditions.required(), A);
        assert_eq!(conditions.excluded(), C);
        assert_eq!(Conditions::NONE.required(), 0);
    }

    #[test]
    fn a_condition_matches_masks_with_all_required_and_no_excluded() {
        let condition = TableCondition {
            required: A,
            excluded: B,
        };
        assert!(condition.matches(A));
        assert!(condition.matches(A | C));
        assert!(!condition.matches(A | B));
        assert!(!condition.matches(C));
    }
}
