// `#[ecs(debug)]` makes a diff print component values, so each component
// type must be `Debug`; the message names the one that is not, and the two
// fixes.
use ecs::prelude::*;

#[derive(Debug, ecs::checksum::StableHash)]
struct Pos(f32);
#[derive(ecs::checksum::StableHash)]
struct Vel(f32);

#[derive(Schema)]
#[ecs(debug)]
struct Game {
    pos: Pos,
    vel: Vel,
}

fn main() {
    let world = World::<Game>::new();
    let _diff = world.diff(&World::new());
}
