// `remove_bundle` takes a bundle too: naming one component twice is an error.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos(0),));
    let _ = world.remove_bundle::<(Pos, Pos)>(e);
}
