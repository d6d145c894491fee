//! The schedule's promise: `Schedule::run` gives the same world, bit for bit,
//! as running the systems one after another in program order, with any
//! number of threads.
//!
//! Each seed builds a random world, then runs the same eight systems
//! (conflicting and disjoint ones, commands recorded sequentially and from
//! parallel chunks, resources, an exclusive system) for many frames several
//! ways: a hand-written sequential version that calls the `World` API
//! directly, `Schedule::run_sequential`, and `Schedule::run` on rayon pools
//! of 1, 2 and 4 threads, with the executor deciding for itself, made to
//! hand every stage to the pool, or made to change its mind at random from
//! frame to frame. After every frame, a checksum over every entity id and
//! every component and resource value, in iteration order, must be the same
//! for all of them. Replay one seed with `ECS_DETERMINISM_SEED=<n>`.
//!
//! The last tests give the executor a reason of its own to change its mind:
//! systems whose work grows a thousandfold and shrinks again, so that their
//! stage runs on the calling thread, then on the pool, then on the calling
//! thread again.

use ecs::prelude::*;

use ecs::command::SparseMut;
use support::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos {
    x: f64,
    y: f64,
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel {
    x: f64,
    y: f64,
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Health(i32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Energy(f32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Age(u32);
#[derive(Debug, PartialEq)]
struct Frozen;
#[derive(Debug, PartialEq)]
struct Shield;
/// The entity a spawned follower follows: an id that `Commands::spawn`
/// returned before the leader existed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link(Entity);

/// Sparse and tracked: set, cleared and written at once by `ignite`
/// through `SparseMut`, while other systems run.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Burn(u32);

#[derive(Debug, Default, PartialEq)]
struct Tick(u64);
/// What `embers` saw of `Burn`'s additions and removals.
#[derive(Debug, Default, PartialEq)]
struct Ash(u64);
/// The systems' own random numbers (an LCG), so that spawns differ per frame.
#[derive(Debug, Default, PartialEq)]
struct Dice(u64);
#[derive(Debug, Default, PartialEq)]
struct Stats {
    alive: u64,
    frozen: u64,
    health: i64,
    energy: f64,
    spread: f64,
}

#[derive(Schema)]
struct Sim {
    pos: Pos,
    vel: Vel,
    health: Health,
    energy: Energy,
    age: Age,
    frozen: Frozen,
    shield: Shield,
    link: Link,
    #[ecs(sparse, track)]
    burn: Burn,
    #[ecs(resource)]
    tick: Tick,
    #[ecs(resource)]
    ash: Ash,
    #[ecs(resource)]
    dice: Dice,
    #[ecs(resource)]
    stats: Stats,
}

const SEEDS: [u64; 6] = [1, 2, 3, 0xdead_beef, 0x5eed_0005, 42_424_242];
const FRAMES: usize = 40;

impl Dice {
    fn roll(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

// ---- the systems -------------------------------------------------------

fn inertia(mut movers: Query<(&mut Pos, &Vel), Without<Frozen>>) {
    movers.par_for_each_mut(|(pos, vel)| {
        pos.x += vel.x * 0.5;
        pos.y += vel.y * 0.5;
    });
}

/// Owned insert, delete and update of a sparse component on the entities
/// of its own query, and deferred insert on entities named by `Link`, all
/// applied at once: shares a stage with `combat`, which records commands.
fn ignite(ages: Query<(Entity, &Age)>, links: Query<&Link>, mut burn: SparseMut<Sim, Burn>) {
    for (entity, age) in ages.iter() {
        match age.0 % 7 {
            3 => {
                burn.insert(entity, Burn(age.0)).unwrap();
            }
            5 => {
                burn.remove(entity).unwrap();
            }
            _ => {
                if let Some(burn) = burn.get_mut(entity) {
                    burn.0 += 1;
                }
            }
        }
    }
    for link in links.iter() {
        // The leader may be dead: then nothing happens.
        let _ = burn.insert(link.0, Burn(99));
    }
}

/// Reads what `ignite` (and despawns) did to the tracked `Burn`.
fn embers(gone: Removed<Burn>, fresh: Query<(Entity, &Burn), Added<Burn>>, mut ash: ResMut<Ash>) {
    for entity in gone.iter() {
        ash.0 = ash.0.wrapping_mul(31).wrapping_add(entity.to_bits());
    }
    for (entity, burn) in fresh.iter() {
        ash.0 = ash.0.wrapping_mul(37) ^ (entity.to_bits() + u64::from(burn.0));
    }
}

/// Disjoint from `inertia` (With against Without), so they share a stage.
fn friction(mut frozen: Query<&mut Vel, With<Frozen>>) {
    frozen.for_each_mut(|vel| {
        vel.x *= 0.75;
        vel.y *= 0.75;
    });
}

fn aging(mut ages: Query<&mut Age>, mut tick: ResMut<Tick>) {
    ages.for_each_mut(|age| age.0 += 1);
    tick.0 += 1;
}

/// Waits for `inertia` (reads the Pos it writes).
fn combat(
    mut fighters: Query<(Entity, &Pos, &mut Health), Without<Shield>>,
    mut commands: Commands<Sim>,
) {
    for (entity, pos, health) in fighters.iter_mut() {
        health.0 -= (pos.x.abs() + pos.y.abs()) as i32 % 7;
        if health.0 <= 0 {
            commands.despawn(entity);
        }
        if pos.x.abs() > 40.0 {
            commands.insert(entity, (Frozen,));
        }
    }
}

/// Observes nothing, so it may run early; its commands still come after
/// `combat`'s.
fn spawner(tick: Res<Tick>, mut dice: ResMut<Dice>, mut commands: Commands<Sim>) {
    if tick.0 % 3 != 0 {
        return;
    }
    for _ in 0..dice.roll(12) {
        let x = dice.roll(100) as f64 - 50.0;
        let pos = Pos { x, y: x * 0.5 };
        match dice.roll(4) {
            0 => commands.spawn((pos,)),
            1 => commands.spawn((pos, Vel { x: 1.0, y: -1.0 }, Health(30))),
            2 => commands.spawn((pos, Health(10), Energy(0.5), Age(0))),
            _ => {
                let leader = commands.spawn((pos, Vel { x: -2.0, y: 0.5 }, Age(3), Shield));
                commands.spawn((pos, Link(leader)))
            }
        };
    }
}

/// Records commands from parallel chunks.
fn energy(mut charged: Query<(Entity, &mut Energy, &Age)>, mut commands: Commands<Sim>) {
    charged.par_for_each_mut_with(&mut commands, |commands, (entity, energy, age)| {
        energy.0 += age.0 as f32 * 0.01;
        if energy.0 > 3.0 {
            energy.0 = 0.0;
            commands.insert(entity, (Shield, Health(25)));
        }
        if age.0 % 17 == 0 {
            commands.remove::<Shield>(entity);
        }
    });
}

/// What `stats` reads of each entity. (A query type can be named once and
/// reused; its lifetimes are `'static` and the items still borrow the world.)
type Census = (
    &'static Pos,
    Option<&'static Health>,
    Option<&'static Energy>,
    Has<Frozen>,
);

fn stats(everyone: Query<Census>, mut stats: ResMut<Stats>) {
    let mut next = Stats::default();
    for (pos, health, energy, frozen) in everyone.iter() {
        next.alive += 1;
        next.frozen += u64::from(frozen);
        next.health += health.map_or(0, |h| i64::from(h.0));
        next.energy += energy.map_or(0.0, |e| f64::from(e.0));
        next.spread += pos.x * pos.x + pos.y * pos.y;
    }
    *stats = next;
}

/// Exclusive: every fifth tick, despawns the old and thaws the slow.
fn cull(world: &mut World<Sim>) {
    if world.resource::<Tick>().0 % 5 != 0 {
        return;
    }
    let old: Vec<Entity> = world
        .query::<(Entity, &Age)>()
        .iter()
        .filter(|(_, age)| age.0 > 30)
        .map(|(entity, _)| entity)
        .collect();
    for entity in old {
        world.despawn(entity).unwrap();
    }
    let slow: Vec<Entity> = world
        .query_filtered::<(Entity, &Vel), With<Frozen>>()
        .iter()
        .filter(|(_, vel)| vel.x.abs() < 0.5)
        .map(|(entity, _)| entity)
        .collect();
    for entity in slow {
        world.remove::<Frozen>(entity).unwrap();
        world.insert(entity, (Vel { x: 0.0, y: 1.0 },)).unwrap();
    }
}

fn schedule() -> Schedule<Sim> {
    let mut schedule = Schedule::new();
    schedule
        .add(inertia)
        .add(friction)
        .add(aging)
        .add(ignite)
        .add(combat)
        .add(spawner)
        .add(energy)
        .add(stats)
        .add(embers)
        .add(cull);
    schedule
}

// ---- the same frame, written by hand against the World API -------------

fn frame_by_hand(world: &mut World<Sim>) {
    // inertia
    world
        .query_filtered_mut::<(&mut Pos, &Vel), Without<Frozen>>()
        .for_each_mut(|(pos, vel)| {
            pos.x += vel.x * 0.5;
            pos.y += vel.y * 0.5;
        });
    // friction
    world
        .query_filtered_mut::<&mut Vel, With<Frozen>>()
        .for_each_mut(|vel| {
            vel.x *= 0.75;
            vel.y *= 0.75;
        });
    // aging
    world.query_mut::<&mut Age>().for_each_mut(|age| age.0 += 1);
    world.resource_mut::<Tick>().0 += 1;
    // ignite
    let ages: Vec<(Entity, u32)> = world
        .query::<(Entity, &Age)>()
        .iter()
        .map(|(entity, age)| (entity, age.0))
        .collect();
    for (entity, age) in ages {
        match age % 7 {
            3 => {
                world.insert(entity, (Burn(age),)).unwrap();
            }
            5 => {
                world.remove::<Burn>(entity).unwrap();
            }
            _ => {
                if let Some(burn) = world.get_mut::<Burn>(entity) {
                    burn.0 += 1;
                }
            }
        }
    }
    let leaders: Vec<Entity> = world.query::<&Link>().iter().map(|link| link.0).collect();
    for leader in leaders {
        let _ = world.insert(leader, (Burn(99),));
    }
    // combat, its structural changes applied after the loop, in order
    let mut despawn = Vec::new();
    let mut freeze = Vec::new();
    let mut order = Vec::new();
    for (entity, pos, health) in world
        .query_filtered_mut::<(Entity, &Pos, &mut Health), Without<Shield>>()
        .iter_mut()
    {
        health.0 -= (pos.x.abs() + pos.y.abs()) as i32 % 7;
        if health.0 <= 0 {
            despawn.push(entity);
            order.push((entity, true));
        }
        if pos.x.abs() > 40.0 {
            freeze.push(entity);
            order.push((entity, false));
        }
    }
    for (entity, is_despawn) in order {
        if is_despawn {
            let _ = world.despawn(entity);
        } else {
            let _ = world.insert(entity, (Frozen,));
        }
    }
    // spawner
    if world.resource::<Tick>().0 % 3 == 0 {
        let dice = world.resource_mut::<Dice>();
        let mut bundles = Vec::new();
        for _ in 0..dice.roll(12) {
            let x = dice.roll(100) as f64 - 50.0;
            bundles.push((dice.roll(4), Pos { x, y: x * 0.5 }));
        }
        for (kind, pos) in bundles {
            match kind {
                0 => world.spawn((pos,)),
                1 => world.spawn((pos, Vel { x: 1.0, y: -1.0 }, Health(30))),
                2 => world.spawn((pos, Health(10), Energy(0.5), Age(0))),
                _ => {
                    let leader = world.spawn((pos, Vel { x: -2.0, y: 0.5 }, Age(3), Shield));
                    world.spawn((pos, Link(leader)))
                }
            };
        }
    }
    // energy
    let mut changes = Vec::new();
    for (entity, energy, age) in world.query_mut::<(Entity, &mut Energy, &Age)>().iter_mut() {
        energy.0 += age.0 as f32 * 0.01;
        if energy.0 > 3.0 {
            energy.0 = 0.0;
            changes.push((entity, true));
        }
        if age.0 % 17 == 0 {
            changes.push((entity, false));
        }
    }
    for (entity, shield) in changes {
        if shield {
            let _ = world.insert(entity, (Shield, Health(25)));
        } else {
            let _ = world.remove::<Shield>(entity);
        }
    }
    // stats
    let mut next = Stats::default();
    for (pos, health, energy, frozen) in world.query::<Census>().iter() {
        next.alive += 1;
        next.frozen += u64::from(frozen);
        next.health += health.map_or(0, |h| i64::from(h.0));
        next.energy += energy.map_or(0.0, |e| f64::from(e.0));
        next.spread += pos.x * pos.x + pos.y * pos.y;
    }
    *world.resource_mut::<Stats>() = next;
    // embers (`Burn` is the only tracked component: the world's own window
    // since the last `clear_trackers` is the system's since its last run)
    let gone: Vec<Entity> = world.removed::<Burn>().collect();
    let fresh: Vec<(Entity, u32)> = world
        .query_filtered::<(Entity, &Burn), Added<Burn>>()
        .iter()
        .map(|(entity, burn)| (entity, burn.0))
        .collect();
    let ash = &mut world.resource_mut::<Ash>().0;
    for entity in gone {
        *ash = ash.wrapping_mul(31).wrapping_add(entity.to_bits());
    }
    for (entity, burn) in fresh {
        *ash = ash.wrapping_mul(37) ^ (entity.to_bits() + u64::from(burn));
    }
    world.clear_trackers();
    // cull
    cull(world);
}

// ---- worlds and checksums ----------------------------------------------

fn random_world(seed: u64) -> World<Sim> {
    let mut rng = Rng::new(seed);
    let mut world = World::<Sim>::new();
    world.resource_mut::<Dice>().0 = seed;
    let count = 300 + rng.below(1200);
    for _ in 0..count {
        let entity = world.spawn((Pos {
            x: rng.below(80) as f64 - 40.0,
            y: rng.below(80) as f64 - 40.0,
        },));
        if rng.chance(3, 4) {
            let vel = Vel {
                x: rng.below(9) as f64 - 4.0,
                y: rng.below(9) as f64 - 4.0,
            };
            world.insert(entity, (vel,)).unwrap();
        }
        if rng.chance(2, 3) {
            world
                .insert(entity, (Health(5 + rng.below(60) as i32),))
                .unwrap();
        }
        if rng.chance(1, 2) {
            world
                .insert(
                    entity,
                    (
                        Energy(rng.below(30) as f32 * 0.1),
                        Age(rng.below(20) as u32),
                    ),
                )
                .unwrap();
        }
        if rng.chance(1, 6) {
            world.insert(entity, (Frozen,)).unwrap();
        }
        if rng.chance(1, 8) {
            world.insert(entity, (Shield,)).unwrap();
        }
        if rng.chance(1, 10) {
            world.despawn(entity).unwrap();
        }
    }
    world
}

/// FNV-1a over every entity id and every component value (as bits), in
/// iteration order, then the resources.
fn checksum(world: &World<Sim>) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |word: u64| {
        for byte in word.to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for entity in world.iter() {
        mix(entity.to_bits());
        mix(u64::from(world.archetype(entity).unwrap().bits()));
        if let Some(pos) = world.get::<Pos>(entity) {
            mix(pos.x.to_bits());
            mix(pos.y.to_bits());
        }
        if let Some(vel) = world.get::<Vel>(entity) {
            mix(vel.x.to_bits());
            mix(vel.y.to_bits());
        }
        if let Some(health) = world.get::<Health>(entity) {
            mix(health.0 as u64);
        }
        if let Some(energy) = world.get::<Energy>(entity) {
            mix(u64::from(energy.0.to_bits()));
        }
        if let Some(age) = world.get::<Age>(entity) {
            mix(u64::from(age.0));
        }
        if let Some(link) = world.get::<Link>(entity) {
            mix(link.0.to_bits());
        }
        if let Some(burn) = world.get::<Burn>(entity) {
            mix(u64::from(burn.0));
        }
    }
    mix(world.resource::<Ash>().0);
    mix(world.resource::<Tick>().0);
    mix(world.resource::<Dice>().0);
    let stats = world.resource::<Stats>();
    mix(stats.alive);
    mix(stats.frozen);
    mix(stats.health as u64);
    mix(stats.energy.to_bits());
    mix(stats.spread.to_bits());
    hash
}

/// The checksum after each frame, run by hand.
fn by_hand(seed: u64) -> Vec<u64> {
    let mut world = random_world(seed);
    (0..FRAMES)
        .map(|_| {
            frame_by_hand(&mut world);
            checksum(&world)
        })
        .collect()
}

/// How a test has the executor choose, for [`scheduled`].
#[derive(Clone, Copy, Debug)]
enum Executor {
    /// `run_sequential`.
    Sequential,
    /// `run`, left to decide from its measurements.
    Adaptive,
    /// `run`, every stage of several systems handed to the pool.
    Parallel,
    /// `run`, each frame made to go parallel, inline, or decide, at random
    /// (seeded).
    Flipping(u64),
}

/// The checksum after each frame, run by the schedule on a pool of
/// `threads` threads.
fn scheduled(seed: u64, threads: usize, executor: Executor) -> Vec<u64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = random_world(seed);
    let mut schedule = schedule();
    let mut flips = Rng::new(match executor {
        Executor::Flipping(seed) => seed,
        _ => 0,
    });
    let mut frames = Vec::new();
    for _ in 0..FRAMES {
        pool.install(|| match executor {
            Executor::Sequential => schedule.run_sequential(&mut world),
            Executor::Adaptive => schedule.force_parallel(None).run(&mut world),
            Executor::Parallel => schedule.force_parallel(Some(true)).run(&mut world),
            Executor::Flipping(_) => {
                let choice = [None, Some(true), Some(false)][flips.below(3) as usize];
                schedule.force_parallel(choice).run(&mut world)
            }
        });
        frames.push(checksum(&world));
    }
    frames
}

fn seeds() -> Vec<u64> {
    match std::env::var("ECS_DETERMINISM_SEED") {
        Ok(seed) => vec![seed.parse().expect("ECS_DETERMINISM_SEED must be a u64")],
        Err(_) => SEEDS.to_vec(),
    }
}

/// Panics at the first frame where `got` differs from `expected`.
fn assert_same_frames<T: PartialEq>(got: &[T], expected: &[T], what: &str) {
    assert_eq!(got.len(), expected.len());
    if let Some(frame) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!("{what} differs from program order from frame {frame} on");
    }
}

#[test]
fn parallel_runs_equal_program_order_on_any_number_of_threads() {
    for seed in seeds() {
        let expected = by_hand(seed);
        let what = format!("seed {seed}: run_sequential");
        assert_same_frames(&scheduled(seed, 1, Executor::Sequential), &expected, &what);
        for threads in [1, 2, 4] {
            for executor in [Executor::Adaptive, Executor::Parallel] {
                let what = format!("seed {seed}: run on {threads} threads, {executor:?}");
                let frames = scheduled(seed, threads, executor);
                assert_same_frames(&frames, &expected, &what);
            }
        }
    }
}

#[test]
fn runs_equal_program_order_when_the_executor_changes_its_mind_every_frame() {
    for seed in seeds() {
        let expected = by_hand(seed);
        for threads in [1, 2, 4] {
            let executor = Executor::Flipping(seed ^ threads as u64);
            let what = format!("seed {seed}: run on {threads} threads, {executor:?}");
            assert_same_frames(&scheduled(seed, threads, executor), &expected, &what);
        }
    }
}

#[test]
fn the_runs_compared_are_not_trivial() {
    // The checksums above would agree vacuously if nothing happened; make
    // sure the worlds change, structurally too, and that the schedule has
    // stages where systems really run together.
    let plan = schedule().describe();
    assert!(
        plan.contains("stage 1: inertia, friction, aging\n"),
        "{plan}"
    );
    // Owned and deferred structural change of a sparse component, applied
    // at once beside a system that records commands.
    assert!(plan.contains("stage 2: ignite, combat\n"), "{plan}");
    assert!(plan.contains("stage 5: stats, embers\n"), "{plan}");
    // spawner observes no entity, but the ids its spawns reserve depend on
    // what combat's commands free: it runs once they are applied.
    assert!(
        plan.contains("spawner waits for combat: spawner reserves entity ids after combat's"),
        "{plan}"
    );
    for seed in seeds() {
        let mut world = random_world(seed);
        let before = world.len();
        let tables_before = world.describe().tables.len();
        let first = checksum(&world);
        let mut schedule = schedule();
        let mut spawned_or_despawned = false;
        for _ in 0..FRAMES {
            let len = world.len();
            schedule.run(&mut world);
            spawned_or_despawned |= world.len() != len;
        }
        assert_ne!(checksum(&world), first, "seed {seed}");
        assert!(
            spawned_or_despawned,
            "seed {seed}: {before} entities never changed"
        );
        assert!(world.describe().tables.len() > tables_before, "seed {seed}");
        assert!(world.resource::<Stats>().frozen > 0, "seed {seed}");
        assert!(world.query::<&Burn>().count() > 0, "seed {seed}");
        assert_ne!(world.resource::<Ash>().0, 0, "seed {seed}");
        // Followers name leaders spawned in the same system run.
        let links = world.query::<&Link>();
        assert!(links.count() > 0, "seed {seed}");
        for link in links.iter() {
            assert!(
                !world.is_alive(link.0) || world.has::<Age>(link.0),
                "seed {seed}: a follower names {:?}, which is not a leader",
                link.0
            );
        }
    }
}

// ---- work that grows and shrinks ---------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
struct Left(u64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Right(u64);
#[derive(Debug, PartialEq)]
struct Mark;
/// The frame number, which sets how much work the grinders do.
#[derive(Debug, Default, PartialEq)]
struct Frame(u64);
/// One hash of the world per frame, written by `tally`.
#[derive(Debug, Default, PartialEq)]
struct Tallies(Vec<u64>);

#[derive(Schema)]
struct Load {
    left: Left,
    right: Right,
    mark: Mark,
    #[ecs(resource)]
    frame: Frame,
    #[ecs(resource)]
    tallies: Tallies,
}

const LOAD_FRAMES: u64 = 20;

/// The frames in which the grinders work hard.
const HEAVY: core::ops::Range<u64> = 3..15;

/// Rounds of mixing per entity in frame `frame`: one outside [`HEAVY`],
/// 4,000 in it, so the grinders' stage costs a few microseconds, then a
/// millisecond or more (far more than a hand-off, in debug and release
/// builds alike), then microseconds again.
fn rounds(frame: u64) -> u64 {
    if HEAVY.contains(&frame) {
        4_000
    } else {
        1
    }
}

fn mix(mut x: u64, rounds: u64) -> u64 {
    for _ in 0..rounds {
        x ^= x >> 31;
        x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    x
}

/// Shares a stage with `grind_right`, added before it; its commands are
/// applied after both.
fn grind_left(mut q: Query<(Entity, &mut Left)>, frame: Res<Frame>, mut commands: Commands<Load>) {
    for (entity, left) in q.iter_mut() {
        left.0 = mix(left.0, rounds(frame.0));
        if left.0 % 5 == 0 {
            commands.insert(entity, (Mark,));
        } else if left.0 % 5 == 1 {
            commands.remove::<Mark>(entity);
        }
    }
}

fn grind_right(mut q: Query<&mut Right>, frame: Res<Frame>) {
    q.for_each_mut(|right| right.0 = mix(right.0, rounds(frame.0)));
}

fn advance(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

fn tally(q: Query<(&Left, &Right, Has<Mark>)>, mut tallies: ResMut<Tallies>) {
    let mut hash = 0;
    for (left, right, marked) in q.iter() {
        hash = mix(
            hash ^ left.0 ^ right.0.rotate_left(17) ^ u64::from(marked),
            1,
        );
    }
    tallies.0.push(hash);
}

fn load_world() -> World<Load> {
    let mut world = World::<Load>::new();
    world.spawn_batch((0..50u64).map(|i| (Left(i), Right(i * 3))));
    world.spawn_batch((0..50u64).map(|i| (Left(i + 7), Right(i), Mark)));
    world
}

fn load_schedule() -> Schedule<Load> {
    let mut schedule = Schedule::new();
    // grind_right first: grind_left's commands would make any later
    // query wait for them.
    schedule
        .add(grind_right)
        .add(grind_left)
        .add(advance)
        .add(tally);
    schedule
}

/// Whether the grinders' stage ran on the pool in the last run.
fn grinders_ran_in_parallel(schedule: &Schedule<Load>) -> bool {
    let described = schedule.describe();
    let line = described
        .lines()
        .find(|line| line.contains("stage 1: grind_right, grind_left ("))
        .unwrap_or_else(|| panic!("no stage of the grinders in\n{described}"));
    line.contains("(parallel last run: ")
}

#[test]
fn runs_equal_program_order_when_growing_work_makes_a_stage_go_parallel_and_back() {
    let mut world = load_world();
    let mut schedule = load_schedule();
    for _ in 0..LOAD_FRAMES {
        schedule.run_sequential(&mut world);
    }
    let expected = world.resource::<Tallies>().0.clone();
    assert_eq!(expected.len(), LOAD_FRAMES as usize);

    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut world = load_world();
        let mut schedule = load_schedule();
        let mut parallel = Vec::new();
        for _ in 0..LOAD_FRAMES {
            pool.install(|| schedule.run(&mut world));
            parallel.push(grinders_ran_in_parallel(&schedule));
        }
        assert_eq!(world.resource::<Tallies>().0, expected, "{threads} threads");
        // The first run measures, on the calling thread.
        assert!(!parallel[0], "{threads} threads: {parallel:?}");
        // Without the `parallel` feature there is no pool to hand a stage
        // to, whatever the work: the same result, on the calling thread.
        if threads == 1 || cfg!(not(feature = "parallel")) {
            assert!(!parallel.contains(&true), "{threads} threads: {parallel:?}");
        } else {
            // A millisecond of work in each of two systems: the stage goes
            // parallel once the executor has seen it (a stage this small is
            // timed on one run in four, and goes parallel after two runs
            // timed big), and back once the work is gone.
            let heavy = HEAVY.start as usize..HEAVY.end as usize;
            let light = HEAVY.end as usize + 2..LOAD_FRAMES as usize;
            assert!(
                parallel[heavy].contains(&true),
                "{threads} threads: {parallel:?}"
            );
            assert!(
                parallel[light].contains(&false),
                "{threads} threads: {parallel:?}"
            );
        }
    }
}

// Events and change detection are world state too: the same program gives
// the same events read, the same `Changed`/`Added`/`Removed` answers and the
// same world on any number of threads, whatever the executor decides.

#[derive(Clone, Copy, Debug, PartialEq, ecs::checksum::StableHash)]
struct Place(f64);
#[derive(Clone, Copy, Debug, PartialEq, ecs::checksum::StableHash)]
struct Speed(f64);
#[derive(Clone, Copy, Debug, PartialEq, ecs::checksum::StableHash)]
struct Life(i64);
#[derive(Clone, Copy, Debug, PartialEq, ecs::checksum::StableHash)]
struct Bump(u32);
#[derive(Clone, Debug, Default, PartialEq, ecs::checksum::StableHash)]
struct Journal(u64);

#[derive(Schema)]
struct Reactive {
    #[ecs(track)]
    place: Place,
    speed: Speed,
    #[ecs(track)]
    life: Life,
    #[ecs(event)]
    bump: Bump,
    #[ecs(resource)]
    journal: Journal,
}

fn note(journal: &mut Journal, value: u64) {
    journal.0 = journal.0.rotate_left(7) ^ value.wrapping_mul(0x9e37_79b9_7f4a_7c15);
}

/// Moves some entities (only those whose speed is not zero mark `Place`).
fn drift(mut movers: Query<(&mut Place, &Speed)>) {
    movers.par_for_each_mut(|(place, speed)| place.0 += speed.0);
}

/// Ages everyone, in parallel with `drift` (disjoint components).
fn wither(mut lives: Query<(Entity, &mut Life)>) {
    for (entity, life) in lives.iter_mut() {
        if entity.index() % 3 == 0 {
            life.0 -= 1;
        }
    }
}

/// Reads what moved, sends a bump for each far one.
fn watch(
    moved: Query<(Entity, &Place), Changed<Place>>,
    mut bumps: EventWriter<Bump>,
    mut journal: ResMut<Journal>,
) {
    for (entity, place) in moved.iter() {
        note(&mut journal, entity.to_bits());
        if place.0 > 20.0 {
            bumps.send(Bump(entity.index()));
        }
    }
}

/// Reads the bumps (some from this run, the rest from the last).
fn react(bumps: EventReader<Bump>, born: Query<Entity, Added<Life>>, mut journal: ResMut<Journal>) {
    for bump in bumps.read() {
        note(&mut journal, u64::from(bump.0) << 32);
    }
    for entity in born.iter() {
        note(&mut journal, entity.to_bits() ^ 0xadd);
    }
}

/// Despawns the dead and the far, spawns newcomers.
fn churn(lives: Query<(Entity, &Life, &Place)>, mut commands: Commands<Reactive>) {
    for (entity, life, place) in lives.iter() {
        if life.0 <= 0 || place.0 > 40.0 {
            commands.despawn(entity);
            commands.spawn((Place(0.0), Speed((entity.index() % 4) as f64), Life(5)));
        }
    }
}

/// Reads who left.
fn mourn(gone: Removed<Life>, mut journal: ResMut<Journal>) {
    for entity in gone.iter() {
        note(&mut journal, entity.to_bits() ^ 0xdead);
    }
}

fn reactive_world() -> World<Reactive> {
    let mut world = World::<Reactive>::new();
    world.spawn_batch((0..300).map(|i| {
        (
            Place(i as f64 / 10.0),
            Speed((i % 4) as f64),
            Life(4 + i % 5),
        )
    }));
    world
}

fn reactive_frames(threads: usize, executor: Executor) -> Vec<u128> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = reactive_world();
    let mut schedule = Schedule::<Reactive>::new();
    schedule
        .add(react)
        .add(drift)
        .add(wither)
        .add(watch)
        .add(mourn)
        .add(churn)
        .add(react);
    let mut flips = Rng::new(7 + threads as u64);
    let mut frames = Vec::new();
    for _ in 0..40 {
        pool.install(|| match executor {
            Executor::Sequential => schedule.run_sequential(&mut world),
            Executor::Adaptive => schedule.force_parallel(None).run(&mut world),
            Executor::Parallel => schedule.force_parallel(Some(true)).run(&mut world),
            Executor::Flipping(_) => {
                let choice = [None, Some(true), Some(false)][flips.below(3) as usize];
                schedule.force_parallel(choice).run(&mut world)
            }
        });
        frames.push(world.checksum());
    }
    frames
}

#[test]
fn events_and_change_detection_give_the_same_world_on_any_number_of_threads() {
    let expected = reactive_frames(1, Executor::Sequential);
    for threads in [1, 2, 4] {
        for executor in [
            Executor::Adaptive,
            Executor::Parallel,
            Executor::Flipping(0),
        ] {
            let what = format!("reactive world on {threads} threads, {executor:?}");
            assert_same_frames(&reactive_frames(threads, executor), &expected, &what);
        }
    }
    // Not vacuous: the journal moves every frame, and entities come and go.
    let mut world = reactive_world();
    let mut schedule = Schedule::<Reactive>::new();
    schedule
        .add(drift)
        .add(watch)
        .add(react)
        .add(churn)
        .add(mourn);
    let mut journals = Vec::new();
    for _ in 0..10 {
        schedule.run_sequential(&mut world);
        journals.push(world.resource::<Journal>().0);
    }
    journals.dedup();
    assert_eq!(journals.len(), 10, "every frame reads something new");
    assert!(!world.events::<Bump>().is_empty());
}
