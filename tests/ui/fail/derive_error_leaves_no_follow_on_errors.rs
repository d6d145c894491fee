// A mistake in the schema is reported once, at the mistake: code that uses
// the schema (its world, mask, resources, components, systems) stays quiet
// until the schema is fixed.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    #[ecs(resourse)]
    tick: Tick,
}

fn advance(mut positions: Query<(&mut Pos, &Vel)>, tick: Res<Tick>) {
    positions.for_each_mut(|(pos, vel)| pos.0 += vel.0 * tick.0 as i64);
}

fn main() {
    let mut world = World::<Physics>::new();
    let a = world.spawn((Pos(1), Vel(2)));
    let mask: PhysicsMask = PhysicsMask::POS | PhysicsMask::VEL;
    let _ = (mask, Physics::NAME, world.get::<Pos>(a));
    world.resource_mut::<Tick>().0 += 1;
    let _resources = PhysicsResources::default();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(advance);
    schedule.run(&mut world);
}
