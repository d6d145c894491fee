//! Removal detection: the system parameter [`Removed`], which lists the
//! entities that lost a tracked component, read from the world's removal
//! log through the system's change window.

use crate::changes::ChangeWindow;
use crate::entity::Entity;
use crate::layout::Tracked;
use crate::lend::SplitWorld;
use crate::system::{Access, SystemParam};
use crate::world_impl::Schema;
use crate::world_impl::World;
use core::fmt;
use core::marker::PhantomData;

/// A system parameter listing the entities that lost tracked component `T`
/// (removed, or despawned with it) since the system's previous run, oldest
/// first; `T` must be tracked (`#[ecs(track)]`).
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Health(i32);
/// #[derive(Default)] struct Freed(Vec<Entity>);
/// #[derive(Schema)]
/// struct Game { #[ecs(track)] health: Health, #[ecs(resource)] freed: Freed }
///
/// fn reap(living: Query<(Entity, &Health)>, mut commands: Commands<Game>) {
///     living.for_each(|(entity, health)| if health.0 <= 0 { commands.despawn(entity) });
/// }
/// fn free_bars(gone: Removed<Health>, mut freed: ResMut<Freed>) {
///     freed.0.extend(gone.iter());
/// }
///
/// let mut world = World::<Game>::new();
/// let doomed = world.spawn((Health(0),));
/// world.spawn((Health(3),));
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(reap).add(free_bars);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Freed>().0, [doomed]);
/// ```
pub struct Removed<'s, T> {
    entities: &'s [Entity],
    missed: u64,
    component: PhantomData<fn() -> T>,
}

impl<T> Removed<'_, T> {
    /// The entities, oldest removal first (an entity appears once per
    /// removal).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.entities.iter().copied()
    }

    /// Number of removals.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether there was none.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// How many removals since this system's previous run were dropped
    /// before it could read them: 0, unless the system did not run for
    /// more than [`HOLD_RUNS`](crate::retention::HOLD_RUNS) runs of the
    /// world, after which the world stops keeping the records for it (see
    /// [`crate::retention`] and
    /// [`EventReader::missed`](crate::event::EventReader::missed)).
    pub fn missed(&self) -> u64 {
        self.missed
    }
}

impl<T> fmt::Debug for Removed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Removed").field(&self.entities).finish()
    }
}

impl<S: Schema, T: Tracked<S>> SystemParam<S> for Removed<'_, T> {
    type State = (Vec<Entity>, u64);
    type Item<'w> = Removed<'w, T>;
    const ACCESS: Access = Access {
        removals_read: 1 << T::BIT,
        observes_entities: true,
        ..Access::NONE
    };
    const CHECK: () = ();
    const READS_LOGS: bool = true;

    fn init() -> (Vec<Entity>, u64) {
        (Vec::new(), 0)
    }

    fn prepare(state: &mut (Vec<Entity>, u64), world: &World<S>, window: ChangeWindow) {
        state.0.clear();
        state.0.extend(world.removed_in(T::BIT, window));
        state.1 = world.removals_missed(T::BIT, window);
    }

    fn fetch<'w>(state: &'w mut (Vec<Entity>, u64), _: &mut SplitWorld<'w, S>) -> Removed<'w, T> {
        Removed {
            entities: &state.0,
            missed: state.1,
            component: PhantomData,
        }
    }
}
