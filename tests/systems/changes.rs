//! Change detection (`#[ecs(track)]`): `Added<T>`, `Changed<T>` and
//! `Removed<T>`, per entity, relative to the previous run of the system that
//! asks (or to the last `World::clear_trackers` outside systems), exact
//! across tick wrap-around.

use ecs::prelude::*;

use ecs::command::CommandBuffer;

#[derive(Clone, Debug, PartialEq)]
struct Pos(i32);
#[derive(Clone, Debug, PartialEq)]
struct Vel(i32);
#[derive(Clone, Debug, PartialEq)]
struct Hp(i32);
#[derive(Clone, Debug, PartialEq)]
struct Frozen;
#[derive(Clone, Debug, Default, PartialEq)]
struct Seen(Vec<Vec<Entity>>);
#[derive(Clone, Debug, Default, PartialEq)]
struct Gone(Vec<Vec<Entity>>);

macro_rules! stable_hash {
    ($($ty:ident => |$v:ident| $e:expr;)*) => {$(
        impl ecs::checksum::StableHash for $ty {
            fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
                let $v = self;
                ecs::checksum::StableHash::stable_hash(&$e, hasher);
            }
        }
    )*};
}

stable_hash! {
    Pos => |v| v.0;
    Vel => |v| v.0;
    Hp => |v| v.0;
    Frozen => |_v| ();
    Seen => |v| v.0.iter().map(|run| run.iter().map(|e| e.to_bits()).collect::<Vec<_>>()).collect::<Vec<_>>();
    Gone => |v| v.0.iter().map(|run| run.iter().map(|e| e.to_bits()).collect::<Vec<_>>()).collect::<Vec<_>>();
}

#[derive(Schema)]
struct Game {
    #[ecs(track)]
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    hp: Hp,
    frozen: Frozen,
    #[ecs(resource)]
    seen: Seen,
    #[ecs(resource)]
    gone: Gone,
}

fn changed_pos(world: &World<Game>) -> Vec<Entity> {
    world
        .query_filtered::<Entity, Changed<Pos>>()
        .iter()
        .collect()
}

fn added_pos(world: &World<Game>) -> Vec<Entity> {
    world
        .query_filtered::<Entity, Added<Pos>>()
        .iter()
        .collect()
}

#[test]
fn added_reports_spawned_and_inserted_entities_until_the_trackers_are_cleared() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(0), Vel(1)));
    let b = world.spawn((Vel(1),));
    assert_eq!(added_pos(&world), [a]);
    world.clear_trackers();
    assert_eq!(added_pos(&world), []);
    world.insert(b, (Pos(3),)).unwrap();
    let batch: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Pos(i),))).collect();
    let mut expected = vec![b];
    expected.extend(&batch);
    let mut added = added_pos(&world);
    added.sort();
    expected.sort();
    assert_eq!(added, expected);
    // Added is a change too.
    let mut changed = changed_pos(&world);
    changed.sort();
    assert_eq!(changed, expected);
}

#[test]
fn a_write_marks_only_the_entity_written() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world
        .spawn_batch((0..10).map(|i| (Pos(i), Vel(1))))
        .collect();
    world.clear_trackers();
    assert_eq!(changed_pos(&world), []);

    *world.get_mut::<Pos>(ids[3]).unwrap() = Pos(30);
    assert_eq!(changed_pos(&world), [ids[3]]);
    world.clear_trackers();

    world.query_mut::<&mut Pos>().get_mut(ids[7]).unwrap().0 += 1;
    world
        .entity_mut(ids[1])
        .unwrap()
        .get_mut::<Pos>()
        .unwrap()
        .0 += 1;
    assert_eq!(changed_pos(&world), [ids[1], ids[7]]);
    world.clear_trackers();

    // An iterator hands out every row of its query, even when stopped
    // early; rows its query does not cover stay unmarked.
    let apart = world.spawn((Pos(100),));
    world.clear_trackers();
    for (i, pos) in world
        .query_filtered_mut::<&mut Pos, With<Vel>>()
        .iter_mut()
        .enumerate()
    {
        if i == 4 {
            break;
        }
        pos.0 += 1;
    }
    assert_eq!(changed_pos(&world), ids);
    world.clear_trackers();
    if let Some(pos) = world.query_mut::<&mut Pos>().iter_mut().next() {
        pos.0 += 1;
    }
    assert!(changed_pos(&world).contains(&apart));
    world.clear_trackers();
    world.query_mut::<&mut Pos>().for_each_mut(|pos| pos.0 += 1);
    assert_eq!(changed_pos(&world).len(), 11);
    world.clear_trackers();

    // Reading does not mark, and neither do writes of untracked components.
    world
        .query_mut::<(&Pos, &mut Vel)>()
        .for_each_mut(|(_, vel)| vel.0 += 1);
    assert_eq!(world.query::<&Pos>().iter().count(), 11);
    assert_eq!(changed_pos(&world), []);
    // The table form and parallel loops write every row they hand out.
    world
        .query_filtered_mut::<&mut Pos, With<Vel>>()
        .for_each_table_mut(|_, pos| pos[0].0 += 1);
    assert_eq!(changed_pos(&world), ids);
    world.clear_trackers();
    world
        .query_filtered_mut::<&mut Pos, With<Vel>>()
        .par_for_each_mut(|pos| pos.0 += 1);
    assert_eq!(changed_pos(&world), ids);
}

#[test]
fn replacing_a_tracked_value_is_a_change_not_an_addition() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(0), Vel(0)));
    let b = world.spawn((Pos(0), Vel(0)));
    world.clear_trackers();
    world.insert(a, (Pos(5),)).unwrap();
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.commands(&world).insert(b, (Pos(6), Hp(1)));
    buffer.apply(&mut world);
    assert_eq!(added_pos(&world), []);
    assert_eq!(changed_pos(&world), [a, b]);
    let added_hp: Vec<Entity> = world.query_filtered::<Entity, Added<Hp>>().iter().collect();
    assert_eq!(added_hp, [b]);
}

#[test]
fn ticks_move_with_their_entity_between_tables() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..6).map(|i| (Pos(i), Hp(i)))).collect();
    world.clear_trackers();
    *world.get_mut::<Pos>(ids[2]).unwrap() = Pos(20);
    *world.get_mut::<Hp>(ids[4]).unwrap() = Hp(40);
    // Migrations shuffle rows (swap-remove): the marks follow the entities.
    for &id in &ids[..4] {
        world.insert(id, (Frozen,)).unwrap();
    }
    world.remove::<Frozen>(ids[0]).unwrap();
    world.despawn(ids[1]).unwrap();
    assert_eq!(changed_pos(&world), [ids[2]]);
    let changed_hp: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Hp>>()
        .iter()
        .collect();
    assert_eq!(changed_hp, [ids[4]]);
    // Removing a tracked component and putting it back is an addition.
    let pos = world.remove::<Pos>(ids[5]).unwrap().unwrap();
    world.insert(ids[5], (pos,)).unwrap();
    assert_eq!(added_pos(&world), [ids[5]]);
}

#[test]
fn removed_lists_entities_that_lost_a_tracked_component_once_each() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..4).map(|i| (Pos(i), Hp(i)))).collect();
    let untracked = world.spawn((Vel(0),));
    world.clear_trackers();
    world.remove::<Pos>(ids[1]).unwrap();
    world.despawn(ids[3]).unwrap();
    world.despawn(untracked).unwrap();
    assert_eq!(world.removed::<Pos>().collect::<Vec<_>>(), [ids[1], ids[3]]);
    assert_eq!(world.removed::<Hp>().collect::<Vec<_>>(), [ids[3]]);
    world.clear_trackers();
    assert_eq!(world.removed::<Pos>().count(), 0);
    world.clear();
    let mut cleared: Vec<Entity> = world.removed::<Hp>().collect();
    cleared.sort();
    assert_eq!(cleared, [ids[0], ids[1], ids[2]]);
}

#[test]
fn a_query_may_filter_on_changes_of_what_it_writes() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..200).map(|i| (Pos(i),))).collect();
    world.clear_trackers();
    for &i in &[3usize, 64, 65, 130, 199] {
        world.get_mut::<Pos>(ids[i]).unwrap().0 = -1;
    }
    let mut query = world.query_filtered_mut::<(Entity, &mut Pos), Changed<Pos>>();
    assert_eq!(query.count(), 5);
    assert!(query.get_mut(ids[4]).is_err());
    assert!(query.get_mut(ids[64]).is_ok());
    let mut visited = Vec::new();
    query.for_each_mut(|(entity, pos)| {
        pos.0 = 1000;
        visited.push(entity);
    });
    assert_eq!(visited, [ids[3], ids[64], ids[65], ids[130], ids[199]]);
    let values: Vec<i32> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    assert_eq!(values.iter().filter(|&&v| v == 1000).count(), 5);
}

#[test]
fn filters_combine_with_tuples_and_or() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(0), Hp(0)));
    let b = world.spawn((Pos(0), Hp(0)));
    let c = world.spawn((Pos(0),));
    let d = world.spawn((Pos(0), Hp(0), Frozen));
    world.clear_trackers();
    world.get_mut::<Pos>(a).unwrap().0 = 1;
    world.get_mut::<Hp>(b).unwrap().0 = 1;
    world.get_mut::<Pos>(d).unwrap().0 = 1;
    let either: Vec<Entity> = world
        .query_filtered::<Entity, Or<(Changed<Pos>, Changed<Hp>)>>()
        .iter()
        .collect();
    assert_eq!(either, [a, b, d]);
    let unfrozen: Vec<Entity> = world
        .query_filtered::<Entity, (Changed<Pos>, Without<Frozen>)>()
        .iter()
        .collect();
    assert_eq!(unfrozen, [a]);
    let or_table: Vec<Entity> = world
        .query_filtered::<Entity, Or<(Changed<Hp>, Without<Hp>)>>()
        .iter()
        .collect();
    assert_eq!(or_table, [b, c]);
}

fn mover(mut q: Query<&mut Pos, With<Vel>>) {
    q.for_each_mut(|pos| pos.0 += 1);
}

fn watcher(q: Query<Entity, Changed<Pos>>, mut seen: ResMut<Seen>) {
    seen.0.push(q.iter().collect());
}

fn healer(mut q: Query<(Entity, &mut Hp)>) {
    for (_, hp) in q.iter_mut() {
        hp.0 += 1;
    }
}

fn remover(q: Query<(Entity, &Hp)>, mut commands: Commands<Game>) {
    for (entity, hp) in q.iter() {
        if hp.0 == 3 {
            commands.remove::<Hp>(entity);
        }
    }
}

fn mourner(removed: Removed<Hp>, mut gone: ResMut<Gone>) {
    gone.0.push(removed.iter().collect());
}

#[test]
fn a_system_sees_each_change_once_whether_made_before_or_after_it() {
    let mut world = World::<Game>::new();
    let movers: Vec<Entity> = world
        .spawn_batch((0..3).map(|i| (Pos(i), Vel(1))))
        .collect();
    let still = world.spawn((Pos(9),));
    let mut schedule = Schedule::<Game>::new();
    // watcher runs after mover (sees this run's moves) and before the
    // outside write below (sees it next run).
    schedule.add(mover).add(watcher);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<Pos>(still).unwrap().0 = 0;
    schedule.run(&mut world);
    let seen = &world.resource::<Seen>().0;
    let mut all = movers.clone();
    all.push(still);
    assert_eq!(seen[0], all, "first run: everything is new");
    assert_eq!(seen[1], movers);
    let mut third = movers.clone();
    third.push(still);
    assert_eq!(seen[2], third);

    // A reader before the writer sees the writer's changes in the next run.
    let mut world = World::<Game>::new();
    let movers: Vec<Entity> = world
        .spawn_batch((0..3).map(|i| (Pos(i), Vel(1))))
        .collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(watcher).add(mover);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[0], movers);
    assert_eq!(seen[1], movers);
    assert_eq!(seen[2], movers);
}

#[test]
fn iter_mut_over_changed_rows_marks_every_row_it_hands_out_for_other_readers() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..100).map(|i| (Pos(i),))).collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(watcher);
    schedule.run(&mut world);
    world.clear_trackers();
    // Runs of 3, 2 and 1 changed rows, the last at the end of the table.
    let changed: Vec<Entity> = [5, 6, 7, 40, 41, 99].map(|i| ids[i]).to_vec();
    for &entity in &changed {
        world.get_mut::<Pos>(entity).unwrap().0 = -1;
    }
    schedule.run(&mut world);
    // Relative to the world's mark the same rows changed: handing them out
    // through `iter_mut` writes each of them again, after the watcher ran.
    let handed: Vec<Entity> = world
        .query_filtered_mut::<(Entity, &mut Pos), Changed<Pos>>()
        .iter_mut()
        .map(|(entity, _)| entity)
        .collect();
    assert_eq!(handed, changed);
    schedule.run(&mut world);
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[1], changed);
    assert_eq!(seen[2], changed, "every row iter_mut handed out is written");
}

#[test]
fn removed_reaches_a_later_system_in_the_same_run_and_an_earlier_one_in_the_next() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Hp(i),))).collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(mourner).add(healer).add(remover).add(mourner);
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    // healer raises hp to 1, 2, 3 in run 1; remover takes id 2's Hp then;
    // hp of id 1 reaches 3 in run 2, of id 0 in run 3.
    let gone = &world.resource::<Gone>().0;
    let first: Vec<&Vec<Entity>> = gone.iter().step_by(2).collect();
    let second: Vec<&Vec<Entity>> = gone.iter().skip(1).step_by(2).collect();
    assert_eq!(
        second,
        [&vec![ids[2]], &vec![ids[1]], &vec![ids[0]], &vec![]]
    );
    assert_eq!(
        first,
        [&vec![], &vec![ids[2]], &vec![ids[1]], &vec![ids[0]]]
    );
}

#[test]
fn change_detection_stays_exact_as_the_tick_wraps_around() {
    let mut world = World::<Game>::new();
    world.advance_change_tick_for_tests(u32::MAX - 40);
    let movers: Vec<Entity> = world
        .spawn_batch((0..2).map(|i| (Pos(i), Vel(1))))
        .collect();
    let still = world.spawn((Pos(7),));
    world.clear_trackers();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(mover).add(watcher);
    // 30 runs of 2 systems: the tick passes u32::MAX on the way.
    for _ in 0..30 {
        schedule.run(&mut world);
    }
    assert!(world.change_tick().get() < 100, "the tick wrapped");
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[0].len(), 3);
    for run in &seen[1..] {
        assert_eq!(run, &movers, "only the movers change");
    }
    assert_eq!(
        world
            .query_filtered::<Entity, Changed<Pos>>()
            .iter()
            .count(),
        2
    );
    let _ = still;
}

#[test]
fn old_changes_are_forgotten_not_reported_again_when_a_system_waited_long() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Pos(i),))).collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(watcher);
    schedule.run(&mut world);
    // Over 2^32 ticks pass before the watcher runs again: without the
    // clamping sweeps, its window would wrap and report the spawns again.
    for _ in 0..5 {
        world.advance_change_tick_for_tests(1 << 30);
        world.clear_trackers();
    }
    world.get_mut::<Pos>(ids[1]).unwrap().0 = 10;
    schedule.run(&mut world);
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[0], ids);
    assert_eq!(seen[1], [ids[1]]);
}

#[test]
fn snapshots_keep_the_change_state() {
    let mut world = World::<Game>::new();
    world.spawn_batch((0..5).map(|i| (Pos(i), Vel(1))));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(watcher).add(mover);
    schedule.run(&mut world);
    let snapshot = world.clone();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let ahead = world.checksum();
    world.clone_from(&snapshot);
    assert_eq!(world.checksum(), snapshot.checksum());
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.checksum(),
        ahead,
        "re-running from the snapshot repeats the run"
    );
    assert_ne!(world.checksum(), snapshot.checksum());
}

#[test]
fn the_table_form_of_a_changed_query_hands_out_the_runs_of_changed_rows() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..10).map(|i| (Pos(i),))).collect();
    world.clear_trackers();
    for &i in &[2usize, 3, 7] {
        world.get_mut::<Pos>(ids[i]).unwrap().0 += 100;
    }
    let mut runs = Vec::new();
    world
        .query_filtered::<&Pos, Changed<Pos>>()
        .for_each_table(|chunk, pos| {
            let values: Vec<i32> = pos.iter().map(|p| p.0).collect();
            runs.push((
                chunk.rows(),
                chunk.entities().iter().collect::<Vec<_>>(),
                values,
            ));
        });
    assert_eq!(
        runs,
        [
            (2..4, vec![ids[2], ids[3]], vec![102, 103]),
            (7..8, vec![ids[7]], vec![107]),
        ]
    );
}

#[test]
fn tuple_items_mark_only_the_rows_handed_out() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world
        .spawn_batch((0..8).map(|i| (Pos(i), Vel(i))))
        .collect();
    world.clear_trackers();
    world.spawn((Pos(0),));
    world.clear_trackers();
    {
        // Stopped early: the rows of the query count as handed out, the
        // entity outside it does not.
        let mut query = world.query_mut::<(&Vel, &mut Pos)>();
        for (i, (_, pos)) in query.iter_mut().enumerate() {
            pos.0 += 1;
            if i == 2 {
                break;
            }
        }
    }
    assert_eq!(changed_pos(&world), ids);
    world.clear_trackers();
    {
        let mut query = world.query_mut::<(Entity, Option<&mut Pos>)>();
        let [a, b] = query.get_many_mut([ids[6], ids[4]]).unwrap();
        assert_eq!((a.0, b.0), (ids[6], ids[4]));
    }
    assert_eq!(changed_pos(&world), [ids[4], ids[6]]);
    world.clear_trackers();
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .par_for_each_mut(|(pos, vel)| pos.0 += vel.0);
    assert_eq!(changed_pos(&world), ids);
}

#[test]
fn a_prepared_query_filters_changes_from_the_worlds_mark_and_marks_its_writes() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(0), Vel(1)));
    let b = world.spawn((Pos(0),));
    let mut changed = world.prepare_filtered::<Entity, Changed<Pos>>();
    let mut movers = world.prepare::<(&mut Pos, &Vel)>();
    let mut list = |world: &mut World<Game>| {
        let mut found = Vec::new();
        changed.for_each_mut(world, |e| found.push(e));
        found
    };
    assert_eq!(list(&mut world), [a, b]);
    world.clear_trackers();
    assert_eq!(list(&mut world), []);
    movers.for_each_mut(&mut world, |(pos, vel)| pos.0 += vel.0);
    assert_eq!(list(&mut world), [a]);
    assert_eq!(changed_pos(&world), [a]);
    world.clear_trackers();
    *world.get_mut::<Pos>(b).unwrap() = Pos(5);
    assert_eq!(list(&mut world), [b]);
}

/// Random spawns, despawns, moves between tables, writes and marks on a few
/// hundred entities (so rows cross the groups `Changed` summarises and
/// skips), each followed by a comparison of `Changed<Pos>` with a model:
/// per entity, whether its `Pos` was written since the last mark.
#[test]
fn changed_matches_a_model_through_random_writes_moves_and_marks() {
    use std::collections::BTreeMap;
    let mut rng = support::Rng::new(0x5eed_c4a9);
    let mut world = World::<Game>::new();
    // Per live entity: `Some(changed since the mark)` if it has `Pos`.
    let mut model: BTreeMap<Entity, Option<bool>> = BTreeMap::new();
    let mut prepared = world.prepare_filtered::<Entity, Changed<Pos>>();
    for step in 0..4000 {
        let alive: Vec<Entity> = model.keys().copied().collect();
        let some = |rng: &mut support::Rng| *rng.pick(&alive);
        match rng.below(12) {
            0..=2 => {
                let e = match rng.below(3) {
                    0 => world.spawn((Pos(1),)),
                    1 => world.spawn((Pos(2), Vel(0))),
                    _ => world.spawn((Vel(0), Frozen)),
                };
                model.insert(e, world.has::<Pos>(e).then_some(true));
            }
            3 if !alive.is_empty() => {
                let e = some(&mut rng);
                world.despawn(e).unwrap();
                model.remove(&e);
            }
            // Moves between tables, carrying the ticks.
            4 if !alive.is_empty() => {
                let e = some(&mut rng);
                if world.has::<Vel>(e) {
                    world.remove::<Vel>(e).unwrap();
                } else {
                    world.insert(e, (Vel(1),)).unwrap();
                }
            }
            5 if !alive.is_empty() => {
                let e = some(&mut rng);
                if world.has::<Frozen>(e) {
                    world.remove::<Frozen>(e).unwrap();
                } else {
                    world.insert(e, (Frozen,)).unwrap();
                }
            }
            6 if !alive.is_empty() => {
                let e = some(&mut rng);
                if rng.chance(1, 2) {
                    world.insert(e, (Pos(3),)).unwrap();
                    model.insert(e, Some(true));
                } else {
                    world.remove::<Pos>(e).unwrap();
                    model.insert(e, None);
                }
            }
            7..=8 if !alive.is_empty() => {
                let e = some(&mut rng);
                if let Some(pos) = world.get_mut::<Pos>(e) {
                    pos.0 += 1;
                    model.insert(e, Some(true));
                }
            }
            9 if rng.chance(1, 4) => {
                // Every `Pos` of an entity that has `Vel` and not `Frozen`.
                world
                    .query_filtered_mut::<&mut Pos, (With<Vel>, Without<Frozen>)>()
                    .for_each_mut(|pos| pos.0 += 1);
                for (&e, state) in &mut model {
                    if state.is_some() && world.has::<Vel>(e) && !world.has::<Frozen>(e) {
                        *state = Some(true);
                    }
                }
            }
            10 => {
                world.clear_trackers();
                for state in model.values_mut().flatten() {
                    *state = false;
                }
            }
            _ => {}
        }
        let expected: Vec<Entity> = model
            .iter()
            .filter(|(_, state)| **state == Some(true))
            .map(|(&e, _)| e)
            .collect();
        let mut found = changed_pos(&world);
        found.sort();
        assert_eq!(found, expected, "step {step}");
        every_form_finds(&world, &expected, &model, step);
        let mut through_prepared = Vec::new();
        prepared.for_each_mut(&mut world, |e| through_prepared.push(e));
        through_prepared.sort();
        assert_eq!(through_prepared, expected, "step {step}, prepared");
    }
    assert!(model.len() > 100, "{} entities at the end", model.len());
}

/// Every way through `Changed<Pos>` finds `expected` (sorted), in the
/// same order as `iter`: `for_each`, the table form, the parallel forms,
/// `count`, the iterator's length as it goes, and `get` and `contains` of
/// every live entity.
fn every_form_finds(
    world: &World<Game>,
    expected: &[Entity],
    model: &std::collections::BTreeMap<Entity, Option<bool>>,
    step: usize,
) {
    let query = world.query_filtered::<Entity, Changed<Pos>>();
    let in_order: Vec<Entity> = query.iter().collect();
    let mut by_for_each = Vec::new();
    query.for_each(|e| by_for_each.push(e));
    assert_eq!(by_for_each, in_order, "step {step}: for_each");
    let mut by_table = Vec::new();
    query.for_each_table(|chunk, entities| {
        assert_eq!(chunk.len(), entities.len());
        assert_eq!(chunk.rows().len(), entities.len());
        by_table.extend(entities.iter());
    });
    assert_eq!(by_table, in_order, "step {step}: for_each_table");
    let by_par = std::sync::Mutex::new(Vec::new());
    query.par_for_each(|e| by_par.lock().unwrap().push(e));
    let mut by_par = by_par.into_inner().unwrap();
    by_par.sort();
    assert_eq!(by_par, expected, "step {step}: par_for_each");
    let by_par_table = std::sync::Mutex::new(Vec::new());
    query.par_for_each_table(|chunk, entities| {
        assert_eq!(chunk.rows().len(), entities.len());
        by_par_table.lock().unwrap().extend(entities.iter());
    });
    let mut by_par_table = by_par_table.into_inner().unwrap();
    by_par_table.sort();
    assert_eq!(by_par_table, expected, "step {step}: par_for_each_table");
    assert_eq!(query.count(), expected.len(), "step {step}: count");
    let mut iter = query.iter();
    for left in (0..=expected.len()).rev() {
        assert_eq!(iter.len(), left, "step {step}: len");
        iter.next();
    }
    for &e in model.keys() {
        let changed = expected.binary_search(&e).is_ok();
        assert_eq!(query.contains(e), changed, "step {step}: contains");
        assert_eq!(query.get(e).ok(), changed.then_some(e), "step {step}: get");
    }
}

#[test]
fn get_on_a_row_filtered_query_finds_no_entity_of_a_table_without_passing_rows() {
    let mut world = World::<Game>::new();
    let _ = world.spawn((Pos(0),));
    let changed = world.spawn((Pos(1),));
    let later = world.spawn((Pos(2), Vel(0)));
    world.clear_trackers();
    world.get_mut::<Pos>(changed).unwrap().0 += 1;
    let query = world.query_filtered::<Entity, Changed<Pos>>();
    // `later` sits at row 0 of a table after the one whose passing rows
    // start at row 1.
    assert_eq!(
        query.get(later),
        Err(ecs::query::QueryEntityError::DoesNotMatch(later))
    );
    assert_eq!(query.get(changed), Ok(changed));
}

#[test]
fn the_checksum_sees_tracked_values_their_ticks_and_the_change_tick() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world
        .spawn_batch((0..3).map(|i| (Pos(i), Hp(10))))
        .collect();
    world.clear_trackers();
    let base = world.checksum();
    let changed = |change: &dyn Fn(&mut World<Game>)| {
        let mut copy = world.clone();
        change(&mut copy);
        copy.checksum()
    };
    let sums = [
        changed(&|w| w.get_mut::<Pos>(ids[1]).unwrap().0 += 1),
        // The same value, written later: what `Changed` reports differs.
        changed(&|w| w.get_mut::<Hp>(ids[2]).unwrap().0 += 0),
        // Nothing written; the tick `Added` and `Changed` are read from
        // moved on.
        changed(&|w| w.clear_trackers()),
    ];
    for (i, sum) in sums.iter().enumerate() {
        assert_ne!(*sum, base, "change {i} went unseen");
    }
    assert_eq!(world.clone().checksum(), base);
}

#[test]
fn commands_give_each_entity_its_own_tracked_value_in_recording_order() {
    fn spawn_children(mut parents: Query<(&Vel, &mut Pos)>, mut commands: Commands<Game>) {
        parents.par_for_each_mut_with(&mut commands, |commands, (vel, pos)| {
            pos.0 = -pos.0;
            commands.spawn((Hp(vel.0),));
        });
    }
    let mut world = World::<Game>::new();
    let parents: Vec<Entity> = world
        .spawn_batch((0..1000).map(|i| (Pos(i), Vel(i))))
        .collect();
    world.clear_trackers();

    let mut buffer = CommandBuffer::<Game>::new();
    let spawned: Vec<Entity> = (0..3)
        .map(|i| buffer.commands(&world).spawn((Pos(100 + i),)))
        .collect();
    buffer.insert(parents[5], (Hp(55),));
    buffer.insert(parents[6], (Hp(66),));
    buffer.apply(&mut world);
    let values: Vec<Option<&Pos>> = spawned.iter().map(|&e| world.get::<Pos>(e)).collect();
    assert_eq!(values, [Some(&Pos(100)), Some(&Pos(101)), Some(&Pos(102))]);
    assert_eq!(world.get::<Hp>(parents[5]), Some(&Hp(55)));
    assert_eq!(world.get::<Hp>(parents[6]), Some(&Hp(66)));
    let mut added = added_pos(&world);
    added.sort();
    assert_eq!(added, spawned);

    // Commands recorded by parallel chunks, appended in iteration order.
    let order: Vec<i32> = world
        .query::<(&Vel, &Pos)>()
        .iter()
        .map(|(vel, _)| vel.0)
        .collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(spawn_children);
    schedule.run(&mut world);
    let children: Vec<i32> = world
        .query_filtered::<&Hp, Without<Pos>>()
        .iter()
        .map(|hp| hp.0)
        .collect();
    assert_eq!(children, order);
}

#[test]
fn changes_older_than_the_clamp_are_not_reported_again_at_any_wrap() {
    // However far the tick moved before the watcher ran again (one to six
    // times 2^30, so the raw ticks wrap once or more), the spawn is old.
    for quarters in 1..=6 {
        let mut world = World::<Game>::new();
        let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Pos(i),))).collect();
        let mut schedule = Schedule::<Game>::new();
        schedule.add(watcher);
        schedule.run(&mut world);
        for _ in 0..quarters {
            world.advance_change_tick_for_tests(1 << 30);
            world.clear_trackers();
        }
        world.get_mut::<Pos>(ids[2]).unwrap().0 = 10;
        schedule.run(&mut world);
        let seen = &world.resource::<Seen>().0;
        assert_eq!(seen[0], ids);
        assert_eq!(seen[1], [ids[2]], "after {quarters} x 2^30 ticks");
    }
}

#[test]
fn a_reader_of_changes_waits_for_a_writer_of_what_it_reads() {
    fn write_pos(mut q: Query<&mut Pos>) {
        q.for_each_mut(|pos| pos.0 += 1);
    }
    // Reads `Pos` twice over: as its item and through its filter.
    fn read_changed(q: Query<&Pos, Changed<Pos>>) {
        q.for_each(|_| ());
    }
    let mut schedule = Schedule::<Game>::new();
    schedule.add(write_pos).add(read_changed);
    let plan = schedule.describe();
    assert!(
        plan.contains("read_changed waits for write_pos: write_pos writes "),
        "{plan}"
    );
}

#[test]
fn removed_says_how_many_and_debugs_as_its_entities() {
    fn count_removed(removed: Removed<Hp>, mut gone: ResMut<Gone>) {
        assert_eq!(removed.len(), removed.iter().len());
        assert_eq!(removed.is_empty(), removed.iter().next().is_none());
        let listed: Vec<Entity> = removed.iter().collect();
        assert_eq!(format!("{removed:?}"), format!("Removed({listed:?})"));
        gone.0.push(listed);
    }
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Hp(i),))).collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(count_removed);
    schedule.run(&mut world);
    world.remove::<Hp>(ids[2]).unwrap();
    world.despawn(ids[0]).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Gone>().0,
        [vec![], vec![ids[2], ids[0]], vec![]]
    );
}

#[test]
fn a_change_just_before_a_run_is_seen_when_the_tick_wrapped_since_the_last() {
    // The watcher's previous run is about 2^32 ticks old, give or take a
    // few: read as raw wrapping ticks, its window would be a handful of
    // ticks wide, or empty, and miss the fresh change.
    for short in 0..8 {
        let mut world = World::<Game>::new();
        let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Pos(i),))).collect();
        let mut schedule = Schedule::<Game>::new();
        schedule.add(watcher);
        schedule.run(&mut world);
        for quarter in 0..4 {
            let by = if quarter == 3 {
                (1 << 30) - short
            } else {
                1 << 30
            };
            world.advance_change_tick_for_tests(by);
            world.clear_trackers();
        }
        world.get_mut::<Pos>(ids[0]).unwrap().0 = 10;
        schedule.run(&mut world);
        let seen = &world.resource::<Seen>().0;
        assert_eq!(seen[1], [ids[0]], "2^32 - {short} ticks after");
    }
}

/// Fixed step: despawns every entity with `Hp`, one per step.
fn reap_one(q: Query<(Entity, &Hp)>, mut commands: Commands<Game>) {
    if let Some((entity, _)) = q.iter().next() {
        commands.despawn(entity);
    }
}

/// Frame: lists what lost `Hp` since its last run, and what `Pos` changed.
fn frame_watch(
    removed: Removed<Hp>,
    moved: Query<Entity, Changed<Pos>>,
    mut gone: ResMut<Gone>,
    mut seen: ResMut<Seen>,
) {
    gone.0.push(removed.iter().collect());
    seen.0.push(moved.iter().collect());
}

#[test]
fn removals_and_changes_made_in_one_schedule_reach_another_once_whatever_the_ratio_of_runs() {
    let mut world = World::<Game>::new();
    let victims: Vec<Entity> = (0..20).map(|_| world.spawn((Hp(1),))).collect();
    let mut fixed = Schedule::<Game>::new();
    fixed.add(reap_one).add(mover);
    let mut frame = Schedule::<Game>::new();
    frame.add(frame_watch);
    let movers = world.spawn((Pos(0), Vel(1)));
    // A schedule's first run on a world reads what is still kept; from then
    // on the world keeps what it has not read until it runs again.
    frame.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [vec![movers]]);
    // Fixed steps per frame: several, none, one.
    let steps = [3, 0, 0, 1, 4, 0, 2];
    let mut dead: Vec<Entity> = Vec::new();
    for (number, &n) in steps.iter().enumerate() {
        // The victims of this frame's steps, in the order they died.
        let mut expected = Vec::new();
        for _ in 0..n {
            fixed.run(&mut world);
            for &victim in &victims {
                if !world.is_alive(victim) && !dead.contains(&victim) {
                    dead.push(victim);
                    expected.push(victim);
                }
            }
        }
        assert_eq!(expected.len(), n, "frame {number}: one death per step");
        frame.run(&mut world);
        assert_eq!(
            world.resource::<Gone>().0[number + 1],
            expected,
            "frame {number}"
        );
        let moved = if n > 0 { vec![movers] } else { vec![] };
        assert_eq!(
            world.resource::<Seen>().0[number + 1],
            moved,
            "frame {number}"
        );
    }
}
