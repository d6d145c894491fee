//! schedule: 10,000 entities each of (A, B), (A, B, C), (A, B, C, D) and
//! (A, B, C, E); three systems, AB, CD and CE, each swap their two values.
//! AB shares no component with the others, so a parallel scheduler may run
//! it beside them; CD and CE both write C.
//!
//! bevy runs a `Schedule` of the three systems on its multi-threaded
//! executor; hecs runs three query loops one after the other. The baseline
//! is the same three loops over one set of `Vec`s per archetype.
//!
//! Ours runs a `Schedule` of the three systems: AB and CD share a stage on
//! rayon's pool, CE waits for CD.

use crate::shared::bevy_task_pool;
use crate::Group;
use bevy_ecs::component::Component;
use bevy_ecs::schedule::{MultiThreadedExecutor, Schedule};
use bevy_ecs::system::Query;
use criterion::Criterion;
use std::hint::black_box;

/// Entities per archetype.
const PER_ARCHETYPE: usize = 10_000;

/// A component holding one `f32`, whose value a system may swap.
pub trait Value {
    fn value(&mut self) -> &mut f32;
}

macro_rules! values {
    ($($name:ident),*) => {$(
        #[derive(Component, Clone, Copy, Debug, PartialEq)]
        pub struct $name(pub f32);

        impl Value for $name {
            #[inline(always)]
            fn value(&mut self) -> &mut f32 {
                &mut self.0
            }
        }
    )*};
}

values!(A, B, C, D, E);

#[inline(always)]
fn swap(x: &mut impl Value, y: &mut impl Value) {
    std::mem::swap(x.value(), y.value());
}

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");
    ours(&mut group);
    hecs(&mut group);
    bevy(&mut group);
    baseline(&mut group);
    group.finish();
}

/// Our schema for the five components.
#[derive(ecs::schema::Schema)]
pub struct Letters {
    a: A,
    b: B,
    c: C,
    d: D,
    e: E,
}

fn ours_ab(mut query: ecs::query::Query<(&mut A, &mut B)>) {
    query.for_each_mut(|(a, b)| swap(a, b));
}

fn ours_cd(mut query: ecs::query::Query<(&mut C, &mut D)>) {
    query.for_each_mut(|(c, d)| swap(c, d));
}

fn ours_ce(mut query: ecs::query::Query<(&mut C, &mut E)>) {
    query.for_each_mut(|(c, e)| swap(c, e));
}

fn ours(group: &mut Group) {
    rayon::broadcast(|_| ());
    let mut world = ecs::world::World::<Letters>::new();
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    let mut schedule = ecs::schedule::Schedule::<Letters>::new();
    schedule.add(ours_ab).add(ours_cd).add(ours_ce);
    group.bench_function("ours", |b| {
        b.iter(|| {
            schedule.run(&mut world);
            black_box(&mut world);
        })
    });
}

fn hecs(group: &mut Group) {
    let mut world = hecs::World::new();
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    group.bench_function("hecs", |b| {
        b.iter(|| {
            for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
                swap(a, b);
            }
            for (c, d) in world.query_mut::<(&mut C, &mut D)>() {
                swap(c, d);
            }
            for (c, e) in world.query_mut::<(&mut C, &mut E)>() {
                swap(c, e);
            }
            black_box(&mut world);
        })
    });
}

fn bevy_ab(mut query: Query<(&mut A, &mut B)>) {
    query
        .iter_mut()
        .for_each(|(mut a, mut b)| swap(&mut *a, &mut *b));
}

fn bevy_cd(mut query: Query<(&mut C, &mut D)>) {
    query
        .iter_mut()
        .for_each(|(mut c, mut d)| swap(&mut *c, &mut *d));
}

fn bevy_ce(mut query: Query<(&mut C, &mut E)>) {
    query
        .iter_mut()
        .for_each(|(mut c, mut e)| swap(&mut *c, &mut *e));
}

fn bevy(group: &mut Group) {
    bevy_task_pool();
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    let mut schedule = Schedule::default();
    schedule.set_executor(MultiThreadedExecutor::new());
    schedule.add_systems((bevy_ab, bevy_cd, bevy_ce));
    // The first run builds the schedule and initialises the systems.
    schedule.run(&mut world);
    group.bench_function("bevy", |b| {
        b.iter(|| {
            schedule.run(&mut world);
            black_box(&mut world);
        })
    });
}

/// One archetype's columns; a column the archetype lacks is empty, so a
/// loop zipping it with another does nothing.
#[derive(Default)]
struct Table {
    a: Vec<A>,
    b: Vec<B>,
    c: Vec<C>,
    d: Vec<D>,
    e: Vec<E>,
}

impl Table {
    fn new(n: usize, c: bool, d: bool, e: bool) -> Self {
        let column = |present: bool, value| if present { vec![value; n] } else { Vec::new() };
        Table {
            a: vec![A(0.0); n],
            b: vec![B(1.0); n],
            c: column(c, 2.0).into_iter().map(C).collect(),
            d: column(d, 3.0).into_iter().map(D).collect(),
            e: column(e, 4.0).into_iter().map(E).collect(),
        }
    }
}

#[inline(always)]
fn swap_columns(xs: &mut [impl Value], ys: &mut [impl Value]) {
    for (x, y) in xs.iter_mut().zip(ys) {
        swap(x, y);
    }
}

fn baseline(group: &mut Group) {
    let n = PER_ARCHETYPE;
    let mut tables = [
        Table::new(n, false, false, false),
        Table::new(n, true, false, false),
        Table::new(n, true, true, false),
        Table::new(n, true, false, true),
    ];
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for t in &mut tables {
                swap_columns(&mut t.a, &mut t.b);
            }
            for t in &mut tables {
                swap_columns(&mut t.c, &mut t.d);
            }
            for t in &mut tables {
                swap_columns(&mut t.c, &mut t.e);
            }
            black_box(&mut tables);
        })
    });
}
