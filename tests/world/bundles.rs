//! Named bundles (`#[derive(Bundle)]`), `World::take` and
//! `World::exchange`.
//!
//! A derived bundle goes wherever a tuple does (spawn, batches, insert,
//! remove, commands), nested ones included; `take` moves an entity out of a
//! world only when nothing would be lost; `exchange` removes one bundle and
//! inserts another in a single move, and changes nothing (handing the
//! bundle back) when it cannot.

use ecs::prelude::*;

use ecs::command::CommandBuffer;

use ecs::world::InsertError;
use ecs::{world::ExchangeError, world::TakeError};
use support::{CountedTag, DropLog, TagCounts, Tracked};

#[derive(Clone, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq)]
struct Hp(u32);
#[derive(Clone, Debug, PartialEq)]
struct Stun(u32);
#[derive(Clone, Debug, PartialEq)]
struct Mark(u8);
#[derive(Clone, Debug, PartialEq, Default)]
struct Frozen;
#[derive(Clone, Debug, PartialEq)]
struct Name(String);

/// Bits: Pos 0, Vel 1, Hp 2 (tracked), Stun 3 (sparse, tracked), Mark 4
/// (sparse), Frozen 5 (tag), Name 6.
#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    hp: Hp,
    #[ecs(sparse, track)]
    stun: Stun,
    #[ecs(sparse)]
    mark: Mark,
    frozen: Frozen,
    name: Name,
}

#[derive(Bundle, Clone, Debug, PartialEq)]
struct Motion {
    pos: Pos,
    vel: Vel,
}

#[derive(Bundle, Clone, Debug, PartialEq)]
struct Unit {
    name: Name,
    hp: Hp,
    #[bundle]
    motion: Motion,
}

/// A tuple struct of a sparse component and a tag.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Stunned(Stun, Frozen);

/// Two levels of nesting, and a tuple as a nested bundle.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Everything {
    #[bundle]
    unit: Unit,
    #[bundle]
    stunned: Stunned,
    #[bundle]
    marked: (Mark,),
}

/// Generic over its components.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Pair<A, B> {
    first: A,
    second: B,
}

fn unit(n: i64) -> Unit {
    Unit {
        name: Name(format!("unit {n}")),
        hp: Hp(n as u32),
        motion: Motion {
            pos: Pos(n),
            vel: Vel(-n),
        },
    }
}

fn everything(n: i64) -> Everything {
    Everything {
        unit: unit(n),
        stunned: Stunned(Stun(n as u32 + 100), Frozen),
        marked: (Mark(n as u8),),
    }
}

fn mask(bits: &[GameMask]) -> GameMask {
    bits.iter().fold(GameMask::empty(), |all, &bit| all | bit)
}

const UNIT: [GameMask; 4] = [GameMask::POS, GameMask::VEL, GameMask::HP, GameMask::NAME];

fn table_count(world: &World<Game>) -> usize {
    world.describe().tables.len()
}

// ------------------------------------------------------------ derived bundles

#[test]
fn a_derived_bundle_declares_the_bits_of_all_its_fields_nested_ones_included() {
    use ecs::bundle::Bundle;
    assert_eq!(
        <Motion as Bundle<Game>>::mask(),
        GameMask::POS | GameMask::VEL
    );
    assert_eq!(<Unit as Bundle<Game>>::mask(), mask(&UNIT));
    assert_eq!(
        <Everything as Bundle<Game>>::mask(),
        GameMask::all(),
        "every component of Game, through two levels of nesting"
    );
    assert_eq!(
        <Pair<Hp, Frozen> as Bundle<Game>>::BITS,
        (GameMask::HP | GameMask::FROZEN).bits() as u128
    );
}

#[test]
fn spawn_places_every_field_of_a_nested_bundle() {
    let mut world = World::<Game>::new();
    let e = world.spawn(everything(3));
    assert_eq!(world.archetype(e), Some(GameMask::all()));
    assert_eq!(world.get::<Name>(e), Some(&Name("unit 3".into())));
    assert_eq!(world.get::<Hp>(e), Some(&Hp(3)));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(3)));
    assert_eq!(world.get::<Vel>(e), Some(&Vel(-3)));
    assert_eq!(world.get::<Stun>(e), Some(&Stun(103)));
    assert_eq!(world.get::<Mark>(e), Some(&Mark(3)));
    assert!(world.has::<Frozen>(e));
    // The sparse components are in their sets, not in the table.
    assert_eq!(
        world.describe().tables.last().unwrap().components,
        ["Pos", "Vel", "Hp", "Frozen", "Name"]
    );

    let f = world
        .try_spawn(Pair {
            first: Pos(1),
            second: Frozen,
        })
        .unwrap();
    assert_eq!(world.archetype(f), Some(GameMask::POS | GameMask::FROZEN));
    assert_eq!(world.get::<Pos>(f), Some(&Pos(1)));
}

#[test]
fn spawn_batch_takes_derived_bundles_with_and_without_tags_and_sparse_components() {
    let mut world = World::<Game>::new();
    let units: Vec<Entity> = world.spawn_batch((0..50).map(unit)).collect();
    let all: Vec<Entity> = world.spawn_batch((0..50).map(everything)).collect();
    assert_eq!(world.len(), 100);
    for (n, (&u, &e)) in units.iter().zip(&all).enumerate() {
        let n = n as i64;
        assert_eq!(world.archetype(u), Some(mask(&UNIT)));
        assert_eq!(world.get::<Pos>(u), Some(&Pos(n)));
        assert_eq!(world.get::<Name>(u), Some(&Name(format!("unit {n}"))));
        assert_eq!(world.archetype(e), Some(GameMask::all()));
        assert_eq!(world.get::<Stun>(e), Some(&Stun(n as u32 + 100)));
        assert_eq!(world.get::<Mark>(e), Some(&Mark(n as u8)));
    }
    assert_eq!(
        world
            .query_filtered::<Entity, With<Frozen>>()
            .iter()
            .count(),
        50
    );
}

#[test]
fn insert_and_remove_bundle_take_derived_bundles() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Hp(1)));
    world
        .insert(
            e,
            Unit {
                name: Name("n".into()),
                hp: Hp(7),
                motion: Motion {
                    pos: Pos(2),
                    vel: Vel(3),
                },
            },
        )
        .unwrap();
    assert_eq!(world.archetype(e), Some(mask(&UNIT)));
    assert_eq!(
        (world.get::<Pos>(e), world.get::<Hp>(e)),
        (Some(&Pos(2)), Some(&Hp(7)))
    );
    world.insert(e, Stunned(Stun(4), Frozen)).unwrap();
    assert_eq!(world.get::<Stun>(e), Some(&Stun(4)));

    assert_eq!(
        world.remove_bundle::<Motion>(e),
        Ok(Some(Motion {
            pos: Pos(2),
            vel: Vel(3)
        }))
    );
    assert_eq!(world.remove_bundle::<Motion>(e), Ok(None), "Motion is gone");
    assert_eq!(
        world.remove_bundle::<Stunned>(e),
        Ok(Some(Stunned(Stun(4), Frozen)))
    );
    assert_eq!(world.archetype(e), Some(GameMask::HP | GameMask::NAME));

    // A bundle the entity has only part of is not removed at all.
    world.insert(e, (Pos(5),)).unwrap();
    assert_eq!(world.remove_bundle::<Motion>(e), Ok(None));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(5)));

    world.despawn(e).unwrap();
    assert_eq!(
        world.insert(e, unit(0)),
        Err(InsertError::NoSuchEntity(e)),
        "a dead entity"
    );
}

fn commander(query: Query<(Entity, &Pos)>, mut commands: Commands<Game>) {
    for (entity, pos) in query.iter() {
        match pos.0 {
            0 => commands.insert(entity, Stunned(Stun(1), Frozen)),
            1 => commands.remove_bundle::<Motion>(entity),
            _ => {}
        }
    }
    commands.spawn(unit(9));
}

#[test]
fn commands_and_command_buffers_take_derived_bundles() {
    let mut world = World::<Game>::new();
    let zero = world.spawn(unit(0));
    let one = world.spawn(unit(1));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(commander);
    schedule.run(&mut world);
    assert_eq!(world.get::<Stun>(zero), Some(&Stun(1)));
    assert!(world.has::<Frozen>(zero));
    assert_eq!(world.archetype(one), Some(GameMask::HP | GameMask::NAME));
    let spawned: Vec<Entity> = world
        .query_filtered::<Entity, (With<Name>, Without<Frozen>)>()
        .iter()
        .filter(|&e| world.get::<Pos>(e) == Some(&Pos(9)))
        .collect();
    assert_eq!(spawned.len(), 1);
    assert_eq!(world.archetype(spawned[0]), Some(mask(&UNIT)));

    let mut buffer = CommandBuffer::<Game>::new();
    buffer.spawn(&world, everything(4));
    buffer.insert(one, unit(5));
    let reserved = buffer.commands(&world).spawn(Stunned(Stun(6), Frozen));
    buffer.remove_bundle::<Stunned>(zero);
    buffer.apply(&mut world);
    assert_eq!(world.get::<Pos>(one), Some(&Pos(5)));
    assert_eq!(world.get::<Stun>(reserved), Some(&Stun(6)));
    assert!(!world.has::<Stun>(zero) && !world.has::<Frozen>(zero));
    assert_eq!(
        world
            .query_filtered::<Entity, With<Mark>>()
            .iter()
            .map(|e| world.archetype(e))
            .collect::<Vec<_>>(),
        [Some(GameMask::all())]
    );
}

#[test]
fn a_derived_bundle_with_a_tracked_member_is_added_when_spawned() {
    let mut world = World::<Game>::new();
    world.clear_trackers();
    let e = world.spawn(everything(1));
    let added_hp: Vec<Entity> = world.query_filtered::<Entity, Added<Hp>>().iter().collect();
    let added_stun: Vec<Entity> = world
        .query_filtered::<Entity, Added<Stun>>()
        .iter()
        .collect();
    assert_eq!((added_hp, added_stun), (vec![e], vec![e]));
}

// ------------------------------------------------------------------- take

#[test]
fn take_moves_out_an_entity_of_exactly_the_bundles_components_and_frees_its_id() {
    let mut world = World::<Game>::new();
    let before = world.spawn(unit(1));
    let e = world.spawn(unit(2));
    let after = world.spawn(unit(3));

    assert_eq!(world.take::<Unit>(e), Ok(unit(2)));
    assert!(!world.is_alive(e));
    assert_eq!(world.len(), 2);
    assert_eq!(world.get::<Pos>(e), None);
    // The last row moved into the one taken: both neighbours still read
    // their own values.
    assert_eq!(world.get::<Name>(before), Some(&Name("unit 1".into())));
    assert_eq!(world.get::<Name>(after), Some(&Name("unit 3".into())));
    assert_eq!(world.take::<Unit>(after), Ok(unit(3)));
    assert_eq!(world.get::<Vel>(before), Some(&Vel(-1)));

    // The id is freed as by despawn: the slot is reused, a new generation.
    let next = world.spawn((Pos(0),));
    assert!(next.index() == e.index() || next.index() == after.index());
    assert_ne!(next, e);
    assert_eq!(world.take::<Unit>(e), Err(TakeError::NoSuchEntity(e)));
    assert_eq!(world.despawn(e), Err(NoSuchEntity(e)));
}

#[test]
fn take_of_a_tuple_and_of_sparse_and_tag_components() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Mark(2)));
    assert_eq!(world.take::<(Mark, Pos)>(e), Ok((Mark(2), Pos(1))));
    let s = world.spawn(everything(5));
    assert_eq!(world.take::<Everything>(s), Ok(everything(5)));
    assert!(world.is_empty());
    assert!(world.query::<&Stun>().iter().next().is_none());
    assert_eq!(
        world
            .query_filtered::<Entity, With<Frozen>>()
            .iter()
            .count(),
        0
    );
    // An entity with no components is taken as the empty bundle.
    let empty = world.spawn(());
    assert_eq!(world.take::<()>(empty), Ok(()));
    assert!(!world.is_alive(empty));
}

#[test]
fn take_of_a_bundle_that_differs_from_the_entity_changes_nothing() {
    let mut world = World::<Game>::new();
    let e = world.spawn(unit(4));
    world.insert(e, (Mark(1), Frozen)).unwrap();
    let tables = table_count(&world);

    let error = world.take::<Unit>(e).unwrap_err();
    assert_eq!(
        error,
        TakeError::Mismatch {
            entity: e,
            schema: "Game",
            not_in_bundle: vec!["Mark", "Frozen"],
            not_in_entity: vec![],
        }
    );
    assert_eq!(error.entity(), e);
    assert_eq!(
        error.to_string(),
        format!(
            "cannot take entity {e} of schema `Game` as this bundle: the entity has `Mark` \
             and `Frozen`, which the bundle does not hold; `take` moves every component of \
             the entity out, so the bundle must hold exactly the entity's components. \
             Nothing changed"
        )
    );
    let error = world.take::<Everything>(e).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot take entity {e} of schema `Game` as this bundle: the bundle holds `Stun`, \
             which the entity lacks; `take` moves every component of the entity out, so the \
             bundle must hold exactly the entity's components. Nothing changed"
        )
    );
    let error = world.take::<(Pos, Stun)>(e).unwrap_err();
    assert!(error.to_string().contains(
        "the entity has `Vel`, `Hp`, `Mark`, `Frozen` and `Name`, which the bundle does not \
         hold, and the bundle holds `Stun`, which the entity lacks"
    ));

    assert!(world.is_alive(e));
    assert_eq!(
        world.archetype(e),
        Some(mask(&UNIT) | GameMask::MARK | GameMask::FROZEN)
    );
    assert_eq!(world.get::<Name>(e), Some(&Name("unit 4".into())));
    assert_eq!(world.get::<Mark>(e), Some(&Mark(1)));
    assert_eq!(table_count(&world), tables);
}

#[test]
fn take_into_a_second_world_and_back_keeps_every_value() {
    let mut here = World::<Game>::new();
    let mut there = World::<Game>::new();
    let others: Vec<Entity> = here.spawn_batch((10..13).map(everything)).collect();
    let e = here.spawn(everything(7));

    let parts: Everything = here.take(e).unwrap();
    let arrived = there.spawn(parts);
    assert_eq!(there.get::<Stun>(arrived), Some(&Stun(107)));
    let back: Everything = there.take(arrived).unwrap();
    assert!(there.is_empty());
    let home = here.spawn(back);
    assert_eq!(here.take::<Everything>(home), Ok(everything(7)));
    for (n, e) in (10..).zip(others) {
        assert_eq!(here.take::<Everything>(e), Ok(everything(n)));
    }
}

#[test]
fn take_logs_its_tracked_components_as_removed() {
    let mut world = World::<Game>::new();
    let e = world.spawn(everything(1));
    let kept = world.spawn(unit(2));
    world.clear_trackers();
    world.take::<Everything>(e).unwrap();
    assert_eq!(world.removed::<Hp>().collect::<Vec<_>>(), [e]);
    assert_eq!(world.removed::<Stun>().collect::<Vec<_>>(), [e]);
    assert!(world.is_alive(kept));
}

// --------------------------------------------------------------- exchange

#[test]
fn exchange_moves_the_entity_once_straight_to_its_new_table() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Vel(2), Hp(3)));
    let neighbour = world.spawn((Pos(10), Vel(20), Hp(30)));
    assert_eq!(table_count(&world), 2); // [] and [Pos, Vel, Hp]

    let removed: (Vel, Hp) = world.exchange(e, (Name("n".into()),)).unwrap();
    assert_eq!(removed, (Vel(2), Hp(3)));
    assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::NAME));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    assert_eq!(world.get::<Name>(e), Some(&Name("n".into())));
    // One new table, the destination: no [Pos] between remove and insert.
    let tables: Vec<Vec<&str>> = world
        .describe()
        .tables
        .into_iter()
        .map(|table| table.components)
        .collect();
    assert_eq!(
        tables,
        [vec![], vec!["Pos", "Vel", "Hp"], vec!["Pos", "Name"]]
    );
    assert_eq!(world.get::<Vel>(neighbour), Some(&Vel(20)));
    assert_eq!(world.get::<Hp>(neighbour), Some(&Hp(30)));

    // The same with a derived bundle on each side.
    let u = world.spawn(unit(5));
    let old: Motion = world.exchange(u, Stunned(Stun(1), Frozen)).unwrap();
    assert_eq!(old, unit(5).motion);
    assert_eq!(
        world.archetype(u),
        Some(GameMask::HP | GameMask::NAME | GameMask::STUN | GameMask::FROZEN)
    );
    assert_eq!(table_count(&world), 5); // + [Pos, Vel, Hp, Name], [Hp, Frozen, Name]
}

#[test]
fn exchange_of_a_bundle_the_entity_lacks_hands_the_new_one_back_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Hp(2)));
    world.clear_trackers();
    let tables = table_count(&world);

    let error = world
        .exchange::<(Vel, Hp, Mark), _>(e, unit(3))
        .unwrap_err();
    assert_eq!(error.entity(), e);
    assert_eq!(
        error.to_string(),
        format!(
            "cannot exchange components of entity {e} of schema `Game`: it lacks `Vel` and \
             `Mark`, which the exchange was to remove; an exchange removes all of the \
             components it names or none. Nothing changed; the bundle to insert is in the error"
        )
    );
    match &error {
        ExchangeError::Missing {
            missing, schema, ..
        } => assert_eq!(
            (missing.as_slice(), *schema),
            (["Vel", "Mark"].as_slice(), "Game")
        ),
        other => panic!("expected Missing, got {other:?}"),
    }
    assert_eq!(error.into_bundle(), unit(3));
    assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::HP));
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));
    assert_eq!(table_count(&world), tables);
    assert_eq!(world.removed::<Hp>().count(), 0);

    world.despawn(e).unwrap();
    let error = world.exchange::<(Pos,), _>(e, (Vel(1),)).unwrap_err();
    assert_eq!(
        error,
        ExchangeError::NoSuchEntity {
            entity: e,
            bundle: (Vel(1),)
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "cannot exchange components of entity {e}: it does not exist (it was despawned, \
             or the handle is stale). Nothing changed; the bundle to insert is in the error"
        )
    );
}

#[test]
fn exchange_replaces_a_component_in_both_bundles_in_place() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world
        .spawn_batch((0..4).map(|n| (Pos(n), Hp(n as u32), Name(format!("{n}")))))
        .collect();
    let order = |world: &World<Game>| world.query::<Entity>().iter().collect::<Vec<_>>();
    let before = order(&world);
    let tables = table_count(&world);

    // The entity keeps its table, and its row: no other entity moves.
    let (Hp(old),) = world.exchange::<(Hp,), _>(ids[1], (Hp(100),)).unwrap();
    assert_eq!(old, 1);
    // Two components replaced, and a third overwritten.
    let (Name(name), Hp(hp)) = world
        .exchange::<(Name, Hp), _>(ids[0], (Hp(200), Name("zero".into()), Pos(-1)))
        .unwrap();
    assert_eq!((name.as_str(), hp), ("0", 0));
    // The last row, too.
    world.exchange::<(Pos,), _>(ids[3], (Pos(300),)).unwrap();

    assert_eq!(order(&world), before);
    assert_eq!(table_count(&world), tables);
    let values: Vec<(i64, u32, String)> = ids
        .iter()
        .map(|&e| {
            (
                world.get::<Pos>(e).unwrap().0,
                world.get::<Hp>(e).unwrap().0,
                world.get::<Name>(e).unwrap().0.clone(),
            )
        })
        .collect();
    assert_eq!(
        values,
        [
            (-1, 200, "zero".to_string()),
            (1, 100, "1".to_string()),
            (2, 2, "2".to_string()),
            (300, 3, "3".to_string()),
        ]
    );
}

fn added<T: ecs::schema::Tracked<Game>>(world: &World<Game>) -> Vec<Entity> {
    world.query_filtered::<Entity, Added<T>>().iter().collect()
}

fn changed<T: ecs::schema::Tracked<Game>>(world: &World<Game>) -> Vec<Entity> {
    world
        .query_filtered::<Entity, Changed<T>>()
        .iter()
        .collect()
}

#[test]
fn exchange_reports_tracked_components_as_added_changed_or_removed() {
    let mut world = World::<Game>::new();
    let ids: Vec<Entity> = world
        .spawn_batch((0..3).map(|n| (Pos(n), Hp(n as u32), Stun(n as u32))))
        .collect();
    let lacking = world.spawn((Pos(9),));
    world.clear_trackers();

    // In both: changed, not added; the other rows keep their ticks.
    world
        .exchange::<(Hp, Stun), _>(ids[0], (Hp(10), Stun(10)))
        .unwrap();
    assert_eq!(changed::<Hp>(&world), [ids[0]]);
    assert_eq!(changed::<Stun>(&world), [ids[0]]);
    assert!(added::<Hp>(&world).is_empty() && added::<Stun>(&world).is_empty());
    assert_eq!(
        world.removed::<Hp>().count() + world.removed::<Stun>().count(),
        0
    );

    // In the new bundle only, and present: overwritten, a change.
    world.clear_trackers();
    world
        .exchange::<(Pos,), _>(ids[1], (Pos(1), Hp(11), Stun(11)))
        .unwrap();
    assert_eq!(
        (changed::<Hp>(&world), changed::<Stun>(&world)),
        (vec![ids[1]], vec![ids[1]])
    );
    assert!(added::<Hp>(&world).is_empty() && added::<Stun>(&world).is_empty());

    // In the new bundle only, and absent: added.
    world.clear_trackers();
    world
        .exchange::<(Pos,), _>(lacking, (Hp(12), Stun(12), Vel(0)))
        .unwrap();
    assert_eq!(
        (added::<Hp>(&world), added::<Stun>(&world)),
        (vec![lacking], vec![lacking])
    );

    // In the removed bundle only: removed.
    world.clear_trackers();
    world.exchange::<(Hp, Stun), _>(ids[2], (Vel(2),)).unwrap();
    assert_eq!(world.removed::<Hp>().collect::<Vec<_>>(), [ids[2]]);
    assert_eq!(world.removed::<Stun>().collect::<Vec<_>>(), [ids[2]]);
    assert!(changed::<Hp>(&world).is_empty() && changed::<Stun>(&world).is_empty());

    // Replaced while the entity moves to another table: changed too.
    world.clear_trackers();
    world
        .exchange::<(Hp, Pos, Stun), _>(ids[0], (Stun(13), Vel(13), Hp(13)))
        .unwrap();
    assert_eq!(
        world.archetype(ids[0]),
        Some(GameMask::VEL | GameMask::HP | GameMask::STUN)
    );
    assert_eq!(
        (changed::<Hp>(&world), changed::<Stun>(&world)),
        (vec![ids[0]], vec![ids[0]])
    );
    assert!(added::<Hp>(&world).is_empty() && added::<Stun>(&world).is_empty());

    // A replaced value keeps the tick it was added at: added since the
    // last clear, it is still added after an exchange.
    world.clear_trackers();
    world.insert(ids[2], (Hp(20), Stun(20))).unwrap();
    world
        .exchange::<(Hp, Stun), _>(ids[2], (Hp(21), Stun(21)))
        .unwrap();
    assert_eq!(
        (added::<Hp>(&world), added::<Stun>(&world)),
        (vec![ids[2]], vec![ids[2]])
    );
}

#[test]
fn exchange_moves_sparse_and_tag_components_in_and_out() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1), Stun(1), Frozen));
    let (Stun(stun), Frozen) = world
        .exchange::<(Stun, Frozen), _>(e, (Vel(3), Mark(4)))
        .unwrap();
    assert_eq!(stun, 1);
    assert_eq!(
        world.archetype(e),
        Some(GameMask::POS | GameMask::VEL | GameMask::MARK)
    );
    assert_eq!(world.get::<Mark>(e), Some(&Mark(4)));

    // Sparse only, on both sides: the entity keeps its row.
    let tables = table_count(&world);
    let (Mark(mark),) = world.exchange::<(Mark,), _>(e, (Stun(5),)).unwrap();
    assert_eq!(mark, 4);
    assert_eq!(world.get::<Stun>(e), Some(&Stun(5)));
    assert!(!world.has::<Mark>(e));
    assert_eq!(table_count(&world), tables);

    // Out of the table and into a sparse set and a tag at once.
    let (Vel(vel),) = world
        .exchange::<(Vel,), _>(e, Stunned(Stun(6), Frozen))
        .unwrap();
    assert_eq!(vel, 3);
    assert_eq!(
        world.archetype(e),
        Some(GameMask::POS | GameMask::STUN | GameMask::FROZEN)
    );
    assert_eq!(world.get::<Stun>(e), Some(&Stun(6)));
    assert_eq!(
        world
            .query_filtered::<Entity, With<Frozen>>()
            .iter()
            .collect::<Vec<_>>(),
        [e]
    );
}

// ------------------------------------------------------------------ drops

#[derive(Debug, PartialEq)]
struct A(Tracked);
#[derive(Debug, PartialEq)]
struct B(Tracked);
#[derive(Debug, PartialEq)]
struct C(Tracked);
type T0 = CountedTag<0>;

#[derive(Schema)]
struct Drops {
    a: A,
    #[ecs(sparse)]
    b: B,
    c: C,
    t0: CountedTag<0>,
}

#[derive(Bundle, Debug, PartialEq)]
struct Ab {
    a: A,
    b: B,
}

#[test]
fn exchange_and_take_drop_every_value_exactly_once() {
    let log = DropLog::new();
    let tags = T0::counts();
    let mut world = World::<Drops>::new();
    let e = world.spawn((A(log.track(1)), B(log.track(2)), C(log.track(3))));
    let other = world.spawn((A(log.track(10)), C(log.track(30))));

    // Replaced (A) and removed (B): handed back, not dropped; C in the new
    // bundle only is overwritten: the old value is dropped, once.
    let old: Ab = world
        .exchange(e, (A(log.track(4)), C(log.track(5)), T0::new()))
        .unwrap();
    assert_eq!(log.dropped(), [3]);
    assert_eq!((old.a.0.id(), old.b.0.id()), (1, 2));
    drop(old);
    assert_eq!(log.dropped_sorted(), [1, 2, 3]);

    // A failed exchange hands its bundle back: nothing is dropped.
    let error = world
        .exchange::<(B,), _>(other, (A(log.track(6)),))
        .unwrap_err();
    assert_eq!(log.count(), 3);
    drop(error.into_bundle());
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 6]);

    // Taken whole: handed over, nothing dropped until the caller drops it.
    let taken: (A, C, T0) = world.take(e).unwrap();
    assert_eq!(log.count(), 4);
    assert_eq!(
        T0::counts().since(tags),
        TagCounts {
            created: 1,
            dropped: 0
        }
    );
    drop(taken);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 6]);
    assert_eq!(
        T0::counts().since(tags),
        TagCounts {
            created: 1,
            dropped: 1
        }
    );

    // The rest go with the world, once each.
    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 6, 10, 30]);
}

/// A component named `S`, as the derive's schema parameter is by default.
#[derive(Clone, Debug, PartialEq)]
struct S(u8);

#[derive(Schema)]
struct Letters {
    s: S,
    pos: Pos,
}

#[derive(Bundle, Clone, Debug, PartialEq)]
struct WithS {
    s: S,
    pos: Pos,
}

#[test]
fn a_derived_bundle_may_hold_a_component_named_like_the_schema_parameter() {
    let mut world = World::<Letters>::new();
    let e = world.spawn(WithS {
        s: S(1),
        pos: Pos(2),
    });
    assert_eq!(
        world.take::<WithS>(e),
        Ok(WithS {
            s: S(1),
            pos: Pos(2)
        })
    );
}
