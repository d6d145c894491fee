//! [`CommandBuffer`]: commands recorded outside systems.

use crate::commands::{recording_methods, CommandQueue, Commands};
use crate::schema::Schema;
use crate::world_impl::World;
use core::fmt;

/// Commands recorded outside any system, applied to a world with one call,
/// in recording order: for changes decided while reading the world.
///
/// Its methods are those of [`Commands`]; [`CommandBuffer::spawn`] records a
/// spawn whose id is given when applied. To learn the ids of spawned
/// entities while recording, record through
/// [`CommandBuffer::commands`], which reserves them in the world.
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::command::CommandBuffer;
/// #[derive(Debug, PartialEq)] struct Health(i32);
/// #[derive(Debug, PartialEq)] struct Dead;
/// #[derive(Debug, PartialEq)] struct Grave(Entity);
/// #[derive(Schema)] struct Game { health: Health, dead: Dead, grave: Grave }
///
/// let mut world = World::<Game>::new();
/// let hero = world.spawn((Health(3),));
/// let ghost = world.spawn((Health(0),));
///
/// let mut buffer = CommandBuffer::<Game>::new();
/// for (entity, health) in world.query::<(Entity, &Health)>().iter() {
///     if health.0 <= 0 {
///         buffer.insert(entity, (Dead,));
///     }
/// }
/// // A spawn whose id is needed now: reserved in the world.
/// let grave = buffer.commands(&world).spawn((Grave(ghost),));
/// buffer.apply(&mut world);
///
/// assert!(world.has::<Dead>(ghost) && !world.has::<Dead>(hero));
/// assert_eq!(world.get::<Grave>(grave), Some(&Grave(ghost)));
/// assert!(buffer.is_empty());
/// ```
pub struct CommandBuffer<S: Schema> {
    queue: CommandQueue<S>,
}

impl<S: Schema> Default for CommandBuffer<S> {
    fn default() -> Self {
        CommandBuffer {
            queue: CommandQueue::default(),
        }
    }
}

impl<S: Schema> CommandBuffer<S> {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the spawn of an entity with the components of `bundle`; its
    /// id is given when the buffer is applied.
    #[inline]
    pub fn spawn<B: crate::bundle::Bundle<S>>(&mut self, bundle: B) {
        const { B::INSERT_CHECK };
        self.queue.record_spawn(None, bundle);
    }

    recording_methods!();

    /// Records into this buffer with the [`Commands`] of `world`, whose
    /// [`Commands::spawn`] returns the spawned entity's id: the id is
    /// reserved in `world`. Apply the buffer to that world.
    pub fn commands<'w>(&'w mut self, world: &'w World<S>) -> Commands<'w, S> {
        Commands::new(&mut self.queue, world.entities())
    }

    /// Applies every command to `world`, in recording order, leaving the
    /// buffer empty; as [`World`]'s operations of the same names, except that
    /// a command on an entity that is not alive does nothing.
    pub fn apply(&mut self, world: &mut World<S>) {
        world.apply_commands(&mut self.queue);
    }

    /// Drops every command without applying it.
    pub fn clear(&mut self) {
        self.queue.clear();
    }
}

impl<S: Schema> fmt::Debug for CommandBuffer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.queue.debug("CommandBuffer", f)
    }
}
