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
