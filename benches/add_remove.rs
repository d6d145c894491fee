//! `add_remove` from ecs_bench_suite: 10,000 entities with `A`; each pass
//! inserts `B` on every entity, then removes it again.
//!
//! Beside it, the floor (`Floor`, `baseline` in the results): the least work
//! an archetype ECS must do for the same pass. Two hand-written
//! struct-of-arrays tables, `{A}` and `{A, B}`; a slot per entity holding its
//! generation, table and row; one generation compare per operation; and
//! swap-remove moves that fix up the moved entity's row.
//!
//! `ecs_sparse` runs the same pass on a schema where `B` is `#[ecs(sparse)]`:
//! no row moves, each insert and remove is a sparse-set push or swap-remove.
//! Its floor, `sparse_baseline`, is a hand-written sparse set (dense values,
//! dense owners, an entity → dense slot index) behind the same generation
//! check that a world makes on every entity handle.
//!
//! Two more groups read what add_remove writes: `sparse_iter` (a query of
//! `(&A, &B)` with `B` in tables or in a sparse set) and `sparse_filter`
//! (filters on a component one entity in ten has, in tables or sparse).

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

/// A handle of the floor: a slot index and the generation of the entity it
/// names, as [`Entity`] is.
#[derive(Clone, Copy)]
struct Handle {
    index: u32,
    generation: u32,
}

/// The floor's answer to a handle whose entity is gone.
#[derive(Debug)]
struct Stale;

/// One entity slot: the generation of the entity living in it and where
/// that entity's row is (which table, which row). 12 bytes, as the world's
/// slots are.
#[derive(Clone, Copy)]
struct Slot {
    generation: u32,
    in_ab: bool,
    row: u32,
}

/// One hand-written table: the slot index of each row's entity, and the
/// columns.
#[derive(Default)]
struct Table<C> {
    entities: Vec<u32>,
    columns: C,
}

/// The floor for `add_remove`: the moves an archetype ECS cannot avoid, and
/// the one check it must make.
///
/// Each operation reads the entity's slot, compares the handle's generation
/// with the slot's (one compare: a stale handle is refused, changing
/// nothing), swap-removes the row from the source table's columns and entity
/// list, fixes the slot of the entity swapped into the gap, pushes the row
/// onto the target table and writes the moved entity's slot. It checks
/// nothing else: which table the entity is in is known to the caller (a
/// `debug_assert!` only), and both tables and their columns are fixed at
/// compile time, so there is no edge to look up, no mask to read and no
/// column type to dispatch on. That is as lean as a checked move can be, and
/// no leaner: an ECS without the generation compare would hand a reused
/// slot's components to a stale handle.
struct Floor {
    slots: Vec<Slot>,
    only_a: Table<Vec<A>>,
    a_and_b: Table<(Vec<A>, Vec<B>)>,
}

impl Floor {
    /// The floor with `ENTITIES` entities in `{A}`, and their handles.
    fn new() -> (Self, Vec<Handle>) {
        let generation = 1;
        let floor = Floor {
            slots: (0..ENTITIES as u32)
                .map(|row| Slot {
                    generation,
                    in_ab: false,
                    row,
                })
                .collect(),
            only_a: Table {
                entities: (0..ENTITIES as u32).collect(),
                columns: vec![A(0.0); ENTITIES],
            },
            a_and_b: Table::default(),
        };
        let handles = (0..ENTITIES as u32)
            .map(|index| Handle { index, generation })
            .collect();
        (floor, handles)
    }

    /// The slot of `entity` if the handle is current: the one check.
    #[inline(always)]
    fn slot(&self, entity: Handle) -> Result<Slot, Stale> {
        match self.slots.get(entity.index as usize) {
            Some(&slot) if slot.generation == entity.generation => Ok(slot),
            _ => Err(Stale),
        }
    }

    /// Swap-removes `row` of a table's entity list and fixes the slot of the
    /// entity moved into it.
    #[inline(always)]
    fn remove_row(slots: &mut [Slot], entities: &mut Vec<u32>, row: usize) {
        entities.swap_remove(row);
        if let Some(&moved) = entities.get(row) {
            slots[moved as usize].row = row as u32;
        }
    }

    fn insert_b(&mut self, entity: Handle, b: B) -> Result<(), Stale> {
        let slot = self.slot(entity)?;
        debug_assert!(!slot.in_ab);
        let row = slot.row as usize;
        let a = self.only_a.columns.swap_remove(row);
        Self::remove_row(&mut self.slots, &mut self.only_a.entities, row);
        let target = &mut self.a_and_b;
        self.slots[entity.index as usize] = Slot {
            generation: entity.generation,
            in_ab: true,
            row: target.entities.len() as u32,
        };
        target.entities.push(entity.index);
        target.columns.0.push(a);
        target.columns.1.push(b);
        Ok(())
    }

    fn remove_b(&mut self, entity: Handle) -> Result<B, Stale> {
        let slot = self.slot(entity)?;
        debug_assert!(slot.in_ab);
        let row = slot.row as usize;
        let a = self.a_and_b.columns.0.swap_remove(row);
        let b = self.a_and_b.columns.1.swap_remove(row);
        Self::remove_row(&mut self.slots, &mut self.a_and_b.entities, row);
        let target = &mut self.only_a;
        self.slots[entity.index as usize] = Slot {
            generation: entity.generation,
            in_ab: false,
            row: target.entities.len() as u32,
        };
        target.entities.push(entity.index);
        target.columns.push(a);
        Ok(b)
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

    let (mut floor, handles) = Floor::new();
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for &entity in &handles {
                floor.insert_b(entity, B(0.0)).unwrap();
            }
            for &entity in &handles {
                black_box(floor.remove_b(entity).unwrap());
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

/// Filters on a component that one entity in ten has, over 10,000 entities
/// with `A`: `Without<B>` and `With<B>` (each pass builds the query and adds
/// to `A` of what it reaches), and `Has<B>` (a count). `table_*`: `B` a
/// table component, so the filter picks tables (the floor of the same
/// work: `B` moves rows when inserted); `sparse_*`: `B` in a sparse set,
/// so the query finds the rows that pass entity by entity.
fn sparse_filter(c: &mut Criterion) {
    let mut group = c.benchmark_group("sparse_filter");

    let mut table = World::<Bench>::new();
    table.spawn_batch((0..ENTITIES).map(|i| (A(i as f32),)));
    let mut sparse = World::<SparseBench>::new();
    let entities: Vec<Entity> = sparse
        .spawn_batch((0..ENTITIES).map(|i| (A(i as f32),)))
        .collect();
    for (i, &entity) in entities.iter().enumerate() {
        if i % 10 == 0 {
            sparse.insert(entity, (B(1.0),)).unwrap();
            table.insert(entity, (B(1.0),)).unwrap();
        }
    }

    group.bench_function("table_without", |b| {
        b.iter(|| {
            table
                .query_filtered_mut::<&mut A, Without<B>>()
                .for_each_mut(|a| a.0 += 1.0)
        })
    });
    group.bench_function("sparse_without", |b| {
        b.iter(|| {
            sparse
                .query_filtered_mut::<&mut A, Without<B>>()
                .for_each_mut(|a| a.0 += 1.0)
        })
    });
    group.bench_function("table_with", |b| {
        b.iter(|| {
            table
                .query_filtered_mut::<&mut A, With<B>>()
                .for_each_mut(|a| a.0 += 1.0)
        })
    });
    group.bench_function("sparse_with", |b| {
        b.iter(|| {
            sparse
                .query_filtered_mut::<&mut A, With<B>>()
                .for_each_mut(|a| a.0 += 1.0)
        })
    });
    group.bench_function("table_has", |b| {
        b.iter(|| {
            let mut n = 0u32;
            table
                .query::<(&A, Has<B>)>()
                .for_each(|(_, has)| n += u32::from(has));
            black_box(n)
        })
    });
    group.bench_function("sparse_has", |b| {
        b.iter(|| {
            let mut n = 0u32;
            sparse
                .query::<(&A, Has<B>)>()
                .for_each(|(_, has)| n += u32::from(has));
            black_box(n)
        })
    });

    group.finish();
}

criterion_group!(benches, add_remove, sparse_iter, sparse_filter);
criterion_main!(benches);
