// A checksum covers the resources too: a resource that is not `StableHash`
// is named, with its schema.
use ecs::prelude::*;

#[derive(ecs::checksum::StableHash)]
struct Pos(f32);
#[derive(Default)]
struct Frame(u64);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    frame: Frame,
}

fn main() {
    let world = World::<Game>::new();
    let _sum = world.checksum();
}
