// A state is kept in the resource `State<Phase>`, so `Res<Phase>` is no
// resource: the error names `Res<State<Phase>>` for reading and
// `NextState<Phase>` for requesting a change.
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    #[default]
    Menu,
    Playing,
}

#[derive(Schema)]
pub struct Game {
    pos: Pos,
    #[ecs(state)]
    phase: Phase,
}

fn start(phase: Res<Phase>) {
    let _ = *phase;
}

fn main() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(start);
    schedule.run(&mut world);
}
