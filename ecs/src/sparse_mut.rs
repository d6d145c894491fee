//! [`SparseMut`]: a system parameter that inserts and removes one sparse
//! component at once, while other systems run.

use crate::changes::ChangeWindow;
use crate::entity::{Entities, Entity, NoSuchEntity};
use crate::layout::SparseMutable;
use crate::lend::SplitWorld;
use crate::query::{ChunkRecorder, Sealed};
use crate::storage::{sparse_position, Column, EntityIndex, SparseIndex};
use crate::system::{Access, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::World;
use core::fmt;
use core::marker::PhantomData;

/// A system parameter that inserts, removes, reads and writes sparse
/// component `C` on any live entity, **at once** (not deferred like
/// [`Commands`](crate::command::Commands)), while systems that do not touch `C` run
/// at the same time.
///
/// `C` must be `#[ecs(sparse)]` with no hooks, relation role or
/// requirements ([`SparseMutable`]): its values live in one sparse set of
/// their own, so inserting or removing one moves no row and touches nothing
/// else. The system holds that whole set. The schedule counts it as a write
/// of `C` for every entity: no other system that reads or writes `C` (a
/// query with `&C`, `Has<C>`, `With<C>`, `Changed<C>`, ...) shares its stage,
/// and it runs after the commands of every earlier system are applied (it
/// sees which entities are alive). These are the paper's owned and deferred
/// *insert*, *delete* and *update* of a sparse component, run concurrently
/// (Table 2; see `docs/CONCURRENCY.md`), with a result equal to running the
/// systems in program order on any number of threads.
///
/// A tracked `C` keeps its change detection: an insert is an addition (or
/// a change, over an old value), [`SparseMut::get_mut`] a change, and each
/// removal is logged for [`Removed`](crate::change::Removed) when the system's run
/// is applied, in program order, before any later reader of the log runs.
///
/// Entities spawned by [`Commands`](crate::command::Commands) become alive once
/// those commands are applied, after the system: before that, an insert on
/// one returns `Err(NoSuchEntity)`, as in a sequential run.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::SparseMut;
/// #[derive(Debug)] struct Pos(i32);
/// #[derive(Debug)] struct Heat(u32);
/// #[derive(Debug, PartialEq)] struct Burning(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, heat: Heat, #[ecs(sparse)] burning: Burning }
///
/// // Sets alight what is hot and puts out what cooled: owned insert and
/// // delete, applied at once.
/// fn ignite(hot: Query<(Entity, &Heat)>, mut burning: SparseMut<Game, Burning>) {
///     for (entity, heat) in hot.iter() {
///         if heat.0 > 100 {
///             burning.insert(entity, Burning(heat.0)).unwrap();
///         } else {
///             burning.remove(entity).unwrap();
///         }
///     }
/// }
/// // Touches neither `Heat` nor `Burning`: runs beside `ignite`.
/// fn drift(mut bodies: Query<&mut Pos>) {
///     bodies.for_each_mut(|pos| pos.0 += 1);
/// }
///
/// let mut world = World::<Game>::new();
/// let hot = world.spawn((Pos(0), Heat(300)));
/// let cold = world.spawn((Pos(0), Heat(20), Burning(5)));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(ignite).add(drift);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Burning>(hot), Some(&Burning(300)));
/// assert!(!world.has::<Burning>(cold));
/// // One stage: the two run side by side.
/// assert!(schedule.describe().contains("stage 1: ignite, drift"));
/// ```
pub struct SparseMut<'w, S: Schema, C: SparseMutable<S>> {
    entities: &'w Entities,
    values: &'w mut S::Column,
    index: &'w mut SparseIndex,
    /// The tick the system's writes are stamped with.
    tick: u32,
    /// The entities that lost a tracked `C`, logged when the run is applied.
    removed: &'w mut Vec<Entity>,
    /// Buffers for the chunks of parallel loops, kept between runs.
    spare: &'w mut Vec<Vec<(Entity, Option<C>)>>,
    component: PhantomData<fn() -> C>,
}

impl<S: Schema, C: SparseMutable<S>> SparseMut<'_, S, C> {
    const TRACKED: bool = S::TRACKED_BITS & (1u128 << C::BIT) != 0;

    /// `entity`'s slot in the set if it is alive: `Ok(None)` if it has no
    /// `C`.
    #[inline]
    fn slot(&self, entity: Entity) -> Result<Option<usize>, NoSuchEntity> {
        if self.entities.location(entity).is_none() {
            return Err(NoSuchEntity(entity));
        }
        Ok(self.index.slot(EntityIndex::from(entity)))
    }

    /// Gives `entity` the value `value` of `C`, as
    /// [`World::insert`](crate::world::World::insert) would: returns the value it
    /// replaces, if the entity had one.
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive; then nothing changes
    /// (`value` is dropped).
    #[inline]
    pub fn insert(&mut self, entity: Entity, value: C) -> Result<Option<C>, NoSuchEntity> {
        if self.entities.location(entity).is_none() {
            return Err(NoSuchEntity(entity));
        }
        Ok(self.insert_alive(entity, value))
    }

    /// [`SparseMut::insert`] of an entity known to be alive.
    #[inline]
    fn insert_alive(&mut self, entity: Entity, value: C) -> Option<C> {
        match self.index.slot_or_claim(EntityIndex::from(entity)) {
            Some(dense) => {
                if Self::TRACKED {
                    self.values.mark_changed(dense, self.tick);
                }
                let old = &mut C::column_mut(self.values)[dense];
                Some(core::mem::replace(old, value))
            }
            None => {
                C::column_mut(self.values).push(value);
                if Self::TRACKED {
                    self.values.sync_ticks(self.tick);
                }
                None
            }
        }
    }

    /// Takes `entity`'s value of `C` out, as
    /// [`World::remove`](crate::world::World::remove) would: `Ok(None)` if it had
    /// none.
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive; then nothing changes.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Result<Option<C>, NoSuchEntity> {
        if self.entities.location(entity).is_none() {
            return Err(NoSuchEntity(entity));
        }
        Ok(self.remove_alive(entity))
    }

    /// [`SparseMut::remove`] of an entity known to be alive.
    #[inline]
    fn remove_alive(&mut self, entity: Entity) -> Option<C> {
        let dense = self.index.release(EntityIndex::from(entity))?;
        if Self::TRACKED {
            self.values.swap_remove_ticks(dense);
            self.removed.push(entity);
        }
        Some(C::column_mut(self.values).swap_remove(dense))
    }

    /// `entity`'s value of `C`; `None` if it has none or is not alive.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&C> {
        let dense = self.slot(entity).ok()??;
        C::column(self.values).get(dense)
    }

    /// `entity`'s value of `C`, to write (a tracked `C` is marked changed);
    /// `None` if it has none or is not alive.
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut C> {
        let dense = self.slot(entity).ok()??;
        if Self::TRACKED {
            self.values.mark_changed(dense, self.tick);
        }
        C::column_mut(self.values).get_mut(dense)
    }

    /// Whether `entity` is alive and has `C`.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        matches!(self.slot(entity), Ok(Some(_)))
    }

    /// Number of entities with `C`.
    pub fn len(&self) -> usize {
        self.index.owners().len()
    }

    /// Whether no entity has `C`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<S: Schema, C: SparseMutable<S>> fmt::Debug for SparseMut<'_, S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SparseMut")
            .field("schema", &S::NAME)
            .field("component", &core::any::type_name::<C>())
            .field("len", &self.index.owners().len())
            .finish()
    }
}

impl<S: Schema, C: SparseMutable<S>> Sealed for &mut SparseMut<'_, S, C> {}

/// Insertions and removals of a sparse component recorded in the chunks of
/// a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
/// each chunk through a [`ChunkSparseMut`]. Once the loop is done, they
/// are made through the `SparseMut` in iteration order: the set ends as
/// after a sequential loop making the same calls (the same values, dense
/// order, ticks and removal log).
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::SparseMut;
/// #[derive(Debug)] struct Heat(u32);
/// #[derive(Debug, PartialEq)] struct Glow(u32);
/// #[derive(Schema)] struct S { heat: Heat, #[ecs(sparse)] glow: Glow }
///
/// fn glow(mut bodies: Query<(Entity, &mut Heat)>, mut glow: SparseMut<S, Glow>) {
///     bodies.par_for_each_mut_with(&mut glow, |glow, (entity, heat)| {
///         heat.0 += 1;
///         if heat.0 >= 90 {
///             glow.insert(entity, Glow(heat.0)).unwrap();
///         } else {
///             glow.remove(entity).unwrap();
///         }
///     });
/// }
///
/// let mut world = World::<S>::new();
/// world.spawn_batch((0..5000).map(|i| (Heat(i % 100),)));
/// let mut schedule = Schedule::<S>::new();
/// schedule.add(glow);
/// schedule.run(&mut world);
/// assert_eq!(world.query::<&Glow>().count(), 550);
/// ```
impl<'w, S, C> ChunkRecorder for &mut SparseMut<'w, S, C>
where
    S: Schema,
    C: SparseMutable<S> + Send,
{
    type Chunk = ChunkSparseMut<'w, S, C>;

    fn chunk(&mut self) -> ChunkSparseMut<'w, S, C> {
        ChunkSparseMut {
            entities: self.entities,
            changes: self.spare.pop().unwrap_or_default(),
            schema: PhantomData,
        }
    }

    fn append(&mut self, mut chunk: ChunkSparseMut<'w, S, C>) {
        for (entity, value) in chunk.changes.drain(..) {
            // Alive when recorded, and no entity dies while the system runs.
            match value {
                Some(value) => drop(self.insert_alive(entity, value)),
                None => drop(self.remove_alive(entity)),
            }
        }
        self.spare.push(chunk.changes);
    }
}

/// The [`SparseMut`] of one chunk of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
/// it records insertions and removals, which are made once the loop is
/// done, after those of the chunks before it. So it cannot return the value
/// an insertion replaces or a removal takes (they are dropped), nor read
/// the set.
pub struct ChunkSparseMut<'w, S: Schema, C> {
    entities: &'w Entities,
    /// The changes in the order recorded (`None`: a removal).
    changes: Vec<(Entity, Option<C>)>,
    schema: PhantomData<fn() -> S>,
}

impl<S: Schema, C: SparseMutable<S>> ChunkSparseMut<'_, S, C> {
    /// Records that `entity` gets the value `value` of `C`, as
    /// [`SparseMut::insert`] would give it (over the value it has, if
    /// any).
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive; then nothing is recorded
    /// (`value` is dropped).
    #[inline]
    pub fn insert(&mut self, entity: Entity, value: C) -> Result<(), NoSuchEntity> {
        self.record(entity, Some(value))
    }

    /// Records that `entity` loses its value of `C`, if it has one then, as
    /// [`SparseMut::remove`] would take it.
    ///
    /// # Errors
    ///
    /// [`NoSuchEntity`] if `entity` is not alive; then nothing is recorded.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Result<(), NoSuchEntity> {
        self.record(entity, None)
    }

    #[inline]
    fn record(&mut self, entity: Entity, value: Option<C>) -> Result<(), NoSuchEntity> {
        if self.entities.location(entity).is_none() {
            return Err(NoSuchEntity(entity));
        }
        self.changes.push((entity, value));
        Ok(())
    }

    /// Number of changes this chunk recorded so far.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Whether this chunk recorded no change yet.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

impl<S: Schema, C> fmt::Debug for ChunkSparseMut<'_, S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkSparseMut")
            .field("schema", &S::NAME)
            .field("component", &core::any::type_name::<C>())
            .field("recorded", &self.changes.len())
            .finish()
    }
}

/// What a [`SparseMut`] keeps between runs: the tick of the current run,
/// the removals it has not logged yet, and the buffers of the chunks of
/// parallel loops.
#[doc(hidden)]
pub struct SparseMutState<C> {
    tick: u32,
    removed: Vec<Entity>,
    spare: Vec<Vec<(Entity, Option<C>)>>,
}

impl<S: Schema, C: SparseMutable<S> + Send> SystemParam<S> for SparseMut<'_, S, C> {
    type State = SparseMutState<C>;
    type Item<'w> = SparseMut<'w, S, C>;
    const ACCESS: Access = Access {
        reads: 1 << C::BIT,
        writes: 1 << C::BIT,
        whole: 1 << C::BIT,
        presence: 1 << C::BIT,
        presence_changed: 1 << C::BIT,
        removals_logged: S::TRACKED_BITS & (1 << C::BIT),
        observes_entities: true,
        ..Access::NONE
    };
    const CHECK: () = ();

    fn init() -> SparseMutState<C> {
        SparseMutState {
            tick: 0,
            removed: Vec::new(),
            spare: Vec::new(),
        }
    }

    fn prepare(state: &mut SparseMutState<C>, _: &World<S>, window: ChangeWindow) {
        state.tick = window.this_run;
    }

    fn fetch<'w>(
        state: &'w mut SparseMutState<C>,
        world: &mut SplitWorld<'w, S>,
    ) -> Self::Item<'w> {
        let position = sparse_position::<S>(C::BIT);
        SparseMut {
            entities: world.entities,
            values: world.sparse[position].exclusive(),
            index: world.sparse_index[position].exclusive(),
            tick: state.tick,
            removed: &mut state.removed,
            spare: &mut state.spare,
            component: PhantomData,
        }
    }

    fn apply(state: &mut SparseMutState<C>, world: &mut World<S>) {
        if !state.removed.is_empty() {
            world.log_removals(C::BIT, &state.removed);
            state.removed.clear();
        }
    }

    fn discard(state: &mut SparseMutState<C>, world: &mut World<S>) {
        // The values went at once: their removals are logged all the same.
        <Self as SystemParam<S>>::apply(state, world);
    }
}
