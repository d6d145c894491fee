// An `Or` is disjoint from a query when every one of its branches is:
// `Or<(With<Vel>, With<Frozen>)>` against `(Without<Vel>, Without<Frozen>)`.
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

fn step(
    mut pushed: Query<&mut Pos, Or<(With<Vel>, With<Frozen>)>>,
    mut rest: Query<&mut Pos, (Without<Vel>, Without<Frozen>)>,
) {
    pushed.for_each_mut(|pos| pos.0 += 1);
    rest.for_each_mut(|pos| pos.0 -= 1);
}

// Both sides with `Or`: a branch of one requires what each branch of the
// other excludes.
fn both_or(
    mut a: Query<&mut Vel, Or<((With<Pos>, With<Frozen>), (With<Pos>, Without<Frozen>))>>,
    mut b: Query<&mut Vel, Or<(Without<Pos>,)>>,
) {
    a.for_each_mut(|vel| vel.0 += 10);
    b.for_each_mut(|vel| vel.0 -= 10);
}

fn main() {
    let mut world = World::<Physics>::new();
    let mover = world.spawn((Pos(0), Vel(0)));
    let ice = world.spawn((Pos(0), Frozen));
    let rock = world.spawn((Pos(0),));
    let drifter = world.spawn((Vel(0),));
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(step).add(both_or);
    schedule.run(&mut world);
    assert_eq!(world.get::<Pos>(mover), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(ice), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(rock), Some(&Pos(-1)));
    assert_eq!(world.get::<Vel>(mover), Some(&Vel(10)));
    assert_eq!(world.get::<Vel>(drifter), Some(&Vel(-10)));
}
