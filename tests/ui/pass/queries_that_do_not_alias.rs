// Queries that borrow disjoint columns, or only read a column twice, compile
// and run.
use ecs::prelude::*;

#[derive(Debug, PartialEq)]
pub struct Pos(pub i64);
#[derive(Debug, PartialEq)]
pub struct Vel(pub i64);
#[derive(Debug, PartialEq)]
pub struct Frozen;
#[derive(Debug, PartialEq)]
pub struct Player;

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    player: Player,
}

fn main() {
    let mut world = World::<Physics>::new();
    let a = world.spawn((Pos(1), Vel(10)));
    let b = world.spawn((Pos(2), Vel(20), Frozen));
    let c = world.spawn((Pos(3), Player));

    // A write and a read of different components.
    world
        .query_mut::<(&mut Pos, &Vel)>()
        .for_each_mut(|(pos, vel)| pos.0 += vel.0);
    assert_eq!(world.get::<Pos>(a), Some(&Pos(11)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(22)));
    assert_eq!(world.get::<Pos>(c), Some(&Pos(3)));

    // Two shared reads of one component.
    let mut pairs: Vec<(i64, i64)> = world
        .query::<(&Pos, &Pos)>()
        .iter()
        .map(|(x, y)| (x.0, y.0))
        .collect();
    pairs.sort();
    assert_eq!(pairs, [(3, 3), (11, 11), (22, 22)]);

    // `Has<T>` borrows nothing, so it goes with `&mut T`; it works on tags.
    world
        .query_mut::<(&mut Pos, Has<Pos>, Has<Frozen>)>()
        .for_each_mut(|(pos, has_pos, frozen)| {
            assert!(has_pos);
            if frozen {
                pos.0 = 0;
            }
        });
    assert_eq!(world.get::<Pos>(b), Some(&Pos(0)));

    // Filters on tags.
    let frozen: Vec<Entity> = world
        .query_filtered::<Entity, With<Frozen>>()
        .iter()
        .collect();
    assert_eq!(frozen, [b]);
    let mut moving: Vec<Entity> = world
        .query_filtered::<Entity, (With<Vel>, Without<Frozen>, Without<Player>)>()
        .iter()
        .collect();
    moving.sort();
    assert_eq!(moving, [a]);

    // `Option<&mut T>` next to a different component, mutably and shared.
    world
        .query_mut::<(&Pos, Option<&mut Vel>)>()
        .for_each_mut(|(pos, vel)| {
            if let Some(vel) = vel {
                vel.0 += pos.0;
            }
        });
    assert_eq!(world.get::<Vel>(a), Some(&Vel(21)));
    assert_eq!(world.get::<Vel>(b), Some(&Vel(20)));
    assert_eq!(world.get::<Vel>(c), None);

    // `&mut` of two different components, next to `Entity` and a tag's `Has`.
    let mut query = world.query_mut::<(Entity, &mut Pos, &mut Vel, Has<Player>)>();
    assert_eq!(query.count(), 2);
    for (_entity, pos, vel, player) in query.iter_mut() {
        assert!(!player);
        core::mem::swap(&mut pos.0, &mut vel.0);
    }
    assert_eq!(world.get::<Pos>(a), Some(&Pos(21)));
    assert_eq!(world.get::<Vel>(a), Some(&Vel(11)));
}
