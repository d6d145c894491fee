//! Save and load (feature `serde`): a world goes through any serde format and
//! comes back exact; a save of another schema is an error that says what
//! differs; a truncated, corrupted or made-up save is an error, never a panic
//! and never a world that breaks an invariant (fuzzed below).
//!
//! `cargo test -p ecs-tests --features serde --test saves -- save::`

use ecs::prelude::*;

use ecs::command::CommandBuffer;
use ecs::{checksum::StableHash, world::LoadError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use support::Rng;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Pos(f32, f32);
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Vel(f64);
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Name(String);
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, StableHash)]
struct Frozen;
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, StableHash)]
struct Frame(u64);
/// Kept in a sparse set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Stun(u32);

/// Bits: Pos 0, Vel 1, Name 2, Frozen 3, Stun 4 (sparse).
#[derive(Schema)]
struct Game {
    pos: Pos,
    vel: Vel,
    name: Name,
    frozen: Frozen,
    #[ecs(sparse)]
    stun: Stun,
    #[ecs(resource)]
    frame: Frame,
}

/// The same components under another schema, one renamed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Speed(f64);
#[derive(Schema)]
struct Other {
    pos: Pos,
    speed: Speed,
    name: Name,
    frozen: Frozen,
    #[ecs(resource)]
    frame: Frame,
}

fn churned(seed: u64, steps: usize) -> World<Game> {
    let mut rng = Rng::new(seed);
    let mut world = World::<Game>::new();
    let mut alive: Vec<Entity> = Vec::new();
    for step in 0..steps {
        let x = rng.below(1000) as f32 / 7.0;
        match rng.below(6) {
            0 | 1 => alive.push(world.spawn((Pos(x, -x), Vel(f64::from(x))))),
            2 => alive.push(world.spawn((Name(format!("e{step}")), Frozen))),
            3 | 4 if !alive.is_empty() => {
                let e = alive.swap_remove(rng.below(alive.len() as u64) as usize);
                world.despawn(e).unwrap();
            }
            5 if !alive.is_empty() => {
                let e = *rng.pick(&alive);
                if rng.chance(1, 2) {
                    world.insert(e, (Frozen, Vel(-1.0))).unwrap();
                } else if world.remove::<Stun>(e).unwrap().is_none() {
                    world.insert(e, (Stun(step as u32),)).unwrap();
                }
            }
            _ => {}
        }
    }
    world.resource_mut::<Frame>().0 = seed;
    world
}

type Row = (
    Entity,
    Option<Pos>,
    Option<Vel>,
    Option<Name>,
    bool,
    Option<Stun>,
);

fn contents(world: &World<Game>) -> Vec<Row> {
    world
        .query::<(
            Entity,
            Option<&Pos>,
            Option<&Vel>,
            Option<&Name>,
            Has<Frozen>,
        )>()
        .iter()
        .map(|(e, p, v, n, f)| {
            let stun = world.get::<Stun>(e).cloned();
            (e, p.cloned(), v.cloned(), n.cloned(), f, stun)
        })
        .collect()
}

fn assert_exact(loaded: &mut World<Game>, original: &mut World<Game>) {
    let (a, b) = (contents(loaded), contents(original));
    if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
        panic!(
            "row {i} differs: {:?} != {:?} ({} vs {} rows)",
            a[i],
            b[i],
            a.len(),
            b.len()
        );
    }
    assert_eq!(a.len(), b.len());
    assert_eq!(loaded.describe(), original.describe());
    assert_eq!(loaded.checksum(), original.checksum());
    assert_eq!(loaded.resource::<Frame>(), original.resource::<Frame>());
    for i in 0..50 {
        let e = original.spawn((Pos(i as f32, 0.0),));
        assert_eq!(loaded.spawn((Pos(i as f32, 0.0),)), e);
    }
    assert_eq!(loaded.checksum(), original.checksum());
}

#[test]
fn a_world_round_trips_exactly_through_postcard_and_json() {
    let mut world = churned(1, 4000);
    let json = serde_json::to_string(&world).unwrap();
    let mut from_json: World<Game> = serde_json::from_str(&json).unwrap();
    let bytes = postcard::to_stdvec(&world).unwrap();
    let mut loaded: World<Game> = postcard::from_bytes(&bytes).unwrap();
    assert_exact(&mut from_json, &mut world.clone());
    assert_exact(&mut loaded, &mut world);
}

#[test]
fn pending_reservations_survive_a_save() {
    let mut world = churned(2, 1000);
    let mut buffer = CommandBuffer::<Game>::new();
    let reserved: Vec<Entity> = (0..4)
        .map(|_| buffer.commands(&world).spawn((Vel(1.0),)))
        .collect();
    let bytes = postcard::to_stdvec(&world).unwrap();
    let mut loaded: World<Game> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    let next = buffer.commands(&loaded).spawn((Vel(2.0),));
    assert_eq!(buffer.commands(&world).spawn((Vel(2.0),)), next);
    assert!(!reserved.contains(&next));
    assert_eq!(loaded.spawn((Frozen,)), world.spawn((Frozen,)));
    assert!(reserved.iter().all(|&e| loaded.is_alive(e)));
}

#[test]
fn a_save_of_another_schema_says_what_differs() {
    let world = churned(3, 100);
    let says_what_differs = |error: &str| {
        error.contains("schema `Game`")
            && error.contains("`Vel`")
            && error.contains("schema `Other`")
            && error.contains("`Speed`")
    };
    let json = serde_json::to_string(&world).unwrap();
    let error = serde_json::from_str::<World<Other>>(&json)
        .expect_err("a Game save is not an Other world")
        .to_string();
    assert!(says_what_differs(&error), "{error}");
    // postcard's errors keep no message...
    let bytes = postcard::to_stdvec(&world).unwrap();
    let error = postcard::from_bytes::<World<Other>>(&bytes)
        .expect_err("a Game save is not an Other world")
        .to_string();
    assert!(!says_what_differs(&error), "{error}");
    // ...but `World::load` keeps the reason beside the format's error.
    match World::<Other>::load(&mut postcard::Deserializer::from_bytes(&bytes)) {
        Err(LoadError::Invalid { reason, format }) => {
            assert!(says_what_differs(&reason), "{reason}");
            assert_eq!(format, postcard::Error::SerdeDeCustom);
        }
        Err(error) => panic!("not the schema's reason: {error}"),
        Ok(_) => panic!("a Game save loaded as an Other world"),
    }
}

#[test]
fn load_tells_a_save_it_cannot_read_from_an_invalid_one() {
    let world = churned(6, 100);
    let mut bytes = postcard::to_stdvec(&world).unwrap();
    let load = |bytes: &[u8]| World::<Game>::load(&mut postcard::Deserializer::from_bytes(bytes));
    // Cut short: postcard runs out of input, and says so.
    match load(&bytes[..bytes.len() / 2]) {
        Err(LoadError::Format(postcard::Error::DeserializeUnexpectedEnd)) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
    // Another format tag: read, then refused, with the reason.
    bytes[0] ^= 1;
    let error = load(&bytes).map(|_| ()).unwrap_err();
    assert!(matches!(error, LoadError::Invalid { .. }));
    assert!(error.to_string().contains("format tag"), "{error}");
    // A reason does not outlive its load, even one left by a plain
    // `Deserialize` (as `postcard::from_bytes` does): the next refusal is
    // the format's.
    assert!(postcard::from_bytes::<World<Game>>(&bytes).is_err());
    match load(&[]) {
        Err(LoadError::Format(_)) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
    bytes[0] ^= 1;
    assert_eq!(load(&bytes).unwrap().checksum(), world.checksum());
}

/// The save as JSON, edited by `edit`, then loaded: the error's message,
/// which `World::load` gives as the reason.
fn load_edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut world = churned(4, 300);
    // A free list of a few slots.
    for e in world.iter().step_by(7).take(5).collect::<Vec<_>>() {
        world.despawn(e).unwrap();
    }
    let mut buffer = CommandBuffer::<Game>::new();
    buffer.commands(&world).spawn((Vel(1.0),));
    let mut value = serde_json::to_value(&world).unwrap();
    edit(&mut value);
    let message = match serde_json::from_value::<World<Game>>(value.clone()) {
        Ok(_) => panic!("the edited save loaded"),
        Err(error) => error.to_string(),
    };
    // `World::load` has the same reason, whatever the format would keep.
    match World::<Game>::load(value) {
        Err(LoadError::Invalid { reason, .. }) => {
            assert!(message.contains(&reason), "{message:?} is not {reason:?}");
        }
        Err(error) => panic!("refused without a reason: {error}"),
        Ok(_) => panic!("the edited save loaded"),
    }
    message
}

/// The generation of each entity slot.
fn slots(save: &mut Value) -> &mut Vec<Value> {
    save[2][0].as_array_mut().unwrap()
}

/// The free list's slot indices, from its head.
fn free_list(save: &mut Value) -> &mut Vec<Value> {
    save[2][1].as_array_mut().unwrap()
}

/// The slot index of the first row of the first table that has rows.
fn first_row(save: &mut Value) -> usize {
    first_row_mut(save).as_u64().unwrap() as usize
}

/// The entry of that row in its table's entity list.
fn first_row_mut(save: &mut Value) -> &mut Value {
    let tables = save[3].as_array_mut().unwrap();
    let table = tables
        .iter_mut()
        .find(|t| !t[1].as_array().unwrap().is_empty())
        .unwrap();
    &mut table[1][0]
}

fn expect(error: String, words: &str) {
    assert!(error.contains(words), "{error:?} does not say {words:?}");
}

#[test]
fn every_broken_invariant_is_rejected_with_its_reason() {
    expect(load_edited(|s| s[0] = json!(7)), "format tag");
    expect(
        load_edited(|s| s[1][2] = json!(0b1111)),
        "tags (zero-sized) in one and carry data in the other: `Frozen`",
    );
    // The same schema name with other components is another schema.
    expect(
        load_edited(|s| s[1][1][0] = json!("Renamed")),
        "(components: `Renamed`, `Vel`",
    );
    // `Pos` sparse as well as `Stun`: only `Pos` differs.
    let message = load_edited(|s| {
        let sparse = s[1][3].as_u64().unwrap();
        s[1][3] = json!(sparse | 1);
    });
    expect(
        message.clone(),
        "`#[ecs(sparse)]` in one and not in the other: `Pos`",
    );
    assert!(!message.contains("`Stun`"), "{message}");
    // A live entity's slot retired (generation 0).
    expect(
        load_edited(|s| {
            let index = first_row(s);
            slots(s)[index] = json!(0);
        }),
        "which is retired",
    );
    // A row naming a slot past the last.
    expect(
        load_edited(|s| {
            let beyond = json!(slots(s).len());
            *first_row_mut(s) = beyond;
        }),
        "which does not exist",
    );
    // A live entity in two rows: the first row of a table copied over the
    // first row of another.
    expect(
        load_edited(|s| {
            let tables = s[3].as_array_mut().unwrap();
            let first = tables
                .iter()
                .find(|t| !t[1].as_array().unwrap().is_empty())
                .unwrap()[1][0]
                .clone();
            let other = tables
                .iter_mut()
                .filter(|t| !t[1].as_array().unwrap().is_empty())
                .nth(1)
                .unwrap();
            other[1][0] = first;
        }),
        "in two table rows",
    );
    // A row naming a slot of the free list.
    expect(
        load_edited(|s| {
            let head = free_list(s)[0].clone();
            *first_row_mut(s) = head;
        }),
        "which the free list names already",
    );
    // A live slot in no table: the last row of a table dropped, with its
    // values.
    expect(
        load_edited(|s| {
            let table = s[3]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|t| t[1].as_array().unwrap().len() > 1 && t[0] == json!(3))
                .unwrap();
            table[1].as_array_mut().unwrap().pop();
            for column in table[2].as_array_mut().unwrap() {
                column.as_array_mut().unwrap().pop();
            }
        }),
        "in no table",
    );
    // A column one value short.
    expect(
        load_edited(|s| {
            let table = s[3]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|t| t[0] == json!(3))
                .unwrap();
            table[2][0].as_array_mut().unwrap().pop();
        }),
        "values of `Pos` where it must have exactly",
    );
    // A free list that loops back on itself.
    expect(
        load_edited(|s| {
            let head = free_list(s)[0].clone();
            free_list(s).push(head);
        }),
        "which the free list names already",
    );
    // A free list naming a slot that does not exist.
    expect(
        load_edited(|s| {
            let beyond = json!(slots(s).len());
            free_list(s).push(beyond);
        }),
        "which does not exist",
    );
    // A dead slot waiting for reuse but left out of the list.
    expect(
        load_edited(|s| {
            free_list(s).remove(0);
        }),
        "1 entity slot has a generation but is in no table row and not in the free list",
    );
    expect(load_edited(|s| s[2][2] = json!(1_000_000)), "reservations");
    expect(
        load_edited(|s| s[3][0] = json!([1, [], [[]]])),
        "the empty archetype",
    );
    expect(
        load_edited(|s| {
            let tables = s[3].as_array_mut().unwrap();
            let copy = tables[1].clone();
            tables.push(copy);
        }),
        "two tables",
    );
    expect(
        load_edited(|s| s[3][1][0] = json!(1u32 << 9)),
        "bits of no component",
    );
    expect(
        load_edited(|s| {
            s[4][0].as_array_mut().unwrap().push(Value::Null);
        }),
        "values of `Frozen` where it must have exactly",
    );
    expect(load_edited(|s| s[5] = json!([])), "resources");
    expect(
        load_edited(|s| s[1][3] = json!(0)),
        "`#[ecs(sparse)]` in one and not in the other: `Stun`",
    );
    // A table holding the sparse bit.
    expect(
        load_edited(|s| s[3][1][0] = json!(0b1_0011)),
        "holds a sparse component",
    );
    // A sparse value of an entity in no table (a slot past the rows).
    expect(
        load_edited(|s| {
            let beyond = json!(slots(s).len() - 1 + 1000);
            s[7][0][0][0] = beyond;
        }),
        "which is in no table",
    );
    expect(
        load_edited(|s| {
            let head = free_list(s)[0].clone();
            s[7][0][0][0] = head;
        }),
        "the sparse set of `Stun` holds a value of entity index",
    );
    expect(
        load_edited(|s| {
            let first = s[7][0][0][0].clone();
            s[7][0][0][1] = first;
        }),
        "the sparse set of `Stun` holds two values of entity index",
    );
    expect(
        load_edited(|s| {
            s[7][0][1].as_array_mut().unwrap().pop();
        }),
        "values of `Stun` where it must have exactly",
    );
    expect(
        load_edited(|s| {
            s[7].as_array_mut().unwrap().pop();
        }),
        "sparse set",
    );
    expect(
        load_edited(|s| {
            s.as_array_mut().unwrap().pop();
        }),
        "cut short",
    );
}

#[test]
fn every_truncation_of_a_save_is_an_error() {
    let world = churned(5, 200);
    let bytes = postcard::to_stdvec(&world).unwrap();
    for len in 0..bytes.len() {
        assert!(
            postcard::from_bytes::<World<Game>>(&bytes[..len]).is_err(),
            "a save cut to {len} of {} bytes loaded",
            bytes.len()
        );
    }
}

/// Uses every part of a loaded world, so that a broken invariant would
/// panic: reads every entity, moves some, despawns all, spawns again.
fn exercise(mut world: World<Game>) {
    let _ = world.checksum();
    let entities: Vec<Entity> = world.iter().collect();
    assert_eq!(entities.len(), world.len());
    for (i, &e) in entities.iter().enumerate() {
        assert!(world.entity(e).is_some());
        match i % 4 {
            0 => world.insert(e, (Vel(1.0),)).unwrap(),
            1 => drop(world.remove::<Frozen>(e).unwrap()),
            2 => drop(world.remove::<Stun>(e).unwrap()),
            _ => drop(world.remove::<Pos>(e).unwrap()),
        }
        world
            .insert(entities[entities.len() - 1 - i], (Stun(1),))
            .unwrap();
    }
    let copy = world.clone();
    // Twice: the first despawn makes pending reservations alive.
    for _ in 0..2 {
        for e in world.iter().collect::<Vec<_>>() {
            world.despawn(e).unwrap();
        }
    }
    assert!(world.is_empty());
    for _ in 0..entities.len() + 3 {
        world.spawn((Pos(0.0, 0.0), Frozen));
    }
    drop(copy);
}

#[test]
fn the_loader_survives_random_and_mutated_saves() {
    let cases: u64 = std::env::var("ECS_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300_000);
    let seeds: Vec<Vec<u8>> = (0..8)
        .map(|seed| {
            let world = churned(100 + seed, 20 + 10 * seed as usize);
            if seed % 2 == 0 {
                let mut buffer = CommandBuffer::<Game>::new();
                buffer.commands(&world).spawn((Vel(1.0),));
            }
            postcard::to_stdvec(&world).unwrap()
        })
        .collect();
    // The format tag that starts every save: a varint, ending at the first
    // byte without its high bit.
    let tag_len = seeds[0].iter().position(|byte| byte & 0x80 == 0).unwrap() + 1;
    let tag = &seeds[0][..tag_len];
    let mut rng = Rng::new(0xf022);
    let (mut loaded, mut invalid) = (0u64, 0u64);
    let mut input = Vec::new();
    for case in 0..cases {
        input.clear();
        if case % 8 == 0 {
            // Random bytes, often starting with the right format tag.
            let len = rng.below(64) as usize;
            input.extend((0..len).map(|_| rng.next_u64() as u8));
            if rng.chance(1, 2) {
                input.splice(0..0, tag.iter().copied());
            }
        } else {
            let seed: &Vec<u8> = rng.pick(&seeds);
            input.extend_from_slice(seed);
            for _ in 0..=rng.below(4) {
                let at = rng.below(input.len() as u64) as usize;
                match rng.below(5) {
                    0 => input[at] = rng.next_u64() as u8,
                    1 => input[at] ^= 1 << rng.below(8),
                    2 => input[at] = input[at].wrapping_add(1),
                    3 => {
                        input.remove(at);
                    }
                    _ => input.insert(at, rng.next_u64() as u8),
                }
                if input.is_empty() {
                    break;
                }
            }
        }
        match World::<Game>::load(&mut postcard::Deserializer::from_bytes(&input)) {
            Ok(world) => {
                loaded += 1;
                exercise(world);
            }
            Err(LoadError::Invalid { reason, .. }) => {
                assert!(!reason.is_empty());
                invalid += 1;
            }
            Err(_) => {}
        }
    }
    // Many mutations read as saves that break an invariant: each of those
    // came with its reason.
    assert!(invalid > 0, "no mutated save was refused with a reason");
    // Mutations of values (a float's bits, a name's letter) still load.
    assert!(
        loaded > 0,
        "no mutated save loaded: the fuzzer tests nothing"
    );
}

/// A schema with change detection and events: their state is world state
/// and goes through a save too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Hit(u32);
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StableHash)]
struct Seen(Vec<(u64, u32)>);

#[derive(Schema)]
struct Tracked {
    #[ecs(track)]
    pos: Pos,
    vel: Vel,
    #[ecs(event)]
    hit: Hit,
    #[ecs(resource)]
    seen: Seen,
}

fn push(mut q: Query<(Entity, &mut Pos, &Vel)>, mut hits: EventWriter<Hit>) {
    for (entity, pos, vel) in q.iter_mut() {
        pos.0 += vel.0 as f32;
        if pos.0 > 3.0 {
            hits.send(Hit(entity.index()));
        }
    }
}

fn watch(q: Query<Entity, Changed<Pos>>, hits: EventReader<Hit>, mut seen: ResMut<Seen>) {
    seen.0.extend(q.iter().map(|e| (e.to_bits(), 0)));
    seen.0.extend(hits.read().map(|hit| (0, hit.0)));
}

fn cull(q: Query<(Entity, &Pos)>, mut commands: Commands<Tracked>) {
    for (entity, pos) in q.iter() {
        if pos.0 > 5.0 {
            commands.despawn(entity);
        }
    }
}

#[test]
fn change_ticks_events_and_removals_round_trip_and_replay_the_same() {
    let mut world = World::<Tracked>::new();
    world.spawn_batch((0..20).map(|i| (Pos(i as f32 / 4.0, 0.0), Vel(i as f64 % 3.0))));
    let mut schedule = Schedule::<Tracked>::new();
    schedule.add(watch).add(push).add(cull);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert!(!world.events::<Hit>().is_empty());
    let bytes = postcard::to_allocvec(&world).unwrap();
    let mut loaded: World<Tracked> = postcard::from_bytes(&bytes).unwrap();
    let json = serde_json::to_string(&world).unwrap();
    let mut from_json: World<Tracked> = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());
    assert_eq!(from_json.checksum(), world.checksum());
    for _ in 0..3 {
        schedule.run(&mut world);
        schedule.run(&mut loaded);
        schedule.run(&mut from_json);
        assert_eq!(loaded.checksum(), world.checksum());
        assert_eq!(loaded.resource::<Seen>(), world.resource::<Seen>());
        assert_eq!(from_json.checksum(), world.checksum());
    }
}

#[test]
fn a_tracked_column_with_ticks_of_the_wrong_length_is_rejected() {
    let mut world = World::<Tracked>::new();
    world.spawn((Pos(0.0, 0.0), Vel(1.0)));
    world.spawn((Pos(1.0, 0.0), Vel(1.0)));
    let mut save: Value = serde_json::to_value(&world).unwrap();
    // tables -> the [Pos, Vel] table -> its columns -> the Pos column -> its
    // added ticks: drop one.
    let text = save.to_string();
    let tables = save.as_array_mut().unwrap()[3].as_array_mut().unwrap();
    let table = tables
        .iter_mut()
        .find(|table| table[0] != json!(0))
        .expect("a table with rows");
    let ticks = table[2][0]["added"].as_array_mut().expect("added ticks");
    ticks.pop();
    let error = serde_json::from_value::<World<Tracked>>(save)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| panic!("loaded a broken save: {text}"));
    assert!(error.contains("added ticks"), "{error}");
}

/// A tracked component after an untracked one, last in its schema: a save
/// holds a removal log for each component up to it, the last one full.
#[derive(Schema)]
struct TrackedLast {
    vel: Vel,
    #[ecs(track)]
    pos: Pos,
}

#[test]
fn removal_logs_round_trip_and_logs_the_schema_cannot_have_are_rejected() {
    let mut world = World::<TrackedLast>::new();
    let ids: Vec<Entity> = (0..3)
        .map(|i| world.spawn((Vel(1.0), Pos(i as f32, 0.0))))
        .collect();
    world.clear_trackers();
    world.despawn(ids[1]).unwrap();
    world.remove::<Pos>(ids[2]).unwrap();
    let save: Value = serde_json::to_value(&world).unwrap();
    let logs = save[6][5].as_array().expect("the removal logs").clone();
    assert_eq!(logs.len(), 2, "{logs:?}");
    // Each log: the number of its first entry, its (tick, entity) entries,
    // the tick of the newest dropped and what readers missed.
    assert_eq!(logs[0], json!([0, [], 0, []]), "Vel is not tracked");
    assert_eq!(logs[1][1].as_array().map(Vec::len), Some(2), "{logs:?}");
    let loaded: World<TrackedLast> = serde_json::from_value(save.clone()).unwrap();
    assert_eq!(loaded.checksum(), world.checksum());

    let load = |edit: &dyn Fn(&mut Vec<Value>)| {
        let mut save = save.clone();
        edit(save[6][5].as_array_mut().unwrap());
        match serde_json::from_value::<World<TrackedLast>>(save) {
            Ok(_) => panic!("loaded a save with impossible removal logs"),
            Err(error) => error.to_string(),
        }
    };
    // A removal of untracked `Vel`, copied from the log of `Pos`.
    let error = load(&|logs| logs[0] = logs[1].clone());
    assert!(
        error.contains("`Vel`, which schema `TrackedLast` does not track"),
        "{error}"
    );
    // A log for a component the schema does not have.
    let error = load(&|logs| logs.push(json!([0, [], 0, []])));
    assert!(
        error.contains("more components than the schema has"),
        "{error}"
    );
}

/// A world with a free list of `free` slots and `from_list` of them
/// reserved, saved as JSON, with its reservations edited by `edit`.
fn reserved_save(free: usize, from_list: usize, edit: impl FnOnce(&mut Value)) -> Value {
    let mut world = World::<Game>::new();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn((Vel(f64::from(i)),))).collect();
    for &entity in entities.iter().take(free) {
        world.despawn(entity).unwrap();
    }
    let mut buffer = CommandBuffer::<Game>::new();
    for _ in 0..from_list {
        buffer.commands(&world).spawn((Vel(1.0),));
    }
    let mut value = serde_json::to_value(&world).unwrap();
    edit(&mut value);
    value
}

#[test]
fn reservations_may_reach_the_last_entity_index_but_not_run_past_it() {
    // Ten slots, none free: fresh reservations may take every index up to
    // the last (u32::MAX - 1), that is u32::MAX - 10 of them.
    let room = u64::from(u32::MAX) - 10;
    let fits = reserved_save(0, 0, |s| s[2][3] = json!(room));
    let loaded = serde_json::from_value::<World<Game>>(fits);
    assert!(loaded.is_ok(), "{:?}", loaded.err());
    let past = reserved_save(0, 0, |s| s[2][3] = json!(room + 1));
    let error = serde_json::from_value::<World<Game>>(past).unwrap_err();
    expect(error.to_string(), "run past the last entity index");
    // Fresh reservations come after the whole free list only.
    let early = reserved_save(3, 2, |s| s[2][3] = json!(1));
    let error = serde_json::from_value::<World<Game>>(early).unwrap_err();
    expect(
        error.to_string(),
        "reservations take the whole free list before fresh slots",
    );
}

#[test]
fn a_loaded_world_goes_on_reserving_where_the_saved_one_was() {
    // Part of the free list reserved, all of it, all of it and more, and
    // fresh slots only.
    for (free, from_list) in [(4, 1), (4, 3), (4, 4), (4, 6), (0, 2)] {
        let case = format!("{free} free, {from_list} reserved");
        // A world that never went through a save, made the same way.
        let original = || {
            let mut world = World::<Game>::new();
            let entities: Vec<Entity> =
                (0..10).map(|i| world.spawn((Vel(f64::from(i)),))).collect();
            for &entity in entities.iter().take(free) {
                world.despawn(entity).unwrap();
            }
            let mut buffer = CommandBuffer::<Game>::new();
            for _ in 0..from_list {
                buffer.commands(&world).spawn((Vel(1.0),));
            }
            world
        };
        let save = reserved_save(free, from_list, |_| {});
        let loaded = || serde_json::from_value::<World<Game>>(save.clone()).unwrap();
        // The next reservations agree...
        let reserve = |world: &World<Game>| -> Vec<Entity> {
            let mut buffer = CommandBuffer::<Game>::new();
            (0..3)
                .map(|_| buffer.commands(world).spawn((Vel(2.0),)))
                .collect()
        };
        assert_eq!(reserve(&loaded()), reserve(&original()), "{case}");
        // ...and so does a spawn, which makes the reservations alive first.
        let (mut loaded, mut original) = (loaded(), original());
        assert_eq!(loaded.spawn((Frozen,)), original.spawn((Frozen,)), "{case}");
        assert_eq!(loaded.len(), original.len(), "{case}");
    }
}

// ---- components that refer to entities ----------------------------------

/// Whom an entity hunts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Target(Entity);
/// The entities it runs with, and the one it follows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
struct Pack(Vec<Entity>, Option<Entity>);
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, StableHash)]
struct Leader(Option<Entity>);

#[derive(Schema)]
struct Hunt {
    pos: Pos,
    target: Target,
    pack: Pack,
    #[ecs(resource)]
    leader: Leader,
}

#[test]
fn references_to_live_and_dead_entities_mean_the_same_after_a_load() {
    let mut world = World::<Hunt>::new();
    let prey = world.spawn((Pos(1.0, 2.0),));
    // `gone` is stale: its slot holds `reborn` now. `never` is dead, its slot
    // waiting in the free list.
    let gone = world.spawn((Pos(3.0, 4.0),));
    world.despawn(gone).unwrap();
    let reborn = world.spawn((Pos(5.0, 6.0),));
    assert_eq!(reborn.index(), gone.index());
    let never = world.spawn(());
    let pack = Pack(vec![prey, gone, reborn, never], Some(gone));
    let hunter = world.spawn((Pos(0.0, 0.0), Target(prey), pack.clone()));
    let lost = world.spawn((Target(never),));
    world.despawn(never).unwrap();
    world.resource_mut::<Leader>().0 = Some(hunter);

    let bytes = postcard::to_stdvec(&world).unwrap();
    let json = serde_json::to_string(&world).unwrap();
    let loads: [(&str, World<Hunt>); 2] = [
        ("postcard", postcard::from_bytes(&bytes).unwrap()),
        ("json", serde_json::from_str(&json).unwrap()),
    ];
    for (format, mut loaded) in loads {
        assert_eq!(loaded.checksum(), world.checksum(), "{format}");
        assert_eq!(
            loaded.get::<Target>(hunter),
            Some(&Target(prey)),
            "{format}"
        );
        assert_eq!(loaded.get::<Pack>(hunter), Some(&pack), "{format}");
        assert_eq!(loaded.get::<Target>(lost), Some(&Target(never)), "{format}");
        assert_eq!(loaded.resource::<Leader>().0, Some(hunter), "{format}");
        // A live reference finds the same entity and components.
        let target = loaded.get::<Target>(hunter).unwrap().0;
        assert_eq!(loaded.get::<Pos>(target), Some(&Pos(1.0, 2.0)), "{format}");
        for &e in &pack.0 {
            assert_eq!(loaded.is_alive(e), world.is_alive(e), "{format}: {e}");
            assert_eq!(loaded.get::<Pos>(e), world.get::<Pos>(e), "{format}: {e}");
        }
        // A dead one stays dead, also once its slot is reused.
        for dead in [gone, never] {
            assert!(!loaded.is_alive(dead), "{format}: {dead}");
            assert_eq!(loaded.get::<Pos>(dead), None, "{format}: {dead}");
        }
        let next = loaded.spawn((Pos(9.0, 9.0),));
        assert_eq!(next.index(), never.index());
        assert_ne!(next, never);
        assert!(!loaded.is_alive(never));
        assert_eq!(loaded.get::<Pos>(never), None);
    }
}

#[test]
fn an_entity_is_saved_as_its_bits_and_bits_with_no_generation_are_rejected() {
    let mut world = World::<Hunt>::new();
    let prey = world.spawn((Pos(1.0, 2.0),));
    world.spawn((Target(prey),));
    assert_eq!(serde_json::to_value(prey).unwrap(), json!(prey.to_bits()));
    assert_eq!(
        postcard::to_stdvec(&prey).unwrap(),
        postcard::to_stdvec(&prey.to_bits()).unwrap()
    );
    for bits in [0, 7, u64::from(u32::MAX)] {
        let error = serde_json::from_value::<Entity>(json!(bits)).unwrap_err();
        expect(error.to_string(), "generation");
        expect(error.to_string(), &bits.to_string());
        assert!(postcard::from_bytes::<Entity>(&postcard::to_stdvec(&bits).unwrap()).is_err());
    }
    let bits = 1 << 32 | 7;
    assert_eq!(
        serde_json::from_value::<Entity>(json!(bits)).unwrap(),
        Entity::from_bits(bits).unwrap()
    );
    // Inside a save, it is the load's error, not a panic.
    let json = serde_json::to_string(&world).unwrap();
    let reference = format!("[{}]", prey.to_bits());
    assert_eq!(json.matches(&reference).count(), 1, "{json}");
    let broken = json.replace(&reference, "[7]");
    let error = serde_json::from_str::<World<Hunt>>(&broken)
        .map(|_| ())
        .unwrap_err();
    expect(error.to_string(), "generation");
    assert!(World::<Hunt>::load(&mut serde_json::Deserializer::from_str(&broken)).is_err());
}

#[test]
fn a_part_of_the_wrong_shape_is_a_format_error_that_says_what_was_expected() {
    let world = churned(5, 200);
    let value = serde_json::to_value(&world).unwrap();
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut edited = value.clone();
        edit(&mut edited);
        match World::<Game>::load(edited) {
            Err(LoadError::Format(error)) => error.to_string(),
            Err(error) => panic!("refused as invalid rather than unreadable: {error}"),
            Ok(_) => panic!("the edited save loaded"),
        }
    };
    expect(
        refused(&|s| s[2] = json!("slots")),
        "expected the entity slots of a world",
    );
    expect(
        refused(&|s| s[2][1] = json!("list")),
        "expected the free list of a world's entity slots",
    );
    expect(
        refused(&|s| s[8] = json!(7)),
        "expected the locals of the systems",
    );
    let first_table = |s: &Value| -> usize {
        let tables = s[3].as_array().unwrap();
        tables
            .iter()
            .position(|t| !t[1].as_array().unwrap().is_empty())
            .unwrap()
    };
    expect(
        refused(&|s| {
            let at = first_table(s);
            s[3][at][1] = json!("rows");
        }),
        "expected at most",
    );
    let whole = World::<Game>::load(json!("not a save")).err().unwrap();
    expect(whole.to_string(), "expected a saved World<Game>");
    // Each part, and a piece of each, replaced by a number.
    type Edit<'a> = &'a dyn Fn(&mut Value);
    let parts: [(Edit, &str); 6] = [
        (&|s| s[1] = json!(1), "expected the header of a saved world"),
        (&|s| s[3] = json!(1), "expected the tables of a saved world"),
        (&|s| s[3][0] = json!(1), "expected a table of a saved world"),
        (
            &|s| s[4] = json!(1),
            "expected the tag values of a saved world",
        ),
        (
            &|s| s[7] = json!(1),
            "expected the sparse sets of a saved world",
        ),
        (
            &|s| s[7][0] = json!(1),
            "expected a sparse set of a saved world",
        ),
    ];
    for (edit, words) in parts {
        expect(refused(edit), words);
    }
    expect(
        refused(&|s| {
            let at = first_table(s);
            s[3][at][2] = json!(1);
        }),
        "expected the columns of a table of archetype",
    );
}

#[test]
fn a_tracked_column_of_the_wrong_shape_says_what_it_must_hold() {
    let mut world = World::<Tracked>::new();
    world.spawn((Pos(0.0, 0.0), Vel(1.0)));
    let mut save: Value = serde_json::to_value(&world).unwrap();
    let tables = save[3].as_array_mut().unwrap();
    let table = tables
        .iter_mut()
        .find(|table| table[0] != json!(0))
        .unwrap();
    table[2][0] = json!("ticks");
    match World::<Tracked>::load(save) {
        Err(LoadError::Format(error)) => expect(
            error.to_string(),
            "expected a tracked column of 1 rows: values of `Pos`, added and changed ticks",
        ),
        other => panic!("a tracked column that is a string: {:?}", other.err()),
    }
}

#[test]
fn a_refusal_says_the_formats_error_once_and_its_source_goes_on_below_it() {
    use std::error::Error as _;
    use std::io;
    let world = churned(6, 100);
    // Refused with a reason: the text is the reason, which is also what
    // the format's error says (serde_json adds where).
    let mut value = serde_json::to_value(&world).unwrap();
    value[0] = json!(7); // the format tag
    let refused = World::<Game>::load(value).err().unwrap();
    assert!(matches!(refused, LoadError::Invalid { .. }), "{refused}");
    let messages = support::each_message_once(&refused);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains("format tag"), "{messages:?}");
    // postcard's error says nothing of the reason; the text still does.
    let mut bytes = postcard::to_stdvec(&world).unwrap();
    bytes[0] ^= 1;
    let refused = World::<Game>::load(&mut postcard::Deserializer::from_bytes(&bytes))
        .err()
        .unwrap();
    let messages = support::each_message_once(&refused);
    assert!(messages[0].contains("format tag"), "{messages:?}");
    // Unreadable: the text holds the format's error.
    let unreadable = World::<Game>::load(json!("not a save")).err().unwrap();
    let LoadError::Format(format) = &unreadable else {
        panic!("{unreadable}");
    };
    let messages = support::each_message_once(&unreadable);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains(&format.to_string()), "{messages:?}");
    // A reader that fails: the chain goes on with what the format's error
    // wraps (an I/O error, and the error below it), each said once.
    #[derive(Debug)]
    struct Sector;
    impl std::fmt::Display for Sector {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("sector 7 is unreadable")
        }
    }
    impl std::error::Error for Sector {}
    #[derive(Debug)]
    struct Disk(Sector);
    impl std::fmt::Display for Disk {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the disk failed")
        }
    }
    impl std::error::Error for Disk {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    struct Failing;
    impl io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other(Disk(Sector)))
        }
    }
    let failed = World::<Game>::load(&mut serde_json::Deserializer::from_reader(Failing))
        .err()
        .unwrap();
    assert!(matches!(failed, LoadError::Format(_)), "{failed}");
    assert_eq!(
        support::each_message_once(&failed),
        [
            "the save could not be read: the disk failed",
            "sector 7 is unreadable"
        ]
    );
    assert!(failed.source().unwrap().is::<Sector>());
}
