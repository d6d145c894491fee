// `struct S {}` lists no components either.
use ecs::schema::Schema;

#[derive(Schema)]
pub struct Physics {}

fn main() {}
