// Loading needs every component and resource to be `Deserialize`: the error
// names the resource that is not, and the derive that fixes it.
use ecs::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Pos(f32);
#[derive(Default, Serialize)]
struct Frame(u64);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    frame: Frame,
}

fn main() {
    let _loaded = World::<Game>::load(&mut serde_json::Deserializer::from_str("[]"));
}
