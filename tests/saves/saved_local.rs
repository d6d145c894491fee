//! `Local` and `SavedLocal` in a save (feature `serde`): a save writes a
//! `SavedLocal`'s value and a loaded world goes on with it; a world holding
//! a plain `Local`'s value is refused with an error that names the system
//! and the type, and nothing is written; a `Local` that never ran holds no
//! value and stops nothing.
//!
//! `cargo test -p ecs-tests --features serde --test saves -- saved_local::`

use ecs::checksum::StableHash;
use ecs::prelude::*;
use serde::{Deserialize, Serialize};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Pos(i64);
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StableHash)]
struct Shots(Vec<u32>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    shots: Shots,
}

/// Fires when its cooldown runs out; the cooldown and the count of shots
/// are its own, and a save writes them.
fn fire(mut cooldown: SavedLocal<u8>, mut count: SavedLocal<u32>, mut shots: ResMut<Shots>) {
    if *cooldown == 0 {
        *count += 1;
        shots.0.push(*count);
        *cooldown = (*count % 3) as u8 + 1;
    } else {
        *cooldown -= 1;
    }
}

/// `fire`'s cooldown in a plain `Local`.
fn fire_unsaved(mut cooldown: Local<u8>, mut shots: ResMut<Shots>) {
    if *cooldown == 0 {
        shots.0.push(0);
        *cooldown = 2;
    } else {
        *cooldown -= 1;
    }
}

/// Holds on every other evaluation, by a count a save writes.
fn every_other(mut asked: SavedLocal<u32>) -> bool {
    *asked += 1;
    *asked % 2 == 0
}

/// Holds on every other evaluation, by a count a save does not write.
fn every_other_unsaved(mut asked: Local<u32>) -> bool {
    *asked += 1;
    *asked % 2 == 0
}

fn never() -> bool {
    false
}

fn step(mut bodies: Query<&mut Pos>) {
    bodies.for_each_mut(|pos| pos.0 += 1);
}

fn saved_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::new();
    schedule
        .add(fire)
        .add(step.run_if(every_other))
        .add_named("fire again", fire.run_if(every_other));
    schedule
}

fn world() -> World<Game> {
    let mut world = World::<Game>::new();
    world.spawn((Pos(0),));
    world
}

/// The error of saving `world` as JSON, after checking that postcard
/// refuses it with the same text and that nothing was written.
fn refusal(world: &World<Game>) -> String {
    let mut written = Vec::new();
    let error = serde_json::to_writer(&mut written, world)
        .expect_err("the save is refused")
        .to_string();
    assert!(written.is_empty(), "the refused save wrote {written:?}");
    let postcard = postcard::to_allocvec(world).expect_err("the save is refused");
    // postcard's error drops the text; its kind says the serializer refused.
    assert_eq!(postcard, postcard::Error::SerdeSerCustom);
    error
}

#[test]
fn a_saved_local_round_trips_and_the_loaded_world_goes_on_identically() {
    let mut world = world();
    let mut schedule = saved_schedule();
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    let json = serde_json::to_string(&world).unwrap();
    let bytes = postcard::to_allocvec(&world).unwrap();
    for mut loaded in [
        serde_json::from_str::<World<Game>>(&json).unwrap(),
        postcard::from_bytes::<World<Game>>(&bytes).unwrap(),
    ] {
        assert_eq!(loaded.checksum(), world.checksum());
        let mut original = world.clone();
        let mut fresh = saved_schedule();
        for run in 0..7 {
            schedule.run(&mut original);
            fresh.run(&mut loaded);
            assert_eq!(
                loaded.checksum(),
                original.checksum(),
                "run {run} after the load"
            );
        }
        assert_eq!(loaded.resource::<Shots>(), original.resource::<Shots>());
        // The values did change after the save: had the load started them
        // from `Default`, the runs would differ.
        assert_ne!(loaded.resource::<Shots>(), world.resource::<Shots>());
    }
}

#[test]
fn a_world_holding_a_plain_locals_value_is_refused_naming_the_system_and_type() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(fire).add(fire_unsaved);
    schedule.run(&mut world);
    let before = world.checksum();
    let error = refusal(&world);
    assert_eq!(
        error,
        "cannot save this world: system `fire_unsaved` keeps a `Local<u8>`, which a save cannot \
         write; make it a `SavedLocal<u8>` (its type must be `Serialize + Deserialize`) or keep \
         the value in a resource of the schema"
    );
    // The refusal changed nothing: the world runs on.
    assert_eq!(world.checksum(), before);
    schedule.run(&mut world);
}

#[test]
fn a_run_conditions_plain_local_is_refused_naming_the_condition() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(step.run_if(every_other_unsaved));
    schedule.run(&mut world);
    let error = refusal(&world);
    assert!(
        error.starts_with(
            "cannot save this world: the run condition of system `step` keeps a `Local<u32>`"
        ),
        "{error}"
    );

    let mut world = self::world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add((step, fire).run_if(every_other_unsaved));
    schedule.run(&mut world);
    let error = refusal(&world);
    assert!(
        error.starts_with(
            "cannot save this world: the run condition of the group that starts with system \
             `step` keeps a `Local<u32>`"
        ),
        "{error}"
    );
}

#[test]
fn a_plain_local_that_ran_after_a_load_is_refused_by_name() {
    let mut world = world();
    saved_schedule().run(&mut world);
    let json = serde_json::to_string(&world).unwrap();
    let mut loaded: World<Game> = serde_json::from_str(&json).unwrap();
    let mut schedule = saved_schedule();
    schedule.add(fire_unsaved);
    schedule.run(&mut loaded);
    let error = refusal(&loaded);
    assert!(
        error.starts_with("cannot save this world: system `fire_unsaved` keeps a `Local<u8>`"),
        "{error}"
    );
}

#[test]
fn a_local_that_never_ran_does_not_stop_a_save() {
    let mut world = world();
    let mut schedule = saved_schedule();
    // Its condition never holds: `fire_unsaved` never takes its `Local`.
    schedule.add(fire_unsaved.run_if(never));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let json = serde_json::to_string(&world).expect("nothing a save cannot write");
    let loaded: World<Game> = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
}

#[test]
fn a_plain_local_meeting_a_saved_value_in_its_place_is_a_clear_panic() {
    let mut world = world();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(fire);
    schedule.run(&mut world);
    let json = serde_json::to_string(&world).unwrap();
    let mut loaded: World<Game> = serde_json::from_str(&json).unwrap();
    // The same system, now keeping its cooldown in a plain `Local`.
    let mut changed = Schedule::<Game>::new();
    changed.add_named("fire", fire_unsaved);
    let panic = catch_unwind(AssertUnwindSafe(|| changed.run(&mut loaded))).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with(
            "system `fire` keeps a `Local<u8>` (its local number 0), but the world holds a value \
             loaded from a save in its place, which only a `SavedLocal<u8>` reads"
        ) && message.ends_with("Make it a `SavedLocal<u8>`"),
        "{message}"
    );
    // The saved value is where it was: the saved system goes on from it.
    drop(changed);
    let mut saved = Schedule::<Game>::new();
    saved.add(fire);
    let mut original = world.clone();
    let mut again = Schedule::<Game>::new();
    again.add(fire);
    for _ in 0..4 {
        saved.run(&mut loaded);
        again.run(&mut original);
    }
    assert_eq!(loaded.checksum(), original.checksum());
}
