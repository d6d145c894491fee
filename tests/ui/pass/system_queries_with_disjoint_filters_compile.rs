// Two queries of one system may both write a component when their filters
// prove that no entity is reached by both: one requires a component (through
// `With<T>` or by reading `&T`) that the other excludes with `Without<T>`.
use ecs::prelude::*;

#[derive(Debug, PartialEq)]
pub struct Pos(pub i64);
#[derive(Debug, PartialEq)]
pub struct Vel(pub i64);
#[derive(Debug, PartialEq)]
pub struct Frozen;

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
}

// `With<Vel>` against `Without<Vel>`, both writing `Pos`.
fn split_by_filter(
    mut moving: Query<&mut Pos, With<Vel>>,
    mut still: Query<&mut Pos, Without<Vel>>,
) {
    moving.for_each_mut(|pos| pos.0 += 1);
    still.for_each_mut(|pos| pos.0 -= 1);
}

// Reading `&Vel` requires `Vel` as `With<Vel>` does, so it is disjoint from
// `Without<Vel>` too.
fn split_by_read(mut moving: Query<(&mut Pos, &Vel)>, mut still: Query<&mut Pos, Without<Vel>>) {
    moving.for_each_mut(|(pos, vel)| pos.0 += vel.0);
    still.for_each_mut(|pos| pos.0 *= 10);
}

// A writer and a reader of one component, kept apart by a tag.
fn thaw(mut frozen: Query<&mut Pos, With<Frozen>>, thawed: Query<&Pos, Without<Frozen>>) {
    let lowest = thawed.iter().map(|pos| pos.0).min().unwrap_or(0);
    frozen.for_each_mut(|pos| pos.0 = lowest);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mover = world.spawn((Pos(0), Vel(5)));
    let rock = world.spawn((Pos(3),));
    let ice = world.spawn((Pos(100), Frozen));

    let mut schedule = Schedule::<Physics>::new();
    schedule.add(split_by_filter).add(split_by_read).add(thaw);
    schedule.run(&mut world);

    // mover: 0 + 1 + 5; rock: (3 - 1) * 10; ice: (100 - 1) * 10, then set to
    // the lowest position that is not frozen.
    assert_eq!(world.get::<Pos>(mover), Some(&Pos(6)));
    assert_eq!(world.get::<Pos>(rock), Some(&Pos(20)));
    assert_eq!(world.get::<Pos>(ice), Some(&Pos(6)));
}
