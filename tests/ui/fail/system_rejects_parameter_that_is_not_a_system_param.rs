// Every parameter of a system comes from the world: a plain value such as a
// `factor: i64` cannot be supplied by the schedule. (Put it in a resource.)
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn scale(mut positions: Query<&mut Pos>, factor: i64) {
    positions.for_each_mut(|pos| pos.0 *= factor);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(scale);
    schedule.run(&mut world);
}
