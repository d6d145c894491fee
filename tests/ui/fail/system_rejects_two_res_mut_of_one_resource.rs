// A system may take `ResMut<T>` of one resource only once: two would be two
// `&mut T` to the same value.
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

fn advance(mut a: ResMut<Tick>, mut b: ResMut<Tick>) {
    a.0 += 1;
    b.0 += 1;
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(advance);
    schedule.run(&mut world);
}
