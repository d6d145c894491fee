// A bundle without fields holds no component; a zero-sized component (a
// tag) belongs in the schema, and an entity with no components is spawned
// from `()`.
use ecs::prelude::*;

#[derive(Bundle)]
pub struct Frozen;

#[derive(Bundle)]
pub struct Nothing {}

fn main() {}
