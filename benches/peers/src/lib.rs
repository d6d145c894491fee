//! The ecs_bench_suite workloads, run on `ecs`, hecs and bevy_ecs in one
//! process, each beside a hand-written baseline; simple_insert also runs
//! gecs (a world declared at compile time, as ours is).
//!
//! One module per workload. Each has a `bench` function that opens the
//! workload's criterion group and calls one function per contender; a
//! contender function does its set-up outside the timed closure and adds one
//! benchmark to the group, named `ours` (or `ours_…`), `hecs`, `bevy` or
//! `baseline` (or `baseline_…`). `report.py` reads the results by those names.
//!
//! Every contender uses the same component types: each derives bevy's
//! `Component`, hecs needs nothing, and our schemas list them as fields.
//! The one exception is `hierarchy`, where each ECS uses its own relation
//! (`ChildOf` and `Children`).

pub mod add_remove;
pub mod frag_iter;
pub mod frame;
pub mod heavy_compute;
pub mod hierarchy;
pub mod particles;
pub mod schedule;
pub mod shared;
pub mod simple_insert;
pub mod simple_iter;

/// The criterion group a contender function adds its benchmark to.
pub type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;
