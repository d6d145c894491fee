use ecs::prelude::*;

// No `Default`, and the requirement names no constructor.
struct Transform(f32);
struct Body;

#[derive(Schema)]
struct Physics {
    transform: Transform,
    #[ecs(requires(Transform))]
    body: Body,
}

fn main() {}
