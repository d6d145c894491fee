//! The model test for structural changes made at once inside systems
//! (`SparseMut`, `Spawner`), after their stage (`Migrator`) or when the
//! run ends (`Despawner`), some from the chunks of a parallel loop
//! (`stamp`, `paint`, `expire`), beside commands and
//! plain writes: random worlds and random changes between frames through
//! the `World` API, each frame run by a schedule made to go parallel on a
//! pool (or to flip at random), and mirrored on a plain reference model in
//! program order.

use super::{Model, A, B, C, D};
use crate::Tag;
use ecs::command::{Despawner, Migrator, SparseMut, Spawner};
use ecs::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use support::Rng;

/// What the reference model knows of one entity.
#[derive(Clone, Debug, Default, PartialEq)]
struct Ent {
    a: Option<u32>,
    b: Option<u64>,
    tag: bool,
    c: Option<i16>,
    d: Option<String>,
}

fn observe(world: &World<Model>, e: Entity) -> Ent {
    Ent {
        a: world.get::<A>(e).map(|x| x.0),
        b: world.get::<B>(e).map(|x| x.0),
        tag: world.has::<Tag>(e),
        c: world.get::<C>(e).map(|x| x.0),
        d: world.get::<D>(e).map(|x| x.0.clone()),
    }
}

/// Owned insert, delete and update of the sparse `C` on the entities of
/// its query.
fn burn(with_a: Query<(Entity, &A)>, mut c: SparseMut<Model, C>) {
    for (entity, a) in with_a.iter() {
        match a.0 % 3 {
            0 => {
                c.insert(entity, C((a.0 % 100) as i16)).unwrap();
            }
            1 => {
                c.remove(entity).unwrap();
            }
            _ => {
                if let Some(c) = c.get_mut(entity) {
                    c.0 = c.0.wrapping_add(1);
                }
            }
        }
    }
}

/// The model's `burn`.
fn burn_model(model: &mut BTreeMap<Entity, Ent>) {
    for ent in model.values_mut() {
        let Some(a) = ent.a else { continue };
        match a % 3 {
            0 => ent.c = Some((a % 100) as i16),
            1 => ent.c = None,
            _ => {
                if let Some(c) = &mut ent.c {
                    *c = c.wrapping_add(1);
                }
            }
        }
    }
}

/// Owned insert and delete of the sparse `C` from the chunks of a parallel
/// loop over the entities with `B` (some of them `burn`'s too).
fn stamp(mut with_b: Query<(Entity, &B)>, mut c: SparseMut<Model, C>) {
    with_b.par_for_each_mut_with(&mut c, |c, (entity, b)| match b.0 % 6 {
        2 => c.insert(entity, C(-((b.0 % 50) as i16))).unwrap(),
        3 => c.remove(entity).unwrap(),
        _ => {}
    });
}

/// The model's `stamp`.
fn stamp_model(model: &mut BTreeMap<Entity, Ent>) {
    for ent in model.values_mut() {
        match ent.b {
            Some(b) if b % 6 == 2 => ent.c = Some(-((b % 50) as i16)),
            Some(b) if b % 6 == 3 => ent.c = None,
            _ => {}
        }
    }
}

/// The entities with `B` and without `A`: `light`'s reach, apart from
/// `paint`'s.
type Unarmed = (With<B>, Without<A>);

/// Owned insert and delete of the table tag `Tag` on the entities of its
/// query (a `Migrator`: the rows move after its stage).
fn light(unarmed: Query<(Entity, &B), Unarmed>, mut tag: Migrator<Model, Tag, Unarmed>) {
    for (entity, b) in unarmed.iter() {
        match b.0 % 4 {
            0 => tag.insert(entity, Tag).unwrap(),
            1 => tag.remove(entity).unwrap(),
            _ => {}
        }
    }
}

/// The model's `light`.
fn light_model(model: &mut BTreeMap<Entity, Ent>) {
    for ent in model.values_mut() {
        match (ent.a, ent.b) {
            (None, Some(b)) if b % 4 == 0 => ent.tag = true,
            (None, Some(b)) if b % 4 == 1 => ent.tag = false,
            _ => {}
        }
    }
}

/// Owned insert (over an old value too) and delete of the table component
/// `D`, whose values drop, on the entities with `A`, from the chunks of a
/// parallel loop (the paper's `conc`).
fn paint(mut armed: Query<(Entity, &A)>, mut d: Migrator<Model, D, With<A>>) {
    armed.par_for_each_mut_with(&mut d, |d, (entity, a)| match a.0 % 7 {
        0 => d.insert(entity, D(format!("p{}", a.0 % 10))).unwrap(),
        1 => d.remove(entity).unwrap(),
        _ => {}
    });
}

/// The model's `paint`.
fn paint_model(model: &mut BTreeMap<Entity, Ent>) {
    for ent in model.values_mut() {
        match ent.a {
            Some(a) if a % 7 == 0 => ent.d = Some(format!("p{}", a % 10)),
            Some(a) if a % 7 == 1 => ent.d = None,
            _ => {}
        }
    }
}

/// Grows every `D` (a plain write, beside the others).
fn grow(mut d: Query<&mut D>) {
    d.for_each_mut(|d| d.0.push('+'));
}

/// Despawns, from the chunks of a parallel loop, the entities whose `A` is
/// 7 mod 10 and that have no `B`, when the run ends (owned delete through a
/// `Despawner`): the later systems of the run still see them.
fn expire(mut with_a: Query<(Entity, &A), Without<B>>, mut despawner: Despawner<Model>) {
    with_a.par_for_each_mut_with(&mut despawner, |despawner, (entity, a)| {
        if a.0 % 10 == 7 {
            despawner.despawn(entity);
        }
    });
}

/// The model's `expire`: the entities it despawns when the frame ends.
fn expire_model(model: &BTreeMap<Entity, Ent>, doomed: &mut Vec<Entity>) {
    doomed.extend(
        model
            .iter()
            .filter(|(_, ent)| ent.b.is_none() && ent.a.is_some_and(|a| a % 10 == 7))
            .map(|(&e, _)| e),
    );
}

/// Despawns through commands what grew too long.
fn cull(d: Query<(Entity, &D)>, mut commands: Commands<Model>) {
    for (entity, d) in d.iter() {
        if d.0.len() > 12 {
            commands.despawn(entity);
        }
    }
}

/// The ids and `A` values the spawner gave, in spawn order; and how many
/// entities with `A` the last system saw.
type Spawned = Arc<Mutex<Vec<(Entity, u32)>>>;
type Census = Arc<Mutex<Vec<usize>>>;

/// A schedule of `burn`, `stamp`, a spawner of `(A, Tag)` for every `B`
/// divisible by 5 (owned initialize: its query reads `B`, not its table),
/// `light`, `paint`, `grow`, `cull` and `expire`, in an order chosen by
/// `order`, then `census`, which counts the entities with `A` (those
/// `expire` despawns among them: the run has not ended).
fn schedule(order: u64, spawned: &Spawned, census: &Census) -> Schedule<Model> {
    let counts = Arc::clone(census);
    let census = move |with_a: Query<&A>| counts.lock().unwrap().push(with_a.iter().count());
    let log = Arc::clone(spawned);
    let emit = move |with_b: Query<&B>, mut spawner: Spawner<Model, (A, Tag)>| {
        let mut log = log.lock().unwrap();
        for b in with_b.iter() {
            if b.0 % 5 == 0 {
                let a = (b.0 % 1000) as u32;
                log.push((spawner.spawn((A(a), Tag)), a));
            }
        }
    };
    let mut schedule = Schedule::new();
    match order % 3 {
        0 => schedule
            .add(burn)
            .add(stamp)
            .add(light)
            .add(emit)
            .add(grow)
            .add(expire)
            .add(paint)
            .add(cull),
        1 => schedule
            .add(expire)
            .add(emit)
            .add(paint)
            .add(grow)
            .add(burn)
            .add(light)
            .add(stamp)
            .add(cull),
        _ => schedule
            .add(stamp)
            .add(grow)
            .add(cull)
            .add(light)
            .add(emit)
            .add(paint)
            .add(burn)
            .add(expire),
    };
    schedule.add_named("census", census);
    schedule
}

/// Mirrors one frame of [`schedule`] on the model, in program order; the
/// spawner's ids are those the world reported, checked to be new. Returns
/// how many entities `expire` despawned.
fn frame_model(
    order: u64,
    model: &mut BTreeMap<Entity, Ent>,
    spawned: &[(Entity, u32)],
    census: &[usize],
) -> usize {
    let emit = |model: &mut BTreeMap<Entity, Ent>| {
        let mut expected: Vec<u32> = model
            .values()
            .filter_map(|ent| ent.b)
            .filter(|b| b % 5 == 0)
            .map(|b| (b % 1000) as u32)
            .collect();
        let mut got: Vec<u32> = spawned.iter().map(|&(_, a)| a).collect();
        expected.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, expected, "the spawner's bundles");
        for &(e, a) in spawned {
            let fresh = Ent {
                a: Some(a),
                tag: true,
                ..Ent::default()
            };
            assert!(model.insert(e, fresh).is_none(), "{e:?} handed out twice");
        }
    };
    let grow = |model: &mut BTreeMap<Entity, Ent>| {
        for d in model.values_mut().filter_map(|ent| ent.d.as_mut()) {
            d.push('+');
        }
    };
    let cull = |model: &mut BTreeMap<Entity, Ent>| {
        model.retain(|_, ent| ent.d.as_ref().is_none_or(|d| d.len() <= 12));
    };
    let mut doomed = Vec::new();
    match order % 3 {
        0 => {
            burn_model(model);
            stamp_model(model);
            light_model(model);
            emit(model);
            grow(model);
            expire_model(model, &mut doomed);
            paint_model(model);
            cull(model);
        }
        1 => {
            expire_model(model, &mut doomed);
            emit(model);
            paint_model(model);
            grow(model);
            burn_model(model);
            light_model(model);
            stamp_model(model);
            cull(model);
        }
        _ => {
            stamp_model(model);
            grow(model);
            cull(model);
            light_model(model);
            emit(model);
            paint_model(model);
            burn_model(model);
            expire_model(model, &mut doomed);
        }
    }
    let with_a = model.values().filter(|ent| ent.a.is_some()).count();
    assert_eq!(census, [with_a], "the last system's census");
    // The end of the run: what is still alive of `expire`'s goes.
    doomed
        .into_iter()
        .filter(|e| model.remove(e).is_some())
        .count()
}

/// Random changes through the `World` API, mirrored on the model.
fn shuffle(rng: &mut Rng, world: &mut World<Model>, model: &mut BTreeMap<Entity, Ent>) {
    for _ in 0..rng.below(40) {
        let live: Vec<Entity> = model.keys().copied().collect();
        match rng.below(6) {
            0 | 1 => {
                let a = rng.below(1000) as u32;
                let b = rng.below(100);
                let (e, ent) = match rng.below(3) {
                    0 => (
                        world.spawn((A(a),)),
                        Ent {
                            a: Some(a),
                            ..Ent::default()
                        },
                    ),
                    1 => (
                        world.spawn((B(b), D(format!("d{a}")))),
                        Ent {
                            b: Some(b),
                            d: Some(format!("d{a}")),
                            ..Ent::default()
                        },
                    ),
                    _ => (
                        world.spawn((A(a), B(b), C(3))),
                        Ent {
                            a: Some(a),
                            b: Some(b),
                            c: Some(3),
                            ..Ent::default()
                        },
                    ),
                };
                assert!(model.insert(e, ent).is_none());
            }
            2 if !live.is_empty() => {
                let e = *rng.pick(&live);
                world.despawn(e).unwrap();
                model.remove(&e);
            }
            3 if !live.is_empty() => {
                let e = *rng.pick(&live);
                let a = rng.below(1000) as u32;
                world.insert(e, (A(a),)).unwrap();
                model.get_mut(&e).unwrap().a = Some(a);
            }
            4 if !live.is_empty() => {
                let e = *rng.pick(&live);
                world.insert(e, (Tag,)).unwrap();
                model.get_mut(&e).unwrap().tag = true;
            }
            _ if !live.is_empty() => {
                let e = *rng.pick(&live);
                world.remove::<C>(e).unwrap();
                model.get_mut(&e).unwrap().c = None;
            }
            _ => {}
        }
    }
}

fn check(world: &World<Model>, model: &BTreeMap<Entity, Ent>, ctx: &str) {
    assert_eq!(world.len(), model.len(), "{ctx}: len");
    for (&e, ent) in model {
        assert_eq!(&observe(world, e), ent, "{ctx}: {e:?}");
    }
}

/// One seed: `frames` frames on a pool of `threads`, the executor forced
/// parallel or flipping at random.
pub fn run(seed: u64, frames: usize, threads: usize, flip: bool) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut rng = Rng::new(seed);
    let mut world = World::<Model>::new();
    let mut model = BTreeMap::new();
    let spawned: Spawned = Arc::default();
    let census: Census = Arc::default();
    let order = rng.below(3);
    let mut schedule = schedule(order, &spawned, &census);
    let (mut total_spawned, mut total_burning, mut total_painted, mut total_stamped) = (0, 0, 0, 0);
    let mut total_expired = 0;
    for frame in 0..frames {
        let ctx = format!("seed {seed:#x}, {threads} threads, order {order}, frame {frame}");
        shuffle(&mut rng, &mut world, &mut model);
        check(&world, &model, &ctx);
        let choice = if flip {
            [None, Some(true), Some(false)][rng.below(3) as usize]
        } else {
            Some(true)
        };
        pool.install(|| schedule.force_parallel(choice).run(&mut world));
        let made = std::mem::take(&mut *spawned.lock().unwrap());
        total_spawned += made.len();
        let counted = std::mem::take(&mut *census.lock().unwrap());
        total_expired += frame_model(order, &mut model, &made, &counted);
        check(&world, &model, &ctx);
        total_burning += model.values().filter(|ent| ent.c.is_some()).count();
        total_stamped += model
            .values()
            .filter(|ent| ent.c.is_some_and(|c| c < 0))
            .count();
        total_painted += model
            .values()
            .filter(|ent| ent.d.as_ref().is_some_and(|d| d.starts_with('p')))
            .count();
    }
    // Not vacuous: the spawner spawned, `C` came and went, `stamp` stamped,
    // `paint` painted, `expire` despawned.
    assert!(
        total_spawned > 0
            && total_burning > 0
            && total_stamped > 0
            && total_painted > 0
            && total_expired > 0,
        "seed {seed:#x}"
    );
}
