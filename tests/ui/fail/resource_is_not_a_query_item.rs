// A resource is not a component: it cannot be queried.
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    tick: Tick,
}

fn main() {
    let mut world = World::<Physics>::new();
    for _tick in world.query::<&Tick>().iter() {}
}
