// `struct S {}` lists no components either.
use ecs::Schema;

#[derive(Schema)]
pub struct Physics {}

fn main() {}
