//! Save and load (feature `serde`) under attack: worlds that use every kind
//! of state round trip through postcard and JSON and run on alike, and saves
//! corrupted in targeted ways (that still parse) or by random byte flips are
//! refused with an error: never a panic, never a world that breaks an
//! invariant, and a failed load in place leaves the target as it was.
//!
//! `cargo test -p ecs-tests --features serde --test saves -- save_adversarial::`

use core::time::Duration;
use ecs::command::CommandBuffer;
use ecs::prelude::*;
use ecs::{checksum::StableHash, event::EventCursor, schedule::FixedTime, world::LoadError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use support::Rng;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Pos(pub(super) i64);
#[derive(Soa, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Vel {
    x: i32,
    y: i16,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Hp(pub(super) i32);
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Stun(u32);
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Mark(String);
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, StableHash)]
pub(super) struct Frozen;
#[derive(Relation, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Children(Vec<Entity>);
#[derive(Relation, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Follows(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Followers(Vec<Entity>);
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Hit(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, StableHash)]
pub(super) enum Phase {
    #[default]
    Menu,
    Playing,
    Paused,
}
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StableHash)]
pub(super) struct Log(Vec<u64>);

/// Component bits: Pos 0, Vel 1 (soa), Hp 2 (tracked), Stun 3 (sparse,
/// tracked), Mark 4 (sparse), Frozen 5 (tag), ChildOf 6, Children 7,
/// Follows 8 (sparse relation), Followers 9.
#[derive(Schema)]
pub(super) struct Big {
    pos: Pos,
    #[ecs(soa)]
    vel: Vel,
    #[ecs(track)]
    hp: Hp,
    #[ecs(sparse, track)]
    stun: Stun,
    #[ecs(sparse)]
    mark: Mark,
    frozen: Frozen,
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    #[ecs(sparse, relation(inverse = followers))]
    follows: Follows,
    followers: Followers,
    #[ecs(event)]
    hit: Hit,
    #[ecs(state)]
    phase: Phase,
    #[ecs(resource)]
    time: FixedTime,
    #[ecs(resource)]
    log: Log,
}

const CHILD_OF: u32 = 6;
const CHILDREN: u32 = 7;

// ---- systems --------------------------------------------------------------

fn physics(
    mut q: Query<(Entity, &mut Pos, &mut Hp)>,
    mut hits: EventWriter<Hit>,
    mut n: SavedLocal<u32>,
) {
    *n += 1;
    for (e, pos, hp) in q.iter_mut() {
        pos.0 += i64::from(e.index() % 5) - 2;
        if (e.index() + *n) % 4 == 0 {
            hp.0 -= 1;
            hits.send(Hit(e.index() * 1000 + *n));
        }
    }
}

fn watch(
    q: Query<Entity, Changed<Hp>>,
    stunned: Query<Entity, Added<Stun>>,
    hits: EventReader<Hit>,
    mut log: ResMut<Log>,
    mut seen: SavedLocal<u64>,
) {
    let changed = q
        .iter()
        .map(|e| e.to_bits())
        .fold(0u64, |a, b| a.rotate_left(5) ^ b);
    let added = stunned.iter().count() as u64;
    let read: u64 = hits.read().map(|h| u64::from(h.0)).sum();
    *seen = seen.wrapping_mul(31).wrapping_add(changed ^ added ^ read);
    log.0.push(*seen);
}

fn direct(mut next: NextState<Phase>, log: Res<Log>) {
    match log.0.len() % 3 {
        0 => next.set(Phase::Playing),
        1 => next.set(Phase::Paused),
        _ => {}
    }
}

fn reap(q: Query<(Entity, &Hp, &Pos)>, mut commands: Commands<Big>) {
    for (e, hp, pos) in q.iter() {
        if hp.0 < -3 {
            commands.despawn(e);
        } else if pos.0 % 7 == 0 {
            commands.insert(e, (Stun(e.index()),));
        } else if pos.0 % 11 == 0 {
            commands.remove::<Stun>(e);
        }
    }
}

fn breed(
    q: Query<(Entity, &Pos), With<Frozen>>,
    mut commands: Commands<Big>,
    mut count: SavedLocal<u8>,
) {
    *count = count.wrapping_add(1);
    if *count % 3 == 0 {
        if let Some((parent, pos)) = q.iter().next() {
            commands.spawn((Pos(pos.0 + 1), Hp(2), ChildOf(parent), Vel { x: 1, y: 2 }));
        }
    }
}

pub(super) fn game_loop() -> GameLoop<Big> {
    let mut fixed = Schedule::<Big>::new();
    fixed.add(physics).add(reap);
    let mut frame = Schedule::<Big>::new();
    frame
        .apply_transitions::<Phase>()
        .add(watch)
        .add(direct)
        .add(breed.run_if(in_state(Phase::Playing)));
    GameLoop::new(fixed, frame)
}

/// Frame times that leave the accumulator mid-step.
const FRAMES: [u64; 6] = [7, 16, 33, 5, 21, 16];

pub(super) fn run_frames(world: &mut World<Big>, game: &mut GameLoop<Big>, frames: usize) {
    for i in 0..frames {
        game.run_frame(world, Duration::from_millis(FRAMES[i % FRAMES.len()]));
    }
}

/// A world that uses every kind of state: churned ids with high
/// generations, a hierarchy with a cascade despawned, sparse (tracked)
/// components, a sparse relation whose targets own sparse values, SoA
/// columns, tags, events unread, a pending transition, a mid-step clock,
/// locals, and pending reservations.
pub(super) fn build(seed: u64) -> World<Big> {
    let mut rng = Rng::new(seed);
    let mut world = World::<Big>::new();
    *world.resource_mut::<FixedTime>() = FixedTime::from_hz(60);
    // Churn one slot range so that generations climb.
    for _ in 0..40 {
        let batch: Vec<Entity> = world.spawn_batch((0..8).map(|i| (Pos(i),))).collect();
        for e in batch {
            world.despawn(e).unwrap();
        }
    }
    let mut alive: Vec<Entity> = Vec::new();
    for i in 0..60i64 {
        let e = match rng.below(5) {
            0 => world.spawn((Pos(i), Hp(3))),
            1 => world.spawn((
                Pos(i),
                Vel {
                    x: i as i32,
                    y: -(i as i16),
                },
                Hp(1),
            )),
            2 => world.spawn((Pos(i), Frozen, Hp(5))),
            3 => world.spawn((Vel { x: 7, y: 7 }, Mark(format!("m{i}")))),
            _ => world.spawn((Pos(i), Stun(i as u32), Hp(2), Frozen)),
        };
        if !alive.is_empty() && rng.chance(1, 2) {
            let parent = *rng.pick(&alive);
            world.insert(e, (ChildOf(parent),)).unwrap();
        }
        if !alive.is_empty() && rng.chance(1, 3) {
            let star = *rng.pick(&alive);
            world.insert(e, (Follows(star),)).unwrap();
            world.insert(star, (Mark(format!("star{i}")),)).unwrap();
        }
        alive.push(e);
    }
    // A cascade: despawn a parent of something, just before the save.
    let parent = alive
        .iter()
        .copied()
        .find(|&e| world.get::<Children>(e).is_some())
        .expect("a parent");
    world.despawn(parent).unwrap();
    let mut game = game_loop();
    run_frames(&mut world, &mut game, 9);
    world.send_event(Hit(77));
    world.set_next_state(Phase::Paused);
    let mut buffer = CommandBuffer::<Big>::new();
    buffer.commands(&world).spawn((Pos(-1),));
    buffer.commands(&world).spawn((Hp(-1),));
    world
}

fn postcard_round(world: &World<Big>) -> World<Big> {
    let bytes = postcard::to_stdvec(world).unwrap();
    postcard::from_bytes(&bytes).unwrap()
}

fn json_round(world: &World<Big>) -> World<Big> {
    let text = serde_json::to_string(world).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Everything a user can observe agrees, now and after running on.
pub(super) fn assert_same(mut loaded: World<Big>, mut original: World<Big>, what: &str) {
    assert_eq!(loaded.checksum(), original.checksum(), "{what}: checksum");
    assert_eq!(
        loaded.iter().collect::<Vec<_>>(),
        original.iter().collect::<Vec<_>>(),
        "{what}: entities"
    );
    assert_eq!(loaded.len(), original.len(), "{what}: len");
    assert_eq!(loaded.describe(), original.describe(), "{what}: describe");
    assert_eq!(
        loaded.events::<Hit>().iter().collect::<Vec<_>>(),
        original.events::<Hit>().iter().collect::<Vec<_>>(),
        "{what}: events"
    );
    assert_eq!(
        loaded.resource::<State<Phase>>(),
        original.resource::<State<Phase>>(),
        "{what}: state"
    );
    assert_eq!(
        loaded.resource::<FixedTime>(),
        original.resource::<FixedTime>(),
        "{what}: clock"
    );
    // The next reservations and spawns.
    let (mut a, mut b) = (CommandBuffer::<Big>::new(), CommandBuffer::<Big>::new());
    assert_eq!(
        a.commands(&loaded).spawn((Pos(0),)),
        b.commands(&original).spawn((Pos(0),)),
        "{what}: next reservation"
    );
    a.apply(&mut loaded);
    b.apply(&mut original);
    for i in 0..5 {
        assert_eq!(
            loaded.spawn((Pos(i),)),
            original.spawn((Pos(i),)),
            "{what}: next spawn"
        );
    }
    // A new loop with the same systems on each side.
    let (mut ga, mut gb) = (game_loop(), game_loop());
    for (frame, &ms) in FRAMES.iter().enumerate().take(6) {
        let dt = Duration::from_millis(ms);
        assert_eq!(
            ga.run_frame(&mut loaded, dt),
            gb.run_frame(&mut original, dt),
            "{what}: steps of frame {frame}"
        );
        assert_eq!(
            loaded.checksum(),
            original.checksum(),
            "{what}: checksum after frame {frame}"
        );
    }
    assert_eq!(
        loaded.resource::<Log>(),
        original.resource::<Log>(),
        "{what}"
    );
    assert_eq!(
        loaded.iter().collect::<Vec<_>>(),
        original.iter().collect::<Vec<_>>(),
        "{what}: entities after running"
    );
}

// ---- round trips ----------------------------------------------------------

#[test]
fn a_world_with_every_kind_of_state_round_trips_and_runs_on_alike() {
    for seed in 0..4 {
        let world = build(seed);
        assert!(!world.events::<Hit>().is_empty());
        assert!(world.resource::<State<Phase>>().pending().is_some());
        assert!(world.resource::<FixedTime>().overstep() > Duration::ZERO);
        assert_same(postcard_round(&world), world.clone(), "postcard");
        assert_same(json_round(&world), world, "json");
    }
}

#[test]
fn an_empty_world_and_a_cleared_one_round_trip() {
    let world = World::<Big>::new();
    assert_same(
        postcard_round(&world),
        World::<Big>::new(),
        "empty postcard",
    );
    assert_same(json_round(&world), World::<Big>::new(), "empty json");
    let mut cleared = build(9);
    cleared.clear();
    assert_same(
        postcard_round(&cleared),
        cleared.clone(),
        "cleared postcard",
    );
    assert_same(json_round(&cleared), cleared, "cleared json");
}

#[test]
fn a_world_loaded_twice_in_a_row_is_the_same() {
    let world = build(11);
    let once = postcard_round(&world);
    let twice = json_round(&once);
    assert_eq!(
        postcard::to_stdvec(&twice).unwrap(),
        postcard::to_stdvec(&world).unwrap()
    );
    assert_same(twice, world, "twice");
}

#[test]
fn high_generations_after_churn_round_trip() {
    let mut world = World::<Big>::new();
    // Slot 0 goes through many generations.
    for _ in 0..5000 {
        let e = world.spawn((Pos(1),));
        world.despawn(e).unwrap();
    }
    let keep = world.spawn((Pos(2), Hp(1)));
    assert!(keep.generation().get() > 4000);
    let follower = world.spawn((Follows(keep),));
    world.insert(keep, (Stun(3),)).unwrap();
    assert_same(postcard_round(&world), world.clone(), "postcard");
    let loaded = json_round(&world);
    assert_eq!(loaded.get::<Followers>(keep).unwrap().0, vec![follower]);
    assert_same(loaded, world, "json");
}

// ---- corrupted saves ------------------------------------------------------

/// A small world whose save the edits below break: a parent with two
/// children, one following a star that has a sparse value, a free slot.
pub(super) struct Small {
    pub(super) world: World<Big>,
    pub(super) parent: Entity,
    pub(super) kids: [Entity; 2],
    pub(super) star: Entity,
    pub(super) dead: Entity,
}

pub(super) fn small() -> Small {
    let mut world = World::<Big>::new();
    let dead = world.spawn((Pos(0),));
    let parent = world.spawn((Pos(1), Hp(1)));
    let a = world.spawn((Pos(2), ChildOf(parent), Vel { x: 1, y: 1 }));
    let b = world.spawn((Pos(3), ChildOf(parent), Vel { x: 2, y: 2 }));
    let star = world.spawn((Pos(4), Mark("star".into()), Stun(1)));
    world.insert(a, (Follows(star),)).unwrap();
    world.despawn(dead).unwrap();
    world.send_event(Hit(1));
    let mut game = game_loop();
    run_frames(&mut world, &mut game, 3);
    Small {
        world,
        parent,
        kids: [a, b],
        star,
        dead,
    }
}

/// Where entity `e`'s row is: (table, row).
fn locate(save: &Value, e: Entity) -> (usize, usize) {
    for (t, table) in save[3].as_array().unwrap().iter().enumerate() {
        if let Some(r) = table[1]
            .as_array()
            .unwrap()
            .iter()
            .position(|i| i.as_u64() == Some(u64::from(e.index())))
        {
            return (t, r);
        }
    }
    panic!("{e} is in no table");
}

/// The column of component `bit` in table `t`.
fn column(save: &mut Value, t: usize, bit: u32) -> &mut Value {
    let data = save[1][2].as_u64().unwrap();
    let mask = save[3][t][0].as_u64().unwrap();
    assert!(mask >> bit & 1 == 1, "table {t} has no bit {bit}");
    let at = (mask & data & ((1 << bit) - 1)).count_ones() as usize;
    &mut save[3][t][2][at]
}

/// Entity `e`'s value of table component `bit`.
fn cell(save: &mut Value, e: Entity, bit: u32) -> &mut Value {
    let (t, r) = locate(save, e);
    &mut column(save, t, bit)[r]
}

/// The resources part's values (an object, keyed by the schema's field
/// names); the ones below are found by shape.
fn resources(save: &mut Value) -> impl Iterator<Item = &mut Value> {
    save[5].as_object_mut().unwrap().values_mut()
}

/// The event queue `(first, [(tick, Hit)], dropped_through, marks)` among
/// the resources.
fn events(save: &mut Value) -> &mut Value {
    resources(save)
        .find(|r| {
            r.is_array()
                && r.as_array().unwrap().len() == 4
                && r[0].is_u64()
                && r[1].is_array()
                && r[3].is_array()
        })
        .expect("the event queue")
}

/// The state `(current, pending)` among the resources.
fn state(save: &mut Value) -> &mut Value {
    resources(save)
        .find(|r| r.is_array() && r[0].is_string())
        .expect("the state")
}

/// Loads `save` with `World::load`, and in place over a world built
/// alike, catching panics: the refusal's text, or why it is wrong.
pub(super) fn refused(save: Value) -> Result<String, String> {
    let loaded = catch_unwind(AssertUnwindSafe(|| World::<Big>::load(save.clone())));
    let reason = match loaded {
        Err(panic) => return Err(format!("load panicked: {}", panic_text(&panic))),
        Ok(Ok(world)) => {
            // Loaded: does it at least hold together?
            let used = catch_unwind(AssertUnwindSafe(|| exercise(world)));
            return Err(match used {
                Ok(()) => "the broken save loaded".to_string(),
                Err(panic) => format!(
                    "the broken save loaded, and the world then panicked: {}",
                    panic_text(&panic)
                ),
            });
        }
        Ok(Err(LoadError::Invalid { reason, .. })) => reason,
        Ok(Err(LoadError::Format(error))) => error.to_string(),
        Ok(Err(other)) => other.to_string(),
    };
    // In place over an existing world: refused, and that world untouched.
    let mut target = small().world;
    let before = target.checksum();
    let ids: Vec<Entity> = target.iter().collect();
    let result = catch_unwind(AssertUnwindSafe(|| {
        World::<Big>::deserialize_in_place(save, &mut target)
    }));
    match result {
        Err(panic) => return Err(format!("load in place panicked: {}", panic_text(&panic))),
        Ok(Ok(())) => return Err("loaded in place".into()),
        Ok(Err(_)) => {}
    }
    if target.checksum() != before || target.iter().collect::<Vec<_>>() != ids {
        return Err("a failed load in place changed the target".into());
    }
    Ok(reason)
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// Uses every part of a loaded world, so that a broken invariant would
/// show: runs the loop, reads events, moves and despawns everything.
pub(super) fn exercise(mut world: World<Big>) {
    let _ = world.checksum();
    let mut cursor = EventCursor::<Hit>::default();
    let _ = cursor.read(&world).count();
    let mut game = game_loop();
    run_frames(&mut world, &mut game, 4);
    let _ = cursor.read(&world).count();
    let entities: Vec<Entity> = world.iter().collect();
    for (i, &e) in entities.iter().enumerate() {
        if !world.is_alive(e) {
            continue;
        }
        let _ = world.get::<Children>(e).map(|c| c.0.len());
        match i % 4 {
            0 => drop(world.insert(e, (Hp(1), Stun(2)))),
            1 => drop(world.remove::<Stun>(e)),
            2 => drop(world.insert(e, (Follows(entities[0]),))),
            _ => drop(world.remove::<ChildOf>(e)),
        }
    }
    let _ = world.clone();
    for _ in 0..2 {
        for e in world.iter().collect::<Vec<_>>() {
            let _ = world.despawn(e);
        }
    }
    assert!(world.is_empty(), "entities left after despawning all");
    for _ in 0..entities.len() + 3 {
        world.spawn((Pos(0), Frozen));
    }
    run_frames(&mut world, &mut game, 2);
    let _ = world.checksum();
}

/// The small world's save as JSON, edited.
fn edited(edit: impl FnOnce(&mut Value, &Small)) -> Value {
    let small = small();
    let mut save = serde_json::to_value(&small.world).unwrap();
    assert!(World::<Big>::load(save.clone()).is_ok());
    edit(&mut save, &small);
    save
}

fn expect_refused(what: &str, edit: impl FnOnce(&mut Value, &Small)) -> String {
    match refused(edited(edit)) {
        Ok(reason) => reason,
        Err(wrong) => panic!("{what}: {wrong}"),
    }
}

#[test]
fn the_small_save_loads_and_each_edit_below_is_seen() {
    let small = small();
    let save = serde_json::to_value(&small.world).unwrap();
    let loaded = World::<Big>::load(save.clone()).unwrap();
    assert_eq!(loaded.checksum(), small.world.checksum());
    // The helpers find what they look for.
    let mut s = save.clone();
    assert_eq!(
        *cell(&mut s, small.kids[0], CHILD_OF),
        json!(small.parent.to_bits())
    );
    assert_eq!(
        *cell(&mut s, small.parent, CHILDREN),
        json!([small.kids[0].to_bits(), small.kids[1].to_bits()])
    );
    assert!(events(&mut s)[1].is_array());
    assert!(state(&mut s)[0].is_string());
}

#[test]
fn a_relation_naming_a_dead_entity_is_refused() {
    expect_refused("ChildOf(dead)", |s, w| {
        *cell(s, w.kids[1], CHILD_OF) = json!(w.dead.to_bits());
        // And out of the parent's list, so only the target is wrong.
        *cell(s, w.parent, CHILDREN) = json!([w.kids[0].to_bits()]);
    });
}

#[test]
fn a_relation_naming_a_nonexistent_entity_is_refused() {
    expect_refused("ChildOf(nonexistent)", |s, w| {
        let never = Entity::from_bits(1 << 32 | 1000).unwrap();
        *cell(s, w.kids[1], CHILD_OF) = json!(never.to_bits());
        *cell(s, w.parent, CHILDREN) = json!([w.kids[0].to_bits()]);
    });
    expect_refused("ChildOf(bits with generation 0)", |s, w| {
        *cell(s, w.kids[1], CHILD_OF) = json!(u64::from(w.parent.index()));
    });
}

#[test]
fn a_relation_and_its_inverse_that_disagree_are_refused() {
    // The list names a child whose relation points elsewhere.
    expect_refused("list names a stranger", |s, w| {
        *cell(s, w.parent, CHILDREN) =
            json!([w.kids[0].to_bits(), w.kids[1].to_bits(), w.star.to_bits()]);
    });
    // The list names a stale id of a live child.
    expect_refused("list names a stale id", |s, w| {
        let stale = Entity::from_bits(
            u64::from(w.kids[1].generation().get() + 1) << 32 | u64::from(w.kids[1].index()),
        )
        .unwrap();
        *cell(s, w.parent, CHILDREN) = json!([w.kids[0].to_bits(), stale.to_bits()]);
    });
    // The sparse relation points at an entity with no list.
    expect_refused("Follows without Followers", |s, w| {
        let sets = s[7].as_array_mut().unwrap();
        // Sparse bits in order: Stun 3, Mark 4, Follows 8.
        let follows = &mut sets[2];
        assert_eq!(follows[0], json!([w.kids[0].index()]));
        follows[1][0] = json!(w.parent.to_bits());
    });
    // A child with its relation removed but still listed.
    // A child pointing at itself, still in its parent's list.
    expect_refused("listed without a relation", |s, w| {
        *cell(s, w.kids[1], CHILD_OF) = json!(w.kids[1].to_bits());
    });
}

#[test]
fn an_entity_in_two_rows_of_one_table_is_refused() {
    expect_refused("one table, same entity twice", |s, w| {
        let (t, _) = locate(s, w.kids[0]);
        let rows = s[3][t][1].as_array_mut().unwrap();
        assert_eq!(rows.len(), 2, "{rows:?}");
        rows[1] = rows[0].clone();
    });
}

#[test]
fn a_table_with_the_wrong_columns_is_refused() {
    // The children's table said to hold Hp where it holds Vel: columns of
    // the same count, of another type.
    expect_refused("Vel read as Hp", |s, w| {
        let (t, _) = locate(s, w.kids[1]);
        let mask = s[3][t][0].as_u64().unwrap();
        s[3][t][0] = json!(mask & !(1 << 1) | 1 << 2);
    });
    // One column too many.
    expect_refused("an extra column", |s, w| {
        let (t, _) = locate(s, w.kids[1]);
        let extra = s[3][t][2][0].clone();
        s[3][t][2].as_array_mut().unwrap().push(extra);
    });
    // A tag bit added to a table: its rows would have tag values the tag
    // part does not hold.
    expect_refused("a tag bit added", |s, w| {
        let (t, _) = locate(s, w.kids[1]);
        let mask = s[3][t][0].as_u64().unwrap();
        s[3][t][0] = json!(mask | 1 << 5);
    });
}

#[test]
fn a_short_soa_or_tracked_column_is_refused() {
    expect_refused("short SoA column", |s, w| {
        let (t, _) = locate(s, w.kids[1]);
        column(s, t, 1).as_array_mut().unwrap().pop();
    });
    expect_refused("short tracked values", |s, w| {
        let (t, _) = locate(s, w.parent);
        column(s, t, 2)["values"].as_array_mut().unwrap().pop();
    });
    expect_refused("short tracked sparse ticks", |s, _| {
        s[7][0][1]["changed"].as_array_mut().unwrap().pop();
    });
}

#[test]
fn a_sparse_value_of_a_dead_entity_is_refused() {
    expect_refused("Stun on a free slot", |s, w| {
        s[7][0][0][0] = json!(w.dead.index());
    });
    expect_refused("Follows on a free slot", |s, w| {
        s[7][2][0][0] = json!(w.dead.index());
    });
}

#[test]
fn free_lists_that_loop_or_name_live_slots_are_refused() {
    expect_refused("free list names a live slot", |s, w| {
        s[2][1]
            .as_array_mut()
            .unwrap()
            .push(json!(w.parent.index()));
    });
    expect_refused("free list with a cycle", |s, w| {
        s[2][1] = json!([w.dead.index(), w.dead.index()]);
    });
    expect_refused("a live slot's generation 0", |s, w| {
        s[2][0][w.star.index() as usize] = json!(0);
    });
    expect_refused("reservations beyond the free list", |s, _| {
        s[2][2] = json!(5);
    });
    expect_refused("fresh reservations past the last index", |s, _| {
        s[2][2] = json!(1);
        s[2][3] = json!(u32::MAX);
    });
}

#[test]
fn a_state_or_clock_the_schema_cannot_have_is_refused() {
    expect_refused("unknown state", |s, _| {
        state(s)[0] = json!("Bogus");
    });
    expect_refused("unknown pending state", |s, _| {
        state(s)[1] = json!("Bogus");
    });
    expect_refused("whether the state was entered not a bool", |s, _| {
        state(s)[2] = json!(1);
    });
    expect_refused("a whole step not run", |s, _| {
        clock(s)[1] = clock(s)[0].clone();
    });
    expect_refused("a frame time cap of 0 ns", |s, _| {
        clock(s)[3] = json!(0);
    });
}

/// The fixed-step clock: six integers.
fn clock(save: &mut Value) -> &mut Value {
    resources(save)
        .find(|r| r.as_array().is_some_and(|a| a.len() == 6))
        .expect("the clock")
}

#[test]
fn a_tracked_tick_after_the_worlds_tick_is_refused() {
    // Stamped in the future: `Changed` would report it runs from now.
    expect_refused("Hp changed in the future", |s, w| {
        let now = s[6][0].as_u64().unwrap();
        let (t, r) = locate(s, w.parent);
        column(s, t, 2)["changed"][r] = json!(now + 1000);
    });
}

#[test]
fn events_with_impossible_ticks_are_refused() {
    expect_refused("event sent after the world's tick", |s, _| {
        let now = s[6][0].as_u64().unwrap();
        let queue = events(s);
        let last = queue[1].as_array().unwrap().len() - 1;
        queue[1][last][0] = json!(now + 1000);
    });
}

#[test]
fn events_out_of_send_order_are_refused() {
    // An event stamped before the one ahead of it in the queue: the queue
    // is kept in send order, which readers bisect.
    expect_refused("event ticks decreasing", |s, _| {
        let queue = events(s)[1].as_array_mut().unwrap();
        let tick = queue[queue.len() - 1][0].as_u64().unwrap();
        assert!(tick > 0, "{queue:?}");
        queue.push(json!([tick - 1, 5]));
    });
}

#[test]
fn an_event_sequence_number_that_overflows_is_refused() {
    expect_refused("first sequence number u64::MAX", |s, _| {
        events(s)[0] = json!(u64::MAX);
    });
}

/// A removal log's entries are numbered from its `first`: numbers up to
/// 2^63 - 1 are a world's; a log numbered past that is no save's, and the
/// refusal names it.
#[test]
fn a_removal_log_numbered_past_2_pow_63_is_refused() {
    // The changes' removal logs `(first, [(tick, entity)], dropped_through,
    // marks)`, one per component bit up to the last one that logged:
    // `Hp`, bit 2, is tracked.
    fn numbered_from(first: u64) -> impl FnOnce(&mut Value, &Small) {
        move |s, _| s[6][5] = json!([[0, [], 0, []], [0, [], 0, []], [first, [], 0, []]])
    }
    let reason = expect_refused(
        "removals numbered from 2^63",
        numbered_from(u64::MAX / 2 + 1),
    );
    assert!(
        reason.contains("the removal log of `")
            && reason.contains("more entries than a world logs"),
        "{reason}"
    );
    let last = edited(numbered_from(u64::MAX / 2));
    assert!(
        World::<Big>::load(last).is_ok(),
        "removals numbered up to 2^63 - 1 load"
    );
}

/// What a removal log says its readers missed must fit it: its marks
/// `(tick, entries dropped by then)` in order of tick and of count, none
/// after the world's tick or past the entries logged, and the tick it
/// dropped through not after the world's. Each rule is seen alone; marks
/// that keep them all load.
#[test]
fn a_removal_logs_record_of_what_was_missed_must_fit_it() {
    // `Hp`'s log (bit 2, tracked), numbered from 10, holding nothing.
    fn hp_log(dropped_through: u64, marks: Value) -> impl FnOnce(&mut Value, &Small) {
        move |s, _| {
            s[6][5] = json!([
                [0, [], 0, []],
                [0, [], 0, []],
                [10, [], dropped_through, marks]
            ])
        }
    }
    let now = {
        let small = small();
        serde_json::to_value(&small.world).unwrap()[6][0]
            .as_u64()
            .unwrap()
    };
    assert!(now > 3, "the small world has run: its tick is {now}");
    let fits = edited(hp_log(2, json!([[1, 3], [2, 3], [3, 10]])));
    assert!(World::<Big>::load(fits).is_ok(), "marks that fit load");
    for (what, dropped_through, marks) in [
        ("counts that go down", 2, json!([[1, 5], [2, 3]])),
        ("ticks that do not go up", 2, json!([[2, 3], [2, 5]])),
        ("a count past the entries logged", 2, json!([[1, 11]])),
        ("a mark after the world's tick", 2, json!([[now + 1, 3]])),
        (
            "dropped through a tick after the world's",
            now + 1,
            json!([]),
        ),
    ] {
        let reason = expect_refused(what, hp_log(dropped_through, marks));
        assert!(
            reason.contains("the record of what readers of the removal log of `")
                && reason.contains("missed does not fit its entries"),
            "{what}: {reason}"
        );
    }
}

/// A `SavedLocal`'s bytes are decoded when its system first runs (only the
/// system knows the type): a save whose bytes of one were altered, its
/// digest kept, loads, and that run panics with a message that names the
/// system and the local, as the docs of `World::load` say.
#[test]
fn a_local_whose_bytes_are_not_its_value_stops_its_systems_first_run_by_name() {
    let mut save = serde_json::to_value(&small().world).unwrap();
    let locals = save[8].as_array_mut().unwrap();
    let slot = locals
        .iter_mut()
        .flat_map(|schedule| schedule[1].as_array_mut().unwrap().iter_mut())
        .flat_map(|system| system.as_array_mut().unwrap().iter_mut())
        .next()
        .expect("a local");
    slot[0] = json!([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    let mut world = World::<Big>::load(save).expect("the bytes are decoded later");
    let mut game = game_loop();
    let panic = catch_unwind(AssertUnwindSafe(|| run_frames(&mut world, &mut game, 1)))
        .expect_err("the first run decodes the local");
    let text = panic_text(&panic);
    assert!(
        text.starts_with("system `watch` keeps a `SavedLocal<u64>`"),
        "{text}"
    );
}

#[test]
fn a_fixed_step_count_that_cannot_grow_is_refused() {
    // u64::MAX steps run: the next step cannot be counted.
    expect_refused("steps = u64::MAX", |s, _| {
        clock(s)[4] = json!(u64::MAX);
    });
}

#[test]
fn changes_naming_a_schedule_twice_are_refused() {
    expect_refused("a schedule's last run saved twice", |s, _| {
        let schedules = s[6][3].as_array_mut().unwrap();
        let first = schedules[0].clone();
        schedules.push(first);
    });
}

// ---- random damage --------------------------------------------------------

#[test]
fn random_byte_flips_never_panic() {
    let seeds: Vec<Vec<u8>> = [small().world, build(21), build(22)]
        .iter()
        .map(|w| postcard::to_stdvec(w).unwrap())
        .collect();
    flips_never_panic(
        "save_adversarial::random_byte_flips_never_panic",
        &seeds,
        |input| {
            World::<Big>::load(&mut postcard::Deserializer::from_bytes(input)).is_ok_and(|world| {
                exercise(world);
                true
            })
        },
    );
}

/// Loads (with `load`, which says whether it loaded and then used the
/// world) copies of `seeds` with a few random bytes changed, `ECS_FUZZ_CASES`
/// of them (4,000) or a minute's worth: none may panic, but for the one
/// panic the docs allow (a `SavedLocal` whose bytes are not its value, at
/// its system's first run), and some must load and some not. The cases run
/// on a thread of their own, named `fuzz: {test}`, whose panics (caught)
/// stay quiet.
pub(super) fn flips_never_panic(
    test: &str,
    seeds: &[Vec<u8>],
    load: impl Fn(&[u8]) -> bool + Sync,
) {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let fuzzing = std::thread::current()
                .name()
                .is_some_and(|name| name.starts_with("fuzz: "));
            if !fuzzing {
                previous(info);
            }
        }));
    });
    let cases: u64 = std::env::var("ECS_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4000);
    let run = || {
        let mut rng = Rng::new(0x5a5e);
        let started = std::time::Instant::now();
        // Each kind of panic (its message's start), how often, first case.
        let mut failures: std::collections::BTreeMap<String, (u32, u64)> = Default::default();
        let (mut loaded, mut refused, mut locals) = (0u32, 0u32, 0u32);
        for case in 0..cases {
            if started.elapsed() > Duration::from_secs(60) {
                break;
            }
            let mut input = rng.pick(seeds).clone();
            for _ in 0..=rng.below(3) {
                let at = rng.below(input.len() as u64) as usize;
                match rng.below(3) {
                    0 => input[at] ^= 1 << rng.below(8),
                    1 => input[at] = rng.next_u64() as u8,
                    _ => input[at] = input[at].wrapping_add(1),
                }
            }
            match catch_unwind(AssertUnwindSafe(|| load(&input))) {
                Ok(true) => loaded += 1,
                Ok(false) => refused += 1,
                // A `SavedLocal`'s bytes are decoded when its system first
                // runs: a flip there is the one panic the docs allow, naming
                // the system.
                Err(panic) if is_local_mismatch(&panic_text(&panic)) => locals += 1,
                Err(panic) => {
                    let text: String = panic_text(&panic).chars().take(100).collect();
                    failures.entry(text).or_insert((0, case)).0 += 1;
                }
            }
        }
        (failures, loaded, refused, locals)
    };
    let (failures, loaded, refused, locals) = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name(format!("fuzz: {test}"))
            .spawn_scoped(scope, run)
            .expect("a thread")
            .join()
            .expect("the cases catch their panics")
    });
    assert!(
        failures.is_empty(),
        "{} panics ({loaded} loaded, {refused} refused, {locals} locals that do not decode), \
         by kind (count, first case): {:#?}",
        failures.values().map(|(n, _)| n).sum::<u32>(),
        failures
    );
    assert!(
        refused > 0 && loaded > 0,
        "{loaded} loaded, {refused} refused"
    );
}

/// Whether `text` is the message of a system's first run meeting bytes of
/// a `SavedLocal` that are not its value.
fn is_local_mismatch(text: &str) -> bool {
    text.starts_with("system `") && text.contains("` keeps a `SavedLocal<")
}

/// Every number in a JSON save, as a path of indices.
fn number_paths(value: &Value, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    match value {
        Value::Number(_) => out.push(path.clone()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                number_paths(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'v>(value: &'v mut Value, path: &[usize]) -> &'v mut Value {
    path.iter().fold(value, |v, &i| &mut v[i])
}

/// Numbers of JSON saves (all parts but the systems' locals) set to edge
/// values or nudged: each edited save is refused or loads into a world
/// that runs on without a panic.
#[test]
fn number_edits_of_json_saves_never_panic() {
    let cases: u64 = std::env::var("ECS_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4000);
    let saves: Vec<Value> = [small().world, build(31)]
        .iter()
        .map(|w| serde_json::to_value(w).unwrap())
        .collect();
    let paths: Vec<Vec<Vec<usize>>> = saves
        .iter()
        .map(|save| {
            let mut out = Vec::new();
            number_paths(save, &mut Vec::new(), &mut out);
            // Not the locals (part 8): see the test of a local's bytes.
            out.retain(|path| path[0] != 8);
            out
        })
        .collect();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some("number_edits_of_json_saves_never_panic") {
            previous(info);
        }
    }));
    let mut rng = Rng::new(0x7e57);
    let started = std::time::Instant::now();
    let mut failures: std::collections::BTreeMap<String, (u32, String)> = Default::default();
    let (mut loaded, mut refused) = (0u32, 0u32);
    for _ in 0..cases {
        if started.elapsed() > Duration::from_secs(60) {
            break;
        }
        let which = rng.below(saves.len() as u64) as usize;
        let mut save = saves[which].clone();
        let mut edits = Vec::new();
        for _ in 0..=rng.below(2) {
            let path = rng.pick(&paths[which]).clone();
            let cell = at_path(&mut save, &path);
            let old = cell.as_u64().unwrap_or(0);
            let new = match rng.below(8) {
                0 => 0,
                1 => 1,
                2 => u64::from(u32::MAX),
                3 => u64::MAX,
                4 => old.wrapping_add(1),
                5 => old.saturating_sub(1),
                6 => old ^ (1 << rng.below(64)),
                _ => u64::from(u32::MAX) << 32 | (old & 0xffff_ffff),
            };
            *cell = json!(new);
            edits.push(format!("{path:?}: {old} -> {new}"));
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| match World::<Big>::load(save) {
            Ok(world) => {
                exercise(world);
                true
            }
            Err(_) => false,
        }));
        match outcome {
            Ok(true) => loaded += 1,
            Ok(false) => refused += 1,
            Err(panic) => {
                let text: String = panic_text(&panic).chars().take(100).collect();
                let entry = failures.entry(text).or_insert((0, edits.join(", ")));
                entry.0 += 1;
            }
        }
    }
    drop(std::panic::take_hook());
    assert!(
        failures.is_empty(),
        "{} panics ({loaded} loaded, {refused} refused), by kind (count, first edits): {:#?}",
        failures.values().map(|(n, _)| n).sum::<u32>(),
        failures
    );
    assert!(
        refused > 0 && loaded > 0,
        "{loaded} loaded, {refused} refused"
    );
}
