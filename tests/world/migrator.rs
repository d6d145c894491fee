//! `Migrator`: a system adds and removes a table component on the entities
//! of the tables its filter matches, beside systems that cannot reach those
//! tables, with the result of program order.

use ecs::prelude::*;

use ecs::command::{Migrator, SparseMut};
use ecs::{checksum::StableHash, command::MigrateError};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Heat(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Burning(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Lit(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Red;
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Blue;
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Stun(u32);

#[derive(Debug, Default, PartialEq, StableHash)]
struct Log(Vec<String>);

/// Drops of `Flame` and `Mark` values: only `values_are_dropped_once` uses
/// them.
static FLAMES_DROPPED: AtomicUsize = AtomicUsize::new(0);
static MARKS_DROPPED: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug, PartialEq, StableHash)]
struct Flame(u32);
impl Drop for Flame {
    fn drop(&mut self) {
        FLAMES_DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

/// A tag (zero-sized) whose values are counted as they drop.
#[derive(Debug, PartialEq, StableHash)]
struct Mark;
impl Drop for Mark {
    fn drop(&mut self) {
        MARKS_DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Schema)]
struct Game {
    pos: Pos,
    heat: Heat,
    burning: Burning,
    #[ecs(track)]
    lit: Lit,
    red: Red,
    blue: Blue,
    #[ecs(sparse)]
    stun: Stun,
    flame: Flame,
    mark: Mark,
    #[ecs(resource)]
    log: Log,
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
fn changes_are_made_in_order_when_the_run_is_applied() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1), Red));
    let b = world.spawn((Pos(2), Red, Burning(7)));
    let c = world.spawn((Pos(3), Red));
    let probe = move |rows: Query<(Entity, &Pos, Has<Burning>), With<Red>>,
                      mut burning: Migrator<Game, Burning, With<Red>>,
                      mut log: ResMut<Log>| {
        assert!(burning.is_empty());
        for (entity, pos, lit) in rows.iter() {
            if lit {
                burning.remove(entity).unwrap();
            } else {
                burning.insert(entity, Burning(pos.0 as u32 * 10)).unwrap();
            }
        }
        // Recorded, not made: the query still sees every row where it was.
        assert_eq!(rows.iter().filter(|&(_, _, lit)| lit).count(), 1);
        // Over a value recorded earlier: the last one stands. An insert
        // then a removal leaves nothing.
        burning.insert(a, Burning(99)).unwrap();
        burning.remove(c).unwrap();
        assert_eq!(burning.len(), 5);
        log.0.push(format!("{burning:?}"));
    };
    run_once!(&mut world, probe);
    assert_eq!(world.get::<Burning>(a), Some(&Burning(99)));
    assert!(!world.has::<Burning>(b));
    assert!(!world.has::<Burning>(c));
    // The other components moved with their rows.
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2)));
    assert_eq!(world.get::<Pos>(c), Some(&Pos(3)));
    assert!(world.has::<Red>(a) && world.has::<Red>(b) && world.has::<Red>(c));
    assert_eq!(
        world.resource::<Log>().0,
        [String::from(
            "Migrator { schema: \"Game\", component: \"world::migrator::Burning\", filter: \
             \"schemecs::query::filter::With<world::migrator::Red>\", recorded: 5 }"
        )]
    );
}

#[test]
fn the_same_world_as_world_insert_and_remove_called_in_order() {
    // Each entity ends as `World::insert` and `World::remove` called in the
    // order recorded leave it; the rows of a table land in an order of the
    // moves' own (each table's recorded rows visited last first), the same
    // on any number of threads.
    let build = || {
        let mut world = World::<Game>::new();
        let entities: Vec<Entity> = (0..40)
            .map(|i| {
                if i % 3 == 0 {
                    world.spawn((Pos(i), Red, Burning(i as u32)))
                } else {
                    world.spawn((Pos(i), Red))
                }
            })
            .collect();
        (world, entities)
    };
    // Each entity once, then a quarter of them again: an insert after a
    // removal, a removal after an insert, an overwrite.
    let order: Vec<usize> = (0..40)
        .map(|i| (i * 17) % 40)
        .chain((0..40).step_by(4))
        .collect();
    let (mut by_hand, entities) = build();
    for &i in &order {
        let entity = entities[i];
        if by_hand.has::<Burning>(entity) && i % 2 == 0 {
            by_hand.remove::<Burning>(entity).unwrap();
        } else {
            by_hand.insert(entity, (Burning(i as u32 + 100),)).unwrap();
        }
    }
    let (mut world, entities) = build();
    let recorded = entities.clone();
    let flip = move |mut burning: Migrator<Game, Burning>, mut seen: Local<Vec<bool>>| {
        // The migrator sees no change before the moves: track presence here.
        if seen.is_empty() {
            *seen = (0..40).map(|i| i % 3 == 0).collect();
        }
        for &i in &order {
            let entity = recorded[i];
            if seen[i] && i % 2 == 0 {
                burning.remove(entity).unwrap();
                seen[i] = false;
            } else {
                burning.insert(entity, Burning(i as u32 + 100)).unwrap();
                seen[i] = true;
            }
        }
    };
    run_once!(&mut world, flip);
    let rows = |world: &World<Game>| -> Vec<(Entity, Pos, Option<Burning>)> {
        let query = world.query::<(Entity, &Pos, Option<&Burning>)>();
        let mut rows: Vec<_> = query.iter().map(|(e, p, b)| (e, *p, b.copied())).collect();
        rows.sort_by_key(|&(entity, _, _)| entity);
        rows
    };
    assert_eq!(rows(&world), rows(&by_hand));
    assert!(rows(&world).iter().any(|(_, _, burning)| burning.is_none()));
    // Every entity is found where the world says it is.
    for &entity in &entities {
        assert_eq!(world.get::<Pos>(entity), by_hand.get::<Pos>(entity));
        assert_eq!(world.get::<Burning>(entity), by_hand.get::<Burning>(entity));
    }
}

#[test]
fn a_dead_or_unreached_entity_is_an_error_and_records_nothing() {
    let mut world = World::<Game>::new();
    let red = world.spawn((Pos(1), Red));
    let blue = world.spawn((Pos(2), Blue));
    let dead = world.spawn((Pos(3), Red));
    world.despawn(dead).unwrap();
    let probe = move |mut burning: Migrator<Game, Burning, With<Red>>,
                      mut commands: Commands<Game>| {
        assert_eq!(
            burning.insert(dead, Burning(1)),
            Err(MigrateError::NoSuchEntity(dead))
        );
        assert_eq!(burning.remove(dead), Err(MigrateError::NoSuchEntity(dead)));
        assert_eq!(
            burning.insert(blue, Burning(2)),
            Err(MigrateError::OutOfReach(blue))
        );
        assert_eq!(burning.remove(blue), Err(MigrateError::OutOfReach(blue)));
        // Not alive until the system's commands are applied.
        let new = commands.spawn((Pos(4), Red));
        assert_eq!(
            burning.insert(new, Burning(3)),
            Err(MigrateError::NoSuchEntity(new))
        );
        assert!(burning.is_empty());
        burning.insert(red, Burning(4)).unwrap();
    };
    let before = world.checksum();
    run_once!(&mut world, probe);
    assert_ne!(world.checksum(), before);
    assert_eq!(world.get::<Burning>(red), Some(&Burning(4)));
    assert!(!world.has::<Burning>(blue));
    assert_eq!(world.query::<&Burning>().count(), 1);
    assert_eq!(world.query::<&Pos>().count(), 3);
    let text = MigrateError::OutOfReach(blue).to_string();
    assert!(text.contains("outside the migrator's reach"), "{text}");
}

fn burn_red(
    red: Query<(Entity, &Heat, Has<Burning>), With<Red>>,
    mut burning: Migrator<Game, Burning, With<Red>>,
) {
    for (entity, heat, lit) in red.iter() {
        if heat.0 > 10 && !lit {
            burning.insert(entity, Burning(heat.0 as u32)).unwrap();
        } else if heat.0 <= 10 && lit {
            burning.remove(entity).unwrap();
        }
    }
}

/// Blue and not red: apart from `burn_red`'s tables.
type BlueOnly = (With<Blue>, Without<Red>);

fn light_blue(
    blue: Query<(Entity, &Heat, Has<Lit>), BlueOnly>,
    mut lit: Migrator<Game, Lit, BlueOnly>,
) {
    for (entity, heat, on) in blue.iter() {
        if heat.0 % 2 == 0 && !on {
            lit.insert(entity, Lit(heat.0 as u32)).unwrap();
        } else if heat.0 % 2 != 0 && on {
            lit.remove(entity).unwrap();
        }
    }
}

/// Only the entities with neither mark: none of the migrators' tables.
fn drift(mut rest: Query<&mut Pos, (Without<Red>, Without<Blue>)>) {
    rest.for_each_mut(|pos| pos.0 += 1);
}

/// Stuns at once: a sparse set, which no migrator moves.
fn stun_all(all: Query<Entity, (Without<Red>, Without<Blue>)>, mut stun: SparseMut<Game, Stun>) {
    for entity in all.iter() {
        stun.insert(entity, Stun(1)).unwrap();
    }
}

fn count_burning(burning: Query<&Burning>, mut log: ResMut<Log>) {
    log.0.push(format!("burning {}", burning.iter().count()));
}

fn gone_lit(gone: Removed<Lit>, mut log: ResMut<Log>) {
    log.0.push(format!("lit gone {}", gone.iter().count()));
}

fn warm(mut heat: Query<(Entity, &mut Heat)>) {
    heat.for_each_mut(|(entity, heat)| heat.0 = (heat.0 + 7 + (entity.index() % 5) as i32) % 23);
}

/// The systems above, in this order.
fn schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(burn_red)
        .add(light_blue)
        .add(drift)
        .add(stun_all)
        .add(count_burning)
        .add(gone_lit)
        .add(warm);
    schedule
}

#[test]
fn migrators_of_disjoint_tables_share_a_stage_and_readers_wait() {
    let plan = schedule().describe();
    assert!(
        plan.contains("stage 1: burn_red, light_blue, drift, stun_all\n"),
        "{plan}"
    );
    assert!(
        plan.contains(
            "count_burning waits for burn_red: burn_red moves entities between tables that \
             count_burning reaches"
        ),
        "{plan}"
    );
    // A reader of a table a migrator moves rows in waits for it, even when
    // another conflict is named first.
    assert!(plan.contains("stage 2: count_burning, warm\n"), "{plan}");
    assert!(
        plan.contains("warm waits for burn_red: warm writes Heat, which burn_red reads"),
        "{plan}"
    );
}

#[test]
fn tracked_values_are_added_and_their_removals_logged() {
    let mut world = World::<Game>::new();
    let even = world.spawn((Pos(0), Heat(4), Blue));
    let odd = world.spawn((Pos(0), Heat(3), Blue, Lit(9)));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(light_blue).add(gone_lit);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["lit gone 1"]);
    assert_eq!(world.get::<Lit>(even), Some(&Lit(4)));
    assert!(!world.has::<Lit>(odd));
    let added: Vec<Entity> = world
        .query_filtered::<Entity, Added<Lit>>()
        .iter()
        .collect();
    assert_eq!(added, [even]);
}

/// Runs frames of the systems above on `threads` threads, forced parallel
/// or sequential, and returns every frame's checksum and the log.
fn frames(threads: usize, parallel: Option<bool>) -> (Vec<u128>, Vec<String>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = World::<Game>::new();
    for i in 0..3_000 {
        let heat = (i * 7919 % 23) as i32;
        match i % 3 {
            0 => world.spawn((Pos(i), Heat(heat), Red)),
            1 => world.spawn((Pos(i), Heat(heat), Blue)),
            _ => world.spawn((Pos(i), Heat(heat))),
        };
    }
    let mut schedule = schedule();
    let checksums = (0..12)
        .map(|_| {
            pool.install(|| match parallel {
                None => schedule.run_sequential(&mut world),
                Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
            });
            world.checksum()
        })
        .collect();
    (checksums, world.resource::<Log>().0.clone())
}

#[test]
fn parallel_runs_equal_program_order() {
    let expected = frames(1, None);
    assert!(expected.1.iter().any(|line| line != "lit gone 0"));
    for threads in [1, 2, 4] {
        for force in [true, false] {
            assert_eq!(frames(threads, Some(force)), expected, "{threads} threads");
        }
    }
}

/// Only entities without `Pos`: apart from `put_out`'s reach.
fn heat_up(mut heat: Query<&mut Heat, Without<Pos>>) {
    heat.for_each_mut(|heat| heat.0 += 1);
}

/// Puts out every `Burning`, reading nothing else.
fn put_out(
    burning: Query<Entity, With<Burning>>,
    mut migrator: Migrator<Game, Burning, With<Pos>>,
) {
    for entity in burning.iter() {
        migrator.remove(entity).unwrap();
    }
}

#[test]
fn a_reader_of_the_tables_waits_until_the_moves_are_made_in_program_order() {
    // `put_out` has nothing to wait for and runs in the first stage, but
    // its moves are made only when it is applied, in program order: after
    // the second `heat_up`, which waits for the first and runs in the
    // second stage. The reader must wait for that, not only for
    // `put_out`'s stage.
    let run = |parallel: Option<bool>| {
        let mut world = World::<Game>::new();
        for i in 0..100 {
            world.spawn((Pos(i), Burning(1)));
            world.spawn((Heat(0),));
        }
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(heat_up)
            .add(heat_up)
            .add(put_out)
            .add(count_burning);
        match parallel {
            None => schedule.run_sequential(&mut world),
            Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
        }
        (world.resource::<Log>().0.clone(), schedule.describe())
    };
    let (expected, _) = run(None);
    assert_eq!(expected, ["burning 0"]);
    for force in [true, false] {
        let (log, plan) = run(Some(force));
        assert_eq!(log, expected, "{plan}");
        assert!(plan.contains("stage 1: heat_up, put_out"), "{plan}");
        assert!(plan.contains("stage 3: count_burning"), "{plan}");
    }
}

/// Burning, with `Pos`: apart from `heat_up`'s entities.
type BurningPos = (With<Burning>, With<Pos>);

/// As `put_out`, reading `Heat` as well.
fn put_out_warm(
    burning: Query<(Entity, &Heat), BurningPos>,
    mut migrator: Migrator<Game, Burning, With<Pos>>,
) {
    for (entity, _) in burning.iter() {
        migrator.remove(entity).unwrap();
    }
}

/// Writes the `Heat` of what burns, and counts it.
fn cool_burning(mut burning: Query<&mut Heat, (With<Burning>, With<Pos>)>, mut log: ResMut<Log>) {
    let mut count = 0;
    burning.for_each_mut(|heat| {
        heat.0 -= 1;
        count += 1;
    });
    log.0.push(format!("cooled {count}"));
}

#[test]
fn a_reader_waits_for_the_moves_even_when_another_conflict_is_named_first() {
    // As above, but the reader also writes `Heat`, which `put_out_warm`
    // reads: the plan names that conflict, and must still hold the reader
    // until the moves are made, not only until `put_out_warm`'s stage ends.
    let run = |parallel: Option<bool>| {
        let mut world = World::<Game>::new();
        for i in 0..100 {
            world.spawn((Pos(i), Heat(5), Burning(1)));
            world.spawn((Heat(0),));
        }
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(heat_up)
            .add(heat_up)
            .add(put_out_warm)
            .add(cool_burning);
        match parallel {
            None => schedule.run_sequential(&mut world),
            Some(force) => schedule.force_parallel(Some(force)).run(&mut world),
        }
        (world.resource::<Log>().0.clone(), schedule.describe())
    };
    let (expected, _) = run(None);
    assert_eq!(expected, ["cooled 0"]);
    for force in [true, false] {
        let (log, plan) = run(Some(force));
        assert_eq!(log, expected, "{plan}");
        assert!(plan.contains("stage 1: heat_up, put_out_warm"), "{plan}");
        assert!(
            plan.contains("cool_burning waits for put_out_warm: cool_burning writes Heat"),
            "{plan}"
        );
    }
}

#[test]
fn values_are_dropped_once_and_tags_kept_in_the_bag() {
    let mut world = World::<Game>::new();
    let lit: Vec<Entity> = (0..10)
        .map(|i| world.spawn((Pos(i), Red, Flame(i as u32), Mark)))
        .collect();
    let dark: Vec<Entity> = (10..20).map(|i| world.spawn((Pos(i), Red))).collect();
    let mut schedule = Schedule::<Game>::new();
    let (out, light) = (lit.clone(), dark.clone());
    schedule.add(move |mut flames: Migrator<Game, Flame, With<Red>>| {
        for &entity in &out[..5] {
            flames.remove(entity).unwrap();
        }
        // Overwritten in place: the old value is dropped.
        flames.insert(out[9], Flame(99)).unwrap();
        for &entity in &light {
            flames.insert(entity, Flame(7)).unwrap();
        }
    });
    // The same tables: a second system, which runs once the first is
    // applied (one system takes one migrator per table).
    let (out, light) = (lit.clone(), dark.clone());
    schedule.add(move |mut marks: Migrator<Game, Mark, With<Red>>| {
        for &entity in &out[..5] {
            marks.remove(entity).unwrap();
        }
        marks.insert(out[9], Mark).unwrap();
        for &entity in &light {
            marks.insert(entity, Mark).unwrap();
        }
    });
    let (flames, marks) = (
        FLAMES_DROPPED.load(Ordering::Relaxed),
        MARKS_DROPPED.load(Ordering::Relaxed),
    );
    schedule.run(&mut world);
    // Five removed and one overwritten, each dropped once.
    assert_eq!(FLAMES_DROPPED.load(Ordering::Relaxed) - flames, 6);
    assert_eq!(MARKS_DROPPED.load(Ordering::Relaxed) - marks, 6);
    assert_eq!(world.get::<Flame>(lit[9]), Some(&Flame(99)));
    for (i, &entity) in lit.iter().enumerate() {
        assert_eq!(world.has::<Flame>(entity), i >= 5);
        assert_eq!(world.get::<Mark>(entity).is_some(), i >= 5);
    }
    for &entity in &dark {
        assert_eq!(world.get::<Flame>(entity), Some(&Flame(7)));
        assert_eq!(world.get::<Mark>(entity), Some(&Mark));
    }
    // The world holds one value of each: dropping it drops 15 of each.
    let (flames, marks) = (
        FLAMES_DROPPED.load(Ordering::Relaxed),
        MARKS_DROPPED.load(Ordering::Relaxed),
    );
    drop(world);
    assert_eq!(FLAMES_DROPPED.load(Ordering::Relaxed) - flames, 15);
    assert_eq!(MARKS_DROPPED.load(Ordering::Relaxed) - marks, 15);
}

#[test]
fn a_table_not_made_yet_is_reached_through_the_world() {
    // No table has `Pos`, `Blue` and `Burning` when the run is prepared:
    // those changes are made when the run is applied, in order, and the
    // next run moves rows straight to the table they made.
    let mut world = World::<Game>::new();
    let blue: Vec<Entity> = (0..6).map(|i| world.spawn((Pos(i), Blue))).collect();
    let red = world.spawn((Pos(9), Red));
    let targets = blue.clone();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(
        move |mut burning: Migrator<Game, Burning>, mut round: Local<u32>| {
            *round += 1;
            for &entity in &targets {
                burning.insert(entity, Burning(*round)).unwrap();
            }
            // Inserted, then removed: through the world both times.
            burning.remove(targets[0]).unwrap();
            burning.insert(red, Burning(*round)).unwrap();
        },
    );
    schedule.run(&mut world);
    assert!(!world.has::<Burning>(blue[0]));
    for &entity in &blue[1..] {
        assert_eq!(world.get::<Burning>(entity), Some(&Burning(1)));
    }
    assert_eq!(world.get::<Burning>(red), Some(&Burning(1)));
    schedule.run(&mut world);
    assert!(!world.has::<Burning>(blue[0]));
    for &entity in blue[1..].iter().chain([&red]) {
        assert_eq!(world.get::<Burning>(entity), Some(&Burning(2)));
        assert!(world.get::<Pos>(entity).is_some());
    }
}

#[test]
fn an_overwrite_is_a_change_of_a_tracked_component() {
    let mut world = World::<Game>::new();
    let on = world.spawn((Pos(0), Heat(2), Blue, Lit(1)));
    let off = world.spawn((Pos(0), Heat(4), Blue));
    world.clear_trackers();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(move |mut lit: Migrator<Game, Lit, BlueOnly>| {
        lit.insert(on, Lit(5)).unwrap();
        lit.insert(off, Lit(6)).unwrap();
    });
    schedule.run(&mut world);
    let changed: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Lit>>()
        .iter()
        .collect();
    let added: Vec<Entity> = world
        .query_filtered::<Entity, Added<Lit>>()
        .iter()
        .collect();
    assert_eq!(added, [off]);
    assert_eq!(changed.len(), 2);
    assert_eq!(world.get::<Lit>(on), Some(&Lit(5)));
}

#[test]
fn a_panic_in_the_stage_drops_what_was_recorded_and_leaves_the_world_whole() {
    let mut world = World::<Game>::new();
    let red: Vec<Entity> = (0..50).map(|i| world.spawn((Pos(i), Red))).collect();
    let blue: Vec<Entity> = (0..50).map(|i| world.spawn((Pos(i), Blue))).collect();
    let rows = |world: &World<Game>| -> Vec<(Entity, Pos, bool)> {
        let query = world.query::<(Entity, &Pos, Has<Burning>)>();
        query.iter().map(|(e, p, b)| (e, *p, b)).collect()
    };
    let before = rows(&world);
    let mut schedule = Schedule::<Game>::new();
    let targets = red.clone();
    schedule
        .add(move |mut burning: Migrator<Game, Burning, With<Red>>| {
            for &entity in &targets {
                // `red[0]` is despawned before the last run.
                let _ = burning.insert(entity, Burning(1));
            }
        })
        .add(
            |blue: Query<&Pos, (With<Blue>, Without<Red>)>, log: Res<Log>| {
                assert!(!log.0.is_empty(), "this system fails");
                assert!(blue.iter().count() > 10);
            },
        );
    for force in [true, false] {
        let run = catch_unwind(AssertUnwindSafe(|| {
            schedule.force_parallel(Some(force)).run(&mut world)
        }));
        assert!(run.is_err());
        assert_eq!(rows(&world), before);
        for (&r, &b) in red.iter().zip(&blue) {
            assert!(world.get::<Pos>(r).is_some() && world.get::<Pos>(b).is_some());
            assert!(!world.has::<Burning>(r));
        }
    }
    // What the failed runs recorded is gone: rows moved since (a despawn
    // swaps the last red row into the first) do not meet stale changes.
    world.despawn(red[0]).unwrap();
    world.resource_mut::<Log>().0.push("go".into());
    schedule.run(&mut world);
    assert!(!world.is_alive(red[0]));
    for &r in &red[1..] {
        assert_eq!(world.get::<Burning>(r), Some(&Burning(1)));
    }
    assert_eq!(world.query::<&Burning>().iter().count(), 49);
}

/// Four entities of `[Pos, Red]`, with the `[Pos, Red, Burning]` table
/// already made (and empty).
fn four_red() -> (World<Game>, Vec<Entity>) {
    let mut world = World::<Game>::new();
    let red: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), Red))).collect();
    let made = world.spawn((Pos(9), Red, Burning(0)));
    world.despawn(made).unwrap();
    (world, red)
}

/// Runs once a system that records `changes` (`true`: an insert) through
/// a `Migrator` of `Burning` among the red tables, and returns the
/// burning entities in their table's order.
fn burning_after(world: &mut World<Game>, changes: Vec<(Entity, bool)>) -> Vec<Entity> {
    run_once!(world, move |mut burning: Migrator<
        Game,
        Burning,
        With<Red>,
    >| {
        for &(entity, insert) in &changes {
            if insert {
                burning.insert(entity, Burning(1)).unwrap();
            } else {
                burning.remove(entity).unwrap();
            }
        }
        assert!(!burning.is_empty());
    });
    world
        .query_filtered::<Entity, With<Burning>>()
        .iter()
        .collect()
}

#[test]
fn each_tables_rows_are_visited_last_first() {
    // Recorded in ascending rows: the moves visit them backwards, and the
    // rows land in that order (a change through the world would append
    // them in the order recorded).
    let (mut world, red) = four_red();
    let all = red.iter().map(|&e| (e, true)).collect();
    assert_eq!(
        burning_after(&mut world, all),
        [red[3], red[2], red[1], red[0]]
    );
    // Recorded backwards: the same visit, by a sort.
    let (mut world, red) = four_red();
    let all = red.iter().rev().map(|&e| (e, true)).collect();
    assert_eq!(
        burning_after(&mut world, all),
        [red[3], red[2], red[1], red[0]]
    );
    // Removals too: the rows left behind are visited last first.
    let (mut world, red) = four_red();
    let all = red.iter().map(|&e| (e, true)).collect();
    burning_after(&mut world, all);
    let two = vec![(red[1], false), (red[2], false)];
    assert_eq!(burning_after(&mut world, two), [red[3], red[0]]);
    let rest: Vec<Entity> = world
        .query_filtered::<Entity, Without<Burning>>()
        .iter()
        .collect();
    assert_eq!(rest, [red[1], red[2]]);
}

#[test]
fn an_entitys_own_changes_keep_the_order_recorded() {
    // An insert then a removal of one entity, alone or among ascending
    // rows: the entity ends without `Burning` (in the other order it would
    // keep it).
    let (mut world, red) = four_red();
    assert_eq!(
        burning_after(&mut world, vec![(red[1], true), (red[1], false)]),
        []
    );
    let (mut world, red) = four_red();
    let changes = vec![
        (red[0], true),
        (red[1], true),
        (red[1], false),
        (red[2], true),
    ];
    assert_eq!(burning_after(&mut world, changes), [red[2], red[0]]);
    // A removal then an insert: it burns.
    let (mut world, red) = four_red();
    assert_eq!(
        burning_after(&mut world, vec![(red[3], false), (red[3], true)]),
        [red[3]]
    );
}

#[test]
fn a_schedule_run_on_another_world_starts_its_routes_over() {
    // The same schedule on two worlds whose tables have other ids: the
    // reach and the routes are those of the world it runs on.
    let recorded = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&recorded);
    let mut schedule = Schedule::<Game>::new();
    schedule.add(
        move |all: Query<Entity>, mut burning: Migrator<Game, Burning, With<Red>>| {
            let mut log = log.lock().unwrap();
            for entity in all.iter() {
                log.push(burning.insert(entity, Burning(2)));
            }
        },
    );
    let (mut first, red) = four_red();
    schedule.run(&mut first);
    assert!(red
        .iter()
        .all(|&e| first.get::<Burning>(e) == Some(&Burning(2))));
    // Blue first: its table takes the id the red one had.
    let mut second = World::<Game>::new();
    let blue = second.spawn((Pos(0), Blue));
    let red = second.spawn((Pos(1), Red));
    let made = second.spawn((Pos(9), Red, Burning(0)));
    second.despawn(made).unwrap();
    recorded.lock().unwrap().clear();
    schedule.run(&mut second);
    assert_eq!(
        *recorded.lock().unwrap(),
        [Err(MigrateError::OutOfReach(blue)), Ok(())]
    );
    assert_eq!(second.get::<Burning>(red), Some(&Burning(2)));
    assert!(!second.has::<Burning>(blue));
    assert_eq!(second.get::<Pos>(blue), Some(&Pos(0)));
    assert_eq!(second.get::<Pos>(red), Some(&Pos(1)));
}

#[test]
fn a_migrator_sees_the_entities_of_earlier_commands() {
    // A system whose only parameter is a migrator still waits for the
    // commands of earlier systems: the entity they spawn is alive for it,
    // as in a sequential run.
    let mut world = World::<Game>::new();
    let spawned = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (made, named) = (
        std::sync::Arc::clone(&spawned),
        std::sync::Arc::clone(&spawned),
    );
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&seen);
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(move |mut commands: Commands<Game>| {
            made.lock().unwrap().push(commands.spawn((Pos(1), Red)));
        })
        .add(move |mut burning: Migrator<Game, Burning, With<Red>>| {
            if let Some(&entity) = named.lock().unwrap().last() {
                log.lock().unwrap().push(burning.insert(entity, Burning(5)));
            }
        });
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), [Ok(()), Ok(())]);
    assert_eq!(world.query::<&Burning>().iter().count(), 2);
    let plan = schedule.describe();
    assert!(plan.contains("stage 2"), "{plan}");
}

#[test]
fn removing_an_untracked_component_logs_nothing() {
    // The same world, `Burning` (untracked) removed by the migrator or by
    // hand after the same run: the same checksum, which hashes every
    // removal log.
    let build = || {
        let mut world = World::<Game>::new();
        world.spawn((Pos(0), Red));
        let lit = world.spawn((Pos(1), Red, Burning(3)));
        (world, lit)
    };
    let schedule = |targets: Vec<Entity>| {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(move |mut burning: Migrator<Game, Burning, With<Red>>| {
            for &entity in &targets {
                burning.remove(entity).unwrap();
            }
        });
        schedule
    };
    let (mut by_migrator, lit) = build();
    schedule(vec![lit]).run(&mut by_migrator);
    let (mut by_hand, lit) = build();
    schedule(Vec::new()).run(&mut by_hand);
    by_hand.remove::<Burning>(lit).unwrap();
    assert!(!by_migrator.has::<Burning>(lit));
    assert_eq!(by_migrator.checksum(), by_hand.checksum());
}

/// What [`burn_in_chunks`] does, in a sequential loop (through a
/// `Migrator`) or in the chunks of a parallel one (a `ChunkMigrator`):
/// every red entity starts or stops burning by its heat, and each one
/// whose heat is a multiple of 5 (or one more) lights (or puts out) the
/// `beacon` too, so that the beacon's changes come from many chunks and
/// only their order decides how it ends.
macro_rules! burn_one {
    ($burning:expr, ($entity:expr, $heat:expr, $lit:expr), $beacon:expr, $blue:expr) => {{
        let (burning, entity, heat, lit, beacon, blue) =
            ($burning, $entity, $heat, $lit, $beacon, $blue);
        heat.0 = (heat.0 + 3) % 23;
        if heat.0 > 10 && !lit {
            burning.insert(entity, Burning(heat.0 as u32)).unwrap();
        } else if heat.0 <= 10 && lit {
            burning.remove(entity).unwrap();
        }
        match heat.0 % 5 {
            0 => burning.insert(beacon, Burning(entity.index())).unwrap(),
            1 => burning.remove(beacon).unwrap(),
            _ => {}
        }
        if heat.0 == 7 {
            let before = burning.len();
            assert_eq!(
                burning.insert(blue, Burning(0)),
                Err(MigrateError::OutOfReach(blue))
            );
            assert_eq!(burning.len(), before, "a refused change is not recorded");
        }
    }};
}

/// Frames of a system that runs [`burn_one`] over the red entities (and a
/// plain writer beside it) on `threads` threads, in parallel chunks or in
/// a sequential loop; every frame's checksum and the beacon's last value.
fn burn_in_chunks(threads: usize, chunks: bool) -> (Vec<u128>, Option<Burning>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = World::<Game>::new();
    let beacon = world.spawn((Pos(-1), Red));
    let blue = world.spawn((Pos(-2), Blue));
    for i in 0..5_000 {
        world.spawn((Pos(i), Heat((i * 7919 % 23) as i32), Red));
    }
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(
            move |mut red: Query<(Entity, &mut Heat, Has<Burning>), With<Red>>,
                  mut burning: Migrator<Game, Burning, With<Red>>| {
                if chunks {
                    red.par_for_each_mut_with(&mut burning, |burning, (e, heat, lit)| {
                        burn_one!(burning, (e, heat, lit), beacon, blue);
                    });
                } else {
                    red.for_each_mut(|(e, heat, lit)| {
                        burn_one!(&mut burning, (e, heat, lit), beacon, blue)
                    });
                }
            },
        )
        .add(drift);
    let checksums = (0..8)
        .map(|_| {
            pool.install(|| schedule.force_parallel(Some(true)).run(&mut world));
            world.checksum()
        })
        .collect();
    (checksums, world.get::<Burning>(beacon).copied())
}

#[test]
fn the_chunks_of_a_parallel_loop_record_what_a_sequential_loop_records() {
    let expected = burn_in_chunks(1, false);
    assert!(expected.1.is_some(), "the beacon ends lit");
    for threads in [1, 2, 4] {
        assert_eq!(burn_in_chunks(threads, true), expected, "{threads} threads");
    }
}

#[test]
fn a_chunk_migrator_counts_and_shows_what_it_recorded() {
    let (mut world, red) = four_red();
    run_once!(&mut world, move |mut all: Query<(Entity, &Pos)>,
                                mut burning: Migrator<
        Game,
        Burning,
        With<Red>,
    >| {
        all.par_for_each_mut_with(&mut burning, |burning, (entity, _)| {
            // Each chunk counts its own changes, from none.
            let before = burning.len();
            assert_eq!(burning.is_empty(), before == 0);
            burning.insert(entity, Burning(5)).unwrap();
            burning.remove(entity).unwrap();
            assert_eq!(burning.len(), before + 2);
            assert!(!burning.is_empty());
            let shown = format!("{burning:?}");
            assert!(
                shown.starts_with("ChunkMigrator")
                    && shown.contains("Burning")
                    && shown.contains(&format!("recorded: {}", before + 2)),
                "{shown}"
            );
        });
        // Eight changes in all, two per entity, in the migrator now.
        assert_eq!(burning.len(), 8);
        assert!(format!("{burning:?}").contains("recorded: 8"));
    });
    // Each entity's insert, then its removal: none burns.
    assert!(red.iter().all(|&e| !world.has::<Burning>(e)));
}
