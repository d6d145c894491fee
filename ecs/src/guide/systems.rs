//! Systems and the schedule.
//!
//! The examples use the guide's [`Physics`](super) schema.
//!
//! A system is a function whose parameters say what it touches:
//! [`Query<Q, F>`](crate::query::Query), [`Res<T>`](crate::system::Res),
//! [`ResMut<T>`](crate::system::ResMut),
//! [`Commands<S>`](crate::command::Commands) and
//! [`Local<T>`](crate::system::Local) (state of its own, kept in the world,
//! so that snapshots, checksums and saves carry it), up to 8 of them; the
//! full list is at [`SystemParam`](crate::system::SystemParam). A function
//! of `&mut World<S>` alone is a system too: it runs by itself and sees its
//! own changes at once.
//!
//! [`Schedule::run`](crate::schedule::Schedule::run) has the result of
//! running the systems one after another in the order they were added, each
//! system's commands applied right after it. It runs a stage of systems at
//! once only where their accesses are disjoint, and on rayon's pool only
//! when their measured work pays for waking threads.
//! [`Schedule::describe`](crate::schedule::Schedule::describe) says why each
//! system waits; [`Schedule::to_dot`](crate::schedule::Schedule::to_dot)
//! draws the same as a Graphviz graph.
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
//! fn inertia(mut movers: Query<(&mut Pos, &Vel)>) {
//!     movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
//! }
//!
//! /// `Local` keeps this system's own count from run to run.
//! fn report(positions: Query<&Pos>, tick: Res<Tick>, mut runs: Local<u64>) {
//!     *runs += 1;
//!     assert_eq!(*runs, tick.0); // count ran first, in the stage before
//!     assert_eq!(positions.count(), 1);
//! }
//!
//! fn count(mut tick: ResMut<Tick>) {
//!     tick.0 += 1;
//! }
//!
//! let mut world = World::<Physics>::new();
//! world.spawn((Pos(0), Vel(1)));
//! let mut schedule = Schedule::<Physics>::new();
//! schedule.add(inertia).add(count).add(report);
//! // inertia and count touch nothing in common: they share a stage.
//! assert_eq!(
//!     schedule.describe(),
//!     "Schedule<Physics>: 3 systems in 2 stages
//!   stage 1: inertia, count
//!   stage 2: report
//!     report waits for inertia: inertia writes Pos, which report reads
//! "
//! );
//! // The same plan for Graphviz: a cluster per stage, an edge per wait.
//! assert!(schedule.to_dot().contains("s0 -> s2 [label=\"Pos\""));
//! for _ in 0..3 {
//!     schedule.run(&mut world);
//! }
//! assert_eq!(world.resource::<Tick>().0, 3);
//! ```
//!
//! Two parameters of one system that could reach one component with a write
//! (`Query<&mut Pos>` beside `Query<&Pos>`), or one resource as `Res` and
//! `ResMut`, fail to build, with a message that names the schema and the
//! component (see [`mistakes`](super::mistakes)). Without the `parallel`
//! feature every stage runs on the calling thread, with the same results.
//!
//! A `Local<T>` needs `T: Default + Clone + StableHash` (see
//! [`LocalState`](crate::system::LocalState)). A save does not write a
//! plain `Local`'s value: with feature `serde`, a
//! `SavedLocal<T>` is a `Local` whose value a
//! save writes (see [`snapshots_and_saves`](super::snapshots_and_saves)).
