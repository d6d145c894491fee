//! The schema: [`Schema`], the trait `#[derive(Schema)]` implements for the
//! struct that lists a world's components, resources, events and states,
//! with the traits it implements for each field's type ([`Component`],
//! [`Resource`] and their kinds), and [`DeferredWorld`](crate::world::DeferredWorld),
//! what a component's hooks receive.
//!
//! `Schema` extends [`Layout`], the part storage, bundles and queries read
//! (its masks, columns, names and bit sets), with what needs the world: a
//! component's hooks and its relations. The two are one derive; the split
//! keeps the ground of the crate from knowing the world built on it.

pub use crate::layout::{Component, Layout, Migratable, Resource, SparseMutable, Tracked};
pub use crate::world_impl::Schema;
/// The derive of the trait of the same name.
pub use schemecs_macros::Schema;
