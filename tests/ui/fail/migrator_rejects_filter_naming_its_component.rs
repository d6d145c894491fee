use ecs::prelude::*;
use ecs::command::Migrator;

struct Pos(f32);
struct Burning(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    burning: Burning,
}

// A move would take each entity out of the tables the filter matches.
fn ignite(
    cold: Query<Entity, Without<Burning>>,
    mut burning: Migrator<Game, Burning, Without<Burning>>,
) {
    for entity in cold.iter() {
        let _ = burning.insert(entity, Burning(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(ignite);
}
