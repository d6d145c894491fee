//! [`Spawner`]: a system parameter that spawns entities of one bundle type
//! at once, while other systems run.

use crate::bundle::{Bundle, Placement};
use crate::changes::ChangeWindow;
use crate::entity::{Entities, Entity};
use crate::lend::SplitWorld;
use crate::mask::Mask;
use crate::query::{ChunkRecorder, Sealed};
use crate::storage::{Bins, EntityIndex, Staged, TableId};
use crate::system::{Access, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::SendSchema;
use crate::world_impl::World;
use core::fmt;
use core::marker::PhantomData;

/// A system parameter that spawns entities with the components of bundle
/// `B` **at once**, pushing their rows straight into the table of exactly
/// those components, while systems that cannot see that table run beside
/// it: the paper's owned and deferred *initialize*, concurrent (Table 2;
/// see `docs/CONCURRENCY.md`).
///
/// [`Spawner::spawn`] returns the new entity's id: the id a spawn at that
/// point of program order gets, on any number of threads. The schedule
/// makes that so: a spawner runs once the commands of every earlier system
/// are applied, and a later system that reserves ids (commands or another
/// spawner) waits until the spawner is applied.
///
/// The new entities become alive when the system's run is applied, after
/// its stage, before its own commands (so they can name them): until then
/// [`World::is_alive`](crate::world::World::is_alive) is `false` for them, as
/// for the entities of [`Commands::spawn`](crate::command::Commands::spawn). A
/// later system whose query can reach the bundle's table waits for that,
/// and so does a later system that shares anything else with the spawner
/// (a resource, an event, a component), since it may be handed a new id.
/// A system that cannot reach the table and shares nothing with the
/// spawner cannot hold a new id (short of forging one with
/// [`Entity::from_bits`]), and runs beside it.
///
/// `B`'s components must be table components without hooks, relation role
/// or requirements (a compile error otherwise, naming the component); a
/// system takes at most one `Spawner`, and no query of the same system may
/// reach the bundle's table (compile errors too: in `cargo build`, as the
/// other checks of a system's parameters).
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::Spawner;
/// #[derive(Debug, PartialEq)] struct Pos(i32);
/// #[derive(Debug, PartialEq)] struct Spark(u32);
/// #[derive(Debug, PartialEq)] struct Vel(i32);
/// #[derive(Schema)] struct Game { pos: Pos, spark: Spark, vel: Vel }
///
/// // Throws a spark for each mover: rows pushed at once into the
/// // [Pos, Spark] table, which no query of this system reaches.
/// fn sparks(movers: Query<&Vel>, mut spawner: Spawner<Game, (Pos, Spark)>) {
///     for vel in movers.iter() {
///         spawner.spawn((Pos(vel.0 * 10), Spark(3)));
///     }
/// }
/// // Reaches only tables with `Vel`: runs beside `sparks`.
/// fn drift(mut movers: Query<(&mut Pos, &Vel)>) {
///     movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
/// }
///
/// let mut world = World::<Game>::new();
/// world.spawn((Pos(0), Vel(1)));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(sparks).add(drift);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.query::<&Spark>().count(), 2);
/// assert!(schedule.describe().contains("stage 1: sparks, drift"));
/// ```
pub struct Spawner<'w, S: Schema, B: Bundle<S>> {
    entities: &'w Entities,
    target: Target<'w, S>,
    /// The ids reserved so far this run, in order.
    spawned: &'w mut Vec<Entity>,
    tick: u32,
    /// Buffers for the chunks of parallel loops, kept between runs.
    spare: &'w mut Vec<Vec<B>>,
    bundle: PhantomData<fn(B)>,
}

/// Where a [`Spawner`]'s rows go.
enum Target<'w, S: Schema> {
    /// Straight into the bundle's table (which existed before the stage),
    /// with the tag values kept apart until the run is applied.
    Table {
        rows: &'w mut Vec<EntityIndex>,
        columns: &'w mut [S::Column],
        tags: &'w mut Bins<S>,
    },
    /// The table did not exist yet: the values wait here and are placed
    /// when the run is applied (the first run on a world only).
    Staged(&'w mut Staged<S>),
}

impl<S: Schema, B: Bundle<S>> Spawner<'_, S, B> {
    /// Spawns an entity with the components of `bundle`, pushing its row at
    /// once, and returns the entity it is; it becomes alive when the run is
    /// applied.
    ///
    /// # Panics
    ///
    /// If the entity indices run out, as [`World::spawn`](crate::world::World::spawn).
    #[inline]
    pub fn spawn(&mut self, bundle: B) -> Entity {
        let entity = match self.entities.reserve_entity() {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        };
        self.target
            .push::<B>(bundle, EntityIndex::from(entity), self.tick);
        self.spawned.push(entity);
        entity
    }

    /// Number of entities spawned so far in this run.
    pub fn len(&self) -> usize {
        self.spawned.len()
    }

    /// Whether none was spawned yet in this run.
    pub fn is_empty(&self) -> bool {
        self.spawned.is_empty()
    }
}

impl<S: Schema> Target<'_, S> {
    /// Pushes `bundle`'s row, of entity `entity`, or stages its values.
    #[inline]
    fn push<B: Bundle<S>>(&mut self, bundle: B, entity: EntityIndex, tick: u32) {
        match self {
            Target::Table {
                rows,
                columns,
                tags,
            } => {
                let row = rows.len();
                rows.push(entity);
                bundle.place(&mut Placement {
                    columns,
                    mask: table_mask::<S, B>(),
                    previous: S::Mask::EMPTY,
                    row,
                    entity,
                    bins: tags,
                    tick,
                });
            }
            Target::Staged(values) => bundle.stage(values.columns()),
        }
    }
}

impl<S: Schema, B: Bundle<S>> fmt::Debug for Spawner<'_, S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spawner")
            .field("schema", &S::NAME)
            .field("bundle", &core::any::type_name::<B>())
            .field("spawned", &self.spawned.len())
            .finish()
    }
}

/// The table mask of bundle `B` (it has no sparse component).
#[inline(always)]
fn table_mask<S: Schema, B: Bundle<S>>() -> S::Mask {
    S::Mask::from_u128(B::BITS)
}

/// What a [`Spawner`] or an [`UnnamedSpawner`] keeps between runs.
#[doc(hidden)]
pub struct SpawnerState<S: Schema, B> {
    /// The bundle's table, if it existed when the run was prepared.
    table: Option<TableId>,
    /// The first row this run pushed to it.
    first_row: u32,
    tick: u32,
    /// The ids reserved this run ([`Spawner`] only).
    spawned: Vec<Entity>,
    /// The rows pushed or staged this run.
    count: u32,
    tags: Bins<S>,
    staged: Staged<S>,
    /// Buffers for the chunks of parallel loops, kept between runs.
    spare: Vec<Vec<B>>,
}

impl<S: Schema, B> Default for SpawnerState<S, B> {
    fn default() -> Self {
        SpawnerState {
            table: None,
            first_row: 0,
            tick: 0,
            spawned: Vec::new(),
            count: 0,
            tags: Bins::default(),
            staged: Staged::default(),
            spare: Vec::new(),
        }
    }
}

impl<S: Schema, B> SpawnerState<S, B> {
    fn prepare(&mut self, world: &World<S>, mask: S::Mask, window: ChangeWindow) {
        self.table = world.tables().find(mask);
        self.tick = window.this_run;
    }

    /// Where this run's rows go (the table, taken whole, if it exists),
    /// the list of reserved ids, the count of rows, the tick, and the spare
    /// chunk buffers.
    #[allow(clippy::type_complexity)]
    fn lend<'w>(
        &'w mut self,
        world: &mut SplitWorld<'w, S>,
    ) -> (
        Target<'w, S>,
        &'w mut Vec<Entity>,
        &'w mut u32,
        u32,
        &'w mut Vec<Vec<B>>,
    ) {
        let target = match self.table {
            Some(id) => {
                let (rows, columns) = world.take_table(id).rows_mut();
                self.first_row = rows.len() as u32;
                Target::Table {
                    rows,
                    columns,
                    tags: &mut self.tags,
                }
            }
            None => Target::Staged(&mut self.staged),
        };
        (
            target,
            &mut self.spawned,
            &mut self.count,
            self.tick,
            &mut self.spare,
        )
    }
}

impl<S: Schema, B: Bundle<S> + Send> SystemParam<S> for Spawner<'_, S, B>
where
    S: SendSchema,
{
    type State = SpawnerState<S, B>;
    type Item<'w> = Spawner<'w, S, B>;
    const ACCESS: Access = Access {
        writes: B::BITS,
        // Exactly the bundle's table: what the schedule compares queries'
        // reaches with.
        required: B::BITS,
        excluded: all_components::<S>() & !S::SPARSE_BITS & !B::BITS,
        observes_entities: true,
        reserves: true,
        spawns: true,
        ..Access::NONE
    };
    const CHECK: () = {
        let () = B::CHECK;
        let unfit = B::BITS & (S::SPARSE_BITS | S::LIFECYCLE_BITS);
        if unfit != 0 {
            panic!("{}", S::SPAWNER_MESSAGES[unfit.trailing_zeros() as usize]);
        }
    };

    fn init() -> SpawnerState<S, B> {
        SpawnerState::default()
    }

    fn prepare(state: &mut SpawnerState<S, B>, world: &World<S>, window: ChangeWindow) {
        state.prepare(world, table_mask::<S, B>(), window);
    }

    fn fetch<'w>(
        state: &'w mut SpawnerState<S, B>,
        world: &mut SplitWorld<'w, S>,
    ) -> Self::Item<'w> {
        let entities = world.entities;
        let (target, spawned, _, tick, spare) = state.lend(world);
        Spawner {
            entities,
            target,
            spawned,
            tick,
            spare,
            bundle: PhantomData,
        }
    }

    fn apply_first(state: &mut SpawnerState<S, B>, world: &mut World<S>) {
        if state.spawned.is_empty() {
            return;
        }
        match state.table {
            Some(id) => {
                world.place_spawned(id, state.first_row, &state.spawned, &mut state.tags);
            }
            None => {
                let mask = table_mask::<S, B>();
                world.place_staged_spawns(mask, &state.spawned, &mut state.staged);
            }
        }
        state.spawned.clear();
    }

    fn discard(state: &mut SpawnerState<S, B>, world: &mut World<S>) {
        // The rows were pushed at once: they stand, alive.
        <Self as SystemParam<S>>::apply_first(state, world);
    }
}

/// The [`ChunkRecorder`] of a spawner type: a chunk keeps its bundles,
/// spawned through the spawner in chunk order when the loop is done.
macro_rules! chunk_spawns {
    ($(#[$doc:meta])* $spawner:ident) => {
        impl<S: Schema, B: Bundle<S>> Sealed for &mut $spawner<'_, S, B> {}

        $(#[$doc])*
        impl<S: Schema, B: Bundle<S> + Send> ChunkRecorder for &mut $spawner<'_, S, B> {
            type Chunk = ChunkSpawner<S, B>;

            fn chunk(&mut self) -> ChunkSpawner<S, B> {
                ChunkSpawner::new(self.spare.pop().unwrap_or_default())
            }

            fn append(&mut self, mut chunk: ChunkSpawner<S, B>) {
                for bundle in chunk.bundles.drain(..) {
                    self.spawn(bundle);
                }
                self.spare.push(chunk.bundles);
            }
        }
    };
}

chunk_spawns!(
    /// Spawns recorded in the chunks of a parallel loop
    /// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
    /// each chunk through a [`ChunkSpawner`]. Once the loop is done, they are
    /// spawned through the `Spawner` in iteration order: the ids, rows and
    /// values a sequential loop would give, on any number of threads. A chunk
    /// cannot tell the new ids (they depend on the chunks before it).
    Spawner
);

chunk_spawns!(
    /// Spawns recorded in the chunks of a parallel loop
    /// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
    /// each chunk through a [`ChunkSpawner`]; once the loop is done, they are
    /// spawned through the `UnnamedSpawner` in iteration order, as a
    /// sequential loop would.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::command::UnnamedSpawner;
    /// #[derive(Debug)] struct Pos(f32);
    /// #[derive(Debug)] struct Emitter(u32);
    /// #[derive(Debug)] struct Spark(f32);
    /// #[derive(Schema)] struct S { pos: Pos, emitter: Emitter, spark: Spark }
    ///
    /// fn emit(
    ///     mut emitters: Query<(&Pos, &mut Emitter)>,
    ///     mut sparks: UnnamedSpawner<S, (Pos, Spark)>,
    /// ) {
    ///     emitters.par_for_each_mut_with(&mut sparks, |sparks, (pos, emitter)| {
    ///         emitter.0 += 1;
    ///         for i in 0..emitter.0 % 3 {
    ///             sparks.spawn((Pos(pos.0), Spark(i as f32)));
    ///         }
    ///     });
    /// }
    ///
    /// let mut world = World::<S>::new();
    /// world.spawn_batch((0..3000).map(|i| (Pos(i as f32), Emitter(i))));
    /// let mut schedule = Schedule::<S>::new();
    /// schedule.add(emit);
    /// schedule.run(&mut world);
    /// assert_eq!(world.query::<&Spark>().count(), 3000);
    /// ```
    UnnamedSpawner
);

/// The [`Spawner`] or [`UnnamedSpawner`] of one chunk of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
/// it keeps the bundles, spawned once the loop is done, after those of the
/// chunks before it. So [`ChunkSpawner::spawn`] does not return the new
/// entity.
pub struct ChunkSpawner<S: Schema, B> {
    bundles: Vec<B>,
    schema: PhantomData<fn() -> S>,
}

impl<S: Schema, B> ChunkSpawner<S, B> {
    fn new(bundles: Vec<B>) -> Self {
        ChunkSpawner {
            bundles,
            schema: PhantomData,
        }
    }
}

impl<S: Schema, B: Bundle<S>> ChunkSpawner<S, B> {
    /// Records the spawn of an entity with the components of `bundle`.
    #[inline]
    pub fn spawn(&mut self, bundle: B) {
        self.bundles.push(bundle);
    }

    /// Number of spawns this chunk recorded so far.
    pub fn len(&self) -> usize {
        self.bundles.len()
    }

    /// Whether this chunk recorded no spawn yet.
    pub fn is_empty(&self) -> bool {
        self.bundles.is_empty()
    }
}

impl<S: Schema, B> fmt::Debug for ChunkSpawner<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkSpawner")
            .field("schema", &S::NAME)
            .field("bundle", &core::any::type_name::<B>())
            .field("recorded", &self.bundles.len())
            .finish()
    }
}

/// Every component bit of `S`.
const fn all_components<S: Schema>() -> u128 {
    let count = S::COMPONENT_NAMES.len();
    if count >= 128 {
        u128::MAX
    } else {
        (1u128 << count) - 1
    }
}

/// A system parameter that spawns entities with the components of bundle
/// `B` at once, as [`Spawner`] does, but whose ids are given when its run is
/// applied, in program order: [`UnnamedSpawner::spawn`] returns nothing.
/// In return, several of them (and other spawners before them) run in one
/// stage, since none reserves ids while it runs.
///
/// The rows go straight into the table of exactly `B`'s components while
/// the system runs; when its run is applied, after the entities reserved
/// by earlier spawners and by its own system's commands, each row gets the
/// next id, in the order it was spawned. The same rules as for
/// [`Spawner`] keep away what could see the new rows before then; a later
/// system that reserves ids waits for it.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::UnnamedSpawner;
/// #[derive(Debug, PartialEq)] struct Pos(i32);
/// #[derive(Debug, PartialEq)] struct Smoke(u32);
/// #[derive(Debug, PartialEq)] struct Spark(u32);
/// #[derive(Schema)] struct Game { pos: Pos, smoke: Smoke, spark: Spark }
///
/// fn smoke(mut spawner: UnnamedSpawner<Game, (Pos, Smoke)>) {
///     for i in 0..3 {
///         spawner.spawn((Pos(i), Smoke(1)));
///     }
/// }
/// fn sparks(mut spawner: UnnamedSpawner<Game, (Pos, Spark)>) {
///     spawner.spawn((Pos(0), Spark(1)));
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(smoke).add(sparks);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.query::<&Smoke>().count(), 6);
/// // Ids in program order: `smoke`'s three, then `sparks`'s one, each run.
/// let sparks: Vec<u32> = world
///     .query_filtered::<Entity, With<Spark>>()
///     .iter()
///     .map(|e| e.index())
///     .collect();
/// assert_eq!(sparks, [3, 7]);
/// assert!(schedule.describe().contains("stage 1: smoke, sparks"));
/// ```
pub struct UnnamedSpawner<'w, S: Schema, B: Bundle<S>> {
    target: Target<'w, S>,
    count: &'w mut u32,
    tick: u32,
    /// Buffers for the chunks of parallel loops, kept between runs.
    spare: &'w mut Vec<Vec<B>>,
    bundle: PhantomData<fn(B)>,
}

impl<S: Schema, B: Bundle<S>> UnnamedSpawner<'_, S, B> {
    /// Spawns an entity with the components of `bundle`, pushing its row at
    /// once; its id is given when the run is applied.
    ///
    /// # Panics
    ///
    /// When the run is applied, if the entity indices run out: the rows
    /// are then dropped, and the world is as it was.
    #[inline]
    pub fn spawn(&mut self, bundle: B) {
        // A placeholder, named when the run is applied.
        self.target
            .push::<B>(bundle, EntityIndex(u32::MAX), self.tick);
        *self.count += 1;
    }

    /// Number of entities spawned so far in this run.
    pub fn len(&self) -> usize {
        *self.count as usize
    }

    /// Whether none was spawned yet in this run.
    pub fn is_empty(&self) -> bool {
        *self.count == 0
    }
}

impl<S: Schema, B: Bundle<S>> fmt::Debug for UnnamedSpawner<'_, S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnnamedSpawner")
            .field("schema", &S::NAME)
            .field("bundle", &core::any::type_name::<B>())
            .field("spawned", &self.count)
            .finish()
    }
}

impl<S: Schema, B: Bundle<S> + Send> SystemParam<S> for UnnamedSpawner<'_, S, B>
where
    S: SendSchema,
{
    type State = SpawnerState<S, B>;
    type Item<'w> = UnnamedSpawner<'w, S, B>;
    const ACCESS: Access = Access {
        reserves: false,
        allocates: true,
        ..<Spawner<'_, S, B> as SystemParam<S>>::ACCESS
    };
    const CHECK: () = <Spawner<'_, S, B> as SystemParam<S>>::CHECK;

    fn init() -> SpawnerState<S, B> {
        SpawnerState::default()
    }

    fn prepare(state: &mut SpawnerState<S, B>, world: &World<S>, window: ChangeWindow) {
        state.prepare(world, table_mask::<S, B>(), window);
    }

    fn fetch<'w>(
        state: &'w mut SpawnerState<S, B>,
        world: &mut SplitWorld<'w, S>,
    ) -> Self::Item<'w> {
        let (target, _, count, tick, spare) = state.lend(world);
        UnnamedSpawner {
            target,
            count,
            tick,
            spare,
            bundle: PhantomData,
        }
    }

    fn apply_first(state: &mut SpawnerState<S, B>, world: &mut World<S>) {
        let count = core::mem::take(&mut state.count);
        if count == 0 {
            return;
        }
        match state.table {
            Some(id) => world.place_unnamed(id, state.first_row, count, &mut state.tags),
            None => world.spawn_staged_many(table_mask::<S, B>(), count, &mut state.staged),
        }
    }

    fn discard(state: &mut SpawnerState<S, B>, world: &mut World<S>) {
        // The rows were pushed at once: they stand, alive.
        <Self as SystemParam<S>>::apply_first(state, world);
    }
}
