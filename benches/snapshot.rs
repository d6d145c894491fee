//! Snapshots of a 100,000-entity world with simple_iter's four components.
//!
//! * `snapshot`: `World::clone_from` into a world of the same shape (what a
//!   rollback ring does every frame) against the floor, `clone_from` of the
//!   same four component `Vec`s into pre-allocated ones; and, to show what
//!   the rest of the gap is, the floor plus the 16 bytes per entity a world
//!   keeps beside its components (a 12-byte slot, a 4-byte row entry), copied
//!   the same way.
//! * `save_load` (feature `serde`: `cargo bench -p ecs-benches --features
//!   serde --bench snapshot`): save the world with postcard and load it back,
//!   against saving and loading the same four `Vec`s directly; and the same
//!   in JSON, in the compact form and the readable one (`World::readable`).
//!   The sizes of the four saves are printed first.

#![cfg_attr(not(feature = "serde"), allow(dead_code))]

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 100_000;

#[derive(Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Transform([[f32; 4]; 4]);

#[derive(Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Position([f32; 3]);

#[derive(Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Rotation([f32; 3]);

#[derive(Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Velocity([f32; 3]);

#[derive(Schema)]
struct Bench {
    transform: Transform,
    position: Position,
    rotation: Rotation,
    velocity: Velocity,
}

fn transform(i: usize) -> Transform {
    let mut m = [[0.0; 4]; 4];
    for (k, row) in m.iter_mut().enumerate() {
        row[k] = 1.0 + i as f32;
    }
    Transform(m)
}

fn row(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let x = i as f32;
    (
        transform(i),
        Position([x, 0.0, 0.0]),
        Rotation([1.0, x, 0.0]),
        Velocity([1.0, 0.0, x]),
    )
}

fn world() -> World<Bench> {
    let mut world = World::new();
    world.spawn_batch((0..ENTITIES).map(row));
    world
}

/// The same values as four `Vec`s; `clone_from` refills each in place.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Baseline {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

impl Clone for Baseline {
    fn clone(&self) -> Self {
        Baseline {
            transforms: self.transforms.clone(),
            positions: self.positions.clone(),
            rotations: self.rotations.clone(),
            velocities: self.velocities.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.transforms.clone_from(&source.transforms);
        self.positions.clone_from(&source.positions);
        self.rotations.clone_from(&source.rotations);
        self.velocities.clone_from(&source.velocities);
    }
}

fn baseline() -> Baseline {
    let rows: Vec<_> = (0..ENTITIES).map(row).collect();
    Baseline {
        transforms: rows.iter().map(|r| r.0).collect(),
        positions: rows.iter().map(|r| r.1).collect(),
        rotations: rows.iter().map(|r| r.2).collect(),
        velocities: rows.iter().map(|r| r.3).collect(),
    }
}

fn snapshot(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot");

    let source = world();
    let mut target = world();
    group.bench_function("ecs_clone_from", |b| {
        b.iter(|| {
            target.clone_from(black_box(&source));
            black_box(&mut target);
        })
    });

    let source = baseline();
    let mut target = baseline();
    group.bench_function("baseline", |b| {
        b.iter(|| {
            target.clone_from(black_box(&source));
            black_box(&mut target);
        })
    });

    // The entity bookkeeping of a world, as plain data of the same size.
    let slots: Vec<[u32; 3]> = (0..ENTITIES as u32).map(|i| [1, 1, i]).collect();
    let rows: Vec<u32> = (0..ENTITIES as u32).collect();
    let (mut target_slots, mut target_rows) = (slots.clone(), rows.clone());
    group.bench_function("baseline_and_entity_bookkeeping", |b| {
        b.iter(|| {
            target.clone_from(black_box(&source));
            target_slots.clone_from(black_box(&slots));
            target_rows.clone_from(black_box(&rows));
            black_box((&mut target, &mut target_slots, &mut target_rows));
        })
    });

    group.finish();
}

#[cfg(feature = "serde")]
fn save_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("save_load");
    group.sample_size(20);

    let source = world();
    group.bench_function("ecs_postcard", |b| {
        b.iter(|| {
            let bytes = postcard::to_stdvec(black_box(&source)).unwrap();
            let loaded: World<Bench> = postcard::from_bytes(&bytes).unwrap();
            black_box(loaded)
        })
    });

    let source = baseline();
    group.bench_function("baseline_postcard", |b| {
        b.iter(|| {
            let bytes = postcard::to_stdvec(black_box(&source)).unwrap();
            let loaded: Baseline = postcard::from_bytes(&bytes).unwrap();
            black_box(loaded)
        })
    });

    let world = world();
    let vecs = baseline();
    eprintln!(
        "save_load sizes, {ENTITIES} entities: postcard {} bytes (four Vecs: {}); JSON compact {} \
         bytes, readable {} (four Vecs: {})",
        postcard::to_stdvec(&world).unwrap().len(),
        postcard::to_stdvec(&vecs).unwrap().len(),
        serde_json::to_string(&world).unwrap().len(),
        serde_json::to_string(&world.readable()).unwrap().len(),
        serde_json::to_string(&vecs).unwrap().len(),
    );
    group.bench_function("ecs_json", |b| {
        b.iter(|| {
            let text = serde_json::to_string(black_box(&world)).unwrap();
            let loaded: World<Bench> = serde_json::from_str(&text).unwrap();
            black_box(loaded)
        })
    });
    group.bench_function("ecs_json_readable", |b| {
        b.iter(|| {
            let text = serde_json::to_string(&black_box(&world).readable()).unwrap();
            let loaded: World<Bench> = serde_json::from_str(&text).unwrap();
            black_box(loaded)
        })
    });
    group.bench_function("baseline_json", |b| {
        b.iter(|| {
            let text = serde_json::to_string(black_box(&vecs)).unwrap();
            let loaded: Baseline = serde_json::from_str(&text).unwrap();
            black_box(loaded)
        })
    });

    group.finish();
}

#[cfg(not(feature = "serde"))]
fn save_load(_: &mut Criterion) {}

criterion_group!(benches, snapshot, save_load);
criterion_main!(benches);
