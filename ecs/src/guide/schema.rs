//! The schema: components, tags and resources.
//!
//! Each field of the schema struct is a component; its type is the component
//! type (each type once), and its position is the component's bit. A
//! zero-sized type is a tag: it takes a bit and no storage. A field marked
//! `#[ecs(resource)]` is a resource instead: one value per world (the
//! attribute is `ecs` whatever name the crate has in your `Cargo.toml`).
//!
//! Next to the struct the derive generates `GameMask`, the archetype type (a
//! `bitflags` set with one flag per component, named after the field in
//! upper case, see [`Mask`](crate::mask::Mask)), and `GameResources`, the
//! struct of resources.
//!
//! ```
//! use schemecs::prelude::*;
//!
//! pub struct Pos(pub f32);
//! pub struct Health(pub u32);
//! pub struct Player;
//! #[derive(Default)]
//! pub struct Gravity(pub f32);
//! pub struct Seed(pub u64); // no Default
//!
//! #[derive(Schema)]
//! pub struct Game {
//!     pos: Pos,
//!     health: Health,
//!     player: Player,
//!     #[ecs(resource)]
//!     gravity: Gravity,
//!     #[ecs(resource)]
//!     seed: Seed,
//! }
//!
//! // `World::new()` needs every resource to be `Default`; otherwise give them.
//! let mut world = World::<Game>::with_resources(GameResources {
//!     gravity: Gravity(9.8),
//!     seed: Seed(42),
//! });
//! assert_eq!(world.resource::<Seed>().0, 42);
//! world.resource_mut::<Gravity>().0 = 1.6;
//!
//! let both = GameMask::POS | GameMask::PLAYER;
//! assert!(both.contains(GameMask::PLAYER));
//! assert_eq!(Game::COMPONENT_NAMES, ["Pos", "Health", "Player"]);
//! ```
//!
//! A schema holds at most 128 components (and 128 resources, events and
//! states); the mask is the narrowest integer that fits them, `u8` to
//! `u128`.
//!
//! Other keys of `#[ecs(..)]` mark a field as something else than a plain
//! component, or give a component more. Each has its chapter:
//!
//! | Key | The field is | Chapter |
//! | --- | --- | --- |
//! | `resource` | a resource: one value per world | this one |
//! | `event` | an event type | [`events_and_changes`](super::events_and_changes) |
//! | `state` | a state, such as a game's phase | [`game_loop`](super::game_loop) |
//! | `track` | a component with change detection | [`events_and_changes`](super::events_and_changes) |
//! | `sparse` | a component kept in a sparse set | [`sparse`](super::sparse) |
//! | `soa` | a component stored field by field | [`soa`](super::soa) |
//! | `relation(inverse = .., on_target_despawn = ..)` | a relation to another entity | [`relations`](super::relations) |
//! | `requires(..)` | a component that brings others | [`hooks`](super::hooks) |
//! | `on_add = f`, `on_insert = f`, `on_remove = f` | a component with hooks | [`hooks`](super::hooks) |
//!
//! [`Schema`](crate::schema::Schema) gives the exact rules of each key and
//! of their combinations; a key the derive does not know, or a combination
//! that makes no sense (`resource` with `track`), is a compile error that
//! says why.
//!
//! The derives write paths into this crate, `::schemecs::...`. Under a
//! renamed dependency (`engine = { package = "schemecs", .. }` in
//! Cargo.toml), or through a crate that re-exports it, give the path on the
//! derived type: `#[ecs(crate = engine)]` (every derive of this crate takes
//! this one key; serde's spelling, `crate = "engine"`, works too). Feature
//! `detect-rename` instead finds a renamed dependency in the manifest,
//! at the cost of a TOML parser in the build (about a fifth of a small
//! crate's clean build), which is why it is off by default.
