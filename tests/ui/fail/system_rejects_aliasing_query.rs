// A query that aliases (`(&mut Pos, &Pos)`) is rejected as a system parameter
// too, not only in `world.query`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn double(mut query: Query<(&mut Pos, &Pos)>) {
    query.for_each_mut(|(out, input)| out.0 = input.0 * 2);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(double);
    schedule.run(&mut world);
}
