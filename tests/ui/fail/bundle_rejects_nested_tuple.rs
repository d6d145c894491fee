// Bundles do not nest: `((Pos, Vel), Acc)` names a tuple where a component
// goes.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);
pub struct Acc(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    acc: Acc,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.spawn(((Pos(0), Vel(1)), Acc(2)));
}
