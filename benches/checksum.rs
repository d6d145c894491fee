//! `World::checksum` of a 100,000-entity world with two plain components
//! (an `f32` and a `u32` newtype), what a rollback session computes for
//! every saved frame.
//!
//! * `ecs_checksum`: `world.checksum()`.
//! * `ecs_checksum_parts`: `world.checksum_parts()`, the same bytes hashed
//!   into one hasher per part (the entities, each component, each
//!   resource, the change state, the locals).
//! * `ecs_diff`: `world.diff(&other)` against a copy in which one entity's
//!   `Ammo` differs: both worlds' parts, then each entity's `Ammo` in both
//!   (issue 45, item 1).
//! * `ecs_run` and `ecs_find_divergence`: a schedule of three systems
//!   (each writes one component of every entity) run once, and
//!   `Schedule::find_divergence` of it from the same world: two runs one
//!   system at a time, a copy and a checksum of the world after each
//!   (issue 45, item 3).
//! * `xxh3_128_columns`: the floor, XXH3-128 of the two columns' bytes
//!   (little-endian, 8 bytes per entity), built before timing starts and
//!   hashed in one call.
//! * `xxh3_128_columns_and_entity_bookkeeping`: the floor plus the 8 bytes
//!   per entity a checksum covers beside the components (the generation in
//!   its slot and its table's row entry, 4 bytes each), hashed the same way:
//!   all that `ecs_checksum` hashes, as one buffer.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use ecs::StableHash;
use std::hint::black_box;
use xxhash_rust::xxh3::xxh3_128;

const ENTITIES: usize = 100_000;

#[derive(Clone, Copy, StableHash)]
struct Mass(f32);

#[derive(Clone, Copy, StableHash)]
struct Ammo(u32);

#[derive(Schema)]
struct Bench {
    mass: Mass,
    ammo: Ammo,
}

fn row(i: usize) -> (Mass, Ammo) {
    (Mass(i as f32 * 0.5), Ammo(i as u32 ^ 0x5555))
}

fn checksum(c: &mut Criterion) {
    let mut group = c.benchmark_group("checksum");

    let mut world = World::<Bench>::new();
    world.spawn_batch((0..ENTITIES).map(row));
    group.bench_function("ecs_checksum", |b| b.iter(|| black_box(&world).checksum()));
    // The same bytes, one hasher per part (issue 45, item 2).
    group.bench_function("ecs_checksum_parts", |b| {
        b.iter(|| black_box(&world).checksum_parts())
    });
    let mut other = world.clone();
    let one = other.iter().nth(ENTITIES / 2).unwrap();
    other.get_mut::<Ammo>(one).unwrap().0 += 1;
    assert_eq!(
        world.diff(&other).component("Ammo").unwrap().values(),
        [one]
    );
    group.bench_function("ecs_diff", |b| b.iter(|| black_box(&world).diff(&other)));

    let mut columns = Vec::with_capacity(ENTITIES * 8);
    for i in 0..ENTITIES {
        columns.extend_from_slice(&row(i).0 .0.to_le_bytes());
    }
    for i in 0..ENTITIES {
        columns.extend_from_slice(&row(i).1 .0.to_le_bytes());
    }
    group.bench_function("xxh3_128_columns", |b| {
        b.iter(|| xxh3_128(black_box(&columns)))
    });

    let mut everything = columns.clone();
    for i in 0..ENTITIES as u32 {
        for word in [1, i] {
            everything.extend_from_slice(&u32::to_le_bytes(word));
        }
    }
    group.bench_function("xxh3_128_columns_and_entity_bookkeeping", |b| {
        b.iter(|| xxh3_128(black_box(&everything)))
    });

    let mut schedule = Schedule::<Bench>::new();
    schedule.add(heavier).add(reload).add(heavier);
    let mut running = world.clone();
    group.bench_function("ecs_run", |b| b.iter(|| schedule.run(&mut running)));
    assert!(schedule.find_divergence(&world).is_none());
    group.bench_function("ecs_find_divergence", |b| {
        b.iter(|| schedule.find_divergence(black_box(&world)))
    });

    group.finish();
}

fn heavier(mut masses: Query<&mut Mass>) {
    masses.for_each_mut(|mass| mass.0 += 1.0);
}

fn reload(mut ammo: Query<&mut Ammo>) {
    ammo.for_each_mut(|ammo| ammo.0 = ammo.0.wrapping_add(3));
}

criterion_group!(benches, checksum);
criterion_main!(benches);
