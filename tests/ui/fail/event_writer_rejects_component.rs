use ecs::prelude::*;

struct Pos(f32);
struct Hit(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
}

fn shoot(mut hits: EventWriter<Pos>) {
    let _ = &mut hits;
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(shoot);
}
