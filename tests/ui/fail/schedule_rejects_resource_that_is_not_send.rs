// A schedule lends resources to systems on other threads, so every resource
// of its schema must be `Send`; an `Rc` inside a resource is not.
use ecs::prelude::*;
use std::rc::Rc;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Names(pub Vec<Rc<str>>);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    names: Names,
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.run(&mut world);
}
