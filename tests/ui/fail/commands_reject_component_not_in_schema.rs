// Commands are typed by the schema: a spawn or an insert may only carry
// components of `Commands<S>`'s schema.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Health(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn populate(positions: Query<Entity, With<Pos>>, mut commands: Commands<Physics>) {
    for entity in positions.iter() {
        commands.insert(entity, (Health(10),));
    }
    commands.spawn((Pos(0), Health(10)));
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(populate);
    schedule.run(&mut world);
}
