use ecs::prelude::*;

struct Pos(f32);
#[derive(Default)]
struct Lives(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    lives: Lives,
}

// A condition that spends a life as it decides: conditions only read.
fn alive(mut lives: ResMut<Lives>) -> bool {
    lives.0 = lives.0.saturating_sub(1);
    lives.0 > 0
}

fn step(mut q: Query<&mut Pos>) {
    q.for_each_mut(|pos| pos.0 += 1.0);
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(step.run_if(alive));
}
