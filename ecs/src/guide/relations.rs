//! Relations between entities, such as a hierarchy.
//!
//! A field marked `#[ecs(relation(inverse = ..))]` holds a target entity
//! (`#[derive(Relation)] struct ChildOf(Entity);`, see
//! [`Relation`](crate::relation::Relation)), and the world keeps the
//! target's list of sources in the field the relation names
//! (`#[derive(Inverse)] struct Children(Vec<Entity>);`, see
//! [`Inverse`](crate::relation::Inverse)), in the order the relations were
//! made. Inserting, replacing or removing the relation, or despawning either
//! side, through the world, commands or parallel systems, keeps both sides
//! in step.
//!
//! Despawning a target despawns its sources in turn
//! (`on_target_despawn = despawn`) or takes the relation off them (`remove`,
//! the default). Only the world writes the two: `&mut ChildOf` in a query,
//! `get_mut`, or an inverse list in a bundle are compile errors. Read them
//! with [`World::target`](crate::world::World::target),
//! [`World::sources`](crate::world::World::sources),
//! [`World::ancestors`](crate::world::World::ancestors) and
//! [`World::descendants`](crate::world::World::descendants) (depth first, in
//! list order; each entity once, even along a cycle).
//!
//! An insert naming a dead target fails and changes nothing; a spawn or
//! command naming one leaves that relation out (the entity keeps the one it
//! had, if any). A relation declared `despawn` forms trees: an insert that
//! would close a cycle in it (`ChildOf(itself)` included) fails with
//! [`InsertError::Cycle`](crate::world::InsertError::Cycle), naming both
//! entities, and a spawn or command leaves that relation out; a `remove`
//! relation may form cycles. Removing an inverse list returns it and takes
//! the relation off each of its sources, which live on. Relations and lists
//! are components like any other, so clones, checksums and saves carry them,
//! with entity ids kept exact (a save whose two sides disagree is refused).
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::world::InsertError;
//!
//! #[derive(Relation, Clone, Copy, Debug, PartialEq)] pub struct ChildOf(pub Entity);
//! #[derive(Inverse, Clone, Debug, PartialEq)] pub struct Children(pub Vec<Entity>);
//! #[derive(Debug, PartialEq)] pub struct Name(pub &'static str);
//!
//! #[derive(Schema)]
//! pub struct Scene {
//!     #[ecs(relation(inverse = children, on_target_despawn = despawn))]
//!     child_of: ChildOf,
//!     children: Children,
//!     name: Name,
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let mut world = World::<Scene>::new();
//!     let ship = world.spawn((Name("ship"),));
//!     let turret = world.spawn((Name("turret"), ChildOf(ship)));
//!     let barrel = world.spawn((Name("barrel"), ChildOf(turret)));
//!     let hull = world.spawn((Name("hull"), ChildOf(ship)));
//!
//!     assert_eq!(world.sources::<ChildOf>(ship), [turret, hull]);
//!     let below: Vec<Entity> = world.descendants::<ChildOf>(ship).collect();
//!     assert_eq!(below, [turret, barrel, hull]);
//!     let above: Vec<Entity> = world.ancestors::<ChildOf>(barrel).collect();
//!     assert_eq!(above, [turret, ship]);
//!
//!     // Move the turret to the hull: both lists follow.
//!     world.insert(turret, (ChildOf(hull),))?;
//!     assert_eq!(world.sources::<ChildOf>(ship), [hull]);
//!     // The ship under its own turret would close a cycle: refused.
//!     assert!(matches!(
//!         world.insert(ship, (ChildOf(barrel),)),
//!         Err(InsertError::Cycle(_))
//!     ));
//!
//!     // Despawning the ship despawns everything under it.
//!     world.despawn(ship)?;
//!     assert!(world.is_empty());
//!     Ok(())
//! }
//! ```
//!
//! `cargo run --release --example hierarchy` propagates transforms over a
//! scene tree of 10,921 nodes and despawns a branch with one call.
