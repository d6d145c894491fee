//! `simple_iter` from ecs_bench_suite: 10,000 entities with a 4x4 `Transform`,
//! `Position`, `Rotation` and `Velocity`; each pass adds velocity to position.
//!
//! In one group: the query's internal iteration (`for_each_mut`, the fast
//! path), its external iterator (`for … in iter_mut()`), the iterator's
//! `for_each` (which folds table by table, like `for_each_mut`), and the
//! floor for this layout, the same loop over parallel `Vec`s.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

// Carried through every move, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Transform([[f32; 4]; 4]);

#[derive(Clone, Copy)]
struct Position([f32; 3]);

// Carried through every move, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Rotation([f32; 3]);

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

fn world() -> World<Bench> {
    let mut world = World::new();
    world.spawn_batch((0..ENTITIES).map(|_| {
        (
            identity(),
            Position([1.0, 0.0, 0.0]),
            Rotation([1.0, 0.0, 0.0]),
            Velocity([1.0, 0.0, 0.0]),
        )
    }));
    world
}

#[inline(always)]
fn step(position: &mut Position, velocity: &Velocity) {
    for (p, v) in position.0.iter_mut().zip(velocity.0) {
        *p += v;
    }
}

/// The same data as parallel vectors: what the query loop cannot beat.
struct Baseline {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

fn baseline() -> Baseline {
    Baseline {
        transforms: vec![identity(); ENTITIES],
        positions: vec![Position([1.0, 0.0, 0.0]); ENTITIES],
        rotations: vec![Rotation([1.0, 0.0, 0.0]); ENTITIES],
        velocities: vec![Velocity([1.0, 0.0, 0.0]); ENTITIES],
    }
}

fn simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");

    let mut w = world();
    group.bench_function("ecs_for_each", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Position, &Velocity)>()
                .for_each_mut(|(p, v)| step(p, v));
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_for", |b| {
        b.iter(|| {
            for (p, v) in w.query_mut::<(&mut Position, &Velocity)>().iter_mut() {
                step(p, v);
            }
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_iter_for_each", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Position, &Velocity)>()
                .iter_mut()
                .for_each(|(p, v)| step(p, v));
            black_box(&mut w);
        })
    });

    let mut base = baseline();
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for (p, v) in base.positions.iter_mut().zip(&base.velocities) {
                step(p, v);
            }
            black_box(&mut base);
        })
    });
    black_box((&base.transforms, &base.rotations));

    group.finish();
}

criterion_group!(benches, simple_iter);
criterion_main!(benches);
