//! `schedule` from ecs_bench_suite: 10,000 entities each of `(A, B)`,
//! `(A, B, C)`, `(A, B, C, D)` and `(A, B, C, E)`; three systems swap the
//! values of `A`/`B`, `C`/`D` and `C`/`E`.
//!
//! `ab` and `cd` touch different columns and share a stage; `ce` conflicts
//! with `cd` on `C` and waits. In one group: `Schedule::run` (stages on the
//! thread pool), `Schedule::run_sequential`, and the floor, the same swaps
//! over plain `Vec`s. `overhead` runs the three systems over an empty world:
//! the cost of a run itself (planning is cached; splitting the world, the
//! thread pool, applying empty command queues).

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

#[derive(Clone, Copy)]
struct A(f32);
#[derive(Clone, Copy)]
struct B(f32);
#[derive(Clone, Copy)]
struct C(f32);
#[derive(Clone, Copy)]
struct D(f32);
#[derive(Clone, Copy)]
struct E(f32);

#[derive(Schema)]
struct Bench {
    a: A,
    b: B,
    c: C,
    d: D,
    e: E,
}

fn ab(mut q: Query<(&mut A, &mut B)>) {
    q.for_each_mut(|(a, b)| core::mem::swap(&mut a.0, &mut b.0));
}

fn cd(mut q: Query<(&mut C, &mut D)>) {
    q.for_each_mut(|(c, d)| core::mem::swap(&mut c.0, &mut d.0));
}

fn ce(mut q: Query<(&mut C, &mut E)>) {
    q.for_each_mut(|(c, e)| core::mem::swap(&mut c.0, &mut e.0));
}

fn world(entities: usize) -> World<Bench> {
    let mut world = World::new();
    world.spawn_batch((0..entities).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..entities).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..entities).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..entities).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    world
}

fn systems() -> Schedule<Bench> {
    let mut schedule = Schedule::new();
    schedule.add(ab).add(cd).add(ce);
    schedule
}

/// The same four archetypes as plain column vectors.
struct Baseline {
    ab: (Vec<A>, Vec<B>),
    abc: (Vec<A>, Vec<B>, Vec<C>),
    abcd: (Vec<A>, Vec<B>, Vec<C>, Vec<D>),
    abce: (Vec<A>, Vec<B>, Vec<C>, Vec<E>),
}

fn baseline() -> Baseline {
    let n = ENTITIES;
    Baseline {
        ab: (vec![A(0.0); n], vec![B(1.0); n]),
        abc: (vec![A(0.0); n], vec![B(1.0); n], vec![C(2.0); n]),
        abcd: (
            vec![A(0.0); n],
            vec![B(1.0); n],
            vec![C(2.0); n],
            vec![D(3.0); n],
        ),
        abce: (
            vec![A(0.0); n],
            vec![B(1.0); n],
            vec![C(2.0); n],
            vec![E(4.0); n],
        ),
    }
}

fn swap_all<X, Y>(xs: &mut [X], ys: &mut [Y], swap: impl Fn(&mut X, &mut Y)) {
    for (x, y) in xs.iter_mut().zip(ys) {
        swap(x, y);
    }
}

fn schedule(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");

    let mut w = world(ENTITIES);
    let mut s = systems();
    group.bench_function("ecs_run", |b| {
        b.iter(|| {
            s.run(&mut w);
            black_box(&mut w);
        })
    });

    let mut w = world(ENTITIES);
    let mut s = systems();
    group.bench_function("ecs_run_sequential", |b| {
        b.iter(|| {
            s.run_sequential(&mut w);
            black_box(&mut w);
        })
    });

    let mut base = baseline();
    group.bench_function("baseline", |b| {
        b.iter(|| {
            let swap_ab = |a: &mut A, b: &mut B| core::mem::swap(&mut a.0, &mut b.0);
            swap_all(&mut base.ab.0, &mut base.ab.1, swap_ab);
            swap_all(&mut base.abc.0, &mut base.abc.1, swap_ab);
            swap_all(&mut base.abcd.0, &mut base.abcd.1, swap_ab);
            swap_all(&mut base.abce.0, &mut base.abce.1, swap_ab);
            let swap_cd = |c: &mut C, d: &mut D| core::mem::swap(&mut c.0, &mut d.0);
            swap_all(&mut base.abcd.2, &mut base.abcd.3, swap_cd);
            let swap_ce = |c: &mut C, e: &mut E| core::mem::swap(&mut c.0, &mut e.0);
            swap_all(&mut base.abce.2, &mut base.abce.3, swap_ce);
            black_box(&mut base);
        })
    });
    black_box(&base.abc.2);

    let mut w = world(0);
    let mut s = systems();
    group.bench_function("overhead", |b| {
        b.iter(|| {
            s.run(&mut w);
            black_box(&mut w);
        })
    });

    group.finish();
}

criterion_group!(benches, schedule);
criterion_main!(benches);
