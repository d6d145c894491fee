// `par_for_each_mut_with` hands each chunk a recorder of its own, appended
// in iteration order; a resource has no such form (the chunks would write
// it at once, from several threads).
use ecs::prelude::*;

pub struct Pos(pub i64);
#[derive(Default)]
pub struct Total(pub i64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    #[ecs(resource)]
    total: Total,
}

fn sum(mut bodies: Query<&mut Pos>, mut total: ResMut<Total>) {
    bodies.par_for_each_mut_with(&mut total, |total, pos| {
        total.0 += pos.0;
    });
}

fn main() {
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(sum);
}
