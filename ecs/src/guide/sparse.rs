//! Sparse components.
//!
//! A component marked `#[ecs(sparse)]` lives in a sparse set keyed by entity
//! index instead of a table column, so inserting or removing it moves
//! nothing else: the entity keeps its table and row. Use it for short-lived
//! markers with data (a stun, a pending order) on entities that are
//! otherwise stable. Everything else treats it like any other component:
//! `get`, `has`, `archetype`, bundles, commands, queries and filters, `Has`,
//! change detection, snapshots, checksums and saves. A query that reaches
//! one reads each entity's sparse components row by row (the table-only
//! queries are unchanged); iteration order is still table order, then row
//! order.
//!
//! ```
//! use schemecs::prelude::*;
//!
//! #[derive(Debug, PartialEq)] struct Pos(i32);
//! #[derive(Debug, PartialEq)] struct Stun(u32);
//!
//! #[derive(Schema)]
//! struct Game {
//!     pos: Pos,
//!     #[ecs(sparse)] stun: Stun,   // not a table column
//! }
//!
//! let mut world = World::<Game>::new();
//! let a = world.spawn((Pos(1),));
//! let b = world.spawn((Pos(2),));
//! world.insert(b, (Stun(3),)).unwrap();                 // b stays in the [Pos] table
//! assert_eq!(world.archetype(b), Some(GameMask::POS | GameMask::STUN));
//! world.query_mut::<&mut Stun>().for_each_mut(|stun| stun.0 -= 1);
//! let free: Vec<Entity> = world.query_filtered::<Entity, Without<Stun>>().iter().collect();
//! assert_eq!(free, [a]);
//! assert_eq!(world.remove::<Stun>(b), Ok(Some(Stun(2))));
//! ```
//!
//! A filter on a sparse component selects entities but does not split
//! columns: two systems writing `Pos` with `With<Stun>` and `Without<Stun>`
//! are not run at the same time (with a table component they would be). And
//! one set holds every entity's `Stun`, so two systems that write it never
//! run at the same time, whatever their filters. `#[ecs(sparse)]` on a tag,
//! a resource or an event is a compile error.
//!
//! # Inserting and removing at once: SparseMut
//!
//! A system that takes [`SparseMut<S, C>`](crate::command::SparseMut)
//! inserts and removes a sparse `C` on any live entity **at once**, not
//! through commands, while systems that do not touch `C` run beside it: the
//! schedule counts it as a write of `C` and of which entities have `C`, so a
//! later system that reads `C` or tests it (`Has<C>`, `With<C>`,
//! `Without<C>`) waits for it, and the result is that of program order on
//! any number of threads. `C` must have no hooks, relation role or
//! requirements (a compile error at the parameter otherwise).
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::command::SparseMut;
//!
//! #[derive(Debug, PartialEq)] struct Heat(u32);
//! #[derive(Debug, PartialEq)] struct Smoke(u32);
//!
//! #[derive(Schema)]
//! struct Fire { heat: Heat, #[ecs(sparse)] smoke: Smoke }
//!
//! fn smoulder(hot: Query<(Entity, &Heat)>, mut smoke: SparseMut<Fire, Smoke>) {
//!     for (entity, heat) in hot.iter() {
//!         if heat.0 > 100 {
//!             smoke.insert(entity, Smoke(heat.0)).unwrap();   // applied now
//!         } else {
//!             smoke.remove(entity).unwrap();
//!         }
//!     }
//! }
//!
//! let mut world = World::<Fire>::new();
//! let e = world.spawn((Heat(300),));
//! let mut schedule = Schedule::<Fire>::new();
//! schedule.add(smoulder);
//! schedule.run(&mut world);
//! assert_eq!(world.get::<Smoke>(e), Some(&Smoke(300)));
//! ```
