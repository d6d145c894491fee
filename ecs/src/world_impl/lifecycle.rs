//! What a structural change does beyond moving values, for the components
//! the schema gives a lifecycle: relations (the world keeps each target's
//! inverse list), requirements (added with the component that requires
//! them, in the same migration) and hooks (run as the change happens).
//!
//! The world's operations come here only for a bundle, command or entity
//! that holds one of [`Layout::LIFECYCLE_BITS`](crate::schema::Layout::LIFECYCLE_BITS); the test is on constants,
//! so a schema that declares none of it compiles to the plain paths.
//!
//! One order for every change, whatever path it came by (a `World` method,
//! a system's commands, a hook's): the `on_remove` hooks run first, while
//! the values are still there; then the relations are unlinked and the
//! values moved (requirements staged with the bundle, one migration); then
//! the new relations are linked and the `on_add` and `on_insert` hooks run.
//! The commands the hooks record are applied last, before the next change.

use super::World;
use crate::bundle::Bundle;
use crate::commands::CommandQueue;
use crate::commands::Commands;
use crate::entity::{Entity, NoSuchEntity};
use crate::layout::Component;
use crate::mask::{Mask, MaskBits};
use crate::relations::{Inverse, OnTargetDespawn, RelationOf, RelationVisitor};
use crate::storage::Staged;
use crate::structure::{ExchangeError, InsertError, RelationCycle, TakeError};
use crate::world_impl::Schema;
use crate::world_impl::{DeferredWorld, HookKind};

/// The bits of `mask`.
#[inline(always)]
fn bits<S: Schema>(mask: S::Mask) -> u128 {
    mask.bits().to_u128()
}

/// Calls `f` with each bit of `bits`, lowest first.
#[inline]
fn for_each_bit(mut bits: u128, mut f: impl FnMut(u32)) {
    while bits != 0 {
        f(bits.trailing_zeros());
        bits &= bits - 1;
    }
}

/// The relation targets an entity had before a change, by bit.
type OldTargets = Vec<(u32, Entity)>;

impl<S: Schema> World<S> {
    /// Whether a bundle of `bits` needs the lifecycle paths. A constant for a
    /// typed bundle.
    #[inline(always)]
    pub(crate) const fn has_lifecycle(bits: u128) -> bool {
        S::LIFECYCLE_BITS & bits != 0
    }

    /// [`World::spawn`] of a bundle with a lifecycle.
    #[inline(never)]
    pub(crate) fn spawn_lifecycle<B: Bundle<S>>(
        &mut self,
        bundle: B,
    ) -> Result<Entity, crate::entity::EntitiesExhausted> {
        let mut hooks = CommandQueue::default();
        let entity = if S::required_by(B::BITS) & !B::BITS == 0 {
            // Straight into its table, as a plain spawn.
            let entity = self.store.spawn(bundle)?;
            self.after_insert(entity, 0, B::BITS, &[], &mut hooks);
            entity
        } else {
            let entity = self.store.spawn(())?;
            self.insert_bundle(entity, S::Mask::EMPTY, bundle, &mut hooks);
            entity
        };
        self.apply_hooks(&mut hooks);
        Ok(entity)
    }

    /// Applies the commands the hooks of one change recorded, if any.
    #[inline]
    pub(crate) fn apply_hooks(&mut self, hooks: &mut CommandQueue<S>) {
        if hooks.len() != 0 {
            self.apply_commands(hooks);
        }
    }

    /// [`World::spawn_batch`] of a bundle with a lifecycle, the entities
    /// listed in the world's scratch list (a later link or hook may move
    /// the earlier ones out of the batch's table): a bundle with only
    /// relations is spawned as one batch, then linked entity by entity; one
    /// with hooks or requirements, one spawn after the other.
    #[inline(never)]
    pub(crate) fn spawn_batch_lifecycle<B: Bundle<S>>(
        &mut self,
        bundles: impl Iterator<Item = B>,
    ) -> crate::structure::Spawned<'_> {
        let mut spawned = core::mem::take(&mut self.spawned);
        spawned.clear();
        let hooked = B::BITS & (S::ON_ADD_BITS | S::ON_INSERT_BITS) != 0;
        if !hooked && S::required_by(B::BITS) & !B::BITS == 0 {
            // Relations only: no hook can run between two spawns, so the
            // batch goes in at once, then each entity is linked, in order.
            spawned.extend(self.store.spawn_batch(bundles));
            let mut hooks = CommandQueue::default();
            for &entity in &spawned {
                self.after_insert(entity, 0, B::BITS, &[], &mut hooks);
            }
            debug_assert!(hooks.len() == 0, "no hook ran");
        } else {
            // The handles as spawned: a hook may despawn one (or its slot be
            // reused) before the batch ends.
            for bundle in bundles {
                match self.spawn_lifecycle(bundle) {
                    Ok(entity) => spawned.push(entity),
                    Err(error) => panic!("{error}"),
                }
            }
        }
        self.spawned = spawned;
        crate::structure::Spawned::of_handles(&self.spawned)
    }

    /// [`World::insert`] of a bundle with a lifecycle: every relation target
    /// must be alive, and no relation may close a cycle it must not, or
    /// nothing changes.
    #[inline(never)]
    pub(crate) fn insert_lifecycle<B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<(), InsertError> {
        let previous = self.store.archetype(entity).ok_or(NoSuchEntity(entity))?;
        self.refused_relation(entity, &bundle)?;
        let mut hooks = CommandQueue::default();
        self.insert_bundle(entity, previous, bundle, &mut hooks);
        self.apply_hooks(&mut hooks);
        Ok(())
    }

    /// Why `entity` (alive) cannot take the relations in `bundle`, if it
    /// cannot: the first, in field order, whose target is not alive or
    /// which would close a cycle (see [`closes_cycle`]).
    fn refused_relation<B: Bundle<S>>(
        &self,
        entity: Entity,
        bundle: &B,
    ) -> Result<(), InsertError> {
        let mut refused = Ok(());
        bundle.relation_targets(&mut |bit, target| {
            if refused.is_err() {
                return;
            }
            if !self.store.entities().contains(target) {
                refused = Err(InsertError::NoSuchEntity(target));
                return;
            }
            let mut visitor = FindCycle {
                world: self,
                source: entity,
                target,
                cycle: None,
            };
            S::visit_relation(bit, &mut visitor);
            if let Some(cycle) = visitor.cycle {
                refused = Err(InsertError::Cycle(cycle));
            }
        });
        refused
    }

    /// Inserts `bundle` and what it requires into `entity` (alive, of
    /// archetype `previous`), then links its relations and runs its hooks.
    fn insert_bundle<B: Bundle<S>>(
        &mut self,
        entity: Entity,
        previous: S::Mask,
        bundle: B,
        hooks: &mut CommandQueue<S>,
    ) {
        let before = bits::<S>(previous);
        let old = self.old_targets(entity, B::BITS & before);
        let required = S::required_by(B::BITS) & !before & !B::BITS;
        if required == 0 {
            let inserted = self.store.insert(entity, bundle);
            debug_assert!(inserted.is_ok(), "the entity is alive");
        } else {
            // One migration for the bundle and its requirements: staged
            // together, one value per column.
            let mut staged = Staged::default();
            bundle.stage(staged.columns());
            S::stage_required(required, &mut staged);
            let mask = S::Mask::from_u128(B::BITS | required);
            self.store.insert_staged(entity, mask, &mut staged);
        }
        self.after_insert(entity, before, B::BITS | required, &old, hooks);
    }

    /// A recorded insert (or spawn) of `mask` with a lifecycle: as
    /// [`World::insert_lifecycle`], except that a relation whose target is
    /// not alive when the command is applied is removed again (a command has
    /// no caller to give an error to).
    pub(crate) fn insert_staged_lifecycle(
        &mut self,
        entity: Entity,
        mask: S::Mask,
        values: &mut Staged<S>,
        hooks: &mut CommandQueue<S>,
    ) {
        let Some(previous) = self.store.archetype(entity) else {
            // Drops the values, as for any command on a dead entity.
            self.store.insert_staged(entity, mask, values);
            return;
        };
        let (before, inserted) = (bits::<S>(previous), bits::<S>(mask));
        let old = self.old_targets(entity, inserted & before);
        let required = S::required_by(inserted) & !before & !inserted;
        if required != 0 {
            S::stage_required(required, values);
        }
        let all = S::Mask::from_u128(inserted | required);
        self.store.insert_staged(entity, all, values);
        self.after_insert(entity, before, inserted | required, &old, hooks);
    }

    /// The targets of the relations of `bits` that `entity` has now.
    fn old_targets(&self, entity: Entity, bits: u128) -> OldTargets {
        let mut old = OldTargets::new();
        for_each_bit(bits & S::RELATION_BITS, |bit| {
            let mut visitor = ReadTarget {
                world: self,
                entity,
                bit,
                target: None,
            };
            S::visit_relation(bit, &mut visitor);
            if let Some(target) = visitor.target {
                old.push((bit, target));
            }
        });
        old
    }

    /// After `inserted` went into `entity` (whose archetype had `before`):
    /// links each new relation target, then runs the `on_add` hooks of what
    /// is new and the `on_insert` hooks of all of it.
    fn after_insert(
        &mut self,
        entity: Entity,
        before: u128,
        inserted: u128,
        old: &[(u32, Entity)],
        hooks: &mut CommandQueue<S>,
    ) {
        let mut dropped = 0;
        for_each_bit(inserted & S::RELATION_BITS, |bit| {
            let old = old.iter().find(|(at, _)| *at == bit).map(|&(_, t)| t);
            let mut visitor = Link {
                world: self,
                entity,
                old,
                dropped: 0,
            };
            S::visit_relation(bit, &mut visitor);
            dropped |= visitor.dropped;
        });
        let inserted = inserted & !dropped;
        self.run_hooks(
            HookKind::Add,
            entity,
            inserted & !before & S::ON_ADD_BITS,
            hooks,
        );
        self.run_hooks(
            HookKind::Insert,
            entity,
            inserted & S::ON_INSERT_BITS,
            hooks,
        );
    }

    /// Runs the `kind` hook of each component of `bits` on `entity`, in bit
    /// order, recording their commands in `hooks`.
    fn run_hooks(&self, kind: HookKind, entity: Entity, bits: u128, hooks: &mut CommandQueue<S>) {
        for_each_bit(bits, |bit| {
            let commands = Commands::new(hooks, self.store.entities());
            S::run_hook(kind, bit, &mut DeferredWorld::new(self, commands), entity);
        });
    }

    /// [`World::remove_bundle`] of a bundle with a lifecycle.
    #[inline(never)]
    pub(crate) fn remove_lifecycle<B: Bundle<S>>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<B>, NoSuchEntity> {
        let previous = self.store.archetype(entity).ok_or(NoSuchEntity(entity))?;
        if !previous.contains(B::mask()) {
            return Ok(None);
        }
        let mut hooks = CommandQueue::default();
        let orphans = self.before_remove(entity, B::BITS, &mut hooks);
        let taken = self.store.remove_bundle::<B>(entity);
        self.orphan(orphans, &mut hooks);
        self.apply_hooks(&mut hooks);
        taken
    }

    /// A recorded removal of `mask` with a lifecycle.
    pub(crate) fn remove_staged_lifecycle(
        &mut self,
        entity: Entity,
        mask: S::Mask,
        hooks: &mut CommandQueue<S>,
    ) {
        match self.store.archetype(entity) {
            Some(previous) if previous.contains(mask) => {
                let orphans = self.before_remove(entity, bits::<S>(mask), hooks);
                self.store.remove_staged(entity, mask);
                self.orphan(orphans, hooks);
            }
            _ => {}
        }
    }

    /// Before `removed` is taken from `entity` (which has all of it): runs
    /// the `on_remove` hooks, unlinks the relations from their targets, and
    /// copies out the sources of the inverse lists (which leave whole),
    /// whose relations the caller then removes with [`World::orphan`].
    fn before_remove(
        &mut self,
        entity: Entity,
        removed: u128,
        hooks: &mut CommandQueue<S>,
    ) -> Vec<Orphans> {
        let mut orphans = Vec::new();
        self.unlink_all(entity, removed, hooks, false, &mut orphans);
        orphans
    }

    /// [`World::before_remove`], adding the orphans to `orphans`; with
    /// `going`, `entity` is being despawned, so its inverse lists are taken
    /// out of it rather than copied (nothing reads them after).
    fn unlink_all(
        &mut self,
        entity: Entity,
        removed: u128,
        hooks: &mut CommandQueue<S>,
        going: bool,
        orphans: &mut Vec<Orphans>,
    ) {
        self.run_hooks(HookKind::Remove, entity, removed & S::ON_REMOVE_BITS, hooks);
        for_each_bit(removed & (S::RELATION_BITS | S::INVERSE_BITS), |bit| {
            let mut visitor = Unlink {
                world: self,
                entity,
                bit,
                removed,
                going,
                orphans: None,
            };
            S::visit_relation(bit, &mut visitor);
            orphans.extend(visitor.orphans);
        });
    }

    /// Removes from each of `orphans`' sources the relation that pointed at
    /// a target that lost its inverse list.
    fn orphan(&mut self, orphans: Vec<Orphans>, hooks: &mut CommandQueue<S>) {
        for Orphans { relation, sources } in orphans {
            for source in sources {
                self.remove_relation(relation, source, hooks);
            }
        }
    }

    /// Removes the relation of `bit` from `source` (its target's list is
    /// already gone), running its `on_remove` hook.
    fn remove_relation(&mut self, bit: u32, source: Entity, hooks: &mut CommandQueue<S>) {
        if self
            .store
            .archetype(source)
            .is_some_and(|mask| mask.has(bit))
        {
            self.run_hooks(
                HookKind::Remove,
                source,
                (1 << bit) & S::ON_REMOVE_BITS,
                hooks,
            );
            self.store
                .remove_staged(source, S::Mask::from_u128(1 << bit));
        }
    }

    /// [`World::despawn`] of an entity with a lifecycle: its `on_remove`
    /// hooks run, its relations are unlinked, and the sources pointing at it
    /// lose their relation or are despawned in turn, as each relation
    /// declares (depth first, in list order, each entity before its sources).
    pub(crate) fn despawn_lifecycle(
        &mut self,
        entity: Entity,
        hooks: &mut CommandQueue<S>,
    ) -> Result<(), NoSuchEntity> {
        let mask = self.store.archetype(entity).ok_or(NoSuchEntity(entity))?;
        if bits::<S>(mask) & S::LIFECYCLE_BITS == 0 {
            return self.store.despawn(entity);
        }
        let mut pending = vec![entity];
        let mut orphans = Vec::new();
        while let Some(next) = pending.pop() {
            let Some(mask) = self.store.archetype(next) else {
                continue;
            };
            let lifecycle = bits::<S>(mask) & S::LIFECYCLE_BITS;
            self.unlink_all(next, lifecycle, hooks, true, &mut orphans);
            let despawned = self.store.despawn(next);
            debug_assert!(despawned.is_ok(), "the entity is alive");
            self.release(&mut orphans, &mut pending, hooks);
        }
        Ok(())
    }

    /// What becomes of the sources of an entity that is going: each is
    /// pushed onto `pending` (to be despawned, in list order) or loses its
    /// relation, as the relation declares. Empties `orphans`.
    fn release(
        &mut self,
        orphans: &mut Vec<Orphans>,
        pending: &mut Vec<Entity>,
        hooks: &mut CommandQueue<S>,
    ) {
        for Orphans { relation, sources } in orphans.drain(..) {
            let mut visitor = Rule { despawn: false };
            S::visit_relation(relation, &mut visitor);
            if visitor.despawn {
                pending.extend(sources.iter().rev());
            } else {
                for source in sources {
                    self.remove_relation(relation, source, hooks);
                }
            }
        }
    }

    /// [`World::take`] in a schema with a lifecycle: as a despawn, once the
    /// entity is known to match the bundle.
    #[inline(never)]
    pub(crate) fn take_lifecycle<B: Bundle<S>>(&mut self, entity: Entity) -> Result<B, TakeError> {
        let lifecycle = match self.store.archetype(entity) {
            Some(mask) if mask == B::mask() => bits::<S>(mask) & S::LIFECYCLE_BITS,
            // Not alive, or not exactly the bundle: the store says which.
            _ => 0,
        };
        if lifecycle == 0 {
            return self.store.take(entity);
        }
        let mut hooks = CommandQueue::default();
        let mut orphans = self.before_remove(entity, lifecycle, &mut hooks);
        let taken = self.store.take(entity);
        let mut pending = Vec::new();
        self.release(&mut orphans, &mut pending, &mut hooks);
        while let Some(source) = pending.pop() {
            let _ = self.despawn_lifecycle(source, &mut hooks);
        }
        self.apply_hooks(&mut hooks);
        taken
    }

    /// [`World::exchange`] of bundles with a lifecycle, once every check has
    /// passed: one change, in one migration. What the entity loses (in `R`,
    /// neither in `B` nor required by it) is taken as by a removal: its
    /// `on_remove` hooks run and its relations are unlinked first. What the
    /// entity has before and after (in both bundles, in `B` and already
    /// there, or in `R` and required by `B`) is replaced as by an insert
    /// over it: no `on_add`, no `on_remove`, and a relation moves from its
    /// old target to its new one. Then the `on_add` hooks of what is new run,
    /// and the `on_insert` hooks of all that was put in.
    #[inline(never)]
    pub(crate) fn exchange_lifecycle<R: Bundle<S>, B: Bundle<S>>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<R, ExchangeError<B>> {
        let previous = match self.store.archetype(entity) {
            Some(mask) if mask.contains(R::mask()) => mask,
            // The store's own errors, the bundle handed back.
            _ => return self.store.exchange(entity, bundle),
        };
        match self.refused_relation(entity, &bundle) {
            Ok(()) => {}
            Err(InsertError::NoSuchEntity(target)) => {
                return Err(ExchangeError::NoSuchEntity {
                    entity: target,
                    bundle,
                })
            }
            Err(InsertError::Cycle(cycle)) => return Err(ExchangeError::Cycle { cycle, bundle }),
        }
        let before = bits::<S>(previous);
        // What `B` requires beyond itself and what the entity keeps of its own.
        let required = S::required_by(B::BITS) & !(before & !R::BITS) & !B::BITS;
        let inserted = B::BITS | required;
        let lost = R::BITS & !inserted;
        let mut hooks = CommandQueue::default();
        let mut old = self.old_targets(entity, inserted & before);
        let mut orphans = self.before_remove(entity, lost, &mut hooks);
        for list in &mut orphans {
            // The entity's relation to itself, kept while the list it is in
            // goes: it is not orphaned but linked afresh to its new target.
            if inserted & (1 << list.relation) != 0 && list.sources.contains(&entity) {
                list.sources.retain(|&source| source != entity);
                old.retain(|&(bit, _)| bit != list.relation);
            }
        }
        let mut staged = Staged::default();
        if required != 0 {
            S::stage_required(required, &mut staged);
        }
        let exchanged =
            self.store
                .exchange_adding(entity, bundle, S::Mask::from_u128(required), &mut staged);
        let Ok(removed) = exchanged else {
            unreachable!("the entity is alive and has every component of `R`")
        };
        self.orphan(orphans, &mut hooks);
        self.after_insert(entity, before, inserted, &old, &mut hooks);
        self.apply_hooks(&mut hooks);
        Ok(removed)
    }
}

/// The sources an inverse list held, whose relation (of bit `relation`)
/// pointed at an entity that is losing the list.
struct Orphans {
    relation: u32,
    sources: Vec<Entity>,
}

/// Reads the target of `entity`'s relation of `bit`.
struct ReadTarget<'w, S: Schema> {
    world: &'w World<S>,
    entity: Entity,
    bit: u32,
    target: Option<Entity>,
}

impl<S: Schema> RelationVisitor<S> for ReadTarget<'_, S> {
    fn visit<R: RelationOf<S>>(&mut self) {
        if R::BIT == self.bit {
            self.target = self.world.store.get::<R>(self.entity).map(R::target);
        }
    }
}

/// Links `entity`'s new relation to its target (after unlinking it from
/// the `old` one); removes it again if the target is not alive, or if it
/// closes a cycle in a relation declared `on_target_despawn = despawn`.
struct Link<'w, S: Schema> {
    world: &'w mut World<S>,
    entity: Entity,
    old: Option<Entity>,
    dropped: u128,
}

impl<S: Schema> RelationVisitor<S> for Link<'_, S> {
    fn visit<R: RelationOf<S>>(&mut self) {
        let world = &mut *self.world;
        let Some(target) = world.store.get::<R>(self.entity).map(R::target) else {
            return;
        };
        if self.old == Some(target) {
            return;
        }
        let cycle = R::ON_TARGET_DESPAWN == OnTargetDespawn::Despawn
            && closes_cycle::<S, R>(world, self.entity, target);
        if cycle || !world.store.entities().contains(target) {
            // A dead target, or a cycle the relation must not have: the
            // relation is dropped, and the one the entity had before, if
            // any, stays as it was.
            match self.old {
                Some(old) => {
                    if let Some(value) = world.store.get_mut::<R>(self.entity) {
                        *value = R::to(old);
                    }
                }
                None => world
                    .store
                    .remove_staged(self.entity, S::Mask::from_u128(1 << R::BIT)),
            }
            self.dropped |= 1 << R::BIT;
            return;
        }
        if let Some(old) = self.old {
            unlink::<S, R>(world, old, self.entity);
        }
        match world.store.get_mut::<R::Inverse>(target) {
            Some(list) => list.sources_mut().push(self.entity),
            None => {
                let list = <R::Inverse as Inverse>::from_sources(vec![self.entity]);
                let linked = world.store.insert(target, (list,));
                debug_assert!(linked.is_ok(), "the target is alive");
            }
        }
    }
}

/// Takes `source` out of `target`'s list of `R`, and the list off `target`
/// if that empties it. Nothing if `target` has no list (it is not alive, or
/// the list is being taken).
fn unlink<S: Schema, R: RelationOf<S>>(world: &mut World<S>, target: Entity, source: Entity) {
    let Some(list) = world.store.get_mut::<R::Inverse>(target) else {
        return;
    };
    let sources = list.sources_mut();
    if let Some(at) = sources.iter().rposition(|&s| s == source) {
        sources.remove(at);
    }
    if sources.is_empty() {
        let bit = <R::Inverse as Component<S>>::BIT;
        world
            .store
            .remove_staged(target, S::Mask::from_u128(1 << bit));
    }
}

/// Before `entity` loses the component of `bit`: unlinks it from its target
/// if it is a relation; copies the list's sources out if it is an inverse.
struct Unlink<'w, S: Schema> {
    world: &'w mut World<S>,
    entity: Entity,
    bit: u32,
    /// Everything `entity` loses with it.
    removed: u128,
    /// Whether `entity` is being despawned: its lists are taken, not copied.
    going: bool,
    orphans: Option<Orphans>,
}

impl<S: Schema> RelationVisitor<S> for Unlink<'_, S> {
    fn visit<R: RelationOf<S>>(&mut self) {
        let world = &mut *self.world;
        if self.bit == R::BIT {
            let Some(target) = world.store.get::<R>(self.entity).map(R::target) else {
                return;
            };
            let inverse = <R::Inverse as Component<S>>::BIT;
            // Its own target, losing its list too: the list goes whole with
            // the rest of what it loses, itself still listed.
            if target != self.entity || self.removed & (1 << inverse) == 0 {
                unlink::<S, R>(world, target, self.entity);
            }
        } else if self.going {
            // Nothing reads the list of an entity being despawned.
            if let Some(list) = world.store.get_mut::<R::Inverse>(self.entity) {
                self.orphans = Some(Orphans {
                    relation: R::BIT,
                    sources: core::mem::take(list.sources_mut()),
                });
            }
        } else if let Some(list) = world.store.get::<R::Inverse>(self.entity) {
            // The list goes out as it is (what `remove` returns); its
            // sources lose their relation once it is gone.
            self.orphans = Some(Orphans {
                relation: R::BIT,
                sources: list.sources().to_vec(),
            });
        }
    }
}

/// Whether despawning a target of the relation despawns its sources.
struct Rule {
    despawn: bool,
}

impl<S: Schema> RelationVisitor<S> for Rule {
    fn visit<R: RelationOf<S>>(&mut self) {
        self.despawn = R::ON_TARGET_DESPAWN == OnTargetDespawn::Despawn;
    }
}

/// Whether `source` pointing its relation `R` at `target` closes a cycle:
/// `target` is `source`, or `source` is up `target`'s chain of `R`. Walks
/// up from `target`, one step per ancestor: the cost of the check is the
/// depth of `target` in its tree. Whether `source` already points at
/// `target` makes no difference (the walk stops at `source`).
fn closes_cycle<S: Schema, R: RelationOf<S>>(
    world: &World<S>,
    source: Entity,
    target: Entity,
) -> bool {
    let mut at = target;
    // Every path that sets a relation checks this, so the chain ends at a
    // root; the bound only keeps the walk finite were it not so.
    for _ in 0..=world.len() {
        if at == source {
            return true;
        }
        match world.store.get::<R>(at) {
            Some(relation) => at = relation.target(),
            None => return false,
        }
    }
    false
}

/// Finds whether `source` taking the relation of the bit visited, to
/// `target`, would close a cycle that the relation must not have: a
/// relation declared `on_target_despawn = despawn` only (for the others,
/// nothing is walked).
struct FindCycle<'w, S: Schema> {
    world: &'w World<S>,
    source: Entity,
    target: Entity,
    cycle: Option<RelationCycle>,
}

impl<S: Schema> RelationVisitor<S> for FindCycle<'_, S> {
    fn visit<R: RelationOf<S>>(&mut self) {
        if R::ON_TARGET_DESPAWN == OnTargetDespawn::Despawn
            && closes_cycle::<S, R>(self.world, self.source, self.target)
        {
            self.cycle = Some(RelationCycle {
                relation: S::COMPONENT_NAMES[R::BIT as usize],
                source: self.source,
                target: self.target,
            });
        }
    }
}
