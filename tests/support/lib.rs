//! Helpers shared by the integration tests and the benchmarks of the `ecs`
//! workspace: a seeded random number generator, drop counters and an
//! allocation-counting allocator.

// The one `unsafe` is the counting allocator's forwarding to `System`.
#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod counting;

pub use counting::{allocations, Counting};

/// The local of a system whose world a test saves: [`ecs::system::SavedLocal`] with
/// feature `serde` (a save writes only those, and refuses a world holding a
/// plain `Local`'s value), [`ecs::system::Local`] without, so that one test runs
/// both ways.
#[cfg(feature = "serde")]
pub type SavedOrLocal<'s, T> = ecs::system::SavedLocal<'s, T>;

/// The local of a system whose world a test saves: [`ecs::system::SavedLocal`] with
/// feature `serde`, [`ecs::system::Local`] without.
#[cfg(not(feature = "serde"))]
pub type SavedOrLocal<'s, T> = ecs::system::Local<'s, T>;

use std::cell::Cell;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

/// SplitMix64: a small, seeded, reproducible random number generator, so a
/// failing randomized test can be replayed from its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator that always yields the same sequence for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// `true` with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Runs `f` on a rayon pool of `threads` threads (what the parallel parts
/// of a schedule or a loop spread over).
pub fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The messages of `error` and of each error below it (its
/// [`source`](std::error::Error::source), that one's, ...), top first;
/// panics, naming both, if one message holds one below it: an error's text
/// includes its source's or returns it from `source`, never both (or an
/// error reporter prints it twice).
pub fn each_message_once(error: &dyn std::error::Error) -> Vec<String> {
    let mut messages: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(error) = next {
        let message = error.to_string();
        for above in &messages {
            assert!(
                !above.contains(&message),
                "{message:?} is printed twice: in {above:?}, and as its source"
            );
        }
        messages.push(message);
        next = error.source();
    }
    messages
}

/// A shared record of which [`Tracked`] values have been dropped, by id.
///
/// Every `Tracked` made by [`DropLog::track`] appends its id here when it is
/// dropped, so a test can assert that *each* value was dropped exactly once
/// (not merely that the count is right), and when.
#[derive(Clone, Default)]
pub struct DropLog(Arc<Mutex<Vec<u64>>>);

impl DropLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A value that records `id` into this log when dropped.
    pub fn track(&self, id: u64) -> Tracked {
        Tracked {
            id,
            log: self.clone(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<u64>> {
        match self.0.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The ids dropped so far, in drop order.
    pub fn dropped(&self) -> Vec<u64> {
        self.lock().clone()
    }

    /// The ids dropped so far, sorted.
    pub fn dropped_sorted(&self) -> Vec<u64> {
        let mut ids = self.dropped();
        ids.sort_unstable();
        ids
    }

    /// Number of drops recorded so far.
    pub fn count(&self) -> usize {
        self.lock().len()
    }

    /// How many times `id` has been dropped.
    pub fn times_dropped(&self, id: u64) -> usize {
        self.lock().iter().filter(|&&d| d == id).count()
    }

    /// Takes the ids recorded so far (in drop order), leaving the log empty.
    pub fn take(&self) -> Vec<u64> {
        std::mem::take(&mut *self.lock())
    }
}

impl fmt::Debug for DropLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DropLog").field(&*self.lock()).finish()
    }
}

/// A value with an id that records the id into its [`DropLog`] when dropped.
/// Deliberately neither `Clone` nor `Default`.
pub struct Tracked {
    id: u64,
    log: DropLog,
}

impl Tracked {
    /// The id given at creation.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl fmt::Debug for Tracked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tracked({})", self.id)
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.log.lock().push(self.id);
    }
}

const TAG_KINDS: usize = 4;

thread_local! {
    static TAGS_CREATED: Cell<[usize; TAG_KINDS]> = const { Cell::new([0; TAG_KINDS]) };
    static TAGS_DROPPED: Cell<[usize; TAG_KINDS]> = const { Cell::new([0; TAG_KINDS]) };
}

fn bump(counter: &'static std::thread::LocalKey<Cell<[usize; TAG_KINDS]>>, kind: usize) {
    counter.with(|cell| {
        let mut counts = cell.get();
        counts[kind] += 1;
        cell.set(counts);
    });
}

/// A zero-sized value (a tag, to a schema) that counts, per thread and per
/// `K` (`0..4`), how many were made with [`CountedTag::new`] and how many were
/// dropped. Neither `Clone` nor `Default`, so every value is one `new` call.
///
/// The counters are thread-local: a test reads them before and after and
/// compares the differences (see [`TagCounts`]).
pub struct CountedTag<const K: usize>;

impl<const K: usize> CountedTag<K> {
    /// A new tag value, counted as created.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        bump(&TAGS_CREATED, K);
        CountedTag
    }

    /// The counts of this kind on this thread so far.
    pub fn counts() -> TagCounts {
        TagCounts {
            created: TAGS_CREATED.with(|cell| cell.get()[K]),
            dropped: TAGS_DROPPED.with(|cell| cell.get()[K]),
        }
    }
}

impl<const K: usize> fmt::Debug for CountedTag<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CountedTag<{K}>")
    }
}

impl<const K: usize> Drop for CountedTag<K> {
    fn drop(&mut self) {
        bump(&TAGS_DROPPED, K);
    }
}

/// Creation and drop counts of one [`CountedTag`] kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagCounts {
    /// Values made with `new`.
    pub created: usize,
    /// Values dropped.
    pub dropped: usize,
}

impl TagCounts {
    /// The counts since `start` (an earlier reading).
    pub fn since(self, start: TagCounts) -> TagCounts {
        TagCounts {
            created: self.created - start.created,
            dropped: self.dropped - start.dropped,
        }
    }

    /// Values made and not yet dropped.
    pub fn alive(self) -> isize {
        self.created as isize - self.dropped as isize
    }
}

/// A 4x4 `f32` matrix, row-major, for the `heavy_compute` workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mat4(pub [[f32; 4]; 4]);

impl Mat4 {
    /// The identity matrix.
    pub fn identity() -> Self {
        let mut m = [[0.0; 4]; 4];
        for (i, row) in m.iter_mut().enumerate() {
            row[i] = 1.0;
        }
        Mat4(m)
    }

    /// A well-conditioned, non-trivial matrix: a rotation about z by
    /// `angle` radians with a translation.
    pub fn rotation_z(angle: f32) -> Self {
        let (s, c) = angle.sin_cos();
        Mat4([
            [c, -s, 0.0, 1.0],
            [s, c, 0.0, 2.0],
            [0.0, 0.0, 1.0, 3.0],
            [0.0, 0.0, 0.0, 1.0],
        ])
    }

    /// The inverse by cofactors, or `None` if the matrix is singular.
    pub fn inverse(&self) -> Option<Mat4> {
        let m = &self.0;
        // 2x2 determinants of the lower two rows and of the upper two rows.
        let s0 = m[0][0] * m[1][1] - m[1][0] * m[0][1];
        let s1 = m[0][0] * m[1][2] - m[1][0] * m[0][2];
        let s2 = m[0][0] * m[1][3] - m[1][0] * m[0][3];
        let s3 = m[0][1] * m[1][2] - m[1][1] * m[0][2];
        let s4 = m[0][1] * m[1][3] - m[1][1] * m[0][3];
        let s5 = m[0][2] * m[1][3] - m[1][2] * m[0][3];
        let c5 = m[2][2] * m[3][3] - m[3][2] * m[2][3];
        let c4 = m[2][1] * m[3][3] - m[3][1] * m[2][3];
        let c3 = m[2][1] * m[3][2] - m[3][1] * m[2][2];
        let c2 = m[2][0] * m[3][3] - m[3][0] * m[2][3];
        let c1 = m[2][0] * m[3][2] - m[3][0] * m[2][2];
        let c0 = m[2][0] * m[3][1] - m[3][0] * m[2][1];
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
        if det == 0.0 {
            return None;
        }
        let d = 1.0 / det;
        Some(Mat4([
            [
                (m[1][1] * c5 - m[1][2] * c4 + m[1][3] * c3) * d,
                (-m[0][1] * c5 + m[0][2] * c4 - m[0][3] * c3) * d,
                (m[3][1] * s5 - m[3][2] * s4 + m[3][3] * s3) * d,
                (-m[2][1] * s5 + m[2][2] * s4 - m[2][3] * s3) * d,
            ],
            [
                (-m[1][0] * c5 + m[1][2] * c2 - m[1][3] * c1) * d,
                (m[0][0] * c5 - m[0][2] * c2 + m[0][3] * c1) * d,
                (-m[3][0] * s5 + m[3][2] * s2 - m[3][3] * s1) * d,
                (m[2][0] * s5 - m[2][2] * s2 + m[2][3] * s1) * d,
            ],
            [
                (m[1][0] * c4 - m[1][1] * c2 + m[1][3] * c0) * d,
                (-m[0][0] * c4 + m[0][1] * c2 - m[0][3] * c0) * d,
                (m[3][0] * s4 - m[3][1] * s2 + m[3][3] * s0) * d,
                (-m[2][0] * s4 + m[2][1] * s2 - m[2][3] * s0) * d,
            ],
            [
                (-m[1][0] * c3 + m[1][1] * c1 - m[1][2] * c0) * d,
                (m[0][0] * c3 - m[0][1] * c1 + m[0][2] * c0) * d,
                (-m[3][0] * s3 + m[3][1] * s1 - m[3][2] * s0) * d,
                (m[2][0] * s3 - m[2][1] * s1 + m[2][2] * s0) * d,
            ],
        ]))
    }

    /// The matrix product `self * other`.
    pub fn mul(&self, other: &Mat4) -> Mat4 {
        let mut out = [[0.0; 4]; 4];
        for (i, row) in out.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = (0..4).map(|k| self.0[i][k] * other.0[k][j]).sum();
            }
        }
        Mat4(out)
    }

    /// `self` applied to the vector `v` (w = 0: a direction).
    pub fn transform_vector(&self, v: [f32; 3]) -> [f32; 3] {
        let m = &self.0;
        [
            m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
        ]
    }
}

/// Declares a schema struct (deriving `ecs::schema::Schema`) that starts with two
/// filler components per pair of field names given in brackets, one carrying
/// data (`Filler<N>`, a `u64`) and one a tag (`FillerTag<N>`), followed by
/// the fields written after the brackets. Thirty-two pairs put the written
/// fields at bits 64 and up, so the derive picks `u128` masks; this is how
/// the tests reach the wide-mask paths without writing 64 fields by hand.
///
/// ```ignore
/// support::schema_with_fillers! {
///     struct Huge [f0 t0 f1 t1 /* ... */] { pos: Pos, frozen: Frozen }
/// }
/// ```
///
/// Also declares `Filler` and `FillerTag` in the calling module, so call it
/// once per module.
#[macro_export]
macro_rules! schema_with_fillers {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident [$($pairs:ident)*] { $($fields:tt)* }
    ) => {
        /// A data component of a schema made by `schema_with_fillers!`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, ::ecs::checksum::StableHash)]
        $vis struct Filler<const N: usize>(pub u64);
        /// A tag of a schema made by `schema_with_fillers!`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, ::ecs::checksum::StableHash)]
        $vis struct FillerTag<const N: usize>;
        $crate::schema_with_fillers!(
            @fill [$(#[$meta])* $vis struct $name] [] [] [$($pairs)*] { $($fields)* }
        );
    };
    // Every pair named: declare the struct.
    (
        @fill [$($head:tt)*] [$($done:tt)*] [$($count:tt)*] [] { $($fields:tt)* }
    ) => {
        #[derive(::ecs::Schema)]
        $($head)* { $($done)* $($fields)* }
    };
    // The next pair: the `N` of both is the number of pairs before it.
    (
        @fill [$($head:tt)*] [$($done:tt)*] [$($count:tt)*]
        [$data:ident $tag:ident $($rest:ident)*] { $($fields:tt)* }
    ) => {
        $crate::schema_with_fillers!(
            @fill [$($head)*]
            [$($done)* $data: Filler<{ 0 $(+ $count)* }>, $tag: FillerTag<{ 0 $(+ $count)* }>,]
            [$($count)* 1]
            [$($rest)*] { $($fields)* }
        );
    };
}

#[cfg(test)]
mod tests {
    use super::Mat4;

    #[test]
    fn inverse_times_matrix_is_identity() {
        let m = Mat4::rotation_z(0.7);
        let product = m.mul(&m.inverse().unwrap());
        for (i, row) in product.0.iter().enumerate() {
            for (j, &cell) in row.iter().enumerate() {
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((cell - expected).abs() < 1e-5, "{product:?}");
            }
        }
        assert_eq!(Mat4([[0.0; 4]; 4]).inverse(), None);
    }
}
