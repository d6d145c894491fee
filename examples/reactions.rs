//! Events and change detection in one small game loop: balls bounce in a
//! box; a wall hit sends an event; a reader turns each hit into a spark (a
//! short-lived entity); the sparks' brightness is tracked, so a "renderer"
//! redraws only the sparks whose brightness changed, and frees the ones
//! that are gone.
//!
//! Each frame, in program order:
//!
//! * `bounce` moves the balls and sends a `WallHit` for each bounce
//!   (`EventWriter`);
//! * `spark` reads this frame's hits (`EventReader`) and spawns a spark at
//!   each (`Commands`);
//! * `fade` dims every spark (a write of the tracked `Glow`) and despawns
//!   the dark ones; it skips every other frame, so the renderer's work
//!   drops when nothing fades;
//! * `render` redraws the sparks whose `Glow` changed since its last run
//!   (`Changed<Glow>`: the new ones count as changed) and frees the ones
//!   despawned since (`Removed<Glow>`).
//!
//! The same frames run with `Schedule::run` and `Schedule::run_sequential`;
//! the program checks that both worlds end identical (their checksums,
//! which include the events and change ticks, agree), then prints what the
//! renderer did per frame.
//!
//! ```text
//! cargo run --release --example reactions
//! ```

use schemecs::prelude::*;
use schemecs::{checksum::StableHash, checksum::StableHasher};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32, f32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(f32, f32);
/// A spark's brightness, 0 to 1: tracked, so the renderer can skip the
/// sparks that did not change.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Glow(f32);
/// A ball hit a wall at this point.
#[derive(Clone, Copy, Debug, PartialEq)]
struct WallHit(f32, f32);
#[derive(Clone, Debug, Default, PartialEq)]
struct Frame(u32);
/// What the renderer did, per frame: (sparks redrawn, sparks freed, sparks
/// alive).
#[derive(Clone, Debug, Default, PartialEq)]
struct RenderLog(Vec<(usize, usize, usize)>);

#[derive(Schema)]
struct Arena {
    pos: Pos,
    vel: Vel,
    #[ecs(track)]
    glow: Glow,
    #[ecs(event)]
    wall_hit: WallHit,
    #[ecs(resource)]
    frame: Frame,
    #[ecs(resource)]
    log: RenderLog,
}

const SIZE: f32 = 100.0;

fn bounce(mut balls: Query<(&mut Pos, &mut Vel)>, mut hits: EventWriter<WallHit>) {
    for (pos, vel) in balls.iter_mut() {
        pos.0 += vel.0;
        pos.1 += vel.1;
        if pos.0 < 0.0 || pos.0 > SIZE {
            vel.0 = -vel.0;
            pos.0 = pos.0.clamp(0.0, SIZE);
            hits.send(WallHit(pos.0, pos.1));
        }
        if pos.1 < 0.0 || pos.1 > SIZE {
            vel.1 = -vel.1;
            pos.1 = pos.1.clamp(0.0, SIZE);
            hits.send(WallHit(pos.0, pos.1));
        }
    }
}

fn spark(hits: EventReader<WallHit>, mut commands: Commands<Arena>) {
    for hit in hits.read() {
        commands.spawn((Pos(hit.0, hit.1), Glow(1.0)));
    }
}

fn fade(
    mut sparks: Query<(Entity, &mut Glow)>,
    mut frame: ResMut<Frame>,
    mut commands: Commands<Arena>,
) {
    frame.0 += 1;
    if frame.0 % 2 == 0 {
        return;
    }
    for (entity, glow) in sparks.iter_mut() {
        glow.0 -= 0.25;
        if glow.0 <= 0.0 {
            commands.despawn(entity);
        }
    }
}

fn render(
    changed: Query<(&Pos, &Glow), Changed<Glow>>,
    all: Query<(), With<Glow>>,
    gone: Removed<Glow>,
    mut log: ResMut<RenderLog>,
) {
    let redrawn = changed.iter().count();
    log.0.push((redrawn, gone.len(), all.count()));
}

impl StableHash for Pos {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        (self.0, self.1).stable_hash(hasher);
    }
}
impl StableHash for Vel {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        (self.0, self.1).stable_hash(hasher);
    }
}
impl StableHash for Glow {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.0.stable_hash(hasher);
    }
}
impl StableHash for WallHit {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        (self.0, self.1).stable_hash(hasher);
    }
}
impl StableHash for Frame {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.0.stable_hash(hasher);
    }
}
impl StableHash for RenderLog {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        for &(a, b, c) in &self.0 {
            (a as u64, b as u64, c as u64).stable_hash(hasher);
        }
    }
}

fn arena() -> World<Arena> {
    let mut world = World::<Arena>::new();
    world.spawn_batch((0..40).map(|i| {
        let angle = i as f32 * 0.7;
        (
            Pos(50.0, 50.0),
            Vel(angle.cos() * (1.0 + i as f32 % 3.0), angle.sin() * 2.5),
        )
    }));
    world
}

fn schedule() -> Schedule<Arena> {
    let mut schedule = Schedule::new();
    schedule.add(bounce).add(spark).add(fade).add(render);
    schedule
}

fn main() {
    const FRAMES: usize = 60;
    let (mut parallel, mut sequential) = (arena(), arena());
    let (mut a, mut b) = (schedule(), schedule());
    for _ in 0..FRAMES {
        a.run(&mut parallel);
        b.run_sequential(&mut sequential);
    }
    assert_eq!(
        parallel.checksum(),
        sequential.checksum(),
        "Schedule::run must give the sequential result"
    );

    println!("40 balls bounce in a {SIZE}x{SIZE} box for {FRAMES} frames.");
    println!("Each wall hit is an event; each event becomes a spark whose tracked");
    println!("brightness fades every other frame; the renderer redraws only the");
    println!("sparks whose brightness changed (Changed<Glow>) and frees the ones");
    println!("despawned since its last run (Removed<Glow>).");
    println!();
    println!("frame  alive  redrawn  freed   (every 5th frame)");
    let log = &parallel.resource::<RenderLog>().0;
    for (frame, &(redrawn, freed, alive)) in log.iter().enumerate().step_by(5) {
        println!("{:>5}  {alive:>5}  {redrawn:>7}  {freed:>5}", frame + 1);
    }
    let redrawn: usize = log.iter().map(|&(r, _, _)| r).sum();
    let drawn_if_blind: usize = log.iter().map(|&(_, _, alive)| alive).sum();
    let freed: usize = log.iter().map(|&(_, f, _)| f).sum();
    println!();
    println!(
        "redrawn {redrawn} sparks in all, against {drawn_if_blind} without change detection; freed {freed}."
    );
    assert!(redrawn < drawn_if_blind, "change detection skipped work");
    assert!(freed > 0, "sparks faded out");
    println!(
        "checked: Schedule::run and run_sequential end with the same world (checksum {:#034x}).",
        parallel.checksum()
    );
}
