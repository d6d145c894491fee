//! Behaviour of reaching particular entities: `World::entity` and
//! `World::entity_mut` (one entity, several components).

use ecs::prelude::*;

#[derive(Clone, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq)]
struct Name(String);
#[derive(Clone, Debug, PartialEq)]
struct Frozen;
#[derive(Clone, Debug, PartialEq)]
struct Player;

/// Bits: Pos 0, Vel 1, Name 2, Frozen 3 (tag), Player 4 (tag).
#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    name: Name,
    frozen: Frozen,
    player: Player,
}

fn name(s: &str) -> Name {
    Name(s.to_string())
}

// ------------------------------------------------------------ World::entity

#[test]
fn entity_reads_each_component_of_a_live_entity() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(2), name("a")));
    let b = world.spawn((Pos(10), Vel(20), name("b")));

    let e = world.entity(a).unwrap();
    assert_eq!(e.id(), a);
    assert_eq!(e.get::<Pos>(), Some(&Pos(1)));
    assert_eq!(e.get::<Vel>(), Some(&Vel(2)));
    assert_eq!(e.get::<Name>(), Some(&name("a")));
    let e = world.entity(b).unwrap();
    assert_eq!(e.id(), b);
    assert_eq!(e.get::<Pos>(), Some(&Pos(10)));
    assert_eq!(e.get::<Name>(), Some(&name("b")));
}

#[test]
fn entity_lacking_a_component_gets_none_and_has_false() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Vel(2),));
    let e = world.entity(a).unwrap();
    assert_eq!(e.get::<Pos>(), None);
    assert_eq!(e.get::<Name>(), None);
    assert!(!e.has::<Pos>());
    assert!(e.has::<Vel>());

    let empty = world.spawn(());
    let e = world.entity(empty).unwrap();
    assert_eq!(e.get::<Vel>(), None);
    assert!(e.archetype().is_empty());
}

#[test]
fn entity_of_a_despawned_or_stale_handle_is_none() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    world.despawn(a).unwrap();
    assert!(world.entity(a).is_none());

    // The slot is reused; the old handle must not reach the new entity.
    let b = world.spawn((Pos(2),));
    assert_eq!(b.index(), a.index());
    assert!(world.entity(a).is_none());
    assert_eq!(world.entity(b).unwrap().get::<Pos>(), Some(&Pos(2)));
    assert!(world.entity_mut(a).is_none());
}

#[test]
fn tags_are_seen_by_has_and_get() {
    let mut world = World::<Game>::new();
    let frozen = world.spawn((Pos(1), Frozen));
    let free = world.spawn((Pos(2),));
    let both = world.spawn((Frozen, Player));

    let e = world.entity(frozen).unwrap();
    assert!(e.has::<Frozen>() && !e.has::<Player>());
    assert_eq!(e.get::<Frozen>(), Some(&Frozen));
    assert_eq!(e.get::<Player>(), None);

    let e = world.entity(free).unwrap();
    assert!(!e.has::<Frozen>());
    assert_eq!(e.get::<Frozen>(), None);

    let e = world.entity(both).unwrap();
    assert_eq!(
        (e.get::<Frozen>(), e.get::<Player>()),
        (Some(&Frozen), Some(&Player))
    );
}

#[test]
fn archetype_is_the_entity_s_mask_and_follows_migrations() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Frozen));
    assert_eq!(
        world.entity(a).unwrap().archetype(),
        GameMask::POS | GameMask::FROZEN
    );
    world.insert(a, (Vel(3),)).unwrap();
    let e = world.entity(a).unwrap();
    assert_eq!(
        e.archetype(),
        GameMask::POS | GameMask::VEL | GameMask::FROZEN
    );
    assert_eq!(Some(e.archetype()), world.archetype(a));
    assert_eq!(e.get::<Vel>(), Some(&Vel(3)));
}

#[test]
fn entity_reads_its_own_row_after_another_entity_leaves_the_table() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let b = world.spawn((Pos(2), Vel(2)));
    let c = world.spawn((Pos(3), Vel(3)));
    // `c` is swapped into `a`'s row 0.
    world.despawn(a).unwrap();
    assert_eq!(world.entity(c).unwrap().get::<Pos>(), Some(&Pos(3)));
    assert_eq!(world.entity(b).unwrap().get::<Vel>(), Some(&Vel(2)));
    // `b` moves to another table, `c` stays.
    world.insert(b, (Frozen,)).unwrap();
    assert_eq!(world.entity(b).unwrap().get::<Pos>(), Some(&Pos(2)));
    assert_eq!(world.entity(c).unwrap().get::<Vel>(), Some(&Vel(3)));
}

#[test]
fn entity_refs_are_copy_and_their_references_outlive_them() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), name("a")));
    let b = world.spawn((Pos(2),));

    let (pos, label) = {
        let e = world.entity(a).unwrap();
        let copy = e;
        (e.get::<Pos>().unwrap(), copy.get::<Name>().unwrap())
    };
    // Several views and a query, all reading at once.
    let other = world.entity(b).unwrap();
    let count = world.query::<&Pos>().count();
    assert_eq!(
        (pos, label, other.get::<Pos>(), count),
        (&Pos(1), &name("a"), Some(&Pos(2)), 2)
    );
}

#[test]
fn debug_names_the_entity_and_its_components() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), name("a"), Player));
    let none = world.spawn(());
    assert_eq!(
        format!("{:?}", world.entity(a).unwrap()),
        format!("EntityRef({a:?}: Pos, Name, Player)")
    );
    assert_eq!(
        format!("{:?}", world.entity(none).unwrap()),
        format!("EntityRef({none:?}: no components)")
    );
    assert_eq!(
        format!("{:?}", world.entity_mut(a).unwrap()),
        format!("EntityMut({a:?}: Pos, Name, Player)")
    );
}

#[test]
fn entity_mut_writes_the_entity_s_own_components() {
    let mut world = World::<Game>::new();
    // `b` first, in the same table: `a` is at row 1.
    let b = world.spawn((Pos(100), Vel(500), Frozen));
    let a = world.spawn((Pos(1), Vel(5), Frozen));

    let mut e = world.entity_mut(a).unwrap();
    assert_eq!(e.id(), a);
    let step = e.get::<Vel>().unwrap().0;
    e.get_mut::<Pos>().unwrap().0 += step;
    assert!(e.get_mut::<Name>().is_none());
    assert_eq!(e.get_mut::<Frozen>(), Some(&mut Frozen));
    assert!(e.has::<Frozen>() && !e.has::<Player>());
    assert_eq!(
        e.archetype(),
        GameMask::POS | GameMask::VEL | GameMask::FROZEN
    );
    let vel = e.into_mut::<Vel>().unwrap();
    vel.0 = 0;

    assert_eq!(world.get::<Pos>(a), Some(&Pos(6)));
    assert_eq!(world.get::<Vel>(a), Some(&Vel(0)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(100)));
    assert_eq!(world.get::<Vel>(b), Some(&Vel(500)));

    let e: EntityRef<'_, Game> = world.entity_mut(b).unwrap().into();
    assert_eq!(e.get::<Vel>(), Some(&Vel(500)));
}
