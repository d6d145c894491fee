//! Replays after a restore: state that could escape a snapshot.
//!
//! Each test builds a world and a runner (a schedule or a game loop), runs
//! N frames, takes a snapshot, runs M more frames on the original, then
//! replays those M frames from the snapshot in every way a game restores
//! one: `clone_from` into the original world under the same (used)
//! schedule, a copy under a new schedule, a world that another schedule ran
//! on made a copy with `clone_from`, and (feature `serde`) a save loaded
//! under a new schedule. Every replay must observe what the original did,
//! frame by frame: the systems' log, the entities alive, the checksum. The
//! same is done with `run_sequential` and with `run` on pools of 1, 2 and 4
//! threads, and all of those must agree too.
//!
//! `cargo test -p ecs-tests --test saves -- replay::`
//! `cargo test -p ecs-tests --features serde --test saves -- replay::`

use core::time::Duration;
use ecs::checksum::StableHash;
use ecs::command::{CommandBuffer, Despawner, Migrator, SparseMut, Spawner, UnnamedSpawner};
use ecs::condition::{on_event, resource_changed};
use ecs::prelude::*;
use ecs::query::Fields;
use ecs::world::DeferredWorld;
use support::{on_threads, SavedOrLocal};

// ---------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------

/// What advances a world by one frame.
trait Runner<S: Schema> {
    fn frame(&mut self, world: &mut World<S>, frame: usize, sequential: bool);
    fn force_parallel(&mut self);
}

impl<S: ecs::schedule::SendSchema> Runner<S> for Schedule<S> {
    fn frame(&mut self, world: &mut World<S>, _: usize, sequential: bool) {
        if sequential {
            self.run_sequential(world);
        } else {
            self.run(world);
        }
    }
    fn force_parallel(&mut self) {
        Schedule::force_parallel(self, Some(true));
    }
}

/// A game loop fed a fixed pattern of frame times.
struct Looped<S: Schema> {
    game: GameLoop<S>,
    times: &'static [u64],
}

impl<S: ecs::schedule::SendSchema> Runner<S> for Looped<S>
where
    FixedTime: ecs::schema::Resource<S>,
{
    fn frame(&mut self, world: &mut World<S>, frame: usize, sequential: bool) {
        let elapsed = Duration::from_millis(self.times[frame % self.times.len()]);
        if sequential {
            self.game.run_frame_sequential(world, elapsed);
        } else {
            self.game.run_frame(world, elapsed);
        }
    }
    fn force_parallel(&mut self) {
        self.game.fixed().force_parallel(Some(true));
        self.game.frame().force_parallel(Some(true));
    }
}

/// One test case: how to make the world and the runner, what to do to the
/// world before each frame (inputs, writes from outside systems), what to
/// observe after each frame, and where to take the snapshot.
struct Case<S: Schema, R> {
    world: fn() -> World<S>,
    runner: fn() -> R,
    drive: fn(&mut World<S>, usize),
    observe: fn(&World<S>) -> String,
    /// Frames before the snapshot (the snapshot is taken after `drive` of
    /// frame `n`, before its run).
    n: usize,
    /// Frames replayed.
    m: usize,
    /// Asserts something about the snapshot, so that the test is known to
    /// cover what it is about (a pending transition, unread events, ...).
    at_snapshot: fn(&World<S>),
}

/// What one frame showed.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    frame: usize,
    observed: String,
    entities: Vec<Entity>,
    checksum: u128,
}

type Reload<S> = fn(&World<S>) -> Vec<(&'static str, World<S>)>;

#[derive(Clone, Copy, Debug)]
#[allow(dead_code, reason = "shown in messages")]
enum Mode {
    Sequential,
    /// `run`, every stage handed to the pool.
    Threads(usize),
    /// `run`, the executor deciding from its measurements.
    Auto(usize),
}

fn replay<S: Schema + ecs::checksum::ChecksumSchema, R: Runner<S>>(
    case: &Case<S, R>,
    world: &mut World<S>,
    runner: &mut R,
    sequential: bool,
) -> Vec<Seen> {
    let mut seen = Vec::new();
    for i in case.n..case.n + case.m {
        if i > case.n {
            (case.drive)(world, i);
        }
        runner.frame(world, i, sequential);
        seen.push(Seen {
            frame: i,
            observed: (case.observe)(world),
            entities: world.iter().collect(),
            checksum: world.checksum(),
        });
    }
    seen
}

fn first_difference(a: &[Seen], b: &[Seen]) -> String {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return format!(
                "first difference at frame {}:\n  original: {x:?}\n  replay:   {y:?}",
                x.frame
            );
        }
    }
    format!("lengths {} vs {}", a.len(), b.len())
}

fn run_mode<S, R>(case: &Case<S, R>, mode: Mode, reload: Reload<S>) -> Vec<Seen>
where
    S: Schema + ecs::checksum::ChecksumSchema,
    World<S>: Clone,
    R: Runner<S>,
{
    let sequential = matches!(mode, Mode::Sequential);
    let new_runner = || {
        let mut runner = (case.runner)();
        if matches!(mode, Mode::Threads(_)) {
            runner.force_parallel();
        }
        runner
    };
    let mut world = (case.world)();
    let mut runner = new_runner();
    for i in 0..case.n {
        (case.drive)(&mut world, i);
        runner.frame(&mut world, i, sequential);
    }
    (case.drive)(&mut world, case.n);
    let snapshot = world.clone();
    let sum = world.checksum();
    assert_eq!(snapshot.checksum(), sum, "{mode:?}: a clone's checksum");
    (case.at_snapshot)(&snapshot);

    // A ring slot that held an older state, refilled with `clone_from`.
    let mut slot = (case.world)();
    {
        let mut other = new_runner();
        for i in 0..case.n / 2 + 1 {
            (case.drive)(&mut slot, i);
            other.frame(&mut slot, i, sequential);
        }
    }
    slot.clone_from(&world);
    assert_eq!(slot.checksum(), sum, "{mode:?}: clone_from's checksum");

    let original = replay(case, &mut world, &mut runner, sequential);

    // 1. Roll the original world back in place; the same, used, runner.
    world.clone_from(&slot);
    assert_eq!(world.checksum(), sum, "{mode:?}: rolled back checksum");
    let again = replay(case, &mut world, &mut runner, sequential);
    assert!(
        again == original,
        "{mode:?}: clone_from + the same schedule diverges: {}",
        first_difference(&original, &again)
    );

    // 2. A copy under a new runner.
    let mut copy = snapshot.clone();
    let mut fresh = new_runner();
    let copied = replay(case, &mut copy, &mut fresh, sequential);
    assert!(
        copied == original,
        "{mode:?}: a copy + a new schedule diverges: {}",
        first_difference(&original, &copied)
    );

    // 3. A world another runner ran further, made the snapshot by
    //    `clone_from`; that runner goes on.
    let mut dirty = (case.world)();
    let mut used = new_runner();
    for i in 0..case.n + case.m + 3 {
        (case.drive)(&mut dirty, i);
        used.frame(&mut dirty, i, sequential);
    }
    dirty.clone_from(&snapshot);
    assert_eq!(
        dirty.checksum(),
        sum,
        "{mode:?}: clone_from into a used world"
    );
    let reused = replay(case, &mut dirty, &mut used, sequential);
    assert!(
        reused == original,
        "{mode:?}: clone_from into a world another schedule ran, that schedule going on, diverges: {}",
        first_difference(&original, &reused)
    );

    // 4. Loads (feature serde), under a new runner and under the used one.
    for (format, mut loaded) in reload(&snapshot) {
        assert_eq!(loaded.checksum(), sum, "{mode:?}: {format} load's checksum");
        let mut fresh = new_runner();
        let seen = replay(case, &mut loaded, &mut fresh, sequential);
        assert!(
            seen == original,
            "{mode:?}: a {format} load + a new schedule diverges: {}",
            first_difference(&original, &seen)
        );
    }
    original
}

/// Runs the case in every mode, each replayed every way; all must agree.
fn check<S, R>(case: Case<S, R>, reload: Reload<S>)
where
    S: Schema + ecs::checksum::ChecksumSchema,
    World<S>: Clone + Send,
    R: Runner<S>,
    Case<S, R>: Sync,
{
    let reference = run_mode(&case, Mode::Sequential, reload);
    for threads in [1, 2, 4] {
        let seen = on_threads(threads, || run_mode(&case, Mode::Threads(threads), reload));
        assert!(
            seen == reference,
            "run on {threads} threads differs from run_sequential: {}",
            first_difference(&reference, &seen)
        );
    }
    let seen = on_threads(2, || run_mode(&case, Mode::Auto(2), reload));
    assert!(
        seen == reference,
        "run (unforced) on 2 threads differs from run_sequential: {}",
        first_difference(&reference, &seen)
    );
}

#[cfg(feature = "serde")]
fn loads<S: Schema>(world: &World<S>) -> Vec<(&'static str, World<S>)>
where
    World<S>: serde::Serialize + serde::de::DeserializeOwned,
{
    let json = serde_json::to_string(world).expect("json save");
    let bytes = postcard::to_allocvec(world).expect("postcard save");
    vec![
        ("json", serde_json::from_str(&json).expect("json load")),
        (
            "postcard",
            postcard::from_bytes(&bytes).expect("postcard load"),
        ),
    ]
}

/// The loads of `world` with feature `serde`, none without.
macro_rules! reload {
    ($schema:ty) => {{
        #[cfg(feature = "serde")]
        {
            loads::<$schema> as Reload<$schema>
        }
        #[cfg(not(feature = "serde"))]
        {
            (|_: &World<$schema>| Vec::new()) as Reload<$schema>
        }
    }};
}

fn nothing<S: Schema>(_: &World<S>) {}

#[derive(Clone, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Log(pub Vec<String>);

/// The frame number, set by the driver before each frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame(pub u64);

// ---------------------------------------------------------------------------
// 1. Local<T> (SavedLocal<T> with feature `serde`) in systems and in run conditions
// ---------------------------------------------------------------------------

mod locals {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Val(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Ping(pub u64);
    #[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Score(pub u64);

    #[derive(Schema)]
    pub struct Cond {
        val: Val,
        #[ecs(event)]
        ping: Ping,
        #[ecs(resource)]
        score: Score,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    fn counter(
        mut runs: SavedOrLocal<u64>,
        mut seen: SavedOrLocal<Vec<u64>>,
        mut log: ResMut<Log>,
        f: Res<Frame>,
    ) {
        *runs += 1;
        seen.push(f.0 * 10 + *runs % 7);
        if seen.len() > 4 {
            seen.remove(0);
        }
        log.0.push(format!("counter {} {:?}", *runs, *seen));
    }

    pub fn every_third(mut n: SavedOrLocal<u32>) -> bool {
        *n += 1;
        *n % 3 == 0
    }

    fn every_other(mut n: SavedOrLocal<u8>) -> bool {
        *n = n.wrapping_add(1);
        *n % 2 == 0
    }

    fn odd_frame(f: Res<Frame>) -> bool {
        f.0 % 2 == 1
    }

    pub fn note(name: &'static str) -> impl FnMut(SavedOrLocal<u32>, ResMut<Log>) + Send + 'static {
        move |mut runs: SavedOrLocal<u32>, mut log: ResMut<Log>| {
            *runs += 1;
            log.0.push(format!("{name} #{}", *runs));
        }
    }

    fn pinger(f: Res<Frame>, mut pings: EventWriter<Ping>, mut score: ResMut<Score>) {
        if f.0 % 4 == 1 {
            pings.send(Ping(f.0));
        }
        if f.0 % 5 == 2 {
            score.0 += 1;
        }
    }

    fn listener(pings: EventReader<Ping>, mut sum: SavedOrLocal<u64>, mut log: ResMut<Log>) {
        for ping in pings.read() {
            *sum += ping.0;
        }
        log.0.push(format!("listener {}", *sum));
    }

    fn grow(mut q: Query<&mut Val>, mut calls: SavedOrLocal<i64>) {
        *calls += 1;
        let c = *calls;
        q.for_each_mut(|v| v.0 = v.0 * 3 % 1009 + c);
    }

    pub fn schedule() -> Schedule<Cond> {
        let mut s = Schedule::<Cond>::new();
        s.add(counter)
            .add_named("third", note("third").run_if(every_third))
            .add_named(
                "third and odd",
                note("third and odd").run_if(every_third.and(odd_frame)),
            )
            .add_named(
                "not other or ping",
                note("not other or ping").run_if(not(every_other).or(on_event::<Ping>())),
            )
            .add_named("score", note("score").run_if(resource_changed::<Score>()))
            .add_named("listener early", listener.run_if(every_other))
            .add(pinger)
            .add(listener)
            .add(grow.run_if(not(every_third)));
        s
    }

    pub fn world() -> World<Cond> {
        let mut w = World::<Cond>::new();
        w.spawn_batch((0..5).map(|i| (Val(i),))).for_each(drop);
        w
    }

    pub fn drive(w: &mut World<Cond>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
    }

    pub fn observe(w: &World<Cond>) -> String {
        let vals: Vec<i64> = w.query::<&Val>().iter().map(|v| v.0).collect();
        format!("{:?} {:?}", w.resource::<Log>().0, vals)
    }
}

#[test]
fn locals_in_systems_and_conditions_survive_every_restore() {
    for (n, m) in [(0, 9), (1, 7), (4, 11), (7, 6)] {
        check(
            Case {
                world: locals::world,
                runner: locals::schedule,
                drive: locals::drive,
                observe: locals::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(locals::Cond),
        );
    }
}

/// Two worlds that differ only in a system's `Local` (or a condition's)
/// have different checksums.
#[test]
fn a_local_and_a_condition_local_are_in_the_checksum() {
    use locals::*;
    let mut a = world();
    let mut b = world();
    let mut s1 = Schedule::<Cond>::new();
    s1.add(note("x").run_if(every_third));
    let mut s2 = Schedule::<Cond>::new();
    s2.add(note("x").run_if(every_third));
    s1.run(&mut a);
    s2.run(&mut b);
    assert_eq!(a.checksum(), b.checksum());
    // every_third's local now 2 in a, 1 in b; neither ran `note`.
    s1.run(&mut a);
    *b.resource_mut::<Log>() = a.resource::<Log>().clone();
    assert_ne!(
        a.checksum(),
        b.checksum(),
        "a condition's Local is not in the checksum"
    );
    s2.run(&mut b);
    s1.run(&mut a);
    s2.run(&mut b);
    assert_eq!(a.resource::<Log>(), b.resource::<Log>());
    assert_eq!(a.checksum(), b.checksum());

    let mut c = world();
    let mut d = world();
    let mut s3 = Schedule::<Cond>::new();
    s3.add_named("x", note("x"));
    s3.run(&mut c);
    s3.run(&mut d);
    s3.run(&mut d);
    *c.resource_mut::<Log>() = Log::default();
    *d.resource_mut::<Log>() = Log::default();
    assert_ne!(
        c.checksum(),
        d.checksum(),
        "a system's Local is not in the checksum"
    );
}

// ---------------------------------------------------------------------------
// 2. States and transitions, a snapshot with a transition pending
// ---------------------------------------------------------------------------

mod states {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Pos(pub i64);
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub enum Phase {
        #[default]
        Menu,
        Playing,
        Paused,
    }
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub enum Music {
        #[default]
        Quiet,
        Loud,
    }
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Bang(pub u64);

    #[derive(Schema)]
    pub struct Game {
        pos: Pos,
        #[ecs(event)]
        bang: Bang,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
        #[ecs(state)]
        phase: Phase,
        #[ecs(state)]
        music: Music,
    }

    /// A script of inputs, by frame.
    fn wanted(frame: u64) -> Option<Phase> {
        match frame % 9 {
            1 => Some(Phase::Playing),
            4 => Some(Phase::Paused),
            5 => Some(Phase::Playing),
            7 => Some(Phase::Menu),
            8 => Some(Phase::Playing),
            _ => None,
        }
    }

    fn controls(
        f: Res<Frame>,
        mut next: NextState<Phase>,
        mut music: NextState<Music>,
        mut log: ResMut<Log>,
    ) {
        log.0.push(format!("frame {} in {:?}", f.0, next.current()));
        if let Some(p) = wanted(f.0) {
            next.set(p);
        }
        if f.0 % 5 == 3 {
            music.set(if f.0 % 2 == 0 {
                Music::Quiet
            } else {
                Music::Loud
            });
        }
    }

    fn spawn_level(
        mut commands: Commands<Game>,
        mut levels: SavedOrLocal<i64>,
        mut log: ResMut<Log>,
    ) {
        *levels += 1;
        let e = commands.spawn((Pos(*levels * 100),));
        log.0.push(format!("level {} as {e:?}", *levels));
    }

    fn clear_level(
        q: Query<Entity, With<Pos>>,
        mut commands: Commands<Game>,
        mut bangs: EventWriter<Bang>,
    ) {
        for e in q.iter() {
            commands.despawn(e);
        }
        bangs.send(Bang(q.count() as u64));
    }

    fn paused(mut log: ResMut<Log>, mut n: SavedOrLocal<u32>, bangs: EventReader<Bang>) {
        *n += 1;
        log.0.push(format!("paused {} ({} bangs)", *n, bangs.len()));
    }

    fn unpaused(mut log: ResMut<Log>, bangs: EventReader<Bang>) {
        log.0.push(format!(
            "unpaused, bangs {:?}",
            bangs.read().map(|b| b.0).collect::<Vec<_>>()
        ));
    }

    fn loud(mut log: ResMut<Log>, mut n: SavedOrLocal<u32>) {
        *n += 1;
        log.0.push(format!("loud {}", *n));
    }

    fn physics(mut q: Query<&mut Pos>, mut steps: SavedOrLocal<i64>) {
        *steps += 1;
        let s = *steps;
        q.for_each_mut(|p| p.0 += s);
    }

    fn menu_reader(bangs: EventReader<Bang>, mut log: ResMut<Log>) {
        log.0.push(format!("menu sees {} bangs", bangs.len()));
    }

    pub fn schedule() -> Schedule<Game> {
        let mut s = Schedule::<Game>::new();
        s.on_enter(Phase::Playing, spawn_level)
            .on_exit(Phase::Playing, clear_level)
            .on_enter(Phase::Paused, paused)
            .on_exit(Phase::Paused, unpaused)
            .on_enter(Music::Loud, loud)
            .add(controls)
            .add(physics.run_if(in_state(Phase::Playing)))
            .add(menu_reader.run_if(in_state(Phase::Menu).or(in_state(Music::Loud))));
        s
    }

    pub fn world() -> World<Game> {
        World::new()
    }

    pub fn drive(w: &mut World<Game>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
    }

    pub fn observe(w: &World<Game>) -> String {
        let p: Vec<(Entity, i64)> = w
            .query::<(Entity, &Pos)>()
            .iter()
            .map(|(e, p)| (e, p.0))
            .collect();
        format!(
            "{:?} {:?} {:?} {:?}",
            w.state::<Phase>(),
            w.state::<Music>(),
            p,
            w.resource::<Log>().0
        )
    }

    pub fn pending(w: &World<Game>) {
        assert!(
            w.resource::<State<Phase>>().pending().is_some(),
            "the snapshot is meant to hold a pending transition"
        );
    }
}

#[test]
fn states_with_a_transition_pending_at_the_snapshot_replay_exactly() {
    // controls requests at frames 1, 4, 5, 7, 8 (mod 9): a snapshot after
    // the run of such a frame holds the request.
    for (n, m) in [(2, 12), (5, 9), (6, 10), (9, 12), (14, 8)] {
        check(
            Case {
                world: states::world,
                runner: states::schedule,
                drive: states::drive,
                observe: states::observe,
                n,
                m,
                at_snapshot: states::pending,
            },
            reload!(states::Game),
        );
    }
}

#[test]
fn a_pending_transition_is_in_the_checksum() {
    use states::*;
    let a = world();
    let mut b = world();
    let sum = a.checksum();
    b.set_next_state(Phase::Paused);
    assert_ne!(b.checksum(), sum);
    let mut c = world();
    c.set_next_state(Phase::Playing);
    assert_ne!(b.checksum(), c.checksum());
}

// ---------------------------------------------------------------------------
// 3. GameLoop: the accumulator; events between the fixed and frame schedules
// ---------------------------------------------------------------------------

mod game_loop {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Pos(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Vel(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Shot(pub u64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Drawn(pub u64);

    #[derive(Schema)]
    pub struct Game {
        pos: Pos,
        vel: Vel,
        #[ecs(event)]
        shot: Shot,
        #[ecs(event)]
        drawn: Drawn,
        #[ecs(resource)]
        time: FixedTime,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    fn physics(mut q: Query<(&mut Pos, &Vel)>) {
        q.for_each_mut(|(p, v)| p.0 += v.0);
    }

    fn shoot(time: Res<FixedTime>, mut shots: EventWriter<Shot>, mut n: SavedOrLocal<u64>) {
        *n += 1;
        if time.steps() % 2 == 0 {
            shots.send(Shot(time.steps() * 1000 + *n));
        }
    }

    fn fixed_reader(
        drawn: EventReader<Drawn>,
        shots: EventReader<Shot>,
        mut log: ResMut<Log>,
        time: Res<FixedTime>,
    ) {
        log.0.push(format!(
            "step {} sees drawn {:?} shots {:?}",
            time.steps(),
            drawn.read().map(|d| d.0).collect::<Vec<_>>(),
            shots.read().map(|s| s.0).collect::<Vec<_>>()
        ));
    }

    fn draw(
        shots: EventReader<Shot>,
        mut drawn: EventWriter<Drawn>,
        mut log: ResMut<Log>,
        time: Res<FixedTime>,
        f: Res<Frame>,
    ) {
        log.0.push(format!(
            "frame {} overstep {:?} shots {:?}",
            f.0,
            time.overstep(),
            shots.read().map(|s| s.0).collect::<Vec<_>>()
        ));
        drawn.send(Drawn(f.0));
    }

    pub fn runner() -> Looped<Game> {
        let mut fixed = Schedule::<Game>::new();
        fixed.add(fixed_reader).add(physics).add(shoot);
        let mut frame = Schedule::<Game>::new();
        frame.add(draw);
        Looped {
            game: GameLoop::new(fixed, frame),
            // 20 ms steps: 0, 0, 1, 2, 0, 2, 1, 0 steps ...
            times: &[7, 9, 13, 41, 3, 50, 16, 1, 0, 33],
        }
    }

    pub fn world() -> World<Game> {
        let mut w = World::<Game>::new();
        *w.resource_mut::<FixedTime>() = FixedTime::from_hz(50).with_max_steps(2);
        w.spawn((Pos(0), Vel(1)));
        w.spawn((Pos(5), Vel(-2)));
        w
    }

    pub fn drive(w: &mut World<Game>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
    }

    pub fn observe(w: &World<Game>) -> String {
        let t = w.resource::<FixedTime>();
        let p: Vec<i64> = w.query::<&Pos>().iter().map(|p| p.0).collect();
        format!(
            "{:?} {} {:?} {:?}",
            t.overstep(),
            t.steps(),
            p,
            w.resource::<Log>().0
        )
    }

    pub fn leftover(w: &World<Game>) {
        assert!(w.resource::<FixedTime>().overstep() > Duration::ZERO);
    }
}

#[test]
fn a_game_loop_replays_its_steps_and_cross_schedule_events() {
    for (n, m) in [(1, 12), (3, 10), (4, 14), (7, 9)] {
        check(
            Case {
                world: game_loop::world,
                runner: game_loop::runner,
                drive: game_loop::drive,
                observe: game_loop::observe,
                n,
                m,
                at_snapshot: game_loop::leftover,
            },
            reload!(game_loop::Game),
        );
    }
}

#[test]
fn the_fixed_time_accumulator_is_in_the_checksum() {
    use game_loop::*;
    let mut a = World::<Game>::new();
    let mut b = World::<Game>::new();
    assert_eq!(a.checksum(), b.checksum());
    a.resource_mut::<FixedTime>()
        .advance(Duration::from_millis(3));
    b.resource_mut::<FixedTime>()
        .advance(Duration::from_millis(4));
    assert_ne!(a.checksum(), b.checksum());
}

// ---------------------------------------------------------------------------
// 4. Events read by two schedules; events sent and unread at the snapshot
// ---------------------------------------------------------------------------

mod events {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Pos(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Hit(pub u64);

    #[derive(Schema)]
    pub struct Game {
        pos: Pos,
        #[ecs(event)]
        hit: Hit,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    fn early(hits: EventReader<Hit>, mut log: ResMut<Log>) {
        log.0.push(format!(
            "early {:?}",
            hits.read().map(|h| h.0).collect::<Vec<_>>()
        ));
    }
    fn send(f: Res<Frame>, mut hits: EventWriter<Hit>) {
        if f.0 % 3 != 2 {
            hits.send(Hit(f.0 * 10));
            hits.send(Hit(f.0 * 10 + 1));
        }
    }
    fn late(hits: EventReader<Hit>, mut log: ResMut<Log>) {
        log.0.push(format!(
            "late {:?}",
            hits.read().map(|h| h.0).collect::<Vec<_>>()
        ));
    }
    fn other(hits: EventReader<Hit>, mut log: ResMut<Log>) {
        log.0.push(format!(
            "other {:?}",
            hits.read().map(|h| h.0).collect::<Vec<_>>()
        ));
    }

    /// Two schedules: `main` every frame, `rare` every third frame.
    pub struct Two {
        main: Schedule<Game>,
        rare: Schedule<Game>,
    }

    impl Runner<Game> for Two {
        fn frame(&mut self, w: &mut World<Game>, frame: usize, sequential: bool) {
            self.main.frame(w, frame, sequential);
            if frame % 3 == 0 {
                self.rare.frame(w, frame, sequential);
            }
        }
        fn force_parallel(&mut self) {
            self.main.force_parallel(Some(true));
            self.rare.force_parallel(Some(true));
        }
    }

    pub fn runner() -> Two {
        let mut main = Schedule::<Game>::new();
        main.add(early).add(send).add(late);
        let mut rare = Schedule::<Game>::new();
        rare.add(other);
        Two { main, rare }
    }

    pub fn world() -> World<Game> {
        World::new()
    }

    pub fn drive(w: &mut World<Game>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
        if i % 4 == 1 {
            w.send_event(Hit(9000 + i as u64));
        }
    }

    pub fn observe(w: &World<Game>) -> String {
        format!("{:?} kept {:?}", w.resource::<Log>().0, w.events::<Hit>())
    }

    pub fn unread(w: &World<Game>) {
        assert!(!w.events::<Hit>().is_empty());
    }
}

#[test]
fn events_of_two_schedules_and_unread_events_replay_exactly() {
    for (n, m) in [(1, 10), (2, 9), (4, 10), (5, 12), (6, 7)] {
        check(
            Case {
                world: events::world,
                runner: events::runner,
                drive: events::drive,
                observe: events::observe,
                n,
                m,
                at_snapshot: events::unread,
            },
            reload!(events::Game),
        );
    }
}

// ---------------------------------------------------------------------------
// 5. Change detection: Changed, Added, Removed, with writes from outside
//    systems between the snapshot and their reader
// ---------------------------------------------------------------------------

mod changes {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Hp(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Stun(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash, Soa)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Pos {
        pub x: i32,
        pub y: i32,
    }
    #[derive(Clone, Debug, Default, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Keep(pub Vec<Entity>);

    #[derive(Schema)]
    pub struct Game {
        #[ecs(track)]
        hp: Hp,
        #[ecs(track, sparse)]
        stun: Stun,
        #[ecs(soa, track)]
        pos: Pos,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        keep: Keep,
        #[ecs(resource)]
        frame: Frame,
    }

    fn watch(
        changed: Query<(Entity, &Hp), Changed<Hp>>,
        added: Query<Entity, Added<Hp>>,
        gone: Removed<Hp>,
        stunned: Query<Entity, Changed<Stun>>,
        unstunned: Removed<Stun>,
        moved: Query<Entity, Changed<Pos>>,
        mut log: ResMut<Log>,
    ) {
        log.0.push(format!(
            "changed {:?} added {:?} gone {:?} stun {:?} unstun {:?} moved {:?}",
            changed.iter().map(|(e, h)| (e, h.0)).collect::<Vec<_>>(),
            added.iter().collect::<Vec<_>>(),
            gone.iter().collect::<Vec<_>>(),
            stunned.iter().collect::<Vec<_>>(),
            unstunned.iter().collect::<Vec<_>>(),
            moved.iter().collect::<Vec<_>>(),
        ));
    }

    fn damage(f: Res<Frame>, mut q: Query<(Entity, &mut Hp), Without<Stun>>) {
        let k = f.0 as usize;
        for (i, (_, hp)) in q.iter_mut().enumerate() {
            if (i + k) % 3 == 0 {
                hp.0 -= 4;
            }
        }
    }

    fn reap(f: Res<Frame>, q: Query<(Entity, &Hp)>, mut commands: Commands<Game>) {
        for (e, hp) in q.iter() {
            if hp.0 <= 0 {
                commands.despawn(e);
            } else if (hp.0 as u64 + f.0) % 7 == 0 {
                commands.insert(e, (Stun(f.0 as u32),));
            } else if (hp.0 as u64 + f.0) % 5 == 0 {
                commands.remove::<Stun>(e);
            }
        }
        if f.0 % 2 == 0 {
            commands.spawn((
                Hp(10 + f.0 as i64),
                Pos {
                    x: f.0 as i32,
                    y: 0,
                },
            ));
        }
    }

    fn nudge(f: Res<Frame>, mut q: Query<Fields<&mut Pos>, With<Stun>>) {
        if f.0 % 3 == 0 {
            q.for_each_mut(|p| *p.y += 1);
        }
    }

    pub fn schedule() -> Schedule<Game> {
        let mut s = Schedule::<Game>::new();
        s.add(watch)
            .add(damage)
            .add(reap)
            .add(nudge)
            .add_named("watch late", watch);
        s
    }

    pub fn world() -> World<Game> {
        let mut w = World::<Game>::new();
        let kept: Vec<Entity> = w
            .spawn_batch((0..8).map(|i| (Hp(5 + i), Pos { x: i as i32, y: 0 })))
            .collect();
        w.resource_mut::<Keep>().0 = kept;
        w
    }

    /// Writes from outside systems: a `get_mut`, an insert, a removal,
    /// sometimes a `clear_trackers`.
    pub fn drive(w: &mut World<Game>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
        let keep = w.resource::<Keep>().0.clone();
        let e = keep[i % keep.len()];
        if let Some(hp) = w.get_mut::<Hp>(e) {
            hp.0 += 1;
        }
        let f = keep[(i * 5 + 3) % keep.len()];
        if i % 4 == 3 {
            let _ = w.insert(f, (Stun(99),));
        } else if i % 4 == 1 {
            let _ = w.remove::<Stun>(f);
        }
        if i % 6 == 5 {
            w.clear_trackers();
        }
    }

    pub fn observe(w: &World<Game>) -> String {
        let hp: Vec<(Entity, i64)> = w
            .query::<(Entity, &Hp)>()
            .iter()
            .map(|(e, h)| (e, h.0))
            .collect();
        format!("{:?} {:?}", hp, w.resource::<Log>().0.last())
    }
}

#[test]
fn change_detection_replays_with_writes_between_snapshot_and_reader() {
    for (n, m) in [(0, 8), (1, 10), (3, 9), (5, 12), (6, 8)] {
        check(
            Case {
                world: changes::world,
                runner: changes::schedule,
                drive: changes::drive,
                observe: changes::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(changes::Game),
        );
    }
}

/// A write that leaves the value as it was still shows in `Changed`: the
/// two worlds differ in what the next run observes, so their checksums must
/// differ.
#[test]
fn a_change_tick_is_in_the_checksum() {
    use changes::*;
    let mut a = world();
    let mut b = world();
    let mut s1 = schedule();
    let mut s2 = schedule();
    s1.run(&mut a);
    s2.run(&mut b);
    assert_eq!(a.checksum(), b.checksum());
    let e = a.resource::<Keep>().0[1];
    let _ = a.get_mut::<Hp>(e).unwrap();
    assert_ne!(
        a.checksum(),
        b.checksum(),
        "a write's tick is not in the checksum"
    );
}

// ---------------------------------------------------------------------------
// 6. Structural change inside systems
// ---------------------------------------------------------------------------

mod structure {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Life(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Spark(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Dust(pub u32);
    #[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Burning;
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Smoke(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Owner(pub Entity);
    #[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct ChildOf(pub Entity);
    #[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Children(pub Vec<Entity>);
    #[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Body(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Collider(pub u32);
    #[derive(Clone, Copy, Debug, Default, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct InGrid;
    #[derive(Clone, Copy, Debug, PartialEq, StableHash, Soa)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Vel {
        pub x: i32,
        pub y: i32,
    }

    fn enter_grid(world: &mut DeferredWorld<Sim>, entity: Entity) {
        if world.get::<Collider>(entity).is_some_and(|c| c.0 % 2 == 0) {
            world.commands().insert(entity, (InGrid,));
        } else {
            // A hook that spawns: an id reserved inside a hook.
            world.commands().spawn((Dust(entity.index()),));
        }
    }

    fn leave_grid(world: &mut DeferredWorld<Sim>, entity: Entity) {
        world.commands().remove::<InGrid>(entity);
    }

    #[derive(Schema)]
    pub struct Sim {
        life: Life,
        spark: Spark,
        dust: Dust,
        burning: Burning,
        #[ecs(sparse)]
        smoke: Smoke,
        owner: Owner,
        #[ecs(relation(inverse = children, on_target_despawn = despawn))]
        child_of: ChildOf,
        children: Children,
        body: Body,
        #[ecs(requires(Body), on_add = enter_grid, on_remove = leave_grid)]
        collider: Collider,
        in_grid: InGrid,
        #[ecs(soa)]
        vel: Vel,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    fn age(mut q: Query<(Entity, &mut Life)>, mut despawner: Despawner<Sim>) {
        for (e, life) in q.iter_mut() {
            life.0 -= 1;
            if life.0 == 0 {
                despawner.despawn(e);
            }
        }
    }

    /// The roots that are no spark.
    type Roots = (Without<ChildOf>, Without<Spark>);

    fn emit(
        f: Res<Frame>,
        q: Query<(Entity, &Life), Roots>,
        mut sparks: Spawner<Sim, (Spark, Life)>,
        mut log: ResMut<Log>,
    ) {
        for (e, life) in q.iter() {
            if (life.0 as u64 + f.0) % 3 == 0 {
                let id = sparks.spawn((Spark(e.index()), Life(2)));
                log.0.push(format!("spark {id:?}"));
            }
        }
    }

    fn dust(f: Res<Frame>, mut dust: UnnamedSpawner<Sim, (Dust, Vel)>) {
        if f.0 % 2 == 1 {
            dust.spawn((
                Dust(f.0 as u32),
                Vel {
                    x: 1,
                    y: f.0 as i32,
                },
            ));
        }
    }

    fn ignite(q: Query<(Entity, &Life)>, mut fire: Migrator<Sim, Burning, With<Life>>) {
        for (e, life) in q.iter() {
            if life.0 % 2 == 0 {
                fire.insert(e, Burning).unwrap();
            } else {
                fire.remove(e).unwrap();
            }
        }
    }

    fn smoulder(
        f: Res<Frame>,
        q: Query<(Entity, &Life), With<Burning>>,
        mut smoke: SparseMut<Sim, Smoke>,
    ) {
        for (e, life) in q.iter() {
            if (life.0 as u64 + f.0) % 2 == 0 {
                smoke.insert(e, Smoke(life.0)).unwrap();
            } else {
                smoke.remove(e).unwrap();
            }
        }
    }

    fn breed(
        f: Res<Frame>,
        q: Query<(Entity, &Life), Without<ChildOf>>,
        mut commands: Commands<Sim>,
    ) {
        for (e, life) in q.iter() {
            if (life.0 as u64 + f.0) % 4 == 1 {
                let child = commands.spawn((Life(3), ChildOf(e), Collider(life.0)));
                commands.insert(child, (Owner(e),));
            }
        }
        if f.0 % 5 == 0 {
            commands.spawn((Life(7 + f.0 as u32 % 3),));
        }
    }

    fn drift(mut q: Query<(Entity, Fields<&mut Vel>)>, mut commands: Commands<Sim>) {
        for (e, v) in q.iter_mut() {
            *v.x += *v.y;
            if *v.x > 6 {
                commands.despawn(e);
            }
        }
    }

    /// Everything `report` writes down of an entity.
    type Reported = (
        Entity,
        Option<&'static Owner>,
        Option<&'static Smoke>,
        Has<Burning>,
        Has<InGrid>,
        Option<&'static Children>,
    );

    fn report(q: Query<Reported>, mut log: ResMut<Log>) {
        let mut line = String::new();
        for (e, owner, smoke, burning, grid, children) in q.iter() {
            line.push_str(&format!(
                "{e:?}:{:?}/{:?}/{}/{}/{:?} ",
                owner.map(|o| o.0),
                smoke.map(|s| s.0),
                burning,
                grid,
                children.map(|c| c.0.clone())
            ));
        }
        log.0.push(line);
    }

    pub fn schedule() -> Schedule<Sim> {
        let mut s = Schedule::<Sim>::new();
        s.add(age)
            .add(emit)
            .add(dust)
            .add(ignite)
            .add(smoulder)
            .add(breed)
            .add(drift)
            .add(report);
        s
    }

    pub fn world() -> World<Sim> {
        let mut w = World::<Sim>::new();
        w.spawn((Life(5),));
        w.spawn((Life(9),));
        let a = w.spawn((Life(4),));
        w.despawn(a).unwrap();
        w.spawn((Life(6),));
        w
    }

    pub fn drive(w: &mut World<Sim>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
        // A command buffer applied from outside, its spawn's id reserved on
        // the world.
        if i % 3 == 2 {
            let mut buffer = CommandBuffer::<Sim>::new();
            let mut commands = buffer.commands(w);
            let e = commands.spawn((Life(4),));
            commands.insert(e, (Collider(i as u32),));
            buffer.apply(w);
        }
    }

    pub fn observe(w: &World<Sim>) -> String {
        format!("{:?}", w.resource::<Log>().0.last())
    }
}

#[test]
fn structural_change_in_systems_replays_exactly() {
    for (n, m) in [(0, 10), (1, 9), (3, 12), (4, 8), (8, 10)] {
        check(
            Case {
                world: structure::world,
                runner: structure::schedule,
                drive: structure::drive,
                observe: structure::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(structure::Sim),
        );
    }
}

// ---------------------------------------------------------------------------
// 7. Entity ids: churn, the free list, stale handles, reservations
// ---------------------------------------------------------------------------

mod ids {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Tag(pub u64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Link(pub Entity);
    #[derive(Clone, Debug, Default, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Handles(pub Vec<Entity>);

    #[derive(Schema)]
    pub struct Ids {
        tag: Tag,
        link: Link,
        #[ecs(resource)]
        handles: Handles,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    fn churn(
        f: Res<Frame>,
        q: Query<(Entity, &Tag)>,
        mut handles: ResMut<Handles>,
        mut commands: Commands<Ids>,
    ) {
        let k = f.0;
        for (e, tag) in q.iter() {
            if (tag.0 + k) % 3 == 0 {
                commands.despawn(e);
            }
        }
        for j in 0..(k % 4) {
            let e = commands.spawn((Tag(k * 10 + j),));
            handles.0.push(e);
            if let Some(&old) = handles.0.get((k as usize * 7) % handles.0.len()) {
                commands.insert(e, (Link(old),));
            }
        }
        if handles.0.len() > 24 {
            handles.0.drain(..6);
        }
    }

    fn follow(
        q: Query<(Entity, &Link)>,
        all: Query<&Tag>,
        handles: Res<Handles>,
        mut log: ResMut<Log>,
    ) {
        let alive: Vec<bool> = handles.0.iter().map(|&e| all.contains(e)).collect();
        let links: Vec<(Entity, Option<u64>)> = q
            .iter()
            .map(|(e, l)| (e, all.get(l.0).ok().map(|t| t.0)))
            .collect();
        log.0.push(format!("{alive:?} {links:?}"));
    }

    pub fn schedule() -> Schedule<Ids> {
        let mut s = Schedule::<Ids>::new();
        s.add(churn).add(follow);
        s
    }

    pub fn world() -> World<Ids> {
        let mut w = World::<Ids>::new();
        let all: Vec<Entity> = w.spawn_batch((0..10).map(|i| (Tag(i),))).collect();
        for e in [all[3], all[7], all[1], all[8]] {
            w.despawn(e).unwrap();
        }
        w.resource_mut::<Handles>().0 = all;
        w
    }

    pub fn drive(w: &mut World<Ids>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
        if i % 5 == 4 {
            let doomed: Vec<Entity> = w.iter().step_by(3).collect();
            w.despawn_batch(&doomed);
        }
    }

    pub fn observe(w: &World<Ids>) -> String {
        format!("{:?}", w.resource::<Log>().0.last())
    }
}

#[test]
fn entity_churn_and_stale_handles_replay_exactly() {
    for (n, m) in [(0, 10), (2, 12), (4, 9), (5, 10), (9, 9)] {
        check(
            Case {
                world: ids::world,
                runner: ids::schedule,
                drive: ids::drive,
                observe: ids::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(ids::Ids),
        );
    }
}

/// Two worlds with the same entities but free lists in another order hand
/// out different ids next: their checksums must differ.
#[test]
fn the_free_list_order_is_in_the_checksum() {
    use ids::*;
    let mut a = World::<Ids>::new();
    let mut b = World::<Ids>::new();
    let ea: Vec<Entity> = a.spawn_batch((0..3).map(|i| (Tag(i),))).collect();
    let eb: Vec<Entity> = b.spawn_batch((0..3).map(|i| (Tag(i),))).collect();
    a.despawn(ea[0]).unwrap();
    a.despawn(ea[1]).unwrap();
    b.despawn(eb[1]).unwrap();
    b.despawn(eb[0]).unwrap();
    let (na, nb) = (a.clone().spawn((Tag(9),)), b.clone().spawn((Tag(9),)));
    assert_ne!(na, nb, "the test needs the next ids to differ");
    assert_ne!(a.checksum(), b.checksum());
}

/// An id reserved through `CommandBuffer::commands` and not applied yet is
/// in the snapshot: the copy hands out the same ids next, and the
/// checksum tells the reserving world from one that did not reserve.
#[test]
fn a_pending_reservation_is_kept_by_clone_and_checksum() {
    use ids::*;
    let mut a = World::<Ids>::new();
    a.spawn((Tag(1),));
    let plain = a.clone();
    let mut buffer = CommandBuffer::<Ids>::new();
    let reserved = buffer.commands(&a).spawn((Tag(2),));
    let mut copy = a.clone();
    assert_eq!(copy.checksum(), a.checksum());
    assert_ne!(
        plain.checksum(),
        a.checksum(),
        "a reservation is not in the checksum"
    );
    let next_a = a.spawn((Tag(3),));
    let next_copy = copy.spawn((Tag(3),));
    assert_eq!(next_a, next_copy);
    assert_ne!(next_a, reserved);
    assert_eq!(a.checksum(), copy.checksum());
    let mut restored = World::<Ids>::new();
    restored.clone_from(&plain);
    restored.clone_from(&a);
    assert_eq!(restored.checksum(), a.checksum());
}

// ---------------------------------------------------------------------------
// 8. The GGRS adapter: in tests of its own package (ggrs/tests).
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// 8. A restore into a world whose tables have other ids, with the used
//    schedule and a prepared query held across it
// ---------------------------------------------------------------------------

/// The target of `clone_from` has tables of other archetypes under the same
/// ids (it was built in another order); the schedule that ran on it, and a
/// `PreparedQuery` made on it, go on over the restored world.
#[test]
fn clone_from_into_a_world_of_other_tables_keeps_schedules_and_prepared_queries_right() {
    use structure::*;
    let case = Case {
        world: structure::world,
        runner: structure::schedule,
        drive: structure::drive,
        observe: structure::observe,
        n: 5,
        m: 10,
        at_snapshot: nothing,
    };
    let mut world = (case.world)();
    let mut schedule = (case.runner)();
    for i in 0..case.n {
        drive(&mut world, i);
        schedule.run_sequential(&mut world);
    }
    drive(&mut world, case.n);
    let snapshot = world.clone();
    let original = replay(&case, &mut world, &mut schedule, true);

    let mut dirty = World::<Sim>::new();
    let a = dirty.spawn((Dust(1), Vel { x: 0, y: 0 }));
    dirty.spawn((Owner(a), Burning));
    dirty.spawn((Spark(3), Life(9), Burning));
    dirty.spawn((Collider(2),));
    dirty.spawn((Life(1), Owner(a)));
    dirty.spawn((Spark(1), Dust(2)));
    let mut other = structure::schedule();
    let mut prepared = dirty.prepare::<(Entity, &Life)>();
    let mut filtered = dirty.prepare_filtered::<Entity, (With<Life>, Without<Burning>)>();
    for i in 0..4 {
        drive(&mut dirty, i);
        other.run(&mut dirty);
        assert_eq!(
            prepared.query(&dirty).iter().count(),
            dirty.query::<&Life>().count()
        );
        let _ = filtered.query(&dirty).iter().count();
    }
    dirty.clone_from(&snapshot);
    assert_eq!(dirty.checksum(), snapshot.checksum());
    let seen = replay(&case, &mut dirty, &mut other, true);
    assert!(seen == original, "{}", first_difference(&original, &seen));
    let expect: Vec<(Entity, u32)> = dirty
        .query::<(Entity, &Life)>()
        .iter()
        .map(|(e, l)| (e, l.0))
        .collect();
    let got: Vec<(Entity, u32)> = prepared
        .query(&dirty)
        .iter()
        .map(|(e, l)| (e, l.0))
        .collect();
    assert_eq!(got, expect, "a prepared query over the restored world");
    let expect: Vec<Entity> = dirty
        .query_filtered::<Entity, (With<Life>, Without<Burning>)>()
        .iter()
        .collect();
    let got: Vec<Entity> = filtered.query(&dirty).iter().collect();
    assert_eq!(
        got, expect,
        "a prepared filtered query over the restored world"
    );
}

// ---------------------------------------------------------------------------
// 9. Change ticks far apart: sweeps and clamping between snapshot and replay
// ---------------------------------------------------------------------------

#[test]
fn change_detection_replays_across_tick_sweeps() {
    fn far(w: &mut World<changes::Game>, i: usize) {
        changes::drive(w, i);
        // A sweep is due every 2^29 ticks; ticks older than 2^30 are
        // clamped: both happen between frames here.
        w.advance_change_tick_for_tests(3 << 27);
    }
    for (n, m) in [(1, 10), (3, 12), (6, 9)] {
        check(
            Case {
                world: changes::world,
                runner: changes::schedule,
                drive: far,
                observe: changes::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(changes::Game),
        );
    }
}

#[test]
fn events_of_a_rare_schedule_replay_across_tick_sweeps() {
    fn far(w: &mut World<events::Game>, i: usize) {
        events::drive(w, i);
        w.advance_change_tick_for_tests(5 << 27);
    }
    for (n, m) in [(1, 10), (4, 10), (5, 9)] {
        check(
            Case {
                world: events::world,
                runner: events::runner,
                drive: far,
                observe: events::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(events::Game),
        );
    }
}

// ---------------------------------------------------------------------------
// 10. Commands and spawns recorded from parallel chunks
// ---------------------------------------------------------------------------

mod chunks {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Hp(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Child(pub Entity);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Mark(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Shout(pub Entity);

    #[derive(Schema)]
    pub struct Game {
        #[ecs(track)]
        hp: Hp,
        child: Child,
        #[ecs(sparse)]
        mark: Mark,
        #[ecs(event)]
        shout: Shout,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    fn split(
        mut q: Query<(Entity, &mut Hp)>,
        mut commands: Commands<Game>,
        mut shouts: EventWriter<Shout>,
        f: Res<Frame>,
    ) {
        let k = f.0 as i64;
        q.par_for_each_mut_with(
            (&mut commands, &mut shouts),
            move |(commands, shouts), (e, hp)| {
                hp.0 -= 1 + (e.index() as i64 + k) % 3;
                if hp.0 <= 0 {
                    commands.despawn(e);
                    shouts.send(Shout(e));
                } else if hp.0 % 4 == 0 {
                    commands.spawn((Hp(hp.0 * 2 + 1), Child(e)));
                } else if hp.0 % 5 == 0 {
                    commands.insert(e, (Mark(hp.0 as u32),));
                }
            },
        );
    }

    fn hear(
        shouts: EventReader<Shout>,
        q: Query<(Entity, &Hp, Option<&Child>), Changed<Hp>>,
        mut log: ResMut<Log>,
    ) {
        log.0.push(format!(
            "{:?} {:?}",
            shouts.read().map(|s| s.0).collect::<Vec<_>>(),
            q.iter()
                .map(|(e, h, c)| (e, h.0, c.map(|c| c.0)))
                .collect::<Vec<_>>()
        ));
    }

    pub fn schedule() -> Schedule<Game> {
        let mut s = Schedule::<Game>::new();
        s.add(hear).add(split);
        s
    }

    pub fn world() -> World<Game> {
        let mut w = World::<Game>::new();
        w.spawn_batch((0..3000).map(|i| (Hp(3 + i % 17),)))
            .for_each(drop);
        w
    }

    pub fn drive(w: &mut World<Game>, i: usize) {
        w.resource_mut::<Frame>().0 = i as u64;
    }

    pub fn observe(w: &World<Game>) -> String {
        let log = &w.resource::<Log>().0;
        format!("{} {:?}", w.len(), log.last().map(|l| l.len()))
    }
}

#[test]
fn commands_and_events_from_parallel_chunks_replay_exactly() {
    for (n, m) in [(1, 6), (3, 5)] {
        check(
            Case {
                world: chunks::world,
                runner: chunks::schedule,
                drive: chunks::drive,
                observe: chunks::observe,
                n,
                m,
                at_snapshot: nothing,
            },
            reload!(chunks::Game),
        );
    }
}

// ---------------------------------------------------------------------------
// 11. A schedule that systems were added to between runs
// ---------------------------------------------------------------------------

mod grown {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Pos(pub i64);
    #[derive(Clone, Copy, Debug, PartialEq, StableHash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct Hit(pub u64);

    #[derive(Schema)]
    pub struct Game {
        pos: Pos,
        #[ecs(event)]
        hit: Hit,
        #[ecs(resource)]
        log: Log,
        #[ecs(resource)]
        frame: Frame,
    }

    pub fn send(f: Res<Frame>, mut hits: EventWriter<Hit>, mut n: SavedOrLocal<u64>) {
        *n += 1;
        hits.send(Hit(f.0 * 100 + *n));
    }

    pub fn read(hits: EventReader<Hit>, mut log: ResMut<Log>) {
        log.0.push(format!(
            "{:?}",
            hits.read().map(|h| h.0).collect::<Vec<_>>()
        ));
    }

    pub fn observe(w: &World<Game>) -> String {
        format!(
            "kept {:?} log {:?}",
            w.events::<Hit>(),
            w.resource::<Log>().0.last()
        )
    }

    /// The schedule as it is once `read` has been added.
    pub fn full() -> Schedule<Game> {
        let mut s = Schedule::<Game>::new();
        s.add(send).add(read);
        s
    }
}

/// Runs frames 2 to 5 of `schedule` on `world`: what
/// each showed (the events kept, the log) and the checksum.
fn grown_frames(
    world: &mut World<grown::Game>,
    schedule: &mut Schedule<grown::Game>,
) -> Vec<(String, u128)> {
    (2..6)
        .map(|i| {
            world.resource_mut::<Frame>().0 = i as u64;
            schedule.run(world);
            (grown::observe(world), world.checksum())
        })
        .collect()
}

/// A world that ran two frames under `[send]`, then `read` is added to the
/// schedule: the world and the grown schedule, before its next run.
fn grown_world() -> (World<grown::Game>, Schedule<grown::Game>) {
    let mut world = World::<grown::Game>::new();
    let mut schedule = Schedule::<grown::Game>::new();
    schedule.add(grown::send);
    for i in 0..2 {
        world.resource_mut::<Frame>().0 = i;
        schedule.run(&mut world);
    }
    schedule.add(grown::read);
    (world, schedule)
}

/// A game adds a system to its schedule at run time (a level loads) and a
/// snapshot is taken before the schedule's next run. A new schedule of the
/// same systems cannot know what the grown schedule was before (the world
/// holds that schedule's state as that of any other schedule that ran on
/// it): once told, by forgetting the old schedule on the copy, the copy
/// goes on exactly as the grown schedule did. Without the `forget` the copy
/// keeps the old schedule's start and locals (a different checksum, events
/// held back): the limit `Schedule::forget` documents.
#[test]
fn a_copy_taken_after_a_system_was_added_replays_under_a_new_schedule() {
    let (mut world, mut grown) = grown_world();
    let snapshot = world.clone();
    let original = grown_frames(&mut world, &mut grown);
    let mut copy = snapshot.clone();
    let mut old = Schedule::<grown::Game>::new();
    old.add(grown::send);
    assert!(old.forget(&mut copy));
    let copied = grown_frames(&mut copy, &mut grown::full());
    assert_eq!(
        copied, original,
        "a copy run by a new schedule of the same systems diverges from the original"
    );
}

/// A copy taken once the grown schedule has run goes on exactly under a new
/// schedule of the same systems, with nothing to forget.
#[test]
fn a_copy_taken_after_the_grown_schedule_ran_replays_under_a_new_schedule() {
    let (mut world, mut grown) = grown_world();
    world.resource_mut::<Frame>().0 = 1;
    grown.run(&mut world);
    let snapshot = world.clone();
    let original = grown_frames(&mut world, &mut grown);
    let mut copy = snapshot.clone();
    let copied = grown_frames(&mut copy, &mut grown::full());
    assert_eq!(copied, original);
}

/// The same, rolled back in place: the grown schedule, run on the world
/// restored to before its first grown run, makes it forget the old
/// schedule again, as the first time (what decides is whether the world
/// has seen the schedule as it is now, not whether the schedule has run
/// before), so the replay is the same.
#[test]
fn a_grown_schedule_replays_after_a_rollback_to_before_its_first_grown_run() {
    let (mut world, mut grown) = grown_world();
    let snapshot = world.clone();
    let original = grown_frames(&mut world, &mut grown);
    world.clone_from(&snapshot);
    let again = grown_frames(&mut world, &mut grown);
    assert_eq!(
        again, original,
        "the grown schedule diverges after a rollback"
    );
}

/// `Schedule::forget` on a grown schedule that has not run as it is now
/// forgets what it was: the world ends as one on which the old schedule was
/// forgotten by name.
#[test]
fn forgetting_a_grown_schedule_forgets_what_it_was() {
    let (mut world, mut grown) = grown_world();
    let mut by_name = world.clone();
    assert!(
        grown.forget(&mut world),
        "the world knew the schedule as it was"
    );
    assert!(!grown.forget(&mut world), "nothing is left to forget");
    let mut old = Schedule::<grown::Game>::new();
    old.add(grown::send);
    assert!(old.forget(&mut by_name));
    assert_eq!(world.checksum(), by_name.checksum());
}
