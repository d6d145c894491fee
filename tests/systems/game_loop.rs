//! `GameLoop`: a fixed-step schedule run a whole number of times per frame
//! (0, 1 or several) from an accumulator kept in the world, then the frame
//! schedule; deterministic given the frame times, through snapshots, on 1
//! and 4 threads; each schedule's windows and locals kept apart.

use core::time::Duration;
use ecs::checksum::StableHash;
use ecs::prelude::*;
use support::SavedOrLocal;

#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Pos(i64);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Vel(i64);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Bounced(u64);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Log(Vec<String>);

#[derive(Schema)]
struct Game {
    #[ecs(track)]
    pos: Pos,
    vel: Vel,
    #[ecs(event)]
    bounced: Bounced,
    #[ecs(resource)]
    time: FixedTime,
    #[ecs(resource)]
    log: Log,
}

fn physics(
    mut q: Query<(&mut Pos, &mut Vel)>,
    time: Res<FixedTime>,
    mut out: EventWriter<Bounced>,
) {
    for (pos, vel) in q.iter_mut() {
        pos.0 += vel.0;
        if pos.0.abs() > 50 {
            vel.0 = -vel.0;
            out.send(Bounced(time.steps()));
        }
    }
}

fn count(mut runs: SavedOrLocal<u32>, mut log: ResMut<Log>, time: Res<FixedTime>) {
    *runs += 1;
    log.0
        .push(format!("run {} at step {}", *runs, time.steps()));
}

fn draw(
    moved: Query<&Pos, Changed<Pos>>,
    bounces: EventReader<Bounced>,
    time: Res<FixedTime>,
    mut log: ResMut<Log>,
) {
    let bounces: Vec<u64> = bounces.read().map(|b| b.0).collect();
    log.0.push(format!(
        "frame: {} moved, bounces {bounces:?}, overstep {:?}",
        moved.iter().count(),
        time.overstep()
    ));
}

fn game() -> GameLoop<Game> {
    let mut fixed = Schedule::<Game>::new();
    fixed.add(physics).add(count);
    let mut frame = Schedule::<Game>::new();
    frame.add(draw).add(count);
    GameLoop::new(fixed, frame)
}

fn world() -> World<Game> {
    let mut world = World::<Game>::new();
    *world.resource_mut::<FixedTime>() = FixedTime::new(Duration::from_millis(20));
    world.spawn((Pos(0), Vel(17)));
    world.spawn((Pos(10), Vel(-13)));
    world.spawn((Pos(-5), Vel(0)));
    world
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

#[test]
fn a_frame_runs_zero_one_or_several_fixed_steps_from_the_accumulator() {
    let mut world = world();
    let mut game = game();
    let frames = [5, 14, 1, 20, 65, 0, 39, 1];
    let steps: Vec<u32> = frames
        .iter()
        .map(|&t| game.run_frame(&mut world, ms(t)))
        .collect();
    assert_eq!(steps, [0, 0, 1, 1, 3, 0, 2, 0]);
    let time = world.resource::<FixedTime>();
    assert_eq!(time.steps(), 7);
    assert_eq!(time.elapsed(), ms(145));
    assert_eq!(time.overstep(), ms(5));
    // The fixed schedule's `count` ran once per step, the frame's once per
    // frame: two locals, one per schedule.
    let log = &world.resource::<Log>().0;
    let fixed_runs: Vec<&String> = log.iter().filter(|l| l.contains("at step")).collect();
    assert_eq!(fixed_runs.len(), 7 + frames.len());
    assert!(log.contains(&"run 7 at step 7".to_owned()), "{log:?}");
    assert!(log.contains(&"run 8 at step 7".to_owned()), "{log:?}");
    // The frame after no step sees nothing moved; after three, all three
    // moves at once (its window is its own).
    assert!(log[0].starts_with("frame: 3 moved"), "{log:?}");
    assert!(log[2].starts_with("frame: 0 moved"), "{log:?}");
}

#[test]
fn the_frame_schedule_sees_every_fixed_step_event_once() {
    let mut world = world();
    let mut game = game();
    let mut sent = 0;
    for t in [3, 70, 0, 0, 41, 19, 200, 5, 20, 20] {
        game.run_frame(&mut world, ms(t));
    }
    let log = world.resource::<Log>().0.clone();
    let mut seen = Vec::new();
    for line in log.iter().filter(|l| l.starts_with("frame")) {
        let list = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
        seen.extend(
            list.split(", ")
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<u64>().unwrap()),
        );
    }
    // Recompute the bounces: positions are integer, so a replay is exact.
    let mut bodies = [(0i64, 17i64), (10, -13), (-5, 0)];
    let mut expected = Vec::new();
    for step in 1..=world.resource::<FixedTime>().steps() {
        for (pos, vel) in &mut bodies {
            *pos += *vel;
            if pos.abs() > 50 {
                *vel = -*vel;
                expected.push(step);
                sent += 1;
            }
        }
    }
    assert!(sent > 3, "{sent}");
    assert_eq!(seen, expected);
}

#[test]
fn steps_past_the_limit_are_dropped() {
    let mut world = world();
    world
        .resource_mut::<FixedTime>()
        .clone_from(&FixedTime::new(ms(20)).with_max_steps(2));
    let mut game = game();
    assert_eq!(game.run_frame(&mut world, ms(130)), 2);
    assert_eq!(world.resource::<FixedTime>().overstep(), ms(10));
    assert_eq!(game.run_frame(&mut world, ms(10)), 1);
}

/// The limits a clock was given are what it reports: no limit on steps by
/// default (the 250 ms cap on a frame's time is the default bound), the
/// number given otherwise, and both survive a snapshot.
#[test]
fn a_clock_reports_the_limits_it_was_given() {
    let time = FixedTime::new(ms(20));
    assert_eq!((time.max_steps(), time.max_delta()), (u32::MAX, ms(250)));
    let limited = time.with_max_steps(3).with_max_delta(ms(70));
    assert_eq!((limited.max_steps(), limited.max_delta()), (3, ms(70)));
    let mut world = world();
    *world.resource_mut::<FixedTime>() = limited;
    let copy = world.clone();
    assert_eq!(copy.resource::<FixedTime>().max_steps(), 3);
}

/// A stall of 10 s at 50 Hz counts as 250 ms: 12 steps (250 / 20 = 12.5),
/// the 10 ms left kept in the accumulator, only 250 ms counted as elapsed.
#[test]
fn a_long_frame_counts_as_250_ms_by_default() {
    let mut world = world();
    assert_eq!(world.resource::<FixedTime>().max_delta(), ms(250));
    let mut game = game();
    assert_eq!(game.run_frame(&mut world, Duration::from_secs(10)), 12);
    let time = world.resource::<FixedTime>();
    assert_eq!((time.overstep(), time.elapsed()), (ms(10), ms(250)));
    assert_eq!(time.steps(), 12);
    // The kept 10 ms count: 10 more complete a step.
    assert_eq!(game.run_frame(&mut world, ms(10)), 1);
}

#[test]
fn a_frame_time_cap_of_ones_own_limits_a_frame() {
    let mut world = world();
    *world.resource_mut::<FixedTime>() = FixedTime::new(ms(20)).with_max_delta(ms(110));
    let mut game = game();
    assert_eq!(game.run_frame(&mut world, Duration::from_secs(10)), 5);
    assert_eq!(world.resource::<FixedTime>().overstep(), ms(10));
    // A frame under the cap is taken whole.
    assert_eq!(game.run_frame(&mut world, ms(50)), 3);
    assert_eq!(world.resource::<FixedTime>().overstep(), ms(0));
}

#[test]
fn without_a_cap_a_frame_runs_every_step_due() {
    let mut world = world();
    *world.resource_mut::<FixedTime>() = FixedTime::new(ms(20)).with_max_delta(Duration::MAX);
    let mut game = game();
    assert_eq!(game.run_frame(&mut world, Duration::from_secs(10)), 500);
    let time = world.resource::<FixedTime>();
    assert_eq!((time.overstep(), time.elapsed()), (ms(0), ms(10_000)));
}

/// The cap is the world's: a copy caps as the original, and two clocks
/// that differ only in their caps differ in the checksum.
#[test]
fn the_frame_time_cap_is_world_state() {
    let mut world = world();
    *world.resource_mut::<FixedTime>() = FixedTime::new(ms(20)).with_max_delta(ms(60));
    let mut copy = world.clone();
    let (mut game, mut other) = (game(), self::game());
    assert_eq!(game.run_frame(&mut world, ms(500)), 3);
    assert_eq!(other.run_frame(&mut copy, ms(500)), 3);
    assert_eq!(copy.checksum(), world.checksum());
    let mut wider = world.clone();
    *wider.resource_mut::<FixedTime>() =
        world.resource::<FixedTime>().clone().with_max_delta(ms(61));
    assert_ne!(wider.checksum(), world.checksum());
}

#[test]
fn the_accumulator_is_world_state() {
    let frames = [7, 13, 29, 3, 55, 18, 2, 40, 9, 21, 60, 1];
    let straight = {
        let mut world = world();
        let mut game = game();
        for &t in &frames {
            game.run_frame(&mut world, ms(t));
        }
        world
    };
    for cut in [1, 4, 7] {
        let mut world = world();
        let mut game = game();
        for &t in &frames[..cut] {
            game.run_frame(&mut world, ms(t));
        }
        // Roll back: run on, restore the snapshot, run again.
        let snapshot = world.clone();
        for &t in &frames[cut..] {
            game.run_frame(&mut world, ms(t + 3));
        }
        world.clone_from(&snapshot);
        let mut fresh = self::game();
        for &t in &frames[cut..] {
            fresh.run_frame(&mut world, ms(t));
        }
        assert_eq!(
            world.resource::<Log>(),
            straight.resource::<Log>(),
            "cut {cut}"
        );
        assert_eq!(world.checksum(), straight.checksum(), "cut {cut}");
    }
    let mut other = world();
    let mut game = game();
    for &t in &frames {
        game.run_frame(&mut other, ms(t));
    }
    *other.resource_mut::<FixedTime>() = {
        let mut time = straight.resource::<FixedTime>().clone();
        time.advance(ms(1));
        time
    };
    assert_ne!(
        other.checksum(),
        straight.checksum(),
        "the clock is in the checksum"
    );
}

#[cfg(feature = "serde")]
#[test]
fn the_accumulator_survives_a_save_and_load() {
    let mut world = world();
    *world.resource_mut::<FixedTime>() = FixedTime::new(ms(20)).with_max_delta(ms(90));
    let mut game = game();
    for t in [7, 13, 29] {
        game.run_frame(&mut world, ms(t));
    }
    let bytes = postcard::to_allocvec(&world).unwrap();
    let mut loaded: World<Game> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(
        loaded.resource::<FixedTime>(),
        world.resource::<FixedTime>()
    );
    let mut fresh = self::game();
    for t in [3, 55, 18, 400] {
        game.run_frame(&mut world, ms(t));
        fresh.run_frame(&mut loaded, ms(t));
    }
    assert_eq!(loaded.checksum(), world.checksum());
}

fn play(threads: usize, parallel: bool) -> u128 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut world = world();
        world
            .spawn_batch((0..200).map(|i| (Pos(i % 90 - 45), Vel(i % 7 - 3))))
            .for_each(drop);
        let mut game = game();
        game.fixed().force_parallel(Some(true));
        game.frame().force_parallel(Some(true));
        for t in [16, 17, 16, 50, 0, 33, 16, 16, 100, 1] {
            if parallel {
                game.run_frame(&mut world, ms(t));
            } else {
                game.run_frame_sequential(&mut world, ms(t));
            }
        }
        world.checksum()
    })
}

#[test]
fn a_game_loop_gives_the_sequential_result_on_1_and_4_threads() {
    let sequential = play(1, false);
    assert_eq!(play(1, true), sequential);
    assert_eq!(play(4, true), sequential);
}

#[test]
fn a_clock_made_from_a_rate_steps_in_whole_nanoseconds() {
    assert_eq!(FixedTime::from_hz(50).step(), ms(20));
    assert_eq!(
        FixedTime::from_hz(3).step(),
        Duration::from_nanos(333_333_333)
    );
    // A rate of 0 would be no step at all: it is taken as 1 Hz.
    assert_eq!(FixedTime::from_hz(0).step(), Duration::from_secs(1));
    // A second at 3 Hz is three steps and the nanosecond the rounding left
    // (a frame of a whole second, past the default cap of 250 ms).
    let mut time = FixedTime::from_hz(3).with_max_delta(Duration::from_secs(1));
    assert_eq!(time.advance(Duration::from_secs(1)), 3);
    assert_eq!(time.overstep(), Duration::from_nanos(1));
}

/// Records that the schedule it was added to ran.
fn mark(mut log: ResMut<Log>) {
    log.0.push("marked".to_owned());
}

#[test]
fn systems_added_through_the_loop_run_in_their_schedule() {
    let mut world = world();
    let mut game = game();
    game.fixed().add(mark);
    game.frame().add(mark);
    assert_eq!((game.fixed().len(), game.frame().len()), (3, 3));
    // Two steps, then the frame: three marks.
    assert_eq!(game.run_frame(&mut world, ms(45)), 2);
    let marks = world
        .resource::<Log>()
        .0
        .iter()
        .filter(|l| *l == "marked")
        .count();
    assert_eq!(marks, 3);
}

/// A saved clock whose step is 0 ns, or whose accumulator holds a whole
/// step it should have run, or that counts 2^63 steps or more, is refused
/// with the reason; one a nanosecond short of a step, or one step short of
/// 2^63, loads.
#[cfg(feature = "serde")]
#[test]
fn a_saved_clock_that_cannot_be_is_refused() {
    let load = |step: u64, accumulated: u64| {
        let text =
            serde_json::to_string(&(step, accumulated, u32::MAX, 250u64, 4u64, 90u64)).unwrap();
        serde_json::from_str::<FixedTime>(&text).map_err(|error| error.to_string())
    };
    let loaded = load(20, 19).unwrap();
    assert_eq!(
        (loaded.step(), loaded.overstep()),
        (Duration::from_nanos(20), Duration::from_nanos(19))
    );
    assert_eq!(
        (loaded.steps(), loaded.elapsed()),
        (4, Duration::from_nanos(90))
    );
    for (step, accumulated) in [(0, 0), (20, 20), (20, 21)] {
        let error = load(step, accumulated).unwrap_err();
        assert!(
            error.contains("fixed-step clock"),
            "{step}, {accumulated}: {error}"
        );
    }
    let text = serde_json::to_string(&(20u64, 0u64, u32::MAX, 0u64, 4u64, 90u64)).unwrap();
    let error = serde_json::from_str::<FixedTime>(&text)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("fixed-step clock accepts 0 ns of a frame's time"),
        "{error}"
    );
    // A count of steps up to 2^63 - 1 is a clock's; one past it is no save's.
    let steps = |steps: u64| {
        let text = serde_json::to_string(&(20u64, 0u64, u32::MAX, 250u64, steps, 90u64)).unwrap();
        serde_json::from_str::<FixedTime>(&text).map_err(|error| error.to_string())
    };
    assert_eq!(steps(u64::MAX / 2).unwrap().steps(), u64::MAX / 2);
    let error = steps(u64::MAX / 2 + 1).unwrap_err();
    assert!(
        error.contains("counts 9223372036854775808 steps run: more than a world runs"),
        "{error}"
    );
}
