//! Queries: on the world, prepared, and by table.
//!
//! The examples use the guide's [`Physics`](super) schema.
//!
//! [`World::query`](crate::world::World::query) takes a read-only query and
//! borrows the world shared, so several can be alive at once;
//! [`World::query_mut`](crate::world::World::query_mut) takes any query, and
//! the `_filtered` forms take a filter too. Items are `&T`, `&mut T`,
//! `Option<…>`, [`Entity`](crate::entity::Entity),
//! [`Has<T>`](crate::query::Has) (a `bool`, for tags) and tuples of them;
//! filters are [`With<T>`](crate::query::With),
//! [`Without<T>`](crate::query::Without), [`Or<(…)>`](crate::query::Or)
//! and tuples of them (all must hold). `for_each` and `for_each_mut` run
//! over each table's column slices: the fast path. `get(e)` and
//! `get_many([a, b])` (and their `_mut` forms) hand out the items of the
//! entities given, or a [`QueryEntityError`](crate::query::QueryEntityError)
//! that says whether an entity is not alive or the query does not match it.
//!
//! ```
//! use schemecs::prelude::*;
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Pos(pub i64);
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Vel(pub i64);
//! # #[derive(Debug, PartialEq)] pub struct Frozen;
//! # #[derive(Debug, PartialEq)] pub struct Player;
//! # #[derive(Debug, Default, PartialEq)] pub struct Tick(pub u64);
//! # #[derive(Schema)]
//! # pub struct Physics {
//! #     pos: Pos,
//! #     vel: Vel,
//! #     frozen: Frozen,
//! #     player: Player,
//! #     #[ecs(resource)]
//! #     tick: Tick,
//! # }
//! #
//! use schemecs::query::QueryEntityError;
//!
//! fn main() -> Result<(), QueryEntityError> {
//!     let mut world = World::<Physics>::new();
//!     let a = world.spawn((Pos(0), Vel(2)));
//!     let b = world.spawn((Pos(5), Vel(-1), Player));
//!     world.spawn((Pos(9), Vel(3), Frozen));
//!
//!     world
//!         .query_filtered_mut::<(&mut Pos, &Vel), Without<Frozen>>()
//!         .for_each_mut(|(pos, vel)| pos.0 += vel.0);
//!
//!     let moving: Vec<(Entity, bool)> = world
//!         .query_filtered::<(Entity, Has<Player>), Or<(With<Player>, Without<Frozen>)>>()
//!         .iter()
//!         .collect();
//!     assert_eq!(moving, [(a, false), (b, true)]);
//!
//!     // Several entities at once, mutably: a collision swaps velocities.
//!     let mut movers = world.query_mut::<&mut Vel>();
//!     let [va, vb] = movers.get_many_mut([a, b])?;
//!     std::mem::swap(va, vb);
//!     assert_eq!(world.get::<Vel>(a), Some(&Vel(-1)));
//!
//!     let players = world.query_filtered::<&Pos, With<Player>>();
//!     assert_eq!(players.get(b)?, &Pos(4));
//!     assert_eq!(players.get(a), Err(QueryEntityError::DoesNotMatch(a)));
//!     assert_eq!(players.single(), Ok(&Pos(4))); // an error if none or several
//!     Ok(())
//! }
//! ```
//!
//! The items may come in any order: `(&Vel, &mut Pos)` costs what
//! `(&mut Pos, &Vel)` does. Iteration order is table order, then row order,
//! the same on every run of the same program. A query that could alias
//! (`(&mut Pos, &Pos)`) or can never match (`(&Pos, Without<Pos>)`) fails to
//! build (see [`mistakes`](super::mistakes)).
//!
//! # Reaching entities by id
//!
//! A loop that follows ids (each parent's children, each unit's target)
//! looks up one entity at a time. Three ways, fastest last:
//! [`World::get`](crate::world::World::get) finds the entity's table and
//! that table's column of the component at each call; `get` on a query
//! made for the loop finds the entity's table among the query's (and
//! checks its filter); a [`View`](crate::query::View) of one component,
//! from [`World::view`](crate::world::World::view), finds every table's
//! column once and then costs one slot and two indexed loads per entity
//! ([`ViewMut`](crate::query::ViewMut), from
//! [`World::view_mut`](crate::world::World::view_mut), writes too).
//!
//! ```
//! # use schemecs::prelude::*;
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Pos(pub i64);
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Vel(pub i64);
//! # #[derive(Debug, PartialEq)] pub struct Frozen;
//! # #[derive(Debug, PartialEq)] pub struct Player;
//! # #[derive(Debug, Default, PartialEq)] pub struct Tick(pub u64);
//! # #[derive(Schema)]
//! # pub struct Physics {
//! #     pos: Pos,
//! #     vel: Vel,
//! #     frozen: Frozen,
//! #     player: Player,
//! #     #[ecs(resource)]
//! #     tick: Tick,
//! # }
//! let mut world = World::<Physics>::new();
//! let ids: Vec<Entity> = world.spawn_batch((0..4).map(|i| (Pos(i),))).collect();
//! let followed = [ids[3], ids[1], ids[3]];
//!
//! let pos = world.view::<Pos>();
//! let sum: i64 = followed.iter().filter_map(|&e| pos.get(e)).map(|p| p.0).sum();
//! assert_eq!(sum, 7);
//!
//! let mut pos = world.view_mut::<Pos>();
//! for &e in &followed {
//!     pos.get_mut(e).unwrap().0 += 10;
//! }
//! assert_eq!(world.get::<Pos>(ids[3]), Some(&Pos(23)));
//! ```
//!
//! In `benches/hierarchy.rs` (`hierarchy_walk`: each of 25,000 parents'
//! children's values through the children's ids), a view takes 1.6 times
//! the hand-written loop over plain vectors, `Query::get` 3.5 and
//! `World::get` 3.2.
//!
//! # Prepared queries
//!
//! A query made on the world looks up its matching tables and gathers their
//! columns on every call; where a loop runs every frame over many small
//! tables, keep a [`PreparedQuery`](crate::query::PreparedQuery) instead.
//! It remembers the tables it matched (later calls look only at tables made
//! since), and its `for_each_mut` runs the loop over each table as soon as
//! it has the columns, allocating nothing:
//!
//! ```
//! use schemecs::prelude::*;
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Pos(pub i64);
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Vel(pub i64);
//! # #[derive(Debug, PartialEq)] pub struct Frozen;
//! # #[derive(Debug, PartialEq)] pub struct Player;
//! # #[derive(Debug, Default, PartialEq)] pub struct Tick(pub u64);
//! # #[derive(Schema)]
//! # pub struct Physics {
//! #     pos: Pos,
//! #     vel: Vel,
//! #     frozen: Frozen,
//! #     player: Player,
//! #     #[ecs(resource)]
//! #     tick: Tick,
//! # }
//! #
//! use schemecs::query::PreparedQuery;
//!
//! struct Mover {
//!     // Named in a struct, a prepared query's items are `'static`.
//!     query: PreparedQuery<Physics, (&'static Vel, &'static mut Pos)>,
//! }
//!
//! let mut world = World::<Physics>::new();
//! let a = world.spawn((Pos(0), Vel(2)));
//! let mut mover = Mover { query: world.prepare() };
//! for _frame in 0..3 {
//!     mover.query.for_each_mut(&mut world, |(vel, pos)| pos.0 += vel.0);
//! }
//! assert_eq!(world.get::<Pos>(a), Some(&Pos(6)));
//! // Everything else a query does, from the same state:
//! assert_eq!(mover.query.query_mut(&mut world).count(), 1);
//! ```
//!
//! # The table form
//!
//! A query can also hand out whole tables:
//! [`Query::for_each_table_mut`](crate::query::Query::for_each_table_mut)
//! calls you once per matching table with its archetype, its entities and
//! one slice per item, so that you write the loop over the columns yourself:
//!
//! ```
//! use schemecs::prelude::*;
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Pos(pub i64);
//! # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Vel(pub i64);
//! # #[derive(Debug, PartialEq)] pub struct Frozen;
//! # #[derive(Debug, PartialEq)] pub struct Player;
//! # #[derive(Debug, Default, PartialEq)] pub struct Tick(pub u64);
//! # #[derive(Schema)]
//! # pub struct Physics {
//! #     pos: Pos,
//! #     vel: Vel,
//! #     frozen: Frozen,
//! #     player: Player,
//! #     #[ecs(resource)]
//! #     tick: Tick,
//! # }
//! #
//! let mut world = World::<Physics>::new();
//! world.spawn_batch((0..4).map(|i| (Pos(i), Vel(1))));
//! world.spawn((Pos(10), Vel(1), Player));
//!
//! let mut tables = 0;
//! world
//!     .query_mut::<(&mut Pos, &Vel)>()
//!     .for_each_table_mut(|table, (pos, vel)| {
//!         tables += 1;
//!         assert_eq!(table.len(), pos.len());
//!         for (pos, vel) in pos.iter_mut().zip(vel) {
//!             pos.0 += vel.0;
//!         }
//!     });
//! assert_eq!(tables, 2); // [Pos, Vel] and [Pos, Vel, Player]
//! let sum: i64 = world.query::<&Pos>().iter().map(|pos| pos.0).sum();
//! assert_eq!(sum, 1 + 2 + 3 + 4 + 11);
//! ```
//!
//! `cargo run --release --example tables` runs the table form beside the
//! per-entity one.
