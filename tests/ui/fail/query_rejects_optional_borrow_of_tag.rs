// `Option<&Tag>` borrows the tag where it exists, and a tag has no column.
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
    let query = world.query::<(&Pos, Option<&Frozen>)>();
    query.for_each(|(_pos, _frozen)| {});
}
