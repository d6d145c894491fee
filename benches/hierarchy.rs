//! A scene hierarchy (issue 27): entities joined by a `ChildOf` relation
//! whose `Children` inverse the world keeps, each with a local and a global
//! 3D affine transform (48 bytes each).
//!
//! * `hierarchy_spawn`: spawn 10,000 children under 100 parents, 100 each,
//!   one `spawn_batch` per parent. The world and its 100 parents are made
//!   before timing (each iteration gets a fresh one), so the timed region is
//!   the children: their rows, and each parent's `Children` list (its first
//!   child moves the parent to the table with the list).
//! * `hierarchy_despawn`: despawn the root of a 10,000-node tree (4 children
//!   a node, breadth first: depth 7); the whole tree goes. The tree is
//!   built before timing, afresh for each iteration.
//! * `hierarchy_propagate`: one pass of transform propagation (each node's
//!   global = its parent's global then its local, from the roots down) over
//!   a 100,000-node tree of the same shape (depth 9), as a system in a
//!   `Schedule`.
//! * `hierarchy_walk`: for each node of the 100,000-node tree that has
//!   children, the sum of one value (its `Transform`'s x translation) of
//!   each child, reached through the child's id: random access by id, as
//!   a game reads its children, targets or neighbours. The parents' sums
//!   are added up, so that the chain of dependent additions is one per
//!   parent, not one per child (a chain of 100,000 would be the floor of
//!   every contender and hide the lookups). `world_get` calls
//!   [`World::get`] per child, `query_get` calls [`Query::get`] on a query
//!   kept for the loop, `view` reads through a [`View`] kept for the loop.
//!
//! Beside each, the floor: the same scene in plain vectors, entities as
//! slot indices with no generation, one table, and children lists of slot
//! indices (`Floor`). For propagation two: `baseline`, one sweep over the
//! nodes in breadth-first order, each reading its parent's global by index
//! (the least work there is: no lists, no lookups), and
//! `baseline_recursive`, the walk an ECS does (down the children lists, a
//! stack of (node, parent's global), each node's row looked up from its
//! slot) over the floor's vectors. For the walk, the floor's children
//! lists and one load of each child's row through its slot.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ecs::prelude::*;
use std::hint::black_box;

/// A 3D affine map: a 3x3 linear part (rows first) and a translation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Affine {
    m: [f32; 9],
    t: [f32; 3],
}

impl Affine {
    /// A turn by `angle` about z, scaled by `scale`, then moved by `t`.
    fn new(angle: f32, scale: f32, t: [f32; 3]) -> Self {
        let (sin, cos) = angle.sin_cos();
        let (c, s) = (cos * scale, sin * scale);
        Affine {
            m: [c, -s, 0.0, s, c, 0.0, 0.0, 0.0, scale],
            t,
        }
    }

    /// `local` seen from this frame: the map `x -> self(local(x))`.
    #[inline]
    fn then(&self, local: &Affine) -> Affine {
        let (a, b) = (&self.m, &local.m);
        let mut m = [0.0; 9];
        let mut t = self.t;
        for row in 0..3 {
            for col in 0..3 {
                m[row * 3 + col] =
                    a[row * 3] * b[col] + a[row * 3 + 1] * b[3 + col] + a[row * 3 + 2] * b[6 + col];
            }
            t[row] +=
                a[row * 3] * local.t[0] + a[row * 3 + 1] * local.t[1] + a[row * 3 + 2] * local.t[2];
        }
        Affine { m, t }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Transform(Affine);
#[derive(Clone, Copy, Debug, PartialEq)]
struct GlobalTransform(Affine);
#[derive(Relation, Clone, Copy, Debug, PartialEq)]
struct ChildOf(Entity);
#[derive(Inverse, Clone, Debug, PartialEq)]
struct Children(Vec<Entity>);

#[derive(Schema)]
struct Scene {
    #[ecs(relation(inverse = children, on_target_despawn = despawn))]
    child_of: ChildOf,
    children: Children,
    transform: Transform,
    global: GlobalTransform,
}

const PARENTS: usize = 100;
const CHILDREN: usize = 10_000;
const DESPAWNED: usize = 10_000;
const PROPAGATED: usize = 100_000;
/// Children per node in the trees of `hierarchy_despawn` and
/// `hierarchy_propagate`.
const FAN_OUT: usize = 4;

/// Node `i`'s parent in a breadth-first tree of `FAN_OUT` children a node.
fn parent_of(i: usize) -> Option<usize> {
    i.checked_sub(1).map(|i| i / FAN_OUT)
}

/// Made up but fixed local transforms, one per node.
fn locals(count: usize) -> Vec<Affine> {
    (0..count)
        .map(|i| {
            let angle = i as f32 * 0.618;
            Affine::new(angle, 0.9, [angle.cos(), angle.sin(), 0.5])
        })
        .collect()
}

/// A world holding a breadth-first tree of `locals.len()` nodes, and its
/// entities by node.
fn tree(locals: &[Affine]) -> (World<Scene>, Vec<Entity>) {
    let mut world = World::<Scene>::new();
    let mut nodes = Vec::with_capacity(locals.len());
    for (i, &local) in locals.iter().enumerate() {
        let node = (Transform(local), GlobalTransform(local));
        nodes.push(match parent_of(i) {
            None => world.spawn(node),
            Some(p) => world.spawn((node.0, node.1, ChildOf(nodes[p]))),
        });
    }
    (world, nodes)
}

/// Writes every node's global transform from the roots down: the system
/// of examples/hierarchy.rs, in 3D.
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

/// The floor: the scene in plain vectors. Entities are slot indices (no
/// generation); one table of rows, swap-removed, with each slot's row.
#[derive(Default)]
struct Floor {
    /// Per slot: its row in the table (`FREE` if none).
    rows: Vec<u32>,
    /// Per slot: its children's slots, in the order they were added.
    children: Vec<Vec<u32>>,
    free: Vec<u32>,
    // The table, by row.
    slots: Vec<u32>,
    locals: Vec<Affine>,
    globals: Vec<Affine>,
    parents: Vec<u32>,
}

const FREE: u32 = u32::MAX;
const NO_PARENT: u32 = u32::MAX;

impl Floor {
    fn spawn(&mut self, local: Affine, parent: Option<u32>) -> u32 {
        let row = self.slots.len() as u32;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.rows[slot as usize] = row;
                slot
            }
            None => {
                self.rows.push(row);
                self.children.push(Vec::new());
                (self.rows.len() - 1) as u32
            }
        };
        self.slots.push(slot);
        self.locals.push(local);
        self.globals.push(local);
        self.parents.push(parent.unwrap_or(NO_PARENT));
        if let Some(parent) = parent {
            self.children[parent as usize].push(slot);
        }
        slot
    }

    /// Despawns `root` and everything under it, depth first.
    fn despawn_tree(&mut self, root: u32) {
        let parent = self.parents[self.rows[root as usize] as usize];
        if parent != NO_PARENT {
            let siblings = &mut self.children[parent as usize];
            if let Some(at) = siblings.iter().rposition(|&s| s == root) {
                siblings.remove(at);
            }
        }
        let mut pending = vec![root];
        while let Some(slot) = pending.pop() {
            let children = core::mem::take(&mut self.children[slot as usize]);
            pending.extend(children.iter().rev());
            let row = core::mem::replace(&mut self.rows[slot as usize], FREE) as usize;
            self.slots.swap_remove(row);
            self.locals.swap_remove(row);
            self.globals.swap_remove(row);
            self.parents.swap_remove(row);
            if let Some(&moved) = self.slots.get(row) {
                self.rows[moved as usize] = row as u32;
            }
            self.free.push(slot);
        }
    }

    /// The walk an ECS makes: from `root` down the children lists.
    fn propagate(&mut self, root: u32) {
        let row = self.rows[root as usize] as usize;
        self.globals[row] = self.locals[row];
        let mut stack: Vec<(u32, Affine)> = Vec::new();
        let global = self.globals[row];
        stack.extend(
            self.children[root as usize]
                .iter()
                .rev()
                .map(|&c| (c, global)),
        );
        while let Some((slot, parent)) = stack.pop() {
            let row = self.rows[slot as usize] as usize;
            let global = parent.then(&self.locals[row]);
            self.globals[row] = global;
            stack.extend(
                self.children[slot as usize]
                    .iter()
                    .rev()
                    .map(|&c| (c, global)),
            );
        }
    }

    fn tree(locals: &[Affine]) -> Floor {
        let mut floor = Floor::default();
        for (i, &local) in locals.iter().enumerate() {
            floor.spawn(local, parent_of(i).map(|p| p as u32));
        }
        floor
    }
}

fn spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchy_spawn");
    let locals = locals(CHILDREN);
    let per_parent = CHILDREN / PARENTS;

    group.bench_function("ecs", |b| {
        b.iter_batched(
            || {
                let mut world = World::<Scene>::new();
                let parents: Vec<Entity> = world
                    .spawn_batch(
                        locals[..PARENTS]
                            .iter()
                            .map(|&l| (Transform(l), GlobalTransform(l))),
                    )
                    .collect();
                (world, parents)
            },
            |(mut world, parents)| {
                for (&parent, locals) in parents.iter().zip(locals.chunks(per_parent)) {
                    world.spawn_batch(
                        locals
                            .iter()
                            .map(|&l| (Transform(l), GlobalTransform(l), ChildOf(parent))),
                    );
                }
                world
            },
            BatchSize::SmallInput,
        )
    });

    group.bench_function("baseline", |b| {
        b.iter_batched(
            || {
                let mut floor = Floor::default();
                let parents: Vec<u32> = locals[..PARENTS]
                    .iter()
                    .map(|&l| floor.spawn(l, None))
                    .collect();
                (floor, parents)
            },
            |(mut floor, parents)| {
                for (&parent, locals) in parents.iter().zip(locals.chunks(per_parent)) {
                    for &local in locals {
                        floor.spawn(local, Some(parent));
                    }
                }
                floor
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn despawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchy_despawn");
    let locals = locals(DESPAWNED);

    group.bench_function("ecs", |b| {
        b.iter_batched(
            || tree(&locals),
            |(mut world, nodes)| {
                world.despawn(nodes[0]).unwrap();
                debug_assert!(world.is_empty());
                world
            },
            BatchSize::SmallInput,
        )
    });

    group.bench_function("baseline", |b| {
        b.iter_batched(
            || Floor::tree(&locals),
            |mut floor| {
                floor.despawn_tree(0);
                debug_assert!(floor.slots.is_empty());
                floor
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn propagation(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchy_propagate");
    let locals = locals(PROPAGATED);

    let (mut world, nodes) = tree(&locals);
    let mut schedule = Schedule::<Scene>::new();
    schedule.add(propagate);
    schedule.run(&mut world);
    group.bench_function("ecs", |b| {
        b.iter(|| {
            schedule.run(&mut world);
            black_box(&mut world);
        })
    });

    // The same results as the floor's walk, which the sweep's are too.
    let mut floor = Floor::tree(&locals);
    floor.propagate(0);
    let last = nodes[PROPAGATED - 1];
    assert_eq!(
        world.get::<GlobalTransform>(last).map(|g| g.0),
        Some(floor.globals[PROPAGATED - 1])
    );

    let parents: Vec<u32> = (0..PROPAGATED)
        .map(|i| parent_of(i).map_or(NO_PARENT, |p| p as u32))
        .collect();
    let mut globals = locals.clone();
    let sweep = |globals: &mut Vec<Affine>| {
        // Breadth first: every parent's global is written before its
        // children read it.
        globals[0] = locals[0];
        for i in 1..PROPAGATED {
            globals[i] = globals[parents[i] as usize].then(&locals[i]);
        }
    };
    // Checked before timing, so that a run filtered to other benchmarks
    // (which skips the closure below) checks it too.
    sweep(&mut globals);
    assert_eq!(globals, floor.globals);
    group.bench_function("baseline", |b| {
        b.iter(|| {
            sweep(&mut globals);
            black_box(&mut globals);
        })
    });

    group.bench_function("baseline_recursive", |b| {
        b.iter(|| {
            floor.propagate(0);
            black_box(&mut floor.globals);
        })
    });
    group.finish();
}

/// The value the walk sums: a node's x translation.
fn value(local: &Affine) -> f32 {
    local.t[0]
}

fn walk(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchy_walk");
    let locals = locals(PROPAGATED);
    let (world, _) = tree(&locals);
    let floor = Floor::tree(&locals);

    // The floor's parents, in the order the world's query visits them (so
    // that the sums are added in the same order), listed before timing as
    // a game on plain vectors would keep them.
    let parents: Vec<usize> = world
        .query::<(Entity, &Children)>()
        .iter()
        .map(|(parent, _)| parent.index() as usize)
        .collect();
    let by_floor = || {
        let mut sum = 0.0f32;
        for &parent in &parents {
            let mut of_parent = 0.0f32;
            for &child in &floor.children[parent] {
                of_parent += value(&floor.locals[floor.rows[child as usize] as usize]);
            }
            sum += of_parent;
        }
        sum
    };
    let by_world_get = || {
        let mut sum = 0.0f32;
        for children in world.query::<&Children>().iter() {
            let mut of_parent = 0.0f32;
            for &child in children.sources() {
                of_parent += value(&world.get::<Transform>(child).unwrap().0);
            }
            sum += of_parent;
        }
        sum
    };
    let by_query_get = || {
        let mut sum = 0.0f32;
        let transforms = world.query::<&Transform>();
        for children in world.query::<&Children>().iter() {
            let mut of_parent = 0.0f32;
            for &child in children.sources() {
                of_parent += value(&transforms.get(child).unwrap().0);
            }
            sum += of_parent;
        }
        sum
    };
    let by_view = || {
        let mut sum = 0.0f32;
        let transforms = world.view::<Transform>();
        for children in world.query::<&Children>().iter() {
            let mut of_parent = 0.0f32;
            for &child in children.sources() {
                of_parent += value(&transforms.get(child).unwrap().0);
            }
            sum += of_parent;
        }
        sum
    };
    // The same sum each way, in the same order (each parent's children in
    // the order they were added), checked before timing.
    let expected = by_floor();
    assert_eq!(by_world_get(), expected);
    assert_eq!(by_query_get(), expected);
    assert_eq!(by_view(), expected);

    group.bench_function("ecs/world_get", |b| b.iter(|| black_box(by_world_get())));
    group.bench_function("ecs/query_get", |b| b.iter(|| black_box(by_query_get())));
    group.bench_function("ecs/view", |b| b.iter(|| black_box(by_view())));
    group.bench_function("baseline", |b| b.iter(|| black_box(by_floor())));
    group.finish();
}

criterion_group!(benches, spawn, despawn, propagation, walk);
criterion_main!(benches);
