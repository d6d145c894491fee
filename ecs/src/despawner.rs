//! [`Despawner`]: a system parameter that despawns entities when the
//! schedule's run ends, beside every other system.

use crate::entity::Entity;
use crate::lend::SplitWorld;
use crate::query::{ChunkRecorder, Sealed};
use crate::system::{Access, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::World;
use core::fmt;
use core::marker::PhantomData;

/// A system parameter that despawns entities **when the schedule's run
/// ends**: each entity recorded is despawned after the last system of the
/// [`Schedule::run`](crate::schedule::Schedule::run), as
/// [`World::despawn`](crate::world::World::despawn) would, in the order recorded
/// (systems in program order). So a `Despawner` reaches no table while its
/// system runs, and runs beside every other system, where despawns through
/// [`Commands`](crate::command::Commands) make every later system that queries wait.
///
/// Until the run ends, the entities recorded stay alive and keep their
/// components: later systems of the run still see them, as Unity's
/// `Destroy` waits for the end of the frame. That is the same under
/// [`Schedule::run`](crate::schedule::Schedule::run) and
/// [`Schedule::run_sequential`](crate::schedule::Schedule::run_sequential), on any
/// number of threads. As with [`Commands::despawn`](crate::command::Commands::despawn),
/// nothing is checked when a despawn is recorded: an entity not alive when
/// the run ends (despawned by commands, say, or a stale handle) is skipped,
/// one recorded twice is despawned once, and an index reused by a new
/// entity is left alone (the handle is stale). Recording costs a push: no
/// lookup of the entity.
///
/// The despawns of all the schedule's despawners go in one
/// [`World::despawn_batch`](crate::world::World::despawn_batch): one pass per
/// table and per sparse set, the ids freed in the order recorded (so later
/// spawns get the ids despawns one by one would give them). The rows left
/// in a table land in an order of the batch's own (see `despawn_batch`).
///
/// If a system panics, the despawns recorded by the systems applied before
/// the panic are made (as their commands were), and those of the others
/// are dropped.
///
/// The despawns waiting for the end of the run are kept by the schedule,
/// not the world: between runs there are none, so snapshots, saves and
/// rollbacks taken between runs miss nothing; a copy of the world taken
/// during the run (by an exclusive system) does not carry them.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::Despawner;
/// #[derive(Debug)] struct Pos(f32);
/// #[derive(Debug)] struct Life(u32);
/// #[derive(Debug)] struct Rock;
/// #[derive(Schema)] struct Game { pos: Pos, life: Life, rock: Rock }
///
/// // Ages the particles and despawns those that ran out of life.
/// fn age(mut particles: Query<(Entity, &mut Life)>, mut despawner: Despawner<Game>) {
///     for (entity, life) in particles.iter_mut() {
///         life.0 -= 1;
///         if life.0 == 0 {
///             despawner.despawn(entity);
///         }
///     }
/// }
/// // Reaches other tables: runs beside `age`; with commands instead of the
/// // despawner, it would wait for them.
/// fn roll(mut rocks: Query<&mut Pos, With<Rock>>) {
///     rocks.for_each_mut(|pos| pos.0 += 1.0);
/// }
///
/// let mut world = World::<Game>::new();
/// let spark = world.spawn((Pos(0.0), Life(1)));
/// let ember = world.spawn((Pos(0.0), Life(2)));
/// world.spawn((Pos(0.0), Rock));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(age).add(roll);
/// schedule.run(&mut world);
/// assert!(!world.is_alive(spark) && world.is_alive(ember));
/// assert!(schedule.describe().contains("stage 1: age, roll"));
/// ```
pub struct Despawner<'w, S: Schema> {
    recorded: &'w mut Vec<Entity>,
    /// Buffers for the chunks of parallel loops, kept between runs.
    spare: &'w mut Vec<Vec<Entity>>,
    schema: PhantomData<fn() -> S>,
}

impl<S: Schema> Despawner<'_, S> {
    /// Despawns `entity` when the schedule's run ends, if it is alive then.
    #[inline]
    pub fn despawn(&mut self, entity: Entity) {
        self.recorded.push(entity);
    }

    /// Number of despawns recorded so far in this run of the system.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether no despawn was recorded yet in this run of the system.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl<S: Schema> fmt::Debug for Despawner<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Despawner")
            .field("schema", &S::NAME)
            .field("recorded", &self.recorded.len())
            .finish()
    }
}

impl<S: Schema> Sealed for &mut Despawner<'_, S> {}

/// A despawner's despawns recorded in the chunks of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
/// each chunk through a [`ChunkDespawner`]: they follow the despawner's own
/// in iteration order.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::Despawner;
/// #[derive(Debug)] struct Life(u32);
/// #[derive(Schema)] struct S { life: Life }
///
/// fn age(mut particles: Query<(Entity, &mut Life)>, mut despawner: Despawner<S>) {
///     particles.par_for_each_mut_with(&mut despawner, |despawner, (entity, life)| {
///         life.0 -= 1;
///         if life.0 == 0 {
///             despawner.despawn(entity);
///         }
///     });
/// }
///
/// let mut world = World::<S>::new();
/// world.spawn_batch((0..5000).map(|i| (Life(i % 10 + 1),)));
/// let mut schedule = Schedule::<S>::new();
/// schedule.add(age);
/// schedule.run(&mut world);
/// assert_eq!(world.len(), 4500);
/// ```
impl<S: Schema> ChunkRecorder for &mut Despawner<'_, S> {
    type Chunk = ChunkDespawner;

    fn chunk(&mut self) -> ChunkDespawner {
        ChunkDespawner {
            recorded: self.spare.pop().unwrap_or_default(),
        }
    }

    fn append(&mut self, mut chunk: ChunkDespawner) {
        self.recorded.append(&mut chunk.recorded);
        self.spare.push(chunk.recorded);
    }
}

/// The [`Despawner`] of one chunk of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
/// the same method. Its despawns follow those of the chunks before it.
pub struct ChunkDespawner {
    recorded: Vec<Entity>,
}

impl ChunkDespawner {
    /// [`Despawner::despawn`], from this chunk.
    #[inline]
    pub fn despawn(&mut self, entity: Entity) {
        self.recorded.push(entity);
    }

    /// Number of despawns this chunk recorded so far.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether this chunk recorded no despawn yet.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl fmt::Debug for ChunkDespawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkDespawner")
            .field("recorded", &self.recorded.len())
            .finish()
    }
}

/// What a [`Despawner`] keeps between runs: the despawns of its system's
/// current run, those of its applied runs that wait for the schedule's run
/// to end (empty once it has), and the chunks' buffers.
#[doc(hidden)]
#[derive(Default)]
pub struct DespawnerState {
    recorded: Vec<Entity>,
    applied: Vec<Entity>,
    spare: Vec<Vec<Entity>>,
}

impl<S: Schema> SystemParam<S> for Despawner<'_, S> {
    type State = DespawnerState;
    type Item<'w> = Despawner<'w, S>;
    // It reads nothing and changes nothing until the run ends.
    const ACCESS: Access = Access::NONE;
    const CHECK: () = ();
    const DESPAWNS_AT_END: bool = true;

    fn init() -> DespawnerState {
        DespawnerState::default()
    }

    fn fetch<'w>(state: &'w mut DespawnerState, _: &mut SplitWorld<'w, S>) -> Despawner<'w, S> {
        Despawner {
            recorded: &mut state.recorded,
            spare: &mut state.spare,
            schema: PhantomData,
        }
    }

    fn apply(state: &mut DespawnerState, _world: &mut World<S>) {
        state.applied.append(&mut state.recorded);
    }

    fn discard(state: &mut DespawnerState, _world: &mut World<S>) {
        state.recorded.clear();
    }

    fn end_of_run(state: &mut DespawnerState, doomed: &mut Vec<Entity>) {
        doomed.append(&mut state.applied);
    }
}
