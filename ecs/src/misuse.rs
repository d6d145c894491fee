//! Misuse: types that look like components or resources in the user's code
//! but are not, each failing with a message that names the real mistake.
//!
//! A resource used as a component, a tuple of components where one is
//! expected (`world.get::<(Pos, Vel)>(e)`, a nested bundle) and `&Entity` as
//! a query item all reach the blanket `Component` impl below, whose bounds
//! no type satisfies, and fail on the bound that says what went wrong. The
//! bare trait would only say "not a component: add a field", advice that
//! would break the schema. The blanket impl's self type is a type parameter
//! and its first bound is behind an impl the compiler does not recommend, so
//! a type the schema does not know at all is still reported as before.
//!
//! A component used as a resource (`ResMut<Pos>`) is the derive's: it emits
//! `impl Resource<Physics> for Pos` bounded by [`ComponentIsNotAResource`];
//! likewise a state (`Res<Phase>`), bounded by [`StateIsNotAResource`],
//! whose message names `State<Phase>` and `NextState<Phase>`.
//! The impls never apply; their bodies are never run.

use crate::layout::{Component, Layout};

/// Types that schema `S` knows not to be components although they may be
/// used as one, and why ([`Misuse`]): a blanket impl over
/// [`NotAComponent`], kept out of the compiler's lists of candidates, so
/// that a type the schema does not know at all is reported with the
/// components it could have meant.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component of schema `{S}`",
    label = "not a component of `{S}`",
    note = "the components of `{S}` are the fields of its `#[derive(Schema)]` struct \
            (fields marked `#[ecs(resource)]` are resources, not components); \
            add a field of type `{Self}` to use it here"
)]
pub trait KnownToSchema<S> {
    /// [`IsAResource`], [`IsATuple`] or [`IsAnEntity`].
    type NotAComponentBecause;
}

#[diagnostic::do_not_recommend]
impl<S, T: NotAComponent<S>> KnownToSchema<S> for T {
    type NotAComponentBecause = T::Because;
}

/// See [`KnownToSchema`]; `#[derive(Schema)]` implements it for each
/// resource.
#[doc(hidden)]
pub trait NotAComponent<S> {
    /// [`IsAResource`], [`IsATuple`] or [`IsAnEntity`].
    type Because;
}

/// The self type of the misuse bounds: nothing implements them for it.
#[doc(hidden)]
pub struct Misuse;

/// [`NotAComponent::Because`] of a resource.
#[doc(hidden)]
pub struct IsAResource;
/// [`NotAComponent::Because`] of a tuple of components.
#[doc(hidden)]
pub struct IsATuple;
/// [`NotAComponent::Because`] of [`Entity`](crate::entity::Entity).
#[doc(hidden)]
pub struct IsAnEntity;

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a resource of schema `{S}`, not a component",
    label = "a resource, not a component",
    note = "no entity holds `{T}`; read it with `world.resource::<{T}>()` or \
            `world.resource_mut::<{T}>()`, or in a system with `Res<{T}>` or `ResMut<{T}>`"
)]
pub trait ResourceIsNotAComponent<S, T> {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a tuple, not a component of schema `{S}`",
    label = "one component type here",
    note = "`get`, `get_mut`, `has` and `remove` take one component: call them once per \
            component, or read several of one entity with `world.entity(e)` or a query \
            (`world.query::<(&A, &B)>().get(e)`)",
    note = "tuples do not nest: list every component in one tuple, or gather them in a \
            struct with `#[derive(Bundle)]`, where a field marked `#[bundle]` may be a bundle"
)]
pub trait TupleIsNotAComponent<S, T> {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`Entity` is not a component of schema `{S}`",
    label = "`Entity` is an id, not a component",
    note = "a query yields each entity's id through the item `Entity`, by value: \
            `Query<(Entity, &Pos)>`, not `&Entity`",
    note = "to keep an entity in a component, wrap it: `struct Target(Entity);`"
)]
pub trait EntityIsNotAComponent<S> {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a component of schema `{S}`, not a resource",
    label = "a component, not a resource",
    note = "each entity has its own `{T}`: read it with a query (`Query<&{T}>` in a system, \
            `world.query::<&{T}>()`) or with `world.get::<{T}>(entity)`"
)]
pub trait ComponentIsNotAResource<S, T> {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a state of schema `{S}`, not a resource",
    label = "a state of `{S}`, kept in the resource `State<{T}>`",
    note = "the world keeps state `{T}` in the resource `State<{T}>`: read it with \
            `Res<State<{T}>>` in a system (or `world.state::<{T}>()`), and request a change \
            with the system parameter `NextState<{T}>` (or `world.set_next_state(..)`), which \
            the next run of a schedule that applies `{T}`'s transitions carries out"
)]
pub trait StateIsNotAResource<S, T> {}

// Each reason satisfies the bounds of the other reasons, so that only its
// own fails.
#[diagnostic::do_not_recommend]
impl<S, T> TupleIsNotAComponent<S, T> for IsAResource {}
#[diagnostic::do_not_recommend]
impl<S> EntityIsNotAComponent<S> for IsAResource {}
#[diagnostic::do_not_recommend]
impl<S, T> ResourceIsNotAComponent<S, T> for IsATuple {}
#[diagnostic::do_not_recommend]
impl<S> EntityIsNotAComponent<S> for IsATuple {}
#[diagnostic::do_not_recommend]
impl<S, T> ResourceIsNotAComponent<S, T> for IsAnEntity {}
#[diagnostic::do_not_recommend]
impl<S, T> TupleIsNotAComponent<S, T> for IsAnEntity {}

/// Never applies: see the module documentation.
impl<S: Layout, T: KnownToSchema<S> + 'static> Component<S> for T
where
    T::NotAComponentBecause:
        ResourceIsNotAComponent<S, T> + TupleIsNotAComponent<S, T> + EntityIsNotAComponent<S>,
{
    const BIT: u32 = u32::MAX;
    type Values = Vec<Self>;

    fn values(_: &S::Column) -> &Vec<Self> {
        unreachable!("a misuse impl never applies")
    }

    fn values_mut(_: &mut S::Column) -> &mut Vec<Self> {
        unreachable!("a misuse impl never applies")
    }

    fn column(_: &S::Column) -> &Vec<Self> {
        unreachable!("a misuse impl never applies")
    }

    fn column_mut(_: &mut S::Column) -> &mut Vec<Self> {
        unreachable!("a misuse impl never applies")
    }

    fn values_and_changed(_: &mut S::Column, _: u32) -> (&mut [Self], &mut [u32]) {
        unreachable!("a misuse impl never applies")
    }
}

impl<S: Layout> NotAComponent<S> for crate::entity::Entity {
    type Because = IsAnEntity;
}

macro_rules! tuple_is_not_a_component {
    ($($c:ident),+) => {
        impl<S: Layout, $($c: Component<S>),+> NotAComponent<S> for ($($c,)+) {
            type Because = IsATuple;
        }
    };
}

tuple_is_not_a_component!(A);
tuple_is_not_a_component!(A, B);
tuple_is_not_a_component!(A, B, C);
tuple_is_not_a_component!(A, B, C, D);
tuple_is_not_a_component!(A, B, C, D, E);
tuple_is_not_a_component!(A, B, C, D, E, F);
tuple_is_not_a_component!(A, B, C, D, E, F, G);
tuple_is_not_a_component!(A, B, C, D, E, F, G, H);
tuple_is_not_a_component!(A, B, C, D, E, F, G, H, I);
tuple_is_not_a_component!(A, B, C, D, E, F, G, H, I, J);
tuple_is_not_a_component!(A, B, C, D, E, F, G, H, I, J, K);
tuple_is_not_a_component!(A, B, C, D, E, F, G, H, I, J, K, L);

/// A field marked `#[ecs(relation(..))]`: its type must be a [`Relation`].
/// The derive asks for this rather than for `Relation` itself, so that the
/// error names the schema.
///
/// [`Relation`]: crate::relation::Relation
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is marked a relation in schema `{S}`, but it holds no target entity",
    label = "not a relation",
    note = "a relation is a struct with one `Entity` field that derives `Relation`: \
            `#[derive(Relation)] struct {Self}(Entity);`; or remove `relation(..)` from its field"
)]
pub trait RelationField<S: crate::layout::Layout> {
    /// The target.
    fn relation_target(&self) -> crate::entity::Entity;
    /// Hands `visitor` this relation.
    fn visit<V: crate::relations::RelationVisitor<S>>(visitor: &mut V);
}

#[diagnostic::do_not_recommend]
impl<S: crate::layout::Layout, T: crate::relations::RelationOf<S>> RelationField<S> for T {
    #[inline(always)]
    fn relation_target(&self) -> crate::entity::Entity {
        self.target()
    }

    #[inline(always)]
    fn visit<V: crate::relations::RelationVisitor<S>>(visitor: &mut V) {
        visitor.visit::<T>();
    }
}

/// A component named in a `requires(..)` without a function to make it: it
/// is made with `Default`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is required by a component of schema `{S}`, but it has no `Default` \
               to make it with",
    label = "no `Default` for `{Self}`",
    note = "derive or implement `Default` for `{Self}`, or name a function that makes one: \
            `requires({Self} = make_it)` with `fn make_it() -> {Self}`"
)]
pub trait RequiredDefault<S>: Sized {
    /// The value a requirement adds.
    fn required() -> Self;
}

#[diagnostic::do_not_recommend]
impl<S, T: Default> RequiredDefault<S> for T {
    #[inline]
    fn required() -> Self {
        T::default()
    }
}
