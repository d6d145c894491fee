//! `simple_iter` from ecs_bench_suite: 10,000 entities with a 4x4 `Transform`,
//! `Position`, `Rotation` and `Velocity`; each pass adds velocity to position.
//!
//! In one group: the query's internal iteration (`for_each_mut`, the fast
//! path; also with the items in reverse order), its external iterator (`for … in iter_mut()`), the iterator's
//! `for_each` (which folds table by table, like `for_each_mut`), the table
//! form (`for_each_table_mut`, a hand-written loop over each table's slices),
//! and two floors: the same loop over parallel `Vec`s, and the same
//! additions over two flat `f32` slices, the loop every compiler vectorizes.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

// Carried through every move, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Transform([[f32; 4]; 4]);

#[derive(Clone, Copy)]
struct Position([f32; 3]);

// Carried through every move, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Rotation([f32; 3]);

#[derive(Clone, Copy)]
struct Velocity([f32; 3]);

#[derive(Schema)]
struct Bench {
    transform: Transform,
    position: Position,
    rotation: Rotation,
    velocity: Velocity,
}

fn identity() -> Transform {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    Transform(m)
}

fn world() -> World<Bench> {
    let mut world = World::new();
    world.spawn_batch((0..ENTITIES).map(|_| {
        (
            identity(),
            Position([1.0, 0.0, 0.0]),
            Rotation([1.0, 0.0, 0.0]),
            Velocity([1.0, 0.0, 0.0]),
        )
    }));
    world
}

#[inline(always)]
fn step(position: &mut Position, velocity: &Velocity) {
    for (p, v) in position.0.iter_mut().zip(velocity.0) {
        *p += v;
    }
}

/// The table form's loop. A function of its own, so that its slice
/// arguments are known not to overlap (see `Query::for_each_table_mut`).
///
/// Written two ways, by target. Without AVX-512, eight entities (24 floats)
/// per step, which LLVM's SLP vectorizer turns into vector adds: 2.4 µs,
/// where the plain loop below runs at 4× that (a stride-3 interleave is
/// costly in SSE). With AVX-512 (`-C target-cpu=native` on this Zen 4 VM),
/// the loop vectorizer takes that eight-entity loop across chunks instead,
/// sixteen chunks a step, and with no interleave of 24 accesses it falls
/// back to `vgatherdps`/`vscatterdps` (AVX-512 has scatters): 13× slower,
/// 32 µs. The plain loop there becomes a stride-3 interleave of whole
/// vectors with permutes, as fast as `for_each`.
#[inline]
fn advance(positions: &mut [Position], velocities: &[Velocity]) {
    if cfg!(target_feature = "avx512f") {
        for (p, v) in positions.iter_mut().zip(velocities) {
            step(p, v);
        }
        return;
    }
    let mut positions8 = positions.chunks_exact_mut(8);
    let mut velocities8 = velocities.chunks_exact(8);
    for (p, v) in (&mut positions8).zip(&mut velocities8) {
        for i in 0..8 {
            step(&mut p[i], &v[i]);
        }
    }
    let rest = positions8.into_remainder().iter_mut();
    for (p, v) in rest.zip(velocities8.remainder()) {
        step(p, v);
    }
}

/// The flat baseline's loop: the same additions, over `f32`s, written as
/// `advance` is (a function of slice arguments).
#[inline]
fn advance_flat(positions: &mut [f32], velocities: &[f32]) {
    for (p, v) in positions.iter_mut().zip(velocities) {
        *p += v;
    }
}

/// The same data as parallel vectors: what the query loop cannot beat.
struct Baseline {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

fn baseline() -> Baseline {
    Baseline {
        transforms: vec![identity(); ENTITIES],
        positions: vec![Position([1.0, 0.0, 0.0]); ENTITIES],
        rotations: vec![Rotation([1.0, 0.0, 0.0]); ENTITIES],
        velocities: vec![Velocity([1.0, 0.0, 0.0]); ENTITIES],
    }
}

/// Positions and velocities as flat `f32` slices, three per entity: the
/// same bytes and the same 30,000 additions as the query, with nothing to
/// find and no struct in the way.
///
/// Each slice starts at the same offset within a 64-byte cache line as the
/// world's column it stands for. Where a slice starts is up to the allocator,
/// and with 32-byte vectors (`-C target-cpu=native` on AVX2) a slice that is
/// not 32-byte aligned splits every other load and store across two cache
/// lines: measured, that alone moved the flat loop by 10 to 15 %, either
/// way, from one allocation to the next. Matching the offsets makes the
/// comparison one of loops, not of allocations.
struct FlatBaseline {
    positions: Vec<f32>,
    velocities: Vec<f32>,
    /// Where the slices start in `positions` and `velocities`.
    starts: (usize, usize),
}

impl FlatBaseline {
    /// Flat copies of the world's positions and velocities, placed at their
    /// columns' offsets within a cache line.
    fn like(world: &mut World<Bench>) -> Self {
        let mut offsets = (0, 0);
        world
            .query_mut::<(&mut Position, &Velocity)>()
            .for_each_table_mut(|_, (p, v)| {
                offsets = (p.as_ptr() as usize % 64, v.as_ptr() as usize % 64);
            });
        let (positions, p) = placed([1.0, 0.0, 0.0], offsets.0);
        let (velocities, v) = placed([1.0, 0.0, 0.0], offsets.1);
        FlatBaseline {
            positions,
            velocities,
            starts: (p, v),
        }
    }

    fn slices(&mut self) -> (&mut [f32], &[f32]) {
        let n = 3 * ENTITIES;
        let (p, v) = self.starts;
        (&mut self.positions[p..p + n], &self.velocities[v..v + n])
    }
}

/// `ENTITIES` copies of `value`, flat, in a vector with room to start them
/// `offset` bytes into a cache line; returns the vector and the index of
/// the first copy.
fn placed(value: [f32; 3], offset: usize) -> (Vec<f32>, usize) {
    let mut floats = vec![0.0; 3 * ENTITIES + 16];
    let misplaced = floats.as_ptr() as usize % 64;
    let start = (offset + 64 - misplaced) % 64 / size_of::<f32>();
    for (slot, value) in floats[start..].iter_mut().zip(value.repeat(ENTITIES)) {
        *slot = value;
    }
    (floats, start)
}

fn simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");

    let mut w = world();
    group.bench_function("ecs_for_each", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Position, &Velocity)>()
                .for_each_mut(|(p, v)| step(p, v));
            black_box(&mut w);
        })
    });

    // The items in the other order: fetched in column order all the same,
    // so it costs what `ecs_for_each` does.
    let mut w = world();
    group.bench_function("ecs_for_each_reversed", |b| {
        b.iter(|| {
            w.query_mut::<(&Velocity, &mut Position)>()
                .for_each_mut(|(v, p)| step(p, v));
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_for", |b| {
        b.iter(|| {
            for (p, v) in w.query_mut::<(&mut Position, &Velocity)>().iter_mut() {
                step(p, v);
            }
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_iter_for_each", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Position, &Velocity)>()
                .iter_mut()
                .for_each(|(p, v)| step(p, v));
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_for_each_table", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Position, &Velocity)>()
                .for_each_table_mut(|_, (p, v)| advance(p, v));
            black_box(&mut w);
        })
    });

    let mut base = baseline();
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for (p, v) in base.positions.iter_mut().zip(&base.velocities) {
                step(p, v);
            }
            black_box(&mut base);
        })
    });
    black_box((&base.transforms, &base.rotations));

    // Placed like the columns of the table form's world, `w`.
    let mut flat = FlatBaseline::like(&mut w);
    group.bench_function("baseline_flat", |b| {
        b.iter(|| {
            let (positions, velocities) = flat.slices();
            advance_flat(positions, velocities);
            black_box(&mut flat);
        })
    });

    group.finish();
}

criterion_group!(benches, simple_iter);
criterion_main!(benches);
