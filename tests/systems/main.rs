//! Systems and schedules: program order and determinism, commands, locals,
//! events, change detection, what a world retains of events and removals,
//! run conditions, states, the fixed-step game loop, panics in systems, and
//! randomness that rolls back (feature `rand`).
//! One test binary: each module is one file of this folder, with its own
//! schema.
//!
//! `cargo test -p ecs-tests --test systems`, or one module's tests with
//! `cargo test -p ecs-tests --test systems -- events::`.

mod changes;
mod commands;
mod conditions;
mod determinism;
mod events;
mod game_loop;
mod locals;
mod panics;
#[cfg(feature = "rand")]
mod random;
mod retention;
mod schedule;
mod states;
