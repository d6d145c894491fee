// Saving needs every component and resource to be `Serialize`: the error
// names the one that is not (through the column type of its schema) and the
// derive that fixes it.
use ecs::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Pos(f32);
#[derive(Deserialize)]
struct Handle(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    handle: Handle,
}

fn main() {
    let world = World::<Game>::new();
    let _json = serde_json::to_string(&world);
}
