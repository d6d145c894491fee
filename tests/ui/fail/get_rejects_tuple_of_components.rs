// `get` takes one component; a tuple of components is not one, and the
// message says what reads several.
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
    let e = world.spawn((Pos(0), Vel(1)));
    let _ = world.get::<(Pos, Vel)>(e);
}
