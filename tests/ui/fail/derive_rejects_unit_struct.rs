// A schema without components has no archetypes to store.
use ecs::schema::Schema;

#[derive(Schema)]
pub struct Physics;

fn main() {}
