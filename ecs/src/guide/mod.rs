//! The guide: a tour of the API, one chapter per topic, every example a
//! test that runs.
//!
//! Read the chapters in order the first time; each builds on the ones
//! before it. The API pages of each module go into detail, and
//! [`Schema`](crate::schema::Schema) lists every `#[ecs(..)]` key.
//!
//! 1. [`schema`]: the schema struct, components, tags, resources and what
//!    the derive generates.
//! 2. [`entities`]: spawn, insert, remove, despawn; reading one entity;
//!    named bundles; moving an entity out with `take` and `exchange`.
//! 3. [`relations`]: relations between entities, such as a hierarchy.
//! 4. [`hooks`]: required components, and functions run when a component
//!    is added, written or taken.
//! 5. [`queries`]: queries on the world, prepared queries, the table form.
//! 6. [`systems`]: systems and the schedule that runs them.
//! 7. [`commands`]: changing the world from a system.
//! 8. [`parallel`]: parallel loops inside one system.
//! 9. [`events_and_changes`]: events and change detection.
//! 10. [`game_loop`]: run conditions, states and a fixed time step.
//! 11. [`sparse`]: components kept in sparse sets.
//! 12. [`soa`]: components stored field by field.
//! 13. [`snapshots_and_saves`]: exact copies, checksums, save and load.
//! 14. [`rollback`]: rollback netcode with GGRS.
//! 15. [`mistakes`]: which mistakes are compile errors, and at which step.
//!
//! Most chapters use one schema, `Physics`, declared here. Their examples
//! declare it again in lines hidden from this page, so that each example is a
//! whole program (the source of this module shows them):
//!
//! ```
//! use schemecs::prelude::*;
//!
//! #[derive(Clone, Copy, Debug, PartialEq)]
//! pub struct Pos(pub i64);
//! #[derive(Clone, Copy, Debug, PartialEq)]
//! pub struct Vel(pub i64);
//! /// Zero-sized: a tag. It takes a bit in the archetype and no storage.
//! #[derive(Debug, PartialEq)]
//! pub struct Frozen;
//! #[derive(Debug, PartialEq)]
//! pub struct Player;
//! #[derive(Debug, Default, PartialEq)]
//! pub struct Tick(pub u64);
//!
//! /// Every component of the world, and its resources (world-wide singletons).
//! #[derive(Schema)]
//! pub struct Physics {
//!     pos: Pos,
//!     vel: Vel,
//!     frozen: Frozen,
//!     player: Player,
//!     #[ecs(resource)]
//!     tick: Tick,
//! }
//!
//! let mut world = World::<Physics>::new();
//! let e = world.spawn((Pos(0), Vel(1)));
//! assert_eq!(world.archetype(e), Some(PhysicsMask::POS | PhysicsMask::VEL));
//! ```
//!
//! The examples of the repository (`cargo run --release --example NAME` in
//! a clone) show the same parts in longer programs: `physics`, `boids`,
//! `particles`, `reactions`, `game_loop`, `hierarchy`, `tables`, `soa`,
//! `rollback` (with `--features serde`) and `memory`.

pub mod commands;
pub mod entities;
pub mod events_and_changes;
pub mod game_loop;
pub mod hooks;
pub mod mistakes;
pub mod parallel;
pub mod queries;
pub mod relations;
pub mod rollback;
pub mod schema;
pub mod snapshots_and_saves;
pub mod soa;
pub mod sparse;
pub mod systems;
