//! `World::view` and `World::view_mut`: one component of any entity by id,
//! for loops that reach entities through their ids. Each must agree with
//! `World::get` and `World::get_mut` on every handle (alive, despawned,
//! stale) and every kind of component (in columns, tracked, sparse, tag),
//! and a write through a view must be the same change as one through
//! `World::get_mut`, change ticks included.

use ecs::prelude::*;

use ecs::checksum::StableHash;

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Hp(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Stun(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Frozen;

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    hp: Hp,
    #[ecs(sparse)]
    stun: Stun,
    frozen: Frozen,
}

/// A world of many tables, with despawned slots reused (so that some
/// handles are stale), and every handle it ever gave out.
fn fixture() -> (World<Game>, Vec<Entity>) {
    let mut world = World::<Game>::new();
    let mut handles = Vec::new();
    let mut seed = 7u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        seed >> 16
    };
    for i in 0..400 {
        let e = world.spawn((Pos(i),));
        let roll = next();
        if roll & 1 != 0 {
            world.insert(e, (Vel(i * 2),)).unwrap();
        }
        if roll & 2 != 0 {
            world.insert(e, (Hp(i * 3),)).unwrap();
        }
        if roll & 4 != 0 {
            world.insert(e, (Stun(i as u32),)).unwrap();
        }
        if roll & 8 != 0 {
            world.insert(e, (Frozen,)).unwrap();
        }
        if roll & 16 != 0 {
            world.remove::<Pos>(e).unwrap();
        }
        handles.push(e);
        if roll % 7 == 0 {
            let victim = handles[next() as usize % handles.len()];
            let _ = world.despawn(victim);
        }
    }
    world.clear_trackers();
    (world, handles)
}

#[test]
fn the_fixture_has_every_kind_of_handle_and_component() {
    let (world, handles) = fixture();
    let dead = handles.iter().filter(|&&e| !world.is_alive(e)).count();
    assert!(dead > 20, "{dead} dead handles");
    let stale = handles
        .iter()
        .filter(|&&e| {
            !world.is_alive(e) && handles.iter().any(|&f| f != e && f.index() == e.index())
        })
        .count();
    assert!(stale > 5, "{stale} stale handles whose slot was reused");
    for (what, count) in [
        ("Pos", world.query::<&Pos>().count()),
        ("Hp", world.query::<&Hp>().count()),
        ("Stun", world.query::<&Stun>().count()),
        (
            "Frozen",
            world.query_filtered::<Entity, With<Frozen>>().count(),
        ),
        (
            "no Pos",
            world.query_filtered::<Entity, Without<Pos>>().count(),
        ),
    ] {
        assert!(count > 20, "{count} entities with {what}");
    }
}

#[test]
fn a_view_reads_what_world_get_reads() {
    let (world, handles) = fixture();
    let (pos, hp, stun, frozen) = (
        world.view::<Pos>(),
        world.view::<Hp>(),
        world.view::<Stun>(),
        world.view::<Frozen>(),
    );
    for &e in &handles {
        assert_eq!(pos.get(e), world.get::<Pos>(e), "{e}");
        assert_eq!(hp.get(e), world.get::<Hp>(e), "{e}");
        assert_eq!(stun.get(e), world.get::<Stun>(e), "{e}");
        assert_eq!(frozen.get(e), world.get::<Frozen>(e), "{e}");
        assert_eq!(pos.contains(e), world.has::<Pos>(e), "{e}");
        assert_eq!(stun.contains(e), world.has::<Stun>(e), "{e}");
        assert_eq!(frozen.contains(e), world.has::<Frozen>(e), "{e}");
    }
    // A view is a plain borrow: copies of it, and queries, read beside it.
    let again = pos.clone();
    assert_eq!(
        world
            .query::<(Entity, &Pos)>()
            .iter()
            .filter(|&(e, p)| again.get(e) == Some(p))
            .count(),
        world.query::<&Pos>().count()
    );
}

#[test]
fn a_view_mut_reads_what_world_get_reads() {
    let (mut world, handles) = fixture();
    let expected: Vec<_> = handles
        .iter()
        .map(|&e| {
            (
                world.get::<Pos>(e).copied(),
                world.get::<Stun>(e).copied(),
                world.has::<Frozen>(e),
            )
        })
        .collect();
    let pos = world.view_mut::<Pos>();
    let read: Vec<_> = handles.iter().map(|&e| pos.get(e).copied()).collect();
    drop(pos);
    let stun = world.view_mut::<Stun>();
    let stuns: Vec<_> = handles.iter().map(|&e| stun.get(e).copied()).collect();
    drop(stun);
    let frozen = world.view_mut::<Frozen>();
    let tags: Vec<_> = handles.iter().map(|&e| frozen.contains(e)).collect();
    for (i, (p, s, f)) in expected.into_iter().enumerate() {
        assert_eq!((read[i], stuns[i], tags[i]), (p, s, f), "{}", handles[i]);
    }
}

/// Writes `f` of each handle's value, in one world through a view and in
/// a clone through `World::get_mut`; the two worlds must be equal after,
/// change ticks included, and each write must reach the same entities.
fn writes_agree<C: Component<Game> + Copy + core::fmt::Debug + PartialEq>(f: impl Fn(&mut C)) {
    let (mut by_view, handles) = fixture();
    let mut by_get = by_view.clone();
    let mut written = (0, 0);
    let mut view = by_view.view_mut::<C>();
    for &e in handles.iter().step_by(3) {
        if let Some(value) = view.get_mut(e) {
            f(value);
            written.0 += 1;
        }
    }
    for &e in handles.iter().step_by(3) {
        if let Some(value) = by_get.get_mut::<C>(e) {
            f(value);
            written.1 += 1;
        }
    }
    assert!(written.0 > 10, "{} written", written.0);
    assert_eq!(written.0, written.1);
    assert_eq!(by_view.checksum(), by_get.checksum());
    for &e in &handles {
        assert_eq!(by_view.get::<C>(e), by_get.get::<C>(e), "{e}");
    }
}

#[test]
fn a_write_through_a_view_is_a_write_through_get_mut() {
    writes_agree::<Pos>(|p| p.0 += 100);
    writes_agree::<Hp>(|h| h.0 -= 1);
    writes_agree::<Stun>(|s| s.0 *= 2);
    writes_agree::<Frozen>(|_| {});
}

#[test]
fn a_write_through_a_view_marks_a_tracked_component_changed() {
    let (mut world, handles) = fixture();
    let with_hp: Vec<Entity> = handles
        .iter()
        .copied()
        .filter(|&e| world.has::<Hp>(e))
        .collect();
    let (first, last) = (with_hp[0], with_hp[with_hp.len() - 1]);
    let mut hp = world.view_mut::<Hp>();
    hp.get_mut(last).unwrap().0 = -1;
    hp.get_mut(first).unwrap().0 = -2;
    // Reading through the view marks nothing.
    let _ = hp.get(with_hp[1]);
    let mut changed: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Hp>>()
        .iter()
        .collect();
    changed.sort();
    let mut expected = vec![first, last];
    expected.sort();
    assert_eq!(changed, expected);
}

#[test]
fn a_view_of_a_bad_handle_is_none_and_writes_nothing() {
    let (mut world, handles) = fixture();
    let bad: Vec<Entity> = handles
        .iter()
        .copied()
        .filter(|&e| !world.is_alive(e))
        .collect();
    // Generation 1 of a slot past every slot.
    let never = Entity::from_bits(1 << 32 | u64::from(u32::MAX - 1)).unwrap();
    let before = world.clone();
    for &e in bad.iter().chain([&never]) {
        assert!(world.view::<Pos>().get(e).is_none(), "{e}");
        assert!(world.view::<Stun>().get(e).is_none(), "{e}");
        assert!(world.view::<Frozen>().get(e).is_none(), "{e}");
        assert!(world.view_mut::<Pos>().get_mut(e).is_none(), "{e}");
        assert!(world.view_mut::<Hp>().get_mut(e).is_none(), "{e}");
        assert!(world.view_mut::<Stun>().get_mut(e).is_none(), "{e}");
        assert!(world.view_mut::<Frozen>().get_mut(e).is_none(), "{e}");
    }
    assert_eq!(world.checksum(), before.checksum());
}
