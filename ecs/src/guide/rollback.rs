//! Rollback netcode with GGRS.
//!
//! The package `schemecs-ggrs` (folder `ggrs/` of the repository; rustc
//! 1.87 or later, as [GGRS](https://github.com/gschup/ggrs) 0.13 needs)
//! plugs a world into GGRS sessions. Its `GgrsRunner` owns the world, its
//! schedule and a ring of snapshot worlds, and fulfils the requests a
//! `SyncTestSession`, `P2PSession` or `SpectatorSession` hands back each
//! frame: a save copies the world into a ring slot with
//! [`World::clone_from`](crate::world::World::clone_from) and gives GGRS its
//! [checksum](crate::world::World::checksum), a load copies it back, an
//! advance writes the inputs into the `PlayerInputs` resource and runs the
//! schedule. The game writes its schema, its systems, a `ggrs::Config`
//! whose `State` is `SnapshotSlot`, and one call a frame:
//!
//! ```text
//! #[derive(Schema)]
//! struct Game {
//!     pos: Pos,
//!     player: Player,
//!     #[ecs(resource)] inputs: PlayerInputs<Net>,   // filled before each run
//! }
//!
//! fn walk(mut players: Query<(&Player, &mut Pos)>, inputs: Res<PlayerInputs<Net>>) {
//!     players.for_each_mut(|(player, pos)| pos.0 += i32::from(inputs.input(player.0)) - 1);
//! }
//!
//! let mut runner = GgrsRunner::new(world, schedule, session.max_prediction());
//! loop {
//!     session.add_local_input(0, read_buttons())?;
//!     runner.handle_requests(session.advance_frame()?)?;
//! }
//! ```
//!
//! The whole program, a sync test, is the doctest of `GgrsRunner` in
//! `schemecs-ggrs` (this crate does not depend on it);
//! `cargo run --release -p schemecs-ggrs --example p2p -- --both` plays two
//! peers over UDP. For peer-to-peer, its `P2PDriver` is the loop above
//! written once: it polls, paces the frames (slower while ahead of the
//! other peers), asks a callback for each local input, advances, and hands
//! GGRS's events back as values, a desync with this peer's checksums by
//! part. Systems read the frame being simulated from `PlayerInputs::frame`,
//! which snapshots hold; the confirmed frame stays outside the world,
//! since it depends on when packets arrive and would differ between peers.
//!
//! The ways a rollback game usually desyncs, as bevy_ggrs lists them, and
//! where each stands here:
//!
//! | Pitfall | Here |
//! | --- | --- |
//! | Queries iterate in an unstable order | Iteration order is table order, then row order, and a snapshot keeps both; `Schedule::run` gives the sequential result on any number of threads. No sorting needed. |
//! | Events are not rolled back | Event queues, and where each reader is in them, are world state: restored by a load, covered by the checksum. |
//! | `Local<T>` is not rolled back | What a system keeps in a `Local` is world state too, restored and checksummed with the rest. |
//! | Entity ids change when a rollback respawns entities | The entity allocator (generations, free list) is restored exactly, so resimulated spawns get the ids they had; an `Entity` stored in a component or event stays right, with no remapping. |
//! | `Changed<T>` fires for everything after a restore | Change ticks and each system's last-run tick are restored, so `Changed<T>` sees what it saw the first time. |
//! | State outside what is registered for rollback | Nothing to register: every component, resource and event of the schema is in the snapshot and the checksum. State outside the world (statics, thread-locals, files) is still yours to keep out of systems. |
//! | Game states and run conditions kept outside the world | A state is a schema field (`#[ecs(state)]`): its value and pending transition are in the snapshot and the checksum, and so are the run conditions' `Local`s and the windows of systems they skipped (`ggrs/tests/runner/game_states.rs` runs such a game through the sync test). |
//! | Random numbers | Keep the generator in the world: with feature `rand`, `#[ecs(resource)] rng: WorldRng` (module `random`, ChaCha8, in snapshots, checksums and saves), never `thread_rng` or a global one. In a parallel loop, draw from the entity's own stream (`rng.streams()`, then `streams.of(entity)`): the same numbers on any number of threads. |
//! | Reading devices or the clock in systems | Read inputs only from `Res<PlayerInputs<C>>`; no wall clock, no `Instant::now()` in systems. Do not branch on `InputStatus::Predicted` versus `Confirmed`, which differ between peers by design. |
//!
//! What remains the game's job is caught by a `SyncTestSession` on one
//! machine: the adapter's tests include a system fed by a process-global
//! counter, which fails the sync test with `GgrsError::MismatchedChecksum`.
//!
//! # Finding what differs
//!
//! When two worlds that should be equal are not (two peers at one frame,
//! a run and its replay), [`World::checksum_parts`](crate::world::World::checksum_parts)
//! gives one digest per component, resource, event queue and state, and
//! for the entities, the change state and the locals: a few hundred bytes
//! two peers can exchange to learn which parts differ. With both worlds at
//! hand, [`World::diff`](crate::world::World::diff) goes down to the
//! entities: those alive in one world only, and for each component the
//! entities whose values differ:
//!
//! ```text
//! 2 parts differ
//!   component `Pos`: values (or change ticks) differ for 1 entity: 2v1
//!   resource `Score`
//! ```
//!
//! With `#[ecs(debug)]` on the schema (every component then `Debug`), it
//! also prints both values of each entity listed
//! (`    2v1: Pos(3) in the first world, Pos(4) in the second`), and the
//! locals by the system that keeps them.
//!
//! A diff of two 100,000-entity worlds that differ in one component takes
//! about 11 ms (`benches/checksum.rs`): a tool for the hunt, not for every
//! frame.
//!
//! To find the system at fault,
//! [`Schedule::find_divergence`](crate::schedule::Schedule::find_divergence)
//! runs a schedule twice from copies of one world, system by system
//! ([`Schedule::run_inspected`](crate::schedule::Schedule::run_inspected)),
//! and returns the first system after which the two runs differ, with the
//! diff at that point: a system that reads something outside the world
//! gives itself away. `GgrsRunner::diagnose(frame)` in `schemecs-ggrs` does
//! this for a frame whose checksums a sync test found to mismatch.
