//! Commands: changing the world from a system.
//!
//! [`Commands`](crate::command::Commands) record spawns, inserts, removes
//! and despawns during a system; they are applied right after it, in the
//! order recorded, so what a system sees never changes under it. `spawn`
//! returns the id the entity will have. Outside systems, a
//! [`CommandBuffer`](crate::command::CommandBuffer) records the same and
//! applies them in one call; its `spawn` takes the world, to reserve the id
//! it returns.
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::command::CommandBuffer;
//!
//! #[derive(Debug, PartialEq)] pub struct Pos(pub i64);
//! #[derive(Debug, PartialEq)] pub struct Owner(pub Entity);
//!
//! #[derive(Schema)]
//! pub struct Game { pos: Pos, owner: Owner }
//!
//! fn fire(shooters: Query<(Entity, &Pos), Without<Owner>>, mut commands: Commands<Game>) {
//!     for (shooter, pos) in shooters.iter() {
//!         let bullet = commands.spawn((Pos(pos.0),));
//!         commands.insert(bullet, (Owner(shooter),));
//!     }
//! }
//!
//! let mut world = World::<Game>::new();
//! let shooter = world.spawn((Pos(3),));
//! let mut schedule = Schedule::<Game>::new();
//! schedule.add(fire);
//! schedule.run(&mut world);
//! let owners: Vec<Entity> = world.query::<&Owner>().iter().map(|owner| owner.0).collect();
//! assert_eq!(owners, [shooter]);
//!
//! let mut buffer = CommandBuffer::<Game>::new();
//! buffer.despawn(shooter);
//! buffer.apply(&mut world);
//! assert_eq!(world.len(), 1);
//! ```
//!
//! Reach for `Commands` first: they take any change and any bundle. Their
//! price is that a later system that queries waits until they are applied,
//! one change at a time. When a frame is made of such changes, other
//! parameters make one kind of change while other systems run:
//! [`Spawner`](crate::command::Spawner) (spawns of one table-only bundle,
//! rows pushed at once), [`Migrator`](crate::command::Migrator) (adding or
//! removing a table component), [`SparseMut`](crate::command::SparseMut) (a
//! sparse component, at once, see [`sparse`](super::sparse)) and
//! [`Despawner`](crate::command::Despawner) (despawns at the end of the
//! run). The decision table in the [`command`](crate::command) module says
//! when each is applied, what it runs beside, what it returns and what it
//! saves, with figures. `docs/CONCURRENCY.md` in the repository lists, for
//! each of the eight kinds of mutation of the paper this design follows,
//! how it is written here and whether it runs concurrently.
