//! The bounds behind `World: Clone` and `World::checksum`, checked one
//! component and one resource at a time, so that a schema with a type
//! lacking the trait is told which type, in which schema, and what to do.
//!
//! A world is `Clone` when its schema is [`CloneSchema`]: `#[derive(Schema)]`
//! implements it for each schema, bounded by [`CloneComponent`] for every
//! component and [`CloneResource`] for every resource and event, and it
//! clones the columns and the resources (through [`Store`], which knows the
//! column of a tracked component and the queue of an event). Those two traits have a blanket impl for every
//! `Clone` type, marked `do_not_recommend`, so when one type is not `Clone`
//! the compiler reports the bound on that type, with the message below,
//! rather than a bound on the hidden column type. The same goes for
//! [`HashSchema`] and `World::checksum`.
//!
//! [`SendSchema`](crate::schedule::SendSchema) stands for the thread-safety bounds of a schedule, as
//! [`ChecksumSchema`] does for a checksum: one public name in signatures
//! instead of bounds on the hidden column and resource types.
//!
//! The schema's impls take a type parameter (`impl<W> CloneSchema<W> for
//! Game where Pos: CloneComponent<W>`), always the schema itself where used:
//! a bound on a concrete type that does not hold would be an error where the
//! impl is written, while one that names a parameter only makes the impl not
//! apply, so a schema with a component that is not `Clone` still compiles.

use crate::event::Events;
use crate::layout::Layout;
use crate::stable_hash::{StableHash, StableHasher};
use crate::storage::{Soa, SoaVec, TrackedVec};
use core::fmt;

/// How a world keeps values of `T`: a component's column (`Vec<T>`, or
/// `TrackedVec<T>` for a tracked component), a resource (itself), an
/// event's queue (`Events<T>`) or a state's cell (`State<T>`); and how that is cloned and hashed when `T`
/// can be. What [`CloneComponent`], [`HashComponent`] and their resource
/// twins call.
#[doc(hidden)]
pub trait Store<T>: Sized {
    /// `self.clone()`.
    fn clone_store(&self) -> Self
    where
        T: Clone;
    /// `self.clone_from(source)`: keeps the allocations, and copies `Copy`
    /// values as one block.
    fn clone_store_from(&mut self, source: &Self)
    where
        T: Clone;
    /// Writes what is stored into `hasher`.
    fn hash_store(&self, hasher: &mut StableHasher)
    where
        T: StableHash;
    /// Writes what a column holds for `row` into `hasher`: the value, and a
    /// tracked column's ticks of it ([`World::diff`](crate::world::World::diff)
    /// compares entities by it). A store that is not a column writes all of
    /// itself.
    fn hash_row(&self, row: usize, hasher: &mut StableHasher)
    where
        T: StableHash;
    /// Writes the value a column holds for `row` through `Debug` (a
    /// schema's diffs print it under `#[ecs(debug)]`). A store that is not a
    /// column writes nothing.
    fn fmt_row(&self, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result
    where
        T: fmt::Debug;
}

/// One row of a column, through `Debug`: its value.
trait RowDebug {
    fn fmt_row(&self, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<T: fmt::Debug> RowDebug for Vec<T> {
    fn fmt_row(&self, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.get(row) {
            Some(value) => fmt::Debug::fmt(value, f),
            None => Ok(()),
        }
    }
}

impl<T: Soa + fmt::Debug> RowDebug for SoaVec<T> {
    fn fmt_row(&self, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if row < self.len() {
            fmt::Debug::fmt(&self.read(row), f)?;
        }
        Ok(())
    }
}

impl<T, V: RowDebug + crate::storage::ColumnVec> RowDebug for TrackedVec<T, V> {
    fn fmt_row(&self, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.values().fmt_row(row, f)
    }
}

/// One row of a column, hashed: its value, then a tracked column's ticks.
trait RowHash {
    fn hash_row(&self, row: usize, hasher: &mut StableHasher);
}

impl<T: StableHash> RowHash for Vec<T> {
    #[inline]
    fn hash_row(&self, row: usize, hasher: &mut StableHasher) {
        if let Some(value) = self.get(row) {
            value.stable_hash(hasher);
        }
    }
}

impl<T: Soa + StableHash> RowHash for SoaVec<T> {
    #[inline]
    fn hash_row(&self, row: usize, hasher: &mut StableHasher) {
        if row < self.len() {
            self.read(row).stable_hash(hasher);
        }
    }
}

impl<T, V: RowHash + crate::storage::ColumnVec> RowHash for TrackedVec<T, V> {
    #[inline]
    fn hash_row(&self, row: usize, hasher: &mut StableHasher) {
        use crate::storage::ColumnVec;
        self.values().hash_row(row, hasher);
        self.row_ticks(row).stable_hash(hasher);
    }
}

/// `Store<T>` for each way of keeping `T`, by the stored type's own `Clone`
/// and `StableHash`, which it has when `T` does.
macro_rules! stores {
    ($kind:ident $params:tt $($store:ty),+ $(,)?) => {$(
        stores!(@one $kind $params $store);
    )+};
    (@one $kind:ident [$($param:tt)*] $store:ty) => {
        impl<$($param)*> Store<T> for $store {
            #[inline]
            fn clone_store(&self) -> Self
            where
                T: Clone,
            {
                self.clone()
            }

            #[inline]
            fn clone_store_from(&mut self, source: &Self)
            where
                T: Clone,
            {
                self.clone_from(source);
            }

            #[inline]
            fn hash_store(&self, hasher: &mut StableHasher)
            where
                T: StableHash,
            {
                self.stable_hash(hasher);
            }

            #[inline]
            fn hash_row(&self, row: usize, hasher: &mut StableHasher)
            where
                T: StableHash,
            {
                stores!(@row $kind self row hasher);
            }

            fn fmt_row(&self, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result
            where
                T: fmt::Debug,
            {
                stores!(@debug $kind self row f)
            }
        }
    };
    (@debug column $self:ident $row:ident $f:ident) => {
        RowDebug::fmt_row($self, $row, $f)
    };
    (@debug whole $self:ident $row:ident $f:ident) => {{
        let _ = ($row, $f);
        Ok(())
    }};
    (@row column $self:ident $row:ident $hasher:ident) => {
        RowHash::hash_row($self, $row, $hasher)
    };
    (@row whole $self:ident $row:ident $hasher:ident) => {{
        let _ = $row;
        $self.stable_hash($hasher)
    }};
}

stores!(column [T] Vec<T>, TrackedVec<T>);
stores!(whole [T] T, Events<T>, crate::state::State<T>);
// A column kept field by field, tracked or not: cloned array by array,
// hashed as the `Vec<T>` of the same values would be.
stores!(column [T: Soa] SoaVec<T>, TrackedVec<T, SoaVec<T>>);

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` cannot be cloned: its component `{Self}` is not `Clone`",
    label = "`{Self}` is not `Clone`",
    note = "derive or implement `Clone` for `{Self}`: a world is `Clone` when every component, \
            resource and event of its schema is"
)]
pub trait CloneComponent<S>: Sized {
    /// `store.clone()`.
    fn clone_values<C: Store<Self>>(store: &C) -> C;
    /// `target.clone_from(source)`.
    fn clone_values_from<C: Store<Self>>(target: &mut C, source: &C);
}

#[diagnostic::do_not_recommend]
impl<T: Clone, S> CloneComponent<S> for T {
    #[inline]
    fn clone_values<C: Store<T>>(store: &C) -> C {
        store.clone_store()
    }

    #[inline]
    fn clone_values_from<C: Store<T>>(target: &mut C, source: &C) {
        target.clone_store_from(source);
    }
}

/// A resource or event type of schema `S`, as far as cloning a world is
/// concerned: every `Clone` type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` cannot be cloned: its resource or event `{Self}` is not `Clone`",
    label = "`{Self}` is not `Clone`",
    note = "derive or implement `Clone` for `{Self}`: a world is `Clone` when every component, \
            resource and event of its schema is"
)]
pub trait CloneResource<S>: Sized {
    /// `stored.clone()`.
    fn clone_value<C: Store<Self>>(stored: &C) -> C;
    /// `target.clone_from(source)`.
    fn clone_value_from<C: Store<Self>>(target: &mut C, source: &C);
}

#[diagnostic::do_not_recommend]
impl<T: Clone, S> CloneResource<S> for T {
    #[inline]
    fn clone_value<C: Store<T>>(stored: &C) -> C {
        stored.clone_store()
    }

    #[inline]
    fn clone_value_from<C: Store<T>>(target: &mut C, source: &C) {
        target.clone_store_from(source);
    }
}

/// A schema whose components, resources and events are all `Clone`, with
/// the cloning of its columns and resources. `#[derive(Schema)]` implements
/// it; `W` is the schema itself wherever it is used (see the module
/// documentation).
#[doc(hidden)]
pub trait CloneSchema<W>: Layout {
    /// `column.clone()`.
    fn clone_column(column: &Self::Column) -> Self::Column;
    /// `target.clone_from(source)`, keeping `target`'s allocation when both
    /// hold the same component.
    fn clone_column_from(target: &mut Self::Column, source: &Self::Column);
    /// `resources.clone()`.
    fn clone_resources(resources: &Self::Resources) -> Self::Resources;
    /// `target.clone_from(source)`, field by field.
    fn clone_resources_from(target: &mut Self::Resources, source: &Self::Resources);
}

/// A component type of schema `S`, as far as a world's checksum is
/// concerned: every [`StableHash`] type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` has no checksum: its component `{Self}` is not `StableHash`",
    label = "`{Self}` is not `StableHash`",
    note = "add `#[derive(schemecs::checksum::StableHash)]` to `{Self}`, or implement \
            `schemecs::checksum::StableHash` for it: a world has a checksum when every component, \
            resource and event of its schema is `StableHash`"
)]
pub trait HashComponent<S>: Sized {
    /// Writes the column's values (and ticks) into `hasher`.
    fn hash_values<C: Store<Self>>(store: &C, hasher: &mut StableHasher);
    /// Writes the value (and ticks) of one row of the column into `hasher`.
    fn hash_value_at<C: Store<Self>>(store: &C, row: usize, hasher: &mut StableHasher);
}

#[diagnostic::do_not_recommend]
impl<T: StableHash, S> HashComponent<S> for T {
    #[inline]
    fn hash_values<C: Store<T>>(store: &C, hasher: &mut StableHasher) {
        store.hash_store(hasher);
    }

    #[inline]
    fn hash_value_at<C: Store<T>>(store: &C, row: usize, hasher: &mut StableHasher) {
        store.hash_row(row, hasher);
    }
}

/// A component of a schema with `#[ecs(debug)]`, whose diffs print its
/// values: every `Debug` type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "schema `{S}` prints component values in its diffs (`#[ecs(debug)]`), but its \
               component `{Self}` is not `Debug`",
    label = "`{Self}` is not `Debug`",
    note = "derive `Debug` for `{Self}`, or take `debug` out of the schema's `#[ecs(...)]`: a \
            diff then names the entities whose values differ without printing the values"
)]
pub trait DebugComponent<S>: Sized {
    /// Writes the value of one row of the column through `Debug`.
    fn fmt_value_at<C: Store<Self>>(
        store: &C,
        row: usize,
        f: &mut fmt::Formatter<'_>,
    ) -> fmt::Result;
}

#[diagnostic::do_not_recommend]
impl<T: fmt::Debug, S> DebugComponent<S> for T {
    fn fmt_value_at<C: Store<T>>(store: &C, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        store.fmt_row(row, f)
    }
}

/// A resource or event type of schema `S`, as far as a world's checksum is
/// concerned: every [`StableHash`] type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` has no checksum: its resource or event `{Self}` is not `StableHash`",
    label = "`{Self}` is not `StableHash`",
    note = "add `#[derive(schemecs::checksum::StableHash)]` to `{Self}`, or implement \
            `schemecs::checksum::StableHash` for it: a world has a checksum when every component, \
            resource and event of its schema is `StableHash`"
)]
pub trait HashResource<S>: Sized {
    /// Writes the stored value into `hasher`.
    fn hash_value<C: Store<Self>>(stored: &C, hasher: &mut StableHasher);
}

#[diagnostic::do_not_recommend]
impl<T: StableHash, S> HashResource<S> for T {
    #[inline]
    fn hash_value<C: Store<T>>(stored: &C, hasher: &mut StableHasher) {
        stored.hash_store(hasher);
    }
}

/// A schema whose components, resources and events are all [`StableHash`],
/// with the hashing of its columns and resources. `#[derive(Schema)]`
/// implements it; `W` is the schema itself wherever it is used.
#[doc(hidden)]
pub trait HashSchema<W>: Layout {
    /// Writes the values of `column` into `hasher`.
    fn hash_column(column: &Self::Column, hasher: &mut StableHasher);
    /// Writes the value (and ticks) of `row` of `column` into `hasher`.
    fn hash_row(column: &Self::Column, row: usize, hasher: &mut StableHasher);
    /// Whether the schema has `#[ecs(debug)]`: [`HashSchema::fmt_row`]
    /// prints values.
    const PRINTS_VALUES: bool = false;
    /// Writes the value of `row` of `column` through `Debug`, under
    /// `#[ecs(debug)]`; nothing otherwise.
    fn fmt_row(column: &Self::Column, row: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _ = (column, row, f);
        Ok(())
    }
    /// Writes every resource and event queue into `hasher`, in field order.
    fn hash_resources(resources: &Self::Resources, hasher: &mut StableHasher);
    /// Writes each resource and event queue into a hasher of its own:
    /// resource bit `i` into `hashers[i]` (those past the end of `hashers`
    /// nowhere).
    fn hash_each_resource(resources: &Self::Resources, hashers: &mut [StableHasher]);
}

/// A schema whose worlds have a [`World::checksum`](crate::world::World::checksum):
/// its components, resources and events are all [`StableHash`]. Every such
/// schema implements it; name it as the bound of code generic over schemas
/// that checksums their worlds (a rollback runner, a replay checker).
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::{checksum::ChecksumSchema, checksum::StableHash};
///
/// fn same_state<S: ChecksumSchema>(a: &World<S>, b: &World<S>) -> bool {
///     a.checksum() == b.checksum()
/// }
///
/// #[derive(Clone, StableHash)] struct Pos(i32);
/// #[derive(Schema)] struct Game { pos: Pos }
///
/// let mut world = World::<Game>::new();
/// world.spawn((Pos(1),));
/// let copy = world.clone();
/// assert!(same_state(&world, &copy));
/// ```
pub trait ChecksumSchema: HashSchema<Self> {}

impl<S: HashSchema<S>> ChecksumSchema for S {}

/// `impl CloneSchema<W>` and `impl HashSchema<W>` for a schema, and `Clone`
/// for its column enum, from the names `#[derive(Schema)]` passes: each
/// component's variant and type, each resource's field and type, in order,
/// and a name for the impls' parameter that no type of the schema has.
/// Written here rather than in the derive so that the compiler, when a bound
/// fails, does not suggest replacing a derived impl by hand; the types keep
/// the spans of the user's fields, so its notes point at them.
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_snapshot_impls {
    (
        schema: $schema:ident,
        param: $w:ident,
        column: $column:ident,
        resources: $resources:ident,
        components: [$($variant:ident: $component:ty),+ $(,)?],
        resource_fields: [$($field:ident: $resource:ty),* $(,)?],
        soa_bounds: [$($soa_bound:tt)*],
        debug: [$($debug_variant:ident: $debug_component:ty),* $(,)?] $(,)?
    ) => {
        #[automatically_derived]
        #[allow(unreachable_patterns)]
        impl<$w> $crate::__private::CloneSchema<$w> for $schema
        where
            $($component: $crate::__private::CloneComponent<$w>,)+
            $($resource: $crate::__private::CloneResource<$w>,)*
            $($soa_bound)*
        {
            #[inline]
            fn clone_column(__ecs_column: &$column) -> $column {
                match __ecs_column {
                    $($column::$variant(__ecs_values) => $column::$variant(
                        <$component as $crate::__private::CloneComponent<$w>>::clone_values(__ecs_values),
                    ),)+
                }
            }

            #[inline]
            fn clone_column_from(__ecs_target: &mut $column, __ecs_source: &$column) {
                match (__ecs_target, __ecs_source) {
                    $(($column::$variant(__ecs_to), $column::$variant(__ecs_from)) => {
                        <$component as $crate::__private::CloneComponent<$w>>::clone_values_from(
                            __ecs_to, __ecs_from,
                        )
                    })+
                    (__ecs_target, __ecs_source) => {
                        *__ecs_target = <Self as $crate::__private::CloneSchema<$w>>::clone_column(__ecs_source)
                    }
                }
            }

            #[inline]
            fn clone_resources(
                __ecs_resources: &<Self as $crate::schema::Layout>::Resources,
            ) -> <Self as $crate::schema::Layout>::Resources {
                $resources {
                    $($field: <$resource as $crate::__private::CloneResource<$w>>::clone_value(
                        &__ecs_resources.$field,
                    ),)*
                }
            }

            #[inline]
            #[allow(unused_variables)]
            fn clone_resources_from(
                __ecs_target: &mut <Self as $crate::schema::Layout>::Resources,
                __ecs_source: &<Self as $crate::schema::Layout>::Resources,
            ) {
                $(<$resource as $crate::__private::CloneResource<$w>>::clone_value_from(
                    &mut __ecs_target.$field,
                    &__ecs_source.$field,
                );)*
            }
        }

        #[automatically_derived]
        impl<$w> $crate::__private::HashSchema<$w> for $schema
        where
            $($component: $crate::__private::HashComponent<$w>,)+
            $($resource: $crate::__private::HashResource<$w>,)*
            $($debug_component: $crate::__private::DebugComponent<$w>,)*
            $($soa_bound)*
        {
            const PRINTS_VALUES: bool =
                !<[&str]>::is_empty(&[$(::core::stringify!($debug_variant)),*]);

            #[allow(unreachable_patterns, unused_variables)]
            fn fmt_row(
                __ecs_column: &$column,
                __ecs_row: usize,
                __ecs_f: &mut ::core::fmt::Formatter<'_>,
            ) -> ::core::fmt::Result {
                match __ecs_column {
                    $($column::$debug_variant(__ecs_values) => {
                        <$debug_component as $crate::__private::DebugComponent<$w>>::fmt_value_at(
                            __ecs_values, __ecs_row, __ecs_f,
                        )
                    })*
                    _ => ::core::result::Result::Ok(()),
                }
            }

            #[inline]
            fn hash_column(__ecs_column: &$column, __ecs_hasher: &mut $crate::checksum::StableHasher) {
                match __ecs_column {
                    $($column::$variant(__ecs_values) => {
                        <$component as $crate::__private::HashComponent<$w>>::hash_values(
                            __ecs_values, __ecs_hasher,
                        )
                    })+
                }
            }

            #[inline]
            fn hash_row(
                __ecs_column: &$column,
                __ecs_row: usize,
                __ecs_hasher: &mut $crate::checksum::StableHasher,
            ) {
                match __ecs_column {
                    $($column::$variant(__ecs_values) => {
                        <$component as $crate::__private::HashComponent<$w>>::hash_value_at(
                            __ecs_values, __ecs_row, __ecs_hasher,
                        )
                    })+
                }
            }

            #[inline]
            #[allow(unused_variables)]
            fn hash_resources(
                __ecs_resources: &<Self as $crate::schema::Layout>::Resources,
                __ecs_hasher: &mut $crate::checksum::StableHasher,
            ) {
                $(<$resource as $crate::__private::HashResource<$w>>::hash_value(
                    &__ecs_resources.$field,
                    __ecs_hasher,
                );)*
            }

            #[allow(unused_variables, unused_mut)]
            fn hash_each_resource(
                __ecs_resources: &<Self as $crate::schema::Layout>::Resources,
                __ecs_hashers: &mut [$crate::checksum::StableHasher],
            ) {
                let mut __ecs_next = <[$crate::checksum::StableHasher]>::iter_mut(__ecs_hashers);
                $(if let ::core::option::Option::Some(__ecs_hasher) =
                    ::core::iter::Iterator::next(&mut __ecs_next)
                {
                    <$resource as $crate::__private::HashResource<$w>>::hash_value(
                        &__ecs_resources.$field,
                        __ecs_hasher,
                    );
                })*
            }
        }

        // Bounded on the impl above through a higher-ranked bound: a plain
        // `Game: CloneSchema<Game>` that does not hold would be an error
        // here, while this one only makes the impl not apply.
        #[automatically_derived]
        impl ::core::clone::Clone for $column
        where
            for<'a> $schema: $crate::__private::CloneSchema<$schema>,
            $($soa_bound)*
        {
            #[inline]
            fn clone(&self) -> Self {
                <$schema as $crate::__private::CloneSchema<$schema>>::clone_column(self)
            }

            #[inline]
            fn clone_from(&mut self, __ecs_source: &Self) {
                <$schema as $crate::__private::CloneSchema<$schema>>::clone_column_from(self, __ecs_source)
            }
        }
    };
}
