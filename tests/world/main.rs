//! The world and what it stores: entities, spawning and despawning, bundles,
//! queries and their table form, sparse and struct-of-arrays components,
//! requirements and hooks, drops, stale handles, and the structural changes
//! systems make at once (`Spawner`, `Migrator`, `Despawner`, `SparseMut`).
//! One test binary: each module is one file of this folder, with its own
//! schema.
//!
//! `cargo test -p ecs-tests --test world`, or one module's tests with
//! `cargo test -p ecs-tests --test world -- query::`.

// `allocations` and `soa` pin what warm paths allocate; the counter is per
// thread, so the other tests running beside them do not disturb it.
#[global_allocator]
static ALLOCATOR: support::Counting = support::Counting;

mod allocations;
mod bundles;
mod despawner;
mod drops;
mod entity;
mod lifecycle;
mod migrator;
mod query;
mod soa;
mod sparse;
mod sparse_mut;
mod spawner;
mod stale;
mod tables;
mod view;
mod world;
