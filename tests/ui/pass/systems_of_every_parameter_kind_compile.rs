// Every kind of system `Schedule::add` accepts compiles and runs: functions of
// zero to eight parameters, an exclusive `&mut World<S>` system, closures
// (with and without captured state), two queries that read one component,
// `Res<T>` taken twice, and `par_for_each_mut` / `par_for_each_mut_with`
// inside a system.
use ecs::prelude::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Debug, PartialEq)]
pub struct Pos(pub i64);
#[derive(Debug, PartialEq)]
pub struct Vel(pub i64);
#[derive(Debug, PartialEq)]
pub struct Health(pub i64);
#[derive(Debug, PartialEq)]
pub struct Dead;
#[derive(Debug, Default)]
pub struct Tick(pub u64);
#[derive(Debug, Default)]
pub struct Gravity(pub i64);
#[derive(Debug, Default)]
pub struct Log(pub Vec<String>);

#[derive(Schema)]
pub struct Game {
    pos: Pos,
    vel: Vel,
    health: Health,
    dead: Dead,
    #[ecs(resource)]
    tick: Tick,
    #[ecs(resource)]
    gravity: Gravity,
    #[ecs(resource)]
    log: Log,
}

static ZERO_RUNS: AtomicUsize = AtomicUsize::new(0);

fn zero() {
    ZERO_RUNS.fetch_add(1, Ordering::Relaxed);
}

fn one(mut tick: ResMut<Tick>) {
    tick.0 += 1;
}

fn two(mut velocities: Query<&mut Vel>, gravity: Res<Gravity>) {
    velocities.for_each_mut(|vel| vel.0 -= gravity.0);
}

fn three(
    mut movers: Query<(&mut Pos, &Vel), Without<Dead>>,
    tick: Res<Tick>,
    mut log: ResMut<Log>,
) {
    movers.par_for_each_mut(|(pos, vel)| pos.0 += vel.0);
    log.0.push(format!("three: tick {}", tick.0));
}

fn four(
    mut living: Query<(Entity, &mut Health), Without<Dead>>,
    gravity: Res<Gravity>,
    mut commands: Commands<Game>,
    mut log: ResMut<Log>,
) {
    let damage = gravity.0;
    living.par_for_each_mut_with(&mut commands, |commands, (entity, health)| {
        health.0 -= damage;
        if health.0 <= 0 {
            commands.insert(entity, (Dead,));
        }
    });
    log.0.push(format!("four: {} dying", commands.len()));
}

// Two queries that only read `Pos`, and `Res<Tick>` twice.
fn five(
    positions: Query<&Pos>,
    moving: Query<&Pos, With<Vel>>,
    tick: Res<Tick>,
    same_tick: Res<Tick>,
    mut log: ResMut<Log>,
) {
    assert_eq!(tick.0, same_tick.0);
    log.0.push(format!(
        "five: {} of {} move",
        moving.count(),
        positions.count()
    ));
}

fn six(
    healths: Query<&Health>,
    dead: Query<Entity, With<Dead>>,
    tick: Res<Tick>,
    gravity: Res<Gravity>,
    mut commands: Commands<Game>,
    mut log: ResMut<Log>,
) {
    for entity in dead.iter() {
        commands.despawn(entity);
    }
    let total: i64 = healths.iter().map(|health| health.0).sum();
    log.0.push(format!(
        "six: tick {}, gravity {}, health {total}, {} despawned",
        tick.0,
        gravity.0,
        commands.len()
    ));
}

fn seven(
    positions: Query<&Pos>,
    velocities: Query<&Vel>,
    healths: Query<&Health>,
    dead: Query<Entity, With<Dead>>,
    tick: Res<Tick>,
    gravity: Res<Gravity>,
    mut log: ResMut<Log>,
) {
    log.0.push(format!(
        "seven: {} {} {} {} {} {}",
        positions.count(),
        velocities.count(),
        healths.count(),
        dead.count(),
        tick.0,
        gravity.0
    ));
}

#[allow(clippy::too_many_arguments)]
fn eight(
    positions: Query<&Pos>,
    velocities: Query<&Vel>,
    mut healths: Query<&mut Health>,
    dead: Query<Entity, With<Dead>>,
    tick: Res<Tick>,
    gravity: Res<Gravity>,
    mut commands: Commands<Game>,
    mut log: ResMut<Log>,
) {
    healths.for_each_mut(|health| health.0 += gravity.0);
    if dead.is_empty() {
        commands.spawn((Pos(0), Health(1)));
    }
    log.0.push(format!(
        "eight: {} {} {} {}",
        positions.count(),
        velocities.count(),
        tick.0,
        commands.len()
    ));
}

// An exclusive system: the whole world, changed at once.
fn reset_gravity(world: &mut World<Game>) {
    world.resource_mut::<Gravity>().0 = 1;
}

fn main() {
    let mut world = World::<Game>::new();
    let runner = world.spawn((Pos(0), Vel(3), Health(5)));
    let rock = world.spawn((Pos(10), Health(1)));

    let closure_runs = Arc::new(AtomicUsize::new(0));
    let last_tick = Arc::new(AtomicU64::new(0));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(zero);
    {
        let closure_runs = Arc::clone(&closure_runs);
        schedule.add(move || {
            closure_runs.fetch_add(1, Ordering::Relaxed);
        });
    }
    schedule
        .add(reset_gravity)
        .add(one)
        .add(two)
        .add(three)
        .add(four)
        .add(five)
        .add(six)
        .add(seven)
        .add(eight);
    {
        let last_tick = Arc::clone(&last_tick);
        schedule.add(move |tick: Res<Tick>| last_tick.store(tick.0, Ordering::Relaxed));
    }
    schedule.add(|mut tick: ResMut<Tick>| tick.0 += 10);
    assert_eq!(schedule.len(), 13);

    schedule.run(&mut world);
    schedule.run(&mut world);

    assert_eq!(ZERO_RUNS.load(Ordering::Relaxed), 2);
    assert_eq!(closure_runs.load(Ordering::Relaxed), 2);
    assert_eq!(last_tick.load(Ordering::Relaxed), 12);
    assert_eq!(world.resource::<Tick>().0, 22);
    // `four` kills the rock in the first run and what `eight` spawned in it
    // in the second; `six` despawns both.
    assert!(!world.is_alive(rock));
    assert_eq!(world.len(), 2);
    assert_eq!(world.get::<Pos>(runner), Some(&Pos(3)));
    assert_eq!(world.get::<Vel>(runner), Some(&Vel(1)));
    assert_eq!(world.get::<Health>(runner), Some(&Health(5)));
    assert!(!world.has::<Dead>(runner));
    assert_eq!(
        world.resource::<Log>().0,
        [
            "three: tick 1",
            "four: 1 dying",
            "five: 1 of 2 move",
            "six: tick 1, gravity 1, health 4, 1 despawned",
            "seven: 1 1 1 0 1 1",
            "eight: 1 1 1 1",
            "three: tick 12",
            "four: 1 dying",
            "five: 1 of 2 move",
            "six: tick 12, gravity 1, health 4, 1 despawned",
            "seven: 1 1 1 0 12 1",
            "eight: 1 1 12 1",
        ]
    );
}
