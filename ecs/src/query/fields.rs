//! [`Fields`]: the query items of an `#[ecs(soa)]` component, which hand
//! out its fields rather than a whole value.

use super::fetch::{
    pending_ticks, split_pending, stamp_pending, table_column, tag_check, write_check, RowSplit,
    TableView,
};
use super::{QueryData, ReadOnlyQueryData, SchemaQuery};
use crate::layout::{soa_check, Component, Layout};
use crate::storage::{Soa, Values};
use core::marker::PhantomData;

/// Query item of an `#[ecs(soa)]` component (see [`Soa`](trait@Soa)), field
/// by field: `Fields<&Pos>` and `Fields<&mut Pos>`, where a component stored
/// whole is queried as `&Pos` and `&mut Pos`.
///
/// | item | per entity | table form (`for_each_table`, `for_each_table_mut`) |
/// | --- | --- | --- |
/// | `Fields<&Pos>` | `PosRef<'_>`: `&F` per field | `PosSlices<'_>`: `&[F]` per field |
/// | `Fields<&mut Pos>` | `PosMut<'_>`: `&mut F` per field | `PosSlicesMut<'_>`: `&mut [F]` per field |
///
/// The table form is the Zig model's `items(.x)`: one array per field, so a
/// loop over `pos.x` and `vel.x` reads those arrays and nothing else, and
/// vectorizes. It matches, filters, conflicts and parallelizes as `&Pos`
/// and `&mut Pos` would; `Option<Fields<&Pos>>` works as `Option<&Pos>`
/// does.
///
/// `Fields<&C>` of a component that is not `#[ecs(soa)]` in the schema,
/// and `&C` of one that is, fail to compile (in `cargo build`) with a
/// message that names the component and the fix.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::query::Fields;
///
/// #[derive(Soa, Clone, Copy)] struct Pos { x: f32, y: f32 }
/// #[derive(Soa, Clone, Copy)] struct Vel { x: f32, y: f32 }
/// #[derive(Schema)] struct S { #[ecs(soa)] pos: Pos, #[ecs(soa)] vel: Vel }
///
/// fn advance(mut movers: Query<(Fields<&mut Pos>, Fields<&Vel>)>) {
///     // Per entity: the reference types.
///     movers.for_each_mut(|(pos, vel)| *pos.y += *vel.y);
///     // Per table: one slice per field.
///     movers.for_each_table_mut(|_, (pos, vel)| {
///         for (x, v) in pos.x.iter_mut().zip(vel.x) {
///             *x += v;
///         }
///     });
/// }
///
/// let mut world = World::<S>::new();
/// let e = world.spawn((Pos { x: 0.0, y: 0.0 }, Vel { x: 1.0, y: 2.0 }));
/// let mut schedule = Schedule::<S>::new();
/// schedule.add(advance);
/// schedule.run(&mut world);
/// let pos = world.get_soa::<Pos>(e).unwrap().get();
/// assert_eq!((pos.x, pos.y), (1.0, 2.0));
/// ```
pub struct Fields<Q>(PhantomData<fn() -> Q>);

impl<T: Soa> QueryData for Fields<&T> {
    type Item<'a> = T::Ref<'a>;
    type Slice<'a> = T::Slices<'a>;
    type Fetch<'a> = T::Slices<'a>;

    #[inline(always)]
    fn slice<'a>(fetch: Self::Fetch<'a>) -> Self::Slice<'a> {
        fetch
    }

    #[inline(always)]
    fn get<'a>(fetch: Self::Fetch<'a>, row: usize) -> Self::Item<'a> {
        T::row(fetch, row)
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        assert!(T::slices_len(fetch) > 0, "query fetch exhausted");
        let (first, rest) = T::split_at(*fetch, 1);
        *fetch = rest;
        T::row(first, 0)
    }

    /// Each field's slice cut to `len` rows first, so that the row
    /// indexing of the loop needs no bounds checks: splitting one row off
    /// every field at each step, as `next` does, costs a check and two
    /// writes per field per row.
    #[inline(always)]
    fn fold<'a, B>(
        fetch: Self::Fetch<'a>,
        len: usize,
        init: B,
        mut f: impl FnMut(B, Self::Item<'a>) -> B,
    ) -> B {
        let (rows, _) = T::split_at(fetch, len);
        let mut acc = init;
        for row in 0..len {
            acc = f(acc, T::row(rows, row));
        }
        acc
    }

    #[inline(always)]
    fn reborrow<'a>(fetch: &'a mut Self::Fetch<'_>) -> Self::Fetch<'a> {
        T::shorten(fetch)
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        T::split_at(fetch, mid)
    }
}

impl<T: Soa> ReadOnlyQueryData for Fields<&T> {
    #[inline(always)]
    fn shared<'a>(fetch: &'a Self::Fetch<'_>) -> Self::Fetch<'a> {
        T::shorten(fetch)
    }
}

impl<S: Layout, T: Component<S> + Soa> SchemaQuery<S> for Fields<&T> {
    const REQUIRED: u128 = 1 << T::BIT;
    const READS: u128 = 1 << T::BIT;
    const WRITES: u128 = 0;
    const CHECK: () = {
        tag_check::<S>(T::BIT);
        soa_check::<S>(T::BIT);
    };
    const ORDERED: bool = true;
    const FIRST_COLUMN: u32 = table_column::<S>(T::BIT);
    const LAST_COLUMN: u32 = table_column::<S>(T::BIT);

    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> Self::Fetch<'w> {
        if table.is_donor() {
            return Default::default();
        }
        T::values(table.shared(T::BIT)).fields().unwrap_or_default()
    }

    #[inline]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        T::split_at(fetch, split.mid::<S>(T::BIT))
    }
}

/// The fetch of a `Fields<&mut T>` item: the rows' fields and, for a
/// tracked component, the changed ticks of the rows from the first one
/// fetched, as the fetch of `&mut T` keeps them (the rows still to come
/// are the last `len` of `changed`).
#[doc(hidden)]
pub struct FieldsWriteFetch<'a, T: Soa> {
    values: T::SlicesMut<'a>,
    changed: &'a mut [u32],
    tick: u32,
}

impl<T: Soa> Default for FieldsWriteFetch<'_, T> {
    #[inline(always)]
    fn default() -> Self {
        FieldsWriteFetch {
            values: Default::default(),
            changed: &mut [],
            tick: 0,
        }
    }
}

impl<T: Soa> FieldsWriteFetch<'_, T> {
    /// The changed ticks of the rows not handed out yet (empty if
    /// untracked).
    #[inline(always)]
    fn pending_ticks(&mut self) -> &mut [u32] {
        pending_ticks(self.changed, T::slices_mut_len(&self.values))
    }
}

impl<T: Soa> QueryData for Fields<&mut T> {
    type Item<'a> = T::Mut<'a>;
    type Slice<'a> = T::SlicesMut<'a>;
    type Fetch<'a> = FieldsWriteFetch<'a, T>;

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
        T::row_mut(fetch.values, row)
    }

    #[inline(always)]
    fn next<'a>(fetch: &mut Self::Fetch<'a>) -> Self::Item<'a> {
        assert!(
            T::slices_mut_len(&fetch.values) > 0,
            "query fetch exhausted"
        );
        let (first, rest) = T::split_at_mut(core::mem::take(&mut fetch.values), 1);
        fetch.values = rest;
        T::row_mut(first, 0)
    }

    #[inline(always)]
    fn stamp_rows(fetch: &mut Self::Fetch<'_>, rows: usize) {
        let pending = T::slices_mut_len(&fetch.values);
        stamp_pending(fetch.changed, pending, rows, fetch.tick);
    }

    #[inline(always)]
    fn reborrow<'a>(fetch: &'a mut Self::Fetch<'_>) -> Self::Fetch<'a> {
        FieldsWriteFetch {
            values: T::reborrow(&mut fetch.values),
            changed: fetch.changed,
            tick: fetch.tick,
        }
    }

    #[inline]
    fn split_at<'a>(fetch: Self::Fetch<'a>, mid: usize) -> (Self::Fetch<'a>, Self::Fetch<'a>) {
        let rows = T::slices_mut_len(&fetch.values);
        let (head, tail) = T::split_at_mut(fetch.values, mid);
        let (changed_head, changed_tail) = split_pending(fetch.changed, rows, mid);
        (
            FieldsWriteFetch {
                values: head,
                changed: changed_head,
                tick: fetch.tick,
            },
            FieldsWriteFetch {
                values: tail,
                changed: changed_tail,
                tick: fetch.tick,
            },
        )
    }
}

impl<S: Layout, T: Component<S> + Soa> SchemaQuery<S> for Fields<&mut T> {
    const REQUIRED: u128 = 1 << T::BIT;
    const READS: u128 = 0;
    const WRITES: u128 = 1 << T::BIT;
    const CHECK: () = {
        write_check::<S>(T::BIT);
        soa_check::<S>(T::BIT);
    };
    const ORDERED: bool = true;
    const FIRST_COLUMN: u32 = table_column::<S>(T::BIT);
    const LAST_COLUMN: u32 = table_column::<S>(T::BIT);

    #[inline]
    fn fetch<'w>(table: &mut TableView<'_, 'w, S>) -> Self::Fetch<'w> {
        if table.is_donor() {
            return Default::default();
        }
        let tick = table.tick;
        match T::values_mut(table.exclusive(T::BIT)).fields_and_changed(tick) {
            Some((values, changed)) => FieldsWriteFetch {
                values,
                changed,
                tick,
            },
            None => Default::default(),
        }
    }

    #[inline]
    fn split_rows<'w>(
        fetch: Self::Fetch<'w>,
        split: RowSplit,
    ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
        <Fields<&mut T> as QueryData>::split_at(fetch, split.mid::<S>(T::BIT))
    }
}
