//! `add_remove` from ecs_bench_suite: 10,000 entities with `A`; each pass
//! inserts `B` on every entity, then removes it again.
//!
//! Beside it, the least work an archetype ECS must do for the same pass: two
//! hand-written struct-of-arrays tables, `{A}` and `{A, B}`, an entity → (table,
//! row) map, and swap-remove moves that fix up the moved entity's row.
//!
//! `ecs_sparse` runs the same pass on a schema where `B` is `#[ecs(sparse)]`:
//! no row moves, each insert and remove is a sparse-set push or swap-remove.
//! Its floor, `sparse_baseline`, is a hand-written sparse set (dense values,
//! dense owners, an entity → dense slot index) behind the same generation
//! check that a world makes on every entity handle.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

// The payload of the workload: carried through every move, read by
// `sparse_iter`.
#[derive(Clone, Copy)]
struct A(f32);

// The payload of the workload: carried through every move, read by
// `sparse_iter`.
#[derive(Clone, Copy)]
struct B(f32);

#[derive(Schema)]
struct Bench {
    a: A,
    b: B,
}

#[derive(Schema)]
struct SparseBench {
    a: A,
    #[ecs(sparse)]
    b: B,
}

/// A hand-written sparse set of `B` for entities `(index, generation)`.
struct SparseBaseline {
    /// The live generation of each entity index.
    generations: Vec<u32>,
    values: Vec<B>,
    owners: Vec<u32>,
    /// Entity index -> dense slot, or `ABSENT`.
    slots: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl SparseBaseline {
    fn new() -> Self {
        SparseBaseline {
            generations: vec![1; ENTITIES],
            values: Vec::new(),
            owners: Vec::new(),
            slots: vec![ABSENT; ENTITIES],
        }
    }

    fn insert(&mut self, (index, generation): (u32, u32), b: B) -> Result<(), ()> {
        if self.generations.get(index as usize) != Some(&generation) {
            return Err(());
        }
        let slot = &mut self.slots[index as usize];
        if *slot != ABSENT {
            self.values[*slot as usize] = b;
        } else {
            *slot = self.values.len() as u32;
            self.values.push(b);
            self.owners.push(index);
        }
        Ok(())
    }

    fn remove(&mut self, (index, generation): (u32, u32)) -> Result<Option<B>, ()> {
        if self.generations.get(index as usize) != Some(&generation) {
            return Err(());
        }
        let slot = core::mem::replace(&mut self.slots[index as usize], ABSENT);
        if slot == ABSENT {
            return Ok(None);
        }
        let b = self.values.swap_remove(slot as usize);
        self.owners.swap_remove(slot as usize);
        if let Some(&moved) = self.owners.get(slot as usize) {
            self.slots[moved as usize] = slot;
        }
        Ok(Some(b))
    }
}

/// One hand-written table: entity ids and the columns.
#[derive(Default)]
struct Table<C> {
    entities: Vec<u32>,
    columns: C,
}

/// Where an entity is: which table, which row.
#[derive(Clone, Copy)]
struct Location {
    in_ab: bool,
    row: u32,
}

struct Baseline {
    locations: Vec<Location>,
    only_a: Table<Vec<A>>,
    a_and_b: Table<(Vec<A>, Vec<B>)>,
}

impl Baseline {
    fn new() -> Self {
        Baseline {
            locations: (0..ENTITIES as u32)
                .map(|row| Location { in_ab: false, row })
                .collect(),
            only_a: Table {
                entities: (0..ENTITIES as u32).collect(),
                columns: vec![A(0.0); ENTITIES],
            },
            a_and_b: Table::default(),
        }
    }

    /// Swap-removes `row` of a table's entity list and fixes the location of
    /// the entity moved into it.
    fn remove_row(locations: &mut [Location], entities: &mut Vec<u32>, row: usize) {
        entities.swap_remove(row);
        if let Some(&moved) = entities.get(row) {
            locations[moved as usize].row = row as u32;
        }
    }

    fn insert_b(&mut self, entity: u32, b: B) {
        let location = self.locations[entity as usize];
        debug_assert!(!location.in_ab);
        let row = location.row as usize;
        let a = self.only_a.columns.swap_remove(row);
        Self::remove_row(&mut self.locations, &mut self.only_a.entities, row);
        let target = &mut self.a_and_b;
        self.locations[entity as usize] = Location {
            in_ab: true,
            row: target.entities.len() as u32,
        };
        target.entities.push(entity);
        target.columns.0.push(a);
        target.columns.1.push(b);
    }

    fn remove_b(&mut self, entity: u32) -> B {
        let location = self.locations[entity as usize];
        debug_assert!(location.in_ab);
        let row = location.row as usize;
        let a = self.a_and_b.columns.0.swap_remove(row);
        let b = self.a_and_b.columns.1.swap_remove(row);
        Self::remove_row(&mut self.locations, &mut self.a_and_b.entities, row);
        let target = &mut self.only_a;
        self.locations[entity as usize] = Location {
            in_ab: false,
            row: target.entities.len() as u32,
        };
        target.entities.push(entity);
        target.columns.push(a);
        b
    }
}

fn add_remove(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");

    let mut world = World::<Bench>::new();
    let entities: Vec<Entity> = world
        .spawn_batch((0..ENTITIES).map(|_| (A(0.0),)))
        .collect();
    group.bench_function("ecs", |b| {
        b.iter(|| {
            for &entity in &entities {
                world.insert(entity, (B(0.0),)).unwrap();
            }
            for &entity in &entities {
                black_box(world.remove::<B>(entity).unwrap());
            }
        })
    });

    let mut base = Baseline::new();
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

    let mut world = World::<SparseBench>::new();
    let entities: Vec<Entity> = world
        .spawn_batch((0..ENTITIES).map(|_| (A(0.0),)))
        .collect();
    group.bench_function("ecs_sparse", |b| {
        b.iter(|| {
            for &entity in &entities {
                world.insert(entity, (B(0.0),)).unwrap();
            }
            for &entity in &entities {
                black_box(world.remove::<B>(entity).unwrap());
            }
        })
    });

    let mut base = SparseBaseline::new();
    let handles: Vec<(u32, u32)> = (0..ENTITIES as u32).map(|i| (i, 1)).collect();
    group.bench_function("sparse_baseline", |b| {
        b.iter(|| {
            for &entity in &handles {
                base.insert(entity, B(0.0)).unwrap();
            }
            for &entity in &handles {
                black_box(base.remove(entity).unwrap());
            }
        })
    });

    group.finish();
}

/// `(&A, &B)` over 10,000 entities that all have both: `B` in the table
/// (`table`) and `B` in a sparse set (`sparse`, inserted in entity order, so
/// its dense order follows the rows and the whole table is one run). Each
/// iteration builds the query and sums the values.
fn sparse_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("sparse_iter");

    let mut world = World::<Bench>::new();
    world.spawn_batch((0..ENTITIES).map(|i| (A(i as f32), B(1.0))));
    group.bench_function("table", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            world
                .query::<(&A, &B)>()
                .for_each(|(a, b)| sum += a.0 * b.0);
            black_box(sum)
        })
    });

    let mut world = World::<SparseBench>::new();
    let entities: Vec<Entity> = world
        .spawn_batch((0..ENTITIES).map(|i| (A(i as f32),)))
        .collect();
    for &entity in &entities {
        world.insert(entity, (B(1.0),)).unwrap();
    }
    group.bench_function("sparse", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            world
                .query::<(&A, &B)>()
                .for_each(|(a, b)| sum += a.0 * b.0);
            black_box(sum)
        })
    });

    group.finish();
}

criterion_group!(benches, add_remove, sparse_iter);
criterion_main!(benches);
