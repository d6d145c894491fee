use ecs::prelude::*;
use ecs::command::Migrator;

struct Pos(f32);
struct Stun(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
}

fn stun_all(bodies: Query<Entity>, mut stun: Migrator<Game, Stun>) {
    for entity in bodies.iter() {
        let _ = stun.insert(entity, Stun(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(stun_all);
}
