// An `Or` reaches every entity any of its branches reaches. `Or<(With<Vel>,
// With<Frozen>)>` and `Without<Vel>` both reach a frozen entity without `Vel`,
// so the two `&mut Pos` would alias.
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

fn step(
    mut pushed: Query<&mut Pos, Or<(With<Vel>, With<Frozen>)>>,
    mut still: Query<&mut Pos, Without<Vel>>,
) {
    pushed.for_each_mut(|pos| pos.0 += 1);
    still.for_each_mut(|pos| pos.0 -= 1);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(step);
    schedule.run(&mut world);
}
