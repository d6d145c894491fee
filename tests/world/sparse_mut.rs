//! `SparseMut`: a system inserts and removes a sparse component at once,
//! beside systems that do not touch it, with the result of program order.

use ecs::prelude::*;

use ecs::checksum::StableHash;
use ecs::command::SparseMut;

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Heat(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Stun(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Glow(u32);

#[derive(Debug, Default, PartialEq, StableHash)]
struct Log(Vec<String>);
#[derive(Debug, Default, PartialEq, StableHash)]
struct Counts(Vec<u64>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    heat: Heat,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(sparse, track)]
    glow: Glow,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    counts: Counts,
}

/// Runs `system` once on `world`.
macro_rules! run_once {
    ($world:expr, $system:expr) => {{
        let mut schedule = Schedule::<Game>::new();
        schedule.add($system);
        schedule.run($world);
    }};
}

#[test]
fn insert_remove_get_and_contains_act_at_once() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2), Stun(7)));
    let probe = move |mut stun: SparseMut<Game, Stun>, mut log: ResMut<Log>| {
        // An insert is seen by the next call of the same run.
        assert_eq!(stun.insert(a, Stun(1)), Ok(None));
        assert!(stun.contains(a));
        assert_eq!(stun.get(a), Some(&Stun(1)));
        // Over an old value: the old value comes back.
        assert_eq!(stun.insert(a, Stun(2)), Ok(Some(Stun(1))));
        stun.get_mut(b).unwrap().0 += 1;
        assert_eq!(stun.remove(b), Ok(Some(Stun(8))));
        assert_eq!(stun.remove(b), Ok(None));
        assert!(!stun.contains(b));
        assert_eq!(stun.get(b), None);
        assert_eq!(stun.len(), 1);
        assert!(!stun.is_empty());
        // The set empties and fills again within the run.
        assert_eq!(stun.remove(a), Ok(Some(Stun(2))));
        assert!(stun.is_empty());
        assert_eq!(stun.insert(a, Stun(2)), Ok(None));
        assert!(!stun.is_empty());
        log.0.push(format!("{stun:?}"));
    };
    run_once!(&mut world, probe);
    assert_eq!(world.get::<Stun>(a), Some(&Stun(2)));
    assert!(!world.has::<Stun>(b));
    assert!(world.resource::<Log>().0[0].starts_with("SparseMut { schema: \"Game\""));
    // The rows never moved: the entities are where they were, values intact.
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2)));
}

#[test]
fn a_dead_entity_is_an_error_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let alive = world.spawn((Pos(1), Stun(3)));
    let dead = world.spawn((Pos(2), Stun(4)));
    world.despawn(dead).unwrap();
    let contents = |world: &World<Game>| -> Vec<(Entity, Pos, Option<Stun>)> {
        let query = world.query::<(Entity, &Pos, Option<&Stun>)>();
        query
            .iter()
            .map(|(e, pos, stun)| (e, *pos, stun.copied()))
            .collect()
    };
    let before = contents(&world);
    let probe = move |mut stun: SparseMut<Game, Stun>| {
        assert_eq!(stun.insert(dead, Stun(9)), Err(NoSuchEntity(dead)));
        assert_eq!(stun.remove(dead), Err(NoSuchEntity(dead)));
        assert_eq!(stun.get(dead), None);
        assert_eq!(stun.get_mut(dead), None);
        assert!(!stun.contains(dead));
    };
    run_once!(&mut world, probe);
    assert_eq!(world.get::<Stun>(alive), Some(&Stun(3)));
    assert_eq!(world.query::<&Stun>().count(), 1);
    assert_eq!(contents(&world), before);
}

#[test]
fn an_entity_spawned_by_the_systems_own_commands_is_not_alive_yet() {
    let mut world = World::<Game>::new();
    let probe = |mut commands: Commands<Game>, mut stun: SparseMut<Game, Stun>| {
        let new = commands.spawn((Pos(0),));
        assert_eq!(stun.insert(new, Stun(1)), Err(NoSuchEntity(new)));
    };
    run_once!(&mut world, probe);
    assert_eq!(world.len(), 1);
    assert_eq!(world.query::<&Stun>().count(), 0);
}

fn stun_hot(hot: Query<(Entity, &Heat)>, mut stun: SparseMut<Game, Stun>) {
    for (entity, heat) in hot.iter() {
        if heat.0 > 10 {
            stun.insert(entity, Stun(heat.0 as u32)).unwrap();
        } else {
            stun.remove(entity).unwrap();
        }
    }
}

fn glow_hot(hot: Query<(Entity, &Heat)>, mut glow: SparseMut<Game, Glow>) {
    for (entity, heat) in hot.iter() {
        if heat.0 > 20 {
            glow.insert(entity, Glow(1)).unwrap();
        } else if heat.0 < 0 {
            glow.remove(entity).unwrap();
        } else if let Some(glow) = glow.get_mut(entity) {
            glow.0 += 1;
        }
    }
}

fn drift(mut bodies: Query<&mut Pos>) {
    bodies.for_each_mut(|pos| pos.0 += 1);
}

fn count_stunned(stunned: Query<Entity, With<Stun>>, mut counts: ResMut<Counts>) {
    counts.0.push(stunned.count() as u64);
}

fn gone_glow(gone: Removed<Glow>, mut log: ResMut<Log>) {
    log.0
        .push(format!("glow gone {:?}", gone.iter().collect::<Vec<_>>()));
}

fn cool(mut heat: Query<&mut Heat>) {
    heat.for_each_mut(|heat| heat.0 -= 15);
}

/// The systems above, in this order.
fn schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(stun_hot)
        .add(glow_hot)
        .add(drift)
        .add(count_stunned)
        .add(gone_glow)
        .add(cool);
    schedule
}

#[test]
fn systems_on_other_sets_and_components_share_a_stage_readers_wait() {
    let plan = schedule().describe();
    // Two sets and a table column: one stage.
    assert!(
        plan.contains("stage 1: stun_hot, glow_hot, drift\n"),
        "{plan}"
    );
    // A reader of the set waits for its writer, and so does a reader of
    // the removal log the writer appends to; a writer of what they read
    // waits for them.
    assert!(
        plan.contains("count_stunned waits for stun_hot: stun_hot writes Stun"),
        "{plan}"
    );
    assert!(
        plan.contains(
            "gone_glow waits for glow_hot: glow_hot removes Glow, whose removals gone_glow reads"
        ),
        "{plan}"
    );
    assert!(
        plan.contains("cool waits for stun_hot: cool writes Heat, which stun_hot reads"),
        "{plan}"
    );
}

#[test]
fn tracked_values_are_added_changed_and_their_removals_logged() {
    let mut world = World::<Game>::new();
    let hot = world.spawn((Pos(0), Heat(30)));
    let warm = world.spawn((Pos(0), Heat(15)));
    let cold = world.spawn((Pos(0), Heat(-5), Glow(4)));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(glow_hot).add(gone_glow).add(cool);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Log>().0,
        [format!("glow gone {:?}", [cold])]
    );
    assert_eq!(world.get::<Glow>(hot), Some(&Glow(1)));
    assert!(!world.has::<Glow>(warm));
    let added: Vec<Entity> = world
        .query_filtered::<Entity, Added<Glow>>()
        .iter()
        .collect();
    assert_eq!(added, [hot]);
    world.clear_trackers();
    // Heat is now 15, 0 and -20: hot's glow is written, cold stays out.
    schedule.run(&mut world);
    assert_eq!(world.get::<Glow>(hot), Some(&Glow(2)));
    let changed: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Glow>>()
        .iter()
        .collect();
    assert_eq!(changed, [hot]);
    assert_eq!(world.query_filtered::<Entity, Added<Glow>>().count(), 0);
    assert_eq!(world.resource::<Log>().0.len(), 2);
    assert_eq!(world.resource::<Log>().0[1], "glow gone []");
}

#[test]
fn removing_an_untracked_component_logs_nothing() {
    // The same world, `Stun` (untracked) removed through the `SparseMut`
    // or by hand after the same run: the same checksum, which hashes every
    // removal log.
    let build = || {
        let mut world = World::<Game>::new();
        world.spawn((Pos(0), Stun(1)));
        let stunned = world.spawn((Pos(1), Stun(2)));
        (world, stunned)
    };
    let schedule = |targets: Vec<Entity>| {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(move |mut stun: SparseMut<Game, Stun>| {
            for &entity in &targets {
                assert_eq!(stun.remove(entity), Ok(Some(Stun(2))));
            }
        });
        schedule
    };
    let (mut by_sparse_mut, stunned) = build();
    schedule(vec![stunned]).run(&mut by_sparse_mut);
    let (mut by_hand, stunned) = build();
    schedule(Vec::new()).run(&mut by_hand);
    assert_eq!(by_hand.remove::<Stun>(stunned), Ok(Some(Stun(2))));
    assert!(!by_sparse_mut.has::<Stun>(stunned));
    assert_eq!(by_sparse_mut.checksum(), by_hand.checksum());
}

/// Runs a frame of the systems above on `threads` threads, forced parallel
/// or sequential, and returns every frame's checksum.
fn frames(threads: usize, parallel: Option<bool>) -> Vec<u128> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = World::<Game>::new();
    for i in 0..2_000 {
        let heat = (i * 7919 % 61) as i32 - 20;
        world.spawn((Pos(i), Heat(heat)));
    }
    let mut schedule = schedule();
    schedule.add(|mut heat: Query<(Entity, &mut Heat)>| {
        heat.for_each_mut(|(entity, heat)| {
            heat.0 += (entity.to_bits() % 37) as i32;
        })
    });
    (0..12)
        .map(|_| {
            pool.install(|| match parallel {
                None => schedule.run_sequential(&mut world),
                Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
            });
            world.checksum()
        })
        .collect()
}

#[test]
fn parallel_runs_equal_program_order() {
    let expected = frames(1, None);
    for threads in [1, 2, 4] {
        for force in [true, false] {
            assert_eq!(frames(threads, Some(force)), expected, "{threads} threads");
        }
    }
}

fn heat_up(mut heat: Query<&mut Heat>) {
    heat.for_each_mut(|heat| heat.0 += 1);
}

/// Clears every `Glow`, reading nothing else.
fn put_out(glowing: Query<Entity, With<Pos>>, mut glow: SparseMut<Game, Glow>) {
    for entity in glowing.iter() {
        glow.remove(entity).unwrap();
    }
}

#[test]
fn a_removal_reader_waits_until_the_removals_are_logged_in_program_order() {
    // `put_out` has nothing to wait for and runs in the first stage, but
    // its removals are logged only when it is applied, in program order:
    // after the second `heat_up`, which waits for the first and runs in the
    // second stage. The reader must wait for that, not only for
    // `put_out`'s stage.
    let run = |parallel: Option<bool>| {
        let mut world = World::<Game>::new();
        let glowing: Vec<Entity> = (0..100)
            .map(|i| world.spawn((Pos(i), Heat(0), Glow(1))))
            .collect();
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(heat_up)
            .add(heat_up)
            .add(put_out)
            .add(gone_glow);
        match parallel {
            None => schedule.run_sequential(&mut world),
            Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
        }
        let log = world.resource::<Log>().0.clone();
        (glowing, log, schedule.describe())
    };
    let (glowing, expected, _) = run(None);
    assert_eq!(expected, [format!("glow gone {glowing:?}")]);
    for force in [true, false] {
        let (_, log, plan) = run(Some(force));
        assert_eq!(log, expected, "{plan}");
    }
}

/// Frames of a system that glows (tracked) the hot and puts out the cool,
/// and tries a dead entity, in parallel chunks or in a sequential loop, on
/// `threads` threads, beside a reader of the removals; every frame's
/// checksum and the removal log.
fn glow_in_chunks(threads: usize, chunks: bool) -> (Vec<u128>, Vec<String>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = World::<Game>::new();
    let dead = world.spawn((Pos(-1),));
    world.despawn(dead).unwrap();
    for i in 0..4_000 {
        world.spawn((Pos(i), Heat((i * 7919 % 50) as i32)));
    }
    macro_rules! glow_one {
        ($glow:expr, $entity:expr, $heat:expr) => {{
            let (glow, entity, heat) = ($glow, $entity, $heat);
            heat.0 = (heat.0 + 7) % 50;
            if heat.0 > 30 {
                glow.insert(entity, Glow(heat.0 as u32)).unwrap();
            } else if heat.0 % 3 == 0 {
                glow.remove(entity).unwrap();
            }
            if heat.0 == 11 {
                // (`len` counts a chunk's changes, or a set's values.)
                let before = glow.len();
                assert_eq!(glow.insert(dead, Glow(0)), Err(NoSuchEntity(dead)));
                assert_eq!(glow.len(), before, "a refused change changes nothing");
            }
        }};
    }
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(
            move |mut bodies: Query<(Entity, &mut Heat)>, mut glow: SparseMut<Game, Glow>| {
                if chunks {
                    bodies.par_for_each_mut_with(&mut glow, |glow, (entity, heat)| {
                        glow_one!(glow, entity, heat)
                    });
                } else {
                    bodies.for_each_mut(|(entity, heat)| glow_one!(&mut glow, entity, heat));
                }
            },
        )
        .add(gone_glow);
    let checksums = (0..8)
        .map(|_| {
            pool.install(|| schedule.force_parallel(Some(true)).run(&mut world));
            world.checksum()
        })
        .collect();
    (checksums, world.resource::<Log>().0.clone())
}

#[test]
fn the_chunks_of_a_parallel_loop_change_the_set_as_a_sequential_loop() {
    let expected = glow_in_chunks(1, false);
    assert!(expected.1.iter().any(|line| line != "glow gone []"));
    for threads in [1, 2, 4] {
        assert_eq!(glow_in_chunks(threads, true), expected, "{threads} threads");
    }
}

#[test]
fn a_chunk_of_sparse_changes_counts_and_shows_what_it_recorded() {
    let mut world = World::<Game>::new();
    let all: Vec<Entity> = (0..100).map(|i| world.spawn((Pos(i),))).collect();
    run_once!(
        &mut world,
        |mut bodies: Query<(Entity, &Pos)>, mut glow: SparseMut<Game, Glow>| {
            bodies.par_for_each_mut_with(&mut glow, |glow, (entity, pos)| {
                // Each chunk counts its own changes, from none.
                let before = glow.len();
                assert_eq!(glow.is_empty(), before == 0);
                glow.insert(entity, Glow(pos.0 as u32)).unwrap();
                glow.insert(entity, Glow(pos.0 as u32 + 1)).unwrap();
                assert_eq!(glow.len(), before + 2);
                assert!(!glow.is_empty());
                let shown = format!("{glow:?}");
                assert!(
                    shown.starts_with("ChunkSparseMut")
                        && shown.contains("Glow")
                        && shown.contains(&format!("recorded: {}", before + 2)),
                    "{shown}"
                );
            });
            // The set took every change: the later value of each entity.
            assert_eq!(glow.len(), 100);
        }
    );
    for (i, &entity) in all.iter().enumerate() {
        assert_eq!(world.get::<Glow>(entity), Some(&Glow(i as u32 + 1)));
    }
}

#[test]
fn a_sparse_mut_waits_for_the_commands_of_earlier_systems() {
    // `doom` despawns an entity through commands; `mark`, after it and
    // sharing nothing with it, marks the same entity at once. In program
    // order the entity is gone by then: `mark` must wait for `doom`'s
    // commands, not run beside it.
    let mut world = World::<Game>::new();
    let target = world.spawn((Pos(1),));
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(move |mut commands: Commands<Game>| commands.despawn(target))
        .add(
            move |mut stun: SparseMut<Game, Stun>, mut log: ResMut<Log>| {
                log.0.push(format!("{:?}", stun.insert(target, Stun(1))));
            },
        );
    let plan = schedule.describe();
    assert!(plan.contains("stage 2:"), "{plan}");
    schedule.force_parallel(Some(true)).run(&mut world);
    assert_eq!(
        world.resource::<Log>().0,
        [format!(
            "{:?}",
            Err::<Option<Stun>, _>(NoSuchEntity(target))
        )]
    );
    assert!(!world.is_alive(target));
}

#[test]
fn after_a_panic_in_the_stage_the_removals_made_are_logged() {
    // A `SparseMut` removes at once; when another system of its stage
    // panics, the removals stand, and so does their record for `Removed`.
    let mut world = World::<Game>::new();
    let lit: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), Glow(1)))).collect();
    let mut schedule = Schedule::<Game>::new();
    let doused = lit.clone();
    schedule
        .add(move |mut glow: SparseMut<Game, Glow>| {
            for &entity in &doused {
                glow.remove(entity).unwrap();
            }
        })
        .add(|heat: Query<&Heat>| {
            assert!(heat.iter().count() > 0, "this system fails");
        });
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        schedule.force_parallel(Some(true)).run(&mut world)
    }));
    assert!(run.is_err());
    assert_eq!(world.query::<&Glow>().count(), 0);
    run_once!(&mut world, gone_glow);
    assert_eq!(world.resource::<Log>().0, [format!("glow gone {lit:?}")]);
}
