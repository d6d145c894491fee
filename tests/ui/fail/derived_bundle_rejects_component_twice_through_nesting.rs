// A component named by a bundle and by a bundle nested in it is named twice.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);
pub struct Body(pub u8);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    body: Body,
}

#[derive(Bundle)]
pub struct Motion {
    pos: Pos,
    vel: Vel,
}

#[derive(Bundle)]
pub struct Ship {
    body: Body,
    vel: Vel,
    #[bundle]
    motion: Motion,
}

fn main() {
    let mut world = World::<Physics>::new();
    let ship = world.spawn((Body(0),));
    world
        .insert(
            ship,
            Ship {
                body: Body(1),
                vel: Vel(0),
                motion: Motion {
                    pos: Pos(0),
                    vel: Vel(1),
                },
            },
        )
        .unwrap();
}
