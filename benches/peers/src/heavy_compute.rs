//! heavy_compute: 1,000 entities with a 4x4 `Transform`, `Position`,
//! `Rotation` and `Velocity`; each pass inverts every entity's transform 100
//! times, then applies it to the position, with the entities shared out
//! among the cores.
//!
//! hecs hands batches of 64 from `into_iter_batched` to rayon; bevy uses
//! `par_iter_mut` on its compute task pool. Two baselines over parallel
//! `Vec`s: `baseline`, one thread, and `baseline_par`, rayon's
//! `par_iter_mut`.
//!
//! `ours` runs `par_for_each_mut` inside a system of a one-system
//! `Schedule`, as a game would.

use crate::shared::{
    bevy_bodies, bevy_task_pool, hecs_bodies, invert, ours_bodies, rotation_x, transform_vector,
    Bodies, Body, Position, Transform,
};
use crate::Group;
use criterion::Criterion;
use rayon::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 1_000;

/// Inversions per entity and pass.
const INVERSIONS: usize = 100;

/// Entities per batch handed to rayon in `hecs`.
const HECS_BATCH: u32 = 64;

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    ours(&mut group);
    hecs(&mut group);
    bevy(&mut group);
    baseline(&mut group);
    baseline_par(&mut group);
    group.finish();
}

fn start() -> Transform {
    rotation_x(1.2)
}

/// The work done for one entity. An even number of inversions leaves the
/// transform where it was, up to rounding.
#[inline]
fn work(position: &mut Position, transform: &mut Transform) {
    for _ in 0..INVERSIONS {
        transform.0 = invert(&transform.0).expect("a rotation is invertible");
    }
    position.0 = transform_vector(&transform.0, position.0);
}

fn ours_system(mut query: ecs::query::Query<(&mut Position, &mut Transform)>) {
    query.par_for_each_mut(|(p, t)| work(p, t));
}

fn ours(group: &mut Group) {
    // rayon's global pool is built outside the timed region.
    rayon::broadcast(|_| ());
    let mut world = ours_bodies(ENTITIES, start());
    let mut schedule = ecs::schedule::Schedule::<Body>::new();
    schedule.add(ours_system);
    group.bench_function("ours", |b| {
        b.iter(|| {
            schedule.run(&mut world);
            black_box(&mut world);
        })
    });
}

fn hecs(group: &mut Group) {
    let mut world = hecs_bodies(ENTITIES, start());
    group.bench_function("hecs", |b| {
        b.iter(|| {
            let batches: Vec<_> = world
                .query_mut::<(&mut Position, &mut Transform)>()
                .into_iter_batched(HECS_BATCH)
                .collect();
            batches.into_par_iter().for_each(|batch| {
                for (p, t) in batch {
                    work(p, t);
                }
            });
            black_box(&mut world);
        })
    });
}

fn bevy(group: &mut Group) {
    bevy_task_pool();
    let mut world = bevy_bodies(ENTITIES, start());
    let mut query = world.query::<(&mut Position, &mut Transform)>();
    group.bench_function("bevy", |b| {
        b.iter(|| {
            query
                .par_iter_mut(&mut world)
                .for_each(|(mut p, mut t)| work(&mut p, &mut t));
            black_box(&mut world);
        })
    });
}

fn baseline(group: &mut Group) {
    let mut bodies = Bodies::new(ENTITIES, start());
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for (p, t) in bodies.positions.iter_mut().zip(&mut bodies.transforms) {
                work(p, t);
            }
            black_box(&mut bodies);
        })
    });
}

fn baseline_par(group: &mut Group) {
    let mut bodies = Bodies::new(ENTITIES, start());
    group.bench_function("baseline_par", |b| {
        b.iter(|| {
            bodies
                .positions
                .par_iter_mut()
                .zip(&mut bodies.transforms)
                .for_each(|(p, t)| work(p, t));
            black_box(&mut bodies);
        })
    });
}
