// A conflict between two of a system's parameters names the two: by
// position in the message, by type in the const whose evaluation failed
// (`ParamPair::<Physics, 1, Query<&mut Pos>, 3, Query<&Pos>>`). Here the
// parameter between them takes part in no conflict.
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

fn follow(mut followers: Query<&mut Pos>, tick: Res<Tick>, leaders: Query<&Pos>) {
    for leader in leaders.iter() {
        followers.for_each_mut(|pos| pos.0 = leader.0 + tick.0 as i64);
    }
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(follow);
    schedule.run(&mut world);
}
