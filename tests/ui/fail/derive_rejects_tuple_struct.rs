// Components are named fields: the field name becomes the mask flag's name.
use ecs::schema::Schema;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics(Pos, Vel);

fn main() {}
