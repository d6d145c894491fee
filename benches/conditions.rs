//! What a run condition costs a system it skips.
//!
//! `conditions_skipped`: 64 systems that each read one resource, on an
//! empty world, of which 32 carry a condition that is false (the other 32
//! run); beside it the same 32 running systems alone. The difference, over
//! 32, is what one skipped system costs the frame: evaluating its condition
//! (lending the world out to it, calling it), recording the skip, and its
//! place in the executor's loop. Measured for a plain function condition
//! (`Res<Gate>`) and for `in_state(..)`, each with `Schedule::run` and
//! `Schedule::run_sequential`. Also the 32 skipped systems alone against
//! an empty schedule: the same difference without the running half. The
//! floor is 32 reads and 32 `if`s over plain values. The target (issue
//! 26): about 20 ns or less per skipped system.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

/// The schema's one component (the world stays empty).
#[derive(Clone, Copy)]
struct C0;
#[derive(Default)]
struct Counter(u64);
#[derive(Default)]
struct Gate(bool);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Menu,
    Playing,
}

#[derive(Schema)]
struct Game {
    c0: C0,
    #[ecs(resource)]
    counter: Counter,
    #[ecs(resource)]
    gate: Gate,
    #[ecs(state)]
    phase: Phase,
}

fn read_counter(counter: Res<Counter>) {
    black_box(counter.0);
}

fn open(gate: Res<Gate>) -> bool {
    gate.0
}

/// The 32 systems that run.
fn running() -> Schedule<Game> {
    let mut schedule = Schedule::new();
    for _ in 0..32 {
        schedule.add(read_counter);
    }
    schedule
}

fn conditions(c: &mut Criterion) {
    let mut group = c.benchmark_group("conditions_skipped");
    rayon::broadcast(|_| ());
    let mut world = World::<Game>::new();
    let mut schedules: Vec<(&str, Schedule<Game>)> = vec![("32_running", running())];
    let mut gated = running();
    for _ in 0..32 {
        gated.add(read_counter.run_if(open));
    }
    schedules.push(("64_half_skipped_by_fn", gated));
    let mut in_menu = running();
    for _ in 0..32 {
        in_menu.add(read_counter.run_if(in_state(Phase::Playing)));
    }
    schedules.push(("64_half_skipped_by_in_state", in_menu));
    // The same cost without the running half around it: 32 skipped systems
    // against an empty schedule.
    schedules.push(("0_systems", Schedule::new()));
    let mut skipped = Schedule::new();
    for _ in 0..32 {
        skipped.add(read_counter.run_if(open));
    }
    schedules.push(("32_skipped_by_fn", skipped));
    for (name, schedule) in &mut schedules {
        // The plan, the executor's first measurements.
        schedule.run(&mut world);
        group.bench_function(format!("{name}/ecs_run"), |b| {
            b.iter(|| {
                schedule.run(&mut world);
                black_box(&mut world);
            })
        });
        group.bench_function(format!("{name}/ecs_run_sequential"), |b| {
            b.iter(|| {
                schedule.run_sequential(&mut world);
                black_box(&mut world);
            })
        });
    }
    let (counter, gate) = (Counter(0), Gate(false));
    group.bench_function("baseline", |b| {
        b.iter(|| {
            for _ in 0..32 {
                black_box(black_box(&counter).0);
            }
            for _ in 0..32 {
                if black_box(&gate).0 {
                    black_box(black_box(&counter).0);
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, conditions);
criterion_main!(benches);
