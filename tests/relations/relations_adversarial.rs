//! Adversarial tests of relations, hooks and requirements (issue 27): odd
//! shapes (a relation to itself, cycles, two relations to one target),
//! hooks that change the entity they run on, commands naming entities
//! despawned in the same buffer, batches in any order, sparse relations,
//! clear, clone_from, and parallel stages. After each scenario the two
//! sides of every relation agree and every hook ran once per event.

use ecs::prelude::*;

use ecs::command::{CommandBuffer, Despawner};

use ecs::relation::RelationOf;

use ecs::world::{DeferredWorld, InsertError};
use ecs::{checksum::StableHash, checksum::StableHasher, relation::RelationCycle};
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct Children(Vec<Entity>);
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct Targets(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct TargetedBy(Vec<Entity>);
/// A sparse relation, and its sparse list.
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct Watches(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct Watchers(Vec<Entity>);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Name(u32);
/// Its `on_add` hook does what the value says.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
enum Act {
    Nothing,
    DespawnSelf,
    RemoveSelf,
    ParentTo(Entity),
    Unparent,
    SpawnChild,
    DespawnOther(Entity),
    /// Spawns a child with `Act::Chain(n - 1)` while `n > 0`.
    Chain(u32),
}
/// Requires `Mid`, which requires `Low`, whose hooks log.
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Top;
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Mid(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Low(u32);
/// Sparse, with hooks.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Spark(u32);

/// What the hooks saw: `+Kind index` on add, `-Kind index` on remove.
#[derive(Default)]
struct Journal(Mutex<Vec<String>>);

impl Journal {
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl Clone for Journal {
    fn clone(&self) -> Self {
        Journal(Mutex::new(self.lines()))
    }
}

impl StableHash for Journal {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.lines().stable_hash(hasher);
    }
}

fn log(world: &DeferredWorld<Scene>, sign: char, kind: &str, entity: Entity) {
    let line = format!("{sign}{kind} {}", entity.to_bits());
    world.resource::<Journal>().0.lock().unwrap().push(line);
}

fn child_of_added(world: &mut DeferredWorld<Scene>, entity: Entity) {
    let target = world.get::<ChildOf>(entity).unwrap().0;
    assert!(
        world.world().sources::<ChildOf>(target).contains(&entity),
        "linked before the hook"
    );
    log(world, '+', "ChildOf", entity);
}
fn child_of_removed(world: &mut DeferredWorld<Scene>, entity: Entity) {
    assert!(world.get::<ChildOf>(entity).is_some(), "still there");
    log(world, '-', "ChildOf", entity);
}
fn act_added(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '+', "Act", entity);
    let act = *world.get::<Act>(entity).unwrap();
    let commands = world.commands();
    match act {
        Act::Nothing => {}
        Act::DespawnSelf => commands.despawn(entity),
        Act::RemoveSelf => commands.remove::<Act>(entity),
        Act::ParentTo(target) => commands.insert(entity, (ChildOf(target),)),
        Act::Unparent => commands.remove::<ChildOf>(entity),
        Act::SpawnChild => {
            commands.spawn((Name(7), ChildOf(entity)));
        }
        Act::DespawnOther(other) => commands.despawn(other),
        Act::Chain(n) => {
            if n > 0 {
                commands.spawn((Act::Chain(n - 1), ChildOf(entity)));
            }
        }
    }
}
fn act_removed(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '-', "Act", entity);
    // A `SpawnChild` spawns one more child as it goes.
    if let Some(Act::SpawnChild) = world.get::<Act>(entity) {
        world.commands().spawn((Name(8), ChildOf(entity)));
    }
}
fn low_added(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '+', "Low", entity);
}
fn low_removed(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '-', "Low", entity);
}
fn spark_added(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '+', "Spark", entity);
}
fn spark_removed(world: &mut DeferredWorld<Scene>, entity: Entity) {
    assert!(world.get::<Spark>(entity).is_some(), "still there");
    log(world, '-', "Spark", entity);
}
fn watches_added(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '+', "Watches", entity);
}
fn watches_removed(world: &mut DeferredWorld<Scene>, entity: Entity) {
    log(world, '-', "Watches", entity);
}

#[derive(Schema)]
struct Scene {
    #[ecs(
        relation(inverse = children, on_target_despawn = despawn),
        on_add = child_of_added,
        on_remove = child_of_removed
    )]
    child_of: ChildOf,
    children: Children,
    #[ecs(relation(inverse = targeted_by))]
    targets: Targets,
    targeted_by: TargetedBy,
    #[ecs(sparse, relation(inverse = watchers), on_add = watches_added, on_remove = watches_removed)]
    watches: Watches,
    #[ecs(sparse)]
    watchers: Watchers,
    name: Name,
    #[ecs(on_add = act_added, on_remove = act_removed)]
    act: Act,
    #[ecs(requires(Mid))]
    top: Top,
    #[ecs(requires(Low))]
    mid: Mid,
    #[ecs(on_add = low_added, on_remove = low_removed)]
    low: Low,
    #[ecs(sparse, on_add = spark_added, on_remove = spark_removed)]
    spark: Spark,
    #[ecs(resource)]
    journal: Journal,
}

/// The two sides of every relation agree: each relation's target is alive
/// and lists its source exactly once; each list is non-empty and lists
/// only sources pointing at it.
fn relations_agree(world: &World<Scene>) -> Result<(), String> {
    fn check<R: RelationOf<Scene> + std::fmt::Debug>(world: &World<Scene>) -> Result<(), String> {
        let mut pointing = 0;
        for entity in world.iter() {
            if let Some(target) = world.target::<R>(entity) {
                if !world.is_alive(target) {
                    return Err(format!("{entity:?} points at dead {target:?}"));
                }
                let times = world
                    .sources::<R>(target)
                    .iter()
                    .filter(|&&s| s == entity)
                    .count();
                if times != 1 {
                    return Err(format!(
                        "{entity:?} -> {target:?} is listed {times} times: {:?}",
                        world.sources::<R>(target)
                    ));
                }
                pointing += 1;
            }
        }
        let mut listed = 0;
        for entity in world.iter() {
            if let Some(list) = world.get::<R::Inverse>(entity) {
                if list.sources().is_empty() {
                    return Err(format!("{entity:?} keeps an empty list"));
                }
                for &source in list.sources() {
                    if world.target::<R>(source) != Some(entity) {
                        return Err(format!(
                            "{entity:?} lists {source:?}, whose relation is {:?}",
                            world.get::<R>(source)
                        ));
                    }
                }
                listed += list.sources().len();
            }
        }
        if pointing != listed {
            return Err(format!("{pointing} relations, {listed} list entries"));
        }
        Ok(())
    }
    check::<ChildOf>(world)?;
    check::<Targets>(world)?;
    check::<Watches>(world)
}

/// Every hooked component's `+` and `-` lines alternate per entity,
/// starting with `+`, and end with `+` exactly when the entity has it now.
fn hooks_balanced(world: &World<Scene>) -> Result<(), String> {
    let mut state: BTreeMap<(String, u64), bool> = BTreeMap::new();
    for line in world.resource::<Journal>().lines() {
        let (head, bits) = line.split_once(' ').unwrap();
        let (sign, kind) = head.split_at(1);
        let key = (kind.to_string(), bits.parse::<u64>().unwrap());
        let has = state.entry(key.clone()).or_insert(false);
        match (sign, *has) {
            ("+", false) => *has = true,
            ("-", true) => *has = false,
            _ => return Err(format!("{line}: out of turn ({key:?} had it: {has})")),
        }
    }
    for ((kind, bits), has) in state {
        let entity = Entity::from_bits(bits).unwrap();
        let now = match kind.as_str() {
            "ChildOf" => world.has::<ChildOf>(entity),
            "Act" => world.has::<Act>(entity),
            "Low" => world.has::<Low>(entity),
            "Spark" => world.has::<Spark>(entity),
            "Watches" => world.has::<Watches>(entity),
            _ => unreachable!(),
        };
        if has != now {
            return Err(format!(
                "{kind} of {entity:?}: the hooks say {has}, the world {now}"
            ));
        }
    }
    Ok(())
}

#[track_caller]
fn assert_sound(world: &World<Scene>) {
    if let Err(error) = relations_agree(world) {
        panic!("relations disagree: {error}");
    }
    if let Err(error) = hooks_balanced(world) {
        panic!("hooks unbalanced: {error}");
    }
}

/// Runs `f` on a thread of its own; fails if it takes over 20 seconds (a
/// hang) instead of waiting for ever.
fn within_time<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let (send, receive) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = send.send(f());
    });
    match receive.recv_timeout(Duration::from_secs(20)) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the scenario did not end in 20 s"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // It panicked: pass the panic on.
            match handle.join() {
                Err(payload) => std::panic::resume_unwind(payload),
                Ok(()) => unreachable!(),
            }
        }
    }
}

// ---------------------------------------------------------------------
// A relation to itself.
// ---------------------------------------------------------------------

/// An entity that is its own only watcher: its relation and its list. (A
/// relation declared `on_target_despawn = despawn`, `ChildOf` here, refuses
/// to point at itself.)
fn own_watcher(world: &mut World<Scene>) -> Entity {
    let a = world.spawn((Name(1),));
    assert!(matches!(
        world.insert(a, (ChildOf(a),)),
        Err(InsertError::Cycle(_))
    ));
    world.insert(a, (Watches(a),)).unwrap();
    assert_eq!(world.sources::<Watches>(a), [a]);
    assert_sound(world);
    a
}

#[test]
fn a_relation_to_itself_is_kept_and_despawns_once() {
    let mut world = World::<Scene>::new();
    let a = own_watcher(&mut world);
    let b = world.spawn((Watches(a), Name(2)));
    assert_eq!(world.sources::<Watches>(a), [a, b]);
    // Moving off itself takes it out of its own list.
    world.insert(a, (Watches(b),)).unwrap();
    assert_eq!(world.sources::<Watches>(a), [b]);
    assert_sound(&world);
    world.insert(a, (Watches(a),)).unwrap();
    assert_sound(&world);
    within_time(move || {
        world.despawn(a).unwrap();
        assert_eq!(world.len(), 1);
        assert!(world.is_alive(b) && !world.has::<Watches>(b));
        assert_sound(&world);
    });
}

#[test]
fn removing_the_relation_of_an_entity_to_itself_removes_its_list() {
    let mut world = World::<Scene>::new();
    let a = own_watcher(&mut world);
    assert_eq!(world.remove::<Watches>(a), Ok(Some(Watches(a))));
    assert!(!world.has::<Watchers>(a));
    assert_sound(&world);
    // The list instead: it comes out as it was, and the relation goes.
    world.insert(a, (Watches(a),)).unwrap();
    assert_eq!(world.remove::<Watchers>(a), Ok(Some(Watchers(vec![a]))));
    assert!(!world.has::<Watches>(a));
    assert_sound(&world);
    // A relation of the `remove` kind to itself: despawning is one despawn.
    world.insert(a, (Targets(a),)).unwrap();
    world.despawn(a).unwrap();
    assert!(world.is_empty());
    assert_sound(&world);
}

/// Removing the relation and the list of an entity that is its own only
/// source in one bundle: both come out, the list as it was.
#[test]
fn remove_bundle_of_a_self_relation_and_its_list() {
    let mut world = World::<Scene>::new();
    let a = own_watcher(&mut world);
    let removed = world.remove_bundle::<(Watches, Watchers)>(a);
    assert_sound(&world);
    assert_eq!(removed, Ok(Some((Watches(a), Watchers(vec![a])))));
    assert_eq!(world.archetype(a), Some(SceneMask::NAME));
}

/// The same through a command.
#[test]
fn command_remove_bundle_of_a_self_relation_and_its_list() {
    let mut world = World::<Scene>::new();
    let a = own_watcher(&mut world);
    let mut buffer = CommandBuffer::<Scene>::new();
    buffer
        .commands(&world)
        .remove_bundle::<(Watches, Watchers)>(a);
    buffer.apply(&mut world);
    assert_sound(&world);
    assert_eq!(world.archetype(a), Some(SceneMask::NAME));
}

/// `take` of an entity that is its own only source, as exactly its
/// components: it succeeds, or fails and changes nothing.
#[test]
fn take_of_an_entity_that_is_its_own_only_source() {
    let mut world = World::<Scene>::new();
    let a = own_watcher(&mut world);
    let before = world.checksum();
    let taken = world.take::<(Watches, Watchers, Name)>(a);
    if taken.is_err() {
        assert_eq!(world.checksum(), before, "a refused take changed the world");
    }
    assert_sound(&world);
    assert_eq!(taken, Ok((Watches(a), Watchers(vec![a]), Name(1))));
    assert!(world.is_empty());
}

/// `exchange` removing the relation and the list of an entity that is its
/// own only source.
#[test]
fn exchange_of_a_self_relation_and_its_list() {
    let mut world = World::<Scene>::new();
    let a = own_watcher(&mut world);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world
            .exchange::<(Watches, Watchers), _>(a, (Name(9),))
            .map_err(|error| error.to_string())
    }));
    let removed = result.expect("exchange panicked");
    assert_eq!(removed, Ok((Watches(a), Watchers(vec![a]))));
    assert_eq!(world.get::<Name>(a), Some(&Name(9)));
    assert_sound(&world);
}

// ---------------------------------------------------------------------
// Cycles, and two relations to one target.
// ---------------------------------------------------------------------

/// A ring of `ChildOf` cannot be closed, whichever link closes it, through
/// the world or a command; despawning the root of what is left despawns
/// each entity once.
#[test]
fn a_ring_in_a_hierarchy_cannot_be_closed() {
    for len in [2usize, 3, 5] {
        for start in 0..len {
            let mut world = World::<Scene>::new();
            let ring: Vec<Entity> = (0..len)
                .map(|i| world.spawn((Name(i as u32), Act::Nothing)))
                .collect();
            // Every link but the one from `start`, then that one.
            for i in (start + 1..len).chain(0..start) {
                world
                    .insert(ring[i], (ChildOf(ring[(i + 1) % len]),))
                    .unwrap();
            }
            let before = world.checksum();
            let (source, target) = (ring[start], ring[(start + 1) % len]);
            assert!(matches!(
                world.insert(source, (ChildOf(target),)),
                Err(InsertError::Cycle(RelationCycle { source: s, target: t, .. }))
                    if s == source && t == target
            ));
            assert_eq!(world.checksum(), before);
            let mut buffer = CommandBuffer::<Scene>::new();
            buffer
                .commands(&world)
                .insert(source, (ChildOf(target), Spark(1)));
            buffer.apply(&mut world);
            assert!(!world.has::<ChildOf>(source) && world.has::<Spark>(source));
            assert_sound(&world);
            let outside = world.spawn((Name(99), ChildOf(ring[0]), Targets(ring[1])));
            let survivor = world.spawn((Name(100), Targets(ring[start])));
            let world = within_time(move || {
                world.despawn(source).unwrap();
                world
            });
            assert!(!world.is_alive(outside));
            assert_eq!(world.len(), 1, "ring of {len} from {start}");
            assert!(world.is_alive(survivor) && !world.has::<Targets>(survivor));
            assert_sound(&world);
            // Each ring member lost its Act once.
            let removed = world
                .resource::<Journal>()
                .lines()
                .iter()
                .filter(|l| l.starts_with("-Act"))
                .count();
            assert_eq!(removed, len);
        }
    }
}

/// The walk up finds where a cycle starts however far above the entity it
/// is: each ancestor once, the cycle's last.
#[test]
fn a_walk_up_ends_at_a_cycle_that_starts_far_above() {
    for tail in 1..6 {
        let chain = within_time(move || {
            let mut world = World::<Scene>::new();
            let chain: Vec<Entity> = (0..tail + 3)
                .map(|i| world.spawn((Name(i as u32), Act::Nothing)))
                .collect();
            for i in 0..tail + 2 {
                world.insert(chain[i], (Targets(chain[i + 1]),)).unwrap();
            }
            // A cycle of three, `tail` steps above the first.
            world
                .insert(chain[tail + 2], (Targets(chain[tail]),))
                .unwrap();
            let up: Vec<Entity> = world.ancestors::<Targets>(chain[0]).collect();
            assert_eq!(up, chain[1..]);
            chain
        });
        assert_eq!(chain.len(), tail + 3);
    }
}

/// A ring of a relation whose sources outlive their target may be closed;
/// despawning one of it despawns no other, each hook once.
#[test]
fn despawning_one_of_a_ring_of_watchers_despawns_it_alone() {
    for len in [1usize, 2, 3, 5] {
        for start in 0..len {
            let mut world = World::<Scene>::new();
            let ring: Vec<Entity> = (0..len)
                .map(|i| world.spawn((Name(i as u32), Act::Nothing)))
                .collect();
            for i in 0..len {
                world
                    .insert(ring[i], (Watches(ring[(i + 1) % len]),))
                    .unwrap();
            }
            assert_sound(&world);
            let up: Vec<Entity> = world.ancestors::<Watches>(ring[start]).collect();
            assert_eq!(up.len(), len - 1);
            let down: Vec<Entity> = world.descendants::<Watches>(ring[start]).collect();
            assert_eq!(down.len(), len - 1);
            let world = within_time(move || {
                world.despawn(ring[start]).unwrap();
                world
            });
            assert_eq!(world.len(), len - 1);
            assert_sound(&world);
        }
    }
}

#[test]
fn two_relations_to_one_target_and_to_itself() {
    let mut world = World::<Scene>::new();
    let t = world.spawn((Name(0),));
    let s = world.spawn((ChildOf(t), Targets(t), Watches(t), Name(1)));
    assert_eq!(world.sources::<ChildOf>(t), [s]);
    assert_eq!(world.sources::<Targets>(t), [s]);
    assert_eq!(world.sources::<Watches>(t), [s]);
    // All three to itself at once: `ChildOf` refuses, so nothing changes.
    let before = world.checksum();
    assert!(matches!(
        world.insert(s, (Targets(s), ChildOf(s), Watches(s))),
        Err(InsertError::Cycle(_))
    ));
    assert_eq!(world.checksum(), before);
    // The two that may.
    world.insert(s, (Targets(s), Watches(s))).unwrap();
    assert_eq!(
        world.archetype(t),
        Some(SceneMask::NAME | SceneMask::CHILDREN)
    );
    assert_sound(&world);
    world.insert(t, (Targets(s), Watches(s))).unwrap();
    assert_eq!(world.sources::<Targets>(s), [s, t]);
    assert_sound(&world);
    world.despawn(t).unwrap();
    assert!(world.is_empty());
    assert_sound(&world);
}

// ---------------------------------------------------------------------
// Hooks that change the entity they run on.
// ---------------------------------------------------------------------

/// Each action through a spawn, an insert, a command and a batch.
#[test]
fn hooks_acting_on_their_own_entity() {
    let acts = |other: Entity, parent: Entity| {
        [
            Act::Nothing,
            Act::DespawnSelf,
            Act::RemoveSelf,
            Act::ParentTo(parent),
            Act::Unparent,
            Act::SpawnChild,
            Act::DespawnOther(other),
            Act::Chain(3),
        ]
    };
    for way in 0..4 {
        for i in 0..8 {
            let mut world = World::<Scene>::new();
            let parent = world.spawn((Name(0),));
            let other = world.spawn((Name(1), ChildOf(parent)));
            let act = acts(other, parent)[i];
            let e = match way {
                0 => world.spawn((Act::Nothing, ChildOf(other), Name(2))),
                _ => world.spawn((ChildOf(other), Name(2))),
            };
            match way {
                0 => {
                    world.insert(e, (act,)).unwrap();
                }
                1 => {
                    world.insert(e, (act, Top)).unwrap();
                }
                2 => {
                    let mut buffer = CommandBuffer::<Scene>::new();
                    let mut commands = buffer.commands(&world);
                    commands.insert(e, (act,));
                    commands.spawn((act, ChildOf(e)));
                    commands.insert(e, (Spark(1),));
                    buffer.apply(&mut world);
                }
                _ => {
                    // Not listed: see `spawn_batch_whose_hook_despawns_*`.
                    world.spawn_batch((0..3).map(|_| (act, ChildOf(e))));
                }
            }
            assert_sound(&world);
            // The whole tree goes with its root, each hook once.
            world.despawn(parent).unwrap();
            assert_sound(&world);
            assert!(
                world.iter().all(|x| !world.has::<ChildOf>(x)),
                "way {way}, act {act:?}"
            );
        }
    }
}

/// BUG: a batch whose `on_add` hook despawns the entity. The hook's
/// commands are applied after each spawn, so the entity is gone when
/// `spawn_batch` returns; the list it returns (`Spawned`) then panics
/// ("a table row's entity is alive") instead of naming it.
#[test]
fn spawn_batch_whose_hook_despawns_the_entity_lists_it() {
    let mut world = World::<Scene>::new();
    let spawned: Vec<Entity> = world.spawn_batch([(Act::DespawnSelf,)]).collect();
    assert_eq!(spawned.len(), 1);
    assert!(!world.is_alive(spawned[0]));
    assert!(world.is_empty());
}

/// BUG: the same with two entities: the second spawn reuses the first's
/// freed index, and `Spawned` names the second entity twice (the first
/// handle it gives is not the entity the first spawn made).
#[test]
fn spawn_batch_whose_hook_despawns_the_entity_lists_each_once() {
    let mut world = World::<Scene>::new();
    let spawned: Vec<Entity> = world
        .spawn_batch([(Act::DespawnSelf,), (Act::Nothing,)])
        .collect();
    assert_eq!(spawned.len(), 2);
    assert_ne!(spawned[0], spawned[1], "one entity listed twice");
    assert!(!world.is_alive(spawned[0]));
    assert!(world.is_alive(spawned[1]));
}

#[test]
fn a_chain_of_hooks_builds_a_line_and_despawning_its_root_ends() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Act::Chain(50),));
    assert_eq!(world.len(), 51);
    assert_eq!(world.descendants::<ChildOf>(root).count(), 50);
    assert_sound(&world);
    let world = within_time(move || {
        world.despawn(root).unwrap();
        world
    });
    assert!(world.is_empty());
    assert_sound(&world);
    let lines = world.resource::<Journal>().lines();
    assert_eq!(lines.iter().filter(|l| l.starts_with("-Act")).count(), 51);
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("-ChildOf")).count(),
        50
    );
}

// ---------------------------------------------------------------------
// Commands naming entities despawned in the same buffer.
// ---------------------------------------------------------------------

#[test]
fn a_relation_to_an_entity_despawned_in_the_same_buffer() {
    // Before: the relation is left out.
    let mut world = World::<Scene>::new();
    let t = world.spawn((Name(0),));
    let s = world.spawn((Name(1),));
    let mut buffer = CommandBuffer::<Scene>::new();
    let mut commands = buffer.commands(&world);
    commands.despawn(t);
    commands.insert(s, (ChildOf(t), Spark(3)));
    let n = commands.spawn((ChildOf(t), Name(2)));
    buffer.apply(&mut world);
    assert!(world.is_alive(s) && !world.has::<ChildOf>(s) && world.has::<Spark>(s));
    assert!(world.is_alive(n) && !world.has::<ChildOf>(n));
    assert_sound(&world);
    // After: the source goes with its target.
    let mut world = World::<Scene>::new();
    let t = world.spawn((Name(0),));
    let mut buffer = CommandBuffer::<Scene>::new();
    let mut commands = buffer.commands(&world);
    let n = commands.spawn((ChildOf(t), Name(2)));
    let m = commands.spawn((Name(3),));
    commands.insert(m, (ChildOf(n),));
    commands.despawn(t);
    commands.insert(m, (Act::Nothing,));
    buffer.apply(&mut world);
    assert!(world.is_empty(), "{} left", world.len());
    assert_sound(&world);
    // A spawned target despawned before its source is spawned.
    let mut world = World::<Scene>::new();
    let mut buffer = CommandBuffer::<Scene>::new();
    let mut commands = buffer.commands(&world);
    let t = commands.spawn((Name(0),));
    commands.despawn(t);
    let n = commands.spawn((ChildOf(t), Name(2), Act::Nothing));
    buffer.apply(&mut world);
    assert_eq!(world.len(), 1);
    assert!(world.is_alive(n) && !world.has::<ChildOf>(n));
    assert_sound(&world);
}

// ---------------------------------------------------------------------
// despawn_batch with a target and its sources in any order.
// ---------------------------------------------------------------------

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            all.push(tail);
        }
    }
    all
}

#[test]
fn despawn_batch_of_a_tree_in_any_order() {
    for order in permutations(&[0, 1, 2, 3]) {
        let mut world = World::<Scene>::new();
        let root = world.spawn((Name(0), Act::Nothing, Spark(0)));
        let a = world.spawn((Name(1), ChildOf(root), Top));
        let a1 = world.spawn((Name(2), ChildOf(a), Watches(root), Spark(2)));
        let b = world.spawn((Name(3), Targets(a1), Watches(a1)));
        let keep = world.spawn((Name(4), Targets(root), Watches(a)));
        let ids = [root, a, a1, b];
        let list: Vec<Entity> = order.iter().map(|&i| ids[i]).collect();
        let mut twice = list.clone();
        twice.extend(&list);
        // Counts the entities of the list it despawned itself (not those a
        // despawn of their target took first): depends on the order.
        let counted = world.despawn_batch(&twice);
        assert!((2..=4).contains(&counted), "{order:?}: {counted}");
        assert_eq!(world.len(), 1);
        assert!(world.is_alive(keep));
        assert_eq!(world.archetype(keep), Some(SceneMask::NAME));
        assert_sound(&world);
    }
}

// ---------------------------------------------------------------------
// take and exchange with relations, lists and hooked components.
// ---------------------------------------------------------------------

#[test]
fn take_and_exchange_with_relations_lists_and_hooks() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(root), Act::Nothing, Spark(1)));
    let a1 = world.spawn((ChildOf(a), Name(2)));
    let w = world.spawn((Watches(a), Targets(a)));
    // Take a target with its list: the sources go as a despawn says.
    let (child_of, children, targeted_by, watchers, act, spark): (
        ChildOf,
        Children,
        TargetedBy,
        Watchers,
        Act,
        Spark,
    ) = world.take(a).unwrap();
    assert_eq!(child_of, ChildOf(root));
    // The lists come out as they were; their sources stay here.
    assert_eq!(children, Children(vec![a1]));
    assert_eq!(
        (targeted_by, watchers),
        (TargetedBy(vec![w]), Watchers(vec![w]))
    );
    assert_eq!((act, spark), (Act::Nothing, Spark(1)));
    assert!(!world.is_alive(a1));
    assert_eq!(world.archetype(w), Some(SceneMask::empty()));
    assert_eq!(world.archetype(root), Some(SceneMask::NAME));
    assert_sound(&world);
    // Exchange a hooked relation for another: the removal's hook, then the
    // addition's.
    let c = world.spawn((ChildOf(root), Name(5)));
    let d = world.spawn((Name(6),));
    let (old,): (ChildOf,) = world.exchange(c, (ChildOf(d), Act::Unparent)).unwrap();
    assert_eq!(old, ChildOf(root));
    // `Unparent` ran after the exchange: no relation left.
    assert!(!world.has::<ChildOf>(c));
    assert_sound(&world);
    // Exchange where the addition's hook despawns the entity.
    let e = world.spawn((Name(8), ChildOf(d)));
    let (name,): (Name,) = world.exchange(e, (Act::DespawnSelf,)).unwrap();
    assert_eq!(name, Name(8));
    assert!(!world.is_alive(e));
    assert!(world.sources::<ChildOf>(d).is_empty());
    assert_sound(&world);
}

// ---------------------------------------------------------------------
// Requirements with a chain and a hook.
// ---------------------------------------------------------------------

#[test]
fn a_requirement_chain_runs_the_hook_at_its_end_once() {
    let mut world = World::<Scene>::new();
    let e = world.spawn((Top,));
    assert_eq!(
        world.archetype(e),
        Some(SceneMask::TOP | SceneMask::MID | SceneMask::LOW)
    );
    let f = world.spawn((Low(4),));
    world.insert(f, (Top,)).unwrap();
    assert_eq!(world.get::<Low>(f), Some(&Low(4)));
    let g: Vec<Entity> = world.spawn_batch((0..3).map(|_| (Top, Name(1)))).collect();
    let mut buffer = CommandBuffer::<Scene>::new();
    let mut commands = buffer.commands(&world);
    let h = commands.spawn((Mid(2),));
    commands.insert(h, (Top,));
    commands.remove::<Low>(g[1]);
    commands.insert(g[1], (Mid(3),));
    buffer.apply(&mut world);
    // An insert of Mid, even over one, brings the missing Low back.
    assert_eq!(world.get::<Low>(g[1]), Some(&Low(0)));
    assert!(world.has::<Low>(h));
    let adds = world
        .resource::<Journal>()
        .lines()
        .iter()
        .filter(|l| l.starts_with("+Low"))
        .count();
    assert_eq!(adds, 7);
    assert_sound(&world);
    world.clear();
    assert!(world.is_empty());
}

// ---------------------------------------------------------------------
// clear, clone_from.
// ---------------------------------------------------------------------

#[test]
fn clear_then_reuse_keeps_no_relation_behind() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(root), Watches(root), Spark(1)));
    world.clear();
    // Stale handles are refused.
    assert_eq!(
        world.insert(a, (Name(1),)),
        Err(InsertError::NoSuchEntity(a))
    );
    let x = world.spawn((Name(1),));
    assert_eq!(
        world.insert(x, (ChildOf(root),)),
        Err(InsertError::NoSuchEntity(root))
    );
    let y = world.spawn((ChildOf(x), Watches(x)));
    assert_eq!(world.sources::<ChildOf>(x), [y]);
    assert_eq!(world.sources::<Watches>(x), [y]);
    // The journal survives clear; only hooks on later changes count, so
    // check the relations only.
    assert!(relations_agree(&world).is_ok());
    world.despawn(x).unwrap();
    assert!(world.is_empty());
    assert!(relations_agree(&world).is_ok());
}

fn program_a(world: &mut World<Scene>) -> Vec<Entity> {
    let root = world.spawn((Name(0), Act::Nothing));
    let kids: Vec<Entity> = (1..6)
        .map(|i| world.spawn((Name(i), ChildOf(root), Watches(root))))
        .collect();
    world.insert(kids[2], (Targets(kids[0]),)).unwrap();
    world.insert(kids[0], (ChildOf(kids[4]),)).unwrap();
    kids
}

fn program_b(world: &mut World<Scene>) {
    let r = world.spawn((Name(50),));
    for i in 0..9 {
        world.spawn((ChildOf(r), Spark(i), Top));
    }
    world.spawn((Act::Chain(4),));
}

fn continuation(world: &mut World<Scene>) {
    let live: Vec<Entity> = world.iter().collect();
    for (i, &e) in live.iter().enumerate() {
        if i % 3 == 0 {
            let _ = world.insert(e, (ChildOf(live[(i * 7 + 1) % live.len()]),));
        }
    }
    world.spawn((Act::SpawnChild, Watches(live[0])));
    world.despawn(live[1]).unwrap();
}

#[test]
fn clone_from_between_worlds_whose_relations_differ() {
    let mut a = World::<Scene>::new();
    program_a(&mut a);
    let mut b = World::<Scene>::new();
    program_b(&mut b);
    assert_sound(&a);
    assert_sound(&b);
    let reference = a.clone();
    b.clone_from(&a);
    assert_eq!(b.checksum(), reference.checksum());
    assert_sound(&b);
    continuation(&mut a);
    continuation(&mut b);
    assert_eq!(a.checksum(), b.checksum());
    assert_sound(&b);
    // And back: the bigger state over the smaller.
    let mut c = World::<Scene>::new();
    program_b(&mut c);
    let mut d = World::<Scene>::new();
    program_a(&mut d);
    d.clone_from(&c);
    continuation(&mut c);
    continuation(&mut d);
    assert_eq!(c.checksum(), d.checksum());
    assert_sound(&d);
}

// ---------------------------------------------------------------------
// Parallel stages: the same world on 1, 2 and 4 threads as in program order.
// ---------------------------------------------------------------------

fn adopt(roots: Query<(Entity, &Name), Without<ChildOf>>, mut commands: Commands<Scene>) {
    for (entity, name) in roots.iter() {
        match name.0 % 4 {
            0 => {
                commands.spawn((ChildOf(entity), Name(name.0 + 1), Act::Chain(1)));
            }
            1 => commands.insert(entity, (Act::SpawnChild,)),
            2 => commands.insert(entity, (Top, Spark(name.0))),
            _ => {}
        }
    }
}

fn watch(mut names: Query<(Entity, &Name)>, mut commands: Commands<Scene>) {
    names.par_for_each_mut_with(&mut commands, |commands, (entity, name)| {
        if name.0 % 5 == 1 {
            commands.insert(entity, (Watches(entity),));
        }
        if name.0 % 11 == 3 {
            commands.spawn((Watches(entity), Act::Unparent, Spark(1)));
        }
        if name.0 % 13 == 4 {
            commands.remove::<Spark>(entity);
        }
    });
}

fn prune(
    mut children: Query<(Entity, &ChildOf, &Name)>,
    mut despawner: Despawner<Scene>,
    mut commands: Commands<Scene>,
) {
    children.par_for_each_mut_with(&mut despawner, |despawner, (entity, parent, name)| {
        if name.0 % 7 == 2 {
            despawner.despawn(parent.0);
        }
        if name.0 % 9 == 5 {
            despawner.despawn(entity);
        }
    });
    for (entity, parent, name) in children.iter() {
        if name.0 % 6 == 1 {
            commands.insert(parent.0, (ChildOf(entity),));
        }
    }
}

fn grow(mut names: Query<&mut Name>) {
    names.for_each_mut(|name| name.0 = name.0.wrapping_mul(3).wrapping_add(1) % 1000);
}

fn count(mut lows: Query<&mut Low>) {
    lows.for_each_mut(|low| low.0 += 1);
}

fn build() -> (World<Scene>, Schedule<Scene>) {
    let mut world = World::<Scene>::new();
    world.spawn_batch((0..120).map(|i| (Name(i),)));
    let mut schedule = Schedule::<Scene>::new();
    schedule
        .add(adopt)
        .add(watch)
        .add(grow)
        .add(count)
        .add(prune);
    (world, schedule)
}

#[test]
fn relations_and_hooks_in_parallel_stages_match_program_order() {
    let (mut expected, mut sequential) = build();
    for _ in 0..6 {
        sequential.run_sequential(&mut expected);
        assert_sound(&expected);
    }
    assert!(expected.len() > 50, "{}", expected.len());
    for threads in [1, 2, 4] {
        let (mut world, mut schedule) = build();
        support::on_threads(threads, || {
            for _ in 0..6 {
                schedule.run(&mut world);
            }
        });
        assert_sound(&world);
        assert_eq!(world.checksum(), expected.checksum(), "{threads} threads");
    }
}

/// An `on_remove` hook of an entity being despawned spawns a source of it:
/// the relation is left out (its target is gone), the entity stays.
#[test]
fn a_remove_hook_spawning_a_source_of_its_dying_entity() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(root), Act::SpawnChild));
    assert_eq!(world.sources::<ChildOf>(a).len(), 1);
    world.despawn(root).unwrap();
    assert_eq!(world.len(), 1);
    let left = world.iter().next().unwrap();
    assert_eq!(world.archetype(left), Some(SceneMask::NAME));
    assert_eq!(world.get::<Name>(left), Some(&Name(8)));
    assert_sound(&world);
    // Removed, not despawned: the new source links.
    let b = world.spawn((Act::SpawnChild,));
    world.remove::<Act>(b).unwrap();
    assert_eq!(world.sources::<ChildOf>(b).len(), 2);
    assert_sound(&world);
}

/// A relation to an entity reserved by a buffer not applied yet: whatever
/// the world makes of it, both sides agree once the buffer is applied.
#[test]
fn a_relation_to_a_reserved_entity() {
    let mut world = World::<Scene>::new();
    let mut buffer = CommandBuffer::<Scene>::new();
    let x = buffer.commands(&world).spawn((Name(1), Act::Nothing));
    let y = buffer.commands(&world).spawn((Name(2),));
    let s = world.spawn((ChildOf(x), Name(3)));
    let t = world.spawn((Name(4),));
    let inserted = world.insert(t, (Targets(y),));
    buffer.apply(&mut world);
    assert_sound(&world);
    assert_eq!(world.get::<Name>(x), Some(&Name(1)));
    assert_eq!(world.get::<Name>(y), Some(&Name(2)));
    assert_eq!(
        world.has::<Targets>(t),
        inserted.is_ok(),
        "{inserted:?}, {:?}",
        world.archetype(t)
    );
    world.despawn(x).unwrap();
    // Linked, it went with its target; not linked, it has no relation.
    assert!(!world.is_alive(s) || !world.has::<ChildOf>(s));
    assert_sound(&world);
}
