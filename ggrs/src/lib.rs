//! Rollback netcode for [`schemecs`] worlds with [GGRS](ggrs).
//!
//! A GGRS session does not call into the game: each frame it hands back a
//! list of [`GgrsRequest`]s (save the state, load an older one, advance with
//! these inputs) that the game must fulfil in order. [`GgrsRunner`] owns a
//! [`World`], the [`Schedule`] that advances it and a ring of snapshot worlds,
//! and fulfils such a list in one call:
//!
//! * **save**: the world is copied into a ring slot with
//!   [`World::clone_from`] (which reuses the slot's memory) and its checksum
//!   goes to GGRS, which compares it between peers (desync detection) or
//!   between runs (the sync test);
//! * **load**: the world is copied back from the slot that holds the frame;
//! * **advance**: the inputs are written into the [`PlayerInputs`] resource
//!   of the world and the schedule runs once.
//!
//! The same runner serves a [`SyncTestSession`](ggrs::SyncTestSession), a
//! [`P2PSession`](ggrs::P2PSession) and a
//! [`SpectatorSession`](ggrs::SpectatorSession): all three speak in these
//! requests. Once the ring's worlds have held worlds of the shape the game
//! settles into, handling a list allocates nothing.
//!
//! # What the game provides
//!
//! * a schema with a resource `#[ecs(resource)] inputs: PlayerInputs<MyConfig>`,
//!   whose components and resources are `Clone` and
//!   [`StableHash`], so the world can be copied and
//!   checksummed;
//! * a [`ggrs::Config`] whose `State` is [`SnapshotSlot`] (the cell GGRS keeps
//!   for a frame only says where in the ring that frame lies):
//!   [`GgrsConfig<Input>`](GgrsConfig) is one;
//! * systems that read their inputs from `Res<PlayerInputs<MyConfig>>`
//!   (and the frame being simulated, [`PlayerInputs::frame`]).
//!
//! # What keeps peers in step
//!
//! Everything that can change what the world does next is world state in
//! schemecs: components, resources, events, change-detection windows, the
//! entity allocator and its free list, and what systems keep between runs
//! (`Local`). A snapshot copies all of it and the checksum covers all of it,
//! and a schedule's result does not depend on the number of threads. What
//! remains the game's business: draw random numbers from a generator kept in
//! a resource (never a thread-local or global one), never read the wall
//! clock or other outside state in a system, and do not let game logic
//! depend on whether an input was [`Predicted`](InputStatus::Predicted) or
//! [`Confirmed`](InputStatus::Confirmed) (that differs between peers by
//! design). A [`SyncTestSession`](ggrs::SyncTestSession) finds most
//! mistakes of this kind on one machine.
//!
//! If a system panics while the runner advances, the panic goes on to the
//! caller, and the world is not left half advanced for a later save to
//! store: it is put back to the frame's snapshot when the frame was saved
//! (as a session saves each frame before advancing it), and otherwise the
//! runner refuses to save or advance ([`RollbackError::Poisoned`]) until a
//! load puts a saved frame back.
//!
//! # When peers disagree
//!
//! * [`GgrsRunner::diagnose`]: after a sync test's mismatch, re-simulates
//!   the frame twice, system by system, and names the system, component
//!   and entities at fault.
//! * [`GgrsRunner::log_confirmed`] and [`DesyncLog`]: each peer logs its
//!   checksums by part per confirmed frame; comparing two logs names the
//!   first frame and the parts that differ.
//! * [`ReplayRecorder`] and [`Replay`]: a match recorded into one file and
//!   played back, every recorded checksum verified.
//!
//! [`P2PDriver`] is the loop around a peer-to-peer session and its runner,
//! written once: it polls, paces frames (slower while ahead of the other
//! peers), gathers the local inputs through a callback, advances, and
//! hands back a [`DriverStep`] and GGRS's events as values. [`GgrsConfig`] is a
//! ready-made `ggrs::Config`, and [`PlayerInputs::frame`] tells systems
//! which frame they simulate.
//!
//! See [`GgrsRunner`] for a whole program.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

use ggrs::{Config, Frame, GameStateCell, GgrsRequest, InputStatus, PlayerHandle};
use schemecs::checksum::{ChecksumParts, ChecksumSchema, StableHash, StableHasher};
use schemecs::schedule::{Divergence, Schedule, SendSchema};
use schemecs::{schema::Resource, schema::Schema, world::World};
use std::fmt;
use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

pub use ggrs;

mod desync;
mod driver;
mod replay;
pub use desync::{DesyncLog, LogMismatch, LogParseError};
pub use driver::{DesyncReport, DriverError, DriverEvent, DriverStep, P2PDriver};
pub use replay::{Replay, ReplayDivergence, ReplayError, ReplayRecorder};

/// A ready-made [`ggrs::Config`]: inputs of type `I`, peers addressed by
/// `A` (a UDP [`SocketAddr`](std::net::SocketAddr) unless said otherwise),
/// the next input predicted as a repeat of the last one, and
/// [`SnapshotSlot`] as the saved state, as [`GgrsRunner`] needs:
///
/// ```
/// use schemecs_ggrs::{GgrsConfig, PlayerInputs};
/// type Net = GgrsConfig<u8>; // one byte of buttons per player
/// # use schemecs::prelude::*;
/// # struct Pos(i32);
/// #[derive(Schema)]
/// struct Game {
///     pos: Pos,
///     #[ecs(resource)]
///     inputs: PlayerInputs<Net>,
/// }
/// ```
pub struct GgrsConfig<I, A = std::net::SocketAddr>(PhantomData<fn() -> (I, A)>);

impl<I, A> ggrs::Config for GgrsConfig<I, A>
where
    I: Copy + PartialEq + Default + serde::Serialize + serde::de::DeserializeOwned,
    I: Send + Sync + 'static,
    A: Clone + Eq + std::hash::Hash + fmt::Debug + Send + Sync + 'static,
{
    type Input = I;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = SnapshotSlot;
    type Address = A;
}

/// The inputs of every player for the frame being simulated, as a resource
/// of the world: declare it in the schema as
/// `#[ecs(resource)] inputs: PlayerInputs<MyConfig>` and read it from
/// systems with `Res<PlayerInputs<MyConfig>>`. [`GgrsRunner`] fills it before
/// each run of the schedule, one entry per player handle, in handle order.
///
/// It is left out of the world's checksum: it is replaced before every run,
/// so it decides nothing about the frames after, and the
/// [`InputStatus`] of an input differs between peers by design (a player's
/// own input is confirmed on their machine while the other peer still
/// predicts it). For the same reason, game logic should not branch on
/// `Predicted` versus `Confirmed`; [`InputStatus::Disconnected`] is safe to
/// use, since GGRS rolls every peer back to the frame of the disconnection.
pub struct PlayerInputs<C: Config> {
    inputs: Vec<(C::Input, InputStatus)>,
    /// The frame being simulated.
    frame: Frame,
}

impl<C: Config> PlayerInputs<C> {
    /// The input of `player`, or the default input (what GGRS gives for "no
    /// input") if there is no such player.
    pub fn input(&self, player: PlayerHandle) -> C::Input {
        self.inputs
            .get(player)
            .map_or_else(C::Input::default, |&(input, _)| input)
    }

    /// The status of `player`'s input, or `None` if there is no such player.
    pub fn status(&self, player: PlayerHandle) -> Option<InputStatus> {
        self.inputs.get(player).map(|&(_, status)| status)
    }

    /// Every player's input and its status, in handle order.
    pub fn as_slice(&self) -> &[(C::Input, InputStatus)] {
        &self.inputs
    }

    /// The frame being simulated: 0 for the first advance, then one more
    /// each frame, the same on every peer and in every re-simulation (GGRS
    /// counts frames so). Game logic may depend on it, e.g. to do
    /// something every 60 frames.
    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// The number of players (0 before the first frame).
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Whether no inputs were set yet.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Replaces the inputs, reusing the memory held (what [`GgrsRunner`]
    /// does before each run; call it yourself to run a schedule by hand).
    pub fn set(&mut self, inputs: &[(C::Input, InputStatus)]) {
        self.inputs.clear();
        self.inputs.extend_from_slice(inputs);
    }

    /// Sets the frame [`PlayerInputs::frame`] says (what [`GgrsRunner`]
    /// does before each run, with the inputs).
    pub fn set_frame(&mut self, frame: Frame) {
        self.frame = frame;
    }
}

impl<C: Config> Default for PlayerInputs<C> {
    fn default() -> Self {
        PlayerInputs {
            inputs: Vec::new(),
            frame: 0,
        }
    }
}

// By hand: `C` itself need not be `Clone`, and `clone_from` must reuse the
// vector so that saving a snapshot allocates nothing.
impl<C: Config> Clone for PlayerInputs<C> {
    fn clone(&self) -> Self {
        PlayerInputs {
            inputs: self.inputs.clone(),
            frame: self.frame,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.inputs.clone_from(&source.inputs);
        self.frame = source.frame;
    }
}

impl<C: Config> fmt::Debug for PlayerInputs<C>
where
    C::Input: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.inputs).finish()
    }
}

/// Writes nothing: see the type's documentation for why the inputs are not
/// part of the checksum.
impl<C: Config> StableHash for PlayerInputs<C> {
    fn stable_hash(&self, _: &mut StableHasher) {}
}

/// A save (schemecs's feature `serde`) holds the inputs, each status and the
/// frame, so that a saved world runs on as it would have.
impl<C: Config> serde::Serialize for PlayerInputs<C> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let inputs: Vec<(C::Input, u8)> = self
            .inputs
            .iter()
            .map(|&(input, status)| {
                let status = match status {
                    InputStatus::Confirmed => 0,
                    InputStatus::Predicted => 1,
                    InputStatus::Disconnected => 2,
                };
                (input, status)
            })
            .collect();
        (inputs, self.frame).serialize(serializer)
    }
}

impl<'de, C: Config> serde::Deserialize<'de> for PlayerInputs<C> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (inputs, frame): (Vec<(C::Input, u8)>, Frame) =
            serde::Deserialize::deserialize(deserializer)?;
        let inputs = inputs
            .into_iter()
            .map(|(input, status)| {
                let status = match status {
                    0 => InputStatus::Confirmed,
                    1 => InputStatus::Predicted,
                    2 => InputStatus::Disconnected,
                    other => {
                        return Err(serde::de::Error::custom(format!(
                            "input status {other} (0 confirmed, 1 predicted, 2 disconnected)"
                        )))
                    }
                };
                Ok((input, status))
            })
            .collect::<Result<_, _>>()?;
        Ok(PlayerInputs { inputs, frame })
    }
}

/// What GGRS keeps for a saved frame: which slot of the runner's ring holds
/// it. Use it as the `State` of your [`ggrs::Config`]; it is copied, never
/// allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotSlot {
    frame: Frame,
    slot: usize,
    /// The runner whose ring it is (see [`GgrsRunner`]'s `id`).
    runner: u64,
}

impl SnapshotSlot {
    /// The frame saved.
    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// The index of the ring slot holding it.
    pub fn slot(&self) -> usize {
        self.slot
    }
}

/// A request that [`GgrsRunner`] could not fulfil. Each means the requests
/// did not come, in order, from one session driving this runner; the world
/// is left as it was after the last request fulfilled.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RollbackError {
    /// A save for `requested` came while the world was at frame `at`
    /// (requests were skipped, or came from another session).
    SaveOutOfStep {
        /// The frame the session asked to save.
        requested: Frame,
        /// The frame the runner's world is at.
        at: Frame,
    },
    /// A load for `frame` came with a cell that this runner never saved to
    /// (another runner's, or one never saved).
    NeverSaved {
        /// The frame the session asked to load.
        frame: Frame,
    },
    /// A save or an advance came after a system panicked while the runner
    /// advanced frame `frame`, which had not been saved: the world is half
    /// advanced. Load a saved frame to go on.
    Poisoned {
        /// The frame whose advance panicked.
        frame: Frame,
    },
    /// A load for `frame` found its ring slot holding another frame (or
    /// none): the ring is shorter than the session's rollback window.
    Overwritten {
        /// The frame the session asked to load.
        frame: Frame,
        /// The ring slot that should hold it.
        slot: usize,
        /// The frame that slot holds instead, if any.
        holds: Option<Frame>,
    },
}

impl fmt::Display for RollbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RollbackError::SaveOutOfStep { requested, at } => write!(
                f,
                "asked to save frame {requested} while the world is at frame {at}: \
                 were requests skipped, or do they come from another session?"
            ),
            RollbackError::NeverSaved { frame } => write!(
                f,
                "asked to load frame {frame} from a cell this runner never saved to"
            ),
            RollbackError::Poisoned { frame } => write!(
                f,
                "a system panicked while frame {frame}, which was not saved, was advanced: \
                 the world is half advanced; load a saved frame before saving or advancing"
            ),
            RollbackError::Overwritten { frame, slot, holds } => {
                write!(
                    f,
                    "asked to load frame {frame}, but ring slot {slot} holds "
                )?;
                match holds {
                    Some(other) => write!(f, "frame {other}")?,
                    None => write!(f, "nothing")?,
                }
                write!(
                    f,
                    ": the ring is shorter than the session's rollback window \
                     (give it at least the max prediction + 1 slots)"
                )
            }
        }
    }
}

impl std::error::Error for RollbackError {}

/// What [`GgrsRunner::diagnose`] found when it re-simulated a frame twice:
/// the first system whose result differed between the two runs, if any.
#[derive(Clone, Debug)]
pub struct Diagnosis {
    frame: Frame,
    divergence: Option<Divergence>,
}

impl Diagnosis {
    /// The frame re-simulated (its advance from the frame before).
    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// The first step whose result differed, with how the worlds differed
    /// after it; `None` if the two runs agreed.
    pub fn divergence(&self) -> Option<&Divergence> {
        self.divergence.as_ref()
    }
}

/// "frame 9: system `glitch` (number 6 in program order) is the first step
/// whose result differs ...", or why nothing was found.
impl fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.divergence {
            Some(divergence) => write!(f, "frame {}: {divergence}", self.frame),
            None => write!(
                f,
                "frame {}: two runs of the schedule from the frame before, with this frame's \
                 inputs, agree: the difference did not come from the systems reading something \
                 outside the world while this frame was simulated (look for a change made to \
                 the world between frames, or for logic that branches on whether an input was \
                 predicted)",
                self.frame
            ),
        }
    }
}

/// One slot of the ring: a world, and which frame it holds.
struct Snapshot<S: Schema> {
    world: World<S>,
    frame: Option<Frame>,
    checksum: u128,
}

/// A [`World`], the [`Schedule`] that advances it and a ring of snapshots,
/// driven by the requests of a GGRS session.
///
/// Each frame, give [`handle_requests`](Self::handle_requests) what the
/// session's `advance_frame` returned. The ring is allocated up front (one
/// copy of the world per slot), and [`World::clone_from`] refills a slot in
/// place, so once the slots have held worlds of the shape the game settles
/// into, a frame allocates nothing here.
///
/// A whole program: a sync test, which rolls back and resimulates the last
/// few frames every frame and compares checksums, so that a
/// non-deterministic system is caught on one machine.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::checksum::StableHash;
/// use schemecs_ggrs::ggrs::SessionBuilder;
/// use schemecs_ggrs::{GgrsConfig, GgrsRunner, PlayerInputs};
///
/// /// The session's types: one byte of input per player.
/// type Net = GgrsConfig<u8>;
///
/// #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
/// struct Pos(i32);
/// #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
/// struct Player(usize);
///
/// #[derive(Schema)]
/// struct Game {
///     pos: Pos,
///     player: Player,
///     #[ecs(resource)]
///     inputs: PlayerInputs<Net>,
/// }
///
/// fn walk(mut players: Query<(&Player, &mut Pos)>, inputs: Res<PlayerInputs<Net>>) {
///     players.for_each_mut(|(player, pos)| pos.0 += i32::from(inputs.input(player.0)) - 1);
/// }
///
/// let mut world = World::<Game>::new();
/// world.spawn((Pos(0), Player(0)));
/// world.spawn((Pos(100), Player(1)));
/// let mut schedule = Schedule::new();
/// schedule.add(walk);
///
/// let mut session = SessionBuilder::<Net>::new()
///     .with_num_players(2)
///     .unwrap()
///     .with_check_distance(2)
///     .start_synctest_session()
///     .unwrap();
/// let mut runner = GgrsRunner::new(world, schedule, session.max_prediction());
///
/// for frame in 0..30u8 {
///     for player in 0..2 {
///         session.add_local_input(player, frame % 3).unwrap();
///     }
///     // Err(MismatchedChecksum) here would mean the game is not deterministic.
///     let requests = session.advance_frame().unwrap();
///     runner.handle_requests(requests).unwrap();
/// }
/// assert_eq!(runner.frame(), 30);
/// let moved: Vec<i32> = runner.world().query::<&Pos>().iter().map(|p| p.0).collect();
/// assert_eq!(moved, [0, 100]); // inputs 0, 1, 2 in turn: -1, 0, +1
/// ```
pub struct GgrsRunner<S: Schema, C: Config> {
    world: World<S>,
    schedule: Schedule<S>,
    ring: Box<[Snapshot<S>]>,
    /// The frame `world` is at: the number of frames advanced since frame 0,
    /// as GGRS counts them (a load sets it back).
    frame: Frame,
    /// Loads handled.
    rollbacks: u64,
    /// What tells this runner's cells from another's: a number no other
    /// runner of the process has.
    id: u64,
    /// The frame whose advance panicked, leaving the world half advanced,
    /// until a load.
    poisoned: Option<Frame>,
    config: PhantomData<fn() -> C>,
}

/// The `id` of the next runner made.
static NEXT_RUNNER: AtomicU64 = AtomicU64::new(0);

impl<S, C> GgrsRunner<S, C>
where
    S: ChecksumSchema + SendSchema,
    World<S>: Clone,
    C: Config<State = SnapshotSlot>,
    PlayerInputs<C>: Resource<S>,
{
    /// A runner for a session that predicts at most `max_prediction` frames
    /// ahead (the session's `max_prediction()`; a spectator never rolls back,
    /// give it 0): a ring of `max_prediction + 2` snapshots, one more than
    /// GGRS keeps cells for. The world is at frame 0.
    pub fn new(world: World<S>, schedule: Schedule<S>, max_prediction: usize) -> Self {
        Self::with_ring_len(world, schedule, max_prediction + 2)
    }

    /// A runner with a ring of `len` snapshots (at least 1), each a copy of
    /// `world`. GGRS may load any of the last `max_prediction + 1` frames
    /// saved, so a shorter ring makes some rollbacks fail with
    /// [`RollbackError::Overwritten`].
    pub fn with_ring_len(world: World<S>, schedule: Schedule<S>, len: usize) -> Self {
        assert!(len > 0, "a snapshot ring needs at least one slot");
        let ring = (0..len)
            .map(|_| Snapshot {
                world: world.clone(),
                frame: None,
                checksum: 0,
            })
            .collect();
        GgrsRunner {
            world,
            schedule,
            ring,
            frame: 0,
            rollbacks: 0,
            id: NEXT_RUNNER.fetch_add(1, Ordering::Relaxed),
            poisoned: None,
            config: PhantomData,
        }
    }

    /// Fulfils a session's requests, in order: what `advance_frame` of a
    /// [`SyncTestSession`](ggrs::SyncTestSession),
    /// [`P2PSession`](ggrs::P2PSession) or
    /// [`SpectatorSession`](ggrs::SpectatorSession) returned.
    ///
    /// # Errors
    ///
    /// A [`RollbackError`] if a request cannot be fulfilled (requests skipped
    /// or mixed between sessions, or a ring too short); the requests after
    /// it are dropped.
    pub fn handle_requests<I>(&mut self, requests: I) -> Result<(), RollbackError>
    where
        I: IntoIterator<Item = GgrsRequest<C>>,
    {
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => self.save(&cell, frame)?,
                GgrsRequest::LoadGameState { cell, frame } => self.load(&cell, frame)?,
                GgrsRequest::AdvanceFrame { inputs } => self.advance(&inputs)?,
            }
        }
        Ok(())
    }

    fn save(
        &mut self,
        cell: &GameStateCell<SnapshotSlot>,
        frame: Frame,
    ) -> Result<(), RollbackError> {
        if let Some(frame) = self.poisoned {
            return Err(RollbackError::Poisoned { frame });
        }
        if frame != self.frame {
            return Err(RollbackError::SaveOutOfStep {
                requested: frame,
                at: self.frame,
            });
        }
        let slot = self.slot_of(frame);
        let checksum = self.world.checksum();
        let snapshot = &mut self.ring[slot];
        snapshot.world.clone_from(&self.world);
        snapshot.frame = Some(frame);
        snapshot.checksum = checksum;
        let saved = SnapshotSlot {
            frame,
            slot,
            runner: self.id,
        };
        cell.save(frame, Some(saved), Some(checksum));
        Ok(())
    }

    fn load(
        &mut self,
        cell: &GameStateCell<SnapshotSlot>,
        frame: Frame,
    ) -> Result<(), RollbackError> {
        let saved = cell.data().map(|saved| *saved);
        let ours = |saved: &SnapshotSlot| saved.frame == frame && saved.runner == self.id;
        let Some(SnapshotSlot { slot, .. }) = saved.filter(ours) else {
            return Err(RollbackError::NeverSaved { frame });
        };
        let snapshot = self
            .ring
            .get(slot)
            .ok_or(RollbackError::NeverSaved { frame })?;
        if snapshot.frame != Some(frame) {
            return Err(RollbackError::Overwritten {
                frame,
                slot,
                holds: snapshot.frame,
            });
        }
        self.world.clone_from(&snapshot.world);
        self.frame = frame;
        self.rollbacks += 1;
        self.poisoned = None;
        Ok(())
    }

    /// Runs the schedule once on the inputs. If a system panics, the panic
    /// goes on, and the world is put back to the frame's snapshot if the
    /// ring holds one, else the runner is poisoned (see
    /// [`RollbackError::Poisoned`]).
    fn advance(&mut self, inputs: &[(C::Input, InputStatus)]) -> Result<(), RollbackError> {
        if let Some(frame) = self.poisoned {
            return Err(RollbackError::Poisoned { frame });
        }
        let frame = self.frame;
        let resource = self.world.resource_mut::<PlayerInputs<C>>();
        resource.set(inputs);
        resource.set_frame(frame);
        let (schedule, world) = (&mut self.schedule, &mut self.world);
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| schedule.run(world))) {
            let snapshot = &self.ring[self.slot_of(self.frame)];
            if snapshot.frame == Some(self.frame) {
                self.world.clone_from(&snapshot.world);
            } else {
                self.poisoned = Some(self.frame);
            }
            resume_unwind(panic);
        }
        self.frame += 1;
        Ok(())
    }

    /// Finds where the simulation of `frame` went wrong: after a
    /// [`GgrsError::MismatchedChecksum`](ggrs::GgrsError::MismatchedChecksum)
    /// of a sync test, give it the first of the `mismatched_frames`. The
    /// world saved for the frame before is re-simulated twice with the
    /// inputs of `frame`, one system at a time
    /// ([`Schedule::find_divergence`]), and the first system whose result
    /// differs between the two runs is named, with the entities and
    /// components it wrote differently.
    ///
    /// ```text
    /// frame 9: system `glitch` (number 6 in program order) is the first step whose result
    /// differs between two runs from the same world; right after it, 1 part differs
    ///   component `Pos`: values (or change ticks) differ for 1 entity: 0v1
    /// ```
    ///
    /// # Errors
    ///
    /// [`RollbackError::Overwritten`] if the ring no longer holds `frame`
    /// and the frame before it (diagnose right after the mismatch).
    pub fn diagnose(&mut self, frame: Frame) -> Result<Diagnosis, RollbackError>
    where
        World<S>: Clone,
    {
        let held = |runner: &Self, frame: Frame| {
            let slot = runner.slot_of(frame);
            let snapshot = &runner.ring[slot];
            if snapshot.frame == Some(frame) {
                Ok(slot)
            } else {
                Err(RollbackError::Overwritten {
                    frame,
                    slot,
                    holds: snapshot.frame,
                })
            }
        };
        let before = held(self, frame - 1)?;
        let after = held(self, frame)?;
        // The inputs of the advance from `frame - 1` to `frame` stay in the
        // world saved at `frame`.
        let mut start = self.ring[before].world.clone();
        let inputs = self.ring[after].world.resource::<PlayerInputs<C>>();
        let (inputs, at) = (inputs.as_slice(), inputs.frame());
        let resource = start.resource_mut::<PlayerInputs<C>>();
        resource.set(inputs);
        resource.set_frame(at);
        let divergence = self.schedule.find_divergence(&start);
        Ok(Diagnosis { frame, divergence })
    }

    /// The ring slot of `frame`.
    fn slot_of(&self, frame: Frame) -> usize {
        frame.unsigned_abs() as usize % self.ring.len()
    }

    /// The world saved for `frame`, if the ring still holds it.
    pub fn saved_world(&self, frame: Frame) -> Option<&World<S>> {
        self.ring
            .iter()
            .find(|snapshot| snapshot.frame == Some(frame))
            .map(|snapshot| &snapshot.world)
    }

    /// The checksums by part ([`World::checksum_parts`]) of the world saved
    /// for `frame`, if the ring still holds it: on a
    /// [`GgrsEvent::DesyncDetected`](ggrs::GgrsEvent::DesyncDetected), what
    /// to report (or send to the other peer) so that the parts that differ
    /// can be named.
    pub fn checksum_parts(&self, frame: Frame) -> Option<ChecksumParts> {
        self.saved_world(frame).map(World::checksum_parts)
    }

    /// Records in `log` the checksums by part of each frame up to
    /// `confirmed` (the session's `confirmed_frame()`) that the ring holds
    /// and `log` does not yet: call it after each
    /// [`handle_requests`](Self::handle_requests) to log every confirmed
    /// frame once, with its final state. Frames confirmed while not in the
    /// ring any more are skipped.
    pub fn log_confirmed(&self, log: &mut DesyncLog, confirmed: Frame) {
        let after = log.last_frame();
        let mut frames: Vec<(Frame, &World<S>)> = self
            .ring
            .iter()
            .filter_map(|snapshot| Some((snapshot.frame?, &snapshot.world)))
            .filter(|&(frame, _)| frame <= confirmed && after.is_none_or(|last| frame > last))
            .collect();
        frames.sort_by_key(|&(frame, _)| frame);
        for (frame, world) in frames {
            log.record(frame, &world.checksum_parts());
        }
    }

    /// The checksum of the world as it is now, as GGRS receives it.
    pub fn checksum(&self) -> u128 {
        self.world.checksum()
    }
}

impl<S: Schema, C: Config> GgrsRunner<S, C> {
    /// The world, as the last request left it.
    pub fn world(&self) -> &World<S> {
        &self.world
    }

    /// The world, mutably: for setup before the session starts. A change
    /// made between frames of a running session is outside what GGRS
    /// replays, so peers will not agree on it unless each makes it at the
    /// same frame and it is saved before any rollback past it.
    pub fn world_mut(&mut self) -> &mut World<S> {
        &mut self.world
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule<S> {
        &self.schedule
    }

    /// The frame the world is at: frames advanced since frame 0, as GGRS
    /// counts them (a load sets it back to the frame loaded).
    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// The number of rollbacks so far: loads handled. (A sync test loads
    /// once a frame; a peer loads when a prediction turned out wrong.)
    pub fn rollbacks(&self) -> u64 {
        self.rollbacks
    }

    /// The number of snapshots in the ring.
    pub fn ring_len(&self) -> usize {
        self.ring.len()
    }

    /// The frames the ring holds with the checksums saved for them, in slot
    /// order. After a list of requests is handled, every frame it saved is
    /// here (a list saves fewer frames than the ring holds), with the
    /// checksum GGRS received: a way to log or compare checksums per frame.
    pub fn saved(&self) -> impl Iterator<Item = (Frame, u128)> + '_ {
        self.ring
            .iter()
            .filter_map(|snapshot| Some((snapshot.frame?, snapshot.checksum)))
    }

    /// The checksum saved for `frame`, if the ring still holds it.
    pub fn saved_checksum(&self, frame: Frame) -> Option<u128> {
        self.saved()
            .find(|&(saved, _)| saved == frame)
            .map(|(_, checksum)| checksum)
    }

    /// The world and the schedule, giving up the ring.
    pub fn into_parts(self) -> (World<S>, Schedule<S>) {
        (self.world, self.schedule)
    }
}

impl<S: Schema, C: Config> fmt::Debug for GgrsRunner<S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GgrsRunner")
            .field("frame", &self.frame)
            .field("ring_len", &self.ring.len())
            .finish_non_exhaustive()
    }
}
