//! Relations between entities, declared in the schema: the traits a
//! relation value and its inverse list implement, and the one a schema's
//! derive gives each relation field.
//!
//! The world keeps the two sides in step (see `world/lifecycle.rs`); this
//! module only says what each side is.

use crate::entity::Entity;
use crate::schema::{Component, Schema};

/// A component that points at one other entity, its target: a child's
/// `ChildOf(parent)`, a turret's `MountedOn(ship)`. Derive it on a struct with
/// a single `Entity` field, then mark its field in the schema
/// `#[ecs(relation(inverse = ..))]`; the world then keeps the target's list
/// of sources (the inverse) for it.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Relation, Debug, PartialEq)] struct ChildOf(Entity);
///
/// let parent = Entity::from_bits(1 << 32).unwrap();
/// assert_eq!(ChildOf::to(parent).target(), parent);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` holds no target entity, so it cannot be a relation",
    label = "not a relation",
    note = "a relation is a struct with one `Entity` field that derives `Relation`: \
            `#[derive(Relation)] struct {Self}(Entity);`"
)]
pub trait Relation: Sized + 'static {
    /// The entity this value points at.
    fn target(&self) -> Entity;
    /// A value pointing at `target`.
    fn to(target: Entity) -> Self;
}

/// The inverse of a relation: the list of entities whose relation points at
/// this one (a parent's `Children`), kept by the world in the order the
/// relations were made. Derive it on a struct with a single `Vec<Entity>`
/// field, and name its field as the relation's `inverse`.
///
/// The world writes the list; code reads it (`sources`, or
/// [`World::sources`](crate::World::sources)). Changing it by hand, or
/// inserting it, would break the two sides apart: don't.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Relation)] struct ChildOf(Entity);
/// #[derive(Inverse, Debug)] struct Children(Vec<Entity>);
/// struct Name(&'static str);
///
/// #[derive(Schema)]
/// struct Scene {
///     #[ecs(relation(inverse = children))]
///     child_of: ChildOf,
///     children: Children,
///     name: Name,
/// }
///
/// let mut world = World::<Scene>::new();
/// let root = world.spawn((Name("root"),));
/// let a = world.spawn((Name("a"), ChildOf(root)));
/// let b = world.spawn((Name("b"), ChildOf(root)));
/// assert_eq!(world.get::<Children>(root).unwrap().sources(), [a, b]);
/// world.despawn(a).unwrap();
/// assert_eq!(world.sources::<ChildOf>(root), [b]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of entities, so it cannot be the inverse of a relation",
    label = "not an inverse",
    note = "an inverse is a struct with one `Vec<Entity>` field that derives `Inverse`: \
            `#[derive(Inverse)] struct {Self}(Vec<Entity>);`"
)]
pub trait Inverse: Sized + 'static {
    /// The sources, in the order their relations were made.
    fn sources(&self) -> &[Entity];
    /// A list of `sources`.
    #[doc(hidden)]
    fn from_sources(sources: Vec<Entity>) -> Self;
    /// The list, for the world to keep.
    #[doc(hidden)]
    fn sources_mut(&mut self) -> &mut Vec<Entity>;
}

/// What despawning a relation's target does to the entities that point at it
/// (`#[ecs(relation(inverse = .., on_target_despawn = ..))]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnTargetDespawn {
    /// The sources lose the relation and live on (`remove`, the default).
    Remove,
    /// The sources are despawned too, and theirs in turn (`despawn`).
    Despawn,
}

/// A relation field of schema `S`: its inverse and its despawn rule.
/// Implemented by `#[derive(Schema)]` for each field marked
/// `#[ecs(relation(..))]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a relation of schema `{S}`",
    label = "not a relation of `{S}`",
    note = "mark its field in `{S}` `#[ecs(relation(inverse = <field of the list>))]`"
)]
pub trait RelationOf<S: Schema>: Relation + Component<S> {
    /// The list of sources the world keeps on each target.
    type Inverse: Inverse + Component<S>;
    /// What despawning a target does to its sources.
    const ON_TARGET_DESPAWN: OnTargetDespawn;
}

/// What a [`Schema::visit_relation`] call is handed: code that works on one
/// relation, typed.
#[doc(hidden)]
pub trait RelationVisitor<S: Schema> {
    /// Works on relation `R`.
    fn visit<R: RelationOf<S>>(&mut self);
}
