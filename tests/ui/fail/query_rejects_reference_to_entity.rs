// `Entity` is a query item by value; `&Entity` would borrow a component.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let world = World::<Physics>::new();
    for (_entity, _pos) in world.query::<(&Entity, &Pos)>().iter() {}
}
