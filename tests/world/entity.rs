//! Behaviour of reaching particular entities: `World::entity` and
//! `World::entity_mut` (one entity, several components), `Query::get_many`
//! and `Query::get_many_mut` (several entities of a query at once) and
//! `Query::single` / `Query::single_mut` (the one entity of a query).

use ecs::prelude::*;

use ecs::world::EntityRef;
use ecs::{query::QueryEntityError, query::QuerySingleError};

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

// ------------------------------------------------------ Query::get_many_mut

#[test]
fn get_many_mut_hands_out_entities_of_one_table_in_either_order() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(10)));
    let b = world.spawn((Pos(2), Vel(20)));
    let c = world.spawn((Pos(3), Vel(30)));
    let mut movers = world.query_mut::<(Entity, &mut Pos, &Vel)>();

    let [(x, xp, xv), (y, yp, yv)] = movers.get_many_mut([a, c]).unwrap();
    assert_eq!((x, y, xv.0, yv.0), (a, c, 10, 30));
    xp.0 += 100;
    yp.0 += 300;
    let [(x, xp, _), (y, yp, _)] = movers.get_many_mut([c, a]).unwrap();
    assert_eq!((x, y), (c, a));
    core::mem::swap(xp, yp);

    assert_eq!(world.get::<Pos>(a), Some(&Pos(303)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2)));
    assert_eq!(world.get::<Pos>(c), Some(&Pos(101)));
}

#[test]
fn get_many_mut_hands_out_has_items_of_each_entitys_table() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Frozen));
    let b = world.spawn((Pos(2), Frozen));
    let c = world.spawn((Pos(3),));
    let mut query = world.query_mut::<(&mut Pos, Has<Frozen>)>();
    let [(_, a_frozen), (_, b_frozen), (_, c_frozen)] = query.get_many_mut([a, b, c]).unwrap();
    assert_eq!([a_frozen, b_frozen, c_frozen], [true, true, false]);
    let [(_, b_frozen), (_, a_frozen)] = query.get_many_mut([b, a]).unwrap();
    assert_eq!([b_frozen, a_frozen], [true, true]);
}

/// Every order of five entities spread over three tables (two of them in
/// one table, at rows in either order), each item where it was asked for.
#[test]
fn get_many_mut_hands_out_entities_of_several_tables_in_any_order() {
    let mut world = World::<Game>::new();
    let mut all = Vec::new();
    for i in 0..4 {
        all.push(world.spawn((Pos(i), Vel(0))));
        all.push(world.spawn((Pos(10 + i), Vel(0), Frozen)));
        all.push(world.spawn((Pos(20 + i), Vel(0), name("n"))));
    }
    let picked = [all[9], all[1], all[4], all[3], all[11]];
    let mut movers = world.query_mut::<(Entity, &Pos, &mut Vel)>();
    let mut orders = 0;
    for i in 0..5 {
        for j in 0..5 {
            for k in 0..5 {
                for l in 0..5 {
                    for m in 0..5 {
                        let order = [i, j, k, l, m];
                        if (0..5).any(|n| !order.contains(&n)) {
                            continue;
                        }
                        orders += 1;
                        let asked = order.map(|n| picked[n]);
                        let items = movers.get_many_mut(asked).unwrap();
                        for ((entity, pos, vel), want) in items.into_iter().zip(asked) {
                            assert_eq!(entity, want, "order {order:?}");
                            vel.0 += pos.0;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(orders, 120);
    for &e in &all {
        let pos = world.get::<Pos>(e).unwrap().0;
        let want = if picked.contains(&e) { 120 * pos } else { 0 };
        assert_eq!(world.get::<Vel>(e), Some(&Vel(want)), "{e:?}");
    }
}

#[test]
fn get_many_mut_of_no_entities_and_of_one() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let mut positions = world.query_mut::<&mut Pos>();
    let [] = positions.get_many_mut([]).unwrap();
    let [p] = positions.get_many_mut([a]).unwrap();
    p.0 = 7;
    assert_eq!(world.get::<Pos>(a), Some(&Pos(7)));
}

#[test]
fn get_many_mut_of_a_dead_or_stale_entity_names_it() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let dead = world.spawn((Pos(2),));
    world.despawn(dead).unwrap();
    let mut positions = world.query_mut::<&mut Pos>();
    assert_eq!(
        positions.get_many_mut([a, dead]).err(),
        Some(QueryEntityError::NoSuchEntity(dead))
    );

    let reused = world.spawn((Pos(3),));
    assert_eq!(reused.index(), dead.index());
    let mut positions = world.query_mut::<&mut Pos>();
    assert_eq!(
        positions.get_many_mut([dead, reused]).err(),
        Some(QueryEntityError::NoSuchEntity(dead))
    );
    assert!(positions.get_many_mut([a, reused]).is_ok());
}

#[test]
fn get_many_mut_of_an_entity_the_query_does_not_match_names_it() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let frozen = world.spawn((Pos(2), Vel(2), Frozen));
    let still = world.spawn((Pos(3),));
    let mut movers = world.query_filtered_mut::<(&mut Pos, &Vel), Without<Frozen>>();
    // Excluded by the filter.
    assert_eq!(
        movers.get_many_mut([a, frozen]).err(),
        Some(QueryEntityError::DoesNotMatch(frozen))
    );
    // Lacks a required component.
    assert_eq!(
        movers.get_many_mut([still, a]).err(),
        Some(QueryEntityError::DoesNotMatch(still))
    );
}

#[test]
fn get_many_mut_of_an_entity_given_twice_names_it() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2),));
    let mut positions = world.query_mut::<&mut Pos>();
    assert_eq!(
        positions.get_many_mut([a, a]).err(),
        Some(QueryEntityError::Repeated(a))
    );
    assert_eq!(
        positions.get_many_mut([a, b, b]).err(),
        Some(QueryEntityError::Repeated(b))
    );
}

#[test]
fn get_many_mut_reports_the_first_fault_in_the_order_given_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(0)));
    let still = world.spawn((Pos(2),));
    let dead = world.spawn((Vel(0),));
    world.despawn(dead).unwrap();
    let mut movers = world.query_mut::<(&mut Pos, &Vel)>();
    assert_eq!(
        movers.get_many_mut([a, still, dead]).err(),
        Some(QueryEntityError::DoesNotMatch(still))
    );
    assert_eq!(
        movers.get_many_mut([dead, a, still]).err(),
        Some(QueryEntityError::NoSuchEntity(dead))
    );
    // A repeat is reported only once every entity has been found.
    assert_eq!(
        movers.get_many_mut([a, a, still]).err(),
        Some(QueryEntityError::DoesNotMatch(still))
    );
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
}

#[test]
fn query_entity_errors_say_what_is_wrong_with_which_entity() {
    let mut world = World::<Game>::new();
    let e = world.spawn(());
    let text = |error: QueryEntityError| error.to_string();
    assert_eq!(
        text(QueryEntityError::NoSuchEntity(e)),
        format!("entity {e} does not exist (it was despawned, or the handle is stale)")
    );
    assert!(text(QueryEntityError::DoesNotMatch(e))
        .starts_with(&format!("entity {e} does not match the query")));
    assert!(text(QueryEntityError::Repeated(e))
        .starts_with(&format!("entity {e} is asked for more than once")));
    let _: &dyn std::error::Error = &QueryEntityError::Repeated(e);
}

#[test]
fn get_many_mut_lets_a_system_make_two_entities_collide() {
    fn collide(mut movers: Query<(Entity, &mut Vel)>, pairs: Query<(Entity, &Pos), With<Player>>) {
        let players: Vec<Entity> = pairs.iter().map(|(e, _)| e).collect();
        if let Ok([(_, x), (_, y)]) = movers.get_many_mut([players[0], players[1]]) {
            core::mem::swap(&mut x.0, &mut y.0);
        }
    }
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(0), Vel(1), Player));
    let b = world.spawn((Pos(0), Vel(-1), Player, Frozen));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(collide);
    schedule.run(&mut world);
    assert_eq!(
        (world.get::<Vel>(a), world.get::<Vel>(b)),
        (Some(&Vel(-1)), Some(&Vel(1)))
    );
}

// --------------------------------------------------------- Query::get_many

#[test]
fn get_many_reads_entities_in_the_order_given_repeats_allowed() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2), Frozen));
    let c = world.spawn((Pos(3),));
    let positions = world.query::<(Entity, &Pos)>();
    let items = positions.get_many([c, a, b, a]).unwrap();
    assert_eq!(
        items,
        [(c, &Pos(3)), (a, &Pos(1)), (b, &Pos(2)), (a, &Pos(1))]
    );
    // Items of a shared query live beside each other and other readers.
    let again = positions.get_many([b]).unwrap();
    assert_eq!((items[2], again[0]), ((b, &Pos(2)), (b, &Pos(2))));
}

#[test]
fn get_many_errors_name_the_dead_or_unmatched_entity() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let still = world.spawn((Pos(2),));
    let dead = world.spawn((Pos(3), Vel(3)));
    world.despawn(dead).unwrap();
    let movers = world.query::<(&Pos, &Vel)>();
    assert_eq!(
        movers.get_many([a, dead]).err(),
        Some(QueryEntityError::NoSuchEntity(dead))
    );
    assert_eq!(
        movers.get_many([still, dead]).err(),
        Some(QueryEntityError::DoesNotMatch(still))
    );
    assert!(movers.get_many([a, a]).is_ok());
}

// ----------------------------------------------------------- Query::single

#[test]
fn single_with_no_match_says_none_and_names_the_query() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(1),));
    let players = world.query_filtered::<&Pos, With<Player>>();
    let error = players.single().unwrap_err();
    assert_eq!(
        error,
        QuerySingleError::NoEntities {
            query: core::any::type_name::<&Pos>()
        }
    );
    assert_eq!(
        error.to_string(),
        "no entity matches the query `&Pos`, which was expected to match exactly one"
    );

    // A table that has had entities and is empty again matches none either.
    let gone = world.spawn((Pos(2), Player));
    world.despawn(gone).unwrap();
    let players = world.query_filtered::<&Pos, With<Player>>();
    assert!(matches!(
        players.single(),
        Err(QuerySingleError::NoEntities { .. })
    ));
    let mut players = world.query_filtered_mut::<&mut Pos, With<Player>>();
    assert!(matches!(
        players.single_mut(),
        Err(QuerySingleError::NoEntities { .. })
    ));
}

#[test]
fn single_with_one_match_returns_its_item() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(1),));
    let hero = world.spawn((Pos(2), Player));
    world.spawn((Pos(3), Vel(3)));
    let players = world.query_filtered::<(Entity, &Pos), With<Player>>();
    assert_eq!(players.single(), Ok((hero, &Pos(2))));
}

#[test]
fn single_with_several_matches_says_how_many() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(1), Player));
    world.spawn((Pos(2), Player));
    let players = world.query_filtered::<(Entity, &Pos), With<Player>>();
    let error = players.single().unwrap_err();
    assert_eq!(
        error,
        QuerySingleError::MultipleEntities {
            query: core::any::type_name::<(Entity, &Pos)>(),
            count: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "2 entities match the query `(Entity, &Pos)`, which was expected to match exactly one"
    );

    // One in each of two tables.
    let mut world = World::<Game>::new();
    world.spawn((Pos(1), Player));
    world.spawn((Pos(2), Player, Frozen));
    let mut players = world.query_filtered_mut::<&mut Pos, With<Player>>();
    assert!(matches!(
        players.single_mut(),
        Err(QuerySingleError::MultipleEntities { count: 2, .. })
    ));
}

#[test]
fn single_mut_writes_through() {
    let mut world = World::<Game>::new();
    let other = world.spawn((Pos(1),));
    let hero = world.spawn((Pos(2), Vel(5), Player));
    let mut players = world.query_filtered_mut::<(&mut Pos, &Vel), With<Player>>();
    let (pos, vel) = players.single_mut().unwrap();
    pos.0 += vel.0;
    assert_eq!(world.get::<Pos>(hero), Some(&Pos(7)));
    assert_eq!(world.get::<Pos>(other), Some(&Pos(1)));
}
