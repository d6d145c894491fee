//! simple_insert: create a world and spawn 10,000 entities with a 4x4
//! `Transform`, `Position`, `Rotation` and `Velocity`. Creating the world is
//! timed, and so is dropping it (each closure's result is dropped inside
//! criterion's measured loop), as in ecs_bench_suite.
//!
//! `ours` spawns one entity at a time, `ours_batch` uses `spawn_batch`; hecs
//! and bevy use their `spawn_batch`, as the suite does, and, as `hecs_spawn`
//! and `bevy_spawn`, one `spawn` per entity like `ours`. `gecs_spawn` is
//! gecs's `create`, one entity at a time, into an archetype of dynamic
//! capacity that starts empty (gecs has no batch spawn). `ours_reserved`
//! and `gecs_reserved` do the same one at a time after making room for every
//! entity (`World::reserve`, gecs's `with_capacity`), as the baseline does:
//! it pushes into four `Vec`s made with room for every entity.

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
    gecs_spawn(&mut group);
    ours_reserved(&mut group);
    gecs_reserved(&mut group);
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

/// gecs's world: the body components in one archetype, declared at
/// compile time, of dynamic capacity (a fixed one would be allocated whole
/// when the world is made, which no other contender gets to do).
mod gecs_world {
    use crate::shared::{Position, Rotation, Transform, Velocity};
    use gecs::prelude::*;

    ecs_world! {
        ecs_archetype!(ArchBody, dyn, Transform, Position, Rotation, Velocity);
    }
}

/// gecs one entity at a time, beside `ours`: the same operation.
fn gecs_spawn(group: &mut Group) {
    use gecs::traits::World as _;
    use gecs_world::{ArchBody, EcsWorld};
    group.bench_function("gecs_spawn", |b| {
        b.iter(|| {
            let mut world = EcsWorld::default();
            for _ in 0..ENTITIES {
                black_box(world.create::<ArchBody>(bundle()));
            }
            world
        })
    });
}

/// `ours` after `World::reserve`: no column moves while spawning.
fn ours_reserved(group: &mut Group) {
    group.bench_function("ours_reserved", |b| {
        b.iter(|| {
            let mut world = ecs::world::World::<Body>::new();
            world.reserve::<BodyBundle>(ENTITIES);
            for _ in 0..ENTITIES {
                black_box(world.spawn(bundle()));
            }
            world
        })
    });
}

/// `gecs_spawn` into an archetype made with room for every entity.
fn gecs_reserved(group: &mut Group) {
    use gecs::traits::World as _;
    use gecs_world::{ArchBody, EcsWorld};
    group.bench_function("gecs_reserved", |b| {
        b.iter(|| {
            let mut world = EcsWorld::with_capacity(ENTITIES);
            for _ in 0..ENTITIES {
                black_box(world.create::<ArchBody>(bundle()));
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
