//! simple_insert: create a world and spawn 10,000 entities with a 4x4
//! `Transform`, `Position`, `Rotation` and `Velocity`. Creating the world is
//! timed, and so is dropping it (each closure's result is dropped inside
//! criterion's measured loop), as in ecs_bench_suite.
//!
//! `ours` spawns one entity at a time, `ours_batch` uses `spawn_batch`; hecs
//! and bevy use their `spawn_batch`, as the suite does. The baseline pushes
//! into four `Vec`s made with room for every entity.

use crate::shared::{body, identity, Bodies, Body, BodyBundle};
use crate::Group;
use criterion::Criterion;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");
    ours(&mut group);
    ours_batch(&mut group);
    hecs(&mut group);
    bevy(&mut group);
    baseline(&mut group);
    group.finish();
}

/// The components of every spawned entity; `black_box` keeps the compiler
/// from folding them into constants stored straight into the columns.
#[inline(always)]
fn bundle() -> BodyBundle {
    black_box(body(identity()))
}

fn ours(group: &mut Group) {
    group.bench_function("ours", |b| {
        b.iter(|| {
            let mut world = ecs::World::<Body>::new();
            for _ in 0..ENTITIES {
                black_box(world.spawn(bundle()));
            }
            world
        })
    });
}

fn ours_batch(group: &mut Group) {
    group.bench_function("ours_batch", |b| {
        b.iter(|| {
            let mut world = ecs::World::<Body>::new();
            black_box(world.spawn_batch((0..ENTITIES).map(|_| bundle())));
            world
        })
    });
}

fn hecs(group: &mut Group) {
    group.bench_function("hecs", |b| {
        b.iter(|| {
            let mut world = hecs::World::new();
            // Dropping the returned iterator spawns whatever it has not yet.
            world.spawn_batch((0..ENTITIES).map(|_| bundle()));
            world
        })
    });
}

fn bevy(group: &mut Group) {
    group.bench_function("bevy", |b| {
        b.iter(|| {
            let mut world = bevy_ecs::world::World::new();
            // Dropping the returned iterator spawns whatever it has not yet.
            world.spawn_batch((0..ENTITIES).map(|_| bundle()));
            world
        })
    });
}

fn baseline(group: &mut Group) {
    group.bench_function("baseline", |b| {
        b.iter(|| {
            let mut bodies = Bodies::with_capacity(ENTITIES);
            for _ in 0..ENTITIES {
                bodies.push(bundle());
            }
            bodies
        })
    });
}
