// An unsized field before the last is the compiler's own error, at the field;
// the derive adds none, and code using the schema stays quiet.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    name: str,
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos(0),));
    let _ = world.get::<Pos>(e);
}
