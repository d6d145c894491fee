//! What several workloads share: the body components of simple_insert,
//! simple_iter and heavy_compute, 4x4 matrix arithmetic, bevy's task pool,
//! and the hand-written tables that are add_remove's baseline.

use bevy_ecs::component::Component;
use bevy_tasks::{ComputeTaskPool, TaskPool};

/// A 4x4 matrix, rows first.
pub type Matrix = [[f32; 4]; 4];

/// A 4x4 transform; read only by heavy_compute, carried by the others.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Transform(pub Matrix);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Position(pub [f32; 3]);

/// Carried through every workload, never read: part of the payload.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Rotation(pub [f32; 3]);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub [f32; 3]);

/// Our schema for the body components.
#[derive(ecs::schema::Schema)]
pub struct Body {
    transform: Transform,
    position: Position,
    rotation: Rotation,
    velocity: Velocity,
}

/// The components every body entity starts with.
pub type BodyBundle = (Transform, Position, Rotation, Velocity);

/// `count` body entities in our world, made with `spawn_batch`.
pub fn ours_bodies(count: usize, transform: Transform) -> ecs::world::World<Body> {
    let mut world = ecs::world::World::new();
    world.spawn_batch((0..count).map(|_| body(transform)));
    world
}

/// `count` body entities in a hecs world.
pub fn hecs_bodies(count: usize, transform: Transform) -> hecs::World {
    let mut world = hecs::World::new();
    world.spawn_batch((0..count).map(|_| body(transform)));
    world
}

/// `count` body entities in a bevy world.
pub fn bevy_bodies(count: usize, transform: Transform) -> bevy_ecs::world::World {
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..count).map(|_| body(transform)));
    world
}

/// The components of one body: `transform` and unit x vectors.
#[inline(always)]
pub fn body(transform: Transform) -> BodyBundle {
    (
        transform,
        Position([1.0, 0.0, 0.0]),
        Rotation([1.0, 0.0, 0.0]),
        Velocity([1.0, 0.0, 0.0]),
    )
}

/// The body components as parallel vectors: the floor for this layout.
pub struct Bodies {
    pub transforms: Vec<Transform>,
    pub positions: Vec<Position>,
    pub rotations: Vec<Rotation>,
    pub velocities: Vec<Velocity>,
}

impl Bodies {
    /// Empty vectors with room for `capacity` bodies.
    pub fn with_capacity(capacity: usize) -> Self {
        Bodies {
            transforms: Vec::with_capacity(capacity),
            positions: Vec::with_capacity(capacity),
            rotations: Vec::with_capacity(capacity),
            velocities: Vec::with_capacity(capacity),
        }
    }

    /// `count` bodies.
    pub fn new(count: usize, transform: Transform) -> Self {
        let mut bodies = Self::with_capacity(count);
        for _ in 0..count {
            bodies.push(body(transform));
        }
        bodies
    }

    #[inline(always)]
    pub fn push(&mut self, (transform, position, rotation, velocity): BodyBundle) {
        self.transforms.push(transform);
        self.positions.push(position);
        self.rotations.push(rotation);
        self.velocities.push(velocity);
    }
}

/// The identity matrix.
pub fn identity() -> Transform {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    Transform(m)
}

/// A rotation by `angle` radians about the x axis.
pub fn rotation_x(angle: f32) -> Transform {
    let (sin, cos) = angle.sin_cos();
    Transform([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, cos, -sin, 0.0],
        [0.0, sin, cos, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ])
}

/// The inverse of `m`, or `None` if its determinant is zero.
///
/// Laplace expansion by complementary minors: the six 2x2 minors of the top
/// two rows and the six of the bottom two give the determinant and every
/// cofactor, so no minor is computed twice.
#[inline]
pub fn invert(m: &Matrix) -> Option<Matrix> {
    let [[a00, a01, a02, a03], [a10, a11, a12, a13], [a20, a21, a22, a23], [a30, a31, a32, a33]] =
        *m;
    // Minors of rows 0 and 1; the digits name the two columns.
    let s01 = a00 * a11 - a01 * a10;
    let s02 = a00 * a12 - a02 * a10;
    let s03 = a00 * a13 - a03 * a10;
    let s12 = a01 * a12 - a02 * a11;
    let s13 = a01 * a13 - a03 * a11;
    let s23 = a02 * a13 - a03 * a12;
    // Minors of rows 2 and 3.
    let c01 = a20 * a31 - a21 * a30;
    let c02 = a20 * a32 - a22 * a30;
    let c03 = a20 * a33 - a23 * a30;
    let c12 = a21 * a32 - a22 * a31;
    let c13 = a21 * a33 - a23 * a31;
    let c23 = a22 * a33 - a23 * a32;

    let det = s01 * c23 - s02 * c13 + s03 * c12 + s12 * c03 - s13 * c02 + s23 * c01;
    if det == 0.0 {
        return None;
    }
    let r = 1.0 / det;
    Some([
        [
            (a11 * c23 - a12 * c13 + a13 * c12) * r,
            (-a01 * c23 + a02 * c13 - a03 * c12) * r,
            (a31 * s23 - a32 * s13 + a33 * s12) * r,
            (-a21 * s23 + a22 * s13 - a23 * s12) * r,
        ],
        [
            (-a10 * c23 + a12 * c03 - a13 * c02) * r,
            (a00 * c23 - a02 * c03 + a03 * c02) * r,
            (-a30 * s23 + a32 * s03 - a33 * s02) * r,
            (a20 * s23 - a22 * s03 + a23 * s02) * r,
        ],
        [
            (a10 * c13 - a11 * c03 + a13 * c01) * r,
            (-a00 * c13 + a01 * c03 - a03 * c01) * r,
            (a30 * s13 - a31 * s03 + a33 * s01) * r,
            (-a20 * s13 + a21 * s03 - a23 * s01) * r,
        ],
        [
            (-a10 * c12 + a11 * c02 - a12 * c01) * r,
            (a00 * c12 - a01 * c02 + a02 * c01) * r,
            (-a30 * s12 + a31 * s02 - a32 * s01) * r,
            (a20 * s12 - a21 * s02 + a22 * s01) * r,
        ],
    ])
}

/// `m` applied to the direction `v` (w = 0: the translation is ignored).
#[inline]
pub fn transform_vector(m: &Matrix, v: [f32; 3]) -> [f32; 3] {
    let mut out = [0.0; 3];
    for (o, row) in out.iter_mut().zip(m) {
        *o = row[0] * v[0] + row[1] * v[1] + row[2] * v[2];
    }
    out
}

/// Starts bevy's compute task pool (one thread per core) if it is not
/// running yet. Bevy's parallel queries and multi-threaded executor use it;
/// call this outside the timed region.
pub fn bevy_task_pool() {
    ComputeTaskPool::get_or_init(TaskPool::default);
}

/// add_remove's baseline: the least work an archetype ECS must do to insert
/// and remove `B`. Two hand-written struct-of-arrays tables, `{A}` and
/// `{A, B}`, an entity → (table, row) map, and swap-remove moves that fix up
/// the moved entity's row. The same logic as the workspace's
/// `benches/add_remove.rs`.
pub mod two_tables {
    /// One hand-written table: entity ids and the columns.
    #[derive(Default)]
    pub struct Table<C> {
        entities: Vec<u32>,
        columns: C,
    }

    /// Where an entity is: which table, which row.
    #[derive(Clone, Copy)]
    struct Location {
        in_ab: bool,
        row: u32,
    }

    /// `count` entities, all in the table `{A}`.
    pub struct Baseline<A, B> {
        locations: Vec<Location>,
        only_a: Table<Vec<A>>,
        a_and_b: Table<(Vec<A>, Vec<B>)>,
    }

    impl<A: Clone, B> Baseline<A, B> {
        pub fn new(count: usize, a: A) -> Self {
            Baseline {
                locations: (0..count as u32)
                    .map(|row| Location { in_ab: false, row })
                    .collect(),
                only_a: Table {
                    entities: (0..count as u32).collect(),
                    columns: vec![a; count],
                },
                a_and_b: Table {
                    entities: Vec::new(),
                    columns: (Vec::new(), Vec::new()),
                },
            }
        }
    }

    impl<A, B> Baseline<A, B> {
        /// Swap-removes `row` of a table's entity list and fixes the location
        /// of the entity moved into it.
        fn remove_row(locations: &mut [Location], entities: &mut Vec<u32>, row: usize) {
            entities.swap_remove(row);
            if let Some(&moved) = entities.get(row) {
                locations[moved as usize].row = row as u32;
            }
        }

        /// Moves `entity` from `{A}` to `{A, B}`.
        pub fn insert_b(&mut self, entity: u32, b: B) {
            let location = self.locations[entity as usize];
            debug_assert!(!location.in_ab);
            let row = location.row as usize;
            let a = self.only_a.columns.swap_remove(row);
            Self::remove_row(&mut self.locations, &mut self.only_a.entities, row);
            let target = &mut self.a_and_b;
            self.locations[entity as usize] = Location {
                in_ab: true,
                row: target.entities.len() as u32,
            };
            target.entities.push(entity);
            target.columns.0.push(a);
            target.columns.1.push(b);
        }

        /// Moves `entity` from `{A, B}` back to `{A}`, returning its `B`.
        pub fn remove_b(&mut self, entity: u32) -> B {
            let location = self.locations[entity as usize];
            debug_assert!(location.in_ab);
            let row = location.row as usize;
            let a = self.a_and_b.columns.0.swap_remove(row);
            let b = self.a_and_b.columns.1.swap_remove(row);
            Self::remove_row(&mut self.locations, &mut self.a_and_b.entities, row);
            let target = &mut self.only_a;
            self.locations[entity as usize] = Location {
                in_ab: false,
                row: target.entities.len() as u32,
            };
            target.entities.push(entity);
            target.columns.push(a);
            b
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(a: &Matrix, b: &Matrix) -> Matrix {
        let mut out = [[0.0; 4]; 4];
        for (i, row) in out.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = (0..4).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        out
    }

    fn assert_identity(m: &Matrix) {
        for (i, row) in m.iter().enumerate() {
            for (j, &cell) in row.iter().enumerate() {
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((cell - expected).abs() < 1e-5, "{m:?}");
            }
        }
    }

    #[test]
    fn inverse_times_matrix_is_identity() {
        let general = [
            [2.0, 0.5, -1.0, 3.0],
            [0.0, 1.5, 2.0, -0.5],
            [1.0, -2.0, 0.25, 1.0],
            [0.5, 0.0, 1.0, 2.0],
        ];
        for m in [general, rotation_x(1.2).0, identity().0] {
            let inverse = invert(&m).unwrap();
            assert_identity(&product(&m, &inverse));
            assert_identity(&product(&inverse, &m));
        }
    }

    #[test]
    fn singular_matrices_have_no_inverse() {
        let mut m = identity().0;
        m[2] = [0.0; 4];
        assert_eq!(invert(&m), None);
    }

    #[test]
    fn transform_vector_ignores_translation() {
        let mut m = rotation_x(std::f32::consts::FRAC_PI_2).0;
        m[0][3] = 5.0;
        let v = transform_vector(&m, [1.0, 1.0, 0.0]);
        assert!((v[0] - 1.0).abs() < 1e-6 && v[1].abs() < 1e-6 && (v[2] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn two_tables_round_trip() {
        let mut base = two_tables::Baseline::<u8, u16>::new(3, 7);
        base.insert_b(1, 10);
        base.insert_b(0, 20);
        assert_eq!(base.remove_b(1), 10);
        assert_eq!(base.remove_b(0), 20);
    }
}
