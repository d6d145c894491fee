//! Struct-of-arrays components (issue 29): 1,000,000 particles with a
//! position and a velocity of three `f32` each; each pass does
//! `pos += vel * dt`.
//!
//! The same components two ways: stored field by field (`#[ecs(soa)]`, the
//! query items `Fields<&mut Pos>` and `Fields<&Vel>`) and stored whole
//! (`&mut Pos`, `&Vel`), each through the table form (`for_each_table_mut`:
//! per table, one slice per field, or one slice of structs) and per entity
//! (`for_each_mut`). The baseline is the floor for field-by-field storage:
//! the same loop over six `Vec<f32>`, one per field.
//!
//! Each pass's `dt` goes through `black_box`, so that the multiply stays in
//! the loop. Two sizes: `soa` (1,000,000 particles, 24 MB: each pass
//! streams it through the last-level cache, shared with the other guests of
//! these VMs, so every form is bound by its bandwidth and the timings are
//! noisy) and `soa_10k` (10,000 particles, 240 KB: in the core's L2, where
//! the loop's instructions decide).
//!
//! `soa_sum`: a read loop, one entity at a time: the sum of every
//! particle's `pos.x` (100,000 particles) into 8 lanes, entity `i` into lane
//! `i % 8` (so that the additions need not wait on one another and the
//! loop may be vectorized). Per entity through `for_each`, over `Fields<&Pos>`
//! and over `&Pos`; through the SoA table form; and the floor, the same loop
//! over a `Vec<f32>` of the x field.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use ecs::query::Fields;
use std::hint::black_box;

const DT: f32 = 1.0 / 60.0;

/// A position. `#[derive(Soa)]` gives it a field-by-field layout, used
/// where its schema field says `#[ecs(soa)]`.
#[derive(Soa, Clone, Copy)]
struct Pos {
    x: f32,
    y: f32,
    z: f32,
}

/// A velocity; see [`Pos`].
#[derive(Soa, Clone, Copy)]
struct Vel {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Schema)]
struct SoaParticles {
    #[ecs(soa)]
    pos: Pos,
    #[ecs(soa)]
    vel: Vel,
}

/// The same components stored whole.
#[derive(Schema)]
struct WholeParticles {
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

/// `p += v * dt` over one field's array: the loop of the SoA table form
/// and of the baseline. A function of slice arguments, which are known not
/// to overlap, so LLVM vectorizes it without a run-time overlap check.
#[inline]
fn axpy(p: &mut [f32], v: &[f32], dt: f32) {
    for (p, v) in p.iter_mut().zip(v) {
        *p += v * dt;
    }
}

#[inline(always)]
fn step(p: &mut Pos, v: &Vel, dt: f32) {
    p.x += v.x * dt;
    p.y += v.y * dt;
    p.z += v.z * dt;
}

/// The whole form's table loop, as [`axpy`] is for one field.
#[inline]
fn advance(p: &mut [Pos], v: &[Vel], dt: f32) {
    for (p, v) in p.iter_mut().zip(v) {
        step(p, v, dt);
    }
}

fn soa(c: &mut Criterion) {
    particles(c, "soa", 1_000_000);
    particles(c, "soa_10k", 10_000);
    sum(c, 100_000);
}

/// Adds `x` to lane `i % 8`, then moves `i` on: a per-entity body.
#[inline(always)]
fn add_to_lane(lanes: &mut [f32; 8], i: &mut usize, x: f32) {
    lanes[*i % 8] += x;
    *i += 1;
}

/// The read loop of `soa_sum` over `count` particles, every form.
fn sum(c: &mut Criterion, count: usize) {
    let mut group = c.benchmark_group("soa_sum");
    // Every form adds the same values to the same lanes in the same order.
    let expected = {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        for (p, _) in (0..count).map(particle) {
            add_to_lane(&mut lanes, &mut i, p.x);
        }
        lanes
    };

    let mut world = World::<SoaParticles>::new();
    world.spawn_batch((0..count).map(particle));
    let soa_per_entity = |world: &World<SoaParticles>| {
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
    assert_eq!(soa_per_entity(&world), expected);
    assert_eq!(soa_table(&world), expected);
    group.bench_function("soa_per_entity", |b| {
        b.iter(|| black_box(soa_per_entity(&world)))
    });
    group.bench_function("soa_table", |b| b.iter(|| black_box(soa_table(&world))));
    drop(world);

    let mut world = World::<WholeParticles>::new();
    world.spawn_batch((0..count).map(particle));
    let whole_per_entity = |world: &World<WholeParticles>| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        world
            .query::<&Pos>()
            .for_each(|p| add_to_lane(&mut lanes, &mut i, p.x));
        lanes
    };
    assert_eq!(whole_per_entity(&world), expected);
    group.bench_function("whole_per_entity", |b| {
        b.iter(|| black_box(whole_per_entity(&world)))
    });
    drop(world);

    let xs: Vec<f32> = (0..count).map(|i| particle(i).0.x).collect();
    let floor = |xs: &[f32]| {
        let (mut lanes, mut i) = ([0.0f32; 8], 0);
        for &x in xs {
            add_to_lane(&mut lanes, &mut i, x);
        }
        lanes
    };
    assert_eq!(floor(&xs), expected);
    group.bench_function("baseline", |b| b.iter(|| black_box(floor(&xs))));
    group.finish();
}

/// The five forms over `count` particles, in the group `name`.
fn particles(c: &mut Criterion, name: &str, count: usize) {
    let mut group = c.benchmark_group(name);

    let mut world = World::<SoaParticles>::new();
    world.spawn_batch((0..count).map(particle));
    group.bench_function("soa_table", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            world
                .query_mut::<(Fields<&mut Pos>, Fields<&Vel>)>()
                .for_each_table_mut(|_, (p, v)| {
                    axpy(p.x, v.x, dt);
                    axpy(p.y, v.y, dt);
                    axpy(p.z, v.z, dt);
                });
        })
    });
    group.bench_function("soa_per_entity", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            world
                .query_mut::<(Fields<&mut Pos>, Fields<&Vel>)>()
                .for_each_mut(|(p, v)| {
                    *p.x += *v.x * dt;
                    *p.y += *v.y * dt;
                    *p.z += *v.z * dt;
                });
        })
    });
    drop(world);

    let mut world = World::<WholeParticles>::new();
    world.spawn_batch((0..count).map(particle));
    group.bench_function("whole_table", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            world
                .query_mut::<(&mut Pos, &Vel)>()
                .for_each_table_mut(|_, (p, v)| advance(p, v, dt));
        })
    });
    group.bench_function("whole_per_entity", |b| {
        b.iter(|| {
            let dt = black_box(DT);
            world
                .query_mut::<(&mut Pos, &Vel)>()
                .for_each_mut(|(p, v)| step(p, v, dt));
        })
    });
    drop(world);

    let (mut px, mut py, mut pz) = (Vec::new(), Vec::new(), Vec::new());
    let (mut vx, mut vy, mut vz) = (Vec::new(), Vec::new(), Vec::new());
    for (p, v) in (0..count).map(particle) {
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

    group.finish();
}

criterion_group!(benches, soa);
criterion_main!(benches);
