// `world.resource::<T>()` may only name a resource of the world's schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);
#[derive(Default)]
pub struct Gravity(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    tick: Tick,
}

fn main() {
    let world = World::<Physics>::new();
    let _ = world.resource::<Gravity>();
}
