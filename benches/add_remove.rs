//! `add_remove` from ecs_bench_suite: 10,000 entities with `A`; each pass
//! inserts `B` on every entity, then removes it again.
//!
//! Beside it, the floor (`Floor`, `baseline` in the results): the least work
//! an archetype ECS must do for the same pass. Two hand-written
//! struct-of-arrays tables, `{A}` and `{A, B}`; a slot per entity holding its
//! generation, table and row; one generation compare per operation; and
//! swap-remove moves that fix up the moved entity's row.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 10_000;

// Carried through every move, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct A(f32);

// Carried through every move, never read: the payload of the workload.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct B(f32);

#[derive(Schema)]
struct Bench {
    a: A,
    b: B,
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

    group.finish();
}

criterion_group!(benches, add_remove);
criterion_main!(benches);
