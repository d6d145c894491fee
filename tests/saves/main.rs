//! Snapshots, checksums, saves and replays: exact clones, `StableHash`,
//! replays after a restore, and (with feature `serde`) save and load and
//! the loader under attack. One test binary: each module is one file of
//! this folder, with its own schema.
//!
//! `cargo test -p ecs-tests --test saves` runs the snapshots, checksums and
//! replays; `cargo test -p ecs-tests --features serde --test saves` also
//! saves and loads, and replays through a save.

#[cfg(feature = "serde")]
mod readable;
mod replay;
#[cfg(feature = "serde")]
mod save;
#[cfg(feature = "serde")]
mod save_adversarial;
#[cfg(feature = "serde")]
mod saved_local;
mod snapshot;
mod stable_hash;
