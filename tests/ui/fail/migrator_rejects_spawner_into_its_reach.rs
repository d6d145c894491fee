use ecs::prelude::*;
use ecs::command::{Migrator, Spawner};

struct Pos(f32);
struct Fuel(u32);
struct Burning(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    fuel: Fuel,
    burning: Burning,
}

// The spawner's rows land in the [Pos, Fuel] table, which the migrator
// reaches.
fn refuel(
    mut logs: Spawner<Game, (Pos, Fuel)>,
    mut burning: Migrator<Game, Burning, With<Fuel>>,
) {
    let log = logs.spawn((Pos(0.0), Fuel(3)));
    let _ = burning.insert(log, Burning(1));
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(refuel);
}
