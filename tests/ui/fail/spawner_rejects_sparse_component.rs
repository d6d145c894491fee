use ecs::prelude::*;
use ecs::command::Spawner;

struct Pos(f32);
struct Stun(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
}

fn stunned(mut spawner: Spawner<Game, (Pos, Stun)>) {
    spawner.spawn((Pos(0.0), Stun(1)));
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(stunned);
}
