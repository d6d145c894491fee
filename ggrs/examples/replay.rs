//! Records a match of the arena game of the tests (two players whose inputs
//! come from a seeded generator, run through a GGRS sync test) into a replay
//! file, or plays a replay file back and verifies every checksum it holds:
//!
//!     cargo run --release -p schemecs-ggrs --example replay -- record /tmp/match.replay
//!     cargo run --release -p schemecs-ggrs --example replay -- play /tmp/match.replay
//!
//! `record FILE [FRAMES]` (600 frames by default); `play FILE [--glitch]`,
//! where `--glitch` plays back with a system that reads a process-global
//! counter, to see how a divergence is reported. Exits 0 when the replay
//! matches, 1 when it does not, 2 on a bad command line or file.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Arena, Net};
use schemecs_ggrs::ggrs::SessionBuilder;
use schemecs_ggrs::{GgrsRunner, Replay, ReplayError, ReplayRecorder};
use std::process::ExitCode;
use std::time::Instant;

const SEED: u64 = 0x5eed;
/// Checksums by part every this many frames.
const EVERY: i32 = 10;

fn record(path: &str, frames: i32) -> Result<(), String> {
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .and_then(|builder| builder.with_check_distance(2).start_synctest_session())
        .map_err(|error| error.to_string())?;
    let mut runner = GgrsRunner::new(
        common::world(2, SEED),
        common::schedule(false),
        session.max_prediction(),
    );
    let mut recorder =
        ReplayRecorder::new(runner.world(), 2, EVERY).map_err(|error| error.to_string())?;
    let start = Instant::now();
    for frame in 0..=frames {
        for player in 0..2 {
            let input = common::input(SEED, player, frame);
            session
                .add_local_input(player, input)
                .map_err(|error| error.to_string())?;
        }
        let requests = session.advance_frame().map_err(|error| error.to_string())?;
        runner
            .handle_requests(requests)
            .map_err(|error| error.to_string())?;
        recorder
            .record_confirmed(&runner, frame)
            .map_err(|error| error.to_string())?;
    }
    let bytes = recorder.finish().to_bytes();
    std::fs::write(path, &bytes).map_err(|error| format!("{path}: {error}"))?;
    println!(
        "recorded {frames} frames in {:.2?}: {path}, {} bytes",
        start.elapsed(),
        bytes.len()
    );
    Ok(())
}

fn play(path: &str, glitch: bool) -> Result<bool, String> {
    let bytes = std::fs::read(path).map_err(|error| format!("{path}: {error}"))?;
    let replay = Replay::<u8>::from_bytes(&bytes).map_err(|error| format!("{path}: {error}"))?;
    let schedule = match glitch {
        true => common::schedule_with_glitch(),
        false => common::schedule(false),
    };
    let start = Instant::now();
    match replay.play::<Arena, Net>(schedule) {
        Ok(world) => {
            println!(
                "{} frames played in {:.2?}; every checksum matches (final {:#034x})",
                replay.frames(),
                start.elapsed(),
                world.checksum()
            );
            Ok(true)
        }
        Err(error @ ReplayError::Diverged(_)) => {
            println!("{error}");
            Ok(false)
        }
        Err(error) => Err(format!("{path}: {error}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["record", path] => record(path, 600).map(|()| true),
        ["record", path, frames] => match frames.parse() {
            Ok(frames) if frames > 0 => record(path, frames).map(|()| true),
            _ => Err(format!("{frames}: not a number of frames")),
        },
        ["play", path] => play(path, false),
        ["play", path, "--glitch"] => play(path, true),
        _ => Err("usage: replay record FILE [FRAMES] | replay play FILE [--glitch]".into()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::from(2)
        }
    }
}
