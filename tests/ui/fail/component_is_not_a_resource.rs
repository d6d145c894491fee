// A component is not a resource: `resource::<Pos>()` is an error.
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
    let world = World::<Physics>::new();
    let _ = world.resource::<Pos>();
}
