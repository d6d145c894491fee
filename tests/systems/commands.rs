//! Commands that name what they spawn, commands recorded outside systems,
//! and per-system state: the parts of structural change a system defers.

use ecs::prelude::*;

use ecs::command::CommandBuffer;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Owner(Entity);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shot(Entity);
#[derive(Debug, PartialEq)]
struct Dead;
#[derive(Debug, Default, PartialEq)]
struct Spawned(Vec<Entity>);

#[derive(Schema)]
struct Game {
    pos: Pos,
    owner: Owner,
    shot: Shot,
    dead: Dead,
    #[ecs(resource)]
    spawned: Spawned,
}

fn fire(gunners: Query<(Entity, &Pos), Without<Owner>>, mut commands: Commands<Game>) {
    for (gunner, pos) in gunners.iter() {
        let bullet = commands.spawn((Pos(pos.0 + 1), Owner(gunner)));
        commands.insert(gunner, (Shot(bullet),));
    }
}

#[test]
fn a_spawned_entity_id_is_known_when_recorded_and_is_the_one_applied() {
    let mut world = World::<Game>::new();
    let gunners: Vec<Entity> = (0..5).map(|i| world.spawn((Pos(i * 10),))).collect();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(fire);
    schedule.run(&mut world);
    for &gunner in &gunners {
        let Shot(bullet) = *world.get::<Shot>(gunner).unwrap();
        assert_eq!(world.get::<Owner>(bullet), Some(&Owner(gunner)));
        assert_eq!(
            world.get::<Pos>(bullet).unwrap().0,
            world.get::<Pos>(gunner).unwrap().0 + 1
        );
    }
    assert_eq!(world.len(), 10);
}

#[test]
fn spawned_ids_reuse_freed_slots_as_world_spawn_would() {
    // The same spawns through the World API and through commands give the
    // same ids, freed slots first, newest first.
    let build = || {
        let mut world = World::<Game>::new();
        let all: Vec<Entity> = (0..6).map(|i| world.spawn((Pos(i),))).collect();
        for &e in &all[1..4] {
            world.despawn(e).unwrap();
        }
        world
    };
    let mut direct = build();
    let expected: Vec<Entity> = (0..5).map(|i| direct.spawn((Pos(100 + i),))).collect();

    fn spawn_five(mut commands: Commands<Game>, mut spawned: ResMut<Spawned>) {
        for i in 0..5 {
            spawned.0.push(commands.spawn((Pos(100 + i),)));
        }
    }
    let mut world = build();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(spawn_five);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Spawned>().0, expected);
    for (i, &e) in expected.iter().enumerate() {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(100 + i as i64)));
    }
}

#[test]
fn spawn_commands_place_rows_and_values_as_world_spawn_does() {
    // Bundles of one component, of several, with a tag, on a world with a
    // freed slot: the same calls through the World API and through commands
    // give the same entities, in the same rows, with the same values.
    let build = || {
        let mut world = World::<Game>::new();
        let all: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i),))).collect();
        world.despawn(all[1]).unwrap();
        (world, all)
    };
    let rows = |world: &World<Game>| -> Vec<(Entity, Option<Pos>, Option<Owner>, bool)> {
        world
            .query::<(Entity, Option<&Pos>, Option<&Owner>, Has<Dead>)>()
            .iter()
            .map(|(entity, pos, owner, dead)| (entity, pos.copied(), owner.copied(), dead))
            .collect()
    };

    let (mut direct, all) = build();
    for i in 0..6 {
        let owner = all[(i % 4) as usize];
        match i % 3 {
            0 => direct.spawn((Pos(10 + i),)),
            1 => direct.spawn((Pos(10 + i), Owner(owner), Dead)),
            _ => direct.spawn((Owner(owner), Pos(10 + i))),
        };
    }

    let (mut world, all) = build();
    let mut buffer = CommandBuffer::<Game>::new();
    let mut commands = buffer.commands(&world);
    for i in 0..6 {
        let owner = all[(i % 4) as usize];
        match i % 3 {
            0 => commands.spawn((Pos(10 + i),)),
            1 => commands.spawn((Pos(10 + i), Owner(owner), Dead)),
            _ => commands.spawn((Owner(owner), Pos(10 + i))),
        };
    }
    buffer.apply(&mut world);
    assert_eq!(rows(&world), rows(&direct));
    assert_eq!(world.len(), direct.len());
}

#[test]
fn a_reserved_entity_changed_or_despawned_before_its_spawn_is_applied() {
    // Reserved entities become alive, with no components, at the next
    // structural change; a spawn applied after that adds its bundle to
    // whatever the entity holds then, and is dropped for a dead one.
    let mut world = World::<Game>::new();
    let mut buffer = CommandBuffer::<Game>::new();
    let mut commands = buffer.commands(&world);
    let changed = commands.spawn((Pos(1),));
    let despawned = commands.spawn((Pos(2), Dead));
    let kept = commands.spawn((Pos(3),));
    let other = world.spawn((Pos(4),));
    world.insert(changed, (Owner(other), Dead)).unwrap();
    world.despawn(despawned).unwrap();
    buffer.apply(&mut world);
    assert_eq!(world.get::<Pos>(changed), Some(&Pos(1)));
    assert_eq!(world.get::<Owner>(changed), Some(&Owner(other)));
    assert!(world.has::<Dead>(changed));
    assert!(!world.is_alive(despawned));
    assert_eq!(world.get::<Pos>(kept), Some(&Pos(3)));
    assert_eq!(world.len(), 3);
    assert_eq!(
        world.query_filtered::<Entity, With<Dead>>().iter().count(),
        1
    );
}

#[test]
fn a_reserved_entity_is_not_alive_until_its_commands_are_applied() {
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(
        |mut commands: Commands<Game>, mut spawned: ResMut<Spawned>| {
            spawned.0.push(commands.spawn((Pos(1),)));
        },
    );
    schedule.run(&mut world);
    let first = world.resource::<Spawned>().0[0];
    assert!(world.is_alive(first));

    let mut buffer = CommandBuffer::<Game>::new();
    let pending = buffer.commands(&world).spawn((Pos(2),));
    assert!(!world.is_alive(pending));
    assert_eq!(world.len(), 1);
    buffer.apply(&mut world);
    assert!(world.is_alive(pending));
    assert_eq!(world.get::<Pos>(pending), Some(&Pos(2)));
}

#[test]
fn commands_after_a_despawn_in_the_same_system_keep_their_reserved_ids() {
    // The despawn frees a slot when applied, before the spawn is applied;
    // the spawn keeps the id it was given when recorded.
    let mut world = World::<Game>::new();
    let victim = world.spawn((Pos(0),));
    let mut buffer = CommandBuffer::<Game>::new();
    let mut commands = buffer.commands(&world);
    commands.despawn(victim);
    let a = commands.spawn((Pos(1),));
    let b = commands.spawn((Pos(2),));
    buffer.apply(&mut world);
    assert!(!world.is_alive(victim));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(2)));
    assert_ne!(a.index(), victim.index());
    // The freed slot is the next one handed out.
    assert_eq!(world.spawn((Pos(3),)).index(), victim.index());
}

#[test]
fn a_reserved_entity_whose_spawn_was_not_applied_becomes_an_empty_entity() {
    let mut world = World::<Game>::new();
    let mut buffer = CommandBuffer::<Game>::new();
    let reserved = buffer.commands(&world).spawn((Pos(1),));
    buffer.clear();
    // The next structural change makes it alive, with no components, rather
    // than handing its id out twice.
    let other = world.spawn((Pos(2),));
    assert_ne!(other, reserved);
    assert!(world.is_alive(reserved));
    assert_eq!(world.archetype(reserved), Some(GameMask::empty()));
    world.despawn(reserved).unwrap();
}

/// `CommandBuffer::spawn` returns the entity, as `Commands::spawn` does:
/// the id a spawn through the world at that point would get, not alive
/// until the buffer is applied, then alive with the bundle.
#[test]
fn a_command_buffer_spawn_returns_the_entity_it_makes_when_applied() {
    let build = || {
        let mut world = World::<Game>::new();
        let dead = world.spawn((Pos(0),));
        world.spawn((Pos(1),));
        world.despawn(dead).unwrap();
        world
    };
    let (mut world, mut direct) = (build(), build());

    let mut buffer = CommandBuffer::<Game>::new();
    let first = buffer.spawn(&world, (Pos(2),));
    let second = buffer.spawn(&world, (Pos(3), Owner(first)));
    assert_eq!(first, direct.spawn((Pos(2),)), "the freed slot, reused");
    assert_eq!(second, direct.spawn((Pos(3), Owner(first))));
    assert!(!world.is_alive(first) && !world.is_alive(second));
    assert_eq!(world.get::<Pos>(first), None);
    assert_eq!(world.len(), 1);

    buffer.apply(&mut world);
    assert_eq!(world.get::<Pos>(first), Some(&Pos(2)));
    assert_eq!(world.get::<Pos>(second), Some(&Pos(3)));
    assert_eq!(world.get::<Owner>(second), Some(&Owner(first)));
    assert_eq!(world.len(), 3);
}

/// A buffer discarded instead of applied gives its reserved ids back: no
/// entity is left of its spawns, and the next spawns get those ids. If a
/// reservation came after them, they stay reserved and become empty
/// entities, as after `clear`.
#[test]
fn a_discarded_command_buffer_gives_its_reserved_ids_back() {
    let mut world = World::<Game>::new();
    let kept = world.spawn((Pos(1),));
    let mut buffer = CommandBuffer::<Game>::new();
    let a = buffer.spawn(&world, (Pos(2),));
    buffer.insert(kept, (Dead,));
    let b = buffer.spawn(&world, (Pos(3),));
    assert!(buffer.discard(&mut world));
    assert!(buffer.is_empty());
    assert_eq!(world.spawn((Pos(4),)), a);
    assert_eq!(world.spawn((Pos(5),)), b);
    assert_eq!(world.len(), 3);
    assert!(!world.has::<Dead>(kept));

    // Another buffer reserved after this one's spawn: nothing comes back.
    let dropped = buffer.spawn(&world, (Pos(6),));
    let mut other = CommandBuffer::<Game>::new();
    let later = other.spawn(&world, (Pos(7),));
    assert!(!buffer.discard(&mut world));
    other.apply(&mut world);
    assert_eq!(world.get::<Pos>(later), Some(&Pos(7)));
    assert!(world.is_alive(dropped));
    assert_eq!(world.archetype(dropped), Some(GameMask::empty()));
}

#[test]
fn a_command_buffer_applies_in_recording_order() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2),));
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.insert(a, (Dead,));
    buffer.remove::<Pos>(a);
    buffer.insert(a, (Pos(10),));
    buffer.despawn(b);
    buffer.spawn(&world, (Pos(3), Dead));
    buffer.remove_bundle::<(Pos, Dead)>(a);
    assert_eq!(buffer.len(), 6);
    buffer.apply(&mut world);
    assert!(buffer.is_empty());
    assert_eq!(world.archetype(a), Some(GameMask::empty()));
    assert!(!world.is_alive(b));
    let dead: Vec<i64> = world
        .query_filtered::<&Pos, With<Dead>>()
        .iter()
        .map(|pos| pos.0)
        .collect();
    assert_eq!(dead, [3]);
    // A buffer can be used again.
    buffer.despawn(a);
    buffer.apply(&mut world);
    assert_eq!(world.len(), 1);
}

#[test]
fn a_cleared_command_buffer_applies_nothing_and_says_so_in_debug() {
    let mut world = World::<Game>::new();
    let a = world.spawn((Pos(1),));
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.despawn(a);
    buffer.insert(a, (Dead,));
    assert_eq!(
        format!("{buffer:?}"),
        r#"CommandBuffer { schema: "Game", len: 2 }"#
    );
    buffer.clear();
    assert!(buffer.is_empty());
    assert_eq!(
        format!("{buffer:?}"),
        r#"CommandBuffer { schema: "Game", len: 0 }"#
    );
    buffer.apply(&mut world);
    assert!(world.is_alive(a) && !world.has::<Dead>(a));
    assert_eq!(world.len(), 1);
}

#[test]
fn chunk_commands_spawn_in_iteration_order_when_applied() {
    fn split(mut all: Query<(Entity, &Pos)>, mut commands: Commands<Game>) {
        all.par_for_each_mut_with(&mut commands, |commands, (entity, pos)| {
            commands.spawn((Pos(pos.0 * 100), Owner(entity)));
        });
    }
    let mut world = World::<Game>::new();
    world.spawn_batch((0..1000).map(|i| (Pos(i),)));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(split);
    schedule.run(&mut world);
    let children: Vec<(i64, Entity)> = world
        .query_filtered::<(&Pos, &Owner), With<Owner>>()
        .iter()
        .map(|(pos, owner)| (pos.0, owner.0))
        .collect();
    assert_eq!(children.len(), 1000);
    for (k, (pos, owner)) in children.iter().enumerate() {
        assert_eq!(*pos, k as i64 * 100, "spawned in iteration order");
        assert_eq!(world.get::<Pos>(*owner), Some(&Pos(k as i64)));
    }
}

#[test]
fn commands_debug_names_the_schema_and_counts_the_recorded_commands() {
    use std::sync::Mutex;
    static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
    fn record(mut one: Query<&Pos>, mut commands: Commands<Game>) {
        commands.spawn((Pos(1),));
        commands.spawn((Pos(2),));
        SEEN.lock().unwrap().push(format!("{commands:?}"));
        one.par_for_each_mut_with(&mut commands, |commands, _| {
            commands.spawn((Pos(3),));
            SEEN.lock().unwrap().push(format!("{commands:?}"));
        });
    }
    let mut world = World::<Game>::new();
    world.spawn((Pos(0),));
    let mut schedule = Schedule::<Game>::new();
    schedule.add(record);
    schedule.run(&mut world);
    assert_eq!(
        *SEEN.lock().unwrap(),
        [
            r#"Commands { schema: "Game", len: 2 }"#,
            r#"ChunkCommands { schema: "Game", len: 1 }"#,
        ]
    );
}

#[test]
fn a_local_is_kept_across_runs_and_not_shared() {
    fn tally(mut runs: Local<i64>, mut commands: Commands<Game>) {
        *runs += 1;
        commands.spawn((Pos(*runs),));
    }
    let mut world = World::<Game>::new();
    let mut schedule = Schedule::<Game>::new();
    schedule.add(tally).add(tally);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let mut values: Vec<i64> = world.query::<&Pos>().iter().map(|p| p.0).collect();
    values.sort();
    assert_eq!(values, [1, 1, 2, 2, 3, 3]);
}

#[test]
fn a_local_makes_no_system_wait() {
    fn a(_: Local<u8>, _: Query<&mut Pos>) {}
    fn b(_: Local<u8>, _: Res<Spawned>) {}
    let mut schedule = Schedule::<Game>::new();
    schedule.add(a).add(b);
    assert!(schedule.describe().contains("stage 1: a, b\n"));
}
