use ecs::prelude::*;
use ecs::command::Migrator;

struct Pos(f32);
struct Fuel(u32);
struct Burning(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(track)]
    fuel: Fuel,
    burning: Burning,
}

fn ignite(
    refuelled: Query<Entity, Changed<Fuel>>,
    mut burning: Migrator<Game, Burning, Changed<Fuel>>,
) {
    for entity in refuelled.iter() {
        let _ = burning.insert(entity, Burning(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(ignite);
}
