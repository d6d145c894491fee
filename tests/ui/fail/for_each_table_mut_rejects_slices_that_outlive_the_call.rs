// A table's slices are lent for one call: keeping one for the next table
// would let two `&mut [Pos]` of the query be alive at once.
use ecs::prelude::*;

pub struct Pos(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
}

fn main() {
    let mut world = World::<Physics>::new();
    let mut kept: Vec<&mut [Pos]> = Vec::new();
    world.query_mut::<&mut Pos>().for_each_table_mut(|_, pos| kept.push(pos));
    kept[0][0].0 += 1;
}
