//! A compile-time specialized archetype ECS.
//!
//! You list every component of your world once, as the fields of a struct,
//! and derive [`Schema`](crate::schema::Schema) on it. The derive turns the list into an archetype
//! bitmask type (one bit per component, see [`Mask`](crate::mask::Mask)), a typed column per
//! component, and trait impls that give each type its bit. The runtime,
//! generic over the schema, stores entities in tables (one per archetype,
//! columns found by popcount), moves them between tables as components are
//! inserted and removed, and runs queries over column slices. Components,
//! resources and queries involve no `TypeId`, no `Any` and no vtable
//! (the values systems keep in [`Local`](crate::system::Local)s are stored
//! type-erased, and downcast when a system runs), and the crate has no
//! `unsafe`: misuse of the schema is a compile error.
//!
//! ```
//! use schemecs::prelude::*;
//!
//! #[derive(Debug, PartialEq)] pub struct Pos(pub i64);
//! #[derive(Debug, PartialEq)] pub struct Vel(pub i64);
//! #[derive(Debug, PartialEq, Default)] pub struct Frozen;   // zero-sized: a tag
//!
//! #[derive(Schema)]
//! pub struct Physics { pos: Pos, vel: Vel, frozen: Frozen }
//!
//! let mut world = World::<Physics>::new();
//! let a = world.spawn((Pos(1), Vel(6)));
//! let b = world.spawn((Pos(7),));
//! world.spawn((Pos(9), Vel(-2), Frozen));
//!
//! // inertia: everything that moves and is not frozen
//! world
//!     .query_filtered_mut::<(&mut Pos, &Vel), Without<Frozen>>()
//!     .for_each_mut(|(pos, vel)| pos.0 += vel.0);
//!
//! assert_eq!(world.get::<Pos>(a), Some(&Pos(7)));
//! assert_eq!(world.get::<Pos>(b), Some(&Pos(7)));
//! let still: Vec<Entity> = world
//!     .query_filtered::<Entity, Without<Vel>>()
//!     .iter()
//!     .collect();
//! assert_eq!(still, [b]);
//! ```
//!
//! Systems are plain functions whose parameters ([`Query`](crate::query::Query), [`Res`](crate::system::Res),
//! [`ResMut`](crate::system::ResMut), [`Commands`](crate::command::Commands)) declare what they read and write; a
//! [`Schedule`](crate::schedule::Schedule) runs them in parallel only where the result is the same as
//! running them one after another in the order they were added.
//!
//! Two things are opted into per field of the schema and cost nothing
//! where they are not: **events** (`#[ecs(event)] hit: Hit`, sent with
//! [`EventWriter`](crate::event::EventWriter) and read with [`EventReader`](crate::event::EventReader)) and **change detection**
//! (`#[ecs(track)] pos: Pos`, queried with the filters [`Added`](crate::query::Added) and
//! [`Changed`](crate::query::Changed), removals listed by [`Removed`](crate::change::Removed)). Both are defined on the
//! sequential run: a reader sees each event once, in send order, and
//! `Changed<T>` means "written since this system's previous run, in program
//! order". Both are world state, so parallel runs, snapshots and saves
//! reproduce them exactly.
//!
//! ```
//! use schemecs::prelude::*;
//! #[derive(Debug)] struct Pos(f32);
//! #[derive(Debug)] struct Vel(f32);
//! #[derive(Debug)] struct Resting;
//! #[derive(Debug)] struct Landed(Entity);
//! #[derive(Default)] struct Log(Vec<String>);
//!
//! #[derive(Schema)]
//! struct Game {
//!     #[ecs(track)] pos: Pos,
//!     vel: Vel,
//!     resting: Resting,
//!     #[ecs(event)] landed: Landed,
//!     #[ecs(resource)] log: Log,
//! }
//!
//! // A `&mut Pos` item handed out counts as a write of `Pos`: resting
//! // bodies are filtered out, not skipped inside the loop.
//! fn fall(
//!     mut bodies: Query<(Entity, &mut Pos, &Vel), Without<Resting>>,
//!     mut landed: EventWriter<Landed>,
//!     mut commands: Commands<Game>,
//! ) {
//!     for (entity, pos, vel) in bodies.iter_mut() {
//!         pos.0 = (pos.0 + vel.0).max(0.0);
//!         if pos.0 == 0.0 {
//!             landed.send(Landed(entity));
//!             commands.insert(entity, (Resting,));
//!         }
//!     }
//! }
//!
//! // Runs after `fall`: sees this run's landings and moves.
//! fn report(moved: Query<Entity, Changed<Pos>>, landed: EventReader<Landed>, mut log: ResMut<Log>) {
//!     let moved = moved.iter().count();
//!     let landed = landed.len();
//!     log.0.push(format!("{moved} moved, {landed} landed"));
//! }
//!
//! let mut world = World::<Game>::new();
//! world.spawn((Pos(2.0), Vel(-1.0)));
//! world.spawn((Pos(1.0), Vel(-1.0)));
//! let mut schedule = Schedule::<Game>::new();
//! schedule.add(fall).add(report);
//! for _ in 0..3 {
//!     schedule.run(&mut world);
//! }
//! assert_eq!(world.resource::<Log>().0, ["2 moved, 1 landed", "1 moved, 1 landed", "0 moved, 0 landed"]);
//! ```
//!
//! A game loop is built from the same parts: a system runs only when a
//! condition holds ([`RunIfExt::run_if`](crate::condition::RunIfExt::run_if), with [`in_state`](crate::state::in_state), [`on_event`](crate::condition::on_event),
//! [`resource_changed`](crate::condition::resource_changed)); a field marked `#[ecs(state)]` is a state whose
//! transitions, requested with [`NextState`](crate::state::NextState), run exit and enter systems
//! ([`Schedule::on_enter`](crate::schedule::Schedule::on_enter)); and a [`GameLoop`](crate::schedule::GameLoop) runs a fixed-step schedule
//! from an accumulator kept in the world ([`FixedTime`](crate::schedule::FixedTime)) beside the
//! per-frame one. All of it is world state, so a rollback replays it.
//!
//! A component marked `#[ecs(sparse)]` is stored in a sparse set keyed
//! by entity index rather than in a table column: inserting or removing it
//! moves nothing else. Queries, filters, commands, change detection and
//! snapshots treat it like any other component (see [`Schema`](crate::schema::Schema)).
//!
//! Start with the [guide]: a tour of the API in short
//! chapters, every example a test. Then the pages of
//! [`Schema`](crate::schema::Schema) (what the derive generates and every
//! `#[ecs(..)]` key), [`World`](crate::world::World),
//! [`Query`](crate::query::Query) and [`Schedule`](crate::schedule::Schedule).
//!
//! # Cargo features
//!
//! * **`parallel`** (on by default): [`Schedule::run`](crate::schedule::Schedule::run) hands a stage of
//!   systems to rayon's thread pool when the work measured in earlier runs
//!   pays for it, and the `par_*` methods of [`Query`](crate::query::Query)
//!   ([`Query::par_for_each_mut`](crate::query::Query::par_for_each_mut), [`Query::par_for_each_table_mut`](crate::query::Query::par_for_each_table_mut), ...)
//!   run their chunks on it. Without it (`default-features = false`) the
//!   crate does not depend on rayon: every stage runs on the calling thread,
//!   and the `par_*` methods run the same chunks one after another, in
//!   order. The results are the same either way, and so is the API, its
//!   `Send` and `Sync` bounds included, so code written for one builds with
//!   the other.
//! * **`serde`**: `World<S>` is `Serialize` and `Deserialize` when every
//!   component and resource of `S` is: an exact save and load (see
//!   [`World`](crate::world::World)). It also adds `SavedLocal<T>`, a [`Local`](crate::system::Local) whose value a
//!   save writes (its `T` also `Serialize + Deserialize`). The feature only
//!   adds: every bound is the same with and without it (a `Local<T>` needs
//!   nothing of serde), so a crate that builds without it builds with it,
//!   whichever crate of a build turns it on. A save of a world that holds a
//!   plain `Local`'s value is an error naming the system, never a save
//!   without the value.
//! * **`rand`**: the module `random`: `WorldRng`, a
//!   seeded generator (ChaCha8, from `rand_chacha`) to keep in the world as
//!   a resource, so that snapshots, checksums and saves carry it, and
//!   per-entity streams for parallel loops, the same on any number of
//!   threads. It only adds a module (with `serde`, the generator saves too).
//! * **`detect-rename`**: the derives find this crate under a renamed
//!   dependency (`engine = { package = "schemecs", .. }`) by reading your
//!   `Cargo.toml`. Without it they name `::schemecs`, and a renamed
//!   dependency says so on each derived type, `#[ecs(crate = engine)]`
//!   (see [`guide::schema`]). Off by default: it
//!   builds a TOML parser (proc-macro-crate, toml_edit, winnow) into every
//!   clean build. It only adds: the key works with it too.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

extern crate self as schemecs;

pub mod bundle;
mod changes;
mod command_buffer;
mod commands;
mod component_bounds;
mod despawner;
pub mod entity;
mod entity_ref;
pub mod event;
pub mod guide;
mod layout;
mod lend;
pub mod mask;
mod migrator;
mod misuse;
mod pool;
pub mod query;
#[cfg(feature = "rand")]
pub mod random;
mod relations;
mod removed;
pub mod retention;
mod save;
pub mod schedule;
pub mod schema;
mod sparse_mut;
mod spawner;
mod stable_hash;
pub mod state;
mod storage;
mod structure;
pub mod system;
mod tick;
mod world_impl;

// The public modules that gather items from several of the files above:
// each is a file of re-exports, above every other file (tests/layers.rs).
pub mod change;
pub mod checksum;
pub mod command;
pub mod condition;
pub mod relation;
pub mod soa;
pub mod world;

pub use schemecs_macros::{Bundle, Inverse, Relation, Schema, Soa, StableHash};

// Named in the compiler's messages about a type that is not a component.
#[doc(hidden)]
pub use misuse::KnownToSchema;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The names most programs need: `use schemecs::prelude::*;`.
pub mod prelude {
    pub use crate::change::Removed;
    pub use crate::command::Commands;
    pub use crate::condition::{not, ConditionExt, RunIfExt};
    pub use crate::entity::{Entity, NoSuchEntity};
    pub use crate::event::{EventReader, EventWriter};
    pub use crate::query::{Added, Changed, Has, Or, Query, With, Without};
    pub use crate::relation::{Inverse, Relation};
    pub use crate::schedule::{FixedTime, GameLoop, Schedule};
    pub use crate::schema::{Component, Resource, Schema};
    // In scope unnamed, so that a schema's constants (`Physics::NAME`,
    // `Physics::COMPONENT_NAMES`), which `Layout` declares, are there to
    // read; generic code names `schemecs::schema::Layout`.
    pub use crate::schema::Layout as _;
    pub use crate::state::{in_state, NextState, State};
    #[cfg(feature = "serde")]
    pub use crate::system::SavedLocal;
    pub use crate::system::{Local, Res, ResMut};
    pub use crate::world::World;
    // The derives. `Bundle` is the derive alone: the trait's hidden
    // methods (`place`, `take`, ...) stay out of the user's method
    // namespace; generic code names `schemecs::bundle::Bundle`.
    pub use schemecs_macros::{Bundle, Soa};
}

/// Items the code generated by `#[derive(Schema)]` and `#[derive(Bundle)]`
/// refers to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::__schema_column_impl as schema_column_impl;
    pub use crate::__schema_serde_columns as schema_serde_columns;
    pub use crate::__schema_serde_resources as schema_serde_resources;
    pub use crate::__schema_snapshot_impls as schema_snapshot_impls;
    pub use crate::__schema_texts as schema_texts;
    pub use crate::bundle::{extend_row_by_row, stage_component, Placement, SpawnRows};
    pub use crate::changes::ChangeWindow;
    pub use crate::commands::CommandQueue;
    pub use crate::component_bounds::{
        CloneComponent, CloneResource, CloneSchema, DebugComponent, HashComponent, HashResource,
        HashSchema,
    };
    pub use crate::lend::Lent;
    pub use crate::misuse::{
        ComponentIsNotAResource, IsAResource, Misuse, NotAComponent, RelationField,
        RequiredDefault, StateIsNotAResource,
    };
    pub use crate::query::{MatchedTables, TableView};
    pub use crate::relations::RelationVisitor;
    #[cfg(feature = "serde")]
    pub use crate::save::{
        key_missing, key_twice, key_unknown, load_rows, reject, Key, LoadColumn, LoadRows,
        SaveColumn,
    };
    pub use crate::stable_hash::fixed_size;
    pub use crate::storage::Staged;
    pub use crate::storage::{
        AsVec, Column, ColumnVec, SoaComponent, SoaField, SoaVec, TrackedVec, Values,
    };
    pub use crate::world_impl::HookKind;
    pub use bitflags;
    #[cfg(feature = "serde")]
    pub use serde;

    use crate::layout::Layout;
    use crate::mask::Mask;
    use core::fmt;

    /// `Debug` of a generated mask: `PhysicsMask(Pos | Vel)`.
    pub fn fmt_mask<S: Layout>(mask: S::Mask, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Mask(", S::NAME)?;
        for (i, bit) in mask.iter_bits().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            match S::COMPONENT_NAMES.get(bit as usize) {
                Some(name) => f.write_str(name)?,
                None => write!(f, "bit {bit}")?,
            }
        }
        f.write_str(")")
    }

    /// A column was asked for as the wrong component type: a broken table
    /// invariant, never a user error.
    #[cold]
    #[track_caller]
    pub fn column_mismatch<S: Layout>(bit: u32) -> ! {
        panic!(
            "schemecs internal error: a column of schema `{}` does not hold component bit {bit}",
            S::NAME
        )
    }

    /// A tag's bag was empty while an entity held the tag: a broken world
    /// invariant, never a user error.
    #[cold]
    #[track_caller]
    pub(crate) fn tag_bag_empty<S: Layout>(bit: u32) -> ! {
        panic!(
            "schemecs internal error: no value of tag `{}` of schema `{}` is stored",
            S::COMPONENT_NAMES[bit as usize],
            S::NAME
        )
    }

    /// A sparse set lacks the value of an entity whose archetype says it
    /// has one: a broken invariant, never a user error.
    #[cold]
    #[track_caller]
    pub(crate) fn sparse_value_missing<S: Layout>(bit: u32) -> ! {
        panic!(
            "schemecs internal error: an entity's value of sparse component `{}` of schema \
             `{}` is missing",
            S::COMPONENT_NAMES[bit as usize],
            S::NAME
        )
    }
}
