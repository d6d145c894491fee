//! Robustness of the runner: loads of frames never saved or overwritten,
//! requests in unusual orders, disconnected players, a schedule that panics
//! inside an advance, and the checksum reported for each frame.

use schemecs::checksum::StableHash;
use schemecs::prelude::*;
use schemecs_ggrs::ggrs::{
    self, GameStateCell, GgrsRequest, InputStatus, PredictRepeatLast, SessionBuilder,
};
use schemecs_ggrs::{GgrsRunner, PlayerInputs, RollbackError, SnapshotSlot};
use std::panic::{catch_unwind, AssertUnwindSafe};

struct Net;

impl ggrs::Config for Net {
    type Input = u8;
    type InputPredictor = PredictRepeatLast;
    type State = SnapshotSlot;
    type Address = std::net::SocketAddr;
}

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Count(u32);

#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Total(u64);

/// The statuses the last advance saw, as numbers.
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Seen(Vec<u8>);

/// An input that makes `bomb` panic.
const BOMB: u8 = 255;

#[derive(Schema)]
struct Game {
    count: Count,
    #[ecs(resource)]
    total: Total,
    #[ecs(resource)]
    seen: Seen,
    #[ecs(resource)]
    inputs: PlayerInputs<Net>,
}

/// Adds every input to the total (its own stage: it writes `Total`).
fn add(mut total: ResMut<Total>, inputs: Res<PlayerInputs<Net>>) {
    total.0 += inputs
        .as_slice()
        .iter()
        .map(|&(input, _)| u64::from(input))
        .sum::<u64>();
}

/// Spawns an entity per player through commands.
fn spawn(inputs: Res<PlayerInputs<Net>>, mut commands: Commands<Game>) {
    for &(input, _) in inputs.as_slice() {
        commands.spawn((Count(u32::from(input)),));
    }
}

/// Records the statuses; panics on [`BOMB`] (after `add`: it reads `Total`).
fn bomb(inputs: Res<PlayerInputs<Net>>, total: Res<Total>, mut seen: ResMut<Seen>) {
    let _ = total.0;
    seen.0.clear();
    for &(input, status) in inputs.as_slice() {
        assert!(input != BOMB, "boom");
        seen.0.push(match status {
            InputStatus::Confirmed => 0,
            InputStatus::Predicted => 1,
            InputStatus::Disconnected => 2,
        });
    }
}

fn schedule() -> Schedule<Game> {
    let mut schedule = Schedule::new();
    schedule.add(add).add(spawn).add(bomb);
    schedule
}

fn runner(ring: usize) -> GgrsRunner<Game, Net> {
    GgrsRunner::with_ring_len(World::new(), schedule(), ring)
}

fn save(cell: &GameStateCell<SnapshotSlot>, frame: i32) -> GgrsRequest<Net> {
    GgrsRequest::SaveGameState {
        cell: cell.clone(),
        frame,
    }
}

fn load(cell: &GameStateCell<SnapshotSlot>, frame: i32) -> GgrsRequest<Net> {
    GgrsRequest::LoadGameState {
        cell: cell.clone(),
        frame,
    }
}

fn advance(inputs: &[u8]) -> GgrsRequest<Net> {
    GgrsRequest::AdvanceFrame {
        inputs: inputs
            .iter()
            .map(|&input| (input, InputStatus::Confirmed))
            .collect(),
    }
}

/// What a runner is: frame, rollbacks, checksum of its world, total, len.
fn state(runner: &GgrsRunner<Game, Net>) -> (i32, u64, u128, u64, usize) {
    (
        runner.frame(),
        runner.rollbacks(),
        runner.checksum(),
        runner.world().resource::<Total>().0,
        runner.world().len(),
    )
}

// ------------------------------------------------------------ loads that must fail

#[test]
fn a_load_of_a_frame_never_saved_is_an_error_and_changes_nothing() {
    let mut runner = runner(4);
    let cell = GameStateCell::default();
    runner
        .handle_requests([save(&cell, 0), advance(&[1, 2]), advance(&[3, 4])])
        .unwrap();
    let before = state(&runner);
    // A cell never saved to.
    let fresh = GameStateCell::default();
    assert_eq!(
        runner.handle_requests([load(&fresh, 1)]),
        Err(RollbackError::NeverSaved { frame: 1 })
    );
    assert_eq!(state(&runner), before);
    // A cell saved for another frame than the one asked.
    assert_eq!(
        runner.handle_requests([load(&cell, 1)]),
        Err(RollbackError::NeverSaved { frame: 1 })
    );
    assert_eq!(state(&runner), before);
    // The requests after the failed one are dropped.
    assert!(runner
        .handle_requests([load(&fresh, 0), advance(&[9])])
        .is_err());
    assert_eq!(state(&runner), before);
}

#[test]
fn a_load_of_an_overwritten_frame_is_an_error_and_changes_nothing() {
    let mut runner = runner(2);
    let cells: Vec<GameStateCell<SnapshotSlot>> =
        (0..3).map(|_| GameStateCell::default()).collect();
    runner
        .handle_requests([
            save(&cells[0], 0),
            advance(&[1]),
            save(&cells[1], 1),
            advance(&[2]),
            save(&cells[2], 2),
            advance(&[3]),
        ])
        .unwrap();
    let before = state(&runner);
    assert_eq!(
        runner.handle_requests([load(&cells[0], 0)]),
        Err(RollbackError::Overwritten {
            frame: 0,
            slot: 0,
            holds: Some(2)
        })
    );
    assert_eq!(state(&runner), before);
    // Frames 1 and 2 are still there.
    runner.handle_requests([load(&cells[1], 1)]).unwrap();
    assert_eq!(runner.frame(), 1);
    assert_eq!(runner.world().resource::<Total>().0, 1);
    runner.handle_requests([load(&cells[2], 2)]).unwrap();
    assert_eq!(runner.world().resource::<Total>().0, 3);
}

/// A cell saved by another runner: this runner never saved to it.
#[test]
fn a_cell_saved_by_another_runner_is_never_saved() {
    let (mut one, mut other) = (runner(4), runner(4));
    let cell = GameStateCell::default();
    one.handle_requests([save(&cell, 0), advance(&[5])])
        .unwrap();
    other.handle_requests([advance(&[7])]).unwrap();
    let before = state(&other);
    let result = other.handle_requests([load(&cell, 0)]);
    assert_eq!(state(&other), before);
    assert_eq!(result, Err(RollbackError::NeverSaved { frame: 0 }));
    // Even when this runner saved the same frame to the same ring slot
    // itself: the cell is still the other's.
    let (mut one, mut other) = (runner(4), runner(4));
    let (cell, own) = (GameStateCell::default(), GameStateCell::default());
    one.handle_requests([save(&cell, 0), advance(&[5])])
        .unwrap();
    other
        .handle_requests([save(&own, 0), advance(&[7])])
        .unwrap();
    let before = state(&other);
    let result = other.handle_requests([load(&cell, 0)]);
    assert_eq!(result, Err(RollbackError::NeverSaved { frame: 0 }));
    assert_eq!(state(&other), before);
}

// ------------------------------------------------------------ unusual orders

#[test]
fn a_save_of_a_frame_the_world_is_not_at_is_refused_and_changes_nothing() {
    let mut runner = runner(4);
    runner.handle_requests([advance(&[1])]).unwrap();
    let before = state(&runner);
    let cell = GameStateCell::default();
    for frame in [0, 2, 100] {
        assert_eq!(
            runner.handle_requests([save(&cell, frame)]),
            Err(RollbackError::SaveOutOfStep {
                requested: frame,
                at: 1
            })
        );
        assert_eq!(state(&runner), before);
        assert_eq!(runner.saved().count(), 0, "nothing was saved");
        assert!(cell.data().is_none(), "the cell was not written");
    }
}

#[test]
fn requests_before_a_failed_one_stay_fulfilled() {
    let mut runner = runner(4);
    let fresh = GameStateCell::default();
    let result = runner.handle_requests([advance(&[2]), advance(&[3]), load(&fresh, 0)]);
    assert_eq!(result, Err(RollbackError::NeverSaved { frame: 0 }));
    assert_eq!(runner.frame(), 2);
    assert_eq!(runner.world().resource::<Total>().0, 5);
}

#[test]
fn saving_twice_loading_twice_and_resaving_after_a_rollback_are_consistent() {
    let mut runner = runner(4);
    let (c0, c1) = (GameStateCell::default(), GameStateCell::default());
    runner
        .handle_requests([
            save(&c0, 0),
            save(&c0, 0),
            advance(&[1]),
            save(&c1, 1),
            advance(&[2]),
            load(&c0, 0),
            load(&c0, 0),
        ])
        .unwrap();
    assert_eq!(runner.frame(), 0);
    assert_eq!(runner.rollbacks(), 2);
    assert_eq!(runner.world().resource::<Total>().0, 0);
    assert_eq!(runner.world().len(), 0);
    // Another timeline: frame 1 saved again, over the old one.
    runner
        .handle_requests([advance(&[10]), save(&c1, 1), advance(&[1])])
        .unwrap();
    runner.handle_requests([load(&c1, 1)]).unwrap();
    assert_eq!(runner.world().resource::<Total>().0, 10);
    // The same world as a runner that never rolled back.
    let mut straight = self::runner(4);
    straight.handle_requests([advance(&[10])]).unwrap();
    assert_eq!(runner.checksum(), straight.checksum());
}

// ------------------------------------------------------------ disconnected players

#[test]
fn inputs_of_disconnected_players_reach_the_systems_as_given() {
    let mut runner = runner(4);
    let inputs = vec![
        (3, InputStatus::Confirmed),
        (0, InputStatus::Disconnected),
        (4, InputStatus::Predicted),
    ];
    runner
        .handle_requests([GgrsRequest::AdvanceFrame {
            inputs: inputs.clone(),
        }])
        .unwrap();
    let world = runner.world();
    assert_eq!(world.resource::<Seen>().0, [0, 2, 1]);
    assert_eq!(world.resource::<Total>().0, 7);
    assert_eq!(
        world.resource::<PlayerInputs<Net>>().as_slice(),
        &inputs[..]
    );
    let players = world.resource::<PlayerInputs<Net>>();
    assert_eq!(players.status(1), Some(InputStatus::Disconnected));
    assert_eq!(players.input(1), 0);
    assert_eq!(players.status(3), None);
    assert_eq!(players.input(3), 0);
    assert_eq!(world.len(), 3);
}

#[test]
fn a_sync_test_with_a_disconnected_player_passes() {
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(3)
        .start_synctest_session()
        .unwrap();
    let mut runner = GgrsRunner::new(World::<Game>::new(), schedule(), session.max_prediction());
    // Inputs as GGRS gives a disconnected player: the default, by hand.
    let mut by_hand = self::runner(4);
    for frame in 0..40u8 {
        session.add_local_input(0, frame % 5).unwrap();
        session.add_local_input(1, 0).unwrap();
        let requests = session.advance_frame().unwrap();
        runner.handle_requests(requests).unwrap();
        by_hand
            .handle_requests([GgrsRequest::AdvanceFrame {
                inputs: vec![
                    (frame % 5, InputStatus::Confirmed),
                    (0, InputStatus::Disconnected),
                ],
            }])
            .unwrap();
    }
    // Only the statuses differ (and `Seen`, which records them).
    let counts = |r: &GgrsRunner<Game, Net>| -> Vec<u32> {
        r.world().query::<&Count>().iter().map(|c| c.0).collect()
    };
    assert_eq!(counts(&runner), counts(&by_hand));
    assert_eq!(
        runner.world().resource::<Total>(),
        by_hand.world().resource::<Total>()
    );
    assert_eq!(runner.world().resource::<Seen>().0, [0, 0]);
    assert_eq!(by_hand.world().resource::<Seen>().0, [0, 2]);
    let mut same = by_hand.world().clone();
    same.resource_mut::<Seen>().0 = vec![0, 0];
    assert_eq!(runner.checksum(), same.checksum());
}

// ------------------------------------------------------------ a panic inside advance

/// A schedule that panics inside the advance of a saved frame (as a session
/// saves each frame before advancing it): the panic goes on, and the world
/// is put back to the frame's snapshot, though a system before the
/// panicking one already ran.
#[test]
fn a_panic_inside_the_advance_of_a_saved_frame_leaves_the_world_as_it_was() {
    let mut runner = runner(4);
    let cells = [GameStateCell::default(), GameStateCell::default()];
    runner
        .handle_requests([save(&cells[0], 0), advance(&[1]), save(&cells[1], 1)])
        .unwrap();
    let before = state(&runner);
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        runner.handle_requests([advance(&[BOMB])])
    }));
    assert!(panicked.is_err(), "the schedule panicked");
    assert_eq!(state(&runner), before, "half of the advance was applied");
    // The runner goes on from there.
    runner
        .handle_requests([advance(&[2]), save(&cells[0], 2)])
        .unwrap();
    assert_eq!(runner.frame(), 2);
}

/// The same in a frame that was not saved: nothing to put back, so the
/// runner refuses to save the half advanced world (or advance it) until a
/// load.
#[test]
fn after_a_panic_in_an_unsaved_frame_the_runner_refuses_to_save_until_a_load() {
    let mut runner = runner(4);
    let cell = GameStateCell::default();
    runner
        .handle_requests([save(&cell, 0), advance(&[1])])
        .unwrap();
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        runner.handle_requests([advance(&[BOMB])])
    }));
    assert!(panicked.is_err(), "the schedule panicked");
    let other = GameStateCell::default();
    assert_eq!(
        runner.handle_requests([save(&other, 1)]),
        Err(RollbackError::Poisoned { frame: 1 })
    );
    assert!(
        other.data().is_none(),
        "the half advanced world was not saved"
    );
    assert_eq!(
        runner.handle_requests([advance(&[1])]),
        Err(RollbackError::Poisoned { frame: 1 })
    );
    runner
        .handle_requests([load(&cell, 0), advance(&[1]), save(&other, 1)])
        .unwrap();
    let mut clean = self::runner(4);
    clean.handle_requests([advance(&[1])]).unwrap();
    assert_eq!(state(&runner).2, state(&clean).2, "the checksums");
}

/// After a panic, a load and a fresh advance give what a runner that never
/// panicked gives: nothing of the failed run leaks into the next.
#[test]
fn after_a_panic_a_rollback_continues_as_if_nothing_happened() {
    let mut runner = runner(4);
    let mut clean = self::runner(4);
    let cell = GameStateCell::default();
    let clean_cell = GameStateCell::default();
    runner
        .handle_requests([advance(&[1]), save(&cell, 1)])
        .unwrap();
    clean
        .handle_requests([advance(&[1]), save(&clean_cell, 1)])
        .unwrap();
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        runner.handle_requests([advance(&[2, BOMB])])
    }));
    assert!(panicked.is_err(), "the schedule panicked");
    runner
        .handle_requests([load(&cell, 1), advance(&[2, 3]), advance(&[4])])
        .unwrap();
    clean
        .handle_requests([advance(&[2, 3]), advance(&[4])])
        .unwrap();
    assert_eq!(state(&runner).0, state(&clean).0);
    assert_eq!(
        runner.world().resource::<Total>().0,
        clean.world().resource::<Total>().0
    );
    let counts = |r: &GgrsRunner<Game, Net>| -> Vec<u32> {
        r.world().query::<&Count>().iter().map(|c| c.0).collect()
    };
    assert_eq!(counts(&runner), counts(&clean));
    assert_eq!(runner.checksum(), clean.checksum());
}

/// A panic with no snapshot to go back to: the runner refuses to go on,
/// but its schedule keeps nothing of the failed run. Run again on the half
/// advanced world, it does what a fresh schedule does.
#[test]
fn after_a_panic_the_schedule_keeps_nothing_of_the_failed_run() {
    let mut runner = runner(4);
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        runner.handle_requests([advance(&[2, BOMB])])
    }));
    assert!(panicked.is_err(), "the schedule panicked");
    assert_eq!(
        runner.handle_requests([advance(&[5])]),
        Err(RollbackError::Poisoned { frame: 0 })
    );
    let (mut world, mut used) = runner.into_parts();
    let mut copy = world.clone();
    let mut fresh = schedule();
    for (world, schedule) in [(&mut world, &mut used), (&mut copy, &mut fresh)] {
        world
            .resource_mut::<PlayerInputs<Net>>()
            .set(&[(5, InputStatus::Confirmed)]);
        schedule.run(world);
    }
    assert_eq!(world.len(), copy.len());
    assert_eq!(world.checksum(), copy.checksum());
}

// ------------------------------------------------------------ checksums per frame

/// The checksum saved for each frame is `world.checksum()` of the world at
/// that frame: a world advanced frame by frame without rollbacks, with the
/// same inputs, gives the same numbers; and a load of a frame gives a world
/// with that checksum.
#[test]
fn the_checksum_saved_for_a_frame_is_the_checksum_of_that_frame_s_world() {
    const PLAYERS: u8 = 2;
    const SEED: u64 = 11;
    const FRAMES: i32 = 60;
    let mut session = SessionBuilder::<crate::common::Net>::new()
        .with_num_players(usize::from(PLAYERS))
        .unwrap()
        .with_check_distance(4)
        .start_synctest_session()
        .unwrap();
    let mut runner = GgrsRunner::new(
        crate::common::world(PLAYERS, SEED),
        crate::common::schedule(false),
        session.max_prediction(),
    );
    // The straight run: the checksum at each frame.
    let mut world = crate::common::world(PLAYERS, SEED);
    let mut schedule = crate::common::schedule(false);
    let mut expected = Vec::new();
    for frame in 0..=FRAMES {
        expected.push(world.checksum());
        let inputs: Vec<(u8, InputStatus)> = (0..usize::from(PLAYERS))
            .map(|p| (crate::common::input(SEED, p, frame), InputStatus::Confirmed))
            .collect();
        world
            .resource_mut::<PlayerInputs<crate::common::Net>>()
            .set(&inputs);
        schedule.run(&mut world);
    }
    let mut checked = 0;
    for frame in 0..FRAMES {
        for player in 0..usize::from(PLAYERS) {
            session
                .add_local_input(player, crate::common::input(SEED, player, frame))
                .unwrap();
        }
        runner
            .handle_requests(session.advance_frame().unwrap())
            .unwrap();
        for (saved, checksum) in runner.saved() {
            assert_eq!(checksum, expected[saved as usize], "frame {saved}");
            checked += 1;
        }
    }
    assert!(checked >= FRAMES as usize);
    assert_eq!(runner.checksum(), expected[FRAMES as usize]);
}

#[test]
fn a_loaded_frame_has_the_checksum_saved_for_it() {
    let mut runner = runner(4);
    let cells: Vec<GameStateCell<SnapshotSlot>> =
        (0..3).map(|_| GameStateCell::default()).collect();
    for frame in 0..3 {
        runner
            .handle_requests([
                save(&cells[frame as usize], frame),
                advance(&[frame as u8 + 1]),
            ])
            .unwrap();
    }
    for frame in [1, 0, 2] {
        runner
            .handle_requests([load(&cells[frame as usize], frame)])
            .unwrap();
        assert_eq!(Some(runner.checksum()), runner.saved_checksum(frame));
    }
    let sums: Vec<u128> = runner.saved().map(|(_, c)| c).collect();
    assert_eq!(sums.len(), 3);
    assert!(
        sums[0] != sums[1] && sums[1] != sums[2],
        "the frames differ"
    );
}
