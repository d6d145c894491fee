// No struct-level `#[ecs(...)]` key exists; an unknown one is an error.
use ecs::schema::Schema;

pub struct Pos(pub i64);

#[derive(Schema)]
#[ecs(parallel)]
pub struct Physics {
    pos: Pos,
}

fn main() {}
