use ecs::prelude::*;

#[derive(Relation)]
struct ChildOf(Entity);
#[derive(Inverse)]
struct Children(Vec<Entity>);

#[derive(Schema)]
struct Scene {
    #[ecs(relation(inverse = kids))]
    child_of: ChildOf,
    children: Children,
}

fn main() {}
