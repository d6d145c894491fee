use ecs::prelude::*;
use ecs::command::Migrator;

struct Pos(f32);
struct Fuel(u32);
struct Oil(u32);
struct Burning(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    fuel: Fuel,
    oil: Oil,
    burning: Burning,
}

fn ignite(
    fuel: Query<Entity, Or<(With<Fuel>, With<Oil>)>>,
    mut burning: Migrator<Game, Burning, Or<(With<Fuel>, With<Oil>)>>,
) {
    for entity in fuel.iter() {
        let _ = burning.insert(entity, Burning(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(ignite);
}
