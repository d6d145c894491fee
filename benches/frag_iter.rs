//! `frag_iter` from ecs_bench_suite: 26 component types `A` … `Z`, and 20
//! entities of each with (that letter, `Data`); each pass doubles every
//! `Data`. The query visits 26 tables of 20 rows, so this measures the cost
//! of moving from one table to the next more than the loop over a table.
//!
//! In one group: the query's internal iteration (`for_each_mut`), the same
//! through a [`PreparedQuery`](ecs::PreparedQuery) kept across passes, its
//! external iterator (`for … in iter_mut()`), read-only passes, and the
//! floor for this layout, the same loop over 26 `Vec`s of 20 `Data` each.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

/// Entities per letter.
const PER_TYPE: usize = 20;

#[derive(Clone, Copy)]
struct Data(f32);

/// Declares the letter components, the schema holding them and `Data`, and
/// a function spawning `PER_TYPE` entities of each letter.
macro_rules! fragments {
    ($($letter:ident $field:ident),* $(,)?) => {
        $(
            // Only makes the tables distinct; never read.
            #[allow(dead_code)]
            #[derive(Clone, Copy)]
            struct $letter(f32);
        )*

        #[derive(Schema)]
        struct Bench {
            $($field: $letter,)*
            data: Data,
        }

        /// The number of letter types.
        const TYPES: usize = [$(stringify!($letter)),*].len();

        fn world() -> World<Bench> {
            let mut world = World::new();
            $(
                world.spawn_batch((0..PER_TYPE).map(|_| ($letter(0.0), Data(1.0))));
            )*
            world
        }
    };
}

fragments!(
    A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m,
    N n, O o, P p, Q q, R r, S s, T t, U u, V v, W w, X x, Y y, Z z,
);

fn double(data: &mut Data) {
    data.0 *= 2.0;
}

fn frag_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("frag_iter");

    let mut w = world();
    group.bench_function("ecs_for_each", |b| {
        b.iter(|| {
            w.query_mut::<&mut Data>().for_each_mut(double);
            black_box(&mut w);
        })
    });

    // The same loop through a query kept across calls: no cache lookup, no
    // list of tables built per call.
    let mut w = world();
    let mut query = w.prepare::<&mut Data>();
    group.bench_function("ecs_prepared_for_each", |b| {
        b.iter(|| {
            query.for_each_mut(&mut w, double);
            black_box(&mut w);
        })
    });

    let mut w = world();
    group.bench_function("ecs_for", |b| {
        b.iter(|| {
            for data in w.query_mut::<&mut Data>().iter_mut() {
                double(data);
            }
            black_box(&mut w);
        })
    });

    // A read-only pass, through `&World` (the shared query, whose matched
    // tables are kept behind a lock) and through `&mut World`: the two
    // should cost the same.
    let w = world();
    group.bench_function("ecs_read_shared", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            black_box(&w)
                .query::<&Data>()
                .for_each(|data| sum += data.0);
            black_box(sum)
        })
    });

    let mut w = world();
    group.bench_function("ecs_read_exclusive", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            black_box(&mut w)
                .query_mut::<&Data>()
                .for_each(|data| sum += data.0);
            black_box(sum)
        })
    });

    // One `Vec` per table, as the world holds them.
    let mut base: Vec<Vec<Data>> = vec![vec![Data(1.0); PER_TYPE]; TYPES];
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for table in &mut base {
                for data in table.iter_mut() {
                    double(data);
                }
            }
            black_box(&mut base);
        })
    });

    group.finish();
}

criterion_group!(benches, frag_iter);
criterion_main!(benches);
