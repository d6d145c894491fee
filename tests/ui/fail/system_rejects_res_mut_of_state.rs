// A state is kept in the resource `State<Phase>`, so `ResMut<Phase>` is no
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

fn start(mut phase: ResMut<Phase>) {
    *phase = Phase::Playing;
}

fn main() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(start);
    schedule.run(&mut world);
}
