// `#[derive(Soa)]` stores each named field in an array of its own; a tuple
// struct has no names for its arrays.
use ecs::prelude::*;

#[derive(Soa, Clone, Copy)]
pub struct Pos(pub f32, pub f32);

fn main() {}
