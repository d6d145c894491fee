use ecs::prelude::*;

struct Pos(f32);
#[derive(Default)]
struct Clock(u64);
struct Hit(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource, sparse)]
    clock: Clock,
    #[ecs(event)]
    #[ecs(sparse)]
    hit: Hit,
    #[ecs(sparse, sparse)]
    stun: u8,
}

fn main() {}
