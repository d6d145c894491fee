//! A particle fountain with 100,000 live particles, run by a `Schedule`:
//! per-frame timings and a summary, parallel against sequential.
//!
//! Each frame, six systems run:
//!
//! * `emit` spawns new particles from the fountain (commands, a random
//!   stream kept in a resource);
//! * `gravity` pulls the falling particles down, `drift` pushes the resting
//!   ones along the floor; their queries are disjoint (`Without<Resting>` and
//!   `With<Resting>`), so they run together;
//! * `integrate` moves every particle by its velocity, in parallel chunks
//!   (`par_for_each_mut`), and `bounce` lets particles that hit the floor
//!   bounce, or come to rest (commands from parallel chunks);
//! * `age` burns down each particle's life and despawns the dead;
//! * `census` sums energy and counts particles into a resource.
//!
//! The same frames run twice: on rayon's default thread pool (one thread per
//! core) and on a pool of one thread. The program checks that the two worlds
//! end identical, bit for bit, then prints both timings.
//!
//! ```text
//! cargo run --release --example particles [frames]
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

/// Seconds left to live.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Life(f32);

/// Lying on the floor: no gravity, slides and slows down.
#[derive(Debug)]
struct Resting;

/// Frames run so far.
#[derive(Debug, Default)]
struct Frame(u64);

/// The fountain's random numbers (xorshift), kept in the world so that a run
/// is reproducible.
#[derive(Debug)]
struct Random(u64);

impl Default for Random {
    fn default() -> Self {
        Random(0x2545_f491_4f6c_dd1d)
    }
}

impl Random {
    /// A number in `0.0..1.0`.
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[derive(Debug, Default, PartialEq)]
struct Census {
    falling: u64,
    resting: u64,
    energy: f64,
}

#[derive(Schema)]
struct Fountain {
    pos: Pos,
    vel: Vel,
    life: Life,
    resting: Resting,
    #[ecs(resource)]
    frame: Frame,
    #[ecs(resource)]
    random: Random,
    #[ecs(resource)]
    census: Census,
}

/// Seconds per frame.
const DT: f32 = 1.0 / 60.0;
/// Particles born per frame: with lives of 2 to 3.6 seconds (168 frames on
/// average), about 100,000 are alive once the fountain has run for a while.
const BIRTHS_PER_FRAME: usize = 600;
const GRAVITY: f32 = -9.8;

fn emit(mut random: ResMut<Random>, mut commands: Commands<Fountain>) {
    for _ in 0..BIRTHS_PER_FRAME {
        let angle = (random.next() - 0.5) * 0.8;
        let speed = 8.0 + random.next() * 4.0;
        commands.spawn((
            Pos { x: 0.0, y: 0.0 },
            Vel {
                x: angle.sin() * speed,
                y: angle.cos() * speed,
            },
            Life(2.0 + random.next() * 1.6),
        ));
    }
}

fn gravity(mut falling: Query<&mut Vel, Without<Resting>>) {
    falling.par_for_each_mut(|vel| vel.y += GRAVITY * DT);
}

fn drift(mut resting: Query<&mut Vel, With<Resting>>) {
    resting.par_for_each_mut(|vel| vel.x *= 0.98);
}

fn integrate(mut moving: Query<(&mut Pos, &Vel)>) {
    moving.par_for_each_mut(|(pos, vel)| {
        pos.x += vel.x * DT;
        pos.y += vel.y * DT;
    });
}

fn bounce(
    mut falling: Query<(Entity, &mut Pos, &mut Vel), Without<Resting>>,
    mut commands: Commands<Fountain>,
) {
    falling.par_for_each_mut_with(&mut commands, |commands, (entity, pos, vel)| {
        if pos.y < 0.0 {
            pos.y = 0.0;
            vel.y = -vel.y * 0.5;
            if vel.y < 0.5 {
                vel.y = 0.0;
                commands.insert(entity, (Resting,));
            }
        }
    });
}

fn age(mut living: Query<(Entity, &mut Life)>, mut commands: Commands<Fountain>) {
    living.par_for_each_mut_with(&mut commands, |commands, (entity, life)| {
        life.0 -= DT;
        if life.0 <= 0.0 {
            commands.despawn(entity);
        }
    });
}

fn census(
    particles: Query<(&Vel, Has<Resting>)>,
    mut census: ResMut<Census>,
    mut frame: ResMut<Frame>,
) {
    let mut next = Census::default();
    for (vel, resting) in particles.iter() {
        if resting {
            next.resting += 1;
        } else {
            next.falling += 1;
        }
        next.energy += f64::from(vel.x * vel.x + vel.y * vel.y) * 0.5;
    }
    *census = next;
    frame.0 += 1;
}

fn schedule() -> Schedule<Fountain> {
    let mut schedule = Schedule::new();
    schedule
        .add(emit)
        .add(gravity)
        .add(drift)
        .add(integrate)
        .add(bounce)
        .add(age)
        .add(census);
    schedule
}

/// Runs `frames` frames on the current thread pool; returns the world and
/// each frame's time.
fn simulate(frames: usize, print: bool) -> (World<Fountain>, Vec<Duration>) {
    let mut world = World::<Fountain>::new();
    let mut schedule = schedule();
    let mut times = Vec::with_capacity(frames);
    for frame in 0..frames {
        let start = Instant::now();
        schedule.run(&mut world);
        let time = start.elapsed();
        times.push(time);
        if print && (frame % 20 == 0 || frame + 1 == frames) {
            let census = world.resource::<Census>();
            println!(
                "frame {frame:>4}: {:>7} particles ({:>6} resting), {:>8.3} ms",
                world.len(),
                census.resting,
                time.as_secs_f64() * 1e3
            );
        }
    }
    (world, times)
}

fn summary(label: &str, times: &[Duration], particles: usize) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = ms(sorted[sorted.len() / 2]);
    let p95 = ms(sorted[sorted.len() * 95 / 100]);
    let total: Duration = times.iter().sum();
    println!(
        "{label:>10}: median {median:.3} ms/frame, p95 {p95:.3} ms, total {:.1} ms \
         ({:.1} M particle-frames/s at the end)",
        ms(total),
        particles as f64 / median / 1e3
    );
    median
}

fn main() {
    let frames: usize = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("usage: particles [frames]"))
        .unwrap_or(300);
    println!("{}", schedule().describe());
    let threads = rayon::current_num_threads();
    println!("{threads} threads:");
    let (parallel, parallel_times) = simulate(frames, true);
    let (sequential, sequential_times) = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool of one thread")
        .install(|| simulate(frames, false));

    // Same systems, same order of effects: the worlds must be identical.
    assert_eq!(parallel.len(), sequential.len());
    assert_eq!(
        parallel.resource::<Census>(),
        sequential.resource::<Census>()
    );
    let positions = |world: &mut World<Fountain>| -> Vec<(Entity, u32, u32)> {
        world
            .query::<(Entity, &Pos)>()
            .iter()
            .map(|(entity, pos)| (entity, pos.x.to_bits(), pos.y.to_bits()))
            .collect()
    };
    let (mut parallel, mut sequential) = (parallel, sequential);
    assert_eq!(positions(&mut parallel), positions(&mut sequential));

    println!(
        "\nsummary over {frames} frames, {} particles at the end:",
        parallel.len()
    );
    let p = summary(
        &format!("{threads} threads"),
        &parallel_times,
        parallel.len(),
    );
    let s = summary("1 thread", &sequential_times, parallel.len());
    println!(
        "speed-up of {threads} threads over 1: {:.2}x (median frame)",
        s / p
    );
    println!("both runs ended in the same world (entities, positions, census)");
}
