//! The model test's relations, requirements and hooks: random operations on
//! a world with two relations (one that despawns its sources with its
//! target, one that orphans them), a component with hooks and one that
//! requires it, made through the world's methods and through command
//! buffers, mirrored on a reference model that keeps every inverse list and
//! the hooks' journal by hand. After every operation the lists, targets,
//! values and journal must agree.

use ecs::prelude::*;

use ecs::command::CommandBuffer;

use ecs::relation::RelationCycle;
use ecs::world::{DeferredWorld, InsertError};
use std::collections::BTreeMap;
use std::sync::Mutex;
use support::Rng;

#[derive(Relation, Clone, Copy, Debug, PartialEq)]
struct Parent(Entity);
#[derive(Inverse, Clone, Debug, PartialEq)]
struct Kids(Vec<Entity>);
#[derive(Relation, Clone, Copy, Debug, PartialEq)]
struct Watch(Entity);
#[derive(Inverse, Clone, Debug, PartialEq)]
struct Watchers(Vec<Entity>);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Val(u32);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Armor;

#[derive(Default)]
struct Journal(Mutex<Vec<(char, Entity, u32)>>);

fn val_added(world: &mut DeferredWorld<Rel>, entity: Entity) {
    let value = world.get::<Val>(entity).unwrap().0;
    let journal = &world.resource::<Journal>().0;
    journal.lock().unwrap().push(('+', entity, value));
}

fn val_removed(world: &mut DeferredWorld<Rel>, entity: Entity) {
    let value = world.get::<Val>(entity).unwrap().0;
    let journal = &world.resource::<Journal>().0;
    journal.lock().unwrap().push(('-', entity, value));
}

#[derive(Schema)]
struct Rel {
    #[ecs(relation(inverse = kids, on_target_despawn = despawn))]
    parent: Parent,
    kids: Kids,
    #[ecs(relation(inverse = watchers))]
    watch: Watch,
    watchers: Watchers,
    #[ecs(on_add = val_added, on_remove = val_removed)]
    val: Val,
    #[ecs(requires(Val))]
    armor: Armor,
    #[ecs(resource)]
    journal: Journal,
}

/// The reference: per live entity its value, armor and two targets; the
/// lists in link order; the journal the hooks should have written.
#[derive(Default)]
struct Model {
    live: Vec<Entity>,
    val: BTreeMap<Entity, u32>,
    armor: Vec<Entity>,
    parent: BTreeMap<Entity, Entity>,
    watch: BTreeMap<Entity, Entity>,
    kids: BTreeMap<Entity, Vec<Entity>>,
    watchers: BTreeMap<Entity, Vec<Entity>>,
    journal: Vec<(char, Entity, u32)>,
}

fn unlink(lists: &mut BTreeMap<Entity, Vec<Entity>>, target: Entity, source: Entity) {
    if let Some(list) = lists.get_mut(&target) {
        list.retain(|&s| s != source);
        if list.is_empty() {
            lists.remove(&target);
        }
    }
}

impl Model {
    fn alive(&self, e: Entity) -> bool {
        self.live.contains(&e)
    }

    fn set_val(&mut self, e: Entity, v: u32) {
        if self.val.insert(e, v).is_none() {
            self.journal.push(('+', e, v));
        }
    }

    fn remove_val(&mut self, e: Entity) {
        if let Some(v) = self.val.remove(&e) {
            self.journal.push(('-', e, v));
        }
    }

    fn add_armor(&mut self, e: Entity) {
        if !self.armor.contains(&e) {
            self.armor.push(e);
        }
        if !self.val.contains_key(&e) {
            self.set_val(e, 0);
        }
    }

    /// Whether `e` taking `Parent(target)` closes a cycle: `e` is `target`
    /// or one of its ancestors.
    fn closes_cycle(&self, e: Entity, target: Entity) -> bool {
        let mut at = Some(target);
        while let Some(up) = at {
            if up == e {
                return true;
            }
            at = self.parent.get(&up).copied();
        }
        false
    }

    /// Links `e`'s relation to `target` (leaving `e` as it was if `target`
    /// is dead, or if `Parent` would close a cycle).
    fn relate(&mut self, watch: bool, e: Entity, target: Entity) {
        if !self.live.contains(&target) || (!watch && self.closes_cycle(e, target)) {
            return;
        }
        let (map, lists) = if watch {
            (&mut self.watch, &mut self.watchers)
        } else {
            (&mut self.parent, &mut self.kids)
        };
        let old = map.get(&e).copied();
        if old == Some(target) {
            return;
        }
        if let Some(old) = old {
            unlink(lists, old, e);
        }
        map.insert(e, target);
        lists.entry(target).or_default().push(e);
    }

    fn unrelate(&mut self, watch: bool, e: Entity) {
        let (map, lists) = if watch {
            (&mut self.watch, &mut self.watchers)
        } else {
            (&mut self.parent, &mut self.kids)
        };
        if let Some(old) = map.remove(&e) {
            unlink(lists, old, e);
        }
    }

    fn despawn(&mut self, e: Entity) {
        let mut pending = vec![e];
        while let Some(next) = pending.pop() {
            if !self.alive(next) {
                continue;
            }
            self.remove_val(next);
            self.unrelate(false, next);
            self.unrelate(true, next);
            let kids = self.kids.remove(&next).unwrap_or_default();
            for watcher in self.watchers.remove(&next).unwrap_or_default() {
                self.watch.remove(&watcher);
            }
            self.armor.retain(|&a| a != next);
            self.live.retain(|&l| l != next);
            pending.extend(kids.iter().rev());
        }
    }
}

/// One random operation, as it is recorded into commands or made on the
/// world, and as the model applies it.
#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn(u32, Option<Entity>, bool),
    Relate(bool, Entity, Entity),
    Unrelate(bool, Entity),
    SetVal(Entity, u32),
    RemoveVal(Entity),
    Armor(Entity),
    Despawn(Entity),
}

fn random_op(rng: &mut Rng, model: &Model, dead: &[Entity]) -> Op {
    let pick = |rng: &mut Rng| {
        if !dead.is_empty() && (model.live.is_empty() || rng.chance(1, 8)) {
            *rng.pick(dead)
        } else if model.live.is_empty() {
            Entity::from_bits(u64::MAX).unwrap()
        } else {
            *rng.pick(&model.live)
        }
    };
    match rng.below(10) {
        0..=2 => {
            let parent = rng.chance(2, 3).then(|| pick(rng));
            Op::Spawn(rng.below(100) as u32, parent, rng.chance(1, 4))
        }
        3 | 4 => Op::Relate(rng.chance(1, 3), pick(rng), pick(rng)),
        5 => Op::Unrelate(rng.chance(1, 2), pick(rng)),
        6 => Op::SetVal(pick(rng), rng.below(100) as u32),
        7 => Op::RemoveVal(pick(rng)),
        8 => Op::Armor(pick(rng)),
        _ => Op::Despawn(pick(rng)),
    }
}

/// Makes `op` on the world directly, checking each result against the
/// model, and applies it to the model; returns a spawned entity.
fn on_world(world: &mut World<Rel>, model: &mut Model, op: Op) -> Option<Entity> {
    match op {
        Op::Spawn(v, parent, armor) => {
            let e = match (parent, armor) {
                (Some(p), true) => world.spawn((Val(v), Parent(p), Armor)),
                (Some(p), false) => world.spawn((Parent(p), Val(v))),
                (None, true) => world.spawn((Armor, Val(v))),
                (None, false) => world.spawn((Val(v),)),
            };
            model.live.push(e);
            model.set_val(e, v);
            if armor {
                model.add_armor(e);
            }
            if let Some(p) = parent {
                model.relate(false, e, p);
            }
            return Some(e);
        }
        Op::Relate(watch, e, target) => {
            let result = if watch {
                world.insert(e, (Watch(target),))
            } else {
                world.insert(e, (Parent(target),))
            };
            let expected = if !model.alive(e) {
                Err(InsertError::NoSuchEntity(e))
            } else if !model.alive(target) {
                Err(InsertError::NoSuchEntity(target))
            } else if !watch && model.closes_cycle(e, target) {
                Err(InsertError::Cycle(RelationCycle {
                    relation: "Parent",
                    source: e,
                    target,
                }))
            } else {
                model.relate(watch, e, target);
                Ok(())
            };
            assert_eq!(result, expected, "{op:?}");
        }
        Op::Unrelate(watch, e) => {
            let removed = if watch {
                world.remove::<Watch>(e).map(|w| w.map(|w| w.0))
            } else {
                world.remove::<Parent>(e).map(|p| p.map(|p| p.0))
            };
            let expected = if model.alive(e) {
                let map = if watch { &model.watch } else { &model.parent };
                Ok(map.get(&e).copied())
            } else {
                Err(NoSuchEntity(e))
            };
            assert_eq!(removed, expected, "{op:?}");
            model.unrelate(watch, e);
        }
        Op::SetVal(e, v) => {
            assert_eq!(world.insert(e, (Val(v),)).is_ok(), model.alive(e));
            if model.alive(e) {
                model.set_val(e, v);
            }
        }
        Op::RemoveVal(e) => {
            let expected = if model.alive(e) {
                Ok(model.val.get(&e).map(|&v| Val(v)))
            } else {
                Err(NoSuchEntity(e))
            };
            assert_eq!(world.remove::<Val>(e), expected, "{op:?}");
            model.remove_val(e);
        }
        Op::Armor(e) => {
            assert_eq!(world.insert(e, (Armor,)).is_ok(), model.alive(e));
            if model.alive(e) {
                model.add_armor(e);
            }
        }
        Op::Despawn(e) => {
            assert_eq!(world.despawn(e).is_ok(), model.alive(e), "{op:?}");
            model.despawn(e);
        }
    }
    None
}

/// Records `op` into commands; the model applies it when the buffer is
/// applied, with the commands' rules (a dead entity: nothing; a dead
/// target, or a `Parent` closing a cycle: the relation is left out, the
/// entity's own kept).
fn record(commands: &mut Commands<Rel>, op: Op) -> Option<Entity> {
    match op {
        Op::Spawn(v, Some(p), true) => return Some(commands.spawn((Val(v), Parent(p), Armor))),
        Op::Spawn(v, Some(p), false) => return Some(commands.spawn((Parent(p), Val(v)))),
        Op::Spawn(v, None, true) => return Some(commands.spawn((Armor, Val(v)))),
        Op::Spawn(v, None, false) => return Some(commands.spawn((Val(v),))),
        Op::Relate(true, e, t) => commands.insert(e, (Watch(t),)),
        Op::Relate(false, e, t) => commands.insert(e, (Parent(t),)),
        Op::Unrelate(true, e) => commands.remove::<Watch>(e),
        Op::Unrelate(false, e) => commands.remove::<Parent>(e),
        Op::SetVal(e, v) => commands.insert(e, (Val(v),)),
        Op::RemoveVal(e) => commands.remove::<Val>(e),
        Op::Armor(e) => commands.insert(e, (Armor,)),
        Op::Despawn(e) => commands.despawn(e),
    }
    None
}

fn on_model_as_command(model: &mut Model, op: Op, spawned: Option<Entity>) {
    match op {
        Op::Spawn(v, parent, armor) => {
            let e = spawned.unwrap();
            model.live.push(e);
            model.set_val(e, v);
            if armor {
                model.add_armor(e);
            }
            if let Some(p) = parent {
                model.relate(false, e, p);
            }
        }
        Op::Relate(watch, e, t) if model.alive(e) => model.relate(watch, e, t),
        Op::Unrelate(watch, e) if model.alive(e) => model.unrelate(watch, e),
        Op::SetVal(e, v) if model.alive(e) => model.set_val(e, v),
        Op::RemoveVal(e) if model.alive(e) => model.remove_val(e),
        Op::Armor(e) if model.alive(e) => model.add_armor(e),
        Op::Despawn(e) => model.despawn(e),
        _ => {}
    }
}

fn compare(world: &World<Rel>, model: &mut Model, ctx: &str) {
    assert_eq!(world.len(), model.live.len(), "{ctx}: len");
    for &e in &model.live {
        assert_eq!(
            world.get::<Val>(e).map(|v| v.0),
            model.val.get(&e).copied(),
            "{ctx}: {e} val"
        );
        assert_eq!(
            world.has::<Armor>(e),
            model.armor.contains(&e),
            "{ctx}: {e} armor"
        );
        assert_eq!(
            world.target::<Parent>(e),
            model.parent.get(&e).copied(),
            "{ctx}: {e} parent"
        );
        assert_eq!(
            world.target::<Watch>(e),
            model.watch.get(&e).copied(),
            "{ctx}: {e} watch"
        );
        let kids = model.kids.get(&e).map_or(&[][..], Vec::as_slice);
        assert_eq!(world.sources::<Parent>(e), kids, "{ctx}: {e} kids");
        assert_eq!(
            world.has::<Kids>(e),
            !kids.is_empty(),
            "{ctx}: {e} has Kids"
        );
        let watchers = model.watchers.get(&e).map_or(&[][..], Vec::as_slice);
        assert_eq!(world.sources::<Watch>(e), watchers, "{ctx}: {e} watchers");
    }
    let journal = std::mem::take(&mut *world.resource::<Journal>().0.lock().unwrap());
    assert_eq!(
        journal,
        std::mem::take(&mut model.journal),
        "{ctx}: journal"
    );
}

pub fn run(seed: u64, ops: usize) {
    let mut rng = Rng::new(seed);
    let mut world = World::<Rel>::new();
    let mut model = Model::default();
    let mut dead: Vec<Entity> = Vec::new();
    let mut step = 0;
    while step < ops {
        let before: Vec<Entity> = model.live.clone();
        if rng.chance(1, 4) {
            // A buffer of a few commands, applied at once.
            let mut buffer = CommandBuffer::<Rel>::new();
            let mut recorded = Vec::new();
            for _ in 0..1 + rng.below(6) {
                let op = random_op(&mut rng, &model, &dead);
                let spawned = record(&mut buffer.commands(&world), op);
                recorded.push((op, spawned));
                step += 1;
            }
            buffer.apply(&mut world);
            for (op, spawned) in recorded {
                on_model_as_command(&mut model, op, spawned);
            }
            compare(
                &world,
                &mut model,
                &format!("seed {seed:#x}, step {step}, commands"),
            );
        } else {
            let op = random_op(&mut rng, &model, &dead);
            on_world(&mut world, &mut model, op);
            step += 1;
            compare(
                &world,
                &mut model,
                &format!("seed {seed:#x}, step {step}, {op:?}"),
            );
        }
        dead.extend(before.iter().filter(|e| !model.live.contains(e)));
    }
}
