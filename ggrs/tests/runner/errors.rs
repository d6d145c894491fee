//! Requests that cannot be fulfilled are errors that say why, and leave the
//! world as the last request fulfilled left it.

use schemecs::checksum::StableHash;
use schemecs::prelude::*;
use schemecs_ggrs::ggrs::{self, GameStateCell, GgrsRequest, PredictRepeatLast, SessionBuilder};
use schemecs_ggrs::{GgrsRunner, PlayerInputs, RollbackError, SnapshotSlot};

struct Net;

impl ggrs::Config for Net {
    type Input = u8;
    type InputPredictor = PredictRepeatLast;
    type State = SnapshotSlot;
    type Address = std::net::SocketAddr;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Total(u64);

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Unused;

#[derive(Schema)]
struct Sum {
    unused: Unused,
    #[ecs(resource)]
    total: Total,
    #[ecs(resource)]
    inputs: PlayerInputs<Net>,
}

fn add(mut total: ResMut<Total>, inputs: Res<PlayerInputs<Net>>) {
    total.0 += inputs
        .as_slice()
        .iter()
        .map(|&(input, _)| u64::from(input))
        .sum::<u64>();
}

fn runner(ring: usize) -> GgrsRunner<Sum, Net> {
    let mut schedule = Schedule::new();
    schedule.add(add);
    GgrsRunner::with_ring_len(World::new(), schedule, ring)
}

fn sync_test() -> ggrs::SyncTestSession<Net> {
    SessionBuilder::<Net>::new()
        .with_num_players(1)
        .unwrap()
        .with_check_distance(4)
        .start_synctest_session()
        .unwrap()
}

/// The first error of `frames` frames of a sync test whose input is 1.
fn first_error(runner: &mut GgrsRunner<Sum, Net>, frames: i32) -> Option<RollbackError> {
    let mut session = sync_test();
    for _ in 0..frames {
        session.add_local_input(0, 1).unwrap();
        let requests = session.advance_frame().unwrap();
        if let Err(error) = runner.handle_requests(requests) {
            return Some(error);
        }
    }
    None
}

#[test]
fn a_ring_long_enough_for_the_rollbacks_serves_them() {
    let mut runner = runner(5);
    assert_eq!(first_error(&mut runner, 40), None);
    assert_eq!(runner.world().resource::<Total>().0, 40);
    assert_eq!(runner.frame(), 40);
    // A load per frame once the session is past the check distance.
    assert_eq!(runner.rollbacks(), 40 - 5);
}

#[test]
fn a_ring_shorter_than_the_rollback_window_is_an_error() {
    let mut runner = runner(3);
    let error = first_error(&mut runner, 40).expect("a rollback of 4 frames needs 5 slots");
    // The first rollback goes back 4 frames from frame 5, to frame 1, whose
    // slot (1 % 3) holds frame 4 by then.
    assert_eq!(
        error,
        RollbackError::Overwritten {
            frame: 1,
            slot: 1,
            holds: Some(4)
        }
    );
    assert!(error.to_string().contains("max prediction + 1"), "{error}");
}

#[test]
fn skipped_requests_are_an_error() {
    let mut runner = runner(10);
    let mut session = sync_test();
    for frame in 0..3 {
        session.add_local_input(0, 1).unwrap();
        let requests = session.advance_frame().unwrap();
        if frame != 1 {
            let result = runner.handle_requests(requests);
            if frame == 2 {
                assert_eq!(
                    result,
                    Err(RollbackError::SaveOutOfStep {
                        requested: 2,
                        at: 1
                    })
                );
            }
        }
    }
    // The save was refused before anything else of its list ran.
    assert_eq!(runner.world().resource::<Total>().0, 1);
}

#[test]
fn a_cell_this_runner_never_saved_to_is_an_error() {
    let mut runner = runner(4);
    let load = GgrsRequest::<Net>::LoadGameState {
        cell: GameStateCell::default(),
        frame: 0,
    };
    assert_eq!(
        runner.handle_requests([load]),
        Err(RollbackError::NeverSaved { frame: 0 })
    );
}
