//! The model test's harness, compiled once per schema: as a child of the
//! module that declares `Model` (and so `ModelMask`), whose fields must be
//! `a: A, b: B, tag: Tag, c: C, d: D` in that order, at any bits.

use super::{Model, ModelMask};
use crate::{Tag, A, B, C, D};
use ecs::mask::Mask;
use ecs::prelude::*;
use ecs::query::QueryEntityError;
use ecs::world::InsertError;
use std::collections::{BTreeMap, HashMap, HashSet};
use support::Rng;

/// What the reference model knows of one entity.
#[derive(Clone, Debug, Default, PartialEq)]
struct Ent {
    a: Option<u32>,
    b: Option<u64>,
    tag: bool,
    c: Option<i16>,
    d: Option<String>,
}

impl Ent {
    fn mask(&self) -> ModelMask {
        let mut mask = ModelMask::EMPTY;
        mask.set(ModelMask::A, self.a.is_some());
        mask.set(ModelMask::B, self.b.is_some());
        mask.set(ModelMask::TAG, self.tag);
        mask.set(ModelMask::C, self.c.is_some());
        mask.set(ModelMask::D, self.d.is_some());
        mask
    }
}

/// The entity as the world reports it, checking that `get`, `has` and
/// `archetype` agree with each other; `None` if not alive.
fn observe(world: &World<Model>, e: Entity) -> Option<Ent> {
    let ent = Ent {
        a: world.get::<A>(e).map(|x| x.0),
        b: world.get::<B>(e).map(|x| x.0),
        tag: world.has::<Tag>(e),
        c: world.get::<C>(e).map(|x| x.0),
        d: world.get::<D>(e).map(|x| x.0.clone()),
    };
    assert_eq!(world.get::<Tag>(e).is_some(), ent.tag, "{e:?}: get/has Tag");
    assert_eq!(world.has::<A>(e), ent.a.is_some(), "{e:?}: has A");
    assert_eq!(world.has::<B>(e), ent.b.is_some(), "{e:?}: has B");
    assert_eq!(world.has::<C>(e), ent.c.is_some(), "{e:?}: has C");
    assert_eq!(world.has::<D>(e), ent.d.is_some(), "{e:?}: has D");
    if world.is_alive(e) {
        assert_eq!(world.archetype(e), Some(ent.mask()), "{e:?}: archetype");
        Some(ent)
    } else {
        assert_eq!(ent, Ent::default(), "{e:?}: a dead entity shows components");
        assert_eq!(world.archetype(e), None);
        None
    }
}

/// The world under test, the model, and the handles of despawned entities.
struct Harness {
    seed: u64,
    step: usize,
    op: &'static str,
    rng: Rng,
    world: World<Model>,
    model: HashMap<Entity, Ent>,
    /// Live entities, for picking one at random.
    live: Vec<Entity>,
    /// Every handle ever despawned (or cleared).
    dead: Vec<Entity>,
    dead_set: HashSet<Entity>,
    /// The world and the model at the previous full check, for
    /// `World::diff` between the two.
    previous: Option<(World<Model>, HashMap<Entity, Ent>)>,
}

impl Harness {
    fn new(seed: u64) -> Self {
        Harness {
            seed,
            step: 0,
            op: "",
            rng: Rng::new(seed),
            world: World::new(),
            model: HashMap::new(),
            live: Vec::new(),
            dead: Vec::new(),
            dead_set: HashSet::new(),
            previous: None,
        }
    }

    fn ctx(&self) -> String {
        format!("seed {:#x}, step {}, op {}", self.seed, self.step, self.op)
    }

    /// A target for an entity operation: usually live, sometimes stale.
    fn target(&mut self) -> Entity {
        let stale = !self.dead.is_empty() && (self.live.is_empty() || self.rng.chance(1, 6));
        if stale {
            *self.rng.pick(&self.dead)
        } else if self.live.is_empty() {
            // Never handed out: index u32::MAX is never allocated.
            Entity::from_bits(u64::MAX).unwrap()
        } else {
            *self.rng.pick(&self.live)
        }
    }

    fn a(&mut self) -> A {
        A(self.rng.below(1000) as u32)
    }
    fn b(&mut self) -> B {
        B(self.rng.next_u64())
    }
    fn c(&mut self) -> C {
        C(self.rng.below(60000) as i16)
    }
    fn d(&mut self) -> D {
        D(format!("d{}", self.rng.below(10_000)))
    }

    fn spawned(&mut self, e: Entity, ent: Ent) {
        let ctx = self.ctx();
        assert!(
            !self.model.contains_key(&e),
            "{ctx}: {e:?} handed out twice"
        );
        assert!(
            !self.dead_set.contains(&e),
            "{ctx}: {e:?} equals a stale handle"
        );
        self.model.insert(e, ent);
        self.live.push(e);
    }

    fn died(&mut self, e: Entity) {
        self.model.remove(&e);
        let at = self.live.iter().position(|&x| x == e).unwrap();
        self.live.swap_remove(at);
        self.dead.push(e);
        self.dead_set.insert(e);
    }

    fn spawn(&mut self) {
        let mut ent = Ent::default();
        let e = match self.rng.below(8) {
            0 => {
                self.op = "spawn ()";
                self.world.spawn(())
            }
            1 => {
                self.op = "spawn (A,)";
                let a = self.a();
                ent.a = Some(a.0);
                self.world.spawn((a,))
            }
            2 => {
                self.op = "spawn (A, B)";
                let (a, b) = (self.a(), self.b());
                ent.a = Some(a.0);
                ent.b = Some(b.0);
                self.world.spawn((a, b))
            }
            3 => {
                self.op = "spawn (Tag, C)";
                let c = self.c();
                ent.tag = true;
                ent.c = Some(c.0);
                self.world.spawn((Tag, c))
            }
            4 => {
                self.op = "spawn (D, Tag, B, A, C)";
                let (a, b, c, d) = (self.a(), self.b(), self.c(), self.d());
                ent = Ent {
                    a: Some(a.0),
                    b: Some(b.0),
                    tag: true,
                    c: Some(c.0),
                    d: Some(d.0.clone()),
                };
                self.world.spawn((d, Tag, b, a, c))
            }
            5 => {
                self.op = "spawn (D, C)";
                let (c, d) = (self.c(), self.d());
                ent.c = Some(c.0);
                ent.d = Some(d.0.clone());
                self.world.spawn((d, c))
            }
            6 => {
                self.op = "try_spawn (B,)";
                let b = self.b();
                ent.b = Some(b.0);
                self.world.try_spawn((b,)).unwrap()
            }
            _ => {
                self.op = "spawn_batch (A, D)";
                let n = self.rng.below(6) as usize;
                let values: Vec<(A, D)> = (0..n).map(|_| (self.a(), self.d())).collect();
                let expected: Vec<Ent> = values
                    .iter()
                    .map(|(a, d)| Ent {
                        a: Some(a.0),
                        d: Some(d.0.clone()),
                        ..Ent::default()
                    })
                    .collect();
                let spawned: Vec<Entity> = self.world.spawn_batch(values).collect();
                assert_eq!(spawned.len(), n, "{}", self.ctx());
                for (e, ent) in spawned.into_iter().zip(expected) {
                    self.spawned(e, ent);
                    self.check_entity(e);
                }
                return;
            }
        };
        self.spawned(e, ent);
        self.check_entity(e);
    }

    /// Applies `result` of an operation on `e` that the model says should
    /// succeed (if `e` is alive) or fail with `NoSuchEntity`.
    fn expect_alive<T: std::fmt::Debug>(
        &self,
        e: Entity,
        result: Result<T, NoSuchEntity>,
    ) -> Option<T> {
        let ctx = self.ctx();
        if self.model.contains_key(&e) {
            Some(result.unwrap_or_else(|err| panic!("{ctx}: {e:?} is alive, got {err}")))
        } else {
            assert_eq!(
                result.map(|_| ()).unwrap_err(),
                NoSuchEntity(e),
                "{ctx}: {e:?} is dead"
            );
            None
        }
    }

    fn insert(&mut self) {
        let e = self.target();
        let kind = self.rng.below(8);
        let alive = self.model.contains_key(&e);
        let mut ent = self.model.get(&e).cloned().unwrap_or_default();
        let result = match kind {
            0 => {
                self.op = "insert (A,)";
                let a = self.a();
                ent.a = Some(a.0);
                self.world.insert(e, (a,))
            }
            1 => {
                self.op = "insert (B,)";
                let b = self.b();
                ent.b = Some(b.0);
                self.world.insert(e, (b,))
            }
            2 => {
                self.op = "insert (Tag,)";
                ent.tag = true;
                self.world.insert(e, (Tag,))
            }
            3 => {
                self.op = "insert (C,)";
                let c = self.c();
                ent.c = Some(c.0);
                self.world.insert(e, (c,))
            }
            4 => {
                self.op = "insert (D,)";
                let d = self.d();
                ent.d = Some(d.0.clone());
                self.world.insert(e, (d,))
            }
            5 => {
                self.op = "insert (C, A)";
                let (c, a) = (self.c(), self.a());
                ent.a = Some(a.0);
                ent.c = Some(c.0);
                self.world.insert(e, (c, a))
            }
            6 => {
                self.op = "insert (B, D, Tag)";
                let (b, d) = (self.b(), self.d());
                ent.b = Some(b.0);
                ent.d = Some(d.0.clone());
                ent.tag = true;
                self.world.insert(e, (b, d, Tag))
            }
            _ => {
                self.op = "insert (D, A, B, C)";
                let (d, a, b, c) = (self.d(), self.a(), self.b(), self.c());
                ent.a = Some(a.0);
                ent.b = Some(b.0);
                ent.c = Some(c.0);
                ent.d = Some(d.0.clone());
                self.world.insert(e, (d, a, b, c))
            }
        };
        let result = result.map_err(|error| match error {
            InsertError::NoSuchEntity(dead) => NoSuchEntity(dead),
            error => panic!("{error}"),
        });
        if self.expect_alive(e, result).is_some() {
            assert!(alive);
            self.model.insert(e, ent);
        }
        self.check_entity(e);
    }

    fn remove(&mut self) {
        let e = self.target();
        let ent = self.model.get(&e).cloned();
        let ctx;
        let mut after = ent.clone().unwrap_or_default();
        match self.rng.below(5) {
            0 => {
                self.op = "remove A";
                ctx = self.ctx();
                let result = self.world.remove::<A>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    assert_eq!(got.map(|x| x.0), after.a.take(), "{ctx}");
                }
            }
            1 => {
                self.op = "remove B";
                ctx = self.ctx();
                let result = self.world.remove::<B>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    assert_eq!(got.map(|x| x.0), after.b.take(), "{ctx}");
                }
            }
            2 => {
                self.op = "remove Tag";
                ctx = self.ctx();
                let result = self.world.remove::<Tag>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    assert_eq!(got.is_some(), after.tag, "{ctx}");
                    after.tag = false;
                }
            }
            3 => {
                self.op = "remove C";
                ctx = self.ctx();
                let result = self.world.remove::<C>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    assert_eq!(got.map(|x| x.0), after.c.take(), "{ctx}");
                }
            }
            _ => {
                self.op = "remove D";
                ctx = self.ctx();
                let result = self.world.remove::<D>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    assert_eq!(got.map(|x| x.0), after.d.take(), "{ctx}");
                }
            }
        }
        if ent.is_some() {
            self.model.insert(e, after);
        }
        self.check_entity(e);
    }

    fn remove_bundle(&mut self) {
        let e = self.target();
        let ent = self.model.get(&e).cloned();
        let mut after = ent.clone().unwrap_or_default();
        match self.rng.below(4) {
            0 => {
                self.op = "remove_bundle (A, B)";
                let ctx = self.ctx();
                let result = self.world.remove_bundle::<(A, B)>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    let expected = match (after.a, after.b) {
                        (Some(a), Some(b)) => {
                            after.a = None;
                            after.b = None;
                            Some((a, b))
                        }
                        _ => None,
                    };
                    assert_eq!(got.map(|(a, b)| (a.0, b.0)), expected, "{ctx}");
                }
            }
            1 => {
                self.op = "remove_bundle (C, Tag)";
                let ctx = self.ctx();
                let result = self.world.remove_bundle::<(C, Tag)>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    let expected = match (after.c, after.tag) {
                        (Some(c), true) => {
                            after.c = None;
                            after.tag = false;
                            Some(c)
                        }
                        _ => None,
                    };
                    assert_eq!(got.map(|(c, Tag)| c.0), expected, "{ctx}");
                }
            }
            2 => {
                self.op = "remove_bundle (D, B, A, C)";
                let ctx = self.ctx();
                let result = self.world.remove_bundle::<(D, B, A, C)>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    let expected = match (&after.d, after.b, after.a, after.c) {
                        (Some(d), Some(b), Some(a), Some(c)) => {
                            let d = d.clone();
                            after.a = None;
                            after.b = None;
                            after.c = None;
                            after.d = None;
                            Some((d, b, a, c))
                        }
                        _ => None,
                    };
                    assert_eq!(
                        got.map(|(d, b, a, c)| (d.0, b.0, a.0, c.0)),
                        expected,
                        "{ctx}"
                    );
                }
            }
            _ => {
                self.op = "remove_bundle (Tag,)";
                let ctx = self.ctx();
                let result = self.world.remove_bundle::<(Tag,)>(e);
                if let Some(got) = self.expect_alive(e, result) {
                    assert_eq!(got.is_some(), after.tag, "{ctx}");
                    after.tag = false;
                }
            }
        }
        if ent.is_some() {
            self.model.insert(e, after);
        }
        self.check_entity(e);
    }

    fn despawn(&mut self) {
        self.op = "despawn";
        let e = self.target();
        let result = self.world.despawn(e);
        if self.expect_alive(e, result).is_some() {
            self.died(e);
        }
        self.check_entity(e);
    }

    fn read(&mut self) {
        self.op = "get / has";
        let e = self.target();
        let ctx = self.ctx();
        assert_eq!(self.world.is_alive(e), self.model.contains_key(&e), "{ctx}");
        assert_eq!(
            observe(&self.world, e).as_ref(),
            self.model.get(&e),
            "{ctx}"
        );
    }

    fn get_mut(&mut self) {
        let e = self.target();
        let alive = self.model.contains_key(&e);
        let ctx;
        match self.rng.below(3) {
            0 => {
                self.op = "get_mut A";
                ctx = self.ctx();
                let value = self.rng.below(1000) as u32;
                match self.world.get_mut::<A>(e) {
                    Some(a) => {
                        let ent = self.model.get_mut(&e).expect(&ctx);
                        assert_eq!(Some(a.0), ent.a, "{ctx}");
                        a.0 = value;
                        ent.a = Some(value);
                    }
                    None => assert!(!alive || self.model[&e].a.is_none(), "{ctx}"),
                }
            }
            1 => {
                self.op = "get_mut D";
                ctx = self.ctx();
                let suffix = self.rng.below(10);
                match self.world.get_mut::<D>(e) {
                    Some(d) => {
                        let ent = self.model.get_mut(&e).expect(&ctx);
                        assert_eq!(Some(&d.0), ent.d.as_ref(), "{ctx}");
                        d.0.push_str(&suffix.to_string());
                        ent.d = Some(d.0.clone());
                    }
                    None => assert!(!alive || self.model[&e].d.is_none(), "{ctx}"),
                }
            }
            _ => {
                self.op = "get_mut Tag";
                ctx = self.ctx();
                let got = self.world.get_mut::<Tag>(e).is_some();
                assert_eq!(got, alive && self.model[&e].tag, "{ctx}");
            }
        }
        self.check_entity(e);
    }

    /// Writes through queries, mirrored in the model.
    fn query_write(&mut self) {
        match self.rng.below(3) {
            0 => {
                self.op = "query (&mut A, Option<&C>) without Tag";
                self.world
                    .query_filtered_mut::<(&mut A, Option<&C>), Without<Tag>>()
                    .for_each_mut(|(a, c)| {
                        a.0 = a.0.wrapping_add(1 + c.map_or(0, |c| c.0 as u32 & 7))
                    });
                for ent in self.model.values_mut() {
                    if let (Some(a), false) = (&mut ent.a, ent.tag) {
                        *a = a.wrapping_add(1 + ent.c.map_or(0, |c| c as u32 & 7));
                    }
                }
            }
            1 => {
                self.op = "query (Entity, &mut B, Has<Tag>) iter_mut";
                let mut touched = Vec::new();
                for (e, b, tag) in self
                    .world
                    .query_mut::<(Entity, &mut B, Has<Tag>)>()
                    .iter_mut()
                {
                    if tag {
                        b.0 = b.0.rotate_left(1);
                    }
                    touched.push(e);
                }
                let mut expected: Vec<Entity> = self
                    .model
                    .iter()
                    .filter(|(_, ent)| ent.b.is_some())
                    .map(|(&e, _)| e)
                    .collect();
                expected.sort();
                touched.sort();
                assert_eq!(touched, expected, "{}", self.ctx());
                for ent in self.model.values_mut() {
                    if let (Some(b), true) = (&mut ent.b, ent.tag) {
                        *b = b.rotate_left(1);
                    }
                }
            }
            _ => {
                self.op = "query get_mut (&mut C, &D)";
                let e = self.target();
                let ctx = self.ctx();
                let mut query = self.world.query_mut::<(&mut C, &D)>();
                let got = query.get_mut(e).map(|(c, d)| {
                    c.0 = c.0.wrapping_neg();
                    (c.0, d.0.clone())
                });
                drop(query);
                match self.model.get_mut(&e) {
                    Some(Ent {
                        c: Some(c),
                        d: Some(d),
                        ..
                    }) => {
                        *c = c.wrapping_neg();
                        assert_eq!(got, Ok((*c, d.clone())), "{ctx}");
                    }
                    Some(_) => assert_eq!(got, Err(QueryEntityError::DoesNotMatch(e)), "{ctx}"),
                    None => assert_eq!(got, Err(QueryEntityError::NoSuchEntity(e)), "{ctx}"),
                }
                self.check_entity(e);
            }
        }
    }

    fn clear(&mut self) {
        self.op = "clear";
        self.world.clear();
        for e in std::mem::take(&mut self.live) {
            self.dead.push(e);
            self.dead_set.insert(e);
        }
        self.model.clear();
    }

    /// One random operation.
    fn step(&mut self) {
        // Keep the population around a few hundred: spawn more when small.
        let population = self.live.len() as u64;
        let spawn_weight = if population < 50 {
            8
        } else if population > 400 {
            1
        } else {
            3
        };
        let roll = self.rng.below(spawn_weight + 21);
        match roll {
            r if r < spawn_weight => self.spawn(),
            r => match r - spawn_weight {
                0..=4 => self.insert(),
                5..=7 => self.remove(),
                8..=9 => self.remove_bundle(),
                10..=12 => self.despawn(),
                13..=15 => self.read(),
                16..=17 => self.get_mut(),
                18 => self.query_write(),
                19 => {
                    self.op = "check queries";
                    self.check_queries();
                }
                _ => {
                    if self.rng.chance(1, 40) {
                        self.clear();
                    } else {
                        self.read();
                    }
                }
            },
        }
        assert_eq!(self.world.len(), self.model.len(), "{}: len", self.ctx());
        assert_eq!(
            self.world.is_empty(),
            self.model.is_empty(),
            "{}",
            self.ctx()
        );
    }

    fn check_entity(&self, e: Entity) {
        let ctx = self.ctx();
        assert_eq!(
            self.world.is_alive(e),
            self.model.contains_key(&e),
            "{ctx}: is_alive {e:?}"
        );
        assert_eq!(
            observe(&self.world, e).as_ref(),
            self.model.get(&e),
            "{ctx}: {e:?}"
        );
    }

    /// Everything: every live entity, every dead handle, `iter`, queries.
    fn check_all(&mut self) {
        let ctx = self.ctx();
        let mut world_entities: Vec<Entity> = self.world.iter().collect();
        world_entities.sort();
        let mut model_entities: Vec<Entity> = self.model.keys().copied().collect();
        model_entities.sort();
        assert_eq!(world_entities, model_entities, "{ctx}: iter");
        for (&e, ent) in &self.model {
            assert_eq!(observe(&self.world, e).as_ref(), Some(ent), "{ctx}: {e:?}");
        }
        for &e in &self.dead {
            assert!(!self.world.is_alive(e), "{ctx}: stale {e:?} alive");
            assert_eq!(observe(&self.world, e), None, "{ctx}: stale {e:?}");
        }
        self.check_queries();
        self.check_diff();
    }

    /// `World::diff` against a copy (empty) and against the world of the
    /// previous check: empty exactly when the checksums are equal, and
    /// naming exactly the entities and components the model says changed.
    fn check_diff(&mut self) {
        let ctx = self.ctx();
        let copy = self.world.clone();
        assert!(self.world.diff(&copy).is_empty(), "{ctx}: a copy differs");
        if let Some((previous, before)) = &self.previous {
            let diff = self.world.diff(previous);
            assert_eq!(
                diff.is_empty(),
                self.world.checksum() == previous.checksum(),
                "{ctx}: the diff is empty exactly when the checksums are equal: {diff}"
            );
            let only = |of: &HashMap<Entity, Ent>, not: &HashMap<Entity, Ent>| {
                let mut only: Vec<Entity> = of
                    .keys()
                    .filter(|e| !not.contains_key(e))
                    .copied()
                    .collect();
                only.sort_by_key(|e| e.index());
                only
            };
            assert_eq!(
                diff.only_in_self(),
                only(&self.model, before),
                "{ctx}: {diff}"
            );
            assert_eq!(
                diff.only_in_other(),
                only(before, &self.model),
                "{ctx}: {diff}"
            );
            let mut both: Vec<Entity> = self
                .model
                .keys()
                .filter(|e| before.contains_key(e))
                .copied()
                .collect();
            both.sort_by_key(|e| e.index());
            // Per component: (values differ, here only, there only).
            type Field = fn(&Ent) -> Option<String>;
            let fields: [(&str, Field); 5] = [
                ("A", |e| e.a.map(|v| v.to_string())),
                ("B", |e| e.b.map(|v| v.to_string())),
                ("Tag", |e| e.tag.then(String::new)),
                ("C", |e| e.c.map(|v| v.to_string())),
                ("D", |e| e.d.clone()),
            ];
            for (name, field) in fields {
                let mut expected = (Vec::new(), Vec::new(), Vec::new());
                for &e in &both {
                    match (field(&self.model[&e]), field(&before[&e])) {
                        (Some(a), Some(b)) if a != b => expected.0.push(e),
                        (Some(_), None) => expected.1.push(e),
                        (None, Some(_)) => expected.2.push(e),
                        _ => {}
                    }
                }
                let found = diff.component(name).map_or((vec![], vec![], vec![]), |c| {
                    (
                        c.values().to_vec(),
                        c.only_in_self().to_vec(),
                        c.only_in_other().to_vec(),
                    )
                });
                assert_eq!(found, expected, "{ctx}: component {name}: {diff}");
            }
        }
        self.previous = Some((copy, self.model.clone()));
    }

    fn check_queries(&mut self) {
        let ctx = self.ctx();
        let model = &self.model;
        let world = &mut self.world;

        fn expect<T: Ord>(
            model: &HashMap<Entity, Ent>,
            f: impl Fn(Entity, &Ent) -> Option<T>,
        ) -> Vec<T> {
            let mut items: Vec<T> = model.iter().filter_map(|(&e, ent)| f(e, ent)).collect();
            items.sort();
            items
        }
        fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
            items.sort();
            items
        }

        let query = world.query::<(Entity, &A)>();
        let got = sorted(query.iter().map(|(e, a)| (e, a.0)).collect());
        assert_eq!(query.iter().len(), got.len(), "{ctx}");
        assert_eq!(query.count(), got.len(), "{ctx}");
        assert_eq!(query.is_empty(), got.is_empty(), "{ctx}");
        assert_eq!(
            got,
            expect(model, |e, m| Some((e, m.a?))),
            "{ctx}: (Entity, &A)"
        );

        let query = world.query::<(Entity, &B, Option<&D>)>();
        let got = sorted(
            query
                .iter()
                .map(|(e, b, d)| (e, b.0, d.map(|d| d.0.clone())))
                .collect(),
        );
        assert_eq!(
            got,
            expect(model, |e, m| Some((e, m.b?, m.d.clone()))),
            "{ctx}: (Entity, &B, Option<&D>)"
        );

        let query = world.query_filtered::<(Entity, &C), With<Tag>>();
        let mut got = Vec::new();
        query.for_each(|(e, c)| got.push((e, c.0)));
        assert_eq!(
            sorted(got),
            expect(model, |e, m| m.tag.then_some((e, m.c?))),
            "{ctx}: (Entity, &C) with Tag"
        );

        let query = world.query_filtered::<Entity, (Without<A>, Without<Tag>)>();
        let got = sorted(query.iter().collect());
        assert_eq!(
            got,
            expect(model, |e, m| (m.a.is_none() && !m.tag).then_some(e)),
            "{ctx}: Entity without A, Tag"
        );

        let query = world.query::<(Entity, Has<Tag>, Has<D>, Option<&A>, Option<&C>)>();
        let got = sorted(
            query
                .iter()
                .map(|(e, t, d, a, c)| (e, t, d, a.map(|a| a.0), c.map(|c| c.0)))
                .collect(),
        );
        assert_eq!(
            got,
            expect(model, |e, m| Some((e, m.tag, m.d.is_some(), m.a, m.c))),
            "{ctx}: (Entity, Has<Tag>, Has<D>, Option<&A>, Option<&C>)"
        );

        let query = world.query_filtered::<(&A, &B, &C, &D), With<Tag>>();
        assert_eq!(
            query.count(),
            expect(model, |_, m| (m.tag
                && m.a.is_some()
                && m.b.is_some()
                && m.c.is_some()
                && m.d.is_some())
            .then_some(()))
            .len(),
            "{ctx}: count of the full archetype"
        );

        // Point lookups through a query, for live and stale handles.
        let query = world.query::<(&A, Option<&B>)>();
        for (&e, m) in model.iter().take(20) {
            let got = query.get(e).map(|(a, b)| (a.0, b.map(|b| b.0)));
            let expected = m.a.map(|a| (a, m.b));
            assert_eq!(
                got,
                expected.ok_or(QueryEntityError::DoesNotMatch(e)),
                "{ctx}: query get {e:?}"
            );
            assert_eq!(query.contains(e), expected.is_some(), "{ctx}");
        }
        for &e in self.dead.iter().rev().take(20) {
            assert_eq!(
                query.get(e).err(),
                Some(QueryEntityError::NoSuchEntity(e)),
                "{ctx}: query get stale {e:?}"
            );
        }
    }
}

/// Prints the seed if the test panics while it is alive.
struct SeedGuard(u64);

impl Drop for SeedGuard {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "model test failed for seed {seed:#x}; replay it with \
                 ECS_MODEL_SEED={seed:#x} cargo test --test model",
                seed = self.0
            );
        }
    }
}

fn parse_u64(text: &str) -> u64 {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).expect("a hex number"),
        None => text.parse().expect("a number"),
    }
}

fn run(seed: u64, ops: usize) -> BTreeMap<&'static str, usize> {
    let _guard = SeedGuard(seed);
    let mut harness = Harness::new(seed);
    let mut ops_seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    for step in 0..ops {
        harness.step = step;
        harness.step();
        *ops_seen.entry(harness.op).or_default() += 1;
        if step % 97 == 0 {
            harness.check_all();
        }
    }
    harness.op = "final check";
    harness.check_all();
    // Dropping the world must not panic either.
    drop(harness);
    ops_seen
}

fn ops_per_seed() -> usize {
    std::env::var("ECS_MODEL_OPS").map_or(20_000, |n| parse_u64(&n) as usize)
}

/// Runs the model over the default seeds (or `ECS_MODEL_SEED`), and checks
/// that every kind of operation ran.
pub fn run_seeds() {
    let seeds: Vec<u64> = match std::env::var("ECS_MODEL_SEED") {
        Ok(seed) => vec![parse_u64(&seed)],
        Err(_) => vec![0x5eed_0001, 0x5eed_0002, 0xc0ff_ee00, 0x0123_4567_89ab_cdef],
    };
    let ops = ops_per_seed();
    for seed in seeds {
        let seen = run(seed, ops);
        eprintln!("seed {seed:#x}: {ops} operations: {seen:?}");
        if ops >= 5_000 {
            // Every kind of operation was exercised (the test is not vacuous).
            for op in [
                "spawn ()",
                "spawn (D, Tag, B, A, C)",
                "spawn_batch (A, D)",
                "try_spawn (B,)",
                "insert (Tag,)",
                "insert (D, A, B, C)",
                "remove Tag",
                "remove D",
                "remove_bundle (D, B, A, C)",
                "remove_bundle (C, Tag)",
                "despawn",
                "get / has",
                "get_mut D",
                "query get_mut (&mut C, &D)",
                "clear",
            ] {
                assert!(seen.contains_key(op), "seed {seed:#x}: `{op}` never ran");
            }
        }
    }
}
