//! Compares two peers' desync logs (the `--desync-log` files of the p2p
//! example, or any written from `schemecs_ggrs::DesyncLog`) and names the
//! first frame they disagree on and the parts of the world that differ:
//!
//!     cargo run --release -p schemecs-ggrs --example desync_compare -- A.log B.log
//!
//! Exits 0 if the logs agree on every frame both hold, 1 if they differ,
//! 2 if a file cannot be read or is not a log.

use schemecs_ggrs::DesyncLog;
use std::process::ExitCode;

fn read(path: &str) -> Result<DesyncLog, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}"))?;
    DesyncLog::parse(&text).map_err(|error| format!("{path}: {error}"))
}

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let [a, b] = paths.as_slice() else {
        eprintln!("usage: desync_compare A.log B.log");
        return ExitCode::from(2);
    };
    let logs = read(a).and_then(|first| Ok((first, read(b)?)));
    let (first, second) = match logs {
        Ok(logs) => logs,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let both = first
        .frames()
        .filter(|&frame| second.frames().any(|f| f == frame))
        .count();
    match first.first_mismatch(&second) {
        Some(mismatch) => {
            println!("{mismatch}");
            ExitCode::FAILURE
        }
        None => {
            println!("the logs agree on all {both} frames both hold");
            ExitCode::SUCCESS
        }
    }
}
