//! Behaviour of the table form of queries (`for_each_table`,
//! `for_each_table_mut` and their parallel versions): one call per matching,
//! non-empty table, with its archetype, its entities in row order and one
//! slice per query item.

use ecs::prelude::*;
use std::collections::BTreeMap;
use std::sync::Mutex;
use support::on_threads;

#[derive(Clone, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq)]
struct Acc(i64);
#[derive(Clone, Debug, PartialEq)]
struct Frozen;

#[derive(Schema)]
struct Sim {
    pos: Pos,
    vel: Vel,
    acc: Acc,
    frozen: Frozen,
}

/// A second schema, only for asking a chunk for the wrong mask type.
#[derive(Schema)]
struct Other {
    pos: Pos,
}

/// Four tables with entities: `Pos+Vel` (e0, e4), `Pos+Vel+Frozen` (e1),
/// `Pos` (e2), `Pos+Vel+Acc` (e3); and the empty table (e5).
struct Fixture {
    world: World<Sim>,
    e: [Entity; 6],
}

fn fixture() -> Fixture {
    let mut world = World::<Sim>::new();
    let e0 = world.spawn((Pos(0), Vel(1)));
    let e1 = world.spawn((Pos(10), Vel(11), Frozen));
    let e2 = world.spawn((Pos(20),));
    let e3 = world.spawn((Pos(30), Vel(31), Acc(32)));
    let e4 = world.spawn((Pos(40), Vel(41)));
    let e5 = world.spawn(());
    Fixture {
        world,
        e: [e0, e1, e2, e3, e4, e5],
    }
}

fn pos_of(world: &World<Sim>, entity: Entity) -> i64 {
    world.get::<Pos>(entity).unwrap().0
}

#[test]
fn shared_slices_hold_each_tables_values_in_row_order() {
    let f = fixture();
    let mut seen = Vec::new();
    f.world
        .query::<(Entity, &Pos)>()
        .for_each_table(|table, (entities, pos)| {
            assert_eq!(pos.len(), table.len());
            for (entity, pos) in entities.iter().zip(pos) {
                seen.push((entity, pos.0));
            }
        });
    let [e0, e1, e2, e3, e4, _] = f.e;
    // Tables in creation order, rows in spawn order.
    assert_eq!(seen, [(e0, 0), (e4, 40), (e1, 10), (e2, 20), (e3, 30)]);
}

#[test]
fn mutable_slices_write_through() {
    let mut f = fixture();
    f.world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each_table_mut(|_, (pos, vel)| {
            for (p, v) in pos.iter_mut().zip(vel) {
                p.0 += v.0 * 100;
            }
        });
    let [e0, e1, e2, e3, e4, _] = f.e;
    assert_eq!(pos_of(&f.world, e0), 100);
    assert_eq!(pos_of(&f.world, e1), 1110);
    assert_eq!(pos_of(&f.world, e2), 20);
    assert_eq!(pos_of(&f.world, e3), 3130);
    assert_eq!(pos_of(&f.world, e4), 4140);
}

#[test]
fn optional_slices_are_none_in_tables_without_the_component() {
    let f = fixture();
    let mut seen = Vec::new();
    f.world
        .query::<(&Pos, Option<&Vel>)>()
        .for_each_table(|_, (pos, vel)| {
            if let Some(vel) = vel {
                assert_eq!(vel.len(), pos.len());
            }
            seen.push((pos[0].0, vel.map(|vel| vel.iter().map(|v| v.0).collect())));
        });
    assert_eq!(
        seen,
        [
            (0, Some(vec![1, 41])),
            (10, Some(vec![11])),
            (20, None),
            (30, Some(vec![31])),
        ]
    );
}

#[test]
fn optional_mutable_slices_write_where_present() {
    let mut f = fixture();
    let mut tables = 0;
    f.world
        .query_mut::<(&Pos, Option<&mut Acc>)>()
        .for_each_table_mut(|_, (pos, acc)| {
            tables += 1;
            if let Some(acc) = acc {
                for (a, p) in acc.iter_mut().zip(pos) {
                    a.0 += p.0;
                }
            }
        });
    assert_eq!(tables, 4);
    let [e0, _, _, e3, _, _] = f.e;
    assert_eq!(f.world.get::<Acc>(e3), Some(&Acc(62)));
    assert_eq!(f.world.get::<Acc>(e0), None);
}

#[test]
fn has_items_are_one_bool_per_table() {
    let f = fixture();
    let mut seen = BTreeMap::new();
    f.world
        .query::<(Entity, Has<Frozen>, Has<Acc>)>()
        .for_each_table(|_, (entities, frozen, acc)| {
            for entity in entities {
                seen.insert(entity, (frozen, acc));
            }
        });
    let [e0, e1, e2, e3, e4, e5] = f.e;
    let expected = BTreeMap::from([
        (e0, (false, false)),
        (e1, (true, false)),
        (e2, (false, false)),
        (e3, (false, true)),
        (e4, (false, false)),
        (e5, (false, false)),
    ]);
    assert_eq!(seen, expected);
}

#[test]
fn entity_slices_are_the_chunks_entities_with_their_generations() {
    let mut f = fixture();
    let [e0, e1, _, e3, e4, _] = f.e;
    f.world.despawn(e0).unwrap();
    let reborn = f.world.spawn((Pos(-1), Vel(-1)));
    assert_eq!(reborn.index(), e0.index());
    assert_ne!(reborn, e0);
    let mut all = Vec::new();
    f.world
        .query_filtered::<Entity, With<Vel>>()
        .for_each_table(|table, entities| {
            let listed: Vec<Entity> = entities.iter().collect();
            assert_eq!(listed.len(), table.len());
            assert_eq!(entities.len(), table.len());
            assert_eq!(table.entities().iter().collect::<Vec<_>>(), listed);
            let mut reversed: Vec<Entity> = entities.iter().rev().collect();
            reversed.reverse();
            assert_eq!(reversed, listed);
            for (row, entity) in listed.iter().enumerate() {
                assert_eq!(entities.get(row), Some(*entity));
            }
            assert_eq!(entities.get(entities.len()), None);
            all.extend(listed);
        });
    // Despawning e0 moved e4 into its row; the reborn slot went to the end.
    assert_eq!(all, [e4, reborn, e1, e3]);
}

#[test]
fn chunks_and_their_entities_say_their_size_and_debug_as_schema_mask_rows() {
    let f = fixture();
    let [e0, _, _, _, e4, _] = f.e;
    let mut seen = Vec::new();
    f.world
        .query_filtered::<Entity, (With<Vel>, Without<Frozen>, Without<Acc>)>()
        .for_each_table(|table, entities| {
            assert!(!table.is_empty());
            assert!(!entities.is_empty());
            let mut iter = entities.iter();
            assert_eq!(iter.size_hint(), (2, Some(2)));
            assert_eq!(iter.len(), 2);
            iter.next();
            assert_eq!(iter.size_hint(), (1, Some(1)));
            seen.push((format!("{table:?}"), format!("{entities:?}")));
        });
    assert_eq!(
        seen,
        [(
            "TableChunk { schema: \"world::tables::Sim\", mask: 0b11, rows: 0..2, .. }".to_string(),
            format!("[{e0:?}, {e4:?}]"),
        )]
    );
}

#[test]
fn entities_agree_with_world_lookups_row_by_row() {
    let mut f = fixture();
    let mut checked = 0;
    f.world
        .query_mut::<(&mut Pos, Option<&Vel>)>()
        .for_each_table_mut(|table, (pos, vel)| {
            let entities = table.entities();
            for (row, entity) in entities.iter().enumerate() {
                pos[row].0 = entity.to_bits() as i64;
                if let Some(vel) = vel {
                    assert_eq!(vel[row].0 % 10, 1, "{entity:?}");
                }
                checked += 1;
            }
        });
    assert_eq!(checked, 5);
    for entity in &f.e[..5] {
        assert_eq!(pos_of(&f.world, *entity), entity.to_bits() as i64);
    }
}

#[test]
fn mask_is_the_archetype_of_the_chunks_table() {
    let f = fixture();
    let mut masks = Vec::new();
    f.world
        .query_filtered::<&Pos, With<Vel>>()
        .for_each_table(|table, _| masks.push(table.mask::<Sim>()));
    assert_eq!(
        masks,
        [
            SimMask::POS | SimMask::VEL,
            SimMask::POS | SimMask::VEL | SimMask::FROZEN,
            SimMask::POS | SimMask::VEL | SimMask::ACC,
        ]
    );
}

#[test]
#[should_panic(expected = "on a query of a World<")]
fn mask_of_another_schema_panics() {
    let f = fixture();
    f.world.query::<&Pos>().for_each_table(|table, _| {
        table.mask::<Other>();
    });
}

#[test]
fn filters_select_tables_as_for_every_other_form() {
    fn visited<F: ecs::query::QueryFilter<Sim>>(
        world: &mut World<Sim>,
    ) -> (Vec<Entity>, Vec<Entity>) {
        let mut by_table = Vec::new();
        world
            .query_filtered::<Entity, F>()
            .for_each_table(|table, _| by_table.extend(table.entities()));
        let mut by_entity = Vec::new();
        world
            .query_filtered::<Entity, F>()
            .for_each(|entity| by_entity.push(entity));
        (by_table, by_entity)
    }
    let mut f = fixture();
    let [e0, e1, e2, e3, e4, e5] = f.e;
    let (table, entity) = visited::<Without<Frozen>>(&mut f.world);
    assert_eq!(table, entity);
    assert_eq!(table, [e5, e0, e4, e2, e3]);
    let (table, entity) = visited::<(With<Vel>, Without<Acc>)>(&mut f.world);
    assert_eq!(table, entity);
    assert_eq!(table, [e0, e4, e1]);
    let (table, _) = visited::<With<Frozen>>(&mut f.world);
    assert_eq!(table, [e1]);
}

#[test]
fn empty_tables_are_skipped() {
    let mut f = fixture();
    let [e0, e1, e2, _, e4, _] = f.e;
    // Emptied by removal, by despawning, and by migrating its one entity.
    f.world.remove::<Vel>(e0).unwrap();
    f.world.despawn(e4).unwrap();
    f.world.despawn(e1).unwrap();
    f.world.insert(e2, (Vel(21),)).unwrap();
    // `Pos+Vel` now holds e2 alone, `Pos` holds e0, `Pos+Vel+Frozen` nothing.
    let mut calls = Vec::new();
    f.world.query::<&Pos>().for_each_table_mut(|table, _| {
        assert!(!table.is_empty());
        calls.push((table.mask::<Sim>(), table.len()));
    });
    assert_eq!(
        calls,
        [
            (SimMask::POS | SimMask::VEL, 1),
            (SimMask::POS, 1),
            (SimMask::POS | SimMask::VEL | SimMask::ACC, 1),
        ]
    );
    let mut calls = 0;
    f.world
        .query_filtered::<&Pos, With<Frozen>>()
        .for_each_table(|_, _| calls += 1);
    assert_eq!(calls, 0);
    // A world with no entity at all, and a query that matches no table.
    let mut empty = World::<Sim>::new();
    empty
        .query::<Entity>()
        .par_for_each_table(|_, _| panic!("called for an empty table"));
    empty
        .query_mut::<&mut Acc>()
        .par_for_each_table_mut(|_, _| panic!("called for an empty table"));
}

#[test]
fn sequential_chunks_hold_whole_tables() {
    let f = fixture();
    f.world
        .query::<(&Pos, Option<&Vel>, Entity)>()
        .for_each_table(|table, (pos, vel, entities)| {
            assert_eq!(table.rows(), 0..table.len());
            assert_eq!(pos.len(), table.len());
            assert_eq!(entities.len(), table.len());
            assert!(vel.is_none_or(|vel| vel.len() == table.len()));
        });
}

#[test]
fn every_item_kind_in_one_query() {
    let mut f = fixture();
    let mut rows = Vec::new();
    f.world
        .query_mut::<(Entity, &mut Pos, &Vel, Option<&mut Acc>, Has<Frozen>)>()
        .for_each_table_mut(|table, (entities, pos, vel, acc, frozen)| {
            for row in 0..table.len() {
                if !frozen {
                    pos[row].0 += vel[row].0;
                }
                if let Some(acc) = acc.as_deref() {
                    rows.push((entities.get(row).unwrap(), acc[row].0));
                }
            }
        });
    let [e0, e1, _, e3, _, _] = f.e;
    assert_eq!(rows, [(e3, 32)]);
    assert_eq!(pos_of(&f.world, e0), 1);
    assert_eq!(pos_of(&f.world, e1), 10);
    assert_eq!(pos_of(&f.world, e3), 61);
}

/// Big enough that the parallel forms cut tables into several ranges on any
/// number of threads: ranges are at most a sixteenth of the rows, rounded up
/// to 64.
const MANY: i64 = 20_000;

fn many() -> World<Sim> {
    let mut world = World::<Sim>::new();
    world.spawn_batch((0..MANY).map(|i| (Pos(i), Vel(1))));
    world.spawn_batch((0..MANY / 3).map(|i| (Pos(i), Vel(1), Frozen)));
    world.spawn_batch((0..7).map(|i| (Pos(i), Vel(1), Acc(0))));
    world
}

#[test]
fn parallel_table_forms_never_hand_out_an_empty_range() {
    // 512 rows: two ranges of 256 (the smallest range) on 1, 2 or 4
    // threads, the second ending exactly at the table's end.
    let mut world = World::<Sim>::new();
    world.spawn_batch((0..512).map(|i| (Pos(i),)));
    for threads in [1, 2, 4] {
        let ranges = Mutex::new(Vec::new());
        on_threads(threads, || {
            world.query::<&Pos>().par_for_each_table(|chunk, pos| {
                assert!(!chunk.is_empty() && !chunk.entities().is_empty());
                assert_eq!(pos.len(), chunk.len());
                ranges.lock().unwrap().push(chunk.rows());
            })
        });
        let mut ranges = ranges.into_inner().unwrap();
        ranges.sort_by_key(|rows| rows.start);
        assert_eq!(ranges, [0..256, 256..512], "on {threads} threads");
    }
    assert!(ecs::query::TableEntities::default().is_empty());
    assert_eq!(ecs::query::TableEntities::default().len(), 0);
}

#[test]
fn parallel_ranges_cover_every_row_exactly_once() {
    let world = many();
    let mut all = world.query::<Entity>().iter().collect::<Vec<_>>();
    all.sort();
    for threads in [1, 2, 4] {
        let ranges = Mutex::new(Vec::new());
        on_threads(threads, || {
            world
                .query::<(Entity, &Pos)>()
                .par_for_each_table(|chunk, (entities, pos)| {
                    assert_eq!(pos.len(), chunk.len());
                    assert_eq!(entities.len(), chunk.len());
                    let entities: Vec<Entity> = entities.iter().collect();
                    ranges
                        .lock()
                        .unwrap()
                        .push((chunk.mask::<Sim>(), chunk.rows(), entities));
                })
        });
        let mut ranges = ranges.into_inner().unwrap();
        ranges.sort_by_key(|(mask, rows, _)| (*mask, rows.start));
        assert!(
            ranges.len() > 3,
            "the big tables were not cut on {threads} threads: {} ranges",
            ranges.len()
        );
        // Per table, the ranges tile its rows, in order and without overlap.
        let mut seen: Vec<Entity> = Vec::new();
        let mut next = BTreeMap::new();
        for (mask, rows, entities) in &ranges {
            let start = next.entry(*mask).or_insert(0);
            assert_eq!(rows.start, *start, "gap or overlap in {mask:?}");
            assert_eq!(rows.len(), entities.len());
            *start = rows.end;
            seen.extend(entities);
        }
        // The last range of each table ends at the table's end.
        let moving = SimMask::POS | SimMask::VEL;
        let table_ends = BTreeMap::from([
            (moving, MANY as usize),
            (moving | SimMask::FROZEN, (MANY / 3) as usize),
            (moving | SimMask::ACC, 7),
        ]);
        assert_eq!(next, table_ends);
        seen.sort();
        assert_eq!(seen, all, "on {threads} threads");
    }
}

#[test]
fn parallel_mutable_ranges_visit_every_row_exactly_once() {
    let mut world = many();
    for threads in [1, 2, 4] {
        on_threads(threads, || {
            world
                .query_mut::<(&mut Pos, &mut Vel)>()
                .par_for_each_table_mut(|_, (pos, vel)| {
                    for (p, v) in pos.iter_mut().zip(vel) {
                        p.0 += 1_000_000;
                        v.0 += 1;
                    }
                })
        });
    }
    let query = world.query::<&Vel>();
    assert!(query.iter().all(|vel| vel.0 == 4));
    let mut rows: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    rows.sort();
    let mut expected: Vec<i64> = (0..MANY)
        .chain(0..MANY / 3)
        .chain(0..7)
        .map(|i| i + 3_000_000)
        .collect();
    expected.sort();
    assert_eq!(rows, expected);
}

#[test]
fn parallel_ranges_start_at_multiples_of_64_rows() {
    let world = many();
    world.query::<&Pos>().par_for_each_table(|chunk, _| {
        assert_eq!(chunk.rows().start % 64, 0, "{:?}", chunk.rows());
    });
}
