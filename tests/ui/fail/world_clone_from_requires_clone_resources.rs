// A resource that is not `Clone` makes the world not `Clone` either:
// `clone_from` says which resource, of which schema.
use ecs::prelude::*;

#[derive(Clone)]
struct Pos(i64);
#[derive(Default)]
struct Log(Vec<String>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    log: Log,
}

fn main() {
    let world = World::<Game>::new();
    let mut ring = vec![World::<Game>::new(), World::<Game>::new()];
    ring[0].clone_from(&world);
}
