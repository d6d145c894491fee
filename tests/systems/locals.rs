//! A system's `Local` state is world state: a snapshot and a checksum carry
//! it (and a save, with feature `serde`, a `SavedLocal`'s), so a world that
//! is rolled back, copied or loaded, and run by the same schedule or a new
//! one with the same systems, goes on exactly as a straight run does
//! (bevy_ggrs's `Local` pitfall, ruled out). The systems whose worlds the
//! tests save keep `SavedOrLocal`s: `SavedLocal`s with feature `serde`.

use ecs::checksum::StableHash;
use ecs::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use support::SavedOrLocal;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Hp(i32);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Stun(u32);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Fired(u32);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Log(Vec<String>);
/// A seeded generator kept in the world, as rollback needs.
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Dice(u64);

impl Default for Dice {
    fn default() -> Self {
        Dice(0x9e37_79b9_7f4a_7c15)
    }
}

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides
    }
}

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    hp: Hp,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(event)]
    fired: Fired,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    dice: Dice,
}

/// Spawns a projectile when its cooldown (a `Local`) runs out; counts its
/// shots in a second `Local`.
fn fire(
    mut cooldown: SavedOrLocal<u32>,
    mut shots: SavedOrLocal<Vec<u32>>,
    mut fired: EventWriter<Fired>,
    mut dice: ResMut<Dice>,
    mut commands: Commands<Game>,
) {
    if *cooldown > 0 {
        *cooldown -= 1;
        return;
    }
    let shot = shots.len() as u32;
    shots.push(shot);
    *cooldown = dice.roll(4) as u32;
    let speed = 1 + dice.roll(3) as i64;
    commands.spawn((Pos(0), Vel(speed), Hp(3 + shot as i32 % 4)));
    fired.send(Fired(shot));
}

fn advance(mut movers: Query<(&mut Pos, &Vel)>) {
    movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
}

/// Wears projectiles down; stuns some (a sparse component), despawns the
/// spent.
fn wear(
    mut bodies: Query<(Entity, &mut Hp, &Pos), Without<Stun>>,
    mut dice: ResMut<Dice>,
    mut commands: Commands<Game>,
) {
    for (entity, hp, pos) in bodies.iter_mut() {
        if pos.0 % 3 == 0 {
            hp.0 -= 1;
        }
        if hp.0 <= 0 {
            commands.despawn(entity);
        } else if dice.roll(5) == 0 {
            commands.insert(entity, (Stun(2),));
        }
    }
}

fn recover(mut stunned: Query<(Entity, &mut Stun)>, mut commands: Commands<Game>) {
    for (entity, stun) in stunned.iter_mut() {
        stun.0 -= 1;
        if stun.0 == 0 {
            commands.remove::<Stun>(entity);
        }
    }
}

/// Logs what changed since its last run, with a running count of its own.
fn watch(
    changed: Query<(Entity, &Hp), Changed<Hp>>,
    fired: EventReader<Fired>,
    mut seen: SavedOrLocal<u64>,
    mut log: ResMut<Log>,
) {
    let changes: Vec<String> = changed
        .iter()
        .map(|(entity, hp)| format!("{}:{}", entity.index(), hp.0))
        .collect();
    let shots: Vec<u32> = fired.read().map(|shot| shot.0).collect();
    *seen += changes.len() as u64 + shots.len() as u64;
    log.0.push(format!(
        "seen {} changed {changes:?} fired {shots:?}",
        *seen
    ));
}

fn schedule() -> Schedule<Game> {
    let mut schedule = Schedule::new();
    schedule
        .add(fire)
        .add(advance)
        .add(wear)
        .add(recover)
        .add(watch);
    schedule
}

/// Runs `frames` frames and returns the log lines they added.
fn run(schedule: &mut Schedule<Game>, world: &mut World<Game>, frames: usize) -> Vec<String> {
    let from = world.resource::<Log>().0.len();
    for _ in 0..frames {
        schedule.run(world);
    }
    world.resource::<Log>().0[from..].to_vec()
}

const N: usize = 40;
const M: usize = 30;

/// The log of frames N..N+M of a straight run, and the checksum after it.
fn straight() -> (Vec<String>, u128) {
    let mut world = World::<Game>::new();
    let mut schedule = schedule();
    run(&mut schedule, &mut world, N);
    let log = run(&mut schedule, &mut world, M);
    (log, world.checksum())
}

#[test]
fn a_rollback_restores_every_local_and_replays_exactly() {
    let (expected_log, expected_sum) = straight();
    let mut world = World::<Game>::new();
    let mut schedule = schedule();
    run(&mut schedule, &mut world, N);
    let snapshot = world.clone();
    let first = run(&mut schedule, &mut world, M);
    assert_eq!(first, expected_log);
    world.clone_from(&snapshot);
    let again = run(&mut schedule, &mut world, M);
    assert_eq!(again, expected_log);
    assert_eq!(world.checksum(), expected_sum);
}

#[test]
fn a_new_schedule_over_a_copy_goes_on_exactly() {
    let (expected_log, expected_sum) = straight();
    let mut world = World::<Game>::new();
    run(&mut schedule(), &mut world, N);
    let mut copy = world.clone();
    // Neither the schedule that ran nor its world: a new schedule with the
    // same systems, over a copy.
    drop(world);
    let log = run(&mut schedule(), &mut copy, M);
    assert_eq!(log, expected_log);
    assert_eq!(copy.checksum(), expected_sum);
}

#[test]
fn the_sequential_and_the_parallel_run_keep_the_same_locals() {
    let (expected_log, expected_sum) = straight();
    for threads in [1, 2, 4] {
        for force in [Some(true), Some(false), None] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (log, sum) = pool.install(|| {
                let mut world = World::<Game>::new();
                let mut schedule = schedule();
                schedule.force_parallel(force);
                // Alternate the two runs: both take the locals from the world.
                for frame in 0..N {
                    if frame % 2 == 0 {
                        schedule.run(&mut world);
                    } else {
                        schedule.run_sequential(&mut world);
                    }
                }
                let log = run(&mut schedule, &mut world, M);
                (log, world.checksum())
            });
            assert_eq!(log, expected_log, "{threads} threads, forced {force:?}");
            assert_eq!(sum, expected_sum, "{threads} threads, forced {force:?}");
        }
    }
}

#[derive(Clone, Default, StableHash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct Counted(u64);

#[derive(Schema)]
struct Small {
    pos: Pos,
    #[ecs(resource)]
    counted: Counted,
}

fn count(mut runs: SavedOrLocal<u64>, mut counted: ResMut<Counted>) {
    *runs += 1;
    counted.0 = *runs;
}

#[test]
fn the_checksum_tells_apart_worlds_whose_locals_differ() {
    #[derive(Schema)]
    struct Hashed {
        pos: Pos,
    }
    fn tick(mut runs: Local<u64>) {
        *runs += 1;
    }
    let mut schedule = Schedule::<Hashed>::new();
    schedule.add(tick);
    let mut world = World::<Hashed>::new();
    let empty = world.checksum();
    schedule.run(&mut world);
    let once = world.checksum();
    assert_ne!(once, empty, "a schedule's locals are part of the world");
    let copy = world.clone();
    assert_eq!(copy.checksum(), once);
    schedule.run(&mut world);
    // Nothing but the local changed.
    assert_ne!(world.checksum(), once);
    assert_eq!(world.len(), copy.len());
}

#[test]
fn each_schedule_and_each_system_keeps_its_own_locals() {
    let mut world = World::<Small>::new();
    let mut twice = Schedule::<Small>::new();
    twice.add(count).add(count);
    let mut other = Schedule::<Small>::new();
    other.add_named("other count", count);
    twice.run(&mut world);
    twice.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, 2);
    other.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, 1, "its own count");
    twice.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, 3);
    // Another world: counts of its own.
    let mut fresh = World::<Small>::new();
    twice.run(&mut fresh);
    assert_eq!(fresh.resource::<Counted>().0, 1);
    // Forgotten by a world, a schedule starts afresh there.
    assert!(twice.forget(&mut world));
    assert!(!twice.forget(&mut world));
    twice.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, 1);
    other.run(&mut world);
    assert_eq!(
        world.resource::<Counted>().0,
        2,
        "the other schedule's count is kept"
    );
}

#[test]
fn a_world_holding_another_type_in_a_locals_place_is_a_clear_panic() {
    fn count_small(mut runs: Local<u8>, mut counted: ResMut<Counted>) {
        *runs += 1;
        counted.0 = u64::from(*runs);
    }
    let first = || {
        let mut first = Schedule::<Small>::new();
        first.add_named("count", count);
        first
    };
    let mut world = World::<Small>::new();
    first().run(&mut world);
    // A schedule built after the first was dropped (by code that changed
    // the system's local): the world takes it for the first.
    let mut second = Schedule::<Small>::new();
    second.add_named("count", count_small);
    let panic = catch_unwind(AssertUnwindSafe(|| second.run(&mut world))).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("system `count` keeps a `Local<u8>`")
            && message.contains("the world holds a `u64`")
            && message.contains("Schedule::add_named"),
        "{message}"
    );
    // The first schedule's value is where it was.
    drop(second);
    first().run(&mut world);
    assert_eq!(world.resource::<Counted>().0, 2);
}

#[test]
fn a_panicking_system_leaves_its_local_in_the_world() {
    fn brittle(mut runs: Local<u64>, mut counted: ResMut<Counted>) {
        *runs += 1;
        counted.0 = *runs;
        assert!(*runs != 2, "second run");
    }
    for sequential in [false, true] {
        let mut world = World::<Small>::new();
        let mut schedule = Schedule::<Small>::new();
        schedule.add(brittle);
        schedule.run(&mut world);
        let run = |schedule: &mut Schedule<Small>, world: &mut World<Small>| {
            if sequential {
                schedule.run_sequential(world);
            } else {
                schedule.run(world);
            }
        };
        assert!(catch_unwind(AssertUnwindSafe(|| run(&mut schedule, &mut world))).is_err());
        // The value the system had when it panicked is in the world: a copy
        // run by a new schedule goes on from it.
        let mut copy = world.clone();
        let mut fresh = Schedule::<Small>::new();
        fresh.add(brittle);
        run(&mut fresh, &mut copy);
        assert_eq!(copy.resource::<Counted>().0, 3, "sequential: {sequential}");
    }
}

#[cfg(feature = "serde")]
mod save {
    use super::*;

    #[test]
    fn a_loaded_world_goes_on_exactly_under_a_new_schedule() {
        let (expected_log, expected_sum) = straight();
        let mut world = World::<Game>::new();
        run(&mut schedule(), &mut world, N);
        let bytes = postcard::to_allocvec(&world).unwrap();
        let json = serde_json::to_string(&world).unwrap();
        for mut loaded in [
            postcard::from_bytes::<World<Game>>(&bytes).unwrap(),
            serde_json::from_str::<World<Game>>(&json).unwrap(),
        ] {
            // Before any system decodes its locals, the loaded world hashes
            // and saves as the saved one did.
            assert_eq!(loaded.checksum(), world.checksum());
            assert_eq!(postcard::to_allocvec(&loaded).unwrap(), bytes);
            assert_eq!(loaded.clone().checksum(), world.checksum());
            let log = run(&mut schedule(), &mut loaded, M);
            assert_eq!(log, expected_log);
            assert_eq!(loaded.checksum(), expected_sum);
        }
    }

    #[test]
    fn a_save_naming_a_schedules_locals_twice_is_refused() {
        let mut world = World::<Small>::new();
        let mut schedule = Schedule::<Small>::new();
        schedule.add(count);
        schedule.run(&mut world);
        let mut save = serde_json::to_value(&world).unwrap();
        // The ninth part: the locals, one entry per schedule.
        let locals = save[8].as_array_mut().unwrap();
        assert_eq!(locals.len(), 1);
        locals.push(locals[0].clone());
        match World::<Small>::load(save) {
            Err(ecs::world::LoadError::Invalid { reason, .. }) => {
                assert!(reason.contains("are saved twice"), "{reason}");
            }
            other => panic!("a save with one schedule's locals twice: {:?}", other.err()),
        }
    }

    #[test]
    fn a_saved_local_that_is_not_a_value_of_its_type_is_a_clear_panic() {
        let mut world = World::<Small>::new();
        let mut schedule = Schedule::<Small>::new();
        schedule.add(count);
        schedule.run(&mut world);
        // The local (a u64 of 1) saves as postcard's one byte 1 and its
        // digest; a u64 of 300 takes two bytes, which the edited save keeps
        // but the digest no longer matches.
        let json = serde_json::to_string(&world).unwrap();
        let edited = json.replacen("[[[[1],", "[[[[172,2],", 1);
        assert_ne!(
            edited, json,
            "the save's locals are where the test expects: {json}"
        );
        let mut loaded: World<Small> = serde_json::from_str(&edited).unwrap();
        let panic = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut loaded))).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("system `count` keeps a `SavedLocal<u64>`")
                && message.contains("a value whose checksum differs"),
            "{message}"
        );
        let truncated = json.replacen("[[[[1],", "[[[[],", 1);
        let mut loaded: World<Small> = serde_json::from_str(&truncated).unwrap();
        let panic = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut loaded))).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(message.contains("bytes that are not one"), "{message}");
    }
}

// Schedule identity: a world keys what a schedule's systems keep by the
// schedule's label and its systems' names, so two live schedules of the
// same systems on one world are refused, and a rebuilt one goes on.

fn mark_a(mut fired: EventWriter<Fired>, mut shots: Local<u32>) {
    *shots += 1;
    fired.send(Fired(*shots));
}

fn reader(fired: EventReader<Fired>, mut log: ResMut<Log>) {
    let shots: Vec<u32> = fired.read().map(|shot| shot.0).collect();
    log.0.push(format!("read {shots:?}"));
}

fn a_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::new();
    schedule.add(mark_a).add(reader);
    schedule
}

fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    match panic.downcast::<String>() {
        Ok(text) => *text,
        Err(panic) => panic.downcast_ref::<&str>().unwrap_or(&"").to_string(),
    }
}

/// Schedules `a` and `a2`, both `[mark_a, reader]`, share the reader's
/// cursor (and `mark_a`'s local): `a2` consumed the event `a` then never
/// saw. `a2`'s first run may be a replacement's; `a`'s next run is refused,
/// naming where each was made, and leaves the world as it was.
#[test]
fn two_live_schedules_of_the_same_systems_taking_turns_are_refused() {
    let mut world = World::<Game>::new();
    let mut a = a_schedule();
    let mut a2 = a_schedule();
    a.run(&mut world);
    a2.run(&mut world);
    let before = world.checksum();
    let panic = catch_unwind(AssertUnwindSafe(|| a.run(&mut world))).unwrap_err();
    let text = panic_text(panic);
    assert!(
        text.starts_with(
            "two live schedules with the same systems (mark_a, reader) take turns on one \
             World<Game>, both created at tests/systems/locals.rs:"
        ),
        "{text}"
    );
    assert!(text.contains("`Schedule::label`"), "{text}");
    assert_eq!(world.checksum(), before, "the refused run changed nothing");
    assert!(catch_unwind(AssertUnwindSafe(|| a.run_sequential(&mut world))).is_err());
    // The one that ran last runs on; once the world forgets it, `a` may
    // run again (starting afresh).
    a2.run(&mut world);
    assert!(a2.forget(&mut world));
    a.run(&mut world);

    // Labelled, each keeps its own state: each `mark_a` counts from 1,
    // each reader reads every event once.
    let mut world = World::<Game>::new();
    let mut labelled = a_schedule();
    labelled.label("a2");
    for _ in 0..2 {
        a.run(&mut world);
        labelled.run(&mut world);
    }
    assert_eq!(
        world.resource::<Log>().0,
        ["read [1]", "read [1, 1]", "read [1, 2]", "read [2, 2]"]
    );
}

/// A schedule built anew each frame, the old one dropped first, runs on as
/// one schedule; so does one built anew over a restored world while the
/// old one lives (a rollback's), and the old one over the world restored
/// again.
#[test]
fn a_rebuilt_schedule_goes_on_where_the_old_one_was() {
    let (expected_log, expected_sum) = straight();
    let mut world = World::<Game>::new();
    for _ in 0..N {
        schedule().run(&mut world);
    }
    let mut old = schedule();
    let log = run(&mut old, &mut world, M);
    assert_eq!(log, expected_log);
    assert_eq!(world.checksum(), expected_sum);

    let mut world = World::<Game>::new();
    run(&mut old, &mut world, N);
    let snapshot = world.clone();
    run(&mut old, &mut world, 3);
    world.clone_from(&snapshot);
    let mut fresh = schedule();
    assert_eq!(run(&mut fresh, &mut world, M), expected_log);
    assert_eq!(world.checksum(), expected_sum);
    // Restored again, the world may be run by the old one again: a
    // restored world has no past schedules.
    world.clone_from(&snapshot);
    assert_eq!(run(&mut old, &mut world, M), expected_log);
}
