use ecs::prelude::*;
use ecs::command::Migrator;

struct Pos(f32);
struct Stun(u32);
struct Burning(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
    burning: Burning,
}

fn ignite(stunned: Query<Entity, With<Stun>>, mut burning: Migrator<Game, Burning, With<Stun>>) {
    for entity in stunned.iter() {
        let _ = burning.insert(entity, Burning(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(ignite);
}
