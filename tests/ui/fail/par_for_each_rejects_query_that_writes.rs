// `par_for_each` takes `&self` and hands out shared items; a query that writes
// must use `par_for_each_mut`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn inertia(movers: Query<(&mut Pos, &Vel)>) {
    movers.par_for_each(|(pos, vel)| pos.0 += vel.0);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(inertia);
    schedule.run(&mut world);
}
