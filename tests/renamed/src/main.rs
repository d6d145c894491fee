//! Every derive of `schemecs`, under the dependency's new name `engine`:
//! told by `#[ecs(crate = engine)]`, or (feature `detect`) found in the
//! manifest. Without the key, and without the feature, the derives would
//! name `::schemecs`, which this crate does not have.

use engine::checksum::StableHash;
use engine::prelude::*;
use engine::query::Fields;

#[derive(Clone, Copy, Debug, PartialEq, StableHash, Soa)]
#[ecs(crate = engine)]
struct Pos {
    x: i64,
    y: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
#[ecs(crate = engine)]
struct Vel(i64);

/// serde's spelling of the key, a string, works too.
#[derive(Bundle)]
#[ecs(crate = "engine")]
struct Mover {
    pos: Pos,
    vel: Vel,
}

#[derive(Default)]
struct Steps(u32);

#[derive(Schema)]
#[ecs(crate = engine)]
struct Game {
    #[ecs(soa)]
    pos: Pos,
    vel: Vel,
    #[ecs(resource)]
    steps: Steps,
}

fn step(mut movers: Query<(Fields<&mut Pos>, &Vel)>, mut steps: ResMut<Steps>) {
    movers.for_each_mut(|(pos, vel)| *pos.x += vel.0);
    steps.0 += 1;
}

/// A schema that says nothing of the crate's name: found in the manifest.
#[cfg(feature = "detect")]
#[derive(Schema)]
struct Found {
    vel: Vel,
}

fn main() {
    let mut world = World::<Game>::new();
    let mover = world.spawn(Mover {
        pos: Pos { x: 1, y: 2 },
        vel: Vel(3),
    });
    let mut schedule = Schedule::<Game>::new();
    schedule.add(step);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Steps>().0, 1);
    assert_eq!(
        world.get_soa::<Pos>(mover).map(|p| (*p.x, *p.y)),
        Some((4, 2))
    );
    #[cfg(feature = "detect")]
    {
        let mut found = World::<Found>::new();
        found.spawn((Vel(1),));
        assert_eq!(found.query::<&Vel>().iter().count(), 1);
    }
    println!(
        "the derives named `schemecs` as `engine` (feature detect: {})",
        cfg!(feature = "detect")
    );
}
