// A tag (zero-sized component) has no column to borrow; use `Has` or `With`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Frozen;

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    frozen: Frozen,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.query_mut::<&mut Frozen>().for_each_mut(|_frozen| {});
}
