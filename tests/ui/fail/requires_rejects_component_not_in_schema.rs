use ecs::prelude::*;

#[derive(Default)]
struct Transform(f32);
#[derive(Default)]
struct Velocity(f32);
struct Body;

#[derive(Schema)]
struct Physics {
    transform: Transform,
    #[ecs(requires(Transform, Velocity))]
    body: Body,
}

fn main() {}
