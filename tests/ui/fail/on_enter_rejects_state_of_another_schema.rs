use ecs::prelude::*;

struct Pos(f32);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Menu,
    Playing,
}
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Screen {
    #[default]
    Title,
    Credits,
}

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(state)]
    phase: Phase,
}

#[derive(Schema)]
struct Menu {
    pos: Pos,
    #[ecs(state)]
    screen: Screen,
}

fn spawn_level(mut commands: Commands<Game>) {
    commands.spawn((Pos(0.0),));
}

fn main() {
    let mut schedule = Schedule::<Game>::new();
    schedule.on_enter(Phase::Playing, spawn_level);
    // `Screen` is a state of `Menu`, not of `Game`.
    schedule.on_enter(Screen::Credits, spawn_level);
}
