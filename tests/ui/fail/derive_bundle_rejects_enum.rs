// A bundle holds all of its components at once: an enum holds one variant.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

#[derive(Bundle)]
pub enum Either {
    Pos(Pos),
    Vel(Vel),
}

fn main() {
    // No second error here: the derive stands in for the impl.
    let mut world = World::<Physics>::new();
    world.spawn(Either::Pos(Pos(0)));
}
