// Each field becomes a mask flag named after it in upper case, so `pos` and
// `POS` would both be `PhysicsMask::POS`.
#![allow(non_snake_case)]
use ecs::schema::Schema;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    POS: Vel,
}

fn main() {}
