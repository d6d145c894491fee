// `iter()` goes through `&Query`, so it cannot hand out `&mut` items.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn main() {
    let mut world = World::<Physics>::new();
    for _item in world.query_mut::<(&mut Pos, &Vel)>().iter() {}
}
