//! The world: every entity and its components, the resources, events and
//! states of one schema, and the errors of its structural changes.
//!
//! Everything that can change a result is in the world: the systems'
//! [`Local`](crate::system::Local) values, event queues, change ticks,
//! states and the fixed-step clock. So `clone` and `clone_from` take a
//! snapshot and [`World::checksum`] hashes all of it. With feature `serde`
//! a save writes all of it too, or refuses: a plain `Local` is not saved,
//! and a world holding one's value is an error naming the system (keep
//! such state in a `SavedLocal` or a resource).

pub use crate::entity_ref::{EntityMut, EntityRef};
#[cfg(feature = "serde")]
pub use crate::save::LoadError;
pub use crate::structure::{ExchangeError, InsertError, Spawned, TakeError};
pub use crate::world_impl::DeferredWorld;
#[cfg(feature = "serde")]
pub use crate::world_impl::Readable;
pub use crate::world_impl::{Description, TableDescription, World};
