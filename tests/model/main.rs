//! Seeded randomized model test: thousands of random operations on a world,
//! mirrored on a plain reference model (a map from entity to a struct of
//! `Option` fields), compared after every operation. Operations include
//! stale handles (entities despawned earlier, whose slots are since reused).
//!
//! The harness (`model/harness.rs`) runs over two schemas of the same five
//! components: `Model` below (bits 0 to 4, `u8` masks, `C` sparse) and
//! `wide::Model` (bits 64 to 68 after 64 fillers, `u128` masks, `B`
//! sparse), so that every random operation also reaches a sparse set.
//!
//! `model/relations.rs` does the same for relations, a requirement and
//! hooks, through the world's methods and command buffers, against a model
//! that keeps the inverse lists and the hooks' journal by hand, and
//! `model/owned.rs` for structural changes made at once inside systems run
//! in parallel (`SparseMut`, `Spawner`), against a model that runs each
//! frame in program order.
//!
//! The other model-based and adversarial tests share this binary, each a
//! module of its own with its own schema: `changes_model` (change
//! detection, events and removal logs against a model) and
//! `soa_adversarial` (struct-of-arrays components under hostile use).
//!
//! On failure the seed is printed; replay one seed with
//! `ECS_MODEL_SEED=<seed> cargo test --test model`, and change the number of
//! operations per seed with `ECS_MODEL_OPS=<n>`.

mod changes_model;
mod soa_adversarial;

use ecs::prelude::*;

use ecs::world::InsertError;
use std::collections::HashSet;
use support::Rng;

#[derive(Clone, Debug, PartialEq, ecs::checksum::StableHash)]
pub struct A(u32);
#[derive(Clone, Debug, PartialEq, ecs::checksum::StableHash)]
pub struct B(u64);
#[derive(Clone, Debug, PartialEq, ecs::checksum::StableHash)]
pub struct Tag;
#[derive(Clone, Debug, PartialEq, ecs::checksum::StableHash)]
pub struct C(i16);
#[derive(Clone, Debug, PartialEq, ecs::checksum::StableHash)]
pub struct D(String);

/// Bits: A 0, B 1, Tag 2 (a tag between data components), C 3 (sparse:
/// kept in a sparse set, not in the tables), D 4.
#[derive(Schema)]
struct Model {
    a: A,
    b: B,
    tag: Tag,
    #[ecs(sparse)]
    c: C,
    d: D,
}

#[allow(
    clippy::duplicate_mod,
    reason = "the harness is compiled once per schema"
)]
mod harness;

/// The same five components at bits 64 to 68, after 64 others: `u128` masks.
mod wide;

/// Relations, a requirement and hooks, against a model that keeps the
/// inverse lists and the hooks' journal by hand.
mod relations;

/// Structural changes made at once inside parallel systems (`SparseMut`,
/// `Spawner`), against a model that runs the frame in program order.
mod owned;

#[test]
fn random_operations_match_the_reference_model() {
    harness::run_seeds();
}

#[test]
fn relations_requirements_and_hooks_match_the_reference_model() {
    let ops = std::env::var("ECS_MODEL_OPS").map_or(4_000, |n| n.parse().unwrap());
    let seeds: Vec<u64> = match std::env::var("ECS_MODEL_SEED") {
        Ok(seed) => vec![seed.parse().unwrap()],
        Err(_) => vec![0x27, 0x2700, 0x27_27_27],
    };
    for seed in seeds {
        relations::run(seed, ops);
    }
}

#[test]
fn structural_changes_inside_parallel_systems_match_the_reference_model() {
    let frames = std::env::var("ECS_MODEL_OPS").map_or(60, |n| n.parse::<usize>().unwrap() / 50);
    let seeds: Vec<u64> = match std::env::var("ECS_MODEL_SEED") {
        Ok(seed) => vec![seed.parse().unwrap()],
        Err(_) => vec![0x28, 0x2800, 0x28_28_28, 7, 8, 9],
    };
    for seed in seeds {
        for threads in [1, 2, 4] {
            owned::run(seed, frames, threads, false);
            owned::run(seed ^ 0xf1f1, frames, threads, true);
        }
    }
}

/// The stale-handle part of the model on its own: heavy churn on a few slots,
/// so that nearly every target is a reused index with an old generation.
#[test]
fn churn_on_few_slots_never_lets_a_stale_handle_through() {
    let mut rng = Rng::new(0x57a1e);
    let mut world = World::<Model>::new();
    let mut live: Vec<(Entity, u32)> = Vec::new();
    let mut dead: Vec<Entity> = Vec::new();
    let mut dead_set: HashSet<Entity> = HashSet::new();
    for step in 0..20_000u32 {
        if live.len() < 4 || (live.len() < 12 && rng.chance(1, 2)) {
            let e = world.spawn((A(step), Tag));
            assert!(!dead_set.contains(&e), "step {step}: {e:?} reissued");
            live.push((e, step));
        } else {
            let (e, _) = live.swap_remove(rng.below(live.len() as u64) as usize);
            world.despawn(e).unwrap();
            dead.push(e);
            dead_set.insert(e);
        }
        let recent: Vec<Entity> = dead
            .iter()
            .rev()
            .take(16)
            .copied()
            .chain([Entity::from_bits(u64::MAX).unwrap()])
            .collect();
        let stale = *rng.pick(&recent);
        assert_eq!(
            world.insert(stale, (B(1),)),
            Err(InsertError::NoSuchEntity(stale)),
            "step {step}"
        );
        assert_eq!(
            world.remove::<A>(stale),
            Err(NoSuchEntity(stale)),
            "step {step}"
        );
        assert_eq!(world.get::<A>(stale), None, "step {step}");
        assert_eq!(
            world.despawn(stale),
            Err(NoSuchEntity(stale)),
            "step {step}"
        );
        assert_eq!(world.len(), live.len(), "step {step}");
        for &(e, value) in &live {
            assert_eq!(world.get::<A>(e), Some(&A(value)), "step {step} {e:?}");
            assert!(!world.has::<B>(e), "step {step} {e:?}");
        }
    }
    let max_index = live
        .iter()
        .map(|(e, _)| e.index())
        .chain(dead.iter().map(|e| e.index()))
        .max();
    // At most 12 are ever alive at once, so freed slots must have been reused.
    assert!(max_index < Some(12), "slots are reused: {max_index:?}");
}
