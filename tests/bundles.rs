//! Named bundles (`#[derive(Bundle)]`) and `World::take`.
//!
//! A derived bundle goes wherever a tuple does (spawn, batches, insert,
//! remove, commands), nested ones included; `take` moves an entity out of a
//! world only when nothing would be lost.

use ecs::prelude::*;
use ecs::TakeError;

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
    use ecs::Bundle;
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
        Err(NoSuchEntity(e)),
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
    buffer.spawn(everything(4));
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
