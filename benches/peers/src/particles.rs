//! particles: 1,000,000 particles with a position and a velocity of three
//! `f32` each; each pass does `pos += vel * dt`. Not an ecs_bench_suite
//! workload: the one where field-by-field storage (`#[ecs(soa)]`) pays.
//!
//! Ours twice, the same components stored both ways: `ours_soa_table` (an
//! SoA schema, the table form of `Fields`: one slice per field) and
//! `ours_table` (stored whole, the table form: one slice of structs per
//! component); then hecs and bevy, which store whole values only, each
//! with its fastest loop (hecs's `query_mut`, bevy's `QueryState` made
//! before timing, `for_each`). The baseline is the loop over six `Vec<f32>`.
//!
//! `particles_sum`: a read loop one entity at a time over 100,000 of the
//! same particles, the sum of every `pos.x` into 8 lanes (entity `i` into
//! lane `i % 8`). Ours per entity over `Fields<&Pos>` (`ours_soa`) and over
//! `&Pos` (`ours`), and the SoA table form (`ours_soa_table`); hecs's
//! `query` iterator and bevy's `for_each` on a kept `QueryState`; the
//! baseline is the same loop over a `Vec<f32>` of the x field.

use crate::Group;
use bevy_ecs::component::Component;
use criterion::Criterion;
use ecs::prelude::*;
use ecs::query::Fields;
use std::hint::black_box;

const PARTICLES: usize = 1_000_000;
const DT: f32 = 1.0 / 60.0;

/// A position, stored field by field where its schema field says
/// `#[ecs(soa)]`.
#[derive(Soa, Component, Clone, Copy)]
pub struct Pos {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// A velocity; see [`Pos`].
#[derive(Soa, Component, Clone, Copy)]
pub struct Vel {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Schema)]
pub struct SoaParticles {
    #[ecs(soa)]
    pos: Pos,
    #[ecs(soa)]
    vel: Vel,
}

#[derive(Schema)]
pub struct WholeParticles {
    pos: Pos,
    vel: Vel,
}

fn particle(i: usize) -> (Pos, Vel) {
    let f = i as f32;
    (
        Pos {
            x: f,
            y: -f,
            z: 0.5 * f,
        },
        Vel {
            x: 1.0,
            y: 0.25,
            z: -0.5,
        },
    )
}

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("particles");
    ours_soa_table(&mut group);
    ours_table(&mut group);
    hecs(&mut group);
    bevy(&mut group);
    baseline(&mut group);
    group.finish();

    let mut group = c.benchmark_group("particles_sum");
    sum(&mut group, 100_000);
    group.finish();
}

/// Adds `x` to lane `i % 8`, then moves `i` on: a per-entity body.
#[inline(always)]
fn add_to_lane(lanes: &mut [f32; 8], i: &mut usize, x: f32) {
    lanes[*i % 8] += x;
    *i += 1;
}

/// Every contender of `particles_sum`, over `count` particles; each checks
/// its lanes against the baseline's before timing.
fn sum(group: &mut Group, count: usize) {
    let xs: Vec<f32> = (0..count).map(|i| particle(i).0.x).collect();
    let floor = |xs: &[f32]| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        for &x in xs {
            add_to_lane(&mut lanes, &mut i, x);
        }
        lanes
    };
    let expected = floor(&xs);

    let mut world = World::<SoaParticles>::new();
    world.spawn_batch((0..count).map(particle));
    let soa = |world: &World<SoaParticles>| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        world
            .query::<Fields<&Pos>>()
            .for_each(|p| add_to_lane(&mut lanes, &mut i, *p.x));
        lanes
    };
    let soa_table = |world: &World<SoaParticles>| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        world.query::<Fields<&Pos>>().for_each_table(|_, p| {
            for &x in p.x {
                add_to_lane(&mut lanes, &mut i, x);
            }
        });
        lanes
    };
    assert_eq!(soa(&world), expected);
    assert_eq!(soa_table(&world), expected);
    group.bench_function("ours_soa", |b| b.iter(|| black_box(soa(&world))));
    group.bench_function("ours_soa_table", |b| {
        b.iter(|| black_box(soa_table(&world)))
    });
    drop(world);

    let mut world = World::<WholeParticles>::new();
    world.spawn_batch((0..count).map(particle));
    let whole = |world: &World<WholeParticles>| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        world
            .query::<&Pos>()
            .for_each(|p| add_to_lane(&mut lanes, &mut i, p.x));
        lanes
    };
    assert_eq!(whole(&world), expected);
    group.bench_function("ours", |b| b.iter(|| black_box(whole(&world))));
    drop(world);

    let mut world = hecs::World::new();
    world.spawn_batch((0..count).map(particle));
    let by_hecs = |world: &mut hecs::World| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        for p in world.query_mut::<&Pos>() {
            add_to_lane(&mut lanes, &mut i, p.x);
        }
        lanes
    };
    assert_eq!(by_hecs(&mut world), expected);
    group.bench_function("hecs", |b| b.iter(|| black_box(by_hecs(&mut world))));
    drop(world);

    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..count).map(particle));
    let mut query = world.query::<&Pos>();
    let mut by_bevy = |world: &bevy_ecs::world::World| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        query
            .iter(world)
            .for_each(|p| add_to_lane(&mut lanes, &mut i, p.x));
        lanes
    };
    assert_eq!(by_bevy(&world), expected);
    group.bench_function("bevy", |b| b.iter(|| black_box(by_bevy(&world))));

    group.bench_function("baseline", |b| b.iter(|| black_box(floor(&xs))));
}

#[inline(always)]
fn step(p: &mut Pos, v: &Vel, dt: f32) {
    p.x += v.x * dt;
    p.y += v.y * dt;
    p.z += v.z * dt;
}

/// `pos += vel * dt` over one field's arrays.
#[inline(always)]
fn axpy(p: &mut [f32], v: &[f32], dt: f32) {
    for (p, v) in p.iter_mut().zip(v) {
        *p += v * dt;
    }
}

fn ours_soa_table(group: &mut Group) {
    let mut world = World::<SoaParticles>::new();
    world.spawn_batch((0..PARTICLES).map(particle));
    group.bench_function("ours_soa_table", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            world
                .query_mut::<(Fields<&mut Pos>, Fields<&Vel>)>()
                .for_each_table_mut(|_, (p, v)| {
                    axpy(p.x, v.x, dt);
                    axpy(p.y, v.y, dt);
                    axpy(p.z, v.z, dt);
                });
            black_box(&mut world);
        })
    });
}

fn ours_table(group: &mut Group) {
    let mut world = World::<WholeParticles>::new();
    world.spawn_batch((0..PARTICLES).map(particle));
    group.bench_function("ours_table", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            world
                .query_mut::<(&mut Pos, &Vel)>()
                .for_each_table_mut(|_, (p, v)| {
                    for (p, v) in p.iter_mut().zip(v) {
                        step(p, v, dt);
                    }
                });
            black_box(&mut world);
        })
    });
}

fn hecs(group: &mut Group) {
    let mut world = hecs::World::new();
    world.spawn_batch((0..PARTICLES).map(particle));
    group.bench_function("hecs", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            for (p, v) in world.query_mut::<(&mut Pos, &Vel)>() {
                step(p, v, dt);
            }
            black_box(&mut world);
        })
    });
}

fn bevy(group: &mut Group) {
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..PARTICLES).map(particle));
    let mut query = world.query::<(&mut Pos, &Vel)>();
    group.bench_function("bevy", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            query
                .iter_mut(&mut world)
                .for_each(|(mut p, v)| step(&mut p, v, dt));
            black_box(&mut world);
        })
    });
}

/// Six `Vec<f32>`, one per field: the floor for field-by-field storage.
fn baseline(group: &mut Group) {
    let (mut px, mut py, mut pz) = (Vec::new(), Vec::new(), Vec::new());
    let (mut vx, mut vy, mut vz) = (Vec::new(), Vec::new(), Vec::new());
    for (p, v) in (0..PARTICLES).map(particle) {
        px.push(p.x);
        py.push(p.y);
        pz.push(p.z);
        vx.push(v.x);
        vy.push(v.y);
        vz.push(v.z);
    }
    group.bench_function("baseline", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            axpy(&mut px, &vx, dt);
            axpy(&mut py, &vy, dt);
            axpy(&mut pz, &vz, dt);
            black_box((&mut px, &mut py, &mut pz));
        })
    });
}
