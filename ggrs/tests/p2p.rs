//! Two GGRS peers and a spectator play the arena game over UDP on the
//! loopback interface, through sockets that drop about one packet in ten
//! and hold back half of the others for a while (so packets arrive late and
//! out of order). All three are polled from one loop in this process.
//!
//! The peers predict each other's inputs and roll back when a prediction
//! was wrong; GGRS compares their checksums every ten frames and would
//! report a desync. Beyond that, the test records the checksum of every
//! frame each runner saved and checks that the two peers agree on every
//! frame both have confirmed, and that the spectator, which only ever
//! advances on confirmed inputs, agrees with them too.

mod common;

use common::net::{LossySocket, TrafficCounts};
use common::{Arena, Net, Stats};
use schemecs::checksum::ChecksumParts;
use schemecs::schedule::Schedule;
use schemecs_ggrs::ggrs::{
    DesyncDetection, Frame, GgrsError, GgrsEvent, P2PSession, PlayerType, SessionBuilder,
    SessionState, SpectatorSession,
};
use schemecs_ggrs::{DesyncLog, DesyncReport, DriverEvent, DriverStep, GgrsRunner, P2PDriver};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const SEED: u64 = 0x9295;
/// Frames each peer (and the spectator) must have confirmed.
const FRAMES: Frame = 600;
const FRAME_TIME: Duration = Duration::from_millis(4);
const LOSS_PER_MILLE: u32 = 100;
const MAX_DELAY: Duration = Duration::from_millis(12);
const DEADLINE: Duration = Duration::from_secs(30);

struct Peer {
    player: usize,
    session: P2PSession<Net>,
    runner: GgrsRunner<Arena, Net>,
    /// The checksum GGRS received for each frame saved, the last one saved
    /// for that frame (a rollback saves the frames after it again).
    checksums: HashMap<Frame, u128>,
    /// Frames not advanced because the other peer was too far behind.
    stalls: u32,
    traffic: TrafficCounts,
    /// The checksums by part of every frame confirmed.
    log: DesyncLog,
    /// Whether a desync is what the test is about: then each one GGRS
    /// reports is kept (with the parts of that frame, if still in the
    /// ring) rather than failing the test.
    expect_desync: bool,
    desyncs: Vec<(Frame, Option<ChecksumParts>)>,
}

impl Peer {
    fn new(
        player: usize,
        socket: LossySocket,
        other: SocketAddr,
        spectator: Option<SocketAddr>,
    ) -> Self {
        Self::with_schedule(player, socket, other, spectator, common::schedule(false))
    }

    fn with_schedule(
        player: usize,
        socket: LossySocket,
        other: SocketAddr,
        spectator: Option<SocketAddr>,
        schedule: Schedule<Arena>,
    ) -> Self {
        let traffic = socket.traffic();
        let mut builder = SessionBuilder::<Net>::new()
            .with_num_players(2)
            .unwrap()
            .with_desync_detection_mode(DesyncDetection::On { interval: 10 })
            .add_player(PlayerType::Local, player)
            .unwrap()
            .add_player(PlayerType::Remote(other), 1 - player)
            .unwrap();
        if let Some(spectator) = spectator {
            builder = builder
                .add_player(PlayerType::Spectator(spectator), 2)
                .unwrap();
        }
        let session = builder.start_p2p_session(socket).unwrap();
        let runner = GgrsRunner::new(common::world(2, SEED), schedule, session.max_prediction());
        Peer {
            player,
            session,
            runner,
            checksums: HashMap::new(),
            stalls: 0,
            traffic,
            log: DesyncLog::new(),
            expect_desync: false,
            desyncs: Vec::new(),
        }
    }

    fn tick(&mut self) {
        self.session.poll_remote_clients();
        for event in self.session.events() {
            if let GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                ..
            } = event
            {
                assert!(
                    self.expect_desync,
                    "peer {}: desync at frame {frame}: {local_checksum:#x} here, \
                     {remote_checksum:#x} there",
                    self.player
                );
                self.desyncs
                    .push((frame, self.runner.checksum_parts(frame)));
            }
        }
        if self.session.current_state() != SessionState::Running {
            return;
        }
        let frame = self.session.current_frame();
        let input = common::input(SEED, self.player, frame);
        self.session.add_local_input(self.player, input).unwrap();
        match self.session.advance_frame() {
            Ok(requests) => {
                self.runner.handle_requests(requests).unwrap();
                self.checksums.extend(self.runner.saved());
                let confirmed = self.session.confirmed_frame();
                self.runner.log_confirmed(&mut self.log, confirmed);
            }
            Err(GgrsError::PredictionThreshold) => self.stalls += 1,
            Err(error) => panic!("peer {}: {error}", self.player),
        }
    }
}

struct Spectator {
    session: SpectatorSession<Net>,
    runner: GgrsRunner<Arena, Net>,
    /// The checksum of the world after each frame advanced (keyed by the
    /// frame it is then at, as a peer's saves are).
    checksums: HashMap<Frame, u128>,
}

impl Spectator {
    fn tick(&mut self) {
        match self.session.advance_frame() {
            Ok(requests) => {
                // One at a time: catching up, a list holds several frames.
                for request in requests {
                    self.runner.handle_requests([request]).unwrap();
                    self.checksums
                        .insert(self.runner.frame(), self.runner.checksum());
                }
            }
            Err(GgrsError::PredictionThreshold | GgrsError::NotSynchronized) => {}
            Err(error) => panic!("spectator: {error}"),
        }
    }
}

#[test]
fn two_peers_and_a_spectator_agree_over_a_lossy_network() {
    let sockets = [0, 1, 2].map(|i| LossySocket::bind(0, SEED + i, LOSS_PER_MILLE, MAX_DELAY));
    let addrs = [0, 1, 2].map(|i| sockets[i].local_addr());
    let [first, second, third] = sockets;
    let mut peers = [
        Peer::new(0, first, addrs[1], Some(addrs[2])),
        Peer::new(1, second, addrs[0], None),
    ];
    let spectator_traffic = third.traffic();
    let mut spectator = Spectator {
        // Catching up a few frames at a time once behind: it sees inputs
        // only after a network delay, and falls back a little each time.
        session: SessionBuilder::<Net>::new()
            .with_num_players(2)
            .unwrap()
            .with_max_frames_behind(4)
            .unwrap()
            .with_catchup_speed(3)
            .unwrap()
            .start_spectator_session(addrs[0], third),
        runner: GgrsRunner::new(common::world(2, SEED), common::schedule(false), 0),
        checksums: HashMap::new(),
    };

    let start = Instant::now();
    let done = |peers: &[Peer; 2], spectator: &Spectator| {
        peers
            .iter()
            .all(|peer| peer.session.confirmed_frame() >= FRAMES)
            && spectator.runner.frame() >= FRAMES
    };
    // The match starts once all three are synchronized: a spectator that
    // joins late would find the first frames gone from the host's buffer.
    while peers
        .iter()
        .any(|peer| peer.session.current_state() != SessionState::Running)
        || spectator.session.current_state() != SessionState::Running
    {
        assert!(
            start.elapsed() < DEADLINE,
            "not synchronized in {DEADLINE:?}"
        );
        for peer in &mut peers {
            peer.session.poll_remote_clients();
        }
        spectator.session.poll_remote_clients();
        std::thread::sleep(FRAME_TIME);
    }
    let synchronized = start.elapsed();
    while !done(&peers, &spectator) {
        assert!(start.elapsed() < DEADLINE, "not done in {DEADLINE:?}");
        for peer in &mut peers {
            peer.tick();
        }
        spectator.tick();
        std::thread::sleep(FRAME_TIME);
    }
    let elapsed = start.elapsed();

    // Every frame both peers confirmed has one checksum, the same on both.
    let confirmed = peers[0]
        .session
        .confirmed_frame()
        .min(peers[1].session.confirmed_frame());
    for frame in 0..=confirmed {
        let [a, b] = [0, 1].map(|i| peers[i].checksums.get(&frame).copied());
        assert!(a.is_some(), "frame {frame} was never saved");
        assert_eq!(a, b, "the peers' checksums of confirmed frame {frame}");
    }
    // The spectator saw the confirmed frames only, and saw them alike.
    let mut watched = 0;
    for (frame, checksum) in &spectator.checksums {
        if *frame <= confirmed {
            assert_eq!(
                Some(checksum),
                peers[0].checksums.get(frame),
                "spectator, frame {frame}"
            );
            watched += 1;
        }
    }
    assert!(watched >= FRAMES, "the spectator compared {watched} frames");

    let rollbacks = [0, 1].map(|i| peers[i].runner.rollbacks());
    let traffic = [0, 1].map(|i| peers[i].traffic.get());
    let stats = *peers[0].runner.world().resource::<Stats>();
    eprintln!(
        "synchronized in {synchronized:.2?}; {} frames confirmed on both in {elapsed:.2?}; rollbacks {rollbacks:?}; stalls {:?}; \
         traffic {traffic:?}, spectator {:?}; ping {:?} ms; {stats:?}",
        confirmed + 1,
        [0, 1].map(|i| peers[i].stalls),
        spectator_traffic.get(),
        peers[0].session.network_stats(1).map(|stats| stats.ping),
    );
    assert!(
        rollbacks.iter().all(|&count| count > 0),
        "rollbacks {rollbacks:?}"
    );
    assert!(
        traffic.iter().all(|t| t.dropped > 0 && t.delayed > 0),
        "{traffic:?}"
    );
    assert!(stats.shots > 0 && stats.killed > 0, "{stats:?}");
}

/// One peer's schedule makes player 0's ship drift from frame 300 on (the
/// other's has the same system, switched off): a desync that its own
/// re-simulations agree with. GGRS detects it from the
/// checksums the peers exchange; the peers' logs of checksums by part then
/// name the first frame they disagree on and the component that differs.
#[test]
fn a_desync_is_detected_and_the_peers_logs_name_the_frame_and_the_component() {
    const DRIFT: Frame = 300;
    let sockets = [0, 1].map(|i| LossySocket::bind(0, SEED + 10 + i, LOSS_PER_MILLE, MAX_DELAY));
    let addrs = [0, 1].map(|i| sockets[i].local_addr());
    let [first, second] = sockets;
    let mut peers = [
        Peer::with_schedule(
            0,
            first,
            addrs[1],
            None,
            common::schedule_drifting_from(DRIFT, false),
        ),
        Peer::with_schedule(
            1,
            second,
            addrs[0],
            None,
            common::schedule_drifting_from(DRIFT, true),
        ),
    ];
    for peer in &mut peers {
        peer.expect_desync = true;
    }
    let start = Instant::now();
    while peers
        .iter()
        .any(|peer| peer.session.current_state() != SessionState::Running)
    {
        assert!(
            start.elapsed() < DEADLINE,
            "not synchronized in {DEADLINE:?}"
        );
        for peer in &mut peers {
            peer.session.poll_remote_clients();
        }
        std::thread::sleep(FRAME_TIME);
    }
    while peers.iter().any(|peer| peer.desyncs.is_empty()) {
        assert!(
            start.elapsed() < DEADLINE,
            "no desync reported in {DEADLINE:?}"
        );
        for peer in &mut peers {
            peer.tick();
        }
        std::thread::sleep(FRAME_TIME);
    }
    for peer in &peers {
        let (frame, parts) = &peer.desyncs[0];
        assert!(
            *frame > DRIFT,
            "peer {}: desync reported at frame {frame}",
            peer.player
        );
        eprintln!(
            "peer {}: GGRS reports a desync at frame {frame}; its parts here: {}",
            peer.player,
            parts
                .as_ref()
                .map_or("no longer in the ring".to_owned(), |parts| format!(
                    "{parts:?}"
                ))
        );
    }
    // The logs, through their text form, as two processes would write them.
    let [a, b] = [0, 1].map(|i| DesyncLog::parse(&peers[i].log.to_string()).unwrap());
    assert_eq!(a, peers[0].log);
    let mismatch = a.first_mismatch(&b).expect("the logs differ");
    eprintln!("{mismatch}");
    // The world at frame 301 is the first the drift (in frame 300's advance)
    // reached; its last system wrote Vel, which movement reads next frame.
    assert_eq!(mismatch.frame, DRIFT + 1, "{mismatch}");
    assert_eq!(mismatch.parts, ["component:Vel"], "{mismatch}");
    assert_eq!(
        mismatch.to_string(),
        format!("frame {}: component `Vel` differs", DRIFT + 1)
    );
    assert!(a.frames().filter(|&f| f <= DRIFT).count() > 100);
}

/// Two drivers over the lossy network, `drifts[i]` says whether player
/// `i`'s schedule makes player 0's ship drift from frame `drift_at` on.
fn drivers(
    seed: u64,
    drift_at: Frame,
    drifts: [bool; 2],
    window: usize,
) -> [P2PDriver<Arena, Net>; 2] {
    let sockets = [0, 1].map(|i| LossySocket::bind(0, seed + i, LOSS_PER_MILLE, MAX_DELAY));
    let addrs = [0, 1].map(|i| sockets[i].local_addr());
    let mut player = 0;
    sockets.map(|socket| {
        let me = player;
        player += 1;
        let session = SessionBuilder::<Net>::new()
            .with_num_players(2)
            .unwrap()
            .with_desync_detection_mode(DesyncDetection::On { interval: 10 })
            .add_player(PlayerType::Local, me)
            .unwrap()
            .add_player(PlayerType::Remote(addrs[1 - me]), 1 - me)
            .unwrap()
            .start_p2p_session(socket)
            .unwrap();
        let runner = GgrsRunner::new(
            common::world(2, SEED),
            common::schedule_drifting_from(drift_at, drifts[me]),
            session.max_prediction(),
        );
        P2PDriver::new(session, runner, 250).with_desync_log(window)
    })
}

/// Two peers, each a `P2PDriver` (the loop of polling, pacing, inputs and
/// requests written once): both play to frame 200 over the lossy network,
/// agree on every frame both confirmed, and hand back GGRS's events.
#[test]
fn two_drivers_play_a_match_and_agree() {
    const TARGET: Frame = 200;
    let mut drivers = drivers(SEED + 20, Frame::MAX, [false, false], 50);
    let mut checksums: [HashMap<Frame, u128>; 2] = [HashMap::new(), HashMap::new()];
    let mut steps = [[0u32; 4]; 2];
    let mut synchronized = [false; 2];
    let start = Instant::now();
    while drivers
        .iter()
        .any(|driver| driver.confirmed_frame() < TARGET)
    {
        assert!(start.elapsed() < DEADLINE, "not done in {DEADLINE:?}");
        for (me, driver) in drivers.iter_mut().enumerate() {
            let step = driver
                .update(|player, frame| common::input(SEED, player, frame))
                .unwrap();
            steps[me][match step {
                DriverStep::Synchronizing => 0,
                DriverStep::Idle => 1,
                DriverStep::Advanced { .. } => 2,
                _ => 3,
            }] += 1;
            if let DriverStep::Advanced { frame } = step {
                // The world is at the frame the session advances next.
                assert_eq!(driver.current_frame(), frame);
            }
            checksums[me].extend(driver.runner().saved());
            for event in driver.events() {
                match event {
                    DriverEvent::Session(GgrsEvent::Synchronized { .. }) => synchronized[me] = true,
                    DriverEvent::Desync(report) => panic!("{report}"),
                    _ => {}
                }
            }
        }
        let wait = drivers
            .iter()
            .map(P2PDriver::until_next_frame)
            .min()
            .unwrap();
        std::thread::sleep(wait.min(FRAME_TIME));
    }
    eprintln!("steps (synchronizing, idle, advanced, waiting): {steps:?}");
    assert_eq!(synchronized, [true, true]);
    assert!(steps.iter().all(|s| s[2] >= TARGET as u32), "{steps:?}");
    let confirmed = drivers
        .iter()
        .map(P2PDriver::confirmed_frame)
        .min()
        .unwrap();
    for frame in 0..=confirmed {
        let [a, b] = [0, 1].map(|i| checksums[i].get(&frame).copied());
        assert!(a.is_some(), "frame {frame} was never saved");
        assert_eq!(a, b, "frame {frame}");
    }
    // Each driver logged every confirmed frame once, and no other, and
    // kept the last 50.
    for driver in &drivers {
        let log = driver.desync_log().expect("asked for");
        let last = driver.confirmed_frame();
        assert!(
            log.frames().eq(last - 49..=last),
            "{:?}",
            log.frames().collect::<Vec<_>>()
        );
    }
}

/// With player 1's schedule drifting from frame 150, each driver reports
/// the desync as a typed event: the frame, both checksums, the other peer
/// and its own checksums of that frame by part (which differ from the
/// other's); the drivers' logs name frame 151 and `Vel`.
#[test]
fn two_drivers_report_a_desync_with_their_parts_and_their_logs_name_it() {
    const DRIFT: Frame = 150;
    let mut drivers = drivers(SEED + 30, DRIFT, [false, true], usize::MAX);
    let mut reports: [Vec<DesyncReport<SocketAddr>>; 2] = [Vec::new(), Vec::new()];
    let start = Instant::now();
    while reports.iter().any(Vec::is_empty) {
        assert!(start.elapsed() < DEADLINE, "no desync in {DEADLINE:?}");
        for (me, driver) in drivers.iter_mut().enumerate() {
            driver
                .update(|player, frame| common::input(SEED, player, frame))
                .unwrap();
            for event in driver.events() {
                if let DriverEvent::Desync(report) = event {
                    reports[me].push(report);
                }
            }
        }
        std::thread::sleep(FRAME_TIME);
    }
    let [first, second] = reports.map(|list| list[0].clone());
    eprintln!("{first}\n{second}");
    for report in [&first, &second] {
        assert!(report.frame > DRIFT, "{report}");
        assert_ne!(report.local_checksum, report.remote_checksum, "{report}");
    }
    // Each side's report is the other's, mirrored.
    if first.frame == second.frame {
        assert_eq!(first.local_checksum, second.remote_checksum);
        if let (Some(a), Some(b)) = (&first.parts, &second.parts) {
            assert_ne!(a, b);
        }
    }
    assert!(
        first.parts.is_some() || second.parts.is_some(),
        "{first}\n{second}"
    );
    let [a, b] = drivers.each_ref().map(|d| d.desync_log().unwrap().clone());
    let mismatch = a.first_mismatch(&b).expect("the logs differ");
    assert_eq!(
        mismatch.to_string(),
        format!("frame {}: component `Vel` differs", DRIFT + 1)
    );
}
