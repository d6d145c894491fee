// `World::query` borrows the world shared, so its query cannot write: a
// writing query is built with `World::query_mut`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn main() {
    let world = World::<Physics>::new();
    let _movers = world.query::<(&mut Pos, &Vel)>();
}
