use ecs::prelude::*;

struct Pos(f32);
#[derive(Default)]
struct Clock(u64);
struct Hit(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource, track)]
    clock: Clock,
    #[ecs(event, resource)]
    hit: Hit,
}

fn main() {}
