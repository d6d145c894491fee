//! Checksums: a world's [`checksum`](crate::world::World::checksum) is a
//! stable hash of all of its state, the same on every machine and thread
//! count; components and resources take part through
//! [`StableHash`] (derived).

pub use crate::component_bounds::ChecksumSchema;
pub use crate::stable_hash::{StableHash, StableHasher};
pub use crate::world_impl::{ChecksumPart, ChecksumParts, ComponentDiff, WorldDiff};
pub use schemecs_macros::StableHash;
