use ecs::prelude::*;
use ecs::checksum::StableHash;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Pos(f32);

// Everything a `Local` needs but `Serialize` and `Deserialize`: a
// `SavedLocal`, which a save writes, needs them too.
#[derive(Clone, Default, StableHash)]
struct Cooldown(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
}

fn fire(mut cooldown: SavedLocal<Cooldown>) {
    cooldown.0 = cooldown.0.saturating_sub(1);
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(fire);
}
