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

// The query's view of who has `Stun` is taken before the run, and the
// `SparseMut` changes it during the run.
fn unstun(stunned: Query<Entity, With<Stun>>, mut stun: SparseMut<Game, Stun>) {
    for entity in stunned.iter() {
        let _ = stun.remove(entity);
    }
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(unstun);
}
