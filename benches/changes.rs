//! Change detection and events, at 100,000 entities.
//!
//! * `tracked_write`: `for_each_mut` over `(&mut Position, &Velocity)` where
//!   `Position` is tracked (`#[ecs(track)]`, each row handed out is stamped
//!   changed), beside the same loop over an untracked schema: the cost of
//!   tracking a write (target: at most 1.25× the untracked loop).
//! * `changed_iter`: one pass over the entities whose `Position` changed
//!   since the last `clear_trackers` (1% of them, spread evenly), beside a
//!   full pass over all of them doing the same work (target: at most 0.2×
//!   the full pass), the same through a `PreparedQuery`, and the full pass
//!   over an untracked schema.
//! * `events`: a schedule of one writer sending 1,000 events and two readers
//!   summing them, per run, beside the same sends and sums over a `Vec`.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

const ENTITIES: usize = 100_000;

#[derive(Clone, Copy)]
struct Position([f32; 3]);
#[derive(Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Clone, Copy, Debug)]
struct Hit(u32);
#[derive(Default)]
struct Total(u64);

#[derive(Schema)]
struct Tracked {
    #[ecs(track)]
    position: Position,
    velocity: Velocity,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    total: Total,
}

#[derive(Schema)]
struct Plain {
    position: Position,
    velocity: Velocity,
}

fn bodies() -> impl Iterator<Item = (Position, Velocity)> {
    (0..ENTITIES).map(|i| (Position([i as f32, 0.0, 0.0]), Velocity([1.0, 0.5, 0.25])))
}

#[inline(always)]
fn step(position: &mut Position, velocity: &Velocity) {
    for (p, v) in position.0.iter_mut().zip(velocity.0) {
        *p += v;
    }
}

fn tracked_write(c: &mut Criterion) {
    let mut group = c.benchmark_group("tracked_write");
    let mut tracked = World::<Tracked>::new();
    tracked.spawn_batch(bodies());
    let mut plain = World::<Plain>::new();
    plain.spawn_batch(bodies());
    group.bench_function("untracked_for_each_mut", |b| {
        b.iter(|| {
            plain
                .query_mut::<(&mut Position, &Velocity)>()
                .for_each_mut(|(p, v)| step(p, v))
        })
    });
    group.bench_function("tracked_for_each_mut", |b| {
        b.iter(|| {
            tracked
                .query_mut::<(&mut Position, &Velocity)>()
                .for_each_mut(|(p, v)| step(p, v))
        })
    });
    group.bench_function("untracked_iter_mut", |b| {
        b.iter(|| {
            for (p, v) in plain.query_mut::<(&mut Position, &Velocity)>().iter_mut() {
                step(p, v);
            }
        })
    });
    group.bench_function("tracked_iter_mut", |b| {
        b.iter(|| {
            for (p, v) in tracked.query_mut::<(&mut Position, &Velocity)>().iter_mut() {
                step(p, v);
            }
        })
    });
    group.finish();
}

fn changed_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("changed_iter");
    let mut world = World::<Tracked>::new();
    let ids: Vec<Entity> = world.spawn_batch(bodies()).collect();
    world.clear_trackers();
    for id in ids.iter().step_by(100) {
        world.get_mut::<Position>(*id).unwrap().0[1] += 1.0;
    }
    assert_eq!(
        world
            .query_filtered::<Entity, Changed<Position>>()
            .iter()
            .count(),
        ENTITIES / 100
    );
    let sum = |world: &World<Tracked>| -> f32 {
        let mut total = 0.0;
        world
            .query_filtered::<(&Position, &Velocity), Changed<Position>>()
            .for_each(|(p, v)| total += p.0[1] * v.0[0]);
        total
    };
    group.bench_function("changed_1_percent", |b| b.iter(|| black_box(sum(&world))));
    // The same through a query kept across passes.
    let mut changed = world.prepare_filtered::<(&Position, &Velocity), Changed<Position>>();
    group.bench_function("changed_1_percent_prepared", |b| {
        b.iter(|| {
            let mut total = 0.0;
            changed.for_each(&world, |(p, v)| total += p.0[1] * v.0[0]);
            black_box(total)
        })
    });
    group.bench_function("full_pass", |b| {
        b.iter(|| {
            let mut total = 0.0;
            world
                .query::<(&Position, &Velocity)>()
                .for_each(|(p, v)| total += p.0[1] * v.0[0]);
            black_box(total)
        })
    });
    let mut plain = World::<Plain>::new();
    plain.spawn_batch(bodies());
    group.bench_function("full_pass_untracked", |b| {
        b.iter(|| {
            let mut total = 0.0;
            plain
                .query::<(&Position, &Velocity)>()
                .for_each(|(p, v)| total += p.0[1] * v.0[0]);
            black_box(total)
        })
    });
    group.finish();
}

const EVENTS: u32 = 1_000;

fn send(mut hits: EventWriter<Hit>) {
    hits.send_batch((0..EVENTS).map(Hit));
}

fn sum_hits(hits: EventReader<Hit>, mut total: ResMut<Total>) {
    total.0 += hits.read().map(|hit| u64::from(hit.0)).sum::<u64>();
}

fn count_hits(hits: EventReader<Hit>, mut total: ResMut<Total>) {
    total.0 += hits.len() as u64;
}

fn events(c: &mut Criterion) {
    let mut group = c.benchmark_group("events");
    let mut world = World::<Tracked>::new();
    let mut schedule = Schedule::<Tracked>::new();
    schedule.add(send).add(sum_hits).add(count_hits);
    group.bench_function("ecs_run_sequential", |b| {
        b.iter(|| schedule.run_sequential(&mut world))
    });
    let mut queue: Vec<Hit> = Vec::new();
    let mut total = 0u64;
    group.bench_function("baseline_vec", |b| {
        b.iter(|| {
            queue.clear();
            queue.extend((0..EVENTS).map(Hit));
            total += black_box(&queue)
                .iter()
                .map(|hit| u64::from(hit.0))
                .sum::<u64>();
            total += black_box(&queue).len() as u64;
        })
    });
    black_box(total);
    group.finish();
}

criterion_group!(benches, tracked_write, changed_iter, events);
criterion_main!(benches);
