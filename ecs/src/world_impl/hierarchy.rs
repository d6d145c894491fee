//! Reading relations: a target's sources, an entity's target, and the
//! ancestors and descendants along one relation.

use super::World;
use crate::entity::Entity;
use crate::relations::{Inverse, OnTargetDespawn, Relation, RelationOf};
use crate::world_impl::Schema;
use core::marker::PhantomData;

impl<S: Schema> World<S> {
    /// The entities whose relation `R` points at `target`, in the order the
    /// relations were made; empty if there are none or `target` is not
    /// alive.
    pub fn sources<R: RelationOf<S>>(&self, target: Entity) -> &[Entity] {
        self.get::<R::Inverse>(target).map_or(&[], Inverse::sources)
    }

    /// The entity `source`'s relation `R` points at; `None` if it has no
    /// `R` or is not alive.
    pub fn target<R: RelationOf<S>>(&self, source: Entity) -> Option<Entity> {
        self.get::<R>(source).map(Relation::target)
    }

    /// The targets along relation `R` from `entity` up: its target, the
    /// target's target, and so on (its parent, grandparent, .. to the root
    /// with `ChildOf`). `entity` itself is not listed.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Relation)] struct ChildOf(Entity);
    /// #[derive(Inverse)] struct Children(Vec<Entity>);
    /// #[derive(Schema)]
    /// struct Scene { #[ecs(relation(inverse = children))] child_of: ChildOf, children: Children }
    ///
    /// let mut world = World::<Scene>::new();
    /// let root = world.spawn(());
    /// let arm = world.spawn((ChildOf(root),));
    /// let hand = world.spawn((ChildOf(arm),));
    /// let up: Vec<Entity> = world.ancestors::<ChildOf>(hand).collect();
    /// assert_eq!(up, [arm, root]);
    /// ```
    ///
    /// No entity is listed twice. A relation declared
    /// `on_target_despawn = despawn` has no cycle (the world refuses one);
    /// any other may, and along one the walk stops before it would come
    /// back to an entity it has listed, or to `entity`: each entity of the
    /// cycle is listed once. For such a relation, the walk is measured when
    /// it starts (a few steps per ancestor, no allocation).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// use schemecs::world::InsertError;
    /// #[derive(Relation)] struct Follows(Entity);
    /// #[derive(Inverse)] struct Followers(Vec<Entity>);
    /// #[derive(Schema)]
    /// struct Crowd { #[ecs(relation(inverse = followers))] follows: Follows, followers: Followers }
    ///
    /// let mut world = World::<Crowd>::new();
    /// let (a, b, c) = (world.spawn(()), world.spawn(()), world.spawn(()));
    /// world.insert(a, (Follows(b),))?;
    /// world.insert(b, (Follows(c),))?;
    /// world.insert(c, (Follows(b),))?; // b and c follow each other
    /// let up: Vec<Entity> = world.ancestors::<Follows>(a).collect();
    /// assert_eq!(up, [b, c]);
    /// # Ok::<(), InsertError>(())
    /// ```
    pub fn ancestors<R: RelationOf<S>>(&self, entity: Entity) -> Ancestors<'_, S, R> {
        let left = if const { matches!(R::ON_TARGET_DESPAWN, OnTargetDespawn::Despawn) } {
            // No cycle: the chain ends at a root, well before this.
            self.len()
        } else {
            self.ancestors_before_a_repeat::<R>(entity)
                .unwrap_or(usize::MAX)
        };
        Ancestors {
            world: self,
            next: self.target::<R>(entity),
            left,
            relation: PhantomData,
        }
    }

    /// How many ancestors along `R` `entity` has before the walk up would
    /// come back to an entity it has passed (`entity` included), if it
    /// would; `None` if it ends at a root. Brent's cycle finding: the
    /// cycle's length, then the steps before it, in a few walks of the
    /// chain and no memory.
    fn ancestors_before_a_repeat<R: RelationOf<S>>(&self, entity: Entity) -> Option<usize> {
        let up = |at: Entity| self.target::<R>(at);
        // The cycle's length: the hare runs ahead of a tortoise that jumps
        // to it at each power of two, until it meets the tortoise.
        let (mut power, mut length) = (1usize, 1usize);
        let mut tortoise = entity;
        let mut hare = up(entity)?;
        while tortoise != hare {
            if power == length {
                tortoise = hare;
                power *= 2;
                length = 0;
            }
            hare = up(hare)?;
            length += 1;
        }
        // The steps before it: two walkers `length` apart meet where the
        // cycle starts.
        let (mut tortoise, mut hare) = (entity, entity);
        for _ in 0..length {
            hare = up(hare)?;
        }
        let mut before = 0;
        while tortoise != hare {
            tortoise = up(tortoise)?;
            hare = up(hare)?;
            before += 1;
        }
        // Every entity of the tail and of the cycle, less `entity`.
        Some(before + length - 1)
    }

    /// The sources along relation `R` from `entity` down, depth first, each
    /// entity before its sources and siblings in their list's order (the
    /// whole subtree under `entity` with `ChildOf`). `entity` itself is not
    /// listed.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// #[derive(Relation)] struct ChildOf(Entity);
    /// #[derive(Inverse)] struct Children(Vec<Entity>);
    /// #[derive(Schema)]
    /// struct Scene { #[ecs(relation(inverse = children))] child_of: ChildOf, children: Children }
    ///
    /// let mut world = World::<Scene>::new();
    /// let root = world.spawn(());
    /// let a = world.spawn((ChildOf(root),));
    /// let a1 = world.spawn((ChildOf(a),));
    /// let b = world.spawn((ChildOf(root),));
    /// let down: Vec<Entity> = world.descendants::<ChildOf>(root).collect();
    /// assert_eq!(down, [a, a1, b]);
    /// ```
    ///
    /// No entity is listed twice. Along a cycle through `entity` (possible
    /// in a relation not declared `on_target_despawn = despawn`, see
    /// [`World::ancestors`]), the walk stops where it would come back to
    /// `entity`; as an entity has one target, no other entity can be met
    /// twice.
    pub fn descendants<R: RelationOf<S>>(&self, entity: Entity) -> Descendants<'_, S, R> {
        Descendants {
            world: self,
            root: entity,
            stack: vec![self.sources::<R>(entity).iter()],
            relation: PhantomData,
        }
    }
}

/// The iterator of [`World::ancestors`].
pub struct Ancestors<'w, S: Schema, R> {
    world: &'w World<S>,
    next: Option<Entity>,
    left: usize,
    relation: PhantomData<fn() -> R>,
}

impl<S: Schema, R: RelationOf<S>> Iterator for Ancestors<'_, S, R> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        let current = self.next.filter(|_| self.left != 0)?;
        self.left -= 1;
        self.next = self.world.target::<R>(current);
        Some(current)
    }
}

/// The iterator of [`World::descendants`].
pub struct Descendants<'w, S: Schema, R> {
    world: &'w World<S>,
    /// The entity the walk started from, never listed.
    root: Entity,
    /// The lists being walked, outermost first.
    stack: Vec<core::slice::Iter<'w, Entity>>,
    relation: PhantomData<fn() -> R>,
}

impl<S: Schema, R: RelationOf<S>> Iterator for Descendants<'_, S, R> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        loop {
            let list = self.stack.last_mut()?;
            match list.next() {
                // Back round a cycle: what is below it is listed already.
                Some(&entity) if entity == self.root => {}
                Some(&entity) => {
                    let sources = self.world.sources::<R>(entity);
                    if !sources.is_empty() {
                        self.stack.push(sources.iter());
                    }
                    return Some(entity);
                }
                None => {
                    self.stack.pop();
                }
            }
        }
    }
}

#[cfg(feature = "serde")]
impl<S: Schema> World<S> {
    /// Whether the two sides of every relation agree: each relation's target
    /// is alive and lists its source exactly once, each list is non-empty and
    /// lists only sources that point at it; and whether each relation
    /// declared `on_target_despawn = despawn` is free of cycles. What a
    /// loaded save must satisfy;
    /// the error says what breaks it.
    pub(crate) fn check_relations(&self) -> Result<(), String> {
        let mut check = CheckRelations {
            world: self,
            result: Ok(()),
        };
        let mut bits = S::RELATION_BITS;
        while bits != 0 && check.result.is_ok() {
            S::visit_relation(bits.trailing_zeros(), &mut check);
            bits &= bits - 1;
        }
        check.result
    }
}

#[cfg(feature = "serde")]
struct CheckRelations<'w, S: Schema> {
    world: &'w World<S>,
    result: Result<(), String>,
}

#[cfg(feature = "serde")]
impl<S: Schema> crate::relations::RelationVisitor<S> for CheckRelations<'_, S> {
    fn visit<R: RelationOf<S>>(&mut self) {
        let world = self.world;
        let relation = S::COMPONENT_NAMES[<R as crate::layout::Component<S>>::BIT as usize];
        let inverse = S::COMPONENT_NAMES[<R::Inverse as crate::layout::Component<S>>::BIT as usize];
        let mut listed = vec![
            false;
            world
                .iter()
                .map(|e| e.index() as usize + 1)
                .max()
                .unwrap_or(0)
        ];
        for owner in world.iter() {
            let Some(list) = world.get::<R::Inverse>(owner) else {
                continue;
            };
            if list.sources().is_empty() {
                self.result = Err(format!(
                    "entity {owner} has an empty `{inverse}`; the world keeps a list only while \
                     some `{relation}` points at it"
                ));
                return;
            }
            for &source in list.sources() {
                if world.target::<R>(source) != Some(owner) {
                    self.result = Err(format!(
                        "entity {owner}'s `{inverse}` lists entity {source}, whose `{relation}` \
                         does not point at it"
                    ));
                    return;
                }
                let seen = &mut listed[source.index() as usize];
                if *seen {
                    self.result = Err(format!(
                        "entity {source} is listed twice in the `{inverse}` of entity {owner}"
                    ));
                    return;
                }
                *seen = true;
            }
        }
        for source in world.iter() {
            if let Some(target) = world.target::<R>(source) {
                if !listed[source.index() as usize] {
                    self.result = Err(format!(
                        "entity {source}'s `{relation}` points at entity {target}, which is not \
                         alive or does not list it in its `{inverse}`"
                    ));
                    return;
                }
            }
        }
        if const { matches!(R::ON_TARGET_DESPAWN, OnTargetDespawn::Despawn) } {
            self.result = acyclic::<S, R>(world, relation, listed.len());
        }
    }
}

/// `Ok` if no chain of relation `R` (named `relation`) comes back to where
/// it started: each entity is walked up once, as far as the first entity
/// already walked (`slots` is one past the highest entity index).
#[cfg(feature = "serde")]
fn acyclic<S: Schema, R: RelationOf<S>>(
    world: &World<S>,
    relation: &str,
    slots: usize,
) -> Result<(), String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Walk {
        Not,
        OnPath,
        Done,
    }
    let mut walked = vec![Walk::Not; slots];
    let mut path = Vec::new();
    for start in world.iter() {
        let mut at = Some(start);
        while let Some(entity) = at {
            match walked[entity.index() as usize] {
                Walk::Done => break,
                Walk::OnPath => {
                    return Err(format!(
                        "entity {entity}'s `{relation}` closes a cycle (its targets lead back \
                         to it); `{relation}` despawns its sources with their target \
                         (`on_target_despawn = despawn`), so it must form a tree"
                    ));
                }
                Walk::Not => {
                    walked[entity.index() as usize] = Walk::OnPath;
                    path.push(entity);
                    at = world.target::<R>(entity);
                }
            }
        }
        for entity in path.drain(..) {
            walked[entity.index() as usize] = Walk::Done;
        }
    }
    Ok(())
}
