//! [`P2PDriver`]: the loop around a [`P2PSession`] and a [`GgrsRunner`]
//! that every peer-to-peer game writes, written once: poll the network,
//! pace the frames (slower while ahead of the other peers), gather the
//! local players' inputs, advance, and hand back what happened as values.

use crate::{DesyncLog, GgrsRunner, PlayerInputs, RollbackError, SnapshotSlot};
use ggrs::{Config, Frame, GgrsError, GgrsEvent, P2PSession, PlayerHandle, SessionState};
use schemecs::checksum::ChecksumParts;
use schemecs::checksum::ChecksumSchema;
use schemecs::schedule::SendSchema;
use schemecs::{schema::Resource, world::World};
use std::fmt;
use std::time::{Duration, Instant};

/// What one [`P2PDriver::update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DriverStep {
    /// The session is still synchronizing with the other peers.
    Synchronizing,
    /// Not time for the next frame yet: [`P2PDriver::until_next_frame`].
    Idle,
    /// A frame was advanced (and any rollback it asked for made); the
    /// world is now at `frame`.
    Advanced {
        /// The frame the world is at.
        frame: Frame,
    },
    /// The session would predict too far ahead of the other peers: no
    /// frame was advanced; the next update tries again.
    Waiting,
}

/// What the session reported, as [`P2PDriver::events`] hands it out: a
/// desync with what this peer knows of it, or any other GGRS event as GGRS
/// gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DriverEvent<C: Config> {
    /// GGRS compared this peer's checksum of a frame with another peer's,
    /// and they differ.
    Desync(DesyncReport<C::Address>),
    /// Every other event: synchronizing and synchronized, disconnected,
    /// network interrupted and resumed, and wait recommended (which the
    /// driver already follows by skipping frames).
    Session(GgrsEvent<C>),
}

/// A desync, as this peer sees it: the frame, both checksums, the other
/// peer, and this peer's checksums of that frame by part, to log or send
/// so that the parts that differ can be named (see [`DesyncLog`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DesyncReport<A> {
    /// The frame whose checksums differ.
    pub frame: Frame,
    /// This peer's checksum of it.
    pub local_checksum: u128,
    /// The other peer's.
    pub remote_checksum: u128,
    /// The other peer.
    pub addr: A,
    /// This peer's checksums of the frame by part, if the runner's ring
    /// still held the frame when GGRS reported it.
    pub parts: Option<ChecksumParts>,
}

/// A line naming the frame, the peer and both checksums, then one line per
/// part of this peer's checksum, if known.
impl<A: fmt::Debug> fmt::Display for DesyncReport<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "desync at frame {} with {:?}: checksum {:#034x} here, {:#034x} there",
            self.frame, self.addr, self.local_checksum, self.remote_checksum
        )?;
        if let Some(parts) = &self.parts {
            for (part, digest) in parts.iter() {
                write!(f, "\n  {part}: {digest:#034x}")?;
            }
        }
        Ok(())
    }
}

/// Why a [`P2PDriver::update`] failed: the session's error or the
/// runner's.
#[derive(Debug)]
#[non_exhaustive]
pub enum DriverError {
    /// GGRS refused an input or a frame.
    Session(GgrsError),
    /// The runner could not fulfil GGRS's requests.
    Runner(RollbackError),
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::Session(error) => write!(f, "the session: {error}"),
            DriverError::Runner(error) => write!(f, "the runner: {error}"),
        }
    }
}

impl std::error::Error for DriverError {}

impl From<GgrsError> for DriverError {
    fn from(error: GgrsError) -> Self {
        DriverError::Session(error)
    }
}

impl From<RollbackError> for DriverError {
    fn from(error: RollbackError) -> Self {
        DriverError::Runner(error)
    }
}

/// A peer's [`P2PSession`] and its [`GgrsRunner`], driven at a fixed frame
/// rate: call [`P2PDriver::update`] from the game's loop (as often as it
/// likes; it advances at most one frame a call, when one is due), handle
/// the [`DriverEvent`]s it gathered ([`P2PDriver::events`]: desyncs with
/// this peer's checksums by part, disconnections, synchronization, ...),
/// then sleep [`P2PDriver::until_next_frame`].
///
/// Systems read the frame being simulated from
/// [`PlayerInputs::frame`], which is in the world and its snapshots. The
/// confirmed frame ([`P2PDriver::confirmed_frame`]) is deliberately not:
/// it depends on when packets arrive, so it differs between peers at the
/// same frame, and a world holding it would disagree with itself across
/// peers (a desync GGRS would report) and after every rollback.
///
/// While this peer is ahead of the others (`frames_ahead() > 0`) it
/// stretches its frames by a tenth, so that the others catch up without
/// it stalling on the prediction threshold; GGRS's wait recommendations
/// are followed by skipping that many frames.
///
/// ```text
/// let mut driver = P2PDriver::new(session, runner, 60);
/// loop {
///     match driver.update(|player, _frame| read_buttons(player))? {
///         DriverStep::Advanced { frame } => draw(driver.runner().world(), frame),
///         _ => {}
///     }
///     for event in driver.events() {
///         if let DriverEvent::Desync(report) = event { eprintln!("{report}") }
///     }
///     std::thread::sleep(driver.until_next_frame());
/// }
/// ```
pub struct P2PDriver<S: schemecs::schema::Schema, C: Config> {
    session: P2PSession<C>,
    runner: GgrsRunner<S, C>,
    pace: Pace,
    events: Vec<DriverEvent<C>>,
    locals: Vec<PlayerHandle>,
    /// The last confirmed frames' checksums by part, when kept, and how
    /// many frames to keep.
    log: Option<(DesyncLog, usize)>,
    /// The session's confirmed frame as of the last advance.
    confirmed: Frame,
}

impl<S, C> P2PDriver<S, C>
where
    S: ChecksumSchema + SendSchema,
    World<S>: Clone,
    C: Config<State = SnapshotSlot>,
    PlayerInputs<C>: Resource<S>,
{
    /// A driver of `session` and `runner` at `fps` frames a second (the
    /// session's own `fps` setting, at least 1).
    pub fn new(session: P2PSession<C>, runner: GgrsRunner<S, C>, fps: u32) -> Self {
        let locals = session.local_player_handles();
        P2PDriver {
            session,
            runner,
            pace: Pace::new(Duration::from_secs(1) / fps.max(1), Instant::now()),
            events: Vec::new(),
            locals,
            log: None,
            confirmed: ggrs::NULL_FRAME,
        }
    }

    /// Keeps a [`DesyncLog`] of the last `frames` confirmed frames'
    /// checksums by part ([`P2PDriver::desync_log`]), recorded after each
    /// advance: what to write to a file and compare with the other peer's
    /// after a desync. A frame costs a few hundred bytes; a desync shows
    /// within GGRS's check interval and prediction window of where it
    /// began, so a few hundred frames are enough for a diagnosis, and
    /// `usize::MAX` keeps the whole match.
    pub fn with_desync_log(mut self, frames: usize) -> Self {
        self.log = Some((DesyncLog::new(), frames.max(1)));
        self
    }

    /// The log of confirmed frames, if [`P2PDriver::with_desync_log`]
    /// asked for one.
    pub fn desync_log(&self) -> Option<&DesyncLog> {
        self.log.as_ref().map(|(log, _)| log)
    }

    /// One turn of the game's loop: polls the network, gathers GGRS's
    /// events (see [`P2PDriver::events`]) and, if a frame is due, adds
    /// each local player's input (`input(handle, frame)`, the frame about
    /// to be advanced) and advances.
    ///
    /// # Errors
    ///
    /// A [`DriverError`] if GGRS refuses an input or a frame for a reason
    /// other than the prediction threshold (which is [`DriverStep::Waiting`]),
    /// or the runner a request.
    pub fn update(
        &mut self,
        mut input: impl FnMut(PlayerHandle, Frame) -> C::Input,
    ) -> Result<DriverStep, DriverError> {
        self.session.poll_remote_clients();
        for event in self.session.events() {
            let event = match event {
                GgrsEvent::WaitRecommendation { skip_frames } => {
                    self.pace.skip(skip_frames);
                    DriverEvent::Session(event)
                }
                GgrsEvent::DesyncDetected {
                    frame,
                    local_checksum,
                    remote_checksum,
                    addr,
                } => DriverEvent::Desync(DesyncReport {
                    frame,
                    local_checksum,
                    remote_checksum,
                    addr,
                    parts: self.runner.checksum_parts(frame),
                }),
                event => DriverEvent::Session(event),
            };
            self.events.push(event);
        }
        let now = Instant::now();
        if self.session.current_state() != SessionState::Running {
            self.pace.hold(now);
            return Ok(DriverStep::Synchronizing);
        }
        match self.pace.turn(now, self.session.frames_ahead() > 0) {
            Turn::Idle => return Ok(DriverStep::Idle),
            Turn::Skip => return Ok(DriverStep::Waiting),
            Turn::Due => {}
        }
        let frame = self.session.current_frame();
        for &player in &self.locals {
            self.session.add_local_input(player, input(player, frame))?;
        }
        match self.session.advance_frame() {
            Ok(requests) => {
                self.runner.handle_requests(requests)?;
                // The advance polled first, and rolled back for whatever
                // arrived: the frames confirmed now are simulated with their
                // confirmed inputs.
                self.confirmed = self.session.confirmed_frame();
                if let Some((log, frames)) = &mut self.log {
                    self.runner.log_confirmed(log, self.confirmed);
                    log.keep_last(*frames);
                }
                Ok(DriverStep::Advanced {
                    frame: self.runner.frame(),
                })
            }
            Err(GgrsError::PredictionThreshold) => Ok(DriverStep::Waiting),
            Err(error) => Err(error.into()),
        }
    }

    /// The events gathered since the last call, in order: every kind GGRS
    /// has (synchronizing, synchronized, disconnected, desync detected,
    /// wait recommended, network interrupted and resumed), a desync as a
    /// [`DesyncReport`]. The driver keeps them until they are drained: call
    /// this each turn.
    pub fn events(&mut self) -> std::vec::Drain<'_, DriverEvent<C>> {
        self.events.drain(..)
    }

    /// The frame the session will advance next.
    pub fn current_frame(&self) -> Frame {
        self.session.current_frame()
    }

    /// The last frame whose inputs every peer confirmed, as of the last
    /// advance: its saved world (in the runner's ring) was simulated with
    /// those inputs and will not be rolled back, so it is final, and equal
    /// on every peer. [`NULL_FRAME`](ggrs::NULL_FRAME) before the first.
    /// (The session's own `confirmed_frame()` may be ahead: it counts inputs
    /// received since, which the next advance rolls back for if they
    /// differ from the predictions.) Not in the world: see [`P2PDriver`].
    pub fn confirmed_frame(&self) -> Frame {
        self.confirmed
    }

    /// How long until the next frame is due (zero if it is).
    pub fn until_next_frame(&self) -> Duration {
        self.pace.until_next(Instant::now())
    }

    /// The session.
    pub fn session(&self) -> &P2PSession<C> {
        &self.session
    }

    /// The session, mutably (network stats, disconnecting a player).
    pub fn session_mut(&mut self) -> &mut P2PSession<C> {
        &mut self.session
    }

    /// The runner: the world, its checksums, the ring.
    pub fn runner(&self) -> &GgrsRunner<S, C> {
        &self.runner
    }

    /// The runner, mutably.
    pub fn runner_mut(&mut self) -> &mut GgrsRunner<S, C> {
        &mut self.runner
    }
}

impl<S: schemecs::schema::Schema, C: Config> fmt::Debug for P2PDriver<S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("P2PDriver")
            .field("frame_time", &self.pace.frame_time)
            .field("locals", &self.locals)
            .finish_non_exhaustive()
    }
}

/// When frames are due: one every `frame_time`, a tenth longer while this
/// peer is ahead of the others, none while GGRS's recommended waits last.
#[derive(Debug)]
struct Pace {
    frame_time: Duration,
    next_frame: Instant,
    /// Frames still to skip, as GGRS recommended.
    skip: u32,
}

/// What a turn of the loop is for: see [`Pace::turn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// The next frame is not due yet.
    Idle,
    /// A frame is due, but GGRS recommended waiting it out.
    Skip,
    /// A frame is due: advance.
    Due,
}

impl Pace {
    /// Frames `frame_time` apart, the first due at `start`.
    fn new(frame_time: Duration, start: Instant) -> Pace {
        Pace {
            frame_time,
            next_frame: start,
            skip: 0,
        }
    }

    /// Skips the next `frames` frames that come due.
    fn skip(&mut self, frames: u32) {
        self.skip += frames;
    }

    /// While the session synchronizes: poll again a frame from `now`.
    fn hold(&mut self, now: Instant) {
        self.next_frame = now + self.frame_time;
    }

    /// The turn of the loop at `now`, `ahead` if this peer is ahead of the
    /// others. A due frame (skipped or not) sets when the next one is.
    fn turn(&mut self, now: Instant, ahead: bool) -> Turn {
        if now < self.next_frame {
            return Turn::Idle;
        }
        let stretch = if ahead {
            self.frame_time / 10
        } else {
            Duration::ZERO
        };
        // A late frame starts the clock again rather than hurrying to
        // catch up on every frame missed.
        let late = now.checked_sub(self.frame_time).unwrap_or(now);
        self.next_frame = self.next_frame.max(late) + self.frame_time + stretch;
        if self.skip > 0 {
            self.skip -= 1;
            return Turn::Skip;
        }
        Turn::Due
    }

    /// How long from `now` until the next frame is due (zero if it is).
    fn until_next(&self, now: Instant) -> Duration {
        self.next_frame.saturating_duration_since(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: Duration = Duration::from_millis(10);

    #[test]
    fn a_desync_report_and_a_driver_error_say_what_happened() {
        let report = DesyncReport {
            frame: 310,
            local_checksum: 0xab,
            remote_checksum: 0xcd,
            addr: "peer",
            parts: None,
        };
        assert_eq!(
            report.to_string(),
            "desync at frame 310 with \"peer\": checksum 0x000000000000000000000000000000ab \
             here, 0x000000000000000000000000000000cd there"
        );
        let error = DriverError::from(GgrsError::PredictionThreshold);
        let text = error.to_string();
        assert!(text.starts_with("the session: "), "{text}");
        assert!(text.len() > "the session: ".len(), "{text}");
    }

    #[test]
    fn frames_are_due_a_frame_time_apart_and_idle_in_between() {
        let t0 = Instant::now();
        let mut pace = Pace::new(FRAME, t0);
        assert_eq!(pace.until_next(t0), Duration::ZERO);
        assert_eq!(pace.turn(t0, false), Turn::Due);
        assert_eq!(pace.until_next(t0), FRAME);
        // Before the next frame: idle, and the clock stays where it was.
        let early = t0 + FRAME - Duration::from_millis(1);
        assert_eq!(pace.turn(early, false), Turn::Idle);
        assert_eq!(pace.until_next(early), Duration::from_millis(1));
        assert_eq!(pace.turn(t0 + FRAME, false), Turn::Due);
        assert_eq!(pace.until_next(t0 + FRAME), FRAME);
        // Past the due time, the time left is zero, not negative.
        assert_eq!(pace.until_next(t0 + 5 * FRAME), Duration::ZERO);
    }

    #[test]
    fn a_late_frame_restarts_the_clock_instead_of_catching_up() {
        let t0 = Instant::now();
        let mut pace = Pace::new(FRAME, t0);
        assert_eq!(pace.turn(t0, false), Turn::Due);
        // Four frames late: one frame at once, then the old pace from
        // there, not four frames in a row.
        let late = t0 + 5 * FRAME;
        assert_eq!(pace.turn(late, false), Turn::Due);
        assert_eq!(pace.until_next(late), Duration::ZERO);
        assert_eq!(pace.turn(late, false), Turn::Due);
        assert_eq!(pace.until_next(late), FRAME);
        assert_eq!(pace.turn(late, false), Turn::Idle);
    }

    #[test]
    fn a_peer_ahead_of_the_others_stretches_its_frames_by_a_tenth() {
        let t0 = Instant::now();
        let mut pace = Pace::new(FRAME, t0);
        assert_eq!(pace.turn(t0, true), Turn::Due);
        assert_eq!(pace.until_next(t0), FRAME + FRAME / 10);
        assert_eq!(pace.turn(t0 + FRAME, true), Turn::Idle);
        let next = t0 + FRAME + FRAME / 10;
        assert_eq!(pace.turn(next, false), Turn::Due);
        assert_eq!(pace.until_next(next), FRAME);
    }

    #[test]
    fn recommended_waits_skip_that_many_due_frames() {
        let t0 = Instant::now();
        let mut pace = Pace::new(FRAME, t0);
        pace.skip(1);
        pace.skip(1);
        // Two due frames are skipped, each moving the clock on; idle turns
        // in between use none of the waits up.
        assert_eq!(pace.turn(t0, false), Turn::Skip);
        assert_eq!(pace.turn(t0, false), Turn::Idle);
        assert_eq!(pace.turn(t0 + FRAME, false), Turn::Skip);
        assert_eq!(pace.turn(t0 + 2 * FRAME, false), Turn::Due);
        assert_eq!(pace.until_next(t0 + 2 * FRAME), FRAME);
    }

    #[test]
    fn while_synchronizing_the_next_poll_is_a_frame_away() {
        let t0 = Instant::now();
        let mut pace = Pace::new(FRAME, t0);
        let later = t0 + 3 * FRAME;
        pace.hold(later);
        assert_eq!(pace.until_next(later), FRAME);
        assert_eq!(pace.turn(later, false), Turn::Idle);
        assert_eq!(pace.turn(later + FRAME, false), Turn::Due);
    }
}
