//! Every kind of run condition and the state API, as a user writes them.
use ecs::prelude::*;
use ecs::condition::{on_event, resource_changed};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Menu,
    Playing,
}
struct Pos(f32);
struct Hit;
#[derive(Default)]
struct Score(u32);

impl ecs::checksum::StableHash for Score {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}

#[derive(Schema)]
struct Game {
    #[ecs(track)]
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    score: Score,
    #[ecs(resource)]
    time: FixedTime,
    #[ecs(state)]
    phase: Phase,
}

fn step(mut q: Query<&mut Pos>) {
    q.for_each_mut(|pos| pos.0 += 1.0);
}

fn any_moved(q: Query<Entity, Changed<Pos>>, gone: Removed<Pos>) -> bool {
    !q.is_empty() || !gone.is_empty()
}

fn hits(events: EventReader<Hit>, mut seen: Local<u64>, score: Res<Score>) -> bool {
    *seen += events.len() as u64;
    *seen > u64::from(score.0)
}

fn start(mut next: NextState<Phase>) {
    next.set(Phase::Playing);
}

fn main() {
    let mut fixed = Schedule::<Game>::new();
    fixed.add(step.run_if(in_state(Phase::Playing).and(not(any_moved)).or(hits)));
    let mut frame = Schedule::<Game>::new();
    frame
        .on_exit(Phase::Menu, |_: Res<Score>| {})
        .on_enter(Phase::Playing, start)
        .add(start.run_if(on_event::<Hit>()).run_if(resource_changed::<Score>()))
        .add(|_: &mut World<Game>| {})
        .add((|_: &mut World<Game>| {}).run_if(|| true));
    let mut game = GameLoop::new(fixed, frame);
    let mut world = World::<Game>::new();
    game.run_frame(&mut world, core::time::Duration::from_millis(16));
}
