// An exclusive system takes `&mut World<S>` and nothing else: the whole world
// already includes every query, resource and command a parameter could give.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn respawn(world: &mut World<Physics>, mut commands: Commands<Physics>) {
    if world.is_empty() {
        commands.spawn((Pos(0),));
    }
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(respawn);
    schedule.run(&mut world);
}
