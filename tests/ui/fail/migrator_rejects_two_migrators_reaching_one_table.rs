use ecs::prelude::*;
use ecs::command::Migrator;

struct Pos(f32);
struct Fuel(u32);
struct Burning(u32);
struct Smoke(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    fuel: Fuel,
    burning: Burning,
    smoke: Smoke,
}

// Both reach the tables with `Fuel`: the moves of one would displace the
// rows the other recorded.
fn ignite(
    fuel: Query<Entity, With<Fuel>>,
    mut burning: Migrator<Game, Burning, With<Fuel>>,
    mut smoke: Migrator<Game, Smoke, With<Fuel>>,
) {
    for entity in fuel.iter() {
        let _ = burning.insert(entity, Burning(1));
        let _ = smoke.insert(entity, Smoke(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(ignite);
}
