//! Every value put into a world is dropped exactly once: when it is
//! overwritten, despawned (also as part of a subtree whose root went),
//! cleared or the world is dropped, and never when it is moved between
//! tables or handed back to the caller.
//!
//! Data components wrap a [`Tracked`] value, which records its id when it is
//! dropped, so each test can say *which* values were dropped, not just how
//! many. Tags are [`CountedTag`]s: zero-sized, with a `Drop` that counts.

use ecs::prelude::*;

use ecs::command::CommandBuffer;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use support::{CountedTag, DropLog, Rng, TagCounts, Tracked};

#[derive(Debug, PartialEq)]
struct A(Tracked);
#[derive(Debug, PartialEq)]
struct B(Tracked);
#[derive(Debug, PartialEq)]
struct C(Tracked);
type T0 = CountedTag<0>;
type T1 = CountedTag<1>;

/// Neither `Clone` nor `Default` nor `Copy`: migration must only move it.
#[derive(Debug, PartialEq)]
struct Unique(String);

/// A value whose `drop` panics when armed (its `Tracked` is still dropped,
/// and logged, while the panic unwinds).
#[derive(Debug)]
struct Fuse {
    tracked: Tracked,
    armed: bool,
}

impl Fuse {
    fn new(tracked: Tracked, armed: bool) -> Self {
        Fuse { tracked, armed }
    }
}

impl Drop for Fuse {
    fn drop(&mut self) {
        if self.armed && !std::thread::panicking() {
            panic!(
                "fuse {} blew (a deliberate panic in Drop)",
                self.tracked.id()
            );
        }
    }
}

/// Bits: A 0, Fuse 1, T0 2 (tag), B 3, Unique 4, T1 5 (tag), C 6.
#[derive(Schema)]
struct Drops {
    a: A,
    fuse: Fuse,
    t0: CountedTag<0>,
    b: B,
    unique: Unique,
    t1: CountedTag<1>,
    c: C,
}

fn id_a(world: &World<Drops>, e: Entity) -> Option<u64> {
    world.get::<A>(e).map(|a| a.0.id())
}

fn id_b(world: &World<Drops>, e: Entity) -> Option<u64> {
    world.get::<B>(e).map(|b| b.0.id())
}

fn id_c(world: &World<Drops>, e: Entity) -> Option<u64> {
    world.get::<C>(e).map(|c| c.0.id())
}

fn id_fuse(world: &World<Drops>, e: Entity) -> Option<u64> {
    world.get::<Fuse>(e).map(|f| f.tracked.id())
}

/// Tag counts since the test started, on this thread.
struct Tags {
    t0: TagCounts,
    t1: TagCounts,
}

impl Tags {
    fn start() -> Self {
        Tags {
            t0: T0::counts(),
            t1: T1::counts(),
        }
    }

    fn t0(&self) -> TagCounts {
        T0::counts().since(self.t0)
    }

    fn t1(&self) -> TagCounts {
        T1::counts().since(self.t1)
    }
}

fn counts(created: usize, dropped: usize) -> TagCounts {
    TagCounts { created, dropped }
}

// ---------------------------------------------------------------- data components

#[test]
fn overwrite_by_insert_drops_the_old_value_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let e = world.spawn((A(log.track(1)), B(log.track(2))));
    let other = world.spawn((A(log.track(10)), B(log.track(20))));
    assert!(log.dropped().is_empty());

    world.insert(e, (A(log.track(3)),)).unwrap();
    assert_eq!(log.dropped(), [1]);
    assert_eq!(id_a(&world, e), Some(3));

    // A bundle that overwrites one value and adds another.
    world.insert(e, (B(log.track(4)), C(log.track(5)))).unwrap();
    assert_eq!(log.dropped(), [1, 2]);
    assert_eq!(
        (id_a(&world, e), id_b(&world, e), id_c(&world, e)),
        (Some(3), Some(4), Some(5))
    );
    assert_eq!(
        (id_a(&world, other), id_b(&world, other)),
        (Some(10), Some(20))
    );

    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 10, 20]);
}

#[test]
fn migration_moves_values_without_dropping_them() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let es: Vec<Entity> = (0..6)
        .map(|i| world.spawn((A(log.track(i)), B(log.track(100 + i)))))
        .collect();

    // Insert migrations from the middle, the front and the back.
    world.insert(es[2], (C(log.track(202)),)).unwrap();
    world.insert(es[0], (C(log.track(200)),)).unwrap();
    world.insert(es[5], (C(log.track(205)),)).unwrap();
    assert!(log.dropped().is_empty(), "{log:?}");
    // Tag-only migrations move every data value too.
    world.insert(es[1], (T0::new(),)).unwrap();
    world.insert(es[2], (T1::new(),)).unwrap();
    assert!(log.dropped().is_empty(), "{log:?}");

    for (i, &e) in es.iter().enumerate() {
        let i = i as u64;
        assert_eq!(id_a(&world, e), Some(i));
        assert_eq!(id_b(&world, e), Some(100 + i));
    }
    assert_eq!(id_c(&world, es[2]), Some(202));
    drop(world);
    assert_eq!(log.count(), 6 + 6 + 3);
    for id in (0..6).chain(100..106).chain([200, 202, 205]) {
        assert_eq!(log.times_dropped(id), 1, "id {id}");
    }
}

#[test]
fn remove_hands_the_value_back_undropped() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let es: Vec<Entity> = (0..4)
        .map(|i| world.spawn((A(log.track(i)), B(log.track(10 + i)))))
        .collect();

    let b = world.remove::<B>(es[1]).unwrap().unwrap();
    assert_eq!(b.0.id(), 11);
    assert!(
        log.dropped().is_empty(),
        "neither the removed nor the moved values"
    );
    assert_eq!(id_a(&world, es[1]), Some(1));
    assert_eq!(id_b(&world, es[3]), Some(13), "the swapped-in entity");
    drop(b);
    assert_eq!(log.dropped(), [11]);

    // Removing an absent component drops nothing.
    assert!(world.remove::<B>(es[1]).unwrap().is_none());
    assert!(world.remove::<C>(es[0]).unwrap().is_none());
    assert_eq!(log.dropped(), [11]);

    drop(world);
    assert_eq!(log.dropped_sorted(), [0, 1, 2, 3, 10, 11, 12, 13]);
}

#[test]
fn remove_bundle_hands_the_values_back_or_touches_nothing() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let es: Vec<Entity> = (0..3)
        .map(|i| world.spawn((A(log.track(i)), B(log.track(10 + i)), C(log.track(20 + i)))))
        .collect();

    // All-or-nothing: lacks a Unique, so nothing is taken or dropped.
    assert!(world.remove_bundle::<(A, Unique)>(es[0]).unwrap().is_none());
    assert!(log.dropped().is_empty());
    assert_eq!(id_a(&world, es[0]), Some(0));

    let (c, a) = world.remove_bundle::<(C, A)>(es[0]).unwrap().unwrap();
    assert_eq!((c.0.id(), a.0.id()), (20, 0));
    assert!(log.dropped().is_empty());
    assert_eq!(id_b(&world, es[0]), Some(10));
    assert_eq!(
        (
            id_a(&world, es[2]),
            id_b(&world, es[2]),
            id_c(&world, es[2])
        ),
        (Some(2), Some(12), Some(22))
    );
    drop(a);
    assert_eq!(log.dropped(), [0]);
    drop(c);
    assert_eq!(log.dropped(), [0, 20]);

    drop(world);
    assert_eq!(log.dropped_sorted(), [0, 1, 2, 10, 11, 12, 20, 21, 22]);
}

#[test]
fn despawn_drops_exactly_the_entitys_values() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let es: Vec<Entity> = (0..5)
        .map(|i| world.spawn((A(log.track(i)), B(log.track(10 + i)))))
        .collect();

    world.despawn(es[1]).unwrap();
    assert_eq!(log.dropped_sorted(), [1, 11]);
    // The last entity was swapped into row 1, and not dropped on the way.
    assert_eq!(
        (id_a(&world, es[4]), id_b(&world, es[4])),
        (Some(4), Some(14))
    );

    // A second despawn drops nothing more.
    assert!(world.despawn(es[1]).is_err());
    assert_eq!(log.count(), 2);

    world.despawn(es[4]).unwrap();
    world.despawn(es[0]).unwrap();
    assert_eq!(log.dropped_sorted(), [0, 1, 4, 10, 11, 14]);
    for &e in &[es[2], es[3]] {
        assert!(id_a(&world, e).is_some());
    }
    drop(world);
    assert_eq!(log.dropped_sorted(), [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]);
}

#[test]
fn clear_drops_every_value_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    world.spawn((A(log.track(1)),));
    world.spawn((A(log.track(2)), B(log.track(3))));
    world.spawn((C(log.track(4)), T0::new()));
    world.spawn(());
    world.clear();
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4]);
    // After clear, new values live and are dropped once with the world.
    world.spawn((A(log.track(5)),));
    assert_eq!(log.count(), 4);
    world.clear();
    world.clear();
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5]);
    world.spawn((B(log.track(6)),));
    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn dropping_the_world_drops_every_value_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let mut ids = Vec::new();
    for i in 0..30u64 {
        let e = match i % 3 {
            0 => world.spawn((A(log.track(i)),)),
            1 => world.spawn((A(log.track(i)), B(log.track(1000 + i)))),
            _ => world.spawn((C(log.track(i)), T1::new())),
        };
        ids.push(i);
        if i % 3 == 1 {
            ids.push(1000 + i);
        }
        if i % 5 == 0 {
            // Overwrites `B(1000 + i)` where `i % 3 == 1`.
            world.insert(e, (B(log.track(2000 + i)),)).unwrap();
            ids.push(2000 + i);
        }
    }
    let overwritten: Vec<u64> = (0..30u64)
        .filter(|i| i % 3 == 1 && i % 5 == 0)
        .map(|i| 1000 + i)
        .collect();
    assert_eq!(log.dropped_sorted(), overwritten);
    drop(world);
    ids.sort_unstable();
    assert_eq!(log.dropped_sorted(), ids);
}

#[test]
fn spawn_batch_drops_nothing_and_every_value_later_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let spawned: Vec<Entity> = world
        .spawn_batch((0..100).map(|i| (A(log.track(i)), B(log.track(1000 + i)))))
        .collect();
    assert!(log.dropped().is_empty());
    for (i, &e) in spawned.iter().enumerate() {
        assert_eq!(id_a(&world, e), Some(i as u64));
        assert_eq!(id_b(&world, e), Some(1000 + i as u64));
    }
    for &e in spawned.iter().step_by(7) {
        world.despawn(e).unwrap();
    }
    let mut despawned: Vec<u64> = (0..100).step_by(7).flat_map(|i| [i, 1000 + i]).collect();
    despawned.sort_unstable();
    assert_eq!(log.dropped_sorted(), despawned);
    drop(world);
    let all: Vec<u64> = (0..100).chain(1000..1100).collect();
    assert_eq!(log.dropped_sorted(), all);
}

#[test]
fn a_spawn_batch_iterator_that_panics_keeps_the_rows_it_made() {
    // Columns only (the typed fast path), then with a tag (value by value):
    // either way the rows made before the panic stay whole and usable, and
    // every value is dropped exactly once.
    for with_tag in [false, true] {
        let log = DropLog::new();
        let tags = Tags::start();
        let mut world = World::<Drops>::new();
        let before = world.spawn((A(log.track(999)), B(log.track(1999))));
        let result = catch_unwind(AssertUnwindSafe(|| {
            let bundles = (0..10u64).map(|i| {
                assert!(i < 6, "the iterator fails at item {i}");
                (A(log.track(i)), B(log.track(1000 + i)))
            });
            if with_tag {
                world.spawn_batch(bundles.map(|(a, b)| (a, b, T0::new())));
            } else {
                world.spawn_batch(bundles);
            }
        }));
        assert!(result.is_err(), "the iterator's panic reaches the caller");
        assert!(log.dropped().is_empty(), "with_tag {with_tag}");
        assert_eq!(world.len(), 7, "with_tag {with_tag}");
        let mut made: Vec<(u64, u64)> = world
            .query::<(&A, &B)>()
            .iter()
            .map(|(a, b)| (a.0.id(), b.0.id()))
            .collect();
        made.sort_unstable();
        let expected: Vec<(u64, u64)> =
            (0..6).map(|i| (i, 1000 + i)).chain([(999, 1999)]).collect();
        assert_eq!(made, expected, "with_tag {with_tag}");
        assert_eq!(
            world.query_filtered::<Entity, With<T0>>().count(),
            if with_tag { 6 } else { 0 }
        );
        // The table takes more rows, and the entity before the batch is intact.
        let after = world.spawn((A(log.track(50)), B(log.track(1050))));
        assert_eq!(id_a(&world, after), Some(50));
        assert_eq!(id_b(&world, before), Some(1999));
        drop(world);
        let mut all: Vec<u64> = (0..6)
            .chain(1000..1006)
            .chain([50, 999, 1050, 1999])
            .collect();
        all.sort_unstable();
        assert_eq!(log.dropped_sorted(), all, "with_tag {with_tag}");
        let tagged = usize::from(with_tag) * 6;
        assert_eq!(tags.t0(), counts(tagged, tagged));
    }
}

#[test]
fn a_bundle_for_a_dead_entity_is_dropped_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let e = world.spawn((A(log.track(1)),));
    world.despawn(e).unwrap();
    assert_eq!(log.dropped(), [1]);
    let tags = Tags::start();
    assert!(world
        .insert(e, (A(log.track(2)), B(log.track(3)), T0::new()))
        .is_err());
    assert_eq!(log.dropped_sorted(), [1, 2, 3]);
    assert_eq!(tags.t0(), counts(1, 1));
    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3]);
}

#[test]
fn values_replaced_through_get_mut_and_queries_are_dropped_once() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let e = world.spawn((A(log.track(1)), B(log.track(2))));
    *world.get_mut::<A>(e).unwrap() = A(log.track(3));
    assert_eq!(log.dropped(), [1]);
    let fresh = log.clone();
    world
        .query_mut::<&mut B>()
        .for_each_mut(|b| *b = B(fresh.track(4)));
    assert_eq!(log.dropped(), [1, 2]);
    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4]);
}

// ---------------------------------------------------------------- tags

#[test]
fn tags_are_dropped_once_through_every_operation() {
    let tags = Tags::start();
    let mut world = World::<Drops>::new();
    let log = DropLog::new();

    let a = world.spawn((A(log.track(1)), T0::new()));
    let b = world.spawn((T0::new(), T1::new()));
    assert_eq!(tags.t0(), counts(2, 0));
    assert_eq!(tags.t1(), counts(1, 0));

    // Inserting a tag the entity has: the extra value is dropped.
    world.insert(a, (T0::new(),)).unwrap();
    assert_eq!(tags.t0(), counts(3, 1));
    // Migration (a new tag, a new data component) drops no tag.
    world.insert(a, (T1::new(),)).unwrap();
    world.insert(a, (B(log.track(2)),)).unwrap();
    world.insert(b, (C(log.track(3)),)).unwrap();
    assert_eq!(tags.t0(), counts(3, 1));
    assert_eq!(tags.t1(), counts(2, 0));

    // Remove hands a value back; it is dropped when the caller drops it.
    let t = world.remove::<T0>(a).unwrap().unwrap();
    assert_eq!(tags.t0(), counts(3, 1));
    drop(t);
    assert_eq!(tags.t0(), counts(3, 2));
    assert!(world.remove::<T0>(a).unwrap().is_none());
    assert_eq!(tags.t0(), counts(3, 2));

    // remove_bundle with a tag.
    let (t1, c) = world.remove_bundle::<(T1, C)>(b).unwrap().unwrap();
    assert_eq!(tags.t1(), counts(2, 0));
    drop((t1, c));
    assert_eq!(tags.t1(), counts(2, 1));

    // Despawn drops the entity's tags.
    world.despawn(b).unwrap();
    assert_eq!(tags.t0(), counts(3, 3));
    assert!(world.has::<T1>(a));

    // A batch, then clear.
    world.spawn_batch((0..10).map(|_| (T0::new(), T1::new())));
    assert_eq!(tags.t0(), counts(13, 3));
    assert_eq!(tags.t1(), counts(12, 1));
    world.clear();
    assert_eq!(tags.t0(), counts(13, 13));
    assert_eq!(tags.t1(), counts(12, 12));

    // Dropping the world.
    let e = world.spawn((T0::new(), A(log.track(4))));
    world.insert(e, (T1::new(),)).unwrap();
    assert_eq!(tags.t0(), counts(14, 13));
    drop(world);
    assert_eq!(tags.t0(), counts(14, 14));
    assert_eq!(tags.t1(), counts(13, 13));
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4]);
}

#[test]
fn a_despawned_entitys_tag_does_not_take_another_entitys_tag() {
    let tags = Tags::start();
    let mut world = World::<Drops>::new();
    let a = world.spawn((T0::new(),));
    let b = world.spawn((T0::new(),));
    world.despawn(a).unwrap();
    assert_eq!(tags.t0(), counts(2, 1));
    assert!(world.has::<T0>(b));
    assert!(world.get::<T0>(b).is_some());
    let t = world.remove::<T0>(b).unwrap();
    assert!(t.is_some());
    assert_eq!(tags.t0(), counts(2, 1));
    drop(t);
    assert_eq!(tags.t0(), counts(2, 2));
    drop(world);
    assert_eq!(tags.t0(), counts(2, 2));
}

// ---------------------------------------------------------------- change detection

/// Components with change detection keep ticks beside their values; their
/// values must be dropped just as promptly as untracked ones.
#[derive(Schema)]
struct TrackedDrops {
    #[ecs(track)]
    a: A,
    t0: CountedTag<0>,
    b: B,
}

#[test]
fn tracked_components_are_dropped_as_soon_as_untracked_ones() {
    let log = DropLog::new();
    let tags = Tags::start();
    let mut world = World::<TrackedDrops>::new();
    let es: Vec<Entity> = (0..3)
        .map(|i| world.spawn((A(log.track(i)), B(log.track(10 + i)))))
        .collect();
    world.despawn(es[1]).unwrap();
    assert_eq!(log.dropped_sorted(), [1, 11], "despawn drops at once");
    world.insert(es[0], (A(log.track(20)),)).unwrap();
    assert_eq!(
        log.dropped_sorted(),
        [0, 1, 11],
        "an overwrite drops at once"
    );
    assert_eq!(
        world.get::<A>(es[0]).map(|a| a.0.id()),
        Some(20),
        "the new value took the old one's place"
    );

    // Values staged in commands and dropped with them.
    let mut buffer = CommandBuffer::<TrackedDrops>::new();
    buffer.spawn(&world, (A(log.track(30)), T0::new()));
    buffer.insert(es[2], (A(log.track(31)),));
    buffer.clear();
    assert_eq!(log.dropped_sorted(), [0, 1, 11, 30, 31]);
    assert_eq!(tags.t0(), counts(1, 1));

    world.clear();
    assert_eq!(log.dropped_sorted(), [0, 1, 2, 10, 11, 12, 20, 30, 31]);
}

// ---------------------------------------------------------------- no Clone, no Default

#[test]
fn migration_needs_neither_clone_nor_default() {
    let mut world = World::<Drops>::new();
    let es: Vec<Entity> = (0..5)
        .map(|i| world.spawn((Unique(format!("u{i}")),)))
        .collect();
    let log = DropLog::new();
    // Through several archetypes and back, from the middle of each table.
    world.insert(es[2], (A(log.track(0)),)).unwrap();
    world.insert(es[2], (T0::new(), B(log.track(1)))).unwrap();
    world.insert(es[0], (T1::new(),)).unwrap();
    let _ = world.remove_bundle::<(A, B)>(es[2]).unwrap().unwrap();
    let _ = world.remove::<T0>(es[2]).unwrap().unwrap();
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<Unique>(e), Some(&Unique(format!("u{i}"))));
    }
    let taken = world.remove::<Unique>(es[1]).unwrap().unwrap();
    assert_eq!(taken.0, "u1");
    world.insert(es[3], (taken,)).unwrap();
    assert_eq!(world.get::<Unique>(es[3]).map(|u| u.0.as_str()), Some("u1"));
    assert_eq!(log.dropped_sorted(), [0, 1]);
}

// ---------------------------------------------------------------- relations

#[derive(Relation, Debug, PartialEq)]
struct ChildOf(Entity);
#[derive(Inverse, Debug, PartialEq)]
struct Children(Vec<Entity>);

/// A hierarchy whose subtrees go with their root.
#[derive(Schema)]
struct Tree {
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    a: A,
    b: B,
    t0: CountedTag<0>,
}

/// Nodes `0..40` are one tree, breadth first (node 0 the root; the children
/// of `i < 13` are `3i + 1 ..= 3i + 3`); `40..44` another (41 and 42 under
/// 40, 43 under 41); 44 stands alone. Node `i` holds `A(i)`, `B(1000 + i)`
/// when `i` is even, and a `T0` tag when `i % 3 == 0`, so the nodes spread
/// over several tables.
struct Forest {
    nodes: Vec<Entity>,
    parents: Vec<Option<usize>>,
}

const FOREST: usize = 45;
/// The branch that goes: node 2 and the 12 nodes under it.
const BRANCH: usize = 2;

impl Forest {
    fn plant(world: &mut World<Tree>, log: &DropLog) -> Forest {
        let parents: Vec<Option<usize>> = (0..FOREST)
            .map(|i| match i {
                0 | 40 | 44 => None,
                1..40 => Some((i - 1) / 3),
                41 | 42 => Some(40),
                _ => Some(41),
            })
            .collect();
        let mut nodes: Vec<Entity> = Vec::new();
        for (i, parent) in parents.iter().enumerate() {
            let id = i as u64;
            let entity = world.spawn((A(log.track(id)),));
            if i % 2 == 0 {
                world.insert(entity, (B(log.track(1000 + id)),)).unwrap();
            }
            if i % 3 == 0 {
                world.insert(entity, (T0::new(),)).unwrap();
            }
            if let Some(parent) = *parent {
                world.insert(entity, (ChildOf(nodes[parent]),)).unwrap();
            }
            nodes.push(entity);
        }
        Forest { nodes, parents }
    }

    /// The children of node `i`, in the order they were linked.
    fn children(&self, i: usize) -> Vec<usize> {
        (0..FOREST)
            .filter(|&c| self.parents[c] == Some(i))
            .collect()
    }

    /// Node `i` and everything under it, depth first, each node before its
    /// children and siblings in order: the order the world despawns them.
    fn subtree(&self, i: usize) -> Vec<usize> {
        let mut order = vec![i];
        for child in self.children(i) {
            order.extend(self.subtree(child));
        }
        order
    }

    /// The ids of node `i`'s values.
    fn ids(i: usize) -> Vec<u64> {
        let id = i as u64;
        if i % 2 == 0 {
            vec![id, 1000 + id]
        } else {
            vec![id]
        }
    }

    /// Checks the world once `BRANCH`'s subtree is gone: exactly its
    /// values were dropped, each once, its nodes despawned depth first, its
    /// entities freed; every other node keeps its values, parent and
    /// children, in order. `tags` started counting after planting.
    fn check_branch_gone(&self, world: &mut World<Tree>, log: &DropLog, tags: &Tags) {
        let gone = self.subtree(BRANCH);
        assert_eq!(gone.len(), 13);
        let mut expected: Vec<u64> = gone.iter().flat_map(|&i| Self::ids(i)).collect();
        expected.sort_unstable();
        assert_eq!(
            log.dropped_sorted(),
            expected,
            "each value of the branch once"
        );
        let a_order: Vec<u64> = log.dropped().into_iter().filter(|&id| id < 1000).collect();
        let gone_ids: Vec<u64> = gone.iter().map(|&i| i as u64).collect();
        assert_eq!(
            a_order, gone_ids,
            "depth first, each node before its children"
        );
        let tagged = gone.iter().filter(|&&i| i % 3 == 0).count();
        assert_eq!(tags.t0(), counts(0, tagged));

        assert_eq!(world.len(), FOREST - gone.len());
        for i in 0..FOREST {
            let entity = self.nodes[i];
            if gone.contains(&i) {
                assert!(!world.is_alive(entity), "node {i}");
                continue;
            }
            assert_eq!(id_of_a(world, entity), Some(i as u64), "node {i}");
            let b = world.get::<B>(entity).map(|b| b.0.id());
            assert_eq!(b, (i % 2 == 0).then_some(1000 + i as u64), "node {i}");
            assert_eq!(world.has::<T0>(entity), i % 3 == 0, "node {i}");
            let parent = self.parents[i].map(|p| self.nodes[p]);
            assert_eq!(world.target::<ChildOf>(entity), parent, "node {i}");
            let children: Vec<Entity> = self
                .children(i)
                .into_iter()
                .filter(|c| !gone.contains(c))
                .map(|c| self.nodes[c])
                .collect();
            assert_eq!(world.sources::<ChildOf>(entity), children, "node {i}");
            assert_eq!(world.has::<Children>(entity), !children.is_empty());
        }
        assert_eq!(
            world.sources::<ChildOf>(self.nodes[0]),
            [self.nodes[1], self.nodes[3]]
        );

        // Nothing more goes on a second despawn.
        assert_eq!(
            world.despawn(self.nodes[BRANCH]),
            Err(NoSuchEntity(self.nodes[BRANCH]))
        );
        assert_eq!(log.count(), expected.len());

        // Freed: the next 13 spawns take exactly the branch's slots.
        let reused: BTreeSet<u32> = (0..gone.len()).map(|_| world.spawn(()).index()).collect();
        let freed: BTreeSet<u32> = gone.iter().map(|&i| self.nodes[i].index()).collect();
        assert_eq!(reused, freed);
    }
}

fn id_of_a(world: &World<Tree>, e: Entity) -> Option<u64> {
    world.get::<A>(e).map(|a| a.0.id())
}

/// Every value of the forest, each once, after the world is dropped.
fn all_forest_ids() -> Vec<u64> {
    let mut all: Vec<u64> = (0..FOREST).flat_map(Forest::ids).collect();
    all.sort_unstable();
    all
}

#[test]
fn despawning_a_subtree_drops_each_of_its_values_once_and_nothing_else() {
    let log = DropLog::new();
    let tags = Tags::start();
    let mut world = World::<Tree>::new();
    let forest = Forest::plant(&mut world, &log);
    assert!(log.dropped().is_empty());
    let planted = tags.t0().created;

    let despawning = Tags::start();
    world.despawn(forest.nodes[BRANCH]).unwrap();
    forest.check_branch_gone(&mut world, &log, &despawning);

    drop(world);
    assert_eq!(log.dropped_sorted(), all_forest_ids());
    assert_eq!(tags.t0(), counts(planted, planted));
}

#[test]
fn despawning_a_subtree_through_commands_drops_each_of_its_values_once() {
    fn prune(nodes: Query<(Entity, &A)>, mut commands: Commands<Tree>) {
        for (entity, a) in nodes.iter() {
            if a.0.id() == BRANCH as u64 {
                commands.despawn(entity);
            }
        }
    }
    for through in ["a command buffer", "a system's commands"] {
        let log = DropLog::new();
        let tags = Tags::start();
        let mut world = World::<Tree>::new();
        let forest = Forest::plant(&mut world, &log);
        let planted = tags.t0().created;
        let despawning = Tags::start();
        if through == "a command buffer" {
            let mut buffer = CommandBuffer::<Tree>::new();
            let mut commands = buffer.commands(&world);
            commands.despawn(forest.nodes[BRANCH]);
            // Gone with the branch by the time this applies: nothing more.
            commands.despawn(forest.nodes[forest.children(BRANCH)[1]]);
            assert!(log.dropped().is_empty(), "recorded, not yet applied");
            buffer.apply(&mut world);
        } else {
            let mut schedule = Schedule::<Tree>::new();
            schedule.add(prune);
            schedule.run(&mut world);
        }
        forest.check_branch_gone(&mut world, &log, &despawning);

        drop(world);
        assert_eq!(log.dropped_sorted(), all_forest_ids(), "{through}");
        assert_eq!(tags.t0(), counts(planted, planted), "{through}");
    }
}

// ---------------------------------------------------------------- panicking drops
//
// A component's `Drop` may panic. The world must stay consistent when that
// unwinds out of a world operation: the bookkeeping (entity list, columns,
// locations, tag bags) must be complete before, or regardless of, user drops.

#[test]
fn a_panicking_drop_during_despawn_leaves_the_world_consistent() {
    let log = DropLog::new();
    let tags = Tags::start();
    let mut world = World::<Drops>::new();
    let es: Vec<Entity> = (0..4)
        .map(|i| {
            world.spawn((
                A(log.track(i)),
                Fuse::new(log.track(100 + i), i == 1),
                B(log.track(10 + i)),
                T0::new(),
            ))
        })
        .collect();

    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(es[1])));
    assert!(result.is_err(), "the fuse's drop panicked");

    assert!(!world.is_alive(es[1]));
    assert_eq!(world.len(), 3);
    assert_eq!(
        world.iter().collect::<BTreeSet<_>>(),
        BTreeSet::from([es[0], es[2], es[3]]),
        "iter yields exactly the live entities"
    );
    for i in [0, 2, 3] {
        let e = es[i as usize];
        assert_eq!(id_a(&world, e), Some(i), "entity #{i}");
        assert_eq!(id_fuse(&world, e), Some(100 + i), "entity #{i}");
        assert_eq!(id_b(&world, e), Some(10 + i), "entity #{i}");
        assert!(world.has::<T0>(e));
    }
    assert_eq!(world.query::<(Entity, &A, &Fuse, &B)>().iter().count(), 3);
    for id in [1, 11, 101] {
        assert_eq!(log.times_dropped(id), 1, "id {id} of the despawned entity");
    }
    assert_eq!(tags.t0(), counts(4, 1), "the despawned entity's tag");
    // The world keeps working: a new entity in the same table reads its own values.
    let f = world.spawn((
        A(log.track(4)),
        Fuse::new(log.track(104), false),
        B(log.track(14)),
        T0::new(),
    ));
    assert_eq!(
        (id_a(&world, f), id_fuse(&world, f), id_b(&world, f)),
        (Some(4), Some(104), Some(14))
    );
    drop(world);
    let all: Vec<u64> = (0..5).chain(10..15).chain(100..105).collect();
    assert_eq!(log.dropped_sorted(), all);
    assert_eq!(tags.t0().alive(), 0);
}

#[test]
fn a_panicking_drop_during_clear_leaves_the_world_consistent() {
    let log = DropLog::new();
    let tags = Tags::start();
    let mut world = World::<Drops>::new();
    // Table (A, Fuse, B): its Fuse column comes before its B column.
    let first: Vec<Entity> = (0..3)
        .map(|i| {
            world.spawn((
                A(log.track(i)),
                Fuse::new(log.track(100 + i), i == 0),
                B(log.track(10 + i)),
            ))
        })
        .collect();
    // A table created after it.
    let second = world.spawn((C(log.track(20)), T0::new()));

    let result = catch_unwind(AssertUnwindSafe(|| world.clear()));
    assert!(result.is_err(), "the fuse's drop panicked");

    assert!(world.is_empty(), "clear despawned everything");
    assert_eq!(world.iter().count(), 0);
    for &e in first.iter().chain([&second]) {
        assert!(!world.is_alive(e), "{e:?}");
    }
    assert_eq!(world.query::<Entity>().count(), 0);
    let mut expected: Vec<u64> = vec![0, 1, 2, 10, 11, 12, 20, 100, 101, 102];
    assert_eq!(log.dropped_sorted(), expected, "every value dropped once");
    assert_eq!(tags.t0(), counts(1, 1));

    // A new entity in the first table must read its own values, not leftovers.
    let e = world.spawn((
        A(log.track(3)),
        Fuse::new(log.track(103), false),
        B(log.track(13)),
    ));
    assert_eq!(
        (id_a(&world, e), id_fuse(&world, e), id_b(&world, e)),
        (Some(3), Some(103), Some(13))
    );
    assert_eq!(world.query::<(&A, &B)>().iter().count(), 1);
    drop(world);
    expected.extend([3, 13, 103]);
    expected.sort_unstable();
    assert_eq!(log.dropped_sorted(), expected);
}

#[test]
fn a_panicking_overwrite_during_a_migrating_insert_leaves_the_world_consistent() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let e = world.spawn((A(log.track(1)), Fuse::new(log.track(2), true)));
    let other = world.spawn((A(log.track(5)), Fuse::new(log.track(6), false)));

    // Overwrites the armed Fuse (its drop panics) and adds B: a migration.
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.insert(e, (Fuse::new(log.track(3), false), B(log.track(4))))
    }));
    assert!(result.is_err(), "the old fuse's drop panicked");
    assert_eq!(log.times_dropped(2), 1, "the old fuse");

    assert!(world.is_alive(e));
    assert_eq!(id_a(&world, e), Some(1));
    assert_eq!(
        world.has::<B>(e),
        world.get::<B>(e).is_some(),
        "has and get agree on B"
    );
    assert_eq!(
        world.has::<Fuse>(e),
        world.get::<Fuse>(e).is_some(),
        "has and get agree on Fuse"
    );
    assert_eq!(
        (id_a(&world, other), id_fuse(&world, other)),
        (Some(5), Some(6))
    );

    // Another entity of the same archetype reads its own values.
    let f = world.spawn((
        A(log.track(7)),
        Fuse::new(log.track(8), false),
        B(log.track(9)),
    ));
    assert_eq!(
        (id_a(&world, f), id_fuse(&world, f), id_b(&world, f)),
        (Some(7), Some(8), Some(9))
    );
    let with_b = world
        .query::<(Entity, &B)>()
        .iter()
        .map(|(e, b)| (e, b.0.id()))
        .collect::<BTreeMap<_, _>>();
    assert_eq!(with_b.get(&f), Some(&9));
    drop(world);
    assert_eq!(log.dropped_sorted(), (1..10).collect::<Vec<_>>());
}

#[test]
fn a_command_that_panics_drops_the_commands_after_it_and_leaves_the_buffer_reusable() {
    let log = DropLog::new();
    let mut world = World::<Drops>::new();
    let e = world.spawn((A(log.track(1)), Fuse::new(log.track(2), true)));
    let mut buffer = CommandBuffer::<Drops>::new();
    // The overwrite drops the armed fuse, which panics; the spawn after it
    // never runs, and its value must be dropped as the panic leaves apply.
    buffer.insert(e, (Fuse::new(log.track(3), false),));
    buffer.spawn(&world, (A(log.track(4)),));
    let result = catch_unwind(AssertUnwindSafe(|| buffer.apply(&mut world)));
    assert!(result.is_err(), "the old fuse's drop panicked");
    assert_eq!(
        log.times_dropped(4),
        1,
        "the value of the spawn not applied"
    );
    assert_eq!(log.times_dropped(1), 0);
    // The buffer is empty and records anew.
    buffer.spawn(&world, (A(log.track(5)),));
    buffer.apply(&mut world);
    let mut ids: Vec<u64> = world.query::<&A>().iter().map(|a| a.0.id()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 5]);
    assert_eq!(id_a(&world, e), Some(1));
    drop(world);
    assert_eq!(log.dropped_sorted(), [1, 2, 3, 4, 5]);
}

#[test]
fn a_panicking_drop_while_the_world_drops_still_drops_everything_else() {
    let log = DropLog::new();
    let tags = Tags::start();
    let mut world = World::<Drops>::new();
    world.spawn((A(log.track(1)), B(log.track(2)), T0::new()));
    world.spawn((A(log.track(3)), Fuse::new(log.track(4), true), T0::new()));
    world.spawn((A(log.track(5)), Fuse::new(log.track(6), false)));
    world.spawn((C(log.track(7)), T1::new()));
    let result = catch_unwind(AssertUnwindSafe(move || drop(world)));
    assert!(result.is_err(), "the fuse's drop panicked");
    assert_eq!(log.dropped_sorted(), (1..8).collect::<Vec<_>>());
    assert_eq!(tags.t0(), counts(2, 2));
    assert_eq!(tags.t1(), counts(1, 1));
}

// ---------------------------------------------------------------- randomized

/// Random operations; after each, the ids dropped so far must be exactly the
/// ids the operations let go of, and at the end every id exactly once.
#[test]
fn random_operations_drop_every_value_exactly_once() {
    for seed in [1u64, 2, 3, 0xdead_beef] {
        let mut rng = Rng::new(seed);
        let log = DropLog::new();
        let tags = Tags::start();
        let mut world = World::<Drops>::new();
        let mut next_id = 0u64;
        let mut fresh = || {
            next_id += 1;
            next_id
        };
        // id of each live value, per entity: (a, b, c)
        let mut live: BTreeMap<Entity, [Option<u64>; 3]> = BTreeMap::new();
        let mut dead: Vec<Entity> = Vec::new();
        let mut expected_dropped: BTreeSet<u64> = BTreeSet::new();
        let mut all_ids: BTreeSet<u64> = BTreeSet::new();
        for step in 0..3000 {
            let pick = |rng: &mut Rng, live: &BTreeMap<Entity, _>, dead: &Vec<Entity>| {
                if !dead.is_empty() && (live.is_empty() || rng.chance(1, 8)) {
                    *rng.pick(dead)
                } else if live.is_empty() {
                    Entity::from_bits(u64::MAX).unwrap()
                } else {
                    let n = rng.below(live.len() as u64) as usize;
                    *live.keys().nth(n).unwrap()
                }
            };
            match rng.below(8) {
                0 | 1 => {
                    let (x, y) = (fresh(), fresh());
                    all_ids.extend([x, y]);
                    let e = world.spawn((A(log.track(x)), C(log.track(y)), T0::new()));
                    live.insert(e, [Some(x), None, Some(y)]);
                }
                2 => {
                    let e = pick(&mut rng, &live, &dead);
                    let x = fresh();
                    all_ids.insert(x);
                    let result = world.insert(e, (B(log.track(x)),));
                    match live.get_mut(&e) {
                        Some(ids) => {
                            assert!(result.is_ok());
                            if let Some(old) = ids[1].replace(x) {
                                expected_dropped.insert(old);
                            }
                        }
                        None => {
                            assert!(result.is_err());
                            expected_dropped.insert(x);
                        }
                    }
                }
                3 => {
                    let e = pick(&mut rng, &live, &dead);
                    let x = fresh();
                    all_ids.insert(x);
                    let result = world.insert(e, (A(log.track(x)), T1::new()));
                    match live.get_mut(&e) {
                        Some(ids) => {
                            assert!(result.is_ok());
                            if let Some(old) = ids[0].replace(x) {
                                expected_dropped.insert(old);
                            }
                        }
                        None => {
                            assert!(result.is_err());
                            expected_dropped.insert(x);
                        }
                    }
                }
                4 => {
                    let e = pick(&mut rng, &live, &dead);
                    let taken = world.remove::<A>(e);
                    match live.get_mut(&e) {
                        Some(ids) => {
                            let taken = taken.unwrap().map(|a| a.0.id());
                            assert_eq!(taken, ids[0].take());
                            if let Some(id) = taken {
                                expected_dropped.insert(id);
                            }
                        }
                        None => assert!(taken.is_err()),
                    }
                }
                5 => {
                    let e = pick(&mut rng, &live, &dead);
                    let taken = world.remove_bundle::<(B, C)>(e);
                    match live.get_mut(&e) {
                        Some(ids) => match taken.unwrap() {
                            Some((b, c)) => {
                                assert_eq!(Some(b.0.id()), ids[1].take());
                                assert_eq!(Some(c.0.id()), ids[2].take());
                                expected_dropped.extend([b.0.id(), c.0.id()]);
                            }
                            None => assert!(ids[1].is_none() || ids[2].is_none()),
                        },
                        None => assert!(taken.is_err()),
                    }
                }
                6 => {
                    let e = pick(&mut rng, &live, &dead);
                    let result = world.despawn(e);
                    match live.remove(&e) {
                        Some(ids) => {
                            assert!(result.is_ok());
                            expected_dropped.extend(ids.iter().flatten());
                            dead.push(e);
                        }
                        None => assert!(result.is_err()),
                    }
                }
                _ => {
                    if rng.chance(1, 50) {
                        world.clear();
                        for (e, ids) in std::mem::take(&mut live) {
                            expected_dropped.extend(ids.iter().flatten());
                            dead.push(e);
                        }
                    }
                }
            }
            assert_eq!(
                log.count(),
                expected_dropped.len(),
                "seed {seed} step {step}: number of drops"
            );
            if step % 50 == 0 {
                let dropped = log.dropped_sorted();
                let dropped_set: BTreeSet<u64> = dropped.iter().copied().collect();
                assert_eq!(
                    dropped.len(),
                    dropped_set.len(),
                    "seed {seed} step {step}: a double drop"
                );
                assert_eq!(dropped_set, expected_dropped, "seed {seed} step {step}");
            }
            if step % 100 == 0 {
                for (&e, ids) in &live {
                    assert_eq!(
                        [id_a(&world, e), id_b(&world, e), id_c(&world, e)],
                        *ids,
                        "seed {seed} step {step} entity {e:?}"
                    );
                }
            }
        }
        drop(world);
        let dropped = log.dropped_sorted();
        assert_eq!(
            dropped,
            all_ids.into_iter().collect::<Vec<_>>(),
            "seed {seed}"
        );
        assert_eq!(tags.t0().alive(), 0, "seed {seed}: {:?}", tags.t0());
        assert_eq!(tags.t1().alive(), 0, "seed {seed}: {:?}", tags.t1());
    }
}
