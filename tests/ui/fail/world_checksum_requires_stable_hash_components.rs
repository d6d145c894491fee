// A checksum covers every component value, so each component type must be
// `StableHash`; the message names the one that is not, and the derive that
// fixes it.
use ecs::prelude::*;

#[derive(ecs::checksum::StableHash)]
struct Pos(f32);
struct Vel(f32);
#[derive(Default, ecs::checksum::StableHash)]
struct Frame(u64);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(resource)]
    frame: Frame,
}

fn main() {
    let world = World::<Game>::new();
    let _sum = world.checksum();
}
