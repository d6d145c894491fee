// A system written for one schema (here through `Commands<Ui>`) cannot be
// added to the schedule of another.
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

fn add_label(mut commands: Commands<Ui>) {
    commands.spawn((Label("hello"),));
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(add_label);
    schedule.run(&mut world);
}
