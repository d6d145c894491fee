// `Pos` is a component: `ResMut<Pos>` must not suggest making it a resource
// too (one type in two fields is an error), but say to use a query.
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    tick: Tick,
}

fn nudge(mut pos: ResMut<Pos>) {
    pos.0 += 1;
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(nudge);
    schedule.run(&mut world);
}
