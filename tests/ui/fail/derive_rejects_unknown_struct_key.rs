// The one struct-level `#[ecs(...)]` key is `crate = path`; an unknown one is an error.
use ecs::schema::Schema;

pub struct Pos(pub i64);

#[derive(Schema)]
#[ecs(parallel)]
pub struct Physics {
    pos: Pos,
}

fn main() {}
