use ecs::prelude::*;

struct Pos(f32);
struct Vel(f32);

#[derive(Schema)]
struct Physics {
    #[ecs(track)]
    pos: Pos,
    vel: Vel,
}

fn gone(_removed: Removed<Vel>) {}

fn main() {
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(gone);
}
