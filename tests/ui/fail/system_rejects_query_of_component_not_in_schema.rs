// A system's query may only name components of the schedule's schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Health(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn heal(mut living: Query<&mut Health>) {
    living.for_each_mut(|health| health.0 += 1);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(heal);
    schedule.run(&mut world);
}
