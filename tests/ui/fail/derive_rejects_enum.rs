// A schema lists components as the fields of a struct; an enum has none.
use ecs::schema::Schema;

pub struct Pos(pub i64);

#[derive(Schema)]
pub enum Physics {
    Pos(Pos),
}

fn main() {}
