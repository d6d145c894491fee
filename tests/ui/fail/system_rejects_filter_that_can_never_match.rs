// `(With<Frozen>, Without<Frozen>)` can never hold: a system taking such a
// query would silently see nothing.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Frozen;

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    frozen: Frozen,
}

fn thaw(mut q: Query<&mut Pos, (With<Frozen>, Without<Frozen>)>) {
    q.for_each_mut(|pos| pos.0 = 0);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(thaw);
    schedule.run(&mut world);
}
