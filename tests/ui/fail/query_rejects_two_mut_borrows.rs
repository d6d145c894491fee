// `(&mut Pos, &mut Pos)` would hand out two `&mut` to one value.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut query = world.query_mut::<(&mut Pos, &mut Pos)>();
    query.for_each_mut(|(a, b)| a.0 += b.0);
}
