// Two queries of one system may not both write a component unless their
// filters keep them apart: both would hand out `&mut Pos` to the same entity.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn step(mut movers: Query<(&mut Pos, &Vel)>, mut all: Query<&mut Pos>) {
    movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
    all.for_each_mut(|pos| pos.0 = pos.0.clamp(-100, 100));
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(step);
    schedule.run(&mut world);
}
