// A system's `Res<T>` may only name a resource of the schedule's schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);
#[derive(Default)]
pub struct Gravity(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    tick: Tick,
}

fn fall(mut bodies: Query<&mut Pos>, gravity: Res<Gravity>) {
    bodies.for_each_mut(|pos| pos.0 -= gravity.0);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(fall);
    schedule.run(&mut world);
}
