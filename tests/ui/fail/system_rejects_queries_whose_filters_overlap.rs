// Filters make two writing queries disjoint only when one requires a component
// the other excludes. `With<Vel>` and `Without<Frozen>` both match an entity
// that has `Vel` and no `Frozen`, so the two `&mut Pos` would alias.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);
pub struct Frozen;

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
}

fn step(mut moving: Query<&mut Pos, With<Vel>>, mut thawed: Query<&mut Pos, Without<Frozen>>) {
    moving.for_each_mut(|pos| pos.0 += 1);
    thawed.for_each_mut(|pos| pos.0 -= 1);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(step);
    schedule.run(&mut world);
}
