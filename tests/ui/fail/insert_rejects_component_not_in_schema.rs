// `insert` takes a bundle of the world's schema, like `spawn`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Health(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos(0),));
    let _ = world.insert(e, (Health(10),));
}
