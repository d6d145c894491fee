//! `Spawner`: a system spawns entities at once, rows pushed straight into
//! their table, beside systems that cannot see them, with the ids and the
//! result of program order.

use ecs::prelude::*;

use ecs::checksum::StableHash;
use ecs::command::{Spawner, UnnamedSpawner};

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Spark(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Shell(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Hot;
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Link(Entity);

#[derive(Debug, Default, PartialEq, StableHash)]
struct Made(Vec<Entity>);
#[derive(Debug, Default, PartialEq, StableHash)]
struct Seen(Vec<u64>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    spark: Spark,
    shell: Shell,
    hot: Hot,
    link: Link,
    #[ecs(resource)]
    made: Made,
    #[ecs(resource)]
    seen: Seen,
}

/// One spark (a tracked component and a tag) per mover, at once; a shell
/// through commands for every other mover, interleaved, so that the two
/// kinds of ids share one sequence; the oldest spark despawned by command.
fn sparks(
    movers: Query<(Entity, &Vel)>,
    old: Query<Entity, With<Shell>>,
    mut spawner: Spawner<Game, (Pos, Spark, Hot)>,
    mut commands: Commands<Game>,
    mut made: ResMut<Made>,
) {
    for (i, (entity, vel)) in movers.iter().enumerate() {
        let spark = spawner.spawn((Pos(vel.0), Spark(i as u32), Hot));
        made.0.push(spark);
        if i % 2 == 0 {
            let shell = commands.spawn((Shell(i as u32), Link(spark)));
            made.0.push(shell);
            // The spark is alive by the time commands are applied.
            commands.insert(spark, (Link(entity),));
        }
    }
    if let Some(first) = old.iter().next() {
        commands.despawn(first);
    }
}

/// The same frame through the `World` API, in program order: the run's
/// spawns at once (the shells' ids, reserved when recorded, come in the
/// same sequence), then its commands.
fn sparks_by_hand(world: &mut World<Game>) {
    let movers: Vec<(Entity, i64)> = world
        .query::<(Entity, &Vel)>()
        .iter()
        .map(|(e, v)| (e, v.0))
        .collect();
    let first_shell = world.query_filtered::<Entity, With<Shell>>().iter().next();
    let mut made = Vec::new();
    let mut links = Vec::new();
    for (i, (entity, vel)) in movers.into_iter().enumerate() {
        let spark = world.spawn((Pos(vel), Spark(i as u32), Hot));
        made.push(spark);
        if i % 2 == 0 {
            made.push(world.spawn((Shell(i as u32), Link(spark))));
            links.push((spark, entity));
        }
    }
    for (spark, entity) in links {
        world.insert(spark, (Link(entity),)).unwrap();
    }
    if let Some(first) = first_shell {
        world.despawn(first).unwrap();
    }
    world.resource_mut::<Made>().0.extend(made);
}

fn drift(mut movers: Query<(&mut Pos, &Vel)>) {
    movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
}

fn world() -> World<Game> {
    let mut world = World::<Game>::new();
    for i in 0..50 {
        world.spawn((Pos(i), Vel(i % 7 - 3)));
    }
    world
}

/// Everything a test compares: each entity (in iteration order) with its
/// components, and the resources.
fn contents(world: &World<Game>) -> String {
    let mut out = String::new();
    for entity in world.iter() {
        let e = world.entity(entity).unwrap();
        out += &format!(
            "{entity:?} {:?} {:?} {:?} {:?} {} {:?}\n",
            e.get::<Pos>(),
            e.get::<Vel>(),
            e.get::<Spark>(),
            e.get::<Shell>(),
            e.has::<Hot>(),
            e.get::<Link>(),
        );
    }
    out += &format!(
        "{:?} {:?}",
        world.resource::<Made>(),
        world.resource::<Seen>()
    );
    out
}

#[test]
fn ids_rows_and_values_are_those_of_program_order() {
    // The first run has no [Pos, Spark, Hot] table yet (the values wait
    // and are placed when the run is applied); the later ones push rows
    // straight into it.
    let mut by_hand = world();
    let mut scheduled = world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparks).add(drift);
    for frame in 0..4 {
        sparks_by_hand(&mut by_hand);
        drift_by_hand(&mut by_hand);
        schedule.run(&mut scheduled);
        assert_eq!(contents(&scheduled), contents(&by_hand), "frame {frame}");
    }
    assert_eq!(scheduled.query::<&Spark>().count(), 200);
    assert_eq!(scheduled.query_filtered::<Entity, With<Hot>>().count(), 200);
    // Tag values are kept like any other: removing one hands it back, for
    // the sparks of the first frame (placed when the run was applied) and
    // for those pushed straight into their table.
    let sparks: Vec<Entity> = scheduled.resource::<Made>().0.clone();
    let sparks: Vec<Entity> = sparks
        .into_iter()
        .filter(|&made| scheduled.get::<Spark>(made).is_some())
        .collect();
    assert_eq!(sparks.len(), 200);
    for spark in sparks {
        assert_eq!(scheduled.remove::<Hot>(spark), Ok(Some(Hot)));
    }
}

/// Spawns through a spawner and, between its spawns, entities with no
/// components through commands, which are made alive with them.
fn sparks_between_empties(mut spawner: Spawner<Game, (Spark,)>, mut commands: Commands<Game>) {
    for i in 0..3 {
        commands.spawn(());
        spawner.spawn((Spark(i),));
    }
    commands.spawn(());
}

#[test]
fn entities_reserved_beside_a_spawner_keep_their_rows_of_program_order() {
    // Commands reserve ids between the spawner's: once alive, those left
    // without components sit in the empty table in the order they were
    // reserved, as in program order. The [Spark] table exists before the
    // first run, so that every run pushes rows straight into it. (The
    // first run on a world without the table stages the values instead,
    // and does not keep this order yet.)
    let mut by_hand = world();
    let mut scheduled = world();
    by_hand.spawn((Spark(9),));
    scheduled.spawn((Spark(9),));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparks_between_empties);
    for frame in 0..3 {
        for i in 0..3 {
            by_hand.spawn(());
            by_hand.spawn((Spark(i),));
        }
        by_hand.spawn(());
        schedule.run(&mut scheduled);
        assert_eq!(contents(&scheduled), contents(&by_hand), "frame {frame}");
    }
}

fn drift_by_hand(world: &mut World<Game>) {
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each_mut(|(pos, vel)| pos.0 += vel.0);
}

#[test]
fn new_rows_are_added_now_for_change_detection() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparks);
    schedule.run(&mut world); // staged: the table is made
    world.clear_trackers();
    schedule.run(&mut world); // straight into the table
    assert_eq!(
        world.query_filtered::<Entity, Added<Spark>>().count(),
        50,
        "only this run's sparks are new"
    );
}

#[test]
fn the_new_entities_are_not_alive_until_the_run_is_applied() {
    let mut world = world();
    let probe = |movers: Query<Entity, With<Vel>>,
                 mut spawner: Spawner<Game, (Shell,)>,
                 mut seen: ResMut<Seen>| {
        let shell = spawner.spawn((Shell(1),));
        seen.0.push(u64::from(movers.get(shell).is_err()));
        seen.0.push(spawner.len() as u64);
    };
    // Twice: the staged path, then the table's.
    let mut schedule = Schedule::<Game>::new();
    schedule.add(probe);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [1, 1, 1, 1]);
    assert_eq!(world.query::<&Shell>().count(), 2);
}

fn spark_reader(sparks: Query<&Spark>, mut seen: ResMut<Seen>) {
    seen.0.push(sparks.iter().count() as u64);
}

fn shell_spawner(mut spawner: Spawner<Game, (Shell,)>) {
    spawner.spawn((Shell(9),));
}

fn spark_spawner(mut spawner: Spawner<Game, (Spark,)>) {
    spawner.spawn((Spark(9),));
}

fn count_all(everyone: Query<Entity>, mut seen: ResMut<Seen>) {
    seen.0.push(everyone.iter().count() as u64);
}

/// Reads the ids `record_shells` writes; only its place in the plan matters.
fn linker(made: Res<Made>, links: Query<&Link>, mut count: Local<usize>) {
    *count = made.0.len() + links.iter().count();
}

#[test]
fn the_plan_keeps_what_could_see_the_new_entities_after_them() {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(record_shells)
        .add(drift)
        .add(spark_spawner)
        .add(count_all)
        .add(linker);
    let plan = schedule.describe();
    // `drift` cannot reach [Shell] (it needs `Vel`) and shares nothing.
    assert!(plan.contains("stage 1: record_shells, drift\n"), "{plan}");
    // A query that can reach [Shell], reading nothing of it.
    assert!(
        plan.contains(
            "count_all waits for spark_spawner: spark_spawner spawns entities that count_all's \
             query can reach"
        ),
        "{plan}"
    );
    // Ids are reserved in program order.
    assert!(
        plan.contains(
            "spark_spawner waits for record_shells: spark_spawner reserves entity ids after \
             record_shells's"
        ),
        "{plan}"
    );
    // `linker` reads `Made`, which may hold a new id.
    assert!(
        plan.contains(
            "linker waits for record_shells: record_shells writes Made, which linker reads"
        ),
        "{plan}"
    );
}

/// `heat` (writes `Vel`) then `heat` again, a spawner that needs neither,
/// and a reader of `Made`, which the spawner writes: the spawner runs in
/// the first stage, is applied after the second `heat`, and the reader must
/// wait for that, since it could look the new ids up.
fn heat(mut vel: Query<&mut Vel>) {
    vel.for_each_mut(|vel| vel.0 += 1);
}

fn record_shells(mut spawner: Spawner<Game, (Shell,)>, mut made: ResMut<Made>) {
    for i in 0..10 {
        made.0.push(spawner.spawn((Shell(i),)));
    }
}

fn look_up(made: Res<Made>, shells: Query<&Shell>, mut seen: ResMut<Seen>) {
    for &entity in &made.0 {
        seen.0.push(u64::from(shells.get(entity).is_ok()));
    }
}

#[test]
fn a_system_handed_a_new_id_waits_until_it_is_alive() {
    let run = |parallel: Option<bool>| {
        let mut world = world();
        let mut schedule = Schedule::<Game>::new();
        schedule.add(heat).add(heat).add(record_shells).add(look_up);
        for _ in 0..3 {
            match parallel {
                None => schedule.run_sequential(&mut world),
                Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
            }
        }
        (contents(&world), schedule.describe())
    };
    let (expected, _) = run(None);
    assert!(!expected.contains("Seen([0"), "{expected}");
    for force in [true, false] {
        let (got, plan) = run(Some(force));
        assert_eq!(got, expected, "{plan}");
    }
}

/// The checksum after each of `count` frames of the schedule `build`
/// makes, run on `threads` threads, forced parallel or inline, or (`None`)
/// by `run_sequential`.
fn frames(
    build: fn() -> Schedule<Game>,
    count: usize,
    threads: usize,
    parallel: Option<bool>,
) -> Vec<u128> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = world();
    let mut schedule = build();
    (0..count)
        .map(|_| {
            pool.install(|| match parallel {
                None => schedule.run_sequential(&mut world),
                Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
            });
            world.checksum()
        })
        .collect()
}

/// Spawners and other systems.
fn mixed() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(heat)
        .add(sparks)
        .add(drift)
        .add(record_shells)
        .add(spark_reader)
        .add(
            |mut commands: Commands<Game>, shells: Query<(Entity, &Shell)>| {
                for (entity, shell) in shells.iter() {
                    if shell.0 % 3 == 0 {
                        commands.despawn(entity);
                    }
                }
            },
        )
        .add(shell_spawner);
    schedule
}

/// Checks that `build`'s frames equal program order on 1, 2 and 4 threads.
fn assert_equal_to_program_order(build: fn() -> Schedule<Game>, count: usize) {
    let expected = frames(build, count, 1, None);
    for threads in [1, 2, 4] {
        for force in [true, false] {
            let got = frames(build, count, threads, Some(force));
            assert_eq!(got, expected, "{threads} threads");
        }
    }
}

#[test]
fn parallel_runs_equal_program_order() {
    assert_equal_to_program_order(mixed, 10);
}

#[test]
fn after_a_panic_the_rows_pushed_stand_alive() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    // The first schedule makes the table; the second pushes into it,
    // then panics.
    schedule.add(|mut spawner: Spawner<Game, (Shell,)>| {
        spawner.spawn((Shell(1),));
        spawner.spawn((Shell(2),));
    });
    schedule.run(&mut world);
    let mut panicking = Schedule::<Game>::new();
    panicking.add(|mut spawner: Spawner<Game, (Shell,)>| {
        spawner.spawn((Shell(3),));
        panic!("boom");
    });
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panicking.run(&mut world)));
    assert!(result.is_err());
    let shells: Vec<u32> = world.query::<&Shell>().iter().map(|s| s.0).collect();
    assert_eq!(shells, [1, 2, 3]);
    assert_eq!(world.len(), 53);
    // The world goes on: a spawn gets a fresh id.
    let next = world.spawn((Shell(4),));
    assert!(world.is_alive(next));
    assert_eq!(world.len(), 54);
}

// ---- UnnamedSpawner ------------------------------------------------------

/// Three shells without ids, and a mover by command for each, the command
/// recorded first.
fn puffs(mut shells: UnnamedSpawner<Game, (Shell,)>, mut commands: Commands<Game>) {
    for i in 0..3 {
        commands.spawn((Pos(i), Vel(1)));
        shells.spawn((Shell(i as u32),));
    }
}

fn sparkles(mut sparks: UnnamedSpawner<Game, (Spark, Hot)>) {
    for i in 0..2 {
        sparks.spawn((Spark(i), Hot));
    }
}

#[test]
fn unnamed_ids_follow_the_reserved_ones_in_program_order() {
    let mut scheduled = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(puffs).add(sparkles);
    let mut by_hand = World::<Game>::new();
    for _ in 0..3 {
        schedule.run(&mut scheduled);
        // `puffs`: the commands' ids were reserved while it ran, before
        // the shells got theirs; then `sparkles`.
        for i in 0..3 {
            by_hand.spawn((Pos(i), Vel(1)));
        }
        for i in 0..3 {
            by_hand.spawn((Shell(i as u32),));
        }
        for i in 0..2 {
            by_hand.spawn((Spark(i), Hot));
        }
        let mut got: Vec<Entity> = scheduled.iter().collect();
        let mut expected: Vec<Entity> = by_hand.iter().collect();
        got.sort();
        expected.sort();
        assert_eq!(got, expected);
        for &e in &expected {
            assert_eq!(scheduled.get::<Shell>(e), by_hand.get::<Shell>(e), "{e:?}");
            assert_eq!(scheduled.get::<Spark>(e), by_hand.get::<Spark>(e), "{e:?}");
            assert_eq!(scheduled.get::<Pos>(e), by_hand.get::<Pos>(e), "{e:?}");
            assert_eq!(scheduled.has::<Hot>(e), by_hand.has::<Hot>(e), "{e:?}");
        }
    }
    // Rows in spawn order, in their tables.
    let shells: Vec<u32> = scheduled.query::<&Shell>().iter().map(|s| s.0).collect();
    assert_eq!(shells, [0, 1, 2, 0, 1, 2, 0, 1, 2]);
}

fn smoke(mut shells: UnnamedSpawner<Game, (Shell,)>) {
    shells.spawn((Shell(5),));
}

#[test]
fn unnamed_spawners_share_a_stage_and_reservers_wait_for_them() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparkles).add(smoke);
    let plan = schedule.describe();
    assert!(plan.contains("stage 1: sparkles, smoke\n"), "{plan}");
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparkles).add(record_shells);
    let plan = schedule.describe();
    assert!(
        plan.contains(
            "record_shells waits for sparkles: record_shells reserves entity ids after sparkles's"
        ),
        "{plan}"
    );
}

/// Unnamed spawners among the others.
fn mixed_unnamed() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(sparkles)
        .add(drift)
        .add(puffs)
        .add(heat)
        .add(spark_reader)
        .add(record_shells)
        .add(
            |mut commands: Commands<Game>, sparks: Query<(Entity, &Spark)>| {
                for (entity, spark) in sparks.iter() {
                    if spark.0 == 0 {
                        commands.despawn(entity);
                    }
                }
            },
        );
    schedule
}

#[test]
fn unnamed_spawns_equal_program_order_in_parallel() {
    assert_equal_to_program_order(mixed_unnamed, 8);
}

#[test]
fn after_a_panic_unnamed_rows_stand_alive() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparkles);
    schedule.run(&mut world); // makes the table
    let mut panicking = Schedule::<Game>::new();
    panicking.add(|mut sparks: UnnamedSpawner<Game, (Spark, Hot)>| {
        sparks.spawn((Spark(7), Hot));
        panic!("boom");
    });
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panicking.run(&mut world)));
    assert!(result.is_err());
    let sparks: Vec<u32> = world.query::<&Spark>().iter().map(|s| s.0).collect();
    assert_eq!(sparks, [0, 1, 7]);
    assert_eq!(world.len(), 53);
    let spawned: Vec<Entity> = world
        .query_filtered::<Entity, With<Spark>>()
        .iter()
        .collect();
    assert!(spawned.iter().all(|&e| world.is_alive(e)));
}

/// How [`spawn_frames`] spawns.
#[derive(Clone, Copy, Debug)]
enum Emit {
    /// A sequential loop through a `Spawner` and `Commands`.
    Loop,
    /// The chunks of a parallel loop, through a `Spawner` and `Commands`.
    Chunks,
    /// The chunks of a parallel loop, through an `UnnamedSpawner`, and
    /// `Commands`.
    UnnamedChunks,
}

/// What each mover does in [`spawn_frames`]: speeds up, throws sparks by
/// its speed, and is marked (`Link` to itself) every fourth frame of speed.
macro_rules! emit_one {
    ($spawner:expr, $commands:expr, ($entity:expr, $pos:expr, $vel:expr)) => {{
        let (spawner, commands, entity, pos, vel) = ($spawner, $commands, $entity, $pos, $vel);
        vel.0 = (vel.0 + 1) % 5;
        for i in 0..vel.0 {
            spawner.spawn((Pos(pos.0 * 10 + i), Spark(vel.0 as u32), Hot));
        }
        if vel.0 == 3 {
            commands.insert(entity, (Link(entity),));
        }
    }};
}

/// Frames of a system that spawns from every mover (as `emit` says), and
/// of one that despawns the sparks of speed 2 (so that ids are reused), on
/// `threads` threads; the world's contents after each frame.
fn spawn_frames(threads: usize, emit: Emit) -> Vec<String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = World::<Game>::new();
    for i in 0..2_000 {
        world.spawn((Pos(i), Vel(i * 7919 % 5)));
    }
    let mut schedule = Schedule::<Game>::new();
    match emit {
        Emit::Loop => schedule.add(
            |mut movers: Query<(Entity, &Pos, &mut Vel)>,
             mut spawner: Spawner<Game, (Pos, Spark, Hot)>,
             mut commands: Commands<Game>| {
                movers.for_each_mut(|(entity, pos, vel)| {
                    emit_one!(&mut spawner, &mut commands, (entity, pos, vel))
                });
            },
        ),
        Emit::Chunks => schedule.add(
            |mut movers: Query<(Entity, &Pos, &mut Vel)>,
             mut spawner: Spawner<Game, (Pos, Spark, Hot)>,
             mut commands: Commands<Game>| {
                movers.par_for_each_mut_with(
                    (&mut spawner, &mut commands),
                    |(spawner, commands), (entity, pos, vel)| {
                        emit_one!(spawner, commands, (entity, pos, vel))
                    },
                );
            },
        ),
        Emit::UnnamedChunks => schedule.add(
            |mut movers: Query<(Entity, &Pos, &mut Vel)>,
             mut spawner: UnnamedSpawner<Game, (Pos, Spark, Hot)>,
             mut commands: Commands<Game>| {
                movers.par_for_each_mut_with(
                    (&mut spawner, &mut commands),
                    |(spawner, commands), (entity, pos, vel)| {
                        emit_one!(spawner, commands, (entity, pos, vel))
                    },
                );
            },
        ),
    };
    schedule.add(
        |sparks: Query<(Entity, &Spark)>, mut commands: Commands<Game>| {
            for (entity, spark) in sparks.iter() {
                if spark.0 == 2 {
                    commands.despawn(entity);
                }
            }
        },
    );
    (0..4)
        .map(|_| {
            pool.install(|| schedule.force_parallel(Some(true)).run(&mut world));
            contents(&world)
        })
        .collect()
}

#[test]
fn the_chunks_of_a_parallel_loop_spawn_what_a_sequential_loop_spawns() {
    // The first frame has no [Pos, Spark, Hot] table yet; the later ones
    // push into it, and reuse the ids of the despawned sparks.
    let expected = spawn_frames(1, Emit::Loop);
    assert!(expected[3].contains("Some(Link("));
    for threads in [1, 2, 4] {
        for emit in [Emit::Chunks, Emit::UnnamedChunks] {
            assert_eq!(
                spawn_frames(threads, emit),
                expected,
                "{threads} threads, {emit:?}"
            );
        }
    }
}

#[test]
fn a_chunk_spawner_counts_and_shows_what_it_recorded() {
    let mut world = world();
    run_once_spawning(&mut world);
    assert_eq!(world.query::<&Spark>().count(), 100);
}

/// Runs once a system that spawns two sparks per mover from the chunks of
/// a parallel loop, checking each chunk's count and `Debug`.
fn run_once_spawning(world: &mut World<Game>) {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(
        |mut movers: Query<(&Pos, &mut Vel)>,
         mut sparks: UnnamedSpawner<Game, (Pos, Spark, Hot)>| {
            movers.par_for_each_mut_with(&mut sparks, |sparks, (pos, _)| {
                // Each chunk counts its own changes, from none.
                let before = sparks.len();
                assert_eq!(sparks.is_empty(), before == 0);
                sparks.spawn((Pos(pos.0), Spark(1), Hot));
                sparks.spawn((Pos(pos.0), Spark(2), Hot));
                assert_eq!(sparks.len(), before + 2);
                assert!(!sparks.is_empty());
                let shown = format!("{sparks:?}");
                assert!(
                    shown.starts_with("ChunkSpawner")
                        && shown.contains("Spark")
                        && shown.contains(&format!("recorded: {}", before + 2)),
                    "{shown}"
                );
            });
            assert_eq!(sparks.len(), 100);
        },
    );
    schedule.run(world);
}

/// Each run counts its own spawns, from none; `Debug` shows the schema,
/// the bundle and the count.
#[test]
fn spawners_count_and_show_what_they_spawned() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(|mut spawner: Spawner<Game, (Shell,)>| {
            assert!(spawner.is_empty());
            assert_eq!(spawner.len(), 0);
            spawner.spawn((Shell(1),));
            assert!(!spawner.is_empty());
            spawner.spawn((Shell(2),));
            assert_eq!(spawner.len(), 2);
            let shown = format!("{spawner:?}");
            assert!(
                shown.starts_with("Spawner {")
                    && shown.contains("schema: \"Game\"")
                    && shown.contains("Shell")
                    && shown.contains("spawned: 2"),
                "{shown}"
            );
        })
        .add(|mut spawner: UnnamedSpawner<Game, (Spark,)>| {
            assert!(spawner.is_empty());
            assert_eq!(spawner.len(), 0);
            spawner.spawn((Spark(1),));
            assert!(!spawner.is_empty());
            assert_eq!(spawner.len(), 1);
            let shown = format!("{spawner:?}");
            assert!(
                shown.starts_with("UnnamedSpawner {")
                    && shown.contains("schema: \"Game\"")
                    && shown.contains("Spark")
                    && shown.contains("spawned: 1"),
                "{shown}"
            );
        });
    // Twice: the staged path, then the table's.
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.query::<&Shell>().count(), 4);
    assert_eq!(world.query::<&Spark>().count(), 2);
}

#[test]
fn a_spawner_waits_for_the_commands_of_earlier_systems() {
    // `doom` despawns through commands; the spawner after it, sharing
    // nothing with it, must see the slot freed, as program order does: its
    // spawn reuses the despawned entity's index.
    let mut world = world();
    let doomed = world.spawn((Shell(0),));
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(move |mut commands: Commands<Game>| commands.despawn(doomed))
        .add(
            |mut spawner: Spawner<Game, (Spark,)>, mut made: ResMut<Made>| {
                made.0.push(spawner.spawn((Spark(7),)));
            },
        );
    schedule.force_parallel(Some(true)).run(&mut world);
    let spark = world.resource::<Made>().0[0];
    assert_eq!(spark.index(), doomed.index(), "{spark:?} after {doomed:?}");
    assert!(!world.is_alive(doomed) && world.is_alive(spark));
}

#[test]
fn two_spawners_of_one_table_take_turns() {
    // Both push rows into the [Spark] table: they cannot share a stage.
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(|mut sparks: UnnamedSpawner<Game, (Spark,)>| sparks.spawn((Spark(1),)))
        .add(|mut sparks: UnnamedSpawner<Game, (Spark,)>| sparks.spawn((Spark(2),)));
    let plan = schedule.describe();
    assert!(plan.contains("stage 2:"), "{plan}");
    for _ in 0..3 {
        schedule.force_parallel(Some(true)).run(&mut world);
    }
    let sparks: Vec<u32> = world.query::<&Spark>().iter().map(|s| s.0).collect();
    assert_eq!(sparks, [1, 2, 1, 2, 1, 2]);
}

#[test]
fn a_spawner_runs_beside_a_query_that_excludes_its_bundle() {
    // The query requires `Pos` and excludes `Spark`: it cannot reach the
    // [Pos, Spark, Hot] table the spawner fills, so the two share a stage.
    let mut schedule = Schedule::<Game>::new();
    schedule.add(sparks_only).add(still);
    let plan = schedule.describe();
    assert!(plan.contains("stage 1: sparks_only, still\n"), "{plan}");
    let mut world = world();
    schedule.run(&mut world);
    assert_eq!(world.query::<&Spark>().count(), 1);
}

fn sparks_only(mut spawner: Spawner<Game, (Pos, Spark, Hot)>) {
    spawner.spawn((Pos(0), Spark(0), Hot));
}

fn still(mut rest: Query<&mut Pos, Without<Spark>>) {
    rest.for_each_mut(|pos| pos.0 += 0);
}

#[test]
fn an_unnamed_spawner_waits_for_the_commands_of_earlier_systems() {
    // `doom` despawns a spark through commands, which moves the table's
    // last row into its place; the unnamed spawner after it pushes into
    // that table. In program order its rows come after the despawn: it
    // must wait for `doom`'s commands.
    let contents_after = |parallel: bool| {
        let mut world = world();
        let sparks: Vec<Entity> = (0..5).map(|i| world.spawn((Spark(i),))).collect();
        let doomed = sparks[0];
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(move |mut commands: Commands<Game>| commands.despawn(doomed))
            .add(|mut spawner: UnnamedSpawner<Game, (Spark,)>| {
                spawner.spawn((Spark(10),));
                spawner.spawn((Spark(11),));
            });
        if parallel {
            let plan = schedule.describe();
            assert!(plan.contains("stage 2:"), "{plan}");
            schedule.force_parallel(Some(true)).run(&mut world);
        } else {
            schedule.run_sequential(&mut world);
        }
        contents(&world)
    };
    assert_eq!(contents_after(true), contents_after(false));
}
