//! Table-at-a-time iteration: a system written as the Zig design this crate
//! mirrors writes it, called once per archetype with whole columns.
//!
//! A swarm of 100,000 drifters in three archetypes: plain movers, movers
//! with the `Drag` tag, and `Anchored` ones that never move. Each frame two
//! systems run:
//!
//! * `integrate` takes each table's `&mut [Pos]` and `&[Vel]` and moves the
//!   entities in a loop over the two slices, which the compiler turns into
//!   SIMD code (see `advance` for what that takes). It looks
//!   at the table's archetype once per table: an anchored table is skipped,
//!   a dragged one moves at half speed;
//! * `damp` slows the dragged drifters down, in row ranges on rayon's pool
//!   (`par_for_each_table_mut`).
//!
//! The same frames then run with the per-entity forms (`for_each_mut`,
//! `par_for_each_mut`); the program checks that both worlds end bit for
//! bit identical and prints each table and both timings (informative only:
//! the per-entity loop over `(&mut Pos, &Vel)` vectorizes too).
//!
//! ```text
//! cargo run --release --example tables [frames]
//! ```

use schemecs::prelude::*;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel {
    x: f32,
    y: f32,
}

/// Moves at half speed and slows down.
#[derive(Debug)]
struct Drag;

/// Never moves.
#[derive(Debug)]
struct Anchored;

#[derive(Schema)]
struct Swarm {
    pos: Pos,
    vel: Vel,
    drag: Drag,
    anchored: Anchored,
}

const DRIFTERS: usize = 100_000;
/// Seconds per frame.
const DT: f32 = 1.0 / 60.0;
/// What `damp` keeps of a dragged drifter's velocity each frame.
const DAMPING: f32 = 0.99;

/// The time step of a table: one branch per table, not per entity.
fn step(dragged: bool) -> f32 {
    if dragged {
        DT * 0.5
    } else {
        DT
    }
}

fn integrate(mut drifters: Query<(&mut Pos, &Vel)>) {
    drifters.for_each_table_mut(|table, (pos, vel)| {
        let mask = table.mask::<Swarm>();
        if mask.contains(SwarmMask::ANCHORED) {
            return;
        }
        advance(pos, vel, step(mask.contains(SwarmMask::DRAG)));
    });
}

/// Moves `pos` by `vel * dt`. The loop sits in a function of its own
/// because rustc tells LLVM that a function's `&mut` and `&` arguments do
/// not overlap, which the vectorizer needs; slices that arrive in the
/// closure's tuple lose that fact, and the same loop written in the closure
/// runs one float at a time. A plain loop over two-field components
/// vectorizes as a stride-2 interleave; cutting it into chunks of eight
/// entities gains nothing here, and with AVX-512 (`-C target-cpu=native` on
/// recent x86) LLVM turns such a chunked loop into gathers and scatters,
/// about 25× slower (see `Query::for_each_table_mut`).
fn advance(pos: &mut [Pos], vel: &[Vel], dt: f32) {
    for (p, v) in pos.iter_mut().zip(vel) {
        p.x += v.x * dt;
        p.y += v.y * dt;
    }
}

fn damp(mut dragged: Query<&mut Vel, With<Drag>>) {
    dragged.par_for_each_table_mut(|_, vel| {
        for v in vel {
            v.x *= DAMPING;
            v.y *= DAMPING;
        }
    });
}

/// `integrate`, one entity at a time.
fn integrate_by_entity(mut drifters: Query<(&mut Pos, &Vel, Has<Drag>), Without<Anchored>>) {
    drifters.for_each_mut(|(p, v, dragged)| {
        let dt = step(dragged);
        p.x += v.x * dt;
        p.y += v.y * dt;
    });
}

/// `damp`, one entity at a time.
fn damp_by_entity(mut dragged: Query<&mut Vel, With<Drag>>) {
    dragged.par_for_each_mut(|v| {
        v.x *= DAMPING;
        v.y *= DAMPING;
    });
}

fn swarm() -> World<Swarm> {
    let mut world = World::<Swarm>::new();
    for i in 0..DRIFTERS {
        // A fixed spread of velocities in [-0.5, 0.5).
        let spread = |k: usize| ((i * k) % 1000) as f32 / 1000.0 - 0.5;
        let (pos, vel) = (
            Pos { x: 0.0, y: 0.0 },
            Vel {
                x: spread(7919),
                y: spread(104_729),
            },
        );
        match i % 10 {
            0 => world.spawn((pos, vel, Anchored)),
            1..=3 => world.spawn((pos, vel, Drag)),
            _ => world.spawn((pos, vel)),
        };
    }
    world
}

/// Runs `frames` frames of `schedule` on a fresh swarm.
fn run(schedule: &mut Schedule<Swarm>, frames: usize) -> (World<Swarm>, Duration) {
    let mut world = swarm();
    let start = Instant::now();
    for _ in 0..frames {
        schedule.run(&mut world);
    }
    (world, start.elapsed())
}

fn main() {
    let frames: usize = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("usage: tables [frames]"))
        .unwrap_or(100);

    let mut by_table = Schedule::<Swarm>::new();
    by_table.add(integrate).add(damp);
    let mut by_entity = Schedule::<Swarm>::new();
    by_entity.add(integrate_by_entity).add(damp_by_entity);
    // Warm up rayon's threads and the allocator, which would otherwise be
    // charged to whichever runs first.
    run(&mut by_table, 10);
    run(&mut by_entity, 10);
    let (mut world, table_time) = run(&mut by_table, frames);
    let (mut other, entity_time) = run(&mut by_entity, frames);

    // The same arithmetic in the same order: identical to the bit.
    let bits = |world: &mut World<Swarm>| -> Vec<(Entity, u32, u32)> {
        world
            .query::<(Entity, &Pos)>()
            .iter()
            .map(|(entity, pos)| (entity, pos.x.to_bits(), pos.y.to_bits()))
            .collect()
    };
    assert_eq!(bits(&mut world), bits(&mut other));

    println!("{DRIFTERS} drifters after {frames} frames:");
    world.query::<&Pos>().for_each_table(|table, pos| {
        let reach = pos.iter().map(|p| p.x.hypot(p.y)).fold(0.0, f32::max);
        println!(
            "  {:?}: {} entities, farthest {reach:.3} from the origin",
            table.mask::<Swarm>(),
            table.len()
        );
    });
    println!("by table:  {table_time:?}");
    println!("by entity: {entity_time:?} (same result, checked)");
}
