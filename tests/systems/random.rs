//! Randomness that rolls back (feature `rand`): a `WorldRng` kept in the
//! world, and per-entity streams for parallel loops, which give the same
//! world on any number of threads and after a restore.

use ecs::checksum::StableHash;
use ecs::prelude::*;
use ecs::random::{Rng, Streams, WorldRng};
use support::on_threads;

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Luck(u32);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Rolls(Vec<u32>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    luck: Luck,
    #[ecs(resource)]
    rng: WorldRng,
    #[ecs(resource)]
    rolls: Rolls,
}

/// A parallel loop: each walker steps by its own stream's draw.
fn wander(mut rng: ResMut<WorldRng>, mut walkers: Query<(Entity, &mut Pos)>) {
    let streams = rng.streams();
    walkers.par_for_each_mut(|(entity, pos)| {
        let mut own = streams.of(entity);
        pos.0 += i64::from(own.next_u32() % 7) - 3;
    });
}

/// A parallel loop over chunks of rows, one stream per chunk.
fn shuffle_luck(mut rng: ResMut<WorldRng>, mut lucky: Query<(Entity, &mut Luck)>) {
    let streams = rng.streams();
    lucky.par_for_each_mut(|(entity, luck)| {
        luck.0 = streams.of_index(u64::from(entity.index()) / 16).next_u32() % 100;
    });
}

/// Draws in program order from the world's generator itself.
fn roll(mut rng: ResMut<WorldRng>, mut rolls: ResMut<Rolls>) {
    let roll = rng.next_u32() % 6;
    rolls.0.push(roll);
}

fn world() -> World<Game> {
    let mut world = World::<Game>::with_resources(GameResources {
        rng: WorldRng::seed_from_u64(0x5eed),
        rolls: Rolls::default(),
    });
    world.spawn_batch((0..3_000).map(|i| (Pos(i), Luck(0))));
    world
}

fn schedule() -> Schedule<Game> {
    let mut schedule = Schedule::new();
    schedule.add(roll).add(wander).add(shuffle_luck).add(roll);
    schedule
}

#[test]
fn parallel_loops_drawing_from_streams_end_in_the_same_world_on_1_2_and_4_threads() {
    let run = |threads: usize| {
        on_threads(threads, || {
            let mut world = world();
            let mut schedule = schedule();
            for _ in 0..20 {
                schedule.run(&mut world);
            }
            world
        })
    };
    let mut sequential = world();
    let mut schedule = schedule();
    for _ in 0..20 {
        schedule.run_sequential(&mut sequential);
    }
    for threads in [1, 2, 4] {
        assert_eq!(
            run(threads).checksum(),
            sequential.checksum(),
            "{threads} threads"
        );
    }
    // The draws did something: walkers spread out, luck varies.
    let spread: Vec<i64> = sequential
        .query::<&Pos>()
        .iter()
        .zip(0..)
        .map(|(pos, start)| pos.0 - start)
        .collect();
    assert!(spread.iter().any(|&d| d != 0) && spread.iter().any(|&d| d != spread[0]));
    let lucks: std::collections::BTreeSet<u32> =
        sequential.query::<&Luck>().iter().map(|l| l.0).collect();
    assert!(lucks.len() > 20, "{} distinct values", lucks.len());
    assert_eq!(sequential.resource::<Rolls>().0.len(), 40);
}

#[test]
fn a_restored_world_draws_the_same_numbers_again() {
    let mut world = world();
    let mut schedule = schedule();
    schedule.run(&mut world);
    let saved = world.clone();
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    let ahead = world.clone();
    world.clone_from(&saved);
    assert_ne!(world.checksum(), ahead.checksum(), "the generator moved on");
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    assert_eq!(world.checksum(), ahead.checksum());
    assert_eq!(world.resource::<Rolls>(), ahead.resource::<Rolls>());
}

#[test]
fn each_draw_moves_the_generator_and_its_checksum() {
    let mut world = world();
    let before = world.checksum();
    let copy = world.resource::<WorldRng>().clone();
    world.resource_mut::<WorldRng>().next_u64();
    assert_ne!(world.checksum(), before);
    assert_ne!(*world.resource::<WorldRng>(), copy);
    let mut again = copy.clone();
    again.next_u64();
    assert_eq!(*world.resource::<WorldRng>(), again);
}

#[test]
fn streams_give_each_entity_numbers_of_its_own_the_same_every_time() {
    let mut world = world();
    let ids: Vec<Entity> = world.iter().take(3).collect();
    let streams: Streams = world.resource_mut::<WorldRng>().streams();
    let draw = |e: Entity| {
        let mut rng = streams.of(e);
        [rng.next_u64(), rng.next_u64()]
    };
    assert_eq!(draw(ids[0]), draw(ids[0]));
    assert_ne!(draw(ids[0]), draw(ids[1]));
    assert_ne!(draw(ids[1]), draw(ids[2]));
    let next: Streams = world.resource_mut::<WorldRng>().streams();
    assert_ne!(next, streams);
    assert_ne!(next.of(ids[0]).next_u64(), draw(ids[0])[0]);
    // Two seeds, two sequences.
    assert_ne!(
        WorldRng::seed_from_u64(1).next_u64(),
        WorldRng::seed_from_u64(2).next_u64()
    );
}

/// With `serde`, a save carries the generator: the loaded world draws what
/// the saved one would have.
#[cfg(feature = "serde")]
#[test]
fn a_saved_world_keeps_its_generator() {
    let mut world = world();
    let mut first = schedule();
    first.run(&mut world);
    let text = serde_json::to_string(&world).unwrap();
    let mut loaded: World<Game> = serde_json::from_str(&text).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    let mut second = schedule();
    for _ in 0..3 {
        first.run(&mut world);
        second.run(&mut loaded);
    }
    assert_eq!(loaded.checksum(), world.checksum());
    assert_eq!(loaded.resource::<Rolls>(), world.resource::<Rolls>());
}
