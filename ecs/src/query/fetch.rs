//! What a query item is made of: [`QueryData`] (the schema-free part: item
//! and per-table slice types) and [`SchemaQuery`] (masks and column lookup in
//! a schema).

use super::entities::TableEntities;
use crate::entity::{Entities, Entity};
use crate::layout::{Component, Layout};
use crate::lend::Lent;
use crate::mask::Mask;
use crate::misuse::Misuse;
use crate::storage::{column_index, is_sparse, EntityIndex};
use core::marker::PhantomData;

/// The shape of a query item, independent of any schema: `&T`, `&mut T`,
/// `Option<Q>`, [`Entity`], [`Has<T>`], and tuples of these (up to 12).
///
/// A query holds, for each matching table, a [`QueryData::Fetch`] (for `&T`, a
/// `&[T]` column slice) and hands out [`QueryData::Item`]s (a `&T`) row by row,
/// or whole tables as [`QueryData::Slice`]s in the table form
/// ([`Query::for_each_table_mut`](crate::query::Query::for_each_table_mut)).
pub trait QueryData {
    /// What one entity yields: `&'a T` for `&T`, `bool` for `Has<T>`.
    type Item<'a>;
    /// What one table (or one row range of a table) yields in the table form
    /// ([`Query::for_each_table_mut`](crate::query::Query::for_each_table_mut)): `&'a [T]` for `&T`,
    /// `&'a mut [T]` for `&mut T`, `Option<&'a [T]>` and `Option<&'a mut [T]>`
    /// for optional items (`None` in tables without `T`), one `bool` for
    /// `Has<T>`, a [`TableEntities`] for [`Entity`], and a tuple of these for
    /// a tuple.
    type Slice<'a>;
    /// What one table yields: `&'a [T]` for `&T`, `&'a mut [T]` for `&mut T`.
    /// Its default is the fetch of no rows.
    #[doc(hidden)]
    type Fetch<'a>: Default;

    /// The item of `row`, for as long as the fetch lives.
    #[doc(hidden)]
    fn get<'a>(fetch: Self::Fetch<'a>, row: usize) -> Self::Item<'a>;

    /// The first row's item, advancing `fetch` past it. The fetch must not be
    /// empty. It does not stamp a tracked component's write: whoever hands
    /// rows out calls [`QueryData::stamp_rows`] for them first.
    #[doc(hidden)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a>;

    /// Stamps the first `rows` rows of `fetch` as written, for the `&mut T`
    /// items of tracked components; nothing for anything else. Kept apart
    /// from [`QueryData::next`] so that a loop over many rows stamps them at
    /// once and its per-row step stays what it is without tracking.
    #[doc(hidden)]
    #[inline(always)]
    fn stamp_rows(_fetch: &mut Self::Fetch<'_>, _rows: usize) {}

    /// Folds the items of the `len` rows of `fetch`, in order, into `init`
    /// with `f`: the loop over one table behind `for_each` and
    /// [`Iterator::fold`].
    #[doc(hidden)]
    #[inline(always)]
    fn fold<'a, B>(
        mut fetch: Self::Fetch<'a>,
        len: usize,
        init: B,
        mut f: impl FnMut(B, Self::Item<'a>) -> B,
    ) -> B {
        Self::stamp_rows(&mut fetch, len);
        let mut acc = init;
        for _ in 0..len {
            acc = f(acc, Self::next(&mut fetch));
        }
        acc
    }

    /// The fetch as the table form hands it out. A separate step from the
    /// fetch, so that a fetch may one day carry more than its slices (change
    /// ticks, say) without the table form's types changing.
    #[doc(hidden)]
    fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a>;

    /// A shorter-lived fetch over the same rows.
    #[doc(hidden)]
    fn reborrow<'a>(fetch: &'a mut Self::Fetch<'_>) -> Self::Fetch<'a>;

    /// The fetch cut in two at row `mid`: rows `..mid` and `mid..`.
    #[doc(hidden)]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>);
}

/// A [`QueryData`] that reads only, so its query can be iterated through `&`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a read-only query: it writes a component",
    label = "this query writes",
    note = "`world.query()`, `world.query_filtered()`, `iter()`, `for_each`, `for_each_table`, \
            `par_for_each` and `get` are for queries without `&mut` items",
    note = "to write, build the query with `world.query_mut()` or \
            `world.query_filtered_mut()` and use `iter_mut()`, `for_each_mut`, \
            `for_each_table_mut`, `par_for_each_mut` or `get_mut`"
)]
pub trait ReadOnlyQueryData: QueryData {
    /// A shared fetch over the same rows.
    #[doc(hidden)]
    fn shared<'a>(fetch: &'a Self::Fetch<'_>) -> Self::Fetch<'a>;
}

/// A [`QueryData`] whose components are all in schema `S`: gives the masks a
/// table must match and the way to take the item's columns out of a table.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query of schema `{S}`",
    label = "not a query of `{S}`",
    note = "a query item is `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`, `Entity`, \
            `Has<T>` with `T` a component of `{S}`, or a tuple of up to 12 of them (tuples \
            nest); resources are not queried but read with `world.resource::<T>()`"
)]
pub trait SchemaQuery<S: Layout>: QueryData {
    /// Components a table must have.
    const REQUIRED: u128;
    /// Components read through a shared borrow.
    const READS: u128;
    /// Components borrowed mutably.
    const WRITES: u128;
    /// Fails to evaluate (a compile error) if the query aliases a `&mut`, or
    /// borrows a tag.
    #[doc(hidden)]
    const CHECK: ();
    /// Whether the items take their columns in ascending bit order, each
    /// column once (so a table's columns can be handed out by a cursor).
    #[doc(hidden)]
    const ORDERED: bool;
    /// The lowest and highest bits whose columns the items take
    /// ([`NO_COLUMN`] for none).
    #[doc(hidden)]
    const FIRST_COLUMN: u32;
    #[doc(hidden)]
    const LAST_COLUMN: u32;
    /// The sparse components (`#[ecs(sparse)]`) whose values or presence
    /// the items read per entity; a query with none, and with no sparse
    /// component in its filter, is built as if sparse sets did not exist.
    #[doc(hidden)]
    const SPARSE: u128 = 0;

    /// This item's columns in a matching table.
    #[doc(hidden)]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> Self::Fetch<'w>;

    /// The fetch cut in two as [`RowSplit`] says: table items at
    /// `split.rows`, the values of sparse component `split.bit` at
    /// `split.values` (other sparse items at 0). The head covers rows whose
    /// sparse components are `split.present` (for `Option` and `Has`).
    #[doc(hidden)]
    #[inline(always)]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        Self::split_at(fetch, split.rows)
    }

    /// `fetch` with the items of sparse component `bit` taken from `donor`.
    #[doc(hidden)]
    #[inline(always)]
    fn graft<'w>(fetch: Self::Fetch<'w>, _donor: Self::Fetch<'w>, _bit: u32) -> Self::Fetch<'w> {
        fetch
    }
}

/// Query item that says whether the entity has component `T`: a `bool`,
/// without borrowing anything. Works for tags as well as data components.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Pos(i32);
/// #[derive(Debug)] struct Frozen;
/// #[derive(Schema)] struct S { pos: Pos, frozen: Frozen }
///
/// let mut world = World::<S>::new();
/// world.spawn((Pos(1), Frozen));
/// world.spawn((Pos(2),));
/// let mut frozen: Vec<(i32, bool)> =
///     world.query::<(&Pos, Has<Frozen>)>().iter().map(|(p, f)| (p.0, f)).collect();
/// frozen.sort();
/// assert_eq!(frozen, [(1, true), (2, false)]);
/// ```
pub struct Has<T>(PhantomData<fn() -> T>);

/// [`SchemaQuery::FIRST_COLUMN`] of an item that takes no column.
#[doc(hidden)]
pub(crate) const NO_COLUMN: u32 = u32::MAX;

/// `panic!` message of a query that aliases at run time, which the `CHECK`
/// consts make impossible; kept as a last line of defence.
pub(crate) const ALIASING: &str = "a query borrowed one column twice; its CHECK const should \
                                   have rejected it at compile time";

pub(super) const fn tag_check<S: Layout>(bit: u32) {
    if S::DATA_BITS & (1u128 << bit) == 0 {
        panic!("{}", S::TAG_REFERENCE_MESSAGES[bit as usize]);
    }
}

/// Fails for a `&mut` of a relation or an inverse list, which only the
/// world writes (their two sides must agree).
pub(super) const fn write_check<S: Layout>(bit: u32) {
    tag_check::<S>(bit);
    crate::layout::kept_check::<S>(bit);
}

impl<T: 'static> QueryData for &T {
    type Item<'a> = &'a T;
    type Slice<'a> = &'a [T];
    type Fetch<'a> = &'a [T];

    #[inline(always)]
    fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
        fetch
    }

    #[inline(always)]
    fn get<'a>(fetch: Self::Fetch<'a>, row: usize) -> Self::Item<'a> {
        &fetch[row]
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        let (first, rest) = fetch.split_first().expect("query fetch exhausted");
        *fetch = rest;
        first
    }

    // The slice's own iterator: no check per row, so the loop vectorizes
    // (frag_iter's 20-row tables).
    #[inline(always)]
    fn fold<'a, B>(
        fetch: Self::Fetch<'a>,
        _: usize,
        init: B,
        f: impl FnMut(B, Self::Item<'a>) -> B,
    ) -> B {
        fetch.iter().fold(init, f)
    }

    #[inline(always)]
    fn reborrow<'a>(fetch: &'a mut &[T]) -> &'a [T] {
        fetch
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        fetch.split_at(mid)
    }
}

impl<T: 'static> ReadOnlyQueryData for &T {
    #[inline(always)]
    fn shared<'a>(fetch: &'a &[T]) -> &'a [T] {
        fetch
    }
}

impl<S: Layout, T: Component<S>> SchemaQuery<S> for &T {
    const REQUIRED: u128 = 1 << T::BIT;
    const READS: u128 = 1 << T::BIT;
    const WRITES: u128 = 0;
    const CHECK: () = {
        tag_check::<S>(T::BIT);
        crate::layout::whole_check::<S>(T::BIT);
    };
    const ORDERED: bool = true;
    const FIRST_COLUMN: u32 = table_column::<S>(T::BIT);
    const LAST_COLUMN: u32 = table_column::<S>(T::BIT);
    const SPARSE: u128 = S::SPARSE_BITS & (1 << T::BIT);

    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> &'w [T] {
        if const { is_sparse::<S>(T::BIT) } {
            return table
                .sparse_shared(T::BIT)
                .map_or(&[], |column| T::column(column));
        }
        if table.is_donor() {
            return &[];
        }
        T::column(table.shared(T::BIT))
    }

    #[inline]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        fetch.split_at(split.mid::<S>(T::BIT))
    }

    #[inline]
    fn graft<'w>(fetch: Self::Fetch<'w>, donor: Self::Fetch<'w>, bit: u32) -> Self::Fetch<'w> {
        if bit == T::BIT {
            donor
        } else {
            fetch
        }
    }
}

/// The fetch of a `&mut T` item: the rows' values and, for a tracked
/// component, the changed ticks of the rows from the first one fetched.
/// Handing rows out advances `values` only; the rows still to come are the
/// last `values.len()` of `changed`, which [`QueryData::stamp_rows`] stamps
/// with `tick`. Untracked components have no ticks (`changed` is empty).
#[doc(hidden)]
pub struct WriteFetch<'a, T> {
    values: &'a mut [T],
    changed: &'a mut [u32],
    tick: u32,
}

impl<T> Default for WriteFetch<'_, T> {
    #[inline(always)]
    fn default() -> Self {
        WriteFetch {
            values: &mut [],
            changed: &mut [],
            tick: 0,
        }
    }
}

impl<T> WriteFetch<'_, T> {
    /// The changed ticks of the rows not handed out yet (empty if untracked).
    #[inline(always)]
    fn pending_ticks(&mut self) -> &mut [u32] {
        pending_ticks(self.changed, self.values.len())
    }
}

/// The changed ticks of the `rows` rows a write fetch has not handed out
/// yet: the last `rows` of `changed` (empty for an untracked component).
/// Shared by `&mut T` and `Fields<&mut T>`.
#[inline(always)]
pub(super) fn pending_ticks(changed: &mut [u32], rows: usize) -> &mut [u32] {
    let start = changed.len().saturating_sub(rows);
    &mut changed[start..]
}

/// Stamps with `tick` the first `stamped` of the `rows` rows a write fetch
/// has not handed out yet ([`QueryData::stamp_rows`] of `&mut T` and
/// `Fields<&mut T>`); nothing for an untracked component.
#[inline(always)]
pub(super) fn stamp_pending(changed: &mut [u32], rows: usize, stamped: usize, tick: u32) {
    if !changed.is_empty() {
        let pending = pending_ticks(changed, rows);
        let stamped = stamped.min(pending.len());
        pending[..stamped].fill(tick);
    }
}

impl<T: 'static> QueryData for &mut T {
    type Item<'a> = &'a mut T;
    type Slice<'a> = &'a mut [T];
    type Fetch<'a> = WriteFetch<'a, T>;

    // The table form hands out every row at once: every row is written.
    #[inline(always)]
    fn slice<'a>(mut fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
        let tick = fetch.tick;
        fetch.pending_ticks().fill(tick);
        fetch.values
    }

    #[inline(always)]
    fn get<'a>(mut fetch: Self::Fetch<'a>, row: usize) -> Self::Item<'a> {
        let tick = fetch.tick;
        if let Some(changed) = fetch.pending_ticks().get_mut(row) {
            *changed = tick;
        }
        &mut fetch.values[row]
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        let (first, rest) = core::mem::take(&mut fetch.values)
            .split_first_mut()
            .expect("query fetch exhausted");
        fetch.values = rest;
        first
    }

    #[inline(always)]
    fn stamp_rows(fetch: &mut Self::Fetch<'_>, rows: usize) {
        stamp_pending(fetch.changed, fetch.values.len(), rows, fetch.tick);
    }

    // See `&T`.
    #[inline(always)]
    fn fold<'a, B>(
        mut fetch: Self::Fetch<'a>,
        len: usize,
        init: B,
        f: impl FnMut(B, Self::Item<'a>) -> B,
    ) -> B {
        Self::stamp_rows(&mut fetch, len);
        fetch.values.iter_mut().fold(init, f)
    }

    #[inline(always)]
    fn reborrow<'a>(fetch: &'a mut WriteFetch<'_, T>) -> WriteFetch<'a, T> {
        WriteFetch {
            values: fetch.values,
            changed: fetch.changed,
            tick: fetch.tick,
        }
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        let rows = fetch.values.len();
        let (head, tail) = fetch.values.split_at_mut(mid);
        let (changed_head, changed_tail) = split_pending(fetch.changed, rows, mid);
        (
            WriteFetch {
                values: head,
                changed: changed_head,
                tick: fetch.tick,
            },
            WriteFetch {
                values: tail,
                changed: changed_tail,
                tick: fetch.tick,
            },
        )
    }
}

/// The changed ticks of a write fetch of `rows` rows (the last `rows` of
/// `changed` are pending) cut where the rows are cut at `mid`: the head
/// keeps the ticks before it (already handed out), so that its pending
/// ticks stay the last `mid`. Empty halves for an untracked component.
#[inline]
pub(super) fn split_pending(
    changed: &mut [u32],
    rows: usize,
    mid: usize,
) -> (&mut [u32], &mut [u32]) {
    if changed.is_empty() {
        (&mut [], &mut [])
    } else {
        let start = changed.len() - rows;
        changed.split_at_mut(start + mid)
    }
}

impl<S: Layout, T: Component<S>> SchemaQuery<S> for &mut T {
    const REQUIRED: u128 = 1 << T::BIT;
    const READS: u128 = 0;
    const WRITES: u128 = 1 << T::BIT;
    const CHECK: () = {
        write_check::<S>(T::BIT);
        crate::layout::whole_check::<S>(T::BIT);
    };
    const ORDERED: bool = true;
    const FIRST_COLUMN: u32 = table_column::<S>(T::BIT);
    const LAST_COLUMN: u32 = table_column::<S>(T::BIT);
    const SPARSE: u128 = S::SPARSE_BITS & (1 << T::BIT);

    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> WriteFetch<'w, T> {
        let tick = table.tick;
        let column = if const { is_sparse::<S>(T::BIT) } {
            match table.sparse_exclusive(T::BIT) {
                Some(column) => column,
                None => return WriteFetch::default(),
            }
        } else if table.is_donor() {
            return WriteFetch::default();
        } else {
            table.exclusive(T::BIT)
        };
        let (values, changed) = T::values_and_changed(column, tick);
        WriteFetch {
            values,
            changed,
            tick,
        }
    }

    #[inline]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        <&mut T as QueryData>::split_at(fetch, split.mid::<S>(T::BIT))
    }

    #[inline]
    fn graft<'w>(fetch: Self::Fetch<'w>, donor: Self::Fetch<'w>, bit: u32) -> Self::Fetch<'w> {
        if bit == T::BIT {
            donor
        } else {
            fetch
        }
    }
}

impl QueryData for Entity {
    type Item<'a> = Entity;
    type Slice<'a> = TableEntities<'a>;
    type Fetch<'a> = TableEntities<'a>;

    #[inline(always)]
    fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
        fetch
    }

    #[inline(always)]
    fn get<'a>(fetch: Self::Fetch<'a>, row: usize) -> Self::Item<'a> {
        fetch.entity(row)
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        fetch.take_first().expect("query fetch exhausted")
    }

    #[inline(always)]
    fn reborrow<'a>(fetch: &'a mut TableEntities<'_>) -> TableEntities<'a> {
        *fetch
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        fetch.split_at(mid)
    }
}

impl ReadOnlyQueryData for Entity {
    #[inline(always)]
    fn shared<'a>(fetch: &'a TableEntities<'_>) -> TableEntities<'a> {
        *fetch
    }
}

impl<S: Layout> SchemaQuery<S> for Entity {
    const REQUIRED: u128 = 0;
    const READS: u128 = 0;
    const WRITES: u128 = 0;
    const CHECK: () = ();
    const ORDERED: bool = true;
    const FIRST_COLUMN: u32 = NO_COLUMN;
    const LAST_COLUMN: u32 = NO_COLUMN;

    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> TableEntities<'w> {
        TableEntities::new(table.entities, table.all_entities)
    }
}

impl<T: 'static> QueryData for Has<T> {
    type Item<'a> = bool;
    type Slice<'a> = bool;
    type Fetch<'a> = bool;

    #[inline(always)]
    fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
        fetch
    }

    #[inline(always)]
    fn get<'a>(fetch: Self::Fetch<'a>, _: usize) -> Self::Item<'a> {
        fetch
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        *fetch
    }

    #[inline(always)]
    fn reborrow(fetch: &mut bool) -> bool {
        *fetch
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, _: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        (fetch, fetch)
    }
}

impl<T: 'static> ReadOnlyQueryData for Has<T> {
    #[inline(always)]
    fn shared(fetch: &bool) -> bool {
        *fetch
    }
}

impl<S: Layout, T: Component<S>> SchemaQuery<S> for Has<T> {
    const REQUIRED: u128 = 0;
    const READS: u128 = 0;
    const WRITES: u128 = 0;
    const CHECK: () = ();
    const ORDERED: bool = true;
    const FIRST_COLUMN: u32 = NO_COLUMN;
    const LAST_COLUMN: u32 = NO_COLUMN;
    const SPARSE: u128 = S::SPARSE_BITS & (1 << T::BIT);

    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> bool {
        table.mask.has(T::BIT)
    }

    // A sparse component's presence is the same for every row of a run.
    #[inline]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        if const { is_sparse::<S>(T::BIT) } {
            (split.present & (1 << T::BIT) != 0, fetch)
        } else {
            (fetch, fetch)
        }
    }
}

impl<Q: QueryData> QueryData for Option<Q> {
    type Item<'a> = Option<Q::Item<'a>>;
    type Slice<'a> = Option<Q::Slice<'a>>;
    type Fetch<'a> = Option<Q::Fetch<'a>>;

    #[inline(always)]
    fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
        fetch.map(Q::slice)
    }

    #[inline(always)]
    fn get<'a>(fetch: Self::Fetch<'a>, row: usize) -> Self::Item<'a> {
        fetch.map(|fetch| Q::get(fetch, row))
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        fetch.as_mut().map(|fetch| Q::next(fetch))
    }

    #[inline(always)]
    fn stamp_rows(fetch: &mut Self::Fetch<'_>, rows: usize) {
        if let Some(fetch) = fetch {
            Q::stamp_rows(fetch, rows);
        }
    }

    #[inline(always)]
    fn reborrow<'a>(fetch: &'a mut Self::Fetch<'_>) -> Self::Fetch<'a> {
        fetch.as_mut().map(|fetch| Q::reborrow(fetch))
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        match fetch {
            Some(fetch) => {
                let (head, tail) = Q::split_at(fetch, mid);
                (Some(head), Some(tail))
            }
            None => (None, None),
        }
    }
}

impl<Q: ReadOnlyQueryData> ReadOnlyQueryData for Option<Q> {
    #[inline(always)]
    fn shared<'a>(fetch: &'a Self::Fetch<'_>) -> Self::Fetch<'a> {
        fetch.as_ref().map(|fetch| Q::shared(fetch))
    }
}

/// `Option<Q>` matches every table; it yields `Some` in tables that have all of
/// `Q`'s required components.
impl<S: Layout, Q: SchemaQuery<S>> SchemaQuery<S> for Option<Q> {
    const REQUIRED: u128 = 0;
    const READS: u128 = Q::READS;
    const WRITES: u128 = Q::WRITES;
    const CHECK: () = Q::CHECK;
    const ORDERED: bool = Q::ORDERED;
    const FIRST_COLUMN: u32 = Q::FIRST_COLUMN;
    const LAST_COLUMN: u32 = Q::LAST_COLUMN;
    const SPARSE: u128 = Q::SPARSE;

    // The table decides the table components; the sparse ones are decided
    // run by run (`split_rows`).
    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> Self::Fetch<'w> {
        let required = S::Mask::from_u128(Q::REQUIRED & !S::SPARSE_BITS);
        if table.is_donor() || table.mask.contains(required) {
            Some(Q::fetch(table))
        } else {
            None
        }
    }

    #[inline]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        match fetch {
            Some(fetch) => {
                let (head, tail) = Q::split_rows(fetch, split);
                let missing = Q::REQUIRED & S::SPARSE_BITS & !split.present;
                ((missing == 0).then_some(head), Some(tail))
            }
            None => (None, None),
        }
    }

    #[inline]
    fn graft<'w>(fetch: Self::Fetch<'w>, donor: Self::Fetch<'w>, bit: u32) -> Self::Fetch<'w> {
        match (fetch, donor) {
            (Some(fetch), Some(donor)) => Some(Q::graft(fetch, donor, bit)),
            (fetch, _) => fetch,
        }
    }
}

/// The most items a query tuple holds.
const MAX_ITEMS: usize = 12;

/// The order in which a tuple's items take their columns: their indices,
/// sorted by the first column each takes (`firsts`, [`NO_COLUMN`] for none,
/// which go last), ties in item order.
const fn fetch_order(firsts: &[u32]) -> [usize; MAX_ITEMS] {
    let mut order = [0; MAX_ITEMS];
    let mut placed = 0;
    while placed < firsts.len() {
        // Insertion sort: shift the larger ones right, then place this one.
        let mut at = placed;
        while at > 0 && firsts[order[at - 1]] > firsts[placed] {
            order[at] = order[at - 1];
            at -= 1;
        }
        order[at] = placed;
        placed += 1;
    }
    order
}

/// Whether items `(ordered, first column, last column)` taken in `order`
/// take their columns in ascending order, each once: every item is itself
/// ordered and each starts after the previous one's last column.
const fn ranges_ascend(ranges: &[(bool, u32, u32)], order: &[usize; MAX_ITEMS]) -> bool {
    // The highest column bit taken so far, plus one.
    let mut end = 0u32;
    let mut next = 0;
    while next < ranges.len() {
        let (ordered, first, last) = ranges[order[next]];
        if !ordered {
            return false;
        }
        if first != NO_COLUMN {
            if first < end {
                return false;
            }
            end = last + 1;
        }
        next += 1;
    }
    true
}

macro_rules! impl_query_tuple {
    ($($n:tt $q:ident),*) => {
        #[allow(non_snake_case, clippy::unused_unit)]
        impl<$($q: QueryData),*> QueryData for ($($q,)*) {
            type Item<'a> = ($($q::Item<'a>,)*);
            type Slice<'a> = ($($q::Slice<'a>,)*);
            type Fetch<'a> = ($($q::Fetch<'a>,)*);

            #[inline(always)]
            fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
                let ($($q,)*) = fetch;
                ($($q::slice($q),)*)
            }

            #[inline(always)]
            fn get<'a>(fetch: Self::Fetch<'a>, _row: usize) -> Self::Item<'a> {
                let ($($q,)*) = fetch;
                ($($q::get($q, _row),)*)
            }

            #[inline(always)]
            fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
                let ($($q,)*) = fetch;
                ($($q::next($q),)*)
            }

            #[inline(always)]
            fn stamp_rows(fetch: &mut Self::Fetch<'_>, _rows: usize) {
                let ($($q,)*) = fetch;
                $($q::stamp_rows($q, _rows);)*
            }


            #[inline(always)]
            fn reborrow<'a>(fetch: &'a mut Self::Fetch<'_>) -> Self::Fetch<'a> {
                let ($($q,)*) = fetch;
                ($($q::reborrow($q),)*)
            }

            #[inline]
            fn split_at<'a>(
                fetch: Self::Fetch<'a>,
                _mid: usize,
            ) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
                let ($($q,)*) = fetch;
                $(let $q = $q::split_at($q, _mid);)*
                (($($q.0,)*), ($($q.1,)*))
            }
        }

        #[allow(non_snake_case, clippy::unused_unit)]
        impl<$($q: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($q,)*) {
            #[inline(always)]
            fn shared<'a>(fetch: &'a Self::Fetch<'_>) -> Self::Fetch<'a> {
                let ($($q,)*) = fetch;
                ($($q::shared($q),)*)
            }
        }

        #[allow(non_snake_case, clippy::unused_unit)]
        impl<S: Layout, $($q: SchemaQuery<S>),*> SchemaQuery<S> for ($($q,)*) {
            const REQUIRED: u128 = 0 $(| $q::REQUIRED)*;
            const READS: u128 = 0 $(| $q::READS)*;
            const WRITES: u128 = 0 $(| $q::WRITES)*;
            #[allow(unused_mut, unused_variables, unused_assignments)]
            const CHECK: () = {
                $(let () = $q::CHECK;)*
                // A write conflicts with any other access to the same bit.
                let mut reads = 0u128;
                let mut writes = 0u128;
                let mut conflicts = 0u128;
                $(
                    conflicts |= ($q::WRITES & (reads | writes)) | ($q::READS & writes);
                    reads |= $q::READS;
                    writes |= $q::WRITES;
                )*
                if conflicts != 0 {
                    panic!("{}", S::QUERY_ALIAS_MESSAGES[conflicts.trailing_zeros() as usize]);
                }
            };
            const ORDERED: bool = {
                let order = fetch_order(&[$($q::FIRST_COLUMN),*]);
                let ranges = [$(($q::ORDERED, $q::FIRST_COLUMN, $q::LAST_COLUMN)),*];
                ranges_ascend(&ranges, &order)
            };
            #[allow(unused_mut, unused_assignments)]
            const FIRST_COLUMN: u32 = {
                let mut first = NO_COLUMN;
                $(
                    if $q::FIRST_COLUMN < first {
                        first = $q::FIRST_COLUMN;
                    }
                )*
                first
            };
            #[allow(unused_mut)]
            const LAST_COLUMN: u32 = {
                let mut last = NO_COLUMN;
                $(
                    if $q::LAST_COLUMN != NO_COLUMN && (last == NO_COLUMN || $q::LAST_COLUMN > last) {
                        last = $q::LAST_COLUMN;
                    }
                )*
                last
            };

            const SPARSE: u128 = 0 $(| $q::SPARSE)*;

            #[inline]
            fn split_rows<'w>(
                fetch: Self::Fetch<'w>,
                _split: RowSplit,
            ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
                let ($($q,)*) = fetch;
                $(let $q = $q::split_rows($q, _split);)*
                (($($q.0,)*), ($($q.1,)*))
            }

            #[inline]
            #[allow(unused_variables)]
            fn graft<'w>(
                fetch: Self::Fetch<'w>,
                donor: Self::Fetch<'w>,
                bit: u32,
            ) -> Self::Fetch<'w> {
                ($($q::graft(fetch.$n, donor.$n, bit),)*)
            }

            // The items take their columns in ascending order, whatever
            // their order in the tuple: a table's columns can then be
            // handed out by a cursor (see `ORDERED`), and `(&Vel, &mut
            // Pos)` costs what `(&mut Pos, &Vel)` does. The order is a
            // constant, so the loop and the `Option`s fold away.
            #[inline]
            #[allow(unused_mut, unused_variables, unreachable_code)]
            fn fetch<'w>(_table: &mut TableView<'_, 'w, S>) -> Self::Fetch<'w> {
                const ITEMS: usize = {
                    let items: &[usize] = &[$($n),*];
                    items.len()
                };
                let order = const { fetch_order(&[$($q::FIRST_COLUMN),*]) };
                $(let mut $q: Option<$q::Fetch<'w>> = None;)*
                let mut next = 0;
                while next < ITEMS {
                    match order[next] {
                        $($n => $q = Some($q::fetch(_table)),)*
                        _ => unreachable!("an item index out of range"),
                    }
                    next += 1;
                }
                ($($q.expect("every item fetched"),)*)
            }
        }
    };
}

impl_query_tuple!();
impl_query_tuple!(0 A);
impl_query_tuple!(0 A, 1 B);
impl_query_tuple!(0 A, 1 B, 2 C);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K);
impl_query_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L);

/// Never implemented: the bound of the [`SchemaQuery`] impls of tuples past
/// 12 items, which never apply, so that such a query fails with this message
/// rather than with "not a query".
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a query tuple takes at most 12 items, and this one has more",
    label = "more than 12 items",
    note = "tuples nest: group the items, e.g. `((&A, &B, &C), &D)`, and each item comes \
            grouped the same way: `((a, b, c), d)`"
)]
pub trait QueryTupleTooLong<Q> {}

macro_rules! query_tuple_too_long {
    ($($q:ident),*) => {
        // Unbounded, so that only the `SchemaQuery` bound fails (once, with
        // the message) and a method called on the query adds no error. No
        // query of this type can be built without `SchemaQuery`.
        impl<$($q: QueryData),*> QueryData for ($($q,)*) {
            type Item<'a> = ();
            type Fetch<'a> = ();
            type Slice<'a> = ();

            fn get<'a>(_: Self::Fetch<'a>, _: usize) -> Self::Item<'a> {
                unreachable!("a misuse impl never applies")
            }

            fn slice<'a>(_: Self::Fetch<'a>) -> Self::Slice<'a> {
                unreachable!("a misuse impl never applies")
            }

            fn next<'a>(_: &mut Self::Fetch<'a>) -> Self::Item<'a> {
                unreachable!("a misuse impl never applies")
            }

            fn reborrow<'a>(_: &'a mut Self::Fetch<'_>) -> Self::Fetch<'a> {
                unreachable!("a misuse impl never applies")
            }

            fn split_at<'a>(_: Self::Fetch<'a>, _: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
                unreachable!("a misuse impl never applies")
            }
        }

        impl<$($q: QueryData),*> ReadOnlyQueryData for ($($q,)*) {
            fn shared<'a>(_: &'a Self::Fetch<'_>) -> Self::Fetch<'a> {
                unreachable!("a misuse impl never applies")
            }
        }

        impl<S: Layout, $($q: QueryData),*> SchemaQuery<S> for ($($q,)*)
        where
            Misuse: QueryTupleTooLong<Self>,
        {
            const REQUIRED: u128 = 0;
            const READS: u128 = 0;
            const WRITES: u128 = 0;
            const CHECK: () = ();
            const ORDERED: bool = true;
            const FIRST_COLUMN: u32 = NO_COLUMN;
            const LAST_COLUMN: u32 = NO_COLUMN;

            fn fetch<'w>(_: &mut TableView<'_, 'w, S>) -> Self::Fetch<'w> {
                unreachable!("a misuse impl never applies")
            }
        }
    };
}

query_tuple_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M);
query_tuple_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
query_tuple_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
query_tuple_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

/// One table's entity list and columns, being handed out to a query's items:
/// each column at most once mutably, or any number of times shared.
#[doc(hidden)]
pub struct TableView<'s, 'w, S: Layout> {
    pub(crate) mask: S::Mask,
    /// The table's entities, by slot index.
    pub(crate) entities: &'w [EntityIndex],
    /// The world's entities, for the generations of `entities`.
    pub(crate) all_entities: &'w Entities,
    columns: ViewColumns<'s, 'w, S::Column>,
    /// By component bit, the index of its column: the table's lookup (see
    /// [`column_index`]).
    column_index: column_index::Lookup<'w>,
    /// The tick a write is stamped with (tracked components).
    pub(crate) tick: u32,
    /// Where sparse items take their values: nowhere (they fetch no rows)
    /// unless this view is a donor (see `query/sparse.rs`).
    donor: Option<Donor<'w, S>>,
}

/// A view that lends one sparse component's whole set of values, and no
/// table: the source from which a query with sparse items carves each run's
/// values (see `query/sparse.rs`).
pub(crate) struct Donor<'w, S: Layout> {
    pub(crate) bit: u32,
    pub(crate) values: Option<Lent<'w, S::Column>>,
}

/// How a [`TableView`] hands out its columns.
pub(crate) enum ViewColumns<'s, 'w, C> {
    /// One slot per column: any order, shared or exclusive.
    Slots(&'s mut [Lent<'w, C>]),
    /// The columns from index `next` on, for queries that take columns in
    /// ascending order, each once ([`SchemaQuery::ORDERED`]).
    Ascending { rest: &'w mut [C], next: usize },
    /// Every column, shared: for read-only queries of a shared world.
    Shared(&'w [C]),
}

impl<'s, 'w, S: Layout> TableView<'s, 'w, S> {
    /// The view of a table of archetype `mask`, whose rows hold `entities`
    /// and whose component `bit` has column `column_index[bit]`.
    #[inline]
    pub(crate) fn new(
        (mask, column_index): (S::Mask, column_index::Lookup<'w>),
        entities: &'w [EntityIndex],
        all_entities: &'w Entities,
        columns: ViewColumns<'s, 'w, S::Column>,
        tick: u32,
    ) -> Self {
        TableView {
            mask,
            entities,
            all_entities,
            columns,
            column_index,
            tick,
            donor: None,
        }
    }

    /// A view of no table that lends the values of sparse component
    /// `donor.bit`.
    pub(crate) fn donor(all_entities: &'w Entities, donor: Donor<'w, S>, tick: u32) -> Self {
        TableView {
            mask: S::Mask::EMPTY,
            entities: &[],
            all_entities,
            columns: ViewColumns::Shared(&[]),
            column_index: Default::default(),
            tick,
            donor: Some(donor),
        }
    }

    /// Whether this view lends a sparse component's values rather than a
    /// table (never, at compile time, in a schema without sparse components).
    #[inline(always)]
    pub(crate) fn is_donor(&self) -> bool {
        S::SPARSE_BITS != 0 && self.donor.is_some()
    }

    /// The values of sparse component `bit`, shared, if this view lends them.
    #[inline]
    pub(crate) fn sparse_shared(&mut self, bit: u32) -> Option<&'w S::Column> {
        match &mut self.donor {
            Some(Donor {
                bit: lent,
                values: Some(values),
            }) if *lent == bit => Some(values.shared()),
            _ => None,
        }
    }

    /// The values of sparse component `bit`, exclusively, if this view lends
    /// them.
    #[inline]
    pub(crate) fn sparse_exclusive(&mut self, bit: u32) -> Option<&'w mut S::Column> {
        match &mut self.donor {
            Some(Donor { bit: lent, values }) if *lent == bit => {
                values.take().map(|mut values| values.exclusive())
            }
            _ => None,
        }
    }

    /// The index of the column of data component `bit`, which the table
    /// has (see [`column_index`]).
    #[inline(always)]
    fn column(&self, bit: u32) -> usize {
        column_index::column(self.column_index, self.mask, bit)
    }

    /// The column of data component `bit`, shared.
    #[inline]
    pub(crate) fn shared(&mut self, bit: u32) -> &'w S::Column {
        let index = self.column(bit);
        match &mut self.columns {
            ViewColumns::Slots(slots) => slots[index].shared(),
            ViewColumns::Ascending { rest, next } => take_ascending(rest, next, index),
            ViewColumns::Shared(columns) => &columns[index],
        }
    }

    /// The column of data component `bit`, exclusively.
    #[inline]
    pub(crate) fn exclusive(&mut self, bit: u32) -> &'w mut S::Column {
        let index = self.column(bit);
        match &mut self.columns {
            ViewColumns::Slots(slots) => slots[index].exclusive(),
            ViewColumns::Ascending { rest, next } => take_ascending(rest, next, index),
            // Only read-only queries are built over shared columns.
            ViewColumns::Shared(_) => panic!("{}", ALIASING),
        }
    }
}

/// Column `index` out of `rest` (the columns from `next` on), dropping the
/// ones before it from `rest`.
#[inline]
fn take_ascending<'w, C>(rest: &mut &'w mut [C], next: &mut usize, index: usize) -> &'w mut C {
    let skip = index.checked_sub(*next).expect(ALIASING);
    let (column, tail) = match core::mem::take(rest).get_mut(skip..) {
        Some(from) => from.split_first_mut().expect(ALIASING),
        None => panic!("{}", ALIASING),
    };
    *rest = tail;
    *next = index + 1;
    column
}

/// Where [`SchemaQuery::split_rows`] cuts a fetch: see there.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct RowSplit {
    pub(crate) rows: usize,
    pub(crate) bit: u32,
    pub(crate) values: usize,
    pub(crate) present: u128,
}

impl RowSplit {
    /// The mid point of an item of component `bit`, sparse or not.
    #[inline(always)]
    pub(super) fn mid<S: Layout>(self, bit: u32) -> usize {
        if !is_sparse::<S>(bit) {
            self.rows
        } else if self.bit == bit {
            self.values
        } else {
            0
        }
    }
}

/// The column bit of an item of component `bit` for the column order
/// ([`SchemaQuery::FIRST_COLUMN`]): none for a sparse component, which
/// takes no table column.
pub(super) const fn table_column<S: Layout>(bit: u32) -> u32 {
    if is_sparse::<S>(bit) {
        NO_COLUMN
    } else {
        bit
    }
}

#[cfg(test)]
mod tests {
    //! `tag_check` runs in `const` evaluation (a query's `CHECK`); a failure
    //! there is a compile error, which the UI suite checks. Called here at
    //! run time, where its panic is the message.
    use super::tag_check;
    use crate::layout::{Component, Layout};

    #[allow(dead_code)] // never read: only the bits matter
    struct Pos(i32);
    struct Frozen;

    #[derive(schemecs_macros::Schema)]
    struct Game {
        pos: Pos,
        frozen: Frozen,
    }

    #[test]
    fn a_tag_borrowed_by_a_query_is_rejected_with_the_message_naming_it() {
        let data = <Pos as Component<Game>>::BIT;
        assert!(std::panic::catch_unwind(|| tag_check::<Game>(data)).is_ok());
        let tag = <Frozen as Component<Game>>::BIT;
        let payload = std::panic::catch_unwind(|| tag_check::<Game>(tag)).unwrap_err();
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some(Game::TAG_REFERENCE_MESSAGES[tag as usize])
        );
    }
}
