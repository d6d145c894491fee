//! What rollback netcode (GGRS) asks of a world every frame.
//!
//! * `save_frame/{10000,100000}`: the Save request, `clone_from` into the
//!   frame's slot of a ring plus `checksum`, for a world of that many
//!   entities with three plain components (a position, a velocity, a
//!   team), beside each half alone and the floor: `clone_from` of the same
//!   three component `Vec`s into pre-allocated ones (a memcpy).
//! * `rollback_8`: a Load (restore a snapshot taken 8 frames ago) and 8
//!   frames simulated again, of a small arena game (10,000 bodies; steering
//!   from inputs, movement, spawning and despawning of sparks, a `Local`
//!   cooldown), beside the same 8 frames simulated straight from a copy of
//!   the same state, and the restore alone. Target: the rollback at most
//!   1.1× the straight frames plus one restore.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ecs::prelude::*;
use ecs::StableHash;
use std::hint::black_box;

#[derive(Clone, Copy, StableHash)]
struct Pos([f32; 2]);
#[derive(Clone, Copy, StableHash)]
struct Vel([f32; 2]);
#[derive(Clone, Copy, StableHash)]
struct Team(u32);
/// A spark burns out after this many frames.
#[derive(Clone, Copy, StableHash)]
struct Spark(u32);
/// The frame's inputs, one byte per player.
#[derive(Clone, Copy, Default, StableHash)]
struct Inputs([u8; 2]);

#[derive(Schema)]
struct Arena {
    pos: Pos,
    vel: Vel,
    team: Team,
    spark: Spark,
    #[ecs(resource)]
    inputs: Inputs,
}

fn body(i: usize) -> (Pos, Vel, Team) {
    let x = i as f32;
    (
        Pos([x % 100.0, x / 100.0]),
        Vel([((i * 7) % 11) as f32 * 0.1, ((i * 3) % 5) as f32 * 0.1]),
        Team((i % 2) as u32),
    )
}

fn arena(bodies: usize) -> World<Arena> {
    let mut world = World::<Arena>::new();
    world.spawn_batch((0..bodies).map(body));
    world
}

fn steer(mut bodies: Query<(&Team, &mut Vel), Without<Spark>>, inputs: Res<Inputs>) {
    bodies.for_each_mut(|(team, vel)| {
        let input = inputs.0[team.0 as usize];
        vel.0[0] = (vel.0[0] + f32::from(input & 1) - f32::from(input >> 1 & 1)) * 0.9;
    });
}

fn inertia(mut movers: Query<(&mut Pos, &Vel)>) {
    movers.for_each_mut(|(pos, vel)| {
        pos.0[0] = (pos.0[0] + vel.0[0]).rem_euclid(100.0);
        pos.0[1] = (pos.0[1] + vel.0[1]).rem_euclid(100.0);
    });
}

fn fire(
    bodies: Query<(&Pos, &Team), Without<Spark>>,
    mut cooldown: Local<u32>,
    mut commands: Commands<Arena>,
) {
    if *cooldown > 0 {
        *cooldown -= 1;
        return;
    }
    *cooldown = 2;
    for (pos, team) in bodies.iter().step_by(100) {
        commands.spawn((*pos, Vel([1.0, 0.0]), *team, Spark(6)));
    }
}

fn burn(mut sparks: Query<(Entity, &mut Spark)>, mut commands: Commands<Arena>) {
    sparks.for_each_mut(|(entity, spark)| {
        spark.0 -= 1;
        if spark.0 == 0 {
            commands.despawn(entity);
        }
    });
}

fn game() -> Schedule<Arena> {
    let mut schedule = Schedule::new();
    schedule.add(steer).add(inertia).add(fire).add(burn);
    schedule
}

/// Runs `frames` frames with inputs that change every frame.
fn play(schedule: &mut Schedule<Arena>, world: &mut World<Arena>, frames: u32) {
    for _ in 0..frames {
        let inputs = world.resource_mut::<Inputs>();
        inputs.0 = [inputs.0[1].wrapping_add(1) % 4, inputs.0[0]];
        schedule.run(world);
    }
}

fn save_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("save_frame");
    for entities in [10_000, 100_000] {
        let world = arena(entities);
        let mut slot = world.clone();
        group.bench_function(format!("{entities}/clone_from_and_checksum"), |b| {
            b.iter(|| {
                slot.clone_from(&world);
                black_box(world.checksum())
            })
        });
        group.bench_function(format!("{entities}/clone_from"), |b| {
            b.iter(|| slot.clone_from(black_box(&world)))
        });
        group.bench_function(format!("{entities}/checksum"), |b| {
            b.iter(|| black_box(black_box(&world).checksum()))
        });
        let columns = |world: &World<Arena>| {
            let mut pos = Vec::with_capacity(entities);
            let mut vel = Vec::with_capacity(entities);
            let mut team = Vec::with_capacity(entities);
            world.query::<(&Pos, &Vel, &Team)>().for_each(|(p, v, t)| {
                pos.push(*p);
                vel.push(*v);
                team.push(*t);
            });
            (pos, vel, team)
        };
        let source = columns(&world);
        let mut target = columns(&world);
        group.bench_function(format!("{entities}/memcpy_floor"), |b| {
            b.iter(|| {
                let (pos, vel, team) = black_box(&source);
                target.0.clone_from(pos);
                target.1.clone_from(vel);
                target.2.clone_from(team);
            })
        });
    }
    group.finish();
}

fn rollback_8(c: &mut Criterion) {
    let mut group = c.benchmark_group("rollback_8");
    let mut schedule = game();
    let mut world = arena(10_000);
    // Warm: sparks alive, the schedule's measurements taken.
    play(&mut schedule, &mut world, 30);
    let snapshot = world.clone();
    play(&mut schedule, &mut world, 8);
    group.bench_function("straight_8_frames", |b| {
        b.iter_batched_ref(
            || snapshot.clone(),
            |world| play(&mut schedule, world, 8),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("restore", |b| {
        b.iter(|| world.clone_from(black_box(&snapshot)))
    });
    group.bench_function("restore_and_8_frames", |b| {
        b.iter(|| {
            world.clone_from(black_box(&snapshot));
            play(&mut schedule, &mut world, 8);
        })
    });
    group.finish();
}

criterion_group!(benches, save_frame, rollback_8);
criterion_main!(benches);
