//! Structural change from systems: spawning, inserting, removing and
//! despawning, recorded or applied at the moment each type says.
//!
//! Reach for [`Commands`] first: it records any change
//! and applies it after the system, in program order. The others pay where
//! a system must spawn or move many entities beside other systems.

pub use crate::command_buffer::CommandBuffer;
pub use crate::commands::{ChunkCommands, Commands};
pub use crate::despawner::{ChunkDespawner, Despawner};
pub use crate::migrator::{ChunkMigrator, MigrateError, Migrator};
pub use crate::sparse_mut::{ChunkSparseMut, SparseMut};
pub use crate::spawner::{ChunkSpawner, Spawner, UnnamedSpawner};
