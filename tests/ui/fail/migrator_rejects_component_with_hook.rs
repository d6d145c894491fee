use ecs::prelude::*;
use ecs::command::Migrator;
use ecs::world::DeferredWorld;

struct Pos(f32);
struct Burning(u32);

fn lit(_: &mut DeferredWorld<Game>, _: Entity) {}

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(on_add = lit)]
    burning: Burning,
}

fn ignite(bodies: Query<Entity>, mut burning: Migrator<Game, Burning>) {
    for entity in bodies.iter() {
        let _ = burning.insert(entity, Burning(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(ignite);
}
