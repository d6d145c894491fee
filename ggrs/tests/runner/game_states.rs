//! GGRS sync tests of a game that is made of states and run conditions:
//! a menu, play, pause and game over (`#[ecs(state)]` with exit and enter
//! systems), systems that run only in some phases (`in_state`), only when
//! an event came (`on_event`) or a resource changed (`resource_changed`),
//! and a condition with a `Local` of its own. Every frame the session rolls
//! back seven frames and simulates them again, so the state, its pending
//! transition, the skipped systems' windows and the conditions' locals must
//! all come back exactly with the world.

use schemecs::prelude::*;

use schemecs::checksum::StableHash;
use schemecs::condition::{on_event, resource_changed};
use schemecs_ggrs::ggrs::{Config, PlayerHandle, SessionBuilder};
use schemecs_ggrs::{GgrsRunner, PlayerInputs, SnapshotSlot};
use std::net::SocketAddr;

struct Net;

impl Config for Net {
    type Input = u8;
    type InputPredictor = schemecs_ggrs::ggrs::PredictRepeatLast;
    type State = SnapshotSlot;
    type Address = SocketAddr;
}

const START: u8 = 1;
const PAUSE: u8 = 2;
const SERVE: u8 = 4;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
enum Phase {
    #[default]
    Menu,
    Playing,
    Paused,
    GameOver,
}

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Height(i32);

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Speed(i32);

/// A ball reached the floor.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Missed;

#[derive(Clone, Debug, PartialEq, StableHash)]
struct Lives(u32);

impl Default for Lives {
    fn default() -> Self {
        Lives(12)
    }
}

/// What happened, for the tests to look at.
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Stats {
    levels: u32,
    pauses: u32,
    served: u32,
    lost: u32,
    life_changes: u32,
    /// Frames on which the every-fourth-frame condition held.
    beats: u32,
    game_overs: u32,
}

#[derive(Schema)]
struct Court {
    height: Height,
    speed: Speed,
    #[ecs(event)]
    missed: Missed,
    #[ecs(resource)]
    inputs: PlayerInputs<Net>,
    #[ecs(resource)]
    lives: Lives,
    #[ecs(resource)]
    stats: Stats,
    #[ecs(state)]
    phase: Phase,
}

/// The buttons any player holds this frame.
fn buttons(inputs: &PlayerInputs<Net>) -> u8 {
    inputs
        .as_slice()
        .iter()
        .fold(0, |held, (input, _)| held | *input)
}

fn controls(inputs: Res<PlayerInputs<Net>>, mut next: NextState<Phase>) {
    let held = buttons(&inputs);
    match *next.current() {
        Phase::Menu if held & START != 0 => next.set(Phase::Playing),
        Phase::Playing if held & PAUSE != 0 => next.set(Phase::Paused),
        Phase::Paused if held & START != 0 => next.set(Phase::Playing),
        _ => {}
    }
}

fn serve(inputs: Res<PlayerInputs<Net>>, mut commands: Commands<Court>, mut stats: ResMut<Stats>) {
    if buttons(&inputs) & SERVE != 0 {
        commands.spawn((Height(60), Speed(-1)));
        stats.served += 1;
    }
}

fn fall(mut balls: Query<(Entity, &mut Height, &Speed)>, mut missed: EventWriter<Missed>) {
    for (_, height, speed) in balls.iter_mut() {
        height.0 += speed.0;
        if height.0 <= 0 {
            missed.send(Missed);
            height.0 = 60;
        }
    }
}

/// Runs only on frames with a miss (`on_event`); its window accumulates
/// over the frames it skips, so no miss is lost.
fn lose_lives(
    missed: EventReader<Missed>,
    mut lives: ResMut<Lives>,
    mut stats: ResMut<Stats>,
    mut next: NextState<Phase>,
) {
    let lost = missed.len() as u32;
    stats.lost += lost;
    lives.0 = lives.0.saturating_sub(lost);
    if lives.0 == 0 {
        next.set(Phase::GameOver);
    }
}

fn count_life_changes(mut stats: ResMut<Stats>) {
    stats.life_changes += 1;
}

/// A condition with state of its own: true every fourth time it is asked.
fn every_fourth(mut asked: Local<u32>) -> bool {
    *asked += 1;
    asked.is_multiple_of(4)
}

fn beat(mut stats: ResMut<Stats>) {
    stats.beats += 1;
}

fn start_level(mut commands: Commands<Court>, mut stats: ResMut<Stats>) {
    commands.spawn((Height(30), Speed(-2)));
    stats.levels += 1;
}

fn pause(mut stats: ResMut<Stats>) {
    stats.pauses += 1;
}

fn clear_court(balls: Query<Entity, With<Height>>, mut commands: Commands<Court>) {
    balls.for_each(|ball| commands.despawn(ball));
}

fn game_over(mut stats: ResMut<Stats>) {
    stats.game_overs += 1;
}

fn schedule() -> Schedule<Court> {
    let mut schedule = Schedule::new();
    schedule
        .on_exit(Phase::Menu, start_level)
        .on_enter(Phase::Paused, pause)
        .on_enter(Phase::GameOver, clear_court)
        .on_enter(Phase::GameOver, game_over)
        .add(controls)
        .add(serve.run_if(in_state(Phase::Playing)))
        .add(fall.run_if(in_state(Phase::Playing)))
        .add(lose_lives.run_if(in_state(Phase::Playing).and(on_event::<Missed>())))
        .add(count_life_changes.run_if(resource_changed::<Lives>()))
        .add(beat.run_if(in_state(Phase::Playing).and(every_fourth)));
    schedule
}

/// Player `player`'s buttons at `frame`: start at frame 5, serve now and
/// then, a pause from frame 100 to 140, then start again.
fn input(player: PlayerHandle, frame: i32) -> u8 {
    let mut held = 0;
    if frame == 5 || frame == 140 {
        held |= START;
    }
    if frame == 100 && player == 0 {
        held |= PAUSE;
    }
    if frame % 37 == player as i32 * 11 {
        held |= SERVE;
    }
    held
}

const FRAMES: i32 = 1_000;

/// `FRAMES` frames of a sync test at check distance 7 with two players;
/// the stats, the final phase and the final checksum.
fn sync_test() -> (Stats, Phase, u128) {
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    let mut runner = GgrsRunner::new(World::new(), schedule(), session.max_prediction());
    for frame in 0..FRAMES {
        for player in 0..2 {
            session
                .add_local_input(player, input(player, frame))
                .unwrap();
        }
        let requests = session.advance_frame().unwrap_or_else(|error| {
            panic!("frame {frame}: {error}");
        });
        runner.handle_requests(requests).expect("requests in order");
    }
    let world = runner.world();
    (
        *world.resource::<Stats>(),
        *world.state::<Phase>(),
        runner.checksum(),
    )
}

fn on_threads<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(run)
}

/// No mismatch in 1,000 frames on 1 and 4 threads, the same end on both,
/// and the game went through every phase: the transitions, the skipped
/// systems and the conditions' locals were all rolled back and replayed.
#[test]
fn a_game_of_states_and_run_conditions_passes_the_sync_test() {
    let one = on_threads(1, sync_test);
    let four = on_threads(4, sync_test);
    let (stats, phase, _) = one;
    eprintln!("{FRAMES} frames: {stats:?}, ends in {phase:?}");
    assert_eq!(one, four);
    assert_eq!(phase, Phase::GameOver, "{stats:?}");
    assert_eq!((stats.levels, stats.pauses, stats.game_overs), (1, 1, 1));
    assert!(stats.served > 5 && stats.lost >= 12, "{stats:?}");
    // `resource_changed` holds on its first evaluation, then once per
    // frame with a miss (at least one miss each), never more.
    assert!(
        stats.life_changes > 1 && stats.life_changes <= stats.lost + 1,
        "{stats:?}"
    );
    assert!(stats.beats > 10, "{stats:?}");
}
