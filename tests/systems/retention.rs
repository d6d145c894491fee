//! What a world keeps of its event queues and removal logs
//! (`schemecs::retention`): only what some reader of *that* log still has
//! to read, for `HOLD_RUNS` runs at most, so memory stays flat however long
//! a game stays in one state; a reader whose hold ended is told exactly how
//! many entries it missed.

use ecs::checksum::StableHash;
use ecs::prelude::*;
use ecs::retention::HOLD_RUNS;

#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Pos(i32);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Cargo(u32);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Mined(u32);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Delivered(u32);
#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Ping;
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Phase {
    #[default]
    Menu,
    Playing,
    Over,
}
/// What the readers read and were told they missed.
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Tally {
    mined: u64,
    delivered_read: u64,
    delivered_missed: u64,
    pings_read: u64,
    pings_missed: u64,
    removals_read: u64,
    removals_missed: u64,
    frames: u64,
}

#[derive(Schema)]
struct Colony {
    pos: Pos,
    #[ecs(track)]
    cargo: Cargo,
    #[ecs(event)]
    mined: Mined,
    #[ecs(event)]
    delivered: Delivered,
    #[ecs(event)]
    ping: Ping,
    #[ecs(resource)]
    tally: Tally,
    #[ecs(state)]
    phase: Phase,
}

/// Mines one load a frame, and pings.
fn mine(mut mined: EventWriter<Mined>, mut pings: EventWriter<Ping>, mut tally: ResMut<Tally>) {
    tally.frames += 1;
    mined.send(Mined(tally.frames as u32));
    pings.send(Ping);
}

/// Turns every load mined into a delivery and a cart that lives a frame.
fn haul(
    mined: EventReader<Mined>,
    mut delivered: EventWriter<Delivered>,
    carts: Query<Entity, With<Cargo>>,
    mut commands: Commands<Colony>,
) {
    carts.for_each(|cart| commands.despawn(cart));
    for load in mined.read() {
        delivered.send(Delivered(load.0));
        commands.spawn((Pos(0), Cargo(load.0)));
    }
}

/// Reads every delivery and removal, every frame.
fn account(delivered: EventReader<Delivered>, gone: Removed<Cargo>, mut tally: ResMut<Tally>) {
    tally.mined += delivered.len() as u64;
    assert_eq!(
        delivered.missed(),
        0,
        "a reader that runs every frame misses nothing"
    );
    assert_eq!(gone.missed(), 0);
}

/// Entered once: reads the loads mined so far (it holds `Mined` only).
fn open_mine(mined: EventReader<Mined>, mut commands: Commands<Colony>) {
    let _ = mined.len();
    commands.spawn((Pos(1),));
}

/// On leaving play: what deliveries and removals it read, and missed.
fn close_mine(delivered: EventReader<Delivered>, gone: Removed<Cargo>, mut tally: ResMut<Tally>) {
    tally.delivered_read += delivered.len() as u64;
    tally.delivered_missed += delivered.missed();
    tally.removals_read += gone.len() as u64;
    tally.removals_missed += gone.missed();
}

/// A menu's reader of pings, skipped for as long as the game plays.
fn menu_pings(pings: EventReader<Ping>, mut tally: ResMut<Tally>) {
    tally.pings_read += pings.len() as u64;
    tally.pings_missed += pings.missed();
}

fn colony_schedule() -> Schedule<Colony> {
    let mut schedule = Schedule::<Colony>::new();
    schedule
        .on_enter(Phase::Playing, open_mine)
        .on_exit(Phase::Playing, close_mine)
        .add(mine)
        .add(haul)
        .add(account)
        .add(menu_pings.run_if(in_state(Phase::Menu)));
    schedule
}

/// The sizes of what the world keeps: each queue's length and the removal
/// log's, and (with serde) the save's size in bytes.
#[derive(Debug, PartialEq)]
struct Kept {
    mined: usize,
    delivered: usize,
    pings: usize,
    removals: usize,
    save: usize,
}

fn kept(world: &World<Colony>) -> Kept {
    #[cfg(feature = "serde")]
    let save = postcard::to_stdvec(world).unwrap().len();
    #[cfg(not(feature = "serde"))]
    let save = 0;
    Kept {
        mined: world.events::<Mined>().len(),
        delivered: world.events::<Delivered>().len(),
        pings: world.events::<Ping>().len(),
        removals: world.removed::<Cargo>().count(),
        save,
    }
}

/// 100,000 frames in one state: every queue and the removal log stay at
/// the size they had after the first thousand frames, and so does the save
/// (give or take the varint bytes of larger tick numbers); on leaving the
/// state, its exit system, which last ran long ago, reads what was kept and
/// is told exactly how many it missed.
fn soak(threads: Option<usize>) {
    let body = || {
        let mut world = World::<Colony>::new();
        let mut schedule = colony_schedule();
        let mut run = |world: &mut World<Colony>| match threads {
            Some(_) => schedule.run(world),
            None => schedule.run_sequential(world),
        };
        // Play, stop, play again: the exit system has run once.
        world.set_next_state(Phase::Playing);
        run(&mut world);
        run(&mut world);
        world.set_next_state(Phase::Over);
        let sent_before_exit = world.events::<Delivered>().sent();
        let removed_before_exit = removals_logged(&world);
        run(&mut world);
        let after_exit = world.resource::<Tally>().clone();
        world.set_next_state(Phase::Playing);
        let mut sizes = Vec::new();
        let mut frame = 3u64;
        for checkpoint in [1_000u64, 10_000, 100_000] {
            while frame < checkpoint {
                run(&mut world);
                frame += 1;
            }
            sizes.push(kept(&world));
        }
        let hold = HOLD_RUNS as usize;
        for size in &sizes {
            // Only the exit system holds `Delivered` and the removals, and
            // the enter system `Mined`, for HOLD_RUNS runs at most; no one
            // holds the pings (the menu's reader never ran).
            assert!(size.mined <= hold + 2, "{sizes:?}");
            assert!(size.delivered <= hold + 2, "{sizes:?}");
            assert!(size.pings <= 2, "{sizes:?}");
            assert!(size.removals <= hold + 2, "{sizes:?}");
        }
        let (first, tenth, last) = (&sizes[0], &sizes[1], &sizes[2]);
        assert_eq!(
            (first.mined, first.delivered, first.pings, first.removals),
            (last.mined, last.delivered, last.pings, last.removals),
            "flat from frame 1,000 on: {sizes:?}"
        );
        assert!(
            last.save <= tenth.save + tenth.save / 20 && tenth.save <= first.save + first.save / 10,
            "the save grows: {sizes:?}"
        );

        // Leave play: the exit system reads the deliveries and removals
        // still kept, and is told how many of those since its last run it
        // missed.
        world.set_next_state(Phase::Over);
        let sent = world.events::<Delivered>().sent() - sent_before_exit;
        let removed = removals_logged(&world) - removed_before_exit;
        run(&mut world);
        let tally = world.resource::<Tally>().clone();
        let read = tally.delivered_read - after_exit.delivered_read;
        let missed = tally.delivered_missed - after_exit.delivered_missed;
        assert_eq!(read + missed, sent, "{tally:?}");
        assert!(
            read > 0 && read <= hold as u64 + 2 && missed > 90_000,
            "{tally:?}"
        );
        let read = tally.removals_read - after_exit.removals_read;
        let missed = tally.removals_missed - after_exit.removals_missed;
        assert_eq!(read + missed, removed, "{tally:?}");
        assert!(read > 0 && missed > 90_000, "{tally:?}");
        // The menu's reader never ran: it reads nothing and misses nothing.
        assert_eq!((tally.pings_read, tally.pings_missed), (0, 0));
    };
    match threads {
        Some(n) => support::on_threads(n, body),
        None => body(),
    }
}

/// How many carts were despawned so far: one a frame after the first.
fn removals_logged(world: &World<Colony>) -> u64 {
    world.resource::<Tally>().frames.saturating_sub(1)
}

#[test]
fn a_soak_of_100_000_frames_in_one_state_keeps_memory_flat_sequentially() {
    soak(None);
}

#[test]
fn a_soak_of_100_000_frames_in_one_state_keeps_memory_flat_on_1_thread() {
    soak(Some(1));
}

#[test]
fn a_soak_of_100_000_frames_in_one_state_keeps_memory_flat_on_4_threads() {
    soak(Some(4));
}

/// The case: an enter system that reads no event holds none back.
#[test]
fn an_enter_system_that_reads_no_event_holds_no_event_back() {
    fn send(mut pings: EventWriter<Ping>) {
        pings.send(Ping);
    }
    fn read(pings: EventReader<Ping>) {
        let _ = pings.len();
    }
    fn enter(mut commands: Commands<Colony>) {
        commands.spawn((Pos(0),));
    }
    let mut world = World::<Colony>::new();
    let mut schedule = Schedule::<Colony>::new();
    schedule.on_enter(Phase::Playing, enter).add(send).add(read);
    world.set_next_state(Phase::Playing);
    for _ in 0..1000 {
        schedule.run(&mut world);
    }
    assert!(world.events::<Ping>().len() <= 2);
}

/// A reader holds only the logs it reads: an enter system that reads pings
/// holds the pings back while it waits, and neither the other queues nor
/// the removal log.
#[test]
fn a_reader_of_one_queue_holds_no_other_log_back() {
    fn enter(pings: EventReader<Ping>) {
        let _ = pings.len();
    }
    let mut world = World::<Colony>::new();
    let mut schedule = Schedule::<Colony>::new();
    schedule.on_enter(Phase::Playing, enter).add(mine).add(haul);
    world.set_next_state(Phase::Playing);
    let runs = HOLD_RUNS as usize / 2;
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    assert!(world.events::<Ping>().len() >= runs - 1, "pings held");
    assert!(world.events::<Mined>().len() <= 2);
    assert!(world.events::<Delivered>().len() <= 2);
    // One cart despawned a run: two runs' worth are kept.
    assert!(world.removed::<Cargo>().count() <= 2);
    assert!(world.removed::<Cargo>().count() >= 1);
}

/// A system skipped by its run condition holds the queues it reads, and
/// only those: every one of them for up to HOLD_RUNS runs, reading all of
/// them when it runs again.
#[test]
fn a_skipped_reader_holds_only_what_it_reads_and_reads_all_of_it() {
    let mut world = World::<Colony>::new();
    let mut schedule = Schedule::<Colony>::new();
    schedule
        .add(mine)
        .add(menu_pings.run_if(in_state(Phase::Menu)));
    schedule.apply_transitions::<Phase>();
    schedule.run(&mut world); // the reader runs once
    world.set_next_state(Phase::Playing);
    let runs = HOLD_RUNS as usize - 10;
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    assert!(world.events::<Ping>().len() >= runs, "pings held");
    assert!(world.events::<Mined>().len() <= 2, "no one holds `Mined`");
    world.set_next_state(Phase::Menu);
    schedule.run(&mut world);
    let tally = world.resource::<Tally>();
    assert_eq!(tally.pings_missed, 0);
    assert_eq!(tally.pings_read as usize, 1 + runs + 1);
}

/// Past HOLD_RUNS runs a skipped reader's hold ends: the queue shrinks to
/// two runs' worth, and the reader, when it runs, is told exactly how many
/// it missed; a snapshot taken while it waits says the same after a
/// restore.
#[test]
fn a_reader_skipped_past_hold_runs_is_told_exactly_what_it_missed() {
    let mut world = World::<Colony>::new();
    let mut schedule = Schedule::<Colony>::new();
    schedule
        .add(mine)
        .add(menu_pings.run_if(in_state(Phase::Menu)));
    schedule.apply_transitions::<Phase>();
    schedule.run(&mut world);
    world.set_next_state(Phase::Playing);
    let runs = HOLD_RUNS as usize + 500;
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    assert!(world.events::<Ping>().len() <= 2, "the hold ended");
    let snapshot = world.clone();
    let checksum = world.checksum();
    world.set_next_state(Phase::Menu);
    schedule.run(&mut world);
    let tally = world.resource::<Tally>().clone();
    // One ping a run: the first run's, then `runs` runs' and this one's.
    assert_eq!(tally.pings_read + tally.pings_missed, 1 + runs as u64 + 1);
    assert!(tally.pings_missed > 0 && tally.pings_read >= 2, "{tally:?}");

    let mut restored = World::<Colony>::new();
    restored.clone_from(&snapshot);
    assert_eq!(restored.checksum(), checksum);
    restored.set_next_state(Phase::Menu);
    colony_reader_schedule(&mut schedule);
    schedule.run(&mut restored);
    assert_eq!(restored.resource::<Tally>(), &tally);
    assert_eq!(restored.checksum(), world.checksum());
}

/// Once a reader whose hold ended has run again, the marks kept for it are
/// gone: the world then has the checksum of one whose reader never
/// waited. In both worlds a reader of the same queue next to it stays
/// skipped (its hold ended, its marks stay), and a schedule that ran once
/// reads `Mined` (its hold ends and stays ended).
#[test]
fn the_marks_of_a_reader_go_when_it_runs_again() {
    fn peek(pings: EventReader<Ping>) {
        let _ = pings.len();
    }
    fn glance(pings: EventReader<Ping>) {
        let _ = pings.len();
    }
    fn open(tally: Res<Tally>) -> bool {
        tally.mined == 0
    }
    fn first_frame(tally: Res<Tally>) -> bool {
        tally.frames <= 1
    }
    fn census(mined: EventReader<Mined>) {
        let _ = mined.len();
    }
    let world = |waits: bool| {
        let mut world = World::<Colony>::new();
        let mut ledger = Schedule::<Colony>::new();
        ledger.add(census);
        ledger.run(&mut world);
        let mut schedule = Schedule::<Colony>::new();
        schedule
            .add(mine)
            .add(glance.run_if(first_frame))
            .add(peek.run_if(open));
        schedule.run(&mut world);
        world.resource_mut::<Tally>().mined = u64::from(waits);
        for _ in 0..HOLD_RUNS + 10 {
            schedule.run(&mut world);
        }
        world.resource_mut::<Tally>().mined = 0;
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        world
    };
    assert_eq!(world(true).checksum(), world(false).checksum());
}

/// A schedule whose second system sends what its third reads: when the
/// schedule runs again after its hold ended, the reader is told exactly
/// what it missed, not the event it read at its last run (sent after the
/// schedule's first tick).
#[test]
fn a_reader_after_a_sender_in_its_schedule_misses_only_what_it_did_not_read() {
    fn idle(_: Res<Tally>) {}
    fn ring(mut pings: EventWriter<Ping>) {
        pings.send(Ping);
    }
    let mut world = World::<Colony>::new();
    let mut play = Schedule::<Colony>::new();
    play.add(mine);
    let mut ledger = Schedule::<Colony>::new();
    ledger.add(idle).add(ring).add(menu_pings);
    ledger.run(&mut world);
    assert_eq!(world.resource::<Tally>().pings_read, 1);
    for _ in 0..2 * HOLD_RUNS {
        play.run(&mut world);
    }
    ledger.run(&mut world);
    let tally = world.resource::<Tally>();
    assert!(tally.pings_missed > 0, "{tally:?}");
    assert_eq!(tally.pings_read + tally.pings_missed, 1 + 2 * HOLD_RUNS + 1);
}

/// What a queue dropped is part of the checksum only where a reader's hold
/// ended (it decides what that reader missed): two worlds whose one ping,
/// long dropped, was sent by different systems have the same checksum,
/// unless a reader of pings stopped running and its hold ended.
#[test]
fn what_was_dropped_counts_in_the_checksum_only_after_a_hold_ended() {
    fn ring_a(tally: Res<Tally>, mut pings: EventWriter<Ping>) {
        if tally.mined == 1 {
            pings.send(Ping);
        }
    }
    fn ring_b(tally: Res<Tally>, mut pings: EventWriter<Ping>) {
        if tally.mined == 2 {
            pings.send(Ping);
        }
    }
    fn peek(pings: EventReader<Ping>) {
        let _ = pings.len();
    }
    let world = |sender: u64, reader_waits: bool| {
        let mut world = World::<Colony>::new();
        if reader_waits {
            let mut ledger = Schedule::<Colony>::new();
            ledger.add(peek);
            ledger.run(&mut world);
        }
        let mut schedule = Schedule::<Colony>::new();
        schedule.add(ring_a).add(ring_b);
        world.resource_mut::<Tally>().mined = sender;
        schedule.run(&mut world);
        world.resource_mut::<Tally>().mined = 0;
        for _ in 0..HOLD_RUNS + 10 {
            schedule.run(&mut world);
        }
        assert_eq!(world.events::<Ping>().sent(), 1);
        assert_eq!(world.events::<Ping>().len(), 0);
        world.checksum()
    };
    assert_eq!(world(1, false), world(2, false));
    assert_ne!(world(1, true), world(2, true));
}

/// Held entries are clamped like every stored tick: a reader skipped while
/// the tick goes around twice still holds every event sent since it last
/// ran, and when it runs reads those sent within `MAX_AGE` (2^30) ticks of
/// its run, none twice.
#[test]
fn a_skipped_reader_holds_its_events_while_the_tick_wraps() {
    let mut world = World::<Colony>::new();
    let mut schedule = Schedule::<Colony>::new();
    schedule
        .add(mine)
        .add(menu_pings.run_if(in_state(Phase::Menu)));
    schedule.apply_transitions::<Phase>();
    schedule.run(&mut world);
    world.set_next_state(Phase::Playing);
    for _ in 0..8 {
        schedule.run(&mut world);
        world.advance_change_tick_for_tests(1 << 30);
    }
    assert_eq!(world.events::<Ping>().len(), 8, "held");
    world.set_next_state(Phase::Menu);
    schedule.run(&mut world);
    // Its first run's ping and this run's: the eight sent while it waited
    // are over 2^30 ticks old.
    assert_eq!(world.resource::<Tally>().pings_read, 2);
    schedule.run(&mut world);
    let tally = world.resource::<Tally>();
    assert_eq!((tally.pings_read, tally.pings_missed), (3, 0));
}

fn colony_reader_schedule(schedule: &mut Schedule<Colony>) {
    *schedule = Schedule::<Colony>::new();
    schedule
        .add(mine)
        .add(menu_pings.run_if(in_state(Phase::Menu)));
    schedule.apply_transitions::<Phase>();
}

/// A schedule that stops running holds what its readers read for HOLD_RUNS
/// runs of the world, then lets go; when it runs again its readers read the
/// rest and count the gap, for events and removals alike.
#[test]
fn a_schedule_that_stops_running_lets_go_after_hold_runs() {
    let mut world = World::<Colony>::new();
    let mut play = Schedule::<Colony>::new();
    play.add(mine).add(haul);
    let mut ledger = Schedule::<Colony>::new();
    ledger.add(close_mine);
    ledger.run(&mut world);
    for _ in 0..HOLD_RUNS - 1 {
        play.run(&mut world);
    }
    let held = world.events::<Delivered>().len();
    assert_eq!(held as u64, HOLD_RUNS - 1, "held while within HOLD_RUNS");
    for _ in 0..HOLD_RUNS {
        play.run(&mut world);
    }
    assert!(world.events::<Delivered>().len() <= 2);
    assert!(world.events::<Mined>().len() <= 2);
    ledger.run(&mut world);
    let tally = world.resource::<Tally>();
    let runs = 2 * HOLD_RUNS - 1;
    assert_eq!(tally.delivered_read + tally.delivered_missed, runs);
    assert!(tally.delivered_missed > 0);
    // Each run but the first despawns the carts of the run before.
    assert_eq!(tally.removals_read + tally.removals_missed, runs - 1);
    assert!(tally.removals_missed > 0);
}

/// A schedule holds every log any of its systems reads, also when two of
/// them read the same logs.
#[test]
fn a_schedule_holds_the_logs_two_of_its_systems_both_read() {
    fn peek(delivered: EventReader<Delivered>, gone: Removed<Cargo>) {
        let _ = (delivered.len(), gone.len());
    }
    let mut world = World::<Colony>::new();
    let mut play = Schedule::<Colony>::new();
    play.add(mine).add(haul);
    let mut ledger = Schedule::<Colony>::new();
    ledger.add(close_mine).add(peek);
    ledger.run(&mut world);
    let runs = HOLD_RUNS - 1;
    for _ in 0..runs {
        play.run(&mut world);
    }
    assert_eq!(world.events::<Delivered>().len() as u64, runs);
    ledger.run(&mut world);
    let tally = world.resource::<Tally>();
    assert_eq!((tally.delivered_read, tally.delivered_missed), (runs, 0));
    // Each run but the first despawns the carts of the run before.
    assert_eq!((tally.removals_read, tally.removals_missed), (runs - 1, 0));
}

/// A save made while a reader's hold has ended loads to a world whose
/// reader is told the same: what it missed is world state.
#[cfg(feature = "serde")]
#[test]
fn what_a_reader_missed_survives_a_save_and_load() {
    let mut world = World::<Colony>::new();
    let mut play = Schedule::<Colony>::new();
    play.add(mine).add(haul);
    let mut ledger = Schedule::<Colony>::new();
    ledger.add(close_mine);
    ledger.run(&mut world);
    for _ in 0..HOLD_RUNS + 40 {
        play.run(&mut world);
    }
    let bytes = postcard::to_stdvec(&world).unwrap();
    let mut loaded: World<Colony> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    ledger.run(&mut world);
    let mut ledger = Schedule::<Colony>::new();
    ledger.add(close_mine);
    ledger.run(&mut loaded);
    assert_eq!(loaded.resource::<Tally>(), world.resource::<Tally>());
    assert!(world.resource::<Tally>().delivered_missed > 0);
}
