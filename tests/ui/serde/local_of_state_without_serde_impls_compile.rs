// Feature `serde` only adds: a `Local` needs nothing of serde with it on,
// so a crate that builds without the feature builds with it. (A save of a
// world holding the value is refused at run time, naming the system.)
use ecs::prelude::*;
use ecs::checksum::StableHash;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Pos(f32);

// No `Serialize`, no `Deserialize`.
#[derive(Clone, Default, StableHash)]
struct Cooldown(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
}

fn fire(mut cooldown: Local<Cooldown>) {
    cooldown.0 = cooldown.0.saturating_sub(1);
}

fn ready(cooldown: Local<Cooldown>) -> bool {
    cooldown.0 == 0
}

fn main() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(fire.run_if(ready));
    schedule.run(&mut world);
}
