// A component is stored by value, so its size must be known: one error, at
// the field. (The struct itself is unsized too, so code that makes a
// `World<Physics>` fails as well, saying so.)
use ecs::prelude::*;

pub struct Pos(pub i64);
pub trait Shape {}

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    shape: dyn Shape,
}

fn main() {}
