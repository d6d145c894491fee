//! simple_insert: create a world and spawn 10,000 entities with a 4x4
//! `Transform`, `Position`, `Rotation` and `Velocity`. Creating the world is
//! timed, and so is dropping it (each closure's result is dropped inside
//! criterion's measured loop), as in ecs_bench_suite.
//!
//! `ours` spawns one entity at a time, `ours_batch` uses `spawn_batch`; hecs
//! and bevy use their `spawn_batch`, as the suite does, and, as `hecs_spawn`
//! and `bevy_spawn`, one `spawn` per entity like `ours`. The baseline pushes
//! into four `Vec`s made with room for every entity.

use crate::shared::{identity, Bodies, Body, BodyBundle, Position, Rotation, Velocity};
use crate::Group;
use criterion::Criterion;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");
    ours(&mut group);
    ours_batch(&mut group);
    hecs(&mut group);
    hecs_spawn(&mut group);
    bevy(&mut group);
    bevy_spawn(&mut group);
    baseline(&mut group);
    group.finish();
}

/// The components of every spawned entity. The suite spawns constants; one
/// `black_box`ed scalar keeps the compiler from folding them into constants
/// stored straight into the columns, while the values stay in registers (a
/// `black_box` of the whole tuple would put it in memory and copy it back
/// out with mismatched widths, timing store-forwarding stalls).
#[inline(always)]
fn bundle() -> BodyBundle {
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

fn ours(group: &mut Group) {
    group.bench_function("ours", |b| {
        b.iter(|| {
            let mut world = ecs::world::World::<Body>::new();
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
            let mut world = ecs::world::World::<Body>::new();
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

/// hecs one entity at a time, beside `ours`: the same operation.
fn hecs_spawn(group: &mut Group) {
    group.bench_function("hecs_spawn", |b| {
        b.iter(|| {
            let mut world = hecs::World::new();
            for _ in 0..ENTITIES {
                black_box(world.spawn(bundle()));
            }
            world
        })
    });
}

/// bevy one entity at a time, beside `ours`: the same operation.
fn bevy_spawn(group: &mut Group) {
    group.bench_function("bevy_spawn", |b| {
        b.iter(|| {
            let mut world = bevy_ecs::world::World::new();
            for _ in 0..ENTITIES {
                black_box(world.spawn(bundle()).id());
            }
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
