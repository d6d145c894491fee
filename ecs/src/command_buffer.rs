//! [`CommandBuffer`]: commands recorded outside systems.

use crate::bundle::Bundle;
use crate::commands::{recording_methods, CommandQueue, Commands};
use crate::entity::Entity;
use crate::world_impl::Schema;
use crate::world_impl::World;
use core::fmt;

/// Commands recorded outside any system, applied to a world with one call,
/// in recording order: for changes decided while reading the world.
///
/// Its methods are those of [`Commands`], and return the same:
/// [`CommandBuffer::spawn`] returns the entity the spawn will make, reserved
/// in the world it is given (the one the buffer is then applied to), so it
/// takes that world by shared reference. To record through code written
/// for systems, take the buffer's [`Commands`] with
/// [`CommandBuffer::commands`].
///
/// An entity reserved by a spawn is not alive until the buffer is applied.
/// If the buffer is cleared or dropped instead, the entity becomes alive,
/// with no components, at the world's next structural change (its id is
/// never handed out twice); [`CommandBuffer::discard`] gives the ids back
/// instead.
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
///         // The id is reserved in `world`: the grave can be named now.
///         let grave = buffer.spawn(&world, (Grave(entity),));
///         assert!(!world.is_alive(grave));
///     }
/// }
/// buffer.apply(&mut world);
///
/// assert!(world.has::<Dead>(ghost) && !world.has::<Dead>(hero));
/// assert_eq!(world.query::<&Grave>().iter().collect::<Vec<_>>(), [&Grave(ghost)]);
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

    /// Records the spawn of an entity with the components of `bundle`, and
    /// returns the entity it will be once the buffer is applied to `world`:
    /// its id is reserved in `world` now, as [`Commands::spawn`] does, so it
    /// can be named in later commands and stored in components right away.
    /// Until the buffer is applied the entity is not alive
    /// ([`World::is_alive`] is `false`). Apply the buffer to `world`: in
    /// another world the id means nothing.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::command::CommandBuffer;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Debug, PartialEq)] struct Owner(Entity);
    /// #[derive(Schema)] struct Game { pos: Pos, owner: Owner }
    ///
    /// let mut world = World::<Game>::new();
    /// let mut buffer = CommandBuffer::<Game>::new();
    /// let ship = buffer.spawn(&world, (Pos(1),));
    /// let shot = buffer.spawn(&world, (Pos(2), Owner(ship)));
    /// buffer.apply(&mut world);
    /// assert_eq!(world.get::<Owner>(shot), Some(&Owner(ship)));
    /// assert_eq!(world.get::<Pos>(ship), Some(&Pos(1)));
    /// ```
    ///
    /// # Panics
    ///
    /// If the entity indices run out, as [`World::spawn`].
    #[inline]
    pub fn spawn<B: Bundle<S>>(&mut self, world: &World<S>, bundle: B) -> Entity {
        Commands::new(&mut self.queue, world.entities()).spawn(bundle)
    }

    recording_methods!();

    /// Records into this buffer through the [`Commands`] of `world`, the
    /// type systems record with (to share code with them): its
    /// [`Commands::spawn`] reserves the id in `world`, as
    /// [`CommandBuffer::spawn`] does. Apply the buffer to that world.
    pub fn commands<'w>(&'w mut self, world: &'w World<S>) -> Commands<'w, S> {
        Commands::new(&mut self.queue, world.entities())
    }

    /// Applies every command to `world`, in recording order, leaving the
    /// buffer empty; as [`World`]'s operations of the same names, except that
    /// a command on an entity that is not alive does nothing.
    pub fn apply(&mut self, world: &mut World<S>) {
        world.apply_commands(&mut self.queue);
    }

    /// Drops every command without applying it. The entities reserved for
    /// its spawns stay reserved: they become alive, with no components, at
    /// the next structural change of their world. To give their ids back,
    /// use [`CommandBuffer::discard`].
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// Drops every command without applying it, and gives `world` back the
    /// ids reserved for its spawns, as if they had never been: the next
    /// spawns get them. Nothing else in `world` changes.
    ///
    /// The ids come back only if no entity was reserved in `world` after
    /// them (by another buffer, say); otherwise they stay reserved, as
    /// [`CommandBuffer::clear`] leaves them. Whether they came back.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::command::CommandBuffer;
    /// #[derive(Debug, PartialEq)] struct Pos(i64);
    /// #[derive(Schema)] struct Game { pos: Pos }
    ///
    /// let mut world = World::<Game>::new();
    /// let mut buffer = CommandBuffer::<Game>::new();
    /// let dropped = buffer.spawn(&world, (Pos(1),));
    /// assert!(buffer.discard(&mut world));
    /// assert_eq!(world.spawn((Pos(2),)), dropped);
    /// assert_eq!(world.len(), 1);
    /// ```
    pub fn discard(&mut self, world: &mut World<S>) -> bool {
        let given_back = world.unreserve(&self.queue.reserved());
        self.queue.clear();
        given_back
    }
}

impl<S: Schema> fmt::Debug for CommandBuffer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.queue.debug("CommandBuffer", f)
    }
}
