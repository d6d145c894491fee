// A sparse component keeps entities apart but not columns: both queries
// below are lent the `Pos` column of every table that holds `Pos`, so
// `With<Stun>` against `Without<Stun>` cannot make the two `&mut Pos` safe
// when `Stun` is `#[ecs(sparse)]`.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Stun(pub u32);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
}

fn step(mut stunned: Query<&mut Pos, With<Stun>>, mut free: Query<&mut Pos, Without<Stun>>) {
    stunned.for_each_mut(|pos| pos.0 = 0);
    free.for_each_mut(|pos| pos.0 += 1);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(step);
    schedule.run(&mut world);
}
