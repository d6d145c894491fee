//! Struct-of-arrays components (`#[derive(Soa)]`, `#[ecs(soa)]`): whole
//! values go in and come out through every structural path, the arrays stay
//! in step through migrations, the query items hand out fields per entity
//! and per table, and clones, checksums and saves are those of the same
//! world stored whole.

use ecs::prelude::*;

use ecs::command::{CommandBuffer, Spawner};

use ecs::query::Fields;

use ecs::checksum::StableHash;
use ecs::world::InsertError;
use support::{allocations, Rng};

#[derive(Soa, Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Pos {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Soa, Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Vel {
    x: f32,
    y: f32,
    z: f32,
}

/// Fields of different types and sizes, in an order that is not theirs.
#[derive(Soa, Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Body {
    mass: f64,
    id: u8,
    alive: bool,
    charge: i32,
}

#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Name(String);

#[derive(Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Frozen;

#[derive(Schema)]
struct Particles {
    #[ecs(soa)]
    pos: Pos,
    #[ecs(soa)]
    vel: Vel,
    #[ecs(soa)]
    body: Body,
    name: Name,
    frozen: Frozen,
}

/// The same components, stored whole.
#[derive(Schema)]
struct Whole {
    pos: Pos,
    vel: Vel,
    body: Body,
    name: Name,
    frozen: Frozen,
}

fn pos(i: u32) -> Pos {
    let f = i as f32;
    Pos {
        x: f,
        y: f * 2.0,
        z: -f,
    }
}

fn vel(i: u32) -> Vel {
    let f = i as f32;
    Vel {
        x: 0.5 * f,
        y: 1.0,
        z: f + 3.0,
    }
}

fn body(i: u32) -> Body {
    Body {
        mass: i as f64 * 0.25,
        id: i as u8,
        alive: i % 3 != 0,
        charge: -(i as i32),
    }
}

/// What one entity holds, read through the ordinary API.
#[derive(Debug, PartialEq)]
struct Row {
    pos: Option<Pos>,
    vel: Option<Vel>,
    body: Option<Body>,
    name: Option<Name>,
    frozen: bool,
}

fn row(world: &World<Particles>, e: Entity) -> Row {
    Row {
        pos: world.get_soa::<Pos>(e).map(|p| p.get()),
        vel: world.get_soa::<Vel>(e).map(|v| v.get()),
        body: world.get_soa::<Body>(e).map(|b| b.get()),
        name: world.get::<Name>(e).cloned(),
        frozen: world.has::<Frozen>(e),
    }
}

fn whole_row(world: &World<Whole>, e: Entity) -> Row {
    Row {
        pos: world.get::<Pos>(e).copied(),
        vel: world.get::<Vel>(e).copied(),
        body: world.get::<Body>(e).copied(),
        name: world.get::<Name>(e).cloned(),
        frozen: world.has::<Frozen>(e),
    }
}

/// The same random structural changes on an SoA world and a whole one:
/// spawns of several shapes, inserts, removes, takes and despawns, so that
/// rows move between tables and swap-removes run in every array.
fn churn(seed: u64, steps: u32) -> (World<Particles>, World<Whole>, Vec<Entity>) {
    let mut rng = Rng::new(seed);
    let mut soa = World::<Particles>::new();
    let mut whole = World::<Whole>::new();
    let mut alive = Vec::new();
    for i in 0..steps {
        let pick = (!alive.is_empty()).then(|| alive[rng.below(alive.len() as u64) as usize]);
        match (rng.below(8), pick) {
            (0, _) | (1, None) => {
                let a = soa.spawn((pos(i), vel(i), Name(format!("e{i}"))));
                let b = whole.spawn((pos(i), vel(i), Name(format!("e{i}"))));
                assert_eq!(a, b);
                alive.push(a);
            }
            (1, _) => {
                let a = soa.spawn((body(i), pos(i)));
                let b = whole.spawn((body(i), pos(i)));
                assert_eq!(a, b);
                alive.push(a);
            }
            (2, Some(e)) => {
                assert_eq!(soa.insert(e, (vel(i),)), whole.insert(e, (vel(i),)));
            }
            (3, Some(e)) => {
                assert_eq!(
                    soa.insert(e, (body(i), Frozen)),
                    whole.insert(e, (body(i), Frozen))
                );
            }
            (4, Some(e)) => {
                assert_eq!(soa.remove::<Pos>(e), whole.remove::<Pos>(e));
            }
            (5, Some(e)) => {
                assert_eq!(soa.remove::<Body>(e), whole.remove::<Body>(e));
            }
            (6, Some(e)) => {
                assert_eq!(soa.despawn(e), whole.despawn(e));
                alive.retain(|&a| a != e);
            }
            (7, Some(e)) => {
                assert_eq!(
                    soa.insert(e, (pos(i + 1000),)),
                    whole.insert(e, (pos(i + 1000),))
                );
            }
            _ => {}
        }
    }
    (soa, whole, alive)
}

#[test]
fn structural_changes_keep_every_field_array_in_step() {
    for seed in 1..=4 {
        let (soa, whole, alive) = churn(seed, 3000);
        assert!(alive.len() > 100);
        for &e in &alive {
            assert_eq!(row(&soa, e), whole_row(&whole, e), "seed {seed}, {e:?}");
        }
    }
}

#[test]
fn whole_values_come_back_out() {
    let mut world = World::<Particles>::new();
    let e = world.spawn((pos(1), vel(2)));
    assert_eq!(world.remove::<Pos>(e), Ok(Some(pos(1))));
    assert_eq!(world.remove::<Pos>(e), Ok(None));
    world.insert(e, (pos(3), body(4))).unwrap();
    // An overwrite in place returns nothing and keeps the row.
    world.insert(e, (pos(5),)).unwrap();
    assert_eq!(
        world.take::<(Pos, Vel, Body)>(e),
        Ok((pos(5), vel(2), body(4)))
    );
    let dead = world.spawn((pos(6),));
    world.despawn(dead).unwrap();
    assert_eq!(
        world.insert(dead, (pos(7),)),
        Err(InsertError::NoSuchEntity(dead))
    );
    assert!(world.get_soa::<Pos>(dead).is_none());
}

#[test]
fn spawn_batch_commands_and_spawners_fill_the_arrays() {
    let mut world = World::<Particles>::new();
    let batch: Vec<Entity> = world
        .spawn_batch((0..100).map(|i| (pos(i), vel(i))))
        .collect();
    let mut schedule = Schedule::<Particles>::new();
    schedule.add(|mut commands: Commands<Particles>| {
        for i in 100..110 {
            commands.spawn((pos(i), vel(i)));
        }
    });
    schedule.add(|mut spawner: Spawner<Particles, (Pos, Vel)>| {
        for i in 110..120 {
            spawner.spawn((pos(i), vel(i)));
        }
    });
    schedule.run(&mut world);
    assert_eq!(world.len(), 120);
    let mut seen: Vec<(Pos, Vel)> = world
        .query::<(Fields<&Pos>, Fields<&Vel>)>()
        .iter()
        .map(|(p, v)| (p.get(), v.get()))
        .collect();
    seen.sort_by(|a, b| a.0.x.total_cmp(&b.0.x));
    let expected: Vec<(Pos, Vel)> = (0..120).map(|i| (pos(i), vel(i))).collect();
    assert_eq!(seen, expected);
    assert_eq!(world.get_soa::<Pos>(batch[7]).unwrap().get(), pos(7));
}

#[test]
fn the_table_form_hands_out_one_slice_per_field() {
    let mut world = World::<Particles>::new();
    world.spawn_batch((0..10).map(|i| (pos(i), vel(i))));
    world.spawn_batch((10..15).map(|i| (pos(i), vel(i), Frozen)));
    let mut tables = 0;
    world
        .query_filtered_mut::<(Fields<&mut Pos>, Fields<&Vel>), Without<Frozen>>()
        .for_each_table_mut(|_, (pos, vel)| {
            tables += 1;
            assert_eq!(pos.len(), 10);
            assert_eq!((pos.x.len(), pos.y.len(), vel.z.len()), (10, 10, 10));
            for i in 0..pos.x.len() {
                pos.x[i] += vel.x[i];
                pos.z[i] = vel.z[i];
            }
        });
    assert_eq!(tables, 1);
    for (p, v, frozen) in world
        .query::<(Fields<&Pos>, Fields<&Vel>, Has<Frozen>)>()
        .iter()
    {
        let i = *p.y / 2.0;
        if frozen {
            assert_eq!(p.get(), pos(i as u32));
        } else {
            assert_eq!((*p.x, *p.z), (i + v.x, *v.z));
        }
    }
}

#[test]
fn per_entity_items_read_and_write_fields() {
    let mut world = World::<Particles>::new();
    let a = world.spawn((pos(1), body(1)));
    let b = world.spawn((pos(2),));
    world
        .query_mut::<(Fields<&mut Pos>, Option<Fields<&Body>>)>()
        .for_each_mut(|(mut p, body)| {
            *p.y = body.map_or(-1.0, |b| *b.mass as f32);
            let old = p.get();
            p.reborrow().set(Pos { z: 9.0, ..old });
        });
    assert_eq!(
        world.get_soa::<Pos>(a).unwrap().get(),
        Pos {
            x: 1.0,
            y: 0.25,
            z: 9.0
        }
    );
    assert_eq!(
        world.get_soa::<Pos>(b).unwrap().get(),
        Pos {
            x: 2.0,
            y: -1.0,
            z: 9.0
        }
    );
    *world.get_soa_mut::<Pos>(b).unwrap().x = 7.0;
    let entity = world.entity(b).unwrap();
    assert_eq!(*entity.get_soa::<Pos>().unwrap().x, 7.0);
    assert!(entity.get_soa::<Body>().is_none());
    let mut query = world.query_mut::<Fields<&mut Pos>>();
    *query.get_mut(a).unwrap().x = 8.0;
    assert_eq!(world.query::<Fields<&Pos>>().get(a).map(|p| *p.x), Ok(8.0));
}

#[test]
fn per_entity_loops_hand_out_each_rows_fields_in_row_order() {
    let (world, _, _) = churn(5, 1500);
    let entities: Vec<Entity> = world.query_filtered::<Entity, With<Pos>>().iter().collect();
    let expected: Vec<Pos> = entities
        .iter()
        .map(|&e| world.get_soa::<Pos>(e).unwrap().get())
        .collect();
    assert!(expected.len() > 50, "{} entities", expected.len());
    let mut by_for_each = Vec::new();
    world
        .query::<Fields<&Pos>>()
        .for_each(|p| by_for_each.push(p.get()));
    assert_eq!(by_for_each, expected);
    let by_fold = world
        .query::<Fields<&Pos>>()
        .iter()
        .fold(Vec::new(), |mut seen, p| {
            seen.push(p.get());
            seen
        });
    assert_eq!(by_fold, expected);
    let mut pairs = Vec::new();
    world
        .query::<(Entity, Fields<&Pos>)>()
        .for_each(|(e, p)| pairs.push((e, p.get())));
    assert_eq!(
        pairs,
        entities.into_iter().zip(expected).collect::<Vec<_>>()
    );
}

#[test]
fn parallel_iteration_and_schedules_equal_sequential_runs() {
    fn step(mut movers: Query<(Fields<&mut Pos>, Fields<&Vel>)>) {
        movers.par_for_each_mut(|(p, v)| {
            *p.x += *v.x;
            *p.y = p.y.mul_add(0.5, *v.y);
        });
    }
    fn spin(mut bodies: Query<(Fields<&mut Body>, Fields<&Pos>)>) {
        bodies.for_each_table_mut(|_, (body, pos)| {
            for i in 0..body.mass.len() {
                body.mass[i] += pos.x[i] as f64;
            }
        });
    }
    let run = |threads: usize, parallel: bool| {
        let (mut world, _, _) = churn(9, 2000);
        let mut schedule = Schedule::<Particles>::new();
        schedule.add(step).add(spin);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for _ in 0..5 {
                if parallel {
                    schedule.force_parallel(Some(true));
                    schedule.run(&mut world);
                } else {
                    schedule.run_sequential(&mut world);
                }
            }
        });
        world.checksum()
    };
    let expected = run(1, false);
    for threads in [1, 2, 4] {
        assert_eq!(run(threads, true), expected, "{threads} threads");
    }
}

#[test]
fn field_items_read_and_write_their_component_for_the_schedule() {
    fn move_vel(mut q: Query<Fields<&mut Vel>>) {
        q.for_each_mut(|v| *v.x += 1.0);
    }
    fn read_pos(q: Query<Fields<&Pos>>) {
        q.for_each(|_| {});
    }
    fn read_vel(q: Query<Fields<&Vel>>) {
        q.for_each(|_| {});
    }
    let mut schedule = Schedule::<Particles>::new();
    schedule.add(move_vel).add(read_pos).add(read_vel);
    let plan = schedule.describe();
    // `read_pos` shares nothing with `move_vel`; `read_vel` reads what it
    // writes, so it waits.
    assert!(plan.contains("stage 1: move_vel, read_pos\n"), "{plan}");
    assert!(plan.contains("stage 2: read_vel\n"), "{plan}");
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Stun(f32);

#[derive(Schema)]
struct Stunned {
    #[ecs(soa)]
    pos: Pos,
    #[ecs(sparse)]
    stun: Stun,
}

#[test]
fn field_items_line_up_with_sparse_items_and_filters() {
    let mut world = World::<Stunned>::new();
    let entities: Vec<Entity> = world.spawn_batch((0..40).map(|i| (pos(i),))).collect();
    // Stun every third entity, out of order, so that the set's dense order
    // is not the rows' and the runs of rows with and without it are short.
    for (n, &e) in entities.iter().enumerate().rev() {
        if n % 3 == 0 {
            world.insert(e, (Stun(n as f32),)).unwrap();
        }
    }
    world
        .query_mut::<(Fields<&mut Pos>, Option<&Stun>)>()
        .for_each_mut(|(p, stun)| *p.z = stun.map_or(-1.0, |s| s.0));
    world
        .query_filtered_mut::<Fields<&mut Pos>, With<Stun>>()
        .for_each_mut(|p| *p.y = 7.0);
    let stunned: Vec<(f32, f32)> = world
        .query::<(Fields<&Pos>, &Stun)>()
        .iter()
        .map(|(p, s)| (*p.x, s.0))
        .collect();
    assert_eq!(stunned.len(), 14);
    assert!(stunned.iter().all(|&(x, s)| x == s));
    for (n, &e) in entities.iter().enumerate() {
        let p = world.get_soa::<Pos>(e).unwrap().get();
        if n % 3 == 0 {
            assert_eq!((p.y, p.z), (7.0, n as f32), "entity {n}");
        } else {
            assert_eq!((p.y, p.z), (2.0 * n as f32, -1.0), "entity {n}");
        }
    }
}

#[test]
fn commands_from_parallel_chunks_carry_whole_values() {
    fn accelerate(mut q: Query<(Entity, Fields<&Pos>)>, mut commands: Commands<Particles>) {
        q.par_for_each_mut_with(&mut commands, |commands, (entity, p)| {
            let i = *p.x as u32;
            commands.insert(entity, (vel(i), body(i)));
        });
    }
    let mut world = World::<Particles>::new();
    let entities: Vec<Entity> = world.spawn_batch((0..5000).map(|i| (pos(i),))).collect();
    let mut schedule = Schedule::<Particles>::new();
    schedule.add(accelerate);
    schedule.run(&mut world);
    for (i, &e) in entities.iter().enumerate() {
        let i = i as u32;
        assert_eq!(world.get_soa::<Vel>(e).map(|v| v.get()), Some(vel(i)));
        assert_eq!(world.get_soa::<Body>(e).map(|b| b.get()), Some(body(i)));
    }
}

#[test]
fn a_cleared_command_buffer_keeps_no_soa_value() {
    // The values of the cleared commands go with them: the next insert
    // recorded gives the entity its own value, not a cleared one.
    let mut world = World::<Particles>::new();
    let e = world.spawn((pos(0),));
    let mut buffer = CommandBuffer::<Particles>::new();
    buffer.insert(e, (pos(1), vel(1)));
    buffer.spawn(&world, (pos(3),));
    buffer.discard(&mut world);
    buffer.insert(e, (pos(2), vel(2)));
    buffer.apply(&mut world);
    assert_eq!(world.len(), 1);
    assert_eq!(world.get_soa::<Pos>(e).map(|p| p.get()), Some(pos(2)));
    assert_eq!(world.get_soa::<Vel>(e).map(|v| v.get()), Some(vel(2)));
}

/// One frame of a population that repeats every 7 frames: SoA entities
/// spawned and despawned last in first out, a component inserted, removed
/// and overwritten (whose old values go to the trash), through the world
/// and through commands.
fn cycle(world: &mut World<Particles>, alive: &mut Vec<Entity>, frame: u32) {
    let target = 50 + 30 * (frame % 7) as usize;
    while alive.len() > target {
        world.despawn(alive.pop().unwrap()).unwrap();
    }
    while alive.len() < target {
        let i = alive.len() as u32;
        alive.push(world.spawn((pos(i), vel(frame))));
    }
    for (n, &e) in alive.iter().enumerate() {
        match (n as u32 + frame) % 3 {
            0 => world.insert(e, (body(frame),)).unwrap(),
            1 => world.insert(e, (pos(frame),)).unwrap(),
            _ => drop(world.remove::<Body>(e).unwrap()),
        }
    }
}

#[test]
fn a_churning_world_of_soa_columns_allocates_nothing_once_warm() {
    let mut world = World::<Particles>::new();
    let mut alive = Vec::new();
    let mut warming = 0;
    let before = allocations();
    for frame in 0..56 {
        cycle(&mut world, &mut alive, frame);
    }
    warming += allocations() - before;
    assert!(warming > 0, "the counter saw the cold world allocate");
    for frame in 56..56 + 28 {
        let before = allocations();
        cycle(&mut world, &mut alive, frame);
        assert_eq!(allocations() - before, 0, "frame {frame}");
    }
}

#[test]
fn clones_and_checksums_are_those_of_the_whole_world() {
    let (mut soa, whole, alive) = churn(5, 2000);
    assert_eq!(soa.checksum(), whole.checksum());
    let copy = soa.clone();
    assert_eq!(copy.checksum(), soa.checksum());
    for &e in &alive {
        assert_eq!(row(&copy, e), row(&soa, e));
    }
    // clone_from onto a world of another shape, then diverge and restore.
    let mut target = churn(6, 500).0;
    target.clone_from(&soa);
    assert_eq!(target.checksum(), soa.checksum());
    soa.query_mut::<Fields<&mut Pos>>()
        .for_each_mut(|p| *p.x += 1.0);
    assert_ne!(soa.checksum(), copy.checksum());
    soa.clone_from(&copy);
    assert_eq!(soa.checksum(), copy.checksum());
}

#[cfg(feature = "serde")]
#[test]
fn a_save_is_that_of_the_whole_world_and_loads_back() {
    let (soa, whole, alive) = churn(7, 2000);
    let soa_json = serde_json::to_value(&soa).unwrap();
    let mut whole_json = serde_json::to_value(&whole).unwrap();
    // The header names the schema; everything else is the same.
    assert_eq!(whole_json[1][0], "Whole");
    whole_json[1][0] = "Particles".into();
    assert_eq!(soa_json, whole_json);
    let bytes = postcard::to_stdvec(&soa).unwrap();
    let loaded: World<Particles> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.checksum(), soa.checksum());
    for &e in &alive {
        assert_eq!(row(&loaded, e), row(&soa, e));
    }
    // A save of the whole world (renamed) loads as the SoA one.
    let from_whole: World<Particles> = serde_json::from_value(whole_json).unwrap();
    assert_eq!(from_whole.checksum(), soa.checksum());
}

/// What a frame of [`tracked_frames`] saw: per frame, the entities whose
/// `Pos` was added, changed and removed since the reader's last run.
type Seen = Vec<(Vec<Entity>, Vec<Entity>, Vec<Entity>)>;

#[derive(Default, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Log(Seen);

#[derive(Default, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Frame(u64);

/// Runs the same frames on a schema with a tracked SoA `Pos` and one with a
/// tracked whole `Pos`: each frame spawns, writes some entities' `Pos` per
/// entity and per table, removes and despawns some, then a reader logs
/// `Added`, `Changed` and `Removed`. Returns each world's log and checksum.
macro_rules! tracked_frames {
    (
        $schema:ident,
        $write:ty,
        one: |$one:ident| $write_one:block,
        table: |$rows:ident| $write_rows:block,
        read: |$world:ident, $entity:ident| $read:expr,
        poke: |$poked:ident, $target:ident| $poke:block $(,)?
    ) => {{
        fn spawn(mut commands: Commands<$schema>, frame: Res<Frame>) {
            let f = frame.0 as u32;
            for i in 0..3 {
                commands.spawn((pos(f * 10 + i), vel(i)));
            }
        }
        fn write_some(mut movers: Query<(Entity, $write)>, all: Query<Entity, With<Vel>>) {
            let picked: Vec<Entity> = all.iter().filter(|e| e.index() % 3 == 0).collect();
            for entity in picked {
                if let Ok((_, $one)) = movers.get_mut(entity) {
                    $write_one
                }
            }
        }
        fn write_every_fourth_frame(mut movers: Query<$write, Without<Frozen>>, frame: Res<Frame>) {
            if frame.0 % 4 == 1 {
                movers.for_each_mut(|$one| $write_one);
            }
        }
        fn write_tables(mut movers: Query<$write, With<Frozen>>) {
            movers.for_each_table_mut(|_, $rows| $write_rows);
        }
        fn churn(q: Query<Entity, With<Vel>>, mut commands: Commands<$schema>, frame: Res<Frame>) {
            for entity in q.iter() {
                match (entity.index() as u64 + frame.0) % 7 {
                    0 => commands.remove::<Pos>(entity),
                    1 => commands.insert(entity, (Frozen,)),
                    2 if frame.0 % 2 == 0 => commands.despawn(entity),
                    3 => commands.insert(entity, (pos(entity.index()),)),
                    _ => {}
                }
            }
        }
        fn read(
            added: Query<Entity, Added<Pos>>,
            changed: Query<Entity, Changed<Pos>>,
            removed: Removed<Pos>,
            mut log: ResMut<Log>,
            mut frame: ResMut<Frame>,
        ) {
            let sorted = |mut v: Vec<Entity>| {
                v.sort();
                v
            };
            log.0.push((
                sorted(added.iter().collect()),
                sorted(changed.iter().collect()),
                sorted(removed.iter().collect()),
            ));
            frame.0 += 1;
        }
        let mut world = World::<$schema>::new();
        let mut schedule = Schedule::<$schema>::new();
        schedule
            .add(spawn)
            .add(write_some)
            .add(write_every_fourth_frame)
            .add(write_tables)
            .add(churn)
            .add(read);
        for _ in 0..12 {
            schedule.run(&mut world);
        }
        // A write to one entity outside the schedule, which the next frame's
        // reader sees as a change.
        let mut ids: Vec<Entity> = world.query_filtered::<Entity, With<Pos>>().iter().collect();
        ids.sort();
        {
            let ($poked, $target) = (&mut world, ids[0]);
            $poke
        }
        schedule.run(&mut world);
        let positions: Vec<(Entity, Pos)> = ids
            .iter()
            .filter_map(|&$entity| {
                let $world = &world;
                Some(($entity, $read?))
            })
            .collect();
        let log = core::mem::take(&mut world.resource_mut::<Log>().0);
        (log, positions, world.checksum())
    }};
}

#[derive(Schema)]
struct TrackedParticles {
    #[ecs(soa, track)]
    pos: Pos,
    #[ecs(soa)]
    vel: Vel,
    frozen: Frozen,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    frame: Frame,
}

#[derive(Schema)]
struct TrackedWhole {
    #[ecs(track)]
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    #[ecs(resource)]
    log: Log,
    #[ecs(resource)]
    frame: Frame,
}

impl StableHash for Log {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        (self.0.len() as u64).stable_hash(hasher);
    }
}

impl StableHash for Frame {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}

#[test]
fn a_tracked_soa_component_records_what_a_tracked_whole_one_does() {
    let (soa_log, soa_positions, soa_sum) = tracked_frames!(
        TrackedParticles,
        Fields<&mut Pos>,
        one: |p| { *p.x += 1.0 },
        table: |rows| {
            for x in rows.x.iter_mut() {
                *x -= 1.0;
            }
        },
        read: |world, e| world.get_soa::<Pos>(e).map(|p| p.get()),
        poke: |world, e| { *world.get_soa_mut::<Pos>(e).unwrap().z = 42.0 },
    );
    let (whole_log, whole_positions, whole_sum) = tracked_frames!(
        TrackedWhole,
        &mut Pos,
        one: |p| { p.x += 1.0 },
        table: |rows| {
            for p in rows.iter_mut() {
                p.x -= 1.0;
            }
        },
        read: |world, e| world.get::<Pos>(e).copied(),
        poke: |world, e| { world.get_mut::<Pos>(e).unwrap().z = 42.0 },
    );
    assert_eq!(soa_log, whole_log);
    assert_eq!(soa_positions, whole_positions);
    assert!(!soa_positions.is_empty());
    assert_eq!(soa_sum, whole_sum);
    // The write outside the schedule is one of the last frame's changes.
    let (_, changed, _) = soa_log.last().unwrap();
    assert!(changed.contains(&soa_positions[0].0));
    assert_eq!(soa_positions[0].1.z, 42.0);
    // The log saw every kind of event.
    assert!(soa_log
        .iter()
        .any(|(a, c, r)| !a.is_empty() && !c.is_empty() && !r.is_empty()));
}

#[cfg(feature = "serde")]
#[test]
fn a_tracked_soa_column_saves_its_ticks() {
    fn nudge(mut q: Query<(Entity, Fields<&mut Pos>)>, all: Query<Entity, With<Vel>>) {
        let picked: Vec<Entity> = all.iter().filter(|e| e.index() % 2 == 0).collect();
        for entity in picked {
            if let Ok((_, p)) = q.get_mut(entity) {
                *p.y += 1.0;
            }
        }
    }
    let mut world = World::<TrackedParticles>::new();
    world.spawn_batch((0..50).map(|i| (pos(i), vel(i))));
    let mut schedule = Schedule::<TrackedParticles>::new();
    schedule.add(nudge);
    schedule.run(&mut world);
    let bytes = postcard::to_stdvec(&world).unwrap();
    let loaded: World<TrackedParticles> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    // The ticks are part of the checksum: a write changes it even where the
    // value ends as it was.
    let mut written = loaded.clone();
    written.advance_change_tick_for_tests(1);
    written
        .query_mut::<Fields<&mut Pos>>()
        .for_each_mut(|p| *p.x += 0.0);
    assert_ne!(written.checksum(), loaded.checksum());
}
