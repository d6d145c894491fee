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
    let world = World::<Physics>::new();
    let query = world.query::<(&Pos, &Frozen)>();
    query.for_each(|(_pos, _frozen)| {});
}
