//! `heavy_compute` from ecs_bench_suite: 1,000 entities with a 4x4
//! `Transform`, `Position`, `Rotation` and `Velocity`; for each entity,
//! invert its matrix 100 times, then move its position by it. The work per
//! entity dwarfs the iteration, so this measures parallel speed-up.
//!
//! In one group: `par_for_each_mut` on a query, the same inside a system run
//! by a schedule, the sequential `for_each_mut`, and two floors over a plain
//! `Vec`: a sequential loop and rayon's `par_iter_mut`. The target is the
//! parallel runs at least 1.8x faster than the sequential baseline on two
//! cores.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use rayon::prelude::*;
use std::hint::black_box;
use support::Mat4;

const ENTITIES: usize = 1_000;

#[derive(Clone, Copy)]
struct Transform(Mat4);
#[derive(Clone, Copy)]
struct Position([f32; 3]);
// Carried, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Rotation([f32; 3]);
// Carried, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Velocity([f32; 3]);

#[derive(Schema)]
struct Bench {
    transform: Transform,
    position: Position,
    rotation: Rotation,
    velocity: Velocity,
}

/// The per-entity work: 100 inversions (each undoing the last, so the
/// values stay finite), then a transform of the position.
#[inline]
fn compute(transform: &mut Transform, position: &mut Position) {
    for _ in 0..100 {
        transform.0 = transform.0.inverse().unwrap_or(transform.0);
    }
    position.0 = transform.0.transform_vector(position.0);
}

fn bundle(i: usize) -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(Mat4::rotation_z(i as f32 * 0.001)),
        Position([1.0, 0.0, 0.0]),
        Rotation([1.0, 0.0, 0.0]),
        Velocity([1.0, 0.0, 0.0]),
    )
}

fn world() -> World<Bench> {
    let mut world = World::new();
    world.spawn_batch((0..ENTITIES).map(bundle));
    world
}

fn system(mut q: Query<(&mut Transform, &mut Position)>) {
    q.par_for_each_mut(|(transform, position)| compute(transform, position));
}

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    // Build the global thread pool outside the timed region.
    rayon::broadcast(|_| ());

    let mut w = world();
    group.bench_function("ecs_par_for_each_mut", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Transform, &mut Position)>()
                .par_for_each_mut(|(t, p)| compute(t, p));
            black_box(&mut w);
        })
    });

    let mut w = world();
    let mut schedule = Schedule::<Bench>::new();
    schedule.add(system);
    group.bench_function("ecs_schedule", |b| {
        b.iter(|| {
            schedule.run(&mut w);
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_for_each_mut", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Transform, &mut Position)>()
                .for_each_mut(|(t, p)| compute(t, p));
            black_box(&mut w);
        })
    });

    let mut base: Vec<(Transform, Position)> = (0..ENTITIES)
        .map(|i| {
            let (t, p, _, _) = bundle(i);
            (t, p)
        })
        .collect();
    group.bench_function("baseline_sequential", |b| {
        b.iter(|| {
            for (t, p) in base.iter_mut() {
                compute(t, p);
            }
            black_box(&mut base);
        })
    });

    group.bench_function("baseline_rayon", |b| {
        b.iter(|| {
            base.par_iter_mut().for_each(|(t, p)| compute(t, p));
            black_box(&mut base);
        })
    });

    group.finish();
}

criterion_group!(benches, heavy_compute);
criterion_main!(benches);
