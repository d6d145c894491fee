// A sparse set keeps whole values by entity; `soa` splits a table column.
use ecs::prelude::*;

#[derive(Soa, Clone, Copy)]
pub struct Pos {
    pub x: f32,
}

#[derive(Schema)]
pub struct Physics {
    #[ecs(soa, sparse)]
    pos: Pos,
}

fn main() {}
