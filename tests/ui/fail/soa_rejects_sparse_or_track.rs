// A sparse set keeps whole values by entity; change detection of a
// component stored field by field is not supported yet.
use ecs::prelude::*;

#[derive(Soa, Clone, Copy)]
pub struct Pos {
    pub x: f32,
}

#[derive(Soa, Clone, Copy)]
pub struct Vel {
    pub x: f32,
}

#[derive(Schema)]
pub struct Physics {
    #[ecs(soa, sparse)]
    pos: Pos,
    #[ecs(soa, track)]
    vel: Vel,
}

fn main() {}
