// A system may not read a resource through `Res<T>` while it writes it
// through `ResMut<T>`.
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    tick: Tick,
}

fn advance(current: Res<Tick>, mut next: ResMut<Tick>) {
    next.0 = current.0 + 1;
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(advance);
    schedule.run(&mut world);
}
