//! Where mistakes are caught: which are compile errors, and at which step.
//!
//! Misuse of the schema is a compile error, but not all of them appear at
//! the same step:
//!
//! | Mistake | Caught by |
//! | --- | --- |
//! | A type that is not in the schema, in a bundle, query, filter, resource or command; a resource used as a component or the reverse; `&Entity` or a tuple where one component goes; a read-only method (`iter`) on a query that writes; a component that is not `Send + Sync` under a schedule; a derive on something that is not a plain struct, an unknown `#[ecs(...)]` key, one type in two fields, more than 128 components | `cargo check`, clippy and rust-analyzer, like any type error |
//! | A query that aliases (`(&mut Pos, &Pos)`); two parameters of one system that could reach one component with a write, or one resource as `Res` and `ResMut`; a query that can never match (`(&Pos, Without<Pos>)`); a bundle naming a component twice; `&Tag` on a zero-sized component | `cargo build` and `cargo test` only |
//!
//! The first kind are trait bounds: the type checker sees them wherever it
//! looks. The second kind are `const` assertions over the masks of the
//! query, bundle or system, worded by the schema. Rust evaluates such a
//! constant only when it generates code for the generic function that names
//! it (at monomorphization), which `cargo check`, clippy and rust-analyzer
//! never do; and code that is never used is never generated, so a system
//! that is never added to a schedule is not checked. Build (or run your
//! tests) to see them. Every case has a compile-fail test under `tests/ui/`
//! of the repository, with the message a user gets. For example:
//!
//! ```compile_fail
//! use schemecs::prelude::*;
//!
//! pub struct Pos(pub i64);
//! pub struct Health(pub u32);
//!
//! #[derive(Schema)]
//! pub struct Game { pos: Pos }
//!
//! let mut world = World::<Game>::new();
//! world.spawn((Pos(0), Health(10))); // error: `Health` is not a component of schema `Game`
//! ```
//!
//! A query that aliases builds under `cargo check` and fails under `cargo
//! build`:
//!
//! ```compile_fail
//! use schemecs::prelude::*;
//!
//! pub struct Pos(pub i64);
//!
//! #[derive(Schema)]
//! pub struct Game { pos: Pos }
//!
//! let mut world = World::<Game>::new();
//! // error: this query borrows component `Pos` of schema `Game` mutably and also
//! // reads or writes it in another item
//! world.query_mut::<(&mut Pos, &Pos)>().for_each_mut(|_| {});
//! ```
