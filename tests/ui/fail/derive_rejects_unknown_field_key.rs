// A misspelt field key must not silently turn a resource into a component.
use ecs::schema::Schema;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resourse)]
    tick: Tick,
}

fn main() {}
