use ecs::prelude::*;
use ecs::command::SparseMut;
use ecs::world::DeferredWorld;

struct Pos(f32);
struct Stun(u32);

fn stunned(_: &mut DeferredWorld<Game>, _: Entity) {}

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse, on_add = stunned)]
    stun: Stun,
}

fn stun_all(bodies: Query<Entity>, mut stun: SparseMut<Game, Stun>) {
    for entity in bodies.iter() {
        let _ = stun.insert(entity, Stun(1));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(stun_all);
}
