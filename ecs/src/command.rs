//! Structural change: spawning and despawning entities, adding and removing
//! components. Which way to use, and when each is applied.
//!
//! **Reach for [`Commands`] first.** A system records its changes and the
//! schedule applies them right after it, in program order: every bundle
//! works (sparse components, hooks, relations, requirements), `spawn`
//! returns the new entity, and the result is that of running the systems
//! one after another. Outside systems, a [`CommandBuffer`]
//! records the same and is applied with one call. The price: a later
//! system that queries waits until those commands are applied, so a frame
//! full of commands runs one system after another, and each change is
//! applied on its own, on the calling thread.
//!
//! The other types pay when that wait or that one-by-one work is what a
//! frame is made of: each makes one kind of change while other systems
//! run, under rules the schedule checks (compile errors in one system,
//! waits between systems). The figures are medians of `benches/frame.rs`
//! (8 systems, 2 cores; see `docs/CONCURRENCY.md`).
//!
//! | type | applied when | runs beside | returns | reach for it when |
//! | --- | --- | --- | --- | --- |
//! | [`World`](crate::world::World) methods | at once | nothing: outside the schedule, or an exclusive system (`&mut World<S>`) | `spawn` → [`Entity`](crate::entity::Entity); `insert` → `Result<(), InsertError>`; `despawn` → `Result<(), NoSuchEntity>` | setting up, tests, a system that must see its own changes as it goes |
//! | [`Commands`] | after its system, in program order | earlier systems of its stage; a later system that queries or records commands waits until they are applied | `spawn` → [`Entity`](crate::entity::Entity) (reserved now, alive once applied); the rest `()` | **first**: any change, any bundle |
//! | [`CommandBuffer`] | on [`apply`](CommandBuffer::apply) | (outside systems) | `spawn(&world, ..)` → [`Entity`](crate::entity::Entity) (reserved in `world`); the rest `()` | changes decided while reading the world outside systems |
//! | [`Spawner`] | rows pushed at once; alive when its run is applied, after its stage | systems that cannot reach the bundle's table and share nothing else with it; not another spawner or commands-recording system | `spawn` → [`Entity`](crate::entity::Entity) | many spawns of one table-only bundle while other systems run (`frame_spawn_flip`: 202 µs against 390 µs for the frame through commands) |
//! | [`UnnamedSpawner`] | as [`Spawner`]; ids given when its run is applied | as [`Spawner`], and beside other unnamed spawners | `spawn` → `()` | as [`Spawner`], when the ids are not needed: no id to reserve, so it is cheaper (171 against 202 µs for the same frame; 0.85 against 1.29 ms in a loaded rerun) and several share a stage |
//! | [`Migrator`] | recorded at the call, rows moved after its stage, settled when its run is applied | systems that cannot reach the tables its filter matches, and migrators of other tables | `insert`, `remove` → `Result<(), MigrateError>` | adding or removing a table component on many entities (8,000 moves: 155 against 196 µs through commands; 80,000: 1.04 against 2.04 ms) |
//! | [`SparseMut`] | at once | systems that neither read the component nor test its presence | `insert`, `remove` → `Result<Option<C>, NoSuchEntity>` | flipping a sparse component (the churn frame: 285 against 390 µs) |
//! | [`Despawner`] | when the schedule's run ends, in one batch | any system | `despawn` → `()` | many despawns a frame, when later systems may still see the entities alive (158 against 171 µs) |
//!
//! Each of the recorders but [`CommandBuffer`] has a
//! `Chunk` form for the chunks of a parallel loop
//! ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
//! [`ChunkCommands`], [`ChunkSpawner`],
//! [`ChunkMigrator`],
//! [`ChunkSparseMut`] and
//! [`ChunkDespawner`]. What the chunks record is
//! appended in iteration order when the loop is done, and then applied as
//! the recorder's own changes are. A chunk cannot know the ids its spawns
//! will get (they depend on the chunks before it), so its `spawn` returns
//! `()`, and its `insert` and `remove` return `Result<(), _>`: the checks
//! are made at the call, the changes when the chunk is appended.
//!
//! Why two spawners: a [`Spawner`] returns ids in program
//! order, so it reserves each one from the world's allocator while it runs,
//! and no other system that reserves ids can run beside it. An
//! [`UnnamedSpawner`] gives its rows their ids when
//! its run is applied, in program order: it reserves nothing while it runs.
//! Folding one into the other would lose either the returned id or the
//! lower cost and the shared stage.

pub use crate::command_buffer::CommandBuffer;
pub use crate::commands::{ChunkCommands, Commands};
pub use crate::despawner::{ChunkDespawner, Despawner};
pub use crate::migrator::{ChunkMigrator, MigrateError, Migrator};
pub use crate::sparse_mut::{ChunkSparseMut, SparseMut};
pub use crate::spawner::{ChunkSpawner, Spawner, UnnamedSpawner};
