//! Panics in systems, conditions, hooks, transitions and fixed steps: the
//! world stays consistent (every entity in one table row, relation lists
//! matching their relations, sparse sets and `len` agreeing), what the docs
//! of `Schedule::run` say is kept is kept and nothing else, the result does
//! not depend on the number of threads, and the next frame goes on as it
//! would from a world that never panicked.
//!
//! Each test runs a program whose one system panics, and a reference
//! program in which that system is replaced by one that does nothing (or
//! only what the docs say stands), and compares the two worlds, then
//! their next frame's checksums.
//!
//! The last part: the parallel recorders (`ChunkMigrator`,
//! `ChunkDespawner`, `ChunkCommands`) and `get_soa`/`get_soa_mut` given
//! dead, stale and never-existing entities change nothing.

use ecs::prelude::*;

use ecs::command::{Despawner, Migrator, SparseMut, Spawner, UnnamedSpawner};

use ecs::checksum::StableHash;
use ecs::world::DeferredWorld;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use support::on_threads;

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel(i64);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Frozen;
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Stun(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Hp(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Shell(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Burning(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Collider(u32);
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct Children(Vec<Entity>);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Boom(u32);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Log(Vec<String>);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
enum Phase {
    #[default]
    Menu,
    Playing,
}

/// Panics on a collider of 666; otherwise marks the entity frozen.
fn collider_added(world: &mut DeferredWorld<Game>, entity: Entity) {
    if world.get::<Collider>(entity) == Some(&Collider(666)) {
        panic!("hook fails");
    }
    world.commands().insert(entity, (Frozen,));
}

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(track)]
    hp: Hp,
    shell: Shell,
    burning: Burning,
    #[ecs(on_add = collider_added)]
    collider: Collider,
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    #[ecs(event)]
    boom: Boom,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    time: FixedTime,
    #[ecs(state)]
    phase: Phase,
}

/// A world of several tables, a hierarchy, sparse and tracked components.
fn fixture() -> World<Game> {
    let mut world = World::<Game>::new();
    let root = world.spawn((Pos(0), Vel(1)));
    for i in 1..20 {
        let e = world.spawn((Pos(i), Vel(i % 3), Hp(i as i32)));
        if i % 4 == 0 {
            world.insert(e, (ChildOf(root),)).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, (Stun(i as u32),)).unwrap();
        }
    }
    for i in 0..6 {
        world.spawn((Shell(i),));
    }
    let dead = world.spawn((Pos(99),));
    world.despawn(dead).unwrap();
    world
}

/// Checks the world's invariants: every live entity is found by the
/// queries exactly once and with the values `get` gives, `len` counts
/// them, relation lists match their relations both ways.
#[track_caller]
fn assert_consistent(world: &World<Game>) {
    let live: Vec<Entity> = world.iter().collect();
    assert_eq!(live.len(), world.len(), "len counts the live entities");
    let mut sorted = live.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), live.len(), "an entity in two rows");
    for &e in &live {
        assert!(world.is_alive(e));
    }
    let pos: Vec<(Entity, Pos)> = world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(e, p)| (e, *p))
        .collect();
    let with_pos: Vec<Entity> = live
        .iter()
        .copied()
        .filter(|&e| world.get::<Pos>(e).is_some())
        .collect();
    assert_eq!(pos.len(), with_pos.len(), "Pos: query and get disagree");
    for (e, p) in &pos {
        assert_eq!(world.get::<Pos>(*e), Some(p));
    }
    let stun: Vec<(Entity, Stun)> = world
        .query::<(Entity, &Stun)>()
        .iter()
        .map(|(e, s)| (e, *s))
        .collect();
    let with_stun = live.iter().filter(|&&e| world.has::<Stun>(e)).count();
    assert_eq!(stun.len(), with_stun, "Stun: query and has disagree");
    for (e, s) in &stun {
        assert_eq!(world.get::<Stun>(*e), Some(s));
    }
    let shells = world.query::<&Shell>().count();
    let with_shell = live.iter().filter(|&&e| world.has::<Shell>(e)).count();
    assert_eq!(shells, with_shell, "Shell: query and has disagree");
    for &e in &live {
        if let Some(target) = world.target::<ChildOf>(e) {
            assert!(world.is_alive(target), "{e}'s parent is dead");
            assert!(
                world.sources::<ChildOf>(target).contains(&e),
                "{e} missing from its parent's list"
            );
        }
        for &child in world.sources::<ChildOf>(e) {
            assert_eq!(world.target::<ChildOf>(child), Some(e), "{child}");
        }
    }
}

/// Everything that shows, as text.
fn contents(world: &World<Game>) -> String {
    let mut out = String::new();
    for e in world.iter() {
        let r = world.entity(e).unwrap();
        out += &format!(
            "{e}: {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}\n",
            r.archetype(),
            r.get::<Pos>(),
            r.get::<Vel>(),
            r.get::<Stun>(),
            r.get::<Hp>(),
            r.get::<Shell>(),
            r.get::<Burning>(),
            r.get::<Collider>(),
            world.target::<ChildOf>(e),
            world.sources::<ChildOf>(e),
        );
    }
    out += &format!(
        "len {} log {:?} state {:?} events {}\n",
        world.len(),
        world.resource::<Log>().0,
        world.state::<Phase>(),
        world.events::<Boom>().len()
    );
    out
}

/// The next spawns' ids.
fn next_ids(world: &World<Game>) -> Vec<Entity> {
    let mut copy = world.clone();
    (0..3).map(|i| copy.spawn((Pos(1000 + i),))).collect()
}

/// A quiet frame that touches much: run on both worlds after the panic.
fn quiet() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(|mut q: Query<(&mut Pos, &Vel)>| q.for_each_mut(|(p, v)| p.0 += v.0))
        .add(|q: Query<(Entity, &Pos)>, mut commands: Commands<Game>| {
            for (e, p) in q.iter() {
                if p.0 % 7 == 0 {
                    commands.insert(e, (Stun(1),));
                }
            }
            commands.spawn((Pos(-1), Vel(2)));
        })
        .add(|hp: Query<&Hp, Changed<Hp>>, mut log: ResMut<Log>| {
            log.0.push(format!("changed {}", hp.iter().count()));
        });
    schedule
}

/// Asserts `got` (after a panic) equals `expected` and goes on as it does.
#[track_caller]
fn assert_same(got: &mut World<Game>, expected: &mut World<Game>, what: &str) {
    assert_consistent(got);
    assert_consistent(expected);
    assert_eq!(contents(got), contents(expected), "{what}: contents");
    assert_eq!(next_ids(got), next_ids(expected), "{what}: next ids");
    assert_eq!(got.checksum(), expected.checksum(), "{what}: checksum");
    quiet().run_sequential(got);
    quiet().run_sequential(expected);
    assert_consistent(got);
    assert_eq!(contents(got), contents(expected), "{what}: next frame");
    assert_eq!(
        got.checksum(),
        expected.checksum(),
        "{what}: next frame's checksum"
    );
}

/// How a schedule is run.
#[derive(Clone, Copy, Debug)]
enum Mode {
    Sequential,
    /// `run`, every stage forced onto a pool of this many threads.
    Pool(usize),
    /// `run`, every stage on the calling thread.
    Inline,
}

const MODES: [Mode; 5] = [
    Mode::Sequential,
    Mode::Pool(1),
    Mode::Pool(2),
    Mode::Pool(4),
    Mode::Inline,
];

/// Runs `schedule` once on `world` as `mode` says; whether it panicked.
fn run_as(schedule: &mut Schedule<Game>, world: &mut World<Game>, mode: Mode) -> bool {
    let result = match mode {
        Mode::Sequential => catch_unwind(AssertUnwindSafe(|| schedule.run_sequential(world))),
        Mode::Pool(threads) => {
            schedule.force_parallel(Some(true));
            on_threads(threads, || {
                catch_unwind(AssertUnwindSafe(|| schedule.run(world)))
            })
        }
        Mode::Inline => {
            schedule.force_parallel(Some(false));
            catch_unwind(AssertUnwindSafe(|| schedule.run(world)))
        }
    };
    result.is_err()
}

/// A switch for a system to panic on.
#[derive(Clone, Default)]
struct Trap(Arc<AtomicBool>);

impl Trap {
    fn armed() -> Trap {
        Trap(Arc::new(AtomicBool::new(true)))
    }
    fn fire(&self, what: &str) {
        if self.0.load(Ordering::SeqCst) {
            panic!("{what}");
        }
    }
    fn disarm(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

// ------------------------------------------------------------ commands

/// A system records a spawn through its commands, then panics: its
/// commands are dropped, so the world is as if it had recorded nothing,
/// and the next spawn gets the id it would have had.
#[test]
fn a_panicking_systems_command_spawn_leaves_no_entity_behind() {
    for mode in MODES {
        let trap = Trap::armed();
        let t = trap.clone();
        let mut schedule = Schedule::<Game>::new();
        schedule.add(move |mut commands: Commands<Game>| {
            commands.spawn((Pos(5),));
            t.fire("after a spawn");
        });
        let mut world = fixture();
        assert!(run_as(&mut schedule, &mut world, mode), "{mode:?}");
        let mut expected = fixture();
        let mut idle = Schedule::<Game>::new();
        idle.add(|_: Commands<Game>| {});
        idle.run_sequential(&mut expected);
        assert_same(&mut world, &mut expected, &format!("{mode:?}"));
    }
}

// ------------------------------------------------------------ a stage of recorders

/// Which systems of a program record nothing (bit per system), for the
/// reference run; and whether the panicking one panics.
#[derive(Clone, Default)]
struct Switches {
    trap: Trap,
    skip: Arc<std::sync::atomic::AtomicU32>,
}

impl Switches {
    fn skips(&self, system: u32) -> bool {
        self.skip.load(Ordering::SeqCst) & (1 << system) != 0
    }
}

/// Seven systems, five in the first stage: a `SparseMut`, an event writer, the one
/// that panics (after writing `Vel`), a `Despawner`, a `Migrator`, a
/// `Spawner` and commands.
fn recorders(switches: &Switches) -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    let s = switches.clone();
    schedule.add(
        move |hp: Query<(Entity, &Hp)>, mut stun: SparseMut<Game, Stun>| {
            if s.skips(0) {
                return;
            }
            for (e, hp) in hp.iter() {
                if hp.0 % 2 == 0 {
                    stun.insert(e, Stun(hp.0 as u32)).unwrap();
                } else {
                    stun.remove(e).unwrap();
                }
            }
        },
    );
    let s = switches.clone();
    schedule.add(move |mut booms: EventWriter<Boom>| {
        if s.skips(1) {
            return;
        }
        booms.send(Boom(1));
        booms.send(Boom(2));
    });
    let s = switches.clone();
    schedule.add(move |mut vel: Query<&mut Vel>| {
        if s.skips(2) {
            return;
        }
        vel.for_each_mut(|v| v.0 += 10);
        s.trap.fire("the stage's third system fails");
    });
    let s = switches.clone();
    schedule.add(
        move |shells: Query<(Entity, &Shell), Without<Frozen>>, mut despawner: Despawner<Game>| {
            if s.skips(3) {
                return;
            }
            for (e, shell) in shells.iter() {
                if shell.0 % 2 == 1 {
                    despawner.despawn(e);
                }
            }
        },
    );
    let s = switches.clone();
    schedule.add(
        move |hp: Query<(Entity, &Hp)>, mut burning: Migrator<Game, Burning, With<Hp>>| {
            if s.skips(4) {
                return;
            }
            for (e, hp) in hp.iter() {
                if hp.0 % 3 == 0 {
                    burning.insert(e, Burning(1)).unwrap();
                }
            }
        },
    );
    let s = switches.clone();
    schedule.add(move |mut shells: Spawner<Game, (Shell, Frozen)>| {
        if s.skips(5) {
            return;
        }
        for i in 0..3 {
            shells.spawn((Shell(100 + i), Frozen));
        }
    });
    let s = switches.clone();
    schedule.add(move |mut commands: Commands<Game>| {
        if s.skips(6) {
            return;
        }
        commands.spawn((Pos(7), Vel(1)));
        commands.spawn((Collider(1),));
    });
    schedule
}

/// The panicking system shares its stage with the `SparseMut`, the
/// event writer, the `Despawner` and the `Spawner`; the `Migrator` waits
/// for it (it moves rows the panicking system writes), the commands for
/// the `Spawner`.
#[test]
fn the_recorders_take_three_stages() {
    let plan = recorders(&Switches::default()).describe();
    assert!(plan.contains("7 systems in 3 stages"), "{plan}");
}

/// After a panic in the stage: in program order (`run_sequential`), the
/// systems before the panicking one are applied and those after it never
/// run; with `run`, every system of the stage ran, what they did at once
/// (the `SparseMut`'s changes, the events, the `Spawner`'s rows, the
/// `Vel` writes) stands and what they deferred (despawns, moves,
/// commands) is dropped. Either way the same on any number of threads,
/// and the next frame (of the same schedule, disarmed) goes on alike.
#[test]
fn a_panic_in_a_stage_of_recorders_keeps_what_the_docs_say() {
    for mode in MODES {
        let switches = Switches::default();
        switches.trap.0.store(true, Ordering::SeqCst);
        let mut schedule = recorders(&switches);
        let mut world = fixture();
        assert!(run_as(&mut schedule, &mut world, mode), "{mode:?}");

        let reference = Switches::default();
        // The panicking system does its writes; the rest as the docs say.
        let skipped = match mode {
            Mode::Sequential => 0b111_1000,
            _ => 0b101_1000,
        };
        reference.skip.store(skipped, Ordering::SeqCst);
        let mut expected_schedule = recorders(&reference);
        let mut expected = fixture();
        expected_schedule.run_sequential(&mut expected);
        let what = format!("{mode:?}");
        assert_consistent(&world);
        assert_eq!(contents(&world), contents(&expected), "{what}: contents");
        assert_eq!(next_ids(&world), next_ids(&expected), "{what}: next ids");
        assert_eq!(world.checksum(), expected.checksum(), "{what}: checksum");
        // The same schedules again, recording everything.
        switches.trap.disarm();
        reference.skip.store(0, Ordering::SeqCst);
        assert!(!run_as(&mut schedule, &mut world, mode));
        expected_schedule.run_sequential(&mut expected);
        assert_same(&mut world, &mut expected, &what);
    }
}

/// Commands recorded by a system before the panicking one in program
/// order, in the same stage: applied by `run_sequential`, dropped by `run`
/// (its stage never comes to be applied); an `UnnamedSpawner` after it,
/// in the next stage (it waits for the reservations): never run.
fn commands_first(switches: &Switches) -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    let s = switches.clone();
    schedule.add(move |mut commands: Commands<Game>| {
        if s.skips(0) {
            return;
        }
        let e = commands.spawn((Pos(7), Vel(1)));
        commands.insert(e, (Stun(3),));
        commands.spawn((Collider(1),));
    });
    let s = switches.clone();
    schedule.add(move |mut log: ResMut<Log>| {
        if s.skips(1) {
            return;
        }
        log.0.push("before the panic".into());
        s.trap.fire("the log fails");
    });
    let s = switches.clone();
    schedule.add(move |mut shells: UnnamedSpawner<Game, (Shell, Frozen)>| {
        if s.skips(2) {
            return;
        }
        for i in 0..3 {
            shells.spawn((Shell(200 + i), Frozen));
        }
    });
    schedule
}

#[test]
fn commands_before_the_panic_in_its_stage() {
    let plan = commands_first(&Switches::default()).describe();
    assert!(
        plan.contains("stage 1: closure in commands_first, closure in commands_first\n"),
        "{plan}"
    );
    for mode in MODES {
        let switches = Switches::default();
        switches.trap.0.store(true, Ordering::SeqCst);
        let mut schedule = commands_first(&switches);
        let mut world = fixture();
        assert!(run_as(&mut schedule, &mut world, mode), "{mode:?}");
        let reference = Switches::default();
        let skipped = match mode {
            Mode::Sequential => 0b100,
            _ => 0b101,
        };
        reference.skip.store(skipped, Ordering::SeqCst);
        let mut expected_schedule = commands_first(&reference);
        let mut expected = fixture();
        expected_schedule.run_sequential(&mut expected);
        let what = format!("{mode:?}");
        assert_consistent(&world);
        assert_eq!(contents(&world), contents(&expected), "{what}: contents");
        assert_eq!(next_ids(&world), next_ids(&expected), "{what}: next ids");
        assert_eq!(world.checksum(), expected.checksum(), "{what}: checksum");
        switches.trap.disarm();
        reference.skip.store(0, Ordering::SeqCst);
        assert!(!run_as(&mut schedule, &mut world, mode));
        expected_schedule.run_sequential(&mut expected);
        assert_same(&mut world, &mut expected, &what);
    }
}

// ------------------------------------------------------------ parallel chunks

/// The fixture with many more rows, so that parallel loops cut chunks.
fn big() -> World<Game> {
    let mut world = fixture();
    world.spawn_batch((0..3000).map(|i| (Pos(i), Hp(i as i32))));
    world
}

/// A loop that records through every chunk recorder, then panics in one
/// chunk: the system's run is discarded, so none of what the chunks
/// recorded is applied, on any number of threads.
#[test]
fn a_panic_in_a_chunk_drops_what_every_chunk_recorded() {
    let looped = |mut q: Query<(Entity, &Hp)>,
                  mut commands: Commands<Game>,
                  mut despawner: Despawner<Game>,
                  mut burning: Migrator<Game, Burning, With<Hp>>,
                  mut shells: Spawner<Game, (Shell, Frozen)>| {
        q.par_for_each_mut_with(
            (&mut commands, &mut despawner, &mut burning, &mut shells),
            |(commands, despawner, burning, shells), (entity, hp)| {
                commands.insert(entity, (Vel(1),));
                commands.spawn((Pos(-5),));
                despawner.despawn(entity);
                burning.insert(entity, Burning(2)).unwrap();
                shells.spawn((Shell(7), Frozen));
                if hp.0 == 1500 {
                    panic!("a chunk fails");
                }
            },
        );
    };
    let idle = |_: Query<(Entity, &Hp)>,
                _: Commands<Game>,
                _: Despawner<Game>,
                _: Migrator<Game, Burning, With<Hp>>,
                _: Spawner<Game, (Shell, Frozen)>| {};
    for mode in MODES {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(looped);
        let mut world = big();
        assert!(run_as(&mut schedule, &mut world, mode), "{mode:?}");
        let mut reference = Schedule::<Game>::new();
        reference.add(idle);
        let mut expected = big();
        reference.run_sequential(&mut expected);
        assert_same(&mut world, &mut expected, &format!("{mode:?}"));
    }
}

/// A loop that writes every row and panics at one: on any number of
/// threads the world is consistent and no row is written twice or half;
/// which of the other rows were written when the panic struck depends on
/// the threads, as `par_for_each_mut` says (the chunks run in any order).
#[test]
fn a_panicking_parallel_loop_leaves_every_row_written_once_or_not_at_all() {
    let looped = |mut q: Query<&mut Pos>| {
        q.par_for_each_mut(|pos| {
            if pos.0 == 1500 {
                panic!("a row fails");
            }
            pos.0 += 10_000;
        });
    };
    for threads in [1, 2, 4] {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(looped);
        let mut world = big();
        let before: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
        assert!(run_as(&mut schedule, &mut world, Mode::Pool(threads)));
        assert_consistent(&world);
        let after: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
        assert_eq!(after.len(), before.len());
        for (&was, &is) in before.iter().zip(&after) {
            assert!(
                is == was || is == was + 10_000,
                "{threads} threads: {was} -> {is}"
            );
            if was == 1500 {
                assert_eq!(is, was, "the row that panicked is not written");
            }
        }
    }
}

// ------------------------------------------------------------ conditions

/// A run condition that panics: the systems applied before stand, the
/// world is consistent, and the choice of threads does not show.
#[test]
fn a_panicking_condition_leaves_the_same_world_on_any_number_of_threads() {
    let build = |trap: &Trap| {
        let t = trap.clone();
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(|mut commands: Commands<Game>| {
                commands.spawn((Pos(3), Vel(3)));
            })
            .add(|mut q: Query<&mut Pos>| q.for_each_mut(|p| p.0 += 1))
            .add(
                (|mut log: ResMut<Log>| log.0.push("guarded".into())).run_if(move || {
                    t.fire("the condition fails");
                    true
                }),
            )
            .add(|mut booms: EventWriter<Boom>| booms.send(Boom(3)));
        schedule
    };
    let mut worlds = Vec::new();
    for mode in MODES {
        let trap = Trap::armed();
        let mut schedule = build(&trap);
        let mut world = fixture();
        assert!(run_as(&mut schedule, &mut world, mode), "{mode:?}");
        assert_consistent(&world);
        trap.disarm();
        assert!(!run_as(&mut schedule, &mut world, mode));
        assert_consistent(&world);
        worlds.push((mode, world));
    }
    let (_, first) = &worlds[1];
    for (mode, world) in &worlds[2..] {
        assert_eq!(contents(world), contents(first), "{mode:?}");
        assert_eq!(world.checksum(), first.checksum(), "{mode:?}");
    }
}

// ------------------------------------------------------------ hooks

/// An `on_add` hook that panics while commands are applied: the world is
/// consistent, the entities spawned before stand with their hook's
/// commands, and every way of running agrees.
#[test]
fn a_panicking_hook_leaves_a_consistent_world_the_same_on_any_number_of_threads() {
    let build = || {
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(|mut commands: Commands<Game>| {
                commands.spawn((Collider(1), Pos(1)));
                commands.spawn((Collider(666), Pos(2)));
                commands.spawn((Collider(2), Pos(3)));
            })
            .add(|mut q: Query<&mut Vel>| q.for_each_mut(|v| v.0 += 1));
        schedule
    };
    let mut worlds = Vec::new();
    for mode in MODES {
        let mut world = fixture();
        assert!(run_as(&mut build(), &mut world, mode), "{mode:?}");
        assert_consistent(&world);
        worlds.push((mode, world));
    }
    let (_, first) = &worlds[0];
    for (mode, world) in &worlds[1..] {
        assert_eq!(contents(world), contents(first), "{mode:?}");
        assert_eq!(next_ids(world), next_ids(first), "{mode:?}");
        assert_eq!(world.checksum(), first.checksum(), "{mode:?}");
    }
    // The collider spawned before the failing one got its hook's command.
    let (_, world) = &mut worlds[0];
    let colliders: Vec<(Collider, bool)> = world
        .query::<(&Collider, Has<Frozen>)>()
        .iter()
        .map(|(c, f)| (*c, f))
        .collect();
    assert!(colliders.contains(&(Collider(1), true)), "{colliders:?}");
    assert!(!colliders.iter().any(|(c, _)| c.0 == 2), "{colliders:?}");
}

/// The same hook through `World::spawn`: the panic reaches the caller and
/// the world stays consistent and usable.
#[test]
fn a_hook_panicking_in_world_spawn_leaves_a_consistent_world() {
    let mut world = fixture();
    let len = world.len();
    let result = catch_unwind(AssertUnwindSafe(|| world.spawn((Collider(666), Pos(2)))));
    assert!(result.is_err());
    assert_consistent(&world);
    assert!(world.len() <= len + 1);
    let e = world.spawn((Collider(3),));
    assert!(world.has::<Frozen>(e));
    assert_consistent(&world);
}

// ------------------------------------------------------------ transitions and fixed steps

/// An `on_exit` system that panics: compared with the same program whose
/// exit system does nothing, the world must not end up in neither state
/// with the request gone; a later run applies the transition as the
/// reference did (or the state switched as in the reference).
#[test]
fn a_panicking_exit_system_does_not_lose_the_transition() {
    let build = |trap: &Trap| {
        let t = trap.clone();
        let mut schedule = Schedule::<Game>::new();
        schedule
            .on_exit(Phase::Menu, move |mut log: ResMut<Log>| {
                t.fire("exit fails");
                log.0.push("exit Menu".into());
            })
            .on_enter(Phase::Playing, |mut log: ResMut<Log>| {
                log.0.push("enter Playing".into())
            })
            .add(|mut next: NextState<Phase>, mut log: ResMut<Log>| {
                // Requested once only.
                if log.0.is_empty() {
                    log.0.push("request Playing".into());
                    next.set(Phase::Playing);
                }
            });
        schedule
    };
    let trap = Trap::armed();
    let mut schedule = build(&trap);
    let mut world = fixture();
    schedule.run(&mut world); // requests Playing
    assert!(catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).is_err());
    assert_consistent(&world);
    trap.disarm();
    schedule.run(&mut world);
    schedule.run(&mut world);
    // The reference: the exit system did nothing on its panicking run.
    let mut reference = build(&Trap::default());
    let mut expected = fixture();
    reference.run(&mut expected);
    reference.run(&mut expected);
    reference.run(&mut expected);
    reference.run(&mut expected);
    assert_eq!(*world.state::<Phase>(), *expected.state::<Phase>());
    assert_eq!(*world.state::<Phase>(), Phase::Playing);
}

/// A fixed step that panics: the steps of the frame not run yet must not
/// be lost from the clock (or the next frames run fewer steps than a world
/// whose failing step did nothing).
#[test]
fn a_panicking_fixed_step_does_not_lose_the_frames_other_steps() {
    let build = |trap: &Trap| {
        let t = trap.clone();
        let mut fixed = Schedule::<Game>::new();
        fixed.add(move |mut log: ResMut<Log>| {
            log.0.push("step".into());
            if log.0.len() == 2 {
                t.fire("the second step fails");
            }
        });
        let mut frame = Schedule::<Game>::new();
        frame.add(|mut log: ResMut<Log>| log.0.push("frame".into()));
        GameLoop::new(fixed, frame)
    };
    let start = || {
        let mut world = fixture();
        *world.resource_mut::<FixedTime>() = FixedTime::from_hz(50);
        world
    };
    let trap = Trap::armed();
    let mut game = build(&trap);
    let mut world = start();
    let frame = std::time::Duration::from_millis(60); // three steps
    let result = catch_unwind(AssertUnwindSafe(|| game.run_frame(&mut world, frame)));
    assert!(result.is_err());
    trap.disarm();
    for _ in 0..3 {
        game.run_frame(&mut world, frame);
    }
    let mut reference = build(&Trap::default());
    let mut expected = start();
    for _ in 0..4 {
        reference.run_frame(&mut expected, frame);
    }
    let steps = |w: &World<Game>| {
        w.resource::<Log>()
            .0
            .iter()
            .filter(|l| *l == "step")
            .count()
    };
    // The panicking frame may skip its frame schedule, but not the steps
    // its time paid for: every frame's steps are run by the end.
    assert_eq!(
        steps(&world),
        steps(&expected),
        "{:?}",
        world.resource::<Log>().0
    );
    assert_eq!(
        world.resource::<FixedTime>().steps(),
        expected.resource::<FixedTime>().steps()
    );
}

// ------------------------------------------------------------ stale entities in the recorders

/// The fixture with a stale handle (its slot reused by a live entity, a
/// child of the root with a sparse component), a dead one (its slot free)
/// and one that never existed.
fn with_bad_ids() -> (World<Game>, [Entity; 3], Entity) {
    let mut world = fixture();
    let root = world
        .iter()
        .find(|&e| world.get::<Pos>(e) == Some(&Pos(0)))
        .unwrap();
    let old = world.spawn((Pos(50), Hp(50), Stun(50)));
    world.despawn(old).unwrap();
    let reused = world.spawn((Pos(51), Hp(51), Stun(51), ChildOf(root)));
    assert_eq!(reused.index(), old.index());
    let dead = world.spawn((Pos(52),));
    world.despawn(dead).unwrap();
    let never = Entity::from_bits((1u64 << 32) | 5000).unwrap();
    (world, [old, dead, never], root)
}

/// The chunk recorders of a parallel loop given bad handles: the migrator
/// refuses them, and the commands and despawns naming them do nothing, to
/// the entity now in the stale handle's slot least of all.
#[test]
fn chunk_recorders_given_bad_entities_change_nothing() {
    for threads in [1, 2, 4] {
        let (mut world, bad, root) = with_bad_ids();
        let refused = Arc::new(std::sync::Mutex::new(Vec::new()));
        let out = refused.clone();
        let probe = move |mut q: Query<(Entity, &Hp)>,
                          mut commands: Commands<Game>,
                          mut despawner: Despawner<Game>,
                          mut burning: Migrator<Game, Burning, With<Hp>>| {
            q.par_for_each_mut_with(
                (&mut commands, &mut despawner, &mut burning),
                |(commands, despawner, burning), (_, hp)| {
                    if hp.0 != 5 {
                        return;
                    }
                    for e in bad {
                        out.lock()
                            .unwrap()
                            .push(burning.insert(e, Burning(1)).is_err());
                        out.lock().unwrap().push(burning.remove(e).is_err());
                        commands.insert(e, (Vel(9), Stun(9)));
                        commands.insert(e, (ChildOf(root),));
                        commands.remove::<Stun>(e);
                        commands.remove::<ChildOf>(e);
                        commands.remove::<Pos>(e);
                        commands.despawn(e);
                        despawner.despawn(e);
                    }
                },
            );
        };
        let idle = |_: Query<(Entity, &Hp)>,
                    _: Commands<Game>,
                    _: Despawner<Game>,
                    _: Migrator<Game, Burning, With<Hp>>| {};
        let mut schedule = Schedule::<Game>::new();
        schedule.add(probe).force_parallel(Some(true));
        on_threads(threads, || schedule.run(&mut world));
        let mut reference = Schedule::<Game>::new();
        reference.add(idle);
        let mut expected = with_bad_ids().0;
        reference.run_sequential(&mut expected);
        assert_eq!(*refused.lock().unwrap(), [true; 6]);
        assert_same(&mut world, &mut expected, &format!("{threads} threads"));
    }
}

#[derive(ecs::soa::Soa, Clone, Copy, Debug, PartialEq, StableHash)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Schema)]
struct Flat {
    #[ecs(soa)]
    point: Point,
    vel: Vel,
}

/// `get_soa` and `get_soa_mut` of a stale, dead or never-existing entity
/// are `None` and change nothing; the entity in the stale handle's slot
/// keeps its value.
#[test]
fn get_soa_of_bad_entities_is_none_and_changes_nothing() {
    let mut world = World::<Flat>::new();
    let a = world.spawn((Point { x: 1, y: 2 }, Vel(1)));
    let old = world.spawn((Point { x: 3, y: 4 },));
    world.despawn(old).unwrap();
    let reused = world.spawn((Point { x: 5, y: 6 },));
    assert_eq!(reused.index(), old.index());
    let dead = world.spawn((Point { x: 7, y: 8 },));
    world.despawn(dead).unwrap();
    let never = Entity::from_bits((1u64 << 32) | 5000).unwrap();
    let no_point = world.spawn((Vel(3),));
    let before = world.clone();
    for e in [old, dead, never, no_point] {
        assert!(world.get_soa::<Point>(e).is_none(), "{e}");
        assert!(world.get_soa_mut::<Point>(e).is_none(), "{e}");
    }
    assert_eq!(world.checksum(), before.checksum());
    let p = world.get_soa::<Point>(reused).unwrap();
    assert_eq!((*p.x, *p.y), (5, 6));
    let p = world.get_soa::<Point>(a).unwrap();
    assert_eq!((*p.x, *p.y), (1, 2));
    let mut copy = before.clone();
    assert_eq!(world.spawn((Vel(0),)), copy.spawn((Vel(0),)));
}
