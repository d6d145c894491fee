//! Run conditions (`system.run_if(condition)`): a system runs when its
//! condition holds and records nothing when it does not; combinators and
//! ready-made conditions; a skipped system's windows accumulate, so its next
//! run sees everything since its last run; a condition's reads order it in
//! the schedule and its locals are world state; parallel and sequential runs
//! agree on any number of threads. Groups: `(a, b, c).run_if(condition)`
//! decides once per run, at `a`'s turn, for all three.

use ecs::prelude::*;

use ecs::checksum::StableHash;
use ecs::condition::{on_event, resource_changed};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Debug, PartialEq, StableHash)]
struct Pos(i32);
#[derive(Clone, Debug, PartialEq, StableHash)]
struct Hit(u32);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Flags {
    a: bool,
    b: bool,
    go: bool,
}
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Log(Vec<String>);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Score(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
enum Mode {
    #[default]
    Calm,
    Alert,
}

#[derive(Schema)]
struct Game {
    #[ecs(track)]
    pos: Pos,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    flags: Flags,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    score: Score,
    #[ecs(state)]
    mode: Mode,
}

fn a(flags: Res<Flags>) -> bool {
    flags.a
}

fn b(flags: Res<Flags>) -> bool {
    flags.b
}

fn go(flags: Res<Flags>) -> bool {
    flags.go
}

fn never_evaluated(_: Res<Flags>) -> bool {
    panic!("a combinator evaluated a condition it did not need")
}

fn note(name: &'static str) -> impl FnMut(ResMut<Log>) + Send + 'static {
    move |mut log: ResMut<Log>| log.0.push(name.to_owned())
}

fn log_of(world: &World<Game>) -> Vec<String> {
    world.resource::<Log>().0.clone()
}

#[test]
fn a_system_runs_only_when_its_condition_holds() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add_named("when a", note("when a").run_if(a))
        .add_named("always", note("always"));
    schedule.run(&mut world);
    world.resource_mut::<Flags>().a = true;
    schedule.run(&mut world);
    world.resource_mut::<Flags>().a = false;
    schedule.run(&mut world);
    assert_eq!(log_of(&world), ["always", "when a", "always", "always"]);
}

#[test]
fn and_or_not_follow_their_truth_tables() {
    for (fa, fb) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut world = World::<Game>::new();
        *world.resource_mut::<Flags>() = Flags {
            a: fa,
            b: fb,
            go: false,
        };
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add_named("and", note("and").run_if(a.and(b)))
            .add_named("or", note("or").run_if(a.or(b)))
            .add_named("not", note("not").run_if(not(a)))
            .add_named("nested", note("nested").run_if(not(a.and(b)).and(b)));
        schedule.run(&mut world);
        let mut expected = Vec::new();
        if fa && fb {
            expected.push("and");
        }
        if fa || fb {
            expected.push("or");
        }
        if !fa {
            expected.push("not");
        }
        // not(a and b) and b
        if !fa && fb {
            expected.push("nested");
        }
        assert_eq!(log_of(&world), expected, "a = {fa}, b = {fb}");
    }
}

#[test]
fn and_and_or_evaluate_their_second_condition_only_when_needed() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    // a is false: `and` is decided; not(a) is true: `or` is decided.
    schedule
        .add_named("and", note("and").run_if(a.and(never_evaluated)))
        .add_named("or", note("or").run_if(not(a).or(never_evaluated)));
    schedule.run(&mut world);
    assert_eq!(log_of(&world), ["or"]);
}

#[test]
fn two_run_ifs_must_both_hold() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add_named("both", note("both").run_if(a).run_if(b));
    for (fa, fb) in [(true, false), (false, true), (true, true)] {
        let flags = world.resource_mut::<Flags>();
        (flags.a, flags.b) = (fa, fb);
        schedule.run(&mut world);
    }
    assert_eq!(log_of(&world), ["both"]);
}

#[test]
fn ready_made_conditions_in_state_on_event_and_resource_changed() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .apply_transitions::<Mode>()
        .add_named("alert", note("alert").run_if(in_state(Mode::Alert)))
        .add_named("hit", note("hit").run_if(on_event::<Hit>()))
        .add_named("score", note("score").run_if(resource_changed::<Score>()));
    // 1: Calm, no hit, the score seen for the first time.
    schedule.run(&mut world);
    // 2: Alert, a hit, the score unchanged.
    world.set_next_state(Mode::Alert);
    world.send_event(Hit(1));
    schedule.run(&mut world);
    // 3: a new score; the same hit is not news any more.
    world.resource_mut::<Score>().0 = 7;
    schedule.run(&mut world);
    // 4: the same score written again is no change.
    world.resource_mut::<Score>().0 = 7;
    world.set_next_state(Mode::Calm);
    schedule.run(&mut world);
    assert_eq!(
        log_of(&world),
        ["score", "alert", "hit", "alert", "score"],
        "{}",
        schedule.describe()
    );
}

// A skipped system records nothing, and its next run sees everything since
// its last run.

fn send_hit(mut hits: EventWriter<Hit>, mut score: ResMut<Score>) {
    score.0 += 1;
    hits.send(Hit(score.0));
}

fn move_all(mut q: Query<&mut Pos>) {
    q.for_each_mut(|pos| pos.0 += 1);
}

fn read_all(
    hits: EventReader<Hit>,
    moved: Query<&Pos, Changed<Pos>>,
    removed: Removed<Pos>,
    mut runs: Local<u32>,
    mut log: ResMut<Log>,
    mut commands: Commands<Game>,
) {
    *runs += 1;
    let hits: Vec<u32> = hits.read().map(|hit| hit.0).collect();
    log.0.push(format!(
        "run {} hits {hits:?} moved {} removed {}",
        *runs,
        moved.iter().count(),
        removed.len()
    ));
    commands.spawn((Pos(100),));
}

fn gated_reader_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(send_hit)
        .add(move_all)
        .add(read_all.run_if(go));
    schedule
}

#[test]
fn a_skipped_systems_next_run_sees_everything_since_its_last_run() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(0),));
    let doomed = world.spawn((Pos(0),));
    let mut schedule = gated_reader_schedule();
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    world.resource_mut::<Flags>().go = false;
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    world.despawn(doomed).unwrap();
    // Skipped: no commands (one spawn, by the first run), no local, no log.
    assert_eq!(world.len(), 2);
    assert_eq!(log_of(&world).len(), 1);
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        log_of(&world),
        [
            "run 1 hits [1] moved 2 removed 0",
            // Hits 2..=6: the four skipped turns' and this one's, once each.
            "run 2 hits [2, 3, 4, 5, 6] moved 2 removed 1",
            "run 3 hits [7] moved 3 removed 0",
        ]
    );
}

#[test]
fn a_system_skipped_from_its_first_turn_first_runs_as_a_new_one() {
    let mut world = World::<Game>::new();
    let mut schedule = gated_reader_schedule();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    // Like a system of a schedule that first runs now: it sees what the
    // world still keeps (the events of the last two runs).
    assert_eq!(log_of(&world), ["run 1 hits [3, 4] moved 0 removed 0"]);
}

#[test]
fn skipped_windows_survive_a_snapshot_and_agree_with_the_straight_run() {
    let straight = {
        let mut world = World::<Game>::new();
        world.spawn((Pos(0),));
        let mut schedule = gated_reader_schedule();
        for round in 0..12 {
            world.resource_mut::<Flags>().go = round % 5 == 0;
            schedule.run(&mut world);
        }
        world
    };
    for cut in [1, 3, 6] {
        let mut world = World::<Game>::new();
        world.spawn((Pos(0),));
        let mut schedule = gated_reader_schedule();
        for round in 0..cut {
            world.resource_mut::<Flags>().go = round % 5 == 0;
            schedule.run(&mut world);
        }
        let mut copy = world.clone();
        drop(world);
        let mut schedule = gated_reader_schedule();
        for round in cut..12 {
            copy.resource_mut::<Flags>().go = round % 5 == 0;
            schedule.run(&mut copy);
        }
        assert_eq!(log_of(&copy), log_of(&straight), "cut after {cut}");
        assert_eq!(copy.checksum(), straight.checksum(), "cut after {cut}");
    }
}

fn count_runs(mut runs: Local<u32>) {
    *runs += 1;
}

#[test]
fn only_a_skipped_reader_of_events_holds_them_back() {
    // A skipped system without an `EventReader` or `Removed`: the world
    // drops events as it would without it.
    let mut schedule = Schedule::<Game>::new();
    schedule.add(send_hit).add(count_runs.run_if(go));
    let mut world = World::<Game>::new();
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    world.resource_mut::<Flags>().go = false;
    for _ in 0..10 {
        schedule.run(&mut world);
    }
    assert_eq!(world.events::<Hit>().len(), 2, "the last two runs' events");
    // A skipped reader of them: every event since its last run is kept.
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(send_hit).add(peek.run_if(go));
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    world.resource_mut::<Flags>().go = false;
    for _ in 0..10 {
        schedule.run(&mut world);
    }
    assert_eq!(world.events::<Hit>().len(), 10, "the ten it has not seen");
    // Its next run reads them, and the world lets them go.
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.events::<Hit>().len(), 2);
}

fn peek(hits: EventReader<Hit>) {
    let _ = hits.len();
}

#[test]
fn a_skip_is_part_of_the_checksum() {
    // Two worlds that differ only in that one skipped `peek` at its last
    // turn: its next run reads two runs' events there, one run's here.
    let mut schedule = Schedule::<Game>::new();
    schedule.add(send_hit).add(peek.run_if(go));
    let mut world = World::<Game>::new();
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    let (mut skipped, mut ran) = (world.clone(), world.clone());
    skipped.resource_mut::<Flags>().go = false;
    schedule.run(&mut skipped);
    schedule.run(&mut ran);
    ran.resource_mut::<Flags>().go = false;
    assert_ne!(ran.checksum(), skipped.checksum());
    // Once it has run again, nothing tells them apart.
    for world in [&mut skipped, &mut ran] {
        world.resource_mut::<Flags>().go = true;
        schedule.run(world);
    }
    assert_eq!(ran.checksum(), skipped.checksum());
}

#[cfg(feature = "serde")]
#[test]
fn skip_records_survive_a_save_and_a_disordered_one_is_refused() {
    // `Game`'s types are not serde; a schema of its own.
    #[derive(Clone, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
    struct Spot(i32);
    #[derive(Clone, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
    struct Ping(u32);
    #[derive(
        Clone, Debug, Default, PartialEq, StableHash, serde::Serialize, serde::Deserialize,
    )]
    struct Seen(Vec<u32>, bool);
    #[derive(Schema)]
    struct Saved {
        spot: Spot,
        #[ecs(event)]
        ping: Ping,
        #[ecs(resource)]
        seen: Seen,
    }
    fn ping(mut pings: EventWriter<Ping>, seen: Res<Seen>) {
        pings.send(Ping(seen.0.len() as u32 + 100));
    }
    fn open(seen: Res<Seen>) -> bool {
        seen.1
    }
    fn listen(pings: EventReader<Ping>, mut seen: ResMut<Seen>) {
        let got: Vec<u32> = pings.read().map(|p| p.0).collect();
        seen.0.extend(got);
    }
    fn schedule() -> Schedule<Saved> {
        let mut schedule = Schedule::new();
        schedule.add(ping).add(listen.run_if(open));
        schedule
    }
    let mut world = World::<Saved>::new();
    world.resource_mut::<Seen>().1 = true;
    schedule().run(&mut world);
    world.resource_mut::<Seen>().1 = false;
    let mut run = schedule();
    for _ in 0..3 {
        run.run(&mut world);
    }
    let save = serde_json::to_value(&world).unwrap();
    let skipped = save[6][6].as_array().expect("the skip records").clone();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    let mut loaded: World<Saved> = serde_json::from_value(save.clone()).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    for world in [&mut world, &mut loaded] {
        world.resource_mut::<Seen>().1 = true;
        schedule().run(world);
    }
    assert_eq!(loaded.resource::<Seen>().0, [100, 101, 101, 101, 101]);
    assert_eq!(loaded.checksum(), world.checksum());
    // Two records of one system: refused, with the reason.
    let mut doubled = save;
    let record = doubled[6][6][0].clone();
    doubled[6][6].as_array_mut().unwrap().push(record);
    let error = match World::<Saved>::load(doubled) {
        Ok(_) => panic!("loaded a save that records one skip twice"),
        Err(error) => error.to_string(),
    };
    assert!(error.contains("skipped systems is not sorted"), "{error}");
}

// A condition's reads count in its system's access.

fn raise(mut flags: ResMut<Flags>) {
    flags.go = true;
}

#[test]
fn a_condition_waits_for_the_writers_of_what_it_reads() {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(raise)
        .add_named("gated", note("gated").run_if(go));
    let plan = schedule.describe();
    assert!(
        plan.contains("gated waits for raise: raise writes Flags, which gated reads"),
        "{plan}"
    );
    let mut world = World::<Game>::new();
    schedule.force_parallel(Some(true)).run(&mut world);
    assert_eq!(log_of(&world), ["gated"]);
}

#[test]
fn describe_and_to_dot_show_conditions() {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(move_all.run_if(in_state(Mode::Alert).and(not(on_event::<Hit>()))))
        .add(send_hit.run_if(resource_changed::<Score>().or(go)));
    let plan = schedule.describe();
    assert!(
        plan.contains("move_all if in_state(Mode::Alert) and not on_event::<Hit>"),
        "{plan}"
    );
    assert!(
        plan.contains("send_hit if resource_changed::<Score> or go"),
        "{plan}"
    );
    let dot = schedule.to_dot();
    assert!(
        dot.contains("s0 [label=\"move_all\\nif in_state(Mode::Alert) and not on_event::<Hit>\"]"),
        "{dot}"
    );
}

// A condition's locals are world state.

fn every_other(mut turns: Local<u32>) -> bool {
    *turns += 1;
    *turns % 2 == 0
}

#[test]
fn a_conditions_locals_are_world_state() {
    let build = || {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(send_hit.run_if(every_other));
        schedule
    };
    let mut world = World::<Game>::new();
    let mut schedule = build();
    schedule.run(&mut world);
    let saved = world.clone();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let score = world.resource::<Score>().0;
    // A copy, run by a new schedule, goes on from the condition's count.
    let mut copy = saved.clone();
    let mut fresh = build();
    fresh.run(&mut copy);
    fresh.run(&mut copy);
    assert_eq!(copy.resource::<Score>().0, score);
    assert_eq!(copy.checksum(), world.checksum());
    // Forgetting the schedule forgets the condition's count too.
    assert!(fresh.forget(&mut copy));
    fresh.run(&mut copy);
    assert_eq!(copy.resource::<Score>().0, score);
}

/// A condition's locals inside `and`, `or` and `not` are checked out of the
/// world and back in like a plain condition's: they count on from run to
/// run, a copy run by a new schedule goes on from the same counts, and a
/// condition without locals beside them does not hide them.
#[test]
fn the_locals_of_combined_conditions_are_world_state() {
    let build = || {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(note("both").run_if(go.and(every_other)));
        schedule.add(note("first").run_if(every_other.and(go)));
        schedule.add(note("odd").run_if(not(every_other)));
        schedule.add(note("either").run_if(a.or(every_other)));
        schedule
    };
    let mut world = World::<Game>::new();
    world.resource_mut::<Flags>().go = true;
    let mut schedule = build();
    schedule.run(&mut world);
    let saved = world.clone();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let odd = || "odd".to_owned();
    let even = || ["both", "first", "either"].map(str::to_owned);
    let mut expected = vec![odd()];
    expected.extend(even());
    expected.push(odd());
    expected.extend(even());
    assert_eq!(log_of(&world), expected);
    let mut copy = saved.clone();
    let mut fresh = build();
    for _ in 0..3 {
        fresh.run(&mut copy);
    }
    assert_eq!(log_of(&copy), expected);
    assert_eq!(copy.checksum(), world.checksum());
}

fn every_third_unless_b(mut turns: Local<u32>, flags: Res<Flags>) -> bool {
    *turns += 1;
    assert!(!flags.b, "the condition panics on its turn {}", *turns);
    *turns % 3 == 0
}

/// A condition that panics gives its locals back to the world: the turn it
/// counted before panicking is world state, from which a new schedule over
/// the same world goes on.
#[test]
fn a_panicking_condition_gives_its_locals_back_to_the_world() {
    let build = || {
        let mut schedule = Schedule::<Game>::new();
        schedule.add(note("third").run_if(every_third_unless_b));
        schedule
    };
    let mut world = World::<Game>::new();
    let mut schedule = build();
    schedule.run(&mut world); // turn 1
    world.resource_mut::<Flags>().b = true;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        schedule.run(&mut world); // turn 2, panics
    }));
    assert!(run.is_err());
    world.resource_mut::<Flags>().b = false;
    let mut fresh = build();
    fresh.run(&mut world); // turn 3
    assert_eq!(log_of(&world), ["third"]);
}

/// A condition prints as its name: the function's, or the combination's.
#[test]
fn a_condition_prints_its_name() {
    let condition: ecs::condition::Condition<Game> =
        ecs::condition::IntoCondition::into_condition(a.and(not(b)).or(go));
    let printed = format!("{condition:?}");
    assert!(printed.starts_with("Condition(\""), "{printed}");
    for part in [" and ", " or ", "not"] {
        assert!(printed.contains(part), "{printed}");
    }
}

// Parallel and sequential runs agree on any number of threads.

fn spread(mut q: Query<&mut Pos>, flags: Res<Flags>) {
    let step = if flags.a { 2 } else { 1 };
    q.for_each_mut(|pos| pos.0 += step);
}

fn flip(mut flags: ResMut<Flags>, score: Res<Score>) {
    flags.a = score.0 % 3 == 0;
    flags.b = score.0 % 2 == 0;
}

fn tally(hits: EventReader<Hit>, mut log: ResMut<Log>) {
    log.0.push(format!(
        "{:?}",
        hits.read().map(|h| h.0).collect::<Vec<_>>()
    ));
}

fn alarm(mut next: NextState<Mode>, score: Res<Score>) {
    next.set(if score.0 % 4 < 2 {
        Mode::Calm
    } else {
        Mode::Alert
    });
}

fn busy_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .apply_transitions::<Mode>()
        .add(send_hit.run_if(not(b)))
        .add(flip)
        .add(spread.run_if(a.or(in_state(Mode::Alert))))
        .add(tally.run_if(on_event::<Hit>().and(b)))
        .add(move_all.run_if(resource_changed::<Score>()))
        .add(alarm)
        .add(read_all.run_if(every_other));
    schedule
}

fn play(threads: usize, parallel: bool) -> (u128, Vec<String>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut world = World::<Game>::new();
        world.spawn_batch((0..64).map(|i| (Pos(i),))).for_each(drop);
        let mut schedule = busy_schedule();
        for _ in 0..30 {
            if parallel {
                schedule.force_parallel(Some(true)).run(&mut world);
            } else {
                schedule.run_sequential(&mut world);
            }
        }
        (world.checksum(), log_of(&world))
    })
}

#[test]
fn conditional_schedules_give_the_sequential_result_on_1_and_4_threads() {
    let sequential = play(1, false);
    assert!(sequential.1.len() > 5, "{:?}", sequential.1);
    assert_eq!(play(1, true), sequential);
    assert_eq!(play(4, true), sequential);
    assert_eq!(play(4, false), sequential);
}

// Groups: `(a, b, c).run_if(condition)`.

static GROUP_EVALUATIONS: AtomicUsize = AtomicUsize::new(0);

fn counted_go(flags: Res<Flags>) -> bool {
    GROUP_EVALUATIONS.fetch_add(1, Ordering::Relaxed);
    flags.go
}

#[test]
fn a_tuple_adds_its_systems_in_order() {
    let mut world = World::<Game>::new();
    let mut grouped = Schedule::<Game>::new();
    grouped
        .add((note("x"), (note("y"), note("z"))))
        .add(note("w"));
    let mut one_by_one = Schedule::<Game>::new();
    one_by_one
        .add(note("x"))
        .add(note("y"))
        .add(note("z"))
        .add(note("w"));
    assert_eq!(grouped.describe(), one_by_one.describe());
    grouped.run(&mut world);
    assert_eq!(log_of(&world), ["x", "y", "z", "w"]);
}

#[test]
fn a_group_runs_when_its_condition_holds_and_evaluates_it_once() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(note("before"))
        .add((note("x"), note("y"), note("z")).run_if(counted_go))
        .add(note("after"));
    GROUP_EVALUATIONS.store(0, Ordering::Relaxed);
    schedule.run(&mut world);
    assert_eq!(GROUP_EVALUATIONS.load(Ordering::Relaxed), 1);
    assert_eq!(log_of(&world), ["before", "after"]);
    world.resource_mut::<Flags>().go = true;
    schedule.run_sequential(&mut world);
    assert_eq!(GROUP_EVALUATIONS.load(Ordering::Relaxed), 2);
    assert_eq!(
        log_of(&world),
        ["before", "after", "before", "x", "y", "z", "after"]
    );
}

fn stop(mut flags: ResMut<Flags>, mut log: ResMut<Log>) {
    flags.go = false;
    log.0.push("stop".to_owned());
}

#[test]
fn a_group_follows_the_decision_made_at_its_first_systems_turn() {
    // `stop` turns the condition off: the rest of the group runs all the
    // same, since the group was decided at `stop`'s turn; the next run
    // skips it all.
    for sequential in [false, true] {
        let mut world = World::<Game>::new();
        let mut schedule = Schedule::<Game>::new();
        schedule.add((stop, note("y")).run_if(go));
        world.resource_mut::<Flags>().go = true;
        for _ in 0..2 {
            if sequential {
                schedule.run_sequential(&mut world);
            } else {
                schedule.run(&mut world);
            }
        }
        assert_eq!(log_of(&world), ["stop", "y"]);
    }
}

#[test]
fn nested_groups_and_a_systems_own_condition_must_all_hold() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add((note("x"), (note("y").run_if(a), note("z")).run_if(b)).run_if(go));
    let mut runs = Vec::new();
    for (a, b, go) in [
        (true, true, false),
        (true, true, true),
        (false, true, true),
        (true, false, true),
    ] {
        *world.resource_mut::<Flags>() = Flags { a, b, go };
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        runs.push(log_of(&world).join(" "));
    }
    assert_eq!(runs, ["", "x y z", "x z", "x"]);
    let described = schedule.describe();
    assert!(
        described.contains(
            "  groups, each condition decided once per run at its first system's turn:\n\
             \x20   closure in note, closure in note, closure in note if go\n\
             \x20   closure in note, closure in note if b\n"
        ),
        "{described}"
    );
    assert!(described.contains("closure in note if a"), "{described}");
}

#[test]
fn a_second_run_if_on_a_group_is_a_second_condition() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add((note("x"), note("y")).run_if(a).run_if(never_evaluated));
    schedule.run(&mut world);
    assert_eq!(log_of(&world), Vec::<String>::new());
    assert!(schedule.describe().contains("if a and never_evaluated"));
}

fn read_group(hits: EventReader<Hit>, moved: Query<&Pos, Changed<Pos>>, mut log: ResMut<Log>) {
    let hits: Vec<u32> = hits.read().map(|hit| hit.0).collect();
    log.0
        .push(format!("hits {hits:?} moved {}", moved.iter().count()));
}

#[test]
fn each_system_of_a_skipped_group_sees_everything_when_the_group_runs_again() {
    let mut world = World::<Game>::new();
    world.spawn((Pos(0),));
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(send_hit)
        .add((read_group, move_all, read_group).run_if(go));
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    world.resource_mut::<Flags>().go = false;
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    world.resource_mut::<Flags>().go = true;
    schedule.run(&mut world);
    assert_eq!(
        log_of(&world),
        [
            "hits [1] moved 1",
            "hits [1] moved 1",
            // Hits 2..=5: the three skipped turns' and this one's, once
            // each, for both readers; the second sees its own group's move
            // and the first the move of the group's last run.
            "hits [2, 3, 4, 5] moved 1",
            "hits [2, 3, 4, 5] moved 1",
        ]
    );
}

/// A group whose first system must wait (for the first system, over
/// `Score`) and whose second need not: the second runs in the first's stage
/// or later, and the group is decided at the first's turn. The group's
/// condition sees the entities added since the group's previous turn,
/// which include the one its second system spawned in the previous run.
fn spawn_one(mut commands: Commands<Game>) {
    commands.spawn((Pos(7),));
}

fn keep_score(mut score: ResMut<Score>, mut log: ResMut<Log>) {
    log.0.push(format!("score {}", score.0));
    score.0 += 1;
}

fn anything_added(added: Query<Entity, Added<Pos>>) -> bool {
    added.count() > 0
}

fn staged_group_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(|mut score: ResMut<Score>| score.0 += 10)
        .add((keep_score, spawn_one).run_if(anything_added));
    schedule
}

#[test]
fn a_groups_later_system_never_runs_before_the_groups_first() {
    let described = staged_group_schedule().describe();
    assert!(
        described.contains(
            "spawn_one waits for keep_score: the run condition of their group is decided at \
             keep_score's turn, so spawn_one runs in keep_score's stage or later"
        ),
        "{described}"
    );
    let play = |parallel: bool| {
        let mut world = World::<Game>::new();
        world.spawn((Pos(0),));
        let mut schedule = staged_group_schedule();
        for _ in 0..4 {
            if parallel {
                schedule.force_parallel(Some(true)).run(&mut world);
            } else {
                schedule.run_sequential(&mut world);
            }
        }
        (log_of(&world), world.checksum())
    };
    let sequential = play(false);
    assert_eq!(
        sequential.0,
        ["score 10", "score 21", "score 32", "score 43"]
    );
    for threads in [1, 2, 4] {
        assert_eq!(support::on_threads(threads, || play(true)), sequential);
    }
}

fn every_other_turn(mut turns: Local<u32>) -> bool {
    *turns += 1;
    *turns % 2 == 1
}

fn grouped_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .apply_transitions::<Mode>()
        .add(send_hit.run_if(not(b)))
        .add(flip)
        // Its first system reads nothing of the world: the condition's
        // reads alone order the group after `flip`.
        .add((count_runs, note("h")).run_if(a))
        .add((spread, tally, move_all).run_if(in_state(Mode::Alert).or(a)))
        .add(alarm)
        .add((read_all, (note("g"), count_runs).run_if(b)).run_if(every_other_turn));
    schedule
}

fn play_groups(threads: usize, parallel: bool, cut: Option<usize>) -> (u128, Vec<String>) {
    support::on_threads(threads, || {
        let mut world = World::<Game>::new();
        world.spawn_batch((0..64).map(|i| (Pos(i),))).for_each(drop);
        let mut schedule = grouped_schedule();
        for round in 0..30 {
            if cut == Some(round) {
                // A copy, run on by a new schedule, continues exactly.
                world = world.clone();
                schedule = grouped_schedule();
            }
            // Keeps `flip` flipping (`send_hit` stops once `b` holds).
            world.resource_mut::<Score>().0 += 1;
            if parallel {
                schedule.force_parallel(Some(true)).run(&mut world);
            } else {
                schedule.run_sequential(&mut world);
            }
        }
        (world.checksum(), log_of(&world))
    })
}

#[test]
fn grouped_schedules_give_the_sequential_result_on_1_2_and_4_threads() {
    let sequential = play_groups(1, false, None);
    assert!(sequential.1.len() > 10, "{:?}", sequential.1);
    for threads in [1, 2, 4] {
        assert_eq!(play_groups(threads, true, None), sequential, "{threads}");
    }
    assert_eq!(play_groups(4, false, None), sequential);
    for cut in [1, 2, 7] {
        assert_eq!(play_groups(2, true, Some(cut)), sequential, "cut {cut}");
    }
}

#[test]
fn a_groups_condition_locals_are_world_state() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add((note("x"), note("y")).run_if(every_other_turn));
    schedule.run(&mut world);
    let mut copy = world.clone();
    assert_eq!(copy.checksum(), world.checksum());
    schedule.run(&mut world);
    schedule.run(&mut world);
    let mut fresh = Schedule::<Game>::new();
    fresh.add((note("x"), note("y")).run_if(every_other_turn));
    fresh.run(&mut copy);
    fresh.run(&mut copy);
    assert_eq!(log_of(&copy), log_of(&world));
    assert_eq!(log_of(&world), ["x", "y", "x", "y"]);
    assert_eq!(copy.checksum(), world.checksum());
    assert!(fresh.forget(&mut copy));
    fresh.run(&mut copy);
    assert_eq!(log_of(&copy).len(), 6, "forgotten: the local starts afresh");
}

#[test]
fn a_tuple_of_enter_systems_runs_in_order() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.on_enter(Mode::Alert, (note("x"), note("y")));
    schedule.run(&mut world);
    world.set_next_state(Mode::Alert);
    schedule.run(&mut world);
    assert_eq!(log_of(&world), ["x", "y"]);
    assert!(schedule.describe().contains(
        "on_enter(Mode::Alert): closure in note\n    on_enter(Mode::Alert): closure in note\n"
    ));
}

#[test]
fn a_group_that_does_not_hold_evaluates_no_condition_inside_it() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(
        (
            note("x"),
            (note("y"), note("z")).run_if(never_evaluated),
            note("w").run_if(never_evaluated),
        )
            .run_if(go),
    );
    schedule.run(&mut world);
    schedule.run_sequential(&mut world);
    assert!(log_of(&world).is_empty());
}
