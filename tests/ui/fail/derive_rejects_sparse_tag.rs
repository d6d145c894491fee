use ecs::prelude::*;

struct Pos(f32);
struct Frozen;

#[derive(Schema)]
struct Physics {
    pos: Pos,
    #[ecs(sparse)]
    frozen: Frozen,
}

fn main() {}
