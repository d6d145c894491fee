//! The ecs_bench_suite workloads on `ecs`, hecs and bevy_ecs, one criterion
//! group per workload; see the package's `src/` for the contenders.

use criterion::{criterion_group, criterion_main};
use ecs_peers::{
    add_remove, frag_iter, frame, heavy_compute, hierarchy, particles, schedule, simple_insert,
    simple_iter,
};

criterion_group!(
    benches,
    simple_insert::bench,
    simple_iter::bench,
    frag_iter::bench,
    add_remove::bench,
    heavy_compute::bench,
    schedule::bench,
    frame::bench,
    hierarchy::bench,
    particles::bench,
);
criterion_main!(benches);
