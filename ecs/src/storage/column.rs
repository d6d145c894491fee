//! Columns: the storage of one component's values in a table (or a sparse
//! set), and of their change ticks if the component is tracked.
//!
//! The generated column enum has one variant per component, holding a
//! `Vec<T>`, or for a component marked `#[ecs(track)]` a [`TrackedVec<T>`];
//! it implements [`Column`] by calling [`ColumnVec`] in each arm, so a
//! `Vec<T>` arm compiles to what it always did and the tick methods are
//! nothing for it. The tick rules (ages, windows, clamping) live in
//! [`crate::change`].

use super::Soa;
use crate::changes::{clamp, later, GROUP};
use crate::stable_hash::{StableHash, StableHasher};
use core::marker::PhantomData;

/// Operations every column supports whatever its component type; implemented
/// by the generated column enum with one match arm per component.
#[doc(hidden)]
pub trait Column: 'static {
    /// The bit of the component this column holds.
    fn bit(&self) -> u32;
    /// Number of values.
    fn len(&self) -> usize;
    /// Whether the column holds no value.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reserves room for `additional` more values.
    fn reserve(&mut self, additional: usize);
    /// Drops every value.
    fn clear(&mut self);
    /// Moves every value of `other` (a column of the same component) to the
    /// end of this one.
    fn append(&mut self, other: &mut Self);
    /// Reverses the order of the values.
    fn reverse(&mut self);
    /// Moves the value at `row` to the end of `destination` (a column of the
    /// same component), moving this column's last value into `row`.
    fn move_row(&mut self, row: usize, destination: &mut Self);
    /// Takes the value at `row` out (and its ticks), moving this column's
    /// last value into `row`, as [`Column::move_row`] does: a value with no
    /// drop glue is dropped at once (dropping it runs nothing), any other is
    /// moved to the end of `trash` (a column of the same component), to be
    /// dropped once the world is consistent again.
    fn discard_row(&mut self, row: usize, trash: &mut Self);
    /// Takes the last `count` values out (and their ticks), as
    /// [`Column::discard_row`] of each would: at once when they have no drop
    /// glue, to the end of `trash` otherwise.
    fn discard_tail(&mut self, count: usize, trash: &mut Self);
    /// Moves the last value to the end of `destination` (a column of the same
    /// component), without its ticks: the caller stamps `destination` with
    /// [`Column::sync_ticks`].
    fn pop_into(&mut self, destination: &mut Self);

    /// The added and changed ticks by row, if the component is tracked.
    fn ticks(&self) -> Option<(&[u32], &[u32])>;
    /// Stamps the rows pushed without ticks as added at `tick` (tracked
    /// components; nothing otherwise).
    fn sync_ticks(&mut self, tick: u32);
    /// Marks `row` changed at `tick` (tracked components).
    fn mark_changed(&mut self, row: usize, tick: u32);
    /// The (added, changed) ticks of `row` (tracked components).
    fn row_ticks(&self, row: usize) -> Option<(u32, u32)>;
    /// Sets the ticks of `row` (tracked components).
    fn set_row_ticks(&mut self, row: usize, ticks: (u32, u32));
    /// Swap-removes the ticks of `row`, whose value was swap-removed.
    fn swap_remove_ticks(&mut self, row: usize);
    /// Clamps the ticks (see [`crate::change`]).
    fn clamp_ticks(&mut self, now: u32);
    /// The changed ticks by row and the summaries of their groups of rows
    /// (tracked components).
    fn changed_and_latest(&self) -> Option<(&[u32], &[u32])>;
}

/// `impl Column` for a schema's column enum, from the names
/// `#[derive(Schema)]` passes: each component's variant and bit, in order,
/// and the `for<'__soa> Pos: Soa` bounds of its `#[ecs(soa)]` components.
/// Each method is one match arm per variant calling [`ColumnVec`]. Written
/// here rather than in the derive so that the compiler, when a bound fails
/// (a component marked `#[ecs(soa)]` whose type lacks `#[derive(Soa)]`),
/// does not suggest replacing a derived impl by hand.
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_column_impl {
    (
        schema: $schema:ident,
        column: $column:ident,
        variants: [$($variant:ident = $bit:literal),+ $(,)?],
        soa_bounds: [$($soa_bound:tt)*] $(,)?
    ) => {
        #[automatically_derived]
        #[allow(unreachable_patterns)]
        impl $crate::__private::Column for $column
        where
            $($soa_bound)*
        {
            #[inline(always)]
            fn bit(&self) -> u32 {
                match self {
                    $(Self::$variant(_) => $bit,)+
                }
            }

            #[inline]
            fn len(&self) -> usize {
                match self {
                    $(Self::$variant(__ecs_values) => $crate::__private::ColumnVec::len(__ecs_values),)+
                }
            }

            #[inline]
            fn reserve(&mut self, __ecs_additional: usize) {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::reserve(__ecs_values, __ecs_additional)
                    })+
                }
            }

            #[inline]
            fn clear(&mut self) {
                match self {
                    $(Self::$variant(__ecs_values) => $crate::__private::ColumnVec::clear(__ecs_values),)+
                }
            }

            #[inline]
            fn append(&mut self, __ecs_other: &mut Self) {
                match (self, __ecs_other) {
                    $((Self::$variant(__ecs_to), Self::$variant(__ecs_from)) => {
                        $crate::__private::ColumnVec::append(__ecs_to, __ecs_from)
                    })+
                    _ => $crate::__private::column_mismatch::<$schema>(u32::MAX),
                }
            }

            #[inline]
            fn reverse(&mut self) {
                match self {
                    $(Self::$variant(__ecs_values) => $crate::__private::ColumnVec::reverse(__ecs_values),)+
                }
            }

            #[inline(always)]
            fn move_row(&mut self, __ecs_row: usize, __ecs_destination: &mut Self) {
                match (self, __ecs_destination) {
                    $((Self::$variant(__ecs_from), Self::$variant(__ecs_to)) => {
                        $crate::__private::ColumnVec::move_row(__ecs_from, __ecs_row, __ecs_to)
                    })+
                    _ => $crate::__private::column_mismatch::<$schema>(u32::MAX),
                }
            }

            #[inline(always)]
            fn discard_row(&mut self, __ecs_row: usize, __ecs_trash: &mut Self) {
                match (self, __ecs_trash) {
                    $((Self::$variant(__ecs_from), Self::$variant(__ecs_to)) => {
                        $crate::__private::ColumnVec::discard_row(__ecs_from, __ecs_row, __ecs_to)
                    })+
                    _ => $crate::__private::column_mismatch::<$schema>(u32::MAX),
                }
            }

            #[inline]
            fn discard_tail(&mut self, __ecs_count: usize, __ecs_trash: &mut Self) {
                match (self, __ecs_trash) {
                    $((Self::$variant(__ecs_from), Self::$variant(__ecs_to)) => {
                        $crate::__private::ColumnVec::discard_tail(__ecs_from, __ecs_count, __ecs_to)
                    })+
                    _ => $crate::__private::column_mismatch::<$schema>(u32::MAX),
                }
            }

            #[inline(always)]
            fn pop_into(&mut self, __ecs_destination: &mut Self) {
                match (self, __ecs_destination) {
                    $((Self::$variant(__ecs_from), Self::$variant(__ecs_to)) => {
                        $crate::__private::ColumnVec::pop_into(__ecs_from, __ecs_to)
                    })+
                    _ => $crate::__private::column_mismatch::<$schema>(u32::MAX),
                }
            }

            #[inline]
            fn ticks(&self) -> ::core::option::Option<(&[u32], &[u32])> {
                match self {
                    $(Self::$variant(__ecs_values) => $crate::__private::ColumnVec::ticks(__ecs_values),)+
                }
            }

            #[inline]
            fn sync_ticks(&mut self, __ecs_tick: u32) {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::sync_ticks(__ecs_values, __ecs_tick)
                    })+
                }
            }

            #[inline]
            fn mark_changed(&mut self, __ecs_row: usize, __ecs_tick: u32) {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::mark_changed(__ecs_values, __ecs_row, __ecs_tick)
                    })+
                }
            }

            #[inline]
            fn row_ticks(&self, __ecs_row: usize) -> ::core::option::Option<(u32, u32)> {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::row_ticks(__ecs_values, __ecs_row)
                    })+
                }
            }

            #[inline]
            fn set_row_ticks(&mut self, __ecs_row: usize, __ecs_ticks: (u32, u32)) {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::set_row_ticks(__ecs_values, __ecs_row, __ecs_ticks)
                    })+
                }
            }

            #[inline]
            fn swap_remove_ticks(&mut self, __ecs_row: usize) {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::swap_remove_ticks(__ecs_values, __ecs_row)
                    })+
                }
            }

            fn clamp_ticks(&mut self, __ecs_now: u32) {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::clamp_ticks(__ecs_values, __ecs_now)
                    })+
                }
            }

            #[inline]
            fn changed_and_latest(&self) -> ::core::option::Option<(&[u32], &[u32])> {
                match self {
                    $(Self::$variant(__ecs_values) => {
                        $crate::__private::ColumnVec::changed_and_latest(__ecs_values)
                    })+
                }
            }
        }
    };
}

/// The column of a tracked component: its values, per row the tick it was
/// added at and the tick it was last changed at, and per group of [`GROUP`]
/// rows a summary: a tick no earlier than any changed tick of the group's
/// rows ([`later`]). A `Changed<T>` pass skips every group whose summary is
/// not after the reader's last run, reading one tick instead of sixteen.
///
/// Values may be pushed without ticks (through the component's `Vec`); the
/// structural operation that does so then stamps the new rows with
/// [`ColumnVec::sync_ticks`] before it returns. Everything that removes or
/// reorders rows goes through [`ColumnVec`], which keeps the four in step.
/// A write stamps the summary with the writer's tick, the latest a world
/// holds; rows moved in bring theirs ([`later`]); handing rows out to be
/// written ([`ColumnVec::values_and_changed`]) stamps every group at once.
///
/// The values are a `Vec<T>` (`V`'s default) or, for an `#[ecs(soa)]`
/// component, a [`SoaVec<T>`](super::SoaVec).
#[doc(hidden)]
#[derive(Debug)]
pub struct TrackedVec<T, V = Vec<T>> {
    values: V,
    added: Vec<u32>,
    changed: Vec<u32>,
    /// Per group of [`GROUP`] rows (the last one possibly partial).
    latest: Vec<u32>,
    component: PhantomData<fn() -> T>,
}

impl<T, V: Default> Default for TrackedVec<T, V> {
    fn default() -> Self {
        TrackedVec {
            values: V::default(),
            added: Vec::new(),
            changed: Vec::new(),
            latest: Vec::new(),
            component: PhantomData,
        }
    }
}

impl<T, V: Clone> Clone for TrackedVec<T, V> {
    fn clone(&self) -> Self {
        TrackedVec {
            values: self.values.clone(),
            added: self.added.clone(),
            changed: self.changed.clone(),
            latest: self.latest.clone(),
            component: PhantomData,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.values.clone_from(&source.values);
        self.added.clone_from(&source.added);
        self.changed.clone_from(&source.changed);
        self.latest.clone_from(&source.latest);
    }
}

impl<T, V: ColumnVec> TrackedVec<T, V> {
    /// A column of loaded parts, all of one length (the loader checks).
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(values: V, added: Vec<u32>, changed: Vec<u32>) -> Self {
        debug_assert!(values.len() == added.len() && added.len() == changed.len());
        let mut column = TrackedVec {
            values,
            added,
            changed,
            latest: Vec::new(),
            component: PhantomData,
        };
        column.summarize_from(0);
        column
    }

    /// The values, without their ticks.
    #[inline(always)]
    pub(crate) fn values(&self) -> &V {
        &self.values
    }

    /// The values, without their ticks: to push to (then
    /// [`ColumnVec::sync_ticks`]), or to move values that the caller keeps
    /// in step with the ticks.
    #[inline(always)]
    pub(crate) fn values_mut(&mut self) -> &mut V {
        &mut self.values
    }

    /// The same column with its values converted by `convert` (which keeps
    /// their number and order): the ticks and summaries are kept.
    #[cfg(feature = "serde")]
    pub(crate) fn map_values<W>(self, convert: impl FnOnce(V) -> W) -> TrackedVec<T, W> {
        TrackedVec {
            values: convert(self.values),
            added: self.added,
            changed: self.changed,
            latest: self.latest,
            component: PhantomData,
        }
    }

    /// The values and the changed ticks, to hand rows out to be written at
    /// `tick`: every group counts as written at `tick` from here on.
    #[inline(always)]
    pub(crate) fn values_and_changed_ticks(&mut self, tick: u32) -> (&mut V, &mut [u32]) {
        self.latest.fill(tick);
        (&mut self.values, &mut self.changed)
    }

    /// Recomputes the summaries of the groups from the one holding `row`
    /// on, from the changed ticks.
    fn summarize_from(&mut self, row: usize) {
        let first = row / GROUP;
        self.latest.truncate(first);
        self.latest.extend(
            self.changed[first * GROUP..]
                .chunks(GROUP)
                .map(|group| group.iter().copied().reduce(later).unwrap_or(0)),
        );
    }

    /// Folds `tick`, now a changed tick of `row`, into its group's summary.
    #[inline]
    fn summarize_row(&mut self, row: usize, tick: u32) {
        let group = row / GROUP;
        match self.latest.get_mut(group) {
            Some(latest) => *latest = later(*latest, tick),
            None => self.latest.push(tick),
        }
    }

    /// Fixes the summaries after the changed tick of `row` was swap-removed:
    /// the last row's tick moved into `row`'s group, and the last group may
    /// be gone.
    #[inline]
    fn after_swap_remove(&mut self, row: usize) {
        if let Some(&moved) = self.changed.get(row) {
            self.summarize_row(row, moved);
        }
        self.latest.truncate(self.changed.len().div_ceil(GROUP));
    }

    /// The changed ticks, and the summaries of their groups.
    #[inline]
    pub(crate) fn changed_and_latest(&self) -> (&[u32], &[u32]) {
        (&self.changed, &self.latest)
    }
}

/// The values as their store hashes them (a `Vec<T>` and a `SoaVec<T>` of
/// the same values alike), then the ticks.
impl<T, V: StableHash> StableHash for TrackedVec<T, V> {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.values.stable_hash(hasher);
        self.added.as_slice().stable_hash(hasher);
        self.changed.as_slice().stable_hash(hasher);
    }
}

/// The operations a column of either kind (`Vec<T>` or [`TrackedVec<T>`])
/// supports; the generated column enum calls these, one match arm per
/// component, so that a `Vec<T>` arm compiles to what it always did and the
/// tick methods are nothing for it.
#[doc(hidden)]
pub trait ColumnVec: Default {
    /// Number of values.
    fn len(&self) -> usize;
    /// Whether there are no values.
    #[inline]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reserves room for `additional` more values.
    fn reserve(&mut self, additional: usize);
    /// Drops every value.
    fn clear(&mut self);
    /// Moves every value of `other` to the end of this one.
    fn append(&mut self, other: &mut Self);
    /// Reverses the order of the values.
    fn reverse(&mut self);
    /// Moves the value at `row` (and its ticks) to the end of `to`.
    fn move_row(&mut self, row: usize, to: &mut Self);
    /// Takes the value at `row` (and its ticks) out; see
    /// [`Column::discard_row`].
    fn discard_row(&mut self, row: usize, trash: &mut Self);
    /// Takes the last `count` values (and their ticks) out; see
    /// [`Column::discard_tail`].
    fn discard_tail(&mut self, count: usize, trash: &mut Self);
    /// Moves the last value to the end of `to`, without ticks (`to` is then
    /// stamped by [`ColumnVec::sync_ticks`]).
    fn pop_into(&mut self, to: &mut Self);

    /// The added and changed ticks by row, for a tracked column.
    #[inline(always)]
    fn ticks(&self) -> Option<(&[u32], &[u32])> {
        None
    }
    /// Stamps rows pushed without ticks as added at `tick`.
    #[inline(always)]
    fn sync_ticks(&mut self, _tick: u32) {}
    /// Marks `row` changed at `tick`.
    #[inline(always)]
    fn mark_changed(&mut self, _row: usize, _tick: u32) {}
    /// The ticks of `row`: (added, changed).
    #[inline(always)]
    fn row_ticks(&self, _row: usize) -> Option<(u32, u32)> {
        None
    }
    /// Sets the ticks of `row`.
    #[inline(always)]
    fn set_row_ticks(&mut self, _row: usize, _ticks: (u32, u32)) {}
    /// Swap-removes the ticks of `row`, whose value was swap-removed from
    /// [`AsVec::vec_mut`].
    #[inline(always)]
    fn swap_remove_ticks(&mut self, _row: usize) {}
    /// Clamps the ticks to at most [`MAX_AGE`](crate::changes::MAX_AGE) older
    /// than `now`.
    #[inline(always)]
    fn clamp_ticks(&mut self, _now: u32) {}
    /// The changed ticks by row and their groups' summaries (see
    /// [`TrackedVec`]), for a tracked column.
    #[inline(always)]
    fn changed_and_latest(&self) -> Option<(&[u32], &[u32])> {
        None
    }
}

/// The storage of a column that keeps its values whole, in a `Vec<T>`: a
/// `Vec<T>` itself or a [`TrackedVec<T>`]. (A column of an `#[ecs(soa)]`
/// component keeps them field by field and is not one.)
#[doc(hidden)]
pub trait AsVec<T> {
    /// The values.
    fn vec(&self) -> &Vec<T>;
    /// The values, to read, write, or push to (then [`ColumnVec::sync_ticks`]).
    fn vec_mut(&mut self) -> &mut Vec<T>;
    /// The values, and the changed ticks of a tracked column (empty for a
    /// `Vec`), to hand rows out to be written at `tick`: a tracked column
    /// counts every group as written at `tick` from here on.
    fn values_and_changed(&mut self, tick: u32) -> (&mut [T], &mut [u32]);
}

/// One component's values in a column, as structural changes see them:
/// whole values pushed, replaced and taken out by row. A `Vec<T>`, or the
/// [`SoaVec<T>`](super::SoaVec) of an `#[ecs(soa)]` component, which keeps
/// each field in an array of its own.
#[doc(hidden)]
pub trait Values<T> {
    /// Appends `value`.
    fn push(&mut self, value: T);
    /// Puts `value` at `row`; returns the value it replaces.
    fn replace(&mut self, row: usize, value: T) -> T;
    /// Removes the value at `row`, moving the last value into it.
    fn swap_remove(&mut self, row: usize) -> T;
    /// Every row, one slice per field, if the values are kept field by
    /// field (`#[ecs(soa)]`); `None` for a `Vec<T>`.
    fn fields(&self) -> Option<T::Slices<'_>>
    where
        T: Soa;
    /// Every row, one exclusive slice per field: see [`Values::fields`].
    fn fields_mut(&mut self) -> Option<T::SlicesMut<'_>>
    where
        T: Soa;
    /// [`Values::fields_mut`] and, for a tracked column, the changed ticks
    /// of its rows (empty otherwise), to hand rows out to be written at
    /// `tick`, as [`AsVec::values_and_changed`] does.
    #[inline(always)]
    fn fields_and_changed(&mut self, _tick: u32) -> Option<(T::SlicesMut<'_>, &mut [u32])>
    where
        T: Soa,
    {
        Some((self.fields_mut()?, &mut []))
    }
}

impl<T> Values<T> for Vec<T> {
    #[inline(always)]
    fn push(&mut self, value: T) {
        Vec::push(self, value);
    }

    #[inline(always)]
    fn replace(&mut self, row: usize, value: T) -> T {
        core::mem::replace(&mut self[row], value)
    }

    #[inline(always)]
    fn swap_remove(&mut self, row: usize) -> T {
        Vec::swap_remove(self, row)
    }

    #[inline(always)]
    fn fields(&self) -> Option<T::Slices<'_>>
    where
        T: Soa,
    {
        None
    }

    #[inline(always)]
    fn fields_mut(&mut self) -> Option<T::SlicesMut<'_>>
    where
        T: Soa,
    {
        None
    }
}

impl<T> AsVec<T> for Vec<T> {
    #[inline(always)]
    fn vec(&self) -> &Vec<T> {
        self
    }

    #[inline(always)]
    fn vec_mut(&mut self) -> &mut Vec<T> {
        self
    }

    #[inline(always)]
    fn values_and_changed(&mut self, _tick: u32) -> (&mut [T], &mut [u32]) {
        (self, &mut [])
    }
}

impl<T> ColumnVec for Vec<T> {
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    #[inline]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }

    #[inline]
    fn clear(&mut self) {
        Vec::clear(self);
    }

    #[inline]
    fn append(&mut self, other: &mut Self) {
        Vec::append(self, other);
    }

    #[inline]
    fn reverse(&mut self) {
        self.as_mut_slice().reverse();
    }

    #[inline(always)]
    fn move_row(&mut self, row: usize, to: &mut Self) {
        to.push(self.swap_remove(row));
    }

    #[inline(always)]
    fn discard_row(&mut self, row: usize, trash: &mut Self) {
        let value = self.swap_remove(row);
        if core::mem::needs_drop::<T>() {
            trash.push(value);
        }
    }

    #[inline]
    fn discard_tail(&mut self, count: usize, trash: &mut Self) {
        let keep = self.len() - count;
        if core::mem::needs_drop::<T>() {
            trash.extend(self.drain(keep..));
        } else {
            self.truncate(keep);
        }
    }

    #[inline]
    fn pop_into(&mut self, to: &mut Self) {
        if let Some(value) = self.pop() {
            to.push(value);
        }
    }
}

impl<T> AsVec<T> for TrackedVec<T> {
    #[inline(always)]
    fn vec(&self) -> &Vec<T> {
        &self.values
    }

    #[inline(always)]
    fn vec_mut(&mut self) -> &mut Vec<T> {
        &mut self.values
    }

    #[inline(always)]
    fn values_and_changed(&mut self, tick: u32) -> (&mut [T], &mut [u32]) {
        let (values, changed) = self.values_and_changed_ticks(tick);
        (values, changed)
    }
}

impl<T, V: ColumnVec> ColumnVec for TrackedVec<T, V> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.values.len()
    }

    #[inline]
    fn reserve(&mut self, additional: usize) {
        self.values.reserve(additional);
        self.added.reserve(additional);
        self.changed.reserve(additional);
    }

    #[inline]
    fn clear(&mut self) {
        self.values.clear();
        self.added.clear();
        self.changed.clear();
        self.latest.clear();
    }

    #[inline]
    fn append(&mut self, other: &mut Self) {
        let start = self.changed.len();
        self.values.append(&mut other.values);
        self.added.append(&mut other.added);
        self.changed.append(&mut other.changed);
        other.latest.clear();
        self.summarize_from(start);
    }

    #[inline]
    fn reverse(&mut self) {
        ColumnVec::reverse(&mut self.values);
        self.added.reverse();
        self.changed.reverse();
        self.summarize_from(0);
    }

    #[inline]
    fn move_row(&mut self, row: usize, to: &mut Self) {
        self.values.move_row(row, &mut to.values);
        // Only the trash, a destination never read by row, can lack ticks.
        if row < self.added.len() {
            to.added.push(self.added.swap_remove(row));
            let changed = self.changed.swap_remove(row);
            to.changed.push(changed);
            to.summarize_row(to.changed.len() - 1, changed);
            self.after_swap_remove(row);
        }
    }

    #[inline]
    fn discard_row(&mut self, row: usize, trash: &mut Self) {
        self.values.discard_row(row, &mut trash.values);
        // The trash, never read by row, keeps no ticks of what it holds.
        if row < self.added.len() {
            self.added.swap_remove(row);
            self.changed.swap_remove(row);
            self.after_swap_remove(row);
        }
    }

    #[inline]
    fn discard_tail(&mut self, count: usize, trash: &mut Self) {
        self.values.discard_tail(count, &mut trash.values);
        // As after `pop_into`: a group's summary may stay above its rows'
        // ticks, which only makes a walk look at the group.
        self.added.truncate(self.values.len());
        self.changed.truncate(self.values.len());
        self.latest.truncate(self.values.len().div_ceil(GROUP));
    }

    #[inline]
    fn pop_into(&mut self, to: &mut Self) {
        self.values.pop_into(&mut to.values);
        self.added.truncate(self.values.len());
        self.changed.truncate(self.values.len());
        self.latest.truncate(self.values.len().div_ceil(GROUP));
    }

    #[inline]
    fn ticks(&self) -> Option<(&[u32], &[u32])> {
        Some((&self.added, &self.changed))
    }

    #[inline]
    fn sync_ticks(&mut self, tick: u32) {
        let len = self.values.len();
        if self.added.len() != len {
            let first_new = self.added.len();
            self.added.resize(len, tick);
            self.changed.resize(len, tick);
            // `tick` is the latest tick of the world: the summary of every
            // group holding a new row becomes it.
            self.latest.truncate(first_new / GROUP);
            self.latest.resize(len.div_ceil(GROUP), tick);
        }
    }

    #[inline]
    fn mark_changed(&mut self, row: usize, tick: u32) {
        self.changed[row] = tick;
        self.latest[row / GROUP] = tick;
    }

    #[inline]
    fn row_ticks(&self, row: usize) -> Option<(u32, u32)> {
        Some((self.added[row], self.changed[row]))
    }

    #[inline]
    fn set_row_ticks(&mut self, row: usize, (added, changed): (u32, u32)) {
        self.added[row] = added;
        self.changed[row] = changed;
        self.summarize_row(row, changed);
    }

    #[inline]
    fn swap_remove_ticks(&mut self, row: usize) {
        self.added.swap_remove(row);
        self.changed.swap_remove(row);
        self.after_swap_remove(row);
    }

    fn clamp_ticks(&mut self, now: u32) {
        let ticks = self.added.iter_mut().chain(self.changed.iter_mut());
        for tick in ticks.chain(self.latest.iter_mut()) {
            clamp(tick, now);
        }
    }

    #[inline]
    fn changed_and_latest(&self) -> Option<(&[u32], &[u32])> {
        Some(TrackedVec::changed_and_latest(self))
    }
}

/// With feature `serde`: how each kind of column storage is written to a
/// save and read back.
#[cfg(feature = "serde")]
mod save {
    use super::{ColumnVec, TrackedVec};
    use crate::save::{
        key_missing, key_twice, key_unknown, load_rows, reject, Bounded, Key, LoadRows, SaveColumn,
    };
    use core::fmt;
    use core::marker::PhantomData;
    use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
    use serde::Deserialize;

    impl<T: serde::Serialize> SaveColumn for Vec<T> {
        fn save<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self)
        }
    }

    impl<'de, T: Deserialize<'de>> LoadRows<'de> for Vec<T> {
        #[inline]
        fn load<D: Deserializer<'de>>(
            rows: usize,
            what: &'static str,
            deserializer: D,
        ) -> Result<Self, D::Error> {
            load_rows(rows, what, deserializer)
        }
    }

    /// A tracked column: its values (as its value store writes them: a
    /// sequence of whole values), then its added and changed ticks, as a
    /// struct (a tuple in formats without field names, an object in JSON;
    /// either is read back).
    impl<T, V: ColumnVec + SaveColumn> SaveColumn for TrackedVec<T, V> {
        fn save<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeStruct;
            let (added, changed) = self.ticks().unwrap_or((&[], &[]));
            let mut fields = serializer.serialize_struct("TrackedColumn", 3)?;
            fields.serialize_field("values", &Saved(self.values()))?;
            fields.serialize_field("added", &Rows(added))?;
            fields.serialize_field("changed", &Rows(changed))?;
            fields.end()
        }
    }

    /// A value store, serialized as it saves itself.
    struct Saved<'a, V>(&'a V);

    impl<V: SaveColumn> serde::Serialize for Saved<'_, V> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.0.save(serializer)
        }
    }

    struct Rows<'a, T>(&'a [T]);

    impl<T: serde::Serialize> serde::Serialize for Rows<'_, T> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.0)
        }
    }

    /// A sequence of exactly `rows` values of `T`.
    fn exactly<T>(rows: usize, what: &'static str) -> Bounded<T, PhantomData<T>> {
        Bounded {
            min: rows,
            max: rows,
            seed: PhantomData,
            what,
            marker: PhantomData,
        }
    }

    impl<'de, T: Deserialize<'de>> LoadRows<'de> for TrackedVec<T> {
        fn load<D: Deserializer<'de>>(
            rows: usize,
            what: &'static str,
            deserializer: D,
        ) -> Result<Self, D::Error> {
            struct Tracked<T>(usize, &'static str, PhantomData<T>);
            impl<'de, T: Deserialize<'de>> Visitor<'de> for Tracked<T> {
                type Value = TrackedVec<T>;

                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(
                        f,
                        "a tracked column of {} rows: {}, added and changed ticks",
                        self.0, self.1
                    )
                }

                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                    let rows = self.0;
                    let cut = || reject::<A::Error>("the save is cut short in a tracked column");
                    let values = seq
                        .next_element_seed(exactly::<T>(rows, self.1))?
                        .ok_or_else(cut)?;
                    let added = seq
                        .next_element_seed(exactly::<u32>(rows, "added ticks of a column"))?
                        .ok_or_else(cut)?;
                    let changed = seq
                        .next_element_seed(exactly::<u32>(rows, "changed ticks of a column"))?
                        .ok_or_else(cut)?;
                    Ok(TrackedVec::from_parts(values, added, changed))
                }

                /// The three by name, in any order.
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    const WITHIN: &str = "a tracked column";
                    const KEYS: [&str; 3] = ["values", "added", "changed"];
                    let rows = self.0;
                    let (mut values, mut added, mut changed) = (None, None, None);
                    while let Some(key) = map.next_key::<Key>()? {
                        match &*key {
                            "values" if values.is_none() => {
                                values = Some(map.next_value_seed(exactly::<T>(rows, self.1))?);
                            }
                            "added" if added.is_none() => {
                                added = Some(map.next_value_seed(exactly::<u32>(
                                    rows,
                                    "added ticks of a column",
                                ))?);
                            }
                            "changed" if changed.is_none() => {
                                changed = Some(map.next_value_seed(exactly::<u32>(
                                    rows,
                                    "changed ticks of a column",
                                ))?);
                            }
                            key if KEYS.contains(&key) => return Err(key_twice(WITHIN, key)),
                            key => return Err(key_unknown(WITHIN, key, &KEYS)),
                        }
                    }
                    let values = values.ok_or_else(|| key_missing(WITHIN, "values"))?;
                    let added = added.ok_or_else(|| key_missing(WITHIN, "added"))?;
                    let changed = changed.ok_or_else(|| key_missing(WITHIN, "changed"))?;
                    Ok(TrackedVec::from_parts(values, added, changed))
                }
            }
            deserializer.deserialize_struct(
                "TrackedColumn",
                &["values", "added", "changed"],
                Tracked::<T>(rows, what, PhantomData),
            )
        }
    }
}
