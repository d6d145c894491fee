//! Struct-of-arrays storage: the column of a component marked
//! `#[ecs(soa)]` is one `Vec` per field of the component (the Zig model's
//! `MultiArrayList`), so that a loop over one field reads that field's
//! array and nothing else.
//!
//! `#[derive(Soa)]` on the component writes the field-by-field operations
//! ([`Soa`]); [`SoaVec`] is the column built on them, and the world moves,
//! clones, hashes and saves it as it does a `Vec<T>`: whole values in, whole
//! values out, row by row. Values are read out of the arrays by copying
//! each field, which is why every field of an SoA component is `Copy`,
//! and why the component may not implement `Drop` (a whole value exists
//! only while it is read or written).

use super::column::ColumnVec;
use super::{TrackedVec, Values};
use crate::stable_hash::{StableHash, StableHasher};

/// A component stored field by field: each named field in an array of its
/// own. Derived with `#[derive(Soa)]` on a struct with named fields, each of
/// a `Copy` type, and used by marking the component's field in the schema
/// `#[ecs(soa)]`.
///
/// The derive generates, beside the impl, four view types named after the
/// component (`Pos` below), each with the component's fields and
/// visibility:
///
/// | type | each field | handed out by |
/// | --- | --- | --- |
/// | `PosRef<'a>` | `&'a F` | a [`Fields<&Pos>`](crate::query::Fields) item, [`World::get_soa`](crate::world::World::get_soa) |
/// | `PosMut<'a>` | `&'a mut F` | a `Fields<&mut Pos>` item, [`World::get_soa_mut`](crate::world::World::get_soa_mut) |
/// | `PosSlices<'a>` | `&'a [F]` | the table form of `Fields<&Pos>` |
/// | `PosSlicesMut<'a>` | `&'a mut [F]` | the table form of `Fields<&mut Pos>` |
///
/// `Ref` and `Slices` are `Copy`; `Mut` and `SlicesMut` have a `reborrow`.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::query::Fields;
///
/// #[derive(Soa, Clone, Copy, Debug, PartialEq)]
/// struct Pos { x: f32, y: f32 }
/// #[derive(Soa, Clone, Copy, Debug, PartialEq)]
/// struct Vel { x: f32, y: f32 }
///
/// #[derive(Schema)]
/// struct Particles {
///     #[ecs(soa)] pos: Pos,
///     #[ecs(soa)] vel: Vel,
/// }
///
/// let mut world = World::<Particles>::new();
/// let e = world.spawn((Pos { x: 0.0, y: 0.0 }, Vel { x: 1.0, y: 2.0 }));
///
/// // The table form: one slice per field, the Zig model's `items(.x)`.
/// world
///     .query_mut::<(Fields<&mut Pos>, Fields<&Vel>)>()
///     .for_each_table_mut(|_, (pos, vel)| {
///         for i in 0..pos.x.len() {
///             pos.x[i] += vel.x[i];
///             pos.y[i] += vel.y[i];
///         }
///     });
///
/// // Per entity, through the reference types.
/// let pos = world.get_soa::<Pos>(e).unwrap();
/// assert_eq!((*pos.x, *pos.y), (1.0, 2.0));
/// // Whole values go in and come out.
/// assert_eq!(world.remove::<Pos>(e), Ok(Some(Pos { x: 1.0, y: 2.0 })));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not derive `Soa`, which a component stored field by field needs",
    label = "`{Self}` has no field-by-field layout",
    note = "add `#[derive(Soa)]` to `{Self}` (a struct with named fields of `Copy` types), or \
            store it whole: remove `#[ecs(soa)]` from its field in the schema, and query it \
            as `&{Self}` rather than `Fields<&{Self}>`"
)]
pub trait Soa: Sized + 'static {
    /// One `Vec` per field, all of one length.
    #[doc(hidden)]
    type Columns: Default + 'static;
    /// One entity's fields, shared: `&'a F` per field.
    type Ref<'a>: Copy;
    /// One entity's fields, exclusive: `&'a mut F` per field.
    type Mut<'a>;
    /// Rows of a table, shared: `&'a [F]` per field, all of one length.
    type Slices<'a>: Copy + Default;
    /// Rows of a table, exclusive: `&'a mut [F]` per field.
    type SlicesMut<'a>: Default;

    /// Number of values.
    #[doc(hidden)]
    fn len(columns: &Self::Columns) -> usize;
    /// Appends `value`, field by field.
    #[doc(hidden)]
    fn push(columns: &mut Self::Columns, value: Self);
    /// The value at `row`, read out field by field (a copy).
    #[doc(hidden)]
    fn read(columns: &Self::Columns, row: usize) -> Self;
    /// Puts `value` at `row` and returns the value it replaces.
    #[doc(hidden)]
    fn replace(columns: &mut Self::Columns, row: usize, value: Self) -> Self;
    /// Removes the value at `row`, moving the last one into it.
    #[doc(hidden)]
    fn swap_remove(columns: &mut Self::Columns, row: usize) -> Self;
    /// Removes the last value.
    #[doc(hidden)]
    fn pop(columns: &mut Self::Columns) -> Option<Self>;
    /// Reserves room for `additional` more values in every array.
    #[doc(hidden)]
    fn reserve(columns: &mut Self::Columns, additional: usize);
    /// Drops every value.
    #[doc(hidden)]
    fn clear(columns: &mut Self::Columns);
    /// Moves every value of `other` to the end of `columns`.
    #[doc(hidden)]
    fn append(columns: &mut Self::Columns, other: &mut Self::Columns);
    /// Reverses the order of the values.
    #[doc(hidden)]
    fn reverse(columns: &mut Self::Columns);
    /// A copy of the arrays.
    #[doc(hidden)]
    fn clone_columns(columns: &Self::Columns) -> Self::Columns;
    /// `target` made a copy of `source`, keeping its allocations.
    #[doc(hidden)]
    fn clone_columns_from(target: &mut Self::Columns, source: &Self::Columns);

    /// Every row, shared.
    #[doc(hidden)]
    fn slices(columns: &Self::Columns) -> Self::Slices<'_>;
    /// Every row, exclusive.
    #[doc(hidden)]
    fn slices_mut(columns: &mut Self::Columns) -> Self::SlicesMut<'_>;
    /// Number of rows of `slices`.
    #[doc(hidden)]
    fn slices_len(slices: &Self::Slices<'_>) -> usize;
    /// Number of rows of `slices`.
    #[doc(hidden)]
    fn slices_mut_len(slices: &Self::SlicesMut<'_>) -> usize;
    /// The fields of `row`; panics if there is no such row.
    #[doc(hidden)]
    fn row<'a>(slices: Self::Slices<'a>, row: usize) -> Self::Ref<'a>
    where
        Self: 'a;
    /// The fields of `row`, exclusive; panics if there is no such row.
    #[doc(hidden)]
    fn row_mut<'a>(slices: Self::SlicesMut<'a>, row: usize) -> Self::Mut<'a>
    where
        Self: 'a;
    /// The rows cut at `mid`.
    #[doc(hidden)]
    fn split_at<'a>(slices: Self::Slices<'a>, mid: usize) -> (Self::Slices<'a>, Self::Slices<'a>)
    where
        Self: 'a;
    /// The rows cut at `mid`, exclusive.
    #[doc(hidden)]
    fn split_at_mut<'a>(
        slices: Self::SlicesMut<'a>,
        mid: usize,
    ) -> (Self::SlicesMut<'a>, Self::SlicesMut<'a>)
    where
        Self: 'a;
    /// The same shared slices, for a shorter lifetime.
    #[doc(hidden)]
    fn shorten<'a>(slices: &'a Self::Slices<'_>) -> Self::Slices<'a>;
    /// Shorter-lived exclusive slices of the same rows.
    #[doc(hidden)]
    fn reborrow<'a>(slices: &'a mut Self::SlicesMut<'_>) -> Self::SlicesMut<'a>;
}

/// A field type of an SoA component: `Copy`, since values are read out of
/// the arrays by copying each field. `#[derive(Soa)]` asks it of each field
/// of `Owner`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Copy`, so it cannot be a field of `{Owner}`, which derives `Soa`",
    label = "not `Copy`",
    note = "an SoA component keeps each field in an array of its own and reads a whole \
            `{Owner}` back by copying each field; make the field a `Copy` type, or store \
            `{Owner}` whole (remove `#[derive(Soa)]` and its field's `#[ecs(soa)]`)"
)]
pub trait SoaField<Owner> {}

impl<T: Copy, Owner> SoaField<Owner> for T {}

/// The bound `#[derive(Schema)]` puts on the type of an `#[ecs(soa)]`
/// field, so that a type that does not derive `Soa` is named first.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is marked `#[ecs(soa)]` in schema `{S}`, but does not derive `Soa`",
    label = "`{Self}` has no field-by-field layout",
    note = "add `#[derive(Soa)]` to `{Self}` (a struct with named fields of `Copy` types), or \
            remove `#[ecs(soa)]` from its field in `{S}` to store it whole"
)]
pub trait SoaComponent<S> {}

impl<T: Soa, S> SoaComponent<S> for T {}

/// The column of an `#[ecs(soa)]` component: its [`Soa::Columns`].
#[doc(hidden)]
pub struct SoaVec<T: Soa> {
    columns: T::Columns,
}

impl<T: Soa> Default for SoaVec<T> {
    #[inline]
    fn default() -> Self {
        SoaVec {
            columns: T::Columns::default(),
        }
    }
}

impl<T: Soa> SoaVec<T> {
    /// The value at `row`, copied out.
    #[inline]
    pub(crate) fn read(&self, row: usize) -> T {
        T::read(&self.columns, row)
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        T::len(&self.columns)
    }
}

impl<T: Soa> core::fmt::Debug for SoaVec<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SoaVec")
            .field("len", &T::len(&self.columns))
            .finish_non_exhaustive()
    }
}

impl<T: Soa> Values<T> for SoaVec<T> {
    #[inline(always)]
    fn push(&mut self, value: T) {
        T::push(&mut self.columns, value);
    }

    #[inline(always)]
    fn replace(&mut self, row: usize, value: T) -> T {
        T::replace(&mut self.columns, row, value)
    }

    #[inline(always)]
    fn swap_remove(&mut self, row: usize) -> T {
        T::swap_remove(&mut self.columns, row)
    }

    #[inline(always)]
    fn fields(&self) -> Option<T::Slices<'_>> {
        Some(T::slices(&self.columns))
    }

    #[inline(always)]
    fn fields_mut(&mut self) -> Option<T::SlicesMut<'_>> {
        Some(T::slices_mut(&mut self.columns))
    }
}

/// The column of a tracked `#[ecs(soa)]` component: its values are moved
/// as an untracked one's (the caller keeps the ticks in step, as it does
/// for a tracked `Vec<T>`), and rows handed out to be written come with
/// their changed ticks.
impl<T: Soa> Values<T> for TrackedVec<T, SoaVec<T>> {
    #[inline(always)]
    fn push(&mut self, value: T) {
        self.values_mut().push(value);
    }

    #[inline(always)]
    fn replace(&mut self, row: usize, value: T) -> T {
        self.values_mut().replace(row, value)
    }

    #[inline(always)]
    fn swap_remove(&mut self, row: usize) -> T {
        self.values_mut().swap_remove(row)
    }

    #[inline(always)]
    fn fields(&self) -> Option<T::Slices<'_>> {
        self.values().fields()
    }

    #[inline(always)]
    fn fields_mut(&mut self) -> Option<T::SlicesMut<'_>> {
        self.values_mut().fields_mut()
    }

    #[inline(always)]
    fn fields_and_changed(&mut self, tick: u32) -> Option<(T::SlicesMut<'_>, &mut [u32])> {
        let (values, changed) = self.values_and_changed_ticks(tick);
        Some((values.fields_mut()?, changed))
    }
}

impl<T: Soa> ColumnVec for SoaVec<T> {
    #[inline]
    fn len(&self) -> usize {
        T::len(&self.columns)
    }

    #[inline]
    fn reserve(&mut self, additional: usize) {
        T::reserve(&mut self.columns, additional);
    }

    #[inline]
    fn clear(&mut self) {
        T::clear(&mut self.columns);
    }

    #[inline]
    fn append(&mut self, other: &mut Self) {
        T::append(&mut self.columns, &mut other.columns);
    }

    #[inline]
    fn reverse(&mut self) {
        T::reverse(&mut self.columns);
    }

    #[inline]
    fn move_row(&mut self, row: usize, to: &mut Self) {
        let value = T::swap_remove(&mut self.columns, row);
        T::push(&mut to.columns, value);
    }

    #[inline]
    fn discard_row(&mut self, row: usize, trash: &mut Self) {
        let value = T::swap_remove(&mut self.columns, row);
        if core::mem::needs_drop::<T>() {
            T::push(&mut trash.columns, value);
        }
    }

    #[inline]
    fn discard_tail(&mut self, count: usize, trash: &mut Self) {
        for _ in 0..count {
            if let Some(value) = T::pop(&mut self.columns) {
                if core::mem::needs_drop::<T>() {
                    T::push(&mut trash.columns, value);
                }
            }
        }
    }

    #[inline]
    fn pop_into(&mut self, to: &mut Self) {
        if let Some(value) = T::pop(&mut self.columns) {
            T::push(&mut to.columns, value);
        }
    }
}

impl<T: Soa> Clone for SoaVec<T> {
    fn clone(&self) -> Self {
        SoaVec {
            columns: T::clone_columns(&self.columns),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        T::clone_columns_from(&mut self.columns, &source.columns);
    }
}

/// The same bytes as a `Vec<T>` of the same values: the length, then each
/// value in row order. A world's checksum does not depend on whether a
/// component is stored field by field.
impl<T: Soa + StableHash> StableHash for SoaVec<T> {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        let len = T::len(&self.columns);
        hasher.write_word(len as u64);
        for row in 0..len {
            self.read(row).stable_hash(hasher);
        }
    }
}

/// The same form as a `Vec<T>` of the same values: a sequence of whole
/// values in row order, so that a save does not depend on whether a
/// component is stored field by field.
#[cfg(feature = "serde")]
mod save {
    use super::{Soa, SoaVec};
    use crate::save::{load_rows, LoadRows, SaveColumn};
    use crate::storage::TrackedVec;
    use crate::storage::Values;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl<T: Soa + Serialize> SaveColumn for SoaVec<T> {
        fn save<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let rows = T::len(&self.columns);
            serializer.collect_seq((0..rows).map(|row| self.read(row)))
        }
    }

    impl<'de, T: Soa + Deserialize<'de>> LoadRows<'de> for SoaVec<T> {
        fn load<D: Deserializer<'de>>(
            rows: usize,
            what: &'static str,
            deserializer: D,
        ) -> Result<Self, D::Error> {
            let values: Vec<T> = load_rows(rows, what, deserializer)?;
            Ok(SoaVec::from_values(values))
        }
    }

    /// A tracked column: read as a tracked `Vec<T>` is, then split.
    impl<'de, T: Soa + Deserialize<'de>> LoadRows<'de> for TrackedVec<T, SoaVec<T>> {
        fn load<D: Deserializer<'de>>(
            rows: usize,
            what: &'static str,
            deserializer: D,
        ) -> Result<Self, D::Error> {
            let whole = <TrackedVec<T> as LoadRows<'de>>::load(rows, what, deserializer)?;
            Ok(whole.map_values(SoaVec::from_values))
        }
    }

    impl<T: Soa> SoaVec<T> {
        /// The column of `values`, in order.
        fn from_values(values: Vec<T>) -> Self {
            let mut column = SoaVec::default();
            T::reserve(&mut column.columns, values.len());
            for value in values {
                column.push(value);
            }
            column
        }
    }
}
