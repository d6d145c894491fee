// `#[derive(Bundle)]` takes one `#[ecs(...)]` key, `crate = path`; any other
// is an error at the key.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Bundle)]
#[ecs(resource)]
pub struct Spot {
    pos: Pos,
}

fn main() {}
