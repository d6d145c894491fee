//! [`Commands`]: structural changes a system records, applied after it.

use crate::bundle::Bundle;
use crate::entity::{Entities, Entity};
use crate::layout::Layout;
use crate::query::{ChunkRecorder, Sealed};
use crate::storage::Staged;
use core::fmt;

/// A system parameter that records spawns, inserts, removals and despawns to
/// be applied after the system has run, in the order they were recorded.
///
/// Systems that run at the same time cannot change the world's structure
/// under each other, so they record the change instead; the schedule applies
/// each system's commands right after it in program order (the Core ECS
/// paper's `conc(s)`). A system that needs to see its own changes as it goes
/// takes `&mut World<S>` instead.
///
/// Commands are typed by the schema: a bundle naming a component of another
/// schema fails to compile. A command whose entity is no longer alive when it
/// is applied does nothing (its values are dropped), as the [`World`] method
/// would return [`NoSuchEntity`](crate::entity::NoSuchEntity). A relation in a
/// spawn or insert whose target is not alive when the command is applied,
/// or which would close a cycle in a relation declared
/// `on_target_despawn = despawn` (see [`Relation`](crate::relation::Relation)), is
/// left out: the rest of the bundle goes in, and the entity keeps the
/// relation it had, if any.
///
/// [`World`]: crate::world::World
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Debug, PartialEq)] struct Frozen;
/// #[derive(Schema)] struct Physics { pos: Pos, vel: Vel, frozen: Frozen }
///
/// // Freezes whatever stands still, and fires a new mover from the origin.
/// fn freeze(query: Query<(Entity, &Vel)>, mut commands: Commands<Physics>) {
///     for (entity, vel) in query.iter() {
///         if vel.0 == 0 {
///             commands.insert(entity, (Frozen,));
///             commands.remove::<Vel>(entity);
///         }
///     }
///     commands.spawn((Pos(0), Vel(1)));
/// }
///
/// let mut world = World::<Physics>::new();
/// let still = world.spawn((Pos(3), Vel(0)));
/// let mut schedule = Schedule::<Physics>::new();
/// schedule.add(freeze);
/// schedule.run(&mut world);
/// assert!(world.has::<Frozen>(still) && !world.has::<Vel>(still));
/// assert_eq!(world.len(), 2);
/// ```
pub struct Commands<'w, S: Layout> {
    queue: &'w mut CommandQueue<S>,
    /// Where spawned entities get their ids, at record time.
    entities: &'w Entities,
}

/// The recording methods every command recorder shares; each recorder adds
/// its own `spawn`. The recorder has a `queue` field (a `CommandQueue`).
macro_rules! recording_methods {
    () => {
        /// Records [`World::insert`](crate::world::World::insert) of `bundle` on
        /// `entity`.
        #[inline]
        pub fn insert<B: $crate::bundle::Bundle<S>>(
            &mut self,
            entity: $crate::entity::Entity,
            bundle: B,
        ) {
            const { B::INSERT_CHECK };
            self.queue.record_insert(entity, bundle);
        }

        /// Records [`World::remove`](crate::world::World::remove) of component `C`
        /// from `entity`; the removed value is dropped.
        #[inline]
        pub fn remove<C: $crate::schema::Component<S>>(&mut self, entity: $crate::entity::Entity) {
            self.queue.record_remove::<(C,)>(entity);
        }

        /// Records [`World::remove_bundle`](crate::world::World::remove_bundle) of `B`
        /// from `entity` (all of its components, or none if the entity lacks
        /// one); the values are dropped.
        #[inline]
        pub fn remove_bundle<B: $crate::bundle::Bundle<S>>(
            &mut self,
            entity: $crate::entity::Entity,
        ) {
            const { B::CHECK };
            self.queue.record_remove::<B>(entity);
        }

        /// Records [`World::despawn`](crate::world::World::despawn) of `entity`.
        #[inline]
        pub fn despawn(&mut self, entity: $crate::entity::Entity) {
            self.queue.record_despawn(entity);
        }

        /// Number of commands recorded and not applied yet.
        pub fn len(&self) -> usize {
            self.queue.len()
        }

        /// Whether no command is waiting.
        pub fn is_empty(&self) -> bool {
            self.queue.len() == 0
        }
    };
}
pub(crate) use recording_methods;

impl<'w, S: Layout> Commands<'w, S> {
    pub(crate) fn new(queue: &'w mut CommandQueue<S>, entities: &'w Entities) -> Self {
        Commands { queue, entities }
    }

    /// Records the spawn of an entity with the components of `bundle`, and
    /// returns the entity it will be once applied: it can be named in later
    /// commands and stored in components right away.
    ///
    /// The id is the one a spawn applied at this point of the program would
    /// get, the same whatever the number of threads: the schedule runs
    /// systems that record commands one after another, each once every
    /// earlier system's commands are applied. Until then the entity is not
    /// alive ([`World::is_alive`](crate::world::World::is_alive) is `false`).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq, Clone, Copy)] struct Owner(Entity);
    /// #[derive(Debug, PartialEq, Clone, Copy)] struct Shot(Entity);
    /// #[derive(Schema)] struct Game { pos: Pos, owner: Owner, shot: Shot }
    ///
    /// fn fire(gunners: Query<(Entity, &Pos), Without<Shot>>, mut commands: Commands<Game>) {
    ///     for (gunner, pos) in gunners.iter() {
    ///         let bullet = commands.spawn((Pos(pos.0), Owner(gunner)));
    ///         commands.insert(gunner, (Shot(bullet),));
    ///     }
    /// }
    ///
    /// let mut world = World::<Game>::new();
    /// let gunner = world.spawn((Pos(3),));
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add(fire);
    /// schedule.run(&mut world);
    /// let Shot(bullet) = *world.get::<Shot>(gunner).unwrap();
    /// assert_eq!(world.get::<Owner>(bullet), Some(&Owner(gunner)));
    /// assert_eq!(world.get::<Pos>(bullet), Some(&Pos(3)));
    /// ```
    ///
    /// # Panics
    ///
    /// If the entity indices run out, as [`World::spawn`](crate::world::World::spawn).
    #[inline]
    pub fn spawn<B: Bundle<S>>(&mut self, bundle: B) -> Entity {
        const { B::INSERT_CHECK };
        let entity = match self.entities.reserve_entity() {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        };
        self.queue.record_spawn(Some(entity), bundle);
        entity
    }

    recording_methods!();
}

impl<S: Layout> fmt::Debug for Commands<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.queue.debug("Commands", f)
    }
}

/// The commands of one chunk of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)):
/// the methods of [`Commands`], except that [`ChunkCommands::spawn`] cannot
/// tell the new entity's id. Chunks run in any order on any thread, so an id
/// handed out while recording would depend on their timing; the id is
/// given when the commands are applied, in chunk order, and so is the same
/// on any number of threads.
pub struct ChunkCommands<S: Layout> {
    queue: CommandQueue<S>,
}

impl<S: Layout> ChunkCommands<S> {
    /// Records the spawn of an entity with the components of `bundle`; its
    /// id is given when the command is applied.
    #[inline]
    pub fn spawn<B: Bundle<S>>(&mut self, bundle: B) {
        const { B::INSERT_CHECK };
        self.queue.record_spawn(None, bundle);
    }

    recording_methods!();
}

impl<S: Layout> fmt::Debug for ChunkCommands<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.queue.debug("ChunkCommands", f)
    }
}

impl<S: Layout> Sealed for &mut Commands<'_, S> {}

/// Commands recorded in the chunks of a parallel loop
/// ([`Query::par_for_each_mut_with`](crate::query::Query::par_for_each_mut_with)),
/// each chunk through [`ChunkCommands`].
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug)] struct Health(i32);
/// #[derive(Debug)] struct Dead;
/// #[derive(Schema)] struct S { health: Health, dead: Dead }
///
/// fn reap(mut living: Query<(Entity, &mut Health), Without<Dead>>, mut commands: Commands<S>) {
///     living.par_for_each_mut_with(&mut commands, |commands, (entity, health)| {
///         health.0 -= 1;
///         if health.0 <= 0 {
///             commands.insert(entity, (Dead,));
///         }
///     });
/// }
///
/// let mut world = World::<S>::new();
/// world.spawn_batch((0..1000).map(|i| (Health(i % 3),)));
/// let mut schedule = Schedule::<S>::new();
/// schedule.add(reap);
/// schedule.run(&mut world);
/// assert_eq!(world.query_filtered::<Entity, With<Dead>>().count(), 667);
/// ```
impl<S: Layout> ChunkRecorder for &mut Commands<'_, S>
where
    ChunkCommands<S>: Send,
{
    type Chunk = ChunkCommands<S>;

    fn chunk(&mut self) -> ChunkCommands<S> {
        ChunkCommands {
            queue: CommandQueue::default(),
        }
    }

    fn append(&mut self, mut chunk: ChunkCommands<S>) {
        self.queue.append(&mut chunk.queue);
    }
}

/// One recorded command; the values of spawns and inserts wait in the
/// queue's [`Staged`] columns.
pub(crate) enum Command<S: Layout> {
    /// A spawn, of the entity reserved for it or (`None`) of the entity the
    /// next allocation gives.
    Spawn(Option<Entity>, S::Mask),
    Insert(Entity, S::Mask),
    Remove(Entity, S::Mask),
    Despawn(Entity),
}

/// The commands of one system: the operations in recording order, and the
/// values of their bundles in [`Staged`] columns, also in recording order.
#[doc(hidden)]
pub struct CommandQueue<S: Layout> {
    ops: Vec<Command<S>>,
    values: Staged<S>,
}

impl<S: Layout> Default for CommandQueue<S> {
    fn default() -> Self {
        CommandQueue {
            ops: Vec::new(),
            values: Staged::default(),
        }
    }
}

impl<S: Layout> CommandQueue<S> {
    /// Number of commands recorded.
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    /// `Debug` of a recorder named `name` that records into this queue.
    pub(crate) fn debug(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("schema", &S::NAME)
            .field("len", &self.len())
            .finish()
    }

    #[inline]
    pub(crate) fn record_spawn<B: Bundle<S>>(&mut self, entity: Option<Entity>, bundle: B) {
        bundle.stage(self.values.columns());
        self.ops.push(Command::Spawn(entity, B::mask()));
    }

    #[inline]
    pub(crate) fn record_insert<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) {
        bundle.stage(self.values.columns());
        self.ops.push(Command::Insert(entity, B::mask()));
    }

    #[inline]
    pub(crate) fn record_remove<B: Bundle<S>>(&mut self, entity: Entity) {
        self.ops.push(Command::Remove(entity, B::mask()));
    }

    #[inline]
    pub(crate) fn record_despawn(&mut self, entity: Entity) {
        self.ops.push(Command::Despawn(entity));
    }

    /// Moves every command of `other` after the commands here.
    pub(crate) fn append(&mut self, other: &mut CommandQueue<S>) {
        self.values.append(&mut other.values);
        self.ops.append(&mut other.ops);
    }

    /// Drops every command and value without applying them.
    pub(crate) fn clear(&mut self) {
        self.ops.clear();
        self.values.clear();
    }

    /// The entities reserved for the spawns recorded, in recording order.
    pub(crate) fn reserved(&self) -> Vec<Entity> {
        self.ops
            .iter()
            .filter_map(|op| match *op {
                Command::Spawn(Some(entity), _) => Some(entity),
                _ => None,
            })
            .collect()
    }

    /// Hands each command, in recording order, to `apply` with the staged
    /// values (the command's values are the next ones of their bits), leaving
    /// the queue empty. If `apply` panics, the commands not applied yet are
    /// dropped with their values.
    pub(crate) fn replay(&mut self, mut apply: impl FnMut(Command<S>, &mut Staged<S>)) {
        struct ClearOnExit<'a, S: Layout>(&'a mut CommandQueue<S>);
        impl<S: Layout> Drop for ClearOnExit<'_, S> {
            fn drop(&mut self) {
                self.0.clear();
            }
        }

        if self.ops.is_empty() {
            return;
        }
        self.values.reverse();
        let queue = ClearOnExit(self);
        let CommandQueue { ops, values } = &mut *queue.0;
        for op in ops.drain(..) {
            apply(op, values);
        }
    }
}
