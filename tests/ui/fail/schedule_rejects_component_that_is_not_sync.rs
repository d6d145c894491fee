// Systems that only read a component share its column across threads, so a
// component must be `Sync` as well as `Send`; a `Cell` inside one is not.
use ecs::prelude::*;
use std::cell::Cell;

pub struct Pos(pub i64);
pub struct Hits(pub Cell<u32>);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    hits: Hits,
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.run(&mut world);
}
