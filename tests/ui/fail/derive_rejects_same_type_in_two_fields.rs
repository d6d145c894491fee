// A component's bit is found from its type alone, so a type appears once.
use ecs::schema::Schema;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    old_pos: Pos,
}

fn main() {}
