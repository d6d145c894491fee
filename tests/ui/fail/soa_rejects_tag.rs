// A struct without fields is a tag: nothing to store field by field.
use ecs::prelude::*;

#[derive(Soa, Clone, Copy)]
pub struct Frozen {}

fn main() {}
