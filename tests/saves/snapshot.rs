//! Exact snapshots: `World::clone` and `clone_from` copy everything that
//! decides what the world does next (entities, generations, free-slot order,
//! pending reservations, tables and row order, tags, resources), `clone_from`
//! reuses the target's allocations, and `World::checksum` tells worlds apart
//! by every value, float components included.

use ecs::prelude::*;

use ecs::checksum::StableHash;
use ecs::command::CommandBuffer;
use support::Rng;

#[derive(Clone, Debug, PartialEq, StableHash)]
struct Pos(f32, f32);
#[derive(Clone, Debug, PartialEq, StableHash)]
struct Vel(f64);
#[derive(Clone, Debug, PartialEq, StableHash)]
struct Name(String);
#[derive(Clone, Debug, PartialEq, Default, StableHash)]
struct Frozen;
#[derive(Clone, Debug, PartialEq, Default, StableHash)]
struct Frame(u64);
#[derive(Clone, Debug, PartialEq, Default, StableHash)]
struct Log(Vec<String>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    name: Name,
    frozen: Frozen,
    #[ecs(resource)]
    frame: Frame,
    #[ecs(resource)]
    log: Log,
}

/// A world after `steps` random spawns, despawns, inserts and removes.
fn churned(seed: u64, steps: usize) -> (World<Game>, Vec<Entity>) {
    let mut rng = Rng::new(seed);
    let mut world = World::<Game>::new();
    let mut alive: Vec<Entity> = Vec::new();
    for step in 0..steps {
        let x = rng.below(1000) as f32 / 7.0;
        match rng.below(6) {
            0 | 1 => alive.push(world.spawn((Pos(x, -x), Vel(f64::from(x) * 0.5)))),
            2 => alive.push(world.spawn((Pos(x, x), Name(format!("e{step}")), Frozen))),
            3 if !alive.is_empty() => {
                let e = alive.swap_remove(rng.below(alive.len() as u64) as usize);
                world.despawn(e).unwrap();
            }
            4 if !alive.is_empty() => {
                let e = *rng.pick(&alive);
                world.insert(e, (Frozen, Vel(1.0))).unwrap();
            }
            5 if !alive.is_empty() => {
                let e = *rng.pick(&alive);
                world.remove::<Pos>(e).unwrap();
            }
            _ => {}
        }
    }
    world.resource_mut::<Frame>().0 = steps as u64;
    world.resource_mut::<Log>().0.push("churned".into());
    (world, alive)
}

/// Everything observable, in iteration order.
type Row = (Entity, Option<Pos>, Option<Vel>, Option<Name>, bool);

fn contents(world: &World<Game>) -> Vec<Row> {
    world
        .query::<(
            Entity,
            Option<&Pos>,
            Option<&Vel>,
            Option<&Name>,
            Has<Frozen>,
        )>()
        .iter()
        .map(|(e, p, v, n, f)| (e, p.cloned(), v.cloned(), n.cloned(), f))
        .collect()
}

#[test]
fn a_clone_iterates_in_the_same_order_with_the_same_generations() {
    let (world, alive) = churned(1, 3000);
    let copy = world.clone();
    assert_eq!(contents(&copy), contents(&world));
    assert_eq!(
        copy.iter().collect::<Vec<_>>(),
        world.iter().collect::<Vec<_>>()
    );
    assert_eq!(copy.describe(), world.describe());
    for e in &alive {
        assert!(copy.is_alive(*e));
    }
    assert!(
        alive.iter().any(|e| e.generation().get() > 1),
        "churn reused slots"
    );
    assert_eq!(copy.resource::<Log>(), world.resource::<Log>());
    assert_eq!(copy.checksum(), world.checksum());
}

#[test]
fn the_next_spawns_return_the_same_entities_after_churn() {
    let (mut world, mut alive) = churned(2, 3000);
    // Leave a long free list, in an order of its own.
    let mut rng = Rng::new(12);
    for _ in 0..alive.len() / 2 {
        let e = alive.swap_remove(rng.below(alive.len() as u64) as usize);
        world.despawn(e).unwrap();
    }
    let mut copy = world.clone();
    let mut target = churned(99, 100).0;
    target.clone_from(&world);
    for i in 0..200 {
        let bundle = || (Pos(i as f32, 0.0),);
        let expected = world.spawn(bundle());
        assert_eq!(copy.spawn(bundle()), expected);
        assert_eq!(target.spawn(bundle()), expected);
        if i % 3 == 0 {
            world.despawn(expected).unwrap();
            copy.despawn(expected).unwrap();
            target.despawn(expected).unwrap();
        }
    }
    assert_eq!(copy.checksum(), world.checksum());
    assert_eq!(target.checksum(), world.checksum());
}

#[test]
fn pending_reservations_are_copied() {
    let (mut world, _) = churned(3, 500);
    let mut buffer = CommandBuffer::<Game>::new();
    let reserved: Vec<Entity> = (0..5)
        .map(|_| buffer.commands(&world).spawn((Vel(2.0),)))
        .collect();
    let mut copy = world.clone();
    let mut target = World::<Game>::new();
    target.clone_from(&world);
    // A reservation made now continues after the copied ones.
    let next = buffer.commands(&copy).spawn((Vel(3.0),));
    assert_eq!(buffer.commands(&target).spawn((Vel(3.0),)), next);
    assert!(!reserved.contains(&next));
    // The first plain spawn flushes the reservations: all get the same ids.
    assert_eq!(copy.spawn((Pos(0.0, 0.0),)), target.spawn((Pos(0.0, 0.0),)));
    assert!(reserved
        .iter()
        .all(|&e| copy.is_alive(e) && target.is_alive(e)));
    assert_eq!(copy.checksum(), target.checksum());
    world.spawn((Pos(0.0, 0.0),));
    assert!(reserved.iter().all(|&e| world.is_alive(e)));
}

#[test]
fn clone_from_into_a_world_of_another_shape_is_exact() {
    let (source, _) = churned(4, 2000);
    for seed in [5, 6, 7] {
        let (mut target, _) = churned(seed, 500 * seed as usize);
        target.clone_from(&source);
        assert_eq!(contents(&target), contents(&source));
        assert_eq!(target.describe(), source.describe());
        assert_eq!(target.checksum(), source.checksum());
        // The query caches agree too: a filtered query sees the same rows.
        let frozen = |w: &World<Game>| {
            w.query_filtered::<Entity, With<Frozen>>()
                .iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(frozen(&target), frozen(&source));
    }
}

#[test]
fn a_restored_world_runs_on_exactly_as_the_original() {
    let (mut world, _) = churned(8, 1000);
    let snapshot = world.clone();
    let step = |world: &mut World<Game>| {
        let mut rng = Rng::new(world.resource::<Frame>().0);
        let movers: Vec<Entity> = world.query_filtered::<Entity, With<Vel>>().iter().collect();
        for e in movers.iter().take(20) {
            if rng.chance(1, 2) {
                world.despawn(*e).unwrap();
            } else {
                world.spawn((Pos(1.0, 2.0),));
            }
        }
        world
            .query_mut::<(&mut Pos, &Vel)>()
            .for_each_mut(|(p, v)| p.0 += v.0 as f32);
        world.resource_mut::<Frame>().0 += 1;
    };
    let mut checksums = Vec::new();
    for _ in 0..10 {
        step(&mut world);
        checksums.push(world.checksum());
    }
    let mut replay = World::<Game>::new();
    replay.clone_from(&snapshot);
    for expected in checksums {
        step(&mut replay);
        assert_eq!(replay.checksum(), expected);
    }
}

#[test]
fn clone_from_a_world_of_the_same_shape_keeps_every_allocation() {
    let (world, _) = churned(9, 3000);
    let mut ring: Vec<World<Game>> = (0..3).map(|_| world.clone()).collect();
    let mut world = world;
    // Change values, not shape: the same tables, rows and slots.
    world.query_mut::<&mut Pos>().for_each_mut(|p| p.0 = -p.0);
    let before: Vec<Vec<*const ()>> = ring.iter().map(addresses).collect();
    for snapshot in &mut ring {
        snapshot.clone_from(&world);
    }
    let after: Vec<Vec<*const ()>> = ring.iter().map(addresses).collect();
    assert_eq!(before, after);
    assert_eq!(ring[0].checksum(), world.checksum());
}

/// Where the world's vectors live: each column's values, read through the
/// public API (the first value of each table's column), and the entity list
/// through iteration.
fn addresses(world: &World<Game>) -> Vec<*const ()> {
    let mut out = Vec::new();
    let mut last_table = None;
    for e in world.iter() {
        let table = world.archetype(e);
        if table != last_table {
            last_table = table;
            if let Some(p) = world.get::<Pos>(e) {
                out.push(p as *const Pos as *const ());
            }
            if let Some(v) = world.get::<Vel>(e) {
                out.push(v as *const Vel as *const ());
            }
            if let Some(n) = world.get::<Name>(e) {
                // The `String`s themselves are reallocated: `derive(Clone)`
                // gives no `clone_from` that would reuse them.
                out.push(n as *const Name as *const ());
            }
        }
    }
    out
}

#[test]
fn the_checksum_sees_every_kind_of_change() {
    let (world, alive) = churned(10, 2000);
    let base = world.checksum();
    let changed = |change: &dyn Fn(&mut World<Game>)| {
        let mut copy = world.clone();
        change(&mut copy);
        copy.checksum()
    };
    let e = *alive
        .iter()
        .find(|&&e| world.has::<Pos>(e))
        .expect("an entity with Pos");
    let sums = [
        changed(&|w| w.get_mut::<Pos>(e).unwrap().0 += 1e-3),
        changed(&|w| w.get_mut::<Pos>(e).unwrap().1 = -w.get::<Pos>(e).unwrap().1),
        changed(&|w| w.resource_mut::<Frame>().0 += 1),
        changed(&|w| w.resource_mut::<Log>().0.clear()),
        changed(&|w| {
            w.despawn(e).unwrap();
        }),
        changed(&|w| {
            w.spawn((Pos(0.0, 0.0),));
        }),
        changed(&|w| w.insert(e, (Name("renamed".into()),)).unwrap()),
        changed(&|w| {
            // Same entities and values, another free-list order.
            let a = w.spawn((Vel(0.0),));
            let b = w.spawn((Vel(0.0),));
            w.despawn(a).unwrap();
            w.despawn(b).unwrap();
        }),
    ];
    for (i, sum) in sums.iter().enumerate() {
        assert_ne!(*sum, base, "change {i} went unseen");
    }
    // -0.0 and 0.0 compare equal as floats, but are different states.
    let mut zero = World::<Game>::new();
    let z = zero.spawn((Vel(0.0),));
    let plus = zero.checksum();
    zero.get_mut::<Vel>(z).unwrap().0 = -0.0;
    assert_ne!(zero.checksum(), plus);
}

#[test]
fn the_checksum_sees_the_order_of_the_free_list() {
    // The same dead slots with the same generations, freed in another
    // order: the next spawn gets another entity, so the worlds differ.
    let mut world = World::<Game>::new();
    let a = world.spawn((Vel(1.0),));
    let b = world.spawn((Vel(2.0),));
    let (mut ab, mut ba) = (world.clone(), world.clone());
    ab.despawn(a).unwrap();
    ab.despawn(b).unwrap();
    ba.despawn(b).unwrap();
    ba.despawn(a).unwrap();
    assert_ne!(ab.checksum(), ba.checksum());
    assert_ne!(ab.clone().spawn((Frozen,)), ba.clone().spawn((Frozen,)));
}

#[test]
fn the_checksum_is_the_same_in_every_process() {
    // Written down from one run: any process, any machine, gives it.
    let (world, _) = churned(11, 500);
    assert_eq!(world.checksum(), CHURNED);
}

const CHURNED: u128 = 0x2834_deeb_32e3_1558_302f_d854_d0ea_014c;

/// Two entities, one despawned, and a resource set: small enough to read.
fn tiny() -> World<Game> {
    let mut world = World::<Game>::new();
    world.spawn((Pos(1.0, -2.0), Name("a".into())));
    let gone = world.spawn((Vel(0.5), Frozen));
    world.spawn((Vel(-0.0),));
    world.despawn(gone).unwrap();
    world.resource_mut::<Frame>().0 = 7;
    world
}

#[test]
fn the_checksum_of_a_tiny_world_is_written_down() {
    // XXH3-128 of the bytes `World::checksum` documents, written down once:
    // a change to the hash, to what it covers or to the byte order (on a
    // big-endian machine, say) shows up here. Such a change breaks the
    // comparison of checksums across versions (replays, logs, peers), so it
    // belongs in the changelog.
    assert_eq!(tiny().checksum(), TINY);
    assert_eq!(tiny().clone().checksum(), TINY);
}

const TINY: u128 = 0xb7e1_f4cb_3e4d_cbc2_8db9_10cf_1f9e_049b;

#[test]
fn the_checksum_is_xxh3_of_the_bytes_its_docs_list() {
    // The tiny world written out by hand, in the order `World::checksum`
    // documents: every integer little-endian, lengths as u64.
    let mut bytes: Vec<u8> = Vec::new();
    let u32s = |bytes: &mut Vec<u8>, words: &[u32]| {
        for word in words {
            bytes.extend(word.to_le_bytes());
        }
    };
    let u64s = |bytes: &mut Vec<u8>, words: &[u64]| {
        for word in words {
            bytes.extend(word.to_le_bytes());
        }
    };
    // Slots: 0 and 2 alive in generation 1, 1 dead; the free list holds
    // slot 1, whose next occupant gets generation 2; no reservations.
    u64s(&mut bytes, &[3]);
    u32s(&mut bytes, &[1, 0, 1]);
    u64s(&mut bytes, &[1]);
    u32s(&mut bytes, &[1, 2, 0, 0]);
    // Tables, as made: [], [Pos, Name], [Vel, Frozen] (emptied), [Vel].
    // Bits: Pos 0, Vel 1, Name 2, Frozen 3.
    u64s(&mut bytes, &[4]);
    bytes.extend(0u128.to_le_bytes());
    u64s(&mut bytes, &[0]);
    bytes.extend(0b0101u128.to_le_bytes());
    u64s(&mut bytes, &[1]);
    u32s(&mut bytes, &[0]);
    u64s(&mut bytes, &[1]);
    bytes.extend(1.0f32.to_bits().to_le_bytes());
    bytes.extend((-2.0f32).to_bits().to_le_bytes());
    u64s(&mut bytes, &[1, 1]);
    bytes.extend(b"a");
    bytes.extend(0b1010u128.to_le_bytes());
    u64s(&mut bytes, &[0, 0]);
    bytes.extend(0b0010u128.to_le_bytes());
    u64s(&mut bytes, &[1]);
    u32s(&mut bytes, &[2]);
    u64s(&mut bytes, &[1]);
    bytes.extend((-0.0f64).to_bits().to_le_bytes());
    // The tag bags, one per bit: the values of each tag that live entities
    // hold (Frozen's went with its only holder; data components' stay
    // empty).
    u64s(&mut bytes, &[0, 0, 0, 0]);
    // The resources: Frame(7), an empty Log.
    u64s(&mut bytes, &[7, 0]);
    assert_eq!(tiny().checksum(), xxhash_rust::xxh3::xxh3_128(&bytes));
}

#[test]
fn a_world_whose_components_are_not_clone_still_works() {
    struct Handle(#[allow(dead_code)] std::fs::File);
    #[derive(Schema)]
    struct Files {
        handle: Handle,
        pos: Pos,
    }
    let mut world = World::<Files>::new();
    let e = world.spawn((Pos(1.0, 2.0),));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0, 2.0)));
}

#[test]
fn a_schedule_run_after_a_restore_sees_the_restored_tables() {
    fn sum_pos(query: Query<&Pos>, mut log: ResMut<Log>) {
        let mut xs: Vec<f32> = query.iter().map(|pos| pos.0).collect();
        xs.sort_by(f32::total_cmp);
        log.0.push(format!("{xs:?}"));
    }
    let mut world = World::<Game>::new();
    world.spawn((Pos(1.0, 0.0),));
    let snapshot = world.clone();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sum_pos);
    // The schedule's query meets table {Pos, Vel}, made after the snapshot.
    world.spawn((Pos(2.0, 0.0), Vel(0.0)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["[1.0, 2.0]"]);
    // Restored, the world has only table {Pos}; the next table made is
    // {Vel}, at the index {Pos, Vel} had.
    world.clone_from(&snapshot);
    world.spawn((Vel(1.0),));
    world.spawn((Pos(3.0, 0.0), Name("c".into())));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["[1.0, 3.0]"]);
}

#[test]
fn one_schedule_runs_on_two_worlds_of_different_shapes() {
    fn names(query: Query<&Name>, mut log: ResMut<Log>) {
        let mut names: Vec<&str> = query.iter().map(|name| name.0.as_str()).collect();
        names.sort();
        log.0.push(names.join(","));
    }
    let mut schedule = Schedule::<Game>::new();
    schedule.add(names);
    let mut first = World::<Game>::new();
    first.spawn((Pos(0.0, 0.0), Name("a".into())));
    first.spawn((Vel(0.0), Name("b".into())));
    let mut second = World::<Game>::new();
    second.spawn((Vel(0.0),));
    second.spawn((Pos(0.0, 0.0),));
    second.spawn((Name("c".into()),));
    schedule.run(&mut first);
    schedule.run(&mut second);
    schedule.run(&mut first);
    assert_eq!(first.resource::<Log>().0, ["a,b", "a,b"]);
    assert_eq!(second.resource::<Log>().0, ["c"]);
}

/// `World::checksum_parts` names the parts of two worlds that differ, and
/// only those: one component's value, a tag, a resource.
#[test]
fn checksum_parts_name_what_differs() {
    use ecs::checksum::ChecksumPart;
    let (world, alive) = churned(7, 300);
    let parts = world.checksum_parts();
    assert!(parts.differing(&world.clone().checksum_parts()).is_empty());

    let with_pos = *alive
        .iter()
        .find(|&&e| world.get::<Pos>(e).is_some())
        .expect("an entity with Pos");
    let mut moved = world.clone();
    moved.get_mut::<Pos>(with_pos).unwrap().0 += 1.0;
    assert_eq!(
        moved.checksum_parts().differing(&parts),
        [ChecksumPart::OfComponent("Pos")]
    );

    let unfrozen = *alive
        .iter()
        .find(|&&e| world.get::<Frozen>(e).is_none())
        .expect("an entity without Frozen");
    let mut frozen = world.clone();
    frozen.insert(unfrozen, (Frozen,)).unwrap();
    let differing = frozen.checksum_parts().differing(&parts);
    assert!(differing.contains(&ChecksumPart::Entities), "{differing:?}");
    assert!(
        differing.contains(&ChecksumPart::OfComponent("Frozen")),
        "{differing:?}"
    );
    assert!(
        !differing
            .iter()
            .any(|part| matches!(part, ChecksumPart::OfResource(_))),
        "{differing:?}"
    );

    let mut logged = world.clone();
    logged.resource_mut::<Log>().0.push("one more".into());
    assert_eq!(
        logged.checksum_parts().differing(&parts),
        [ChecksumPart::OfResource("Log")]
    );
    assert_eq!(
        ChecksumPart::OfResource("Log").to_string(),
        "resource `Log`"
    );
}

/// Two worlds have equal checksums exactly when they have equal parts: over
/// pairs of churned worlds, some built alike and some not.
#[test]
fn checksum_parts_agree_with_the_checksum() {
    let (mut equal, mut unequal) = (0, 0);
    for seed in 0..60 {
        let (a, alive) = churned(seed, 120);
        // The same world with one value changed, nothing else.
        let mut nudged = a.clone();
        if let Some(&e) = alive.iter().find(|&&e| a.get::<Pos>(e).is_some()) {
            nudged.get_mut::<Pos>(e).unwrap().1 += 0.5;
        }
        let others = [(seed, 120), (seed, 119), (seed + 1, 120)].map(|(other_seed, steps)| {
            (
                format!("seed {other_seed}, {steps} steps"),
                churned(other_seed, steps).0,
            )
        });
        for (what, b) in others.into_iter().chain([("nudged".to_string(), nudged)]) {
            let same_checksum = a.checksum() == b.checksum();
            let differing = a.checksum_parts().differing(&b.checksum_parts());
            assert_eq!(
                same_checksum,
                differing.is_empty(),
                "seed {seed} against {what}: {differing:?}"
            );
            if same_checksum {
                equal += 1;
            } else {
                unequal += 1;
            }
        }
    }
    assert!(
        equal >= 60 && unequal >= 60,
        "{equal} equal, {unequal} unequal"
    );
}

mod printed {
    //! `#[ecs(debug)]`: a diff's report prints both values of each entity
    //! whose component differs, of every kind of column.
    use ecs::checksum::StableHash;
    use ecs::prelude::*;

    #[derive(Clone, Debug, StableHash)]
    struct Pos(i32);
    #[derive(Soa, Clone, Copy, Debug, StableHash)]
    struct Vel {
        x: i32,
        y: i32,
    }
    #[derive(Clone, Debug, StableHash)]
    struct Hp(u8);
    #[derive(Clone, Debug, StableHash)]
    struct Mark(String);
    #[derive(Clone, Debug, Default, StableHash)]
    struct Frozen;

    #[derive(Schema)]
    #[ecs(debug)]
    struct Printed {
        pos: Pos,
        #[ecs(soa)]
        vel: Vel,
        #[ecs(track)]
        hp: Hp,
        #[ecs(sparse)]
        mark: Mark,
        frozen: Frozen,
    }

    #[test]
    fn a_diff_of_a_debug_schema_prints_both_values() {
        let mut a = World::<Printed>::new();
        let ids: Vec<Entity> = (0..3)
            .map(|i| a.spawn((Pos(i), Vel { x: i, y: i }, Hp(3), Mark(format!("m{i}")))))
            .collect();
        let mut b = a.clone();
        b.get_mut::<Pos>(ids[1]).unwrap().0 = 5;
        *b.get_soa_mut::<Vel>(ids[2]).unwrap().x = 9;
        // The same value of Hp, written at a later tick.
        fn nothing() {}
        Schedule::<Printed>::new().add(nothing).run(&mut b);
        b.get_mut::<Hp>(ids[1]).unwrap();
        b.get_mut::<Mark>(ids[0]).unwrap().0 = "renamed".into();
        b.insert(ids[2], (Frozen,)).unwrap();
        let diff = a.diff(&b);
        let pos = diff.component("Pos").unwrap();
        assert_eq!(
            pos.printed(),
            [(ids[1], "Pos(1)".to_string(), "Pos(5)".to_string())]
        );
        assert!(diff.component("Frozen").unwrap().printed().is_empty());
        let report = diff.to_string();
        for line in [
            "component `Pos`: values (or change ticks) differ for 1 entity: 1v1\n    \
             1v1: Pos(1) in the first world, Pos(5) in the second",
            "component `Vel`: values (or change ticks) differ for 1 entity: 2v1\n    \
             2v1: Vel { x: 2, y: 2 } in the first world, Vel { x: 9, y: 2 } in the second",
            "component `Hp`: values (or change ticks) differ for 1 entity: 1v1\n    \
             1v1: Hp(3) in the first world, the same value in the second (its change ticks \
             differ)",
            "component `Mark`: values (or change ticks) differ for 1 entity: 0v1\n    \
             0v1: Mark(\"m0\") in the first world, Mark(\"renamed\") in the second",
            "component `Frozen`: in the second world only for 1 entity: 2v1",
        ] {
            assert!(report.contains(line), "{line}\nnot in\n{report}");
        }
    }

    #[test]
    fn the_values_printed_stop_at_the_shown_count() {
        let mut a = World::<Printed>::new();
        let ids: Vec<Entity> = (0..20)
            .map(|i| a.spawn((Pos(i), Vel { x: 0, y: 0 })))
            .collect();
        let mut b = a.clone();
        for &e in &ids {
            b.get_mut::<Pos>(e).unwrap().0 += 100;
        }
        let diff = a.diff(&b);
        let pos = diff.component("Pos").unwrap();
        assert_eq!(pos.values().len(), 20);
        assert_eq!(pos.printed().len(), ecs::checksum::WorldDiff::SHOWN);
        assert_eq!(
            pos.printed()[7],
            (ids[7], "Pos(7)".into(), "Pos(107)".into())
        );
    }
}

/// `World::diff` names the system whose `Local`s differ, and only it.
#[test]
fn a_diff_names_the_system_whose_locals_differ() {
    fn count(mut runs: Local<u32>) {
        *runs += 1;
    }
    fn notice(mut seen: Local<usize>, q: Query<&Pos>) {
        *seen = q.iter().count();
    }
    let (mut a, _) = churned(3, 50);
    let mut schedule = Schedule::<Game>::new();
    schedule.add(count).add(notice);
    schedule.run(&mut a);
    let mut b = a.clone();
    assert!(a.diff(&b).is_empty());
    schedule.run(&mut b);
    let diff = a.diff(&b);
    assert_eq!(diff.locals(), ["system `count`"], "{diff}");
    assert!(
        diff.to_string()
            .contains("the systems' locals: of system `count`"),
        "{diff}"
    );
}
