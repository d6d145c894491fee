//! Once warm, the runner allocates nothing of its own: a save refills a ring
//! slot in place, a load refills the world in place, an advance reuses the
//! inputs' vector. What is left is what the core's calls allocate
//! (`World::clone_from`, `Schedule::run`), which a twin world driven by hand
//! through the same calls measures beside it: saves and loads nothing, and
//! an advance one block per `Query` parameter that reaches a table (the
//! query's list of its tables' columns, which the system's function takes
//! by value and drops; see tests/world/allocations.rs of the core), plus what the
//! game's own systems allocate.
//!
//! A counting allocator counts the current thread's allocations. Only
//! `GgrsRunner::handle_requests` is measured, request by request: GGRS
//! allocates the list of requests (and each advance's inputs) itself. The
//! session and the runner run on a one-thread rayon pool, from inside it, so
//! that everything a schedule run does happens on the counted thread (on
//! more threads, a parallel stage also allocates a rayon job per helper
//! thread).

mod common;

use common::{Arena, Net, Stats};
use schemecs::world::World;
use schemecs_ggrs::ggrs::{GgrsRequest, SessionBuilder};
use schemecs_ggrs::{GgrsRunner, PlayerInputs};
use support::{allocations, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const WARM_UP: i32 = 1_000;
const MEASURED: i32 = 1_000;

/// Allocations over the measured frames, by request kind.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Counts {
    save: u64,
    load: u64,
    advance: u64,
}

/// What `MEASURED` frames of a sync test (each frame: a load, seven saves
/// and eight advances) after `WARM_UP` frames allocate, by request kind: in
/// the runner's `handle_requests`, and in the same core calls made by hand
/// on a twin world. Also the stats at the end.
fn allocations_of_warm_frames() -> (Counts, Counts, Stats) {
    let seed = 0xa110c;
    let mut session = SessionBuilder::<Net>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    let mut runner = GgrsRunner::new(
        common::world(2, seed),
        common::schedule(false),
        session.max_prediction(),
    );
    let mut twin = common::world(2, seed);
    let mut twin_schedule = common::schedule(false);
    let mut twin_ring: Vec<World<Arena>> = (0..runner.ring_len()).map(|_| twin.clone()).collect();
    let ring_len = twin_ring.len();
    let slot = |frame: i32| frame as usize % ring_len;

    let (mut in_runner, mut by_hand) = (Counts::default(), Counts::default());
    for frame in 0..WARM_UP + MEASURED {
        for player in 0..2 {
            session
                .add_local_input(player, common::input(seed, player, frame))
                .unwrap();
        }
        for request in session.advance_frame().unwrap() {
            let before = allocations();
            let (runner_count, twin_count) = match &request {
                GgrsRequest::SaveGameState { frame, .. } => {
                    twin_ring[slot(*frame)].clone_from(&twin);
                    std::hint::black_box(twin.checksum());
                    (&mut in_runner.save, &mut by_hand.save)
                }
                GgrsRequest::LoadGameState { frame, .. } => {
                    twin.clone_from(&twin_ring[slot(*frame)]);
                    (&mut in_runner.load, &mut by_hand.load)
                }
                GgrsRequest::AdvanceFrame { inputs } => {
                    twin.resource_mut::<PlayerInputs<Net>>().set(inputs);
                    twin_schedule.run(&mut twin);
                    (&mut in_runner.advance, &mut by_hand.advance)
                }
            };
            let between = allocations();
            runner.handle_requests([request]).unwrap();
            let after = allocations();
            if frame >= WARM_UP {
                *twin_count += between - before;
                *runner_count += after - between;
            }
        }
        assert_eq!(runner.checksum(), twin.checksum(), "frame {frame}");
    }
    (in_runner, by_hand, *runner.world().resource::<Stats>())
}

fn on_one_thread<T: Send>(run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(run)
}

/// The runner's own work (finding the slot, the checksum hand-over, the
/// inputs, the frame count) allocates nothing once warm: each kind of
/// request allocates exactly what its core calls do.
#[test]
fn the_runner_allocates_nothing_beyond_its_core_calls() {
    let (in_runner, by_hand, stats) = on_one_thread(allocations_of_warm_frames);
    eprintln!("{MEASURED} warm frames: runner {in_runner:?}, core calls by hand {by_hand:?}");
    // The measured frames did spawn, despawn, stun and send events.
    assert!(
        stats.spawned > 20 && stats.killed > 5 && stats.shots > 100,
        "{stats:?}"
    );
    assert_eq!(in_runner, by_hand);
}

/// Saves and loads allocate nothing once the ring has held worlds of the
/// game's shape. Fails while the core's `World::clone_from` allocates
/// (today its change log, which derives `Clone`, is cloned anew rather
/// than refilled).
#[test]
fn warm_saves_and_loads_allocate_nothing() {
    let (in_runner, _, _) = on_one_thread(allocations_of_warm_frames);
    assert_eq!(
        (in_runner.save, in_runner.load),
        (0, 0),
        "allocations of the saves and the loads of {MEASURED} warm frames"
    );
}
