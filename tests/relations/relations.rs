//! Relations declared in the schema (issue 27): the world keeps each
//! target's inverse list in step with its sources' relations through every
//! path (world methods, commands, systems run in parallel), despawns or
//! orphans sources as declared, and reads the hierarchy in a deterministic
//! order. Requirements and hooks are in tests/world/lifecycle.rs.

use ecs::prelude::*;

use ecs::command::CommandBuffer;

use ecs::relation::RelationOf;

use ecs::world::InsertError;
use ecs::{checksum::StableHash, relation::RelationCycle, world::ExchangeError};

#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Children(Vec<Entity>);
/// A second relation, whose sources only lose it when the target goes.
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Targets(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct TargetedBy(Vec<Entity>);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Name(u32);

#[derive(Schema)]
struct Scene {
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    #[ecs(relation(inverse = targeted_by))]
    targets: Targets,
    targeted_by: TargetedBy,
    name: Name,
}

/// Every relation of every live entity has its source in its target's list,
/// exactly once, and every list holds exactly the sources pointing at it.
fn assert_consistent(world: &World<Scene>) {
    fn check<R: RelationOf<Scene>>(world: &World<Scene>) {
        let mut pointing = 0;
        for entity in world.iter() {
            if let Some(target) = world.target::<R>(entity) {
                assert!(
                    world.is_alive(target),
                    "{entity:?} points at dead {target:?}"
                );
                let sources = world.sources::<R>(target);
                assert_eq!(sources.iter().filter(|&&s| s == entity).count(), 1);
                pointing += 1;
            }
        }
        let mut listed = 0;
        for entity in world.iter() {
            if let Some(list) = world.get::<R::Inverse>(entity) {
                assert!(!list.sources().is_empty(), "an empty list is removed");
                for &source in list.sources() {
                    assert_eq!(world.target::<R>(source), Some(entity));
                }
                listed += list.sources().len();
            }
        }
        assert_eq!(pointing, listed);
    }
    check::<ChildOf>(world);
    check::<Targets>(world);
}

#[test]
fn spawning_sources_fills_the_targets_list_in_order() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((Name(1), ChildOf(root)));
    let b = world.spawn((ChildOf(root), Name(2)));
    let c = world.spawn((ChildOf(root),));
    assert_eq!(world.sources::<ChildOf>(root), [a, b, c]);
    assert_eq!(world.get::<Children>(root), Some(&Children(vec![a, b, c])));
    assert_eq!(world.target::<ChildOf>(b), Some(root));
    assert!(world.sources::<ChildOf>(a).is_empty());
    assert!(!world.has::<Children>(a));
    assert_consistent(&world);
}

#[test]
fn replacing_a_relation_moves_the_source_between_lists() {
    let mut world = World::<Scene>::new();
    let (p, q) = (world.spawn((Name(0),)), world.spawn((Name(1),)));
    let a = world.spawn((ChildOf(p),));
    let b = world.spawn((ChildOf(p),));
    world.insert(a, (ChildOf(q),)).unwrap();
    assert_eq!(world.sources::<ChildOf>(p), [b]);
    assert_eq!(world.sources::<ChildOf>(q), [a]);
    // The same target again changes nothing, not even the order.
    world.insert(b, (ChildOf(p), Name(7))).unwrap();
    assert_eq!(world.sources::<ChildOf>(p), [b]);
    // Moving the last source takes the emptied list off.
    world.insert(b, (ChildOf(q),)).unwrap();
    assert!(!world.has::<Children>(p));
    assert_eq!(world.sources::<ChildOf>(q), [a, b]);
    assert_consistent(&world);
}

#[test]
fn removing_a_relation_unlinks_it() {
    let mut world = World::<Scene>::new();
    let p = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(p), Name(1)));
    let b = world.spawn((ChildOf(p),));
    assert_eq!(world.remove::<ChildOf>(a), Ok(Some(ChildOf(p))));
    assert_eq!(world.sources::<ChildOf>(p), [b]);
    assert_eq!(world.remove_bundle::<(ChildOf, Name)>(b), Ok(None));
    assert_eq!(world.remove::<ChildOf>(b), Ok(Some(ChildOf(p))));
    assert!(!world.has::<Children>(p));
    assert_eq!(world.remove::<ChildOf>(b), Ok(None));
    assert_consistent(&world);
}

#[test]
fn a_relation_to_a_dead_target_is_refused_and_changes_nothing() {
    let mut world = World::<Scene>::new();
    let p = world.spawn((Name(0),));
    let gone = world.spawn((Name(1),));
    world.despawn(gone).unwrap();
    let a = world.spawn((ChildOf(p), Name(2)));
    let before = world.checksum();
    assert_eq!(
        world.insert(a, (ChildOf(gone), Name(9))),
        Err(InsertError::NoSuchEntity(gone))
    );
    assert_eq!(world.checksum(), before);
    assert_eq!(world.get::<Name>(a), Some(&Name(2)));
    // Spawning cannot fail that way: the entity is spawned without it.
    let orphan = world.spawn((ChildOf(gone), Name(3)));
    assert!(!world.has::<ChildOf>(orphan));
    assert_eq!(world.get::<Name>(orphan), Some(&Name(3)));
    assert_consistent(&world);
}

#[test]
fn despawning_a_source_unlinks_it() {
    let mut world = World::<Scene>::new();
    let p = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(p),));
    let b = world.spawn((ChildOf(p),));
    world.despawn(a).unwrap();
    assert_eq!(world.sources::<ChildOf>(p), [b]);
    world.despawn(b).unwrap();
    assert!(!world.has::<Children>(p));
    assert_eq!(world.despawn(b), Err(NoSuchEntity(b)));
    assert_consistent(&world);
}

#[test]
fn despawning_a_target_despawns_or_orphans_its_sources_as_declared() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(root),));
    let a1 = world.spawn((ChildOf(a),));
    let a2 = world.spawn((ChildOf(a), Targets(root)));
    let b = world.spawn((ChildOf(root),));
    let other = world.spawn((Name(5),));
    // `Targets` removes: the watcher outlives its target.
    let watcher = world.spawn((Targets(a), Name(6)));
    let _ = world.spawn((Targets(other),));
    world.despawn(root).unwrap();
    for gone in [root, a, a1, a2, b] {
        assert!(!world.is_alive(gone));
    }
    assert!(world.is_alive(watcher));
    assert!(!world.has::<Targets>(watcher));
    assert_eq!(world.len(), 3);
    assert_consistent(&world);
}

/// Removing an inverse list returns it as it was, and its sources lose
/// their relation, whatever the despawn rule: none is despawned.
#[test]
fn removing_an_inverse_list_returns_it_and_unlinks_its_sources() {
    let mut world = World::<Scene>::new();
    let p = world.spawn((Name(0),));
    let a = world.spawn((Targets(p),));
    let b = world.spawn((Targets(p),));
    assert_eq!(
        world.remove::<TargetedBy>(p),
        Ok(Some(TargetedBy(vec![a, b])))
    );
    assert!(!world.has::<Targets>(a) && !world.has::<Targets>(b));
    assert_consistent(&world);
    // A hierarchy: the children become roots, with their own children.
    let root = world.spawn((Name(1),));
    let a = world.spawn((ChildOf(root), Name(2)));
    let b = world.spawn((ChildOf(root),));
    let a1 = world.spawn((ChildOf(a),));
    assert_eq!(
        world.remove::<Children>(root),
        Ok(Some(Children(vec![a, b])))
    );
    assert!(!world.has::<ChildOf>(a) && !world.has::<ChildOf>(b));
    assert_eq!(world.sources::<ChildOf>(a), [a1]);
    assert_consistent(&world);
    world.despawn(root).unwrap();
    assert!(world.is_alive(a) && world.is_alive(b) && world.is_alive(a1));
    // In a bundle, and through an exchange.
    assert_eq!(
        world.remove_bundle::<(Children, Name)>(a),
        Ok(Some((Children(vec![a1]), Name(2))))
    );
    assert!(!world.has::<ChildOf>(a1));
    let c = world.spawn((ChildOf(b),));
    let (list,): (Children,) = world.exchange(b, (Name(3),)).unwrap();
    assert_eq!(list, Children(vec![c]));
    assert!(!world.has::<ChildOf>(c));
    assert_consistent(&world);
    // Through a command.
    let d = world.spawn((ChildOf(c),));
    let mut buffer = CommandBuffer::<Scene>::new();
    buffer.commands(&world).remove::<Children>(c);
    buffer.apply(&mut world);
    assert!(world.is_alive(d) && !world.has::<ChildOf>(d));
    assert_consistent(&world);
}

#[test]
fn ancestors_and_descendants_walk_in_a_fixed_order() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(root),));
    let b = world.spawn((ChildOf(root),));
    let a1 = world.spawn((ChildOf(a),));
    let a2 = world.spawn((ChildOf(a),));
    let a1x = world.spawn((ChildOf(a1),));
    let b1 = world.spawn((ChildOf(b),));
    let down: Vec<Entity> = world.descendants::<ChildOf>(root).collect();
    assert_eq!(down, [a, a1, a1x, a2, b, b1]);
    let up: Vec<Entity> = world.ancestors::<ChildOf>(a1x).collect();
    assert_eq!(up, [a1, a, root]);
    assert_eq!(world.ancestors::<ChildOf>(root).count(), 0);
    assert_eq!(world.descendants::<ChildOf>(b1).count(), 0);
}

/// The error of an insert of `ChildOf(target)` into `source` that would
/// close a cycle.
fn cycle(source: Entity, target: Entity) -> Result<(), InsertError> {
    Err(InsertError::Cycle(RelationCycle {
        relation: "ChildOf",
        source,
        target,
    }))
}

/// A relation whose targets despawn their sources is a tree: an insert
/// that would close a cycle in it (of two, of more, an entity to itself) is
/// refused, naming both entities, and changes nothing.
#[test]
fn an_insert_closing_a_cycle_in_a_hierarchy_is_refused() {
    let mut world = World::<Scene>::new();
    let a = world.spawn((Name(0),));
    let b = world.spawn((ChildOf(a), Name(1)));
    let c = world.spawn((ChildOf(b),));
    let d = world.spawn((ChildOf(c),));
    let before = world.checksum();
    assert_eq!(world.insert(a, (ChildOf(b), Name(9))), cycle(a, b));
    assert_eq!(world.insert(a, (ChildOf(d),)), cycle(a, d));
    assert_eq!(world.insert(b, (ChildOf(d),)), cycle(b, d));
    assert_eq!(world.insert(b, (ChildOf(b),)), cycle(b, b));
    assert_eq!(world.insert(a, (ChildOf(a),)), cycle(a, a));
    // A derived bundle names its relations alike.
    #[derive(Bundle)]
    struct Node {
        name: Name,
        child_of: ChildOf,
    }
    let node = Node {
        name: Name(5),
        child_of: ChildOf(c),
    };
    assert_eq!(world.insert(b, node), cycle(b, c));
    assert_eq!(world.checksum(), before);
    assert_eq!(world.get::<Name>(a), Some(&Name(0)));
    // Moving a subtree beside itself is no cycle; under itself is one.
    let e = world.spawn((ChildOf(a),));
    world.insert(c, (ChildOf(e),)).unwrap();
    assert_eq!(world.ancestors::<ChildOf>(d).collect::<Vec<_>>(), [c, e, a]);
    assert_eq!(world.insert(e, (ChildOf(d),)), cycle(e, d));
    world.insert(b, (ChildOf(d),)).unwrap();
    assert_consistent(&world);
    // The messages name both entities, or the one.
    let error = world.insert(a, (ChildOf(b),)).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot insert: entity {a}'s `ChildOf` would point at entity {b}, which is below it \
             (the `ChildOf` of entity {b} leads up to entity {a}), closing a cycle; `ChildOf` \
             despawns its sources with their target (`on_target_despawn = despawn`), so it \
             must form a tree. Nothing changed"
        )
    );
    let error = world.insert(a, (ChildOf(a),)).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot insert: entity {a}'s `ChildOf` would point at itself, closing a cycle; \
             `ChildOf` despawns its sources with their target (`on_target_despawn = despawn`), \
             so it must form a tree. Nothing changed"
        )
    );
    // An exchange is refused alike, and hands the bundle back.
    let error = world.exchange::<(Name,), _>(a, (ChildOf(d),)).unwrap_err();
    assert_eq!(error.entity(), a);
    assert!(matches!(
        error,
        ExchangeError::Cycle { cycle: RelationCycle { source, target, .. }, .. }
            if source == a && target == d
    ));
    assert_eq!(error.into_bundle(), (ChildOf(d),));
    assert_eq!(world.get::<Name>(a), Some(&Name(0)));
    assert_consistent(&world);
}

/// A refused cycle's error says the cycle in its text, once: it is not
/// also the error's source.
#[test]
fn a_cycle_error_says_the_cycle_once() {
    let mut world = World::<Scene>::new();
    let a = world.spawn((Name(0),));
    let b = world.spawn((ChildOf(a),));
    let cycle = RelationCycle {
        relation: "ChildOf",
        source: a,
        target: b,
    };
    let inserted = world.insert(a, (ChildOf(b),)).unwrap_err();
    assert_eq!(
        support::each_message_once(&inserted),
        [format!("cannot insert: {cycle}. Nothing changed")]
    );
    let exchanged = world.exchange::<(Name,), _>(a, (ChildOf(b),)).unwrap_err();
    assert_eq!(
        support::each_message_once(&exchanged),
        [format!(
            "cannot exchange components of entity {a}: {cycle}. Nothing changed; the bundle to \
             insert is in the error"
        )]
    );
    // The cycle alone is an error too, to pass on with `?`.
    let boxed: Box<dyn std::error::Error> = cycle.into();
    assert_eq!(support::each_message_once(&*boxed), [cycle.to_string()]);
}

/// Commands have no caller to refuse: a relation that would close a cycle
/// in a hierarchy is left out, as one naming a dead target (the rest of the
/// bundle goes in; the entity keeps the relation it had, if any).
#[test]
fn a_command_closing_a_cycle_in_a_hierarchy_leaves_that_relation_out() {
    let mut world = World::<Scene>::new();
    let a = world.spawn((Name(0),));
    let b = world.spawn((ChildOf(a),));
    let c = world.spawn((ChildOf(b),));
    let x = world.spawn((ChildOf(a),));
    let mut buffer = CommandBuffer::<Scene>::new();
    {
        let mut commands = buffer.commands(&world);
        commands.insert(a, (ChildOf(c), Name(7)));
        commands.insert(b, (ChildOf(b),));
        // b (with c) under x is fine; x under c, then, is a cycle.
        commands.insert(b, (ChildOf(x),));
        commands.insert(x, (ChildOf(c), Name(8)));
    }
    buffer.apply(&mut world);
    assert_eq!(world.get::<Name>(a), Some(&Name(7)));
    assert!(!world.has::<ChildOf>(a));
    assert_eq!(world.target::<ChildOf>(b), Some(x));
    assert_eq!(world.get::<Name>(x), Some(&Name(8)));
    assert_eq!(world.target::<ChildOf>(x), Some(a));
    assert_eq!(world.ancestors::<ChildOf>(c).collect::<Vec<_>>(), [b, x, a]);
    assert_consistent(&world);
}

/// A spawn cannot fail that way either: a relation naming the entity being
/// spawned (its id foreseen on a clone) is left out, as is one that would
/// close a cycle through another entity of the same batch.
#[test]
fn a_spawn_closing_a_cycle_in_a_hierarchy_leaves_that_relation_out() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let next = |world: &World<Scene>, n: usize| -> Vec<Entity> {
        let mut probe = world.clone();
        probe.spawn_batch((0..n).map(|_| (Name(0),))).collect()
    };
    let own = next(&world, 1)[0];
    assert_eq!(world.spawn((ChildOf(own), Name(1))), own);
    assert!(!world.has::<ChildOf>(own));
    assert_eq!(world.get::<Name>(own), Some(&Name(1)));
    // Two of a batch naming each other: the first is linked before the
    // second exists, as if spawned one by one, so the second keeps it.
    let pair = next(&world, 2);
    let spawned: Vec<Entity> = world
        .spawn_batch([(ChildOf(pair[1]),), (ChildOf(pair[0]),)])
        .collect();
    assert_eq!(spawned, pair);
    assert_eq!(world.target::<ChildOf>(pair[1]), Some(pair[0]));
    assert!(!world.has::<ChildOf>(pair[0]));
    // Through commands: the spawn foreseen names itself.
    let own = next(&world, 1)[0];
    let mut buffer = CommandBuffer::<Scene>::new();
    buffer.commands(&world).spawn((ChildOf(own), Name(2)));
    buffer.apply(&mut world);
    assert_eq!(world.get::<Name>(own), Some(&Name(2)));
    assert!(!world.has::<ChildOf>(own));
    assert_eq!(world.sources::<ChildOf>(root), []);
    assert_consistent(&world);
}

/// A relation whose sources outlive their target (`remove`) may form
/// cycles; the walks up and down list each
/// entity once and stop where they would come round again.
#[test]
fn other_relations_may_form_cycles_and_walks_list_each_entity_once() {
    let mut world = World::<Scene>::new();
    let [a, b, c, d] = [0, 1, 2, 3].map(|i| world.spawn((Name(i),)));
    // a -> b -> c -> d -> b: a tail, and a cycle of three.
    world.insert(a, (Targets(b),)).unwrap();
    world.insert(b, (Targets(c),)).unwrap();
    world.insert(c, (Targets(d),)).unwrap();
    world.insert(d, (Targets(b),)).unwrap();
    assert_consistent(&world);
    let up = |world: &World<Scene>, e| world.ancestors::<Targets>(e).collect::<Vec<_>>();
    let down = |world: &World<Scene>, e| world.descendants::<Targets>(e).collect::<Vec<_>>();
    assert_eq!(up(&world, a), [b, c, d]);
    assert_eq!(up(&world, b), [c, d]);
    assert_eq!(up(&world, d), [b, c]);
    assert_eq!(down(&world, b), [a, d, c]);
    assert_eq!(down(&world, c), [b, a, d]);
    assert_eq!(down(&world, a), []);
    // Of two, and an entity its own target.
    world.insert(d, (Targets(c),)).unwrap();
    assert_eq!(up(&world, c), [d]);
    assert_eq!(down(&world, c), [b, a, d]);
    world.insert(d, (Targets(d),)).unwrap();
    assert_eq!(up(&world, d), []);
    assert_eq!(down(&world, d), [c, b, a]);
    assert_consistent(&world);
    // Despawning one of a cycle despawns no other.
    world.despawn(c).unwrap();
    assert_eq!(world.len(), 3);
    assert_eq!(up(&world, a), [b]);
    assert_consistent(&world);
}

/// A random mix of relation changes through world methods and commands,
/// checked against lists kept by hand.
#[test]
fn random_changes_keep_both_sides_in_step_with_a_model() {
    let mut rng = support::Rng::new(27);
    let mut world = World::<Scene>::new();
    // The model: each live entity's parent, in insertion order of the
    // relation per parent.
    let mut parent_of: std::collections::BTreeMap<Entity, Entity> = Default::default();
    let mut order: Vec<(Entity, Entity)> = Vec::new(); // (child, parent), in link order
    let mut live: Vec<Entity> = Vec::new();
    for step in 0..3000 {
        let pick =
            |rng: &mut support::Rng, live: &[Entity]| live[rng.below(live.len() as u64) as usize];
        match rng.below(6) {
            0 | 1 if !live.is_empty() => {
                let parent = pick(&mut rng, &live);
                let child = world.spawn((ChildOf(parent), Name(step)));
                parent_of.insert(child, parent);
                order.push((child, parent));
                live.push(child);
            }
            2 if !live.is_empty() => {
                let (child, parent) = (pick(&mut rng, &live), pick(&mut rng, &live));
                // A cycle: `child` is `parent` or one of its ancestors.
                let mut up = Some(parent);
                while up.is_some_and(|at| at != child) {
                    up = parent_of.get(&up.unwrap()).copied();
                }
                let inserted = world.insert(child, (ChildOf(parent),));
                assert_eq!(inserted.is_err(), up.is_some(), "step {step}");
                if inserted.is_ok() && parent_of.get(&child) != Some(&parent) {
                    order.retain(|&(c, _)| c != child);
                    order.push((child, parent));
                    parent_of.insert(child, parent);
                }
            }
            3 if !live.is_empty() => {
                let child = pick(&mut rng, &live);
                world.remove::<ChildOf>(child).unwrap();
                parent_of.remove(&child);
                order.retain(|&(c, _)| c != child);
            }
            4 if !live.is_empty() => {
                // Despawn with commands: the subtree goes (despawn rule).
                let gone = pick(&mut rng, &live);
                let mut buffer = CommandBuffer::<Scene>::new();
                buffer.commands(&world).despawn(gone);
                buffer.apply(&mut world);
                let mut dead = vec![gone];
                let mut i = 0;
                while i < dead.len() {
                    let d = dead[i];
                    for &(c, p) in &order {
                        // Along a cycle, each entity once.
                        if p == d && !dead.contains(&c) {
                            dead.push(c);
                        }
                    }
                    i += 1;
                }
                live.retain(|e| !dead.contains(e));
                order.retain(|(c, p)| !dead.contains(c) && !dead.contains(p));
                parent_of.retain(|c, p| !dead.contains(c) && !dead.contains(p));
            }
            _ => live.push(world.spawn((Name(step),))),
        }
        if step % 50 == 0 {
            assert_consistent(&world);
            for &entity in &live {
                let expected: Vec<Entity> = order
                    .iter()
                    .filter(|&&(_, p)| p == entity)
                    .map(|&(c, _)| c)
                    .collect();
                assert_eq!(world.sources::<ChildOf>(entity), expected, "step {step}");
                assert_eq!(
                    world.target::<ChildOf>(entity),
                    parent_of.get(&entity).copied()
                );
            }
        }
    }
    assert_eq!(world.len(), live.len());
}

/// Systems that build and cut a hierarchy through commands, some from
/// parallel chunks: `run` on any number of threads ends in the same world,
/// bit for bit, as `run_sequential`.
#[test]
fn systems_changing_relations_in_parallel_match_program_order() {
    fn adopt(roots: Query<(Entity, &Name), Without<ChildOf>>, mut commands: Commands<Scene>) {
        for (entity, name) in roots.iter() {
            if name.0 % 3 == 0 {
                commands.spawn((ChildOf(entity), Name(name.0 + 1)));
            }
        }
    }
    fn watch(mut names: Query<(Entity, &Name)>, mut commands: Commands<Scene>) {
        names.par_for_each_mut_with(&mut commands, |commands, (entity, name)| {
            if name.0 % 5 == 1 {
                commands.insert(entity, (Targets(entity),));
            }
        });
    }
    fn prune(children: Query<(Entity, &ChildOf, &Name)>, mut commands: Commands<Scene>) {
        for (entity, _, name) in children.iter() {
            if name.0 % 7 == 2 {
                commands.despawn(entity);
            }
        }
    }
    fn grow(mut names: Query<&mut Name>) {
        names.for_each_mut(|name| name.0 = name.0 * 3 + 1);
    }
    let build = || {
        let mut world = World::<Scene>::new();
        world.spawn_batch((0..200).map(|i| (Name(i),)));
        let mut schedule = Schedule::<Scene>::new();
        schedule.add(adopt).add(watch).add(prune).add(grow);
        (world, schedule)
    };
    let (mut expected, mut sequential) = build();
    for _ in 0..6 {
        sequential.run_sequential(&mut expected);
    }
    assert_consistent(&expected);
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (mut world, mut schedule) = build();
        pool.install(|| {
            for _ in 0..6 {
                schedule.run(&mut world);
            }
        });
        assert_eq!(world.checksum(), expected.checksum(), "{threads} threads");
        assert_consistent(&world);
    }
}

/// A command naming a dead target leaves that relation out (there is no
/// caller to refuse): the rest of its bundle goes in, an entity without the
/// relation stays without it, and one with it keeps the one it had.
#[test]
fn a_command_naming_a_dead_target_leaves_that_relation_out() {
    let mut world = World::<Scene>::new();
    let p = world.spawn((Name(0),));
    let a = world.spawn((Name(1), ChildOf(p)));
    let b = world.spawn((Name(4),));
    let mut buffer = CommandBuffer::<Scene>::new();
    {
        let mut commands = buffer.commands(&world);
        let gone = commands.spawn((Name(2),));
        commands.despawn(gone);
        commands.insert(a, (ChildOf(gone), Name(3)));
        commands.insert(b, (ChildOf(gone), Name(5)));
    }
    buffer.apply(&mut world);
    assert_eq!(world.get::<Name>(a), Some(&Name(3)));
    assert_eq!(world.target::<ChildOf>(a), Some(p));
    assert_eq!(world.sources::<ChildOf>(p), [a]);
    assert_eq!(world.get::<Name>(b), Some(&Name(5)));
    assert!(!world.has::<ChildOf>(b));
    assert_consistent(&world);
}

#[test]
fn clones_and_checksums_carry_relations_and_continue_alike() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    for i in 0..10 {
        world.spawn((ChildOf(root), Name(i)));
    }
    let mut copy = world.clone();
    assert_eq!(copy.checksum(), world.checksum());
    for w in [&mut world, &mut copy] {
        let first = w.sources::<ChildOf>(root)[3];
        w.despawn(first).unwrap();
        w.spawn((ChildOf(first), Name(99)));
    }
    assert_eq!(copy.checksum(), world.checksum());
    assert_eq!(
        copy.sources::<ChildOf>(root),
        world.sources::<ChildOf>(root)
    );
    assert_consistent(&copy);
}

/// Saves keep entity ids exact, so relations load as they were, with
/// nothing to remap; a save whose two sides disagree is refused
/// (`cargo test -p ecs-tests --features serde --test relations`).
#[cfg(feature = "serde")]
mod save {
    use super::*;
    use ecs::world::LoadError;
    use serde_json::Value;

    fn tree() -> World<Scene> {
        let mut world = World::<Scene>::new();
        let root = world.spawn((Name(0),));
        for i in 1..40 {
            let parent = world.iter().nth((i * 7 % i) as usize).unwrap_or(root);
            let e = world.spawn((ChildOf(parent), Name(i)));
            if i % 3 == 0 {
                world.insert(e, (Targets(root),)).unwrap();
            }
            if i % 11 == 0 {
                world.despawn(e).unwrap();
            }
        }
        world
    }

    #[test]
    fn a_loaded_world_keeps_its_relations_and_changes_them_alike() {
        let mut world = tree();
        let bytes = postcard::to_stdvec(&world).unwrap();
        let mut loaded: World<Scene> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(loaded.checksum(), world.checksum());
        assert_consistent(&loaded);
        for w in [&mut world, &mut loaded] {
            let victim = w.iter().nth(5).unwrap();
            w.despawn(victim).unwrap();
            let root = w.iter().next().unwrap();
            let moved = w.iter().nth(9).unwrap();
            w.insert(moved, (ChildOf(root),)).unwrap();
            w.spawn((ChildOf(moved), Name(100)));
        }
        assert_eq!(loaded.checksum(), world.checksum());
        assert_consistent(&loaded);
    }

    /// The JSON save of a root with two children, edited by `edit`, and
    /// the reason `World::load` gives for refusing it.
    fn refused(edit: impl FnOnce(&mut Vec<Value>)) -> String {
        let mut world = World::<Scene>::new();
        let root = world.spawn((Name(0),));
        world.spawn((ChildOf(root), Name(1)));
        world.spawn((ChildOf(root), Name(2)));
        let mut save = serde_json::to_value(&world).unwrap();
        assert!(serde_json::from_value::<World<Scene>>(save.clone()).is_ok());
        // The root's table: the one whose first column is `Children`.
        let tables = save[3].as_array_mut().unwrap();
        let table = tables
            .iter_mut()
            .find(|t| t[0].as_u64().unwrap() & 2 != 0)
            .unwrap();
        let list = table[2][0][0].as_array_mut().unwrap();
        edit(list);
        match World::<Scene>::load(save) {
            Err(LoadError::Invalid { reason, .. }) => reason,
            Err(error) => panic!("refused without a reason: {error}"),
            Ok(_) => panic!("the edited save loaded"),
        }
    }

    #[test]
    fn a_save_whose_sides_disagree_is_refused_with_its_reason() {
        let reason = refused(|list| {
            list.pop();
        });
        assert!(
            reason.contains("does not list it in its `Children`"),
            "{reason}"
        );
        let reason = refused(|list| {
            let first = list[0].clone();
            list[1] = first;
        });
        assert!(reason.contains("listed twice"), "{reason}");
        let reason = refused(|list| list[0] = Value::from(4294967296u64));
        assert!(
            reason.contains("whose `ChildOf` does not point at it"),
            "{reason}"
        );
        let reason = refused(|list| list.clear());
        assert!(reason.contains("empty `Children`"), "{reason}");
    }

    /// A save in which `ChildOf`, whose targets despawn their sources,
    /// closes a cycle is refused: the world never makes one. (It is made by
    /// a schema of the same name and components whose `ChildOf` only
    /// removes.)
    #[test]
    fn a_save_with_a_cycle_in_a_hierarchy_is_refused() {
        mod lax {
            use super::{ChildOf, Children, Name, TargetedBy, Targets};
            #[derive(ecs::schema::Schema)]
            pub struct Scene {
                #[ecs(relation(inverse = children))]
                child_of: ChildOf,
                children: Children,
                #[ecs(relation(inverse = targeted_by))]
                targets: Targets,
                targeted_by: TargetedBy,
                name: Name,
            }
        }
        let mut world = World::<lax::Scene>::new();
        let a = world.spawn((Name(0),));
        let b = world.spawn((ChildOf(a),));
        let c = world.spawn((ChildOf(b),));
        world.spawn((ChildOf(c),));
        world.insert(a, (ChildOf(c),)).unwrap();
        let save = serde_json::to_value(&world).unwrap();
        match World::<Scene>::load(save) {
            Err(LoadError::Invalid { reason, .. }) => assert!(
                reason.ends_with(
                    "`ChildOf` closes a cycle (its targets lead back to it); `ChildOf` \
                     despawns its sources with their target (`on_target_despawn = despawn`), \
                     so it must form a tree"
                ),
                "{reason}"
            ),
            Err(error) => panic!("refused without a reason: {error}"),
            Ok(_) => panic!("a save with a cycle loaded"),
        }
    }
}

#[test]
fn take_and_exchange_keep_relations_in_step() {
    let mut world = World::<Scene>::new();
    let root = world.spawn((Name(0),));
    let a = world.spawn((ChildOf(root), Name(1)));
    let b = world.spawn((ChildOf(root), Name(2)));
    let b1 = world.spawn((ChildOf(b), Name(3)));
    // Taking a source unlinks it.
    let (child_of, name): (ChildOf, Name) = world.take(a).unwrap();
    assert_eq!((child_of, name), (ChildOf(root), Name(1)));
    assert_eq!(world.sources::<ChildOf>(root), [b]);
    // Taking a target goes as a despawn: its sources by their rule; the
    // list comes out as it was.
    let (_, children, _): (ChildOf, Children, Name) = world.take(b).unwrap();
    assert_eq!(children, Children(vec![b1]));
    assert!(!world.is_alive(b1));
    assert!(!world.has::<Children>(root));
    // Exchanging moves the relation as a remove then an insert would.
    let c = world.spawn((Name(4),));
    let (Name(old),) = world.exchange::<(Name,), _>(c, (ChildOf(root),)).unwrap();
    assert_eq!(old, 4);
    assert_eq!(world.sources::<ChildOf>(root), [c]);
    let (ChildOf(parent),) = world
        .exchange::<(ChildOf,), _>(c, (Targets(root),))
        .unwrap();
    assert_eq!(parent, root);
    assert!(!world.has::<Children>(root));
    assert_eq!(world.sources::<Targets>(root), [c]);
    // A dead target refuses the exchange and hands the bundle back.
    let gone = world.spawn((Name(5),));
    world.despawn(gone).unwrap();
    let error = world
        .exchange::<(Targets,), _>(c, (ChildOf(gone),))
        .unwrap_err();
    assert_eq!(error.entity(), gone);
    assert_eq!(error.into_bundle(), (ChildOf(gone),));
    assert_eq!(world.target::<Targets>(c), Some(root));
    assert_consistent(&world);
    // Exchanging an entity's list of sources for a new target of the same
    // relation: the sources lose their relation, and the entity moves from
    // its old target's list to the new one's.
    let d = world.spawn((Targets(c), Name(6)));
    let (TargetedBy(list),) = world
        .exchange::<(TargetedBy,), _>(c, (Targets(d),))
        .unwrap();
    assert_eq!(list, [d]);
    assert!(!world.has::<Targets>(d));
    assert!(!world.has::<TargetedBy>(root));
    assert_eq!(world.sources::<Targets>(d), [c]);
    assert_consistent(&world);
    // Exchanging the list of an entity that targets itself for another
    // component: it is its own source, and loses its relation with it.
    let e = world.spawn((Name(7),));
    world.insert(e, (Targets(e),)).unwrap();
    let (TargetedBy(list),) = world.exchange::<(TargetedBy,), _>(e, (Name(8),)).unwrap();
    assert_eq!(list, [e]);
    assert!(!world.has::<Targets>(e));
    assert_consistent(&world);
}

#[test]
fn a_batch_of_sources_links_each_in_order() {
    let mut world = World::<Scene>::new();
    let (p, q) = (world.spawn((Name(0),)), world.spawn((Name(1),)));
    let gone = world.spawn((Name(2),));
    world.despawn(gone).unwrap();
    let targets = [p, q, gone, p, q, p];
    let spawned: Vec<Entity> = world
        .spawn_batch(
            targets
                .iter()
                .zip(10..)
                .map(|(&t, i)| (ChildOf(t), Name(i))),
        )
        .collect();
    assert_eq!(spawned.len(), 6);
    for (i, &e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<Name>(e), Some(&Name(10 + i as u32)));
    }
    assert_eq!(
        world.sources::<ChildOf>(p),
        [spawned[0], spawned[3], spawned[5]]
    );
    assert_eq!(world.sources::<ChildOf>(q), [spawned[1], spawned[4]]);
    assert!(!world.has::<ChildOf>(spawned[2]));
    assert_consistent(&world);
}
