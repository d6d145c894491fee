//! A small arena game that uses every kind of world state GGRS must see
//! restored: a `Local` cooldown, events, a tracked component read through
//! `Changed`, a sparse component, spawns and despawns through `Commands`,
//! and random numbers drawn from a generator kept in a resource.

#![allow(dead_code, reason = "each test binary uses part of this module")]

pub mod net;

use schemecs::checksum::StableHash;
use schemecs::prelude::*;
use schemecs_ggrs::ggrs::{self, PredictRepeatLast};
use schemecs_ggrs::{PlayerInputs, SnapshotSlot};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

/// The session's types: a byte of buttons per player.
pub struct Net;

impl ggrs::Config for Net {
    type Input = u8;
    type InputPredictor = PredictRepeatLast;
    type State = SnapshotSlot;
    type Address = SocketAddr;
}

pub const UP: u8 = 1;
pub const DOWN: u8 = 2;
pub const LEFT: u8 = 4;
pub const RIGHT: u8 = 8;
pub const FIRE: u8 = 16;

const ARENA: i32 = 400;
const MAX_MOBS: usize = 12;

/// splitmix64: a tiny seeded generator, enough for games and tests.
#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// A number in `-r..=r`.
    pub fn spread(&mut self, r: i32) -> i32 {
        self.below(2 * r as u32 + 1) as i32 - r
    }
}

impl Default for SplitMix {
    fn default() -> Self {
        SplitMix(0x5eed)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Pos {
    pub x: i32,
    pub y: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Vel {
    pub x: i32,
    pub y: i32,
}

/// A player's ship, steered by input `0`.
#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Player(pub u8);

/// A shot; it burns out after this many frames.
#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Bullet(pub u32);

/// A mob's health: tracked, so `Changed<Hp>` sees hits.
#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Hp(pub i32);

/// A stunned mob does not move for this many frames: sparse, inserted and
/// removed often.
#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Stun(pub u32);

/// A bullet struck a mob.
#[derive(Clone, Copy, Debug, PartialEq, StableHash, serde::Serialize, serde::Deserialize)]
pub struct Hit {
    pub mob: Entity,
    pub damage: i32,
}

/// What happened so far, for the tests to look at.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, StableHash, serde::Serialize, serde::Deserialize,
)]
pub struct Stats {
    pub shots: u64,
    pub hits: u64,
    pub wounded: u64,
    pub killed: u64,
    pub spawned: u64,
    /// Written by the non-deterministic system only.
    pub noise: u64,
}

/// With `#[ecs(debug)]`: a diagnosis prints the values that differ.
#[derive(Schema)]
#[ecs(debug)]
pub struct Arena {
    pos: Pos,
    vel: Vel,
    player: Player,
    bullet: Bullet,
    #[ecs(track)]
    hp: Hp,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    inputs: PlayerInputs<Net>,
    #[ecs(resource)]
    rng: SplitMix,
    #[ecs(resource)]
    stats: Stats,
}

fn axis(input: u8, minus: u8, plus: u8) -> i32 {
    i32::from(input & plus != 0) - i32::from(input & minus != 0)
}

/// Ships move along their input.
fn steer(mut ships: Query<(&Player, &mut Vel)>, inputs: Res<PlayerInputs<Net>>) {
    ships.for_each_mut(|(player, vel)| {
        let input = inputs.input(usize::from(player.0));
        vel.x = 3 * axis(input, LEFT, RIGHT);
        vel.y = 3 * axis(input, UP, DOWN);
    });
}

/// Ships holding fire shoot, but only when the shared cooldown (kept in a
/// `Local`) is over; each shot's spread comes from the world's generator.
fn fire(
    mut cooldown: Local<u32>,
    ships: Query<(&Player, &Pos)>,
    inputs: Res<PlayerInputs<Net>>,
    mut rng: ResMut<SplitMix>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Arena>,
) {
    if *cooldown > 0 {
        *cooldown -= 1;
        return;
    }
    for (player, pos) in ships.iter() {
        if inputs.input(usize::from(player.0)) & FIRE != 0 {
            let vel = Vel {
                x: rng.spread(6),
                y: rng.spread(6),
            };
            commands.spawn((*pos, vel, Bullet(20 + rng.below(10))));
            stats.shots += 1;
            *cooldown = 3;
        }
    }
}

/// Now and then a mob appears somewhere, up to a cap.
fn spawn_mobs(
    mobs: Query<&Hp>,
    mut rng: ResMut<SplitMix>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Arena>,
) {
    if mobs.iter().count() < MAX_MOBS && rng.below(6) == 0 {
        let pos = Pos {
            x: rng.below(ARENA as u32) as i32,
            y: rng.below(ARENA as u32) as i32,
        };
        let vel = Vel {
            x: rng.spread(2),
            y: rng.spread(2),
        };
        commands.spawn((pos, vel, Hp(2 + rng.below(4) as i32)));
        stats.spawned += 1;
    }
}

/// Everything that is not stunned moves, wrapping around the arena.
fn movement(mut movers: Query<(&mut Pos, &Vel), Without<Stun>>) {
    movers.for_each_mut(|(pos, vel)| {
        pos.x = (pos.x + vel.x).rem_euclid(ARENA);
        pos.y = (pos.y + vel.y).rem_euclid(ARENA);
    });
}

/// A bullet near a mob hits it (the first one in iteration order) and is
/// gone.
fn collide(
    bullets: Query<(Entity, &Pos), With<Bullet>>,
    mobs: Query<(Entity, &Pos), With<Hp>>,
    mut hits: EventWriter<Hit>,
    mut commands: Commands<Arena>,
) {
    for (bullet, at) in bullets.iter() {
        let struck = mobs
            .iter()
            .find(|(_, mob)| (mob.x - at.x).abs() + (mob.y - at.y).abs() < 24);
        if let Some((mob, _)) = struck {
            hits.send(Hit { mob, damage: 1 });
            commands.despawn(bullet);
        }
    }
}

/// Hits wound and stun.
fn wound(
    hits: EventReader<Hit>,
    mut mobs: Query<&mut Hp>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Arena>,
) {
    for hit in hits.read() {
        if let Ok(hp) = mobs.get_mut(hit.mob) {
            hp.0 -= hit.damage;
            commands.insert(hit.mob, (Stun(4),));
        }
        stats.hits += 1;
    }
}

/// Mobs whose health changed since this system last ran are counted, and
/// removed if dead.
fn reap(
    changed: Query<(Entity, &Hp), Changed<Hp>>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Arena>,
) {
    for (mob, hp) in changed.iter() {
        stats.wounded += 1;
        if hp.0 <= 0 {
            commands.despawn(mob);
            stats.killed += 1;
        }
    }
}

/// Stuns wear off.
fn recover(mut stunned: Query<(Entity, &mut Stun)>, mut commands: Commands<Arena>) {
    stunned.for_each_mut(|(mob, stun)| {
        stun.0 -= 1;
        if stun.0 == 0 {
            commands.remove::<Stun>(mob);
        }
    });
}

/// Bullets burn out.
fn burn(mut bullets: Query<(Entity, &mut Bullet)>, mut commands: Commands<Arena>) {
    bullets.for_each_mut(|(bullet, fuel)| {
        fuel.0 -= 1;
        if fuel.0 == 0 {
            commands.despawn(bullet);
        }
    });
}

/// Every call returns a new value, in any process: what no game system may
/// depend on.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// A bug on purpose: world state derived from something outside the world.
fn nondeterministic(mut stats: ResMut<Stats>) {
    stats.noise = CALLS.fetch_add(1, Ordering::Relaxed);
}

static GLITCHES: AtomicU64 = AtomicU64::new(0);

/// A bug on purpose, in a component: player 0's ship drifts by the parity
/// of a process-global counter, so two runs of one frame disagree.
fn glitch(mut ships: Query<(&Player, &mut Vel)>) {
    ships.for_each_mut(|(player, vel)| {
        if player.0 == 0 {
            vel.x += (GLITCHES.fetch_add(1, Ordering::Relaxed) % 2) as i32;
        }
    });
}

/// The game's 9 systems with `glitch` fifth, after `movement` (whose
/// `Vel` it writes) and beside `collide` (with which it shares nothing, so
/// the two may run in one parallel stage): 10 systems.
pub fn schedule_with_glitch() -> Schedule<Arena> {
    let mut schedule = Schedule::new();
    schedule
        .add(steer)
        .add(fire)
        .add(spawn_mobs)
        .add(movement)
        .add(glitch)
        .add(collide)
        .add(wound)
        .add(reap)
        .add(recover)
        .add(burn);
    schedule
}

/// The game's systems, in program order; with `bug`, one of them depends on
/// a process-global counter.
pub fn schedule(bug: bool) -> Schedule<Arena> {
    let mut schedule = Schedule::new();
    schedule
        .add(steer)
        .add(fire)
        .add(spawn_mobs)
        .add(movement)
        .add(collide)
        .add(wound)
        .add(reap)
        .add(recover)
        .add(burn);
    if bug {
        schedule.add(nondeterministic);
    }
    schedule
}

/// With `active`, player 0's ship drifts right from frame `from` on.
/// Both peers of a test run the same schedule (a schedule's systems are
/// part of what the world records), only one with `active`: a desync that
/// its own re-simulations agree with.
fn drift_from(
    from: i32,
    active: bool,
) -> impl FnMut(Query<(&Player, &mut Vel)>, Res<PlayerInputs<Net>>) {
    move |mut ships: Query<(&Player, &mut Vel)>, inputs: Res<PlayerInputs<Net>>| {
        if active && inputs.frame() >= from {
            ships.for_each_mut(|(player, vel)| {
                if player.0 == 0 {
                    vel.x += 1;
                }
            });
        }
    }
}

/// The game's systems and, last, one that (with `active`) makes player 0's
/// ship drift from frame `from` on.
pub fn schedule_drifting_from(from: i32, active: bool) -> Schedule<Arena> {
    let mut schedule = schedule(false);
    schedule.add(drift_from(from, active));
    schedule
}

/// A ship per player, spread over the arena, and a seeded generator.
pub fn world(players: u8, seed: u64) -> World<Arena> {
    let mut world = World::<Arena>::new();
    *world.resource_mut::<SplitMix>() = SplitMix(seed);
    for player in 0..players {
        let x = (i32::from(player) * ARENA) / i32::from(players);
        world.spawn((Pos { x, y: ARENA / 2 }, Vel { x: 0, y: 0 }, Player(player)));
    }
    world
}

/// Player `player`'s buttons at `frame`: held for a few frames, then
/// changed, so that "the same as last frame" is often right and sometimes
/// wrong. Fire is held down half the time.
pub fn input(seed: u64, player: usize, frame: i32) -> u8 {
    let held = (frame / 6) as u64;
    let mut rng = SplitMix(seed ^ (held << 8) ^ player as u64);
    (rng.next_u64() >> 59) as u8
}
