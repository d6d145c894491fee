// A bundle recorded by `Commands` may name a component only once, as in
// `world.spawn`: an entity holds at most one value per component.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn spawn_pair(mut commands: Commands<Physics>) {
    commands.spawn((Pos(0), Vel(1), Pos(2)));
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(spawn_pair);
    schedule.run(&mut world);
}
