// A schema without components has no archetypes to store.
use ecs::Schema;

#[derive(Schema)]
pub struct Physics;

fn main() {}
