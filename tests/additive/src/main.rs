//! Keeps a `Local` of a type that has no serde impls, and runs it once: this
//! builds with and without `schemecs/serde` (see Cargo.toml).

use schemecs::checksum::StableHash;
use schemecs::prelude::*;

#[derive(Clone, Debug, PartialEq, StableHash)]
struct Pos(i64);

/// Everything a `Local` needs, and no `Serialize` or `Deserialize`.
#[derive(Clone, Debug, Default, StableHash)]
struct Cooldown(u32);

#[derive(Default)]
struct Shots(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    shots: Shots,
}

fn fire(mut cooldown: Local<Cooldown>, mut shots: ResMut<Shots>) {
    if cooldown.0 == 0 {
        shots.0 += 1;
        cooldown.0 = 3;
    } else {
        cooldown.0 -= 1;
    }
}

fn main() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(0),));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(fire);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Shots>().0, 1);
    println!(
        "a Local<Cooldown> ran (feature serde: {})",
        cfg!(feature = "serde")
    );
}
