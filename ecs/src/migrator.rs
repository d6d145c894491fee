//! [`Migrator`]: a system parameter that adds and removes one table
//! component on the entities of the tables a filter matches, while systems
//! that cannot reach those tables run.

use crate::bundle::Placement;
use crate::changes::ChangeWindow;
use crate::entity::{Entities, Entity, EntityLocation, NoSuchEntity};
use crate::layout::{Component, Migratable};
use crate::lend::{recycle, SplitWorld};
use crate::mask::{Mask, MaskBits};
use crate::query::{ChunkRecorder, QueryFilter, Sealed};
use crate::storage::{Bins, EntityIndex, Table, TableId, TableRow, Tables};
use crate::system::{Access, Message, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::SendSchema;
use crate::world_impl::World;
use core::cmp::Reverse;
use core::fmt;
use core::marker::PhantomData;
use std::sync::{Mutex, PoisonError};

/// A system parameter that adds and removes table component `C` on the
/// entities of the tables filter `F` matches: the paper's owned and deferred
/// *insert* and *delete* of a table component, run concurrently (Table 2;
/// see `docs/CONCURRENCY.md`).
///
/// Adding or removing a table component moves the entity's row to the table
/// of its new archetype. A `Migrator` records each change while its system
/// runs, checking at the call that the entity is alive and in its *reach*,
/// the tables `F` matches (`With<Fuel>`: every table with `Fuel`). Once the
/// system's stage has run, its moves are made among those tables, beside
/// the other migrators of the stage (each on its own tables, on the pool
/// when that pays); when its run is applied, in program order, the world
/// takes the entities' new locations. So the system's own queries walk rows
/// that stay put, and a move never leaves the reach (`C` is neither
/// required nor excluded by `F`).
///
/// The schedule keeps away from the system only the systems that can reach
/// those tables (a query, a spawner or another migrator whose entities may
/// be among them), which run after it is applied. Every other system runs
/// beside it, where commands would make every later query wait. The result
/// is the same on any number of threads, and equal to a sequential run.
///
/// Each entity ends as [`World::insert`](crate::world::World::insert) and
/// [`World::remove`](crate::world::World::remove), called in the order recorded,
/// would leave it (an insert over a value it has overwrites it in place).
/// The rows of a table land in an order of the moves' own: each table's
/// recorded rows are visited last first, which keeps the moves free of
/// location lookups. A change whose destination table did not exist when
/// the run was prepared (the first time an archetype is formed) is made
/// through the world when the run is applied.
///
/// The changes can also come from the chunks of a parallel loop over a
/// query of the system: see [`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with).
///
/// `C` must be a table component with no hooks, relation role or
/// requirements ([`Migratable`]; for a sparse one,
/// [`SparseMut`](crate::command::SparseMut) adds and removes at once). `F` names
/// table components only, through `With` and `Without` (no `Or`, `Added`,
/// `Changed` or sparse component), and not `C`. Two migrators of one system
/// must have disjoint reaches, and a [`Spawner`](crate::command::Spawner) of the same
/// system must not add rows in its reach. These are compile errors in
/// `cargo build`, as the other checks of a system's parameters. A tracked
/// `C` keeps its change detection: an insert is stamped with the system's
/// tick (an addition, or a change over an old value), and a removal is
/// logged for [`Removed`](crate::change::Removed) when the run is applied.
///
/// The schedule can only tell reaches apart by components one requires and
/// the other excludes: `With<Red>` and `With<Blue>` may meet (an entity can
/// have both), `With<Red>` and `(With<Blue>, Without<Red>)` cannot.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::Migrator;
/// #[derive(Debug)] struct Pos(i32);
/// #[derive(Debug)] struct Fuel(u32);
/// #[derive(Debug, PartialEq)] struct Burning(u32);
/// #[derive(Debug)] struct Star;
/// #[derive(Schema)]
/// struct Game { pos: Pos, fuel: Fuel, burning: Burning, star: Star }
///
/// // Sets alight what has fuel and puts out what ran dry: owned insert
/// // and delete of `Burning`, a table component, among the tables with
/// // `Fuel`.
/// fn ignite(
///     fuel: Query<(Entity, &Fuel, Has<Burning>)>,
///     mut burning: Migrator<Game, Burning, With<Fuel>>,
/// ) {
///     for (entity, fuel, lit) in fuel.iter() {
///         if fuel.0 > 0 && !lit {
///             burning.insert(entity, Burning(fuel.0)).unwrap();
///         } else if fuel.0 == 0 && lit {
///             burning.remove(entity).unwrap();
///         }
///     }
/// }
/// // Reaches only tables without `Fuel`: runs beside `ignite`.
/// fn twinkle(mut stars: Query<&mut Pos, (With<Star>, Without<Fuel>)>) {
///     stars.for_each_mut(|pos| pos.0 += 1);
/// }
///
/// let mut world = World::<Game>::new();
/// let log = world.spawn((Pos(0), Fuel(30)));
/// let ash = world.spawn((Pos(0), Fuel(0), Burning(1)));
/// world.spawn((Pos(0), Star));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(ignite).add(twinkle);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Burning>(log), Some(&Burning(30)));
/// assert!(!world.has::<Burning>(ash));
/// // One stage: the two run side by side.
/// assert!(schedule.describe().contains("stage 1: ignite, twinkle"));
/// ```
pub struct Migrator<'w, S: Schema, C: Migratable<S>, F: QueryFilter<S> = ()> {
    entities: &'w Entities,
    /// Per table id: its routes, if `F` matches it.
    routes: &'w [Option<Route>],
    recorded: &'w mut Vec<Recorded<C>>,
    /// Buffers for the chunks of parallel loops, kept between runs.
    spare: &'w mut Vec<Vec<Recorded<C>>>,
    filter: PhantomData<fn() -> (S, F)>,
}

/// Where an entity of one table in reach goes: to `with` when it gains `C`,
/// to `without` when it loses it (the table itself when it has or lacks
/// `C` already; [`TableId::UNKNOWN`] for a table not made yet); and where
/// `C`'s column is or would go among the table's ([`Table::column_of`]),
/// which the moves split the columns at.
#[derive(Clone, Copy, Debug)]
struct Route {
    with: TableId,
    without: TableId,
    column: usize,
}

/// One change a [`Migrator`] recorded: where the entity was (its table and
/// row, which nothing changes until the moves), the value to insert
/// (`None`: a removal), and room for the order of the call, which is its
/// place in the list of changes and is written there only when the list
/// must be sorted.
struct Recorded<C> {
    table: u32,
    row: u32,
    seq: u32,
    entity: Entity,
    value: Option<C>,
}

/// Why a [`Migrator`] refused a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MigrateError {
    /// The entity is not alive: despawned, not spawned yet (its commands
    /// are not applied), or a stale handle.
    NoSuchEntity(Entity),
    /// The entity is alive but outside the migrator's reach: its filter
    /// does not match the entity's table.
    OutOfReach(Entity),
}

impl fmt::Display for MigrateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MigrateError::NoSuchEntity(entity) => write!(
                f,
                "entity {entity} does not exist (it was despawned, is not spawned yet, or the \
                 handle is stale)"
            ),
            MigrateError::OutOfReach(entity) => write!(
                f,
                "entity {entity} is outside the migrator's reach: its filter does not match the \
                 entity's components; widen the filter, or record the change with `Commands`"
            ),
        }
    }
}

impl std::error::Error for MigrateError {}

impl From<NoSuchEntity> for MigrateError {
    fn from(NoSuchEntity(entity): NoSuchEntity) -> Self {
        MigrateError::NoSuchEntity(entity)
    }
}

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> Migrator<'_, S, C, F> {
    /// Gives `entity` the value `value` of `C` once the system's stage has
    /// run, as [`World::insert`](crate::world::World::insert) would (over a value
    /// it has, in place). The system's queries see no change before then.
    ///
    /// # Errors
    ///
    /// [`MigrateError::NoSuchEntity`] if `entity` is not alive, and
    /// [`MigrateError::OutOfReach`] if the migrator's filter does not match
    /// it; then nothing is recorded (`value` is dropped).
    #[inline]
    pub fn insert(&mut self, entity: Entity, value: C) -> Result<(), MigrateError> {
        record(
            self.entities,
            self.routes,
            self.recorded,
            entity,
            Some(value),
        )
    }

    /// Removes `entity`'s `C` once the system's stage has run, if it has one
    /// then, as [`World::remove`](crate::world::World::remove) would (the value is
    /// dropped).
    ///
    /// # Errors
    ///
    /// [`MigrateError::NoSuchEntity`] if `entity` is not alive, and
    /// [`MigrateError::OutOfReach`] if the migrator's filter does not match
    /// it; then nothing is recorded.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Result<(), MigrateError> {
        record(self.entities, self.routes, self.recorded, entity, None)
    }

    /// Number of changes recorded so far in this run.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether no change was recorded yet in this run.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> fmt::Debug for Migrator<'_, S, C, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug::<S, C, F>("Migrator", self.recorded.len(), f)
    }
}

/// Records a change of `entity` (`None`: a removal) in `recorded` if it is
/// alive and in reach (`routes`, by table id).
#[inline]
fn record<C>(
    entities: &Entities,
    routes: &[Option<Route>],
    recorded: &mut Vec<Recorded<C>>,
    entity: Entity,
    value: Option<C>,
) -> Result<(), MigrateError> {
    let location = entities
        .location(entity)
        .ok_or(MigrateError::NoSuchEntity(entity))?;
    let Some(Some(_)) = routes.get(location.table.index()) else {
        return Err(MigrateError::OutOfReach(entity));
    };
    recorded.push(Recorded {
        table: location.table.0,
        row: location.row.0,
        seq: 0,
        entity,
        value,
    });
    Ok(())
}

/// `Debug` of a migrator (`name`) of `C` with filter `F` that recorded
/// `recorded` changes.
fn debug<S: Schema, C, F>(name: &str, recorded: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.debug_struct(name)
        .field("schema", &S::NAME)
        .field("component", &core::any::type_name::<C>())
        .field("filter", &core::any::type_name::<F>())
        .field("recorded", &recorded)
        .finish()
}

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> Sealed for &mut Migrator<'_, S, C, F> {}

/// A migrator's changes recorded in the chunks of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
/// each chunk through a [`ChunkMigrator`]: the paper's `conc(s)` with owned
/// insert and delete. The chunks' changes follow the migrator's in
/// iteration order, and are made as its other changes are, after the
/// system's stage.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::Migrator;
/// #[derive(Debug)] struct Heat(u32);
/// #[derive(Debug, PartialEq)] struct Molten(u32);
/// #[derive(Schema)] struct S { heat: Heat, molten: Molten }
///
/// fn melt(mut bodies: Query<(Entity, &mut Heat)>, mut molten: Migrator<S, Molten>) {
///     bodies.par_for_each_mut_with(&mut molten, |molten, (entity, heat)| {
///         heat.0 += 1;
///         if heat.0 == 100 {
///             molten.insert(entity, Molten(heat.0)).unwrap();
///         }
///     });
/// }
///
/// let mut world = World::<S>::new();
/// world.spawn_batch((0..5000).map(|i| (Heat(i % 100),)));
/// let mut schedule = Schedule::<S>::new();
/// schedule.add(melt);
/// schedule.run(&mut world);
/// assert_eq!(world.query::<&Molten>().count(), 50);
/// ```
impl<'w, S, C, F> ChunkRecorder for &mut Migrator<'w, S, C, F>
where
    S: Schema,
    C: Migratable<S> + Send,
    F: QueryFilter<S>,
{
    type Chunk = ChunkMigrator<'w, S, C, F>;

    fn chunk(&mut self) -> ChunkMigrator<'w, S, C, F> {
        ChunkMigrator {
            entities: self.entities,
            routes: self.routes,
            recorded: self.spare.pop().unwrap_or_default(),
            filter: PhantomData,
        }
    }

    fn append(&mut self, mut chunk: ChunkMigrator<'w, S, C, F>) {
        self.recorded.append(&mut chunk.recorded);
        self.spare.push(chunk.recorded);
    }
}

/// The [`Migrator`] of one chunk of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
/// the same methods, checks and errors. Its changes follow those of the
/// chunks before it.
pub struct ChunkMigrator<'w, S: Schema, C: Migratable<S>, F: QueryFilter<S> = ()> {
    entities: &'w Entities,
    routes: &'w [Option<Route>],
    recorded: Vec<Recorded<C>>,
    filter: PhantomData<fn() -> (S, F)>,
}

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> ChunkMigrator<'_, S, C, F> {
    /// [`Migrator::insert`], from this chunk.
    ///
    /// # Errors
    ///
    /// As [`Migrator::insert`]: the entity is not alive or out of reach.
    #[inline]
    pub fn insert(&mut self, entity: Entity, value: C) -> Result<(), MigrateError> {
        record(
            self.entities,
            self.routes,
            &mut self.recorded,
            entity,
            Some(value),
        )
    }

    /// [`Migrator::remove`], from this chunk.
    ///
    /// # Errors
    ///
    /// As [`Migrator::remove`]: the entity is not alive or out of reach.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Result<(), MigrateError> {
        record(self.entities, self.routes, &mut self.recorded, entity, None)
    }

    /// Number of changes this chunk recorded so far.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether this chunk recorded no change yet.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> fmt::Debug for ChunkMigrator<'_, S, C, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug::<S, C, F>("ChunkMigrator", self.recorded.len(), f)
    }
}

/// What a [`Migrator`] keeps between runs: the routes of the tables in its
/// reach, the changes of the current run, and what its moves left for the
/// world to settle when the run is applied (all empty once it is).
#[doc(hidden)]
pub struct MigratorState<S: Schema, C> {
    /// The history of tables `routes` describes (see `Tables::layout`).
    layout: u64,
    routes: Vec<Option<Route>>,
    tick: u32,
    recorded: Vec<Recorded<C>>,
    /// The buffers of the chunks of parallel loops, kept between runs.
    spare: Vec<Vec<Recorded<C>>>,
    /// The new location of each entity moved or displaced, in order.
    locations: Vec<(EntityIndex, EntityLocation)>,
    /// Tag values placed, and values overwritten or removed (dropped once
    /// the world is consistent).
    bins: Bins<S>,
    /// Values of tag `C` removed, taken from the world's bag when applied.
    dropped_tags: u32,
    /// Entities that lost a tracked `C`, logged when applied.
    removed: Vec<Entity>,
    /// Changes whose destination table did not exist when the run was
    /// prepared, made through the world when it is applied.
    cold: Vec<(Entity, Option<C>)>,
    /// The memory of the list of tables the moves borrow, of their
    /// headers while the moves run, and of the list of those.
    lent: Vec<Option<&'static mut Table<S>>>,
    headers: Vec<Table<S>>,
    view: Vec<Option<&'static mut Table<S>>>,
}

impl<S: Schema, C> MigratorState<S, C> {
    /// Brings the routes up to date with the world's tables.
    fn route(&mut self, tables: &Tables<S>, bit: u32, reach: impl Fn(S::Mask) -> bool) {
        if self.layout != tables.layout() {
            self.layout = tables.layout();
            self.routes.clear();
        }
        let known = self.routes.len();
        for table in &tables.as_slice()[known..] {
            self.routes.push(reach(table.mask()).then_some(Route {
                with: TableId::UNKNOWN,
                without: TableId::UNKNOWN,
                column: table.column_of(bit),
            }));
        }
        // Tables made since the last run may be the destinations of older
        // ones (a lookup per table in reach whose route is not known yet).
        for (id, route) in self.routes.iter_mut().enumerate() {
            let Some(route) = route else { continue };
            let mask = tables.get(TableId(id as u32)).mask();
            if route.with == TableId::UNKNOWN {
                route.with = tables.find(mask.with(bit)).unwrap_or(TableId::UNKNOWN);
            }
            if route.without == TableId::UNKNOWN {
                route.without = tables.find(mask.without(bit)).unwrap_or(TableId::UNKNOWN);
            }
        }
    }

    /// Makes the recorded changes on `tables` (each table in reach, by id),
    /// in the order of their entities' rows, last row first: then no move
    /// displaces a row still to be visited, and each entity is where it was
    /// recorded. An entity's own changes are made in the order recorded.
    fn make_moves(&mut self, tables: &mut [Option<&mut Table<S>>], bit: u32)
    where
        C: Component<S>,
    {
        let mut recorded = core::mem::take(&mut self.recorded);
        // The current entity's place, as its changes move it, and whether
        // the rest of its changes wait for the world (a table not made yet).
        let mut current = None;
        // Recorded while walking a query, the changes come in ascending
        // rows, one per entity: then they are visited backwards (the
        // tables' order does not matter, only each table's rows, last
        // first).
        let place = |change: &Recorded<C>| (change.table, change.row);
        if recorded
            .windows(2)
            .all(|pair| place(&pair[0]) < place(&pair[1]))
        {
            for change in recorded.drain(..).rev() {
                self.make_move(change, tables, bit, &mut current);
            }
        } else {
            // An entity's own changes keep the order of the calls.
            for (seq, change) in (0..).zip(&mut recorded) {
                change.seq = seq;
            }
            recorded.sort_unstable_by_key(|change| (change.table, Reverse(change.row), change.seq));
            for change in recorded.drain(..) {
                self.make_move(change, tables, bit, &mut current);
            }
        }
        self.recorded = recorded;
    }

    /// Makes one recorded change; `current` is the place of the entity of
    /// the change before, if it has not moved on to another entity.
    #[inline(always)]
    fn make_move(
        &mut self,
        change: Recorded<C>,
        tables: &mut [Option<&mut Table<S>>],
        bit: u32,
        current: &mut Option<(Entity, TableId, TableRow, bool)>,
    ) where
        C: Component<S>,
    {
        let tick = self.tick;
        let tracked = S::TRACKED_BITS & (1 << bit) != 0;
        let data = S::Mask::DATA.has(bit);
        let (table, row, cold) = match *current {
            Some((entity, table, row, cold)) if entity == change.entity => (table, row, cold),
            _ => {
                let (table, row) = (TableId(change.table), TableRow(change.row));
                let here = tables[table.index()].as_deref().map(Table::entities);
                assert_eq!(
                    here.and_then(|entities| entities.get(row.index()).copied()),
                    Some(EntityIndex::from(change.entity)),
                    "{MISPLACED}"
                );
                (table, row, false)
            }
        };
        let entity = change.entity;
        if cold {
            self.cold.push((entity, change.value));
            return;
        }
        let present = tables[table.index()]
            .as_deref()
            .is_some_and(|source| source.mask().has(bit));
        let route = self.routes[table.index()].expect("a table in reach has a route");
        let destination = match (&change.value, present) {
            (Some(_), false) => route.with,
            (None, true) => route.without,
            // An overwrite in place, or the removal of nothing.
            _ => table,
        };
        if destination == TableId::UNKNOWN {
            self.cold.push((entity, change.value));
            *current = Some((entity, table, row, true));
            return;
        }
        if destination == table {
            if let Some(value) = change.value {
                let source = tables[table.index()].as_deref_mut().expect("lent");
                let mask = source.mask();
                Placement::at(source, row, mask, &mut self.bins, tick).put::<C>(value);
            }
            *current = Some((entity, table, row, false));
            return;
        }
        let [Some(source), Some(target)] = tables
            .get_disjoint_mut([table.index(), destination.index()])
            .expect("two tables in reach")
        else {
            panic!("{MISPLACED}")
        };
        let moved = source.move_entity(row, target);
        if let Some(swapped) = moved.swapped {
            self.locations
                .push((swapped, EntityLocation { table, row }));
        }
        self.locations.push((
            entity.into(),
            EntityLocation {
                table: destination,
                row: moved.row,
            },
        ));
        match change.value {
            Some(value) => {
                let added = source.move_columns_adding_at(row, target, route.column);
                Placement {
                    columns: added,
                    mask: S::Mask::bit(bit),
                    previous: S::Mask::EMPTY,
                    row: moved.row.index(),
                    entity: entity.into(),
                    bins: &mut self.bins,
                    tick,
                }
                .put::<C>(value);
                if S::TRACKED_BITS & target.mask().bits().to_u128() != 0 {
                    target.sync_ticks(tick);
                }
            }
            None => {
                let removed = source.move_columns_removing_at(row, target, route.column);
                if data {
                    let value = Placement {
                        columns: removed,
                        mask: S::Mask::bit(bit),
                        previous: S::Mask::bit(bit),
                        row: row.index(),
                        entity: entity.into(),
                        bins: &mut self.bins,
                        tick,
                    }
                    .take::<C>();
                    self.bins.discard(value);
                } else {
                    // The world's bag gives one up when applied.
                    self.dropped_tags += 1;
                }
                if tracked {
                    self.removed.push(entity);
                }
            }
        }
        *current = Some((entity, destination, moved.row, false));
    }

    /// Hands the world what the moves left: the new locations, the tag
    /// values, the removal log; then makes the changes left for it.
    fn settle(&mut self, world: &mut World<S>, bit: u32)
    where
        C: Component<S>,
    {
        world.settle_moves(&self.locations, &mut self.bins, (bit, self.dropped_tags));
        self.locations.clear();
        self.dropped_tags = 0;
        if !self.removed.is_empty() {
            world.log_removals(bit, &self.removed);
            self.removed.clear();
        }
    }
}

/// The tables a migrator took, whose headers sit in `local` (in the order
/// of their ids) while the moves run; put back when dropped, also when a
/// move panics, so that the world never keeps the empty shells.
struct Headers<'a, 'w, S: Schema> {
    tables: &'a mut [Option<&'w mut Table<S>>],
    local: Vec<Table<S>>,
}

impl<S: Schema> Headers<'_, '_, S> {
    /// Puts the headers back and returns the emptied buffer.
    fn put_back(mut self) -> Vec<Table<S>> {
        self.restore();
        core::mem::take(&mut self.local)
    }

    fn restore(&mut self) {
        let headers = self.local.drain(..);
        for (table, header) in self.tables.iter_mut().flatten().zip(headers) {
            table.attach(header);
        }
    }
}

impl<S: Schema> Drop for Headers<'_, '_, S> {
    fn drop(&mut self) {
        self.restore();
    }
}

/// The panic message of a broken invariant of the moves.
const MISPLACED: &str = "schemecs internal error: an entity a `Migrator` recorded is not where it \
                         was when recorded; the schedule's plan should have kept every other \
                         system away from its tables";

impl<S, C, F> SystemParam<S> for Migrator<'_, S, C, F>
where
    S: SendSchema,
    C: Migratable<S> + Send,
    F: QueryFilter<S>,
{
    type State = MigratorState<S, C>;
    type Item<'w> = Migrator<'w, S, C, F>;
    const ACCESS: Access = Access {
        // Its reach: the rows it moves stay in the tables `F` matches.
        required: F::REQUIRED,
        excluded: F::EXCLUDED,
        moves: true,
        removals_logged: S::TRACKED_BITS & (1 << C::BIT),
        observes_entities: true,
        ..Access::NONE
    };
    const CHECK: () = {
        let component = S::COMPONENT_NAMES[C::BIT as usize];
        let named = F::REQUIRED | F::EXCLUDED;
        let why = if named & (1 << C::BIT) != 0 {
            Some(
                "` names the component it adds and removes, so a move would take the entity out \
                 of the tables it reaches; filter on the other components (`With<T>`, \
                 `Without<T>`), or use `()` to reach every table",
            )
        } else if named & S::SPARSE_BITS != 0 {
            Some(
                "` names a sparse component, which says nothing of an entity's table; filter on \
                 table components only (`With<T>`, `Without<T>`)",
            )
        } else if const { F::READS != 0 || F::ROWS } {
            Some(
                "` selects entities by change ticks (`Added`, `Changed`), but a migrator's reach \
                 is a set of tables; filter with `With<T>` and `Without<T>`, and test the ticks \
                 in a query of the system",
            )
        } else if F::CONDITIONS.len() != 1 {
            Some(
                "` is not one `With`/`Without` condition (an `Or`, or a filter no table can \
                 match); a migrator's reach is the tables with all its `With` components and \
                 none of its `Without` ones",
            )
        } else {
            None
        };
        if let Some(why) = why {
            let message = Message::new(&[
                "the filter of `Migrator<",
                S::NAME,
                ", ",
                component,
                ", F>` in schema `",
                S::NAME,
                why,
            ]);
            panic!("{}", message.as_str());
        }
    };

    fn init() -> MigratorState<S, C> {
        MigratorState {
            layout: 0,
            routes: Vec::new(),
            tick: 0,
            recorded: Vec::new(),
            spare: Vec::new(),
            locations: Vec::new(),
            bins: Bins::default(),
            dropped_tags: 0,
            removed: Vec::new(),
            cold: Vec::new(),
            lent: Vec::new(),
            headers: Vec::new(),
            view: Vec::new(),
        }
    }

    fn prepare(state: &mut MigratorState<S, C>, world: &World<S>, window: ChangeWindow) {
        state.tick = window.this_run;
        state.route(world.tables(), C::BIT, |mask| {
            F::CONDITIONS.admits(mask.bits().to_u128())
        });
    }

    fn fetch<'w>(
        state: &'w mut MigratorState<S, C>,
        world: &mut SplitWorld<'w, S>,
    ) -> Self::Item<'w> {
        Migrator {
            entities: world.entities,
            routes: &state.routes,
            recorded: &mut state.recorded,
            spare: &mut state.spare,
            filter: PhantomData,
        }
    }

    fn migrate<'w>(state: &'w mut MigratorState<S, C>, world: &Mutex<SplitWorld<'w, S>>) {
        if state.recorded.is_empty() {
            return;
        }
        // Every table a change can touch: each entity's own, and the two
        // its routes lead to (and back: a table's routes lead to each other).
        let mut tables: Vec<Option<&'w mut Table<S>>> = recycle(core::mem::take(&mut state.lent));
        tables.resize_with(state.routes.len(), || None);
        {
            let mut world = world.lock().unwrap_or_else(PoisonError::into_inner);
            let mut last = None;
            for change in &state.recorded {
                // Runs of changes in one table are the rule.
                if last == Some(change.table) {
                    continue;
                }
                last = Some(change.table);
                let route = state.routes[change.table as usize].expect("recorded in reach");
                for id in [TableId(change.table), route.with, route.without] {
                    if id != TableId::UNKNOWN && tables[id.index()].is_none() {
                        tables[id.index()] = Some(world.take_table(id));
                    }
                }
            }
        }
        // The tables' headers (row counts, column lengths) move into memory
        // this thread allocates while the moves run, and back after: the
        // world keeps its tables side by side, and the columns of tables
        // made one after another in neighbouring allocations, so threads
        // writing the headers of neighbouring tables at every move would
        // share cache lines (which made each take twice as long).
        let mut headers = Headers {
            tables: &mut tables,
            local: core::mem::take(&mut state.headers),
        };
        for table in headers.tables.iter_mut().flatten() {
            let contents = table.detach();
            headers.local.push(contents);
        }
        let mut view: Vec<Option<&mut Table<S>>> = recycle(core::mem::take(&mut state.view));
        let mut local = headers.local.iter_mut();
        view.extend(
            headers
                .tables
                .iter()
                .map(|table| table.as_ref().and_then(|_| local.next())),
        );
        state.make_moves(&mut view, C::BIT);
        state.view = recycle(view);
        state.headers = headers.put_back();
        state.lent = recycle(tables);
    }

    fn apply(state: &mut MigratorState<S, C>, world: &mut World<S>) {
        state.settle(world, C::BIT);
        // Checked alive and in reach when recorded: only the system's own
        // commands, applied before this parameter, can have despawned it
        // since; then, as a command, it does nothing.
        for (entity, value) in state.cold.drain(..) {
            match value {
                Some(value) => {
                    let _ = world.insert(entity, (value,));
                }
                None => {
                    let _ = world.remove::<C>(entity);
                }
            }
        }
    }

    fn discard(state: &mut MigratorState<S, C>, world: &mut World<S>) {
        // The moves made stand; what was left for later is dropped.
        state.settle(world, C::BIT);
        state.recorded.clear();
        state.cold.clear();
    }
}
