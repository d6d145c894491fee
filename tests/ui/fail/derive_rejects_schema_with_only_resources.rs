// Resources alone make no schema: at least one field must be a component.
use ecs::schema::Schema;

#[derive(Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    #[ecs(resource)]
    tick: Tick,
}

fn main() {}
