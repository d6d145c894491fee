//! Events (`#[ecs(event)]`): each reader sees each event once, in the order
//! sent, in the run the writer sends it (reader after writer) or the next
//! (reader before writer); an event lives two runs at most and is dropped
//! exactly once; the queue is world state.

use ecs::prelude::*;

use ecs::event::EventCursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
struct Pos(i32);
#[derive(Clone, Debug, PartialEq)]
struct Hit(u32);
#[derive(Debug)]
struct Noted(Arc<AtomicUsize>);
#[derive(Clone, Debug, Default, PartialEq)]
struct Log(Vec<(&'static str, u32)>);
#[derive(Clone, Debug, Default, PartialEq)]
struct Round(u32);

impl Drop for Noted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
    #[ecs(event)]
    noted: Noted,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    round: Round,
}

fn next_round(mut round: ResMut<Round>) {
    round.0 += 1;
}

fn shoot(round: Res<Round>, mut hits: EventWriter<Hit>) {
    hits.send(Hit(round.0 * 10));
    hits.send_batch([Hit(round.0 * 10 + 1), Hit(round.0 * 10 + 2)]);
}

fn shoot_more(round: Res<Round>, mut hits: EventWriter<Hit>) {
    hits.send(Hit(round.0 * 10 + 5));
}

fn early(hits: EventReader<Hit>, mut log: ResMut<Log>) {
    log.0.extend(hits.read().map(|hit| ("early", hit.0)));
}

fn late(hits: EventReader<Hit>, mut log: ResMut<Log>) {
    log.0.extend(hits.read().map(|hit| ("late", hit.0)));
}

#[test]
fn each_reader_sees_each_event_once_in_send_order() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(next_round)
        .add(early)
        .add(shoot)
        .add(late)
        .add(shoot_more);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let log = &world.resource::<Log>().0;
    let of = |who: &str| -> Vec<u32> {
        log.iter()
            .filter(|(w, _)| *w == who)
            .map(|&(_, hit)| hit)
            .collect()
    };
    // `late` runs after `shoot` (same run) and before `shoot_more` (next run).
    assert_eq!(of("late"), [10, 11, 12, 15, 20, 21, 22, 25, 30, 31, 32]);
    // `early` runs before both writers: everything, one run later.
    assert_eq!(of("early"), [10, 11, 12, 15, 20, 21, 22, 25]);
}

fn shoot_from_chunks(mut q: Query<&mut Pos>, mut hits: EventWriter<Hit>) {
    q.par_for_each_mut_with(&mut hits, |chunk, pos| {
        pos.0 += 1;
        if pos.0 % 7 == 0 {
            chunk.send(Hit(pos.0 as u32));
        }
    });
}

#[test]
fn events_sent_from_parallel_chunks_arrive_in_row_order() {
    let mut world = World::<Game>::new();
    world.spawn_batch((0..10_000).map(|i| (Pos(i),)));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(shoot_from_chunks).add(late);
    schedule.run(&mut world);
    let positions: Vec<i32> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    assert_eq!(positions, (1..=10_000).collect::<Vec<_>>());
    let expected: Vec<(&str, u32)> = (1..=10_000u32)
        .filter(|v| v % 7 == 0)
        .map(|v| ("late", v))
        .collect();
    assert_eq!(world.resource::<Log>().0, expected);
}

#[test]
fn an_event_lives_two_runs_at_most() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(next_round).add(shoot);
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 3);
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 6);
    schedule.run(&mut world);
    let kept: Vec<u32> = world.events::<Hit>().iter().map(|hit| hit.0).collect();
    assert_eq!(kept, [20, 21, 22, 30, 31, 32]);
}

#[test]
fn events_sent_outside_reach_every_reader_in_the_next_run() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(early).add(late);
    world.send_event(Hit(1));
    schedule.run(&mut world);
    world.send_event(Hit(2));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Log>().0,
        [("early", 1), ("late", 1), ("early", 2), ("late", 2)]
    );
}

#[test]
fn an_event_cursor_reads_what_was_sent_since_its_last_read() {
    let mut world = World::<Game>::new();
    let mut cursor = EventCursor::<Hit>::default();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(next_round).add(shoot);
    schedule.run(&mut world);
    let first: Vec<u32> = cursor.read(&world).map(|hit| hit.0).collect();
    assert_eq!(first, [10, 11, 12]);
    schedule.run(&mut world);
    world.send_event(Hit(99));
    let second: Vec<u32> = cursor.read(&world).map(|hit| hit.0).collect();
    assert_eq!(second, [20, 21, 22, 99]);
    assert_eq!(cursor.read(&world).count(), 0);
}

#[test]
fn every_event_is_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(next_round);
    for _ in 0..5 {
        world.send_event(Noted(drops.clone()));
    }
    schedule.run(&mut world);
    assert_eq!(drops.load(Ordering::Relaxed), 0);
    assert_eq!(world.events::<Noted>().len(), 5);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(drops.load(Ordering::Relaxed), 5, "pruned after two runs");
    assert!(world.events::<Noted>().is_empty());
    for _ in 0..3 {
        world.send_event(Noted(drops.clone()));
    }
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 8, "the rest with the world");
}

impl ecs::checksum::StableHash for Pos {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}
impl ecs::checksum::StableHash for Hit {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}
impl ecs::checksum::StableHash for Log {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}
impl ecs::checksum::StableHash for Round {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}

#[derive(Schema)]
struct Replay {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    round: Round,
}

fn replay_round(mut round: ResMut<Round>) {
    round.0 += 1;
}

fn replay_early(hits: EventReader<Hit>, mut log: ResMut<Log>) {
    log.0.extend(hits.read().map(|hit| ("early", hit.0)));
}

fn replay_shoot(round: Res<Round>, mut hits: EventWriter<Hit>) {
    hits.send(Hit(round.0));
}

#[test]
fn a_restored_snapshot_replays_the_same_reads() {
    let mut world = World::<Replay>::new();
    let mut schedule = Schedule::<Replay>::new();
    schedule
        .add(replay_round)
        .add(replay_early)
        .add(replay_shoot);
    schedule.run(&mut world);
    let snapshot = world.clone();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let first = world.resource::<Log>().clone();
    let checksum = world.checksum();
    world.clone_from(&snapshot);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>(), &first);
    assert_eq!(first.0, [("early", 1), ("early", 2)]);
    assert_eq!(world.checksum(), checksum);
    // A world that lost its pending event is a different world.
    let mut other = snapshot.clone();
    assert_eq!(other.checksum(), snapshot.checksum());
    other.send_event(Hit(1));
    assert_ne!(other.checksum(), snapshot.checksum());
}

#[test]
fn a_world_without_schedules_drops_old_events_at_each_mark() {
    let mut world = World::<Game>::new();
    let mut cursor = EventCursor::<Hit>::default();
    world.send_event(Hit(1));
    world.clear_trackers();
    world.send_event(Hit(2));
    assert_eq!(
        cursor.read(&world).map(|hit| hit.0).collect::<Vec<_>>(),
        [1, 2]
    );
    world.clear_trackers();
    world.send_event(Hit(3));
    world.clear_trackers();
    let kept: Vec<u32> = world.events::<Hit>().iter().map(|hit| hit.0).collect();
    assert_eq!(kept, [3]);
    assert_eq!(
        cursor.read(&world).map(|hit| hit.0).collect::<Vec<_>>(),
        [3]
    );
}

fn shoot_first(mut hits: EventWriter<Hit>) {
    hits.send_batch([Hit(1), Hit(2), Hit(3)]);
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Counts(Vec<(usize, bool)>);

#[derive(Schema)]
struct Counted {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    counts: Counts,
}

fn count_first(mut hits: EventWriter<Hit>) {
    hits.send_batch([Hit(1), Hit(2), Hit(3)]);
}

fn count_unread(hits: EventReader<Hit>, mut counts: ResMut<Counts>) {
    counts.0.push((hits.len(), hits.is_empty()));
}

#[test]
fn a_reader_counts_what_it_has_not_seen() {
    let mut world = World::<Counted>::new();
    let mut schedule = Schedule::<Counted>::new();
    schedule
        .add(count_unread)
        .add(count_first)
        .add(count_unread);
    schedule.run(&mut world);
    schedule.run(&mut world);
    // The first reader runs before the writer: nothing in the first run,
    // the writer's three in the second; the second reader, three each time.
    assert_eq!(
        world.resource::<Counts>().0,
        [(0, true), (3, false), (3, false), (3, false)]
    );
}

#[test]
fn events_sent_by_the_first_system_of_a_run_live_through_the_next_run() {
    // The first system's tick is the run's start, the oldest tick kept.
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(shoot_first).add(late);
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 3);
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 6);
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 6);
}

#[test]
fn a_copied_cursor_reads_from_where_the_original_was() {
    let mut world = World::<Game>::new();
    let mut cursor = EventCursor::<Hit>::default();
    world.send_event(Hit(1));
    assert_eq!(cursor.read(&world).count(), 1);
    world.send_event(Hit(2));
    let mut copy = cursor.clone();
    assert_eq!(copy.read(&world).map(|hit| hit.0).collect::<Vec<_>>(), [2]);
    assert_eq!(
        cursor.read(&world).map(|hit| hit.0).collect::<Vec<_>>(),
        [2]
    );
    assert_eq!(format!("{cursor:?}"), "EventCursor { next: 2 }");
}

fn describe(hits: EventReader<Hit>, writer: EventWriter<Pos2>, mut log: ResMut<Shown>) {
    log.0.push(format!("{hits:?} / {writer:?}"));
}

#[derive(Debug)]
struct Pos2;
#[derive(Debug, Default)]
struct Shown(Vec<String>);

#[derive(Schema)]
struct Shows {
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
    #[ecs(event)]
    pos2: Pos2,
    #[ecs(resource)]
    shown: Shown,
}

#[test]
fn queues_readers_and_writers_say_what_they_hold() {
    let mut world = World::<Shows>::new();
    world.send_event(Hit(4));
    world.send_event(Hit(5));
    assert_eq!(format!("{:?}", world.events::<Hit>()), "[Hit(4), Hit(5)]");
    let mut schedule = Schedule::<Shows>::new();
    schedule.add(describe);
    schedule.run(&mut world);
    let tick = world.change_tick().get() - 1;
    assert_eq!(
        world.resource::<Shown>().0,
        [format!(
            "EventReader {{ unread: 2 }} / EventWriter {{ tick: {tick} }}"
        )]
    );
}

// Across schedules: a fixed-step schedule that runs 0, 1 or several times a
// frame, and a per-frame schedule, on one world. Each reader sees each event
// of the other schedule exactly once, in send order, whatever the ratio.

#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Killed(u32);
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct FrameStarted(u32);
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Tally {
    kills_sent: u32,
    gold: Vec<u32>,
    frames_sent: u32,
    frames_seen: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Spot(i32);

#[derive(Schema)]
struct Split {
    spot: Spot,
    #[ecs(event)]
    killed: Killed,
    #[ecs(event)]
    frame_started: FrameStarted,
    #[ecs(resource)]
    tally: Tally,
}

/// Fixed step: reads the frames started since its last step.
fn see_frames(frames: EventReader<FrameStarted>, mut tally: ResMut<Tally>) {
    tally.frames_seen.extend(frames.read().map(|frame| frame.0));
}

/// Fixed step: kills two enemies.
fn kill(mut tally: ResMut<Tally>, mut killed: EventWriter<Killed>) {
    for _ in 0..2 {
        killed.send(Killed(tally.kills_sent));
        tally.kills_sent += 1;
    }
}

/// Frame: one gold per kill.
fn award(killed: EventReader<Killed>, mut tally: ResMut<Tally>) {
    tally.gold.extend(killed.read().map(|kill| kill.0));
}

/// Frame: announces itself, after `award`.
fn start_frame(mut tally: ResMut<Tally>, mut frames: EventWriter<FrameStarted>) {
    frames.send(FrameStarted(tally.frames_sent));
    tally.frames_sent += 1;
}

fn fixed_schedule() -> Schedule<Split> {
    let mut fixed = Schedule::new();
    fixed.add(see_frames).add(kill);
    fixed
}

fn frame_schedule() -> Schedule<Split> {
    let mut frame = Schedule::new();
    frame.add(award).add(start_frame);
    frame
}

/// Fixed steps per frame: none for long stretches, one, or several.
const STEPS: [u32; 16] = [1, 0, 3, 0, 0, 2, 1, 5, 0, 0, 0, 0, 1, 2, 4, 0];

/// Runs frames `frames` of the pattern, each its fixed steps then the
/// frame schedule. Returns the frames announced before the last fixed step.
fn play(
    world: &mut World<Split>,
    fixed: &mut Schedule<Split>,
    frame: &mut Schedule<Split>,
    frames: core::ops::Range<usize>,
) {
    for number in frames {
        for _ in 0..STEPS[number % STEPS.len()] {
            fixed.run(world);
        }
        frame.run(world);
    }
}

/// What each reader must have seen after the first `frames` frames: every
/// kill once, in order (the frame schedule runs after each frame's steps);
/// every frame announced before the last fixed step, once, in order.
fn expected(frames: usize) -> Tally {
    let steps: Vec<u32> = (0..frames).map(|n| STEPS[n % STEPS.len()]).collect();
    let kills = 2 * steps.iter().sum::<u32>();
    let last_step_frame = steps.iter().rposition(|&n| n > 0).unwrap_or(0);
    Tally {
        kills_sent: kills,
        gold: (0..kills).collect(),
        frames_sent: frames as u32,
        frames_seen: (0..last_step_frame as u32).collect(),
    }
}

#[test]
fn an_event_reaches_the_readers_of_every_schedule_once_whatever_the_ratio_of_runs() {
    let mut world = World::<Split>::new();
    let (mut fixed, mut frame) = (fixed_schedule(), frame_schedule());
    for frames in [1, 2, 5, 16, 40, 100] {
        let mut world_at = World::<Split>::new();
        play(
            &mut world_at,
            &mut fixed_schedule(),
            &mut frame_schedule(),
            0..frames,
        );
        assert_eq!(
            *world_at.resource::<Tally>(),
            expected(frames),
            "{frames} frames"
        );
    }
    play(&mut world, &mut fixed, &mut frame, 0..100);
    // Nothing is kept that every reader has seen: the queues hold at most
    // what the last runs of each schedule sent.
    assert!(
        world.events::<Killed>().len() <= 2 * 5,
        "{}",
        world.events::<Killed>().len()
    );
}

#[test]
fn events_across_schedules_survive_a_snapshot_taken_between_any_two_runs() {
    let straight = expected(48);
    for cut in [3, 9, 10, 11, 30] {
        let mut world = World::<Split>::new();
        play(
            &mut world,
            &mut fixed_schedule(),
            &mut frame_schedule(),
            0..cut,
        );
        // A copy, run by new schedules with the same systems.
        let mut copy = world.clone();
        drop(world);
        play(
            &mut copy,
            &mut fixed_schedule(),
            &mut frame_schedule(),
            cut..48,
        );
        assert_eq!(*copy.resource::<Tally>(), straight, "cut after frame {cut}");
    }
}

#[cfg(feature = "serde")]
#[test]
fn events_across_schedules_survive_a_save_and_load() {
    let straight = expected(48);
    for cut in [3, 10, 30] {
        let mut world = World::<Split>::new();
        play(
            &mut world,
            &mut fixed_schedule(),
            &mut frame_schedule(),
            0..cut,
        );
        let bytes = postcard::to_allocvec(&world).unwrap();
        let mut loaded: World<Split> = postcard::from_bytes(&bytes).unwrap();
        play(
            &mut loaded,
            &mut fixed_schedule(),
            &mut frame_schedule(),
            cut..48,
        );
        assert_eq!(
            *loaded.resource::<Tally>(),
            straight,
            "cut after frame {cut}"
        );
    }
}

#[test]
fn a_schedule_that_grew_does_not_hold_events_back_as_it_was() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(next_round).add(shoot);
    schedule.run(&mut world);
    // Another schedule now (other systems, another fingerprint): what the
    // world kept for the old one would hold every event from here on.
    schedule.add(late);
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    assert_eq!(world.events::<Hit>().len(), 6, "the last two runs' events");
    // A schedule that never ran again does hold them, until forgotten.
    let mut menu = Schedule::<Game>::new();
    menu.add(early);
    menu.run(&mut world);
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    assert_eq!(world.events::<Hit>().len(), 15);
    assert!(menu.forget(&mut world));
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 6);
}
