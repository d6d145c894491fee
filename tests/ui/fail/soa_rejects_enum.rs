// An enum's variants have different fields: no set of arrays holds them.
use ecs::prelude::*;

#[derive(Soa, Clone, Copy)]
pub enum Shape {
    Circle { radius: f32 },
    Square { side: f32 },
}

fn main() {}
