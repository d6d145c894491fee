//! [`StableHash`]: values fed to [`World::checksum`](crate::World::checksum),
//! and [`StableHasher`], the fixed hash that sums them up.
//!
//! A checksum for desync detection must give equal values for equal worlds in
//! every run, process and thread count, so it cannot use `RandomState`, and it
//! must cover floats, which are not `Hash`. Hence a trait of its own: each
//! value writes the words that make it up (a float its bits) into a hasher
//! whose function is fixed here, and the world feeds it every entity slot,
//! table, component value and resource in storage order.

use crate::entity::Entity;
use core::hash::Hasher;
use core::marker::PhantomData;

/// A value [`World::checksum`](crate::World::checksum) can cover: it writes
/// the words that make it up, in an order fixed by its type alone.
///
/// Implemented for the integers, floats (by their bits, so `-0.0` and `0.0`,
/// or two NaNs, are told apart: a checksum compares states bit for bit),
/// `bool`, `char`, `str`, [`String`], [`Entity`], arrays, slices, [`Vec`],
/// [`Option`], [`Box`], references and tuples of up to eight.
///
/// For a component or resource, derive it: `#[derive(StableHash)]` writes a
/// struct's fields in declaration order, and an enum's variant index (its
/// place in declaration order, from 0) followed by the variant's fields in
/// order. Reordering the fields or variants of a type therefore changes the
/// checksums of worlds that hold it, as renaming does not. Each type
/// parameter of the type gets a `StableHash` bound.
///
/// ```
/// use schemecs::{StableHash, StableHasher};
///
/// #[derive(StableHash)]
/// struct Pos { x: f32, y: f32 }
///
/// #[derive(StableHash)]
/// enum Order<T> { Idle, Move(T), Attack { target: schemecs::Entity, power: u8 } }
///
/// fn hash(value: &impl StableHash) -> u64 {
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
/// use schemecs::{StableHash, StableHasher};
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
/// [`Hasher`]. (`Hash` writes `usize` lengths natively, so such a checksum
/// agrees only between machines of one pointer width.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `StableHash`",
    label = "not `StableHash`",
    note = "add `#[derive(schemecs::StableHash)]` to `{Self}` (its fields must be `StableHash` too), \
            or implement `schemecs::StableHash` for it"
)]
pub trait StableHash {
    /// Writes this value into `hasher`.
    fn stable_hash(&self, hasher: &mut StableHasher);
}

/// The hash of [`World::checksum`](crate::World::checksum): 64-bit words
/// folded in one at a time, then mixed once at the end. The same words give
/// the same value on every run and platform.
///
/// Each step `state = (state.rotate_left(26) ^ word) * ODD` is a bijection of
/// both the state and the word, so two inputs of the same length that differ
/// in exactly one word always hash apart; other differences collide with
/// probability about 2⁻⁶⁴. Not a cryptographic hash: it detects accidents
/// (desyncs, corruption), not a forger.
///
/// ```
/// use schemecs::{StableHash, StableHasher};
///
/// let mut a = StableHasher::new();
/// (1u32, 2.5f64).stable_hash(&mut a);
/// let mut b = StableHasher::new();
/// (1u32, 2.5f64).stable_hash(&mut b);
/// assert_eq!(a.finish(), b.finish());
/// ```
#[derive(Clone, Debug)]
pub struct StableHasher {
    state: u64,
    words: u64,
}

/// An odd multiplier with well-spread bits (2⁶⁴ divided by the golden ratio).
const ODD: u64 = 0x9e37_79b9_7f4a_7c15;

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

impl StableHasher {
    /// A hasher that has seen nothing.
    pub const fn new() -> Self {
        StableHasher {
            state: 0x243f_6a88_85a3_08d3,
            words: 0,
        }
    }

    /// Folds in one word.
    #[inline]
    pub fn write_word(&mut self, word: u64) {
        self.state = (self.state.rotate_left(26) ^ word).wrapping_mul(ODD);
        self.words += 1;
    }

    /// The hash of everything written so far.
    #[inline]
    pub fn finish(&self) -> u64 {
        // The murmur3 finalizer, which spreads every bit over the result.
        let mut h = self.state ^ self.words;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

impl Hasher for StableHasher {
    #[inline]
    fn finish(&self) -> u64 {
        StableHasher::finish(self)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.write_word(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_word(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_word(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.write_word(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_word(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.write_word(n);
    }

    #[inline]
    fn write_u128(&mut self, n: u128) {
        self.write_word(n as u64);
        self.write_word((n >> 64) as u64);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_word(n as u64);
    }
}

macro_rules! stable_hash_as_word {
    ($($ty:ty => |$v:ident| $word:expr),* $(,)?) => {$(
        impl StableHash for $ty {
            #[inline]
            fn stable_hash(&self, hasher: &mut StableHasher) {
                let $v = *self;
                hasher.write_word($word);
            }
        }
    )*};
}

stable_hash_as_word! {
    u8 => |v| u64::from(v),
    u16 => |v| u64::from(v),
    u32 => |v| u64::from(v),
    u64 => |v| v,
    usize => |v| v as u64,
    i8 => |v| v as u64,
    i16 => |v| v as u64,
    i32 => |v| v as u64,
    i64 => |v| v as u64,
    isize => |v| v as u64,
    bool => |v| u64::from(v),
    char => |v| u64::from(v),
    f32 => |v| u64::from(v.to_bits()),
    f64 => |v| v.to_bits(),
    Entity => |v| v.to_bits(),
}

impl StableHash for u128 {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        Hasher::write_u128(hasher, *self);
    }
}

impl StableHash for i128 {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        Hasher::write_u128(hasher, *self as u128);
    }
}

impl StableHash for () {
    #[inline]
    fn stable_hash(&self, _: &mut StableHasher) {}
}

impl<T: ?Sized> StableHash for PhantomData<T> {
    #[inline]
    fn stable_hash(&self, _: &mut StableHasher) {}
}

impl StableHash for str {
    fn stable_hash(&self, hasher: &mut StableHasher) {
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
        for value in self {
            value.stable_hash(hasher);
        }
    }
}

impl<T: StableHash, const N: usize> StableHash for [T; N] {
    #[inline]
    fn stable_hash(&self, hasher: &mut StableHasher) {
        for value in self {
            value.stable_hash(hasher);
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
            #[inline]
            fn stable_hash(&self, hasher: &mut StableHasher) {
                $(self.$index.stable_hash(hasher);)+
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

    fn hash<T: StableHash + ?Sized>(value: &T) -> u64 {
        let mut hasher = StableHasher::new();
        value.stable_hash(&mut hasher);
        hasher.finish()
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
    fn the_value_is_fixed() {
        // Written down once: a change of the function shows up here, since
        // saved checksums (replays, logs) compare across builds.
        assert_eq!(hash(&(7u64, -1.0f32, "ecs")), hash(&(7u64, -1.0f32, "ecs")));
        let mut hasher = StableHasher::new();
        hasher.write_word(1);
        assert_eq!(hasher.finish(), FIXED_ONE);
    }

    const FIXED_ONE: u64 = 6108291691552739903;
}
