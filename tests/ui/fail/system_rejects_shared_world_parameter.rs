// Only `&mut World<S>` makes an exclusive system; `&World<S>` is not a system
// parameter (read through `Query` and `Res` instead, which can run in parallel).
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn report(world: &World<Physics>) {
    println!("{} entities", world.len());
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(report);
    schedule.run(&mut world);
}
