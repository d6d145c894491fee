//! Query filters: conditions on a table's archetype that select tables without
//! borrowing anything.

use crate::schema::{Component, Schema};
use core::marker::PhantomData;

/// A condition on the archetype: [`With<T>`], [`Without<T>`], `()` (no
/// condition) and tuples of filters (all must hold, up to 12).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query filter of schema `{S}`",
    label = "not a filter of `{S}`",
    note = "a filter is `With<T>` or `Without<T>` with `T` a component of `{S}`, \
            or a tuple of up to 12 filters"
)]
pub trait QueryFilter<S: Schema> {
    /// Components a table must have.
    const REQUIRED: u128;
    /// Components a table must not have.
    const EXCLUDED: u128;
}

/// Filter: only entities that have component `T` (a tag or a data component).
pub struct With<T>(PhantomData<fn() -> T>);

/// Filter: only entities that do not have component `T`.
pub struct Without<T>(PhantomData<fn() -> T>);

impl<S: Schema, T: Component<S>> QueryFilter<S> for With<T> {
    const REQUIRED: u128 = 1 << T::BIT;
    const EXCLUDED: u128 = 0;
}

impl<S: Schema, T: Component<S>> QueryFilter<S> for Without<T> {
    const REQUIRED: u128 = 0;
    const EXCLUDED: u128 = 1 << T::BIT;
}

macro_rules! impl_filter_tuple {
    ($($f:ident),*) => {
        impl<S: Schema, $($f: QueryFilter<S>),*> QueryFilter<S> for ($($f,)*) {
            const REQUIRED: u128 = 0 $(| $f::REQUIRED)*;
            const EXCLUDED: u128 = 0 $(| $f::EXCLUDED)*;
        }
    };
}

impl_filter_tuple!();
impl_filter_tuple!(A);
impl_filter_tuple!(A, B);
impl_filter_tuple!(A, B, C);
impl_filter_tuple!(A, B, C, D);
impl_filter_tuple!(A, B, C, D, E);
impl_filter_tuple!(A, B, C, D, E, F);
impl_filter_tuple!(A, B, C, D, E, F, G);
impl_filter_tuple!(A, B, C, D, E, F, G, H);
impl_filter_tuple!(A, B, C, D, E, F, G, H, I);
impl_filter_tuple!(A, B, C, D, E, F, G, H, I, J);
impl_filter_tuple!(A, B, C, D, E, F, G, H, I, J, K);
impl_filter_tuple!(A, B, C, D, E, F, G, H, I, J, K, L);
