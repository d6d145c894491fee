//! What applying commands costs beside making the same changes directly.
//!
//! Structural changes recorded through `Commands` are applied one by one
//! after their system, on the calling thread: in a frame full of them (the
//! churn frames of `benches/frame.rs`) that serial part decides how fast the
//! frame is. Each group runs one schedule of one system per iteration, on a
//! world of 10,000 `Bullet`s (`Pos`, `Vel`) and 10,000 `Target`s, and
//! beside it the same changes made by an exclusive system through the
//! `World` methods, the floor for a change made one entity at a time:
//!
//! * `commands_respawn`: despawn every bullet and spawn 10,000 new ones;
//!   beside the two, `despawner` records the despawns through a
//!   `Despawner` (made in one batch when the run ends) and `world_batch`
//!   makes them with one `World::despawn_batch`;
//! * `commands_flip_sparse`: insert the sparse `Mark` on every target
//!   without it and remove it from every target with it (10,000 changes).
//!
//! The schema has four sparse components, as a game's would have several:
//! a despawn looks in each set.

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use ecs::command::Despawner;
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: u32 = 10_000;

// Payloads that only move with their rows.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Pos([f32; 3]);
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Vel([f32; 3]);
#[derive(Clone, Copy)]
struct Target(u32);
// Sparse components: `Mark` is flipped; the others are never set, as most
// of a game's sparse components are absent from most of its entities.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Mark(u32);
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Stun(u32);
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Burn(u32);
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Shield(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    target: Target,
    #[ecs(sparse)]
    mark: Mark,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(sparse)]
    burn: Burn,
    #[ecs(sparse)]
    shield: Shield,
}

fn bullet(i: u32) -> (Pos, Vel) {
    (Pos([i as f32, 0.0, 0.0]), Vel([0.0, 1.0, 0.0]))
}

fn world() -> World<Game> {
    let mut world = World::new();
    world.spawn_batch((0..ENTITIES).map(bullet));
    world.spawn_batch((0..ENTITIES).map(|i| (Target(i),)));
    world
}

/// Despawns every bullet and spawns as many, through commands.
fn respawn_commands(bullets: Query<Entity, With<Pos>>, mut commands: Commands<Game>) {
    for entity in bullets.iter() {
        commands.despawn(entity);
    }
    for i in 0..ENTITIES {
        commands.spawn(bullet(i));
    }
}

/// The same changes through the `World` methods.
fn respawn_world(world: &mut World<Game>) {
    let bullets: Vec<Entity> = world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(e, _)| e)
        .collect();
    for entity in bullets {
        world.despawn(entity).unwrap();
    }
    for i in 0..ENTITIES {
        world.spawn(bullet(i));
    }
}

/// The respawn with the despawns recorded through a `Despawner`, made in
/// one batch when the run ends (the spawns through commands).
fn respawn_despawner(
    bullets: Query<Entity, With<Pos>>,
    mut despawner: Despawner<Game>,
    mut commands: Commands<Game>,
) {
    for entity in bullets.iter() {
        despawner.despawn(entity);
    }
    for i in 0..ENTITIES {
        commands.spawn(bullet(i));
    }
}

/// The respawn through the `World` methods, the despawns in one
/// `despawn_batch`.
fn respawn_world_batch(world: &mut World<Game>) {
    let bullets: Vec<Entity> = world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(e, _)| e)
        .collect();
    world.despawn_batch(&bullets);
    for i in 0..ENTITIES {
        world.spawn(bullet(i));
    }
}

/// Marks every target without a mark and unmarks the others, through
/// commands.
fn flip_commands(targets: Query<(Entity, &Target, Has<Mark>)>, mut commands: Commands<Game>) {
    for (entity, target, marked) in targets.iter() {
        if marked {
            commands.remove::<Mark>(entity);
        } else {
            commands.insert(entity, (Mark(target.0),));
        }
    }
}

/// The same changes through the `World` methods.
fn flip_world(world: &mut World<Game>) {
    let targets: Vec<(Entity, u32, bool)> = world
        .query::<(Entity, &Target, Has<Mark>)>()
        .iter()
        .map(|(entity, target, marked)| (entity, target.0, marked))
        .collect();
    for (entity, target, marked) in targets {
        if marked {
            world.remove::<Mark>(entity).unwrap();
        } else {
            world.insert(entity, (Mark(target),)).unwrap();
        }
    }
}

fn bench_pair(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    commands: Schedule<Game>,
    direct: Schedule<Game>,
) {
    bench_schedules(group, [("commands", commands), ("world", direct)]);
}

fn bench_schedules<const N: usize>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    schedules: [(&str, Schedule<Game>); N],
) {
    for (name, mut schedule) in schedules {
        let mut world = world();
        schedule.run_sequential(&mut world);
        group.bench_function(name, |b| {
            b.iter(|| {
                schedule.run_sequential(&mut world);
                black_box(&mut world);
            })
        });
    }
}

fn commands(c: &mut Criterion) {
    let mut group = c.benchmark_group("commands_respawn");
    let mut through_commands = Schedule::new();
    through_commands.add(respawn_commands);
    let mut direct = Schedule::new();
    direct.add(respawn_world);
    let mut despawner = Schedule::new();
    despawner.add(respawn_despawner);
    let mut batch = Schedule::new();
    batch.add(respawn_world_batch);
    bench_schedules(
        &mut group,
        [
            ("commands", through_commands),
            ("world", direct),
            ("despawner", despawner),
            ("world_batch", batch),
        ],
    );
    group.finish();

    let mut group = c.benchmark_group("commands_flip_sparse");
    let mut through_commands = Schedule::new();
    through_commands.add(flip_commands);
    let mut direct = Schedule::new();
    direct.add(flip_world);
    bench_pair(&mut group, through_commands, direct);
    group.finish();
}

criterion_group!(benches, commands);
criterion_main!(benches);
