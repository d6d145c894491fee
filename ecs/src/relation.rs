//! Relations: a component that points at another entity ([`Relation`],
//! derived), and the list of its sources kept on the target ([`Inverse`]),
//! in step through every operation; hierarchies and their walks.

pub use crate::relations::{Inverse, OnTargetDespawn, Relation, RelationOf};
pub use crate::structure::RelationCycle;
pub use crate::world_impl::{Ancestors, Descendants};
pub use schemecs_macros::{Inverse, Relation};
