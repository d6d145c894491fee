//! Robustness: every operation given a dead, stale (its slot reused by a
//! newer entity) or never-existing `Entity` is an error (or `None`) and
//! changes nothing at all: no component, table, sparse set, relation list,
//! hook, requirement, change tick, event or allocation, and the world's
//! checksum stays what it was. The same for an operation on a live entity
//! that is refused for another reason.
//!
//! Each test builds the same world (several tables, sparse components, two
//! relations, hooks that log to a resource, a requirement, tracked
//! components with changes since the last `clear_trackers`, an event), takes
//! a clone, makes the bad call and compares.

use ecs::prelude::*;

use ecs::command::{CommandBuffer, Despawner, Migrator, SparseMut};

use ecs::world::{DeferredWorld, InsertError};
use ecs::{
    checksum::StableHash, checksum::StableHasher, command::MigrateError, world::ExchangeError,
    world::TakeError,
};
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos(i32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel(i32);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Frozen;
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Stun(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Hp(i32);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Transform(i32);
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
struct Body;
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Collider(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Cargo(u32);
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct Children(Vec<Entity>);
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct Targets(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct TargetedBy(Vec<Entity>);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Boom(u32);

/// What the hooks saw, in order. Part of the world (and of its checksum).
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

fn log(world: &DeferredWorld<Game>, line: String) {
    world.resource::<Journal>().0.lock().unwrap().push(line);
}

fn collider_added(world: &mut DeferredWorld<Game>, entity: Entity) {
    log(world, format!("add collider {entity}"));
    world.commands().insert(entity, (Frozen,));
}

fn collider_inserted(world: &mut DeferredWorld<Game>, entity: Entity) {
    log(world, format!("insert collider {entity}"));
}

fn collider_removed(world: &mut DeferredWorld<Game>, entity: Entity) {
    log(world, format!("remove collider {entity}"));
    world.commands().remove::<Frozen>(entity);
}

fn cargo_removed(world: &mut DeferredWorld<Game>, entity: Entity) {
    log(world, format!("remove cargo {entity}"));
}

#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(track)]
    hp: Hp,
    transform: Transform,
    #[ecs(requires(Transform))]
    body: Body,
    #[ecs(on_add = collider_added, on_insert = collider_inserted, on_remove = collider_removed)]
    collider: Collider,
    #[ecs(sparse, on_remove = cargo_removed)]
    cargo: Cargo,
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    #[ecs(relation(inverse = targeted_by))]
    targets: Targets,
    targeted_by: TargetedBy,
    #[ecs(event)]
    boom: Boom,
    #[ecs(resource)]
    journal: Journal,
}

#[derive(Bundle, Debug, PartialEq)]
struct Mover {
    pos: Pos,
    vel: Vel,
}

/// The handles of the fixture.
#[derive(Clone, Copy, Debug)]
struct Ids {
    root: Entity,
    a: Entity,
    b: Entity,
    c: Entity,
    d: Entity,
    /// Alive, in the slot `old` had: a target, a source, hooked, sparse.
    reused: Entity,
    /// Alive, a child of `reused`.
    grandchild: Entity,
    /// Stale: its slot holds `reused`.
    old: Entity,
    /// Dead: its slot is free (the head of the free list).
    dead: Entity,
    /// Never existed: an index past every slot.
    never: Entity,
}

impl Ids {
    fn bad(&self) -> [Entity; 3] {
        [self.old, self.dead, self.never]
    }
}

fn fixture() -> (World<Game>, Ids) {
    let mut world = World::<Game>::new();
    let root = world.spawn((Pos(0), Collider(1)));
    let a = world.spawn((Pos(1), Vel(1), ChildOf(root), Hp(10)));
    let b = world.spawn((Pos(2), Frozen, ChildOf(root), Stun(3)));
    let c = world.spawn((Vel(3), Targets(a), Cargo(4), Hp(30)));
    let d = world.spawn((Body,));
    let dead = world.spawn((Pos(9), Hp(9), Stun(9)));
    let old = world.spawn((Pos(8), ChildOf(a), Collider(8), Cargo(8)));
    world.despawn(old).unwrap();
    let reused = world.spawn((
        Pos(7),
        Hp(7),
        Stun(7),
        Collider(7),
        Cargo(7),
        ChildOf(root),
        Targets(b),
    ));
    assert_eq!(reused.index(), old.index(), "the slot is reused");
    let grandchild = world.spawn((Pos(70), ChildOf(reused), Targets(reused)));
    world.despawn(dead).unwrap();
    let never = Entity::from_bits((1u64 << 32) | 5000).unwrap();
    world.send_event(Boom(1));
    // Changes since the mark, for Added, Changed and Removed to report.
    world.clear_trackers();
    world.insert(a, (Hp(11),)).unwrap();
    world.insert(b, (Hp(20),)).unwrap();
    world.remove::<Hp>(c).unwrap();
    world.send_event(Boom(2));
    world.insert(d, (Stun(1),)).unwrap();
    let ids = Ids {
        root,
        a,
        b,
        c,
        d,
        reused,
        grandchild,
        old,
        dead,
        never,
    };
    (world, ids)
}

/// Everything that could show a change, read the same way from both.
fn observe(world: &World<Game>, ids: &Ids) -> String {
    let mut out = String::new();
    let live: Vec<Entity> = world.iter().collect();
    out += &format!("live {live:?}\n");
    for &e in &live {
        let entity = world.entity(e).unwrap();
        out += &format!(
            "{e}: {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}\n",
            entity.archetype(),
            entity.get::<Pos>(),
            entity.get::<Vel>(),
            entity.get::<Stun>(),
            entity.get::<Hp>(),
            entity.get::<Transform>(),
            entity.get::<Collider>(),
            entity.get::<Cargo>(),
            world.target::<ChildOf>(e),
            world.sources::<ChildOf>(e),
            world.sources::<Targets>(e),
        );
    }
    let added: Vec<Entity> = world.query_filtered::<Entity, Added<Hp>>().iter().collect();
    let changed: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Hp>>()
        .iter()
        .collect();
    let removed: Vec<Entity> = world.removed::<Hp>().collect();
    out += &format!("added {added:?} changed {changed:?} removed {removed:?}\n");
    let down: Vec<Entity> = world.descendants::<ChildOf>(ids.root).collect();
    out += &format!("descendants {down:?}\n");
    out += &format!("journal {:?}\n", world.resource::<Journal>().lines());
    out += &format!("len {} tick {:?}\n", world.len(), world.change_tick());
    out += &world.describe().to_string();
    out
}

/// `world` is exactly `before`: same checksum, same observations, same hook
/// log, and the next spawns get the same ids.
#[track_caller]
fn assert_untouched(world: &World<Game>, before: &World<Game>, ids: &Ids, what: &str) {
    assert_eq!(
        observe(world, ids),
        observe(before, ids),
        "{what}: the world changed"
    );
    assert_eq!(
        world.checksum(),
        before.checksum(),
        "{what}: the checksum changed"
    );
    let (mut w, mut b) = (world.clone(), before.clone());
    for _ in 0..3 {
        assert_eq!(
            w.spawn((Pos(100),)),
            b.spawn((Pos(100),)),
            "{what}: the next spawn differs"
        );
    }
}

/// Runs `call` on a fresh fixture, for each bad handle, and checks that
/// nothing changed. `call` returns whether it reported the failure.
fn for_each_bad(what: &str, call: impl Fn(&mut World<Game>, &Ids, Entity) -> bool) {
    for which in 0..3 {
        let (mut world, ids) = fixture();
        let bad = ids.bad()[which];
        let before = world.clone();
        let refused = call(&mut world, &ids, bad);
        let what = format!("{what} on {}", ["stale", "dead", "never"][which]);
        assert!(refused, "{what}: not reported as an error");
        assert_untouched(&world, &before, &ids, &what);
    }
}

#[test]
fn the_fixture_is_what_the_tests_assume() {
    let (world, ids) = fixture();
    assert_eq!(
        world.sources::<ChildOf>(ids.root),
        [ids.a, ids.b, ids.reused]
    );
    assert_eq!(world.sources::<ChildOf>(ids.reused), [ids.grandchild]);
    assert_eq!(world.sources::<Targets>(ids.reused), [ids.grandchild]);
    assert_eq!(world.get::<Transform>(ids.d), Some(&Transform(0)));
    assert!(world.has::<Frozen>(ids.reused), "the add hook ran");
    assert!(!world.is_alive(ids.old) && !world.is_alive(ids.dead));
    assert!(!world.is_alive(ids.never));
    assert_eq!(world.removed::<Hp>().collect::<Vec<_>>(), [ids.c]);
    assert!(!world.resource::<Journal>().lines().is_empty());
    // The observation does see a change.
    let mut changed = world.clone();
    changed.get_mut::<Pos>(ids.a).unwrap().0 += 1;
    assert_ne!(observe(&changed, &ids), observe(&world, &ids));
    assert_ne!(changed.checksum(), world.checksum());
}

#[test]
fn insert_of_a_plain_component() {
    for_each_bad("insert (Pos,)", |w, _, e| {
        w.insert(e, (Pos(5),)) == Err(InsertError::NoSuchEntity(e))
    });
    for_each_bad("insert (Frozen,)", |w, _, e| {
        w.insert(e, (Frozen,)) == Err(InsertError::NoSuchEntity(e))
    });
    for_each_bad("insert (Hp,)", |w, _, e| {
        w.insert(e, (Hp(5),)) == Err(InsertError::NoSuchEntity(e))
    });
}

#[test]
fn insert_of_a_sparse_component() {
    for_each_bad("insert (Stun,)", |w, _, e| {
        w.insert(e, (Stun(5),)) == Err(InsertError::NoSuchEntity(e))
    });
    for_each_bad("insert (Stun, Pos)", |w, _, e| {
        w.insert(e, (Stun(5), Pos(5))) == Err(InsertError::NoSuchEntity(e))
    });
}

#[test]
fn insert_of_a_hooked_component() {
    for_each_bad("insert (Collider,)", |w, _, e| {
        w.insert(e, (Collider(5),)) == Err(InsertError::NoSuchEntity(e))
    });
    for_each_bad("insert (Cargo, Collider, Pos)", |w, _, e| {
        w.insert(e, (Cargo(5), Collider(5), Pos(5))) == Err(InsertError::NoSuchEntity(e))
    });
}

#[test]
fn insert_of_a_component_with_requirements() {
    for_each_bad("insert (Body,)", |w, _, e| {
        w.insert(e, (Body,)) == Err(InsertError::NoSuchEntity(e))
    });
}

#[test]
fn insert_of_a_relation() {
    for_each_bad("insert (ChildOf(root),)", |w, ids, e| {
        w.insert(e, (ChildOf(ids.root),)) == Err(InsertError::NoSuchEntity(e))
    });
    for_each_bad("insert (ChildOf(reused),)", |w, ids, e| {
        w.insert(e, (ChildOf(ids.reused),)) == Err(InsertError::NoSuchEntity(e))
    });
    // Both the source and the target are bad: either may be named.
    for_each_bad("insert (ChildOf(self),)", |w, _, e| {
        w.insert(e, (ChildOf(e),)) == Err(InsertError::NoSuchEntity(e))
    });
}

#[test]
fn insert_naming_a_stale_target_on_a_live_entity() {
    for_each_bad("insert on a live entity of (ChildOf(bad),)", |w, ids, e| {
        w.insert(ids.a, (ChildOf(e), Pos(5))) == Err(InsertError::NoSuchEntity(e))
    });
    for_each_bad("insert on a live entity of (Targets(bad),)", |w, ids, e| {
        w.insert(ids.grandchild, (Targets(e),)) == Err(InsertError::NoSuchEntity(e))
    });
}

#[test]
fn remove_of_each_kind_of_component() {
    for_each_bad("remove Pos", |w, _, e| {
        w.remove::<Pos>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove Frozen", |w, _, e| {
        w.remove::<Frozen>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove Stun", |w, _, e| {
        w.remove::<Stun>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove Hp", |w, _, e| {
        w.remove::<Hp>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove Collider", |w, _, e| {
        w.remove::<Collider>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove Cargo", |w, _, e| {
        w.remove::<Cargo>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove ChildOf", |w, _, e| {
        w.remove::<ChildOf>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove Children", |w, _, e| {
        w.remove::<Children>(e) == Err(NoSuchEntity(e))
    });
    for_each_bad("remove_bundle (Pos, Stun, Collider)", |w, _, e| {
        w.remove_bundle::<(Pos, Stun, Collider)>(e) == Err(NoSuchEntity(e))
    });
}

#[test]
fn take_of_a_bad_entity() {
    for_each_bad(
        "take Mover",
        |w, _, e| matches!(w.take::<Mover>(e), Err(TakeError::NoSuchEntity(x)) if x == e),
    );
    // Exactly what `reused` holds: must still not take it through `old`.
    for_each_bad("take reused's bundle", |w, _, e| {
        let taken = w.take::<(
            Pos,
            Hp,
            Stun,
            Collider,
            Cargo,
            ChildOf,
            Targets,
            Frozen,
            Children,
            TargetedBy,
        )>(e);
        matches!(taken, Err(TakeError::NoSuchEntity(x)) if x == e)
    });
}

#[test]
fn exchange_of_a_bad_entity() {
    for_each_bad("exchange (Pos,) for (Vel,)", |w, _, e| {
        match w.exchange::<(Pos,), _>(e, (Vel(5),)) {
            Err(error @ ExchangeError::NoSuchEntity { .. }) => {
                error.entity() == e && error.into_bundle() == (Vel(5),)
            }
            _ => false,
        }
    });
    for_each_bad("exchange (Collider,) for (ChildOf,)", |w, ids, e| {
        match w.exchange::<(Collider,), _>(e, (ChildOf(ids.root),)) {
            Err(error @ ExchangeError::NoSuchEntity { .. }) => error.entity() == e,
            _ => false,
        }
    });
    for_each_bad("exchange () for (Stun,)", |w, _, e| {
        w.exchange::<(), _>(e, (Stun(1),)).is_err()
    });
}

#[test]
fn despawn_of_a_bad_entity() {
    for_each_bad("despawn", |w, _, e| w.despawn(e) == Err(NoSuchEntity(e)));
}

#[test]
fn reads_of_a_bad_entity_see_nothing() {
    for_each_bad("reads", |w, ids, e| {
        let mut nothing = w.get::<Pos>(e).is_none()
            && w.get::<Stun>(e).is_none()
            && w.get::<Collider>(e).is_none()
            && w.get::<Children>(e).is_none()
            && w.entity(e).is_none()
            && w.archetype(e).is_none()
            && !w.has::<Pos>(e)
            && !w.has::<Frozen>(e)
            && !w.has::<Stun>(e)
            && !w.is_alive(e)
            && w.sources::<ChildOf>(e).is_empty()
            && w.sources::<Targets>(e).is_empty()
            && w.target::<ChildOf>(e).is_none()
            && w.target::<Targets>(e).is_none()
            && w.ancestors::<ChildOf>(e).next().is_none()
            && w.descendants::<ChildOf>(e).next().is_none()
            && w.query::<&Pos>().get(e).is_err()
            && w.query::<(&Pos, &Stun)>().get(e).is_err()
            && w.query::<(Entity, Option<&Cargo>)>().get(e).is_err()
            && !w.query::<Entity>().contains(e)
            && w.view::<Pos>().get(e).is_none()
            && w.view::<Stun>().get(e).is_none()
            && w.view::<Frozen>().get(e).is_none()
            && w.view::<Children>().get(e).is_none();
        nothing &= w.get_mut::<Pos>(e).is_none();
        nothing &= w.get_mut::<Hp>(e).is_none();
        nothing &= w.get_mut::<Stun>(e).is_none();
        nothing &= w.entity_mut(e).is_none();
        nothing &= w.view_mut::<Hp>().get_mut(e).is_none();
        nothing &= w.view_mut::<Stun>().get_mut(e).is_none();
        nothing &= w.view_mut::<Cargo>().get_mut(e).is_none();
        nothing &= w.query_mut::<&mut Hp>().get_mut(e).is_err();
        nothing &= w.query_mut::<(&mut Pos, &mut Stun)>().get_mut(e).is_err();
        nothing &= w.query_mut::<&mut Hp>().get_many_mut([ids.a, e]).is_err();
        nothing
    });
}

#[test]
fn despawn_batch_of_bad_entities_despawns_none() {
    for_each_bad("despawn_batch", |w, _, e| w.despawn_batch(&[e, e]) == 0);
}

#[test]
fn despawn_batch_mixing_live_dead_stale_and_repeated_is_despawn_of_each_live_one() {
    let (mut world, ids) = fixture();
    let mut expected = world.clone();
    let list = [
        ids.old, ids.c, ids.dead, ids.c, ids.never, ids.old, ids.d, ids.c,
    ];
    assert_eq!(world.despawn_batch(&list), 2);
    expected.despawn(ids.c).unwrap();
    expected.despawn(ids.d).unwrap();
    assert_untouched(&world, &expected, &ids, "despawn_batch");
    assert!(
        world.is_alive(ids.reused),
        "the stale handle reached its slot"
    );
}

// ------------------------------------------------------------ a schema without a lifecycle

/// Without hooks or relations, `despawn_batch` takes the store's one-pass
/// path.
#[derive(Schema)]
struct Plain {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(track)]
    hp: Hp,
}

fn plain() -> (World<Plain>, Vec<Entity>, Entity, Entity) {
    let mut world = World::<Plain>::new();
    let mut live = Vec::new();
    for i in 0..12 {
        let e = match i % 4 {
            0 => world.spawn((Pos(i),)),
            1 => world.spawn((Pos(i), Vel(i), Stun(i as u32))),
            2 => world.spawn((Hp(i), Frozen)),
            _ => world.spawn((Pos(i), Hp(i), Stun(i as u32))),
        };
        live.push(e);
    }
    let old = live.remove(5);
    world.despawn(old).unwrap();
    let reused = world.spawn((Pos(55), Vel(55), Stun(55)));
    assert_eq!(reused.index(), old.index());
    live.push(reused);
    let dead = live.remove(2);
    world.despawn(dead).unwrap();
    world.clear_trackers();
    (world, live, old, dead)
}

#[test]
fn plain_despawn_batch_of_only_bad_entities_changes_nothing() {
    let (mut world, _, old, dead) = plain();
    let never = Entity::from_bits((1u64 << 32) | 5000).unwrap();
    let before = world.clone();
    assert_eq!(world.despawn_batch(&[old, dead, never, old, dead]), 0);
    assert_eq!(world.checksum(), before.checksum());
    assert_eq!(world.removed::<Hp>().count(), 0);
    let mut copy = before.clone();
    assert_eq!(world.spawn(()), copy.spawn(()));
    assert_eq!(world.spawn(()), copy.spawn(()));
}

#[test]
fn plain_despawn_batch_mixing_bad_entities_equals_a_batch_of_the_live_ones() {
    let (mut world, live, old, dead) = plain();
    let never = Entity::from_bits((1u64 << 32) | 5000).unwrap();
    let mut expected = world.clone();
    let mixed = [
        live[3], old, live[0], dead, live[3], never, live[7], old, live[0],
    ];
    assert_eq!(world.despawn_batch(&mixed), 3);
    assert_eq!(expected.despawn_batch(&[live[3], live[0], live[7]]), 3);
    assert_eq!(world.checksum(), expected.checksum());
    assert!(world.is_alive(*live.last().unwrap()), "the reused slot");
    assert_eq!(
        world.removed::<Hp>().collect::<Vec<_>>(),
        expected.removed::<Hp>().collect::<Vec<_>>()
    );
    assert_eq!(world.spawn((Pos(1),)), expected.spawn((Pos(1),)));
}

// ------------------------------------------------------------ refused on a live entity

#[test]
fn a_refused_take_of_a_live_entity_changes_nothing() {
    let (mut world, ids) = fixture();
    let before = world.clone();
    let refused = world.take::<Mover>(ids.a);
    assert!(
        matches!(refused, Err(TakeError::Mismatch { .. })),
        "{refused:?}"
    );
    assert_untouched(&world, &before, &ids, "take of the wrong bundle");
}

#[test]
fn a_refused_exchange_of_a_live_entity_changes_nothing() {
    let (mut world, ids) = fixture();
    let before = world.clone();
    // `a` lacks Collider.
    let refused = world.exchange::<(Collider,), _>(ids.a, (Stun(1), Collider(3)));
    assert!(
        matches!(refused, Err(ExchangeError::Missing { .. })),
        "{refused:?}"
    );
    assert_untouched(&world, &before, &ids, "exchange of a missing bundle");
    // A relation in the bundle naming a stale target.
    let refused = world.exchange::<(Collider,), _>(ids.reused, (ChildOf(ids.old),));
    assert!(
        matches!(refused, Err(ExchangeError::NoSuchEntity { entity, .. }) if entity == ids.old),
        "{refused:?}"
    );
    assert_untouched(&world, &before, &ids, "exchange naming a stale target");
}

#[test]
fn removing_what_a_live_entity_lacks_changes_nothing() {
    let (mut world, ids) = fixture();
    let before = world.clone();
    assert_eq!(world.remove::<Collider>(ids.a), Ok(None));
    assert_eq!(world.remove::<Cargo>(ids.a), Ok(None));
    assert_eq!(world.remove::<Children>(ids.a), Ok(None));
    assert_eq!(world.remove::<Stun>(ids.a), Ok(None));
    assert_eq!(world.remove_bundle::<(Pos, Collider)>(ids.a), Ok(None));
    assert_eq!(world.remove_bundle::<(Collider, Cargo)>(ids.c), Ok(None));
    assert_untouched(&world, &before, &ids, "removals of absent components");
}

// ------------------------------------------------------------ reservations pending

/// A `CommandBuffer` recording through `commands(&world)` reserves ids in
/// the world. A call that fails must not make those reservations alive
/// (which changes `len`, `is_alive` and the checksum).
#[test]
fn a_failed_despawn_leaves_pending_reservations_pending() {
    let (mut world, ids) = fixture();
    let mut buffer = CommandBuffer::<Game>::new();
    let spawned = buffer.commands(&world).spawn((Pos(1),));
    let before = world.clone();
    assert_eq!(world.despawn(ids.old), Err(NoSuchEntity(ids.old)));
    assert_eq!(world.is_alive(spawned), before.is_alive(spawned));
    assert_eq!(world.len(), before.len());
    assert_eq!(world.checksum(), before.checksum());
}

#[test]
fn a_failed_take_leaves_pending_reservations_pending() {
    let (mut world, ids) = fixture();
    let mut buffer = CommandBuffer::<Game>::new();
    let spawned = buffer.commands(&world).spawn((Pos(1),));
    let before = world.clone();
    assert!(world.take::<Mover>(ids.dead).is_err());
    assert_eq!(world.is_alive(spawned), before.is_alive(spawned));
    assert_eq!(world.len(), before.len());
    assert_eq!(world.checksum(), before.checksum());
}

#[test]
fn a_failed_plain_despawn_leaves_pending_reservations_pending() {
    let (mut world, _, old, _) = plain();
    let mut buffer = CommandBuffer::<Plain>::new();
    let spawned = buffer.commands(&world).spawn((Pos(1),));
    let before = world.clone();
    assert_eq!(world.despawn(old), Err(NoSuchEntity(old)));
    assert_eq!(world.is_alive(spawned), before.is_alive(spawned));
    assert_eq!(world.checksum(), before.checksum());
}

#[test]
fn a_failed_plain_despawn_batch_leaves_pending_reservations_pending() {
    let (mut world, _, old, dead) = plain();
    let mut buffer = CommandBuffer::<Plain>::new();
    let spawned = buffer.commands(&world).spawn((Pos(1),));
    let before = world.clone();
    assert_eq!(world.despawn_batch(&[old, dead]), 0);
    assert_eq!(world.is_alive(spawned), before.is_alive(spawned));
    assert_eq!(world.checksum(), before.checksum());
}

/// A reserved entity is not alive yet but is no stale one: despawning or
/// taking it makes the reservations alive first, as before, whether its
/// id comes from the free list or is a fresh one.
#[test]
fn despawning_and_taking_reserved_entities_makes_them_alive_first() {
    let (mut world, _, old, dead) = plain();
    // The free list holds one slot (`dead`'s): one reservation reuses it,
    // the others are fresh ids.
    let mut buffer = CommandBuffer::<Plain>::new();
    let mut commands = buffer.commands(&world);
    let (listed, fresh, other) = (commands.spawn(()), commands.spawn(()), commands.spawn(()));
    assert_eq!(listed.index(), dead.index());
    assert!(fresh.index() > listed.index() && !world.is_alive(fresh));
    assert_eq!(world.despawn(fresh), Ok(()));
    assert!(world.is_alive(listed) && world.is_alive(other) && !world.is_alive(fresh));

    let mut commands = buffer.commands(&world);
    let (again, last) = (commands.spawn(()), commands.spawn(()));
    assert_eq!(again.index(), fresh.index());
    assert!(matches!(
        world.take::<(Pos,)>(again),
        Err(TakeError::Mismatch { .. })
    ));
    assert!(!world.is_alive(again), "a refused take makes nothing alive");
    assert_eq!(world.take::<()>(again), Ok(()));
    assert!(!world.is_alive(again) && world.is_alive(last));

    let mut commands = buffer.commands(&world);
    let (first, second) = (commands.spawn(()), commands.spawn(()));
    // The id after the last reserved one is nobody's: no flush.
    let beyond = Entity::from_bits(1 << 32 | u64::from(second.index() + 1)).unwrap();
    assert_eq!(world.despawn(beyond), Err(NoSuchEntity(beyond)));
    assert!(
        !world.is_alive(first),
        "a failed despawn makes nothing alive"
    );
    assert_eq!(world.despawn_batch(&[old, second, dead]), 1);
    assert!(world.is_alive(first) && !world.is_alive(second));
}

// ------------------------------------------------------------ commands

/// Commands recorded on an entity that dies (and whose slot is reused)
/// before the buffer is applied do nothing, to the newcomer least of all.
#[test]
fn buffered_commands_on_an_entity_that_died_before_the_apply_do_nothing() {
    let (mut world, ids) = fixture();
    let victim = world.spawn((Pos(40), Collider(40), Cargo(40), ChildOf(ids.a)));
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.insert(victim, (Vel(1),));
    buffer.insert(victim, (Stun(1), Collider(2)));
    buffer.insert(victim, (ChildOf(ids.root),));
    buffer.insert(victim, (Targets(ids.b),));
    buffer.insert(victim, (Body,));
    buffer.remove::<Pos>(victim);
    buffer.remove::<Cargo>(victim);
    buffer.remove::<Collider>(victim);
    buffer.remove::<ChildOf>(victim);
    buffer.remove_bundle::<(Pos, Stun)>(victim);
    buffer.despawn(victim);
    world.despawn(victim).unwrap();
    let newcomer = world.spawn((Pos(41), Collider(41), Cargo(41), ChildOf(ids.a)));
    assert_eq!(newcomer.index(), victim.index());
    let before = world.clone();
    buffer.apply(&mut world);
    assert!(buffer.is_empty());
    assert_untouched(&world, &before, &ids, "buffer on a dead entity");
}

/// The same through a system's `Commands`: a system despawns an entity, a
/// later one (after the despawn is applied) names it.
#[test]
fn system_commands_on_an_entity_despawned_earlier_in_the_run_do_nothing() {
    let (mut world, ids) = fixture();
    let victim = ids.c;
    let kill = move |mut commands: Commands<Game>| commands.despawn(victim);
    let name_it = move |_: Query<&Pos>, mut commands: Commands<Game>| {
        commands.insert(victim, (Pos(1), Collider(1)));
        commands.insert(victim, (ChildOf(victim),));
        commands.remove::<Cargo>(victim);
        commands.despawn(victim);
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(kill).add(name_it);
    schedule.run(&mut world);

    // The same run, the second system recording nothing.
    let mut expected = fixture().0;
    let mut reference = Schedule::<Game>::new();
    reference
        .add(kill)
        .add(|_: Query<&Pos>, _: Commands<Game>| {});
    reference.run(&mut expected);
    assert!(!world.is_alive(victim));
    assert_untouched(&world, &expected, &ids, "commands after a despawn");
}

/// A command recorded after a despawn of the same entity in one queue.
#[test]
fn commands_after_a_despawn_in_the_same_queue_do_nothing() {
    let (mut world, ids) = fixture();
    let mut expected = world.clone();
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.despawn(ids.c);
    buffer.insert(ids.c, (Collider(9), ChildOf(ids.root), Stun(9)));
    buffer.remove::<Cargo>(ids.c);
    buffer.despawn(ids.c);
    buffer.apply(&mut world);
    expected.despawn(ids.c).unwrap();
    assert_untouched(&world, &expected, &ids, "commands after a despawn");
}

// ------------------------------------------------------------ system parameters

#[test]
fn sparse_mut_refuses_a_bad_entity() {
    let (mut world, ids) = fixture();
    let results = std::sync::Arc::new(Mutex::new(Vec::new()));
    let out = results.clone();
    let bad = ids.bad();
    let probe = move |mut stun: SparseMut<Game, Stun>| {
        for e in bad {
            let mut log = out.lock().unwrap();
            log.push(stun.insert(e, Stun(99)) == Err(NoSuchEntity(e)));
            log.push(stun.remove(e) == Err(NoSuchEntity(e)));
            log.push(stun.get(e).is_none() && stun.get_mut(e).is_none());
            log.push(!stun.contains(e));
        }
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(probe);
    // A run advances the change tick: compare with a run that made no call.
    let mut idle = Schedule::<Game>::new();
    idle.add(|_: SparseMut<Game, Stun>| {});
    let mut reference = world.clone();
    idle.run(&mut reference);
    schedule.run(&mut world);
    assert_eq!(*results.lock().unwrap(), [true; 12]);
    assert_untouched(&world, &reference, &ids, "SparseMut");
}

#[test]
fn migrator_refuses_a_bad_entity() {
    let (mut world, ids) = fixture();
    let results = std::sync::Arc::new(Mutex::new(Vec::new()));
    let out = results.clone();
    let bad = ids.bad();
    let probe = move |mut frozen: Migrator<Game, Frozen, With<Pos>>| {
        for e in bad {
            out.lock().unwrap().push(frozen.insert(e, Frozen));
            out.lock().unwrap().push(frozen.remove(e));
        }
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(probe);
    let mut idle = Schedule::<Game>::new();
    idle.add(|_: Migrator<Game, Frozen, With<Pos>>| {});
    let mut reference = world.clone();
    idle.run(&mut reference);
    schedule.run(&mut world);
    let expected: Vec<_> = bad
        .iter()
        .flat_map(|&e| [Err(MigrateError::NoSuchEntity(e)); 2])
        .collect();
    assert_eq!(*results.lock().unwrap(), expected);
    assert_untouched(&world, &reference, &ids, "Migrator");
}

#[test]
fn despawner_of_bad_and_repeated_entities_despawns_only_the_live_ones() {
    let (mut world, ids) = fixture();
    let list = [ids.old, ids.c, ids.dead, ids.never, ids.c, ids.old];
    let probe = move |mut despawner: Despawner<Game>| {
        for e in list {
            despawner.despawn(e);
        }
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(probe);
    let mut idle = Schedule::<Game>::new();
    idle.add(|_: Despawner<Game>| {});
    let mut expected = world.clone();
    idle.run(&mut expected);
    expected.despawn(ids.c).unwrap();
    schedule.run(&mut world);
    assert_untouched(&world, &expected, &ids, "Despawner");
    assert!(world.is_alive(ids.reused));
}

#[test]
fn despawner_of_only_bad_entities_changes_nothing() {
    let (mut world, ids) = fixture();
    let list = [ids.old, ids.dead, ids.never];
    let probe = move |mut despawner: Despawner<Game>| {
        for e in list {
            despawner.despawn(e);
        }
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(probe);
    let mut idle = Schedule::<Game>::new();
    idle.add(|_: Despawner<Game>| {});
    let mut expected = world.clone();
    idle.run(&mut expected);
    schedule.run(&mut world);
    assert_untouched(&world, &expected, &ids, "Despawner of bad entities");
}

#[test]
fn query_get_in_a_system_with_a_stale_id_is_an_error() {
    let (mut world, ids) = fixture();
    let results = std::sync::Arc::new(Mutex::new(Vec::new()));
    let out = results.clone();
    let bad = ids.bad();
    let probe = move |mut q: Query<(&mut Pos, Option<&mut Stun>)>, r: Query<&Hp>| {
        for e in bad {
            let a = q.get_mut(e).is_err();
            let c = r.get(e).is_err();
            out.lock().unwrap().push(a && c);
        }
    };
    let mut schedule = Schedule::<Game>::new();
    schedule.add(probe);
    let mut idle = Schedule::<Game>::new();
    idle.add(|_: Query<(&mut Pos, Option<&mut Stun>)>, _: Query<&Hp>| {});
    let mut reference = world.clone();
    idle.run(&mut reference);
    schedule.run(&mut world);
    assert_eq!(*results.lock().unwrap(), [true; 3]);
    assert_untouched(&world, &reference, &ids, "Query::get_mut");
}

/// A command naming a stale target drops that relation (there is no caller
/// to refuse): the rest of the bundle goes in, and the relation the entity
/// already had, to a live target, stays as it was.
#[test]
fn a_command_relation_to_a_stale_target_keeps_the_existing_relation() {
    let (mut world, ids) = fixture();
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.insert(ids.a, (ChildOf(ids.old), Vel(5)));
    buffer.apply(&mut world);
    assert_eq!(world.get::<Vel>(ids.a), Some(&Vel(5)));
    assert_eq!(world.target::<ChildOf>(ids.a), Some(ids.root));
    assert_eq!(
        world.sources::<ChildOf>(ids.root),
        [ids.a, ids.b, ids.reused]
    );
    assert!(!world.sources::<ChildOf>(ids.reused).contains(&ids.a));
}
