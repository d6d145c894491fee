//! Systems, commands and the schedule: what `Schedule::run` computes is the
//! systems run one after another in the order added, each system's commands
//! applied right after it; these tests pin that down operation by operation.
//! (`tests/systems/determinism.rs` compares whole random runs across thread counts.)

use ecs::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{DropLog, Tracked};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(i64);
#[derive(Debug, PartialEq)]
struct Frozen;
#[derive(Debug, PartialEq)]
struct Item(Tracked);
#[derive(Debug, Default, PartialEq)]
struct Tick(u64);
#[derive(Debug, Default, PartialEq)]
struct Seen(Vec<i64>);

#[derive(Schema)]
struct Physics {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    item: Item,
    #[ecs(resource)]
    tick: Tick,
    #[ecs(resource)]
    seen: Seen,
}

fn schedule() -> Schedule<Physics> {
    Schedule::new()
}

fn inertia(mut movers: Query<(&mut Pos, &Vel), Without<Frozen>>) {
    movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
}

fn record_positions(positions: Query<&Pos>, mut seen: ResMut<Seen>) {
    seen.0 = positions.iter().map(|pos| pos.0).collect();
    seen.0.sort();
}

fn count(mut tick: ResMut<Tick>) {
    tick.0 += 1;
}

#[test]
fn len_and_is_empty_count_the_systems_added_and_debug_describes_them() {
    let mut schedule = schedule();
    assert_eq!((schedule.len(), schedule.is_empty()), (0, true));
    schedule.add(inertia).add(count);
    assert_eq!((schedule.len(), schedule.is_empty()), (2, false));
    // Debug is the description of the plan.
    assert_eq!(format!("{schedule:?}"), schedule.describe());
    assert!(!schedule.describe().is_empty());
}

#[test]
fn describe_says_which_of_two_conflicting_systems_writes() {
    fn push_vel(mut vels: Query<&mut Vel>) {
        vels.for_each_mut(|vel| vel.0 += 1);
    }
    fn read_vel(vels: Query<&Vel>) {
        vels.for_each(|_| ());
    }
    fn read_tick(_: Res<Tick>) {}
    fn write_seen(mut seen: ResMut<Seen>) {
        seen.0.clear();
    }
    fn read_seen(_: Res<Seen>) {}
    let mut schedule = schedule();
    // Vel is component bit 1, Tick resource bit 0 and Seen resource bit 1;
    // the writer is the earlier system of some pairs, the later of another.
    schedule
        .add(push_vel)
        .add(read_vel)
        .add(read_tick)
        .add(count)
        .add(write_seen)
        .add(read_seen);
    let description = schedule.describe();
    assert!(
        description.contains("read_vel waits for push_vel: push_vel writes ")
            && description.contains(", which read_vel reads"),
        "{description}"
    );
    assert!(
        description.contains("count waits for read_tick: count writes ")
            && description.contains(", which read_tick reads"),
        "{description}"
    );
    assert!(
        description.contains("read_seen waits for write_seen: write_seen writes ")
            && description.contains(", which read_seen reads"),
        "{description}"
    );
}

#[test]
fn system_parameters_debug_as_what_they_lend() {
    let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = printed.clone();
    let mut world = World::<Physics>::new();
    world.resource_mut::<Tick>().0 = 7;
    let mut schedule = schedule();
    schedule.add(
        move |tick: Res<Tick>, seen: ResMut<Seen>, mut runs: Local<u32>| {
            *runs += 1;
            out.lock()
                .unwrap()
                .push(format!("{tick:?} {seen:?} {runs:?}"));
        },
    );
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        *printed.lock().unwrap(),
        [
            "Res(Tick(7)) ResMut(Seen([])) Local(1)",
            "Res(Tick(7)) ResMut(Seen([])) Local(2)"
        ]
    );
}

#[test]
fn a_later_system_sees_what_an_earlier_one_wrote() {
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1), Vel(10)));
    world.spawn((Pos(2),));
    let mut schedule = schedule();
    schedule.add(inertia).add(record_positions);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [2, 11]);
}

#[test]
fn a_system_query_whose_filter_repeats_a_fetched_component_still_requires_it() {
    fn record_with_pos(positions: Query<&Pos, With<Pos>>, mut seen: ResMut<Seen>) {
        seen.0 = positions.iter().map(|pos| pos.0).collect();
        seen.0.sort();
    }
    let mut world = World::<Physics>::new();
    world.spawn((Pos(2), Vel(10)));
    world.spawn((Vel(20),));
    world.spawn((Frozen,));
    world.spawn((Pos(1),));
    let mut schedule = schedule();
    schedule.add(record_with_pos);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [1, 2]);
}

#[test]
fn an_earlier_system_does_not_see_what_a_later_one_writes() {
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1), Vel(10)));
    let mut schedule = schedule();
    schedule.add(record_positions).add(inertia);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [1]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [11]);
}

#[test]
fn resources_are_shared_by_readers_and_written_by_one_system() {
    fn double(mut tick: ResMut<Tick>) {
        tick.0 *= 2;
    }
    fn read(tick: Res<Tick>, mut seen: ResMut<Seen>) {
        seen.0.push(tick.0 as i64);
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    schedule
        .add(count)
        .add(read)
        .add(double)
        .add(read)
        .add(count);
    schedule.run(&mut world);
    // 0 -> 1, read 1, -> 2, read 2, -> 3
    assert_eq!(world.resource::<Seen>().0, [1, 2]);
    assert_eq!(world.resource::<Tick>().0, 3);
}

#[test]
fn commands_are_applied_after_their_system_in_recording_order() {
    fn churn(movers: Query<(Entity, &Vel)>, mut commands: Commands<Physics>) {
        for (entity, _) in movers.iter() {
            // Recorded in this order, so the entity ends up without Frozen
            // and with the second Pos.
            commands.insert(entity, (Frozen, Pos(100)));
            commands.remove::<Frozen>(entity);
            commands.insert(entity, (Pos(200),));
        }
        // Not applied yet: the system still sees the world as it was.
        assert!(movers.iter().count() > 0);
    }
    let mut world = World::<Physics>::new();
    let a = world.spawn((Pos(1), Vel(1)));
    let mut schedule = schedule();
    schedule.add(churn);
    schedule.run(&mut world);
    assert_eq!(world.get::<Pos>(a), Some(&Pos(200)));
    assert!(!world.has::<Frozen>(a));
}

#[test]
fn a_later_system_sees_the_entities_an_earlier_system_spawned() {
    fn spawn_one(mut commands: Commands<Physics>) {
        commands.spawn((Pos(7),));
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    schedule.add(spawn_one).add(record_positions);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [7]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [7, 7]);
}

#[test]
fn an_earlier_system_does_not_see_entities_a_later_system_spawns() {
    fn spawn_one(mut commands: Commands<Physics>) {
        commands.spawn((Pos(7),));
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    schedule.add(record_positions).add(spawn_one);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, Vec::<i64>::new());
    assert_eq!(world.len(), 1);
}

#[test]
fn commands_from_two_systems_apply_in_program_order() {
    fn first(mut commands: Commands<Physics>, mut tick: ResMut<Tick>) {
        tick.0 += 1;
        commands.spawn((Pos(1),));
    }
    fn second(mut commands: Commands<Physics>) {
        commands.spawn((Pos(2),));
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    // Neither observes the world, but the ids second's spawns reserve depend
    // on first's commands: second runs once they are applied.
    schedule.add(first).add(second);
    assert!(schedule.describe().contains("in 2 stages"));
    assert!(schedule
        .describe()
        .contains("second waits for first: second reserves entity ids after first's"));
    schedule.run(&mut world);
    let order: Vec<i64> = world
        .iter()
        .map(|entity| world.get::<Pos>(entity).unwrap().0)
        .collect();
    assert_eq!(order, [1, 2]);
}

#[test]
fn commands_on_entities_that_died_do_nothing_and_drop_their_values() {
    let log = DropLog::new();
    let log_in_system = log.clone();
    let mut world = World::<Physics>::new();
    let victim = world.spawn((Pos(0),));
    let bystander = world.spawn((Pos(1),));
    let mut schedule = schedule();
    schedule.add(move |mut commands: Commands<Physics>| {
        commands.despawn(victim);
        commands.insert(victim, (Item(log_in_system.track(1)), Vel(3)));
        commands.remove::<Pos>(victim);
        commands.despawn(victim);
    });
    schedule.run(&mut world);
    assert!(!world.is_alive(victim));
    assert_eq!(log.dropped(), [1]);
    assert_eq!(world.get::<Pos>(bystander), Some(&Pos(1)));
    assert_eq!(world.len(), 1);
}

#[test]
fn command_insert_overwrites_and_drops_the_old_value_once() {
    let log = DropLog::new();
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos(0), Item(log.track(1))));
    let new_item = std::sync::Mutex::new(Some(Item(log.track(2))));
    let mut schedule = schedule();
    schedule.add(move |mut commands: Commands<Physics>| {
        if let Some(item) = new_item.lock().unwrap().take() {
            commands.insert(e, (item, Pos(5)));
        }
    });
    schedule.run(&mut world);
    assert_eq!(log.dropped(), [1]);
    assert_eq!(world.get::<Item>(e).map(|item| item.0.id()), Some(2));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(5)));
    drop(world);
    assert_eq!(log.dropped(), [1, 2]);
}

#[test]
fn command_remove_bundle_is_all_or_nothing() {
    fn strip(all: Query<Entity>, mut commands: Commands<Physics>) {
        for entity in all.iter() {
            commands.remove_bundle::<(Pos, Vel)>(entity);
        }
    }
    let mut world = World::<Physics>::new();
    let both = world.spawn((Pos(1), Vel(1), Frozen));
    let only_pos = world.spawn((Pos(2),));
    let mut schedule = schedule();
    schedule.add(strip);
    schedule.run(&mut world);
    assert_eq!(world.archetype(both), Some(PhysicsMask::FROZEN));
    assert_eq!(world.archetype(only_pos), Some(PhysicsMask::POS));
}

#[test]
fn spawned_tags_are_kept_and_dropped_once() {
    fn spawn_frozen(mut commands: Commands<Physics>) {
        commands.spawn((Pos(1), Frozen));
        commands.spawn((Frozen,));
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    schedule.add(spawn_frozen);
    schedule.run(&mut world);
    assert_eq!(world.query_filtered::<Entity, With<Frozen>>().count(), 2);
    let frozen: Vec<Entity> = world
        .query_filtered::<Entity, With<Frozen>>()
        .iter()
        .collect();
    for entity in frozen {
        assert_eq!(world.remove::<Frozen>(entity), Ok(Some(Frozen)));
    }
}

#[test]
fn an_exclusive_system_sees_every_earlier_change_and_its_own_at_once() {
    fn spawn_one(mut commands: Commands<Physics>) {
        commands.spawn((Pos(3),));
    }
    fn roll(world: &mut World<Physics>) {
        // The earlier system's spawn is applied, and each change here is
        // visible to the next line (the paper's seq(s)).
        let entities: Vec<Entity> = world.iter().collect();
        for entity in entities {
            world.insert(entity, (Vel(1),)).unwrap();
            assert!(world.has::<Vel>(entity));
        }
        world.resource_mut::<Tick>().0 = world.len() as u64;
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    schedule.add(spawn_one).add(roll).add(inertia);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Tick>().0, 1);
    assert_eq!(world.resource::<Seen>().0, Vec::<i64>::new());
    let positions: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    assert_eq!(positions, [4]);
    assert_eq!(
        schedule.describe(),
        "Schedule<Physics>: 3 systems in 3 stages\n\
         \x20 stage 1: spawn_one (inline last run: one system)\n\
         \x20 stage 2: roll (inline last run: one system)\n\
         \x20   roll waits for spawn_one: roll takes &mut World<Physics>\n\
         \x20 stage 3: inertia (inline last run: one system)\n\
         \x20   inertia waits for roll: roll takes &mut World<Physics>\n"
    );
}

#[test]
fn a_system_without_parameters_never_runs_beside_an_exclusive_one() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    fn exclusive(world: &mut World<Physics>) {
        world.resource_mut::<Tick>().0 += 1;
    }
    fn nothing() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }
    let mut world = World::<Physics>::new();
    let mut schedule = schedule();
    schedule.add(nothing).add(exclusive).add(nothing);
    assert_eq!(
        schedule.describe(),
        "Schedule<Physics>: 3 systems in 3 stages\n\
         \x20 stage 1: nothing\n\
         \x20 stage 2: exclusive\n\
         \x20   exclusive waits for nothing: exclusive takes &mut World<Physics>\n\
         \x20 stage 3: nothing\n\
         \x20   nothing waits for exclusive: exclusive takes &mut World<Physics>\n"
    );
    schedule.run(&mut world);
    assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    assert_eq!(world.resource::<Tick>().0, 1);
}

#[test]
fn describe_names_the_component_or_resource_each_wait_is_for() {
    fn read_vel(_: Query<&Vel>) {}
    fn write_vel(_: Query<&mut Vel>) {}
    fn read_tick(_: Res<Tick>) {}
    let mut schedule = schedule();
    schedule
        .add(inertia)
        .add(read_vel)
        .add(write_vel)
        .add(count)
        .add(read_tick);
    assert_eq!(
        schedule.describe(),
        "Schedule<Physics>: 5 systems in 2 stages\n\
         \x20 stage 1: inertia, read_vel, count\n\
         \x20 stage 2: write_vel, read_tick\n\
         \x20   write_vel waits for inertia: write_vel writes Vel, which inertia reads\n\
         \x20   read_tick waits for count: count writes Tick, which read_tick reads\n"
    );
}

#[test]
fn describe_says_how_each_stage_ran_last_time_and_why() {
    fn read_vel(_: Query<&Vel>) {}
    fn read_tick(_: Res<Tick>) {}
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1), Vel(2)));
    let mut schedule = schedule();
    schedule
        .add(inertia)
        .add(read_vel)
        .add(count)
        .add(read_tick);
    let before = "Schedule<Physics>: 4 systems in 2 stages\n\
                  \x20 stage 1: inertia, read_vel, count\n\
                  \x20 stage 2: read_tick\n\
                  \x20   read_tick waits for count: count writes Tick, which read_tick reads\n";
    assert_eq!(schedule.describe(), before);
    let stage_1 = |schedule: &Schedule<Physics>| {
        let described = schedule.describe();
        let line = described.lines().nth(1).unwrap().to_owned();
        assert!(
            line.starts_with("  stage 1: inertia, read_vel, count ("),
            "{described}"
        );
        assert!(
            described.contains("  stage 2: read_tick (inline last run: one system)\n"),
            "{described}"
        );
        line
    };
    // The first run times the systems, on the calling thread.
    schedule.run(&mut world);
    let line = stage_1(&schedule);
    assert!(line.starts_with("  stage 1: inertia, read_vel, count (inline last run: "));
    assert!(line.ends_with(" of work, first measurement)"), "{line}");
    schedule.force_parallel(Some(true)).run(&mut world);
    let line = stage_1(&schedule);
    assert!(line.contains("(parallel last run: "), "{line}");
    assert!(line.ends_with(" of work, forced)"), "{line}");
    schedule.force_parallel(Some(false)).run(&mut world);
    let line = stage_1(&schedule);
    assert!(line.contains("(inline last run: "), "{line}");
    assert!(line.ends_with(" of work, forced)"), "{line}");
    // A world of one entity is far too small to share, whatever the
    // number of threads.
    schedule.force_parallel(None);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let line = stage_1(&schedule);
    assert!(
        line.ends_with(" of work, too little to share)") || line.ends_with(" of work, one thread)"),
        "{line}"
    );
    // A change to the schedule forgets how it ran.
    schedule.add(count);
    assert!(!schedule.describe().contains("last run"));
    assert_eq!(
        world.get::<Vel>(world.iter().next().unwrap()),
        Some(&Vel(2))
    );
    assert_eq!(world.resource::<Tick>().0, 6);
}

#[test]
fn queries_with_disjoint_filters_share_a_stage() {
    fn move_free(mut q: Query<&mut Pos, Without<Frozen>>) {
        q.for_each_mut(|pos| pos.0 += 1);
    }
    fn move_frozen(mut q: Query<&mut Pos, With<Frozen>>) {
        q.for_each_mut(|pos| pos.0 -= 1);
    }
    // Inside one system, too.
    fn both(mut free: Query<&mut Vel, Without<Frozen>>, mut frozen: Query<&mut Vel, With<Frozen>>) {
        free.for_each_mut(|vel| vel.0 += 10);
        frozen.for_each_mut(|vel| vel.0 -= 10);
    }
    let mut world = World::<Physics>::new();
    let free = world.spawn((Pos(0), Vel(0)));
    let frozen = world.spawn((Pos(0), Vel(0), Frozen));
    let mut schedule = schedule();
    schedule.add(move_free).add(move_frozen).add(both);
    assert!(schedule
        .describe()
        .starts_with("Schedule<Physics>: 3 systems in 1 stage\n"));
    schedule.run(&mut world);
    assert_eq!(world.get::<Pos>(free), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(frozen), Some(&Pos(-1)));
    assert_eq!(world.get::<Vel>(free), Some(&Vel(10)));
    assert_eq!(world.get::<Vel>(frozen), Some(&Vel(-10)));
}

#[test]
fn systems_with_or_filters_wait_only_where_their_entities_can_meet() {
    type MovingOrFrozen = Or<(With<Vel>, With<Frozen>)>;
    type FrozenOrNowhere = Or<(With<Frozen>, Without<Pos>)>;
    // Everything that moves or is frozen ...
    fn push(mut q: Query<&mut Pos, MovingOrFrozen>) {
        q.for_each_mut(|pos| pos.0 += 1);
    }
    // ... and everything else: no entity is reached by both.
    fn rest(mut q: Query<&mut Pos, (Without<Vel>, Without<Frozen>)>) {
        q.for_each_mut(|pos| pos.0 += 100);
    }
    // A frozen entity without `Vel` is reached by `push` as well.
    fn still(mut q: Query<&mut Pos, Without<Vel>>) {
        q.for_each_mut(|pos| pos.0 *= 2);
    }
    // Inside one system: `Or` on one side, each branch disjoint from the other.
    fn split(
        mut odd: Query<&mut Vel, FrozenOrNowhere>,
        mut plain: Query<&mut Vel, (With<Pos>, Without<Frozen>)>,
    ) {
        odd.for_each_mut(|vel| vel.0 -= 1);
        plain.for_each_mut(|vel| vel.0 += 1);
    }
    let mut world = World::<Physics>::new();
    let mover = world.spawn((Pos(0), Vel(0)));
    let ice = world.spawn((Pos(0), Frozen));
    let rock = world.spawn((Pos(0),));
    let drifter = world.spawn((Vel(0),));
    let mut schedule = schedule();
    schedule.add(push).add(rest).add(still).add(split);
    let plan = schedule.describe();
    assert!(
        plan.starts_with(
            "Schedule<Physics>: 4 systems in 2 stages\n\
             \x20 stage 1: push, rest, split\n\
             \x20 stage 2: still\n"
        ),
        "{plan}"
    );
    assert!(plan.contains("still waits for push"), "{plan}");
    schedule.run(&mut world);
    assert_eq!(world.get::<Pos>(mover), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(ice), Some(&Pos(2)), "pushed, then doubled");
    assert_eq!(
        world.get::<Pos>(rock),
        Some(&Pos(200)),
        "rest, then doubled"
    );
    assert_eq!(world.get::<Vel>(mover), Some(&Vel(1)));
    assert_eq!(world.get::<Vel>(drifter), Some(&Vel(-1)));
}

#[test]
fn a_system_sees_tables_created_since_its_last_run() {
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1),));
    let mut schedule = schedule();
    schedule.add(record_positions);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [1]);
    world.spawn((Pos(2), Vel(0), Frozen));
    world.spawn((Pos(3), Item(DropLog::new().track(0))));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [1, 2, 3]);
}

#[test]
fn systems_with_no_parameters_and_closures_run() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    fn nothing() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }
    let mut total = 0;
    let mut world = World::<Physics>::new();
    world.spawn((Pos(5),));
    let mut schedule = schedule();
    schedule
        .add(nothing)
        .add(move |q: Query<&Pos>, mut seen: ResMut<Seen>| {
            total += q.iter().map(|p| p.0).sum::<i64>();
            seen.0 = vec![total];
        });
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    // The closure keeps its state between runs.
    assert_eq!(world.resource::<Seen>().0, [10]);
}

#[test]
fn run_sequential_and_run_agree() {
    fn spawn_movers(tick: Res<Tick>, mut commands: Commands<Physics>) {
        commands.spawn((Pos(tick.0 as i64), Vel(1)));
    }
    fn freeze_far(q: Query<(Entity, &Pos), Without<Frozen>>, mut commands: Commands<Physics>) {
        for (entity, pos) in q.iter() {
            if pos.0 > 3 {
                commands.insert(entity, (Frozen,));
            }
        }
    }
    let build = || {
        let mut schedule = schedule();
        schedule
            .add(spawn_movers)
            .add(inertia)
            .add(freeze_far)
            .add(count)
            .add(record_positions);
        schedule
    };
    let (mut parallel, mut sequential) = (build(), build());
    let (mut a, mut b) = (World::<Physics>::new(), World::<Physics>::new());
    for _ in 0..10 {
        parallel.run(&mut a);
        sequential.run_sequential(&mut b);
        assert_eq!(a.resource::<Seen>(), b.resource::<Seen>());
        assert_eq!(a.describe(), b.describe());
    }
    assert_eq!(a.resource::<Tick>().0, 10);
}

#[test]
fn a_panicking_system_propagates_and_loses_nothing() {
    panic_in_a_stage_of_three(None);
}

#[test]
fn a_panic_lets_the_rest_of_its_stage_run_on_the_pool_or_on_the_calling_thread() {
    panic_in_a_stage_of_three(Some(true));
    panic_in_a_stage_of_three(Some(false));
}

/// A stage of three systems, the second of which panics, run by `run` made
/// to choose `force`: the panic reaches the caller, the other two systems
/// have run, and the commands are dropped, never applied.
fn panic_in_a_stage_of_three(force: Option<bool>) {
    let log = DropLog::new();
    let mut world = World::<Physics>::new();
    for id in 0..10 {
        world.spawn((Pos(id as i64), Vel(1), Item(log.track(id))));
    }
    let maker = log.clone();
    let mut next_id = 100;
    let mut schedule = schedule();
    schedule
        .add(inertia)
        .add(|items: Query<&Item>| {
            if items.iter().count() == 10 {
                panic!("system failed");
            }
        })
        // Observes nothing, so it shares the stage of the panicking system;
        // its commands are due after that system, so they are never applied.
        .add(move |mut commands: Commands<Physics>| {
            for _ in 0..5 {
                commands.spawn((Item(maker.track(next_id)),));
                next_id += 1;
            }
        });
    assert!(schedule.describe().contains("3 systems in 1 stage"));
    schedule.force_parallel(force);
    let panic = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    let message = panic.unwrap_err();
    assert_eq!(message.downcast_ref::<&str>(), Some(&"system failed"));
    // Nothing was lost or dropped twice; the pending spawns were dropped.
    assert_eq!(world.len(), 10);
    assert_eq!(log.dropped_sorted(), (100..105).collect::<Vec<_>>());
    let positions: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    assert_eq!(positions, (1..11).collect::<Vec<_>>());
    // The schedule still works, and the discarded commands do not come back.
    let panic = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(panic.is_err());
    assert_eq!(world.len(), 10);
    drop(world);
    drop(schedule);
    let dropped = log.dropped_sorted();
    let expected: Vec<u64> = (0..10).chain(100..110).collect();
    assert_eq!(dropped, expected);
}

#[test]
fn a_panicking_exclusive_system_leaves_the_world_usable() {
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos(1),));
    let mut schedule = schedule();
    schedule.add(|world: &mut World<Physics>| {
        let first = world.iter().next().unwrap();
        world.insert(first, (Vel(2),)).unwrap();
        panic!("exclusive failed");
    });
    assert!(catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).is_err());
    assert_eq!(world.get::<Vel>(e), Some(&Vel(2)));
    world.despawn(e).unwrap();
    assert!(world.is_empty());
}

#[test]
fn par_for_each_mut_visits_every_item_once() {
    let mut world = World::<Physics>::new();
    for i in 0..5000 {
        match i % 3 {
            0 => world.spawn((Pos(i), Vel(i))),
            1 => world.spawn((Pos(i), Vel(i), Frozen)),
            _ => world.spawn((Pos(i),)),
        };
    }
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            world
                .query_mut::<(&mut Pos, Option<&Vel>)>()
                .par_for_each_mut(|(pos, vel)| pos.0 += vel.map_or(1, |v| v.0 + 1));
        });
    }
    let mut expected: Vec<i64> = (0..5000)
        .map(|i| if i % 3 == 2 { i + 3 } else { i * 4 + 3 })
        .collect();
    expected.sort();
    let mut got: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    got.sort();
    assert_eq!(got, expected);
    let sum = std::sync::atomic::AtomicI64::new(0);
    world.query::<&Pos>().par_for_each(|pos| {
        sum.fetch_add(pos.0, Ordering::Relaxed);
    });
    assert_eq!(sum.into_inner(), expected.iter().sum::<i64>());
}

#[test]
fn commands_from_parallel_chunks_are_merged_in_iteration_order() {
    fn fork(mut q: Query<(Entity, &mut Pos)>, mut commands: Commands<Physics>) {
        q.par_for_each_mut_with(&mut commands, |commands, (entity, pos)| {
            pos.0 += 1;
            commands.spawn((Vel(pos.0),));
            if pos.0 % 5 == 0 {
                commands.despawn(entity);
            }
        });
    }
    let spawned_in_order = |threads: usize| {
        let mut world = World::<Physics>::new();
        for i in 0..3000 {
            world.spawn((Pos(i),));
            world.spawn((Pos(-i), Frozen));
        }
        let mut schedule = schedule();
        schedule.add(fork);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| schedule.run(&mut world));
        let order: Vec<(u32, i64)> = world
            .query::<(Entity, &Vel)>()
            .iter()
            .map(|(entity, vel)| (entity.index(), vel.0))
            .collect();
        (order, world.len())
    };
    let (one, len) = spawned_in_order(1);
    assert_eq!(len, 6000 + 6000 - 1200);
    // The spawns follow the iteration order of the query, and reuse the
    // despawned slots in the same order, whatever the thread count.
    let expected: Vec<i64> = (0..3000)
        .map(|i| i + 1)
        .chain((0..3000).map(|i| 1 - i))
        .collect();
    assert_eq!(one.iter().map(|&(_, v)| v).collect::<Vec<_>>(), expected);
    assert_eq!(spawned_in_order(2), (one.clone(), len));
    assert_eq!(spawned_in_order(4), (one, len));
}

#[test]
fn describe_names_functions_closures_and_named_systems() {
    fn step<T>(_: Query<&Pos>) {}
    let mut schedule = schedule();
    schedule
        .add(inertia)
        .add(|mut tick: ResMut<Tick>| tick.0 += 1)
        .add_named("spawn wave", |mut commands: Commands<Physics>| {
            commands.spawn((Pos(0),));
        })
        .add(step::<Frozen>);
    let plan = schedule.describe();
    assert!(plan.contains("stage 1: inertia, closure in describe_names_functions_closures_and_named_systems, spawn wave\n"), "{plan}");
    assert!(plan.contains("step<systems::schedule::Frozen>"), "{plan}");
}

#[test]
fn table_form_systems_follow_the_same_access_rules() {
    fn inertia_by_table(mut movers: Query<(&mut Pos, &Vel), Without<Frozen>>) {
        movers.for_each_table_mut(|_, (pos, vel)| {
            for (p, v) in pos.iter_mut().zip(vel) {
                p.0 += v.0;
            }
        });
    }
    fn sink_frozen_by_table(mut frozen: Query<&mut Pos, With<Frozen>>) {
        frozen.par_for_each_table_mut(|_, pos| pos.iter_mut().for_each(|p| p.0 -= 1));
    }
    fn record_by_table(positions: Query<&Pos>, mut seen: ResMut<Seen>) {
        seen.0.clear();
        positions.for_each_table(|_, pos| seen.0.extend(pos.iter().map(|p| p.0)));
        seen.0.sort();
    }
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1), Vel(10)));
    world.spawn((Pos(2), Vel(20), Frozen));
    world.spawn((Pos(3),));
    let mut schedule = schedule();
    schedule
        .add(inertia_by_table)
        .add(sink_frozen_by_table)
        .add(record_by_table)
        .add(inertia_by_table);
    // Disjoint filters share a stage; a reader waits for the writers before
    // it, and a writer for the reader before it, as for any query.
    assert_eq!(
        schedule.describe(),
        "Schedule<Physics>: 4 systems in 3 stages\n\
         \x20 stage 1: inertia_by_table, sink_frozen_by_table\n\
         \x20 stage 2: record_by_table\n\
         \x20   record_by_table waits for inertia_by_table: inertia_by_table writes Pos, which record_by_table reads\n\
         \x20 stage 3: inertia_by_table\n\
         \x20   inertia_by_table waits for record_by_table: inertia_by_table writes Pos, which record_by_table reads\n"
    );
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [1, 3, 11]);
    let mut positions: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    positions.sort();
    assert_eq!(positions, [1, 3, 21]);
}

/// Without the `parallel` feature nothing leaves the calling thread, not even
/// a stage forced onto the pool inside a rayon pool of four, and the `par_*`
/// loops visit the items in iteration order, as `for_each` does.
#[cfg(not(feature = "parallel"))]
#[test]
fn without_the_parallel_feature_everything_runs_in_order_on_the_calling_thread() {
    use std::sync::Mutex;
    use std::thread::{self, ThreadId};
    static VISITS: Mutex<Vec<(ThreadId, i64)>> = Mutex::new(Vec::new());
    fn visit(value: i64) {
        VISITS.lock().unwrap().push((thread::current().id(), value));
    }
    fn positions(mut q: Query<&mut Pos>) {
        q.par_for_each_mut(|pos| visit(pos.0));
    }
    fn velocities(mut q: Query<&mut Vel>) {
        q.par_for_each_table_mut(|_, vels| vels.iter().for_each(|vel| visit(vel.0)));
    }
    let mut world = World::<Physics>::new();
    world.spawn_batch((0..3000).map(|i| (Pos(i), Vel(-1 - i))));
    world.spawn_batch((3000..5000).map(|i| (Pos(i), Vel(-1 - i), Frozen)));
    let mut schedule = schedule();
    schedule.add(positions).add(velocities);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let caller = pool.install(|| {
        schedule.force_parallel(Some(true)).run(&mut world);
        thread::current().id()
    });
    let visits = VISITS.lock().unwrap().clone();
    assert!(visits.iter().all(|&(thread, _)| thread == caller));
    // Each system's visits in iteration order: positions 0, 1, ..., 4999 and
    // velocities -1, -2, ..., -5000 (the two systems may take turns in any
    // order, since they touch nothing in common).
    let positions: Vec<i64> = visits.iter().map(|v| v.1).filter(|&v| v >= 0).collect();
    let velocities: Vec<i64> = visits.iter().map(|v| v.1).filter(|&v| v < 0).collect();
    assert_eq!((positions.len(), velocities.len()), (5000, 5000));
    assert!(positions.windows(2).all(|pair| pair[1] == pair[0] + 1));
    assert!(velocities.windows(2).all(|pair| pair[1] == pair[0] - 1));
}

#[test]
fn to_dot_draws_each_stage_as_a_cluster_and_each_wait_as_a_labelled_edge() {
    fn write_vel(_: Query<&mut Vel>) {}
    fn read_tick(_: Res<Tick>) {}
    fn spawn_one(mut commands: Commands<Physics>) {
        commands.spawn((Pos(0),));
    }
    fn spawn_another(mut commands: Commands<Physics>) {
        commands.spawn((Pos(1),));
    }
    fn read_vel(_: Query<&Vel>) {}
    let mut schedule = schedule();
    schedule
        .add(inertia)
        .add(write_vel)
        .add(count)
        .add(read_tick)
        .add(spawn_one)
        .add(spawn_another)
        .add(read_vel)
        .add_named("say \"done\"", |_: &mut World<Physics>| {});
    assert_eq!(
        schedule.to_dot(),
        r#"digraph "Schedule<Physics>" {
  label="Schedule<Physics>: 8 systems in 5 stages";
  labelloc=t;
  rankdir=LR;
  node [shape=box, style=rounded];
  subgraph cluster_stage1 {
    label="stage 1";
    s0 [label="inertia"];
    s2 [label="count"];
    s4 [label="spawn_one"];
  }
  subgraph cluster_stage2 {
    label="stage 2";
    s1 [label="write_vel"];
    s3 [label="read_tick"];
  }
  subgraph cluster_stage3 {
    label="stage 3";
    s5 [label="spawn_another"];
  }
  subgraph cluster_stage4 {
    label="stage 4";
    s6 [label="read_vel"];
  }
  subgraph cluster_stage5 {
    label="stage 5";
    s7 [label="say \"done\""];
  }
  s0 -> s1 [label="Vel", tooltip="write_vel writes Vel, which inertia reads"];
  s2 -> s3 [label="Tick", tooltip="count writes Tick, which read_tick reads"];
  s4 -> s5 [label="commands (spawned ids)", tooltip="spawn_another reserves entity ids after spawn_one's, which are settled when spawn_one is applied (spawned ids follow program order)"];
  s5 -> s6 [label="commands", tooltip="read_vel sees the entities that spawn_another's commands change"];
  s6 -> s7 [label="&mut World", tooltip="say \"done\" takes &mut World<Physics>"];
}
"#
    );
}

#[test]
fn to_dot_has_one_edge_per_wait_that_describe_gives() {
    let mut schedule = schedule();
    schedule
        .add(inertia)
        .add(record_positions)
        .add(count)
        .add(|_: Res<Tick>, _: Query<&Vel>| {});
    let description = schedule.describe();
    let dot = schedule.to_dot();
    let waits = description.matches(" waits for ").count();
    assert_eq!(waits, 2, "{description}");
    assert_eq!(dot.matches(" -> ").count(), waits, "{dot}");
    assert!(dot.contains("  s0 -> s1 [label=\"Pos\", "), "{dot}");
    assert!(dot.contains("  s2 -> s3 [label=\"Tick\", "), "{dot}");
    // Once the schedule has run, each cluster says how its stage ran.
    let mut world = World::<Physics>::new();
    schedule.run(&mut world);
    let dot = schedule.to_dot();
    assert!(
        dot.contains("    label=\"stage 1\\ninline last run: "),
        "{dot}"
    );
    assert_eq!(dot.matches(" -> ").count(), waits, "{dot}");
}
