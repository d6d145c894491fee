use ecs::prelude::*;

struct Pos(f32);

// Neither `Clone` nor `StableHash`: a snapshot could not copy it, nor a
// checksum see it.
#[derive(Default)]
struct Targets(Vec<Entity>);

#[derive(Schema)]
struct Game {
    pos: Pos,
}

fn aim(mut targets: Local<Targets>, shooters: Query<Entity, With<Pos>>) {
    targets.0.extend(shooters.iter());
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(aim);
}
