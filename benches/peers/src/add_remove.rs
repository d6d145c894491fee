//! add_remove: 10,000 entities with `A`; each pass inserts `B` on every
//! entity, then removes it again (taking the value back where the API gives
//! it: our `remove`, hecs' `remove_one`, bevy's `take`).
//!
//! The baseline is two hand-written struct-of-arrays tables with the row
//! moves an archetype ECS cannot avoid ([`two_tables`]).

use crate::shared::two_tables;
use crate::Group;
use bevy_ecs::component::Component;
use criterion::Criterion;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

/// Carried through every move, never read: the payload of the workload.
#[derive(Component, Clone, Copy)]
pub struct A(pub f32);

/// Carried through every move, never read: the payload of the workload.
#[derive(Component, Clone, Copy)]
pub struct B(pub f32);

#[derive(ecs::schema::Schema)]
pub struct AddRemove {
    a: A,
    b: B,
}

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");
    ours(&mut group);
    hecs(&mut group);
    bevy(&mut group);
    baseline(&mut group);
    group.finish();
}

fn ours(group: &mut Group) {
    let mut world = ecs::world::World::<AddRemove>::new();
    let entities: Vec<_> = world
        .spawn_batch((0..ENTITIES).map(|_| (A(0.0),)))
        .collect();
    group.bench_function("ours", |b| {
        b.iter(|| {
            for &entity in &entities {
                world.insert(entity, (B(0.0),)).unwrap();
            }
            for &entity in &entities {
                black_box(world.remove::<B>(entity).unwrap());
            }
        })
    });
}

fn hecs(group: &mut Group) {
    let mut world = hecs::World::new();
    let entities: Vec<_> = world
        .spawn_batch((0..ENTITIES).map(|_| (A(0.0),)))
        .collect();
    group.bench_function("hecs", |b| {
        b.iter(|| {
            for &entity in &entities {
                world.insert_one(entity, B(0.0)).unwrap();
            }
            for &entity in &entities {
                black_box(world.remove_one::<B>(entity).unwrap());
            }
        })
    });
}

fn bevy(group: &mut Group) {
    let mut world = bevy_ecs::world::World::new();
    let entities: Vec<_> = world
        .spawn_batch((0..ENTITIES).map(|_| (A(0.0),)))
        .collect();
    group.bench_function("bevy", |b| {
        b.iter(|| {
            for &entity in &entities {
                world.entity_mut(entity).insert(B(0.0));
            }
            for &entity in &entities {
                black_box(world.entity_mut(entity).take::<B>().unwrap());
            }
        })
    });
}

fn baseline(group: &mut Group) {
    let mut base = two_tables::Baseline::new(ENTITIES, A(0.0));
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for entity in 0..ENTITIES as u32 {
                base.insert_b(entity, B(0.0));
            }
            for entity in 0..ENTITIES as u32 {
                black_box(base.remove_b(entity));
            }
        })
    });
}
