//! Replays: a match as its first world, every confirmed frame's inputs and
//! checksums by part every few frames, in one versioned file; played back,
//! every recorded checksum is verified, and the first frame that differs
//! is reported with the parts that differ and, when a system is at fault,
//! its name.

use crate::desync::{DesyncLog, LogMismatch};
use crate::{GgrsRunner, PlayerInputs};
use ggrs::{Config, Frame, InputStatus};
use schemecs::checksum::ChecksumSchema;
use schemecs::schedule::{Divergence, Schedule, SendSchema};
use schemecs::{schema::Resource, schema::Schema, world::World};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The first 8 bytes of a replay file.
const MAGIC: [u8; 8] = *b"SCHMRPLY";
/// The version of the format [`Replay::to_bytes`] writes.
const VERSION: u32 = 1;

/// A recorded match: the world it started from, the inputs of every frame
/// and the checksums by part of every `every`-th frame. Made by a
/// [`ReplayRecorder`]; written and read with [`Replay::to_bytes`] and
/// [`Replay::from_bytes`]; checked with [`Replay::play`].
///
/// The file: the 8 bytes `SCHMRPLY`, then in [postcard](https://docs.rs/postcard)
/// form the format's version (1), the number of players, the interval of
/// the checksums, the first world (a save of it, postcard, as
/// `World`'s `Serialize` writes it), the inputs of each frame in order
/// (one per player), and the checksums as a [`DesyncLog`]'s text.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay<I> {
    players: usize,
    every: Frame,
    world: Vec<u8>,
    inputs: Vec<Vec<I>>,
    log: DesyncLog,
}

#[derive(Serialize, Deserialize)]
struct File<I> {
    version: u32,
    players: u32,
    every: i32,
    world: Vec<u8>,
    inputs: Vec<Vec<I>>,
    log: String,
}

/// Why a replay could not be made, read or played to its end.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReplayError {
    /// The bytes are not a replay file: no magic, a version this build
    /// does not read, truncated or malformed content, or a first world
    /// that does not load (a save of another schema, say).
    Invalid(String),
    /// The recorder was asked for a frame the runner's ring no longer
    /// holds: record after each frame's requests are handled.
    Missed {
        /// The frame whose inputs were gone.
        frame: Frame,
    },
    /// Played back, the world at `frame` differs from the recording.
    Diverged(Box<ReplayDivergence>),
}

/// Where a replay played back stopped matching its recording.
#[derive(Debug)]
pub struct ReplayDivergence {
    /// The recorded frame and parts that differ.
    pub mismatch: LogMismatch,
    /// The first system whose result differed between two runs of the
    /// frame that led there, if a system reads something outside the
    /// world; `None` if both runs agree (the game's code or data changed
    /// since the recording).
    pub divergence: Option<Divergence>,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Invalid(why) => write!(f, "not a replay this build can read: {why}"),
            ReplayError::Missed { frame } => write!(
                f,
                "the inputs of frame {frame} were no longer in the runner's ring: record after \
                 each frame's requests are handled"
            ),
            ReplayError::Diverged(divergence) => {
                write!(
                    f,
                    "the replay differs from its recording at {}",
                    divergence.mismatch
                )?;
                match &divergence.divergence {
                    Some(found) => write!(f, "; {found}"),
                    None => f.write_str(
                        "; two runs of the frame before agree with each other, so the game's \
                         code or data changed since the recording",
                    ),
                }
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// Records a match into a [`Replay`]: made from the world the match starts
/// from, then fed after each frame's requests with the frames confirmed.
/// It grows with the match, as a recording must: each frame's inputs (one
/// per player) and, every `every` frames, one set of checksums by part (a
/// few hundred bytes).
///
/// ```text
/// let mut recorder = ReplayRecorder::new(runner.world(), 2, 10)?;
/// loop {
///     runner.handle_requests(session.advance_frame()?)?;
///     recorder.record_confirmed(&runner, session.confirmed_frame())?;
/// }
/// std::fs::write("match.replay", recorder.finish().to_bytes())?;
/// ```
#[derive(Debug)]
pub struct ReplayRecorder<I> {
    replay: Replay<I>,
}

impl<I: Copy + Serialize + DeserializeOwned> ReplayRecorder<I> {
    /// A recorder of a match of `players` players from `world` (at frame
    /// 0), keeping the checksums by part of every `every`-th frame (at
    /// least 1).
    ///
    /// # Errors
    ///
    /// [`ReplayError::Invalid`] if the world cannot be saved (a `Local`
    /// whose value a save cannot hold, say).
    pub fn new<S: Schema>(
        world: &World<S>,
        players: usize,
        every: Frame,
    ) -> Result<Self, ReplayError>
    where
        World<S>: Serialize,
    {
        let world = postcard::to_allocvec(world)
            .map_err(|error| ReplayError::Invalid(format!("the world does not save: {error}")))?;
        Ok(ReplayRecorder {
            replay: Replay {
                players,
                every: every.max(1),
                world,
                inputs: Vec::new(),
                log: DesyncLog::new(),
            },
        })
    }

    /// Records every frame up to `confirmed` (a session's
    /// `confirmed_frame()`) not recorded yet: the inputs of its advance and,
    /// every `every` frames, the checksums by part of the world it led to.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Missed`] if the runner's ring no longer holds a frame
    /// to record.
    pub fn record_confirmed<S, C>(
        &mut self,
        runner: &GgrsRunner<S, C>,
        confirmed: Frame,
    ) -> Result<(), ReplayError>
    where
        S: ChecksumSchema + SendSchema,
        World<S>: Clone,
        C: Config<Input = I, State = crate::SnapshotSlot>,
        PlayerInputs<C>: Resource<S>,
    {
        // The advance of frame `f` is recorded once frame `f + 1`, the
        // world it led to, is confirmed: that world holds its inputs.
        while (self.replay.inputs.len() as Frame) < confirmed {
            let frame = self.replay.inputs.len() as Frame;
            let after = runner
                .saved_world(frame + 1)
                .ok_or(ReplayError::Missed { frame })?;
            let inputs = after.resource::<PlayerInputs<C>>();
            self.replay
                .inputs
                .push(inputs.as_slice().iter().map(|&(input, _)| input).collect());
            if (frame + 1) % self.replay.every == 0 {
                self.replay.log.record(frame + 1, &after.checksum_parts());
            }
        }
        Ok(())
    }

    /// The replay recorded so far.
    pub fn finish(self) -> Replay<I> {
        self.replay
    }
}

impl<I: Copy + Serialize + DeserializeOwned> Replay<I> {
    /// The number of frames recorded.
    pub fn frames(&self) -> usize {
        self.inputs.len()
    }

    /// The replay as a file (see [`Replay`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let file = File {
            version: VERSION,
            players: self.players as u32,
            every: self.every,
            world: self.world.clone(),
            inputs: self.inputs.clone(),
            log: self.log.to_string(),
        };
        let mut bytes = MAGIC.to_vec();
        bytes.extend(postcard::to_allocvec(&file).expect("a replay's parts always serialize"));
        bytes
    }

    /// A replay from its file.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Invalid`], naming what is wrong, for anything that is
    /// not a whole replay file of this version; never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReplayError> {
        let body = bytes
            .strip_prefix(&MAGIC)
            .ok_or_else(|| ReplayError::Invalid("it does not start with SCHMRPLY".into()))?;
        // The version first, so that a file of another version says so
        // rather than failing to parse.
        let (version, _) = postcard::take_from_bytes::<u32>(body)
            .map_err(|error| ReplayError::Invalid(format!("no version: {error}")))?;
        if version != VERSION {
            return Err(ReplayError::Invalid(format!(
                "format version {version}; this build reads version {VERSION}"
            )));
        }
        let (file, rest) = postcard::take_from_bytes::<File<I>>(body)
            .map_err(|error| ReplayError::Invalid(format!("truncated or malformed: {error}")))?;
        if !rest.is_empty() {
            return Err(ReplayError::Invalid(format!(
                "{} bytes after the end of the replay",
                rest.len()
            )));
        }
        let players = file.players as usize;
        if let Some(frame) = file
            .inputs
            .iter()
            .position(|inputs| inputs.len() != players)
        {
            return Err(ReplayError::Invalid(format!(
                "frame {frame} has {} inputs for {players} players",
                file.inputs[frame].len()
            )));
        }
        if file.every < 1 {
            return Err(ReplayError::Invalid("a checksum interval below 1".into()));
        }
        let log = DesyncLog::parse(&file.log)
            .map_err(|error| ReplayError::Invalid(format!("checksums: {error}")))?;
        Ok(Replay {
            players,
            every: file.every,
            world: file.world,
            inputs: file.inputs,
            log,
        })
    }

    /// Plays the replay back: loads the first world, runs `schedule` once a
    /// frame on the recorded inputs (each `Confirmed`), and checks the
    /// world against every recorded checksum. Returns the world at the end.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Invalid`] if the first world does not load into this
    /// schema, and [`ReplayError::Diverged`] at the first recorded frame
    /// whose checksums differ: which parts, and the system at fault if two
    /// runs of the frame before disagree.
    pub fn play<S, C>(&self, mut schedule: Schedule<S>) -> Result<World<S>, ReplayError>
    where
        S: ChecksumSchema + SendSchema,
        World<S>: Clone + DeserializeOwned,
        C: Config<Input = I>,
        PlayerInputs<C>: Resource<S>,
    {
        let mut world: World<S> = postcard::from_bytes(&self.world)
            .map_err(|error| ReplayError::Invalid(format!("the first world: {error}")))?;
        let mut before = world.clone();
        let mut inputs: Vec<(I, InputStatus)> = Vec::with_capacity(self.players);
        for (frame, recorded) in self.inputs.iter().enumerate() {
            let frame = frame as Frame;
            inputs.clear();
            inputs.extend(
                recorded
                    .iter()
                    .map(|&input| (input, InputStatus::Confirmed)),
            );
            let resource = world.resource_mut::<PlayerInputs<C>>();
            resource.set(&inputs);
            resource.set_frame(frame);
            before.clone_from(&world);
            schedule.run(&mut world);
            if (frame + 1) % self.every != 0 {
                continue;
            }
            let mut played = DesyncLog::new();
            played.record(frame + 1, &world.checksum_parts());
            if let Some(mismatch) = self.log.first_mismatch(&played) {
                // Two runs of this frame from the world before it: a
                // system that reads outside the world gives itself away.
                let divergence = schedule.find_divergence(&before);
                return Err(ReplayError::Diverged(Box::new(ReplayDivergence {
                    mismatch,
                    divergence,
                })));
            }
        }
        Ok(world)
    }
}
