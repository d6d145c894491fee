// A derived bundle names no schema; used with a world, each of its fields
// must be a component of that world's schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Health(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

#[derive(Bundle)]
pub struct Player {
    pos: Pos,
    health: Health,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.spawn(Player {
        pos: Pos(0),
        health: Health(10),
    });
}
