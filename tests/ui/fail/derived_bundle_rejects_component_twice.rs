// An entity holds at most one value per component: a derived bundle may
// not name one twice.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

#[derive(Bundle)]
pub struct Teleport {
    from: Pos,
    to: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.spawn(Teleport {
        from: Pos(0),
        to: Pos(1),
    });
}
