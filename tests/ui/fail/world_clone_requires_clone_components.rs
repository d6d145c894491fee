// A schema with a component that is not `Clone` compiles, and its world
// works; only cloning it fails, with a message that names the component, the
// schema, and the fix.
use ecs::prelude::*;

#[derive(Clone)]
struct Pos(i64);
struct Handle(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    handle: Handle,
}

fn main() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(1), Handle(7)));
    let _snapshot = world.clone();
}
