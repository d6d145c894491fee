//! [`Schedule`]: systems run in program order, in parallel where that cannot
//! change the result and where it pays.
//! The game loop is here too: a [`GameLoop`] runs a fixed-step schedule,
//! as many steps as the frame's time pays for ([`FixedTime`]), beside a
//! per-frame one.

// `plan.rs` decides which systems may run together (stages),
// `executor.rs` how each stage runs: on the calling thread or on rayon's
// pool.

mod dot;
mod executor;
mod game_loop;
mod inspect;
mod plan;
mod transitions;

use crate::entity::Entity;
use crate::state::States;
use crate::structure::DespawnBatch;
use crate::system::{Group, IntoSystem, IntoSystems, SystemFn, SystemKind, SystemNode};
use crate::world_impl::Schema;
use crate::world_impl::{ScheduleOwner, World};
use core::fmt;
use executor::{check_in, Executor, StageRun, Why};
use transitions::{StateTransitions, Transitions};

pub use crate::world_impl::SendSchema;
pub use game_loop::{FixedTime, GameLoop};
pub use inspect::{Divergence, Step};
use plan::{Plan, Reason};
use std::borrow::Cow;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe, Location};
use std::sync::Arc;

/// An ordered list of systems for worlds of schema `S`.
///
/// **The result of [`Schedule::run`] is defined as running the systems one
/// after another in the order they were added, each system's
/// [`Commands`](crate::command::Commands) applied right after it, in recording order.**
/// The executor runs systems at the same time (on rayon's thread pool) only
/// where that cannot change the result: a system starts once every earlier
/// system it conflicts with has finished (one writes a component or resource
/// the other reads or writes, on entities both can reach) and every earlier
/// system's commands that it could observe have been applied. Parallel runs are
/// therefore identical, bit for bit, to [`Schedule::run_sequential`], with any
/// number of threads. Without the `parallel` feature every stage runs on the
/// calling thread.
///
/// Systems that may run together form a *stage*. Whether a stage is handed
/// out to the pool is decided at each run, from how long its systems took in
/// the runs before: a stage of small systems runs on the calling thread,
/// since waking another thread would cost more than it saves, and a stage
/// whose work, spread over the threads, saves more than a hand-off costs
/// (about 50 µs) runs in parallel, the calling thread taking its share. A
/// stage with a system that never ran runs on the calling thread, to time it.
///
/// [`Schedule::describe`] shows which systems may run together, why the
/// others wait, and how each stage ran the last time;
/// [`Schedule::to_dot`] draws the same as a Graphviz graph.
///
/// # Schedule identity
///
/// What a schedule's systems keep between runs is world state: where each
/// reader is in the event queues, the window its `Changed` and `Removed`
/// see, its `Local`s. The world keys it by the schedule's *fingerprint*, a
/// stable hash of its label ([`Schedule::label`], if it has one) and its
/// systems' names in order, the same in every process. So a world that is
/// copied, restored or loaded and then run by a *new* schedule built the
/// same way continues exactly where the old one was, which rollback needs.
///
/// Two schedules with the same fingerprint are therefore one schedule to a
/// world. Two live schedules that take turns on one world would share
/// their systems' state: a reader in one would consume the events the
/// other's reader has yet to see. **That is refused:** when a schedule has
/// run on a world, then another live schedule of the same fingerprint has,
/// the first one's next run there panics, before it changes anything, with
/// a message that says where each was created. (The second one's first run
/// is allowed: it may be the first one's replacement, built while the old
/// one is still in scope. Once the first runs again, they take turns.)
/// Give one of them a label of its own ([`Schedule::label`]), or name one of
/// its systems differently ([`Schedule::add_named`]). A schedule's label is
/// its exit and enter systems' too (see [`Schedule::on_enter`]), and
/// [`GameLoop`] labels its two schedules.
///
/// What is allowed: a schedule rebuilt (each frame, say) runs on as the
/// old one, whether or not the old one was dropped, as long as the old one
/// does not run again; a copy of a world ([`Clone::clone`]), a world
/// restored with [`Clone::clone_from`] and a loaded world may be run by
/// any schedule, the one that ran the original or a new one (the world
/// remembers which schedules ran it only since it was made, copied,
/// restored or loaded, and no snapshot, save or checksum holds it); one
/// schedule runs on any number of worlds; [`Schedule::forget`] forgets who
/// ran it. A schedule without systems is never refused.
///
/// ```should_panic
/// use schemecs::prelude::*;
/// struct Pos(i32);
/// #[derive(Schema)] struct Game { pos: Pos }
///
/// fn drift(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
///
/// let mut world = World::<Game>::new();
/// let mut menu = Schedule::<Game>::new();
/// menu.add(drift);
/// let mut level = Schedule::<Game>::new();
/// level.add(drift);
/// menu.run(&mut world);
/// level.run(&mut world); // taken for menu's replacement
/// menu.run(&mut world); // panics: the two take turns
/// ```
///
/// With a label, each keeps its own state:
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(i32);
/// #[derive(Schema)] struct Game { pos: Pos }
///
/// fn drift(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
///
/// let mut world = World::<Game>::new();
/// let mut menu = Schedule::<Game>::new();
/// menu.label("menu").add(drift);
/// let mut level = Schedule::<Game>::new();
/// level.label("level").add(drift);
/// for _ in 0..3 {
///     menu.run(&mut world);
///     level.run(&mut world);
/// }
/// ```
///
/// A system may run only when a condition holds
/// ([`RunIfExt::run_if`](crate::condition::RunIfExt::run_if)); a schedule may apply
/// the transitions of a state, with exit and enter systems, at the start of
/// its runs ([`Schedule::on_enter`]); [`GameLoop`] runs a fixed-step
/// schedule and a per-frame one over one world.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i64);
/// #[derive(Debug, PartialEq)] struct Vel(i64);
/// #[derive(Debug, PartialEq)] struct Frozen;
/// #[derive(Debug, Default)] struct Tick(u64);
/// #[derive(Schema)]
/// struct Physics { pos: Pos, vel: Vel, frozen: Frozen, #[ecs(resource)] tick: Tick }
///
/// fn inertia(mut movers: Query<(&mut Pos, &Vel), Without<Frozen>>) {
///     movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
/// }
/// fn stop(movers: Query<(Entity, &Pos), With<Vel>>, mut commands: Commands<Physics>) {
///     for (entity, pos) in movers.iter() {
///         if pos.0 >= 10 {
///             commands.insert(entity, (Frozen,));
///         }
///     }
/// }
/// fn count(mut tick: ResMut<Tick>) {
///     tick.0 += 1;
/// }
///
/// let mut world = World::<Physics>::new();
/// let a = world.spawn((Pos(0), Vel(4)));
/// let mut schedule = Schedule::<Physics>::new();
/// schedule.add(inertia).add(stop).add(count);
/// assert_eq!(
///     schedule.describe(),
///     "Schedule<Physics>: 3 systems in 2 stages\n\
///      \x20 stage 1: inertia, count\n\
///      \x20 stage 2: stop\n\
///      \x20   stop waits for inertia: inertia writes Pos, which stop reads\n"
/// );
/// for _ in 0..5 {
///     schedule.run(&mut world);
/// }
/// assert_eq!(world.get::<Pos>(a), Some(&Pos(12)));
/// assert!(world.has::<Frozen>(a));
/// assert_eq!(world.resource::<Tick>().0, 5);
/// // After a run, each stage also says how it ran; this world is far too
/// // small for threads to pay.
/// let described = schedule.describe();
/// assert!(described.contains("stage 1: inertia, count (inline last run: "));
/// assert!(described.contains("stage 2: stop (inline last run: one system)"));
/// ```
pub struct Schedule<S: Schema> {
    systems: Vec<SystemNode<S>>,
    /// The groups of systems with a run condition (`(a, b).run_if(c)`),
    /// inner groups before the groups around them.
    groups: Vec<Group<S>>,
    /// Computed at the first run after a change.
    plan: Option<Plan>,
    /// Measurements and reusable memory of the runs.
    executor: Executor<S>,
    /// What identifies these systems in a world's change state; computed
    /// at the first run after a change.
    fingerprint: Option<u64>,
    /// The fingerprint of the last run, and before it every fingerprint
    /// the schedule ran as before systems were added to it: a world on
    /// which the schedule first runs as it is now forgets each of them
    /// (see [`Schedule::start`]).
    ran_as: Vec<u64>,
    /// Per state type whose transitions this schedule applies: its exit
    /// and enter systems, in the order the state types were first named.
    transitions: Vec<Box<dyn Transitions<S>>>,
    /// Mixed into the fingerprint: set by [`Schedule::label`], by
    /// [`GameLoop::new`], and for the schedules of exit and enter systems,
    /// so that they are not taken for a schedule of the same systems.
    label: Option<String>,
    /// This schedule's identity in the worlds it runs on (see "Schedule
    /// identity" above): a world refuses a schedule that takes turns with
    /// another live one of the same fingerprint.
    owner: Arc<ScheduleOwner>,
    /// The entities the systems' [`Despawner`](crate::command::Despawner)s despawn
    /// when a run ends, and the memory of that batch despawn.
    doomed: Vec<Entity>,
    batch: DespawnBatch,
}

impl<S: Schema> Default for Schedule<S> {
    #[track_caller]
    fn default() -> Self {
        Schedule {
            systems: Vec::new(),
            groups: Vec::new(),
            plan: None,
            executor: Executor::default(),
            fingerprint: None,
            ran_as: Vec::new(),
            transitions: Vec::new(),
            label: None,
            owner: Arc::new(ScheduleOwner {
                created: Location::caller(),
            }),
            doomed: Vec::new(),
            batch: DespawnBatch::default(),
        }
    }
}

// The thread-safety bounds sit on each method rather than on the impl, so a
// schema with an `Rc` in it is reported at the user's call, naming the type.
impl<S: Schema> Schedule<S> {
    /// An empty schedule.
    ///
    /// Running systems in parallel needs every component and resource of `S`
    /// to be `Send + Sync` (`S` is a [`SendSchema`]); a schema with an `Rc`
    /// in it fails to compile here.
    #[track_caller]
    pub fn new() -> Self
    where
        S: SendSchema,
    {
        Self::default()
    }

    /// Appends `system`: it runs after every system added before it, as far
    /// as anyone can tell. A tuple of systems appends each in order, as one
    /// `add` each would (a group; with `.run_if(condition)` the condition
    /// guards them all and is evaluated once per run: see
    /// [`RunIfExt`](crate::condition::RunIfExt)).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(f32);
    /// #[derive(Default)] struct Log(Vec<&'static str>);
    /// #[derive(Default)] struct Paused(bool);
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, #[ecs(resource)] log: Log, #[ecs(resource)] paused: Paused }
    ///
    /// fn input(mut log: ResMut<Log>) { log.0.push("input"); }
    /// fn physics(mut log: ResMut<Log>) { log.0.push("physics"); }
    /// fn render(mut log: ResMut<Log>) { log.0.push("render"); }
    /// fn running(paused: Res<Paused>) -> bool { !paused.0 }
    ///
    /// let mut world = World::<Game>::new();
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule.add((input, physics.run_if(running), render));
    /// world.resource_mut::<Paused>().0 = true;
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, ["input", "render"]);
    /// ```
    ///
    /// A system whose parameters conflict with each other (two queries that
    /// can reach the same component with a write, unless their filters are
    /// disjoint; `Res<T>` with `ResMut<T>`) fails to compile here.
    pub fn add<M, T>(&mut self, system: T) -> &mut Self
    where
        T: SystemFn<M> + IntoSystems<S, M>,
        S: SendSchema,
    {
        const { T::CHECK };
        system.add_to(&mut self.systems, &mut self.groups);
        self.plan = None;
        self.fingerprint = None;
        self
    }

    /// [`Schedule::add`], with the name [`Schedule::describe`] shows for the
    /// system (by default its function's name, or `closure in f` for a
    /// closure written in `f`).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i64);
    /// #[derive(Schema)] struct S { pos: Pos }
    ///
    /// fn build() -> Schedule<S> {
    ///     let mut schedule = Schedule::<S>::new();
    ///     schedule
    ///         .add_named("drift", |mut q: Query<&mut Pos>| q.for_each_mut(|p| p.0 += 1))
    ///         .add(|q: Query<&Pos>| assert!(q.count() < 10));
    ///     schedule
    /// }
    /// let plan = build().describe();
    /// assert!(plan.contains("stage 1: drift\n"), "{plan}");
    /// assert!(plan.contains("stage 2: closure in build\n"), "{plan}");
    /// ```
    pub fn add_named<M, T>(&mut self, name: impl Into<Cow<'static, str>>, system: T) -> &mut Self
    where
        T: SystemFn<M> + IntoSystem<S, M>,
        S: SendSchema,
    {
        const { T::CHECK };
        let mut system = system.into_system();
        system.name = name.into();
        self.systems.push(system);
        self.plan = None;
        self.fingerprint = None;
        self
    }

    /// Gives the schedule `label` (replacing a label it had), mixed into its
    /// fingerprint: two schedules with the same systems and different
    /// labels keep their systems' state apart on a world (see "Schedule
    /// identity" on [`Schedule`]). The label is its exit and enter
    /// systems' too. A world or save that a schedule ran on is run on by
    /// a schedule of the same label and systems; labelling a schedule that
    /// ran makes it another schedule, as adding a system does.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// struct Hit(u32);
    /// #[derive(Default)] struct Seen(usize);
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, #[ecs(event)] hit: Hit, #[ecs(resource)] seen: Seen }
    ///
    /// fn listen(hits: EventReader<Hit>, mut seen: ResMut<Seen>) { seen.0 += hits.len(); }
    ///
    /// let mut world = World::<Game>::new();
    /// let (mut menu, mut level) = (Schedule::<Game>::new(), Schedule::<Game>::new());
    /// menu.label("menu").add(listen);
    /// level.label("level").add(listen);
    /// world.send_event(Hit(1));
    /// for _ in 0..3 {
    ///     menu.run(&mut world);
    ///     level.run(&mut world);
    /// }
    /// // Each reader read the hit once.
    /// assert_eq!(world.resource::<Seen>().0, 2);
    /// ```
    pub fn label(&mut self, label: impl Into<String>) -> &mut Self {
        self.set_label(label.into());
        self
    }

    /// Adds `system` (or a tuple of systems) to run when state `T` enters
    /// `state`: at the start of
    /// a run of this schedule that applies a transition to `state`, after
    /// the exit systems of the state left and the switch, before the
    /// schedule's other systems. Enter systems run in the order they were
    /// added (as a schedule of their own, in parallel where that cannot
    /// change the result).
    ///
    /// The state a world starts in is entered too, once: the world's first
    /// run of a schedule that applies `T`'s transitions runs the enter
    /// systems of the initial state (and no exit systems), then applies the
    /// transition requested, if any. Whether the state was entered is
    /// world state ([`State::entered`](crate::state::State::entered)), so a world
    /// restored or loaded from a copy taken after that run does not enter
    /// it again.
    ///
    /// The schedule then applies `T`'s transitions (see
    /// [`Schedule::apply_transitions`]). `T` must be a state of `S` (an
    /// `#[ecs(state)]` field).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    /// enum Phase { #[default] Menu, Playing }
    /// #[derive(Default)] struct Log(Vec<&'static str>);
    /// #[derive(Schema)]
    /// struct Game { pos: Pos, #[ecs(resource)] log: Log, #[ecs(state)] phase: Phase }
    ///
    /// fn show_menu(mut log: ResMut<Log>) { log.0.push("show menu"); }
    /// fn hide_menu(mut log: ResMut<Log>) { log.0.push("hide menu"); }
    /// fn spawn_level(mut log: ResMut<Log>) { log.0.push("spawn level"); }
    /// fn play(mut log: ResMut<Log>) { log.0.push("play"); }
    ///
    /// let mut world = World::<Game>::new();
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule
    ///     .add(play.run_if(in_state(Phase::Playing)))
    ///     .on_enter(Phase::Menu, show_menu)
    ///     .on_enter(Phase::Playing, spawn_level)
    ///     .on_exit(Phase::Menu, hide_menu);
    /// schedule.run(&mut world); // enters the initial state, Menu
    /// world.set_next_state(Phase::Playing);
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// assert_eq!(
    ///     world.resource::<Log>().0,
    ///     ["show menu", "hide menu", "spawn level", "play", "play"]
    /// );
    /// ```
    pub fn on_enter<T, M, F>(&mut self, state: T, system: F) -> &mut Self
    where
        T: States<S>,
        F: SystemFn<M> + IntoSystems<S, M>,
        S: SendSchema,
    {
        self.transitions_of::<T>().add_enter(state, system);
        self
    }

    /// Adds `system` to run when state `T` leaves `state`: at the start of
    /// a run of this schedule that applies a transition from `state`,
    /// before the switch and the enter systems. Exit systems run in the
    /// order they were added. See [`Schedule::on_enter`].
    pub fn on_exit<T, M, F>(&mut self, state: T, system: F) -> &mut Self
    where
        T: States<S>,
        F: SystemFn<M> + IntoSystems<S, M>,
        S: SendSchema,
    {
        self.transitions_of::<T>().add_exit(state, system);
        self
    }

    /// Makes this schedule apply state `T`'s transitions: at the world's
    /// first such run, the initial state is entered (see
    /// [`Schedule::on_enter`]); at the start of each run, a transition
    /// requested before (by a
    /// [`NextState`](crate::state::NextState) or
    /// [`World::set_next_state`](crate::world::World::set_next_state)) is applied,
    /// running the exit systems of the state left, then switching, then
    /// running the enter systems of the state entered; then the schedule's
    /// systems run, all in the new state. A request for the current state
    /// is dropped.
    ///
    /// [`Schedule::on_enter`] and [`Schedule::on_exit`] do this by
    /// themselves; this is for a state without exit or enter systems. A
    /// schedule that does neither leaves `T`'s requests pending (a fixed
    /// step's schedule, say, when the frame's applies them). Where several
    /// schedules apply `T`'s transitions, the first to run after a request
    /// applies it, with its own exit and enter systems.
    ///
    /// A schedule applying several states applies them in the order it
    /// first named them: a request that an exit or enter system of one makes
    /// for a state named later is applied in the same run, one for a state
    /// named earlier at the next.
    pub fn apply_transitions<T>(&mut self) -> &mut Self
    where
        T: States<S>,
        S: SendSchema,
    {
        self.transitions_of::<T>();
        self
    }

    /// The transitions of `T` this schedule applies, made empty the first
    /// time.
    fn transitions_of<T>(&mut self) -> &mut StateTransitions<S, T>
    where
        T: States<S>,
        S: SendSchema,
    {
        let name = core::any::type_name::<T>();
        let at = match self.transitions.iter().position(|t| t.state() == name) {
            Some(at) => at,
            None => {
                let parent = self.label.as_deref();
                let transitions = StateTransitions::<S, T>::new(parent, self.owner.created);
                self.transitions.push(Box::new(transitions));
                self.transitions.len() - 1
            }
        };
        match self.transitions[at]
            .as_any_mut()
            .downcast_mut::<StateTransitions<S, T>>()
        {
            Some(transitions) => transitions,
            None => unreachable!("the transitions of `{name}` are of that state"),
        }
    }

    /// Applies the pending transitions of the states this schedule applies.
    fn apply_pending(&mut self, world: &mut World<S>, sequential: bool) {
        for transitions in &mut self.transitions {
            transitions.apply(world, sequential);
        }
    }

    /// Runs every system once, with the result of
    /// [`Schedule::run_sequential`]: in parallel where that cannot change the
    /// result and the systems' work, as measured in earlier runs, is large
    /// enough to pay for handing it to other threads; on the calling thread
    /// otherwise.
    ///
    /// A panic in a system propagates to the caller once the other systems
    /// of its stage have run (on the pool or on the calling thread alike);
    /// the world stays consistent (no value is lost or dropped twice), and
    /// the commands not applied yet are dropped.
    pub fn run(&mut self, world: &mut World<S>)
    where
        S: SendSchema,
    {
        self.claim(world);
        self.apply_pending(world, false);
        let plan = match self.plan.take() {
            Some(plan) => plan,
            None => {
                let plan = Plan::new::<S>(&self.systems, &self.groups);
                self.executor.reset(self.systems.len(), plan.stages.len());
                plan
            }
        };
        let fingerprint = self.start(world);
        let (base, previous) =
            world.begin_schedule_run(fingerprint, self.systems.len() as u32, self.logs_read());
        self.undecide_groups();
        let result = catch_unwind(AssertUnwindSafe(|| {
            self.executor.run(
                (&mut self.systems, &mut self.groups),
                &plan,
                world,
                (base, previous),
                fingerprint,
            )
        }));
        world.set_change_tick(base.wrapping_add(self.systems.len() as u32));
        self.plan = Some(plan);
        self.finish(result, world, fingerprint);
    }

    /// The fingerprint of a run on `world` starting now. If systems were
    /// added to the schedule since it first ran and it has not run as it
    /// is now on `world`, `world` forgets the schedule as it was before:
    /// what the world keeps decides, not what this schedule has run on
    /// before, so that a world restored from a copy taken before such a
    /// run (or any other world) forgets exactly as the original did.
    fn start(&mut self, world: &mut World<S>) -> u64 {
        let fingerprint = self.fingerprint();
        if self.ran_as.last() != Some(&fingerprint) {
            self.ran_as.push(fingerprint);
        }
        if let Some((&now, before)) = self.ran_as.split_last() {
            if !before.is_empty() && !world.has_run(now) {
                for &old in before {
                    world.forget_schedule(old);
                }
            }
        }
        fingerprint
    }

    /// Gives the schedule `label`, mixed into its fingerprint, if it has
    /// none (a schedule that ran before is then another schedule, as one
    /// that systems were added to).
    pub(super) fn label_unless_labelled(&mut self, label: &str) {
        if self.label.is_none() {
            self.set_label(label.to_string());
        }
    }

    /// The event queues and removal logs the systems read, which the world
    /// keeps for them between runs (see [`crate::retention`]).
    fn logs_read(&self) -> crate::retention::LogReads {
        self.systems
            .iter()
            .fold(crate::retention::LogReads::NONE, |all, system| {
                all.union(system.logs_read)
            })
    }

    /// Makes `label` the schedule's label, and its exit and enter
    /// systems' (see `StateTransitions::new`).
    pub(super) fn set_label(&mut self, label: String) {
        if self.label.as_deref() == Some(label.as_str()) {
            return;
        }
        for transitions in &mut self.transitions {
            transitions.relabel(Some(&label));
        }
        self.label = Some(label);
        self.fingerprint = None;
    }

    /// Refuses to run on `world` (a panic, before anything changes) if
    /// this schedule, or the schedule of its exit or enter systems, ran on
    /// it and another live schedule of the same fingerprint ran there
    /// since; then records that this one runs them (see "Schedule
    /// identity" on [`Schedule`]).
    fn claim(&mut self, world: &mut World<S>) {
        self.each_part(&mut |schedule| {
            if schedule.systems.is_empty() {
                return;
            }
            let fingerprint = schedule.fingerprint();
            if let Some(rival) = world
                .schedule_owners_mut()
                .rival(fingerprint, &schedule.owner)
            {
                panic!("{}", schedule.shared_text(&rival));
            }
        });
        self.each_part(&mut |schedule| {
            if !schedule.systems.is_empty() {
                let fingerprint = schedule.fingerprint();
                world
                    .schedule_owners_mut()
                    .claim(fingerprint, &schedule.owner);
            }
        });
    }

    /// Calls `f` with this schedule, then with each schedule of its exit
    /// and enter systems.
    fn each_part(&mut self, f: &mut dyn FnMut(&mut Schedule<S>)) {
        f(self);
        for transitions in &mut self.transitions {
            for schedule in transitions.schedules_mut() {
                f(schedule);
            }
        }
    }

    /// The message of [`Schedule::claim`]'s panic: `rival`, of the same
    /// fingerprint, ran on the world after this schedule, and this one
    /// was to run again.
    fn shared_text(&self, rival: &ScheduleOwner) -> String {
        let names: Vec<&str> = self.systems.iter().map(|system| &*system.name).collect();
        let label = match &self.label {
            Some(label) => format!(" labelled \"{label}\""),
            None => String::new(),
        };
        let (mine, theirs) = (self.owner.created, rival.created);
        let turns = if mine == theirs {
            format!(
                "both created at {mine} (by code that ran twice): the first ran, then the \
                 second, and the first was to run again"
            )
        } else {
            format!(
                "the one created at {mine} ran, then the one created at {theirs}, and the first \
                 was to run again"
            )
        };
        format!(
            "two live schedules{label} with the same systems ({}) take turns on one World<{}>, \
             {turns}. A world tells schedules apart by their labels and their systems' names, \
             so these two share their systems' event cursors, change windows and `Local`s: \
             each would read what the other had consumed. Give one of them a label of its own \
             with `Schedule::label` (a schedule's label is also its exit and enter systems'), \
             or drop the schedule that the other replaces",
            names.join(", "),
            S::NAME,
        )
    }

    /// What identifies this schedule's systems in a world's change state:
    /// a stable hash of their names, in order (the same in every process).
    fn fingerprint(&mut self) -> u64 {
        let (systems, label) = (&self.systems, &self.label);
        *self.fingerprint.get_or_insert_with(|| {
            let mut hasher = crate::stable_hash::StableHasher::new();
            if let Some(label) = label {
                crate::stable_hash::StableHash::stable_hash(label.as_str(), &mut hasher);
            }
            for system in systems {
                crate::stable_hash::StableHash::stable_hash(system.name.as_ref(), &mut hasher);
            }
            hasher.finish() as u64
        })
    }

    /// Makes `world` forget this schedule: where its last run started and
    /// its systems' [`Local`](crate::system::Local)s. Returns whether it had run on
    /// `world`. A later run starts afresh, as on a world it never ran on
    /// (its readers see every event and change not dropped yet, its locals
    /// start from `Default`).
    ///
    /// A world keeps the events and removal records a schedule's readers
    /// read until it has run again, so that readers in a schedule that runs
    /// rarely (a fixed step skipped for a few frames) miss nothing, for
    /// [`HOLD_RUNS`](crate::retention::HOLD_RUNS) runs of the world at most
    /// (see [`crate::retention`]). A schedule that will never run on
    /// `world` again (a menu's, a level's) holds them back until then:
    /// forget it to let go at once.
    ///
    /// A schedule that systems were added to after it ran is another
    /// schedule: a world on which it first runs as it is now forgets what
    /// it was, by itself (a world restored from a copy taken before that
    /// run too, so a rollback replays exactly), and `forget` forgets both.
    /// A *new* schedule built with the grown one's systems cannot know what
    /// the grown one was before: to run one on a copy taken between the
    /// `add` and the grown schedule's next run, forget the old schedule on
    /// the copy first (a schedule of the systems it had), or take copies
    /// after runs, as a rollback session does.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// struct Hit(u32);
    /// #[derive(Schema)] struct Game { pos: Pos, #[ecs(event)] hit: Hit }
    ///
    /// fn shoot(mut hits: EventWriter<Hit>) { hits.send(Hit(1)); }
    /// fn listen(hits: EventReader<Hit>) { let _ = hits.len(); }
    ///
    /// let mut world = World::<Game>::new();
    /// let mut menu = Schedule::<Game>::new();
    /// menu.add(listen);
    /// menu.run(&mut world);
    /// let mut play = Schedule::<Game>::new();
    /// play.add(shoot);
    /// for _ in 0..10 {
    ///     play.run(&mut world);
    /// }
    /// // The menu's reader has not read them yet: all ten are kept.
    /// assert_eq!(world.events::<Hit>().len(), 10);
    /// assert!(menu.forget(&mut world));
    /// play.run(&mut world);
    /// assert_eq!(world.events::<Hit>().len(), 2);
    /// ```
    pub fn forget(&mut self, world: &mut World<S>) -> bool {
        let mut known = world.forget_schedule(self.fingerprint());
        for &before in &self.ran_as {
            known |= world.forget_schedule(before);
        }
        for transitions in &mut self.transitions {
            known |= transitions.forget(world);
        }
        known
    }

    /// Makes [`Schedule::run`] hand every stage of several systems to the
    /// thread pool (`Some(true)`), run every stage on the calling thread
    /// (`Some(false)`), or decide from measurements (`None`, the default).
    /// For tests of the executor: the result is the same whichever it is.
    #[doc(hidden)]
    pub fn force_parallel(&mut self, choice: Option<bool>) -> &mut Self {
        self.executor.force = choice;
        self
    }

    /// Runs every system once, one after another in the order they were
    /// added, each system's commands applied right after it: the definition
    /// of what [`Schedule::run`] computes.
    pub fn run_sequential(&mut self, world: &mut World<S>)
    where
        S: SendSchema,
    {
        // The steps, with no one looking (see `inspect.rs`).
        self.run_inspected(world, |_, _| {});
    }

    /// Forgets the groups' decisions of the last run: a run decides each
    /// group anew, at its first system's turn.
    fn undecide_groups(&mut self) {
        for group in &mut self.groups {
            group.decided = None;
        }
    }

    /// After a panic, puts the locals still out back into the world (a
    /// system's `Local` keeps what it held when the panic struck), drops the
    /// commands no one will apply, finishes what systems did at once (a
    /// `Spawner`'s rows, a `SparseMut`'s removal log), then goes on
    /// unwinding.
    fn finish(&mut self, result: std::thread::Result<()>, world: &mut World<S>, fingerprint: u64) {
        if let Err(panic) = result {
            for (i, system) in self.systems.iter_mut().enumerate() {
                check_in(system, world, (fingerprint, i));
                system.check_in_condition(world, (fingerprint, i));
                if let SystemKind::Params(system) = &mut system.kind {
                    system.discard(world);
                }
            }
            for (g, group) in self.groups.iter_mut().enumerate() {
                group.check_in_after_panic(world, (fingerprint, g));
            }
            // The despawns of the systems applied stand, as their commands.
            self.despawn_at_end(world);
            resume_unwind(panic);
        }
        self.despawn_at_end(world);
    }

    /// Despawns what the applied runs of the systems' `Despawner`s recorded,
    /// in program order, in one batch.
    fn despawn_at_end(&mut self, world: &mut World<S>) {
        let mut doomed = core::mem::take(&mut self.doomed);
        for system in &mut self.systems {
            if let (true, SystemKind::Params(params)) = (system.despawns_at_end, &mut system.kind) {
                params.end_of_run(&mut doomed);
            }
        }
        if !doomed.is_empty() {
            world.despawn_batch_with(&doomed, &mut self.batch);
            doomed.clear();
        }
        self.doomed = doomed;
    }
}

impl<S: Schema> Schedule<S> {
    /// Number of systems.
    pub fn len(&self) -> usize {
        self.systems.len()
    }

    /// Whether no system was added.
    pub fn is_empty(&self) -> bool {
        self.systems.is_empty()
    }

    /// The stages the executor runs, one per line, with the systems of each
    /// (they may run at the same time), and for each system that waits, the
    /// one wait that puts it in its stage (the first of those that hold it
    /// latest): the component or resource two systems conflict on, an earlier
    /// system's commands, or an exclusive system. Waits that an earlier stage
    /// already meets are left out.
    ///
    /// Once the schedule has run (and until a system is added), each stage
    /// line ends with how the stage ran the last time and why: `(parallel
    /// last run: 7.4 ms of work)`, `(inline last run: 3 µs of work, too
    /// little to share)`. The work is what the stage's systems took in that
    /// run, together; the choice was made from the runs before it.
    ///
    /// A system with a run condition is shown with it (`physics if
    /// in_state(Phase::Playing)`); the condition's reads count among the
    /// system's in the waits. Groups with a run condition (`(physics,
    /// collide).run_if(..)`, see [`RunIfExt`](crate::condition::RunIfExt)) follow the
    /// stages, one per line, in program order (`physics, collide if
    /// in_state(Phase::Playing)`); their conditions' reads count among each
    /// of their systems'. Last come the state transitions the schedule
    /// applies at the start of a run, per state, with their exit and enter
    /// systems in the order they run (`on_exit(Phase::Menu): hide_menu`).
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i32);
    /// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    /// enum Phase { #[default] Menu, Playing }
    /// #[derive(Schema)] struct Game { pos: Pos, #[ecs(state)] phase: Phase }
    ///
    /// fn physics(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
    /// fn spawn_level(mut commands: Commands<Game>) { commands.spawn((Pos(0),)); }
    ///
    /// let mut schedule = Schedule::<Game>::new();
    /// schedule
    ///     .add(physics.run_if(in_state(Phase::Playing)))
    ///     .on_enter(Phase::Playing, spawn_level);
    /// assert_eq!(
    ///     schedule.describe(),
    ///     "Schedule<Game>: 1 system in 1 stage\n\
    ///      \x20 stage 1: physics if in_state(Phase::Playing)\n\
    ///      \x20 transitions of Phase, at the start of a run:\n\
    ///      \x20   on_enter(Phase::Playing): spawn_level\n"
    /// );
    /// ```
    pub fn describe(&self) -> String {
        self.with_plan(|plan, runs| {
            let name = |i: usize| &*self.systems[i].name;
            let mut out = format!(
                "Schedule<{}>: {} in {}\n",
                S::NAME,
                plural(self.systems.len(), "system", "systems"),
                plural(plan.stages.len(), "stage", "stages"),
            );
            for (number, stage) in plan.stages.iter().enumerate() {
                let names: Vec<String> = stage.iter().map(|&i| self.shown(i, " if ")).collect();
                let ran = match runs.get(number) {
                    Some(Some(run)) => format!(" ({})", ran_text(run)),
                    _ => String::new(),
                };
                out += &format!("  stage {}: {}{ran}\n", number + 1, names.join(", "));
                for &i in stage {
                    if let Some(wait) = &plan.waits[i] {
                        let (earlier, later) = (name(wait.on), name(i));
                        let why = WaitText::new::<S>(earlier, later, wait.reason).why;
                        out += &format!("    {later} waits for {earlier}: {why}\n");
                    }
                }
            }
            if !self.groups.is_empty() {
                out +=
                    "  groups, each condition decided once per run at its first system's turn:\n";
                // In program order, a group before the groups inside it.
                let mut groups: Vec<&Group<S>> = self.groups.iter().collect();
                groups.sort_by_key(|g| (g.systems.start, core::cmp::Reverse(g.systems.end)));
                for group in groups {
                    let names: Vec<&str> = self.systems[group.systems.clone()]
                        .iter()
                        .map(|system| &*system.name)
                        .collect();
                    let condition = group.condition.name();
                    out += &format!("    {} if {condition}\n", names.join(", "));
                }
            }
            for (state, systems) in self.transition_systems() {
                out += &format!("  transitions of {state}, at the start of a run:\n");
                for (label, system) in &systems {
                    out += &format!("    {label}: {system}\n");
                }
                if systems.is_empty() {
                    out += "    (no exit or enter systems)\n";
                }
            }
            out
        })
    }

    /// System `i`'s name, with its run condition after `joint` if it has
    /// one: `physics if in_state(Phase::Playing)`.
    fn shown(&self, i: usize, joint: &str) -> String {
        let system = &self.systems[i];
        match &system.condition {
            Some(condition) => format!("{}{joint}{}", system.name, condition.name()),
            None => system.name.to_string(),
        }
    }

    /// Per state whose transitions this schedule applies: its name and its
    /// exit then enter systems, each with its label (`on_exit(Phase::Menu)`).
    fn transition_systems(&self) -> Vec<(&'static str, Vec<(&str, &str)>)> {
        self.transitions
            .iter()
            .map(|transitions| {
                let full = transitions.state();
                let state = full.rsplit("::").next().unwrap_or(full);
                let systems = transitions
                    .systems()
                    .into_iter()
                    .flat_map(|(schedule, labels)| {
                        let names = schedule.systems.iter().map(|system| &*system.name);
                        labels.iter().map(String::as_str).zip(names)
                    })
                    .collect();
                (state, systems)
            })
            .collect()
    }

    /// Calls `f` with the plan (the one of the last run, or one computed
    /// now) and how each stage ran last time (empty if the schedule has not
    /// run since it last changed).
    fn with_plan<R>(&self, f: impl FnOnce(&Plan, &[Option<StageRun>]) -> R) -> R {
        match &self.plan {
            Some(plan) => f(plan, self.executor.runs()),
            None => f(&Plan::new::<S>(&self.systems, &self.groups), &[]),
        }
    }
}

/// Why one system waits for an earlier one, in the words of
/// [`Schedule::describe`] and of [`Schedule::to_dot`].
struct WaitText {
    /// The whole reason: `inertia writes Pos, which stop reads`.
    why: String,
    /// What it waits for, in a word or two: `Pos`, `commands`.
    what: String,
}

impl WaitText {
    fn new<S: Schema>(earlier: &str, later: &str, reason: Reason) -> Self {
        let conflict = |what: &str, earlier_writes: bool| WaitText {
            why: if earlier_writes {
                format!("{earlier} writes {what}, which {later} reads")
            } else {
                format!("{later} writes {what}, which {earlier} reads")
            },
            what: what.to_owned(),
        };
        match reason {
            Reason::Component {
                bit,
                earlier_writes,
            } => conflict(S::COMPONENT_NAMES[bit as usize], earlier_writes),
            Reason::Resource {
                bit,
                earlier_writes,
            } => conflict(S::RESOURCE_NAMES[bit as usize], earlier_writes),
            Reason::Removals { bit, earlier_logs } => {
                let what = S::COMPONENT_NAMES[bit as usize];
                let (logs, reads) = if earlier_logs {
                    (earlier, later)
                } else {
                    (later, earlier)
                };
                WaitText {
                    why: format!("{logs} removes {what}, whose removals {reads} reads"),
                    what: format!("removals of {what}"),
                }
            }
            Reason::Spawns { earlier_spawns } => {
                let (spawns, walks) = if earlier_spawns {
                    (earlier, later)
                } else {
                    (later, earlier)
                };
                WaitText {
                    why: format!("{spawns} spawns entities that {walks}'s query can reach"),
                    what: "spawns".to_owned(),
                }
            }
            Reason::Moves { earlier_moves } => {
                let (moves, reaches) = if earlier_moves {
                    (earlier, later)
                } else {
                    (later, earlier)
                };
                WaitText {
                    why: format!("{moves} moves entities between tables that {reaches} reaches"),
                    what: "moves".to_owned(),
                }
            }
            Reason::Commands => WaitText {
                why: format!("{later} sees the entities that {earlier}'s commands change"),
                what: "commands".to_owned(),
            },
            Reason::Reservations => WaitText {
                why: format!(
                    "{later} reserves entity ids after {earlier}'s, which are settled when \
                     {earlier} is applied (spawned ids follow program order)"
                ),
                what: "commands (spawned ids)".to_owned(),
            },
            Reason::Group => WaitText {
                why: format!(
                    "the run condition of their group is decided at {earlier}'s turn, so \
                     {later} runs in {earlier}'s stage or later"
                ),
                what: "group condition".to_owned(),
            },
            Reason::World { earlier_exclusive } => {
                let exclusive = if earlier_exclusive { earlier } else { later };
                WaitText {
                    why: format!("{exclusive} takes &mut World<{}>", S::NAME),
                    what: "&mut World".to_owned(),
                }
            }
        }
    }
}

/// How a stage ran, for [`Schedule::describe`].
fn ran_text(run: &StageRun) -> String {
    let how = if run.parallel { "parallel" } else { "inline" };
    let work = duration_text(run.work_ns);
    let why = match run.why {
        Why::OneSystem => return format!("{how} last run: one system"),
        Why::Pays => return format!("{how} last run: {work} of work"),
        Why::Forced => "forced",
        Why::OneThread => "one thread",
        Why::Unmeasured => "first measurement",
        Why::TooLittle => "too little to share",
        Why::Lopsided => "mostly in one system",
    };
    format!("{how} last run: {work} of work, {why}")
}

/// `ns` nanoseconds, to two or three significant digits.
fn duration_text(ns: u64) -> String {
    let ns = ns as f64;
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if value < 10.0 && unit != "ns" {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl<S: Schema> fmt::Debug for Schedule<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}
