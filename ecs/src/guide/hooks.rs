//! Required components and hooks.
//!
//! `#[ecs(requires(Transform, Velocity = Velocity::still))]` on a field: a
//! spawn or insert of that component adds what it requires when the entity
//! lacks it (by `Default`, or the named function), transitively, in the same
//! migration. A requirement outside the schema, one without `Default` or a
//! function, or a cycle of requirements, is a compile error.
//!
//! `#[ecs(on_add = f, on_insert = g, on_remove = h)]` on a field runs
//! `fn(&mut DeferredWorld<S>, Entity)` (see
//! [`DeferredWorld`](crate::world::DeferredWorld)) when the component is
//! added (it was absent), written by an insert (added or overwritten), or
//! taken (removed, or the entity despawned; the value is still there to
//! read). A component an insert or an exchange writes over was never absent:
//! only its `on_insert` runs, and a tracked one is changed, not added or
//! removed. A hook reads the world and records commands; they are applied
//! once the change that ran it is complete, before the next change. Hooks
//! run in the order the changes are made, which is program order, for
//! commands from parallel systems too, so their effects are the same on any
//! number of threads.
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::world::DeferredWorld;
//!
//! #[derive(Debug, Default, PartialEq)] pub struct Transform(pub i32);
//! #[derive(Debug, PartialEq)] pub struct Velocity(pub i32);
//! impl Velocity {
//!     pub fn still() -> Self { Velocity(0) }
//! }
//! #[derive(Debug, Default)] pub struct Body;
//! #[derive(Debug)] pub struct Collider(pub u32);
//! #[derive(Debug)] pub struct InGrid;
//!
//! fn enter_grid(world: &mut DeferredWorld<Bodies>, entity: Entity) {
//!     if world.get::<Collider>(entity).is_some_and(|c| c.0 > 0) {
//!         world.commands().insert(entity, (InGrid,));
//!     }
//! }
//!
//! fn leave_grid(world: &mut DeferredWorld<Bodies>, entity: Entity) {
//!     world.commands().remove::<InGrid>(entity);
//! }
//!
//! #[derive(Schema)]
//! pub struct Bodies {
//!     transform: Transform,
//!     velocity: Velocity,
//!     #[ecs(requires(Transform, Velocity = Velocity::still))]
//!     body: Body,
//!     #[ecs(requires(Body), on_add = enter_grid, on_remove = leave_grid)]
//!     collider: Collider,
//!     in_grid: InGrid,
//! }
//!
//! fn main() -> Result<(), NoSuchEntity> {
//!     let mut world = World::<Bodies>::new();
//!     let rock = world.spawn((Collider(2), Transform(5)));
//!     // Collider requires Body, which requires Transform and Velocity.
//!     assert_eq!(world.get::<Velocity>(rock), Some(&Velocity(0)));
//!     assert_eq!(world.get::<Transform>(rock), Some(&Transform(5)));
//!     assert!(world.has::<InGrid>(rock));
//!     world.remove::<Collider>(rock)?;
//!     assert!(!world.has::<InGrid>(rock) && world.has::<Body>(rock));
//!     Ok(())
//! }
//! ```
//!
//! A schema that declares no relation, requirement or hook pays nothing for
//! them: every structural change tests the bits it touches against a
//! constant of the schema and takes the plain path when none is set.
