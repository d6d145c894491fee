//! Entities: spawn, insert, remove, despawn; reading one entity; named
//! bundles, `take` and `exchange`.
//!
//! The examples use the guide's [`Physics`](super) schema.
//!
//! A bundle is a tuple of components (up to 12), or a struct of them (see
//! below). [`World::spawn`](crate::world::World::spawn) returns the new
//! entity's [`Entity`](crate::entity::Entity), and
//! [`World::spawn_batch`](crate::world::World::spawn_batch) spawns many at
//! once, much faster than one at a time. Inserting a component the entity
//! lacks moves it to the table of its new archetype; inserting one it has
//! overwrites it. Every operation on a dead entity is an
//! `Err(NoSuchEntity)` and changes nothing; handles are generational, so a
//! stale one never reaches a reused slot.
//!
//! ```
//! use schemecs::prelude::*;
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Pos(pub i64);
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Vel(pub i64);
//! # #[derive(Debug, PartialEq)] pub struct Frozen;
//! # #[derive(Debug, PartialEq)] pub struct Player;
//! # #[derive(Debug, Default, PartialEq)] pub struct Tick(pub u64);
//! # #[derive(Schema)]
//! # pub struct Physics {
//! #     pos: Pos,
//! #     vel: Vel,
//! #     frozen: Frozen,
//! #     player: Player,
//! #     #[ecs(resource)]
//! #     tick: Tick,
//! # }
//! #
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let mut world = World::<Physics>::new();
//!     let a = world.spawn((Pos(1), Vel(6)));
//!     let many: Vec<Entity> = world.spawn_batch((0..100).map(|i| (Pos(i),))).collect();
//!
//!     world.insert(a, (Frozen,))?;                        // a moves to [Pos, Vel, Frozen]
//!     assert_eq!(world.remove::<Vel>(a)?, Some(Vel(6)));  // and to [Pos, Frozen]
//!     assert_eq!(world.remove::<Vel>(a)?, None);          // absent: nothing to remove
//!
//!     world.despawn(many[0])?;
//!     assert_eq!(world.despawn(many[0]), Err(NoSuchEntity(many[0])));
//!     assert!(!world.is_alive(many[0]));
//!     assert_eq!(world.len(), 100);
//!     Ok(())
//! }
//! ```
//!
//! # Reading one entity
//!
//! [`World::get`](crate::world::World::get) returns `None` for an entity
//! that is dead or lacks the component, and never panics;
//! [`World::entity`](crate::world::World::entity) looks the entity up once
//! for several reads.
//!
//! ```
//! use schemecs::prelude::*;
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Pos(pub i64);
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Vel(pub i64);
//! # #[derive(Debug, PartialEq)] pub struct Frozen;
//! # #[derive(Debug, PartialEq)] pub struct Player;
//! # #[derive(Debug, Default, PartialEq)] pub struct Tick(pub u64);
//! # #[derive(Schema)]
//! # pub struct Physics {
//! #     pos: Pos,
//! #     vel: Vel,
//! #     frozen: Frozen,
//! #     player: Player,
//! #     #[ecs(resource)]
//! #     tick: Tick,
//! # }
//! #
//! let mut world = World::<Physics>::new();
//! let e = world.spawn((Pos(1), Frozen));
//!
//! assert_eq!(world.get::<Pos>(e), Some(&Pos(1))); // None if dead or absent
//! world.get_mut::<Pos>(e).unwrap().0 += 1;
//!
//! // One lookup, then several reads.
//! let entity = world.entity(e).unwrap();
//! assert!(entity.has::<Frozen>() && entity.get::<Vel>().is_none());
//! assert_eq!(entity.archetype(), PhysicsMask::POS | PhysicsMask::FROZEN);
//! ```
//!
//! # Named bundles; moving entities out: take, exchange
//!
//! A struct with `#[derive(Bundle)]` is a bundle wherever a tuple is
//! (`spawn`, `spawn_batch`, `insert`, `remove_bundle`, commands). Its fields
//! are components; a field marked `#[bundle]` is itself a bundle, so bundles
//! nest. It names no schema: it is a bundle of every schema that has its
//! components, and naming one component twice, nested ones included, fails
//! to compile (see [`Bundle`](crate::bundle::Bundle)).
//!
//! [`World::take`](crate::world::World::take) moves an entity out of the
//! world: it returns the components as `B` and despawns the entity, but only
//! when the entity has exactly `B`'s components, so nothing is lost
//! (otherwise it changes nothing and the error names the difference).
//! [`World::exchange`](crate::world::World::exchange) removes `R` and
//! inserts a bundle in one move, straight to the entity's new table, and
//! returns the removed `R`; if the entity lacks part of `R`, nothing changes
//! and the error hands the bundle back.
//!
//! ```
//! use schemecs::prelude::*;
//!
//! #[derive(Debug, PartialEq)] pub struct Body(pub u32);
//! #[derive(Debug, PartialEq)] pub struct Transform(pub i32, pub i32);
//! #[derive(Debug, PartialEq)] pub struct Velocity(pub i32, pub i32);
//! #[derive(Debug, PartialEq)] pub struct Docked;
//!
//! #[derive(Schema)]
//! pub struct Space { body: Body, transform: Transform, velocity: Velocity, docked: Docked }
//!
//! #[derive(Bundle, Debug, PartialEq)]
//! pub struct Motion { transform: Transform, velocity: Velocity }
//!
//! #[derive(Bundle, Debug, PartialEq)]
//! pub struct ShipBundle {
//!     body: Body,
//!     #[bundle]
//!     motion: Motion,
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let (mut here, mut there) = (World::<Space>::new(), World::<Space>::new());
//!     let ship = here.spawn(ShipBundle {
//!         body: Body(40),
//!         motion: Motion { transform: Transform(0, 0), velocity: Velocity(1, 0) },
//!     });
//!
//!     // Move the ship to the other world, whole.
//!     let parts: ShipBundle = here.take(ship)?;
//!     let ship = there.spawn(parts);
//!     assert!(here.is_empty());
//!
//!     // Dock: stop moving and hold still, in one migration.
//!     let motion: Motion = there.exchange(ship, (Docked,))?;
//!     assert_eq!(motion.velocity, Velocity(1, 0));
//!     assert_eq!(there.archetype(ship), Some(SpaceMask::BODY | SpaceMask::DOCKED));
//!
//!     // Docked ships have no Motion to give: nothing changes, the bundle comes back.
//!     let refused = there.exchange::<Motion, _>(ship, (Velocity(0, 1),)).unwrap_err();
//!     assert_eq!(refused.into_bundle(), (Velocity(0, 1),));
//!     Ok(())
//! }
//! ```
