//! Whole frames of many systems (issue 15), on our `Schedule` and on bevy's
//! two executors. The same three workloads as the workspace's
//! `benches/frame.rs`:
//!
//! * `frame_small_systems`: 8 components `C0..C7` of one `f32`; 10,000
//!   entities in 4 archetypes of 4, 4, 8 and 4 components; system *k* of 64
//!   runs over `(&mut C[k % 8], &C[(k + 3) % 8])` doing `w += r * 0.5` (8
//!   functions, each added 8 times).
//! * `frame_trivial_systems`: 64 systems that read one resource, no
//!   entities.
//! * `frame_heavy_systems`: 8 systems on disjoint components, each 1,000
//!   entities of 100 4x4 inversions (`heavy_compute`-sized).
//!
//! Contenders: `ours_run` and `ours_run_sequential` (the same systems; `run`
//! decides per stage whether threads pay); `bevy_multi_threaded` and
//! `bevy_single_threaded`, bevy's two executors with the systems added
//! unordered, the fastest bevy can run them (its multi-threaded executor then
//! orders conflicting systems as it likes, so the small frame's result is
//! not program order); and, for the small frame, both executors with the
//! systems `.chain()`ed, which is what program order costs in bevy. The
//! baselines are the same loops over plain vectors.

use crate::shared::{bevy_task_pool, invert, rotation_x, Matrix};
use crate::Group;
use bevy_ecs::component::Component;
use bevy_ecs::prelude::{IntoScheduleConfigs, Resource};
use bevy_ecs::schedule::{MultiThreadedExecutor, Schedule, SingleThreadedExecutor};
use bevy_ecs::system::{Query, Res};
use criterion::{Criterion, SamplingMode};
use std::hint::black_box;

pub fn bench(c: &mut Criterion) {
    // Both pools are built outside the timed region.
    rayon::broadcast(|_| ());
    bevy_task_pool();

    let mut group = c.benchmark_group("frame_small_systems");
    small::ours(&mut group);
    small::bevy(&mut group);
    small::baseline(&mut group);
    group.finish();

    let mut group = c.benchmark_group("frame_trivial_systems");
    trivial::ours(&mut group);
    trivial::bevy(&mut group);
    trivial::baseline(&mut group);
    group.finish();

    let mut group = c.benchmark_group("frame_churn");
    churn::ours(&mut group);
    churn::bevy(&mut group);
    group.finish();

    let mut group = c.benchmark_group("frame_heavy_systems");
    // About 30 ms a sequential frame: a few iterations per sample.
    group.sampling_mode(SamplingMode::Flat).sample_size(20);
    heavy::ours(&mut group);
    heavy::bevy(&mut group);
    heavy::baseline(&mut group);
    group.finish();
}

/// Adds `ours_run` and `ours_run_sequential` of `schedule` on `world`.
fn ours_runs<S: ecs::schedule::SendSchema>(
    group: &mut Group,
    world: &mut ecs::world::World<S>,
    schedule: &mut ecs::schedule::Schedule<S>,
) {
    // The first runs plan, match tables and measure.
    for _ in 0..3 {
        schedule.run(world);
    }
    group.bench_function("ours_run", |b| {
        b.iter(|| {
            schedule.run(world);
            black_box(&mut *world);
        })
    });
    group.bench_function("ours_run_sequential", |b| {
        b.iter(|| {
            schedule.run_sequential(world);
            black_box(&mut *world);
        })
    });
}

/// bevy's two executors, by benchmark name.
const BEVY_EXECUTORS: [(&str, bool); 2] = [
    ("bevy_multi_threaded", true),
    ("bevy_single_threaded", false),
];

/// Adds `name`: `schedule` run on `world` by bevy's multi-threaded or
/// single-threaded executor.
fn bevy_run(
    group: &mut Group,
    name: &str,
    multi_threaded: bool,
    world: &mut bevy_ecs::world::World,
    mut schedule: Schedule,
) {
    if multi_threaded {
        schedule.set_executor(MultiThreadedExecutor::new());
    } else {
        schedule.set_executor(SingleThreadedExecutor::new());
    }
    // The first run builds the schedule and initialises the systems.
    schedule.run(world);
    group.bench_function(name, |b| {
        b.iter(|| {
            schedule.run(world);
            black_box(&mut *world);
        })
    });
}

/// Each of bevy's executors on the schedule unordered (`bevy_...`) and
/// chained (`bevy_..._chained`), each on a fresh world.
fn bevy_runs(
    group: &mut Group,
    world: fn() -> bevy_ecs::world::World,
    schedule: fn(bool) -> Schedule,
) {
    for (name, multi_threaded) in BEVY_EXECUTORS {
        bevy_run(group, name, multi_threaded, &mut world(), schedule(false));
        let name = format!("{name}_chained");
        bevy_run(group, &name, multi_threaded, &mut world(), schedule(true));
    }
}

mod small {
    use super::*;

    const ENTITIES: usize = 10_000;

    macro_rules! components {
        ($($name:ident),*) => {$(
            #[derive(Component, Clone, Copy, Debug, PartialEq)]
            pub struct $name(pub f32);
        )*};
    }

    components!(C0, C1, C2, C3, C4, C5, C6, C7);

    /// Our schema for the eight components.
    #[derive(ecs::schema::Schema)]
    pub struct Eight {
        c0: C0,
        c1: C1,
        c2: C2,
        c3: C3,
        c4: C4,
        c5: C5,
        c6: C6,
        c7: C7,
    }

    /// System `k % 8`, ours and bevy's: `C[k] += C[(k + 3) % 8] * 0.5`.
    macro_rules! systems {
        ($(($ours:ident, $bevy:ident, $w:ident, $r:ident)),*) => {$(
            fn $ours(mut q: ecs::query::Query<(&mut $w, &$r)>) {
                q.for_each_mut(|(w, r)| w.0 += r.0 * 0.5);
            }

            fn $bevy(mut q: Query<(&mut $w, &$r)>) {
                q.iter_mut().for_each(|(mut w, r)| w.0 += r.0 * 0.5);
            }
        )*};
    }

    systems!(
        (ours0, bevy0, C0, C3),
        (ours1, bevy1, C1, C4),
        (ours2, bevy2, C2, C5),
        (ours3, bevy3, C3, C6),
        (ours4, bevy4, C4, C7),
        (ours5, bevy5, C5, C0),
        (ours6, bevy6, C6, C1),
        (ours7, bevy7, C7, C2)
    );

    type Four<A, B, C, D> = (A, B, C, D);

    /// One entity of each of the four archetypes.
    type Archetypes = (
        Four<C0, C1, C2, C3>,
        Four<C4, C5, C6, C7>,
        (C0, C1, C2, C3, C4, C5, C6, C7),
        Four<C1, C3, C5, C7>,
    );

    fn archetypes() -> Archetypes {
        (
            (C0(1.0), C1(1.0), C2(1.0), C3(1.0)),
            (C4(1.0), C5(1.0), C6(1.0), C7(1.0)),
            (
                C0(1.0),
                C1(1.0),
                C2(1.0),
                C3(1.0),
                C4(1.0),
                C5(1.0),
                C6(1.0),
                C7(1.0),
            ),
            (C1(1.0), C3(1.0), C5(1.0), C7(1.0)),
        )
    }

    pub fn ours(group: &mut Group) {
        let n = ENTITIES / 4;
        let (a, b, c, d) = archetypes();
        let mut world = ecs::world::World::<Eight>::new();
        world.spawn_batch((0..n).map(|_| a));
        world.spawn_batch((0..n).map(|_| b));
        world.spawn_batch((0..n).map(|_| c));
        world.spawn_batch((0..n).map(|_| d));
        let mut schedule = ecs::schedule::Schedule::<Eight>::new();
        for _ in 0..8 {
            schedule
                .add(ours0)
                .add(ours1)
                .add(ours2)
                .add(ours3)
                .add(ours4)
                .add(ours5)
                .add(ours6)
                .add(ours7);
        }
        ours_runs(group, &mut world, &mut schedule);
    }

    fn bevy_world() -> bevy_ecs::world::World {
        let n = ENTITIES / 4;
        let (a, b, c, d) = archetypes();
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..n).map(|_| a));
        world.spawn_batch((0..n).map(|_| b));
        world.spawn_batch((0..n).map(|_| c));
        world.spawn_batch((0..n).map(|_| d));
        world
    }

    /// The 64 systems, chained (program order) or not.
    fn bevy_schedule(chained: bool) -> Schedule {
        let eight = || (bevy0, bevy1, bevy2, bevy3, bevy4, bevy5, bevy6, bevy7);
        let mut schedule = Schedule::default();
        if chained {
            schedule.add_systems(
                (
                    eight().chain(),
                    eight().chain(),
                    eight().chain(),
                    eight().chain(),
                    eight().chain(),
                    eight().chain(),
                    eight().chain(),
                    eight().chain(),
                )
                    .chain(),
            );
        } else {
            for _ in 0..8 {
                schedule.add_systems(eight());
            }
        }
        schedule
    }

    pub fn bevy(group: &mut Group) {
        bevy_runs(group, bevy_world, bevy_schedule);
    }

    pub fn baseline(group: &mut Group) {
        let n = ENTITIES / 4;
        let table = |has: [bool; 8]| has.map(|has| has.then(|| vec![1.0f32; n]));
        let mut tables = [
            table([true, true, true, true, false, false, false, false]),
            table([false, false, false, false, true, true, true, true]),
            table([true; 8]),
            table([false, true, false, true, false, true, false, true]),
        ];
        group.bench_function("baseline", |b| {
            b.iter(|| {
                for k in 0..64 {
                    let (w, r) = (k % 8, (k + 3) % 8);
                    for table in &mut tables {
                        let [Some(ws), Some(rs)] = table.get_disjoint_mut([w, r]).unwrap() else {
                            continue;
                        };
                        for (w, r) in ws.iter_mut().zip(rs.iter()) {
                            *w += r * 0.5;
                        }
                    }
                }
                black_box(&mut tables);
            })
        });
    }
}

mod trivial {
    use super::*;

    #[derive(Resource, Default)]
    pub struct Counter(pub u64);

    /// A component nobody has: our schema needs one.
    #[derive(Component)]
    pub struct Unused;

    #[derive(ecs::schema::Schema)]
    pub struct Empty {
        unused: Unused,
        #[ecs(resource)]
        counter: Counter,
    }

    fn ours_read(counter: ecs::system::Res<Counter>) {
        black_box(counter.0);
    }

    fn bevy_read(counter: Res<Counter>) {
        black_box(counter.0);
    }

    pub fn ours(group: &mut Group) {
        let mut world = ecs::world::World::<Empty>::new();
        let mut schedule = ecs::schedule::Schedule::<Empty>::new();
        for _ in 0..64 {
            schedule.add(ours_read);
        }
        ours_runs(group, &mut world, &mut schedule);
    }

    pub fn bevy(group: &mut Group) {
        for (name, multi_threaded) in BEVY_EXECUTORS {
            let mut world = bevy_ecs::world::World::new();
            world.init_resource::<Counter>();
            let mut schedule = Schedule::default();
            for _ in 0..64 {
                schedule.add_systems(bevy_read);
            }
            bevy_run(group, name, multi_threaded, &mut world, schedule);
        }
    }

    pub fn baseline(group: &mut Group) {
        let counter = Counter(0);
        group.bench_function("baseline", |b| {
            b.iter(|| {
                for _ in 0..64 {
                    black_box(black_box(&counter).0);
                }
            })
        });
    }
}

mod heavy {
    use super::*;

    const ENTITIES: usize = 1_000;

    /// Inversions per entity and pass, as in heavy_compute.
    const INVERSIONS: usize = 100;

    macro_rules! components {
        ($($name:ident),*) => {$(
            #[derive(Component, Clone, Copy, Debug, PartialEq)]
            pub struct $name(pub Matrix);
        )*};
    }

    components!(M0, M1, M2, M3, M4, M5, M6, M7);

    #[derive(ecs::schema::Schema)]
    pub struct Matrices {
        m0: M0,
        m1: M1,
        m2: M2,
        m3: M3,
        m4: M4,
        m5: M5,
        m6: M6,
        m7: M7,
    }

    /// The per-entity work; an even number of inversions leaves the matrix
    /// where it was, up to rounding.
    #[inline]
    fn work(m: &mut Matrix) {
        for _ in 0..INVERSIONS {
            *m = invert(m).expect("a rotation is invertible");
        }
    }

    macro_rules! systems {
        ($(($ours:ident, $bevy:ident, $m:ident)),*) => {$(
            fn $ours(mut q: ecs::query::Query<&mut $m>) {
                q.for_each_mut(|m| work(&mut m.0));
            }

            fn $bevy(mut q: Query<&mut $m>) {
                q.iter_mut().for_each(|mut m| work(&mut m.0));
            }
        )*};
    }

    systems!(
        (ours0, bevy0, M0),
        (ours1, bevy1, M1),
        (ours2, bevy2, M2),
        (ours3, bevy3, M3),
        (ours4, bevy4, M4),
        (ours5, bevy5, M5),
        (ours6, bevy6, M6),
        (ours7, bevy7, M7)
    );

    fn matrices() -> (M0, M1, M2, M3, M4, M5, M6, M7) {
        let m = rotation_x(1.2).0;
        (M0(m), M1(m), M2(m), M3(m), M4(m), M5(m), M6(m), M7(m))
    }

    pub fn ours(group: &mut Group) {
        let mut world = ecs::world::World::<Matrices>::new();
        world.spawn_batch((0..ENTITIES).map(|_| matrices()));
        let mut schedule = ecs::schedule::Schedule::<Matrices>::new();
        schedule
            .add(ours0)
            .add(ours1)
            .add(ours2)
            .add(ours3)
            .add(ours4)
            .add(ours5)
            .add(ours6)
            .add(ours7);
        ours_runs(group, &mut world, &mut schedule);
    }

    pub fn bevy(group: &mut Group) {
        for (name, multi_threaded) in BEVY_EXECUTORS {
            let mut world = bevy_ecs::world::World::new();
            world.spawn_batch((0..ENTITIES).map(|_| matrices()));
            let mut schedule = Schedule::default();
            schedule.add_systems((bevy0, bevy1, bevy2, bevy3, bevy4, bevy5, bevy6, bevy7));
            bevy_run(group, name, multi_threaded, &mut world, schedule);
        }
    }

    pub fn baseline(group: &mut Group) {
        let mut columns: Vec<Vec<Matrix>> =
            (0..8).map(|_| vec![rotation_x(1.2).0; ENTITIES]).collect();
        group.bench_function("baseline", |b| {
            b.iter(|| {
                for column in &mut columns {
                    column.iter_mut().for_each(work);
                }
                black_box(&mut columns);
            })
        });
    }
}

/// `frame_churn` (issue 28, item 4): 16,000 entities; system *k* of 8
/// despawns the first 1,000 entities of its archetype `Own<k>` it meets,
/// spawns 1,000 more, and flips its sparse `Mark<k>` on the 1,000 entities
/// of `Target<k>`. Ours through commands (`ours_run*`), and with the flips
/// applied at once through `SparseMut` (`ours_sparse_mut_run*`); bevy's
/// through its commands, `Mark<k>` in sparse-set storage, its systems
/// unordered (its best: they share nothing but commands) and chained.
mod churn {
    use super::*;
    use bevy_ecs::entity::Entity;
    use bevy_ecs::prelude::Has;
    use bevy_ecs::system::Commands;

    const PER_SYSTEM: usize = 1_000;

    macro_rules! churn {
        ($(($own:ident, $target:ident, $mark:ident, $own_f:ident, $target_f:ident, $mark_f:ident, $ours:ident, $sparse:ident, $bevy:ident)),*) => {
            $(
                #[derive(Component, Clone, Copy)]
                pub struct $own(#[allow(dead_code)] pub u32);
                #[derive(Component, Clone, Copy)]
                pub struct $target(pub u32);
                #[derive(Component, Clone, Copy)]
                #[component(storage = "SparseSet")]
                pub struct $mark(#[allow(dead_code)] pub u32);
            )*

            #[derive(ecs::schema::Schema)]
            pub struct Churn {
                $(
                    $own_f: $own,
                    $target_f: $target,
                    #[ecs(sparse)]
                    $mark_f: $mark,
                )*
            }

            $(
                fn $ours(
                    own: ecs::query::Query<(ecs::entity::Entity, &$own)>,
                    targets: ecs::query::Query<(ecs::entity::Entity, &$target, ecs::query::Has<$mark>)>,
                    mut commands: ecs::command::Commands<Churn>,
                ) {
                    for (entity, _) in own.iter().take(PER_SYSTEM) {
                        commands.despawn(entity);
                    }
                    for i in 0..PER_SYSTEM as u32 {
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

                fn $sparse(
                    own: ecs::query::Query<(ecs::entity::Entity, &$own)>,
                    targets: ecs::query::Query<(ecs::entity::Entity, &$target)>,
                    mut marks: ecs::command::SparseMut<Churn, $mark>,
                    mut commands: ecs::command::Commands<Churn>,
                ) {
                    for (entity, _) in own.iter().take(PER_SYSTEM) {
                        commands.despawn(entity);
                    }
                    for i in 0..PER_SYSTEM as u32 {
                        commands.spawn(($own(i),));
                    }
                    for (entity, target) in targets.iter() {
                        if marks.remove(entity).unwrap().is_none() {
                            marks.insert(entity, $mark(target.0)).unwrap();
                        }
                    }
                }

                fn $bevy(
                    own: Query<(Entity, &$own)>,
                    targets: Query<(Entity, &$target, Has<$mark>)>,
                    mut commands: Commands,
                ) {
                    for (entity, _) in own.iter().take(PER_SYSTEM) {
                        commands.entity(entity).despawn();
                    }
                    for i in 0..PER_SYSTEM as u32 {
                        commands.spawn($own(i));
                    }
                    for (entity, target, marked) in targets.iter() {
                        if marked {
                            commands.entity(entity).remove::<$mark>();
                        } else {
                            commands.entity(entity).insert($mark(target.0));
                        }
                    }
                }
            )*

            pub fn ours(group: &mut Group) {
                for sparse in [false, true] {
                    let mut world = ecs::world::World::<Churn>::new();
                    $(
                        world.spawn_batch((0..PER_SYSTEM as u32).map(|i| ($own(i),)));
                        world.spawn_batch((0..PER_SYSTEM as u32).map(|i| ($target(i),)));
                    )*
                    let mut schedule = ecs::schedule::Schedule::<Churn>::new();
                    if sparse {
                        $(schedule.add($sparse);)*
                    } else {
                        $(schedule.add($ours);)*
                    }
                    if sparse {
                        sparse_runs(group, &mut world, &mut schedule);
                    } else {
                        ours_runs(group, &mut world, &mut schedule);
                    }
                }
            }

            fn bevy_world() -> bevy_ecs::world::World {
                let mut world = bevy_ecs::world::World::new();
                $(
                    world.spawn_batch((0..PER_SYSTEM as u32).map($own));
                    world.spawn_batch((0..PER_SYSTEM as u32).map($target));
                )*
                world
            }

            fn bevy_schedule(chained: bool) -> Schedule {
                let mut schedule = Schedule::default();
                if chained {
                    schedule.add_systems(($($bevy),*).chain());
                } else {
                    schedule.add_systems(($($bevy),*));
                }
                schedule
            }
        };
    }

    churn!(
        (Own0, Target0, Mark0, own0, target0, mark0, ours0, sparse0, bevy0),
        (Own1, Target1, Mark1, own1, target1, mark1, ours1, sparse1, bevy1),
        (Own2, Target2, Mark2, own2, target2, mark2, ours2, sparse2, bevy2),
        (Own3, Target3, Mark3, own3, target3, mark3, ours3, sparse3, bevy3),
        (Own4, Target4, Mark4, own4, target4, mark4, ours4, sparse4, bevy4),
        (Own5, Target5, Mark5, own5, target5, mark5, ours5, sparse5, bevy5),
        (Own6, Target6, Mark6, own6, target6, mark6, ours6, sparse6, bevy6),
        (Own7, Target7, Mark7, own7, target7, mark7, ours7, sparse7, bevy7)
    );

    /// `ours_sparse_mut_run` and `ours_sparse_mut_run_sequential`.
    fn sparse_runs(
        group: &mut Group,
        world: &mut ecs::world::World<Churn>,
        schedule: &mut ecs::schedule::Schedule<Churn>,
    ) {
        for _ in 0..3 {
            schedule.run(world);
        }
        group.bench_function("ours_sparse_mut_run", |b| {
            b.iter(|| {
                schedule.run(world);
                black_box(&mut *world);
            })
        });
        group.bench_function("ours_sparse_mut_run_sequential", |b| {
            b.iter(|| {
                schedule.run_sequential(world);
                black_box(&mut *world);
            })
        });
    }

    pub fn bevy(group: &mut Group) {
        bevy_runs(group, bevy_world, bevy_schedule);
    }
}
