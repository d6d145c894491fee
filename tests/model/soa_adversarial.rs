//! Adversarial tests of struct-of-arrays components: two schemas that
//! differ only in `#[ecs(soa)]`, driven by the same seeded operations
//! (world calls, commands, spawners, migrators, despawners and the chunk
//! recorders of parallel loops), must agree after every step; and targeted
//! corners (a spawner's table made by the run, migrations and batch
//! despawns of SoA rows, tracked writes, panics inside a `Fields` loop, a
//! component whose struct has drop glue of its own).

use ecs::prelude::*;

use ecs::command::{Despawner, Migrator, Spawner, UnnamedSpawner};

use ecs::checksum::StableHash;
use ecs::query::Fields;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use support::{on_threads, Rng};

/// Three fields of different sizes, stored field by field in `Soa`.
#[derive(Soa, Clone, Copy, Debug, PartialEq, StableHash)]
struct Pos {
    x: i32,
    tag: u8,
    id: u64,
}

/// A second SoA component, untracked.
#[derive(Soa, Clone, Copy, Debug, PartialEq, StableHash)]
struct Aux {
    a: u16,
    b: i64,
    c: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Vel(i32);

#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Frozen;

/// A shared log of dropped ids (one per world; cloned worlds share it).
#[derive(Clone, Default)]
struct Drops(Arc<Mutex<Vec<u64>>>);

impl Drops {
    fn push(&self, id: u64) {
        match self.0.lock() {
            Ok(mut log) => log.push(id),
            Err(poisoned) => poisoned.into_inner().push(id),
        }
    }

    fn sorted(&self) -> Vec<u64> {
        let mut ids = match self.0.lock() {
            Ok(log) => log.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        ids.sort_unstable();
        ids
    }
}

impl StableHash for Drops {
    fn stable_hash(&self, _hasher: &mut ecs::checksum::StableHasher) {}
}

/// A component with drop glue that lives in the same rows as the SoA ones:
/// it records its id when dropped.
struct Label {
    id: u64,
    drops: Drops,
}

impl Label {
    fn new(id: u64, drops: &Drops) -> Self {
        Label {
            id,
            drops: drops.clone(),
        }
    }
}

impl Clone for Label {
    fn clone(&self) -> Self {
        Label::new(self.id, &self.drops)
    }
}

impl Drop for Label {
    fn drop(&mut self) {
        self.drops.push(self.id);
    }
}

impl PartialEq for Label {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl std::fmt::Debug for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Label({})", self.id)
    }
}

impl StableHash for Label {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.id.stable_hash(hasher);
    }
}

/// What the observer system saw per run: added, changed, removed `Pos`.
#[derive(Clone, Default, Debug, PartialEq)]
struct Seen(Vec<(Vec<Entity>, Vec<Entity>, Vec<Entity>)>);

impl StableHash for Seen {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        (self.0.len() as u64).stable_hash(hasher);
    }
}

/// A counter systems read to vary what they do from run to run.
#[derive(Clone, Default, Debug, PartialEq)]
struct Round(u64);

impl StableHash for Round {
    fn stable_hash(&self, hasher: &mut ecs::checksum::StableHasher) {
        self.0.stable_hash(hasher);
    }
}

#[derive(Schema)]
struct SoaWorld {
    #[ecs(soa, track)]
    pos: Pos,
    #[ecs(soa)]
    aux: Aux,
    vel: Vel,
    label: Label,
    frozen: Frozen,
    #[ecs(resource)]
    drops: Drops,
    #[ecs(resource)]
    seen: Seen,
    #[ecs(resource)]
    round: Round,
}

#[derive(Schema)]
struct WholeWorld {
    #[ecs(track)]
    pos: Pos,
    aux: Aux,
    vel: Vel,
    label: Label,
    frozen: Frozen,
    #[ecs(resource)]
    drops: Drops,
    #[ecs(resource)]
    seen: Seen,
    #[ecs(resource)]
    round: Round,
}

// Access to a component through either kind of item, so that one system
// body serves both schemas.

trait ReadPos {
    fn val(&self) -> Pos;
}
impl ReadPos for PosRef<'_> {
    fn val(&self) -> Pos {
        self.get()
    }
}
impl ReadPos for &Pos {
    fn val(&self) -> Pos {
        **self
    }
}
impl ReadPos for PosMut<'_> {
    fn val(&self) -> Pos {
        self.get()
    }
}
impl ReadPos for &mut Pos {
    fn val(&self) -> Pos {
        **self
    }
}

trait WritePos: ReadPos {
    fn put(&mut self, value: Pos);
    /// Writes one field only (through its own reference for SoA).
    fn bump_x(&mut self, by: i32);
}
impl WritePos for PosMut<'_> {
    fn put(&mut self, value: Pos) {
        self.set(value);
    }
    fn bump_x(&mut self, by: i32) {
        *self.x = self.x.wrapping_add(by);
    }
}
impl WritePos for &mut Pos {
    fn put(&mut self, value: Pos) {
        **self = value;
    }
    fn bump_x(&mut self, by: i32) {
        self.x = self.x.wrapping_add(by);
    }
}

trait ReadAux {
    fn val(&self) -> Aux;
}
impl ReadAux for AuxRef<'_> {
    fn val(&self) -> Aux {
        self.get()
    }
}
impl ReadAux for &Aux {
    fn val(&self) -> Aux {
        **self
    }
}

/// The table form of a written `Pos`: per-field slices, or one slice.
trait PosRows {
    fn rows(&self) -> usize;
    fn bump(&mut self, row: usize, by: i32);
}
impl PosRows for PosSlicesMut<'_> {
    fn rows(&self) -> usize {
        assert_eq!(self.x.len(), self.tag.len(), "field slices of one length");
        assert_eq!(self.x.len(), self.id.len(), "field slices of one length");
        assert_eq!(self.len(), self.x.len());
        self.x.len()
    }
    fn bump(&mut self, row: usize, by: i32) {
        self.x[row] = self.x[row].wrapping_add(by);
        self.tag[row] = self.tag[row].wrapping_add(1);
    }
}
impl PosRows for &mut [Pos] {
    fn rows(&self) -> usize {
        self.len()
    }
    fn bump(&mut self, row: usize, by: i32) {
        self[row].x = self[row].x.wrapping_add(by);
        self[row].tag = self[row].tag.wrapping_add(1);
    }
}

fn pos(i: u64) -> Pos {
    Pos {
        x: (i % 1000) as i32 - 300,
        tag: (i % 251) as u8,
        id: i.wrapping_mul(0x9e37_79b9),
    }
}

fn aux(i: u64) -> Aux {
    Aux {
        a: (i % 60_000) as u16,
        b: (i as i64).wrapping_mul(-3),
        c: i % 2 == 0,
    }
}

/// One entity as both worlds must show it.
#[derive(Debug, PartialEq)]
struct Row {
    entity: Entity,
    pos: Option<Pos>,
    aux: Option<Aux>,
    vel: Option<Vel>,
    label: Option<u64>,
    frozen: bool,
}

/// The systems of the differential schedule, written once for both
/// schemas: `$pr`/`$pw` are the read/write items of `Pos`, `$ar` that of
/// `Aux`.
macro_rules! schedule_for {
    ($schema:ident, $pr:ty, $pw:ty, $ar:ty) => {{
        type S = $schema;

        // Per-entity field writes with commands recorded per chunk.
        fn writer(
            mut movers: Query<(Entity, $pw, Option<$ar>, Has<Frozen>), Without<Vel>>,
            mut commands: Commands<S>,
            drops: Res<Drops>,
            round: Res<Round>,
        ) {
            let r = round.0;
            let drops: &Drops = &drops;
            movers.par_for_each_mut_with(&mut commands, |commands, (e, mut p, a, frozen)| {
                let old = p.val();
                let k = (old.id ^ r ^ u64::from(e.index())) % 11;
                match k {
                    0 => p.put(Pos {
                        x: old.x.wrapping_mul(3),
                        tag: old.tag ^ 0x5a,
                        id: old.id.wrapping_add(1),
                    }),
                    1 | 2 => p.bump_x(a.map_or(1, |a| i32::from(a.val().a % 7))),
                    3 => commands.insert(e, (aux(old.id.wrapping_add(r)),)),
                    4 if !frozen => commands.remove::<Pos>(e),
                    5 => commands.despawn(e),
                    6 => {
                        commands.spawn((
                            pos(old.id.wrapping_add(17)),
                            Label::new(old.id.wrapping_mul(1000).wrapping_add(r), drops),
                        ));
                    }
                    7 => commands.insert(e, (Vel(old.x),)),
                    _ => {}
                }
            });
        }

        // Spawns into [Pos, Aux, Label], through the chunk recorder.
        fn spawn_chunks(
            mut movers: Query<(Entity, &Vel)>,
            mut spawner: Spawner<S, (Pos, Aux, Label)>,
            drops: Res<Drops>,
            round: Res<Round>,
        ) {
            let r = round.0;
            let drops: &Drops = &drops;
            movers.par_for_each_mut_with(&mut spawner, |spawner, (e, v)| {
                if (u64::from(e.index()) + r) % 5 == 0 {
                    let i = u64::from(e.index()) * 7 + r;
                    spawner.spawn((
                        pos(i + v.0.unsigned_abs() as u64),
                        aux(i),
                        Label::new(10_000_000 + i * 100 + r, drops),
                    ));
                }
            });
        }

        // Spawns without ids into [Pos, Vel, Frozen].
        fn spawn_unnamed(mut spawner: UnnamedSpawner<S, (Pos, Vel, Frozen)>, round: Res<Round>) {
            if round.0 % 3 == 1 {
                for i in 0..3 {
                    spawner.spawn((pos(round.0 * 10 + i), Vel(i as i32), Frozen));
                }
            }
        }

        // Adds and removes the SoA `Aux` on entities with `Vel`, per chunk.
        fn migrate_aux(
            mut movers: Query<(Entity, &Vel, Option<$ar>)>,
            mut migrator: Migrator<S, Aux, With<Vel>>,
            round: Res<Round>,
        ) {
            let r = round.0;
            movers.par_for_each_mut_with(&mut migrator, |migrator, (e, v, a)| {
                match (u64::from(e.index()) + r + a.map_or(0, |a| u64::from(a.val().a))) % 4 {
                    0 => migrator
                        .insert(e, aux(r + v.0.unsigned_abs() as u64))
                        .unwrap(),
                    1 => migrator.remove(e).unwrap(),
                    _ => {}
                }
            });
        }

        // Despawns at the end of the run, per chunk, from a read of `Pos`.
        fn reap(mut living: Query<(Entity, $pr)>, mut despawner: Despawner<S>, round: Res<Round>) {
            let r = round.0;
            living.par_for_each_mut_with(&mut despawner, |despawner, (e, p)| {
                if p.val().id.wrapping_add(r) % 9 == 0 {
                    despawner.despawn(e);
                }
            });
        }

        // The table form, on the frozen rows.
        fn tables(mut frozen: Query<$pw, With<Frozen>>) {
            frozen.for_each_table_mut(|_, mut rows| {
                for row in 0..rows.rows() {
                    if row % 2 == 0 {
                        rows.bump(row, 5);
                    }
                }
            });
        }

        fn observe(
            added: Query<Entity, Added<Pos>>,
            changed: Query<Entity, Changed<Pos>>,
            removed: Removed<Pos>,
            mut seen: ResMut<Seen>,
            mut round: ResMut<Round>,
        ) {
            let sorted = |mut v: Vec<Entity>| {
                v.sort();
                v
            };
            seen.0.push((
                sorted(added.iter().collect()),
                sorted(changed.iter().collect()),
                sorted(removed.iter().collect()),
            ));
            round.0 += 1;
        }

        let mut schedule = Schedule::<S>::new();
        schedule
            .add(writer)
            .add(spawn_chunks)
            .add(spawn_unnamed)
            .add(migrate_aux)
            .add(reap)
            .add(tables)
            .add(observe);
        schedule
    }};
}

fn soa_schedule() -> Schedule<SoaWorld> {
    schedule_for!(SoaWorld, Fields<&Pos>, Fields<&mut Pos>, Fields<&Aux>)
}

fn whole_schedule() -> Schedule<WholeWorld> {
    schedule_for!(WholeWorld, &Pos, &mut Pos, &Aux)
}

fn soa_rows(world: &World<SoaWorld>) -> Vec<Row> {
    let rows: Vec<Row> = world
        .query::<(
            Entity,
            Option<Fields<&Pos>>,
            Option<Fields<&Aux>>,
            Option<&Vel>,
            Option<&Label>,
            Has<Frozen>,
        )>()
        .iter()
        .map(|(entity, p, a, v, l, frozen)| Row {
            entity,
            pos: p.map(|p| p.get()),
            aux: a.map(|a| a.get()),
            vel: v.copied(),
            label: l.map(|l| l.id),
            frozen,
        })
        .collect();
    // The same through the per-entity lookups.
    for row in &rows {
        assert_eq!(
            world.get_soa::<Pos>(row.entity).map(|p| p.get()),
            row.pos,
            "get_soa::<Pos>({:?})",
            row.entity
        );
        assert_eq!(
            world.get_soa::<Aux>(row.entity).map(|a| a.get()),
            row.aux,
            "get_soa::<Aux>({:?})",
            row.entity
        );
        assert_eq!(world.has::<Pos>(row.entity), row.pos.is_some());
    }
    rows
}

fn whole_rows(world: &World<WholeWorld>) -> Vec<Row> {
    world
        .query::<(
            Entity,
            Option<&Pos>,
            Option<&Aux>,
            Option<&Vel>,
            Option<&Label>,
            Has<Frozen>,
        )>()
        .iter()
        .map(|(entity, p, a, v, l, frozen)| Row {
            entity,
            pos: p.copied(),
            aux: a.copied(),
            vel: v.copied(),
            label: l.map(|l| l.id),
            frozen,
        })
        .collect()
}

/// Every observable the two worlds must share.
fn compare(soa: &World<SoaWorld>, whole: &World<WholeWorld>, what: &str) {
    assert_eq!(soa.len(), whole.len(), "{what}: len");
    assert_eq!(soa_rows(soa), whole_rows(whole), "{what}: rows");
    assert_eq!(
        soa.resource::<Drops>().sorted(),
        whole.resource::<Drops>().sorted(),
        "{what}: drops"
    );
    assert_eq!(
        soa.resource::<Seen>(),
        whole.resource::<Seen>(),
        "{what}: Added/Changed/Removed"
    );
    // Queries of the tracked component, filtered.
    let mut soa_changed: Vec<Entity> = soa
        .query_filtered::<Entity, (With<Pos>, Without<Frozen>)>()
        .iter()
        .collect();
    let mut whole_changed: Vec<Entity> = whole
        .query_filtered::<Entity, (With<Pos>, Without<Frozen>)>()
        .iter()
        .collect();
    soa_changed.sort();
    whole_changed.sort();
    assert_eq!(soa_changed, whole_changed, "{what}: With<Pos>");
    assert_eq!(soa.checksum(), whole.checksum(), "{what}: checksum");
}

/// How the SoA world runs its schedule this step.
fn run_soa(schedule: &mut Schedule<SoaWorld>, world: &mut World<SoaWorld>, mode: u64) {
    match mode {
        0 => schedule.run_sequential(world),
        1 => schedule.force_parallel(None).run(world),
        m => {
            let threads = [1, 2, 4][(m as usize - 2) % 3];
            on_threads(threads, || schedule.force_parallel(Some(true)).run(world));
        }
    }
}

fn alive_of(world: &World<WholeWorld>) -> Vec<Entity> {
    world.query::<Entity>().iter().collect()
}

/// The same random operations on both worlds, compared after each.
fn differential(seed: u64, steps: u64) {
    let mut rng = Rng::new(seed);
    let mut soa = World::<SoaWorld>::new();
    let mut whole = World::<WholeWorld>::new();
    let mut soa_schedule = soa_schedule();
    let mut whole_schedule = whole_schedule();
    // One dead id to begin with, the same in both.
    let first = soa.spawn((Vel(0),));
    assert_eq!(first, whole.spawn((Vel(0),)));
    soa.despawn(first).unwrap();
    whole.despawn(first).unwrap();
    let mut dead: Vec<Entity> = vec![first];
    for step in 0..steps {
        let sd = soa.resource::<Drops>().clone();
        let wd = whole.resource::<Drops>().clone();
        let alive = alive_of(&whole);
        let pick = |rng: &mut Rng| -> Entity {
            if alive.is_empty() || rng.chance(1, 10) {
                *rng.pick(&dead)
            } else {
                *rng.pick(&alive)
            }
        };
        let i = step * 1000 + seed;
        let op = rng.below(17);
        let what = format!("seed {seed} step {step} op {op}");
        match op {
            0 => {
                let a = soa.spawn((pos(i), aux(i), Label::new(i, &sd)));
                let b = whole.spawn((pos(i), aux(i), Label::new(i, &wd)));
                assert_eq!(a, b, "{what}");
            }
            1 => {
                let a = soa.spawn((pos(i), Label::new(i, &sd)));
                let b = whole.spawn((pos(i), Label::new(i, &wd)));
                assert_eq!(a, b, "{what}");
            }
            2 => {
                let n = rng.below(40);
                let a: Vec<Entity> = soa
                    .spawn_batch(
                        (0..n).map(|k| (pos(i + k), Vel(k as i32), Label::new(i + k, &sd))),
                    )
                    .collect();
                let b: Vec<Entity> = whole
                    .spawn_batch(
                        (0..n).map(|k| (pos(i + k), Vel(k as i32), Label::new(i + k, &wd))),
                    )
                    .collect();
                assert_eq!(a, b, "{what}");
            }
            3 => {
                let e = pick(&mut rng);
                assert_eq!(
                    soa.insert(e, (pos(i),)),
                    whole.insert(e, (pos(i),)),
                    "{what}"
                );
            }
            4 => {
                let e = pick(&mut rng);
                assert_eq!(
                    soa.insert(e, (aux(i), Frozen)),
                    whole.insert(e, (aux(i), Frozen)),
                    "{what}"
                );
            }
            5 => {
                let e = pick(&mut rng);
                assert_eq!(soa.remove::<Pos>(e), whole.remove::<Pos>(e), "{what}");
            }
            6 => {
                let e = pick(&mut rng);
                assert_eq!(soa.remove::<Aux>(e), whole.remove::<Aux>(e), "{what}");
            }
            7 => {
                let e = pick(&mut rng);
                let a = soa.take::<(Pos, Label)>(e).ok();
                let b = whole.take::<(Pos, Label)>(e).ok();
                assert_eq!(a, b, "{what}: take");
                if b.is_some() {
                    dead.push(e);
                }
            }
            8 => {
                let e = pick(&mut rng);
                let a = soa
                    .exchange::<(Pos,), _>(e, (aux(i), Vel(3)))
                    .map_err(|err| err.into_bundle());
                let b = whole
                    .exchange::<(Pos,), _>(e, (aux(i), Vel(3)))
                    .map_err(|err| err.into_bundle());
                assert_eq!(a, b, "{what}: exchange");
            }
            9 => {
                let e = pick(&mut rng);
                let a = soa.exchange::<(Aux, Label), _>(e, (pos(i), Label::new(i, &sd)));
                let b = whole.exchange::<(Aux, Label), _>(e, (pos(i), Label::new(i, &wd)));
                assert_eq!(
                    a.map_err(|err| err.into_bundle()),
                    b.map_err(|err| err.into_bundle()),
                    "{what}: exchange"
                );
            }
            10 => {
                let e = pick(&mut rng);
                let a = soa.despawn(e);
                assert_eq!(a, whole.despawn(e), "{what}");
                if a.is_ok() {
                    dead.push(e);
                }
            }
            11 => {
                let n = rng.below(12) as usize;
                let batch: Vec<Entity> = (0..n).map(|_| pick(&mut rng)).collect();
                let a = soa.despawn_batch(&batch);
                assert_eq!(a, whole.despawn_batch(&batch), "{what}: despawn_batch");
                dead.extend(batch);
            }
            12 => {
                let e = pick(&mut rng);
                let by = rng.below(100) as i32;
                let a = soa.get_soa_mut::<Pos>(e).map(|p| {
                    *p.x += by;
                    p.get()
                });
                let b = whole.get_mut::<Pos>(e).map(|p| {
                    p.x += by;
                    *p
                });
                assert_eq!(a, b, "{what}: get_soa_mut");
            }
            13 => {
                let m = rng.below(4) as u32 + 2;
                soa.query_filtered_mut::<(Entity, Fields<&mut Pos>), With<Label>>()
                    .for_each_mut(|(e, p)| {
                        if e.index() % m == 0 {
                            *p.tag = p.tag.wrapping_add(1);
                        }
                    });
                whole
                    .query_filtered_mut::<(Entity, &mut Pos), With<Label>>()
                    .for_each_mut(|(e, p)| {
                        if e.index() % m == 0 {
                            p.tag = p.tag.wrapping_add(1);
                        }
                    });
            }
            14 => {
                if rng.chance(1, 2) {
                    soa = soa.clone();
                    whole = whole.clone();
                } else {
                    let mut a = World::<SoaWorld>::new();
                    a.spawn((pos(1), aux(2)));
                    a.clone_from(&soa);
                    soa = a;
                    let mut b = World::<WholeWorld>::new();
                    b.spawn((pos(1), aux(2)));
                    b.clone_from(&whole);
                    whole = b;
                }
                // A clone shares the old world's drop log, in both.
                let (a, b) = (soa.clone(), whole.clone());
                compare(&a, &b, &what);
            }
            _ => {
                let mode = rng.below(5);
                run_soa(&mut soa_schedule, &mut soa, mode);
                whole_schedule.run_sequential(&mut whole);
            }
        }
        compare(&soa, &whole, &what);
    }
    // Everything alive is dropped exactly once with the world.
    drop((soa_schedule, whole_schedule));
    let (sd, wd) = (
        soa.resource::<Drops>().clone(),
        whole.resource::<Drops>().clone(),
    );
    drop(soa);
    drop(whole);
    assert_eq!(sd.sorted(), wd.sorted(), "seed {seed}: final drops");
}

#[test]
fn an_soa_world_equals_a_whole_world_step_by_step() {
    for seed in 1..=6 {
        differential(seed, 400);
    }
}

// ---------------------------------------------------------------------
// Targeted corners.
// ---------------------------------------------------------------------

/// Runs `schedule` on a clone of `world` under every executor: sequential,
/// adaptive, and forced parallel on 1, 2 and 4 threads; returns each
/// result's rows and checksum.
fn every_mode(
    world: &World<SoaWorld>,
    mut schedule: impl FnMut() -> Schedule<SoaWorld>,
    runs: usize,
) -> Vec<(Vec<Row>, u128)> {
    (0..5)
        .map(|mode| {
            let mut w = world.clone();
            let mut s = schedule();
            for _ in 0..runs {
                run_soa(&mut s, &mut w, mode);
            }
            (soa_rows(&w), w.checksum())
        })
        .collect()
}

#[test]
fn the_schedule_gives_one_result_under_every_executor() {
    for seed in 1..=3 {
        let mut rng = Rng::new(seed);
        let mut world = World::<SoaWorld>::new();
        let drops = world.resource::<Drops>().clone();
        for i in 0..300 {
            match rng.below(4) {
                0 => world.spawn((pos(i), Label::new(i, &drops))),
                1 => world.spawn((pos(i), Vel(i as i32), aux(i))),
                2 => world.spawn((pos(i), Frozen, Label::new(i, &drops))),
                _ => world.spawn((Vel(i as i32), Label::new(i, &drops))),
            };
        }
        let results = every_mode(&world, soa_schedule, 6);
        for (mode, result) in results.iter().enumerate().skip(1) {
            assert_eq!(result, &results[0], "seed {seed}: mode {mode}");
        }
        // The whole world, in program order, agrees.
        let mut whole = World::<WholeWorld>::new();
        let wd = whole.resource::<Drops>().clone();
        let mut rng = Rng::new(seed);
        for i in 0..300 {
            match rng.below(4) {
                0 => whole.spawn((pos(i), Label::new(i, &wd))),
                1 => whole.spawn((pos(i), Vel(i as i32), aux(i))),
                2 => whole.spawn((pos(i), Frozen, Label::new(i, &wd))),
                _ => whole.spawn((Vel(i as i32), Label::new(i, &wd))),
            };
        }
        let mut schedule = whole_schedule();
        for _ in 0..6 {
            schedule.run_sequential(&mut whole);
        }
        assert_eq!(results[0].0, whole_rows(&whole), "seed {seed}: whole");
        assert_eq!(results[0].1, whole.checksum(), "seed {seed}: checksum");
        assert!(
            results[0].0.len() > 100,
            "seed {seed}: the schedule kept rows"
        );
    }
}

#[derive(Schema)]
struct Fresh {
    #[ecs(soa, track)]
    pos: Pos,
    #[ecs(soa)]
    aux: Aux,
    vel: Vel,
    label: Label,
    frozen: Frozen,
    #[ecs(resource)]
    drops: Drops,
}

#[derive(Schema)]
struct FreshWhole {
    #[ecs(track)]
    pos: Pos,
    aux: Aux,
    vel: Vel,
    label: Label,
    frozen: Frozen,
    #[ecs(resource)]
    drops: Drops,
}

/// A spawner whose bundle's table does not exist before the run, beside a
/// writer of another table in the same stage, whose commands name the new
/// entities; under every executor, against the same on whole storage.
macro_rules! fresh_spawner_run {
    ($schema:ident, $pw:ty) => {{
        fn emit(
            movers: Query<&Vel>,
            mut spawner: Spawner<$schema, (Pos, Aux, Label)>,
            mut commands: Commands<$schema>,
            drops: Res<Drops>,
        ) {
            for v in movers.iter() {
                let i = v.0 as u64;
                let e = spawner.spawn((pos(i), aux(i), Label::new(1000 + i, &drops)));
                if i % 2 == 0 {
                    commands.insert(e, (Frozen,));
                }
                if i % 3 == 0 {
                    commands.remove::<Aux>(e);
                }
            }
        }
        fn fly(mut movers: Query<$pw, With<Vel>>) {
            movers.for_each_mut(|mut p| p.bump_x(1));
        }
        fn emit_chunks(
            mut movers: Query<&Vel, Without<Frozen>>,
            mut spawner: UnnamedSpawner<$schema, (Pos, Vel, Frozen)>,
        ) {
            movers.par_for_each_mut_with(&mut spawner, |spawner, v| {
                if v.0 < 1000 && v.0 % 4 == 0 {
                    spawner.spawn((pos(v.0 as u64 + 7), Vel(v.0 + 1000), Frozen));
                }
            });
        }
        let mut results = Vec::new();
        for mode in 0..5u64 {
            let mut world = World::<$schema>::new();
            let drops = world.resource::<Drops>().clone();
            for i in 0..40 {
                world.spawn((Vel(i), pos(i as u64), Label::new(i as u64, &drops)));
            }
            let mut schedule = Schedule::<$schema>::new();
            schedule.add(emit).add(fly).add(emit_chunks);
            for _ in 0..2 {
                match mode {
                    0 => schedule.run_sequential(&mut world),
                    1 => schedule.force_parallel(None).run(&mut world),
                    m => {
                        let threads = [1, 2, 4][(m as usize - 2) % 3];
                        on_threads(threads, || {
                            schedule.force_parallel(Some(true)).run(&mut world)
                        });
                    }
                }
            }
            let mut rows: Vec<(Entity, Option<Pos>, Option<Aux>, Option<u64>, bool)> = world
                .query::<(Entity, Has<Frozen>)>()
                .iter()
                .map(|(e, frozen)| {
                    (
                        e,
                        read_pos_any(&world, e),
                        read_aux_any(&world, e),
                        world.get::<Label>(e).map(|l| l.id),
                        frozen,
                    )
                })
                .collect();
            rows.sort_by_key(|r| r.0);
            let len = world.len();
            drop(world);
            results.push((rows, len, drops.sorted()));
        }
        results
    }};
}

/// `Pos` of either schema, whole.
trait AnyPos<S: Schema> {
    fn pos_of(world: &World<S>, e: Entity) -> Option<Pos>;
    fn aux_of(world: &World<S>, e: Entity) -> Option<Aux>;
}
impl AnyPos<Fresh> for Fresh {
    fn pos_of(world: &World<Fresh>, e: Entity) -> Option<Pos> {
        world.get_soa::<Pos>(e).map(|p| p.get())
    }
    fn aux_of(world: &World<Fresh>, e: Entity) -> Option<Aux> {
        world.get_soa::<Aux>(e).map(|a| a.get())
    }
}
impl AnyPos<FreshWhole> for FreshWhole {
    fn pos_of(world: &World<FreshWhole>, e: Entity) -> Option<Pos> {
        world.get::<Pos>(e).copied()
    }
    fn aux_of(world: &World<FreshWhole>, e: Entity) -> Option<Aux> {
        world.get::<Aux>(e).copied()
    }
}
fn read_pos_any<S: Schema + AnyPos<S>>(world: &World<S>, e: Entity) -> Option<Pos> {
    S::pos_of(world, e)
}
fn read_aux_any<S: Schema + AnyPos<S>>(world: &World<S>, e: Entity) -> Option<Aux> {
    S::aux_of(world, e)
}

#[test]
fn a_spawner_into_a_table_made_by_the_run_equals_whole_storage() {
    let soa = fresh_spawner_run!(Fresh, Fields<&mut Pos>);
    let whole = fresh_spawner_run!(FreshWhole, &mut Pos);
    for (mode, result) in soa.iter().enumerate() {
        assert_eq!(result, &whole[0], "soa mode {mode} vs whole sequential");
    }
    for (mode, result) in whole.iter().enumerate() {
        assert_eq!(result, &whole[0], "whole mode {mode}");
    }
    // The spawner's rows arrived, with their values, and every label
    // was dropped exactly once.
    let (rows, len, drops) = &soa[0];
    assert!(rows.iter().any(|r| r.3 == Some(1004) && r.4));
    assert_eq!(rows.len(), *len);
    // Labels 0..40 were spawned once; the emitter spawned 1000..1040 in
    // each of the two runs, and 2000 + 4k in the second for the rows of
    // the unnamed spawner.
    let times = |id: u64| drops.iter().filter(|&&d| d == id).count();
    assert!((0..40).all(|id| times(id) == 1), "{drops:?}");
    assert!((1000..1040).all(|id| times(id) == 2), "{drops:?}");
    assert!((0..10).all(|k| times(2000 + 4 * k) == 1), "{drops:?}");
    assert_eq!(drops.len(), 40 + 80 + 10, "every label dropped");
}

// A component whose struct has drop glue of its own (`impl Drop`) was
// dropped on every push and read-out when stored field by field; the
// derive now refuses it (tests/ui/fail/soa_rejects_type_with_drop.rs).

/// Migrators that move rows holding SoA components and a label with drop
/// glue: tags on, the SoA `Aux` on and off, the tracked SoA `Pos`
/// overwritten and removed; per chunk and whole. Same as whole storage.
macro_rules! migrate_run {
    ($schema:ident, $ar:ty, $threads:expr) => {{
        fn tag_and_aux(
            mut q: Query<(Entity, &Vel, Option<$ar>)>,
            mut frozen: Migrator<$schema, Frozen, With<Vel>>,
        ) {
            for (e, v, a) in q.iter_mut() {
                if v.0 % 3 == 0 {
                    frozen.insert(e, Frozen).unwrap();
                } else if a.is_some() && v.0 % 3 == 1 {
                    frozen.remove(e).unwrap();
                }
            }
        }
        fn pos_chunks(
            mut q: Query<(Entity, &Label), Without<Vel>>,
            mut mover: Migrator<$schema, Pos, Without<Vel>>,
        ) {
            q.par_for_each_mut_with(&mut mover, |mover, (e, l)| match l.id % 3 {
                0 => mover.insert(e, pos(l.id + 500)).unwrap(),
                1 => mover.remove(e).unwrap(),
                _ => {}
            });
        }
        fn aux_chunks(mut q: Query<(Entity, &Vel)>, mut mover: Migrator<$schema, Aux, With<Vel>>) {
            q.par_for_each_mut_with(&mut mover, |mover, (e, v)| {
                if v.0 % 2 == 0 {
                    mover.insert(e, aux(v.0 as u64)).unwrap();
                } else {
                    mover.remove(e).unwrap();
                }
            });
        }
        let mut world = World::<$schema>::new();
        let drops = world.resource::<Drops>().clone();
        for i in 0..60u64 {
            if i % 2 == 0 {
                world.spawn((pos(i), Vel(i as i32), Label::new(i, &drops)));
            } else if i % 5 == 0 {
                world.spawn((Label::new(i, &drops),));
            } else {
                world.spawn((pos(i), aux(i), Label::new(i, &drops)));
            }
        }
        let mut schedule = Schedule::<$schema>::new();
        schedule.add(tag_and_aux).add(pos_chunks).add(aux_chunks);
        for _ in 0..3 {
            on_threads($threads, || {
                schedule.force_parallel(Some(true)).run(&mut world)
            });
        }
        let mut rows: Vec<(Entity, Option<Pos>, Option<Aux>, Option<u64>, bool)> = world
            .query::<(Entity, Has<Frozen>)>()
            .iter()
            .map(|(e, frozen)| {
                (
                    e,
                    read_pos_any(&world, e),
                    read_aux_any(&world, e),
                    world.get::<Label>(e).map(|l| l.id),
                    frozen,
                )
            })
            .collect();
        rows.sort_by_key(|r| r.0);
        let during = drops.sorted();
        drop(world);
        (rows, during, drops.sorted())
    }};
}

#[test]
fn migrators_move_soa_rows_with_drop_glue_as_whole_storage_does() {
    let whole = migrate_run!(FreshWhole, &Aux, 1);
    assert!(whole.1.is_empty(), "no label dropped by a move");
    assert_eq!(whole.2, (0..60).collect::<Vec<u64>>());
    for threads in [1, 2, 4] {
        let soa = migrate_run!(Fresh, Fields<&Aux>, threads);
        assert_eq!(soa, whole, "{threads} threads");
    }
}

/// `despawn_batch` of rows that a swap-remove moves before their turn: every
/// order of despawning a table's last rows and some before them.
#[test]
fn despawn_batch_of_rows_swapped_in_equals_whole_storage() {
    let orders: [&[usize]; 6] = [
        &[0, 9, 8],
        &[9, 0, 8, 1],
        &[0, 1, 2, 9],
        &[5, 9, 5, 8, 7],
        &[8, 0, 9, 3, 4, 2],
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    ];
    for order in orders {
        let mut soa = World::<Fresh>::new();
        let mut whole = World::<FreshWhole>::new();
        let (sd, wd) = (
            soa.resource::<Drops>().clone(),
            whole.resource::<Drops>().clone(),
        );
        let mut ids = Vec::new();
        for i in 0..10u64 {
            let a = soa.spawn((pos(i), aux(i), Label::new(i, &sd)));
            assert_eq!(a, whole.spawn((pos(i), aux(i), Label::new(i, &wd))));
            ids.push(a);
            // A second table interleaved, to check it is left alone.
            soa.spawn((pos(100 + i), Label::new(100 + i, &sd)));
            whole.spawn((pos(100 + i), Label::new(100 + i, &wd)));
        }
        let batch: Vec<Entity> = order.iter().map(|&k| ids[k]).collect();
        assert_eq!(soa.despawn_batch(&batch), whole.despawn_batch(&batch));
        assert_eq!(sd.sorted(), wd.sorted(), "{order:?}: drops");
        let soa_rows: Vec<(Entity, Pos, Aux, u64)> = soa
            .query::<(Entity, Fields<&Pos>, Fields<&Aux>, &Label)>()
            .iter()
            .map(|(e, p, a, l)| (e, p.get(), a.get(), l.id))
            .collect();
        let whole_rows: Vec<(Entity, Pos, Aux, u64)> = whole
            .query::<(Entity, &Pos, &Aux, &Label)>()
            .iter()
            .map(|(e, p, a, l)| (e, *p, *a, l.id))
            .collect();
        assert_eq!(soa_rows, whole_rows, "{order:?}: rows");
        for (e, p, a, l) in &soa_rows {
            assert_eq!((p.id, a.a as u64), (l.wrapping_mul(0x9e37_79b9), *l));
            assert!(soa.is_alive(*e));
        }
        assert_eq!(soa.len(), whole.len());
    }
}

/// Which entities a reader sees as `Changed<Pos>` after writes that
/// touch some rows: per entity through a query item, `get_soa_mut`
/// (written and not), the table form and a parallel loop.
macro_rules! changed_after_writes {
    ($schema:ident, $pw:ty, |$w:ident, $e:ident| $get_mut:expr) => {{
        let seen: Arc<Mutex<Vec<Vec<Entity>>>> = Arc::default();
        let log = seen.clone();
        let mut world = World::<$schema>::new();
        let ids: Vec<Entity> = (0..12u64)
            .map(|i| {
                if i % 3 == 0 {
                    world.spawn((pos(i), Frozen))
                } else {
                    world.spawn((pos(i), aux(i)))
                }
            })
            .collect();
        let mut schedule = Schedule::<$schema>::new();
        schedule.add(move |changed: Query<Entity, Changed<Pos>>| {
            let mut v: Vec<Entity> = changed.iter().collect();
            v.sort();
            log.lock().unwrap().push(v);
        });
        schedule.run(&mut world);
        // Per entity, through a query item: one written, one only looked at.
        {
            let mut q = world.query_mut::<$pw>();
            q.get_mut(ids[1]).unwrap().bump_x(1);
            let _ = q.get_mut(ids[2]).unwrap().val();
        }
        // Through the world: one written, one only looked at.
        {
            let ($w, $e) = (&mut world, ids[4]);
            $get_mut.bump_x(2);
        }
        {
            let ($w, $e) = (&mut world, ids[5]);
            let _ = $get_mut.val();
        }
        schedule.run(&mut world);
        // The table form on the frozen rows, a parallel loop on the rest.
        world
            .query_filtered_mut::<$pw, With<Frozen>>()
            .for_each_table_mut(|_, mut rows| {
                for row in 0..rows.rows() {
                    rows.bump(row, 3);
                }
            });
        schedule.run(&mut world);
        on_threads(2, || {
            world
                .query_filtered_mut::<(Entity, $pw), With<Aux>>()
                .par_for_each_mut(|(e, mut p)| {
                    if e.index() % 2 == 0 {
                        p.bump_x(4);
                    }
                })
        });
        schedule.run(&mut world);
        let positions: Vec<Option<Pos>> = ids.iter().map(|&e| read_pos_any(&world, e)).collect();
        let log = seen.lock().unwrap().clone();
        (log, positions, world.checksum())
    }};
}

#[test]
fn tracked_soa_writes_are_changes_as_tracked_whole_writes_are() {
    let soa = changed_after_writes!(Fresh, Fields<&mut Pos>, |w, e| w
        .get_soa_mut::<Pos>(e)
        .unwrap());
    let whole = changed_after_writes!(FreshWhole, &mut Pos, |w, e| w.get_mut::<Pos>(e).unwrap());
    assert_eq!(soa.0, whole.0, "Changed<Pos> per run");
    assert_eq!(soa.1, whole.1, "values");
    assert_eq!(soa.2, whole.2, "checksum");
    assert_eq!(soa.0.len(), 4);
    assert!(soa.0[1].len() >= 2 && !soa.0[2].is_empty() && !soa.0[3].is_empty());
}

/// A panic in the middle of a `Fields<&mut Pos>` loop with recorded
/// commands (whose bundles hold labels): each label is dropped once, the
/// arrays stay in step, and the world goes on as the whole one does.
macro_rules! panic_in_loop {
    ($schema:ident, $pw:ty, $threads:expr) => {{
        let mut world = World::<$schema>::new();
        let drops = world.resource::<Drops>().clone();
        for i in 0..64u64 {
            world.spawn((pos(i), aux(i), Label::new(i, &drops)));
        }
        let mut schedule = Schedule::<$schema>::new();
        schedule.add(
            |mut q: Query<(Entity, $pw, &Label)>, mut commands: Commands<$schema>| {
                q.par_for_each_mut_with(&mut commands, |commands, (e, mut p, l)| {
                    p.bump_x(7);
                    commands.spawn((pos(l.id + 1000), Label::new(l.id + 1000, &l.drops)));
                    commands.remove::<Aux>(e);
                    if l.id == 40 {
                        panic!("boom at 40");
                    }
                });
            },
        );
        let result = catch_unwind(AssertUnwindSafe(|| {
            on_threads($threads, || {
                schedule.force_parallel(Some(true)).run(&mut world)
            })
        }));
        assert!(result.is_err(), "the system panicked");
        let after_panic = drops.sorted();
        let len = world.len();
        let mut rows: Vec<(Entity, Option<Pos>, Option<Aux>, Option<u64>)> = world
            .query::<Entity>()
            .iter()
            .map(|e| {
                let label = world.get::<Label>(e).map(|l| l.id);
                // Which rows a chunk wrote before the panic depends on the
                // threads; each row is either untouched or written once.
                let p = read_pos_any(&world, e).map(|p| {
                    let before = pos(label.unwrap());
                    assert!(
                        p == before
                            || p == Pos {
                                x: before.x + 7,
                                ..before
                            },
                        "{e:?}: {p:?}"
                    );
                    before
                });
                (e, p, read_aux_any(&world, e), label)
            })
            .collect();
        rows.sort_by_key(|r| r.0);
        // The world goes on: a despawn of everything, then a drop.
        let all: Vec<Entity> = rows.iter().map(|r| r.0).collect();
        assert_eq!(world.despawn_batch(&all), all.len());
        drop(world);
        (after_panic, len, rows, drops.sorted())
    }};
}

#[test]
fn a_panic_inside_a_fields_loop_drops_each_value_once() {
    for threads in [1, 2, 4] {
        let soa = panic_in_loop!(Fresh, Fields<&mut Pos>, threads);
        let whole = panic_in_loop!(FreshWhole, &mut Pos, threads);
        assert_eq!(soa.1, whole.1, "{threads} threads: len");
        assert_eq!(soa.2, whole.2, "{threads} threads: rows");
        // Which chunks recorded their spawns before the panic depends on the
        // threads, so the two runs drop different spawned labels: each run
        // drops every label it made exactly once, none leaked.
        for (drops, what) in [(&soa.3, "soa"), (&whole.3, "whole")] {
            let mut once = drops.clone();
            once.dedup();
            assert_eq!(
                &once, drops,
                "{threads} threads, {what}: a label dropped twice"
            );
            assert!(
                (0..64).all(|id| drops.contains(&id)),
                "{threads} threads, {what}: a label leaked"
            );
            assert!(
                drops
                    .iter()
                    .all(|&id| id < 64 || (1000..1064).contains(&id)),
                "{threads} threads, {what}: {drops:?}"
            );
        }
    }
}
