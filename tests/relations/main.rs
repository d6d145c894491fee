//! Relations declared in the schema: inverse lists, hierarchies, and the
//! relations, hooks and requirements under odd and hostile use. One test
//! binary: each module is one file of this folder, with its own schema.
//!
//! `cargo test -p ecs-tests --test relations`.

mod relations;
mod relations_adversarial;
