// Filters keep the entities of these two queries apart, but not their
// `Stun` values: a sparse component is one set for every entity, lent to
// one writer at a time.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);
pub struct Stun(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    #[ecs(sparse)]
    stun: Stun,
}

fn wear_off(mut moving: Query<&mut Stun, With<Vel>>, mut still: Query<&mut Stun, Without<Vel>>) {
    moving.for_each_mut(|stun| stun.0 = stun.0.saturating_sub(2));
    still.for_each_mut(|stun| stun.0 = stun.0.saturating_sub(1));
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(wear_off);
    schedule.run(&mut world);
}
