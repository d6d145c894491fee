//! Relations between entities, declared in the schema: the traits a
//! relation value and its inverse list implement, and the one a schema's
//! derive gives each relation field.
//!
//! The world keeps the two sides in step (see `world_impl/lifecycle.rs`); this
//! module only says what each side is, and the rules: a relation declared
//! `on_target_despawn = despawn` has no cycle ([`Relation`]), and removing
//! an inverse list unlinks its sources ([`Inverse`]).

use crate::entity::Entity;
use crate::layout::{Component, Layout};

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
///
/// A relation declared `on_target_despawn = despawn` (a hierarchy: the
/// sources go with their target) forms trees. The world refuses a change
/// that would close a cycle in it, an entity pointing at itself included:
/// [`World::insert`](crate::world::World::insert) fails with
/// [`InsertError::Cycle`](crate::world::InsertError::Cycle), naming the relation
/// and both entities, and [`World::exchange`](crate::world::World::exchange) with
/// [`ExchangeError::Cycle`](crate::world::ExchangeError::Cycle); a spawn or a
/// command, which has no caller to fail, leaves that relation out (the
/// rest of its bundle goes in, and the entity keeps the relation it had,
/// if any), as it does for a target that is not alive. The check walks up
/// from the new target, one step per ancestor. A relation with the other
/// rule (`remove`) checks nothing and may form cycles; the walks along it,
/// [`World::ancestors`](crate::world::World::ancestors) and
/// [`World::descendants`](crate::world::World::descendants), stop at one.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::world::InsertError;
/// #[derive(Relation)] struct ChildOf(Entity);
/// #[derive(Inverse)] struct Children(Vec<Entity>);
/// #[derive(Schema)]
/// struct Scene {
///     #[ecs(relation(inverse = children, on_target_despawn = despawn))]
///     child_of: ChildOf,
///     children: Children,
/// }
///
/// let mut world = World::<Scene>::new();
/// let root = world.spawn(());
/// let arm = world.spawn((ChildOf(root),));
/// let error = world.insert(root, (ChildOf(arm),)).unwrap_err();
/// assert!(matches!(
///     error,
///     InsertError::Cycle(cycle) if cycle.source == root && cycle.target == arm
/// ));
/// assert!(!world.has::<ChildOf>(root));
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
/// [`World::sources`](crate::world::World::sources)). Changing it by hand, or
/// inserting it, would break the two sides apart: don't.
///
/// Removing the list (`remove`, `remove_bundle`, `exchange`, or a command)
/// removes the relation from each of its sources, whatever the relation's
/// despawn rule: they live on, no longer pointing at the entity (as
/// removing `Children` in bevy). The list removed holds those sources as
/// it did, in order; so does one that `take` or a despawn moves out.
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
///
/// // Removing the list unlinks its sources, which live on.
/// let list = world.remove::<Children>(root).unwrap().unwrap();
/// assert_eq!(list.sources(), [b]);
/// assert!(world.is_alive(b) && !world.has::<ChildOf>(b));
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
pub trait RelationOf<S: Layout>: Relation + Component<S> {
    /// The list of sources the world keeps on each target.
    type Inverse: Inverse + Component<S>;
    /// What despawning a target does to its sources.
    const ON_TARGET_DESPAWN: OnTargetDespawn;
}

/// What a [`Schema::visit_relation`](crate::schema::Schema::visit_relation) call is handed: code that works on one
/// relation, typed.
#[doc(hidden)]
pub trait RelationVisitor<S: Layout> {
    /// Works on relation `R`.
    fn visit<R: RelationOf<S>>(&mut self);
}
