use ecs::prelude::*;

struct Pos(f32);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Menu,
    Playing,
}

// `Phase` is declared as a resource, not as a state.
#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    phase: Phase,
}

fn step(mut q: Query<&mut Pos>) {
    q.for_each_mut(|pos| pos.0 += 1.0);
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(step.run_if(in_state(Phase::Playing)));
}
