//! `Despawner` and `World::despawn_batch` (issue 28): despawns recorded
//! beside every other system end, when the schedule's run ends, as
//! `World::despawn` of each in the order recorded would leave the world,
//! on any number of threads; a batch removes each table's rows in one pass.

use ecs::prelude::*;

use ecs::command::{Despawner, SparseMut};
use support::{on_threads, CountedTag, DropLog, Rng, Tracked};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Heat(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Hot;
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mark(u32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Glow(u32);
#[derive(Debug)]
struct Payload(Tracked);
/// A struct-of-arrays component, its fields in columns of their own.
#[derive(Soa, Clone, Copy, Debug, PartialEq)]
struct Spin {
    turns: i64,
    rate: u32,
}
/// A sparse value with drop glue.
#[derive(Debug)]
struct Tail(Tracked);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Life(u32);

/// A tag whose values count their drops.
type Shiny = CountedTag<0>;

#[derive(Debug, Default, PartialEq)]
struct Seen(Vec<Entity>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    heat: Heat,
    hot: Hot,
    #[ecs(sparse)]
    mark: Mark,
    #[ecs(sparse, track)]
    glow: Glow,
    payload: Payload,
    life: Life,
    shiny: Shiny,
    #[ecs(sparse)]
    tail: Tail,
    #[ecs(soa)]
    spin: Spin,
    #[ecs(resource)]
    seen: Seen,
}

/// A world of `n` entities over several tables (a tag, a tracked component,
/// values with drop glue, sparse values tracked or not), the same for a
/// seed and a log.
fn world(seed: u64, n: usize, log: &DropLog) -> World<Game> {
    let mut rng = Rng::new(seed);
    let mut world = World::<Game>::new();
    for i in 0..n as i64 {
        let entity = match rng.below(5) {
            0 => world.spawn((Pos(i),)),
            1 => world.spawn((Pos(i), Vel(-i), Shiny::new())),
            2 => world.spawn((Pos(i), Hot, Life(i as u32 % 7 + 1))),
            3 => world.spawn((Vel(i), Heat(i as u32))),
            4 if i % 2 == 0 => world.spawn((
                Pos(i),
                Spin {
                    turns: i,
                    rate: i as u32 * 3,
                },
            )),
            _ => world.spawn((Pos(i), Payload(log.track(i as u64)), Life(3))),
        };
        if rng.chance(1, 3) {
            world.insert(entity, (Mark(i as u32),)).unwrap();
        }
        if rng.chance(1, 4) {
            world.insert(entity, (Glow(i as u32),)).unwrap();
        }
        if rng.chance(1, 5) {
            let tail = Tail(log.track(1_000_000 + i as u64));
            world.insert(entity, (tail,)).unwrap();
        }
    }
    world
}

/// Everything a test compares, whatever the order of the rows: each live
/// entity (by id) with its components, the removal logs (if `logs`: a
/// schedule's runs keep only theirs), the tag values, and the ids the next
/// spawns get (the order the ids were freed in).
fn contents_with(world: &mut World<Game>, logs: bool) -> String {
    let mut entities: Vec<Entity> = world.iter().collect();
    entities.sort_by_key(|entity| entity.to_bits());
    let mut out = String::new();
    for entity in entities {
        let e = world.entity(entity).unwrap();
        out += &format!(
            "{entity:?} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?} {:?} {:?}\n",
            e.get::<Pos>(),
            e.get::<Vel>(),
            e.get::<Heat>(),
            e.has::<Hot>(),
            e.get::<Mark>(),
            e.get::<Glow>(),
            e.get::<Payload>().map(|p| p.0.id()),
            e.get::<Life>(),
            e.get::<Tail>().map(|t| t.0.id()),
            e.get_soa::<Spin>().map(|spin| (*spin.turns, *spin.rate)),
        );
    }
    if logs {
        out += &format!(
            "heat removed {:?}\n",
            world.removed::<Heat>().collect::<Vec<_>>()
        );
        out += &format!(
            "glow removed {:?}\n",
            world.removed::<Glow>().collect::<Vec<_>>()
        );
    }
    // The rows' ticks are still theirs: every third `Heat` (by id) changed
    // now is seen changed, and no other.
    let heated: Vec<Entity> = {
        let mut heated: Vec<Entity> = world
            .query_filtered::<Entity, With<Heat>>()
            .iter()
            .collect();
        heated.sort_by_key(|entity| entity.to_bits());
        heated.into_iter().step_by(3).collect()
    };
    world.clear_trackers();
    for &entity in &heated {
        world.get_mut::<Heat>(entity).unwrap().0 += 1;
    }
    let mut changed: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Heat>>()
        .iter()
        .collect();
    changed.sort_by_key(|entity| entity.to_bits());
    assert_eq!(changed, heated);
    // And rows pushed now are seen added, and no other.
    world.clear_trackers();
    let mut new: Vec<Entity> = (0..5).map(|i| world.spawn((Vel(i), Heat(7)))).collect();
    let mut added: Vec<Entity> = world
        .query_filtered::<Entity, Added<Heat>>()
        .iter()
        .collect();
    added.sort_by_key(|entity| entity.to_bits());
    new.sort_by_key(|entity| entity.to_bits());
    assert_eq!(added, new);
    for entity in new {
        world.despawn(entity).unwrap();
    }
    let hot = world.query_filtered::<Entity, With<Hot>>().count();
    out += &format!("hot {hot}\n");
    let next: Vec<Entity> = (0..40).map(|_| world.spawn((Pos(0),))).collect();
    for entity in &next {
        world.despawn(*entity).unwrap();
    }
    out += &format!("next ids {next:?}");
    out
}

fn contents(world: &mut World<Game>) -> String {
    contents_with(world, true)
}

/// A list of entities to despawn: alive ones, repeats, and stale handles.
fn doomed(world: &mut World<Game>, seed: u64) -> Vec<Entity> {
    let mut rng = Rng::new(seed);
    let alive: Vec<Entity> = world.iter().collect();
    // Two stale handles: despawned, and despawned with the index reused.
    let gone = world.spawn((Pos(-1),));
    world.despawn(gone).unwrap();
    let old = world.spawn((Pos(-2),));
    world.despawn(old).unwrap();
    let reused = world.spawn((Pos(-3),));
    assert_eq!(reused.index(), old.index());
    let mut list = Vec::new();
    for &entity in &alive {
        if rng.chance(1, 2) {
            list.push(entity);
        }
        if rng.chance(1, 20) {
            list.push(*rng.pick(&alive));
        }
    }
    list.insert(list.len() / 2, gone);
    list.insert(list.len() / 3, old);
    list
}

#[test]
fn a_batch_ends_as_despawn_of_each_in_order() {
    // Small worlds, and one where every sparse set holds fewer values than
    // there are entities to despawn (each set then looks at its owners).
    for (seed, n) in [(1, 60), (2, 60), (3, 6_000), (4, 6_000)] {
        let (one_by_one_log, batch_log) = (DropLog::new(), DropLog::new());
        let mut one_by_one = world(seed, n, &one_by_one_log);
        let mut batch = world(seed, n, &batch_log);
        let list = doomed(&mut one_by_one, seed);
        assert_eq!(doomed(&mut batch, seed), list);
        one_by_one.clear_trackers();
        batch.clear_trackers();
        let mut despawned = 0;
        let before = Shiny::counts();
        for &entity in &list {
            despawned += usize::from(one_by_one.despawn(entity).is_ok());
        }
        let shiny_dropped = Shiny::counts().since(before).dropped;
        assert!(shiny_dropped > 0);
        let before = Shiny::counts();
        assert_eq!(batch.despawn_batch(&list), despawned, "seed {seed}");
        // A tag value is dropped for each entity with the tag.
        assert_eq!(
            Shiny::counts().since(before).dropped,
            shiny_dropped,
            "seed {seed}"
        );
        // Every value let go of is dropped, once.
        assert_eq!(batch_log.dropped_sorted(), one_by_one_log.dropped_sorted());
        assert!(batch_log.count() > 0);
        assert_eq!(
            contents(&mut batch),
            contents(&mut one_by_one),
            "seed {seed}"
        );
    }
}

#[test]
fn a_batch_in_any_order_takes_out_exactly_the_rows_named() {
    // Rows rising then falling in one table, and a table met twice: the
    // rows must be sorted before any is removed.
    for order in [[2, 3, 1], [3, 1, 2], [1, 3, 2]] {
        let mut world = World::<Game>::new();
        let ids: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), Vel(i)))).collect();
        let others: Vec<Entity> = (0..2).map(|i| world.spawn((Pos(10 + i),))).collect();
        let mut copy = World::<Game>::new();
        for i in 0..4 {
            copy.spawn((Pos(i), Vel(i)));
        }
        let list = [ids[order[0]], others[1], ids[order[1]], ids[order[2]]];
        assert_eq!(world.despawn_batch(&list), 4);
        assert_eq!(world.get::<Vel>(ids[0]), Some(&Vel(0)), "{order:?}");
        assert_eq!(world.get::<Pos>(others[0]), Some(&Pos(10)));
        assert_eq!(world.len(), 2);
        // One table alone.
        let list = [ids[order[0]], ids[order[1]], ids[order[2]]];
        assert_eq!(copy.despawn_batch(&list), 3);
        assert_eq!(copy.get::<Vel>(ids[0]), Some(&Vel(0)), "{order:?}");
        assert_eq!(copy.len(), 1);
    }
}

/// Ages the living: those that run out are despawned at the end of the
/// run, and the entities seen go to `Seen` (which the later systems of the
/// run still see alive).
fn age(mut living: Query<(Entity, &mut Life)>, mut despawner: Despawner<Game>) {
    for (entity, life) in living.iter_mut() {
        life.0 -= 1;
        if life.0 == 0 {
            despawner.despawn(entity);
        }
    }
}

/// Despawns the marked entities that glow, from the chunks of a parallel
/// loop, and unmarks them.
fn snuff(
    mut glowing: Query<(Entity, &mut Glow)>,
    mut despawner: Despawner<Game>,
    mut marks: SparseMut<Game, Mark>,
) {
    let marked: Vec<Entity> = glowing
        .iter_mut()
        .map(|(entity, _)| entity)
        .filter(|&entity| marks.contains(entity))
        .collect();
    glowing.par_for_each_mut_with(&mut despawner, |despawner, (entity, glow)| {
        glow.0 += 1;
        if glow.0 % 3 == 0 && marked.contains(&entity) {
            despawner.despawn(entity);
        }
    });
    for entity in marked {
        if marks
            .remove(entity)
            .unwrap()
            .is_some_and(|mark| mark.0 % 2 == 0)
        {
            despawner.despawn(entity);
        }
    }
}

/// Moves the movers; spawns a mover for each hot entity through commands
/// (ids reserved from the free list as it was when the run began).
fn drift(
    mut movers: Query<(&mut Pos, &Vel)>,
    hot: Query<&Pos, (With<Hot>, Without<Vel>)>,
    mut commands: Commands<Game>,
) {
    movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
    for pos in hot.iter() {
        commands.spawn((Pos(pos.0), Vel(1)));
    }
}

/// Despawns the first mover through commands, and records everything it
/// sees: the entities doomed this run are still there.
fn watch(
    everyone: Query<Entity>,
    movers: Query<Entity, With<Vel>>,
    mut seen: ResMut<Seen>,
    mut commands: Commands<Game>,
) {
    seen.0.extend(everyone.iter());
    if let Some(first) = movers.iter().next() {
        commands.despawn(first);
    }
}

/// The same run through the `World` API in program order, with the
/// despawns recorded by `age` and `snuff` made at its end.
fn by_hand(world: &mut World<Game>) {
    let mut doomed = Vec::new();
    let living: Vec<Entity> = world
        .query::<(Entity, &Life)>()
        .iter()
        .map(|(e, _)| e)
        .collect();
    for entity in living {
        let life = world.get_mut::<Life>(entity).unwrap();
        life.0 -= 1;
        if life.0 == 0 {
            doomed.push(entity);
        }
    }
    let glowing: Vec<Entity> = world
        .query::<(Entity, &Glow)>()
        .iter()
        .map(|(e, _)| e)
        .collect();
    let marked: Vec<Entity> = glowing
        .iter()
        .copied()
        .filter(|&e| world.has::<Mark>(e))
        .collect();
    for &entity in &glowing {
        let glow = world.get_mut::<Glow>(entity).unwrap();
        glow.0 += 1;
        if glow.0 % 3 == 0 && marked.contains(&entity) {
            doomed.push(entity);
        }
    }
    for entity in marked {
        if world
            .remove::<Mark>(entity)
            .unwrap()
            .is_some_and(|mark| mark.0 % 2 == 0)
        {
            doomed.push(entity);
        }
    }
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each_mut(|(pos, vel)| pos.0 += vel.0);
    let hot: Vec<i64> = world
        .query_filtered::<&Pos, (With<Hot>, Without<Vel>)>()
        .iter()
        .map(|p| p.0)
        .collect();
    for pos in hot {
        world.spawn((Pos(pos), Vel(1)));
    }
    let everyone: Vec<Entity> = world.iter().collect();
    world.resource_mut::<Seen>().0.extend(everyone);
    let first = world.query_filtered::<Entity, With<Vel>>().iter().next();
    if let Some(first) = first {
        world.despawn(first).unwrap();
    }
    // The end of the run: one batch (which `a_batch_ends_as_despawn_of_each_in_order`
    // compares with despawns one by one; the rows land in its order).
    world.despawn_batch(&doomed);
}

fn game_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(age).add(snuff).add(drift).add(watch);
    schedule
}

#[test]
fn despawners_end_as_program_order_on_any_number_of_threads() {
    let log = DropLog::new();
    let mut expected = world(7, 3_000, &log);
    for _ in 0..4 {
        by_hand(&mut expected);
    }
    let expected = contents_with(&mut expected, false);
    let mut sequential = world(7, 3_000, &log);
    let mut schedule = game_schedule();
    for _ in 0..4 {
        schedule.run_sequential(&mut sequential);
    }
    assert_eq!(contents_with(&mut sequential, false), expected);
    // With the removal logs, which the schedule keeps for its runs.
    let mut sequential = world(7, 3_000, &log);
    let mut schedule = game_schedule();
    for _ in 0..4 {
        schedule.run_sequential(&mut sequential);
    }
    let expected = contents(&mut sequential);
    for threads in [1, 2, 4] {
        for force in [None, Some(false), Some(true)] {
            let mut world = world(7, 3_000, &log);
            let mut schedule = game_schedule();
            on_threads(threads, || {
                for _ in 0..4 {
                    schedule.force_parallel(force).run(&mut world);
                }
            });
            assert_eq!(
                contents(&mut world),
                expected,
                "{threads} threads, {force:?}"
            );
        }
    }
}

#[test]
fn a_despawner_waits_for_no_one_and_no_one_waits_for_it() {
    let plan = game_schedule().describe();
    // `age` and `snuff` write what the other two do not touch; `watch`
    // waits only for `drift`'s commands (it sees entities).
    assert!(plan.contains("stage 1: age, snuff, drift\n"), "{plan}");
    assert!(plan.contains("stage 2: watch\n"), "{plan}");
    // A query that reads the doomed entities' components shares the
    // despawner's stage.
    let reap = |living: Query<(Entity, &Life)>, mut despawner: Despawner<Game>| {
        for (entity, _) in living.iter() {
            despawner.despawn(entity);
        }
    };
    let count = |living: Query<&Life>, mut seen: ResMut<Seen>| {
        seen.0.truncate(living.iter().count());
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(reap).add_named("count", count);
    assert!(
        schedule.describe().contains(
            "stage 1: closure in a_despawner_waits_for_no_one_and_no_one_waits_for_it, count\n"
        ),
        "{}",
        schedule.describe()
    );
}

#[test]
fn an_entity_gone_before_the_run_ends_is_not_touched() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2),));
    let c = world.spawn((Pos(3),));
    let record = move |mut despawner: Despawner<Game>, mut seen: ResMut<Seen>| {
        despawner.despawn(a);
        despawner.despawn(a);
        despawner.despawn(b);
        assert_eq!(despawner.len(), 3);
        assert!(!despawner.is_empty());
        seen.0.push(a);
    };
    // Later in the run, `b` is despawned and its index taken by a new
    // entity, which the despawner must leave alone.
    let reuse = move |world: &mut World<Game>| {
        assert!(
            world.is_alive(a) && world.is_alive(b),
            "alive until the run ends"
        );
        world.despawn(b).unwrap();
        let new = world.spawn((Pos(4),));
        assert_eq!(new.index(), b.index());
        world.resource_mut::<Seen>().0.push(new);
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(record).add(reuse);
    schedule.run(&mut world);
    let new = world.resource::<Seen>().0[1];
    assert!(!world.is_alive(a) && !world.is_alive(b));
    assert_eq!(world.get::<Pos>(new), Some(&Pos(4)));
    assert_eq!(world.get::<Pos>(c), Some(&Pos(3)));
    assert_eq!(world.len(), 2);
    // A stale handle is recorded, as a command would be, and skipped when
    // the run ends.
    let stale = move |mut despawner: Despawner<Game>| {
        assert!(despawner.is_empty());
        despawner.despawn(a);
        assert_eq!(despawner.len(), 1);
        assert_eq!(
            format!("{despawner:?}"),
            "Despawner { schema: \"Game\", recorded: 1 }"
        );
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(stale);
    schedule.run(&mut world);
    assert_eq!(world.len(), 2);
}

#[test]
fn a_panic_keeps_the_despawns_of_the_systems_applied_before_it() {
    let mut world = World::<Game>::new();
    let first = world.spawn((Pos(1), Vel(1)));
    let second = world.spawn((Pos(2), Vel(2)));
    let fresh = || {
        let mut world = World::<Game>::new();
        world.spawn((Pos(1), Vel(1)));
        world.spawn((Pos(2), Vel(2)));
        world
    };
    drop(world);
    let early = move |mut movers: Query<&mut Vel>, mut despawner: Despawner<Game>| {
        movers.for_each_mut(|vel| vel.0 += 1);
        despawner.despawn(first);
    };
    for sequential in [false, true] {
        // Writes `Vel` too: a stage after `early`'s, which is applied. It
        // fails on its first run only.
        let failed = std::sync::atomic::AtomicBool::new(false);
        let late = move |mut movers: Query<&mut Vel>, mut despawner: Despawner<Game>| {
            movers.for_each_mut(|vel| vel.0 += 1);
            if !failed.swap(true, std::sync::atomic::Ordering::Relaxed) {
                despawner.despawn(second);
                panic!("late fails");
            }
        };
        let mut world = fresh();
        let mut schedule = Schedule::<Game>::new();
        schedule.add(early).add(late);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if sequential {
                schedule.run_sequential(&mut world);
            } else {
                schedule.run(&mut world);
            }
        }));
        assert!(result.is_err());
        assert!(!world.is_alive(first), "early's despawn stands");
        assert!(world.is_alive(second), "late's is dropped");
        // Nothing is left over for the next run, of this schedule (whose
        // `late` records nothing now) or another.
        schedule.run(&mut world);
        assert!(world.is_alive(second));
        let mut quiet = Schedule::<Game>::new();
        quiet.add(|_: Query<&Pos>| {});
        quiet.run(&mut world);
        assert!(world.is_alive(second));
    }
}

#[test]
fn chunks_despawn_in_the_order_of_a_sequential_loop() {
    fn chunked(mut living: Query<(Entity, &mut Life)>, mut despawner: Despawner<Game>) {
        living.par_for_each_mut_with(&mut despawner, |despawner, (entity, life)| {
            life.0 -= 1;
            let nothing_yet = format!("{despawner:?}") == "ChunkDespawner { recorded: 0 }";
            assert_eq!(despawner.is_empty(), nothing_yet);
            if life.0 == 0 {
                let before = despawner.len();
                despawner.despawn(entity);
                assert_eq!(despawner.len(), before + 1);
                assert!(!despawner.is_empty());
                assert_eq!(
                    format!("{despawner:?}"),
                    format!("ChunkDespawner {{ recorded: {} }}", before + 1)
                );
            }
        });
    }
    let log = DropLog::new();
    let mut expected = world(9, 20_000, &log);
    let mut schedule = Schedule::<Game>::new();
    schedule.add(age);
    for _ in 0..3 {
        schedule.run(&mut expected);
    }
    let expected = contents(&mut expected);
    for threads in [1, 2, 4] {
        let mut world = world(9, 20_000, &log);
        let mut schedule = Schedule::<Game>::new();
        schedule.add(chunked);
        on_threads(threads, || {
            for _ in 0..3 {
                schedule.run(&mut world);
            }
        });
        assert_eq!(contents(&mut world), expected, "{threads} threads");
    }
}
