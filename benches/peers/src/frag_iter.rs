//! frag_iter: 26 component types `A` … `Z`, and 20 entities of each with
//! (that letter, `Data`); each pass doubles every `Data`. The query visits 26
//! tables of 20 rows, so this measures going from one table to the next more
//! than the loop over a table.
//!
//! Each ECS twice: with a query made on the world each pass (`ours`:
//! `query_mut(…).for_each_mut`; `hecs`: `query_mut`; `bevy`: a `QueryState`
//! from `world.query()`), and with one made before timing and kept across
//! passes (`ours_prepared`: a `PreparedQuery`; `hecs_prepared`: hecs's
//! `PreparedQuery`; `bevy_cached`: the `QueryState`). The baseline is the
//! same loop over 26 `Vec`s of 20 `Data` each.

use crate::Group;
use bevy_ecs::component::Component;
use criterion::Criterion;
use std::hint::black_box;

/// Entities per letter.
const PER_TYPE: usize = 20;

#[derive(Component, Clone, Copy)]
pub struct Data(pub f32);

/// Declares the letter components, our schema holding them and `Data`, and
/// one function per ECS that makes its world.
macro_rules! fragments {
    ($($letter:ident $field:ident),* $(,)?) => {
        $(
            /// Only makes the tables distinct; never read.
            #[derive(Component, Clone, Copy)]
            pub struct $letter(pub f32);
        )*

        #[derive(ecs::schema::Schema)]
        pub struct Fragmented {
            $($field: $letter,)*
            data: Data,
        }

        /// The number of letter types.
        const TYPES: usize = [$(stringify!($letter)),*].len();

        fn ours_world() -> ecs::world::World<Fragmented> {
            let mut world = ecs::world::World::new();
            $(world.spawn_batch((0..PER_TYPE).map(|_| ($letter(0.0), Data(1.0))));)*
            world
        }

        fn hecs_world() -> hecs::World {
            let mut world = hecs::World::new();
            $(world.spawn_batch((0..PER_TYPE).map(|_| ($letter(0.0), Data(1.0))));)*
            world
        }

        fn bevy_world() -> bevy_ecs::world::World {
            let mut world = bevy_ecs::world::World::new();
            $(world.spawn_batch((0..PER_TYPE).map(|_| ($letter(0.0), Data(1.0))));)*
            world
        }
    };
}

fragments!(
    A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m,
    N n, O o, P p, Q q, R r, S s, T t, U u, V v, W w, X x, Y y, Z z,
);

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("frag_iter");
    ours(&mut group);
    ours_prepared(&mut group);
    hecs(&mut group);
    hecs_prepared(&mut group);
    bevy(&mut group);
    bevy_cached(&mut group);
    baseline(&mut group);
    group.finish();
}

#[inline(always)]
fn double(data: &mut Data) {
    data.0 *= 2.0;
}

/// A query made on the world each pass.
fn ours(group: &mut Group) {
    let mut world = ours_world();
    group.bench_function("ours", |b| {
        b.iter(|| {
            world.query_mut::<&mut Data>().for_each_mut(double);
            black_box(&mut world);
        })
    });
}

/// A `PreparedQuery` made before timing and kept across passes.
fn ours_prepared(group: &mut Group) {
    let mut world = ours_world();
    let mut query = world.prepare::<&mut Data>();
    group.bench_function("ours_prepared", |b| {
        b.iter(|| {
            query.for_each_mut(&mut world, double);
            black_box(&mut world);
        })
    });
}

/// `query_mut` each pass.
fn hecs(group: &mut Group) {
    let mut world = hecs_world();
    group.bench_function("hecs", |b| {
        b.iter(|| {
            for data in world.query_mut::<&mut Data>() {
                double(data);
            }
            black_box(&mut world);
        })
    });
}

/// hecs's `PreparedQuery`, made before timing and kept across passes.
fn hecs_prepared(group: &mut Group) {
    let mut world = hecs_world();
    let mut query = hecs::PreparedQuery::<&mut Data>::new();
    group.bench_function("hecs_prepared", |b| {
        b.iter(|| {
            for data in query.query_mut(&mut world) {
                double(data);
            }
            black_box(&mut world);
        })
    });
}

/// A `QueryState` made on the world each pass (`world.query()`).
fn bevy(group: &mut Group) {
    let mut world = bevy_world();
    group.bench_function("bevy", |b| {
        b.iter(|| {
            let mut query = world.query::<&mut Data>();
            query
                .iter_mut(&mut world)
                .for_each(|mut data| double(&mut data));
            black_box(&mut world);
        })
    });
}

/// A `QueryState` made before timing and kept across passes.
fn bevy_cached(group: &mut Group) {
    let mut world = bevy_world();
    let mut query = world.query::<&mut Data>();
    group.bench_function("bevy_cached", |b| {
        b.iter(|| {
            query
                .iter_mut(&mut world)
                .for_each(|mut data| double(&mut data));
            black_box(&mut world);
        })
    });
}

fn baseline(group: &mut Group) {
    // One `Vec` per table, as the worlds hold them.
    let mut tables = vec![vec![Data(1.0); PER_TYPE]; TYPES];
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for table in &mut tables {
                for data in table.iter_mut() {
                    double(data);
                }
            }
            black_box(&mut tables);
        })
    });
}
