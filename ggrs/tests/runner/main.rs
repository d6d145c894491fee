//! The adapter's tests that need no process of their own, gathered into one
//! binary so that `cargo test --workspace` builds and links the arena game
//! of `common` once for all of them. `allocations.rs` (a counting global
//! allocator) and `p2p.rs` (two peers over UDP, paced by the clock) stay
//! binaries of their own.

#[path = "../common/mod.rs"]
mod common;

mod errors;
mod game_states;
mod replay;
mod robustness;
mod sync_test;
