// `World::new()` builds resources with `Default`; without one, use
// `World::with_resources`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Gravity(pub f32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    gravity: Gravity,
}

fn main() {
    let _world = World::<Physics>::new();
}
