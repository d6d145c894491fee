// A schema whose components and resources are all `Serialize` and
// `Deserialize` saves and loads, with serde's functions or `World::load`.
use ecs::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Pos(f32);
#[derive(Default, Serialize, Deserialize)]
struct Frame(u64);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    frame: Frame,
}

fn main() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1.0),));
    let json = serde_json::to_string(&world).unwrap();
    let loaded = World::<Game>::load(&mut serde_json::Deserializer::from_str(&json)).unwrap();
    assert_eq!(loaded.get::<Pos>(e), Some(&Pos(1.0)));
    let _: World<Game> = serde_json::from_str(&json).unwrap();
}
