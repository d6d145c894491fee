// Two queries of one system may not both reach a component when one of them
// writes it: `Query<&mut Pos>` next to `Query<&Pos>` would read a `Pos` while
// it is being written.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn follow(mut followers: Query<&mut Pos>, leaders: Query<&Pos>) {
    for leader in leaders.iter() {
        followers.for_each_mut(|pos| pos.0 = leader.0);
    }
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(follow);
    schedule.run(&mut world);
}
