use ecs::prelude::*;
use ecs::command::Spawner;
use ecs::world::DeferredWorld;

struct Pos(f32);
struct Stun(u32);

fn stunned(_: &mut DeferredWorld<Game>, _: Entity) {}

// `Stun` is both sparse and hooked: either alone keeps it out of a spawner.
#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(sparse, on_add = stunned)]
    stun: Stun,
}

fn stunned_bodies(mut spawner: Spawner<Game, (Pos, Stun)>) {
    spawner.spawn((Pos(0.0), Stun(1)));
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(stunned_bodies);
}
