//! Randomness that rolls back (feature `rand`): a seeded generator to keep
//! in the world as a resource, and streams of numbers per entity for
//! parallel loops, the same on any number of threads.
//!
//! A game that draws from `thread_rng` or a global generator gives each
//! peer, and each re-simulation of a frame, other numbers: a desync. Kept
//! in the world, a [`WorldRng`] is copied by snapshots, restored by loads,
//! covered by the checksum and saved with the world (feature `serde`), so
//! a rollback draws the same numbers again.
//!
//! A system draws from it in program order, like any resource. A parallel
//! loop cannot share one generator (the order of draws would depend on the
//! threads): [`WorldRng::streams`] draws a key once, and
//! [`Streams::of`] gives each entity a generator of its own from that key
//! and the entity's id, so every entity gets the same numbers whichever
//! thread runs it, in whatever order.
//!
//! ```
//! use schemecs::prelude::*;
//! use schemecs::checksum::StableHash;
//! use schemecs::random::{Rng, WorldRng};
//!
//! #[derive(Clone, Debug, PartialEq, StableHash)] struct Pos(i64);
//! #[derive(Schema)]
//! struct Game {
//!     pos: Pos,
//!     #[ecs(resource)]
//!     rng: WorldRng,
//! }
//!
//! fn wander(mut rng: ResMut<WorldRng>, mut walkers: Query<(Entity, &mut Pos)>) {
//!     let streams = rng.streams(); // one draw from the world's generator
//!     walkers.par_for_each_mut(|(entity, pos)| {
//!         let mut own = streams.of(entity); // this entity's numbers this frame
//!         pos.0 += (own.next_u32() % 3) as i64 - 1;
//!     });
//! }
//!
//! let mut world = World::<Game>::with_resources(GameResources {
//!     rng: WorldRng::seed_from_u64(7),
//! });
//! world.spawn_batch((0..100).map(|i| (Pos(i),)));
//! let mut replay = world.clone();
//! let mut schedule = Schedule::new();
//! schedule.add(wander);
//! for _ in 0..10 {
//!     schedule.run(&mut world);
//! }
//! for _ in 0..10 {
//!     schedule.run_sequential(&mut replay);
//! }
//! assert_eq!(world.checksum(), replay.checksum());
//! ```

use crate::entity::Entity;
use crate::stable_hash::{StableHash, StableHasher};
use core::convert::Infallible;
use rand_chacha::rand_core::{SeedableRng, TryRng};
use rand_chacha::ChaCha8Rng;

/// The `rand_core` crate this module's generators implement: its [`Rng`]
/// trait is what `rand` 0.10's `RngExt` (`random_range`, `random_bool`,
/// ...) extends.
pub use rand_chacha::rand_core;
pub use rand_chacha::rand_core::Rng;

/// A seeded generator to keep in the world as a resource
/// (`#[ecs(resource)] rng: WorldRng`): ChaCha with 8 rounds
/// ([`rand_chacha::ChaCha8Rng`]), fast and of good quality, the same
/// numbers on every platform. It implements [`Rng`]; its
/// [`StableHash`] covers its seed, stream and position, and with feature
/// `serde` it saves as that state.
///
/// `Default` is the generator of seed 0: seed it with
/// [`WorldRng::seed_from_u64`] (from the match's settings, the same on
/// every peer).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldRng {
    rng: ChaCha8Rng,
}

impl WorldRng {
    /// The generator of `seed`.
    pub fn seed_from_u64(seed: u64) -> Self {
        WorldRng {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The generator of a full 256-bit `seed`.
    pub fn from_seed(seed: [u8; 32]) -> Self {
        WorldRng {
            rng: ChaCha8Rng::from_seed(seed),
        }
    }

    /// Draws a key for a parallel loop: [`Streams::of`] then gives each
    /// entity its own generator, the same whichever thread asks. Each call
    /// draws a new key (32 bytes), so each frame's streams differ.
    pub fn streams(&mut self) -> Streams {
        let mut key = [0u8; 32];
        self.fill_bytes(&mut key);
        Streams { key }
    }
}

impl Default for WorldRng {
    fn default() -> Self {
        WorldRng::seed_from_u64(0)
    }
}

/// `TryRng` (so `Rng`) for a wrapper of a `ChaCha8Rng` in its field `rng`.
macro_rules! delegate_rng {
    ($($wrapper:ty),+) => {$(
        impl TryRng for $wrapper {
            type Error = Infallible;

            #[inline]
            fn try_next_u32(&mut self) -> Result<u32, Infallible> {
                self.rng.try_next_u32()
            }

            #[inline]
            fn try_next_u64(&mut self) -> Result<u64, Infallible> {
                self.rng.try_next_u64()
            }

            #[inline]
            fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
                self.rng.try_fill_bytes(dst)
            }
        }
    )+};
}

delegate_rng!(WorldRng, StreamRng);

/// Its seed, stream and position in the stream: equal generators hash
/// equal, and a draw changes the hash.
impl StableHash for WorldRng {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.rng.get_seed().stable_hash(hasher);
        self.rng.get_stream().stable_hash(hasher);
        self.rng.get_word_pos().stable_hash(hasher);
    }
}

/// A key drawn from a [`WorldRng`] ([`WorldRng::streams`]), from which each
/// entity (or any other index: a chunk, a cell) gets a generator of its
/// own. `Copy` and `Sync`: share it with every thread of a parallel loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Streams {
    key: [u8; 32],
}

impl Streams {
    /// `entity`'s generator for this key: the same numbers every time it
    /// is asked for, on any thread; another entity's are independent.
    #[inline]
    pub fn of(&self, entity: Entity) -> StreamRng {
        self.of_index(entity.to_bits())
    }

    /// The generator of `index` (a chunk's, a cell's) for this key.
    #[inline]
    pub fn of_index(&self, index: u64) -> StreamRng {
        let mut rng = ChaCha8Rng::from_seed(self.key);
        rng.set_stream(index);
        StreamRng { rng }
    }
}

/// One entity's (or index's) generator from [`Streams`]: ChaCha8 keyed by
/// the draw, on the entity's own stream. It implements [`Rng`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamRng {
    rng: ChaCha8Rng,
}
