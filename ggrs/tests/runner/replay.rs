//! Replays: a recorded match plays back to the same world, every recorded
//! checksum verified; a hostile or truncated file is an error, never a
//! panic; a replay that stops matching names the frame, the parts and the
//! system at fault.

use crate::common::{Arena, Net};
use schemecs::prelude::*;
use schemecs_ggrs::ggrs::SessionBuilder;
use schemecs_ggrs::{GgrsRunner, Replay, ReplayError, ReplayRecorder};

const SEED: u64 = 0x7e9a;
const FRAMES: i32 = 240;
const EVERY: i32 = 10;

/// Records `FRAMES` frames of a 2-player sync test of the arena game; the
/// replay and the world the match reached.
fn record() -> (Replay<u8>, World<Arena>) {
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(3)
        .start_synctest_session()
        .unwrap();
    let mut runner = GgrsRunner::new(
        crate::common::world(2, SEED),
        crate::common::schedule(false),
        session.max_prediction(),
    );
    let mut recorder = ReplayRecorder::new(runner.world(), 2, EVERY).unwrap();
    for frame in 0..=FRAMES {
        for player in 0..2 {
            let input = crate::common::input(SEED, player, frame);
            session.add_local_input(player, input).unwrap();
        }
        runner
            .handle_requests(session.advance_frame().unwrap())
            .unwrap();
        // The world at `frame` is saved once this frame's requests ran.
        recorder.record_confirmed(&runner, frame).unwrap();
    }
    let replay = recorder.finish();
    assert_eq!(replay.frames(), FRAMES as usize);
    let end = runner.saved_world(FRAMES).unwrap().clone();
    (replay, end)
}

#[test]
fn a_recorded_match_plays_back_to_the_same_world() {
    let (replay, end) = record();
    let bytes = replay.to_bytes();
    let loaded = Replay::<u8>::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, replay);
    let played = loaded
        .play::<Arena, Net>(crate::common::schedule(false))
        .unwrap();
    assert_eq!(played.checksum(), end.checksum());
    let stats = *played.resource::<crate::common::Stats>();
    assert!(stats.shots > 10 && stats.hits > 0, "{stats:?}");
    eprintln!(
        "{FRAMES} frames, checksums every {EVERY}: {} bytes",
        bytes.len()
    );
}

#[test]
fn a_truncated_or_corrupted_file_is_an_error_never_a_panic() {
    let (replay, _) = record();
    let bytes = replay.to_bytes();
    for cut in (0..bytes.len()).step_by(7) {
        match Replay::<u8>::from_bytes(&bytes[..cut]) {
            Err(ReplayError::Invalid(_)) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        Replay::<u8>::from_bytes(&longer),
        Err(ReplayError::Invalid(_))
    ));
    let mut version = bytes.clone();
    version[8] = 9;
    let error = Replay::<u8>::from_bytes(&version).unwrap_err();
    assert!(error.to_string().contains("version 9"), "{error}");
    // Every byte flipped in turn: an error, or a replay that plays back to
    // a verdict; never a panic.
    let mut verdicts = [0; 3];
    for at in (8..bytes.len()).step_by(41) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x55;
        let verdict = match Replay::<u8>::from_bytes(&bad) {
            Err(_) => 0,
            Ok(replay) => match replay.play::<Arena, Net>(crate::common::schedule(false)) {
                Ok(_) => 1,
                Err(_) => 2,
            },
        };
        verdicts[verdict] += 1;
    }
    assert!(verdicts[0] > 0 && verdicts[2] > 0, "{verdicts:?}");
}

#[test]
fn a_replay_that_stops_matching_names_the_frame_the_parts_and_the_system() {
    let (replay, _) = record();
    // Played with a schedule that has a non-deterministic system.
    let error = replay
        .play::<Arena, Net>(crate::common::schedule_with_glitch())
        .unwrap_err();
    eprintln!("{error}");
    let ReplayError::Diverged(divergence) = &error else {
        panic!("{error}");
    };
    assert_eq!(divergence.mismatch.frame, EVERY);
    assert!(divergence
        .mismatch
        .parts
        .contains(&"component:Vel".to_owned()));
    let found = divergence.divergence.as_ref().expect("a system at fault");
    assert_eq!(found.system(), Some("glitch"));
    // Played with a deterministic schedule that is not the recorded one
    // (a ship drifts): the frame and parts are named, no system is blamed.
    let error = replay
        .play::<Arena, Net>(crate::common::schedule_drifting_from(0, true))
        .unwrap_err();
    let ReplayError::Diverged(divergence) = &error else {
        panic!("{error}");
    };
    assert_eq!(divergence.mismatch.frame, EVERY);
    assert!(divergence.divergence.is_none(), "{error}");
    assert!(
        error.to_string().contains("code or data changed"),
        "{error}"
    );
}
