//! [`StableHash`]: values fed to [`World::checksum`](crate::world::World::checksum),
//! and [`StableHasher`], the fixed hash that sums them up.
//!
//! A checksum for desync detection must give equal values for equal worlds in
//! every run, process, thread count and platform, so it cannot use
//! `RandomState`, and it must cover floats, which are not `Hash`. Hence a
//! trait of its own: each value writes the bytes that make it up (a float its
//! bits) into a hasher whose function is fixed here, and the world feeds it
//! every entity slot, table, component value and resource in storage order.
//!
//! The function is XXH3-128 (seed 0, the default secret) of the bytes
//! written, as the `xxhash-rust` crate computes it. It is a function of the
//! byte stream alone: how the writes split it does not matter, so the same
//! value can be computed elsewhere, from the same bytes, with any XXH3
//! implementation.

use core::fmt;
use core::hash::Hasher;
use core::marker::PhantomData;
use xxhash_rust::xxh3::Xxh3Default;

/// A value [`World::checksum`](crate::world::World::checksum) can cover: it writes
/// the bytes that make it up, in an order fixed by its type alone.
///
/// Implemented for the integers, floats (by their bits, so `-0.0` and `0.0`,
/// or two NaNs, are told apart: a checksum compares states bit for bit),
/// `bool`, `char`, `str`, [`String`], [`Entity`](crate::entity::Entity), arrays,
/// slices, [`Vec`], [`Option`], [`Box`], references and tuples of up to
/// eight. What each writes, every integer in little-endian byte order on
/// every platform:
///
/// | value | bytes |
/// |---|---|
/// | `u8`, `i8`, `bool` (0 or 1) | 1 |
/// | `u16`, `i16` | 2 |
/// | `u32`, `i32`, `char` (its scalar value), `f32` (`to_bits`) | 4 |
/// | `u64`, `i64`, `f64` (`to_bits`), [`Entity`](crate::entity::Entity) ([`Entity::to_bits`](crate::entity::Entity::to_bits)) | 8 |
/// | `usize`, `isize` (as `u64`, `i64`: the same on 32- and 64-bit targets) | 8 |
/// | `u128`, `i128` | 16 |
/// | `str`, [`String`] | the length in bytes as a `u64`, then the UTF-8 bytes |
/// | `[T]`, [`Vec<T>`] | the length as a `u64`, then each element |
/// | `[T; N]`, tuples | each element in order (the length is in the type) |
/// | [`Option<T>`] | `0u64` for `None`; `1u64`, then the value, for `Some` |
/// | `()`, [`PhantomData`] | nothing |
/// | [`Box<T>`], `&T` | the value |
///
/// For a component or resource, derive it: `#[derive(StableHash)]` writes a
/// struct's fields in declaration order, and an enum's variant index (its
/// place in declaration order, from 0) as a `u64` followed by the variant's
/// fields in order (so `Option<T>` writes what a derived
/// `enum Option<T> { None, Some(T) }` would). Reordering the fields or
/// variants of a type therefore changes the checksums of worlds that hold it,
/// as renaming does not. Each type parameter of the type gets a `StableHash`
/// bound.
///
/// ```
/// use schemecs::{checksum::StableHash, checksum::StableHasher};
///
/// #[derive(StableHash)]
/// struct Pos { x: f32, y: f32 }
///
/// #[derive(StableHash)]
/// enum Order<T> { Idle, Move(T), Attack { target: schemecs::entity::Entity, power: u8 } }
///
/// fn hash(value: &impl StableHash) -> u128 {
///     let mut hasher = StableHasher::new();
///     value.stable_hash(&mut hasher);
///     hasher.finish()
/// }
///
/// // The derive writes what a hand-written impl would: the fields in turn.
/// let mut by_hand = StableHasher::new();
/// 1.0f32.stable_hash(&mut by_hand);
/// 2.0f32.stable_hash(&mut by_hand);
/// assert_eq!(hash(&Pos { x: 1.0, y: 2.0 }), by_hand.finish());
/// assert_ne!(hash(&Pos { x: 1.0, y: 2.0 }), hash(&Pos { x: 2.0, y: 1.0 }));
///
/// // The variant counts: `Idle` and `Move` differ even where fields agree.
/// assert_ne!(hash(&Order::<u8>::Idle), hash(&Order::Move(0u8)));
/// ```
///
/// Implement it by hand to leave a field out, or for a type of another crate
/// wrapped in one of yours; write the fields in turn:
///
/// ```
/// use schemecs::{checksum::StableHash, checksum::StableHasher};
///
/// struct Cached { value: f64, memo: std::cell::Cell<Option<f64>> }
///
/// impl StableHash for Cached {
///     fn stable_hash(&self, hasher: &mut StableHasher) {
///         self.value.stable_hash(hasher); // the memo is not state
///     }
/// }
/// ```
///
/// A type that is `Hash` and holds no float can forward to it:
/// `std::hash::Hash::hash(self, hasher)`, since [`StableHasher`] is a
/// [`Hasher`] (which writes `usize` lengths as `u64`, so such a checksum also
/// agrees between 32- and 64-bit targets).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `StableHash`",
    label = "not `StableHash`",
    note = "add `#[derive(schemecs::checksum::StableHash)]` to `{Self}` (its fields must be `StableHash` too), \
            or implement `schemecs::checksum::StableHash` for it"
)]
pub trait StableHash {
    /// Writes this value into `hasher`.
    fn stable_hash(&self, hasher: &mut StableHasher);

    /// `Some(n)` when every value of the type writes exactly `n` bytes, which
    /// [`__write_fixed`](StableHash::__write_fixed) then writes into a slice
    /// of that length: how a run of such values (a column, a slice) is
    /// written a buffer at a time, with one check for room per buffer. The
    /// primitives, arrays, tuples and derived structs of such types have
    /// it. Not part of the API: leave it out of impls written by hand.
    #[doc(hidden)]
    const __FIXED_SIZE: Option<usize> = None;

    /// Writes into `out` what [`stable_hash`](StableHash::stable_hash)
    /// writes, when [`__FIXED_SIZE`](StableHash::__FIXED_SIZE) is
    /// `Some(out.len())`; never called otherwise.
    #[doc(hidden)]
    #[inline]
    fn __write_fixed(&self, out: &mut [u8]) {
        let _ = out;
        unreachable!("`__write_fixed` of a type without `__FIXED_SIZE`")
    }
}

/// The size of a type made of values of the `sizes` in turn (a derived
/// struct's fields): their sum, if every one is fixed.
#[doc(hidden)]
pub const fn fixed_size(sizes: &[Option<usize>]) -> Option<usize> {
    let mut sum = 0;
    let mut i = 0;
    while i < sizes.len() {
        match sizes[i] {
            Some(size) => sum += size,
            None => return None,
        }
        i += 1;
    }
    Some(sum)
}

/// Writes each of `values` in turn, as their [`StableHash::stable_hash`]
/// would: a buffer's worth at a time when their size is fixed.
#[inline]
pub(crate) fn hash_slice<T: StableHash>(values: &[T], hasher: &mut StableHasher) {
    match T::__FIXED_SIZE {
        // A value larger than the buffer is written field by field: a
        // buffer's worth of such values would be none.
        Some(size) if size <= BUFFER => hasher.write_fixed(values, size, T::__write_fixed),
        _ => {
            for value in values {
                value.stable_hash(hasher);
            }
        }
    }
}

/// The hash of [`World::checksum`](crate::world::World::checksum): XXH3-128 of the
/// bytes written (see [`StableHash`] for what each value writes). The same
/// bytes give the same value on every run and platform, however they were
/// split into writes.
///
/// Writes are gathered in a buffer of 2 KiB inside the hasher, which is fed
/// to XXH3's streaming state whenever it fills, so that a write of a few
/// bytes costs a copy and no call into the hash.
///
/// Two different byte streams collide with probability about 2⁻¹²⁸. Not a
/// cryptographic hash: it detects accidents (desyncs, corruption), not a
/// forger.
///
/// ```
/// use schemecs::{checksum::StableHash, checksum::StableHasher};
///
/// let mut a = StableHasher::new();
/// (1u32, 2.5f64).stable_hash(&mut a);
/// let mut b = StableHasher::new();
/// (1u32, 2.5f64).stable_hash(&mut b);
/// assert_eq!(a.finish(), b.finish());
///
/// // The hash of the bytes, in little-endian order.
/// let mut bytes = StableHasher::new();
/// std::hash::Hasher::write(&mut bytes, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 64]);
/// assert_eq!(a.finish(), bytes.finish());
/// ```
#[derive(Clone)]
pub struct StableHasher {
    /// The bytes written and not yet fed to `xxh3`: `buffer[..len]`.
    buffer: [u8; BUFFER],
    len: usize,
    /// Everything before.
    xxh3: Xxh3Default,
}

/// The size of [`StableHasher`]'s buffer: a multiple of the 256 bytes XXH3
/// hashes at a time, so a full buffer is hashed where it is (but for its
/// last 256 bytes, which XXH3's state copies and keeps for its last stripe).
const BUFFER: usize = 2048;

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

impl fmt::Debug for StableHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StableHasher")
            .field("finish", &format_args!("{:#034x}", self.finish()))
            .finish()
    }
}

impl StableHasher {
    /// A hasher that has seen nothing.
    pub const fn new() -> Self {
        StableHasher {
            buffer: [0; BUFFER],
            len: 0,
            xxh3: Xxh3Default::new(),
        }
    }

    /// Writes one `u64`, little-endian: what a length, an enum's variant
    /// index or an `Option`'s tag is written as.
    #[inline]
    pub fn write_word(&mut self, word: u64) {
        self.write_array(word.to_le_bytes());
    }

    /// XXH3-128 of every byte written so far. Writing may go on after.
    pub fn finish(&self) -> u128 {
        let mut xxh3 = self.xxh3.clone();
        xxh3.update(&self.buffer[..self.len]);
        xxh3.digest128()
    }

    /// Appends `bytes` to the buffer: one check for room, one copy.
    #[inline]
    pub(crate) fn write_array<const N: usize>(&mut self, bytes: [u8; N]) {
        if BUFFER - self.len < N {
            self.flush();
        }
        self.buffer[self.len..self.len + N].copy_from_slice(&bytes);
        self.len += N;
    }

    /// Appends `size` bytes for each of `values`, which `write` puts in the
    /// slice it is given, a buffer's worth of values at a time: the loop
    /// keeps the buffer's length in a register rather than storing it
    /// after every value.
    #[inline]
    pub(crate) fn write_fixed<T>(
        &mut self,
        mut values: &[T],
        size: usize,
        write: impl Fn(&T, &mut [u8]),
    ) {
        if size == 0 {
            return;
        }
        while !values.is_empty() {
            let room = (BUFFER - self.len) / size;
            if room == 0 {
                self.flush();
                continue;
            }
            let (now, later) = values.split_at(room.min(values.len()));
            let end = self.len + now.len() * size;
            for (out, value) in self.buffer[self.len..end].chunks_exact_mut(size).zip(now) {
                write(value, out);
            }
            self.len = end;
            values = later;
        }
    }

    /// Feeds the buffer to XXH3 and empties it.
    #[inline(never)]
    fn flush(&mut self) {
        self.xxh3.update(&self.buffer[..self.len]);
        self.len = 0;
    }
}

/// Every integer is written little-endian at its own width, `usize` and
/// `isize` as 8 bytes; [`Hasher::write`] writes its bytes as they are (no
/// length: `Hash` impls write their own). [`Hasher::finish`] is the low 64
/// bits of [`StableHasher::finish`].
impl Hasher for StableHasher {
    #[inline]
    fn finish(&self) -> u64 {
        StableHasher::finish(self) as u64
    }

    fn write(&mut self, bytes: &[u8]) {
        if bytes.len() <= BUFFER - self.len {
            self.buffer[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            self.flush();
            self.xxh3.update(bytes);
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_array([n]);
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.write_array(n.to_le_bytes());
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_array(n.to_le_bytes());
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.write_array(n.to_le_bytes());
    }

    #[inline]
    fn write_u128(&mut self, n: u128) {
        self.write_array(n.to_le_bytes());
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_word(n as u64);
    }

    #[inline]
    fn write_isize(&mut self, n: isize) {
        self.write_word(n as i64 as u64);
    }
}

/// `StableHash` for types written as the little-endian bytes of one value.
macro_rules! stable_hash_as_bytes {
    ($($ty:ty => |$v:ident| $bytes:expr),* $(,)?) => {$(
        impl StableHash for $ty {
            const __FIXED_SIZE: Option<usize> = Some(size_of::<$ty>());

            #[inline]
            fn stable_hash(&self, hasher: &mut StableHasher) {
                let $v = *self;
                hasher.write_array($bytes);
            }

            #[inline]
            fn __write_fixed(&self, out: &mut [u8]) {
                let $v = *self;
                out.copy_from_slice(&$bytes);
            }
        }
    )*};
}

stable_hash_as_bytes! {
    u8 => |v| [v],
    u16 => |v| v.to_le_bytes(),
    u32 => |v| v.to_le_bytes(),
    u64 => |v| v.to_le_bytes(),
    u128 => |v| v.to_le_bytes(),
    i8 => |v| v.to_le_bytes(),
    i16 => |v| v.to_le_bytes(),
    i32 => |v| v.to_le_bytes(),
    i64 => |v| v.to_le_bytes(),
    i128 => |v| v.to_le_bytes(),
    bool => |v| [u8::from(v)],
    char => |v| u32::from(v).to_le_bytes(),
    f32 => |v| v.to_bits().to_le_bytes(),
    f64 => |v| v.to_bits().to_le_bytes(),
}

/// 8 bytes, as `u64`, on every target.
impl StableHash for usize {
    const __FIXED_SIZE: Option<usize> = Some(8);

    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hasher.write_word(*self as u64);
    }

    #[inline]
    fn __write_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&(*self as u64).to_le_bytes());
    }
}

/// 8 bytes, as `i64`, on every target.
impl StableHash for isize {
    const __FIXED_SIZE: Option<usize> = Some(8);

    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hasher.write_word(*self as i64 as u64);
    }

    #[inline]
    fn __write_fixed(&self, out: &mut [u8]) {
        out.copy_from_slice(&(*self as i64).to_le_bytes());
    }
}

impl StableHash for () {
    const __FIXED_SIZE: Option<usize> = Some(0);

    #[inline]
    fn stable_hash(&self, _: &mut StableHasher) {}

    #[inline]
    fn __write_fixed(&self, _: &mut [u8]) {}
}

impl<T: ?Sized> StableHash for PhantomData<T> {
    const __FIXED_SIZE: Option<usize> = Some(0);

    #[inline]
    fn stable_hash(&self, _: &mut StableHasher) {}

    #[inline]
    fn __write_fixed(&self, _: &mut [u8]) {}
}

/// The length in bytes, then the bytes.
impl StableHash for str {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hasher.write_word(self.len() as u64);
        Hasher::write(hasher, self.as_bytes());
    }
}

impl StableHash for String {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.as_str().stable_hash(hasher);
    }
}

/// The length, then the elements.
impl<T: StableHash> StableHash for [T] {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hasher.write_word(self.len() as u64);
        hash_slice(self, hasher);
    }
}

/// The elements, without the length (the type has it).
impl<T: StableHash, const N: usize> StableHash for [T; N] {
    const __FIXED_SIZE: Option<usize> = match T::__FIXED_SIZE {
        Some(size) => Some(size * N),
        None => None,
    };

    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        hash_slice(self, hasher);
    }

    #[inline]
    fn __write_fixed(&self, out: &mut [u8]) {
        let size = match T::__FIXED_SIZE {
            Some(size) if size > 0 => size,
            _ => return,
        };
        for (value, out) in self.iter().zip(out.chunks_exact_mut(size)) {
            value.__write_fixed(out);
        }
    }
}

impl<T: StableHash> StableHash for Vec<T> {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.as_slice().stable_hash(hasher);
    }
}

impl<T: StableHash> StableHash for Option<T> {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        match self {
            None => hasher.write_word(0),
            Some(value) => {
                hasher.write_word(1);
                value.stable_hash(hasher);
            }
        }
    }
}

impl<T: StableHash + ?Sized> StableHash for Box<T> {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        (**self).stable_hash(hasher);
    }
}

impl<T: StableHash + ?Sized> StableHash for &T {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        (**self).stable_hash(hasher);
    }
}

macro_rules! stable_hash_tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<$($name: StableHash),+> StableHash for ($($name,)+) {
            const __FIXED_SIZE: Option<usize> = fixed_size(&[$($name::__FIXED_SIZE),+]);

            #[inline]
            fn stable_hash(&self, hasher: &mut StableHasher) {
                $(self.$index.stable_hash(hasher);)+
            }

            #[inline]
            fn __write_fixed(&self, out: &mut [u8]) {
                let mut at = 0;
                $(
                    let size = match $name::__FIXED_SIZE {
                        Some(size) => size,
                        None => 0,
                    };
                    self.$index.__write_fixed(&mut out[at..at + size]);
                    at += size;
                )+
                let _ = at;
            }
        }
    )*};
}

stable_hash_tuples! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Entity;
    use xxhash_rust::xxh3::xxh3_128;

    fn hash<T: StableHash + ?Sized>(value: &T) -> u128 {
        let mut hasher = StableHasher::new();
        value.stable_hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn hash_impls_forwarded_to_it_write_little_endian_integers() {
        // What a type that forwards its `Hash` writes: each width through
        // its own `Hasher::write_*`, as `StableHash` would write it.
        fn forwarded<T: core::hash::Hash>(value: T) -> u128 {
            let mut hasher = StableHasher::new();
            core::hash::Hash::hash(&value, &mut hasher);
            hasher.finish()
        }
        assert_eq!(forwarded(0xabu8), xxh3_128(&[0xab]));
        assert_eq!(forwarded(0xabcdu16), xxh3_128(&0xabcdu16.to_le_bytes()));
        assert_eq!(forwarded(7u32), xxh3_128(&7u32.to_le_bytes()));
        assert_eq!(forwarded(7u64), xxh3_128(&7u64.to_le_bytes()));
        assert_eq!(forwarded(7u128), xxh3_128(&7u128.to_le_bytes()));
        assert_eq!(forwarded(7usize), xxh3_128(&7u64.to_le_bytes()));
        assert_eq!(forwarded(-7isize), xxh3_128(&(-7i64).to_le_bytes()));
    }

    #[test]
    fn a_hasher_debugs_as_what_it_would_finish_with() {
        let mut hasher = StableHasher::new();
        hasher.write_word(7);
        let shown = format!("{hasher:?}");
        assert_eq!(
            shown,
            format!("StableHasher {{ finish: {:#034x} }}", hasher.finish())
        );
    }

    #[test]
    fn values_larger_than_the_buffer_hash_as_their_bytes() {
        // 4 KiB a value: twice the buffer. The run goes value by value.
        let big = vec![[7u64; 512]; 3];
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&3u64.to_le_bytes());
        for value in &big {
            for word in value {
                bytes.extend_from_slice(&word.to_le_bytes());
            }
        }
        assert_eq!(hash(&big), xxh3_128(&bytes));
    }

    #[test]
    fn a_word_that_does_not_fit_the_room_left_flushes_the_buffer_first() {
        // The length word (8 bytes) and 2,036 bytes leave 4 bytes of the
        // buffer's 2,048: the next word must flush it before it is written.
        for count in [2_036usize, 2_040, 2_041] {
            let value = (vec![5u8; count], 7u64);
            let mut bytes = Vec::new();
            bytes.extend_from_slice(&(count as u64).to_le_bytes());
            bytes.resize(8 + count, 5);
            bytes.extend_from_slice(&7u64.to_le_bytes());
            assert_eq!(hash(&value), xxh3_128(&bytes), "{count} bytes");
        }
    }

    #[test]
    fn values_are_told_apart_by_bits_and_by_order() {
        assert_eq!(hash(&1.5f32), hash(&1.5f32));
        assert_ne!(hash(&0.0f64), hash(&-0.0f64));
        assert_ne!(hash(&(1u8, 2u8)), hash(&(2u8, 1u8)));
        assert_ne!(hash(&[1u32][..]), hash(&[1u32, 0][..]));
        assert_ne!(hash("ab"), hash("ab\0"));
        assert_ne!(hash(&None::<u8>), hash(&Some(0u8)));
    }

    #[test]
    fn the_function_is_xxh3_128() {
        // The published XXH3-128 of no input (seed 0), so a change of the
        // function, or of its crate's output, shows up here: saved
        // checksums (replays, logs) compare across builds.
        assert_eq!(
            StableHasher::new().finish(),
            0x99aa_06d3_0147_98d8_6001_c324_468d_497f
        );
        let mut hasher = StableHasher::new();
        hasher.write_word(1);
        assert_eq!(hasher.finish(), xxh3_128(&[1, 0, 0, 0, 0, 0, 0, 0]));
    }

    #[test]
    fn each_value_writes_its_little_endian_bytes() {
        let cases: [(u128, &[u8]); 14] = [
            (hash(&0x0102u16), &[2, 1]),
            (hash(&-2i32), &[0xfe, 0xff, 0xff, 0xff]),
            (hash(&1.0f32), &[0, 0, 0x80, 0x3f]),
            (hash(&-0.0f64), &[0, 0, 0, 0, 0, 0, 0, 0x80]),
            (hash(&-1isize), &[0xff; 8]),
            (hash(&3usize), &[3, 0, 0, 0, 0, 0, 0, 0]),
            (hash(&(true, 'A')), &[1, 65, 0, 0, 0]),
            (
                hash(&7u128),
                &[7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            ),
            (hash("hé"), &[3, 0, 0, 0, 0, 0, 0, 0, b'h', 0xc3, 0xa9]),
            (hash(&[5u8, 6][..]), &[2, 0, 0, 0, 0, 0, 0, 0, 5, 6]),
            (hash(&[5u8, 6]), &[5, 6]),
            (hash(&Some(9u8)), &[1, 0, 0, 0, 0, 0, 0, 0, 9]),
            (
                hash(&Entity::from_bits(0x0000_0002_0000_0007).unwrap()),
                &[7, 0, 0, 0, 2, 0, 0, 0],
            ),
            (hash(&((), PhantomData::<u8>, Box::new(4u8))), &[4]),
        ];
        for (i, (hashed, bytes)) in cases.into_iter().enumerate() {
            assert_eq!(hashed, xxh3_128(bytes), "case {i}");
        }
    }

    #[test]
    fn the_hash_is_of_the_bytes_however_they_were_split() {
        // Far more than one buffer, written as single values, as runs (the
        // slice fast path, here from an odd offset), and as raw bytes.
        let values: Vec<u32> = (0..10_000u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9))
            .collect();
        let mut expected = vec![0xaa];
        expected.extend((values.len() as u64).to_le_bytes());
        for value in &values {
            expected.extend(value.to_le_bytes());
        }
        let one_by_one = {
            let mut hasher = StableHasher::new();
            0xaau8.stable_hash(&mut hasher);
            hasher.write_word(values.len() as u64);
            for value in &values {
                value.stable_hash(&mut hasher);
            }
            hasher.finish()
        };
        let as_a_run = hash(&(0xaau8, values.as_slice()));
        let mut raw = StableHasher::new();
        for chunk in expected.chunks(3000) {
            raw.write(chunk);
        }
        assert_eq!(one_by_one, xxh3_128(&expected));
        assert_eq!(as_a_run, xxh3_128(&expected));
        assert_eq!(raw.finish(), xxh3_128(&expected));
    }

    #[test]
    fn a_run_of_values_of_a_fixed_size_writes_what_each_would() {
        type Every = (
            (u8, u16, u32, u64, u128, usize, i8, i16),
            (i32, i64, i128, isize, bool, char, f32, f64),
            (Entity, [u16; 3], [u32; 0], [(); 2], (), PhantomData<u8>),
        );
        let value = |i: u8| -> Every {
            let n = u64::from(i) * 0x0101_0101_0101;
            (
                (
                    i,
                    n as u16,
                    n as u32,
                    n,
                    u128::from(n) << 60,
                    n as usize,
                    (i as i8).wrapping_neg(),
                    n as i16,
                ),
                (
                    (n as i32).wrapping_neg(),
                    (n as i64).wrapping_neg(),
                    -i128::from(n) << 70,
                    (n as isize).wrapping_neg(),
                    i % 2 == 0,
                    'é',
                    f32::from(i) / 3.0,
                    -(n as f64),
                ),
                (
                    Entity::from_bits(n | 1 << 40).unwrap(),
                    [i.into(), 0, u16::MAX],
                    [],
                    [(), ()],
                    (),
                    PhantomData,
                ),
            )
        };
        assert_eq!(
            Every::__FIXED_SIZE,
            Some(1 + 2 + 4 + 8 + 16 + 8 + 1 + 2 + 4 + 8 + 16 + 8 + 1 + 4 + 4 + 8 + 8 + 6)
        );
        let values: Vec<Every> = (0..200).map(value).collect();
        let mut one_by_one = StableHasher::new();
        one_by_one.write_word(values.len() as u64);
        for value in &values {
            value.stable_hash(&mut one_by_one);
        }
        assert_eq!(hash(&values), one_by_one.finish());
    }

    #[test]
    fn finish_leaves_the_hasher_as_it_was() {
        let mut hasher = StableHasher::new();
        hasher.write_word(1);
        let first = hasher.finish();
        assert_eq!(hasher.finish(), first);
        hasher.write_word(2);
        assert_eq!(hasher.finish(), hash(&(1u64, 2u64)));
        assert_eq!(Hasher::finish(&hasher), hasher.finish() as u64);
    }
}
