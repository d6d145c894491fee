// `for_each_table` goes through `&Query`, so it cannot hand out `&mut [T]`.
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
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each_table(|_, (pos, vel)| pos[0].0 += vel[0].0);
}
