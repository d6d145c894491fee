// `Entity` and tuples are not components by themselves (a query or `get`
// naming one says so), but a schema may still list them as fields.
use ecs::prelude::*;

#[derive(Debug, PartialEq)]
pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Links {
    pos: Pos,
    target: Entity,
    pair: (u8, u16),
}

fn main() {
    let mut world = World::<Links>::new();
    let target = world.spawn((Pos(1),));
    let e = world.spawn((Pos(0), target, (1u8, 2u16)));
    assert_eq!(world.get::<Entity>(e), Some(&target));
    assert_eq!(world.get::<(u8, u16)>(e), Some(&(1, 2)));
    let targets: Vec<Entity> = world.query::<&Entity>().iter().copied().collect();
    assert_eq!(targets, [target]);
}
