//! Requirements and hooks declared in the schema (issue 27): a component
//! brings what it requires, transitively, in the same migration; hooks run
//! as components are added, written and taken, in program order, and the
//! commands they record are applied before the next change.

use ecs::command::CommandBuffer;
use ecs::prelude::*;
use ecs::world::{DeferredWorld, InsertError, TakeError};
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Transform(i32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Velocity(i32);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Mass(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Body;
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ship(u32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Collider(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Registered;
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cargo(u32);

/// What the hooks saw, in order: the world's own, so tests running at once
/// do not mix their lines.
#[derive(Default)]
struct Journal(Mutex<Vec<String>>);

impl Journal {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn still() -> Velocity {
    Velocity(0)
}

fn write(world: &DeferredWorld<Game>, line: String) {
    world.resource::<Journal>().0.lock().unwrap().push(line);
}

fn collider_added(world: &mut DeferredWorld<Game>, entity: Entity) {
    let value = world.get::<Collider>(entity).unwrap().0;
    write(world, format!("add {value}"));
    world.commands().insert(entity, (Registered,));
}

fn collider_inserted(world: &mut DeferredWorld<Game>, entity: Entity) {
    let value = world.entity(entity).unwrap().get::<Collider>().unwrap().0;
    write(world, format!("insert {value}"));
}

fn collider_removed(world: &mut DeferredWorld<Game>, entity: Entity) {
    // The value is still there to read.
    let value = world.get::<Collider>(entity).unwrap().0;
    write(world, format!("remove {value}"));
    world.commands().remove::<Registered>(entity);
}

fn cargo_removed(world: &mut DeferredWorld<Game>, entity: Entity) {
    let value = world.get::<Cargo>(entity).unwrap().0;
    write(world, format!("unload {value}"));
}

#[derive(Schema)]
struct Game {
    transform: Transform,
    velocity: Velocity,
    mass: Mass,
    #[ecs(requires(Transform, Velocity = still))]
    body: Body,
    #[ecs(requires(Body, Mass))]
    ship: Ship,
    #[ecs(on_add = collider_added, on_insert = collider_inserted, on_remove = collider_removed)]
    collider: Collider,
    registered: Registered,
    #[ecs(sparse, on_remove = cargo_removed)]
    cargo: Cargo,
    #[ecs(resource)]
    journal: Journal,
}

fn tables(world: &World<Game>) -> usize {
    world.describe().to_string().lines().count() - 1
}

#[test]
fn a_component_brings_what_it_requires_transitively() {
    let mut world = World::<Game>::new();
    let ship = world.spawn((Ship(1),));
    assert_eq!(
        world.archetype(ship),
        Some(
            GameMask::SHIP
                | GameMask::BODY
                | GameMask::MASS
                | GameMask::TRANSFORM
                | GameMask::VELOCITY
        )
    );
    assert_eq!(world.get::<Velocity>(ship), Some(&Velocity(0)));
    assert_eq!(world.get::<Transform>(ship), Some(&Transform(0)));
    // What the bundle gives is kept.
    let body = world.spawn((Body, Transform(5)));
    assert_eq!(world.get::<Transform>(body), Some(&Transform(5)));
    assert_eq!(world.get::<Velocity>(body), Some(&Velocity(0)));
}

#[test]
fn an_insert_adds_only_what_is_missing_in_one_migration() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Transform(3), Mass(2)));
    let before = tables(&world);
    world.insert(e, (Ship(7),)).unwrap();
    // One new table, the target's: no stop on the way.
    assert_eq!(tables(&world), before + 1);
    assert_eq!(world.get::<Transform>(e), Some(&Transform(3)));
    assert_eq!(world.get::<Mass>(e), Some(&Mass(2)));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(0)));
    assert!(world.has::<Body>(e));
    // Removing a requirement is allowed; it is put back when a component
    // requiring it is inserted again, even over itself.
    world.remove::<Velocity>(e).unwrap();
    assert!(!world.has::<Velocity>(e));
    world.insert(e, (Ship(8),)).unwrap();
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(0)));
}

#[test]
fn commands_and_batches_bring_requirements_too() {
    let mut world = World::<Game>::new();
    let spawned: Vec<Entity> = world.spawn_batch((0..5).map(|i| (Ship(i),))).collect();
    assert_eq!(spawned.len(), 5);
    for (i, &e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<Ship>(e), Some(&Ship(i as u32)));
        assert!(world.has::<Velocity>(e) && world.has::<Mass>(e));
    }
    let plain = world.spawn((Mass(1),));
    let mut buffer = CommandBuffer::<Game>::new();
    let made = {
        let mut commands = buffer.commands(&world);
        commands.insert(plain, (Body,));
        commands.spawn((Ship(9), Mass(4)))
    };
    buffer.spawn(&world, (Body,));
    buffer.apply(&mut world);
    assert_eq!(world.get::<Velocity>(plain), Some(&Velocity(0)));
    assert_eq!(world.get::<Mass>(made), Some(&Mass(4)));
    assert!(world.has::<Transform>(made));
    let bodies = world
        .query_filtered::<Entity, (With<Body>, Without<Ship>)>()
        .iter()
        .count();
    assert_eq!(bodies, 2);
    assert_eq!(world.query::<&Velocity>().iter().count(), 8);
}

#[test]
fn hooks_run_in_the_order_of_the_changes() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Collider(1), Mass(0)));
    assert!(
        world.has::<Registered>(e),
        "the on_add hook's command applied"
    );
    assert_eq!(world.resource::<Journal>().take(), ["add 1", "insert 1"]);
    world.insert(e, (Collider(2),)).unwrap();
    assert_eq!(world.resource::<Journal>().take(), ["insert 2"]);
    assert_eq!(world.remove::<Collider>(e), Ok(Some(Collider(2))));
    assert!(
        !world.has::<Registered>(e),
        "the on_remove hook's command applied"
    );
    assert_eq!(world.resource::<Journal>().take(), ["remove 2"]);
    world.insert(e, (Collider(3), Cargo(4))).unwrap();
    world.despawn(e).unwrap();
    assert_eq!(
        world.resource::<Journal>().take(),
        ["add 3", "insert 3", "remove 3", "unload 4"]
    );
    // Nothing runs for what has no hooks, or for a dead entity.
    let other = world.spawn((Mass(1),));
    world.despawn(other).unwrap();
    assert_eq!(
        world.insert(other, (Collider(5),)),
        Err(InsertError::NoSuchEntity(other))
    );
    assert!(world.resource::<Journal>().take().is_empty());
}

#[test]
fn hooks_run_for_commands_as_each_is_applied() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Collider(1),));
    world.resource::<Journal>().take();
    let mut buffer = CommandBuffer::<Game>::new();
    {
        let mut commands = buffer.commands(&world);
        let b = commands.spawn((Collider(2),));
        commands.insert(a, (Collider(3),));
        commands.despawn(b);
        commands.remove::<Collider>(a);
    }
    buffer.apply(&mut world);
    assert_eq!(
        world.resource::<Journal>().take(),
        ["add 2", "insert 2", "insert 3", "remove 2", "remove 3"]
    );
    assert!(!world.has::<Registered>(a));
    assert_eq!(world.len(), 1);
}

/// Systems whose commands run hooks, recorded in parallel chunks: the
/// journal and the world are the same on 1, 2 and 4 threads as in program
/// order.
#[test]
fn hooks_of_commands_from_parallel_systems_follow_program_order() {
    fn arm(mut masses: Query<(Entity, &mut Mass)>, mut commands: Commands<Game>) {
        masses.par_for_each_mut_with(&mut commands, |commands, (entity, mass)| {
            mass.0 += 1;
            if mass.0 % 3 == 0 {
                commands.insert(entity, (Collider(mass.0),));
            }
        });
    }
    fn disarm(colliders: Query<(Entity, &Collider)>, mut commands: Commands<Game>) {
        for (entity, collider) in colliders.iter() {
            if collider.0 % 2 == 0 {
                commands.remove::<Collider>(entity);
            }
        }
    }
    fn load(mut masses: Query<(Entity, &Mass), Without<Cargo>>, mut commands: Commands<Game>) {
        masses.par_for_each_mut_with(&mut commands, |commands, (entity, mass)| {
            if mass.0 % 4 == 1 {
                commands.insert(entity, (Cargo(mass.0),));
            }
        });
    }
    fn sink(cargo: Query<(Entity, &Cargo)>, mut commands: Commands<Game>) {
        for (entity, cargo) in cargo.iter() {
            if cargo.0 % 5 == 0 {
                commands.despawn(entity);
            }
        }
    }
    let run = |threads: Option<usize>| {
        let mut world = World::<Game>::new();
        world.spawn_batch((0..300).map(|i| (Mass(i),)));
        let mut schedule = Schedule::<Game>::new();
        schedule.add(arm).add(disarm).add(load).add(sink);
        match threads {
            None => {
                for _ in 0..8 {
                    schedule.run_sequential(&mut world);
                }
            }
            Some(threads) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    for _ in 0..8 {
                        schedule.run(&mut world);
                    }
                });
            }
        }
        let journal = world.resource::<Journal>().take();
        let masses: Vec<(Entity, u32, bool)> = world
            .query::<(Entity, &Mass, Has<Registered>)>()
            .iter()
            .map(|(e, m, r)| (e, m.0, r))
            .collect();
        (journal, masses)
    };
    let expected = run(None);
    assert!(
        expected.0.len() > 100,
        "the hooks ran: {}",
        expected.0.len()
    );
    for threads in [1, 2, 4] {
        assert_eq!(run(Some(threads)), expected, "{threads} threads");
    }
}

#[test]
fn take_and_exchange_run_hooks_and_requirements() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Collider(1), Cargo(2)));
    world.resource::<Journal>().take();
    let (collider, _, cargo): (Collider, Registered, Cargo) = world.take(e).unwrap();
    assert_eq!((collider, cargo), (Collider(1), Cargo(2)));
    assert_eq!(world.resource::<Journal>().take(), ["remove 1", "unload 2"]);
    let f = world.spawn((Mass(3),));
    let (Mass(mass),) = world
        .exchange::<(Mass,), _>(f, (Collider(4), Ship(5)))
        .unwrap();
    assert_eq!(mass, 3);
    assert_eq!(world.resource::<Journal>().take(), ["add 4", "insert 4"]);
    // The ship's requirements, Mass among them, come with it.
    assert_eq!(world.get::<Mass>(f), Some(&Mass(0)));
    assert!(world.has::<Registered>(f) && world.has::<Velocity>(f));
}

/// Hooks on a relation: they see the relation linked, run when a target's
/// despawn takes the relation off its sources, and never run for a
/// relation dropped because its target was dead.
mod relation_hooks {
    use super::*;

    #[derive(Relation, Clone, Copy, Debug, PartialEq)]
    struct Follows(Entity);
    #[derive(Inverse, Clone, Debug, PartialEq)]
    struct Followers(Vec<Entity>);

    fn followed(world: &mut DeferredWorld<Social>, entity: Entity) {
        let target = world.get::<Follows>(entity).unwrap().0;
        // Linked before the hook runs.
        assert!(world.world().sources::<Follows>(target).contains(&entity));
        let line = format!("follow {}", target.index());
        world.resource::<Journal>().0.lock().unwrap().push(line);
    }

    fn unfollowed(world: &mut DeferredWorld<Social>, entity: Entity) {
        let target = world.get::<Follows>(entity).unwrap().0;
        let line = format!("unfollow {}", target.index());
        world.resource::<Journal>().0.lock().unwrap().push(line);
    }

    // The list first: the relation's bit is not 0, where `1 << bit` and
    // `1 >> bit` agree.
    #[derive(Schema)]
    struct Social {
        followers: Followers,
        #[ecs(relation(inverse = followers), on_add = followed, on_remove = unfollowed)]
        follows: Follows,
        #[ecs(resource)]
        journal: Journal,
    }

    #[test]
    fn hooks_on_a_relation_see_it_linked_and_skip_a_dropped_one() {
        let mut world = World::<Social>::new();
        let star = world.spawn(());
        let gone = world.spawn(());
        world.despawn(gone).unwrap();
        let fan = world.spawn((Follows(star),));
        let stray = world.spawn((Follows(gone),));
        assert!(!world.has::<Follows>(stray));
        let mut buffer = CommandBuffer::<Social>::new();
        buffer.commands(&world).insert(stray, (Follows(gone),));
        buffer.apply(&mut world);
        let star_index = star.index();
        assert_eq!(
            world.resource::<Journal>().take(),
            [format!("follow {star_index}")]
        );
        // The target goes: its source loses the relation, with its hook.
        world.despawn(star).unwrap();
        assert!(!world.has::<Follows>(fan));
        assert_eq!(
            world.resource::<Journal>().take(),
            [format!("unfollow {star_index}")]
        );
    }
}

#[test]
fn a_refused_take_or_exchange_runs_no_hook_and_changes_nothing() {
    let mut world = World::<Game>::new();
    let e = world.spawn((Collider(1), Mass(2)));
    world.resource::<Journal>().take();
    // Not exactly the bundle: refused before any hook runs.
    let refused = world.take::<(Collider, Registered)>(e);
    assert!(
        matches!(refused, Err(TakeError::Mismatch { .. })),
        "{refused:?}"
    );
    // Lacking part of `R`: refused, the bundle handed back.
    let error = world
        .exchange::<(Collider, Cargo), _>(e, (Ship(1),))
        .unwrap_err();
    assert_eq!(error.into_bundle(), (Ship(1),));
    assert!(world.resource::<Journal>().take().is_empty());
    assert_eq!(world.get::<Collider>(e), Some(&Collider(1)));
    assert!(world.has::<Registered>(e) && !world.has::<Ship>(e));
    // An entity with no hooked component comes out without a hook.
    let plain = world.spawn((Mass(5),));
    assert_eq!(world.take::<(Mass,)>(plain).unwrap(), (Mass(5),));
    assert!(world.resource::<Journal>().take().is_empty());
}

/// What an exchange records, whatever its path: a component the entity has
/// before and after is a change (`Changed`, never `Added`, never
/// `Removed`), and its hooks run as for an insert over it (`on_insert`
/// only); what it loses is removed, with `on_remove`, and what it gains is
/// added, with `on_add` and `on_insert`. Each case is set beside the insert
/// (and remove) that records the same.
mod exchange_records {
    use super::Journal;
    use ecs::prelude::*;
    use ecs::{
        schema::Tracked,
        world::{DeferredWorld, ExchangeError},
    };
    use std::fmt::Debug;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Plate(u32);
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Keel(u32);
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Armor(u32);
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Frame(u32);
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Hull(u32);
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Stun(u32);
    #[derive(Soa, Clone, Copy, Debug, PartialEq)]
    struct Heading {
        x: i32,
        y: i32,
    }
    #[derive(Relation, Clone, Copy, Debug, PartialEq)]
    struct Docked(Entity);
    #[derive(Inverse, Clone, Debug, PartialEq)]
    struct Berths(Vec<Entity>);

    /// What the systems saw since their last run: one line per entity and
    /// record.
    #[derive(Default)]
    struct Records(Vec<String>);

    fn note(world: &DeferredWorld<Fleet>, kind: &str, what: String) {
        let line = format!("{kind} {what}");
        world.resource::<Journal>().0.lock().unwrap().push(line);
    }

    fn added<C: Component<Fleet> + Debug>(world: &mut DeferredWorld<Fleet>, entity: Entity) {
        note(
            world,
            "add",
            format!("{:?}", world.get::<C>(entity).unwrap()),
        );
    }

    fn inserted<C: Component<Fleet> + Debug>(world: &mut DeferredWorld<Fleet>, entity: Entity) {
        note(
            world,
            "insert",
            format!("{:?}", world.get::<C>(entity).unwrap()),
        );
    }

    fn removed<C: Component<Fleet> + Debug>(world: &mut DeferredWorld<Fleet>, entity: Entity) {
        note(
            world,
            "remove",
            format!("{:?}", world.get::<C>(entity).unwrap()),
        );
    }

    fn heading_inserted(world: &mut DeferredWorld<Fleet>, entity: Entity) {
        let heading = world.world().get_soa::<Heading>(entity).unwrap().get();
        note(world, "insert", format!("{heading:?}"));
    }

    /// `Plate` and `Keel` are tracked with no hook; `Armor`, `Frame`,
    /// `Stun`, `Heading` and `Docked` are tracked with hooks; `Hull`
    /// requires `Frame`.
    #[derive(Schema)]
    struct Fleet {
        #[ecs(track)]
        plate: Plate,
        #[ecs(track)]
        keel: Keel,
        #[ecs(track, on_add = added::<Armor>, on_insert = inserted::<Armor>, on_remove = removed::<Armor>)]
        armor: Armor,
        #[ecs(track, on_add = added::<Frame>, on_insert = inserted::<Frame>, on_remove = removed::<Frame>)]
        frame: Frame,
        #[ecs(track, requires(Frame))]
        hull: Hull,
        #[ecs(track, sparse, on_add = added::<Stun>, on_insert = inserted::<Stun>, on_remove = removed::<Stun>)]
        stun: Stun,
        #[ecs(soa, track, on_insert = heading_inserted)]
        heading: Heading,
        #[ecs(track, relation(inverse = berths), on_add = added::<Docked>, on_insert = inserted::<Docked>, on_remove = removed::<Docked>)]
        docked: Docked,
        berths: Berths,
        #[ecs(resource)]
        journal: Journal,
        #[ecs(resource)]
        records: Records,
    }

    /// Records what the systems see of `T`: `Added<T>`, `Changed<T>`,
    /// `Removed<T>`.
    fn watch<T: Tracked<Fleet>>(
        added: Query<Entity, Added<T>>,
        changed: Query<Entity, Changed<T>>,
        removed: Removed<T>,
        mut records: ResMut<Records>,
    ) {
        let name = std::any::type_name::<T>().rsplit("::").next().unwrap();
        for (kind, entities) in [
            ("added", added.iter().collect::<Vec<_>>()),
            ("changed", changed.iter().collect()),
            ("removed", removed.iter().collect()),
        ] {
            for entity in entities {
                records.0.push(format!("{kind} {name} {}", entity.index()));
            }
        }
    }

    fn watchers() -> Schedule<Fleet> {
        let mut schedule = Schedule::new();
        schedule
            .add(watch::<Plate>)
            .add(watch::<Keel>)
            .add(watch::<Armor>)
            .add(watch::<Frame>)
            .add(watch::<Hull>)
            .add(watch::<Stun>)
            .add(watch::<Heading>)
            .add(watch::<Docked>);
        schedule
    }

    /// What `change` recorded: the hooks it ran, in order, and what the
    /// systems saw after it (sorted), of `entity` alone.
    fn recorded(
        world: &mut World<Fleet>,
        entity: Entity,
        change: impl FnOnce(&mut World<Fleet>),
    ) -> (Vec<String>, Vec<String>) {
        let (hooks, records) = recorded_of_all(world, change);
        let suffix = format!(" {}", entity.index());
        let records = records
            .into_iter()
            .filter_map(|line| line.strip_suffix(&suffix).map(str::to_owned))
            .collect();
        (hooks, records)
    }

    /// [`recorded`], of every entity (each line ends with the entity's
    /// index).
    fn recorded_of_all(
        world: &mut World<Fleet>,
        change: impl FnOnce(&mut World<Fleet>),
    ) -> (Vec<String>, Vec<String>) {
        let mut schedule = watchers();
        schedule.run(world);
        world.resource::<Journal>().take();
        world.resource_mut::<Records>().0.clear();
        change(world);
        let hooks = world.resource::<Journal>().take();
        schedule.run(world);
        let mut records = std::mem::take(&mut world.resource_mut::<Records>().0);
        records.sort();
        (hooks, records)
    }

    fn lines(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    #[test]
    fn a_plain_exchange_records_a_kept_component_as_changed() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Plate(1), Keel(1)));
        let twin = world.spawn((Plate(1), Keel(1)));
        let exchanged = recorded(&mut world, e, |world| {
            let taken = world.exchange::<(Plate, Keel), _>(e, (Plate(2),));
            assert_eq!(taken.ok(), Some((Plate(1), Keel(1))));
        });
        assert_eq!(
            exchanged,
            (vec![], lines(&["changed Plate", "removed Keel"]))
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Plate(2),)).unwrap();
            world.remove::<Keel>(twin).unwrap();
        });
        assert_eq!(inserted, exchanged);
        assert_eq!(world.get::<Plate>(e), Some(&Plate(2)));
    }

    #[test]
    fn an_exchange_of_a_hooked_component_for_itself_is_a_change_that_runs_on_insert() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Armor(1), Plate(1)));
        let twin = world.spawn((Armor(1), Plate(1)));
        let exchanged = recorded(&mut world, e, |world| {
            let taken = world.exchange::<(Armor,), _>(e, (Armor(2),));
            assert_eq!(taken.ok(), Some((Armor(1),)));
        });
        assert_eq!(
            exchanged,
            (lines(&["insert Armor(2)"]), lines(&["changed Armor"]))
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Armor(2),)).unwrap();
        });
        assert_eq!(inserted, exchanged);
    }

    #[test]
    fn a_hook_on_another_component_of_the_new_bundle_leaves_the_kept_one_changed() {
        // The case of issue 42: a kept tracked component beside a hooked
        // one the entity gains.
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Plate(1),));
        let twin = world.spawn((Plate(1),));
        let exchanged = recorded(&mut world, e, |world| {
            world
                .exchange::<(Plate,), _>(e, (Plate(3), Armor(1)))
                .unwrap();
        });
        assert_eq!(
            exchanged,
            (
                lines(&["add Armor(1)", "insert Armor(1)"]),
                lines(&["added Armor", "changed Armor", "changed Plate"])
            )
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Plate(3), Armor(1))).unwrap();
        });
        assert_eq!(inserted, exchanged);
        // A hooked component of `B` alone that the entity has is
        // overwritten, as by an insert.
        let exchanged = recorded(&mut world, e, |world| {
            world
                .exchange::<(Plate,), _>(e, (Plate(4), Armor(2)))
                .unwrap();
        });
        assert_eq!(
            exchanged,
            (
                lines(&["insert Armor(2)"]),
                lines(&["changed Armor", "changed Plate"])
            )
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Plate(4), Armor(2))).unwrap();
        });
        assert_eq!(inserted, exchanged);
    }

    #[test]
    fn a_hook_on_another_component_of_the_removed_bundle_leaves_the_kept_one_changed() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Plate(1), Armor(1)));
        let twin = world.spawn((Plate(1), Armor(1)));
        let exchanged = recorded(&mut world, e, |world| {
            let taken = world.exchange::<(Plate, Armor), _>(e, (Plate(3),));
            assert_eq!(taken.ok(), Some((Plate(1), Armor(1))));
        });
        assert_eq!(
            exchanged,
            (
                lines(&["remove Armor(1)"]),
                lines(&["changed Plate", "removed Armor"])
            )
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Plate(3),)).unwrap();
            world.remove::<Armor>(twin).unwrap();
        });
        assert_eq!(inserted, exchanged);
    }

    /// Each relation's source is in its target's list once, and each list
    /// holds exactly the sources pointing at it.
    fn assert_lists_match(world: &World<Fleet>) {
        for entity in world.iter() {
            if let Some(target) = world.target::<Docked>(entity) {
                let sources = world.sources::<Docked>(target);
                assert_eq!(sources.iter().filter(|&&s| s == entity).count(), 1);
            }
            for &source in world.sources::<Docked>(entity) {
                assert_eq!(world.target::<Docked>(source), Some(entity));
            }
        }
    }

    #[test]
    fn an_exchanged_relation_is_a_change_that_moves_it_to_its_new_target() {
        let mut world = World::<Fleet>::new();
        let (old, new) = (world.spawn(()), world.spawn(()));
        let e = world.spawn((Docked(old),));
        let twin = world.spawn((Docked(old),));
        let other = world.spawn((Docked(new),));
        let exchanged = recorded(&mut world, e, |world| {
            world.exchange::<(Docked,), _>(e, (Docked(new),)).unwrap();
        });
        let docked = format!("{:?}", Docked(new));
        assert_eq!(
            exchanged,
            (vec![format!("insert {docked}")], lines(&["changed Docked"]))
        );
        assert_eq!(world.sources::<Docked>(old), [twin]);
        assert_eq!(world.sources::<Docked>(new), [other, e]);
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Docked(new),)).unwrap();
        });
        assert_eq!(inserted, exchanged);
        assert!(!world.has::<Berths>(old), "an emptied list goes");
        // The same target again: the lists stay as they are, in order.
        let again = recorded(&mut world, other, |world| {
            world
                .exchange::<(Docked,), _>(other, (Docked(new),))
                .unwrap();
        });
        assert_eq!(again.1, ["changed Docked"]);
        assert_eq!(world.sources::<Docked>(new), [other, e, twin]);
        assert_lists_match(&world);
    }

    #[test]
    fn an_entity_docked_at_itself_keeps_its_relation_while_its_list_goes() {
        let mut world = World::<Fleet>::new();
        let dock = world.spawn(());
        let e = world.spawn(());
        world.insert(e, (Docked(e),)).unwrap();
        let source = world.spawn((Docked(e),));
        assert_eq!(world.sources::<Docked>(e), [e, source]);
        // Its list goes (the other source loses its relation); its own
        // relation moves to the dock.
        let exchanged = recorded(&mut world, e, |world| {
            world
                .exchange::<(Docked, Berths), _>(e, (Docked(dock),))
                .unwrap();
        });
        let hooks = vec![
            format!("remove {:?}", Docked(e)),
            format!("insert {:?}", Docked(dock)),
        ];
        assert_eq!(exchanged, (hooks, lines(&["changed Docked"])));
        assert!(!world.has::<Docked>(source) && !world.has::<Berths>(e));
        assert_eq!(world.sources::<Docked>(dock), [e]);
        assert_lists_match(&world);
        // Docked at itself again, then exchanged for itself with its list:
        // the list goes and a new one holds it.
        world.exchange::<(Docked,), _>(e, (Docked(e),)).unwrap();
        assert_eq!(world.sources::<Docked>(e), [e]);
        let exchanged = recorded(&mut world, e, |world| {
            world
                .exchange::<(Docked, Berths), _>(e, (Docked(e),))
                .unwrap();
        });
        let hooks = vec![format!("insert {:?}", Docked(e))];
        assert_eq!(exchanged, (hooks, lines(&["changed Docked"])));
        assert_eq!(world.sources::<Docked>(e), [e]);
        assert!(!world.has::<Berths>(dock));
        assert_lists_match(&world);
    }

    #[test]
    fn a_requirement_the_exchange_takes_and_makes_again_is_a_change() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Frame(5), Plate(1)));
        let exchanged = recorded(&mut world, e, |world| {
            let taken = world.exchange::<(Frame, Plate), _>(e, (Hull(1),));
            assert_eq!(taken.ok(), Some((Frame(5), Plate(1))));
        });
        assert_eq!(
            exchanged,
            (
                lines(&["insert Frame(0)"]),
                lines(&[
                    "added Hull",
                    "changed Frame",
                    "changed Hull",
                    "removed Plate"
                ])
            )
        );
        assert_eq!(world.get::<Frame>(e), Some(&Frame(0)));
        // A requirement the entity lacks is added, as by an insert, in the
        // same migration: the only new table is the entity's new one.
        let f = world.spawn((Plate(1), Keel(1)));
        let twin = world.spawn((Plate(1), Keel(1)));
        let tables = world.describe().to_string().lines().count();
        let exchanged = recorded(&mut world, f, |world| {
            world.exchange::<(Plate,), _>(f, (Hull(2),)).unwrap();
        });
        assert_eq!(world.describe().to_string().lines().count(), tables + 1);
        assert_eq!(
            exchanged,
            (
                lines(&["add Frame(0)", "insert Frame(0)"]),
                lines(&[
                    "added Frame",
                    "added Hull",
                    "changed Frame",
                    "changed Hull",
                    "removed Plate"
                ])
            )
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Hull(2),)).unwrap();
            world.remove::<Plate>(twin).unwrap();
        });
        assert_eq!(inserted, exchanged);
        // One the entity keeps is left alone.
        let kept = recorded(&mut world, f, |world| {
            world.exchange::<(Hull,), _>(f, (Hull(3),)).unwrap();
        });
        assert_eq!(kept, (vec![], lines(&["changed Hull"])));
    }

    #[test]
    fn an_exchange_of_a_sparse_component_for_itself_is_a_change() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Plate(1), Stun(1)));
        let twin = world.spawn((Plate(1), Stun(1)));
        let exchanged = recorded(&mut world, e, |world| {
            world.exchange::<(Stun,), _>(e, (Stun(2),)).unwrap();
        });
        assert_eq!(
            exchanged,
            (lines(&["insert Stun(2)"]), lines(&["changed Stun"]))
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Stun(2),)).unwrap();
        });
        assert_eq!(inserted, exchanged);
        // Beside a table component lost and a hooked one gained.
        let exchanged = recorded(&mut world, e, |world| {
            world
                .exchange::<(Stun, Plate), _>(e, (Stun(3), Armor(1)))
                .unwrap();
        });
        assert_eq!(
            exchanged,
            (
                lines(&["add Armor(1)", "insert Armor(1)", "insert Stun(3)"]),
                lines(&[
                    "added Armor",
                    "changed Armor",
                    "changed Stun",
                    "removed Plate"
                ])
            )
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (Stun(3), Armor(1))).unwrap();
            world.remove::<Plate>(twin).unwrap();
        });
        assert_eq!(inserted, exchanged);
        assert_eq!(world.get::<Stun>(e), Some(&Stun(3)));
    }

    #[test]
    fn an_exchange_of_a_soa_component_for_itself_is_a_change() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Heading { x: 1, y: 1 }, Plate(1)));
        let twin = world.spawn((Heading { x: 1, y: 1 }, Plate(1)));
        let heading = Heading { x: 2, y: 3 };
        let exchanged = recorded(&mut world, e, |world| {
            world
                .exchange::<(Heading, Plate), _>(e, (heading, Armor(1)))
                .unwrap();
        });
        assert_eq!(
            exchanged,
            (
                vec![
                    "add Armor(1)".to_string(),
                    "insert Armor(1)".to_string(),
                    format!("insert {heading:?}")
                ],
                lines(&[
                    "added Armor",
                    "changed Armor",
                    "changed Heading",
                    "removed Plate"
                ])
            )
        );
        let inserted = recorded(&mut world, twin, |world| {
            world.insert(twin, (heading, Armor(1))).unwrap();
            world.remove::<Plate>(twin).unwrap();
        });
        assert_eq!(inserted, exchanged);
        assert_eq!(world.get_soa::<Heading>(e).map(|h| h.get()), Some(heading));
    }

    #[test]
    fn a_refused_exchange_runs_no_hook_and_records_nothing() {
        let mut world = World::<Fleet>::new();
        let e = world.spawn((Plate(1), Armor(1)));
        let gone = world.spawn((Plate(2),));
        world.despawn(gone).unwrap();
        // The entity lacks `Stun`.
        let lacking = recorded_of_all(&mut world, |world| {
            let error = world
                .exchange::<(Armor, Stun), _>(e, (Armor(2), Plate(2)))
                .unwrap_err();
            assert!(matches!(error, ExchangeError::Missing { .. }));
        });
        // A dead relation target.
        let dead_target = recorded_of_all(&mut world, |world| {
            let error = world
                .exchange::<(Armor,), _>(e, (Docked(gone), Armor(2)))
                .unwrap_err();
            assert_eq!(error.entity(), gone);
        });
        // A dead entity.
        let dead = recorded_of_all(&mut world, |world| {
            let error = world
                .exchange::<(Plate,), _>(gone, (Plate(3), Armor(3)))
                .unwrap_err();
            assert_eq!(error.into_bundle(), (Plate(3), Armor(3)));
        });
        for nothing in [lacking, dead_target, dead] {
            assert_eq!(nothing, (vec![], vec![]));
        }
        assert_eq!(world.get::<Armor>(e), Some(&Armor(1)));
        assert_eq!(world.get::<Plate>(e), Some(&Plate(1)));
        assert_eq!(
            world.archetype(e),
            Some(FleetMask::PLATE | FleetMask::ARMOR)
        );
    }
}
