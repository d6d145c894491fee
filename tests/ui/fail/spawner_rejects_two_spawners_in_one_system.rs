use ecs::prelude::*;
use ecs::command::Spawner;

struct Pos(f32);
struct Vel(f32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
}

fn both(mut still: Spawner<Game, (Pos,)>, mut moving: Spawner<Game, (Pos, Vel)>) {
    still.spawn((Pos(0.0),));
    moving.spawn((Pos(0.0), Vel(1.0)));
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(both);
}
