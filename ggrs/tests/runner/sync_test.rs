//! GGRS sync tests of the arena game: every frame the session rolls back
//! seven frames, resimulates them and compares checksums. The game uses a
//! `Local`, events, `Changed`, a sparse component, commands and a seeded
//! generator in a resource, so each of them must be restored exactly.

use crate::common::{Net, Stats};
use schemecs_ggrs::ggrs::{GgrsError, SessionBuilder};
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
