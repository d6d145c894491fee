//! `simple_insert` from ecs_bench_suite: create a world and spawn 10,000
//! entities with a 4x4 `Transform`, `Position`, `Rotation` and `Velocity`.
//! Creating the world is part of the timed region, and so is dropping it (the
//! closure's result is dropped inside the measured loop), as in the suite.
//!
//! In one group: one `spawn` per entity, the same after
//! `World::reserve` made room for all of them, one `spawn_batch` for all of
//! them, and the floor for this layout, four `Vec`s made with room for every entity
//! and pushed to (also made inside the timed region).

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

// Carried into the world, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Transform([[f32; 4]; 4]);

// Carried into the world, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Position([f32; 3]);

// Carried into the world, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Rotation([f32; 3]);

// Carried into the world, never read: the payload of the workload.
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

fn identity() -> Transform {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    Transform(m)
}

/// The components of every spawned entity. The suite spawns constants; one
/// `black_box`ed scalar keeps the compiler from folding them into constants
/// stored straight into the columns, while the values stay in registers (a
/// `black_box` of the whole tuple would put it in memory and copy it back
/// out with mismatched widths, timing store-forwarding stalls).
#[inline(always)]
fn bundle() -> (Transform, Position, Rotation, Velocity) {
    let one = black_box(1.0);
    let mut transform = identity();
    transform.0[3][3] = one;
    (
        transform,
        Position([one, 0.0, 0.0]),
        Rotation([one, 0.0, 0.0]),
        Velocity([one, 0.0, 0.0]),
    )
}

/// The same data as parallel vectors: what spawning cannot beat.
struct Baseline {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

impl Baseline {
    fn with_capacity(capacity: usize) -> Self {
        Baseline {
            transforms: Vec::with_capacity(capacity),
            positions: Vec::with_capacity(capacity),
            rotations: Vec::with_capacity(capacity),
            velocities: Vec::with_capacity(capacity),
        }
    }

    fn push(
        &mut self,
        (transform, position, rotation, velocity): (Transform, Position, Rotation, Velocity),
    ) {
        self.transforms.push(transform);
        self.positions.push(position);
        self.rotations.push(rotation);
        self.velocities.push(velocity);
    }
}

fn simple_insert(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");

    group.bench_function("ecs_spawn", |b| {
        b.iter(|| {
            let mut world = World::<Bench>::new();
            for _ in 0..ENTITIES {
                black_box(world.spawn(bundle()));
            }
            world
        })
    });

    group.bench_function("ecs_spawn_reserved", |b| {
        b.iter(|| {
            let mut world = World::<Bench>::new();
            world.reserve::<(Transform, Position, Rotation, Velocity)>(ENTITIES);
            for _ in 0..ENTITIES {
                black_box(world.spawn(bundle()));
            }
            world
        })
    });

    group.bench_function("ecs_spawn_batch", |b| {
        b.iter(|| {
            let mut world = World::<Bench>::new();
            black_box(world.spawn_batch((0..ENTITIES).map(|_| bundle())));
            world
        })
    });

    group.bench_function("baseline", |b| {
        b.iter(|| {
            let mut base = Baseline::with_capacity(ENTITIES);
            for _ in 0..ENTITIES {
                base.push(bundle());
            }
            base
        })
    });

    // The floor of `ecs_spawn`: the same pushes into vectors that start
    // empty and grow as they fill, as a world's columns do when nothing
    // reserved room for them.
    group.bench_function("baseline_growing", |b| {
        b.iter(|| {
            let mut base = Baseline::with_capacity(0);
            for _ in 0..ENTITIES {
                base.push(bundle());
            }
            base
        })
    });

    group.finish();
}

criterion_group!(benches, simple_insert);
criterion_main!(benches);
