// `Option<&mut Pos>` borrows `Pos` mutably where it exists, so it aliases `&Pos`.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut query = world.query_mut::<(&Pos, Option<&mut Pos>)>();
    query.for_each_mut(|(_pos, _maybe_pos)| {});
}
