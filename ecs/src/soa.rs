//! Struct-of-arrays components: a component marked `#[ecs(soa)]` whose type
//! derives [`Soa`] is stored one column per field.

pub use crate::storage::Soa;
pub use schemecs_macros::Soa;
