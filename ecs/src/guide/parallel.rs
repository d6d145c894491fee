//! Parallel loops inside one system.
//!
//! [`Query::par_for_each_mut`](crate::query::Query::par_for_each_mut) cuts
//! each table's columns into row ranges, as rayon cuts a slice, and runs
//! them on rayon's pool; each call sees only its own entity, so the result
//! is the same on any number of threads.
//!
//! [`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)
//! also records changes, one buffer per chunk, appended in iteration order:
//! the changes a sequential loop would record, on any number of threads. It
//! takes `&mut` commands, an event writer, a `Migrator`, a `SparseMut`, a
//! spawner, a `Despawner`, or a tuple of those (`(&mut commands, &mut
//! events)`); each chunk is handed a recorder of its own
//! ([`ChunkCommands`](crate::command::ChunkCommands),
//! [`ChunkEvents`](crate::event::ChunkEvents),
//! [`ChunkMigrator`](crate::command::ChunkMigrator),
//! [`ChunkSparseMut`](crate::command::ChunkSparseMut),
//! [`ChunkSpawner`](crate::command::ChunkSpawner),
//! [`ChunkDespawner`](crate::command::ChunkDespawner)). What a chunk cannot
//! know it does not tell: a spawn's id is given when its chunk is appended.
//! Without the `parallel` feature the chunks run one after another.
//!
//! ```
//! use schemecs::prelude::*;
//!
//! pub struct Health(pub i32);
//! pub struct Dead;
//!
//! #[derive(Schema)]
//! pub struct Game { health: Health, dead: Dead }
//!
//! fn poison(mut living: Query<(Entity, &mut Health), Without<Dead>>, mut commands: Commands<Game>) {
//!     living.par_for_each_mut_with(&mut commands, |commands, (entity, health)| {
//!         health.0 -= 1;
//!         if health.0 <= 0 {
//!             commands.insert(entity, (Dead,));
//!         }
//!     });
//! }
//!
//! let mut world = World::<Game>::new();
//! world.spawn_batch((0..10_000).map(|i| (Health(i % 3),)));
//! let mut schedule = Schedule::<Game>::new();
//! schedule.add(poison);
//! schedule.run(&mut world);
//! assert_eq!(world.query_filtered::<Entity, With<Dead>>().count(), 6_667);
//! ```
//!
//! `cargo run --release --example particles` runs 100,000 particles in
//! parallel and on one thread and checks that both end in the same world.
