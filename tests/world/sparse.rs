//! Sparse-set components (`#[ecs(sparse)]`): every operation treats them like
//! any other component, while inserting or removing one moves nothing else.

use ecs::mask::Mask;
use ecs::prelude::*;
use ecs::schema::Layout;

use ecs::command::CommandBuffer;

use ecs::query::PreparedQuery;

use ecs::checksum::StableHash;
use ecs::world::InsertError;
use support::{DropLog, Tracked};

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Stun(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Heat(i32);
#[derive(Clone, Copy, Debug, PartialEq, Default, StableHash)]
struct Frozen;

/// Bits: Pos 0, Stun 1 (sparse), Vel 2, Heat 3 (sparse, tracked), Frozen 4.
#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
    vel: Vel,
    #[ecs(sparse)]
    #[ecs(track)]
    heat: Heat,
    frozen: Frozen,
}

fn tables(world: &World<Game>) -> Vec<String> {
    world
        .describe()
        .to_string()
        .lines()
        .skip(1)
        .map(|line| line.trim().to_string())
        .collect()
}

#[test]
fn schema_reports_its_sparse_bits() {
    assert_eq!(
        <Game as Layout>::SPARSE_BITS,
        (GameMask::STUN | GameMask::HEAT).bits() as u128
    );
    assert_eq!(
        <Game as Layout>::TRACKED_BITS,
        GameMask::HEAT.bits() as u128
    );
}

#[test]
fn spawn_with_sparse_components_puts_the_entity_in_the_table_of_the_rest() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Stun(3)));
    let b = world.spawn((Pos(2),));
    assert_eq!(world.get::<Stun>(a), Some(&Stun(3)));
    assert_eq!(world.get::<Stun>(b), None);
    assert!(world.has::<Stun>(a) && !world.has::<Stun>(b));
    assert_eq!(world.archetype(a), Some(GameMask::POS | GameMask::STUN));
    assert_eq!(world.archetype(b), Some(GameMask::POS));
    // One table holds both: the sparse bit chose none.
    assert_eq!(tables(&world), ["[]: 0 entities", "[Pos]: 2 entities"]);
}

#[test]
fn inserting_and_removing_a_sparse_component_moves_no_row() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), Vel(-i)))).collect();
    let order = |world: &World<Game>| world.iter().collect::<Vec<_>>();
    let before = order(&world);
    world.insert(ids[1], (Stun(7),)).unwrap();
    world.insert(ids[3], (Stun(9), Heat(2))).unwrap();
    assert_eq!(order(&world), before);
    assert_eq!(
        world.archetype(ids[3]),
        Some(GameMask::POS | GameMask::VEL | GameMask::STUN | GameMask::HEAT)
    );
    assert_eq!(world.remove::<Stun>(ids[1]), Ok(Some(Stun(7))));
    assert_eq!(world.remove::<Stun>(ids[1]), Ok(None));
    assert_eq!(world.remove::<Stun>(ids[0]), Ok(None));
    assert_eq!(order(&world), before);
    assert_eq!(world.get::<Stun>(ids[3]), Some(&Stun(9)));
    assert_eq!(world.get::<Heat>(ids[3]), Some(&Heat(2)));
    assert_eq!(tables(&world), ["[]: 0 entities", "[Pos, Vel]: 4 entities"]);
}

#[test]
fn a_bundle_of_sparse_and_table_components_migrates_only_for_the_table_part() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    world.insert(a, (Stun(1), Vel(2))).unwrap();
    assert_eq!(world.get::<Vel>(a), Some(&Vel(2)));
    assert_eq!(world.get::<Stun>(a), Some(&Stun(1)));
    assert_eq!(
        world.remove_bundle::<(Vel, Stun)>(a),
        Ok(Some((Vel(2), Stun(1))))
    );
    assert_eq!(world.archetype(a), Some(GameMask::POS));
    // Removing a bundle the entity has only part of changes nothing.
    world.insert(a, (Stun(4),)).unwrap();
    assert_eq!(world.remove_bundle::<(Vel, Stun)>(a), Ok(None));
    assert_eq!(world.remove_bundle::<(Heat, Stun)>(a), Ok(None));
    assert_eq!(world.get::<Stun>(a), Some(&Stun(4)));
}

#[test]
fn overwriting_a_sparse_value_replaces_it_in_place() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Stun(1)));
    let b = world.spawn((Pos(2), Stun(2)));
    world.insert(a, (Stun(10),)).unwrap();
    world.get_mut::<Stun>(b).unwrap().0 += 5;
    assert_eq!(world.get::<Stun>(a), Some(&Stun(10)));
    assert_eq!(world.get::<Stun>(b), Some(&Stun(7)));
}

#[test]
fn stale_and_dead_entities_are_errors_that_change_nothing() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Stun(1)));
    let keep = world.spawn((Pos(2), Stun(2)));
    world.despawn(a).unwrap();
    let reused = world.spawn((Pos(3),));
    assert_eq!(reused.index(), a.index());
    let checksum = world.checksum();
    assert_eq!(
        world.insert(a, (Stun(5),)),
        Err(InsertError::NoSuchEntity(a))
    );
    assert_eq!(world.remove::<Stun>(a), Err(NoSuchEntity(a)));
    assert_eq!(world.remove_bundle::<(Pos, Stun)>(a), Err(NoSuchEntity(a)));
    assert_eq!(world.despawn(a), Err(NoSuchEntity(a)));
    assert_eq!(world.get::<Stun>(a), None);
    assert!(world.get_mut::<Stun>(a).is_none());
    assert!(!world.has::<Stun>(a));
    assert_eq!(world.checksum(), checksum);
    // The new entity in the old slot has no sparse value of the dead one.
    assert_eq!(world.get::<Stun>(reused), None);
    assert_eq!(world.get::<Stun>(keep), Some(&Stun(2)));
}

#[test]
fn despawn_takes_the_sparse_values_with_the_entity() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = (0..5)
        .map(|i| world.spawn((Pos(i), Stun(i as u32))))
        .collect();
    world.despawn(ids[0]).unwrap();
    world.despawn(ids[3]).unwrap();
    for (i, &e) in ids.iter().enumerate() {
        let expected = (i != 0 && i != 3).then_some(Stun(i as u32));
        assert_eq!(world.get::<Stun>(e).copied(), expected);
    }
    world.clear();
    for &e in &ids {
        assert_eq!(world.get::<Stun>(e), None);
    }
    let fresh = world.spawn((Pos(9),));
    assert!(!world.has::<Stun>(fresh));
}

#[test]
fn entity_views_see_sparse_components() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Stun(2), Frozen));
    let e = world.entity(a).unwrap();
    assert_eq!(e.get::<Stun>(), Some(&Stun(2)));
    assert!(e.has::<Stun>() && !e.has::<Heat>());
    assert_eq!(
        e.archetype(),
        GameMask::POS | GameMask::STUN | GameMask::FROZEN
    );
    assert_eq!(
        format!("{e:?}"),
        format!("EntityRef({a:?}: Pos, Stun, Frozen)")
    );
    let mut m = world.entity_mut(a).unwrap();
    m.get_mut::<Stun>().unwrap().0 = 8;
    assert_eq!(m.get::<Stun>(), Some(&Stun(8)));
    assert!(m.get_mut::<Heat>().is_none());
}

#[derive(Debug, PartialEq)]
struct Owned(Tracked);
#[derive(Debug, PartialEq)]
struct Held(Tracked);

#[derive(Schema)]
struct Drops {
    owned: Owned,
    #[ecs(sparse)]
    held: Held,
}

#[test]
fn sparse_values_are_dropped_exactly_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let a = world.spawn((Owned(log.track(1)), Held(log.track(2))));
    let b = world.spawn((Owned(log.track(3)),));
    world.insert(b, (Held(log.track(4)),)).unwrap();
    // Overwritten: the old value is dropped, the new one kept.
    world.insert(a, (Held(log.track(5)),)).unwrap();
    assert_eq!(log.dropped(), [2]);
    // Removed: handed back, not dropped by the world.
    let held = world.remove::<Held>(b).unwrap().unwrap();
    assert_eq!(log.dropped(), [2]);
    drop(held);
    assert_eq!(log.dropped(), [2, 4]);
    // Despawned: every value of the entity, once.
    world.despawn(a).unwrap();
    assert_eq!(log.dropped_sorted(), [1, 2, 4, 5]);
    world.insert(b, (Held(log.track(6)),)).unwrap();
    let c = world.spawn((Owned(log.track(7)), Held(log.track(8))));
    world.clear();
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 6, 7, 8]);
    let d = world.spawn((Owned(log.track(9)), Held(log.track(10))));
    // A bundle of both kinds over values the entity has: both old ones go.
    world
        .insert(d, (Held(log.track(11)), Owned(log.track(12))))
        .unwrap();
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    drop(world);
    assert_eq!(
        log.dropped_sorted(),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    );
    for id in 1..=12 {
        assert_eq!(log.times_dropped(id), 1, "value {id}");
    }
    let _ = c;
}

#[test]
fn sparse_values_changed_through_commands_are_dropped_exactly_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let a = world.spawn((Owned(log.track(1)), Held(log.track(2))));
    let b = world.spawn((Owned(log.track(3)),));
    let mut buffer = CommandBuffer::<Drops>::new();
    let mut commands = buffer.commands(&world);
    // Overwritten: the old value goes when the command is applied.
    commands.insert(a, (Held(log.track(4)),));
    commands.insert(b, (Held(log.track(5)),));
    buffer.apply(&mut world);
    assert_eq!(log.dropped(), [2]);
    let mut commands = buffer.commands(&world);
    commands.remove::<Held>(b);
    commands.insert(a, (Held(log.track(6)),));
    buffer.apply(&mut world);
    assert_eq!(log.dropped(), [2, 5, 4]);
    // For a dead entity, the recorded value is dropped when applied.
    let mut commands = buffer.commands(&world);
    commands.despawn(b);
    commands.insert(b, (Held(log.track(7)),));
    buffer.apply(&mut world);
    assert_eq!(log.dropped(), [2, 5, 4, 3, 7]);
    // A spawn applied to an entity that was given a sparse value after it
    // was reserved overwrites that value, which goes when it is applied.
    let mut commands = buffer.commands(&world);
    let late = commands.spawn((Owned(log.track(8)), Held(log.track(9))));
    world.spawn((Owned(log.track(10)),));
    world.insert(late, (Held(log.track(11)),)).unwrap();
    buffer.apply(&mut world);
    assert_eq!(log.dropped(), [2, 5, 4, 3, 7, 11]);
    assert_eq!(world.get::<Held>(late).map(|held| held.0.id()), Some(9));
    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for id in 1..=11 {
        assert_eq!(log.times_dropped(id), 1, "value {id}");
    }
}

#[test]
fn commands_spawn_entities_with_sparse_components_only_or_none() {
    // Neither bundle has a table component: the entities stay in the empty
    // table, where their reservation put them.
    let mut world = World::<Game>::new();
    let mut buffer = CommandBuffer::<Game>::new();
    let mut commands = buffer.commands(&world);
    let stunned = commands.spawn((Stun(7), Heat(3)));
    let bare = commands.spawn(());
    buffer.apply(&mut world);
    assert_eq!(world.get::<Stun>(stunned), Some(&Stun(7)));
    assert_eq!(world.get::<Heat>(stunned), Some(&Heat(3)));
    assert_eq!(
        world.archetype(stunned),
        Some(GameMask::STUN | GameMask::HEAT)
    );
    assert_eq!(world.archetype(bare), Some(GameMask::EMPTY));
    assert_eq!(world.len(), 2);
}

#[test]
fn commands_route_sparse_components_to_their_sets() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2), Stun(2)));
    let mut buffer = CommandBuffer::<Game>::new();
    let mut commands = buffer.commands(&world);
    let c = commands.spawn((Pos(3), Stun(3), Heat(1)));
    commands.insert(a, (Stun(1),));
    commands.insert(b, (Stun(20), Vel(5)));
    commands.remove::<Stun>(c);
    commands.despawn(a);
    buffer.apply(&mut world);
    assert!(!world.is_alive(a));
    assert_eq!(world.get::<Stun>(b), Some(&Stun(20)));
    assert_eq!(world.get::<Vel>(b), Some(&Vel(5)));
    assert_eq!(world.get::<Stun>(c), None);
    assert_eq!(world.get::<Heat>(c), Some(&Heat(1)));
    assert_eq!(world.archetype(c), Some(GameMask::POS | GameMask::HEAT));
    let mut commands = buffer.commands(&world);
    commands.remove_bundle::<(Pos, Heat)>(c);
    commands.remove_bundle::<(Vel, Heat)>(b);
    buffer.apply(&mut world);
    assert_eq!(world.archetype(c), Some(GameMask::EMPTY));
    assert_eq!(
        world.archetype(b),
        Some(GameMask::POS | GameMask::VEL | GameMask::STUN)
    );
}

#[test]
fn a_clone_is_exact_and_independent() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = (0..6).map(|i| world.spawn((Pos(i),))).collect();
    for &e in ids.iter().rev().step_by(2) {
        world.insert(e, (Stun(e.index()), Heat(1))).unwrap();
    }
    world.remove::<Stun>(ids[3]).unwrap();
    let copy = world.clone();
    assert_eq!(copy.checksum(), world.checksum());
    for &e in &ids {
        assert_eq!(copy.get::<Stun>(e), world.get::<Stun>(e));
        assert_eq!(copy.archetype(e), world.archetype(e));
    }
    world.insert(ids[0], (Stun(99),)).unwrap();
    assert_ne!(copy.checksum(), world.checksum());
    assert_eq!(copy.get::<Stun>(ids[0]), None);
    let mut target = World::<Game>::new();
    target.spawn((Pos(5), Stun(5)));
    target.clone_from(&copy);
    assert_eq!(target.checksum(), copy.checksum());
}

#[test]
fn the_checksum_sees_sparse_values() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Stun(1)));
    let before = world.checksum();
    world.get_mut::<Stun>(a).unwrap().0 = 2;
    assert_ne!(world.checksum(), before);
    world.get_mut::<Stun>(a).unwrap().0 = 1;
    assert_eq!(world.checksum(), before);
    world.remove::<Stun>(a).unwrap();
    assert_ne!(world.checksum(), before);

    // The same values in the same dense order, owned the other way round.
    let mut base = World::<Game>::new();
    let [a, b] = [(); 2].map(|_| base.spawn((Pos(0),)));
    let mut one = base.clone();
    one.insert(a, (Stun(1),)).unwrap();
    one.insert(b, (Stun(2),)).unwrap();
    let mut other = base.clone();
    other.insert(b, (Stun(1),)).unwrap();
    other.insert(a, (Stun(2),)).unwrap();
    assert_ne!(one.checksum(), other.checksum());
}

#[test]
fn spawn_batch_puts_sparse_values_in_their_sets() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world
        .spawn_batch((0..5).map(|i| (Pos(i), Stun(i as u32 * 10))))
        .collect();
    world.spawn_batch((0..3).map(|i| (Heat(i),))).for_each(drop);
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Stun>(e), Some(&Stun(i as u32 * 10)));
        assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::STUN));
    }
    assert_eq!(tables(&world), ["[]: 3 entities", "[Pos]: 5 entities"]);
}

#[test]
fn removed_lists_entities_that_lost_a_tracked_sparse_component() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Heat(1)));
    let b = world.spawn((Pos(2), Heat(2)));
    let c = world.spawn((Pos(3), Heat(3)));
    let d = world.spawn((Pos(4), Heat(4)));
    world.clear_trackers();
    world.remove::<Heat>(b).unwrap();
    world.despawn(a).unwrap();
    world.remove_bundle::<(Pos, Heat)>(c).unwrap();
    // Losing an untracked component logs nothing.
    world.remove::<Pos>(d).unwrap();
    assert_eq!(world.removed::<Heat>().collect::<Vec<_>>(), [b, a, c]);
    world.clear_trackers();
    world.clear();
    assert_eq!(world.removed::<Heat>().collect::<Vec<_>>(), [d]);
}

/// A world of 12 entities in two tables, each with `Stun` on some rows and
/// `Heat` on others, inserted out of row order (so the dense order of the
/// sets differs from the rows').
fn mixed() -> (World<Game>, Vec<Entity>) {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = (0..12)
        .map(|i| {
            if i % 3 == 0 {
                world.spawn((Pos(i), Vel(i)))
            } else {
                world.spawn((Pos(i),))
            }
        })
        .collect();
    for &i in &[7, 1, 2, 9, 4, 3, 11, 0] {
        world.insert(ids[i], (Stun(i as u32),)).unwrap();
    }
    for &i in &[5, 4, 3, 10] {
        world.insert(ids[i], (Heat(i as i32),)).unwrap();
    }
    (world, ids)
}

/// What the world holds, entity by entity, in iteration order.
fn expected(
    world: &World<Game>,
    f: impl Fn(Entity) -> Option<(Entity, u32)>,
) -> Vec<(Entity, u32)> {
    world.iter().filter_map(f).collect()
}

#[test]
fn a_query_of_a_sparse_component_sees_every_entity_that_has_it_in_table_order() {
    let (world, _) = mixed();
    let got: Vec<(Entity, u32)> = world
        .query::<(Entity, &Stun)>()
        .iter()
        .map(|(e, s)| (e, s.0))
        .collect();
    let want = expected(&world, |e| world.get::<Stun>(e).map(|s| (e, s.0)));
    assert_eq!(got, want);
    assert_eq!(got.len(), 8);
    let mut with_pos = Vec::new();
    world
        .query::<(&Pos, &Stun)>()
        .for_each(|(p, s)| with_pos.push((p.0, s.0)));
    assert!(with_pos.iter().all(|&(p, s)| p as u32 == s));
    assert_eq!(with_pos.len(), 8);
}

#[test]
fn writing_a_sparse_component_through_a_query_reaches_each_value_once() {
    let (mut world, ids) = mixed();
    world
        .query_mut::<(&Pos, &mut Stun)>()
        .for_each_mut(|(p, s)| s.0 += 100 + p.0 as u32);
    for (i, &e) in ids.iter().enumerate() {
        let expect = [7, 1, 2, 9, 4, 3, 11, 0]
            .contains(&i)
            .then_some(Stun(i as u32 * 2 + 100));
        assert_eq!(world.get::<Stun>(e).copied(), expect, "entity {i}");
    }
    for (_, s) in world.query_mut::<(Entity, &mut Stun)>().iter_mut() {
        s.0 = 0;
    }
    assert!(world.query::<&Stun>().iter().all(|s| s.0 == 0));
}

#[test]
fn optional_and_has_items_of_sparse_components_are_per_entity() {
    let (mut world, _) = mixed();
    let got: Vec<(Entity, Option<u32>, bool, bool)> = world
        .query::<(Entity, Option<&Stun>, Has<Heat>, Has<Vel>)>()
        .iter()
        .map(|(e, s, h, v)| (e, s.map(|s| s.0), h, v))
        .collect();
    let want: Vec<(Entity, Option<u32>, bool, bool)> = world
        .iter()
        .map(|e| {
            (
                e,
                world.get::<Stun>(e).map(|s| s.0),
                world.has::<Heat>(e),
                world.has::<Vel>(e),
            )
        })
        .collect();
    assert_eq!(got, want);
    world
        .query_mut::<(Option<&mut Stun>, Option<&mut Heat>)>()
        .for_each_mut(|(s, h)| {
            if let Some(s) = s {
                s.0 += 1;
            }
            if let Some(h) = h {
                h.0 -= 1;
            }
        });
    let after: Vec<(Option<u32>, Option<i32>)> = world
        .query::<(Option<&Stun>, Option<&Heat>)>()
        .iter()
        .map(|(s, h)| (s.map(|s| s.0), h.map(|h| h.0)))
        .collect();
    let want: Vec<(Option<u32>, Option<i32>)> = want
        .iter()
        .map(|&(e, s, _, _)| (s.map(|s| s + 1), world.get::<Heat>(e).map(|h| h.0)))
        .collect();
    assert_eq!(after, want);
    assert!(after.iter().any(|(_, h)| *h == Some(4)));
}

#[test]
fn filters_on_sparse_components_select_entities() {
    let (world, _) = mixed();
    let pick =
        |f: &dyn Fn(Entity) -> bool| -> Vec<Entity> { world.iter().filter(|&e| f(e)).collect() };
    let with: Vec<Entity> = world
        .query_filtered::<Entity, With<Stun>>()
        .iter()
        .collect();
    assert_eq!(with, pick(&|e| world.has::<Stun>(e)));
    let without: Vec<Entity> = world
        .query_filtered::<Entity, (With<Vel>, Without<Stun>)>()
        .iter()
        .collect();
    assert_eq!(
        without,
        pick(&|e| world.has::<Vel>(e) && !world.has::<Stun>(e))
    );
    let either: Vec<Entity> = world
        .query_filtered::<Entity, Or<(With<Heat>, (With<Vel>, With<Stun>))>>()
        .iter()
        .collect();
    assert_eq!(
        either,
        pick(&|e| world.has::<Heat>(e) || (world.has::<Vel>(e) && world.has::<Stun>(e)))
    );
    assert_eq!(world.query_filtered::<&Pos, With<Heat>>().count(), 4);
}

#[test]
fn a_query_gets_entities_by_id_through_sparse_items() {
    let (mut world, ids) = mixed();
    let q = world.query::<(&Pos, &Stun)>();
    assert_eq!(q.get(ids[7]).map(|(p, s)| (p.0, s.0)), Ok((7, 7)));
    assert!(q.get(ids[5]).is_err());
    assert!(q.contains(ids[0]) && !q.contains(ids[6]));
    let mut q = world.query_mut::<&mut Stun>();
    q.get_mut(ids[9]).unwrap().0 = 90;
    let [a, b] = q.get_many_mut([ids[1], ids[2]]).unwrap();
    std::mem::swap(a, b);
    assert_eq!(world.get::<Stun>(ids[9]), Some(&Stun(90)));
    assert_eq!(world.get::<Stun>(ids[1]), Some(&Stun(2)));
    assert_eq!(world.get::<Stun>(ids[2]), Some(&Stun(1)));
}

#[test]
fn the_table_form_hands_out_sparse_values_aligned_with_the_rows() {
    let (mut world, _) = mixed();
    let mut seen = 0;
    world
        .query_mut::<(Entity, &Pos, &mut Stun)>()
        .for_each_table_mut(|chunk, (entities, pos, stun)| {
            assert_eq!(chunk.len(), pos.len());
            assert_eq!(pos.len(), stun.len());
            for (i, (p, s)) in pos.iter().zip(stun.iter_mut()).enumerate() {
                assert!(entities.get(i).is_some());
                assert_eq!(p.0 as u32, s.0);
                s.0 += 1;
                seen += 1;
            }
        });
    assert_eq!(seen, 8);
    assert!(world
        .query::<(&Pos, &Stun)>()
        .iter()
        .all(|(p, s)| s.0 == p.0 as u32 + 1));
}

#[test]
fn a_prepared_query_reaches_sparse_components() {
    let (mut world, ids) = mixed();
    let mut stunned = world.prepare::<(&Pos, &mut Stun)>();
    for _ in 0..3 {
        stunned.for_each_mut(&mut world, |(_, s)| s.0 += 1);
    }
    assert_eq!(world.get::<Stun>(ids[7]), Some(&Stun(10)));
    world.remove::<Stun>(ids[7]).unwrap();
    world.insert(ids[6], (Stun(60),)).unwrap();
    let mut sum = 0;
    stunned.for_each_mut(&mut world, |(_, s)| sum += s.0);
    let want: u32 = world.query::<&Stun>().iter().map(|s| s.0).sum();
    assert_eq!(sum, want);
    let mut readers = world.prepare_filtered::<Entity, Without<Stun>>();
    let got: Vec<Entity> = readers.query(&world).iter().collect();
    let want: Vec<Entity> = world.iter().filter(|&e| !world.has::<Stun>(e)).collect();
    assert_eq!(got, want);
    let mut n = 0;
    readers.for_each(&world, |_| n += 1);
    assert_eq!(n, want.len());
    assert_eq!(stunned.query_mut(&mut world).count(), 8);
}

#[test]
fn parallel_iteration_writes_each_sparse_value_once() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..5000).map(|i| (Pos(i),))).collect();
    for &e in ids.iter().rev().step_by(3) {
        world.insert(e, (Stun(1),)).unwrap();
    }
    world
        .query_mut::<(&Pos, &mut Stun)>()
        .par_for_each_mut(|(p, s)| s.0 += p.0 as u32);
    for (i, &e) in ids.iter().enumerate() {
        let expect = ((ids.len() - 1 - i) % 3 == 0).then_some(Stun(1 + i as u32));
        assert_eq!(world.get::<Stun>(e).copied(), expect);
    }
}

#[test]
fn change_detection_sees_additions_and_writes_of_a_tracked_sparse_component() {
    let (mut world, ids) = mixed();
    world.clear_trackers();
    let added = |world: &World<Game>| -> Vec<Entity> {
        world
            .query_filtered::<Entity, Added<Heat>>()
            .iter()
            .collect()
    };
    let changed = |world: &World<Game>| -> Vec<Entity> {
        world
            .query_filtered::<Entity, Changed<Heat>>()
            .iter()
            .collect()
    };
    assert!(added(&world).is_empty() && changed(&world).is_empty());
    world.insert(ids[0], (Heat(0),)).unwrap();
    world.get_mut::<Heat>(ids[4]).unwrap().0 += 1;
    world.insert(ids[10], (Heat(-10),)).unwrap();
    assert_eq!(added(&world), [ids[0]]);
    let mut want = vec![ids[0], ids[4], ids[10]];
    want.sort_by_key(|&e| world.iter().position(|x| x == e));
    assert_eq!(changed(&world), want);
    world.clear_trackers();
    world
        .query_filtered_mut::<&mut Heat, With<Vel>>()
        .for_each_mut(|h| h.0 += 1);
    let want: Vec<Entity> = world
        .iter()
        .filter(|&e| world.has::<Heat>(e) && world.has::<Vel>(e))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(changed(&world), want);
    // An Or of a table row filter and a sparse one.
    let either: Vec<Entity> = world
        .query_filtered::<Entity, Or<(Changed<Heat>, With<Stun>)>>()
        .iter()
        .collect();
    let want: Vec<Entity> = world
        .iter()
        .filter(|&e| want.contains(&e) || world.has::<Stun>(e))
        .collect();
    assert_eq!(either, want);
}

#[test]
fn a_writer_of_changed_sparse_values_waits_for_another_writer_on_other_entities() {
    // The two reach disjoint entities (With<Vel> against Without<Vel>), but
    // Heat is sparse: both are lent its one set. Each reads Heat through its
    // filter as well as writing it.
    fn cool_movers(mut q: Query<&mut Heat, (Changed<Heat>, With<Vel>)>) {
        q.for_each_mut(|heat| heat.0 -= 1);
    }
    fn warm_the_rest(mut q: Query<&mut Heat, (Changed<Heat>, Without<Vel>)>) {
        q.for_each_mut(|heat| heat.0 += 1);
    }
    let mut schedule = Schedule::<Game>::new();
    schedule.add(cool_movers).add(warm_the_rest);
    let plan = schedule.describe();
    assert!(
        plan.contains("warm_the_rest waits for cool_movers"),
        "{plan}"
    );
}

#[derive(Clone, Default)]
struct Log(Vec<String>);

#[derive(Schema)]
struct Sys {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
    vel: Vel,
    #[ecs(resource)]
    log: Log,
}

fn stun_movers(mut q: Query<(&Vel, &mut Stun)>) {
    q.for_each_mut(|(v, s)| s.0 += v.0 as u32);
}

fn move_unstunned(mut q: Query<(&mut Pos, &Vel), Without<Stun>>) {
    q.for_each_mut(|(p, v)| p.0 += v.0);
}

fn read_stunned(q: Query<(Entity, &Stun)>, mut log: ResMut<Log>) {
    for (e, s) in q.iter() {
        log.0.push(format!("{e:?}={}", s.0));
    }
}

fn hold_stunned(mut q: Query<&mut Pos, With<Stun>>, mut commands: Commands<Sys>) {
    for p in q.iter_mut() {
        p.0 = 0;
    }
    commands.spawn((Pos(100), Stun(100)));
}

#[test]
fn has_of_the_only_sparse_component_of_a_schema_is_true_where_it_is_present() {
    // `Sys` has one sparse component: a query whose only sparse item is
    // `Has<Stun>` must still look in the sparse set.
    let mut world = World::<Sys>::new();
    let a = world.spawn((Pos(0), Stun(1)));
    let b = world.spawn((Pos(0),));
    let c = world.spawn((Vel(0), Stun(2)));
    let mut has: Vec<(Entity, bool)> = world.query::<(Entity, Has<Stun>)>().iter().collect();
    has.sort();
    assert_eq!(has, [(a, true), (b, false), (c, true)]);
}

#[test]
fn systems_reach_sparse_components_and_conflict_on_them() {
    let mut world = World::<Sys>::new();
    let a = world.spawn((Pos(0), Vel(1)));
    let b = world.spawn((Pos(0), Vel(2), Stun(10)));
    let c = world.spawn((Pos(5), Stun(7)));
    let mut schedule = Schedule::<Sys>::new();
    schedule
        .add(stun_movers)
        .add(move_unstunned)
        .add(read_stunned)
        .add(hold_stunned);
    let plan = schedule.describe();
    // The writer of Stun and its reader cannot share a stage. Nor can the
    // two writers of Pos, although With<Stun> / Without<Stun> keep their
    // entities apart: they are lent whole table columns, and a sparse
    // component splits no column.
    assert!(
        plan.contains("read_stunned waits for stun_movers"),
        "{plan}"
    );
    assert!(
        plan.contains("hold_stunned waits for move_unstunned"),
        "{plan}"
    );
    schedule.run(&mut world);
    assert_eq!(world.get::<Stun>(b), Some(&Stun(12)));
    assert_eq!(world.get::<Stun>(c), Some(&Stun(7)));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(0)));
    assert_eq!(world.get::<Pos>(c), Some(&Pos(0)));
    assert_eq!(
        world.resource::<Log>().0,
        [format!("{b:?}=12"), format!("{c:?}=7")]
    );
    assert_eq!(world.query::<&Stun>().count(), 3);
    // Sequential and (forced) parallel runs agree.
    let mut copy = World::<Sys>::new();
    copy.clone_from(&world);
    schedule.force_parallel(Some(true)).run(&mut world);
    schedule.run_sequential(&mut copy);
    let stuns = |w: &World<Sys>| -> Vec<(Entity, u32, i64)> {
        w.query::<(Entity, &Stun, &Pos)>()
            .iter()
            .map(|(e, s, p)| (e, s.0, p.0))
            .collect()
    };
    assert_eq!(stuns(&world), stuns(&copy));
    assert_eq!(world.resource::<Log>().0, copy.resource::<Log>().0);
    assert_eq!(stuns(&world).len(), 4);
}

/// Random spawns, despawns, moves between tables, inserts, removals and
/// writes of the tracked sparse `Heat`, and marks, each followed by a
/// comparison of `Added<Heat>` and `Changed<Heat>` (through the world and
/// through a prepared query) with a model of when each entity's `Heat` was
/// added and written.
#[test]
fn added_and_changed_of_a_sparse_component_match_a_model() {
    use std::collections::BTreeMap;
    let mut rng = support::Rng::new(0x5ba25e);
    let mut world = World::<Game>::new();
    // Per live entity: its Heat's (added, changed) since the mark, if any.
    let mut model: BTreeMap<Entity, Option<(bool, bool)>> = BTreeMap::new();
    let mut prepared = world.prepare_filtered::<Entity, Changed<Heat>>();
    for step in 0..3000 {
        let alive: Vec<Entity> = model.keys().copied().collect();
        let pick = |rng: &mut support::Rng| *rng.pick(&alive);
        match rng.below(10) {
            0 | 1 => {
                let e = if rng.chance(1, 2) {
                    world.spawn((Pos(0), Heat(0)))
                } else {
                    world.spawn((Pos(0), Vel(0)))
                };
                model.insert(e, world.has::<Heat>(e).then_some((true, true)));
            }
            2 if !alive.is_empty() => {
                let e = pick(&mut rng);
                world.despawn(e).unwrap();
                model.remove(&e);
            }
            3 if !alive.is_empty() => {
                // A move between tables leaves the sparse value's ticks.
                let e = pick(&mut rng);
                if world.remove::<Vel>(e).unwrap().is_none() {
                    world.insert(e, (Vel(1),)).unwrap();
                }
            }
            4 if !alive.is_empty() => {
                let e = pick(&mut rng);
                let state = model.get_mut(&e).unwrap();
                world.insert(e, (Heat(1),)).unwrap();
                *state = Some(match *state {
                    Some((added, _)) => (added, true),
                    None => (true, true),
                });
            }
            5 if !alive.is_empty() => {
                let e = pick(&mut rng);
                world.remove::<Heat>(e).unwrap();
                model.insert(e, None);
            }
            6 if !alive.is_empty() => {
                let e = pick(&mut rng);
                if let Some(heat) = world.get_mut::<Heat>(e) {
                    heat.0 += 1;
                    let state = model.get_mut(&e).unwrap();
                    *state = state.map(|(added, _)| (added, true));
                }
            }
            7 if rng.chance(1, 3) => {
                world
                    .query_filtered_mut::<&mut Heat, With<Vel>>()
                    .for_each_mut(|heat| heat.0 += 1);
                for (&e, state) in &mut model {
                    if world.has::<Vel>(e) {
                        *state = state.map(|(added, _)| (added, true));
                    }
                }
            }
            8 => {
                world.clear_trackers();
                for state in model.values_mut().flatten() {
                    *state = (false, false);
                }
            }
            9 => {
                // Through commands: a spawn with `Heat`, or `Heat` given to
                // (or written over on) an entity, the staged values' path.
                let mut buffer = CommandBuffer::<Game>::new();
                let mut commands = buffer.commands(&world);
                if alive.is_empty() || rng.chance(1, 3) {
                    let e = commands.spawn((Pos(0), Heat(0)));
                    model.insert(e, Some((true, true)));
                } else {
                    let e = pick(&mut rng);
                    commands.insert(e, (Heat(2),));
                    let state = model.get_mut(&e).unwrap();
                    *state = Some(match *state {
                        Some((added, _)) => (added, true),
                        None => (true, true),
                    });
                }
                buffer.apply(&mut world);
            }
            _ => {}
        }
        let expect = |which: fn((bool, bool)) -> bool| -> Vec<Entity> {
            world
                .iter()
                .filter(|e| model[e].is_some_and(which))
                .collect()
        };
        let added: Vec<Entity> = world
            .query_filtered::<Entity, Added<Heat>>()
            .iter()
            .collect();
        assert_eq!(added, expect(|(a, _)| a), "step {step}: Added");
        let changed: Vec<Entity> = world
            .query_filtered::<Entity, Changed<Heat>>()
            .iter()
            .collect();
        assert_eq!(changed, expect(|(_, c)| c), "step {step}: Changed");
        let mut through_prepared = Vec::new();
        prepared.for_each_mut(&mut world, |e| through_prepared.push(e));
        assert_eq!(through_prepared, changed, "step {step}: prepared");
    }
    assert!(model.len() > 50, "{} entities at the end", model.len());
}

fn stun_the_moving(mut q: Query<&mut Stun, With<Vel>>) {
    q.for_each_mut(|s| s.0 += 1);
}

fn stun_the_still(mut q: Query<&mut Stun, Without<Vel>>) {
    q.for_each_mut(|s| s.0 += 10);
}

#[test]
fn writers_of_a_sparse_component_never_share_a_stage_whatever_their_filters() {
    let mut world = World::<Sys>::new();
    let moving = world.spawn((Pos(0), Vel(1), Stun(0)));
    let still = world.spawn((Pos(0), Stun(0)));
    let mut schedule = Schedule::<Sys>::new();
    schedule.add(stun_the_moving).add(stun_the_still);
    let plan = schedule.describe();
    // One set holds every entity's `Stun`: it is lent to one writer at a
    // time, although the two queries reach different entities.
    assert!(
        plan.contains("stun_the_still waits for stun_the_moving"),
        "{plan}"
    );
    schedule.force_parallel(Some(true)).run(&mut world);
    assert_eq!(world.get::<Stun>(moving), Some(&Stun(1)));
    assert_eq!(world.get::<Stun>(still), Some(&Stun(10)));
}

/// A tracked sparse component and a log of what a system saw.
#[derive(Schema)]
struct Watched {
    pos: Pos,
    #[ecs(sparse)]
    #[ecs(track)]
    heat: Heat,
    #[ecs(resource)]
    log: Log,
}

#[test]
fn old_sparse_changes_are_not_reported_again_at_any_wrap() {
    fn watch(q: Query<Entity, Changed<Heat>>, mut log: ResMut<Log>) {
        log.0.push(format!("{:?}", q.iter().collect::<Vec<_>>()));
    }
    // However far the tick moved before the watcher ran again (one to six
    // times 2^30, so the raw ticks wrap once or more), the spawns are old.
    for quarters in 1..=6 {
        let mut world = World::<Watched>::new();
        let ids: Vec<Entity> = (0..3).map(|i| world.spawn((Pos(i), Heat(0)))).collect();
        let mut schedule = Schedule::<Watched>::new();
        schedule.add(watch);
        schedule.run(&mut world);
        for _ in 0..quarters {
            world.advance_change_tick_for_tests(1 << 30);
            world.clear_trackers();
        }
        world.get_mut::<Heat>(ids[2]).unwrap().0 = 10;
        schedule.run(&mut world);
        assert_eq!(
            world.resource::<Log>().0,
            [format!("{ids:?}"), format!("{:?}", [ids[2]])],
            "after {quarters} x 2^30 ticks"
        );
    }
}

/// The schema of `queries_agree_with_each_entity_at_every_density`: two
/// sparse components beside table components and a tag, and what a system
/// saw.
#[derive(Schema)]
struct Dense {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
    vel: Vel,
    #[ecs(sparse)]
    heat: Heat,
    frozen: Frozen,
    #[ecs(resource)]
    log: Log,
}

/// A world of `n` entities over four tables (some emptied by despawns),
/// `Stun` on `stun` in 100 of them and `Heat` on `heat` in 100, inserted in
/// a shuffled order.
fn dense_world(seed: u64, n: i64, (stun, heat): (u64, u64)) -> World<Dense> {
    let mut rng = support::Rng::new(seed);
    let mut world = World::<Dense>::new();
    let mut ids = Vec::new();
    for i in 0..n {
        ids.push(match i % 4 {
            0 => world.spawn((Pos(i),)),
            1 => world.spawn((Pos(i), Vel(i))),
            2 => world.spawn((Pos(i), Frozen)),
            _ => world.spawn((Pos(i), Vel(i), Frozen)),
        });
    }
    for _ in 0..n {
        let a = rng.below(n as u64) as usize;
        let b = rng.below(n as u64) as usize;
        ids.swap(a, b);
    }
    for (k, &e) in ids.iter().enumerate() {
        if rng.chance(stun, 100) {
            world.insert(e, (Stun(k as u32),)).unwrap();
        }
        if rng.chance(heat, 100) {
            world.insert(e, (Heat(k as i32),)).unwrap();
        }
        // Holes in the tables, and (with `n` small) whole tables emptied.
        if rng.chance(1, 10) || (n < 8 && k % 4 == 2) {
            world.despawn(e).unwrap();
        }
    }
    world
}

/// The entities that are frozen or have no `Heat`.
type FrozenOrCool = Or<(With<Frozen>, Without<Heat>)>;

/// Every entity's answer to the filters and items below, in iteration
/// order.
fn answers(world: &World<Dense>, f: impl Fn(Entity) -> Option<String>) -> Vec<String> {
    world.iter().filter_map(f).collect()
}

/// Queries that reach sparse components in their filters alone (found as
/// bits) and in their items (found as runs), through a shared world, an
/// exclusive one, a prepared query and a system, agree with the entities
/// looked up one by one: at densities where a set is walked owner by owner
/// and where it is looked up row by row, in tables with holes and in empty
/// ones.
#[test]
fn queries_agree_with_each_entity_at_every_density() {
    fn system(
        a: Query<Entity, (With<Vel>, Without<Stun>)>,
        b: Query<(Entity, &Stun), FrozenOrCool>,
        mut log: ResMut<Log>,
    ) {
        let a = a.iter().map(|e| format!("{e:?}"));
        let b = b.iter().map(|(e, s)| format!("{e:?} {}", s.0));
        log.0 = a.chain(b).collect();
    }
    let has = |w: &World<Dense>, e, stun: bool| w.has::<Stun>(e) == stun;
    let densities = [(0, 0), (2, 1), (10, 90), (60, 30), (100, 100)];
    for (seed, &(stun, heat)) in densities.iter().enumerate() {
        for n in [5, 700] {
            let mut world = dense_world(seed as u64, n, (stun, heat));
            let w = &world;
            let id = |e: Entity| format!("{e:?}");
            let case = format!("{stun}% stun, {heat}% heat, {n} entities");

            let got: Vec<String> = w
                .query_filtered::<Entity, Without<Stun>>()
                .iter()
                .map(id)
                .collect();
            let want = answers(w, |e| has(w, e, false).then(|| id(e)));
            assert_eq!(got, want, "Without<Stun>: {case}");

            let got: Vec<String> = w
                .query_filtered::<Entity, (With<Stun>, Without<Frozen>)>()
                .iter()
                .map(id)
                .collect();
            let want = answers(w, |e| {
                (has(w, e, true) && !w.has::<Frozen>(e)).then(|| id(e))
            });
            assert_eq!(got, want, "(With<Stun>, Without<Frozen>): {case}");

            let either = |e| w.has::<Heat>(e) || (w.has::<Vel>(e) && !w.has::<Stun>(e));
            let got: Vec<String> = w
                .query_filtered::<Entity, Or<(With<Heat>, (With<Vel>, Without<Stun>))>>()
                .iter()
                .map(id)
                .collect();
            let want = answers(w, |e| either(e).then(|| id(e)));
            assert_eq!(got, want, "Or: {case}");

            let got: Vec<String> = w
                .query::<(Entity, &Stun, Option<&Heat>)>()
                .iter()
                .map(|(e, s, h)| format!("{e:?} {} {:?}", s.0, h.map(|h| h.0)))
                .collect();
            let want = answers(w, |e| {
                let s = w.get::<Stun>(e)?;
                let h = w.get::<Heat>(e).map(|h| h.0);
                Some(format!("{e:?} {} {h:?}", s.0))
            });
            assert_eq!(got, want, "(&Stun, Option<&Heat>): {case}");

            let got: Vec<String> = w
                .query_filtered::<(Entity, Has<Stun>), Without<Heat>>()
                .iter()
                .map(|(e, s)| format!("{e:?} {s}"))
                .collect();
            let want = answers(w, |e| {
                (!w.has::<Heat>(e)).then(|| format!("{e:?} {}", w.has::<Stun>(e)))
            });
            assert_eq!(got, want, "(Has<Stun>) Without<Heat>: {case}");

            // Each entity by id, through the bits of a sparse filter.
            let query = w.query_filtered::<&Pos, (With<Vel>, Without<Stun>)>();
            for e in w.iter() {
                let want = w.has::<Vel>(e) && !w.has::<Stun>(e);
                assert_eq!(query.get(e).is_ok(), want, "get {e:?}: {case}");
            }

            // Writes through an exclusive world and a prepared query reach
            // exactly the entities the filter admits.
            let want = answers(&world, |e| {
                (!world.has::<Stun>(e) && world.has::<Vel>(e)).then(|| id(e))
            });
            world
                .query_filtered_mut::<&mut Pos, (With<Vel>, Without<Stun>)>()
                .for_each_mut(|p| p.0 += 1_000_000);
            let mut prepared = PreparedQuery::<Dense, &mut Pos, (With<Vel>, Without<Stun>)>::new();
            prepared.for_each_mut(&mut world, |p| p.0 += 1_000_000);
            let moved = answers(&world, |e| {
                (world.get::<Pos>(e).unwrap().0 >= 2_000_000).then(|| id(e))
            });
            assert_eq!(moved, want, "writes: {case}");

            // The same queries as system parameters (the world taken apart).
            let mut schedule = Schedule::<Dense>::new();
            schedule.add(system);
            schedule.run(&mut world);
            let w = &world;
            let mut want = answers(w, |e| (w.has::<Vel>(e) && !w.has::<Stun>(e)).then(|| id(e)));
            want.extend(answers(w, |e| {
                let s = w.get::<Stun>(e)?;
                (w.has::<Frozen>(e) || !w.has::<Heat>(e)).then(|| format!("{e:?} {}", s.0))
            }));
            assert_eq!(w.resource::<Log>().0, want, "system: {case}");
        }
    }
}

/// Runs of rows cut where a sparse component starts or stops at a word of
/// 64 rows: `Has` and `Option` items are right on both sides of each edge.
#[test]
fn items_of_sparse_components_are_right_across_every_64_rows() {
    let mut world = World::<Dense>::new();
    let ids: Vec<Entity> = (0..300).map(|i| world.spawn((Pos(i),))).collect();
    // Present on rows 0..64, 128..192 and 250..300; absent elsewhere.
    let present = |i: usize| i < 64 || (128..192).contains(&i) || i >= 250;
    for (i, &e) in ids.iter().enumerate().rev() {
        if present(i) {
            world.insert(e, (Stun(i as u32),)).unwrap();
        }
    }
    let got: Vec<(Entity, bool)> = world.query::<(Entity, Has<Stun>)>().iter().collect();
    let want: Vec<(Entity, bool)> = ids
        .iter()
        .enumerate()
        .map(|(i, &e)| (e, present(i)))
        .collect();
    assert_eq!(got, want);
    let got: Vec<Option<u32>> = world
        .query::<Option<&Stun>>()
        .iter()
        .map(|s| s.map(|s| s.0))
        .collect();
    let want: Vec<Option<u32>> = (0..300).map(|i| present(i).then_some(i as u32)).collect();
    assert_eq!(got, want);
}
