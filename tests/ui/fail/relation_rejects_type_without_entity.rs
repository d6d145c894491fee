use ecs::prelude::*;

#[derive(Inverse)]
struct Children(Vec<Entity>);
// A transform holds no entity: it cannot point anywhere.
struct Transform(f32);

#[derive(Schema)]
struct Scene {
    #[ecs(relation(inverse = children))]
    transform: Transform,
    children: Children,
}

fn main() {}
