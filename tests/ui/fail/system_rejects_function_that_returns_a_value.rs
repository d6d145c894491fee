// A system returns `()`: the schedule has nowhere to put a result, so a
// system that computes one must not compile rather than have it dropped.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn count(positions: Query<&Pos>) -> usize {
    positions.count()
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(count);
    schedule.run(&mut world);
}
