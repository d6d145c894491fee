//! Snapshots, checksums, save and load.
//!
//! `world.clone()` is exact: the same entities, generations, free slots and
//! row order, so the next `spawn` returns the same id and every query
//! iterates in the same order as in the original.
//! [`World::clone_from`](crate::world::World::clone_from) reuses the
//! target's memory (a ring of snapshots for rollback).
//! [`World::checksum`](crate::world::World::checksum) is a stable 128-bit
//! digest for desync detection (the `u128` GGRS takes with each saved
//! frame): XXH3-128 of the world's bytes, little-endian on every platform;
//! components give their bits through
//! [`StableHash`](crate::checksum::StableHash), which
//! `#[derive(StableHash)]` writes field by field.
//!
//! What systems keep from run to run (`Local<T>`) is part of the world too:
//! a world rolled back or copied, and run by the same schedule or a new one
//! with the same systems, goes on exactly as the original did. A world knows
//! a schedule by its label
//! ([`Schedule::label`](crate::schedule::Schedule::label)) and its systems'
//! names, so two live schedules of the same systems that take turns on one
//! world would share that state: that is refused with a panic that says
//! where each was made (label one of them).
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::checksum::{StableHash, StableHasher};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! pub struct Pos(pub f32);
//!
//! impl StableHash for Pos {
//!     fn stable_hash(&self, hasher: &mut StableHasher) {
//!         self.0.stable_hash(hasher); // floats by their bits
//!     }
//! }
//!
//! #[derive(Schema)]
//! pub struct Game { pos: Pos }
//!
//! let mut world = World::<Game>::new();
//! let e = world.spawn((Pos(1.0),));
//! let mut snapshot = world.clone();
//! let before = world.checksum();
//!
//! world.get_mut::<Pos>(e).unwrap().0 += 0.5;
//! assert_ne!(world.checksum(), before);
//!
//! world.clone_from(&snapshot); // roll back
//! assert_eq!(world.checksum(), before);
//! assert_eq!(world.spawn((Pos(0.0),)), snapshot.spawn((Pos(0.0),)));
//! ```
//!
//! # Save and load
//!
//! With the `serde` feature, `World<S>` is `Serialize` and `Deserialize`
//! when its components and resources are: the save holds every entity,
//! generation, free slot, row and resource, with a header naming the schema,
//! and loading a save of another schema or a damaged one is an error, never
//! a panic. A save writes the value of a `SavedLocal<T>` (a `Local` whose
//! `T` is also serde), not of a plain `Local`: saving a world that holds a
//! plain `Local`'s value is an error naming the system.
//!
//! ```
//! use schemecs::prelude::*;
//! use serde::de::DeserializeOwned;
//! use serde::Serialize;
//!
//! /// Writes any world to JSON.
//! pub fn save<S: Schema>(world: &World<S>) -> serde_json::Result<String>
//! where
//!     World<S>: Serialize,
//! {
//!     serde_json::to_string(world)
//! }
//!
//! /// Reads it back, exactly.
//! pub fn load<S: Schema>(json: &str) -> serde_json::Result<World<S>>
//! where
//!     World<S>: DeserializeOwned,
//! {
//!     serde_json::from_str(json)
//! }
//! # fn main() {}
//! ```
//!
//! A world's own `Serialize` writes the *compact* form: positional, the
//! fastest to write and read, and the one for binary formats (postcard,
//! bincode). [`World::readable`](crate::world::World::readable) writes the
//! *readable* form, for a person to read, diff in review or patch: an
//! object keyed by the schema's field names, one entry per table with its
//! components by name, its entities as ids (`"3v1"`: index, `v`,
//! generation) and a column of values per component, the resources by field
//! name and the sparse sets by component. Both load through the same
//! `Deserialize` (and [`World::load`](crate::world::World::load)) with the
//! same checks; an entity id whose generation is not its slot's is refused
//! too. Keys may come in any order (`serde_json::Value` sorts them), with
//! `tags` after `tables`, and in a table `values` after `components` and
//! `entities`, which the sorted order keeps.
//!
//! A table of one entity, from `serde_json::to_string_pretty(&world.readable())`
//! (the whole example is on `Readable`, feature `serde`):
//!
//! ```text
//! {
//!   "components": ["hp"],
//!   "entities": ["0v1"],
//!   "values": { "hp": [10] }
//! }
//! ```
//!
//! In JSON, for 100,000 entities of four components (`benches/snapshot.rs`,
//! `save_load`), the readable form is about as large as the compact one and
//! slower to write and read by the cost of its ids: see
//! `docs/PERFORMANCE.md` for the figures.
//!
//! `examples/rollback.rs` builds rollback netcode on these (`cargo run
//! --release --example rollback --features serde`).
