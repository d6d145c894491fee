//! A scene hierarchy: the workspace's `benches/hierarchy.rs` (issue 27), on
//! our `ChildOf` relation and on bevy's own (`bevy_ecs::hierarchy`, whose
//! `Children` bevy keeps through component hooks, and whose `despawn`
//! takes the children along). hecs has no hierarchy, so it is left out of
//! these groups; a hand-kept children list on hecs would measure that
//! code, not hecs.
//!
//! * `hierarchy_spawn`: 10,000 children under 100 parents, 100 each, one
//!   `spawn_batch` per parent. Each iteration gets a fresh world holding
//!   the 100 parents, made before timing.
//! * `hierarchy_despawn`: despawn the root of a 10,000-node tree (4 children
//!   a node, breadth first: depth 7), built afresh before each iteration.
//! * `hierarchy_walk`: for each node of the 100,000-node tree that has
//!   children, the sum of one value (its `Transform`'s x translation) of
//!   each child, reached through the child's id: random access by id. The
//!   parents' sums are added up (one chain of dependent additions per
//!   parent, not per child, which would be every contender's floor).
//!   Ours three ways: `World::get` per child, `Query::get` on a query made
//!   for the pass, and a `View` made for the pass; hecs's `World::get` and
//!   its `View` (on a children list kept by hand, which the walk only
//!   reads); bevy's `World::get` and `Query::get` on a kept `QueryState`.
//! * `hierarchy_propagate`: one pass of transform propagation over a
//!   100,000-node tree of the same shape (depth 9): a system in a schedule
//!   (bevy's single-threaded executor) that walks down from the roots with
//!   one query of `(&Transform, &mut GlobalTransform, Option<&Children>)`
//!   and `get_mut`, a stack of (node, parent's global) in place of
//!   recursion. The same code for both, so the difference is the lookups.
//!
//! The baselines, as in the workspace: the scene in plain vectors with
//! children lists of slot indices ([`Floor`]); for propagation `baseline`
//! is one breadth-first sweep reading each parent's global by index, and
//! `baseline_recursive` the walk down the children lists over the same
//! vectors.

use crate::Group;
use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity as BevyEntity;
use bevy_ecs::hierarchy::{ChildOf as BevyChildOf, Children as BevyChildren};
use bevy_ecs::query::{With, Without};
use bevy_ecs::schedule::{Schedule, SingleThreadedExecutor};
use bevy_ecs::system::Query;
use criterion::{BatchSize, Criterion};
use std::hint::black_box;

/// A 3D affine map: a 3x3 linear part (rows first) and a translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine {
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

/// A node's place relative to its parent.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Transform(pub Affine);

/// A node's place in the world.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct GlobalTransform(pub Affine);

/// Our relation; bevy's is `bevy_ecs::hierarchy::ChildOf`.
#[derive(ecs::relation::Relation, Clone, Copy, Debug, PartialEq)]
pub struct ChildOf(pub ecs::entity::Entity);

/// The inverse our world keeps; bevy's is `bevy_ecs::hierarchy::Children`.
#[derive(ecs::relation::Inverse, Clone, Debug, PartialEq)]
pub struct Children(Vec<ecs::entity::Entity>);

#[derive(ecs::schema::Schema)]
pub struct Scene {
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
const FAN_OUT: usize = 4;

/// Node `i`'s parent in a breadth-first tree of `FAN_OUT` children a node.
fn parent_of(i: usize) -> Option<usize> {
    i.checked_sub(1).map(|i| i / FAN_OUT)
}

/// The value `hierarchy_walk` sums: a node's x translation.
fn value(local: &Affine) -> f32 {
    local.t[0]
}

/// Checks a contender's walk against the floor's: the same values, added
/// in another order (each ECS visits the parents in its own order).
fn check_walk(name: &str, sum: f32, expected: f32) {
    assert!(
        (sum - expected).abs() <= expected.abs() * 1e-4,
        "{name}: the walk's sum is {sum}, the floor's {expected}"
    );
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

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchy_spawn");
    let locals_spawn = locals(CHILDREN);
    ours::spawn(&mut group, &locals_spawn);
    hecs_by_hand::spawn(&mut group, &locals_spawn);
    bevy::spawn(&mut group, &locals_spawn);
    floor::spawn(&mut group, &locals_spawn);
    group.finish();

    let mut group = c.benchmark_group("hierarchy_despawn");
    let locals_despawn = locals(DESPAWNED);
    ours::despawn(&mut group, &locals_despawn);
    hecs_by_hand::despawn(&mut group, &locals_despawn);
    bevy::despawn(&mut group, &locals_despawn);
    floor::despawn(&mut group, &locals_despawn);
    group.finish();

    let mut group = c.benchmark_group("hierarchy_walk");
    let locals_walk = locals(PROPAGATED);
    let expected = floor::walk(&mut group, &locals_walk);
    ours::walk(&mut group, &locals_walk, expected);
    hecs_by_hand::walk(&mut group, &locals_walk, expected);
    bevy::walk(&mut group, &locals_walk, expected);
    group.finish();

    let mut group = c.benchmark_group("hierarchy_propagate");
    let locals_propagate = locals(PROPAGATED);
    let expected = floor::propagate(&mut group, &locals_propagate);
    ours::propagate(&mut group, &locals_propagate, &expected);
    bevy::propagate(&mut group, &locals_propagate, &expected);
    group.finish();
}

mod ours {
    use super::*;
    use ecs::{
        entity::Entity, query::Query, query::With, query::Without, relation::Inverse,
        schedule::Schedule, world::World,
    };

    /// A world holding a breadth-first tree of `locals.len()` nodes, and
    /// its entities by node.
    fn tree(locals: &[Affine]) -> (World<Scene>, Vec<Entity>) {
        let mut world = World::<Scene>::new();
        let mut nodes = Vec::with_capacity(locals.len());
        for (i, &l) in locals.iter().enumerate() {
            nodes.push(match parent_of(i) {
                None => world.spawn((Transform(l), GlobalTransform(l))),
                Some(p) => world.spawn((Transform(l), GlobalTransform(l), ChildOf(nodes[p]))),
            });
        }
        (world, nodes)
    }

    pub fn spawn(group: &mut Group, locals: &[Affine]) {
        let setup = || {
            let mut world = World::<Scene>::new();
            let parents: Vec<Entity> = world
                .spawn_batch(
                    locals[..PARENTS]
                        .iter()
                        .map(|&l| (Transform(l), GlobalTransform(l))),
                )
                .collect();
            (world, parents)
        };
        let routine = |(mut world, parents): (World<Scene>, Vec<Entity>)| {
            for (&parent, locals) in parents.iter().zip(locals.chunks(CHILDREN / PARENTS)) {
                world.spawn_batch(
                    locals
                        .iter()
                        .map(|&l| (Transform(l), GlobalTransform(l), ChildOf(parent))),
                );
            }
            (world, parents)
        };
        let (world, parents) = routine(setup());
        assert_eq!(world.len(), PARENTS + CHILDREN);
        assert!(parents
            .iter()
            .all(|&p| world.sources::<ChildOf>(p).len() == CHILDREN / PARENTS));
        group.bench_function("ours", |b| {
            b.iter_batched(setup, routine, BatchSize::SmallInput)
        });
    }

    pub fn despawn(group: &mut Group, locals: &[Affine]) {
        let routine = |(mut world, nodes): (World<Scene>, Vec<Entity>)| {
            world.despawn(nodes[0]).unwrap();
            world
        };
        assert!(routine(tree(locals)).is_empty());
        group.bench_function("ours", |b| {
            b.iter_batched(|| tree(locals), routine, BatchSize::SmallInput)
        });
    }

    /// Writes every node's global transform from the roots down.
    fn propagate_system(
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

    pub fn propagate(group: &mut Group, locals: &[Affine], expected: &[Affine]) {
        let (mut world, nodes) = tree(locals);
        let mut schedule = Schedule::<Scene>::new();
        schedule.add(propagate_system);
        // Every local differs from its global but at the root: the pass
        // must write them all.
        schedule.run(&mut world);
        for (&node, expected) in nodes.iter().zip(expected) {
            assert_eq!(
                world.get::<GlobalTransform>(node).map(|g| g.0),
                Some(*expected)
            );
        }
        group.bench_function("ours", |b| {
            b.iter(|| {
                schedule.run(&mut world);
                black_box(&mut world);
            })
        });
    }

    pub fn walk(group: &mut Group, locals: &[Affine], expected: f32) {
        let (world, _) = tree(locals);
        let world_get = || {
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
        let query_get = || {
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
        let view = || {
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
        check_walk("ours_world_get", world_get(), expected);
        check_walk("ours_query_get", query_get(), expected);
        check_walk("ours_view", view(), expected);
        group.bench_function("ours_view", |b| b.iter(|| black_box(view())));
        group.bench_function("ours_query_get", |b| b.iter(|| black_box(query_get())));
        group.bench_function("ours_world_get", |b| b.iter(|| black_box(world_get())));
    }
}

/// hecs has no hierarchy: each parent's children are kept in a list by
/// hand, as our world and bevy's keep theirs (the parent moves to a table
/// with the list when its first child comes). The walk only reads the
/// lists; the despawn is the recursive one a hecs user writes: take each
/// entity's list out, despawn it, then its children.
mod hecs_by_hand {
    use super::*;

    /// A node's parent.
    struct HecsChildOf(#[allow(dead_code)] hecs::Entity);
    /// A node's children, in the order they were added.
    struct HecsChildren(Vec<hecs::Entity>);

    fn tree(locals: &[Affine]) -> hecs::World {
        let mut world = hecs::World::new();
        let mut nodes = Vec::with_capacity(locals.len());
        for (i, &l) in locals.iter().enumerate() {
            let node = match parent_of(i) {
                None => world.spawn((Transform(l), GlobalTransform(l))),
                Some(p) => {
                    let parent = nodes[p];
                    let node = world.spawn((Transform(l), GlobalTransform(l), HecsChildOf(parent)));
                    if world.satisfies::<&HecsChildren>(parent) {
                        world.get::<&mut HecsChildren>(parent).unwrap().0.push(node);
                    } else {
                        world.insert_one(parent, HecsChildren(vec![node])).unwrap();
                    }
                    node
                }
            };
            nodes.push(node);
        }
        world
    }

    /// 100 parents' children, one `spawn_batch` per parent, then the
    /// parent's list of them.
    pub fn spawn(group: &mut Group, locals: &[Affine]) {
        let setup = || {
            let mut world = hecs::World::new();
            let parents: Vec<hecs::Entity> = world
                .spawn_batch(
                    locals[..PARENTS]
                        .iter()
                        .map(|&l| (Transform(l), GlobalTransform(l))),
                )
                .collect();
            (world, parents)
        };
        let routine = |(mut world, parents): (hecs::World, Vec<hecs::Entity>)| {
            for (&parent, locals) in parents.iter().zip(locals.chunks(CHILDREN / PARENTS)) {
                let children: Vec<hecs::Entity> = world
                    .spawn_batch(
                        locals
                            .iter()
                            .map(|&l| (Transform(l), GlobalTransform(l), HecsChildOf(parent))),
                    )
                    .collect();
                world.insert_one(parent, HecsChildren(children)).unwrap();
            }
            (world, parents)
        };
        let (world, parents) = routine(setup());
        assert_eq!(world.len() as usize, PARENTS + CHILDREN);
        assert!(parents
            .iter()
            .all(|&p| world.get::<&HecsChildren>(p).unwrap().0.len() == CHILDREN / PARENTS));
        group.bench_function("hecs", |b| {
            b.iter_batched(setup, routine, BatchSize::SmallInput)
        });
    }

    /// Despawns `root` and everything under it, depth first.
    fn despawn_tree(world: &mut hecs::World, root: hecs::Entity) {
        let mut pending = vec![root];
        while let Some(node) = pending.pop() {
            if let Ok(mut children) = world.get::<&mut HecsChildren>(node) {
                pending.extend(core::mem::take(&mut children.0).into_iter().rev());
            }
            world.despawn(node).unwrap();
        }
    }

    pub fn despawn(group: &mut Group, locals: &[Affine]) {
        let routine = |mut world: hecs::World| {
            let root = world
                .query::<hecs::Entity>()
                .without::<&HecsChildOf>()
                .iter()
                .next()
                .unwrap();
            despawn_tree(&mut world, root);
            world
        };
        assert!(routine(tree(locals)).is_empty());
        group.bench_function("hecs", |b| {
            b.iter_batched(|| tree(locals), routine, BatchSize::SmallInput)
        });
    }

    pub fn walk(group: &mut Group, locals: &[Affine], expected: f32) {
        let world = tree(locals);
        let get = || {
            let mut sum = 0.0f32;
            for children in world.query::<&HecsChildren>().iter() {
                let mut of_parent = 0.0f32;
                for &child in &children.0 {
                    of_parent += value(&world.get::<&Transform>(child).unwrap().0);
                }
                sum += of_parent;
            }
            sum
        };
        let view = || {
            let mut sum = 0.0f32;
            let transforms = world.view::<&Transform>();
            for children in world.query::<&HecsChildren>().iter() {
                let mut of_parent = 0.0f32;
                for &child in &children.0 {
                    of_parent += value(&transforms.get(child).unwrap().0);
                }
                sum += of_parent;
            }
            sum
        };
        check_walk("hecs_get", get(), expected);
        check_walk("hecs_view", view(), expected);
        group.bench_function("hecs_view", |b| b.iter(|| black_box(view())));
        group.bench_function("hecs_get", |b| b.iter(|| black_box(get())));
    }
}

mod bevy {
    use super::*;
    use bevy_ecs::world::World;

    /// A bevy world holding a breadth-first tree of `locals.len()` nodes,
    /// and its entities by node.
    fn tree(locals: &[Affine]) -> (World, Vec<BevyEntity>) {
        let mut world = World::new();
        let mut nodes = Vec::with_capacity(locals.len());
        for (i, &l) in locals.iter().enumerate() {
            let node = match parent_of(i) {
                None => world.spawn((Transform(l), GlobalTransform(l))),
                Some(p) => world.spawn((Transform(l), GlobalTransform(l), BevyChildOf(nodes[p]))),
            };
            nodes.push(node.id());
        }
        (world, nodes)
    }

    pub fn spawn(group: &mut Group, locals: &[Affine]) {
        let setup = || {
            let mut world = World::new();
            let parents: Vec<BevyEntity> = world
                .spawn_batch(
                    locals[..PARENTS]
                        .iter()
                        .map(|&l| (Transform(l), GlobalTransform(l))),
                )
                .collect();
            (world, parents)
        };
        let routine = |(mut world, parents): (World, Vec<BevyEntity>)| {
            for (&parent, locals) in parents.iter().zip(locals.chunks(CHILDREN / PARENTS)) {
                // Dropping the iterator spawns what it has not handed out.
                world.spawn_batch(
                    locals
                        .iter()
                        .map(|&l| (Transform(l), GlobalTransform(l), BevyChildOf(parent))),
                );
            }
            (world, parents)
        };
        let (mut world, parents) = routine(setup());
        assert_eq!(
            world.query::<&Transform>().iter(&world).count(),
            PARENTS + CHILDREN
        );
        assert!(parents.iter().all(|&p| {
            world.get::<BevyChildren>(p).map(|c| c.len()) == Some(CHILDREN / PARENTS)
        }));
        group.bench_function("bevy", |b| {
            b.iter_batched(setup, routine, BatchSize::SmallInput)
        });
    }

    pub fn despawn(group: &mut Group, locals: &[Affine]) {
        let routine = |(mut world, nodes): (World, Vec<BevyEntity>)| {
            assert!(world.despawn(nodes[0]));
            (world, nodes)
        };
        let (world, nodes) = routine(tree(locals));
        assert!(nodes.iter().all(|&n| world.get_entity(n).is_err()));
        group.bench_function("bevy", |b| {
            b.iter_batched(|| tree(locals), routine, BatchSize::SmallInput)
        });
    }

    /// Writes every node's global transform from the roots down: the code
    /// of ours, on bevy's types.
    fn propagate_system(
        roots: Query<BevyEntity, (With<Transform>, Without<BevyChildOf>)>,
        mut nodes: Query<(&Transform, &mut GlobalTransform, Option<&BevyChildren>)>,
    ) {
        let mut stack: Vec<(BevyEntity, Affine)> = Vec::new();
        let push = |stack: &mut Vec<_>, children: Option<&BevyChildren>, global: Affine| {
            if let Some(children) = children {
                stack.extend(children.iter().rev().map(|&c| (c, global)));
            }
        };
        for root in roots.iter() {
            let Ok((local, mut global, children)) = nodes.get_mut(root) else {
                continue;
            };
            global.0 = local.0;
            push(&mut stack, children, global.0);
            while let Some((node, parent)) = stack.pop() {
                let Ok((local, mut global, children)) = nodes.get_mut(node) else {
                    continue;
                };
                global.0 = parent.then(&local.0);
                push(&mut stack, children, global.0);
            }
        }
    }

    pub fn propagate(group: &mut Group, locals: &[Affine], expected: &[Affine]) {
        let (mut world, nodes) = tree(locals);
        let mut schedule = Schedule::default();
        schedule.set_executor(SingleThreadedExecutor::new());
        schedule.add_systems(propagate_system);
        // The first run also builds the schedule and initialises the system.
        schedule.run(&mut world);
        for (&node, expected) in nodes.iter().zip(expected) {
            assert_eq!(
                world.get::<GlobalTransform>(node).map(|g| g.0),
                Some(*expected)
            );
        }
        group.bench_function("bevy", |b| {
            b.iter(|| {
                schedule.run(&mut world);
                black_box(&mut world);
            })
        });
    }

    pub fn walk(group: &mut Group, locals: &[Affine], expected: f32) {
        let (mut world, _) = tree(locals);
        let parents = world.query::<&BevyChildren>();
        let transforms = world.query::<&Transform>();
        let world = &world;
        let world_get = || {
            let mut sum = 0.0f32;
            for children in parents.query_manual(world).iter() {
                let mut of_parent = 0.0f32;
                for child in children {
                    of_parent += value(&world.get::<Transform>(*child).unwrap().0);
                }
                sum += of_parent;
            }
            sum
        };
        let query_get = || {
            let mut sum = 0.0f32;
            let transforms = transforms.query_manual(world);
            for children in parents.query_manual(world).iter() {
                let mut of_parent = 0.0f32;
                for child in children {
                    of_parent += value(&transforms.get(*child).unwrap().0);
                }
                sum += of_parent;
            }
            sum
        };
        check_walk("bevy_world_get", world_get(), expected);
        check_walk("bevy_cached", query_get(), expected);
        group.bench_function("bevy_cached", |b| b.iter(|| black_box(query_get())));
        group.bench_function("bevy_world_get", |b| b.iter(|| black_box(world_get())));
    }
}

/// The floor: the scene in plain vectors. Entities are slot indices (no
/// generation); one table of rows, swap-removed, with each slot's row.
mod floor {
    use super::*;

    const FREE: u32 = u32::MAX;
    const NO_PARENT: u32 = u32::MAX;

    #[derive(Default)]
    pub struct Floor {
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
            let global = self.globals[row];
            let mut stack: Vec<(u32, Affine)> = Vec::new();
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

    pub fn spawn(group: &mut Group, locals: &[Affine]) {
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
                    for (&parent, locals) in parents.iter().zip(locals.chunks(CHILDREN / PARENTS)) {
                        for &local in locals {
                            floor.spawn(local, Some(parent));
                        }
                    }
                    floor
                },
                BatchSize::SmallInput,
            )
        });
    }

    pub fn despawn(group: &mut Group, locals: &[Affine]) {
        group.bench_function("baseline", |b| {
            b.iter_batched(
                || Floor::tree(locals),
                |mut floor| {
                    floor.despawn_tree(0);
                    floor
                },
                BatchSize::SmallInput,
            )
        });
    }

    /// Adds both propagation floors; returns the globals they compute, by
    /// node, for the contenders to check theirs against.
    pub fn propagate(group: &mut Group, locals: &[Affine]) -> Vec<Affine> {
        let parents: Vec<u32> = (0..locals.len())
            .map(|i| parent_of(i).map_or(NO_PARENT, |p| p as u32))
            .collect();
        let sweep = |globals: &mut [Affine]| {
            // Breadth first: every parent's global is written before its
            // children read it.
            globals[0] = locals[0];
            for i in 1..locals.len() {
                globals[i] = globals[parents[i] as usize].then(&locals[i]);
            }
        };
        let mut globals = locals.to_vec();
        sweep(&mut globals);
        let mut floor = Floor::tree(locals);
        floor.propagate(0);
        assert_eq!(floor.globals, globals);
        let expected = globals.clone();

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
        expected
    }

    /// Adds the walk's floor; returns its sum, for the contenders to check
    /// theirs against.
    pub fn walk(group: &mut Group, locals: &[Affine]) -> f32 {
        let floor = Floor::tree(locals);
        // The parents, breadth first, listed before timing as a game on
        // plain vectors would keep them.
        let parents: Vec<u32> = (0..locals.len() as u32)
            .filter(|&slot| !floor.children[slot as usize].is_empty())
            .collect();
        let walk = || {
            let mut sum = 0.0f32;
            for &parent in &parents {
                let mut of_parent = 0.0f32;
                for &child in &floor.children[parent as usize] {
                    of_parent += value(&floor.locals[floor.rows[child as usize] as usize]);
                }
                sum += of_parent;
            }
            sum
        };
        let sum = walk();
        group.bench_function("baseline", |b| b.iter(|| black_box(walk())));
        sum
    }
}
