//! Struct-of-arrays components beside whole ones: the same particles, the
//! same systems, stored two ways.
//!
//! 1,000,000 particles with a position and a velocity (three `f32` each)
//! live in two worlds. In `Soa`, both components are marked `#[ecs(soa)]`:
//! each field is an array of its own, and the `integrate` system takes, per
//! table, one slice per field (`Fields<&mut Pos>`, `Fields<&Vel>`), the Zig
//! model's `items(.x)`. In `Whole`, the same types are stored whole, and
//! `integrate` takes `&mut Pos` and `&Vel` per entity. A second system,
//! `fall`, pulls every particle down through one field only: the SoA world
//! reads and writes the `y` arrays and nothing else, the whole world drags
//! every `Vel` through the cache to change its `y`.
//!
//! Both worlds run the same frames, through a `Schedule`; the program checks
//! that they end with the same value in every field of every particle, then
//! prints the median time of a frame in each (informative only: the loops
//! are bound by memory bandwidth, which a busy machine shares).
//!
//! ```text
//! cargo run --release --example soa [frames]
//! ```

use schemecs::prelude::*;

use schemecs::query::Fields;
use std::time::{Duration, Instant};

const PARTICLES: usize = 1_000_000;
const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = -9.81;

#[derive(Soa, Clone, Copy, Debug, PartialEq)]
struct Pos {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Soa, Clone, Copy, Debug, PartialEq)]
struct Vel {
    x: f32,
    y: f32,
    z: f32,
}

/// Both components stored field by field.
#[derive(Schema)]
struct Soa {
    #[ecs(soa)]
    pos: Pos,
    #[ecs(soa)]
    vel: Vel,
}

/// The same components stored whole.
#[derive(Schema)]
struct Whole {
    pos: Pos,
    vel: Vel,
}

/// `p += v * dt` over one field's array.
fn axpy(p: &mut [f32], v: &[f32], dt: f32) {
    for (p, v) in p.iter_mut().zip(v) {
        *p += v * dt;
    }
}

fn integrate_soa(mut movers: Query<(Fields<&mut Pos>, Fields<&Vel>)>) {
    movers.for_each_table_mut(|_, (pos, vel)| {
        axpy(pos.x, vel.x, DT);
        axpy(pos.y, vel.y, DT);
        axpy(pos.z, vel.z, DT);
    });
}

fn fall_soa(mut falling: Query<Fields<&mut Vel>>) {
    falling.for_each_table_mut(|_, vel| {
        for y in vel.y.iter_mut() {
            *y += GRAVITY * DT;
        }
    });
}

fn integrate_whole(mut movers: Query<(&mut Pos, &Vel)>) {
    movers.for_each_mut(|(pos, vel)| {
        pos.x += vel.x * DT;
        pos.y += vel.y * DT;
        pos.z += vel.z * DT;
    });
}

fn fall_whole(mut falling: Query<&mut Vel>) {
    falling.for_each_mut(|vel| vel.y += GRAVITY * DT);
}

fn particle(i: usize) -> (Pos, Vel) {
    let f = i as f32 / PARTICLES as f32;
    (
        Pos {
            x: f,
            y: 100.0 * f,
            z: -f,
        },
        Vel {
            x: 1.0 - f,
            y: 10.0 * f,
            z: 0.5,
        },
    )
}

/// The median of `times`.
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let frames: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse().expect("frames must be a number"),
        None => 100,
    };

    let mut soa = World::<Soa>::new();
    let soa_ids: Vec<Entity> = soa.spawn_batch((0..PARTICLES).map(particle)).collect();
    let mut soa_schedule = Schedule::<Soa>::new();
    soa_schedule.add(integrate_soa).add(fall_soa);

    let mut whole = World::<Whole>::new();
    let whole_ids: Vec<Entity> = whole.spawn_batch((0..PARTICLES).map(particle)).collect();
    let mut whole_schedule = Schedule::<Whole>::new();
    whole_schedule.add(integrate_whole).add(fall_whole);

    // Alternate the two, so that a busy moment of the machine falls on both.
    let (mut soa_times, mut whole_times) = (Vec::new(), Vec::new());
    for _ in 0..frames {
        let start = Instant::now();
        soa_schedule.run(&mut soa);
        soa_times.push(start.elapsed());
        let start = Instant::now();
        whole_schedule.run(&mut whole);
        whole_times.push(start.elapsed());
    }

    for (&a, &b) in soa_ids.iter().zip(&whole_ids) {
        let pos = soa.get_soa::<Pos>(a).map(|p| p.get());
        let vel = soa.get_soa::<Vel>(a).map(|v| v.get());
        assert_eq!(pos, whole.get::<Pos>(b).copied(), "positions differ");
        assert_eq!(vel, whole.get::<Vel>(b).copied(), "velocities differ");
    }
    let last = soa.get_soa::<Pos>(soa_ids[PARTICLES - 1]).unwrap().get();
    println!("{PARTICLES} particles, {frames} frames: both worlds end equal in every field");
    println!("last particle: {last:?}");
    let (soa_median, whole_median) = (median(soa_times), median(whole_times));
    println!("median frame, stored field by field (#[ecs(soa)], table form): {soa_median:?}");
    println!("median frame, stored whole (per entity):                       {whole_median:?}");
    println!(
        "whole / field by field: {:.2}x",
        whole_median.as_secs_f64() / soa_median.as_secs_f64()
    );
}
