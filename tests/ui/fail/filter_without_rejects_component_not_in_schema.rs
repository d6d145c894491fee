// A `Without<T>` filter may only name components of the world's schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Health(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    for _pos in world.query_filtered::<&Pos, Without<Health>>().iter() {}
}
