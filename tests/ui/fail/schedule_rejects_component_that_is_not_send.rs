// A schedule runs systems on several threads, so every component of its
// schema must be `Send + Sync`; an `Rc` inside a component is neither.
use ecs::prelude::*;
use std::rc::Rc;

pub struct Pos(pub i64);
pub struct Name(pub Rc<str>);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    name: Name,
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.run(&mut world);
}
