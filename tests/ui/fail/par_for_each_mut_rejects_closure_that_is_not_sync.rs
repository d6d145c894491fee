// `par_for_each_mut` calls its closure from several threads at once, so the
// closure must be `Sync`: counting into a `Cell` would be a data race.
use ecs::prelude::*;
use std::cell::Cell;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1),));
    let moved = Cell::new(0);
    world.query_mut::<&mut Pos>().par_for_each_mut(|pos| {
        pos.0 += 1;
        moved.set(moved.get() + 1);
    });
    assert_eq!(moved.get(), 1);
}
