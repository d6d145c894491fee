// A schema fixes its component types once; it cannot be generic.
use ecs::schema::Schema;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics<T> {
    pos: Pos,
    extra: T,
}

fn main() {}
