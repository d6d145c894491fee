//! Whole frames of many systems: does `Schedule::run` earn its threads?
//!
//! Three workloads, each a criterion group with `Schedule::run`,
//! `Schedule::run_sequential` and a hand-written baseline:
//!
//! * `frame_small_systems`: 8 components `C0..C7` of one `f32`; 10,000
//!   entities in 4 archetypes of 4, 4, 8 and 4 components; system *k* of 64
//!   runs `for_each_mut` over `(&mut C[k % 8], &C[(k + 3) % 8])` doing
//!   `w += r * 0.5` (8 functions, each added 8 times). Every system is a few
//!   hundred nanoseconds of work: handing one to another thread costs more
//!   than it saves.
//! * `frame_trivial_systems`: 64 systems that only read one resource, on an
//!   empty world: the executor's own cost per system.
//! * `frame_heavy_systems`: 8 systems on disjoint components, each
//!   `heavy_compute`-sized (1,000 entities, 100 4x4 inversions each): here
//!   parallelism must pay, about 2x on two cores.
//!
//! * `frame_churn` (issue 28, item 4): 16,000 entities; 8 systems, system
//!   *k* spawning 1,000 entities of its own archetype (`Own<k>`) and
//!   despawning the 1,000 it meets first, and inserting or removing its
//!   sparse component (`Mark<k>`) on the 1,000 entities of its own
//!   `Target<k>` archetype, every frame, all of it through `Commands`,
//!   applied one by one after each system.
//!
//!   `frame_churn_sparse_mut` is the same frame with the marks flipped at
//!   once through `SparseMut`; `frame_flip_sparse_mut` the flips alone
//!   (8 systems on 8 sparse sets, which share one stage);
//!   `frame_spawn_flip` the 8 systems spawning their 1,000 entities at once
//!   through `Spawner` and flipping through `SparseMut`, then one
//!   exclusive system despawning the 8,000 (the spawners reserve ids one
//!   after another); `frame_spawn_flip_unnamed` the same through
//!   `UnnamedSpawner`, whose ids are given when applied (one stage);
//!   `frame_churn_despawner` the same with the 8,000 despawns recorded by 8
//!   systems through `Despawner`s (a stage of its own) and made in one
//!   batch when the run ends.
//!
//! * `frame_emit`: one system over 10,000 emitters, each doing about 60 ns
//!   of arithmetic (eight `sin`), then moving its row (`Hot` on or off
//!   through a `Migrator`), inserting or removing a sparse `Glow`, and for
//!   one in eight spawning a spark (`UnnamedSpawner`); an exclusive system
//!   despawns the sparks. `loop` runs the emitters in a sequential loop,
//!   `chunks` in the chunks of `par_for_each_mut_with`, which record the
//!   same changes: only the loop bodies run in parallel.
//!
//! The targets (issue 15): `run` within 1.1x of `run_sequential` on the two
//! small workloads, at least 1.7x faster on the heavy one with two cores.
//! Issue 28's target for `frame_churn`: `run` at least 1.6x faster than
//! `run_sequential` on two cores. `benches/peers` runs the first three on
//! bevy_ecs.

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode};
use ecs::command::{Despawner, Migrator, SparseMut, Spawner, UnnamedSpawner};
use ecs::prelude::*;
use rayon::prelude::*;
use std::hint::black_box;
use support::Mat4;

// ---- frame_small_systems ------------------------------------------------

const SMALL_ENTITIES: usize = 10_000;

#[derive(Clone, Copy)]
struct C0(f32);
#[derive(Clone, Copy)]
struct C1(f32);
#[derive(Clone, Copy)]
struct C2(f32);
#[derive(Clone, Copy)]
struct C3(f32);
#[derive(Clone, Copy)]
struct C4(f32);
#[derive(Clone, Copy)]
struct C5(f32);
#[derive(Clone, Copy)]
struct C6(f32);
#[derive(Clone, Copy)]
struct C7(f32);

#[derive(Schema)]
struct Small {
    c0: C0,
    c1: C1,
    c2: C2,
    c3: C3,
    c4: C4,
    c5: C5,
    c6: C6,
    c7: C7,
}

/// System `k % 8` of the frame: `C[k] += C[(k + 3) % 8] * 0.5`.
macro_rules! small_system {
    ($name:ident, $w:ident, $r:ident) => {
        fn $name(mut q: Query<(&mut $w, &$r)>) {
            q.for_each_mut(|(w, r)| w.0 += r.0 * 0.5);
        }
    };
}

small_system!(s0, C0, C3);
small_system!(s1, C1, C4);
small_system!(s2, C2, C5);
small_system!(s3, C3, C6);
small_system!(s4, C4, C7);
small_system!(s5, C5, C0);
small_system!(s6, C6, C1);
small_system!(s7, C7, C2);

fn small_world() -> World<Small> {
    let n = SMALL_ENTITIES / 4;
    let mut world = World::new();
    world.spawn_batch((0..n).map(|_| (C0(1.0), C1(1.0), C2(1.0), C3(1.0))));
    world.spawn_batch((0..n).map(|_| (C4(1.0), C5(1.0), C6(1.0), C7(1.0))));
    world.spawn_batch((0..n).map(|_| {
        (
            C0(1.0),
            C1(1.0),
            C2(1.0),
            C3(1.0),
            C4(1.0),
            C5(1.0),
            C6(1.0),
            C7(1.0),
        )
    }));
    world.spawn_batch((0..n).map(|_| (C1(1.0), C3(1.0), C5(1.0), C7(1.0))));
    world
}

fn small_schedule() -> Schedule<Small> {
    let mut schedule = Schedule::new();
    for _ in 0..8 {
        schedule
            .add(s0)
            .add(s1)
            .add(s2)
            .add(s3)
            .add(s4)
            .add(s5)
            .add(s6)
            .add(s7);
    }
    schedule
}

/// The four archetypes as plain columns, `None` where one lacks a component.
struct SmallBaseline {
    tables: Vec<[Option<Vec<f32>>; 8]>,
}

fn small_baseline() -> SmallBaseline {
    let n = SMALL_ENTITIES / 4;
    let table = |has: [bool; 8]| has.map(|has| has.then(|| vec![1.0f32; n]));
    SmallBaseline {
        tables: vec![
            table([true, true, true, true, false, false, false, false]),
            table([false, false, false, false, true, true, true, true]),
            table([true; 8]),
            table([false, true, false, true, false, true, false, true]),
        ],
    }
}

impl SmallBaseline {
    fn frame(&mut self) {
        for k in 0..64 {
            let (w, r) = (k % 8, (k + 3) % 8);
            for table in &mut self.tables {
                let [Some(ws), Some(rs)] = table.get_disjoint_mut([w, r]).unwrap() else {
                    continue;
                };
                for (w, r) in ws.iter_mut().zip(rs.iter()) {
                    *w += r * 0.5;
                }
            }
        }
    }
}

fn small_systems(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame_small_systems");
    // Build the global thread pool outside the timed region.
    rayon::broadcast(|_| ());
    let mut world = small_world();
    let mut schedule = small_schedule();
    bench_runs(&mut group, &mut world, &mut schedule);
    let mut base = small_baseline();
    group.bench_function("baseline", |b| {
        b.iter(|| {
            base.frame();
            black_box(&mut base);
        })
    });
    group.finish();
}

/// `ecs_run` and `ecs_run_sequential` of `schedule` on `world`.
fn bench_runs<S: ecs::schedule::SendSchema>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    world: &mut World<S>,
    schedule: &mut Schedule<S>,
) {
    // A first run outside timing: the plan, the matched tables, and the
    // executor's first measurements.
    schedule.run(world);
    group.bench_function("ecs_run", |b| {
        b.iter(|| {
            schedule.run(world);
            black_box(&mut *world);
        })
    });
    group.bench_function("ecs_run_sequential", |b| {
        b.iter(|| {
            schedule.run_sequential(world);
            black_box(&mut *world);
        })
    });
}

// ---- frame_trivial_systems ----------------------------------------------

#[derive(Default)]
struct Counter(u64);

#[derive(Schema)]
struct Trivial {
    c0: C0,
    #[ecs(resource)]
    counter: Counter,
}

fn read_counter(counter: Res<Counter>) {
    black_box(counter.0);
}

fn trivial_systems(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame_trivial_systems");
    rayon::broadcast(|_| ());
    let mut world = World::<Trivial>::new();
    let mut schedule = Schedule::new();
    for _ in 0..64 {
        schedule.add(read_counter);
    }
    bench_runs(&mut group, &mut world, &mut schedule);
    let counter = Counter(0);
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for _ in 0..64 {
                black_box(black_box(&counter).0);
            }
        })
    });
    group.finish();
}

// ---- frame_heavy_systems ------------------------------------------------

const HEAVY_ENTITIES: usize = 1_000;

#[derive(Clone, Copy)]
struct M0(Mat4);
#[derive(Clone, Copy)]
struct M1(Mat4);
#[derive(Clone, Copy)]
struct M2(Mat4);
#[derive(Clone, Copy)]
struct M3(Mat4);
#[derive(Clone, Copy)]
struct M4(Mat4);
#[derive(Clone, Copy)]
struct M5(Mat4);
#[derive(Clone, Copy)]
struct M6(Mat4);
#[derive(Clone, Copy)]
struct M7(Mat4);

#[derive(Schema)]
struct Heavy {
    m0: M0,
    m1: M1,
    m2: M2,
    m3: M3,
    m4: M4,
    m5: M5,
    m6: M6,
    m7: M7,
}

/// `heavy_compute`'s per-entity work: 100 inversions, each undoing the last.
#[inline]
fn invert_100(m: &mut Mat4) {
    for _ in 0..100 {
        *m = m.inverse().unwrap_or(*m);
    }
}

macro_rules! heavy_system {
    ($name:ident, $m:ident) => {
        fn $name(mut q: Query<&mut $m>) {
            q.for_each_mut(|m| invert_100(&mut m.0));
        }
    };
}

heavy_system!(h0, M0);
heavy_system!(h1, M1);
heavy_system!(h2, M2);
heavy_system!(h3, M3);
heavy_system!(h4, M4);
heavy_system!(h5, M5);
heavy_system!(h6, M6);
heavy_system!(h7, M7);

fn heavy_world() -> World<Heavy> {
    let mut world = World::new();
    world.spawn_batch((0..HEAVY_ENTITIES).map(|i| {
        let m = Mat4::rotation_z(i as f32 * 0.001);
        (M0(m), M1(m), M2(m), M3(m), M4(m), M5(m), M6(m), M7(m))
    }));
    world
}

fn heavy_systems(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame_heavy_systems");
    // About 30 ms a sequential frame: a few iterations per sample.
    group.sampling_mode(SamplingMode::Flat).sample_size(20);
    rayon::broadcast(|_| ());
    let mut world = heavy_world();
    let mut schedule = Schedule::new();
    schedule
        .add(h0)
        .add(h1)
        .add(h2)
        .add(h3)
        .add(h4)
        .add(h5)
        .add(h6)
        .add(h7);
    bench_runs(&mut group, &mut world, &mut schedule);
    // Floors: the eight loops over plain vectors, one after another and as
    // eight rayon tasks.
    let mut base: Vec<Vec<Mat4>> = (0..8)
        .map(|_| {
            (0..HEAVY_ENTITIES)
                .map(|i| Mat4::rotation_z(i as f32 * 0.001))
                .collect()
        })
        .collect();
    group.bench_function("baseline_sequential", |b| {
        b.iter(|| {
            for column in &mut base {
                column.iter_mut().for_each(invert_100);
            }
            black_box(&mut base);
        })
    });
    group.bench_function("baseline_rayon", |b| {
        b.iter(|| {
            base.par_iter_mut()
                .for_each(|column| column.iter_mut().for_each(invert_100));
            black_box(&mut base);
        })
    });
    group.finish();
}

// ---- frame_churn ----------------------------------------------------------

const CHURN_PER_SYSTEM: usize = 1_000;

/// How many times `CHURN_PER_SYSTEM` the systems that read it spawn,
/// despawn and flip (through `scaled_churn_world`).
struct Scale(usize);

impl Default for Scale {
    fn default() -> Self {
        Scale(1)
    }
}

macro_rules! churn_schema {
    ($(($own:ident, $target:ident, $mark:ident, $lit:ident, $own_f:ident, $target_f:ident, $mark_f:ident, $lit_f:ident, $system:ident, $sparse_system:ident, $flip:ident, $spawn:ident)),*) => {
        $(
            // Payloads that only move with their rows.
            #[allow(dead_code)]
            #[derive(Clone, Copy)]
            struct $own(u32);
            #[derive(Clone, Copy)]
            struct $target(u32);
            #[allow(dead_code)]
            #[derive(Clone, Copy)]
            struct $mark(u32);
            /// A table component that the table-flip frames attach and
            /// detach (a row move each time).
            #[allow(dead_code)]
            #[derive(Clone, Copy)]
            struct $lit(u32);
        )*

        #[derive(Schema)]
        struct Churn {
            $(
                $own_f: $own,
                $target_f: $target,
                #[ecs(sparse)]
                $mark_f: $mark,
                $lit_f: $lit,
            )*
            #[ecs(resource)]
            scale: Scale,
        }

        $(
            /// Despawns the first `CHURN_PER_SYSTEM` of its archetype it
            /// meets and spawns as many; marks its targets that lack the
            /// mark and unmarks the others.
            fn $system(
                own: Query<(Entity, &$own)>,
                targets: Query<(Entity, &$target, Has<$mark>)>,
                mut commands: Commands<Churn>,
            ) {
                for (entity, _) in own.iter().take(CHURN_PER_SYSTEM) {
                    commands.despawn(entity);
                }
                for i in 0..CHURN_PER_SYSTEM as u32 {
                    commands.spawn(($own(i),));
                }
                for (entity, target, marked) in targets.iter() {
                    if marked {
                        commands.remove::<$mark>(entity);
                    } else {
                        commands.insert(entity, ($mark(target.0),));
                    }
                }
            }
        )*

        $(
            /// `churn`'s frame with the marks flipped at once through
            /// `SparseMut` (issue 28, item 1); spawns and despawns still
            /// go through commands.
            fn $sparse_system(
                own: Query<(Entity, &$own)>,
                targets: Query<(Entity, &$target)>,
                marks: SparseMut<Churn, $mark>,
                mut commands: Commands<Churn>,
            ) {
                for (entity, _) in own.iter().take(CHURN_PER_SYSTEM) {
                    commands.despawn(entity);
                }
                for i in 0..CHURN_PER_SYSTEM as u32 {
                    commands.spawn(($own(i),));
                }
                $flip(targets, marks);
            }

            /// The flips alone, through `SparseMut`: the sparse part of
            /// the churn, which runs concurrently.
            fn $flip(targets: Query<(Entity, &$target)>, mut marks: SparseMut<Churn, $mark>) {
                for (entity, target) in targets.iter() {
                    if marks.remove(entity).unwrap().is_none() {
                        marks.insert(entity, $mark(target.0)).unwrap();
                    }
                }
            }
        )*

        $(
            /// Spawns its 1,000 entities at once through `Spawner` and
            /// flips its marks through `SparseMut`: nothing deferred.
            fn $spawn(
                targets: Query<(Entity, &$target)>,
                mut spawner: Spawner<Churn, ($own,)>,
                marks: SparseMut<Churn, $mark>,
            ) {
                for i in 0..CHURN_PER_SYSTEM as u32 {
                    spawner.spawn(($own(i),));
                }
                $flip(targets, marks);
            }
        )*

        /// Despawns every entity of the `Own` archetypes (exclusive, last).
        fn reap(world: &mut World<Churn>) {
            let mut doomed = Vec::new();
            $(doomed.extend(world.query::<(Entity, &$own)>().iter().map(|(entity, _)| entity));)*
            for entity in doomed {
                world.despawn(entity).unwrap();
            }
        }

        $(
            mod $spawn {
                use super::*;

                /// `$spawn` with its ids given when its run is applied.
                pub fn unnamed(
                    targets: Query<(Entity, &$target)>,
                    mut spawner: UnnamedSpawner<Churn, ($own,)>,
                    marks: SparseMut<Churn, $mark>,
                    scale: Res<Scale>,
                ) {
                    for i in 0..(CHURN_PER_SYSTEM * scale.0) as u32 {
                        spawner.spawn(($own(i),));
                    }
                    $flip(targets, marks);
                }

                /// Despawns the first `CHURN_PER_SYSTEM` of its archetype
                /// it meets when the run ends: it waits for no other
                /// system.
                pub fn cull(
                    own: Query<Entity, With<$own>>,
                    mut despawner: Despawner<Churn>,
                    scale: Res<Scale>,
                ) {
                    for entity in own.iter().take(CHURN_PER_SYSTEM * scale.0) {
                        despawner.despawn(entity);
                    }
                }
            }
        )*

        /// The churn frame with nothing applied one change at a time while
        /// the systems run: each system's culling through a `Despawner`
        /// (the despawns made in one batch when the run ends), then its
        /// spawns through an `UnnamedSpawner` and flips through a
        /// `SparseMut`. Two stages of 8 systems each.
        fn churn_despawner_schedule() -> Schedule<Churn> {
            let mut schedule = Schedule::new();
            $(schedule.add($spawn::cull);)*
            $(schedule.add($spawn::unnamed);)*
            schedule
        }

        fn spawn_flip_schedule(unnamed: bool) -> Schedule<Churn> {
            let mut schedule = Schedule::new();
            if unnamed {
                $(schedule.add($spawn::unnamed);)*
            } else {
                $(schedule.add($spawn);)*
            }
            schedule.add(reap);
            schedule
        }

        fn churn_sparse_schedule() -> Schedule<Churn> {
            let mut schedule = Schedule::new();
            $(schedule.add($sparse_system);)*
            schedule
        }

        fn flip_schedule() -> Schedule<Churn> {
            let mut schedule = Schedule::new();
            $(schedule.add($flip);)*
            schedule
        }

        fn churn_world() -> World<Churn> {
            let mut world = World::<Churn>::new();
            $(
                world.spawn_batch((0..CHURN_PER_SYSTEM as u32).map(|i| ($own(i),)));
                world.spawn_batch((0..CHURN_PER_SYSTEM as u32).map(|i| ($target(i),)));
            )*
            world
        }

        /// The churn world at `scale` times the entities: as many of each
        /// system's own archetype and targets, and each frame as many
        /// spawned, despawned and flipped (by the systems that read
        /// `Scale`).
        fn scaled_churn_world(scale: usize) -> World<Churn> {
            let mut world = World::<Churn>::new();
            *world.resource_mut::<Scale>() = Scale(scale);
            let count = (CHURN_PER_SYSTEM * scale) as u32;
            $(
                world.spawn_batch((0..count).map(|i| ($own(i),)));
                world.spawn_batch((0..count).map(|i| ($target(i),)));
            )*
            world
        }

        /// Another `CHURN_PER_SYSTEM` targets of each system.
        fn add_targets(world: &mut World<Churn>) {
            $(world.spawn_batch((0..CHURN_PER_SYSTEM as u32).map(|i| ($target(i),)));)*
        }

        fn churn_schedule() -> Schedule<Churn> {
            let mut schedule = Schedule::new();
            $(schedule.add($system);)*
            schedule
        }
    };
}

churn_schema!(
    (
        Own0,
        Target0,
        Mark0,
        Lit0,
        own0,
        target0,
        mark0,
        lit0,
        churn0,
        churn_sparse0,
        flip0,
        spawn0
    ),
    (
        Own1,
        Target1,
        Mark1,
        Lit1,
        own1,
        target1,
        mark1,
        lit1,
        churn1,
        churn_sparse1,
        flip1,
        spawn1
    ),
    (
        Own2,
        Target2,
        Mark2,
        Lit2,
        own2,
        target2,
        mark2,
        lit2,
        churn2,
        churn_sparse2,
        flip2,
        spawn2
    ),
    (
        Own3,
        Target3,
        Mark3,
        Lit3,
        own3,
        target3,
        mark3,
        lit3,
        churn3,
        churn_sparse3,
        flip3,
        spawn3
    ),
    (
        Own4,
        Target4,
        Mark4,
        Lit4,
        own4,
        target4,
        mark4,
        lit4,
        churn4,
        churn_sparse4,
        flip4,
        spawn4
    ),
    (
        Own5,
        Target5,
        Mark5,
        Lit5,
        own5,
        target5,
        mark5,
        lit5,
        churn5,
        churn_sparse5,
        flip5,
        spawn5
    ),
    (
        Own6,
        Target6,
        Mark6,
        Lit6,
        own6,
        target6,
        mark6,
        lit6,
        churn6,
        churn_sparse6,
        flip6,
        spawn6
    ),
    (
        Own7,
        Target7,
        Mark7,
        Lit7,
        own7,
        target7,
        mark7,
        lit7,
        churn7,
        churn_sparse7,
        flip7,
        spawn7
    )
);

/// The systems of the table-flip frames: each attaches its `Lit` to its
/// targets that lack it and detaches it from the others, a row move per
/// entity. Each reaches the tables of its own `Target` without the other
/// `Target`s: the exclusions make the eight reaches disjoint for the
/// schedule (masks alone cannot tell that no entity has two targets).
macro_rules! table_flips {
    ($(($migrate:ident, $commands:ident, $lit:ident, $reach:ty)),* $(,)?) => {
        $(
            /// Through a `Migrator`: moves made after the stage, beside
            /// the other systems' (issue 28, item 1).
            fn $migrate(
                targets: Query<(Entity, Has<$lit>), $reach>,
                mut lit: Migrator<Churn, $lit, $reach>,
            ) {
                for (entity, on) in targets.iter() {
                    if on {
                        lit.remove(entity).unwrap();
                    } else {
                        lit.insert(entity, $lit(1)).unwrap();
                    }
                }
            }

            /// Through commands: applied after the system, one by one.
            fn $commands(
                targets: Query<(Entity, Has<$lit>), $reach>,
                mut commands: Commands<Churn>,
            ) {
                for (entity, on) in targets.iter() {
                    if on {
                        commands.remove::<$lit>(entity);
                    } else {
                        commands.insert(entity, ($lit(1),));
                    }
                }
            }
        )*

        fn table_flip_schedule(migrators: bool) -> Schedule<Churn> {
            let mut schedule = Schedule::new();
            if migrators {
                $(schedule.add($migrate);)*
            } else {
                $(schedule.add($commands);)*
            }
            schedule
        }
    };
}

table_flips!(
    (
        flip_table0,
        flip_table_commands0,
        Lit0,
        (
            With<Target0>,
            Without<Target1>,
            Without<Target2>,
            Without<Target3>,
            Without<Target4>,
            Without<Target5>,
            Without<Target6>,
            Without<Target7>
        )
    ),
    (
        flip_table1,
        flip_table_commands1,
        Lit1,
        (
            With<Target1>,
            Without<Target0>,
            Without<Target2>,
            Without<Target3>,
            Without<Target4>,
            Without<Target5>,
            Without<Target6>,
            Without<Target7>
        )
    ),
    (
        flip_table2,
        flip_table_commands2,
        Lit2,
        (
            With<Target2>,
            Without<Target0>,
            Without<Target1>,
            Without<Target3>,
            Without<Target4>,
            Without<Target5>,
            Without<Target6>,
            Without<Target7>
        )
    ),
    (
        flip_table3,
        flip_table_commands3,
        Lit3,
        (
            With<Target3>,
            Without<Target0>,
            Without<Target1>,
            Without<Target2>,
            Without<Target4>,
            Without<Target5>,
            Without<Target6>,
            Without<Target7>
        )
    ),
    (
        flip_table4,
        flip_table_commands4,
        Lit4,
        (
            With<Target4>,
            Without<Target0>,
            Without<Target1>,
            Without<Target2>,
            Without<Target3>,
            Without<Target5>,
            Without<Target6>,
            Without<Target7>
        )
    ),
    (
        flip_table5,
        flip_table_commands5,
        Lit5,
        (
            With<Target5>,
            Without<Target0>,
            Without<Target1>,
            Without<Target2>,
            Without<Target3>,
            Without<Target4>,
            Without<Target6>,
            Without<Target7>
        )
    ),
    (
        flip_table6,
        flip_table_commands6,
        Lit6,
        (
            With<Target6>,
            Without<Target0>,
            Without<Target1>,
            Without<Target2>,
            Without<Target3>,
            Without<Target4>,
            Without<Target5>,
            Without<Target7>
        )
    ),
    (
        flip_table7,
        flip_table_commands7,
        Lit7,
        (
            With<Target7>,
            Without<Target0>,
            Without<Target1>,
            Without<Target2>,
            Without<Target3>,
            Without<Target4>,
            Without<Target5>,
            Without<Target6>
        )
    ),
);

fn churn(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame_churn");
    rayon::broadcast(|_| ());
    let mut world = churn_world();
    let mut schedule = churn_schedule();
    // Each frame replaces every system's 1,000 entities of its own
    // archetype, and flips the marks of its 1,000 targets: the world stays
    // at 16,000 entities.
    bench_runs(&mut group, &mut world, &mut schedule);
    group.finish();

    let mut group = c.benchmark_group("frame_churn_sparse_mut");
    let mut world = churn_world();
    let mut schedule = churn_sparse_schedule();
    bench_runs(&mut group, &mut world, &mut schedule);
    group.finish();

    for (name, unnamed) in [
        ("frame_spawn_flip", false),
        ("frame_spawn_flip_unnamed", true),
    ] {
        let mut group = c.benchmark_group(name);
        let mut world = churn_world();
        let mut schedule = spawn_flip_schedule(unnamed);
        bench_runs(&mut group, &mut world, &mut schedule);
        group.finish();
    }

    // The same frames at game scale: 80,000 entities spawned, despawned and
    // flipped a frame.
    for (name, despawner, scale) in [
        ("frame_churn_despawner", true, 1),
        ("frame_spawn_flip_unnamed_80k", false, 10),
        ("frame_churn_despawner_80k", true, 10),
    ] {
        let mut group = c.benchmark_group(name);
        if scale > 1 {
            group.sample_size(20);
        }
        let mut world = scaled_churn_world(scale);
        let mut schedule = if despawner {
            churn_despawner_schedule()
        } else {
            spawn_flip_schedule(true)
        };
        bench_runs(&mut group, &mut world, &mut schedule);
        group.finish();
    }

    let mut group = c.benchmark_group("frame_flip_sparse_mut");
    let mut world = churn_world();
    let mut schedule = flip_schedule();
    bench_runs(&mut group, &mut world, &mut schedule);
    group.finish();

    // The flips of a table component: 8,000 row moves a frame, and at game
    // scale 80,000 (10,000 targets per system).
    for (name, migrators, targets) in [
        ("frame_flip_table_commands", false, 1),
        ("frame_flip_table_migrator", true, 1),
        ("frame_flip_table_commands_80k", false, 10),
        ("frame_flip_table_migrator_80k", true, 10),
    ] {
        let mut group = c.benchmark_group(name);
        let mut world = churn_world();
        for _ in 1..targets {
            add_targets(&mut world);
        }
        let mut schedule = table_flip_schedule(migrators);
        bench_runs(&mut group, &mut world, &mut schedule);
        group.finish();
    }
}

// ---- frame_emit -----------------------------------------------------------

/// Emitters in `frame_emit`.
const EMITTERS: usize = 10_000;

#[derive(Clone, Copy)]
struct Phase(f32);
#[derive(Clone, Copy)]
struct Hot;
// Payloads that only move with their rows.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Glow(f32);
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Spark(f32);

#[derive(Schema)]
struct Emit {
    phase: Phase,
    hot: Hot,
    #[ecs(sparse)]
    glow: Glow,
    spark: Spark,
}

/// One emitter's frame: some arithmetic (eight `sin`, about 60 ns), then a
/// row move (`Hot` on or off), a sparse insert or removal (`Glow`) and, for
/// one emitter in eight, a spawn.
macro_rules! emit_one {
    ($hot:expr, $glow:expr, $sparks:expr, ($entity:expr, $phase:expr, $is_hot:expr)) => {{
        let (hot, glow, sparks, entity, phase, is_hot) =
            ($hot, $glow, $sparks, $entity, $phase, $is_hot);
        let mut x = phase.0;
        for _ in 0..8 {
            x = (x * 1.618 + 0.5).sin();
        }
        phase.0 = x;
        if is_hot {
            hot.remove(entity).unwrap();
            glow.remove(entity).unwrap();
        } else {
            hot.insert(entity, Hot).unwrap();
            glow.insert(entity, Glow(x)).unwrap();
        }
        if entity.index() % 8 == 0 {
            sparks.spawn((Spark(x),));
        }
    }};
}

/// Every emitter in a sequential loop.
fn emit_loop(
    mut emitters: Query<(Entity, &mut Phase, Has<Hot>)>,
    mut hot: Migrator<Emit, Hot, With<Phase>>,
    mut glow: SparseMut<Emit, Glow>,
    mut sparks: UnnamedSpawner<Emit, (Spark,)>,
) {
    emitters.for_each_mut(|(entity, phase, is_hot)| {
        emit_one!(&mut hot, &mut glow, &mut sparks, (entity, phase, is_hot))
    });
}

/// Every emitter in the chunks of a parallel loop.
fn emit_chunks(
    mut emitters: Query<(Entity, &mut Phase, Has<Hot>)>,
    mut hot: Migrator<Emit, Hot, With<Phase>>,
    mut glow: SparseMut<Emit, Glow>,
    mut sparks: UnnamedSpawner<Emit, (Spark,)>,
) {
    emitters.par_for_each_mut_with(
        (&mut hot, &mut glow, &mut sparks),
        |(hot, glow, sparks), (entity, phase, is_hot)| {
            emit_one!(hot, glow, sparks, (entity, phase, is_hot))
        },
    );
}

/// Despawns last frame's sparks.
fn fade(world: &mut World<Emit>) {
    let sparks: Vec<Entity> = world
        .query_filtered::<Entity, With<Spark>>()
        .iter()
        .collect();
    for spark in sparks {
        world.despawn(spark).unwrap();
    }
}

/// One system, whose loop records structural changes: the paper's
/// `conc(s)`, with its loop bodies in parallel chunks, against the same
/// loop run sequentially (both through `Schedule::run`).
fn emit(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame_emit");
    for (name, chunks) in [("loop", false), ("chunks", true)] {
        let mut world = World::<Emit>::new();
        world.spawn_batch((0..EMITTERS).map(|i| (Phase(i as f32 * 0.001),)));
        let mut schedule = Schedule::<Emit>::new();
        schedule.add(fade);
        if chunks {
            schedule.add(emit_chunks);
        } else {
            schedule.add(emit_loop);
        }
        schedule.run(&mut world);
        group.bench_function(name, |b| {
            b.iter(|| {
                schedule.run(&mut world);
                black_box(&mut world);
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    small_systems,
    trivial_systems,
    heavy_systems,
    churn,
    emit
);
criterion_main!(benches);
