use ecs::prelude::*;

#[derive(Relation)]
struct ChildOf(Entity);
struct Children(u32);

#[derive(Schema)]
struct Scene {
    #[ecs(relation(inverse = children))]
    child_of: ChildOf,
    children: Children,
}

fn main() {}
