use ecs::prelude::*;
use ecs::command::Spawner;

struct Pos(f32);
struct Vel(f32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
}

// `Query<&Pos>` reaches the [Pos] table the spawner pushes rows to.
fn split(bodies: Query<&Pos>, mut spawner: Spawner<Game, (Pos,)>) {
    for pos in bodies.iter() {
        spawner.spawn((Pos(pos.0 / 2.0),));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(split);
}
