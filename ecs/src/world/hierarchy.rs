//! Reading relations: a target's sources, an entity's target, and the
//! ancestors and descendants along one relation.

use super::World;
use crate::entity::Entity;
use crate::relation::{Inverse, Relation, RelationOf};
use crate::schema::Schema;
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
    /// The world does not refuse a relation that closes a cycle; along one,
    /// this stops after as many steps as the world has entities.
    pub fn ancestors<R: RelationOf<S>>(&self, entity: Entity) -> Ancestors<'_, S, R> {
        Ancestors {
            world: self,
            next: self.target::<R>(entity),
            left: self.len(),
            relation: PhantomData,
        }
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
    /// Along a cycle (see [`World::ancestors`]) this stops after as many
    /// entities as the world has.
    pub fn descendants<R: RelationOf<S>>(&self, entity: Entity) -> Descendants<'_, S, R> {
        Descendants {
            world: self,
            stack: vec![self.sources::<R>(entity).iter()],
            left: self.len(),
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
    /// The lists being walked, outermost first.
    stack: Vec<core::slice::Iter<'w, Entity>>,
    left: usize,
    relation: PhantomData<fn() -> R>,
}

impl<S: Schema, R: RelationOf<S>> Iterator for Descendants<'_, S, R> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        if self.left == 0 {
            return None;
        }
        loop {
            let list = self.stack.last_mut()?;
            match list.next() {
                Some(&entity) => {
                    self.left -= 1;
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
    /// lists only sources that point at it. What a loaded save must satisfy;
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
impl<S: Schema> crate::relation::RelationVisitor<S> for CheckRelations<'_, S> {
    fn visit<R: RelationOf<S>>(&mut self) {
        let world = self.world;
        let relation = S::COMPONENT_NAMES[<R as crate::Component<S>>::BIT as usize];
        let inverse = S::COMPONENT_NAMES[<R::Inverse as crate::Component<S>>::BIT as usize];
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
    }
}
