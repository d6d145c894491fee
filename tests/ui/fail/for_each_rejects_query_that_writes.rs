// `for_each` goes through `&Query`, so it cannot hand out `&mut` items.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.query_mut::<&mut Pos>().for_each(|pos| pos.0 += 1);
}
