use ecs::prelude::*;
use ecs::command::SparseMut;

struct Pos(f32);
struct Stun(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
}

// `Pos` lives in the tables: adding or removing it moves rows.
fn place(bodies: Query<Entity>, mut pos: SparseMut<Game, Pos>) {
    for entity in bodies.iter() {
        let _ = pos.insert(entity, Pos(0.0));
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(place);
}
