//! simple_iter: 10,000 entities with a 4x4 `Transform`, `Position`,
//! `Rotation` and `Velocity`; each pass adds velocity to position.
//!
//! Ours four times, each with a query made on the world per pass:
//! `ours_for_each` (the query's internal iteration, our fast path),
//! `ours_for_each_reversed` (the same with the items in the other order,
//! `(&Velocity, &mut Position)`), `ours_for` (`for … in iter_mut()`, as hecs
//! runs its `query_mut`) and `ours_iter_for_each` (`iter_mut().for_each(…)`,
//! as bevy runs a `QueryState` made before timing). The baseline is the same
//! loop over parallel `Vec`s.

use crate::shared::{bevy_bodies, hecs_bodies, identity, ours_bodies, Bodies, Position, Velocity};
use crate::Group;
use criterion::Criterion;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");
    ours_for_each(&mut group);
    ours_for_each_reversed(&mut group);
    ours_for(&mut group);
    ours_iter_for_each(&mut group);
    hecs(&mut group);
    bevy(&mut group);
    baseline(&mut group);
    group.finish();
}

#[inline(always)]
fn step(position: &mut Position, velocity: &Velocity) {
    for (p, v) in position.0.iter_mut().zip(velocity.0) {
        *p += v;
    }
}

fn ours_for_each(group: &mut Group) {
    let mut world = ours_bodies(ENTITIES, identity());
    group.bench_function("ours_for_each", |b| {
        b.iter(|| {
            world
                .query_mut::<(&mut Position, &Velocity)>()
                .for_each_mut(|(p, v)| step(p, v));
            black_box(&mut world);
        })
    });
}

/// The items in the other order, `(&Velocity, &mut Position)`.
fn ours_for_each_reversed(group: &mut Group) {
    let mut world = ours_bodies(ENTITIES, identity());
    group.bench_function("ours_for_each_reversed", |b| {
        b.iter(|| {
            world
                .query_mut::<(&Velocity, &mut Position)>()
                .for_each_mut(|(v, p)| step(p, v));
            black_box(&mut world);
        })
    });
}

fn ours_for(group: &mut Group) {
    let mut world = ours_bodies(ENTITIES, identity());
    group.bench_function("ours_for", |b| {
        b.iter(|| {
            for (p, v) in world.query_mut::<(&mut Position, &Velocity)>().iter_mut() {
                step(p, v);
            }
            black_box(&mut world);
        })
    });
}

fn ours_iter_for_each(group: &mut Group) {
    let mut world = ours_bodies(ENTITIES, identity());
    group.bench_function("ours_iter_for_each", |b| {
        b.iter(|| {
            world
                .query_mut::<(&mut Position, &Velocity)>()
                .iter_mut()
                .for_each(|(p, v)| step(p, v));
            black_box(&mut world);
        })
    });
}

fn hecs(group: &mut Group) {
    let mut world = hecs_bodies(ENTITIES, identity());
    group.bench_function("hecs", |b| {
        b.iter(|| {
            for (p, v) in world.query_mut::<(&mut Position, &Velocity)>() {
                step(p, v);
            }
            black_box(&mut world);
        })
    });
}

fn bevy(group: &mut Group) {
    let mut world = bevy_bodies(ENTITIES, identity());
    let mut query = world.query::<(&mut Position, &Velocity)>();
    group.bench_function("bevy", |b| {
        b.iter(|| {
            query
                .iter_mut(&mut world)
                .for_each(|(mut p, v)| step(&mut p, v));
            black_box(&mut world);
        })
    });
}

fn baseline(group: &mut Group) {
    let mut bodies = Bodies::new(ENTITIES, identity());
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for (p, v) in bodies.positions.iter_mut().zip(&bodies.velocities) {
                step(p, v);
            }
            black_box(&mut bodies);
        })
    });
}
