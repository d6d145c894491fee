//! Two peers play the arena game of the tests (ggrs/tests/common) over UDP
//! with GGRS, each from a schemecs world driven by a `GgrsRunner` inside a
//! `P2PDriver` (which polls, paces the frames, gathers the inputs and
//! reports GGRS's events as values). Inputs
//! come from a seeded generator, not a keyboard, so both peers can check
//! what they agree on.
//!
//! Two processes, one per peer:
//!
//!     cargo run --release -p schemecs-ggrs --example p2p -- --local-port 7000 --remote 127.0.0.1:7001
//!     cargo run --release -p schemecs-ggrs --example p2p -- --local-port 7001 --remote 127.0.0.1:7000
//!
//! Each prints its progress (frames, rollbacks, round-trip time) and the
//! checksum of every 100th confirmed frame: the two columns must agree.
//!
//! Both peers in this process, on two threads, over loopback sockets on
//! ports the system picks; exits 0 when both confirmed every frame with the
//! same checksums, 1 on any desync:
//!
//!     cargo run --release -p schemecs-ggrs --example p2p -- --both
//!
//! Options: `--frames N` (600), `--fps N` (60), `--player 0|1` (by default
//! the peer with the lower port is player 0), `--loss N` (packets dropped
//! per thousand, 0), `--delay-ms N` (half the packets held back up to this
//! long, 0), `--seed N`.
//!
//! Finding a desync: `--desync-log FILE` writes this peer's checksums by
//! part for every confirmed frame to FILE (with `--both`, to FILE.0 and
//! FILE.1), also when the match ends in a desync, and `--drift-at N` plants
//! one: from frame N on, this peer (with `--both`, player 1) makes player
//! 0's ship drift. Then compare the two logs:
//!
//!     cargo run --release -p schemecs-ggrs --example p2p -- --both --drift-at 300 --desync-log /tmp/p2p.log
//!     cargo run --release -p schemecs-ggrs --example desync_compare -- /tmp/p2p.log.0 /tmp/p2p.log.1
//!
//! which prints the first frame the peers disagree on and the parts that
//! differ there: `frame 301: component `Vel` differs`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::net::{LossySocket, Traffic};
use common::{Arena, Net, Stats};
use schemecs_ggrs::ggrs::{
    DesyncDetection, Frame, GgrsEvent, P2PSession, PlayerType, SessionBuilder,
};
use schemecs_ggrs::{DriverEvent, DriverStep, GgrsRunner, P2PDriver};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a peer needs to know; the same on both, except the addresses.
#[derive(Clone, Debug)]
struct Options {
    both: bool,
    local_port: u16,
    remote: Option<SocketAddr>,
    player: Option<usize>,
    frames: Frame,
    fps: u32,
    loss_per_mille: u32,
    delay: Duration,
    seed: u64,
    desync_log: Option<String>,
    drift_at: Option<Frame>,
}

const USAGE: &str = "usage: p2p (--both | --local-port PORT --remote ADDR) [--player 0|1] \
                     [--frames N] [--fps N] [--loss PER_MILLE] [--delay-ms N] [--seed N] \
                     [--desync-log FILE] [--drift-at FRAME]";

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        both: false,
        local_port: 0,
        remote: None,
        player: None,
        frames: 600,
        fps: 60,
        loss_per_mille: 0,
        delay: Duration::ZERO,
        seed: 0x5eed,
        desync_log: None,
        drift_at: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--both" {
            options.both = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |error: &dyn std::fmt::Display| format!("{flag} {value}: {error}");
        match flag.as_str() {
            "--local-port" => options.local_port = value.parse().map_err(|e| bad(&e))?,
            "--remote" => options.remote = Some(value.parse().map_err(|e| bad(&e))?),
            "--player" => match value.parse().map_err(|e| bad(&e))? {
                player @ (0 | 1) => options.player = Some(player),
                _ => return Err(bad(&"a player is 0 or 1")),
            },
            "--frames" => options.frames = value.parse().map_err(|e| bad(&e))?,
            "--fps" => options.fps = value.parse().map_err(|e| bad(&e))?,
            "--loss" => options.loss_per_mille = value.parse().map_err(|e| bad(&e))?,
            "--delay-ms" => {
                options.delay = Duration::from_millis(value.parse().map_err(|e| bad(&e))?)
            }
            "--seed" => options.seed = value.parse().map_err(|e| bad(&e))?,
            "--desync-log" => options.desync_log = Some(value),
            "--drift-at" => options.drift_at = Some(value.parse().map_err(|e| bad(&e))?),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if options.fps == 0 || options.frames <= 0 {
        return Err("--fps and --frames must be positive".into());
    }
    if !options.both && (options.local_port == 0 || options.remote.is_none()) {
        return Err("give --both, or --local-port and --remote".into());
    }
    Ok(options)
}

/// How a peer's match ended.
struct Outcome {
    player: usize,
    /// The checksum of every frame this peer confirmed.
    checksums: BTreeMap<Frame, u128>,
    confirmed: Frame,
    rollbacks: u64,
    traffic: Traffic,
    stats: Stats,
}

/// Where the other peer stands, when it runs in this process.
struct Shared {
    /// Each peer's confirmed frame.
    confirmed: [AtomicI32; 2],
    /// Set when either peer gives up: the other stops waiting.
    failed: AtomicBool,
}

/// One peer's match: synchronize, play `options.frames` frames at
/// `options.fps`, keep serving the other peer a while, then report. The
/// loop of polling, pacing, inputs and rollbacks is the `P2PDriver`'s.
fn play(
    options: &Options,
    player: usize,
    socket: LossySocket,
    remote: SocketAddr,
    shared: Option<&Shared>,
) -> Result<Outcome, String> {
    let traffic = socket.traffic();
    let session: P2PSession<Net> = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .and_then(|builder| builder.with_fps(options.fps as usize))
        .and_then(|builder| builder.add_player(PlayerType::Local, player))
        .and_then(|builder| builder.add_player(PlayerType::Remote(remote), 1 - player))
        .map(|builder| builder.with_desync_detection_mode(DesyncDetection::On { interval: 10 }))
        .and_then(|builder| builder.start_p2p_session(socket))
        .map_err(|error| error.to_string())?;
    // Both peers run the same systems; the drift is switched on in one.
    let drifts = options.drift_at.is_some() && (!options.both || player == 1);
    let schedule = common::schedule_drifting_from(options.drift_at.unwrap_or(Frame::MAX), drifts);
    let world = common::world(2, options.seed);
    let runner = GgrsRunner::new(world, schedule, session.max_prediction());
    let mut driver = P2PDriver::new(session, runner, options.fps);
    let log_path = options.desync_log.as_ref().map(|path| match options.both {
        true => format!("{path}.{player}"),
        false => path.clone(),
    });
    if log_path.is_some() {
        // The whole match: it is short, and the two logs are compared after.
        driver = driver.with_desync_log(usize::MAX);
    }
    let write_log = |driver: &P2PDriver<Arena, Net>| -> Result<(), String> {
        match (&log_path, driver.desync_log()) {
            (Some(path), Some(log)) => std::fs::write(path, log.to_string())
                .map_err(|error| format!("[player {player}] writing {path}: {error}")),
            _ => Ok(()),
        }
    };
    let tag = format!("[player {player}]");
    let frame_time = Duration::from_secs(1) / options.fps;
    let give_up = Instant::now() + Duration::from_secs(10) + frame_time * options.frames as u32 * 4;
    let mut checksums = BTreeMap::new();
    let mut printed: Frame = 0;
    // Whether the other peer has what it needs: in this process, it says
    // so; in another, it has had a second of frames past the match.
    let other_done = |current: Frame| match shared {
        Some(shared) => shared.confirmed[1 - player].load(Ordering::Relaxed) >= options.frames,
        None => current >= options.frames + options.fps as Frame,
    };
    loop {
        if Instant::now() > give_up {
            write_log(&driver)?;
            return Err(format!("{tag} gave up at frame {}", driver.current_frame()));
        }
        if shared.is_some_and(|shared| shared.failed.load(Ordering::Relaxed)) {
            write_log(&driver)?;
            return Err(format!("{tag} the other peer failed"));
        }
        // Frames past the match are played only to pass the last inputs on.
        let step = driver
            .update(|player, frame| common::input(options.seed, player, frame))
            .map_err(|error| format!("{tag} {error}"))?;
        if let DriverStep::Advanced { .. } = step {
            let saved = driver.runner().saved();
            checksums.extend(saved.filter(|&(frame, _)| frame <= options.frames));
        }
        let events: Vec<_> = driver.events().collect();
        for event in events {
            match event {
                DriverEvent::Desync(report) => {
                    // This peer's parts of the frame; the other peer's log
                    // says which differ.
                    println!("{tag} {report}");
                    write_log(&driver)?;
                    return Err(format!("{tag} DESYNC at frame {}", report.frame));
                }
                DriverEvent::Session(GgrsEvent::Disconnected { .. }) => {
                    return Err(format!("{tag} the other peer disconnected"))
                }
                DriverEvent::Session(GgrsEvent::Synchronized { addr }) => {
                    println!("{tag} synchronized with {addr}")
                }
                _ => {}
            }
        }
        let confirmed = driver.confirmed_frame();
        if let Some(shared) = shared {
            shared.confirmed[player].store(confirmed, Ordering::Relaxed);
        }
        if confirmed >= options.frames && other_done(driver.current_frame()) {
            break;
        }
        while printed + 100 <= confirmed.min(options.frames) {
            printed += 100;
            let stats = driver.session().network_stats(1 - player);
            println!(
                "{tag} frame {printed:>5} confirmed, checksum {:#034x}; {} rollbacks, \
                 round trip {} ms",
                checksums.get(&printed).copied().unwrap_or_default(),
                driver.runner().rollbacks(),
                stats.map_or(0, |stats| stats.ping)
            );
        }
        std::thread::sleep(driver.until_next_frame());
    }
    // Frames confirmed here whose saves were never seen (there are none
    // unless the ring was too short) would show as gaps.
    write_log(&driver)?;
    let confirmed = driver.confirmed_frame().min(options.frames);
    checksums.retain(|&frame, _| frame <= confirmed);
    if let Some(gap) = (0..=confirmed).find(|frame| !checksums.contains_key(frame)) {
        return Err(format!("{tag} no checksum saved for frame {gap}"));
    }
    let rollbacks = driver.runner().rollbacks();
    println!(
        "{tag} done: frame {confirmed} checksum {:#034x}; {rollbacks} rollbacks",
        checksums[&confirmed],
    );
    Ok(Outcome {
        player,
        checksums,
        confirmed,
        rollbacks,
        traffic: traffic.get(),
        stats: *driver.runner().world().resource::<Stats>(),
    })
}

fn summary(outcome: &Outcome) -> String {
    let Traffic {
        sent,
        dropped,
        delayed,
        received,
    } = outcome.traffic;
    let Stats {
        shots,
        hits,
        killed,
        spawned,
        ..
    } = outcome.stats;
    format!(
        "[player {}] {} frames confirmed, {} rollbacks; packets sent {sent}, dropped {dropped}, \
         delayed {delayed}, received {received}; game: {shots} shots, {hits} hits, \
         {killed} of {spawned} mobs killed",
        outcome.player,
        outcome.confirmed + 1,
        outcome.rollbacks
    )
}

/// Both peers on two threads of this process; compares their checksums.
fn both(options: &Options) -> Result<(), String> {
    let sockets = [0, 1]
        .map(|i| LossySocket::bind(0, options.seed + i, options.loss_per_mille, options.delay));
    let addrs = [0, 1].map(|i| sockets[i].local_addr());
    let shared = Arc::new(Shared {
        confirmed: [AtomicI32::new(-1), AtomicI32::new(-1)],
        failed: AtomicBool::new(false),
    });
    let start = Instant::now();
    let mut player = 0;
    let handles = sockets.map(|socket| {
        let options = options.clone();
        let shared = Arc::clone(&shared);
        let remote = addrs[1 - player];
        player += 1;
        let player = player - 1;
        std::thread::spawn(move || {
            let outcome = play(&options, player, socket, remote, Some(&shared));
            if outcome.is_err() {
                shared.failed.store(true, Ordering::Relaxed);
            }
            outcome
        })
    });
    let [first, second] = handles.map(|handle| {
        handle
            .join()
            .unwrap_or_else(|_| Err("a peer panicked".into()))
    });
    let (first, second) = (first?, second?);
    println!("{}", summary(&first));
    println!("{}", summary(&second));
    let confirmed = first.confirmed.min(second.confirmed);
    for frame in 0..=confirmed {
        let (a, b) = (first.checksums[&frame], second.checksums[&frame]);
        if a != b {
            return Err(format!(
                "DESYNC: frame {frame} has checksum {a:#034x} on player 0, {b:#034x} on player 1"
            ));
        }
    }
    println!(
        "both peers agree on all {} confirmed frames (final checksum {:#034x}), in {:.2?}",
        confirmed + 1,
        first.checksums[&confirmed],
        start.elapsed()
    );
    Ok(())
}

/// One peer of a match between two processes.
fn one(options: &Options) -> Result<(), String> {
    let remote = options.remote.expect("checked by parse_options");
    let player = options
        .player
        .unwrap_or(usize::from(options.local_port > remote.port()));
    let socket = LossySocket::bind(
        options.local_port,
        options.seed + player as u64,
        options.loss_per_mille,
        options.delay,
    );
    println!(
        "player {player} on {}, waiting for {remote}",
        socket.local_addr()
    );
    let outcome = play(options, player, socket, remote, None)?;
    println!("{}", summary(&outcome));
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("{error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = if options.both {
        both(&options)
    } else {
        one(&options)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
