use ecs::prelude::*;

struct Pos(f32);
struct Vel(f32);

#[derive(Schema)]
struct Physics {
    #[ecs(track)]
    pos: Pos,
    vel: Vel,
}

fn main() {
    let world = World::<Physics>::new();
    let _ = world.query_filtered::<Entity, Changed<Vel>>().iter().count();
}
