//! Behaviour of every `World` operation: spawning, inserting, removing,
//! despawning, reading, clearing, resources, stale handles and the
//! swap-remove fix-up of the entity moved into a vacated row.

use ecs::mask::Mask;
use ecs::prelude::*;

use ecs::world::InsertError;
use ecs::{
    entity::EntitiesExhausted, query::QueryEntityError, world::Description,
    world::TableDescription, world::TakeError,
};
use std::collections::HashSet;
use std::num::NonZeroU32;

#[derive(Clone, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq)]
struct Name(String);
#[derive(Clone, Debug, PartialEq)]
struct Frozen;
#[derive(Clone, Debug, PartialEq)]
struct Hp(u32);
#[derive(Clone, Debug, PartialEq)]
struct Player;
#[derive(Debug, Default, PartialEq)]
struct Tick(u64);
#[derive(Debug, Default, PartialEq)]
struct Log(Vec<String>);

/// Bits: Pos 0, Vel 1, Name 2, Frozen 3 (tag), Hp 4, Player 5 (tag).
#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    name: Name,
    frozen: Frozen,
    hp: Hp,
    player: Player,
    #[ecs(resource)]
    tick: Tick,
    #[ecs(resource)]
    log: Log,
}

fn name(s: &str) -> Name {
    Name(s.to_string())
}

/// Everything an entity holds, read through the public API.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    pos: Option<Pos>,
    vel: Option<Vel>,
    name: Option<Name>,
    frozen: bool,
    hp: Option<Hp>,
    player: bool,
}

fn snapshot(world: &World<Game>, e: Entity) -> Option<Snapshot> {
    if !world.is_alive(e) {
        return None;
    }
    let snap = Snapshot {
        pos: world.get::<Pos>(e).cloned(),
        vel: world.get::<Vel>(e).cloned(),
        name: world.get::<Name>(e).cloned(),
        frozen: world.has::<Frozen>(e),
        hp: world.get::<Hp>(e).cloned(),
        player: world.has::<Player>(e),
    };
    // `get` of a tag agrees with `has`.
    assert_eq!(world.get::<Frozen>(e).is_some(), snap.frozen);
    assert_eq!(world.get::<Player>(e).is_some(), snap.player);
    Some(snap)
}

fn pv(p: i64, v: i64) -> Snapshot {
    Snapshot {
        pos: Some(Pos(p)),
        vel: Some(Vel(v)),
        name: None,
        frozen: false,
        hp: None,
        player: false,
    }
}

fn entities_in_order(world: &World<Game>) -> Vec<Entity> {
    world.iter().collect()
}

fn table_sizes(world: &World<Game>) -> Vec<(Vec<&'static str>, usize)> {
    world
        .describe()
        .tables
        .into_iter()
        .map(|t| (t.components, t.entities))
        .collect()
}

// ---------------------------------------------------------------- spawn

#[test]
fn spawn_creates_a_live_entity_with_exactly_its_components() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Vel(2)));
    assert!(world.is_alive(e));
    assert_eq!(world.len(), 1);
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    assert_eq!(world.get::<Vel>(e), Some(&Vel(2)));
    assert_eq!(world.get::<Name>(e), None);
    assert_eq!(world.get::<Hp>(e), None);
    assert!(!world.has::<Frozen>(e));
    assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::VEL));
}

#[test]
fn spawn_gives_distinct_handles() {
    let mut world = World::<Game>::new();
    let entities: Vec<Entity> = (0..100).map(|i| world.spawn((Pos(i),))).collect();
    let unique: HashSet<Entity> = entities.iter().copied().collect();
    assert_eq!(unique.len(), 100);
    let indices: HashSet<u32> = entities.iter().map(|e| e.index()).collect();
    assert_eq!(indices.len(), 100);
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)));
    }
}

#[test]
fn spawn_with_a_tag_gives_the_tag() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Frozen));
    assert!(world.has::<Frozen>(e));
    assert_eq!(world.get::<Frozen>(e), Some(&Frozen));
    assert!(world.get_mut::<Frozen>(e).is_some());
    assert!(!world.has::<Player>(e));
    assert_eq!(world.get::<Player>(e), None);
    assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::FROZEN));
    let only_tags = world.spawn((Player, Frozen));
    assert_eq!(
        world.archetype(only_tags),
        Some(GameMask::PLAYER | GameMask::FROZEN)
    );
    assert_eq!(world.get::<Pos>(only_tags), None);
}

#[test]
fn spawn_of_the_empty_bundle_creates_an_entity_without_components() {
    let mut world = World::<Game>::new();
    let e = world.spawn(());
    assert!(world.is_alive(e));
    assert_eq!(world.len(), 1);
    assert_eq!(world.archetype(e), Some(GameMask::EMPTY));
    assert_eq!(world.get::<Pos>(e), None);
    assert_eq!(world.iter().collect::<Vec<_>>(), [e]);
    assert_eq!(world.query::<Entity>().iter().collect::<Vec<_>>(), [e]);
}

#[test]
fn bundle_order_does_not_change_the_archetype() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(2), Hp(3)));
    let b = world.spawn((Hp(30), Vel(20), Pos(10)));
    assert_eq!(world.archetype(a), world.archetype(b));
    assert_eq!(snapshot(&world, b).unwrap().pos, Some(Pos(10)));
    assert_eq!(snapshot(&world, b).unwrap().vel, Some(Vel(20)));
    assert_eq!(snapshot(&world, b).unwrap().hp, Some(Hp(30)));
    let tables = table_sizes(&world);
    assert_eq!(tables, [(vec![], 0), (vec!["Pos", "Vel", "Hp"], 2)]);
}

// ---------------------------------------------------------------- spawn_batch

#[test]
fn spawn_batch_returns_the_entities_in_order_with_their_values() {
    let mut world = World::<Game>::new();
    let first = world.spawn((Pos(-1), Vel(-1)));
    let spawned: Vec<Entity> = world
        .spawn_batch((0..1000).map(|i| (Pos(i), Vel(2 * i))))
        .collect();
    assert_eq!(spawned.len(), 1000);
    assert_eq!(world.len(), 1001);
    for (i, &e) in spawned.iter().enumerate() {
        let i = i as i64;
        assert_eq!(snapshot(&world, e), Some(pv(i, 2 * i)), "entity #{i}");
    }
    assert_eq!(snapshot(&world, first), Some(pv(-1, -1)));
    // In order: the table rows follow the batch.
    let order = entities_in_order(&world);
    assert_eq!(order[0], first);
    assert_eq!(&order[1..], &spawned[..]);
    let unique: HashSet<Entity> = spawned.iter().copied().collect();
    assert_eq!(unique.len(), 1000);
}

#[test]
fn spawn_batch_works_without_an_exact_size_hint() {
    let mut world = World::<Game>::new();
    let spawned: Vec<Entity> = world
        .spawn_batch((0..100).filter(|i| i % 3 == 0).map(|i| (Hp(i),)))
        .collect();
    assert_eq!(spawned.len(), 34);
    for (k, &e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<Hp>(e), Some(&Hp(3 * k as u32)));
    }
    assert_eq!(world.len(), 34);
}

#[test]
fn spawn_batch_of_nothing_spawns_nothing() {
    let mut world = World::<Game>::new();
    let spawned: Vec<Entity> = world.spawn_batch(std::iter::empty::<(Pos,)>()).collect();
    assert!(spawned.is_empty());
    assert!(world.is_empty());
}

#[test]
fn spawn_batch_of_empty_bundles_spawns_entities_without_components() {
    let mut world = World::<Game>::new();
    let exact: Vec<Entity> = world.spawn_batch((0..4).map(|_| ())).collect();
    // Without an exact size hint the entities are allocated one by one.
    let inexact: Vec<Entity> = world
        .spawn_batch((0..9).filter(|i| i % 3 == 0).map(|_| ()))
        .collect();
    assert_eq!(exact.len(), 4);
    assert_eq!(inexact.len(), 3);
    assert_eq!(world.len(), 7);
    let all: Vec<Entity> = exact.iter().chain(&inexact).copied().collect();
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 7, "distinct");
    for &e in &all {
        assert!(world.is_alive(e));
        assert_eq!(world.archetype(e), Some(GameMask::EMPTY));
    }
    assert_eq!(entities_in_order(&world), all);
}

#[test]
fn spawn_batch_reuses_freed_indices_with_correct_values() {
    let mut world = World::<Game>::new();
    let old: Vec<Entity> = (0..10).map(|i| world.spawn((Pos(i),))).collect();
    for &e in &old[..5] {
        world.despawn(e).unwrap();
    }
    let spawned: Vec<Entity> = world
        .spawn_batch((100..110).map(|i| (Pos(i), Name(format!("n{i}")))))
        .collect();
    for (k, &e) in spawned.iter().enumerate() {
        let i = 100 + k as i64;
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i)));
        assert_eq!(world.get::<Name>(e), Some(&Name(format!("n{i}"))));
    }
    for (i, &e) in old.iter().enumerate() {
        if i < 5 {
            assert!(!world.is_alive(e));
        } else {
            assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)));
        }
    }
    let reused = spawned
        .iter()
        .filter(|e| old[..5].iter().any(|o| o.index() == e.index()))
        .count();
    assert_eq!(reused, 5, "the five freed indices are reused");
    assert_eq!(world.len(), 15);
}

#[test]
fn spawn_batch_with_tags() {
    let mut world = World::<Game>::new();
    let spawned: Vec<Entity> = world
        .spawn_batch((0..10).map(|i| (Pos(i), Frozen)))
        .collect();
    for (i, &e) in spawned.iter().enumerate() {
        assert!(world.has::<Frozen>(e));
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)));
    }
    for &e in &spawned {
        assert_eq!(world.remove::<Frozen>(e), Ok(Some(Frozen)));
    }
    assert_eq!(world.query_filtered::<Entity, With<Frozen>>().count(), 0);
}

#[test]
fn spawn_batch_lists_its_entities_lazily_from_both_ends() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(-1),));
    let spawned = world.spawn_batch((0..5).map(|i| (Pos(i),)));
    assert_eq!(spawned.len(), 5);
    let forward: Vec<Entity> = spawned.clone().collect();
    let backward: Vec<Entity> = spawned.rev().collect();
    assert_eq!(forward.iter().rev().copied().collect::<Vec<_>>(), backward);
    for (i, &e) in forward.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)));
    }

    // Dropped unread, the batch is spawned all the same.
    world.spawn_batch((5..8).map(|i| (Pos(i),)));
    assert_eq!(world.len(), 9);
    let mut values: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    values.sort_unstable();
    assert_eq!(values, (-1..8).collect::<Vec<_>>());

    // Partly read: the rest still counts, and `Debug` lists what is left.
    let mut spawned = world.spawn_batch((8..11).map(|i| (Pos(i),)));
    let first = spawned.next().unwrap();
    assert_eq!(spawned.len(), 2);
    let rest: Vec<Entity> = spawned.clone().collect();
    assert_eq!(format!("{spawned:?}"), format!("{rest:?}"));
    assert_eq!(world.get::<Pos>(first), Some(&Pos(8)));
    assert_eq!(world.get::<Pos>(rest[1]), Some(&Pos(10)));
}

/// Yields `len` bundles while claiming exactly `claimed`: a wrong but safe
/// size hint, which `spawn_batch` must survive either way.
struct Claims {
    next: i64,
    len: i64,
    claimed: usize,
}

impl Iterator for Claims {
    type Item = (Pos, Vel);

    fn next(&mut self) -> Option<(Pos, Vel)> {
        (self.next < self.len).then(|| {
            self.next += 1;
            (Pos(self.next - 1), Vel(-self.next + 1))
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.claimed, Some(self.claimed))
    }
}

#[test]
fn spawn_batch_survives_an_iterator_whose_exact_size_hint_is_wrong() {
    for (len, claimed) in [(3, 5), (8, 5), (0, 4), (4, 0)] {
        let mut world = World::<Game>::new();
        let before = world.spawn((Pos(-1), Vel(1)));
        let spawned: Vec<Entity> = world
            .spawn_batch(Claims {
                next: 0,
                len,
                claimed,
            })
            .collect();
        assert_eq!(spawned.len(), len as usize, "len {len} claimed {claimed}");
        for (i, &e) in spawned.iter().enumerate() {
            let i = i as i64;
            assert_eq!(
                snapshot(&world, e),
                Some(pv(i, -i)),
                "len {len} claimed {claimed}"
            );
        }
        // Entity list and columns agree: the next entities land right after.
        let after = world.spawn((Pos(100), Vel(-100)));
        assert_eq!(snapshot(&world, after), Some(pv(100, -100)));
        assert_eq!(snapshot(&world, before), Some(pv(-1, 1)));
        assert_eq!(world.len(), len as usize + 2);
        assert_eq!(world.query::<(&Pos, &Vel)>().iter().count(), world.len());
        // Indices are handed out densely: none was lost to the undone ones.
        let mut indices: Vec<u32> = entities_in_order(&world)
            .iter()
            .map(|e| e.index())
            .collect();
        indices.sort_unstable();
        assert_eq!(indices, (0..world.len() as u32).collect::<Vec<_>>());
    }
}

// ---------------------------------------------------------------- try_spawn

#[test]
fn try_spawn_creates_a_live_entity() {
    let mut world = World::<Game>::new();
    let e = world.try_spawn((Pos(4), name("x"))).unwrap();
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(4)));
    assert_eq!(world.get::<Name>(e), Some(&name("x")));
    let f = world.try_spawn(()).unwrap();
    assert_ne!(e, f);
    assert_eq!(world.len(), 2);
}

// ---------------------------------------------------------------- insert

#[test]
fn insert_of_a_present_component_overwrites_in_place_without_moving() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    let c = world.spawn((Pos(3), Vel(3)));
    let order = entities_in_order(&world);
    let tables = table_sizes(&world);

    assert_eq!(world.insert(b, (Pos(20),)), Ok(()));

    assert_eq!(world.archetype(b), Some(GameMask::POS | GameMask::VEL));
    assert_eq!(snapshot(&world, b), Some(pv(20, 2)));
    assert_eq!(snapshot(&world, a), Some(pv(1, 1)));
    assert_eq!(snapshot(&world, c), Some(pv(3, 3)));
    // A moved entity would have been swap-removed and pushed to the end.
    assert_eq!(entities_in_order(&world), order);
    assert_eq!(
        table_sizes(&world),
        tables,
        "no table was created or resized"
    );

    // Overwriting every component, in a different order, also stays put.
    world.insert(a, (Vel(10), Pos(11))).unwrap();
    assert_eq!(snapshot(&world, a), Some(pv(11, 10)));
    assert_eq!(entities_in_order(&world), order);
    assert_eq!(world.len(), 3);
}

#[test]
fn insert_of_a_new_component_migrates_the_entity() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    world.insert(a, (Hp(7),)).unwrap();
    assert_eq!(
        world.archetype(a),
        Some(GameMask::POS | GameMask::VEL | GameMask::HP)
    );
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Vel>(a), Some(&Vel(1)));
    assert_eq!(world.get::<Hp>(a), Some(&Hp(7)));
    assert_eq!(snapshot(&world, b), Some(pv(2, 2)));
    assert_eq!(
        table_sizes(&world),
        [
            (vec![], 0),
            (vec!["Pos", "Vel"], 1),
            (vec!["Pos", "Vel", "Hp"], 1)
        ]
    );
    assert_eq!(world.len(), 2);
}

#[test]
fn insert_of_a_bundle_overwrites_the_present_and_adds_the_new() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    world
        .insert(a, (Pos(10), name("a"), Frozen, Hp(5)))
        .unwrap();
    assert_eq!(
        snapshot(&world, a),
        Some(Snapshot {
            pos: Some(Pos(10)),
            vel: Some(Vel(1)),
            name: Some(name("a")),
            frozen: true,
            hp: Some(Hp(5)),
            player: false,
        })
    );
    assert_eq!(snapshot(&world, b), Some(pv(2, 2)));
    // From the empty archetype straight to five components.
    let e = world.spawn(());
    world
        .insert(e, (Hp(1), Player, Vel(3), Pos(4), name("e")))
        .unwrap();
    assert_eq!(
        snapshot(&world, e),
        Some(Snapshot {
            pos: Some(Pos(4)),
            vel: Some(Vel(3)),
            name: Some(name("e")),
            frozen: false,
            hp: Some(Hp(1)),
            player: true,
        })
    );
}

#[test]
fn insert_of_a_tag_adds_the_bit_and_keeps_the_data() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    world.insert(a, (Frozen,)).unwrap();
    assert!(world.has::<Frozen>(a));
    assert_eq!(world.get::<Frozen>(a), Some(&Frozen));
    assert_eq!(
        world.archetype(a),
        Some(GameMask::POS | GameMask::VEL | GameMask::FROZEN)
    );
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    // Inserting it again changes nothing.
    let order = entities_in_order(&world);
    world.insert(a, (Frozen,)).unwrap();
    assert_eq!(
        world.archetype(a),
        Some(GameMask::POS | GameMask::VEL | GameMask::FROZEN)
    );
    assert_eq!(entities_in_order(&world), order);
    assert_eq!(world.remove::<Frozen>(a), Ok(Some(Frozen)));
    assert_eq!(world.remove::<Frozen>(a), Ok(None));
}

#[test]
fn insert_of_the_empty_bundle_changes_nothing() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let tables = table_sizes(&world);
    assert_eq!(world.insert(a, ()), Ok(()));
    assert_eq!(snapshot(&world, a), Some(pv(1, 1)));
    assert_eq!(table_sizes(&world), tables);
}

#[test]
fn insert_on_a_dead_entity_fails_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    world.despawn(a).unwrap();
    let tables = table_sizes(&world);
    assert_eq!(world.insert(a, (Hp(1),)), Err(InsertError::NoSuchEntity(a)));
    assert_eq!(
        world.insert(a, (Pos(9),)),
        Err(InsertError::NoSuchEntity(a))
    );
    assert_eq!(world.len(), 1);
    assert!(!world.is_alive(a));
    assert_eq!(snapshot(&world, b), Some(pv(2, 2)));
    assert_eq!(table_sizes(&world), tables);
}

// ---------------------------------------------------------------- remove

#[test]
fn remove_returns_the_value_and_migrates_the_entity() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(2), name("a")));
    assert_eq!(world.remove::<Vel>(a), Ok(Some(Vel(2))));
    assert!(!world.has::<Vel>(a));
    assert_eq!(world.get::<Vel>(a), None);
    assert_eq!(world.archetype(a), Some(GameMask::POS | GameMask::NAME));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Name>(a), Some(&name("a")));
    assert_eq!(world.remove::<Name>(a), Ok(Some(name("a"))));
    assert_eq!(world.remove::<Pos>(a), Ok(Some(Pos(1))));
    assert!(
        world.is_alive(a),
        "an entity without components still lives"
    );
    assert_eq!(world.archetype(a), Some(GameMask::EMPTY));
    assert_eq!(world.len(), 1);
}

#[test]
fn remove_of_an_absent_component_is_ok_none_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    let order = entities_in_order(&world);
    let tables = table_sizes(&world);
    assert_eq!(world.remove::<Hp>(a), Ok(None));
    assert_eq!(world.remove::<Frozen>(a), Ok(None));
    assert_eq!(snapshot(&world, a), Some(pv(1, 1)));
    assert_eq!(snapshot(&world, b), Some(pv(2, 2)));
    assert_eq!(entities_in_order(&world), order);
    assert_eq!(table_sizes(&world), tables);
}

#[test]
fn remove_of_a_tag_returns_it() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Frozen, Player));
    assert_eq!(world.remove::<Frozen>(a), Ok(Some(Frozen)));
    assert_eq!(world.archetype(a), Some(GameMask::POS | GameMask::PLAYER));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.remove::<Player>(a), Ok(Some(Player)));
    assert_eq!(world.remove::<Player>(a), Ok(None));
    assert_eq!(world.archetype(a), Some(GameMask::POS));
}

#[test]
fn remove_on_a_dead_entity_fails() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    world.despawn(a).unwrap();
    assert_eq!(world.remove::<Pos>(a), Err(NoSuchEntity(a)));
    assert_eq!(world.remove::<Hp>(a), Err(NoSuchEntity(a)));
}

// ---------------------------------------------------------------- remove_bundle

#[test]
fn remove_bundle_takes_all_or_nothing() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(2), Frozen));
    let order = entities_in_order(&world);
    let tables = table_sizes(&world);

    // Lacks Hp: nothing is removed.
    assert_eq!(world.remove_bundle::<(Pos, Hp)>(a), Ok(None));
    assert_eq!(world.remove_bundle::<(Player, Vel)>(a), Ok(None));
    assert_eq!(
        world.archetype(a),
        Some(GameMask::POS | GameMask::VEL | GameMask::FROZEN)
    );
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Vel>(a), Some(&Vel(2)));
    assert_eq!(entities_in_order(&world), order);
    assert_eq!(table_sizes(&world), tables);

    // Has all: everything named is removed, in the bundle's order.
    assert_eq!(
        world.remove_bundle::<(Vel, Frozen)>(a),
        Ok(Some((Vel(2), Frozen)))
    );
    assert_eq!(world.archetype(a), Some(GameMask::POS));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.remove_bundle::<(Pos,)>(a), Ok(Some((Pos(1),))));
    assert_eq!(world.archetype(a), Some(GameMask::EMPTY));
    assert!(world.is_alive(a));
}

#[test]
fn remove_bundle_of_nothing_is_some_unit() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    assert_eq!(world.remove_bundle::<()>(a), Ok(Some(())));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    world.despawn(a).unwrap();
    assert_eq!(world.remove_bundle::<()>(a), Err(NoSuchEntity(a)));
}

#[test]
fn remove_bundle_on_a_dead_entity_fails() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    world.despawn(a).unwrap();
    assert_eq!(world.remove_bundle::<(Pos, Vel)>(a), Err(NoSuchEntity(a)));
}

// ---------------------------------------------------------------- despawn

#[test]
fn despawn_kills_the_entity_and_a_second_despawn_fails() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1), Frozen));
    let b = world.spawn((Pos(2), Vel(2)));
    assert_eq!(world.despawn(a), Ok(()));
    assert!(!world.is_alive(a));
    assert_eq!(world.len(), 1);
    assert_eq!(world.get::<Pos>(a), None);
    assert_eq!(world.archetype(a), None);
    assert_eq!(world.despawn(a), Err(NoSuchEntity(a)));
    assert_eq!(world.len(), 1);
    assert_eq!(snapshot(&world, b), Some(pv(2, 2)));
    // b still has no Frozen (the tag of a went away with it).
    assert!(!world.has::<Frozen>(b));
}

// ---------------------------------------------------------------- get, get_mut, has

#[test]
fn get_and_get_mut_are_none_for_dead_entities_and_absent_components() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    assert_eq!(world.get::<Vel>(a), None);
    assert_eq!(world.get_mut::<Vel>(a), None);
    assert_eq!(world.get::<Frozen>(a), None);
    assert_eq!(world.get_mut::<Frozen>(a), None);
    world.despawn(a).unwrap();
    assert_eq!(world.get::<Pos>(a), None);
    assert_eq!(world.get_mut::<Pos>(a), None);
}

#[test]
fn get_mut_changes_only_that_entity() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    world.get_mut::<Pos>(a).unwrap().0 = 100;
    *world.get_mut::<Vel>(b).unwrap() = Vel(200);
    assert_eq!(snapshot(&world, a), Some(pv(100, 1)));
    assert_eq!(snapshot(&world, b), Some(pv(2, 200)));
}

#[test]
fn has_and_is_alive_follow_the_entity() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Player));
    assert!(world.is_alive(a));
    assert!(world.has::<Pos>(a));
    assert!(world.has::<Player>(a));
    assert!(!world.has::<Vel>(a));
    assert!(!world.has::<Frozen>(a));
    world.insert(a, (Vel(1),)).unwrap();
    assert!(world.has::<Vel>(a));
    world.remove::<Pos>(a).unwrap();
    assert!(!world.has::<Pos>(a));
    world.despawn(a).unwrap();
    assert!(!world.is_alive(a));
    assert!(!world.has::<Vel>(a));
    assert!(!world.has::<Player>(a));
}

#[test]
fn archetype_is_the_entitys_component_set() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Hp(1), Frozen));
    assert_eq!(world.archetype(a), Some(GameMask::HP | GameMask::FROZEN));
    world.insert(a, (name("a"),)).unwrap();
    assert_eq!(
        world.archetype(a),
        Some(GameMask::HP | GameMask::FROZEN | GameMask::NAME)
    );
    world.despawn(a).unwrap();
    assert_eq!(world.archetype(a), None);
}

// ---------------------------------------------------------------- len, clear, iter

#[test]
fn len_and_is_empty_count_live_entities() {
    let mut world = World::<Game>::new();
    assert!(world.is_empty());
    assert_eq!(world.len(), 0);
    let a = world.spawn((Pos(1),));
    let b = world.spawn(());
    let c = world.spawn((Vel(1), Frozen));
    assert_eq!(world.len(), 3);
    assert!(!world.is_empty());
    world.insert(a, (Vel(1),)).unwrap();
    world.remove::<Vel>(c).unwrap();
    assert_eq!(world.len(), 3, "migration does not change the count");
    world.despawn(b).unwrap();
    assert_eq!(world.len(), 2);
    let _ = world.despawn(b);
    assert_eq!(world.len(), 2);
    world.despawn(a).unwrap();
    world.despawn(c).unwrap();
    assert!(world.is_empty());
}

#[test]
fn clear_despawns_everything_and_keeps_the_world_usable() {
    let mut world = World::<Game>::new();
    world.resource_mut::<Tick>().0 = 5;
    world.resource_mut::<Log>().0.push("kept".into());
    let old = [
        world.spawn((Pos(1), Vel(1))),
        world.spawn((Pos(2), Frozen)),
        world.spawn(()),
        world.spawn((name("n"), Hp(3), Player)),
    ];
    let tables_before = world.describe().tables.len();
    world.clear();

    assert!(world.is_empty());
    assert_eq!(world.len(), 0);
    assert_eq!(world.iter().count(), 0);
    for &e in &old {
        assert!(!world.is_alive(e), "{e:?}");
        assert_eq!(world.get::<Pos>(e), None);
        assert_eq!(world.despawn(e), Err(NoSuchEntity(e)));
        assert_eq!(world.insert(e, (Hp(0),)), Err(InsertError::NoSuchEntity(e)));
    }
    assert_eq!(world.query::<Entity>().count(), 0);
    assert_eq!(world.query_filtered::<Entity, With<Frozen>>().count(), 0);
    assert_eq!(world.resource::<Tick>(), &Tick(5));
    assert_eq!(world.resource::<Log>().0, ["kept"]);
    let description = world.describe();
    assert_eq!(description.tables.len(), tables_before, "tables stay");
    assert!(description.tables.iter().all(|t| t.entities == 0));

    // Usable afterwards; new handles never equal old ones.
    let e = world.spawn((Pos(7), Frozen));
    let f = world.spawn((Pos(8), Vel(8)));
    assert!(!old.contains(&e) && !old.contains(&f));
    assert_eq!(world.len(), 2);
    assert_eq!(world.get::<Pos>(e), Some(&Pos(7)));
    assert!(world.has::<Frozen>(e));
    assert_eq!(snapshot(&world, f), Some(pv(8, 8)));
    for &o in &old {
        assert!(!world.is_alive(o));
    }
    assert_eq!(world.remove::<Frozen>(e), Ok(Some(Frozen)));
    let mut all: Vec<Entity> = world.query::<Entity>().iter().collect();
    all.sort();
    let mut expected = vec![e, f];
    expected.sort();
    assert_eq!(all, expected);
}

#[test]
fn iter_yields_every_live_entity_once() {
    let mut world = World::<Game>::new();
    let mut live: Vec<Entity> = Vec::new();
    for i in 0..50 {
        let e = match i % 4 {
            0 => world.spawn((Pos(i),)),
            1 => world.spawn((Pos(i), Vel(i))),
            2 => world.spawn(()),
            _ => world.spawn((Frozen, Hp(i as u32))),
        };
        live.push(e);
    }
    for i in (0..50).step_by(3) {
        world.despawn(live[i]).unwrap();
    }
    live = live
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, e)| e)
        .collect();
    let mut seen: Vec<Entity> = world.iter().collect();
    assert_eq!(seen.len(), world.len());
    seen.sort();
    live.sort();
    assert_eq!(seen, live);
}

// ---------------------------------------------------------------- describe

#[test]
fn describe_lists_the_tables_in_creation_order() {
    let mut world = World::<Game>::new();
    assert_eq!(
        world.describe().to_string(),
        "World<Game>: 0 entities in 1 table\n  []: 0 entities\n"
    );
    let a = world.spawn((Pos(0), Vel(1)));
    world.spawn((Pos(0), Vel(1)));
    world.spawn((Frozen, Pos(1)));
    world.insert(a, (Hp(1),)).unwrap();
    let description = world.describe();
    assert_eq!(
        description,
        Description {
            schema: "Game",
            entities: 3,
            tables: vec![
                TableDescription {
                    components: vec![],
                    entities: 0
                },
                TableDescription {
                    components: vec!["Pos", "Vel"],
                    entities: 1
                },
                TableDescription {
                    components: vec!["Pos", "Frozen"],
                    entities: 1
                },
                TableDescription {
                    components: vec!["Pos", "Vel", "Hp"],
                    entities: 1
                },
            ],
        }
    );
    let text = "World<Game>: 3 entities in 4 tables\n  []: 0 entities\n  [Pos, Vel]: 1 entity\n  \
                [Pos, Frozen]: 1 entity\n  [Pos, Vel, Hp]: 1 entity\n";
    assert_eq!(description.to_string(), text);
    assert_eq!(format!("{world:?}"), text);
}

// ---------------------------------------------------------------- resources

#[test]
fn new_makes_resources_with_default_and_they_can_be_changed() {
    let mut world = World::<Game>::new();
    assert_eq!(world.resource::<Tick>(), &Tick(0));
    assert!(world.resource::<Log>().0.is_empty());
    world.resource_mut::<Tick>().0 += 3;
    world.resource_mut::<Log>().0.push("a".into());
    assert_eq!(world.resource::<Tick>(), &Tick(3));
    assert_eq!(world.resources().tick, Tick(3));
    world.resources_mut().log.0.push("b".into());
    assert_eq!(world.resource::<Log>().0, ["a", "b"]);
    // Entity operations do not touch resources.
    let e = world.spawn((Pos(1),));
    world.despawn(e).unwrap();
    assert_eq!(world.resource::<Tick>(), &Tick(3));
}

#[test]
fn default_world_is_new_world() {
    let world: World<Game> = World::default();
    assert!(world.is_empty());
    assert_eq!(world.resource::<Tick>(), &Tick(0));
}

struct Gravity(f64);
struct Seed(u64);

#[derive(Schema)]
struct Planet {
    pos: Pos,
    #[ecs(resource)]
    gravity: Gravity,
    #[ecs(resource)]
    seed: Seed,
}

#[test]
fn with_resources_takes_resources_without_default() {
    let mut world = World::<Planet>::with_resources(PlanetResources {
        gravity: Gravity(9.8),
        seed: Seed(42),
    });
    assert_eq!(world.resource::<Gravity>().0, 9.8);
    assert_eq!(world.resource::<Seed>().0, 42);
    world.resource_mut::<Gravity>().0 = 1.6;
    assert_eq!(world.resource::<Gravity>().0, 1.6);
    let e = world.spawn((Pos(1),));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    world.clear();
    assert_eq!(world.resource::<Gravity>().0, 1.6);
}

// ---------------------------------------------------------------- stale handles

#[test]
fn a_new_spawn_reuses_a_freed_index_with_a_higher_generation() {
    let mut world = World::<Game>::new();
    let old = world.spawn((Pos(1), Vel(1)));
    world.despawn(old).unwrap();
    let new = world.spawn((Pos(2),));
    assert_eq!(new.index(), old.index());
    assert!(new.generation() > old.generation());
    assert_ne!(new, old);
    assert!(world.is_alive(new));
    assert!(!world.is_alive(old));
}

#[test]
fn every_operation_on_a_stale_handle_fails_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let other = world.spawn((Pos(10), Vel(10), Frozen));
    let old = world.spawn((Pos(1), Vel(1), Frozen));
    world.despawn(old).unwrap();
    let new = world.spawn((Pos(2), Vel(2), Frozen));
    assert_eq!(new.index(), old.index(), "the slot is reused");

    let tables = table_sizes(&world);
    let order = entities_in_order(&world);
    let expected_new = snapshot(&world, new);
    let expected_other = snapshot(&world, other);

    assert_eq!(world.despawn(old), Err(NoSuchEntity(old)));
    assert_eq!(
        world.insert(old, (Pos(99),)),
        Err(InsertError::NoSuchEntity(old))
    );
    assert_eq!(
        world.insert(old, (Hp(99),)),
        Err(InsertError::NoSuchEntity(old))
    );
    assert_eq!(
        world.insert(old, (Player,)),
        Err(InsertError::NoSuchEntity(old))
    );
    assert_eq!(world.remove::<Pos>(old), Err(NoSuchEntity(old)));
    assert_eq!(world.remove::<Frozen>(old), Err(NoSuchEntity(old)));
    assert_eq!(world.remove::<Hp>(old), Err(NoSuchEntity(old)));
    assert_eq!(
        world.remove_bundle::<(Pos, Vel)>(old),
        Err(NoSuchEntity(old))
    );
    assert_eq!(world.get::<Pos>(old), None);
    assert_eq!(world.get_mut::<Pos>(old), None);
    assert_eq!(world.get::<Frozen>(old), None);
    assert!(!world.has::<Pos>(old));
    assert!(!world.has::<Frozen>(old));
    assert!(!world.is_alive(old));
    assert_eq!(world.archetype(old), None);
    assert!(world.query::<&Pos>().get(old).is_err());
    assert!(world.query_mut::<&mut Pos>().get_mut(old).is_err());
    assert!(!world.query::<Entity>().contains(old));

    assert_eq!(world.len(), 2);
    assert_eq!(snapshot(&world, new), expected_new);
    assert_eq!(snapshot(&world, other), expected_other);
    assert_eq!(entities_in_order(&world), order);
    assert_eq!(table_sizes(&world), tables);
}

#[test]
fn generations_grow_with_every_reuse_and_all_old_handles_stay_dead() {
    let mut world = World::<Game>::new();
    let mut handles = Vec::new();
    let mut e = world.spawn((Pos(0),));
    for i in 1..=20 {
        handles.push(e);
        world.despawn(e).unwrap();
        e = world.spawn((Pos(i),));
        assert_eq!(e.index(), handles[0].index());
        assert_eq!(
            e.generation().get(),
            handles[0].generation().get() + i as u32
        );
    }
    for &old in &handles {
        assert!(!world.is_alive(old));
        assert_eq!(world.get::<Pos>(old), None);
        assert_eq!(world.despawn(old), Err(NoSuchEntity(old)));
    }
    assert_eq!(world.get::<Pos>(e), Some(&Pos(20)));
    assert_eq!(world.len(), 1);
}

#[test]
fn a_handle_from_another_world_index_is_not_alive() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(0),));
    let beyond = Entity::from_bits((1u64 << 32) | 1000).unwrap();
    assert!(!world.is_alive(beyond));
    assert_eq!(world.get::<Pos>(beyond), None);
    assert_eq!(world.despawn(beyond), Err(NoSuchEntity(beyond)));
    assert_eq!(
        world.insert(beyond, (Pos(1),)),
        Err(InsertError::NoSuchEntity(beyond))
    );
    let wrong_generation =
        Entity::from_bits((u64::from(e.generation().get() + 1) << 32) | u64::from(e.index()))
            .unwrap();
    assert!(!world.is_alive(wrong_generation));
    assert_eq!(
        world.remove::<Pos>(wrong_generation),
        Err(NoSuchEntity(wrong_generation))
    );
    assert_eq!(world.get::<Pos>(e), Some(&Pos(0)));
}

// ---------------------------------------------------------------- swap-remove fix-up

/// Five entities in one table, `Pos(i), Vel(10 i)`.
fn five(world: &mut World<Game>) -> Vec<Entity> {
    (0..5).map(|i| world.spawn((Pos(i), Vel(10 * i)))).collect()
}

fn check_five(world: &World<Game>, entities: &[Entity], gone: &[usize]) {
    for (i, &e) in entities.iter().enumerate() {
        if gone.contains(&i) {
            continue;
        }
        let i = i as i64;
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i)), "entity #{i}");
        assert_eq!(world.get::<Vel>(e), Some(&Vel(10 * i)), "entity #{i}");
    }
}

#[test]
fn despawn_from_the_middle_keeps_the_last_entity_reachable() {
    let mut world = World::<Game>::new();
    let es = five(&mut world);
    world.despawn(es[1]).unwrap();
    check_five(&world, &es, &[1]);
    // The entity that was last now sits in row 1; writes through it land there.
    world.get_mut::<Pos>(es[4]).unwrap().0 = 44;
    assert_eq!(world.get::<Pos>(es[4]), Some(&Pos(44)));
    world.get_mut::<Pos>(es[4]).unwrap().0 = 4;
    check_five(&world, &es, &[1]);
    world.despawn(es[4]).unwrap();
    check_five(&world, &es, &[1, 4]);
    world.despawn(es[0]).unwrap();
    check_five(&world, &es, &[0, 1, 4]);
    assert_eq!(world.query::<&Pos>().get(es[3]), Ok(&Pos(3)));
    assert_eq!(world.len(), 2);
}

#[test]
fn despawn_of_the_last_row_needs_no_fix_up() {
    let mut world = World::<Game>::new();
    let es = five(&mut world);
    world.despawn(es[4]).unwrap();
    check_five(&world, &es, &[4]);
    world.despawn(es[3]).unwrap();
    check_five(&world, &es, &[3, 4]);
}

#[test]
fn insert_migration_from_the_middle_keeps_the_last_entity_reachable() {
    let mut world = World::<Game>::new();
    let es = five(&mut world);
    world.insert(es[1], (Hp(1),)).unwrap();
    check_five(&world, &es, &[]);
    assert_eq!(world.get::<Hp>(es[1]), Some(&Hp(1)));
    // The moved entity (formerly last) can itself be migrated and despawned.
    world.insert(es[4], (name("four"),)).unwrap();
    check_five(&world, &es, &[]);
    assert_eq!(world.get::<Name>(es[4]), Some(&name("four")));
    world.insert(es[2], (Frozen,)).unwrap();
    check_five(&world, &es, &[]);
    world.despawn(es[3]).unwrap();
    check_five(&world, &es, &[3]);
    assert_eq!(world.get::<Hp>(es[1]), Some(&Hp(1)));
    assert!(world.has::<Frozen>(es[2]));
    assert!(!world.has::<Frozen>(es[0]));
}

#[test]
fn remove_migration_from_the_middle_keeps_the_last_entity_reachable() {
    let mut world = World::<Game>::new();
    let es: Vec<Entity> = (0..5)
        .map(|i| world.spawn((Pos(i), Vel(10 * i), Hp(i as u32))))
        .collect();
    assert_eq!(world.remove::<Hp>(es[1]), Ok(Some(Hp(1))));
    check_five(&world, &es, &[]);
    for (i, &e) in es.iter().enumerate() {
        let expected = (i != 1).then_some(Hp(i as u32));
        assert_eq!(world.get::<Hp>(e).cloned(), expected, "entity #{i}");
    }
    assert_eq!(world.remove::<Hp>(es[0]), Ok(Some(Hp(0))));
    assert_eq!(world.get::<Hp>(es[4]), Some(&Hp(4)));
    assert_eq!(world.get::<Hp>(es[3]), Some(&Hp(3)));
    assert_eq!(world.get::<Hp>(es[2]), Some(&Hp(2)));
    check_five(&world, &es, &[]);
}

#[test]
fn remove_bundle_from_the_middle_keeps_the_last_entity_reachable() {
    let mut world = World::<Game>::new();
    let es: Vec<Entity> = (0..5)
        .map(|i| world.spawn((Pos(i), Vel(10 * i), Hp(i as u32), name(&i.to_string()))))
        .collect();
    assert_eq!(
        world.remove_bundle::<(Hp, Name)>(es[2]),
        Ok(Some((Hp(2), name("2"))))
    );
    check_five(&world, &es, &[]);
    for (i, &e) in es.iter().enumerate() {
        if i != 2 {
            assert_eq!(world.get::<Hp>(e), Some(&Hp(i as u32)));
            assert_eq!(world.get::<Name>(e), Some(&name(&i.to_string())));
        }
    }
    // Removing everything data-carrying, from row 0.
    assert_eq!(
        world.remove_bundle::<(Pos, Vel, Hp, Name)>(es[0]),
        Ok(Some((Pos(0), Vel(0), Hp(0), name("0"))))
    );
    check_five(&world, &es, &[0]);
    assert_eq!(world.get::<Name>(es[3]), Some(&name("3")));
    assert_eq!(world.archetype(es[0]), Some(GameMask::EMPTY));
}

#[test]
fn many_migrations_keep_every_entity_consistent() {
    let mut world = World::<Game>::new();
    let es: Vec<Entity> = (0..64).map(|i| world.spawn((Pos(i),))).collect();
    // Shuffle entities through several archetypes, in an order that hits
    // middle rows, first rows and last rows.
    for round in 0..4 {
        for (i, &e) in es.iter().enumerate() {
            if (i + round) % 3 == 0 {
                world.insert(e, (Vel(i as i64),)).unwrap();
            } else if (i + round) % 3 == 1 {
                let _ = world.remove::<Vel>(e).unwrap();
                world.insert(e, (Frozen,)).unwrap();
            } else {
                let _ = world.remove::<Frozen>(e).unwrap();
            }
        }
        for (i, &e) in es.iter().enumerate() {
            assert_eq!(world.get::<Pos>(e), Some(&Pos(i as i64)), "round {round}");
            if let Some(v) = world.get::<Vel>(e) {
                assert_eq!(v, &Vel(i as i64));
            }
        }
    }
    assert_eq!(world.len(), 64);
}

// ---------------------------------------------------------------- 12-component bundles

#[derive(Debug, PartialEq)]
struct K<const N: usize>(u64);
#[derive(Debug, PartialEq)]
struct Z;

#[derive(Schema)]
struct Wide {
    k0: K<0>,
    k1: K<1>,
    k2: K<2>,
    k3: K<3>,
    k4: K<4>,
    k5: K<5>,
    k6: K<6>,
    k7: K<7>,
    k8: K<8>,
    k9: K<9>,
    k10: K<10>,
    k11: K<11>,
    z: Z,
}

type Twelve = (
    K<0>,
    K<1>,
    K<2>,
    K<3>,
    K<4>,
    K<5>,
    K<6>,
    K<7>,
    K<8>,
    K<9>,
    K<10>,
    K<11>,
);

fn twelve(base: u64) -> Twelve {
    (
        K(base),
        K(base + 1),
        K(base + 2),
        K(base + 3),
        K(base + 4),
        K(base + 5),
        K(base + 6),
        K(base + 7),
        K(base + 8),
        K(base + 9),
        K(base + 10),
        K(base + 11),
    )
}

fn check_twelve(world: &World<Wide>, e: Entity, base: u64) {
    assert_eq!(world.get::<K<0>>(e), Some(&K(base)));
    assert_eq!(world.get::<K<1>>(e), Some(&K(base + 1)));
    assert_eq!(world.get::<K<2>>(e), Some(&K(base + 2)));
    assert_eq!(world.get::<K<3>>(e), Some(&K(base + 3)));
    assert_eq!(world.get::<K<4>>(e), Some(&K(base + 4)));
    assert_eq!(world.get::<K<5>>(e), Some(&K(base + 5)));
    assert_eq!(world.get::<K<6>>(e), Some(&K(base + 6)));
    assert_eq!(world.get::<K<7>>(e), Some(&K(base + 7)));
    assert_eq!(world.get::<K<8>>(e), Some(&K(base + 8)));
    assert_eq!(world.get::<K<9>>(e), Some(&K(base + 9)));
    assert_eq!(world.get::<K<10>>(e), Some(&K(base + 10)));
    assert_eq!(world.get::<K<11>>(e), Some(&K(base + 11)));
}

#[test]
fn bundles_of_twelve_components_spawn_insert_and_remove() {
    let mut world = World::<Wide>::new();
    let a = world.spawn(twelve(100));
    let b = world.spawn(twelve(200));
    check_twelve(&world, a, 100);
    check_twelve(&world, b, 200);
    assert_eq!(world.archetype(a), Some(WideMask::all().without(12)));

    // Overwrite all twelve in place.
    world.insert(a, twelve(300)).unwrap();
    check_twelve(&world, a, 300);
    check_twelve(&world, b, 200);

    // Take all twelve out, then put them back.
    let taken = world.remove_bundle::<Twelve>(a).unwrap().unwrap();
    assert_eq!(taken, twelve(300));
    assert_eq!(world.archetype(a), Some(WideMask::EMPTY));
    check_twelve(&world, b, 200);
    world.insert(a, twelve(400)).unwrap();
    check_twelve(&world, a, 400);

    // Eleven data components and a tag.
    let c = world.spawn((
        K::<0>(0),
        K::<1>(1),
        K::<2>(2),
        K::<3>(3),
        K::<4>(4),
        K::<5>(5),
        K::<6>(6),
        K::<7>(7),
        K::<8>(8),
        K::<9>(9),
        K::<10>(10),
        Z,
    ));
    assert!(world.has::<Z>(c));
    assert!(!world.has::<K<11>>(c));
    assert_eq!(world.get::<K<10>>(c), Some(&K(10)));
    world.insert(c, (K::<11>(11),)).unwrap();
    check_twelve(&world, c, 0);
    assert!(world.has::<Z>(c));
    assert_eq!(world.len(), 3);

    let batch: Vec<Entity> = world
        .spawn_batch((0..10).map(|i| twelve(1000 * i)))
        .collect();
    for (i, &e) in batch.iter().enumerate() {
        check_twelve(&world, e, 1000 * i as u64);
    }
    assert_eq!(
        world.query::<(&K<0>, &K<11>)>().iter().count(),
        13,
        "a, b, c and the batch"
    );
}

#[test]
fn one_component_migrations_stay_right_when_remembered_edges_collide() {
    // Components 0 and 8 share a slot of the world's memory of recent edges
    // (it keeps edge `bit` at `bit % 8`); alternating them, and alternating
    // the tables the entities start from, makes every kind of hit and miss.
    let mut world = World::<Wide>::new();
    let plain: Vec<Entity> = (0..6).map(|i| world.spawn((K::<5>(i),))).collect();
    let tagged: Vec<Entity> = (0..6).map(|i| world.spawn((K::<5>(10 + i), Z))).collect();
    for round in 0..3u64 {
        for (i, (&p, &t)) in plain.iter().zip(&tagged).enumerate() {
            let i = i as u64;
            world.insert(p, (K::<0>(round * 100 + i),)).unwrap();
            world.insert(t, (K::<8>(round * 100 + 10 + i),)).unwrap();
            world.insert(t, (K::<0>(round * 100 + 20 + i),)).unwrap();
            world.insert(p, (K::<8>(round * 100 + 30 + i),)).unwrap();
            // Already there: overwritten in place.
            world.insert(p, (K::<0>(round * 100 + 40 + i),)).unwrap();
        }
        for (i, (&p, &t)) in plain.iter().zip(&tagged).enumerate() {
            let i = i as u64;
            assert_eq!(world.get::<K<5>>(p), Some(&K(i)));
            assert_eq!(world.get::<K<5>>(t), Some(&K(10 + i)));
            assert!(world.has::<Z>(t) && !world.has::<Z>(p));
            assert_eq!(world.remove::<K<8>>(t), Ok(Some(K(round * 100 + 10 + i))));
            assert_eq!(world.remove::<K<0>>(p), Ok(Some(K(round * 100 + 40 + i))));
            assert_eq!(world.remove::<K<0>>(p), Ok(None));
            assert_eq!(world.remove::<K<8>>(p), Ok(Some(K(round * 100 + 30 + i))));
            assert_eq!(world.remove::<K<0>>(t), Ok(Some(K(round * 100 + 20 + i))));
            assert_eq!(world.remove::<K<8>>(t), Ok(None));
        }
        for (i, (&p, &t)) in plain.iter().zip(&tagged).enumerate() {
            assert_eq!(world.archetype(p), Some(WideMask::K5));
            assert_eq!(world.archetype(t), Some(WideMask::K5 | WideMask::Z));
            assert_eq!(world.get::<K<5>>(p), Some(&K(i as u64)));
            assert_eq!(world.get::<K<5>>(t), Some(&K(10 + i as u64)));
        }
    }
    let stale = plain[0];
    world.despawn(stale).unwrap();
    assert_eq!(
        world.insert(stale, (K::<0>(0),)),
        Err(InsertError::NoSuchEntity(stale))
    );
    assert_eq!(world.remove::<K<5>>(stale), Err(NoSuchEntity(stale)));
    assert_eq!(world.len(), 11);
}

// ---------------------------------------------------------------- more than 64 components

#[derive(Clone, Debug, PartialEq)]
struct Far(u64);
#[derive(Clone, Debug, PartialEq)]
struct FarTag;
#[derive(Clone, Debug, PartialEq)]
struct Farther(String);

support::schema_with_fillers! {
    /// 64 fillers (data and tags alternating, bits 0 to 63), then `Far`
    /// (bit 64), `FarTag` (65) and `Farther` (66): masks are `u128`.
    struct Broad [
        f0 t0 f1 t1 f2 t2 f3 t3 f4 t4 f5 t5 f6 t6 f7 t7
        f8 t8 f9 t9 f10 t10 f11 t11 f12 t12 f13 t13 f14 t14 f15 t15
        f16 t16 f17 t17 f18 t18 f19 t19 f20 t20 f21 t21 f22 t22 f23 t23
        f24 t24 f25 t25 f26 t26 f27 t27 f28 t28 f29 t29 f30 t30 f31 t31
    ] {
        far: Far,
        far_tag: FarTag,
        farther: Farther,
    }
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

#[test]
fn a_schema_of_more_than_64_components_spawns_inserts_removes_and_despawns() {
    assert_eq!(std::mem::size_of::<BroadMask>(), 16);
    let mut world = World::<Broad>::new();
    let low = world.spawn((Filler::<0>(1), FillerTag::<31>));
    let high = world.spawn((Far(2), FarTag, Farther("two".into())));
    let both = world.spawn((Filler::<31>(3), Far(3), FillerTag::<0>));
    assert_eq!(world.archetype(low), Some(BroadMask::F0 | BroadMask::T31));
    assert_eq!(
        world.archetype(high),
        Some(BroadMask::FAR | BroadMask::FAR_TAG | BroadMask::FARTHER)
    );
    assert_eq!(
        world.archetype(both),
        Some(BroadMask::F31 | BroadMask::FAR | BroadMask::T0)
    );
    assert_eq!(world.get::<Far>(high), Some(&Far(2)));
    assert_eq!(world.get::<Far>(both), Some(&Far(3)));
    assert_eq!(world.get::<Far>(low), None);
    assert!(world.has::<FarTag>(high) && !world.has::<FarTag>(both));

    world.insert(low, (Farther("one".into()), FarTag)).unwrap();
    world.insert(both, (Far(30),)).unwrap();
    assert_eq!(world.remove::<Far>(high), Ok(Some(Far(2))));
    assert_eq!(world.remove::<Far>(high), Ok(None));
    assert_eq!(world.remove::<FarTag>(high), Ok(Some(FarTag)));
    assert_eq!(world.archetype(high), Some(BroadMask::FARTHER));
    assert_eq!(
        world.archetype(low),
        Some(BroadMask::F0 | BroadMask::T31 | BroadMask::FAR_TAG | BroadMask::FARTHER)
    );
    assert_eq!(world.get::<Farther>(low), Some(&Farther("one".into())));
    assert_eq!(world.get::<Farther>(high), Some(&Farther("two".into())));
    assert_eq!(world.get::<Far>(both), Some(&Far(30)));
    assert_eq!(world.get::<Filler<0>>(low), Some(&Filler(1)));
    assert_eq!(world.get::<Filler<31>>(both), Some(&Filler(3)));

    let farther: Vec<(Entity, String)> = sorted(
        world
            .query::<(Entity, &Farther)>()
            .iter()
            .map(|(e, f)| (e, f.0.clone()))
            .collect(),
    );
    assert_eq!(
        farther,
        sorted(vec![(low, "one".into()), (high, "two".into())])
    );
    let tagged: Vec<Entity> = world
        .query_filtered::<Entity, With<FarTag>>()
        .iter()
        .collect();
    assert_eq!(tagged, [low]);
    let without: Vec<Entity> = sorted(
        world
            .query_filtered::<Entity, Without<Far>>()
            .iter()
            .collect(),
    );
    assert_eq!(without, sorted(vec![low, high]));
    world
        .query_filtered_mut::<&mut Far, With<FillerTag<0>>>()
        .for_each_mut(|far| far.0 += 1);
    assert_eq!(world.get::<Far>(both), Some(&Far(31)));

    world.despawn(low).unwrap();
    assert_eq!(world.despawn(low), Err(NoSuchEntity(low)));
    assert_eq!(
        world.insert(low, (Far(0),)),
        Err(InsertError::NoSuchEntity(low))
    );
    assert_eq!(world.get::<Farther>(high), Some(&Farther("two".into())));
    assert_eq!(world.query::<&Farther>().iter().count(), 1);
    assert_eq!(world.len(), 2);
}

#[test]
fn components_past_bit_63_migrate_right_through_the_remembered_edges() {
    // Far (bit 64) and Filler<0> (bit 0) share a slot of the world's memory
    // of recent edges (edge `bit` is kept at `bit % 8`), and their bits are
    // equal modulo 64. A run of migrations along one edge makes the world
    // trust it; then the same table takes the other edge.
    let mut world = World::<Broad>::new();
    let plain: Vec<Entity> = (0..24).map(|i| world.spawn((Filler::<5>(i),))).collect();
    let tagged: Vec<Entity> = (0..12)
        .map(|i| world.spawn((Filler::<5>(100 + i), FarTag)))
        .collect();
    let (far, low) = plain.split_at(12);
    for round in 0..4u64 {
        for (i, &e) in far.iter().enumerate() {
            world.insert(e, (Far(round * 1000 + i as u64),)).unwrap();
        }
        for (i, &e) in low.iter().enumerate() {
            world
                .insert(e, (Filler::<0>(round * 1000 + i as u64),))
                .unwrap();
        }
        for (i, &e) in tagged.iter().enumerate() {
            world
                .insert(e, (Far(round * 1000 + 100 + i as u64),))
                .unwrap();
            world.insert(e, (Filler::<0>(i as u64),)).unwrap();
            world.insert(e, (Farther(format!("{round}")),)).unwrap();
        }
        for (i, ((&f, &l), &t)) in far.iter().zip(low).zip(&tagged).enumerate() {
            let i = i as u64;
            assert_eq!(world.archetype(f), Some(BroadMask::F5 | BroadMask::FAR));
            assert_eq!(world.archetype(l), Some(BroadMask::F5 | BroadMask::F0));
            assert_eq!(
                world.archetype(t),
                Some(
                    BroadMask::F5
                        | BroadMask::F0
                        | BroadMask::FAR
                        | BroadMask::FAR_TAG
                        | BroadMask::FARTHER
                )
            );
            assert_eq!(world.get::<Filler<5>>(f), Some(&Filler(i)));
            assert_eq!(world.get::<Filler<5>>(l), Some(&Filler(12 + i)));
            assert_eq!(world.get::<Filler<5>>(t), Some(&Filler(100 + i)));
            assert_eq!(world.get::<Far>(f), Some(&Far(round * 1000 + i)));
            assert_eq!(world.get::<Filler<0>>(l), Some(&Filler(round * 1000 + i)));
            assert_eq!(world.get::<Far>(t), Some(&Far(round * 1000 + 100 + i)));
        }
        assert_eq!(world.query::<&Far>().iter().count(), 24);
        assert_eq!(world.query::<&Filler<0>>().iter().count(), 24);
        for (i, ((&f, &l), &t)) in far.iter().zip(low).zip(&tagged).enumerate() {
            let i = i as u64;
            assert_eq!(world.remove::<Far>(f), Ok(Some(Far(round * 1000 + i))));
            assert_eq!(world.remove::<Far>(f), Ok(None));
            assert_eq!(
                world.remove::<Filler<0>>(l),
                Ok(Some(Filler(round * 1000 + i)))
            );
            assert_eq!(world.remove::<Far>(l), Ok(None));
            assert_eq!(
                world.remove::<Farther>(t),
                Ok(Some(Farther(format!("{round}"))))
            );
            assert_eq!(
                world.remove::<Far>(t),
                Ok(Some(Far(round * 1000 + 100 + i)))
            );
            assert_eq!(world.remove::<Filler<0>>(t), Ok(Some(Filler(i))));
            assert_eq!(world.remove::<FarTag>(t), Ok(Some(FarTag)));
            world.insert(t, (FarTag,)).unwrap();
        }
        for (i, &e) in plain.iter().enumerate() {
            assert_eq!(world.archetype(e), Some(BroadMask::F5));
            assert_eq!(world.get::<Filler<5>>(e), Some(&Filler(i as u64)));
        }
        for (i, &t) in tagged.iter().enumerate() {
            assert_eq!(world.archetype(t), Some(BroadMask::F5 | BroadMask::FAR_TAG));
            assert_eq!(world.get::<Filler<5>>(t), Some(&Filler(100 + i as u64)));
        }
        assert!(world.query::<&Far>().is_empty());
    }
    assert_eq!(world.len(), 36);
}

// ---------------------------------------------------------------- Entity

#[test]
fn option_entity_is_eight_bytes() {
    assert_eq!(std::mem::size_of::<Entity>(), 8);
    assert_eq!(std::mem::size_of::<Option<Entity>>(), 8);
}

#[test]
fn entity_bits_round_trip() {
    let mut world = World::<Game>::new();
    let a = world.spawn(());
    world.spawn(());
    world.despawn(a).unwrap();
    let e = world.spawn(());
    assert_eq!(e.index(), 0);
    assert_eq!(e.generation(), NonZeroU32::new(2).unwrap());
    assert_eq!(e.to_bits(), 2u64 << 32);
    assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
    assert_eq!(Entity::from_bits(a.to_bits()), Some(a));
    let b = world.spawn(());
    assert_eq!(b.to_bits(), (1u64 << 32) | 2);
    assert_eq!(Entity::from_bits(b.to_bits()), Some(b));
    assert_eq!(Entity::from_bits(7), None, "generation zero is no handle");
    assert_eq!(Entity::from_bits(0), None);
    let max = Entity::from_bits(u64::MAX).unwrap();
    assert_eq!(max.index(), u32::MAX);
    assert_eq!(max.generation().get(), u32::MAX);
    assert_eq!(max.to_bits(), u64::MAX);
}

#[test]
fn entity_debug_and_display_are_index_v_generation() {
    let mut world = World::<Game>::new();
    let a = world.spawn(());
    let b = world.spawn(());
    world.despawn(a).unwrap();
    let c = world.spawn(());
    assert_eq!(format!("{a:?}"), "0v1");
    assert_eq!(format!("{b:?}"), "1v1");
    assert_eq!(format!("{c:?}"), "0v2");
    assert_eq!(c.to_string(), "0v2");
    let error = world.despawn(a).unwrap_err();
    assert_eq!(error, NoSuchEntity(a));
    assert_eq!(
        error.to_string(),
        "entity 0v1 does not exist (it was despawned, or the handle is stale)"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(error);
    assert!(boxed.to_string().contains("0v1"));
}

#[test]
fn entities_exhausted_says_that_no_entity_index_is_left() {
    let message = EntitiesExhausted.to_string();
    assert!(message.contains("no entity index is left"), "{message}");
    let boxed: Box<dyn std::error::Error> = Box::new(EntitiesExhausted);
    assert_eq!(boxed.to_string(), message);
}

// ---------------------------------------------------------------- auto traits

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn worlds_and_handles_are_send_and_sync() {
    assert_send_sync::<World<Game>>();
    assert_send_sync::<World<Wide>>();
    assert_send_sync::<Entity>();
    assert_send_sync::<NoSuchEntity>();
    assert_send_sync::<GameMask>();
    // A world moved to another thread keeps its entities.
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), name("moved")));
    let world = std::thread::spawn(move || {
        assert_eq!(world.get::<Name>(e), Some(&name("moved")));
        world
    })
    .join()
    .unwrap();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
}

#[derive(Schema)]
struct Bare {
    pos: Pos,
}

#[test]
fn a_schema_without_resources_has_an_empty_resources_struct() {
    let mut world = World::<Bare>::with_resources(BareResources {});
    let e = world.spawn((Pos(3),));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(3)));
    let _: &BareResources = world.resources();
    let _: &mut BareResources = world.resources_mut();
    let other = World::<Bare>::new();
    assert!(other.is_empty());
}

// ------------------------------------------------- errors compose with `?`

/// Gives `to` the velocity of `from` and despawns `from`, returning the
/// speed handed over: `?` turns each step's `NoSuchEntity` into an
/// `InsertError`.
fn hand_over(world: &mut World<Game>, from: Entity, to: Entity) -> Result<i64, InsertError> {
    let Some(vel) = world.remove::<Vel>(from)? else {
        return Ok(0);
    };
    let speed = vel.0;
    world.insert(to, (vel,))?;
    world.despawn(from)?;
    Ok(speed)
}

/// Moves a mover one step, then takes its position out: inside, `?` turns
/// a `NoSuchEntity` into a `QueryEntityError` or a `TakeError`; outside,
/// either into a `Box<dyn Error>`.
fn step_and_take(world: &mut World<Game>, e: Entity) -> Result<i64, Box<dyn std::error::Error>> {
    fn step(world: &mut World<Game>, e: Entity) -> Result<(), QueryEntityError> {
        world.remove::<Hp>(e)?;
        let mut movers = world.query_mut::<(&mut Pos, &Vel)>();
        let (pos, vel) = movers.get_mut(e)?;
        pos.0 += vel.0;
        Ok(())
    }
    fn take(world: &mut World<Game>, e: Entity) -> Result<Pos, TakeError> {
        world.remove::<Vel>(e)?;
        let (pos,) = world.take::<(Pos,)>(e)?;
        Ok(pos)
    }
    step(world, e)?;
    Ok(take(world, e)?.0)
}

#[test]
fn errors_compose_with_the_question_mark() {
    use ecs::command::MigrateError;
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(0), Vel(3)));
    let b = world.spawn((Pos(10), Hp(1)));
    assert_eq!(hand_over(&mut world, a, b), Ok(3));
    assert_eq!(world.get::<Vel>(b), Some(&Vel(3)));
    assert_eq!(
        hand_over(&mut world, a, b),
        Err(InsertError::NoSuchEntity(a))
    );

    let error = step_and_take(&mut world, a).unwrap_err();
    assert_eq!(
        error.downcast_ref(),
        Some(&QueryEntityError::NoSuchEntity(a))
    );
    let c = world.spawn((Pos(5),));
    let error = step_and_take(&mut world, c).unwrap_err();
    assert_eq!(
        error.downcast_ref(),
        Some(&QueryEntityError::DoesNotMatch(c))
    );
    assert_eq!(step_and_take(&mut world, b).unwrap(), 13);
    assert!(!world.is_alive(b));

    // A migrator's error takes a `NoSuchEntity` too (of a `SparseMut`,
    // say, beside it in a system).
    let dead: Result<(), MigrateError> = (|| Err(NoSuchEntity(a))?)();
    assert_eq!(dead, Err(MigrateError::NoSuchEntity(a)));
}
