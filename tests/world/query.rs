//! Behaviour of queries: every item kind, filters, every way to iterate, point
//! lookups, counts, and the matched-table cache.

use ecs::prelude::*;
use ecs::query::QueryEntityError;
use ecs::query::QueryFilter;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq)]
struct Acc(i64);
#[derive(Clone, Debug, PartialEq)]
struct Hp(u32);
#[derive(Clone, Debug, PartialEq)]
struct Name(String);
#[derive(Clone, Debug, PartialEq)]
struct Frozen;
#[derive(Clone, Debug, PartialEq)]
struct Player;

/// Bits: Pos 0, Vel 1, Acc 2, Hp 3, Name 4, Frozen 5 (tag), Player 6 (tag).
#[derive(Schema)]
struct Sim {
    pos: Pos,
    vel: Vel,
    acc: Acc,
    hp: Hp,
    name: Name,
    frozen: Frozen,
    player: Player,
}

fn name(s: &str) -> Name {
    Name(s.to_string())
}

/// Entities of seven archetypes (six tables besides the empty one, which
/// also gets an entity).
struct Fixture {
    world: World<Sim>,
    /// `(Pos(0), Vel(1))`
    e0: Entity,
    /// `(Pos(10), Vel(11), Frozen)`
    e1: Entity,
    /// `(Pos(20),)`
    e2: Entity,
    /// `(Pos(30), Vel(31), Acc(32))`
    e3: Entity,
    /// `(Vel(41), Player)`
    e4: Entity,
    /// every component: `Pos(50), Vel(51), Acc(52), Hp(53), Name("five")`, both tags
    e5: Entity,
    /// no component
    e6: Entity,
    /// `(Pos(70), Vel(71))`, the table of `e0`
    e7: Entity,
}

impl Fixture {
    fn new() -> Self {
        let mut world = World::<Sim>::new();
        let e0 = world.spawn((Pos(0), Vel(1)));
        let e1 = world.spawn((Pos(10), Vel(11), Frozen));
        let e2 = world.spawn((Pos(20),));
        let e3 = world.spawn((Pos(30), Vel(31), Acc(32)));
        let e4 = world.spawn((Vel(41), Player));
        let e5 = world.spawn((
            Pos(50),
            Vel(51),
            Acc(52),
            Hp(53),
            name("five"),
            Frozen,
            Player,
        ));
        let e6 = world.spawn(());
        let e7 = world.spawn((Pos(70), Vel(71)));
        Fixture {
            world,
            e0,
            e1,
            e2,
            e3,
            e4,
            e5,
            e6,
            e7,
        }
    }

    fn all(&self) -> [Entity; 8] {
        [
            self.e0, self.e1, self.e2, self.e3, self.e4, self.e5, self.e6, self.e7,
        ]
    }
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

fn entities<F: QueryFilter<Sim>>(world: &mut World<Sim>) -> Vec<Entity> {
    sorted(world.query_filtered::<Entity, F>().iter().collect())
}

// ---------------------------------------------------------------- item kinds

#[test]
fn shared_reference_items_yield_every_entity_with_the_component() {
    let f = Fixture::new();
    let query = f.world.query::<&Pos>();
    let values = sorted(query.iter().map(|p| p.0).collect());
    assert_eq!(values, [0, 10, 20, 30, 50, 70]);
}

#[test]
fn entity_items_pair_each_value_with_its_owner() {
    let f = Fixture::new();
    let pairs: BTreeMap<Entity, i64> = f
        .world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(e, p)| (e, p.0))
        .collect();
    let expected: BTreeMap<Entity, i64> = [
        (f.e0, 0),
        (f.e1, 10),
        (f.e2, 20),
        (f.e3, 30),
        (f.e5, 50),
        (f.e7, 70),
    ]
    .into_iter()
    .collect();
    assert_eq!(pairs, expected);
}

#[test]
fn entity_items_carry_the_generation_of_reused_slots() {
    // Tables keep slot indices; the generation comes from the slot, so a
    // reused slot must yield the new handle, never the dead one.
    let mut world = World::<Sim>::new();
    let first: Vec<Entity> = (0..6).map(|i| world.spawn((Pos(i),))).collect();
    for &e in &first[..4] {
        world.despawn(e).unwrap();
    }
    let second: Vec<Entity> = (10..14).map(|i| world.spawn((Pos(i), Vel(0)))).collect();
    assert!(second.iter().all(|e| e.generation().get() == 2));
    let mut expected: BTreeMap<Entity, i64> = first[4..].iter().copied().zip([4, 5]).collect();
    expected.extend(second.iter().copied().zip(10..14));
    let mut iterated = BTreeMap::new();
    world
        .query::<(Entity, &Pos)>()
        .for_each(|(e, p)| assert!(iterated.insert(e, p.0).is_none()));
    assert_eq!(iterated, expected);
    let collected: BTreeMap<Entity, i64> = world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(e, p)| (e, p.0))
        .collect();
    assert_eq!(collected, expected);
    assert_eq!(
        sorted(world.iter().collect()),
        sorted(expected.keys().copied().collect())
    );
    for &e in &first[..4] {
        assert!(!world.is_alive(e));
    }
}

#[test]
fn entity_alone_matches_every_entity_including_those_without_components() {
    let f = Fixture::new();
    let all = sorted(f.world.query::<Entity>().iter().collect());
    assert_eq!(all, sorted(f.all().to_vec()));
    assert_eq!(f.world.query::<()>().iter().count(), 8);
}

#[test]
fn mutable_reference_items_write_through() {
    let mut f = Fixture::new();
    for pos in f.world.query_mut::<&mut Pos>().iter_mut() {
        pos.0 += 1;
    }
    for (e, expected) in [
        (f.e0, 1),
        (f.e1, 11),
        (f.e2, 21),
        (f.e3, 31),
        (f.e5, 51),
        (f.e7, 71),
    ] {
        assert_eq!(f.world.get::<Pos>(e), Some(&Pos(expected)));
    }
    assert_eq!(f.world.get::<Pos>(f.e4), None, "not given a Pos");
}

#[test]
fn two_mutable_items_of_different_components() {
    let mut f = Fixture::new();
    f.world
        .query_mut::<(&mut Pos, &mut Vel, &Acc)>()
        .for_each_mut(|(p, v, a)| {
            v.0 += a.0;
            p.0 += v.0;
        });
    assert_eq!(f.world.get::<Vel>(f.e3), Some(&Vel(63)));
    assert_eq!(f.world.get::<Pos>(f.e3), Some(&Pos(93)));
    assert_eq!(f.world.get::<Vel>(f.e5), Some(&Vel(103)));
    assert_eq!(f.world.get::<Pos>(f.e5), Some(&Pos(153)));
    assert_eq!(f.world.get::<Pos>(f.e0), Some(&Pos(0)), "no Acc: untouched");
}

#[test]
fn optional_shared_items_are_none_where_the_component_is_absent() {
    let f = Fixture::new();
    let items: BTreeMap<Entity, Option<i64>> = f
        .world
        .query::<(Entity, Option<&Vel>)>()
        .iter()
        .map(|(e, v)| (e, v.map(|v| v.0)))
        .collect();
    let expected: BTreeMap<Entity, Option<i64>> = [
        (f.e0, Some(1)),
        (f.e1, Some(11)),
        (f.e2, None),
        (f.e3, Some(31)),
        (f.e4, Some(41)),
        (f.e5, Some(51)),
        (f.e6, None),
        (f.e7, Some(71)),
    ]
    .into_iter()
    .collect();
    assert_eq!(items, expected);
}

#[test]
fn optional_items_narrowed_by_a_required_item() {
    let f = Fixture::new();
    let items: BTreeMap<Entity, (i64, Option<i64>)> = f
        .world
        .query::<(Entity, &Pos, Option<&Acc>)>()
        .iter()
        .map(|(e, p, a)| (e, (p.0, a.map(|a| a.0))))
        .collect();
    let expected: BTreeMap<Entity, (i64, Option<i64>)> = [
        (f.e0, (0, None)),
        (f.e1, (10, None)),
        (f.e2, (20, None)),
        (f.e3, (30, Some(32))),
        (f.e5, (50, Some(52))),
        (f.e7, (70, None)),
    ]
    .into_iter()
    .collect();
    assert_eq!(items, expected);
}

#[test]
fn optional_mutable_items_write_where_present() {
    let mut f = Fixture::new();
    let mut seen = 0;
    let mut present = 0;
    for (pos, vel) in f.world.query_mut::<(&Pos, Option<&mut Vel>)>().iter_mut() {
        seen += 1;
        if let Some(vel) = vel {
            present += 1;
            vel.0 = -pos.0;
        }
    }
    assert_eq!((seen, present), (6, 5));
    assert_eq!(f.world.get::<Vel>(f.e0), Some(&Vel(0)));
    assert_eq!(f.world.get::<Vel>(f.e1), Some(&Vel(-10)));
    assert_eq!(f.world.get::<Vel>(f.e7), Some(&Vel(-70)));
    assert_eq!(
        f.world.get::<Vel>(f.e4),
        Some(&Vel(41)),
        "no Pos: not matched"
    );
    assert!(!f.world.has::<Vel>(f.e2), "an Option item inserts nothing");

    f.world.query_mut::<Option<&mut Hp>>().for_each_mut(|hp| {
        if let Some(hp) = hp {
            hp.0 *= 2;
        }
    });
    assert_eq!(f.world.get::<Hp>(f.e5), Some(&Hp(106)));
}

#[test]
fn has_items_tell_tags_and_data_components_apart_per_entity() {
    let f = Fixture::new();
    let items: BTreeMap<Entity, (bool, bool, bool)> = f
        .world
        .query::<(Entity, Has<Frozen>, Has<Vel>, Has<Player>)>()
        .iter()
        .map(|(e, frozen, vel, player)| (e, (frozen, vel, player)))
        .collect();
    let expected: BTreeMap<Entity, (bool, bool, bool)> = [
        (f.e0, (false, true, false)),
        (f.e1, (true, true, false)),
        (f.e2, (false, false, false)),
        (f.e3, (false, true, false)),
        (f.e4, (false, true, true)),
        (f.e5, (true, true, true)),
        (f.e6, (false, false, false)),
        (f.e7, (false, true, false)),
    ]
    .into_iter()
    .collect();
    assert_eq!(items, expected);
    // Has alone matches everything and is a plain bool per entity.
    let frozen = f.world.query::<Has<Frozen>>().iter().filter(|&b| b).count();
    assert_eq!(frozen, 2);
}

#[test]
fn tuples_of_eight_items() {
    let mut f = Fixture::new();
    type Eight<'a> = (
        Entity,
        &'a mut Pos,
        &'a Vel,
        Option<&'a Acc>,
        Has<Frozen>,
        Option<&'a mut Hp>,
        Has<Player>,
        Option<&'a Name>,
    );
    let mut rows = Vec::new();
    for (e, pos, vel, acc, frozen, hp, player, name) in f.world.query_mut::<Eight>().iter_mut() {
        pos.0 += 1000;
        if let Some(hp) = hp {
            hp.0 += 1;
        }
        rows.push((
            e,
            pos.0,
            vel.0,
            acc.map(|a| a.0),
            frozen,
            player,
            name.map(|n| n.0.clone()),
        ));
    }
    rows.sort();
    let mut expected = vec![
        (f.e0, 1000, 1, None, false, false, None),
        (f.e1, 1010, 11, None, true, false, None),
        (f.e3, 1030, 31, Some(32), false, false, None),
        (
            f.e5,
            1050,
            51,
            Some(52),
            true,
            true,
            Some("five".to_string()),
        ),
        (f.e7, 1070, 71, None, false, false, None),
    ];
    expected.sort();
    assert_eq!(rows, expected);
    assert_eq!(f.world.get::<Hp>(f.e5), Some(&Hp(54)));
    assert_eq!(
        f.world.get::<Pos>(f.e2),
        Some(&Pos(20)),
        "no Vel: untouched"
    );
}

#[test]
fn tuples_of_two_to_seven_items() {
    let f = Fixture::new();
    assert_eq!(f.world.query::<(&Pos, &Vel)>().count(), 5);
    assert_eq!(f.world.query::<(&Pos, &Vel, &Acc)>().count(), 2);
    assert_eq!(f.world.query::<(&Pos, &Vel, &Acc, &Hp)>().count(), 1);
    assert_eq!(f.world.query::<(&Pos, &Vel, &Acc, &Hp, &Name)>().count(), 1);
    assert_eq!(
        f.world
            .query::<(Entity, &Pos, &Vel, &Acc, &Hp, &Name)>()
            .iter()
            .map(|t| t.0)
            .collect::<Vec<_>>(),
        [f.e5]
    );
    let seven: Vec<(i64, i64, i64, u32, String, bool, bool)> = f
        .world
        .query::<(&Pos, &Vel, &Acc, &Hp, &Name, Has<Frozen>, Has<Player>)>()
        .iter()
        .map(|(p, v, a, h, n, fr, pl)| (p.0, v.0, a.0, h.0, n.0.clone(), fr, pl))
        .collect();
    assert_eq!(seven, [(50, 51, 52, 53, "five".to_string(), true, true)]);
}

#[test]
fn tuples_of_twelve_items() {
    let f = Fixture::new();
    type Twelve<'a> = (
        Entity,
        &'a Pos,
        &'a Vel,
        &'a Acc,
        &'a Hp,
        &'a Name,
        Has<Frozen>,
        Has<Player>,
        Option<&'a Pos>,
        Option<&'a Vel>,
        Has<Pos>,
        Option<&'a Name>,
    );
    let query = f.world.query::<Twelve>();
    let items: Vec<_> = query.iter().collect();
    assert_eq!(items.len(), 1);
    let (e, p, v, a, h, n, fr, pl, op, ov, hp, on) = items[0];
    assert_eq!(e, f.e5);
    assert_eq!((p.0, v.0, a.0, h.0, n.0.as_str()), (50, 51, 52, 53, "five"));
    assert!(fr && pl && hp);
    assert_eq!(op, Some(&Pos(50)));
    assert_eq!(ov, Some(&Vel(51)));
    assert_eq!(on, Some(&name("five")));
}

#[test]
fn nested_tuples_take_more_than_twelve_items() {
    let mut f = Fixture::new();
    type Inner<'a> = (&'a mut Pos, &'a Vel, &'a Acc, &'a Hp);
    type Fifteen<'a> = (
        Entity,
        Inner<'a>,
        (&'a Name, Has<Frozen>, Has<Player>),
        (Option<&'a Acc>, (Option<&'a Vel>, Has<Pos>)),
        Option<&'a Name>,
        Has<Acc>,
        Has<Hp>,
    );
    let mut query = f.world.query_mut::<Fifteen>();
    let mut seen = Vec::new();
    query.for_each_mut(
        |(e, (p, v, a, h), (n, fr, pl), (_, (ov, hp)), on, ha, hh)| {
            p.0 += v.0 + a.0 + i64::from(h.0);
            seen.push((
                e,
                n.0.clone(),
                fr,
                pl,
                ov.map(|v| v.0),
                hp,
                on.is_some(),
                ha,
                hh,
            ));
        },
    );
    assert_eq!(
        seen,
        [(
            f.e5,
            "five".to_string(),
            true,
            true,
            Some(51),
            true,
            true,
            true,
            true
        )]
    );
    assert_eq!(f.world.get::<Pos>(f.e5), Some(&Pos(50 + 51 + 52 + 53)));
}

// ---------------------------------------------------------------- filters

#[test]
fn with_and_without_a_tag() {
    let mut f = Fixture::new();
    assert_eq!(
        entities::<With<Frozen>>(&mut f.world),
        sorted(vec![f.e1, f.e5])
    );
    assert_eq!(
        entities::<Without<Frozen>>(&mut f.world),
        sorted(vec![f.e0, f.e2, f.e3, f.e4, f.e6, f.e7])
    );
    assert_eq!(
        entities::<With<Player>>(&mut f.world),
        sorted(vec![f.e4, f.e5])
    );
}

#[test]
fn with_and_without_a_data_component() {
    let mut f = Fixture::new();
    assert_eq!(
        entities::<With<Acc>>(&mut f.world),
        sorted(vec![f.e3, f.e5])
    );
    assert_eq!(
        entities::<Without<Vel>>(&mut f.world),
        sorted(vec![f.e2, f.e6])
    );
    let still: Vec<i64> = sorted(
        f.world
            .query_filtered::<&Pos, Without<Vel>>()
            .iter()
            .map(|p| p.0)
            .collect(),
    );
    assert_eq!(still, [20]);
}

#[test]
fn a_filter_that_repeats_a_fetched_component_still_requires_it() {
    let mut f = Fixture::new();
    let with_pos = sorted(vec![f.e0, f.e1, f.e2, f.e3, f.e5, f.e7]);
    let shared: Vec<(Entity, i64)> = f
        .world
        .query_filtered::<(Entity, &Pos), With<Pos>>()
        .iter()
        .map(|(e, p)| (e, p.0))
        .collect();
    assert_eq!(sorted(shared.iter().map(|&(e, _)| e).collect()), with_pos);
    for (e, p) in shared {
        assert_eq!(f.world.get::<Pos>(e), Some(&Pos(p)));
    }
    let mut exclusive = Vec::new();
    f.world
        .query_filtered_mut::<(Entity, &mut Pos), (With<Pos>, With<Pos>)>()
        .for_each_mut(|(e, p)| {
            p.0 += 1;
            exclusive.push(e);
        });
    assert_eq!(sorted(exclusive), with_pos);
    assert_eq!(f.world.get::<Pos>(f.e2), Some(&Pos(21)));
    assert_eq!(
        f.world.query_filtered::<&Pos, With<Pos>>().iter().count(),
        6
    );
}

#[test]
fn tuples_of_filters_must_all_hold() {
    let mut f = Fixture::new();
    assert_eq!(
        entities::<(With<Pos>, With<Vel>, Without<Frozen>)>(&mut f.world),
        sorted(vec![f.e0, f.e3, f.e7])
    );
    assert_eq!(
        entities::<(With<Frozen>, With<Player>)>(&mut f.world),
        [f.e5]
    );
    assert_eq!(
        entities::<(Without<Pos>, Without<Vel>)>(&mut f.world),
        [f.e6]
    );
    assert_eq!(entities::<()>(&mut f.world), sorted(f.all().to_vec()));
    let movers: Vec<(i64, i64)> = sorted(
        f.world
            .query_filtered::<(&Pos, &Vel), (Without<Frozen>, Without<Acc>)>()
            .iter()
            .map(|(p, v)| (p.0, v.0))
            .collect(),
    );
    assert_eq!(movers, [(0, 1), (70, 71)]);
}

/// The entities filter `F` selects, and those whose archetype satisfies
/// `keep`, worked out without queries: they must be the same.
fn selects<F: QueryFilter<Sim>>(world: &mut World<Sim>, keep: impl Fn(SimMask) -> bool) {
    let expected: Vec<Entity> = sorted(
        world
            .iter()
            .filter(|&e| keep(world.archetype(e).unwrap()))
            .collect(),
    );
    assert_eq!(
        entities::<F>(world),
        expected,
        "{}",
        std::any::type_name::<F>()
    );
}

#[test]
fn or_matches_entities_that_match_any_branch_each_once() {
    let mut f = Fixture::new();
    assert_eq!(
        entities::<Or<(With<Acc>, With<Player>)>>(&mut f.world),
        sorted(vec![f.e3, f.e4, f.e5])
    );
    assert_eq!(
        entities::<Or<(With<Frozen>, Without<Vel>)>>(&mut f.world),
        sorted(vec![f.e1, f.e2, f.e5, f.e6])
    );
    assert_eq!(
        entities::<Or<(Without<Pos>, Without<Vel>)>>(&mut f.world),
        sorted(vec![f.e2, f.e4, f.e6])
    );
    // One branch is that branch; the same branch twice is still that branch.
    assert_eq!(
        entities::<Or<(With<Acc>,)>>(&mut f.world),
        sorted(vec![f.e3, f.e5])
    );
    assert_eq!(
        entities::<Or<(With<Acc>, With<Acc>)>>(&mut f.world),
        sorted(vec![f.e3, f.e5])
    );
}

#[test]
fn or_branches_can_be_tuples_and_nested_ors() {
    let mut f = Fixture::new();
    assert_eq!(
        entities::<Or<((With<Pos>, Without<Vel>), (With<Player>, Without<Frozen>))>>(&mut f.world),
        sorted(vec![f.e2, f.e4])
    );
    assert_eq!(
        entities::<Or<(With<Acc>, Or<(With<Frozen>, Without<Pos>)>)>>(&mut f.world),
        sorted(vec![f.e1, f.e3, f.e4, f.e5, f.e6])
    );
    let has = |m: SimMask, c: SimMask| m.contains(c);
    selects::<Or<(With<Hp>, (Without<Acc>, Or<(With<Player>, Without<Vel>)>))>>(
        &mut f.world,
        |m| {
            has(m, SimMask::HP)
                || (!has(m, SimMask::ACC) && (has(m, SimMask::PLAYER) || !has(m, SimMask::VEL)))
        },
    );
    selects::<Or<(Or<(With<Name>, With<Frozen>)>, Or<(Without<Pos>,)>)>>(&mut f.world, |m| {
        has(m, SimMask::NAME) || has(m, SimMask::FROZEN) || !has(m, SimMask::POS)
    });
}

#[test]
fn or_inside_a_tuple_must_hold_with_the_rest_of_the_tuple() {
    let mut f = Fixture::new();
    assert_eq!(
        entities::<(Or<(With<Acc>, With<Frozen>)>, Without<Player>)>(&mut f.world),
        sorted(vec![f.e1, f.e3])
    );
    // Two `Or`s in a tuple: each must hold.
    assert_eq!(
        entities::<(
            Or<(With<Acc>, With<Player>)>,
            Or<(With<Frozen>, Without<Pos>)>
        )>(&mut f.world),
        sorted(vec![f.e4, f.e5])
    );
    let has = |m: SimMask, c: SimMask| m.contains(c);
    selects::<(
        Or<(With<Pos>, With<Player>)>,
        Or<(Without<Vel>, With<Acc>, With<Frozen>)>,
        Without<Hp>,
    )>(&mut f.world, |m| {
        (has(m, SimMask::POS) || has(m, SimMask::PLAYER))
            && (!has(m, SimMask::VEL) || has(m, SimMask::ACC) || has(m, SimMask::FROZEN))
            && !has(m, SimMask::HP)
    });
}

#[test]
fn or_filters_narrow_the_items_required_components() {
    let mut f = Fixture::new();
    // `&Pos` is required whatever the branch: e4 (a player without Pos) is out.
    let positions: Vec<i64> = sorted(
        f.world
            .query_filtered::<&Pos, Or<(With<Acc>, With<Player>)>>()
            .iter()
            .map(|p| p.0)
            .collect(),
    );
    assert_eq!(positions, [30, 50]);
    // A branch that contradicts the items drops out; the others stay.
    let positions: Vec<i64> = sorted(
        f.world
            .query_filtered::<&Pos, Or<(Without<Pos>, With<Acc>)>>()
            .iter()
            .map(|p| p.0)
            .collect(),
    );
    assert_eq!(positions, [30, 50]);
    // Writing through an `Or` touches exactly the matching entities.
    f.world
        .query_filtered_mut::<&mut Pos, Or<(With<Frozen>, Without<Vel>)>>()
        .for_each_mut(|p| p.0 = -p.0);
    let positions: Vec<i64> = sorted(f.world.query::<&Pos>().iter().map(|p| p.0).collect());
    assert_eq!(positions, [-50, -20, -10, 0, 30, 70]);
}

#[test]
fn filtered_mutation_touches_only_matching_entities() {
    let mut f = Fixture::new();
    f.world
        .query_filtered_mut::<(&mut Pos, &Vel), Without<Frozen>>()
        .for_each_mut(|(p, v)| p.0 += v.0);
    assert_eq!(f.world.get::<Pos>(f.e0), Some(&Pos(1)));
    assert_eq!(f.world.get::<Pos>(f.e1), Some(&Pos(10)), "frozen");
    assert_eq!(f.world.get::<Pos>(f.e2), Some(&Pos(20)), "no Vel");
    assert_eq!(f.world.get::<Pos>(f.e3), Some(&Pos(61)));
    assert_eq!(f.world.get::<Pos>(f.e5), Some(&Pos(50)), "frozen");
    assert_eq!(f.world.get::<Pos>(f.e7), Some(&Pos(141)));
}

// ---------------------------------------------------------------- ways to iterate

#[test]
fn iter_and_for_each_and_into_iterator_agree() {
    let f = Fixture::new();
    let query = f.world.query::<(Entity, &Pos, Option<&Vel>)>();
    let by_iter: Vec<(Entity, i64, Option<i64>)> = query
        .iter()
        .map(|(e, p, v)| (e, p.0, v.map(|v| v.0)))
        .collect();
    let mut by_for_each = Vec::new();
    query.for_each(|(e, p, v)| by_for_each.push((e, p.0, v.map(|v| v.0))));
    let mut by_for = Vec::new();
    for (e, p, v) in &query {
        by_for.push((e, p.0, v.map(|v| v.0)));
    }
    assert_eq!(by_iter.len(), 6);
    assert_eq!(by_iter, by_for_each);
    assert_eq!(by_iter, by_for);
}

#[test]
fn iter_mut_and_for_each_mut_and_mutable_into_iterator_agree() {
    let mut f = Fixture::new();
    let mut query = f.world.query_mut::<(Entity, &mut Vel)>();
    let mut by_iter_mut = Vec::new();
    for (e, v) in query.iter_mut() {
        v.0 += 1;
        by_iter_mut.push((e, v.0));
    }
    let mut by_for_each_mut = Vec::new();
    query.for_each_mut(|(e, v)| {
        v.0 += 1;
        by_for_each_mut.push((e, v.0 - 1));
    });
    let mut by_for = Vec::new();
    for (e, v) in &mut query {
        v.0 += 1;
        by_for.push((e, v.0 - 2));
    }
    assert_eq!(by_iter_mut.len(), 6);
    assert_eq!(by_iter_mut, by_for_each_mut);
    assert_eq!(by_iter_mut, by_for);
    drop(query);
    assert_eq!(f.world.get::<Vel>(f.e4), Some(&Vel(44)));
    assert_eq!(f.world.get::<Vel>(f.e0), Some(&Vel(4)));
}

#[test]
fn read_only_queries_can_also_be_iterated_mutably() {
    let f = Fixture::new();
    let mut query = f.world.query::<(Entity, &Pos)>();
    let shared: Vec<Entity> = query.iter().map(|(e, _)| e).collect();
    let exclusive: Vec<Entity> = query.iter_mut().map(|(e, _)| e).collect();
    assert_eq!(shared, exclusive);
    let mut n = 0;
    query.for_each_mut(|_| n += 1);
    assert_eq!(n, 6);
}

#[test]
fn iteration_yields_values_that_agree_with_world_get() {
    let f = Fixture::new();
    let items: Vec<(Entity, i64, i64)> = f
        .world
        .query::<(Entity, &Pos, &Vel)>()
        .iter()
        .map(|(e, p, v)| (e, p.0, v.0))
        .collect();
    for (e, p, v) in items {
        assert_eq!(f.world.get::<Pos>(e), Some(&Pos(p)));
        assert_eq!(f.world.get::<Vel>(e), Some(&Vel(v)));
    }
}

/// The items of `iter` taken one `next()` at a time (a `for` loop calls
/// `next`, where `collect` would fold).
fn one_by_one<I: Iterator>(iter: I) -> Vec<I::Item> {
    let mut items = Vec::new();
    for item in iter {
        items.push(item);
    }
    items
}

#[test]
fn folding_a_query_iterator_resumes_where_next_stopped() {
    // `fold` (behind `for_each`, `sum`, `collect`) runs table by table; after
    // some `next()` calls it must carry on from the row reached, mid-table.
    let mut f = Fixture::new();
    let query = f.world.query::<&Vel>();
    let all: Vec<i64> = one_by_one(query.iter()).iter().map(|v| v.0).collect();
    assert_eq!(all.len(), 6);
    for taken in 0..=all.len() {
        let mut iter = query.iter();
        let mut seen: Vec<i64> = iter.by_ref().take(taken).map(|v| v.0).collect();
        seen = iter.fold(seen, |mut seen, v| {
            seen.push(v.0);
            seen
        });
        assert_eq!(seen, all, "after {taken} next() calls");
    }
    drop(query);

    let order: Vec<Entity> = one_by_one(
        f.world
            .query_mut::<(Entity, &mut Pos, Option<&Vel>)>()
            .iter_mut(),
    )
    .iter()
    .map(|(e, ..)| *e)
    .collect();
    assert_eq!(order.len(), 6);
    for taken in 0..=order.len() {
        let mut f = Fixture::new();
        let mut query = f.world.query_mut::<(Entity, &mut Pos, Option<&Vel>)>();
        let mut iter = query.iter_mut();
        let first: Vec<Entity> = iter.by_ref().take(taken).map(|(e, ..)| e).collect();
        let mut rest = Vec::new();
        iter.for_each(|(e, pos, vel)| {
            pos.0 += vel.map_or(1000, |v| v.0);
            rest.push(e);
        });
        assert_eq!(
            [first.clone(), rest.clone()].concat(),
            order,
            "after {taken}"
        );
        drop(query);
        // Only the folded entities changed.
        let untouched = Fixture::new();
        for &e in &first {
            assert_eq!(f.world.get::<Pos>(e), untouched.world.get::<Pos>(e));
        }
        for &e in &rest {
            let before = untouched.world.get::<Pos>(e).unwrap().0;
            let step = f.world.get::<Vel>(e).map_or(1000, |v| v.0);
            assert_eq!(
                f.world.get::<Pos>(e),
                Some(&Pos(before + step)),
                "after {taken}"
            );
        }
    }
}

#[test]
fn exact_size_len_counts_down_across_tables() {
    let mut f = Fixture::new();
    let query = f.world.query::<&Vel>();
    let mut iter = query.iter();
    assert_eq!(iter.len(), 6);
    for remaining in (0..6).rev() {
        assert!(iter.next().is_some());
        assert_eq!(iter.len(), remaining);
        assert_eq!(iter.size_hint(), (remaining, Some(remaining)));
    }
    assert!(iter.next().is_none());
    assert_eq!(iter.len(), 0);
    drop(query);
    let mut query = f.world.query_mut::<(Entity, &mut Pos)>();
    let mut iter = query.iter_mut();
    assert_eq!(iter.len(), 6);
    iter.next();
    iter.next();
    assert_eq!(iter.len(), 4);
    assert_eq!(iter.count(), 4);
}

// ---------------------------------------------------------------- get, count

#[test]
fn get_returns_the_item_of_a_matching_entity() {
    let f = Fixture::new();
    let query = f.world.query::<(Entity, &Pos, Has<Frozen>)>();
    assert_eq!(query.get(f.e1), Ok((f.e1, &Pos(10), true)));
    assert_eq!(query.get(f.e7), Ok((f.e7, &Pos(70), false)));
    assert!(query.contains(f.e1));
}

#[test]
fn get_says_whether_an_entity_does_not_match_or_is_dead() {
    use ecs::query::QueryEntityError::{DoesNotMatch, NoSuchEntity};
    let mut f = Fixture::new();
    let (e1, e2, e4, e6) = (f.e1, f.e2, f.e4, f.e6);
    f.world.despawn(e2).unwrap();
    let stale = e2;
    let reused = f.world.spawn((Pos(99),));
    assert_eq!(reused.index(), stale.index());

    let query = f.world.query::<&Pos>();
    assert_eq!(query.get(e4), Err(DoesNotMatch(e4)), "lacks Pos");
    assert_eq!(query.get(e6), Err(DoesNotMatch(e6)), "no components");
    assert_eq!(query.get(stale), Err(NoSuchEntity(stale)), "stale handle");
    assert!(!query.contains(stale));
    assert_eq!(query.get(reused), Ok(&Pos(99)));
    drop(query);

    let query = f.world.query_filtered::<&Pos, Without<Frozen>>();
    assert_eq!(query.get(e1), Err(DoesNotMatch(e1)), "filtered out");
    assert!(!query.contains(e1));
    drop(query);

    f.world.despawn(e1).unwrap();
    assert_eq!(
        f.world.query::<&Pos>().get(e1),
        Err(NoSuchEntity(e1)),
        "despawned"
    );
}

#[test]
fn get_mut_writes_to_the_entity_and_says_why_it_cannot() {
    use ecs::query::QueryEntityError::{DoesNotMatch, NoSuchEntity};
    let mut f = Fixture::new();
    let (e0, e3, e4) = (f.e0, f.e3, f.e4);
    let mut query = f.world.query_mut::<(&mut Pos, Option<&Acc>)>();
    {
        let (pos, acc) = query.get_mut(e3).unwrap();
        assert_eq!(acc, Some(&Acc(32)));
        pos.0 = -3;
    }
    {
        let (pos, acc) = query.get_mut(e0).unwrap();
        assert_eq!(acc, None);
        pos.0 = -100;
    }
    assert_eq!(query.get_mut(e4).err(), Some(DoesNotMatch(e4)));
    drop(query);
    assert_eq!(f.world.get::<Pos>(e3), Some(&Pos(-3)));
    assert_eq!(f.world.get::<Pos>(e0), Some(&Pos(-100)));
    assert_eq!(f.world.get::<Pos>(f.e7), Some(&Pos(70)));
    f.world.despawn(e3).unwrap();
    assert_eq!(
        f.world
            .query_mut::<(&mut Pos, Option<&Acc>)>()
            .get_mut(e3)
            .err(),
        Some(NoSuchEntity(e3))
    );
}

#[test]
fn count_and_is_empty() {
    let mut f = Fixture::new();
    assert_eq!(f.world.query::<&Pos>().count(), 6);
    assert_eq!(f.world.query::<&Name>().count(), 1);
    assert!(!f.world.query::<&Name>().is_empty());
    assert_eq!(
        f.world.query_filtered::<&Name, Without<Player>>().count(),
        0
    );
    assert!(f
        .world
        .query_filtered::<&Name, Without<Player>>()
        .is_empty());
    // A matching table that has been emptied does not count.
    let e5 = f.e5;
    f.world.despawn(e5).unwrap();
    assert_eq!(f.world.query::<&Name>().count(), 0);
    assert!(f.world.query::<&Name>().is_empty());
    assert_eq!(f.world.query::<&Name>().iter().count(), 0);
    let mut calls = 0;
    f.world.query::<&Name>().for_each(|_| calls += 1);
    assert_eq!(calls, 0);
}

#[test]
fn queries_on_an_empty_world() {
    let mut world = World::<Sim>::new();
    let mut query = world.query_mut::<(Entity, &mut Pos)>();
    assert_eq!(query.count(), 0);
    assert!(query.is_empty());
    assert_eq!(query.iter_mut().len(), 0);
    assert!(query.iter_mut().next().is_none());
    drop(query);
    assert!(world.query::<Entity>().is_empty());
}

#[test]
fn queries_span_many_tables() {
    let mut world = World::<Sim>::new();
    let mut expected = Vec::new();
    // 2^5 archetypes over the five optional extras, each with Pos.
    for i in 0..(32 * 3) {
        let shape = i % 32;
        let e = world.spawn((Pos(i),));
        if shape & 1 != 0 {
            world.insert(e, (Vel(i),)).unwrap();
        }
        if shape & 2 != 0 {
            world.insert(e, (Acc(i),)).unwrap();
        }
        if shape & 4 != 0 {
            world.insert(e, (Hp(i as u32),)).unwrap();
        }
        if shape & 8 != 0 {
            world.insert(e, (Frozen,)).unwrap();
        }
        if shape & 16 != 0 {
            world.insert(e, (Player,)).unwrap();
        }
        expected.push((e, i, shape));
    }
    assert!(world.describe().tables.len() > 32);
    let got = sorted(
        world
            .query::<(Entity, &Pos)>()
            .iter()
            .map(|(e, p)| (e, p.0))
            .collect(),
    );
    assert_eq!(
        got,
        sorted(expected.iter().map(|&(e, i, _)| (e, i)).collect())
    );
    let with_vel_not_frozen = sorted(
        world
            .query_filtered::<(Entity, &Vel), Without<Frozen>>()
            .iter()
            .map(|(e, v)| (e, v.0))
            .collect(),
    );
    assert_eq!(
        with_vel_not_frozen,
        sorted(
            expected
                .iter()
                .filter(|&&(_, _, s)| s & 1 != 0 && s & 8 == 0)
                .map(|&(e, i, _)| (e, i))
                .collect()
        )
    );
    world
        .query_mut::<(&mut Pos, Has<Player>)>()
        .for_each_mut(|(p, player)| {
            if player {
                p.0 = -p.0;
            }
        });
    for &(e, i, shape) in &expected {
        let want = if shape & 16 != 0 { -i } else { i };
        assert_eq!(world.get::<Pos>(e), Some(&Pos(want)));
    }
}

// ---------------------------------------------------------------- matched-table cache

#[test]
fn a_repeated_query_sees_tables_created_after_it_first_ran() {
    let mut world = World::<Sim>::new();
    let a = world.spawn((Pos(1),));
    assert_eq!(world.query::<&Pos>().count(), 1);

    // A new archetype with Pos, created after the query's tables were cached.
    let b = world.spawn((Pos(2), Acc(2)));
    assert_eq!(world.query::<&Pos>().count(), 2);
    // A new archetype by migration.
    world.insert(a, (Hp(1),)).unwrap();
    let c = world.spawn((Name("c".into()), Pos(3)));
    let values = sorted(world.query::<&Pos>().iter().map(|p| p.0).collect());
    assert_eq!(values, [1, 2, 3]);
    // A new archetype without Pos does not join.
    world.spawn((Vel(0),));
    assert_eq!(world.query::<&Pos>().count(), 3);
    assert_eq!(
        sorted(
            world
                .query::<(Entity, &Pos)>()
                .iter()
                .map(|t| t.0)
                .collect()
        ),
        sorted(vec![a, b, c])
    );
}

#[test]
fn a_different_query_with_the_same_masks_sees_new_tables() {
    let mut world = World::<Sim>::new();
    world.spawn((Pos(1),));
    // `&Pos` and `(Entity, &mut Pos)` share their required/excluded masks,
    // so they share one cache entry.
    assert_eq!(world.query::<&Pos>().count(), 1);
    let b = world.spawn((Pos(2), Vel(2)));
    let mut query = world.query_mut::<(Entity, &mut Pos)>();
    assert_eq!(query.count(), 2);
    for (_, p) in query.iter_mut() {
        p.0 *= 10;
    }
    drop(query);
    assert_eq!(world.get::<Pos>(b), Some(&Pos(20)));
    let c = world.spawn((Pos(3), Frozen));
    assert_eq!(world.query::<Option<&Vel>>().count(), 3);
    assert_eq!(world.query::<&Pos>().count(), 3);
    assert!(world.query::<&Pos>().contains(c));
}

#[test]
fn a_filtered_query_cache_admits_new_matching_tables_only() {
    let mut world = World::<Sim>::new();
    world.spawn((Pos(1), Vel(1)));
    let count = |world: &mut World<Sim>| {
        world
            .query_filtered::<&Pos, (With<Vel>, Without<Frozen>)>()
            .count()
    };
    assert_eq!(count(&mut world), 1);
    world.spawn((Pos(2), Vel(2), Frozen)); // excluded
    world.spawn((Pos(3),)); // lacks Vel
    world.spawn((Pos(4), Vel(4), Acc(4))); // matches
    assert_eq!(count(&mut world), 2);
    let e = world.spawn((Pos(5), Vel(5), Frozen)); // existing excluded table
    assert_eq!(count(&mut world), 2);
    world.remove::<Frozen>(e).unwrap(); // now matches
    assert_eq!(count(&mut world), 3);
    world.insert(e, (Player,)).unwrap(); // new table, still matches
    assert_eq!(count(&mut world), 3);
    assert!(world
        .query_filtered::<&Pos, (With<Vel>, Without<Frozen>)>()
        .contains(e));
}

#[test]
fn an_or_query_sees_tables_created_after_it_first_ran() {
    type Either = Or<(With<Acc>, (With<Player>, Without<Frozen>))>;
    let mut world = World::<Sim>::new();
    let a = world.spawn((Pos(1), Acc(1)));
    let shared =
        |world: &World<Sim>| sorted(world.query_filtered::<Entity, Either>().iter().collect());
    let exclusive = |world: &mut World<Sim>| {
        let mut found: Vec<Entity> = Vec::new();
        world
            .query_filtered_mut::<(Entity, &mut Pos), Either>()
            .for_each_mut(|(e, _)| found.push(e));
        sorted(found)
    };
    assert_eq!(shared(&world), [a]);
    assert_eq!(exclusive(&mut world), [a]);

    // New tables: one per branch, one matching neither.
    let b = world.spawn((Pos(2), Player));
    let c = world.spawn((Pos(3), Acc(3), Hp(3)));
    let d = world.spawn((Pos(4), Player, Frozen));
    assert_eq!(shared(&world), sorted(vec![a, b, c]));
    assert_eq!(exclusive(&mut world), sorted(vec![a, b, c]));
    // A table by migration: `d` loses its `Frozen` and joins.
    world.remove::<Frozen>(d).unwrap();
    // An entity in a table already matched.
    let e = world.spawn((Pos(5), Acc(5)));
    assert_eq!(exclusive(&mut world), sorted(vec![a, b, c, d, e]));
    assert_eq!(shared(&world), sorted(vec![a, b, c, d, e]));
    world.insert(b, (Frozen,)).unwrap();
    assert_eq!(shared(&world), sorted(vec![a, c, d, e]));
    assert_eq!(exclusive(&mut world), sorted(vec![a, c, d, e]));
}

#[test]
fn or_queries_that_name_the_same_branches_agree() {
    let mut f = Fixture::new();
    f.world.spawn((Hp(1), Player));
    let one = entities::<Or<(With<Hp>, With<Frozen>)>>(&mut f.world);
    // The other order, then a new table, then the first order again: each
    // sees every table, whichever of them warmed the cache.
    assert_eq!(entities::<Or<(With<Frozen>, With<Hp>)>>(&mut f.world), one);
    let g = f.world.spawn((Hp(2), Acc(2)));
    let mut with_g = one.clone();
    with_g.push(g);
    assert_eq!(
        entities::<Or<(With<Hp>, With<Frozen>)>>(&mut f.world),
        sorted(with_g.clone())
    );
    assert_eq!(
        entities::<Or<(With<Frozen>, With<Hp>)>>(&mut f.world),
        sorted(with_g)
    );
}

#[test]
fn a_cached_table_that_empties_and_refills_is_seen_again() {
    let mut world = World::<Sim>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    assert_eq!(world.query::<&Vel>().count(), 1);
    world.despawn(a).unwrap();
    assert_eq!(world.query::<&Vel>().count(), 0);
    let b = world.spawn((Pos(2), Vel(2)));
    assert_eq!(world.query::<&Vel>().get(b), Ok(&Vel(2)));
    assert_eq!(world.query::<&Vel>().count(), 1);
    world.clear();
    assert!(world.query::<&Vel>().is_empty());
    let c = world.spawn((Vel(3),));
    assert_eq!(
        world.query::<(Entity, &Vel)>().iter().collect::<Vec<_>>(),
        [(c, &Vel(3))]
    );
}

mod column_order {
    //! Queries whose items' columns do not interleave are served by a
    //! cursor over the table's columns, the items fetched in column order
    //! whatever their order in the tuple; others (one column taken twice,
    //! or items whose columns interleave) by per-column slots. Both must
    //! hand every item the right values.
    use ecs::prelude::*;
    use ecs::query::SchemaQuery;

    #[derive(Debug, PartialEq)]
    struct P(u32);
    #[derive(Debug, PartialEq)]
    struct Q(u32);
    #[derive(Debug, PartialEq)]
    struct R(u32);
    #[derive(Debug, PartialEq)]
    struct Tag;

    #[derive(Schema)]
    struct Order {
        p: P,
        q: Q,
        tag: Tag,
        r: R,
    }

    fn ordered<T: SchemaQuery<Order>>() -> bool {
        T::ORDERED
    }

    #[test]
    fn ascending_items_are_recognised() {
        assert!(ordered::<(&P, &mut Q, &R)>());
        assert!(ordered::<(Entity, &P, Has<Tag>, Option<&mut R>)>());
        assert!(ordered::<((&P, &Q), &mut R)>());
        // Any order of the items.
        assert!(ordered::<(&Q, &P)>());
        assert!(ordered::<(Option<&R>, &mut Q)>());
        assert!(ordered::<(&mut R, Entity, (&Q, Has<Tag>), &P)>());
        assert!(ordered::<(&R, (&P, &Q))>());
        // One column twice, or columns that interleave.
        assert!(!ordered::<(&P, &P)>());
        assert!(!ordered::<(&Q, (&P, Option<&Q>))>());
        assert!(!ordered::<((&P, &R), &Q)>());
        assert!(!ordered::<(&Q, (&P, &R))>());
    }

    #[test]
    fn both_paths_give_each_item_its_own_values() {
        let mut world = World::<Order>::new();
        let a = world.spawn((P(1), Q(10), R(100)));
        let b = world.spawn((P(2), R(200), Tag));
        let c = world.spawn((P(3), Q(30)));

        /// An entity, P, Q and R values (if any), and whether it has Tag.
        type Row = (Entity, u32, Option<u32>, Option<u32>, bool);
        let mut forward: Vec<Row> = world
            .query::<(Entity, &P, Option<&Q>, Option<&R>, Has<Tag>)>()
            .iter()
            .map(|(e, p, q, r, tag)| (e, p.0, q.map(|q| q.0), r.map(|r| r.0), tag))
            .collect();
        forward.sort();
        assert_eq!(
            forward,
            [
                (a, 1, Some(10), Some(100), false),
                (b, 2, None, Some(200), true),
                (c, 3, Some(30), None, false),
            ]
        );

        // Reversed orders (the cursor, items fetched in column order) and
        // interleaved ones (the slots).
        world
            .query_mut::<(&mut R, &P, Option<&mut Q>)>()
            .for_each_mut(|(r, p, q)| {
                r.0 += p.0;
                if let Some(q) = q {
                    q.0 += p.0;
                }
            });
        world
            .query_mut::<(Option<&mut Q>, &mut P)>()
            .for_each_mut(|(q, p)| p.0 += q.map_or(0, |q| q.0));
        assert_eq!(world.get::<R>(a), Some(&R(101)));
        assert_eq!(world.get::<R>(b), Some(&R(202)));
        assert_eq!(world.get::<Q>(a), Some(&Q(11)));
        assert_eq!(world.get::<P>(a), Some(&P(12)));
        assert_eq!(world.get::<P>(b), Some(&P(2)));
        assert_eq!(world.get::<P>(c), Some(&P(33)));

        // Interleaved: `(P, R)` around `Q`, through the slots.
        world
            .query_mut::<((&mut P, &R), &Q)>()
            .for_each_mut(|((p, r), q)| p.0 = r.0 * 1000 + q.0);
        assert_eq!(world.get::<P>(a), Some(&P(101_011)));
        // Every order of three items, each value where it belongs.
        type Values = Vec<(u32, u32, u32)>;
        let pqr: Values = world
            .query::<(&P, &Q, &R)>()
            .iter()
            .map(|(p, q, r)| (p.0, q.0, r.0))
            .collect();
        let rqp: Values = world
            .query::<(&R, &Q, &P)>()
            .iter()
            .map(|(r, q, p)| (p.0, q.0, r.0))
            .collect();
        let qpr: Values = world
            .query::<(&Q, (&P, &R))>()
            .iter()
            .map(|(q, (p, r))| (p.0, q.0, r.0))
            .collect();
        assert_eq!(pqr, [(101_011, 11, 101)]);
        assert_eq!(rqp, pqr);
        assert_eq!(qpr, pqr);
    }
}

// ------------------------------------------------------- queries of &World

#[test]
fn read_only_queries_of_a_shared_world_are_alive_at_once() {
    let f = Fixture::new();
    let world: &World<Sim> = &f.world;
    let positions = world.query::<(Entity, &Pos)>();
    let frozen = world.query_filtered::<Entity, With<Frozen>>();
    let movers = world.query_filtered::<&Vel, Without<Frozen>>();
    // All three held together, beside a point lookup.
    assert_eq!(positions.count(), 6);
    assert_eq!(sorted(frozen.iter().collect()), sorted(vec![f.e1, f.e5]));
    assert_eq!(
        sorted(movers.iter().map(|vel| vel.0).collect()),
        [1, 31, 41, 71]
    );
    assert_eq!(world.get::<Pos>(f.e2), Some(&Pos(20)));
    assert_eq!(positions.get(f.e7).map(|(_, pos)| pos.0), Ok(70));
}

#[test]
fn shared_and_exclusive_queries_see_the_same_entities_in_the_same_order() {
    let mut f = Fixture::new();
    let shared: Vec<(Entity, i64)> = f
        .world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(e, pos)| (e, pos.0))
        .collect();
    let exclusive: Vec<(Entity, i64)> = f
        .world
        .query_mut::<(Entity, &Pos)>()
        .iter()
        .map(|(e, pos)| (e, pos.0))
        .collect();
    assert_eq!(shared, exclusive);
    assert_eq!(shared.len(), 6);
}

#[test]
fn a_shared_query_sees_tables_created_after_its_first_use() {
    let mut world = World::<Sim>::new();
    world.spawn((Pos(1),));
    // The first shared query fills the cache for `&Pos`...
    assert_eq!(world.query::<&Pos>().count(), 1);
    // ...a new table holding `Pos` appears, through `&mut World`...
    world.spawn((Pos(2), Hp(0)));
    world.spawn((Pos(3), Name(String::new())));
    // ...and the next shared query finds it, warm or not.
    let both: &World<Sim> = &world;
    assert_eq!(
        sorted(both.query::<&Pos>().iter().map(|pos| pos.0).collect()),
        [1, 2, 3]
    );
    assert_eq!(world.query_mut::<&mut Pos>().count(), 3);
    world.spawn((Pos(4), Acc(0)));
    assert_eq!(world.query::<&Pos>().count(), 4);
}

#[test]
fn shared_queries_run_from_several_threads_at_once() {
    let mut world = World::<Sim>::new();
    world.spawn_batch((0..100).map(|i| (Pos(i), Vel(1))));
    world.spawn_batch((0..50).map(|i| (Pos(i), Acc(2))));
    let world = &world;
    let sums: Vec<i64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(move || world.query::<&Pos>().iter().map(|p| p.0).sum()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(sums, [4950 + 1225; 4]);
}

// ---------------------------------------------------------- prepared queries

/// Every `(entity, Pos, Vel)` a query of the fixture's world gives, in the
/// order it gives them.
type PosVel = Vec<(Entity, i64, Option<i64>)>;

#[test]
fn a_prepared_query_gives_what_the_world_query_gives_in_the_same_order() {
    let mut f = Fixture::new();
    let mut prepared = f
        .world
        .prepare_filtered::<(&mut Pos, Entity, Option<&Vel>), Or<(Without<Frozen>, With<Player>)>>(
        );
    let expected: PosVel = f
        .world
        .query_filtered::<(Entity, &Pos, Option<&Vel>), Or<(Without<Frozen>, With<Player>)>>()
        .iter()
        .map(|(e, p, v)| (e, p.0, v.map(|v| v.0)))
        .collect();
    let mut visited: PosVel = Vec::new();
    prepared.for_each_mut(&mut f.world, |(p, e, v)| {
        visited.push((e, p.0, v.map(|v| v.0)))
    });
    assert_eq!(visited, expected);
    assert_eq!(
        sorted(visited.iter().map(|row| row.0).collect()),
        sorted(vec![f.e0, f.e2, f.e3, f.e5, f.e7])
    );
    let through_query: PosVel = prepared
        .query_mut(&mut f.world)
        .iter_mut()
        .map(|(p, e, v)| (e, p.0, v.map(|v| v.0)))
        .collect();
    assert_eq!(through_query, expected);
}

#[test]
fn a_prepared_query_writes_and_finds_tables_made_after_it() {
    let mut f = Fixture::new();
    let mut movers = f.world.prepare::<(&Vel, &mut Pos)>();
    movers.for_each_mut(&mut f.world, |(vel, pos)| pos.0 += vel.0);
    // A table made since: {Pos, Vel, Hp}; and an entity moved into a table
    // the query already knew.
    let late = f.world.spawn((Pos(100), Vel(1), Hp(0)));
    f.world.insert(f.e2, (Vel(5),)).unwrap();
    movers.for_each_mut(&mut f.world, |(vel, pos)| pos.0 += vel.0);
    let pos = |world: &World<Sim>, e: Entity| world.get::<Pos>(e).unwrap().0;
    assert_eq!(pos(&f.world, f.e0), 2);
    assert_eq!(pos(&f.world, f.e1), 32);
    assert_eq!(pos(&f.world, f.e2), 25);
    assert_eq!(pos(&f.world, f.e5), 152);
    assert_eq!(pos(&f.world, late), 101);
    assert_eq!(movers.query_mut(&mut f.world).count(), 7);
}

#[test]
fn a_read_only_prepared_query_runs_on_a_shared_world() {
    let f = Fixture::new();
    let world: &World<Sim> = &f.world;
    let mut names = world.prepare::<(Entity, &Name)>();
    let mut seen = Vec::new();
    names.for_each(world, |(e, name)| seen.push((e, name.0.clone())));
    assert_eq!(seen, [(f.e5, "five".to_string())]);
    let shared = world.query::<&Pos>();
    // The prepared query's `Query` lives beside another query of the world.
    let query = names.query(world);
    assert_eq!(query.get(f.e5).map(|(e, _)| e), Ok(f.e5));
    assert_eq!(shared.count(), 6);
}

#[test]
fn a_prepared_query_follows_the_world_it_is_given() {
    let mut first = Fixture::new().world;
    let mut second = World::<Sim>::new();
    // The second world's tables come in another order, under the same ids.
    let only_name = second.spawn((name("n"),));
    let with_pos = second.spawn((Pos(7), name("m")));
    let mut positions = first.prepare::<&mut Pos>();
    let mut count = |world: &mut World<Sim>| {
        let mut values = Vec::new();
        positions.for_each_mut(world, |pos| values.push(pos.0));
        sorted(values)
    };
    assert_eq!(count(&mut first), [0, 10, 20, 30, 50, 70]);
    assert_eq!(count(&mut second), [7]);
    // A restore replaces the tables of the world the query knew.
    let snapshot = second.clone();
    second.despawn(only_name).unwrap();
    second.spawn((Vel(1), Pos(8)));
    assert_eq!(count(&mut second), [7, 8]);
    second.clone_from(&snapshot);
    second.spawn((Hp(1),));
    second.spawn((Acc(1), Pos(9)));
    assert_eq!(count(&mut second), [7, 9]);
    assert_eq!(count(&mut first), [0, 10, 20, 30, 50, 70]);
    assert!(second.is_alive(with_pos));
}

#[test]
fn a_prepared_query_debugs_as_its_schema_query_and_matched_tables() {
    let f = Fixture::new();
    let mut prepared = f.world.prepare::<&Vel>();
    let fresh = format!("{prepared:?}");
    assert!(fresh.starts_with("PreparedQuery"), "{fresh}");
    assert!(
        fresh.contains("\"Sim\"") && fresh.contains("Vel"),
        "{fresh}"
    );
    assert!(fresh.contains("matched_tables: 0"), "{fresh}");
    prepared.for_each(&f.world, |_| {});
    // Tables with `Vel`: {Pos, Vel}, {Pos, Vel, Frozen}, {Pos, Vel, Acc},
    // {Vel, Player} and the table of every component.
    let used = format!("{prepared:?}");
    assert!(used.contains("matched_tables: 5"), "{used}");
}

// A world whose query matches two tables far apart among hundreds: a
// lookup then finds its table by a search, not by an index over the ids
// (which would be wider than the query is worth).
#[derive(Debug, PartialEq)]
struct Mark(u32);
#[derive(Default)]
struct T0;
#[derive(Default)]
struct T1;
#[derive(Default)]
struct T2;
#[derive(Default)]
struct T3;
#[derive(Default)]
struct T4;
#[derive(Default)]
struct T5;
#[derive(Default)]
struct T6;
#[derive(Default)]
struct T7;

#[derive(Schema)]
struct Spread {
    mark: Mark,
    t0: T0,
    t1: T1,
    t2: T2,
    t3: T3,
    t4: T4,
    t5: T5,
    t6: T6,
    t7: T7,
}

#[test]
fn lookups_find_entities_in_tables_far_apart() {
    let mut world = World::<Spread>::new();
    let first = world.spawn((Mark(1),));
    // 255 tables without `Mark`: every non-empty set of the eight tags.
    let mut unmarked = Vec::new();
    for set in 1u32..256 {
        let e = world.spawn(());
        let tags: [fn(&mut World<Spread>, Entity); 8] = [
            |w, e| w.insert(e, (T0,)).unwrap(),
            |w, e| w.insert(e, (T1,)).unwrap(),
            |w, e| w.insert(e, (T2,)).unwrap(),
            |w, e| w.insert(e, (T3,)).unwrap(),
            |w, e| w.insert(e, (T4,)).unwrap(),
            |w, e| w.insert(e, (T5,)).unwrap(),
            |w, e| w.insert(e, (T6,)).unwrap(),
            |w, e| w.insert(e, (T7,)).unwrap(),
        ];
        for (bit, tag) in tags.iter().enumerate() {
            if set & (1 << bit) != 0 {
                tag(&mut world, e);
            }
        }
        unmarked.push(e);
    }
    let last = world.spawn((Mark(2), T0, T1, T2, T3, T4, T5, T6, T7));
    assert!(world.describe().tables.len() > 256);
    let mut marks = world.query_mut::<&mut Mark>();
    assert_eq!(marks.get_mut(first).map(|m| m.0), Ok(1));
    assert_eq!(marks.get_mut(last).map(|m| m.0), Ok(2));
    marks.get_mut(last).unwrap().0 = 3;
    for &e in &unmarked {
        assert_eq!(
            marks.get_mut(e).map(|m| m.0),
            Err(QueryEntityError::DoesNotMatch(e))
        );
    }
    assert_eq!(world.get::<Mark>(last), Some(&Mark(3)));
    let marks = world.query::<&Mark>();
    assert_eq!(marks.get(first), Ok(&Mark(1)));
    assert!(marks.contains(last) && !marks.contains(unmarked[0]));
}
