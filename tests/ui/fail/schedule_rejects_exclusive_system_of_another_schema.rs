// An exclusive system of one schema's world cannot be added to the schedule of
// another schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Label(pub &'static str);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

#[derive(Schema)]
pub struct Ui {
    label: Label,
}

fn clear_labels(world: &mut World<Ui>) {
    world.clear();
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(clear_labels);
    schedule.run(&mut world);
}
