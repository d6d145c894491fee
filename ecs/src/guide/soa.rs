//! Struct-of-arrays components: stored field by field.
//!
//! A component whose struct derives [`Soa`](crate::soa::Soa) and whose field
//! is marked `#[ecs(soa)]` is stored field by field: its table column is one
//! array per field (the Zig model's `MultiArrayList`), so a loop over
//! `pos.x` and `vel.x` reads those two arrays and nothing else, and the
//! compiler vectorizes it. The query items are
//! [`Fields<&Pos>`](crate::query::Fields) and `Fields<&mut Pos>`: per entity
//! they give `PosRef` / `PosMut` (a reference to each field), and in the
//! table form one slice per field, the Zig `items(.x)`. Whole values still
//! go in and come out: `spawn`, `insert`, `remove`, `take`, commands,
//! spawners and bundles take and give `Pos`;
//! [`World::get_soa`](crate::world::World::get_soa) and
//! [`World::get_soa_mut`](crate::world::World::get_soa_mut) read one entity.
//! Clones, checksums and saves are exactly those of the same world stored
//! whole (a save of either loads as the other, under one schema name). A
//! schema without `#[ecs(soa)]` pays nothing.
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::query::Fields;
//!
//! #[derive(Soa, Clone, Copy, Debug, PartialEq)]
//! struct Pos { x: f32, y: f32 }
//! #[derive(Soa, Clone, Copy, Debug, PartialEq)]
//! struct Vel { x: f32, y: f32 }
//!
//! #[derive(Schema)]
//! struct Particles { #[ecs(soa)] pos: Pos, #[ecs(soa)] vel: Vel }
//!
//! fn integrate(mut movers: Query<(Fields<&mut Pos>, Fields<&Vel>)>) {
//!     let dt = 0.5;
//!     movers.for_each_table_mut(|_, (pos, vel)| {
//!         for i in 0..pos.x.len() {
//!             pos.x[i] += vel.x[i] * dt;
//!             pos.y[i] += vel.y[i] * dt;
//!         }
//!     });
//! }
//!
//! let mut world = World::<Particles>::new();
//! let e = world.spawn((Pos { x: 0.0, y: 0.0 }, Vel { x: 2.0, y: 4.0 }));
//! let mut schedule = Schedule::<Particles>::new();
//! schedule.add(integrate);
//! schedule.run(&mut world);
//! let pos: PosRef<'_> = world.get_soa::<Pos>(e).unwrap();
//! assert_eq!((*pos.x, *pos.y), (1.0, 2.0));
//! assert_eq!(world.remove::<Pos>(e), Ok(Some(Pos { x: 1.0, y: 2.0 })));
//! ```
//!
//! Each field must be `Copy` (a whole value is read back by copying each
//! field), the struct must have named fields, and it must not implement
//! `Drop` (a whole value exists only while it is read or written, so its
//! `drop` would run each time): a tuple struct, an enum, a struct without
//! fields, a field that is not `Copy` or a struct with its own `Drop` is a
//! compile error that says so. `&Pos`, `get::<Pos>` and `get_mut::<Pos>` of
//! an SoA component, and `Fields<&Vel>` of a component stored whole, fail to
//! build (in `cargo build`, as the other query checks) with a message naming
//! the component and the fix. `#[ecs(soa, track)]` keeps change detection
//! per entity, as for a whole component (`Added`, `Changed`, `Removed`). Not
//! supported: `#[ecs(soa)]` with `#[ecs(sparse)]` (a sparse set keeps whole
//! values) or with `relation(..)` (the world reads a relation whole), each a
//! compile error at the field, and generic SoA structs.
//!
//! `cargo run --release --example soa` runs a million particles stored field
//! by field beside the same stored whole.
