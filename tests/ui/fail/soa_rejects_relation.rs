// The world reads a relation's value whole to find its target.
use ecs::prelude::*;

#[derive(Soa, Relation, Clone, Copy)]
pub struct ChildOf {
    pub parent: Entity,
}

#[derive(Inverse, Clone, Default)]
pub struct Children(pub Vec<Entity>);

#[derive(Schema)]
pub struct Scene {
    #[ecs(soa, relation(inverse = children))]
    child_of: ChildOf,
    children: Children,
}

fn main() {}
