//! [`Commands`]: structural changes a system records, applied after it.

use crate::bundle::Bundle;
use crate::entity::{Entity, EntityLocation};
use crate::mask::Mask;
use crate::schema::{Column, Component, Schema};
use crate::storage::{TableId, TableRow};
use crate::world::World;
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
/// would return [`NoSuchEntity`](crate::NoSuchEntity).
///
/// ```
/// use ecs::prelude::*;
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
pub struct Commands<'w, S: Schema> {
    queue: &'w mut CommandQueue<S>,
}

impl<'w, S: Schema> Commands<'w, S> {
    pub(crate) fn new(queue: &'w mut CommandQueue<S>) -> Self {
        Commands { queue }
    }

    /// Records the spawn of an entity with the components of `bundle`.
    ///
    /// The entity's handle is allocated when the command is applied, so that
    /// it is the same whatever the timing of the threads.
    #[inline]
    pub fn spawn<B: Bundle<S>>(&mut self, bundle: B) {
        const { B::CHECK };
        bundle.stage(self.queue.values());
        self.queue.ops.push(Op::Spawn(B::mask()));
    }

    /// Records [`World::insert`] of `bundle` on `entity`.
    #[inline]
    pub fn insert<B: Bundle<S>>(&mut self, entity: Entity, bundle: B) {
        const { B::CHECK };
        bundle.stage(self.queue.values());
        self.queue.ops.push(Op::Insert(entity, B::mask()));
    }

    /// Records [`World::remove`] of component `C` from `entity`; the removed
    /// value is dropped.
    #[inline]
    pub fn remove<C: Component<S>>(&mut self, entity: Entity) {
        self.queue
            .ops
            .push(Op::Remove(entity, S::Mask::EMPTY.with(C::BIT)));
    }

    /// Records [`World::remove_bundle`] of `B` from `entity` (all of its
    /// components, or none if the entity lacks one); the values are dropped.
    #[inline]
    pub fn remove_bundle<B: Bundle<S>>(&mut self, entity: Entity) {
        const { B::CHECK };
        self.queue.ops.push(Op::Remove(entity, B::mask()));
    }

    /// Records [`World::despawn`] of `entity`.
    #[inline]
    pub fn despawn(&mut self, entity: Entity) {
        self.queue.ops.push(Op::Despawn(entity));
    }

    /// Number of commands recorded and not applied yet.
    pub fn len(&self) -> usize {
        self.queue.ops.len()
    }

    /// Whether no command is waiting.
    pub fn is_empty(&self) -> bool {
        self.queue.ops.is_empty()
    }

    /// Moves every command of `other` after the commands recorded here.
    pub(crate) fn append(&mut self, other: &mut CommandQueue<S>) {
        self.queue.append(other);
    }
}

impl<S: Schema> fmt::Debug for Commands<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commands")
            .field("schema", &S::NAME)
            .field("len", &self.len())
            .finish()
    }
}

/// One recorded command; the values of spawns and inserts wait in the
/// queue's columns.
enum Op<S: Schema> {
    Spawn(S::Mask),
    Insert(Entity, S::Mask),
    Remove(Entity, S::Mask),
    Despawn(Entity),
}

/// The commands of one system: the operations in recording order, and the
/// values of their bundles, one column per component bit, also in recording
/// order. No type erasure: a bundle's values go into the typed columns.
#[doc(hidden)]
pub struct CommandQueue<S: Schema> {
    ops: Vec<Op<S>>,
    /// Empty until the first bundle is recorded; then one column per bit.
    values: Vec<S::Column>,
}

impl<S: Schema> Default for CommandQueue<S> {
    fn default() -> Self {
        CommandQueue {
            ops: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<S: Schema> CommandQueue<S> {
    fn values(&mut self) -> &mut [S::Column] {
        if self.values.is_empty() {
            self.values = (0..S::COMPONENT_NAMES.len() as u32)
                .map(S::new_column)
                .collect();
        }
        &mut self.values
    }

    /// Moves every command of `other` after the commands here.
    pub(crate) fn append(&mut self, other: &mut CommandQueue<S>) {
        if other.values.is_empty() {
            self.ops.append(&mut other.ops);
            return;
        }
        self.values();
        for (to, from) in self.values.iter_mut().zip(&mut other.values) {
            to.append(from);
        }
        self.ops.append(&mut other.ops);
    }

    /// Drops every command and value without applying them.
    pub(crate) fn clear(&mut self) {
        self.ops.clear();
        for column in &mut self.values {
            column.clear();
        }
    }

    /// Applies the commands to `world` in recording order, leaving the queue
    /// empty. If a value's `Drop` panics, the world stays consistent and the
    /// commands not applied yet are dropped with their values.
    pub(crate) fn apply(&mut self, world: &mut World<S>) {
        struct ClearOnExit<'a, S: Schema>(&'a mut CommandQueue<S>);
        impl<S: Schema> Drop for ClearOnExit<'_, S> {
            fn drop(&mut self) {
                self.0.clear();
            }
        }

        if self.ops.is_empty() {
            return;
        }
        // Values are taken from the end of each column; reversed, the end
        // holds the earliest recorded value.
        for column in &mut self.values {
            column.reverse();
        }
        let queue = ClearOnExit(self);
        let CommandQueue { ops, values } = &mut *queue.0;
        for op in ops.drain(..) {
            match op {
                Op::Spawn(mask) => world.spawn_staged(mask, values),
                Op::Insert(entity, mask) => world.insert_staged(entity, mask, values),
                Op::Remove(entity, mask) => world.remove_staged(entity, mask),
                Op::Despawn(entity) => {
                    let _ = world.despawn(entity);
                }
            }
        }
    }
}

/// Moves the last value of `from` to the end of `to` (a column of the same
/// component).
#[inline]
fn pop_into<C: Column>(from: &mut C, to: &mut C) {
    let last = from.len() - 1;
    from.move_row(last, to);
}

impl<S: Schema> World<S> {
    /// Spawns an entity of archetype `mask`, its values the last of each
    /// column of `values`.
    fn spawn_staged(&mut self, mask: S::Mask, values: &mut [S::Column]) {
        let id = self.tables.insert_target(TableId::EMPTY, mask);
        let table = self.tables.get_mut(id);
        let row = TableRow(table.len() as u32);
        let entity = match self.entities.alloc(EntityLocation { table: id, row }) {
            Ok(entity) => entity,
            Err(error) => panic!("{error}"),
        };
        table.push_entity(entity);
        let (_, columns) = table.split_mut();
        let (tags, _) = self.bins.tags_and_trash_mut();
        for bit in mask.iter_bits() {
            let from = &mut values[bit as usize];
            if S::Mask::DATA.has(bit) {
                pop_into(from, &mut columns[mask.index(bit)]);
            } else {
                pop_into(from, &mut tags[bit as usize]);
            }
        }
    }

    /// Inserts the last value of each column of `values` named by `mask`
    /// into `entity`, as [`World::insert`]; drops them if it is not alive.
    fn insert_staged(&mut self, entity: Entity, mask: S::Mask, values: &mut [S::Column]) {
        let Some(location) = self.entities.location(entity) else {
            let (_, trash) = self.bins.tags_and_trash_mut();
            for bit in mask.iter_bits() {
                pop_into(&mut values[bit as usize], &mut trash[bit as usize]);
            }
            self.bins.empty_trash(mask);
            return;
        };
        let previous = self.tables.get(location.table).mask();
        let (target, row) = self.migrate_adding(entity, location, mask);
        let table = self.tables.get_mut(target);
        let table_mask = table.mask();
        let (_, columns) = table.split_mut();
        let (tags, trash) = self.bins.tags_and_trash_mut();
        for bit in mask.iter_bits() {
            let from = &mut values[bit as usize];
            let present = previous.has(bit);
            if S::Mask::DATA.has(bit) {
                let column = &mut columns[table_mask.index(bit)];
                pop_into(from, column);
                if present {
                    // The old value goes to the trash; the new one, last,
                    // takes its row.
                    column.move_row(row.index(), &mut trash[bit as usize]);
                }
            } else if present {
                pop_into(from, &mut trash[bit as usize]);
            } else {
                pop_into(from, &mut tags[bit as usize]);
            }
        }
        self.bins.empty_trash(previous.intersection(mask));
    }

    /// Removes the components of `mask` from `entity` if it is alive and has
    /// all of them, dropping the values, as [`World::remove_bundle`].
    fn remove_staged(&mut self, entity: Entity, mask: S::Mask) {
        let Some(location) = self.entities.location(entity) else {
            return;
        };
        let table_mask = self.tables.get(location.table).mask();
        if !table_mask.contains(mask) {
            return;
        }
        let target = self.tables.remove_target(location.table, mask);
        if target == location.table {
            return;
        }
        let (source, destination) = self.tables.pair_mut(location.table, target);
        let (_, columns) = source.split_mut();
        let trash = self.bins.trash_mut();
        for bit in mask.intersection(S::Mask::DATA).iter_bits() {
            columns[table_mask.index(bit)].move_row(location.row.index(), &mut trash[bit as usize]);
        }
        self.bins.discard_tags(mask);
        Self::move_row(
            &mut self.entities,
            entity,
            location,
            source,
            destination,
            target,
        );
        self.bins.empty_trash(mask);
    }
}
