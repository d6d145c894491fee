//! Lifecycle hooks: functions the schema names on a component's field
//! (`#[ecs(on_add = f, on_insert = g, on_remove = h)]`), run by the world
//! when that component is added to, written into or taken from an entity.

use crate::commands::Commands;
use crate::entity::Entity;
use crate::entity_ref::EntityRef;
use crate::schema::{Component, Resource, Schema};
use crate::world_impl::World;

/// Which change a hook runs on.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    /// The entity did not have the component and now has it.
    Add,
    /// The component was written: added, or overwritten by an insert or
    /// by an exchange that keeps it.
    Insert,
    /// The component is about to be taken: removed (an exchange that gives
    /// it back does not remove it), or the entity despawned.
    Remove,
}

/// What a hook sees: the world, to read, and commands, to change it. The
/// commands a hook records are applied once the structural change that ran
/// it is complete (with every hook it ran), before anything else happens;
/// hooks run in the order the changes are made, which is program order, so
/// their effects are the same on any number of threads.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::world::DeferredWorld;
/// #[derive(Debug, PartialEq)] struct Collider(u32);
/// #[derive(Debug, Default)] struct Registry(Vec<Entity>);
/// #[derive(Debug, PartialEq)] struct Registered;
///
/// fn register(world: &mut DeferredWorld<Game>, entity: Entity) {
///     // A hook reads freely and records what it changes.
///     assert!(world.get::<Collider>(entity).is_some());
///     world.commands().insert(entity, (Registered,));
/// }
///
/// #[derive(Schema)]
/// struct Game {
///     #[ecs(on_add = register)]
///     collider: Collider,
///     registered: Registered,
/// }
///
/// let mut world = World::<Game>::new();
/// let e = world.spawn((Collider(3),));
/// assert!(world.has::<Registered>(e));
/// ```
pub struct DeferredWorld<'w, S: Schema> {
    world: &'w World<S>,
    commands: Commands<'w, S>,
}

impl<'w, S: Schema> DeferredWorld<'w, S> {
    pub(crate) fn new(world: &'w World<S>, commands: Commands<'w, S>) -> Self {
        DeferredWorld { world, commands }
    }

    /// The world, as the change that ran the hook left it (for `on_remove`,
    /// the component is still there).
    pub fn world(&self) -> &'w World<S> {
        self.world
    }

    /// Records changes, applied after the hook; see [`DeferredWorld`].
    pub fn commands(&mut self) -> &mut Commands<'w, S> {
        &mut self.commands
    }

    /// Component `C` of `entity`, as [`World::get`].
    pub fn get<C: Component<S>>(&self, entity: Entity) -> Option<&'w C> {
        self.world.get(entity)
    }

    /// `entity`, as [`World::entity`].
    pub fn entity(&self, entity: Entity) -> Option<EntityRef<'w, S>> {
        self.world.entity(entity)
    }

    /// Resource `R`, as [`World::resource`].
    pub fn resource<R: Resource<S>>(&self) -> &'w R {
        self.world.resource()
    }
}
