// A system may run on another thread, so a closure system must be `Send`: it
// cannot capture an `Rc`.
use ecs::prelude::*;
use std::rc::Rc;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let step = Rc::new(2);
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(move |mut positions: Query<&mut Pos>| {
        positions.for_each_mut(|pos| pos.0 += *step);
    });
    schedule.run(&mut world);
}
