//! Rollback netcode in one process: two peers play the same game, each
//! seeing the other's input only `DELAY` frames late.
//!
//! Each peer simulates every frame at once, guessing the other player's input
//! (the last one it received). It keeps a ring of world snapshots, one per
//! frame not yet confirmed. When a late input turns out to differ from the
//! guess, the peer restores the snapshot taken before that frame
//! (`clone_from`, which reuses the ring's memory) and simulates the frames
//! since again with the true input, on the parallel `Schedule`.
//!
//! A frame is *confirmed* once both inputs for it are known. Both peers must
//! then hold the same world, which `World::checksum` checks on every
//! confirmed frame. The whole match runs on thread pools of 1, 2 and 4
//! threads, with the same checksums each time. Last, the final world is
//! saved with postcard, loaded back and checked against its checksum, and a
//! damaged copy of the save is refused with the reason.
//!
//!     cargo run --release --example rollback --features serde

use schemecs::prelude::*;
use schemecs::{checksum::StableHash, world::LoadError};
use serde::{Deserialize, Serialize};

/// Frames between sending an input and the other peer receiving it.
const DELAY: usize = 3;
/// Snapshots kept: every frame that may still be rolled back, plus one.
const RING: usize = DELAY + 2;
const FRAMES: usize = 240;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Vel {
    x: f32,
    y: f32,
}

/// A player's avatar, and which player steers it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Player(u8);

/// A spark fired by a player; it burns out after this many frames.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Spark(u32);

/// Both players' inputs for the frame being simulated: four direction bits
/// and a fire bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, StableHash)]
struct Inputs([u8; 2]);

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, StableHash)]
struct Frame(u64);

#[derive(Schema)]
struct Arena {
    pos: Pos,
    vel: Vel,
    player: Player,
    spark: Spark,
    #[ecs(resource)]
    inputs: Inputs,
    #[ecs(resource)]
    frame: Frame,
}

const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;
const FIRE: u8 = 16;

/// Players accelerate along their input.
fn steer(mut players: Query<(&Player, &mut Vel)>, inputs: Res<Inputs>) {
    players.for_each_mut(|(player, vel)| {
        let input = inputs.0[player.0 as usize];
        let axis = |minus: u8, plus: u8| {
            f32::from(u8::from(input & plus != 0)) - f32::from(u8::from(input & minus != 0))
        };
        vel.x = (vel.x + 0.25 * axis(LEFT, RIGHT)) * 0.95;
        vel.y = (vel.y + 0.25 * axis(UP, DOWN)) * 0.95;
    });
}

/// A player holding fire sheds a spark each frame; its id depends on every
/// spawn and despawn before it, so a mistaken rollback would show.
fn fire(
    players: Query<(&Player, &Pos, &Vel)>,
    inputs: Res<Inputs>,
    frame: Res<Frame>,
    mut commands: Commands<Arena>,
) {
    for (player, pos, vel) in players.iter() {
        if inputs.0[player.0 as usize] & FIRE != 0 {
            let angle = frame.0 as f32 * 0.7 + f32::from(player.0) * 3.1;
            let spark_vel = Vel {
                x: vel.x + angle.cos(),
                y: vel.y + angle.sin(),
            };
            commands.spawn((*pos, spark_vel, Spark(30)));
        }
    }
}

/// Everything that moves, moves (run over all entities in parallel chunks).
fn inertia(mut movers: Query<(&mut Pos, &Vel)>) {
    movers.par_for_each_mut(|(pos, vel)| {
        pos.x = (pos.x + vel.x).rem_euclid(100.0);
        pos.y = (pos.y + vel.y).rem_euclid(100.0);
    });
}

/// Sparks burn down and go out.
fn burn(mut sparks: Query<(Entity, &mut Spark)>, mut commands: Commands<Arena>) {
    sparks.for_each_mut(|(entity, spark)| {
        spark.0 -= 1;
        if spark.0 == 0 {
            commands.despawn(entity);
        }
    });
}

fn tick(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

fn schedule() -> Schedule<Arena> {
    let mut schedule = Schedule::new();
    schedule
        .add(steer)
        .add(fire)
        .add(inertia)
        .add(burn)
        .add(tick);
    schedule
}

fn new_world() -> World<Arena> {
    let mut world = World::<Arena>::new();
    for player in 0..2u8 {
        let x = 25.0 + 50.0 * f32::from(player);
        world.spawn((Pos { x, y: 50.0 }, Vel { x: 0.0, y: 0.0 }, Player(player)));
    }
    world
}

/// What player `player` presses on `frame`: held for a while, then changed,
/// so that guessing "the same as last time" is often right and sometimes not.
fn input(player: usize, frame: usize) -> u8 {
    let held = (frame / 7) as u64 + 1;
    let mut x = held.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ ((player as u64 + 1) << 40);
    x ^= x >> 29;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (x >> 59) as u8
}

/// One player's machine.
struct Peer {
    me: usize,
    world: World<Arena>,
    schedule: Schedule<Arena>,
    /// `ring[f % RING]`: the world as frame `f` began.
    ring: Vec<World<Arena>>,
    /// The other player's input for each frame: received, or guessed.
    theirs: Vec<u8>,
    received: Vec<bool>,
    /// The checksum of the world after each confirmed frame.
    confirmed: Vec<u128>,
    rollbacks: usize,
    resimulated: usize,
}

impl Peer {
    fn new(me: usize) -> Self {
        let world = new_world();
        Peer {
            me,
            ring: (0..RING).map(|_| world.clone()).collect(),
            world,
            schedule: schedule(),
            theirs: Vec::new(),
            received: Vec::new(),
            confirmed: Vec::new(),
            rollbacks: 0,
            resimulated: 0,
        }
    }

    /// Simulates `frame` from the current world, keeping a snapshot first.
    fn simulate(&mut self, frame: usize) {
        self.ring[frame % RING].clone_from(&self.world);
        let mut inputs = [0; 2];
        inputs[self.me] = input(self.me, frame);
        inputs[1 - self.me] = self.theirs[frame];
        self.world.resource_mut::<Inputs>().0 = inputs;
        self.schedule.run(&mut self.world);
    }

    /// The other player's input for `frame` arrives. If it differs from the
    /// guess used, roll back to that frame and simulate up to `now` again.
    fn receive(&mut self, frame: usize, their_input: u8, now: usize) {
        self.received[frame] = true;
        if self.theirs[frame] == their_input {
            return;
        }
        // Later guesses were copies of this one: correct them too.
        for guess in frame..now {
            if !self.received[guess] {
                self.theirs[guess] = their_input;
            }
        }
        self.theirs[frame] = their_input;
        self.world.clone_from(&self.ring[frame % RING]);
        self.rollbacks += 1;
        for replay in frame..now {
            self.simulate(replay);
            self.resimulated += 1;
        }
    }

    /// Frame `now`: guess the other input, simulate, and confirm the frame
    /// whose inputs are now all known.
    fn advance(&mut self, now: usize) {
        let guess = now
            .checked_sub(1)
            .map_or(0, |previous| self.theirs[previous]);
        self.theirs.push(guess);
        self.received.push(false);
        self.simulate(now);
        if let Some(frame) = (now + 1).checked_sub(DELAY + 1) {
            // All inputs up to `frame` are in: the world after it is final.
            let after = if frame == now {
                self.world.checksum()
            } else {
                self.ring[(frame + 1) % RING].checksum()
            };
            self.confirmed.push(after);
        }
    }
}

/// Plays the match; returns both peers.
fn play() -> [Peer; 2] {
    let mut peers = [Peer::new(0), Peer::new(1)];
    for now in 0..FRAMES {
        // Inputs sent DELAY frames ago arrive before this frame runs.
        if let Some(sent) = now.checked_sub(DELAY) {
            for peer in &mut peers {
                let them = 1 - peer.me;
                peer.receive(sent, input(them, sent), now);
            }
        }
        for peer in &mut peers {
            peer.advance(now);
        }
    }
    peers
}

fn main() {
    println!(
        "Two peers, {FRAMES} frames, inputs delayed by {DELAY} frames, {RING} snapshots each.\n"
    );
    let mut runs = Vec::new();
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let [a, b] = pool.install(play);
        for (frame, (x, y)) in a.confirmed.iter().zip(&b.confirmed).enumerate() {
            assert_eq!(x, y, "the peers disagree after confirmed frame {frame}");
        }
        println!(
            "{threads} thread(s): {} frames confirmed, checksums agree on every one; \
             peer 0 rolled back {} times ({} frames simulated again), peer 1 {} times ({}).",
            a.confirmed.len(),
            a.rollbacks,
            a.resimulated,
            b.rollbacks,
            b.resimulated,
        );
        runs.push((a.confirmed.clone(), a.world));
    }
    assert!(
        runs.windows(2).all(|pair| pair[0].0 == pair[1].0),
        "the thread count changed a checksum"
    );
    println!("The checksums are the same on 1, 2 and 4 threads.");

    let (confirmed, world) = runs.pop().expect("three runs");
    println!(
        "\nLast confirmed frame {}: checksum {:032x}. The world is {DELAY} frames further \
         (those still predicted): checksum {:032x}, {} entities.",
        confirmed.len() - 1,
        confirmed[confirmed.len() - 1],
        world.checksum(),
        world.len()
    );
    let mut bytes = postcard::to_stdvec(&world).expect("the world saves");
    let loaded = load(&bytes).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(loaded.checksum(), world.checksum());
    println!(
        "Saved the final world in {} bytes, loaded it back: checksum {:032x}, the same.",
        bytes.len(),
        loaded.checksum()
    );

    // A damaged save is refused, and says why. postcard's own error would
    // only say "Serde Deserialization Error"; `World::load` keeps the reason.
    bytes[0] ^= 1;
    match load(&bytes) {
        Err(LoadError::Invalid { reason, .. }) => {
            println!("The same save with its first byte changed is refused: {reason}.")
        }
        Err(error) => println!("The same save with its first byte changed is refused: {error}."),
        Ok(_) => panic!("a damaged save loaded"),
    }
}

/// Loads a postcard save, with the reason if it is refused.
fn load(bytes: &[u8]) -> Result<World<Arena>, LoadError<postcard::Error>> {
    World::load(&mut postcard::Deserializer::from_bytes(bytes))
}
