//! [`Migrator`]: a system parameter that adds and removes one table
//! component on the entities of the tables a filter matches, while systems
//! that cannot reach those tables run.

use crate::change::ChangeWindow;
use crate::entity::{Entities, Entity};
use crate::lend::SplitWorld;
use crate::mask::{Mask, MaskBits};
use crate::query::QueryFilter;
use crate::schema::{Migratable, Schema};
use crate::system::{Access, Message, SystemParam};
use crate::world::World;
use core::fmt;
use core::marker::PhantomData;

/// A system parameter that adds and removes table component `C` on the
/// entities of the tables filter `F` matches: the paper's owned and deferred
/// *insert* and *delete* of a table component, run concurrently (Table 2;
/// see `docs/CONCURRENCY.md`).
///
/// Adding or removing a table component moves the entity's row to the table
/// of its new archetype. A `Migrator` records each change while its system
/// runs, checking at the call that the entity is alive and in its reach, and
/// makes the moves, in the order recorded, when the run is applied, in
/// program order: after the system, like [`Commands`](crate::Commands), so
/// the system's own queries walk rows that stay put. What sets it apart from
/// commands is its *reach*, the tables `F` matches (`With<Fuel>`: every
/// table with `Fuel`). The moves never leave it (`C` is neither required
/// nor excluded by `F`), so the schedule keeps away from the system only the
/// systems that can reach those tables (a query, a spawner or another
/// migrator whose entities may be among them), which run after it is
/// applied. Every other system runs beside it, where commands would make
/// every later query wait. The result is that of running the systems in
/// program order, on any number of threads.
///
/// `C` must be a table component with no hooks, relation role or
/// requirements ([`Migratable`]; for a sparse one, [`SparseMut`](crate::SparseMut)
/// adds and removes at once). `F` names table components only, through
/// `With` and `Without` (no `Or`, `Added`, `Changed` or sparse component),
/// and not `C`: compile errors in `cargo build`, as the other checks of a
/// system's parameters. A tracked `C` keeps its change detection: an
/// insert is stamped with the system's tick, and a removal is logged for
/// [`Removed`](crate::Removed) when the run is applied.
///
/// ```
/// use schemecs::prelude::*;
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
    /// Per table id: whether `F` matches it.
    reach: &'w [bool],
    moves: &'w mut Vec<Move<C>>,
    filter: PhantomData<fn() -> (S, F)>,
}

/// One change a [`Migrator`] recorded.
enum Move<C> {
    Insert(Entity, C),
    Remove(Entity),
}

/// Why a [`Migrator`] refused a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> Migrator<'_, S, C, F> {
    /// Whether `entity` is alive and in reach.
    #[inline]
    fn check(&self, entity: Entity) -> Result<(), MigrateError> {
        let location = self
            .entities
            .location(entity)
            .ok_or(MigrateError::NoSuchEntity(entity))?;
        match self.reach.get(location.table.index()) {
            Some(true) => Ok(()),
            _ => Err(MigrateError::OutOfReach(entity)),
        }
    }

    /// Gives `entity` the value `value` of `C` when the run is applied, as
    /// [`World::insert`](crate::World::insert) would then (over a value it
    /// has, in place). `Err` if the entity is not alive or out of reach;
    /// then nothing is recorded (`value` is dropped).
    #[inline]
    pub fn insert(&mut self, entity: Entity, value: C) -> Result<(), MigrateError> {
        self.check(entity)?;
        self.moves.push(Move::Insert(entity, value));
        Ok(())
    }

    /// Removes `entity`'s `C`, if it has one when the run is applied, as
    /// [`World::remove`](crate::World::remove) would then (the value is
    /// dropped). `Err` if the entity is not alive or out of reach; then
    /// nothing is recorded.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Result<(), MigrateError> {
        self.check(entity)?;
        self.moves.push(Move::Remove(entity));
        Ok(())
    }

    /// Number of changes recorded so far in this run.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether no change was recorded yet in this run.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

impl<S: Schema, C: Migratable<S>, F: QueryFilter<S>> fmt::Debug for Migrator<'_, S, C, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Migrator")
            .field("schema", &S::NAME)
            .field("component", &core::any::type_name::<C>())
            .field("filter", &core::any::type_name::<F>())
            .field("recorded", &self.moves.len())
            .finish()
    }
}

/// What a [`Migrator`] keeps between runs: which tables its filter matches
/// (one flag per table id, extended as tables are made) and the changes of
/// the current run, empty once it is applied.
#[doc(hidden)]
pub struct MigratorState<C> {
    /// The history of tables `reach` describes (see `Tables::layout`).
    layout: u64,
    reach: Vec<bool>,
    moves: Vec<Move<C>>,
}

impl<S, C, F> SystemParam<S> for Migrator<'_, S, C, F>
where
    S: Schema,
    C: Migratable<S> + Send,
    F: QueryFilter<S>,
{
    type State = MigratorState<C>;
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
        } else if F::READS != 0 || F::ROWS {
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

    fn init() -> MigratorState<C> {
        MigratorState {
            layout: 0,
            reach: Vec::new(),
            moves: Vec::new(),
        }
    }

    fn prepare(state: &mut MigratorState<C>, world: &World<S>, _: ChangeWindow) {
        let tables = world.tables();
        if state.layout != tables.layout() {
            state.layout = tables.layout();
            state.reach.clear();
        }
        let known = state.reach.len();
        let new = tables.as_slice()[known..].iter();
        state
            .reach
            .extend(new.map(|table| F::CONDITIONS.admits(table.mask().bits().to_u128())));
    }

    fn fetch<'w>(state: &'w mut MigratorState<C>, world: &mut SplitWorld<'w, S>) -> Self::Item<'w> {
        Migrator {
            entities: world.entities,
            reach: &state.reach,
            moves: &mut state.moves,
            filter: PhantomData,
        }
    }

    fn apply(state: &mut MigratorState<C>, world: &mut World<S>) {
        for change in state.moves.drain(..) {
            // Checked alive and in reach when recorded: only the system's
            // own commands, applied before this parameter, can have
            // despawned it since; then, as a command, it does nothing.
            let _ = match change {
                Move::Insert(entity, value) => world.insert(entity, (value,)),
                Move::Remove(entity) => world.remove::<C>(entity).map(drop),
            };
        }
    }

    fn discard(state: &mut MigratorState<C>, _: &mut World<S>) {
        state.moves.clear();
    }
}
