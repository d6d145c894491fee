use ecs::prelude::*;

struct Pos(f32);
struct Hit(u32);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
}

fn echo(hits: EventReader<Hit>, mut out: EventWriter<Hit>) {
    let echoed: Vec<u32> = hits.read().map(|hit| hit.0).collect();
    out.send_batch(echoed.into_iter().map(Hit));
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(echo);
}
