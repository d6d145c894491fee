// `&Pos` requires `Pos` and `Without<Pos>` excludes it: no entity could ever
// match, so the query is a mistake, not an empty result.
use ecs::prelude::*;

pub struct Pos(pub i64);
pub struct Vel(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
}

fn main() {
    let world = World::<Physics>::new();
    let _ = world.query_filtered::<(&Pos, &Vel), Without<Pos>>().count();
}
