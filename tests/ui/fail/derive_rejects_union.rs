// A schema lists components as the fields of a struct, not of a union.
use ecs::schema::Schema;

#[derive(Clone, Copy)]
pub struct Pos(pub i64);

#[derive(Schema)]
pub union Physics {
    pos: Pos,
}

fn main() {}
