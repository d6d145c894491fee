use ecs::prelude::*;

struct Pos(f32);
struct Hit(u32);
struct Miss;

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
}

fn main() {
    let mut world = World::<Game>::new();
    world.send_event(Miss);
}
