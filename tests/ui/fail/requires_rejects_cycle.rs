use ecs::prelude::*;

#[derive(Default)]
struct Body;
#[derive(Default)]
struct Transform(f32);
#[derive(Default)]
struct Velocity(f32);

#[derive(Schema)]
struct Physics {
    #[ecs(requires(Transform))]
    body: Body,
    #[ecs(requires(Velocity))]
    transform: Transform,
    #[ecs(requires(Body))]
    velocity: Velocity,
}

fn main() {}
