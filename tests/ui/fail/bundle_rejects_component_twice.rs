// An entity holds at most one value per component.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.spawn((Pos(0), Pos(1)));
}
