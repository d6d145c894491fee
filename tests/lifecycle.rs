//! Requirements and hooks declared in the schema (issue 27): a component
//! brings what it requires, transitively, in the same migration; hooks run
//! as components are added, written and taken, in program order, and the
//! commands they record are applied before the next change.

use ecs::prelude::*;
use ecs::TakeError;
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
    buffer.spawn((Body,));
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
