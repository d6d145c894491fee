// A nested bundle that names a component twice is rejected where the outer
// bundle is used: its own check runs too.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

#[derive(Bundle)]
pub struct Jump {
    from: Pos,
    to: Pos,
}

#[derive(Bundle)]
pub struct Leap {
    vel: Vel,
    #[bundle]
    jump: Jump,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.spawn(Leap {
        vel: Vel(1),
        jump: Jump {
            from: Pos(0),
            to: Pos(1),
        },
    });
}
