//! Warm paths allocate nothing per table, system or entity:
//!
//! * a warm schedule's run: the world is split for the systems in memory the
//!   schedule keeps from one run to the next, and only the tables a system
//!   asks for are taken apart. What is left is one block per `Query`
//!   parameter that reaches a table: its list of the tables' columns (or of
//!   a sparse query's runs), which borrows the world, is handed to the
//!   system's function by value and is dropped there. Safe Rust offers no
//!   way to take that memory back afterwards: a `Drop` on `Query` could, but
//!   would hold every `world.query*()` borrow to the end of its scope (20
//!   places in this crate's own tests fail to compile with one);
//! * a `PreparedQuery`'s `for_each_mut` and `for_each`, in any order of
//!   the query's items;
//! * `World::clone_from` into a snapshot that has held a world of the same
//!   shape before (a rollback ring): every vector is refilled in place.
//!
//! A counting allocator (installed in `main.rs`) counts the allocations of
//! the current thread; each measurement runs the schedule on a one-thread
//! rayon pool, from inside it, so that everything the run does happens on
//! the counted thread. (On more threads, a parallel stage also allocates one
//! rayon job per helper thread: a cost per thread, not per table or
//! system.)

use ecs::prelude::*;
use support::allocations;

#[derive(Clone, Copy)]
struct A(u32);
#[derive(Clone, Copy)]
struct B(u32);
#[derive(Clone, Copy)]
struct C(u32);
// Tags: they make tables without adding columns.
#[derive(Clone, Copy)]
struct D;
#[derive(Clone, Copy)]
struct E;
#[derive(Clone, Copy)]
struct F;
#[derive(Clone, Default)]
struct Tick(u64);
#[derive(Clone, Default)]
struct Frames(u64);

#[derive(Schema)]
struct Many {
    a: A,
    b: B,
    c: C,
    d: D,
    e: E,
    f: F,
    #[ecs(resource)]
    tick: Tick,
    #[ecs(resource)]
    frames: Frames,
}

/// A world whose entities all have `A`, spread over `tables` tables (at
/// most 32): entity `i` also has the components of the bits of `i % tables`.
fn world(tables: u32) -> World<Many> {
    let mut world = World::<Many>::new();
    for i in 0..tables * 3 {
        let entity = world.spawn((A(i),));
        let bits = i % tables;
        let has = |bit: u32| bits & (1 << bit) != 0;
        if has(0) {
            world.insert(entity, (B(1),)).unwrap();
        }
        if has(1) {
            world.insert(entity, (C(2),)).unwrap();
        }
        if has(2) {
            world.insert(entity, (D,)).unwrap();
        }
        if has(3) {
            world.insert(entity, (E,)).unwrap();
        }
        if has(4) {
            world.insert(entity, (F,)).unwrap();
        }
    }
    world
}

fn read_tick(tick: Res<Tick>) {
    assert!(tick.0 < u64::MAX);
}

fn count(mut tick: ResMut<Tick>) {
    tick.0 += 1;
}

/// Keeps a count and a list in `Local`s, which live in the world: taken out
/// before the system's stage and put back after it, moved, never copied.
fn remember(mut runs: Local<u64>, mut recent: Local<Vec<u64>>, tick: Res<Tick>) {
    *runs += 1;
    if recent.len() == 8 {
        recent.remove(0);
    }
    recent.push(tick.0 + *runs);
}

fn next_frame(mut frames: ResMut<Frames>) {
    frames.0 += 1;
}

fn grow(mut q: Query<&mut A>) {
    q.for_each_mut(|a| a.0 += 1);
}

fn copy_a(mut q: Query<(&mut B, &A)>) {
    q.for_each_mut(|(b, a)| b.0 = a.0);
}

fn sum_c(q: Query<(&C, &A)>, mut tick: ResMut<Tick>) {
    tick.0 += q.iter().map(|(c, _)| u64::from(c.0)).sum::<u64>();
}

/// Allocations `run` makes on this thread, on average over 10 calls, after
/// 3 calls to warm up; on a one-thread pool.
fn allocations_per_run(mut run: impl FnMut() + Send) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        for _ in 0..3 {
            run();
        }
        let before = allocations();
        for _ in 0..10 {
            run();
        }
        (allocations() - before) / 10
    })
}

/// How a measurement runs the schedule.
#[derive(Clone, Copy, Debug)]
enum Run {
    Sequential,
    /// `run`, deciding for itself (on one thread: on the calling thread).
    Adaptive,
    /// `run`, every stage of several systems through the parallel path.
    Parallel,
}

const RUNS: [Run; 3] = [Run::Sequential, Run::Adaptive, Run::Parallel];

fn run<S: ecs::schedule::SendSchema>(how: Run, schedule: &mut Schedule<S>, world: &mut World<S>) {
    match how {
        Run::Sequential => schedule.run_sequential(world),
        Run::Adaptive => schedule.force_parallel(None).run(world),
        Run::Parallel => schedule.force_parallel(Some(true)).run(world),
    }
}

#[test]
fn a_warm_run_of_resource_systems_allocates_nothing() {
    for how in RUNS {
        let mut world = world(32);
        let mut schedule = Schedule::<Many>::new();
        for _ in 0..8 {
            schedule
                .add(read_tick)
                .add(remember)
                .add(next_frame)
                .add(count);
        }
        // Stages of several systems.
        let plan = schedule.describe();
        assert!(
            plan.contains("stage 1: read_tick, remember, next_frame\n"),
            "{plan}"
        );
        assert!(plan.contains("stage 2: count, next_frame\n"), "{plan}");
        let allocations = allocations_per_run(|| run(how, &mut schedule, &mut world));
        assert_eq!(allocations, 0, "{how:?}");
        assert_eq!(world.resource::<Tick>().0, 13 * 8, "{how:?}");
    }
}

/// Restoring a world (a rollback's load) forgets which schedule ran it; the
/// run after it claims the world again, in the memory of that record.
#[test]
fn a_warm_run_after_a_restore_allocates_nothing() {
    for how in RUNS {
        let mut world = world(4);
        let mut schedule = Schedule::<Many>::new();
        schedule.add(count).add(next_frame).add(read_tick);
        let mut saved = world.clone();
        let allocations = allocations_per_run(|| {
            saved.clone_from(&world);
            world.clone_from(&saved);
            run(how, &mut schedule, &mut world);
        });
        assert_eq!(allocations, 0, "{how:?}");
        assert_eq!(world.resource::<Frames>().0, 13, "{how:?}");
    }
}

#[test]
fn the_allocations_of_a_warm_run_do_not_grow_with_tables() {
    for how in RUNS {
        let per_run = |tables: u32| {
            let mut world = world(tables);
            let mut schedule = Schedule::<Many>::new();
            schedule.add(grow).add(copy_a).add(sum_c).add(count);
            allocations_per_run(|| run(how, &mut schedule, &mut world))
        };
        let few = per_run(4);
        let many = per_run(32);
        assert_eq!(
            few, many,
            "{how:?}: 4 tables: {few} allocations a run, 32 tables: {many}"
        );
        // What is left is each query's own list of tables, one per query.
        assert!(many <= 3, "{how:?}: {many} allocations a run");
    }
}

#[test]
fn a_prepared_query_allocates_nothing_whatever_the_order_of_its_items() {
    let mut world = world(32);
    let mut forward = world.prepare::<(&mut B, &A, Option<&C>)>();
    let mut reversed = world.prepare::<(Option<&C>, &A, &mut B)>();
    let mut reading = world.prepare::<(&C, Entity, &A)>();
    let allocations = allocations_per_run(|| {
        forward.for_each_mut(&mut world, |(b, a, c)| b.0 = a.0 + c.map_or(0, |c| c.0));
        reversed.for_each_mut(&mut world, |(c, a, b)| b.0 += a.0 + c.map_or(0, |c| c.0));
        let mut sum = 0;
        reading.for_each(&world, |(c, _, a)| sum += c.0 + a.0);
        world.resource_mut::<Tick>().0 += u64::from(sum);
    });
    assert_eq!(allocations, 0);
    assert!(world.resource::<Tick>().0 > 0);
}

#[derive(Schema)]
struct Watched {
    #[ecs(track)]
    a: A,
    b: B,
    d: D,
}

#[test]
fn a_prepared_query_of_changes_allocates_nothing_once_warm() {
    // Changes in two tables, so that the passing rows of one are moved
    // into the query's bits and those of the other copied after them.
    let mut world = World::<Watched>::new();
    let plain: Vec<Entity> = world.spawn_batch((0..700).map(|i| (A(i), B(0)))).collect();
    let tagged: Vec<Entity> = world
        .spawn_batch((0..300).map(|i| (A(i), B(0), D)))
        .collect();
    let mut changed = world.prepare_filtered::<(&A, &mut B), Changed<A>>();
    let mut seen = 0;
    let allocations = allocations_per_run(|| {
        world.clear_trackers();
        for &entity in plain.iter().step_by(7).chain(tagged.iter().step_by(5)) {
            world.get_mut::<A>(entity).unwrap().0 += 1;
        }
        changed.for_each_mut(&mut world, |(a, b)| {
            b.0 = a.0;
            seen += 1;
        });
    });
    assert_eq!(allocations, 0);
    assert_eq!(seen, 13 * (100 + 60));
}

/// One frame of a world whose shape repeats every 7 frames: the population
/// climbs from 50 to 230 entities and falls back, spawned and despawned last
/// in first out (so slots are reused, their generations grow and the free
/// list's length cycles), over four tables; every value changes each frame.
fn cycle(world: &mut World<Many>, alive: &mut Vec<Entity>, frame: u32) {
    let target = 50 + 30 * (frame % 7) as usize;
    while alive.len() > target {
        world.despawn(alive.pop().unwrap()).unwrap();
    }
    while alive.len() < target {
        let i = alive.len() as u32;
        let entity = world.spawn((A(frame), B(i)));
        if i % 3 == 0 {
            world.insert(entity, (D,)).unwrap();
        }
        if i % 5 == 0 {
            world.insert(entity, (C(i),)).unwrap();
        }
        alive.push(entity);
    }
    world.query_mut::<&mut A>().for_each_mut(|a| a.0 += 1);
    world.resource_mut::<Tick>().0 += 1;
}

/// Allocations `f` makes on this thread.
fn allocations_of(f: impl FnOnce()) -> u64 {
    let before = allocations();
    f();
    allocations() - before
}

#[test]
fn a_ring_of_snapshots_allocates_nothing_once_warm() {
    let mut world = World::<Many>::new();
    let mut alive = Vec::new();
    // 4 snapshots and a period of 7 frames: after 28 frames each snapshot
    // has held the world in every phase of its cycle.
    let mut ring: Vec<World<Many>> = (0..4).map(|_| World::new()).collect();
    // The world also holds the locals of a schedule's systems.
    let mut schedule = Schedule::<Many>::new();
    schedule.add(remember).add(count).add(remember);
    let mut warming = 0;
    for frame in 0..56 {
        cycle(&mut world, &mut alive, frame);
        schedule.run(&mut world);
        let snapshot = &mut ring[frame as usize % 4];
        warming += allocations_of(|| snapshot.clone_from(&world));
    }
    assert!(warming > 0, "the counter saw the cold snapshots allocate");
    for frame in 56..56 + 28 {
        cycle(&mut world, &mut alive, frame);
        schedule.run(&mut world);
        let snapshot = &mut ring[frame as usize % 4];
        let allocations = allocations_of(|| snapshot.clone_from(&world));
        assert_eq!(allocations, 0, "frame {frame}");
        assert!(snapshot.iter().eq(world.iter()));
        assert_eq!(snapshot.describe(), world.describe());
    }
}

#[derive(Clone, Copy)]
struct Heat(u32);

#[derive(Schema)]
struct Hot {
    a: A,
    #[ecs(sparse)]
    heat: Heat,
    #[ecs(resource)]
    tick: Tick,
    #[ecs(resource)]
    frames: Frames,
}

/// 64 entities with `A`, every third with the sparse `Heat` too.
fn hot_world() -> World<Hot> {
    let mut world = World::<Hot>::new();
    for i in 0..64 {
        let entity = world.spawn((A(i),));
        if i % 3 == 0 {
            world.insert(entity, (Heat(i),)).unwrap();
        }
    }
    world
}

fn hot_count(mut tick: ResMut<Tick>) {
    tick.0 += 1;
}

fn hot_frame(mut frames: ResMut<Frames>) {
    frames.0 += 1;
}

#[test]
fn a_warm_run_of_a_schema_with_sparse_components_allocates_nothing_to_lend_them() {
    for how in RUNS {
        let mut world = hot_world();
        let mut schedule = Schedule::<Hot>::new();
        for _ in 0..4 {
            schedule.add(hot_count).add(hot_frame);
        }
        // Every split of the world lends the sparse sets out too.
        let allocations = allocations_per_run(|| run(how, &mut schedule, &mut world));
        assert_eq!(allocations, 0, "{how:?}");
        // The sparse set was lent out and came back whole.
        let heat: u32 = world.query::<&Heat>().iter().map(|heat| heat.0).sum();
        assert_eq!(heat, (0..64).step_by(3).sum::<u32>(), "{how:?}");
    }
}

/// Reads the sparse component's values.
fn heat_up(mut hot: Query<(&A, &mut Heat)>) {
    hot.for_each_mut(|(a, heat)| heat.0 = heat.0.wrapping_add(a.0));
}

/// Reaches the sparse component through its filter only.
fn cool(mut cold: Query<&mut A, Without<Heat>>) {
    cold.for_each_mut(|a| a.0 = a.0.wrapping_add(1));
}

#[test]
fn a_warm_query_of_sparse_components_allocates_only_its_list_of_runs() {
    for how in RUNS {
        let mut world = hot_world();
        let mut schedule = Schedule::<Hot>::new();
        schedule.add(heat_up).add(cool);
        let allocations = allocations_per_run(|| run(how, &mut schedule, &mut world));
        // Each query's list of the runs of rows it reaches, as every query
        // has its list of tables; finding the runs (a lookup per row in
        // each sparse set) reuses the memory of the last run.
        assert_eq!(allocations, 2, "{how:?}");
        let heat: u32 = world.query::<&Heat>().iter().map(|heat| heat.0).sum();
        assert!(heat > (0..64).step_by(3).sum::<u32>(), "{how:?}");
    }
}

/// `World::reserve` makes room for the spawns that follow it: one at a
/// time, they allocate nothing (without it, each column and the entity list
/// grow as they fill); and it changes nothing a world holds, so the two
/// worlds end equal, entity for entity.
#[test]
fn spawns_after_reserve_allocate_nothing_and_match_spawns_without_it() {
    const COUNT: u32 = 1_000;
    let mut reserved = World::<Many>::new();
    // A world that already holds entities, some in the table reserved in.
    for i in 0..10 {
        reserved.spawn((A(i), B(i)));
        reserved.spawn((A(i),));
    }
    let mut plain = reserved.clone();
    reserved.reserve::<(A, B, D)>(COUNT as usize);
    let spawned = allocations_of(|| {
        for i in 0..COUNT {
            reserved.spawn((A(i), B(i), D));
        }
    });
    assert_eq!(spawned, 0);
    let unreserved = allocations_of(|| {
        for i in 0..COUNT {
            plain.spawn((A(i), B(i), D));
        }
    });
    assert!(unreserved > 0, "spawns without room allocate");
    let contents = |world: &World<Many>| {
        let mut rows: Vec<_> = world
            .query::<(Entity, &A, Option<&B>, Has<D>)>()
            .iter()
            .map(|(entity, a, b, d)| (entity, a.0, b.map(|b| b.0), d))
            .collect();
        rows.sort_by_key(|row| row.0);
        rows
    };
    assert_eq!(contents(&reserved).len(), 20 + COUNT as usize);
    assert_eq!(contents(&reserved), contents(&plain));
    assert_eq!(reserved.describe(), plain.describe());
}
