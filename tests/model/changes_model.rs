//! A model-based test of change detection, events and removal logs: a plain
//! reference model (per reader system, the entities whose tracked component
//! was written, added or removed since it last ran, and the events it has
//! not read) driven beside a real world by seeded random operations, from
//! outside and from systems of several schedules (a `GameLoop`'s fixed step
//! and frame, with run conditions and state transitions, and a third
//! schedule), compared after every run, sequentially and on 1, 2 and 4
//! threads, across tick wrap-around. Then small tests of the corners.

use core::time::Duration;
use ecs::checksum::StableHash;
use ecs::command::SparseMut;
use ecs::prelude::*;
use ecs::query::Fields;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};
use support::{on_threads, Rng};

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct A(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct B(u32);
#[derive(Soa, Clone, Copy, Debug, PartialEq, StableHash)]
struct C {
    x: u32,
    y: u32,
}
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Other(u32);
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Ev(u32);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Gates(u64);
#[derive(Clone, Debug, Default, PartialEq)]
struct Seen(Vec<Vec<Entity>>);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
enum Phase {
    #[default]
    One,
    Two,
    Three,
}

impl StableHash for Seen {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        let bits: Vec<Vec<u64>> = self
            .0
            .iter()
            .map(|run| run.iter().map(|e| e.to_bits()).collect())
            .collect();
        bits.stable_hash(hasher);
    }
}

#[derive(Schema)]
struct M {
    #[ecs(track)]
    a: A,
    #[ecs(sparse, track)]
    b: B,
    #[ecs(soa, track)]
    c: C,
    other: Other,
    #[ecs(event)]
    ev: Ev,
    #[ecs(resource)]
    gates: Gates,
    #[ecs(resource)]
    seen: Seen,
    #[ecs(resource)]
    time: FixedTime,
    #[ecs(state)]
    phase: Phase,
}

// ---------------------------------------------------------------------------
// Systems: readers report what their parameters say; writers do what the
// driver planned for this run of theirs.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Comp {
    A,
    B,
    C,
}

impl Comp {
    const ALL: [Comp; 3] = [Comp::A, Comp::B, Comp::C];
    fn bit(self) -> u8 {
        match self {
            Comp::A => 1,
            Comp::B => 2,
            Comp::C => 4,
        }
    }
}
const OTHER: u8 = 8;

#[derive(Clone, Debug, PartialEq)]
struct Report {
    changed: Vec<Entity>,
    added: Vec<Entity>,
    removed: Vec<Entity>,
    events: Vec<u32>,
    /// What `Removed::missed` and `EventReader::missed` said (0 in the
    /// model, which keeps everything).
    missed: (u64, u64),
}

type Out = Arc<Mutex<Vec<(usize, Report)>>>;

fn report(
    changed: impl Iterator<Item = Entity>,
    added: impl Iterator<Item = Entity>,
    removed: impl Iterator<Item = Entity>,
    events: impl Iterator<Item = u32>,
    missed: (u64, u64),
) -> Report {
    let mut changed: Vec<Entity> = changed.collect();
    let mut added: Vec<Entity> = added.collect();
    changed.sort();
    added.sort();
    Report {
        changed,
        added,
        removed: removed.collect(),
        events: events.collect(),
        missed,
    }
}

#[allow(
    clippy::type_complexity,
    reason = "the reader's four parameters, spelled out"
)]
fn reader_a(
    id: usize,
    out: Out,
) -> impl FnMut(Query<Entity, Changed<A>>, Query<Entity, Added<A>>, Removed<A>, EventReader<Ev>)
       + Send
       + 'static {
    move |changed, added, removed, events| {
        let r = report(
            changed.iter(),
            added.iter(),
            removed.iter(),
            events.read().map(|e| e.0),
            (removed.missed(), events.missed()),
        );
        out.lock().unwrap().push((id, r));
    }
}

#[allow(
    clippy::type_complexity,
    reason = "the reader's four parameters, spelled out"
)]
fn reader_b(
    id: usize,
    out: Out,
) -> impl FnMut(Query<Entity, Changed<B>>, Query<Entity, Added<B>>, Removed<B>, EventReader<Ev>)
       + Send
       + 'static {
    move |changed, added, removed, events| {
        let r = report(
            changed.iter(),
            added.iter(),
            removed.iter(),
            events.read().map(|e| e.0),
            (removed.missed(), events.missed()),
        );
        out.lock().unwrap().push((id, r));
    }
}

#[allow(
    clippy::type_complexity,
    reason = "the reader's four parameters, spelled out"
)]
fn reader_c(
    id: usize,
    out: Out,
) -> impl FnMut(Query<Entity, Changed<C>>, Query<Entity, Added<C>>, Removed<C>, EventReader<Ev>)
       + Send
       + 'static {
    move |changed, added, removed, events| {
        let r = report(
            changed.iter(),
            added.iter(),
            removed.iter(),
            events.read().map(|e| e.0),
            (removed.missed(), events.missed()),
        );
        out.lock().unwrap().push((id, r));
    }
}

#[derive(Clone, Copy, Debug)]
enum Act {
    /// Through the system's query, at once.
    Write(Comp, Entity),
    /// `par_for_each_mut` over every `A`: each one handed out is a write.
    WriteAllA,
    /// Commands.
    Insert(Comp, Entity),
    Remove(Comp, Entity),
    InsertOther(Entity),
    RemoveOther(Entity),
    Despawn(Entity),
    Spawn(u8),
    Send(u32),
    /// A `SparseMut<M, B>`, at once.
    SparseInsert(Entity),
    SparseRemove(Entity),
    SparseWrite(Entity),
}

type Plans = Arc<Mutex<VecDeque<Vec<Act>>>>;
type Spawned = Arc<Mutex<VecDeque<Vec<Entity>>>>;

fn spawn_cmd(commands: &mut Commands<M>, mask: u8, n: u32) -> Entity {
    let c = C { x: n, y: n };
    let e = match mask & 7 {
        0 => commands.spawn((Other(n),)),
        1 => commands.spawn((A(n),)),
        2 => commands.spawn((B(n),)),
        3 => commands.spawn((A(n), B(n))),
        4 => commands.spawn((c,)),
        5 => commands.spawn((A(n), c)),
        6 => commands.spawn((B(n), c)),
        _ => commands.spawn((A(n), B(n), c)),
    };
    if mask & OTHER != 0 && mask & 7 != 0 {
        commands.insert(e, (Other(n),));
    }
    e
}

#[allow(clippy::type_complexity)]
fn writer(
    plans: Plans,
    spawned: Spawned,
) -> impl FnMut(Query<&mut A>, Query<&mut B>, Query<Fields<&mut C>>, Commands<M>, EventWriter<Ev>)
       + Send
       + 'static {
    move |mut qa, mut qb, mut qc, mut commands, mut events| {
        let acts = plans.lock().unwrap().pop_front().expect("a plan per run");
        let mut new = Vec::new();
        for act in acts {
            match act {
                Act::Write(Comp::A, e) => qa.get_mut(e).expect("planned: has A").0 += 1,
                Act::Write(Comp::B, e) => qb.get_mut(e).expect("planned: has B").0 += 1,
                Act::Write(Comp::C, e) => {
                    let c = qc.get_mut(e).expect("planned: has C");
                    *c.x += 1;
                }
                Act::WriteAllA => qa.par_for_each_mut(|a| a.0 += 1),
                Act::Insert(Comp::A, e) => commands.insert(e, (A(7),)),
                Act::Insert(Comp::B, e) => commands.insert(e, (B(7),)),
                Act::Insert(Comp::C, e) => commands.insert(e, (C { x: 7, y: 7 },)),
                Act::Remove(Comp::A, e) => commands.remove::<A>(e),
                Act::Remove(Comp::B, e) => commands.remove::<B>(e),
                Act::Remove(Comp::C, e) => commands.remove::<C>(e),
                Act::InsertOther(e) => commands.insert(e, (Other(1),)),
                Act::RemoveOther(e) => commands.remove::<Other>(e),
                Act::Despawn(e) => commands.despawn(e),
                Act::Spawn(mask) => new.push(spawn_cmd(&mut commands, mask, 3)),
                Act::Send(v) => events.send(Ev(v)),
                other => unreachable!("not a writer's act: {other:?}"),
            }
        }
        spawned.lock().unwrap().push_back(new);
    }
}

fn sparse_writer(plans: Plans) -> impl FnMut(SparseMut<M, B>) + Send + 'static {
    move |mut sparse| {
        let acts = plans.lock().unwrap().pop_front().expect("a plan per run");
        for act in acts {
            match act {
                Act::SparseInsert(e) => drop(sparse.insert(e, B(9)).expect("alive")),
                Act::SparseRemove(e) => drop(sparse.remove(e).expect("alive")),
                Act::SparseWrite(e) => sparse.get_mut(e).expect("planned: has B").0 += 1,
                other => unreachable!("not a sparse writer's act: {other:?}"),
            }
        }
    }
}

fn gate(bit: u32) -> impl FnMut(Res<Gates>) -> bool + Send + 'static {
    move |gates| gates.0 >> bit & 1 == 1
}

// ---------------------------------------------------------------------------
// The schedules, described so that the model can follow them.

#[derive(Clone, Copy, Debug)]
enum Kind {
    Reader(Comp),
    Writer,
    SparseWriter,
}

#[derive(Clone, Copy, Debug)]
struct Spec {
    id: usize,
    kind: Kind,
    gate: Option<u32>,
}

struct Layout {
    fixed: Vec<Spec>,
    frame: Vec<Spec>,
    other: Vec<Spec>,
    /// (state, system), in the order added.
    exits: Vec<(Phase, Spec)>,
    enters: Vec<(Phase, Spec)>,
    gates: u32,
    systems: usize,
}

fn layout() -> Layout {
    use Comp::*;
    use Kind::*;
    let mut next = 0;
    let mut gates = 0;
    let mut spec = |kind: Kind, gated: bool| {
        let id = next;
        next += 1;
        let gate = gated.then(|| {
            gates += 1;
            gates - 1
        });
        Spec { id, kind, gate }
    };
    let fixed = vec![
        spec(Writer, false),
        spec(Reader(A), false),
        spec(Reader(B), true),
        spec(Reader(C), false),
        spec(SparseWriter, false),
        spec(Reader(A), true),
        spec(Writer, true),
        spec(Reader(C), true),
    ];
    let frame = vec![
        spec(Reader(A), false),
        spec(Writer, false),
        spec(Reader(B), false),
        spec(Reader(C), true),
        spec(Reader(A), true),
        spec(SparseWriter, true),
        spec(Reader(B), true),
    ];
    let other = vec![
        spec(Reader(B), false),
        spec(Writer, false),
        spec(Reader(A), true),
        spec(Reader(C), false),
    ];
    let exits = vec![
        (Phase::Two, spec(Reader(A), false)),
        (Phase::One, spec(Reader(B), false)),
        (Phase::Two, spec(Reader(C), false)),
    ];
    let enters = vec![
        (Phase::Two, spec(Reader(B), false)),
        (Phase::Three, spec(Writer, false)),
        (Phase::Three, spec(Reader(A), false)),
        (Phase::One, spec(Reader(C), false)),
    ];
    Layout {
        fixed,
        frame,
        other,
        exits,
        enters,
        gates,
        systems: next,
    }
}

struct Io {
    out: Out,
    plans: Vec<Plans>,
    spawned: Vec<Spawned>,
}

macro_rules! with_system {
    ($io:expr, $spec:expr, |$sys:ident| $body:expr) => {
        match $spec.kind {
            Kind::Reader(Comp::A) => {
                let $sys = reader_a($spec.id, $io.out.clone());
                $body
            }
            Kind::Reader(Comp::B) => {
                let $sys = reader_b($spec.id, $io.out.clone());
                $body
            }
            Kind::Reader(Comp::C) => {
                let $sys = reader_c($spec.id, $io.out.clone());
                $body
            }
            Kind::Writer => {
                let $sys = writer($io.plans[$spec.id].clone(), $io.spawned[$spec.id].clone());
                $body
            }
            Kind::SparseWriter => {
                let $sys = sparse_writer($io.plans[$spec.id].clone());
                $body
            }
        }
    };
}

fn build(specs: &[Spec], io: &Io) -> Schedule<M> {
    let mut schedule = Schedule::<M>::new();
    for spec in specs {
        let name = format!("system {}", spec.id);
        with_system!(io, spec, |system| match spec.gate {
            Some(bit) => {
                schedule.add_named(name, system.run_if(gate(bit)));
            }
            None => {
                schedule.add_named(name, system);
            }
        });
    }
    schedule
}

// ---------------------------------------------------------------------------
// The model.

#[derive(Debug, Default)]
struct Pending {
    changed: BTreeSet<Entity>,
    added: BTreeSet<Entity>,
    removed: Vec<Entity>,
    events: Vec<u32>,
    ran: bool,
}

struct Model {
    alive: BTreeMap<Entity, u8>,
    /// By reader id: its component and what it has not seen.
    readers: BTreeMap<usize, (Comp, Pending)>,
    gates: u64,
    phase: Phase,
    next: Option<Phase>,
    /// Whether the initial phase was entered (at the first frame).
    entered: bool,
    acc_ms: u64,
    event: u32,
}

impl Model {
    fn touch(&mut self, comp: Comp, e: Entity) {
        for (c, p) in self.readers.values_mut() {
            if *c == comp {
                p.changed.insert(e);
            }
        }
    }

    fn add(&mut self, comp: Comp, e: Entity) {
        *self.alive.get_mut(&e).unwrap() |= comp.bit();
        for (c, p) in self.readers.values_mut() {
            if *c == comp {
                p.changed.insert(e);
                p.added.insert(e);
            }
        }
    }

    fn insert(&mut self, comp: Comp, e: Entity) {
        if self.alive[&e] & comp.bit() != 0 {
            self.touch(comp, e);
        } else {
            self.add(comp, e);
        }
    }

    fn lose(&mut self, comp: Comp, e: Entity) {
        for (c, p) in self.readers.values_mut() {
            if *c == comp {
                p.removed.push(e);
            }
        }
    }

    fn remove(&mut self, comp: Comp, e: Entity) {
        let mask = self.alive.get_mut(&e).unwrap();
        if *mask & comp.bit() != 0 {
            *mask &= !comp.bit();
            self.lose(comp, e);
        }
    }

    fn despawn(&mut self, e: Entity) {
        let mask = self.alive.remove(&e).unwrap();
        for comp in Comp::ALL {
            if mask & comp.bit() != 0 {
                self.lose(comp, e);
            }
        }
    }

    fn spawn(&mut self, e: Entity, mask: u8) {
        // An entity spawned with none of A, B, C is spawned with `Other`.
        let other = if mask & 7 == 0 { OTHER } else { mask & OTHER };
        assert!(self.alive.insert(e, other).is_none(), "{e} reused alive");
        for comp in Comp::ALL {
            if mask & comp.bit() != 0 {
                self.add(comp, e);
            }
        }
    }

    fn send(&mut self, v: u32) {
        for (_, p) in self.readers.values_mut() {
            p.events.push(v);
        }
    }

    /// What reader `id` must report now (and whether it is its first run);
    /// it has then seen everything.
    fn run_reader(&mut self, id: usize) -> (Report, bool) {
        let (comp, pending) = self.readers.get_mut(&id).unwrap();
        let has = |e: &&Entity| self.alive.get(e).is_some_and(|m| m & comp.bit() != 0);
        let expected = Report {
            changed: pending.changed.iter().filter(has).copied().collect(),
            added: pending.added.iter().filter(has).copied().collect(),
            removed: core::mem::take(&mut pending.removed),
            events: core::mem::take(&mut pending.events),
            missed: (0, 0),
        };
        pending.changed.clear();
        pending.added.clear();
        let first = !pending.ran;
        pending.ran = true;
        (expected, first)
    }

    fn has(&self, e: Entity, comp: Comp) -> bool {
        self.alive.get(&e).is_some_and(|m| m & comp.bit() != 0)
    }
}

#[derive(Debug)]
enum Step {
    Reader(usize),
    Writer(usize, Vec<Act>),
    Sparse(usize, Vec<Act>),
}

/// Plans what system `spec` does in its run, against `alive` (what the
/// planner knows is alive at that point: not what this run spawned), which
/// it updates.
fn plan(spec: &Spec, alive: &mut BTreeMap<Entity, u8>, rng: &mut Rng, event: &mut u32) -> Step {
    let pick = |alive: &BTreeMap<Entity, u8>, rng: &mut Rng, need: u8| -> Option<Entity> {
        let list: Vec<Entity> = alive
            .iter()
            .filter(|(_, m)| **m & need == need)
            .map(|(e, _)| *e)
            .collect();
        (!list.is_empty()).then(|| *rng.pick(&list))
    };
    match spec.kind {
        Kind::Reader(_) => Step::Reader(spec.id),
        Kind::Writer => {
            let at_start = alive.clone();
            let mut acts = Vec::new();
            for _ in 0..rng.below(6) {
                let comp = *rng.pick(&Comp::ALL);
                let act = match rng.below(12) {
                    0..=2 => pick(&at_start, rng, comp.bit()).map(|e| Act::Write(comp, e)),
                    3 => rng.chance(1, 3).then_some(Act::WriteAllA),
                    4 => pick(alive, rng, 0).map(|e| Act::Insert(comp, e)),
                    5 => pick(alive, rng, 0).map(|e| Act::Remove(comp, e)),
                    6 => pick(alive, rng, 0).map(|e| {
                        if rng.chance(1, 2) {
                            Act::InsertOther(e)
                        } else {
                            Act::RemoveOther(e)
                        }
                    }),
                    7 => pick(alive, rng, 0).map(Act::Despawn),
                    8 | 9 => Some(Act::Spawn(rng.below(16) as u8)),
                    _ => {
                        *event += 1;
                        Some(Act::Send(*event))
                    }
                };
                let Some(act) = act else { continue };
                match act {
                    Act::Insert(comp, e) => *alive.get_mut(&e).unwrap() |= comp.bit(),
                    Act::Remove(comp, e) => *alive.get_mut(&e).unwrap() &= !comp.bit(),
                    Act::InsertOther(e) => *alive.get_mut(&e).unwrap() |= OTHER,
                    Act::RemoveOther(e) => *alive.get_mut(&e).unwrap() &= !OTHER,
                    Act::Despawn(e) => drop(alive.remove(&e)),
                    _ => {}
                }
                acts.push(act);
            }
            Step::Writer(spec.id, acts)
        }
        Kind::SparseWriter => {
            let mut acts = Vec::new();
            for _ in 0..rng.below(5) {
                let act = match rng.below(3) {
                    0 => pick(alive, rng, 0).map(Act::SparseInsert),
                    1 => pick(alive, rng, 0).map(Act::SparseRemove),
                    _ => pick(alive, rng, Comp::B.bit()).map(Act::SparseWrite),
                };
                let Some(act) = act else { continue };
                match act {
                    Act::SparseInsert(e) => *alive.get_mut(&e).unwrap() |= Comp::B.bit(),
                    Act::SparseRemove(e) => *alive.get_mut(&e).unwrap() &= !Comp::B.bit(),
                    _ => {}
                }
                acts.push(act);
            }
            Step::Sparse(spec.id, acts)
        }
    }
}

/// Applies `steps` to the model, in program order, with the entities the
/// writers' command spawns got; returns what each reader must report.
fn simulate(model: &mut Model, steps: Vec<Step>, io: &Io) -> Vec<(usize, Report, bool)> {
    let mut expected = Vec::new();
    // Each writer's spawns, per run, in the order it ran.
    let mut spawned: Vec<VecDeque<Vec<Entity>>> = io
        .spawned
        .iter()
        .map(|s| core::mem::take(&mut *s.lock().unwrap()))
        .collect();
    for step in steps {
        match step {
            Step::Reader(id) => {
                let (report, first) = model.run_reader(id);
                expected.push((id, report, first));
            }
            Step::Writer(id, acts) => {
                let mut new = spawned[id].pop_front().expect("the writer ran").into_iter();
                // At once, first.
                for act in &acts {
                    match *act {
                        Act::Write(comp, e) => model.touch(comp, e),
                        Act::WriteAllA => {
                            let all: Vec<Entity> = model
                                .alive
                                .iter()
                                .filter(|(_, m)| **m & Comp::A.bit() != 0)
                                .map(|(e, _)| *e)
                                .collect();
                            for e in all {
                                model.touch(Comp::A, e);
                            }
                        }
                        _ => {}
                    }
                }
                // Then the commands, in order.
                for act in &acts {
                    match *act {
                        Act::Insert(comp, e) => model.insert(comp, e),
                        Act::Remove(comp, e) => model.remove(comp, e),
                        Act::InsertOther(e) => *model.alive.get_mut(&e).unwrap() |= OTHER,
                        Act::RemoveOther(e) => *model.alive.get_mut(&e).unwrap() &= !OTHER,
                        Act::Despawn(e) => model.despawn(e),
                        Act::Spawn(mask) => {
                            let e = new.next().expect("a spawn per planned spawn");
                            model.spawn(e, mask);
                        }
                        Act::Send(v) => model.send(v),
                        _ => {}
                    }
                }
            }
            Step::Sparse(_, acts) => {
                for act in acts {
                    match act {
                        Act::SparseInsert(e) => model.insert(Comp::B, e),
                        Act::SparseRemove(e) => model.remove(Comp::B, e),
                        Act::SparseWrite(e) => model.touch(Comp::B, e),
                        _ => unreachable!(),
                    }
                }
            }
        }
    }
    expected
}

/// How much a run exercised, so that a run that checked little fails.
#[derive(Debug, Default)]
struct Covered {
    changed: usize,
    added: usize,
    removed: usize,
    events: usize,
    missed: usize,
    transitions: usize,
    idle_frames: usize,
    busy_frames: usize,
}

/// Compares what the readers reported with what the model expected.
fn compare(io: &Io, expected: Vec<(usize, Report, bool)>, context: &str, covered: &mut Covered) {
    let mut real: BTreeMap<usize, VecDeque<Report>> = BTreeMap::new();
    for (id, report) in io.out.lock().unwrap().drain(..) {
        real.entry(id).or_default().push_back(report);
    }
    for (id, want, first) in expected {
        let got = real
            .get_mut(&id)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| panic!("{context}: reader {id} did not run"));
        assert_eq!(got.changed, want.changed, "{context}: reader {id}: Changed");
        assert_eq!(got.added, want.added, "{context}: reader {id}: Added");
        if first {
            // A first run reads the removals and events the world still
            // keeps: the latest ones.
            assert!(
                want.removed.ends_with(&got.removed),
                "{context}: reader {id} (first run): Removed {:?}, not a suffix of {:?}",
                got.removed,
                want.removed
            );
            assert!(
                want.events.ends_with(&got.events),
                "{context}: reader {id} (first run): events {:?}, not a suffix of {:?}",
                got.events,
                want.events
            );
        } else {
            // A reader that did not run for more than HOLD_RUNS runs of the
            // world reads what is still kept, the latest, and is told
            // exactly how many it missed; one that ran misses nothing.
            let (removed_missed, events_missed) = got.missed;
            let tail = |want: &[Entity], missed: u64| want[missed as usize..].to_vec();
            assert!(
                removed_missed as usize <= want.removed.len(),
                "{context}: reader {id}: missed {removed_missed} of {} removals",
                want.removed.len()
            );
            assert_eq!(
                got.removed,
                tail(&want.removed, removed_missed),
                "{context}: reader {id}: Removed (missed {removed_missed})"
            );
            assert!(
                events_missed as usize <= want.events.len(),
                "{context}: reader {id}: missed {events_missed} of {} events",
                want.events.len()
            );
            assert_eq!(
                got.events,
                want.events[events_missed as usize..],
                "{context}: reader {id}: events (missed {events_missed})"
            );
            covered.missed += usize::from(removed_missed + events_missed > 0);
            covered.changed += usize::from(!want.changed.is_empty());
            covered.added += usize::from(!want.added.is_empty());
            covered.removed += usize::from(!want.removed.is_empty());
            covered.events += usize::from(!want.events.is_empty());
        }
    }
    for (id, left) in real {
        assert!(left.is_empty(), "{context}: reader {id} ran unplanned");
    }
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Sequential,
    Threads(usize),
}

fn spawn_world(world: &mut World<M>, mask: u8, n: u32) -> Entity {
    let c = C { x: n, y: n };
    let e = match mask & 7 {
        0 => world.spawn((Other(n),)),
        1 => world.spawn((A(n),)),
        2 => world.spawn((B(n),)),
        3 => world.spawn((A(n), B(n))),
        4 => world.spawn((c,)),
        5 => world.spawn((A(n), c)),
        6 => world.spawn((B(n), c)),
        _ => world.spawn((A(n), B(n), c)),
    };
    if mask & OTHER != 0 && mask & 7 != 0 {
        world.insert(e, (Other(n),)).unwrap();
    }
    e
}

const STEP_MS: u64 = 10;

fn play(seed: u64, mode: Mode, ops: usize) {
    let body = || {
        let mut rng = Rng::new(seed);
        let layout = layout();
        let io = Io {
            out: Arc::default(),
            plans: (0..layout.systems).map(|_| Arc::default()).collect(),
            spawned: (0..layout.systems).map(|_| Arc::default()).collect(),
        };
        let mut fixed = build(&layout.fixed, &io);
        let mut frame = build(&layout.frame, &io);
        for (state, spec) in &layout.exits {
            with_system!(io, spec, |system| frame.on_exit(*state, system));
        }
        for (state, spec) in &layout.enters {
            with_system!(io, spec, |system| frame.on_enter(*state, system));
        }
        let mut other = build(&layout.other, &io);
        if let Mode::Threads(_) = mode {
            fixed.force_parallel(Some(true));
            frame.force_parallel(Some(true));
            other.force_parallel(Some(true));
        }
        let mut game = GameLoop::new(fixed, frame);
        let sequential = matches!(mode, Mode::Sequential);

        let mut world = World::<M>::new();
        *world.resource_mut::<FixedTime>() = FixedTime::new(Duration::from_millis(STEP_MS));
        // Half the seeds start just before the tick wraps.
        if seed % 2 == 1 {
            world.advance_change_tick_for_tests(u32::MAX - (1 << 27));
        }
        let mut model = Model {
            alive: BTreeMap::new(),
            readers: BTreeMap::new(),
            gates: 0,
            phase: Phase::One,
            next: None,
            entered: false,
            acc_ms: 0,
            event: 0,
        };
        let all_specs = layout
            .fixed
            .iter()
            .chain(&layout.frame)
            .chain(&layout.other)
            .chain(layout.exits.iter().map(|(_, s)| s))
            .chain(layout.enters.iter().map(|(_, s)| s));
        for spec in all_specs {
            if let Kind::Reader(comp) = spec.kind {
                model.readers.insert(spec.id, (comp, Pending::default()));
            }
        }
        // Large advances, kept under 2^30 in all, so that no reader waits
        // past the limit of exactness.
        let mut advanced: u64 = 0;
        let mut covered = Covered::default();
        for op in 0..ops {
            let context = format!("seed {seed}, {mode:?}, op {op}");
            let pick = |model: &Model, rng: &mut Rng| -> Option<Entity> {
                let list: Vec<Entity> = model.alive.keys().copied().collect();
                (!list.is_empty()).then(|| *rng.pick(&list))
            };
            match rng.below(20) {
                0..=2 => {
                    let mask = rng.below(16) as u8;
                    let e = spawn_world(&mut world, mask, op as u32);
                    model.spawn(e, mask);
                }
                3 => {
                    if let Some(e) = pick(&model, &mut rng) {
                        let comp = *rng.pick(&Comp::ALL);
                        match comp {
                            Comp::A => world.insert(e, (A(1),)).unwrap(),
                            Comp::B => world.insert(e, (B(1),)).unwrap(),
                            Comp::C => world.insert(e, (C { x: 1, y: 1 },)).unwrap(),
                        }
                        model.insert(comp, e);
                    }
                }
                4 => {
                    if let Some(e) = pick(&model, &mut rng) {
                        let comp = *rng.pick(&Comp::ALL);
                        let had = match comp {
                            Comp::A => world.remove::<A>(e).unwrap().is_some(),
                            Comp::B => world.remove::<B>(e).unwrap().is_some(),
                            Comp::C => world.remove::<C>(e).unwrap().is_some(),
                        };
                        assert_eq!(had, model.has(e, comp), "{context}");
                        model.remove(comp, e);
                    }
                }
                5 | 6 => {
                    if let Some(e) = pick(&model, &mut rng) {
                        let comp = *rng.pick(&Comp::ALL);
                        let found = match comp {
                            Comp::A => world.get_mut::<A>(e).map(|a| a.0 += 1).is_some(),
                            Comp::B => world.get_mut::<B>(e).map(|b| b.0 += 1).is_some(),
                            Comp::C => world.get_soa_mut::<C>(e).map(|c| *c.y += 1).is_some(),
                        };
                        assert_eq!(found, model.has(e, comp), "{context}");
                        if found {
                            model.touch(comp, e);
                        }
                    }
                }
                7 => {
                    if let Some(e) = pick(&model, &mut rng) {
                        if rng.chance(1, 2) {
                            world.insert(e, (Other(2),)).unwrap();
                            *model.alive.get_mut(&e).unwrap() |= OTHER;
                        } else {
                            world.remove::<Other>(e).unwrap();
                            *model.alive.get_mut(&e).unwrap() &= !OTHER;
                        }
                    }
                }
                8 => {
                    if let Some(e) = pick(&model, &mut rng) {
                        world.despawn(e).unwrap();
                        model.despawn(e);
                    }
                }
                9 => {
                    model.event += 1;
                    world.send_event(Ev(model.event));
                    model.send(model.event);
                }
                10 => world.clear_trackers(),
                11 => {
                    model.gates ^= 1 << rng.below(u64::from(layout.gates));
                    world.resource_mut::<Gates>().0 = model.gates;
                }
                12 => {
                    let next = *rng.pick(&[Phase::One, Phase::Two, Phase::Three]);
                    world.set_next_state(next);
                    model.next = Some(next);
                }
                13 => {
                    let by = rng.below(1 << 24) as u32 + 1;
                    if advanced + u64::from(by) < (1 << 29) {
                        advanced += u64::from(by);
                        world.advance_change_tick_for_tests(by);
                    }
                }
                14 | 15 => {
                    // The third schedule.
                    let mut alive = model.alive.clone();
                    let mut steps = Vec::new();
                    for spec in &layout.other {
                        if spec.gate.is_none_or(|bit| model.gates >> bit & 1 == 1) {
                            steps.push(plan(spec, &mut alive, &mut rng, &mut model.event));
                        }
                    }
                    queue_plans(&steps, &io);
                    if sequential {
                        other.run_sequential(&mut world);
                    } else {
                        other.run(&mut world);
                    }
                    let expected = simulate(&mut model, steps, &io);
                    compare(
                        &io,
                        expected,
                        &format!("{context}, other schedule"),
                        &mut covered,
                    );
                }
                _ => {
                    // A frame of the game loop: 0 to 3 fixed steps, then the
                    // frame schedule with its transitions.
                    let ms = rng.below(31);
                    let total = model.acc_ms + ms;
                    let fixed_runs = total / STEP_MS;
                    model.acc_ms = total % STEP_MS;
                    let mut alive = model.alive.clone();
                    let mut steps = Vec::new();
                    let on = |spec: &Spec| spec.gate.is_none_or(|bit| model.gates >> bit & 1 == 1);
                    for _ in 0..fixed_runs {
                        for spec in layout.fixed.iter().filter(|s| on(s)) {
                            steps.push(plan(spec, &mut alive, &mut rng, &mut model.event));
                        }
                    }
                    // The first frame enters the initial phase, before
                    // the transition requested.
                    if !model.entered {
                        model.entered = true;
                        for (state, spec) in &layout.enters {
                            if *state == model.phase {
                                steps.push(plan(spec, &mut alive, &mut rng, &mut model.event));
                            }
                        }
                    }
                    if let Some(next) = model.next.take() {
                        if next != model.phase {
                            for (state, spec) in &layout.exits {
                                if *state == model.phase {
                                    steps.push(plan(spec, &mut alive, &mut rng, &mut model.event));
                                }
                            }
                            model.phase = next;
                            covered.transitions += 1;
                            for (state, spec) in &layout.enters {
                                if *state == model.phase {
                                    steps.push(plan(spec, &mut alive, &mut rng, &mut model.event));
                                }
                            }
                        }
                    }
                    for spec in layout.frame.iter().filter(|s| on(s)) {
                        steps.push(plan(spec, &mut alive, &mut rng, &mut model.event));
                    }
                    queue_plans(&steps, &io);
                    let ran = if sequential {
                        game.run_frame_sequential(&mut world, Duration::from_millis(ms))
                    } else {
                        game.run_frame(&mut world, Duration::from_millis(ms))
                    };
                    assert_eq!(u64::from(ran), fixed_runs, "{context}");
                    assert_eq!(*world.state::<Phase>(), model.phase, "{context}");
                    let expected = simulate(&mut model, steps, &io);
                    compare(
                        &io,
                        expected,
                        &format!("{context}, frame of {ms} ms"),
                        &mut covered,
                    );
                    match fixed_runs {
                        0 => covered.idle_frames += 1,
                        1 => {}
                        _ => covered.busy_frames += 1,
                    }
                }
            }
            // The world agrees with the model on who has what.
            if op % 16 == 0 {
                let mut real: Vec<Entity> = world.query::<Entity>().iter().collect();
                real.sort();
                let want: Vec<Entity> = model.alive.keys().copied().collect();
                assert_eq!(real, want, "{context}: entities");
                for (&e, &mask) in &model.alive {
                    assert_eq!(world.has::<A>(e), mask & 1 != 0, "{context}: {e} A");
                    assert_eq!(world.has::<B>(e), mask & 2 != 0, "{context}: {e} B");
                    assert_eq!(world.has::<C>(e), mask & 4 != 0, "{context}: {e} C");
                    assert_eq!(world.has::<Other>(e), mask & 8 != 0, "{context}: {e} Other");
                }
            }
        }
        let c = &covered;
        let all = [c.changed, c.added, c.removed, c.events, c.transitions];
        assert!(
            all.iter()
                .chain([&c.idle_frames, &c.busy_frames])
                .all(|&n| n > 0),
            "seed {seed}: too little checked: {covered:?}"
        );
    };
    match mode {
        Mode::Sequential => body(),
        Mode::Threads(n) => on_threads(n, body),
    }
}

fn queue_plans(steps: &[Step], io: &Io) {
    for step in steps {
        match step {
            Step::Writer(id, acts) | Step::Sparse(id, acts) => {
                io.plans[*id].lock().unwrap().push_back(acts.clone())
            }
            Step::Reader(_) => {}
        }
    }
}

const SEEDS: u64 = 12;
const OPS: usize = 400;

fn play_seeds(mode: Mode) {
    for seed in 0..SEEDS {
        let ran = std::panic::catch_unwind(|| play(seed, mode, OPS));
        if let Err(panic) = ran {
            eprintln!("changes_model: seed {seed} failed under {mode:?}");
            std::panic::resume_unwind(panic);
        }
    }
}

#[test]
fn readers_match_the_model_sequentially() {
    play_seeds(Mode::Sequential);
}

#[test]
fn readers_match_the_model_on_1_thread() {
    play_seeds(Mode::Threads(1));
}

#[test]
fn readers_match_the_model_on_2_threads() {
    play_seeds(Mode::Threads(2));
}

#[test]
fn readers_match_the_model_on_4_threads() {
    play_seeds(Mode::Threads(4));
}

// ---------------------------------------------------------------------------
// Corners.

/// Records the entities whose `A` changed since its previous run.
fn watch_a(changed: Query<Entity, Changed<A>>, mut seen: ResMut<Seen>) {
    let mut list: Vec<Entity> = changed.iter().collect();
    list.sort();
    seen.0.push(list);
}

/// Records the entities that lost `A` since its previous run.
fn watch_removed_a(removed: Removed<A>, mut seen: ResMut<Seen>) {
    seen.0.push(removed.iter().collect());
}

fn seen(world: &mut World<M>) -> Vec<Vec<Entity>> {
    core::mem::take(&mut world.resource_mut::<Seen>().0)
}

/// Two schedules that share a system function, told apart by naming it in
/// one of them (`add_named`, as the docs of `Schedule` say: schedules are
/// known by their systems' names): each is its own reader, so each sees
/// every change since its own previous run (the first run, every change
/// since the world began).
#[test]
fn two_schedules_sharing_a_system_function_each_see_every_change() {
    let mut world = World::<M>::new();
    let e = world.spawn((A(0),));
    let mut first = Schedule::<M>::new();
    first.add(watch_a);
    let mut second = Schedule::<M>::new();
    second.add_named("watch_a of the second schedule", watch_a);
    first.run(&mut world); // sees e (spawned)
    second.run(&mut world); // its first run: sees e
    world.get_mut::<A>(e).unwrap().0 += 1;
    second.run(&mut world); // sees the write
    first.run(&mut world); // sees the write too
    assert_eq!(seen(&mut world), [vec![e], vec![e], vec![e], vec![e]]);
}

/// The same, for `Removed`, with the fixed step and frame schedules of a
/// game loop built by one function (so their systems have the same names).
#[test]
fn a_game_loops_two_schedules_of_the_same_systems_each_see_every_removal() {
    fn schedule() -> Schedule<M> {
        let mut schedule = Schedule::<M>::new();
        schedule.add(watch_removed_a);
        schedule
    }
    let mut world = World::<M>::new();
    *world.resource_mut::<FixedTime>() = FixedTime::new(Duration::from_millis(10));
    let mut game = GameLoop::new(schedule(), schedule());
    let a = world.spawn((A(0),));
    let b = world.spawn((A(0),));
    // One fixed step, then the frame: neither has anything to see.
    assert_eq!(game.run_frame(&mut world, Duration::from_millis(10)), 1);
    assert_eq!(seen(&mut world), [vec![], vec![]]);
    world.remove::<A>(a).unwrap();
    // No fixed step: the frame sees `a`.
    assert_eq!(game.run_frame(&mut world, Duration::from_millis(0)), 0);
    assert_eq!(seen(&mut world), [vec![a]], "frame only");
    world.remove::<A>(b).unwrap();
    // A fixed step has not run since either removal: it sees both.
    assert_eq!(game.run_frame(&mut world, Duration::from_millis(10)), 1);
    assert_eq!(
        seen(&mut world),
        [vec![a, b], vec![b]],
        "fixed step, then frame"
    );
}

/// `World::removed` lists what lost `T` since the last `clear_trackers`,
/// as long as the world keeps the records: a mark counts as a run, and a
/// record older than the run or mark before the last is dropped (see
/// `clear_trackers`). `Added` outside systems still measures from the mark.
#[test]
fn world_removed_lists_removals_since_the_mark_until_two_runs_pass() {
    let mut world = World::<M>::new();
    let e = world.spawn((A(0),));
    world.clear_trackers();
    world.remove::<A>(e).unwrap();
    assert_eq!(world.removed::<A>().collect::<Vec<_>>(), [e]);
    let mut schedule = Schedule::<M>::new();
    schedule.add(|mut seen: ResMut<Seen>| seen.0.clear());
    schedule.run(&mut world);
    assert_eq!(
        world.removed::<A>().collect::<Vec<_>>(),
        [e],
        "after one run"
    );
    schedule.run(&mut world);
    schedule.run(&mut world);
    let f = world.spawn((A(1),));
    assert_eq!(
        world
            .query_filtered::<Entity, Added<A>>()
            .iter()
            .collect::<Vec<_>>(),
        [f]
    );
    assert_eq!(world.removed::<A>().count(), 0, "dropped after three runs");
}

/// Reports of one reader of `T` per kind of storage.
fn corner_schedule(io: &Io) -> Schedule<M> {
    let specs = [
        Spec {
            id: 0,
            kind: Kind::Reader(Comp::A),
            gate: None,
        },
        Spec {
            id: 1,
            kind: Kind::Reader(Comp::B),
            gate: None,
        },
        Spec {
            id: 2,
            kind: Kind::Reader(Comp::C),
            gate: None,
        },
    ];
    build(&specs, io)
}

fn corner_io() -> Io {
    Io {
        out: Arc::default(),
        plans: Vec::new(),
        spawned: Vec::new(),
    }
}

fn reports(io: &Io) -> Vec<(usize, Report)> {
    let mut reports = core::mem::take(&mut *io.out.lock().unwrap());
    reports.sort_by_key(|(id, _)| *id);
    reports
}

fn insert_all(world: &mut World<M>, e: Entity) {
    world.insert(e, (A(5), B(5), C { x: 5, y: 5 })).unwrap();
}

fn remove_all(world: &mut World<M>, e: Entity) {
    world.remove::<A>(e).unwrap().unwrap();
    world.remove::<B>(e).unwrap().unwrap();
    world.remove::<C>(e).unwrap().unwrap();
}

/// Written, removed and added again between two runs of a reader: a change,
/// an addition and a removal, for table, sparse and SoA components alike.
#[test]
fn written_removed_and_added_again_between_two_runs_is_reported_as_all_three() {
    let io = corner_io();
    let mut schedule = corner_schedule(&io);
    let mut world = World::<M>::new();
    let e = world.spawn((A(0), B(0), C { x: 0, y: 0 }, Other(0)));
    let f = world.spawn((A(0), B(0), C { x: 0, y: 0 }, Other(0)));
    schedule.run(&mut world);
    reports(&io);
    world.get_mut::<A>(e).unwrap().0 += 1;
    world.get_mut::<B>(e).unwrap().0 += 1;
    *world.get_soa_mut::<C>(e).unwrap().x += 1;
    remove_all(&mut world, e);
    insert_all(&mut world, e);
    // f: removed and added again, with no write.
    remove_all(&mut world, f);
    insert_all(&mut world, f);
    schedule.run(&mut world);
    for (id, report) in reports(&io) {
        let mut both = vec![e, f];
        both.sort();
        assert_eq!(report.changed, both, "reader {id}");
        assert_eq!(report.added, both, "reader {id}");
        assert_eq!(report.removed, [e, f], "reader {id}");
    }
    schedule.run(&mut world);
    for (id, report) in reports(&io) {
        assert!(
            report.changed.is_empty() && report.added.is_empty(),
            "reader {id}"
        );
        assert!(report.removed.is_empty(), "reader {id}");
    }
}

/// An entity despawned and its slot reused between two runs: the old one is
/// removed, the new one added; the new one is never reported as the old.
#[test]
fn a_slot_reused_between_runs_reports_the_old_entity_removed_and_the_new_added() {
    let io = corner_io();
    let mut schedule = corner_schedule(&io);
    let mut world = World::<M>::new();
    let old = world.spawn((A(0), B(0), C { x: 0, y: 0 }));
    let keep = world.spawn((A(0), B(0), C { x: 0, y: 0 }));
    schedule.run(&mut world);
    reports(&io);
    world.despawn(old).unwrap();
    let new = world.spawn((A(1), B(1), C { x: 1, y: 1 }));
    assert_eq!(new.index(), old.index(), "the slot is reused");
    schedule.run(&mut world);
    for (id, report) in reports(&io) {
        assert_eq!(report.changed, [new], "reader {id}");
        assert_eq!(report.added, [new], "reader {id}");
        assert_eq!(report.removed, [old], "reader {id}");
    }
    // The reused slot's new entity, despawned and reused again within one
    // window, with no reader run between.
    world.despawn(new).unwrap();
    let newer = world.spawn((Other(0),));
    world.insert(newer, (B(2),)).unwrap();
    world.get_mut::<A>(keep).unwrap().0 += 1;
    schedule.run(&mut world);
    let reports = reports(&io);
    assert_eq!(reports[0].1.changed, [keep], "A");
    assert_eq!(reports[1].1.changed, [newer], "B");
    assert_eq!(reports[1].1.added, [newer], "B");
    assert!(reports[2].1.changed.is_empty(), "C");
    for (id, report) in reports {
        assert_eq!(report.removed, [new], "reader {id}");
    }
}

/// A system added to a schedule after the schedule ran first runs as a new
/// system: it sees every change since the world began.
#[test]
fn a_system_added_after_the_schedule_ran_first_sees_everything() {
    let mut world = World::<M>::new();
    let e = world.spawn((A(0),));
    let mut schedule = Schedule::<M>::new();
    schedule.add(|mut seen: ResMut<Seen>| seen.0.push(Vec::new()));
    schedule.run(&mut world);
    schedule.run(&mut world);
    let f = world.spawn((A(0),));
    schedule.add(watch_a);
    schedule.run(&mut world);
    assert_eq!(seen(&mut world), [vec![], vec![], vec![], vec![e, f]]);
    world.get_mut::<A>(f).unwrap().0 += 1;
    schedule.run(&mut world);
    assert_eq!(seen(&mut world), [vec![], vec![f]]);
}
