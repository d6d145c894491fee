//! States (`#[ecs(state)]`): a transition requested in one run is applied
//! at the start of the next run of a schedule that applies it, exit systems
//! first, then the switch, then enter systems, then the schedule's systems;
//! the state and the pending request are world state (clone, checksum,
//! save).

use ecs::checksum::StableHash;
use ecs::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Pos(i32);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Phase {
    #[default]
    Menu,
    Playing,
    Paused,
    Over,
}
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Music {
    #[default]
    Quiet,
    Loud,
}
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Log(Vec<String>);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Script(Vec<Option<Phase>>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    script: Script,
    #[ecs(state)]
    phase: Phase,
    #[ecs(state)]
    music: Music,
}

fn note(text: &'static str) -> impl FnMut(ResMut<Log>) + Send + 'static {
    move |mut log: ResMut<Log>| log.0.push(text.to_owned())
}

/// Requests the next scripted phase, if any, and logs the phase it sees.
fn direct(mut script: ResMut<Script>, mut next: NextState<Phase>, mut log: ResMut<Log>) {
    log.0.push(format!("run in {:?}", next.current()));
    if !script.0.is_empty() {
        if let Some(phase) = script.0.remove(0) {
            next.set(phase);
        }
    }
}

fn game_schedule() -> Schedule<Game> {
    let mut schedule = Schedule::<Game>::new();
    schedule
        .on_exit(Phase::Menu, note("exit Menu"))
        .on_enter(Phase::Playing, note("enter Playing"))
        .on_enter(Phase::Playing, note("enter Playing again"))
        .on_exit(Phase::Playing, note("exit Playing"))
        .on_enter(Phase::Paused, note("enter Paused"))
        .on_exit(Phase::Paused, note("exit Paused"))
        .on_enter(Phase::Over, note("enter Over"))
        .add(direct)
        .add(note("playing").run_if(in_state(Phase::Playing)));
    schedule
}

fn log_of(world: &World<Game>) -> Vec<String> {
    world.resource::<Log>().0.clone()
}

#[test]
fn a_transition_runs_exit_then_enter_systems_before_the_run_in_order() {
    let mut world = World::<Game>::new();
    world.resource_mut::<Script>().0 = vec![
        Some(Phase::Playing),
        None,
        Some(Phase::Paused),
        Some(Phase::Playing),
        Some(Phase::Over),
    ];
    let mut schedule = game_schedule();
    for _ in 0..6 {
        schedule.run(&mut world);
    }
    assert_eq!(
        log_of(&world),
        [
            "run in Menu",
            "exit Menu",
            "enter Playing",
            "enter Playing again",
            "run in Playing",
            "playing",
            "run in Playing",
            "playing",
            "exit Playing",
            "enter Paused",
            "run in Paused",
            "exit Paused",
            "enter Playing",
            "enter Playing again",
            "run in Playing",
            "playing",
            "exit Playing",
            "enter Over",
            "run in Over",
        ]
    );
    assert_eq!(*world.state::<Phase>(), Phase::Over);
}

#[test]
fn the_last_request_wins_and_a_request_for_the_current_state_does_nothing() {
    let mut world = World::<Game>::new();
    let mut schedule = game_schedule();
    world.set_next_state(Phase::Paused);
    world.set_next_state(Phase::Playing);
    schedule.run(&mut world);
    assert_eq!(*world.state::<Phase>(), Phase::Playing);
    world.resource_mut::<Log>().0.clear();
    world.set_next_state(Phase::Playing);
    schedule.run(&mut world);
    assert_eq!(log_of(&world), ["run in Playing", "playing"]);
    assert_eq!(world.resource::<State<Phase>>().pending(), None);
}

#[test]
fn a_schedule_that_does_not_apply_a_states_transitions_leaves_them_pending() {
    let mut world = World::<Game>::new();
    let mut other = Schedule::<Game>::new();
    other.add(note("other")).apply_transitions::<Music>();
    world.set_next_state(Phase::Playing);
    world.set_next_state(Music::Loud);
    other.run(&mut world);
    assert_eq!(*world.state::<Phase>(), Phase::Menu);
    assert_eq!(*world.state::<Music>(), Music::Loud);
    assert_eq!(
        world.resource::<State<Phase>>().pending(),
        Some(&Phase::Playing)
    );
    game_schedule().run_sequential(&mut world);
    assert_eq!(*world.state::<Phase>(), Phase::Playing);
}

fn loud(mut next: NextState<Music>) {
    next.set(Music::Loud);
}

#[test]
fn states_are_applied_in_the_order_the_schedule_first_named_them() {
    // Phase first, then Music: a request for Music made by an enter system
    // of Phase is applied in the same run; one for Phase made by an enter
    // system of Music waits for the next.
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule
        .on_enter(Phase::Playing, loud)
        .on_enter(Music::Loud, note("loud"))
        .on_enter(Music::Loud, |mut next: NextState<Phase>| {
            next.set(Phase::Over)
        });
    world.set_next_state(Phase::Playing);
    schedule.run(&mut world);
    assert_eq!(*world.state::<Music>(), Music::Loud);
    assert_eq!(log_of(&world), ["loud"]);
    assert_eq!(*world.state::<Phase>(), Phase::Playing);
    schedule.run(&mut world);
    assert_eq!(*world.state::<Phase>(), Phase::Over);
}

#[test]
fn state_and_pending_request_are_world_state() {
    let mut world = World::<Game>::new();
    world.resource_mut::<Script>().0 = vec![Some(Phase::Playing), Some(Phase::Paused)];
    let mut schedule = game_schedule();
    schedule.run(&mut world);
    // Menu, with Playing requested.
    let snapshot = world.clone();
    assert_eq!(
        snapshot.resource::<State<Phase>>().pending(),
        Some(&Phase::Playing)
    );
    let before = world.checksum();
    let mut other = world.clone();
    other.set_next_state(Phase::Over);
    assert_ne!(other.checksum(), before, "the request is in the checksum");
    other.clone_from(&snapshot);
    assert_eq!(other.checksum(), before);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_ne!(world.checksum(), before, "the state is in the checksum");
    // The copy, run by a new schedule, does the same.
    let mut fresh = game_schedule();
    fresh.run(&mut other);
    fresh.run(&mut other);
    assert_eq!(log_of(&other), log_of(&world));
    assert_eq!(other.checksum(), world.checksum());
}

#[cfg(feature = "serde")]
#[test]
fn state_and_pending_request_survive_a_save_and_load() {
    let mut world = World::<Game>::new();
    world.resource_mut::<Script>().0 = vec![Some(Phase::Playing), None, Some(Phase::Paused)];
    let mut schedule = game_schedule();
    schedule.run(&mut world);
    let bytes = postcard::to_allocvec(&world).unwrap();
    let mut loaded: World<Game> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    assert_eq!(
        loaded.resource::<State<Phase>>().pending(),
        Some(&Phase::Playing)
    );
    let mut fresh = game_schedule();
    for _ in 0..3 {
        schedule.run(&mut world);
        fresh.run(&mut loaded);
    }
    assert_eq!(log_of(&loaded), log_of(&world));
    assert_eq!(loaded.checksum(), world.checksum());
    let json = serde_json::to_string(&world).unwrap();
    assert!(json.contains("\"Paused\""), "{json}");
}

fn count_enters(mut entered: Local<u32>, mut log: ResMut<Log>) {
    *entered += 1;
    log.0.push(format!("entered {} times", *entered));
}

#[test]
fn enter_systems_keep_their_locals_in_the_world() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.on_enter(Phase::Playing, count_enters);
    for phase in [Phase::Playing, Phase::Paused, Phase::Playing] {
        world.set_next_state(phase);
        schedule.run(&mut world);
    }
    let copy = world.clone();
    let mut world = copy;
    let mut fresh = Schedule::<Game>::new();
    fresh.on_enter(Phase::Playing, count_enters);
    for phase in [Phase::Paused, Phase::Playing] {
        world.set_next_state(phase);
        fresh.run(&mut world);
    }
    assert_eq!(
        log_of(&world),
        ["entered 1 times", "entered 2 times", "entered 3 times"]
    );
}

#[test]
fn describe_and_to_dot_show_transitions() {
    let schedule = game_schedule();
    let plan = schedule.describe();
    assert!(
        plan.ends_with(
            "  transitions of Phase, at the start of a run:\n\
             \x20   on_exit(Phase::Menu): closure in note\n\
             \x20   on_exit(Phase::Playing): closure in note\n\
             \x20   on_exit(Phase::Paused): closure in note\n\
             \x20   on_enter(Phase::Playing): closure in note\n\
             \x20   on_enter(Phase::Playing): closure in note\n\
             \x20   on_enter(Phase::Paused): closure in note\n\
             \x20   on_enter(Phase::Over): closure in note\n"
        ),
        "{plan}"
    );
    assert!(
        plan.contains("closure in note if in_state(Phase::Playing)"),
        "{plan}"
    );
    let mut music = Schedule::<Game>::new();
    music.apply_transitions::<Music>();
    assert!(music.describe().ends_with(
        "  transitions of Music, at the start of a run:\n    (no exit or enter systems)\n"
    ));
    let dot = schedule.to_dot();
    assert!(dot.contains("  subgraph cluster_transitions1 {\n"), "{dot}");
    assert!(
        dot.contains("    t0 [label=\"on_exit(Phase::Menu)\\nclosure in note\"];\n"),
        "{dot}"
    );
}

/// Requests a pause, logging what the handle says before and after.
fn request_pause(mut next: NextState<Phase>, mut log: ResMut<Log>) {
    log.0.push(format!("{next:?} pending {:?}", next.pending()));
    next.set(Phase::Paused);
    log.0.push(format!("{next:?} pending {:?}", next.pending()));
}

/// Reads the state and nothing else (so only the state orders it).
fn watch_phase(phase: Res<State<Phase>>) {
    assert_eq!(*phase.get(), Phase::Menu);
}

/// `NextState` writes the state's cell: a request waits for the systems
/// before it that read the state, and shows what it requested so far.
#[test]
fn a_request_waits_for_the_readers_of_the_state_before_it() {
    let mut schedule = Schedule::<Game>::new();
    schedule.add(watch_phase).add(request_pause);
    let plan = schedule.describe();
    assert!(
        plan.contains(
            "request_pause waits for watch_phase: request_pause writes State<Phase>, which \
             watch_phase reads"
        ),
        "{plan}"
    );
    let mut world = World::<Game>::new();
    schedule.force_parallel(Some(true)).run(&mut world);
    assert_eq!(
        log_of(&world),
        [
            "NextState(None) pending None",
            "NextState(Some(Paused)) pending Some(Paused)"
        ]
    );
}

/// `Schedule::forget` says whether the world knew the schedule, its
/// transition systems included: not before it ran, yes once, then no more.
#[test]
fn forgetting_a_schedule_with_transitions_says_whether_the_world_knew_it() {
    let mut world = World::<Game>::new();
    let mut schedule = game_schedule();
    assert!(!schedule.forget(&mut world));
    world.set_next_state(Phase::Playing);
    schedule.run(&mut world);
    assert!(schedule.forget(&mut world));
    assert!(!schedule.forget(&mut world));
}

/// The game's schedule, with enter and exit systems for the initial
/// state, Menu, too.
fn menu_schedule() -> Schedule<Game> {
    let mut schedule = game_schedule();
    schedule.on_enter(Phase::Menu, note("enter Menu"));
    schedule
}

#[test]
fn the_initial_state_is_entered_at_the_first_run_and_never_again() {
    let mut world = World::<Game>::new();
    assert!(!world.resource::<State<Phase>>().entered());
    let mut schedule = menu_schedule();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert!(world.resource::<State<Phase>>().entered());
    // No exit system runs for it, and the enter systems of other states
    // do not run.
    assert_eq!(
        log_of(&world),
        ["enter Menu", "run in Menu", "run in Menu", "run in Menu"]
    );
}

/// As bevy: the initial state is entered before a transition requested
/// before the first run, which then leaves it.
#[test]
fn a_transition_requested_before_the_first_run_follows_the_initial_states_entry() {
    let mut world = World::<Game>::new();
    world.set_next_state(Phase::Playing);
    menu_schedule().run_sequential(&mut world);
    assert_eq!(
        log_of(&world),
        [
            "enter Menu",
            "exit Menu",
            "enter Playing",
            "enter Playing again",
            "run in Playing",
            "playing"
        ]
    );
}

/// A world that starts in a state other than the type's default enters
/// that state.
#[test]
fn the_initial_state_is_the_one_the_world_starts_in() {
    let mut world = World::<Game>::new();
    *world.resource_mut::<State<Phase>>() = State::new(Phase::Playing);
    menu_schedule().run(&mut world);
    assert_eq!(
        log_of(&world),
        [
            "enter Playing",
            "enter Playing again",
            "run in Playing",
            "playing"
        ]
    );
}

/// The first schedule that applies a state's transitions enters it, with
/// its own enter systems; one that does not apply them leaves it.
#[test]
fn only_a_schedule_that_applies_the_states_transitions_enters_it() {
    let mut world = World::<Game>::new();
    let mut other = Schedule::<Game>::new();
    other.add(note("other"));
    other.run(&mut world);
    assert!(!world.resource::<State<Phase>>().entered());
    let mut music = Schedule::<Game>::new();
    music.on_enter(Music::Quiet, note("enter Quiet"));
    music.run(&mut world);
    assert!(world.resource::<State<Music>>().entered());
    assert!(!world.resource::<State<Phase>>().entered());
    menu_schedule().run(&mut world);
    assert_eq!(
        log_of(&world),
        ["other", "enter Quiet", "enter Menu", "run in Menu"]
    );
}

/// Whether the state was entered is world state: a copy taken before the
/// first run enters it when run by a new schedule, one taken after does
/// not; and the checksum tells the two apart.
#[test]
fn whether_the_initial_state_was_entered_is_world_state() {
    let mut world = World::<Game>::new();
    let before = world.clone();
    let mut schedule = menu_schedule();
    schedule.run(&mut world);
    let after = world.clone();
    schedule.run(&mut world);

    let mut copy = before.clone();
    let mut fresh = menu_schedule();
    fresh.run(&mut copy);
    fresh.run(&mut copy);
    assert_eq!(log_of(&copy), log_of(&world));
    assert_eq!(copy.checksum(), world.checksum());

    let mut copy = World::<Game>::new();
    copy.clone_from(&after);
    let mut fresh = menu_schedule();
    fresh.run(&mut copy);
    assert_eq!(log_of(&copy), log_of(&world));
    assert_eq!(copy.checksum(), world.checksum());

    // Two worlds that differ only in whether Music was entered (a
    // schedule of the same systems runs on each; one applies Music's
    // transitions, without enter systems).
    let (mut quiet, mut entered) = (World::<Game>::new(), World::<Game>::new());
    let mut plain = Schedule::<Game>::new();
    plain.add(note("run"));
    let mut applying = Schedule::<Game>::new();
    applying.add(note("run")).apply_transitions::<Music>();
    plain.run(&mut quiet);
    applying.run(&mut entered);
    assert_eq!(log_of(&quiet), log_of(&entered));
    assert_ne!(quiet.checksum(), entered.checksum());
}

#[cfg(feature = "serde")]
#[test]
fn whether_the_initial_state_was_entered_survives_a_save_and_load() {
    let load = |world: &World<Game>| -> World<Game> {
        let bytes = postcard::to_allocvec(world).unwrap();
        postcard::from_bytes(&bytes).unwrap()
    };
    let mut world = World::<Game>::new();
    let mut before = load(&world);
    let mut schedule = menu_schedule();
    schedule.run(&mut world);
    let mut after = load(&world);
    assert_eq!(after.checksum(), world.checksum());
    schedule.run(&mut world);

    let mut fresh = menu_schedule();
    fresh.run(&mut before);
    fresh.run(&mut before);
    assert_eq!(
        log_of(&before),
        ["enter Menu", "run in Menu", "run in Menu"]
    );
    assert_eq!(before.checksum(), world.checksum());
    let mut fresh = menu_schedule();
    fresh.run(&mut after);
    assert_eq!(log_of(&after), log_of(&world));
    assert_eq!(after.checksum(), world.checksum());

    // A cell saves as (current, requested, entered); one without the flag
    // (an older save) is refused.
    let cell: State<Phase> = serde_json::from_str(r#"["Paused", "Over", true]"#).unwrap();
    assert_eq!(
        (cell.get(), cell.pending(), cell.entered()),
        (&Phase::Paused, Some(&Phase::Over), true)
    );
    assert!(serde_json::from_str::<State<Phase>>(r#"["Paused", null]"#).is_err());
}

/// The enter systems of two schedules are a schedule each, told apart by
/// the state and the label of the schedule they belong to: two live
/// schedules with the same enter systems would share their locals, and
/// are refused when they take turns; labelled (before or after the enter systems are added),
/// each keeps its own.
#[test]
fn two_schedules_with_the_same_enter_systems_are_told_apart_by_their_labels() {
    let build = |label: Option<&str>, system: &'static str| {
        let mut schedule = Schedule::<Game>::new();
        schedule
            .add(note(system))
            .on_enter(Phase::Playing, count_enters);
        if let Some(label) = label {
            schedule.label(label);
        }
        schedule
    };
    let mut world = World::<Game>::new();
    let (mut menu, mut level) = (build(None, "menu"), build(None, "level"));
    level.add(direct);
    world.set_next_state(Phase::Playing);
    menu.run(&mut world);
    world.set_next_state(Phase::Paused);
    level.run(&mut world);
    world.set_next_state(Phase::Playing);
    let before = world.checksum();
    let panic = catch_unwind(AssertUnwindSafe(|| menu.run(&mut world))).unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert!(
        text.starts_with(
            "two live schedules labelled \"on_enter of systems::states::Phase\" with the same \
             systems (count_enters) take turns on one World<Game>"
        ),
        "{text}"
    );
    assert_eq!(world.checksum(), before);

    let mut world = World::<Game>::new();
    let mut menu = build(Some("menu"), "menu");
    let mut level = Schedule::<Game>::new();
    level
        .label("level")
        .add(note("level"))
        .add(direct)
        .on_enter(Phase::Playing, count_enters);
    // Labelled after its enter systems, as `menu` is: the label reaches
    // the schedule of its enter systems too.
    let mut arena = build(Some("arena"), "arena");
    arena.add(direct);
    for schedule in [&mut menu, &mut level, &mut arena] {
        world.set_next_state(Phase::Playing);
        schedule.run(&mut world);
        world.set_next_state(Phase::Menu);
        schedule.run(&mut world);
    }
    let entered: Vec<String> = log_of(&world)
        .into_iter()
        .filter(|line| line.starts_with("entered"))
        .collect();
    assert_eq!(
        entered,
        ["entered 1 times", "entered 1 times", "entered 1 times"]
    );
}
