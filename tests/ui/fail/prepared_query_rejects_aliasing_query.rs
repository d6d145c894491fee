// A prepared query is checked as a query made on the world is: `(&Vel, &mut
// Pos, &Pos)` would hand out `&mut Pos` and `&Pos` to one value.
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
    let mut query = world.prepare::<(&Vel, &mut Pos, &Pos)>();
    query.for_each_mut(&mut world, |(v, p, q)| p.0 += v.0 + q.0);
}
