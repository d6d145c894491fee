//! A whole game loop: a menu, play, a pause and a game over (a state with
//! exit and enter systems), physics at a fixed 50 Hz step beside a frame
//! rate that wanders (a `GameLoop`), systems that run only in some phases
//! (run conditions), and input from a script, so the run is reproducible.
//!
//! The game: balls fall towards a floor and bounce off the walls; a ball
//! that reaches the floor costs a life (an event from the fixed step, read
//! by the frame) and starts again at the top; the third life lost ends the
//! game. The script presses "start" on the menu, then "pause" twice.
//!
//! The program checks the phases the game went through against the
//! expected sequence, then plays the same frames through a rollback every
//! few frames, as a rollback netcode session would: snapshot the world
//! (`clone`), run on with a wrong guess of the input, restore
//! (`clone_from`) and run the frames again with the real input. Every
//! frame's `checksum()` must match the straight run's: the state, its
//! pending transition, the fixed step's accumulator, the systems' change
//! windows and locals all live in the world.
//!
//! ```text
//! cargo run --release --example game_loop
//! ```

use core::time::Duration;
use schemecs::checksum::StableHash;
use schemecs::prelude::*;

/// A position, in thousandths of a unit: integers, so replays are exact on
/// every machine.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos {
    x: i64,
    y: i64,
}
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel {
    x: i64,
    y: i64,
}
/// A ball reached the floor.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Missed;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
enum Phase {
    #[default]
    Menu,
    Playing,
    Paused,
    GameOver,
}

/// This frame's buttons, set from the script before the frame runs.
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Input {
    start: bool,
    pause: bool,
}
#[derive(Clone, Debug, PartialEq, StableHash)]
struct Lives(u32);
impl Default for Lives {
    fn default() -> Self {
        Lives(3)
    }
}
/// The phases the game went through, in order, as the frames saw them.
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct History(Vec<Phase>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    #[ecs(event)]
    missed: Missed,
    #[ecs(resource)]
    time: FixedTime,
    #[ecs(resource)]
    input: Input,
    #[ecs(resource)]
    lives: Lives,
    #[ecs(resource)]
    history: History,
    #[ecs(state)]
    phase: Phase,
}

const WIDTH: i64 = 10_000;
const TOP: i64 = 10_000;

// The fixed step: 50 Hz, only while playing.

fn physics(mut balls: Query<(&mut Pos, &mut Vel)>, mut missed: EventWriter<Missed>) {
    for (pos, vel) in balls.iter_mut() {
        pos.x += vel.x;
        pos.y += vel.y;
        if pos.x < 0 || pos.x > WIDTH {
            vel.x = -vel.x;
            pos.x = pos.x.clamp(0, WIDTH);
        }
        if pos.y <= 0 {
            missed.send(Missed);
            pos.y = TOP;
        }
    }
}

// The frame.

/// Turns the buttons into transitions.
fn controls(input: Res<Input>, mut next: NextState<Phase>) {
    match *next.current() {
        Phase::Menu if input.start => next.set(Phase::Playing),
        Phase::Playing if input.pause => next.set(Phase::Paused),
        Phase::Paused if input.pause => next.set(Phase::Playing),
        _ => {}
    }
}

/// One life per ball that reached the floor since this system last ran
/// (it skips frames outside play: its window accumulates, so a miss in
/// the frame's last fixed step is still counted).
fn lose_lives(missed: EventReader<Missed>, mut lives: ResMut<Lives>, mut next: NextState<Phase>) {
    lives.0 = lives.0.saturating_sub(missed.len() as u32);
    if lives.0 == 0 {
        next.set(Phase::GameOver);
    }
}

fn record(phase: Res<State<Phase>>, mut history: ResMut<History>) {
    if history.0.last() != Some(phase.get()) {
        history.0.push(*phase.get());
    }
}

// Exit and enter systems.

fn spawn_level(mut commands: Commands<Game>) {
    for i in 0..4 {
        let pos = Pos {
            x: 1_000 + 2_500 * i,
            y: TOP - 700 * i,
        };
        let vel = Vel {
            x: 130 - 90 * i,
            y: -150 - 20 * i,
        };
        commands.spawn((pos, vel));
    }
}

fn clear_level(balls: Query<Entity, With<Pos>>, mut commands: Commands<Game>) {
    for ball in balls.iter() {
        commands.despawn(ball);
    }
}

fn game() -> GameLoop<Game> {
    let mut fixed = Schedule::<Game>::new();
    fixed.add(physics.run_if(in_state(Phase::Playing)));
    let mut frame = Schedule::<Game>::new();
    frame
        .on_exit(Phase::Menu, spawn_level)
        .on_enter(Phase::GameOver, clear_level)
        .add(controls)
        .add(lose_lives.run_if(in_state(Phase::Playing)))
        .add(record);
    GameLoop::new(fixed, frame)
}

fn new_world() -> World<Game> {
    let mut world = World::<Game>::new();
    *world.resource_mut::<FixedTime>() = FixedTime::from_hz(50).with_max_steps(5);
    world
}

/// The scripted input of frame `n`.
fn script(n: usize) -> Input {
    Input {
        start: n == 10,
        pause: n == 40 || n == 70,
    }
}

/// The time frame `n` took: 60 fps, with hitches.
fn frame_time(n: usize) -> Duration {
    const MS: [u64; 9] = [16, 17, 16, 33, 8, 16, 50, 17, 0];
    Duration::from_millis(MS[n % MS.len()])
}

const FRAMES: usize = 400;

/// Runs frame `n`: sets its input, then the loop. Returns the fixed steps.
fn run_frame(game: &mut GameLoop<Game>, world: &mut World<Game>, n: usize, input: Input) -> u32 {
    *world.resource_mut::<Input>() = input;
    game.run_frame(world, frame_time(n))
}

fn main() {
    // The straight run: every frame's checksum, for the rollback to match.
    let mut world = new_world();
    let mut game = game();
    let mut checksums = Vec::with_capacity(FRAMES);
    let mut steps = 0;
    for n in 0..FRAMES {
        steps += run_frame(&mut game, &mut world, n, script(n));
        checksums.push(world.checksum());
    }
    let history = world.resource::<History>().0.clone();
    println!("{FRAMES} frames, {steps} fixed steps; phases: {history:?}");
    assert_eq!(
        history,
        [
            Phase::Menu,
            Phase::Playing,
            Phase::Paused,
            Phase::Playing,
            Phase::GameOver
        ]
    );
    assert_eq!(world.resource::<Lives>().0, 0);
    assert!(world.is_empty(), "the game over cleared the level");
    println!("{}", game.frame().describe());

    // The same frames through a rollback every 7 frames: 4 frames run on a
    // wrong guess (no buttons at all), then restored and run again.
    let mut world = new_world();
    let mut game = self::game();
    let mut n = 0;
    let mut rollbacks = 0;
    while n < FRAMES {
        let snapshot = world.clone();
        let ahead = (n + 4).min(FRAMES);
        for m in n..ahead {
            run_frame(&mut game, &mut world, m, Input::default());
        }
        world.clone_from(&snapshot);
        rollbacks += 1;
        // The same frames again, then three more, then the next rollback.
        let next = (ahead + 3).min(FRAMES);
        for (m, &expected) in checksums.iter().enumerate().take(next).skip(n) {
            run_frame(&mut game, &mut world, m, script(m));
            assert_eq!(world.checksum(), expected, "frame {m}");
        }
        n = next;
    }
    println!("{rollbacks} rollbacks, every frame's checksum matches the straight run");
}
