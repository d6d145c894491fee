//! The bounds behind `World: Clone` and `World::checksum`, checked one
//! component and one resource at a time, so that a schema with a type
//! lacking the trait is told which type, in which schema, and what to do.
//!
//! A world is `Clone` when its schema is [`CloneSchema`]: `#[derive(Schema)]`
//! implements it for each schema, bounded by [`CloneComponent`] for every
//! component and [`CloneResource`] for every resource, and it clones the
//! columns and the resources. Those two traits have a blanket impl for every
//! `Clone` type, marked `do_not_recommend`, so when one type is not `Clone`
//! the compiler reports the bound on that type, with the message below,
//! rather than a bound on the hidden column type. The same goes for
//! [`HashSchema`] and `World::checksum`.
//!
//! The schema's impls take a type parameter (`impl<W> CloneSchema<W> for
//! Game where Pos: CloneComponent<W>`), always the schema itself where used:
//! a bound on a concrete type that does not hold would be an error where the
//! impl is written, while one that names a parameter only makes the impl not
//! apply, so a schema with a component that is not `Clone` still compiles.

use crate::checksum::{StableHash, StableHasher};
use crate::schema::Schema;

/// A component type of schema `S`, as far as cloning a world is concerned:
/// every `Clone` type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` cannot be cloned: its component `{Self}` is not `Clone`",
    label = "`{Self}` is not `Clone`",
    note = "derive or implement `Clone` for `{Self}`: a world is `Clone` when every component \
            and resource of its schema is"
)]
pub trait CloneComponent<S>: Sized {
    /// `values.to_vec()`.
    fn clone_values(values: &[Self]) -> Vec<Self>;
    /// `target.clone_from(source)` for a vector `source`: keeps `target`'s
    /// allocation, and copies a `Copy` type's values as one block.
    fn clone_values_from(target: &mut Vec<Self>, source: &[Self]);
}

#[diagnostic::do_not_recommend]
impl<T: Clone, S> CloneComponent<S> for T {
    #[inline]
    fn clone_values(values: &[T]) -> Vec<T> {
        values.to_vec()
    }

    #[inline]
    fn clone_values_from(target: &mut Vec<T>, source: &[T]) {
        source.clone_into(target);
    }
}

/// A resource type of schema `S`, as far as cloning a world is concerned:
/// every `Clone` type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` cannot be cloned: its resource `{Self}` is not `Clone`",
    label = "`{Self}` is not `Clone`",
    note = "derive or implement `Clone` for `{Self}`: a world is `Clone` when every component \
            and resource of its schema is"
)]
pub trait CloneResource<S>: Sized {
    /// `value.clone()`.
    fn clone_value(value: &Self) -> Self;
    /// `target.clone_from(source)`.
    fn clone_value_from(target: &mut Self, source: &Self);
}

#[diagnostic::do_not_recommend]
impl<T: Clone, S> CloneResource<S> for T {
    #[inline]
    fn clone_value(value: &T) -> T {
        value.clone()
    }

    #[inline]
    fn clone_value_from(target: &mut T, source: &T) {
        target.clone_from(source);
    }
}

/// A schema whose components and resources are all `Clone`, with the
/// cloning of its columns. `#[derive(Schema)]` implements it; `W` is the
/// schema itself wherever it is used (see the module documentation).
#[doc(hidden)]
pub trait CloneSchema<W>: Schema {
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
    note = "add `#[derive(ecs::StableHash)]` to `{Self}`, or implement `ecs::StableHash` for \
            it: a world has a checksum when every component and resource of its schema is \
            `StableHash`"
)]
pub trait HashComponent<S>: Sized {
    /// Writes `values` into `hasher`, as the slice's `StableHash` does.
    fn hash_values(values: &[Self], hasher: &mut StableHasher);
}

#[diagnostic::do_not_recommend]
impl<T: StableHash, S> HashComponent<S> for T {
    #[inline]
    fn hash_values(values: &[T], hasher: &mut StableHasher) {
        values.stable_hash(hasher);
    }
}

/// A resource type of schema `S`, as far as a world's checksum is
/// concerned: every [`StableHash`] type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`World<{S}>` has no checksum: its resource `{Self}` is not `StableHash`",
    label = "`{Self}` is not `StableHash`",
    note = "add `#[derive(ecs::StableHash)]` to `{Self}`, or implement `ecs::StableHash` for \
            it: a world has a checksum when every component and resource of its schema is \
            `StableHash`"
)]
pub trait HashResource<S> {
    /// Writes `value` into `hasher`.
    fn hash_value(value: &Self, hasher: &mut StableHasher);
}

#[diagnostic::do_not_recommend]
impl<T: StableHash, S> HashResource<S> for T {
    #[inline]
    fn hash_value(value: &T, hasher: &mut StableHasher) {
        value.stable_hash(hasher);
    }
}

/// A schema whose components and resources are all [`StableHash`], with the
/// hashing of its columns. `#[derive(Schema)]` implements it; `W` is the
/// schema itself wherever it is used.
#[doc(hidden)]
pub trait HashSchema<W>: Schema {
    /// Writes the values of `column` into `hasher`.
    fn hash_column(column: &Self::Column, hasher: &mut StableHasher);
    /// Writes every resource into `hasher`, in field order.
    fn hash_resources(resources: &Self::Resources, hasher: &mut StableHasher);
}

/// `impl CloneSchema<W>` and `impl HashSchema<W>` for a schema, and `Clone`
/// for its column enum, from the names `#[derive(Schema)]` passes: each
/// component's variant and type, each resource's field and type, in order.
/// Written here rather than in the derive so that the compiler, when a bound
/// fails, does not suggest replacing a derived impl by hand; the types keep
/// the spans of the user's fields, so its notes point at them.
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_snapshot_impls {
    (
        schema: $schema:ident,
        column: $column:ident,
        resources: $resources:ident,
        components: [$($variant:ident: $component:ty),+ $(,)?],
        resource_fields: [$($field:ident: $resource:ty),* $(,)?] $(,)?
    ) => {
        #[automatically_derived]
        #[allow(unreachable_patterns)]
        impl<__W> $crate::__private::CloneSchema<__W> for $schema
        where
            $($component: $crate::__private::CloneComponent<__W>,)+
            $($resource: $crate::__private::CloneResource<__W>,)*
        {
            #[inline]
            fn clone_column(column: &$column) -> $column {
                match column {
                    $($column::$variant(values) => $column::$variant(
                        <$component as $crate::__private::CloneComponent<__W>>::clone_values(values),
                    ),)+
                }
            }

            #[inline]
            fn clone_column_from(target: &mut $column, source: &$column) {
                match (target, source) {
                    $(($column::$variant(to), $column::$variant(from)) => {
                        <$component as $crate::__private::CloneComponent<__W>>::clone_values_from(
                            to, from,
                        )
                    })+
                    (target, source) => {
                        *target = <Self as $crate::__private::CloneSchema<__W>>::clone_column(source)
                    }
                }
            }

            #[inline]
            fn clone_resources(
                resources: &<Self as $crate::Schema>::Resources,
            ) -> <Self as $crate::Schema>::Resources {
                $resources {
                    $($field: <$resource as $crate::__private::CloneResource<__W>>::clone_value(
                        &resources.$field,
                    ),)*
                }
            }

            #[inline]
            #[allow(unused_variables)]
            fn clone_resources_from(
                target: &mut <Self as $crate::Schema>::Resources,
                source: &<Self as $crate::Schema>::Resources,
            ) {
                $(<$resource as $crate::__private::CloneResource<__W>>::clone_value_from(
                    &mut target.$field,
                    &source.$field,
                );)*
            }
        }

        #[automatically_derived]
        impl<__W> $crate::__private::HashSchema<__W> for $schema
        where
            $($component: $crate::__private::HashComponent<__W>,)+
            $($resource: $crate::__private::HashResource<__W>,)*
        {
            #[inline]
            fn hash_column(column: &$column, hasher: &mut $crate::StableHasher) {
                match column {
                    $($column::$variant(values) => {
                        <$component as $crate::__private::HashComponent<__W>>::hash_values(
                            values, hasher,
                        )
                    })+
                }
            }

            #[inline]
            #[allow(unused_variables)]
            fn hash_resources(
                resources: &<Self as $crate::Schema>::Resources,
                hasher: &mut $crate::StableHasher,
            ) {
                $(<$resource as $crate::__private::HashResource<__W>>::hash_value(
                    &resources.$field,
                    hasher,
                );)*
            }
        }

        // Bounded on the impl above through a higher-ranked bound: a plain
        // `Game: CloneSchema<Game>` that does not hold would be an error
        // here, while this one only makes the impl not apply.
        #[automatically_derived]
        impl ::core::clone::Clone for $column
        where
            for<'a> $schema: $crate::__private::CloneSchema<$schema>,
        {
            #[inline]
            fn clone(&self) -> Self {
                <$schema as $crate::__private::CloneSchema<$schema>>::clone_column(self)
            }

            #[inline]
            fn clone_from(&mut self, source: &Self) {
                <$schema as $crate::__private::CloneSchema<$schema>>::clone_column_from(self, source)
            }
        }
    };
}
