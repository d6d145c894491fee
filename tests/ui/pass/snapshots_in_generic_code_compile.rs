// `World::clone`, `clone_from` and `checksum` are also inherent methods (so
// that their errors name the component at fault); code generic over the
// schema still calls them with only the trait bounds it states.
use ecs::prelude::*;

#[derive(Clone, Debug, PartialEq, ecs::checksum::StableHash)]
pub struct Pos(pub f32);
#[derive(Clone, Default, ecs::checksum::StableHash)]
pub struct Frame(pub u64);

#[derive(Schema)]
pub struct Game {
    pos: Pos,
    #[ecs(resource)]
    frame: Frame,
}

fn snapshot<S: Schema>(world: &World<S>, ring: &mut [World<S>]) -> World<S>
where
    World<S>: Clone,
{
    for slot in ring.iter_mut() {
        slot.clone_from(world);
    }
    world.clone()
}

fn main() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Pos(1.0),));
    let mut ring = vec![World::<Game>::new()];
    let copy = snapshot(&world, &mut ring);
    assert_eq!(copy.get::<Pos>(e), Some(&Pos(1.0)));
    assert_eq!(Clone::clone(&world).checksum(), ring[0].checksum());
}
