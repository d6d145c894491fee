//! Transform propagation over a scene tree: 10,921 nodes, six levels below
//! one root (the root has 8 children, every other node 4, down to depth 6),
//! held together by the schema's `ChildOf` relation and its `Children`
//! inverse, which the world keeps.
//!
//! Each frame, in program order:
//!
//! * `tick` counts the frame (a resource of its own, so it may run beside
//!   `animate`);
//! * `animate` turns every node's local transform by its spin, so each
//!   child circles its parent;
//! * `propagate` writes every node's global transform, parent's global
//!   times its own local, from the roots down.
//!
//! The program keeps its own copy of the tree, as plain vectors, and applies
//! the same arithmetic to it: after 60 frames every global transform in the
//! world must equal, bit for bit, the one a direct recursion over that copy
//! computes. Then it despawns a whole branch (1,365 nodes) with one
//! `despawn`, checks the world's size and what is left, runs 20 frames more
//! and checks again. The same script run with `Schedule::run` and with
//! `run_sequential` must end in the same world (equal checksums). Any
//! mismatch exits non-zero. The time per propagation pass it prints is
//! information only.
//!
//! ```text
//! cargo run --release --example hierarchy
//! ```

use schemecs::checksum::StableHash;
use schemecs::prelude::*;
use std::time::Instant;

/// A 2D affine map: a 2x2 linear part `m` (rows first: rotation and scale)
/// and a translation `t`. `f32`, and still exact to compare: Rust neither
/// reorders nor fuses float operations, so the same `then` on the same
/// inputs gives the same bits wherever it runs.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Affine {
    m: [f32; 4],
    t: [f32; 2],
}

impl Affine {
    /// A turn by `angle` radians, scaled by `scale`, then moved by `t`.
    fn new(angle: f32, scale: f32, t: [f32; 2]) -> Self {
        let (sin, cos) = angle.sin_cos();
        Affine {
            m: [cos * scale, -sin * scale, sin * scale, cos * scale],
            t,
        }
    }

    /// `local` seen from this frame: the map `x -> self(local(x))`.
    fn then(&self, local: &Affine) -> Affine {
        let [a, b, c, d] = self.m;
        let [e, f, g, h] = local.m;
        let [x, y] = local.t;
        Affine {
            m: [a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h],
            t: [a * x + b * y + self.t[0], c * x + d * y + self.t[1]],
        }
    }
}

/// A node's place relative to its parent (to the world, for a root).
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Transform(Affine);
/// A node's place in the world: written by `propagate`.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct GlobalTransform(Affine);
/// How far a node turns about its parent each frame, in radians.
#[derive(Clone, Copy, Debug, PartialEq, StableHash)]
struct Spin(f32);
#[derive(Relation, Clone, Copy, Debug, PartialEq, StableHash)]
struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq, StableHash)]
struct Children(Vec<Entity>);
#[derive(Clone, Debug, Default, PartialEq, StableHash)]
struct Frame(u32);

#[derive(Schema)]
struct Scene {
    /// Despawning a parent despawns its children, and theirs.
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    transform: Transform,
    global: GlobalTransform,
    spin: Spin,
    #[ecs(resource)]
    frame: Frame,
}

const ROOT_FAN_OUT: usize = 8;
const FAN_OUT: usize = 4;
const DEPTH: usize = 6;
const FRAMES: u32 = 60;
const FRAMES_AFTER: u32 = 20;
/// Which of the root's children loses its branch.
const PRUNED: usize = 2;

fn tick(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

/// One frame of a node's local motion: the same step for the world and for
/// the program's own copy.
fn turn(local: &Affine, spin: f32) -> Affine {
    Affine::new(spin, 1.0, [0.0, 0.0]).then(local)
}

fn animate(mut nodes: Query<(&mut Transform, &Spin)>) {
    nodes.for_each_mut(|(local, spin)| local.0 = turn(&local.0, spin.0));
}

/// Writes each node's global transform: its parent's global then its local,
/// from the roots down.
///
/// Why queries with `get_mut` rather than an exclusive `&mut World` system:
/// one query, `(&Transform, &mut GlobalTransform, Option<&Children>)`, hands
/// out all a node needs (what to read, where to write, whom to visit next)
/// in one lookup, and the parameters say exactly what the system touches,
/// so the schedule can run it beside systems on other components. A
/// `&mut World` system runs alone, and since `world.get::<Children>`
/// borrows the world, it would copy each children list before it could
/// write a global. Here only the children's ids go on a stack, each with
/// its parent's global, so the walk needs no recursion; popping in list
/// order makes it depth first, the same order every run (any order gives
/// the same result: a node reads only its parent's value).
fn propagate(
    roots: Query<Entity, (With<Transform>, Without<ChildOf>)>,
    mut nodes: Query<(&Transform, &mut GlobalTransform, Option<&Children>)>,
) {
    let mut stack: Vec<(Entity, Affine)> = Vec::new();
    let push = |stack: &mut Vec<_>, children: Option<&Children>, global: Affine| {
        if let Some(children) = children {
            stack.extend(children.sources().iter().rev().map(|&c| (c, global)));
        }
    };
    for root in roots.iter() {
        let Ok((local, global, children)) = nodes.get_mut(root) else {
            continue;
        };
        global.0 = local.0;
        push(&mut stack, children, global.0);
        while let Some((node, parent)) = stack.pop() {
            let Ok((local, global, children)) = nodes.get_mut(node) else {
                continue;
            };
            global.0 = parent.then(&local.0);
            push(&mut stack, children, global.0);
        }
    }
}

fn schedule() -> Schedule<Scene> {
    let mut schedule = Schedule::new();
    schedule.add(tick).add(animate).add(propagate);
    schedule
}

/// The program's own copy of the tree: node `i` is `entities[i]`.
struct Model {
    entities: Vec<Entity>,
    locals: Vec<Affine>,
    spins: Vec<f32>,
    children: Vec<Vec<usize>>,
    alive: Vec<bool>,
}

impl Model {
    /// Every live node's global transform, by a plain recursion from the
    /// root (node 0); `None` for the despawned.
    fn globals(&self) -> Vec<Option<Affine>> {
        fn visit(model: &Model, node: usize, parent: Option<&Affine>, out: &mut [Option<Affine>]) {
            let global = match parent {
                Some(parent) => parent.then(&model.locals[node]),
                None => model.locals[node],
            };
            out[node] = Some(global);
            for &child in &model.children[node] {
                visit(model, child, Some(&global), out);
            }
        }
        let mut out = vec![None; self.locals.len()];
        if self.alive[0] {
            visit(self, 0, None, &mut out);
        }
        out
    }

    fn animate(&mut self) {
        for (local, &spin) in self.locals.iter_mut().zip(&self.spins) {
            *local = turn(local, spin);
        }
    }

    /// Marks `node` and everything under it despawned; how many.
    fn despawn(&mut self, node: usize) -> usize {
        let mut count = 0;
        let mut pending = vec![node];
        while let Some(next) = pending.pop() {
            self.alive[next] = false;
            count += 1;
            pending.extend(&self.children[next]);
        }
        for list in &mut self.children {
            list.retain(|&child| child != node);
        }
        count
    }
}

/// Spawns the tree level by level, each node with its parent, and returns
/// the world and the program's copy.
fn build() -> (World<Scene>, Model) {
    let mut world = World::<Scene>::new();
    let mut model = Model {
        entities: Vec::new(),
        locals: Vec::new(),
        spins: Vec::new(),
        children: Vec::new(),
        alive: Vec::new(),
    };
    let mut add = |world: &mut World<Scene>, parent: Option<usize>, depth: usize| {
        let i = model.entities.len();
        // Made up but fixed: spread around the parent, smaller further down.
        let angle = i as f32 * 2.399_963;
        let reach = 40.0 / (depth as f32 + 1.0);
        let local = Affine::new(angle, 0.8, [reach * angle.cos(), reach * angle.sin()]);
        let spin = 0.01 + (i % 7) as f32 * 0.003;
        let entity = match parent {
            None => world.spawn((Transform(local), GlobalTransform(local), Spin(spin))),
            Some(p) => world.spawn((
                Transform(local),
                GlobalTransform(local),
                Spin(spin),
                ChildOf(model.entities[p]),
            )),
        };
        model.entities.push(entity);
        model.locals.push(local);
        model.spins.push(spin);
        model.children.push(Vec::new());
        model.alive.push(true);
        if let Some(p) = parent {
            model.children[p].push(i);
        }
        i
    };
    let mut level = vec![add(&mut world, None, 0)];
    for depth in 1..=DEPTH {
        let fan_out = if depth == 1 { ROOT_FAN_OUT } else { FAN_OUT };
        let mut next = Vec::new();
        for &parent in &level {
            for _ in 0..fan_out {
                next.push(add(&mut world, Some(parent), depth));
            }
        }
        level = next;
    }
    (world, model)
}

/// Compares every node of the world with the program's copy; exits
/// non-zero on the first difference.
fn check(world: &World<Scene>, model: &Model, when: &str) {
    let fail = |what: String| -> ! {
        eprintln!("MISMATCH {when}: {what}");
        std::process::exit(1);
    };
    let live = model.alive.iter().filter(|&&a| a).count();
    if world.len() != live {
        fail(format!(
            "the world holds {} entities, expected {live}",
            world.len()
        ));
    }
    for (i, global) in model.globals().into_iter().enumerate() {
        let entity = model.entities[i];
        let Some(global) = global else {
            if world.is_alive(entity) {
                fail(format!("node {i} should have been despawned"));
            }
            continue;
        };
        if world.get::<Transform>(entity) != Some(&Transform(model.locals[i])) {
            fail(format!("node {i}'s local transform"));
        }
        if world.get::<GlobalTransform>(entity) != Some(&GlobalTransform(global)) {
            fail(format!(
                "node {i}'s global transform: {:?} in the world, {global:?} computed",
                world.get::<GlobalTransform>(entity)
            ));
        }
        let children: Vec<Entity> = model.children[i]
            .iter()
            .map(|&c| model.entities[c])
            .collect();
        if world.sources::<ChildOf>(entity) != children {
            fail(format!("node {i}'s children"));
        }
    }
}

/// The whole script, checked against the model twice: frames, one branch
/// despawned, frames again.
fn play(
    world: &mut World<Scene>,
    model: &mut Model,
    run: fn(&mut Schedule<Scene>, &mut World<Scene>),
) {
    let mut schedule = schedule();
    for _ in 0..FRAMES {
        run(&mut schedule, world);
        model.animate();
    }
    check(world, model, "after the first frames");

    let branch = model.children[0][PRUNED];
    let removed = model.despawn(branch);
    if let Err(error) = world.despawn(model.entities[branch]) {
        eprintln!("MISMATCH: {error}");
        std::process::exit(1);
    }
    check(
        world,
        model,
        &format!("after despawning a branch of {removed} nodes"),
    );

    for _ in 0..FRAMES_AFTER {
        run(&mut schedule, world);
        model.animate();
    }
    check(world, model, "after the last frames");
}

fn main() {
    let (mut world, mut model) = build();
    let nodes = world.len();
    println!(
        "a scene tree of {nodes} nodes, depth {DEPTH} (the root has {ROOT_FAN_OUT} children, every other node {FAN_OUT})"
    );

    // Information only: one propagation pass, on a copy of the new tree.
    let mut timed = world.clone();
    let mut alone = Schedule::<Scene>::new();
    alone.add(propagate);
    alone.run(&mut timed);
    const PASSES: u32 = 100;
    let start = Instant::now();
    for _ in 0..PASSES {
        alone.run(&mut timed);
    }
    let per_pass = start.elapsed() / PASSES;
    println!("one propagation pass: {per_pass:?} ({PASSES} passes timed)");

    play(&mut world, &mut model, |s, w| s.run(w));
    println!(
        "checked: after {FRAMES} frames, after despawning a branch ({} nodes left) and after {FRAMES_AFTER} frames more, every node's transforms and children equal the direct recursion's, bit for bit",
        world.len()
    );

    let (mut sequential, mut model) = build();
    play(&mut sequential, &mut model, |s, w| s.run_sequential(w));
    if world.checksum() != sequential.checksum() {
        eprintln!("MISMATCH: Schedule::run and run_sequential end in different worlds");
        std::process::exit(1);
    }
    println!(
        "checked: Schedule::run and run_sequential end with the same world (checksum {:#034x})",
        world.checksum()
    );
}
