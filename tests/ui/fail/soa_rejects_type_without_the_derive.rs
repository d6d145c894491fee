// `#[ecs(soa)]` needs the field's type to derive `Soa`.
use ecs::prelude::*;

#[derive(Clone, Copy)]
pub struct Pos {
    pub x: f32,
}

#[derive(Schema)]
pub struct Physics {
    #[ecs(soa)]
    pos: Pos,
}

fn main() {}
