//! GGRS sync tests of the arena game: every frame the session rolls back
//! seven frames, resimulates them and compares checksums. The game uses a
//! `Local`, events, `Changed`, a sparse component, commands and a seeded
//! generator in a resource, so each of them must be restored exactly.

use crate::common::{Arena, Net, Player, Stats};
use schemecs::prelude::*;
use schemecs_ggrs::ggrs::{Frame, GgrsError, SessionBuilder};
use schemecs_ggrs::GgrsRunner;

const CHECK_DISTANCE: usize = 7;
const FRAMES: i32 = 1_000;

/// Runs `frames` frames of a sync test with `players` players; the first
/// error GGRS reports, or the stats at the end and the final checksum.
fn sync_test(players: u8, seed: u64, frames: i32, bug: bool) -> Result<(Stats, u128), GgrsError> {
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(usize::from(players))?
        .with_check_distance(CHECK_DISTANCE)
        .start_synctest_session()?;
    let mut runner = GgrsRunner::new(
        crate::common::world(players, seed),
        crate::common::schedule(bug),
        session.max_prediction(),
    );
    for frame in 0..frames {
        for player in 0..usize::from(players) {
            session.add_local_input(player, crate::common::input(seed, player, frame))?;
        }
        let requests = session.advance_frame()?;
        runner.handle_requests(requests).expect("requests in order");
    }
    assert_eq!(runner.frame(), frames);
    let stats = *runner.world().resource::<Stats>();
    Ok((stats, runner.checksum()))
}

fn on_threads<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(run)
}

/// The match passes the sync test on pools of 1, 2 and 4 threads and ends
/// in the same world on each; the game did what the test is about (shots,
/// hits, kills, spawns), so the state the test checks is not trivial.
fn passes_on_1_2_and_4_threads(players: u8, seed: u64) {
    let mut ends = Vec::new();
    for threads in [1, 2, 4] {
        let end = on_threads(threads, || sync_test(players, seed, FRAMES, false));
        match end {
            Ok(end) => ends.push(end),
            Err(error) => panic!("{players} players on {threads} threads: {error}"),
        }
    }
    let (stats, _) = ends[0];
    eprintln!("{players} players, {FRAMES} frames, check distance {CHECK_DISTANCE}: {stats:?}");
    assert!(stats.shots > 50, "{stats:?}");
    assert!(stats.hits > 10, "{stats:?}");
    assert!(stats.killed > 0, "{stats:?}");
    assert!(stats.spawned > 10, "{stats:?}");
    assert!(ends.iter().all(|end| *end == ends[0]), "{ends:?}");
}

#[test]
fn two_players_pass_the_sync_test_on_1_2_and_4_threads() {
    passes_on_1_2_and_4_threads(2, 0x2b0b);
}

#[test]
fn four_players_pass_the_sync_test_on_1_2_and_4_threads() {
    passes_on_1_2_and_4_threads(4, 0x4f0f);
}

/// The sync test is a real check: one system that writes a value from a
/// process-global counter into the world makes the resimulated checksums
/// differ, and GGRS reports the mismatch the first time it compares.
#[test]
fn a_nondeterministic_system_fails_the_sync_test() {
    let error = sync_test(2, 7, 100, true).expect_err("the sync test must fail");
    match error {
        GgrsError::MismatchedChecksum {
            current_frame,
            mismatched_frames,
        } => {
            // The first rollback comes once the session is more than the
            // check distance in, and its checksums are compared at the
            // next frame: a bug this blatant is caught there.
            assert_eq!(current_frame, CHECK_DISTANCE as i32 + 2);
            assert!(!mismatched_frames.is_empty());
        }
        other => panic!("expected MismatchedChecksum, got {other:?}"),
    }
}

/// Runs a 2-player sync test of `schedule` until GGRS reports a mismatch:
/// the runner as it was then, and the frames that mismatched. `None` if
/// `frames` frames pass.
fn until_mismatch(
    schedule: Schedule<Arena>,
    frames: i32,
) -> (GgrsRunner<Arena, Net>, Option<Vec<Frame>>) {
    let seed = 7;
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(CHECK_DISTANCE)
        .start_synctest_session()
        .unwrap();
    let mut runner = GgrsRunner::new(
        crate::common::world(2, seed),
        schedule,
        session.max_prediction(),
    );
    for frame in 0..frames {
        for player in 0..2 {
            let input = crate::common::input(seed, player, frame);
            session.add_local_input(player, input).unwrap();
        }
        match session.advance_frame() {
            Ok(requests) => runner.handle_requests(requests).expect("requests in order"),
            Err(GgrsError::MismatchedChecksum {
                mismatched_frames, ..
            }) => return (runner, Some(mismatched_frames)),
            Err(other) => panic!("{other}"),
        }
    }
    (runner, None)
}

/// On a mismatch, the runner re-simulates the first mismatched frame twice
/// and names the system (the fifth of ten), the component it wrote and the
/// entity, on 1 thread and with the culprit in a parallel stage on 4.
#[test]
fn a_mismatch_is_traced_to_its_system_component_entity_and_frame() {
    for threads in [1, 4] {
        let (mut runner, mismatched) = on_threads(threads, || {
            until_mismatch(crate::common::schedule_with_glitch(), 100)
        });
        let mismatched = mismatched.expect("the glitch fails the sync test");
        let frame = *mismatched.iter().min().unwrap();
        let diagnosis = on_threads(threads, || runner.diagnose(frame)).expect("the ring holds it");
        eprintln!("{threads} threads: {diagnosis}");
        assert_eq!(diagnosis.frame(), frame);
        let divergence = diagnosis.divergence().expect("the two runs differ");
        assert_eq!(divergence.system(), Some("glitch"));
        let ship = runner
            .world()
            .query::<(Entity, &Player)>()
            .iter()
            .find(|(_, player)| player.0 == 0)
            .map(|(ship, _)| ship)
            .unwrap();
        let vel = divergence.diff().component("Vel").expect("it wrote Vel");
        assert_eq!(vel.values(), [ship]);
        // The arena's schema has `#[ecs(debug)]`: both values are printed.
        let [(printed, first, second)] = vel.printed() else {
            panic!("one value printed: {diagnosis}");
        };
        assert_eq!(*printed, ship);
        assert!(first.starts_with("Vel {") && first != second, "{diagnosis}");
        assert_eq!(divergence.diff().components().len(), 1, "{diagnosis}");
        let report = diagnosis.to_string();
        for needle in [
            format!("frame {frame}:"),
            "system `glitch` (number 5 in program order)".to_owned(),
            format!("component `Vel`: values (or change ticks) differ for 1 entity: {ship}"),
            format!("{ship}: {first} in the first world, {second} in the second"),
        ] {
            assert!(report.contains(&needle), "{needle:?} not in {report}");
        }
    }
}

/// A frame of a deterministic game re-simulates to the same world twice:
/// no system is blamed.
#[test]
fn a_deterministic_frame_blames_no_system() {
    let (mut runner, mismatched) = until_mismatch(crate::common::schedule(false), 30);
    assert_eq!(mismatched, None);
    let frame = runner.frame() - 1;
    let diagnosis = runner.diagnose(frame).expect("the ring holds it");
    assert!(diagnosis.divergence().is_none(), "{diagnosis}");
    assert!(diagnosis.to_string().contains("agree"), "{diagnosis}");
}

/// A swarm whose members wander by their own random streams, drawn in a
/// parallel loop from a `WorldRng` kept in the world.
mod swarm {
    use super::{on_threads, CHECK_DISTANCE};
    use crate::common::Net;
    use schemecs::checksum::StableHash;
    use schemecs::prelude::*;
    use schemecs::random::{Rng, WorldRng};
    use schemecs_ggrs::ggrs::SessionBuilder;
    use schemecs_ggrs::{GgrsRunner, PlayerInputs};

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    struct Pos(i32);

    #[derive(Schema)]
    struct Swarm {
        pos: Pos,
        #[ecs(resource)]
        rng: WorldRng,
        #[ecs(resource)]
        inputs: PlayerInputs<Net>,
    }

    fn wander(
        mut rng: ResMut<WorldRng>,
        inputs: Res<PlayerInputs<Net>>,
        mut members: Query<(Entity, &mut Pos)>,
    ) {
        let push = i32::from(inputs.input(0) & 1);
        let streams = rng.streams();
        members.par_for_each_mut(|(member, pos)| {
            pos.0 += (streams.of(member).next_u32() % 5) as i32 - 2 + push;
        });
    }

    /// The final checksum of `frames` frames of a sync test.
    fn sync_test(frames: i32) -> u128 {
        let mut session = SessionBuilder::<Net>::new()
            .with_num_players(1)
            .unwrap()
            .with_check_distance(CHECK_DISTANCE)
            .start_synctest_session()
            .unwrap();
        let mut world = World::<Swarm>::new();
        *world.resource_mut::<WorldRng>() = WorldRng::seed_from_u64(99);
        world.spawn_batch((0..200).map(|i| (Pos(i),)));
        let mut schedule = Schedule::new();
        schedule.add(wander);
        let mut runner = GgrsRunner::new(world, schedule, session.max_prediction());
        for frame in 0..frames {
            session.add_local_input(0, (frame / 5 % 2) as u8).unwrap();
            let requests = session.advance_frame().expect("no mismatch");
            runner.handle_requests(requests).unwrap();
        }
        runner.checksum()
    }

    #[test]
    fn a_parallel_loop_drawing_randomness_passes_the_sync_test_on_1_2_and_4_threads() {
        let ends: Vec<u128> = [1, 2, 4]
            .into_iter()
            .map(|threads| on_threads(threads, || sync_test(60)))
            .collect();
        assert!(ends.iter().all(|&end| end == ends[0]), "{ends:x?}");
    }
}

/// `GgrsConfig` is a whole `ggrs::Config`, and systems read the frame
/// being simulated from `PlayerInputs`, the same through every rollback.
mod ready_made_config {
    use super::CHECK_DISTANCE;
    use schemecs::checksum::StableHash;
    use schemecs::prelude::*;
    use schemecs_ggrs::ggrs::{Frame, SessionBuilder};
    use schemecs_ggrs::{GgrsConfig, GgrsRunner, PlayerInputs};

    type Net = GgrsConfig<u16>;

    #[derive(Clone, Debug, Default, PartialEq, StableHash)]
    struct Seen(Vec<(i32, u16)>);

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    struct Marker;

    #[derive(Schema)]
    struct Log {
        marker: Marker,
        #[ecs(resource)]
        seen: Seen,
        #[ecs(resource)]
        inputs: PlayerInputs<Net>,
    }

    fn record(inputs: Res<PlayerInputs<Net>>, mut seen: ResMut<Seen>) {
        seen.0.push((inputs.frame(), inputs.input(0)));
    }

    #[test]
    fn systems_read_the_frame_and_the_inputs_of_a_ready_made_config() {
        let mut session = SessionBuilder::<Net>::new()
            .with_num_players(1)
            .unwrap()
            .with_check_distance(CHECK_DISTANCE)
            .start_synctest_session()
            .unwrap();
        let mut schedule = Schedule::new();
        schedule.add(record);
        let mut runner = GgrsRunner::new(World::<Log>::new(), schedule, session.max_prediction());
        let frames: Frame = 30;
        for frame in 0..frames {
            session.add_local_input(0, 1000 + frame as u16).unwrap();
            let requests = session.advance_frame().expect("no mismatch");
            runner.handle_requests(requests).unwrap();
        }
        let expected: Vec<(i32, u16)> = (0..frames).map(|f| (f, 1000 + f as u16)).collect();
        assert_eq!(runner.world().resource::<Seen>().0, expected);
        assert!(runner.rollbacks() > 10, "the sync test rolled back");
    }
}
