//! [`Schedule`]: systems run in program order, in parallel where that cannot
//! change the result.

use crate::lend::{SplitBuffers, SplitWorld};
use crate::schema::Schema;
use crate::system::{Access, IntoSystem, ParamSystem, SystemFn, SystemKind, SystemNode};
use crate::world::World;
use core::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError};

/// An ordered list of systems for worlds of schema `S`.
///
/// **The result of [`Schedule::run`] is defined as running the systems one
/// after another in the order they were added, each system's
/// [`Commands`](crate::Commands) applied right after it, in recording order.**
/// The executor runs systems at the same time (on rayon's thread pool) only
/// where that cannot change the result: a system starts once every earlier
/// system it conflicts with has finished (one writes a component or resource
/// the other reads or writes, on entities both can reach) and every earlier
/// system's commands that it could observe have been applied. Parallel runs are
/// therefore identical, bit for bit, to [`Schedule::run_sequential`], with any
/// number of threads.
///
/// [`Schedule::describe`] shows which systems may run together and why the
/// others wait.
///
/// ```
/// use ecs::prelude::*;
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
/// for _ in 0..5 {
///     schedule.run(&mut world);
/// }
/// assert_eq!(world.get::<Pos>(a), Some(&Pos(12)));
/// assert!(world.has::<Frozen>(a));
/// assert_eq!(world.resource::<Tick>().0, 5);
/// assert_eq!(
///     schedule.describe(),
///     "Schedule<Physics>: 3 systems in 2 stages\n\
///      \x20 stage 1: inertia, count\n\
///      \x20 stage 2: stop\n\
///      \x20   stop waits for inertia: inertia writes Pos, which stop reads\n"
/// );
/// ```
pub struct Schedule<S: Schema> {
    systems: Vec<SystemNode<S>>,
    /// Computed at the first run after a change.
    plan: Option<Plan>,
    /// The memory of the world's split, reused by every run.
    buffers: SplitBuffers<S>,
}

impl<S: Schema> Default for Schedule<S> {
    fn default() -> Self {
        Schedule {
            systems: Vec::new(),
            plan: None,
            buffers: SplitBuffers::default(),
        }
    }
}

// The thread-safety bounds sit on each method rather than on the impl, so a
// schema with an `Rc` in it is reported at the user's call, naming the type.
impl<S: Schema> Schedule<S> {
    /// An empty schedule.
    ///
    /// Running systems in parallel needs every component and resource of `S`
    /// to be `Send + Sync`; a schema with an `Rc` in it fails to compile here.
    pub fn new() -> Self
    where
        S::Column: Send + Sync,
        for<'a> S::ResourceSlots<'a>: Send,
    {
        Self::default()
    }

    /// Appends `system`: it runs after every system added before it, as far
    /// as anyone can tell.
    ///
    /// A system whose parameters conflict with each other (two queries that
    /// can reach the same component with a write, unless their filters are
    /// disjoint; `Res<T>` with `ResMut<T>`) fails to compile here.
    pub fn add<M, T>(&mut self, system: T) -> &mut Self
    where
        T: SystemFn<M> + IntoSystem<S, M>,
        S::Column: Send + Sync,
        for<'a> S::ResourceSlots<'a>: Send,
    {
        const { T::CHECK };
        self.systems.push(system.into_system());
        self.plan = None;
        self
    }

    /// Runs every system once, in parallel where the result cannot differ
    /// from [`Schedule::run_sequential`].
    ///
    /// A panic in a system propagates to the caller once the systems running
    /// beside it have finished; the world stays consistent (no value is lost
    /// or dropped twice), and the commands not applied yet are dropped.
    pub fn run(&mut self, world: &mut World<S>)
    where
        S::Column: Send + Sync,
        for<'a> S::ResourceSlots<'a>: Send,
    {
        let plan = self
            .plan
            .take()
            .unwrap_or_else(|| Plan::new::<S>(&self.systems));
        let result = catch_unwind(AssertUnwindSafe(|| {
            execute(&mut self.systems, &plan.stages, world, &mut self.buffers)
        }));
        self.plan = Some(plan);
        self.finish(result);
    }

    /// Runs every system once, one after another in the order they were
    /// added, each system's commands applied right after it: the definition
    /// of what [`Schedule::run`] computes.
    pub fn run_sequential(&mut self, world: &mut World<S>)
    where
        S::Column: Send + Sync,
        for<'a> S::ResourceSlots<'a>: Send,
    {
        let result = catch_unwind(AssertUnwindSafe(|| {
            for system in &mut self.systems {
                run_alone(system, world, &mut self.buffers);
                apply(system, world);
            }
        }));
        self.finish(result);
    }

    /// After a panic, drops the commands no one will apply, then goes on
    /// unwinding.
    fn finish(&mut self, result: std::thread::Result<()>) {
        if let Err(panic) = result {
            for system in &mut self.systems {
                if let SystemKind::Params(system) = &mut system.kind {
                    system.discard();
                }
            }
            resume_unwind(panic);
        }
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
    /// (they may run at the same time), and for each system that waits, what
    /// it waits for: the component or resource two systems conflict on, an
    /// earlier system's commands, or an exclusive system.
    pub fn describe(&self) -> String {
        let plan = Plan::new::<S>(&self.systems);
        let name = |i: usize| self.systems[i].name;
        let mut out = format!(
            "Schedule<{}>: {} in {}\n",
            S::NAME,
            plural(self.systems.len(), "system", "systems"),
            plural(plan.stages.len(), "stage", "stages"),
        );
        for (number, stage) in plan.stages.iter().enumerate() {
            let names: Vec<&str> = stage.iter().map(|&i| name(i)).collect();
            out += &format!("  stage {}: {}\n", number + 1, names.join(", "));
            for &i in stage {
                for wait in &plan.waits[i] {
                    let (earlier, later) = (name(wait.on), name(i));
                    let why = match wait.reason {
                        Reason::Component {
                            bit,
                            earlier_writes,
                        } => {
                            let component = S::COMPONENT_NAMES[bit as usize];
                            conflict_text(earlier, later, component, earlier_writes)
                        }
                        Reason::Resource {
                            bit,
                            earlier_writes,
                        } => {
                            let resource = S::RESOURCE_NAMES[bit as usize];
                            conflict_text(earlier, later, resource, earlier_writes)
                        }
                        Reason::Commands => {
                            format!("{later} sees the entities that {earlier}'s commands change")
                        }
                        Reason::World { earlier_exclusive } => {
                            let exclusive = if earlier_exclusive { earlier } else { later };
                            format!("{exclusive} takes &mut World<{}>", S::NAME)
                        }
                    };
                    out += &format!("    {later} waits for {earlier}: {why}\n");
                }
            }
        }
        out
    }
}

fn conflict_text(earlier: &str, later: &str, what: &str, earlier_writes: bool) -> String {
    if earlier_writes {
        format!("{earlier} writes {what}, which {later} reads")
    } else {
        format!("{later} writes {what}, which {earlier} reads")
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

/// Runs the stages in order, applying commands in program order as soon as
/// every system up to them has run.
fn execute<S: Schema>(
    systems: &mut [SystemNode<S>],
    stages: &[Vec<usize>],
    world: &mut World<S>,
    buffers: &mut SplitBuffers<S>,
) where
    S::Column: Send + Sync,
    for<'a> S::ResourceSlots<'a>: Send,
{
    let mut done = vec![false; systems.len()];
    let mut applied = 0;
    for stage in stages {
        if let [only] = stage[..] {
            run_alone(&mut systems[only], world, buffers);
        } else {
            run_together(systems, stage, world, buffers);
        }
        for &i in stage {
            done[i] = true;
        }
        while applied < systems.len() && done[applied] {
            apply(&mut systems[applied], world);
            applied += 1;
        }
    }
}

/// Runs one system with the whole world to itself.
fn run_alone<S: Schema>(
    system: &mut SystemNode<S>,
    world: &mut World<S>,
    buffers: &mut SplitBuffers<S>,
) {
    match &mut system.kind {
        SystemKind::Params(system) => {
            system.prepare(world);
            let split = Mutex::new(world.split(buffers));
            system.run(&split);
            let split = split.into_inner().unwrap_or_else(PoisonError::into_inner);
            split.reclaim(buffers);
        }
        SystemKind::Exclusive(system) => system(world),
    }
}

/// Runs the systems of `stage` (none exclusive, their accesses disjoint) at
/// the same time, each on its part of the split world.
fn run_together<S: Schema>(
    systems: &mut [SystemNode<S>],
    stage: &[usize],
    world: &mut World<S>,
    buffers: &mut SplitBuffers<S>,
) where
    S::Column: Send + Sync,
    for<'a> S::ResourceSlots<'a>: Send,
{
    let mut members: Vec<&mut dyn ParamSystem<S>> = Vec::with_capacity(stage.len());
    for (i, system) in systems.iter_mut().enumerate() {
        if stage.contains(&i) {
            match &mut system.kind {
                SystemKind::Params(system) => {
                    system.prepare(world);
                    members.push(&mut **system);
                }
                SystemKind::Exclusive(_) => unreachable!("an exclusive system runs alone"),
            }
        }
    }
    let split: Mutex<SplitWorld<'_, S>> = Mutex::new(world.split(buffers));
    let mut members = members.into_iter();
    let first = members.next();
    // The body runs on this thread (no hand-off to the pool and back); only
    // the other systems are sent to the pool.
    rayon::in_place_scope(|scope| {
        let split = &split;
        for system in members {
            scope.spawn(move |_| system.run(split));
        }
        if let Some(system) = first {
            system.run(split);
        }
    });
    let split = split.into_inner().unwrap_or_else(PoisonError::into_inner);
    split.reclaim(buffers);
}

fn apply<S: Schema>(system: &mut SystemNode<S>, world: &mut World<S>) {
    if let SystemKind::Params(system) = &mut system.kind {
        system.apply(world);
    }
}

/// Which systems run in which stage, and why each waits.
struct Plan {
    /// System indices per stage, in program order.
    stages: Vec<Vec<usize>>,
    /// Per system: the earlier systems it must run after.
    waits: Vec<Vec<Wait>>,
}

struct Wait {
    on: usize,
    reason: Reason,
}

#[derive(Clone, Copy)]
enum Reason {
    Component { bit: u32, earlier_writes: bool },
    Resource { bit: u32, earlier_writes: bool },
    Commands,
    World { earlier_exclusive: bool },
}

impl Plan {
    /// Places each system in the earliest stage where running it cannot
    /// change the result of running the systems in program order:
    ///
    /// * after every earlier system it conflicts with;
    /// * after the stage where the commands of an earlier system are applied,
    ///   if it could observe them (it queries the world) — commands are
    ///   applied in program order, so that is once every system up to that
    ///   one has run;
    /// * an exclusive system, after everything before it (and everything
    ///   after it conflicts with it).
    fn new<S: Schema>(systems: &[SystemNode<S>]) -> Plan {
        let n = systems.len();
        let mut stage_of = vec![0usize; n];
        // The stage after which the commands of systems ..=i are applied.
        let mut applied_after = vec![0usize; n];
        let mut waits: Vec<Vec<Wait>> = (0..n).map(|_| Vec::new()).collect();
        for i in 0..n {
            let later = systems[i].access;
            let exclusive = later.iter().any(|access| access.world);
            let observes = later.iter().any(|access| access.observes_entities);
            let mut stage = 0;
            if exclusive && i > 0 {
                stage = applied_after[i - 1] + 1;
            }
            for j in 0..i {
                let earlier = systems[j].access;
                if let Some(reason) = conflict(earlier, later) {
                    stage = stage.max(stage_of[j] + 1);
                    waits[i].push(Wait { on: j, reason });
                } else if observes && earlier.iter().any(|access| access.commands) {
                    stage = stage.max(applied_after[j] + 1);
                    waits[i].push(Wait {
                        on: j,
                        reason: Reason::Commands,
                    });
                }
            }
            stage_of[i] = stage;
            applied_after[i] = if i == 0 {
                stage
            } else {
                stage.max(applied_after[i - 1])
            };
        }
        let stages_len = stage_of.iter().map(|&stage| stage + 1).max().unwrap_or(0);
        let mut stages = vec![Vec::new(); stages_len];
        for (i, &stage) in stage_of.iter().enumerate() {
            stages[stage].push(i);
        }
        Plan { stages, waits }
    }
}

/// Why two systems (their parameters' accesses) cannot run at once, if so.
fn conflict(earlier: &[Access], later: &[Access]) -> Option<Reason> {
    // Checked apart from the pairs below: a system without parameters has
    // no accesses to pair with, but it still may not run beside an
    // exclusive system.
    let exclusive = |accesses: &[Access]| accesses.iter().any(|access| access.world);
    if exclusive(earlier) || exclusive(later) {
        return Some(Reason::World {
            earlier_exclusive: exclusive(earlier),
        });
    }
    for a in earlier {
        for b in later {
            let components = a.component_conflicts(b);
            if components != 0 {
                let bit = components.trailing_zeros();
                return Some(Reason::Component {
                    bit,
                    earlier_writes: a.writes & (1 << bit) != 0,
                });
            }
            let resources = a.resource_conflicts(b);
            if resources != 0 {
                let bit = resources.trailing_zeros();
                return Some(Reason::Resource {
                    bit,
                    earlier_writes: a.resource_writes & (1 << bit) != 0,
                });
            }
        }
    }
    None
}
