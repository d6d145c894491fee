//! A small hasher for mask keys.
//!
//! Masks are integers with few, well-spread bits; SipHash's DoS resistance buys
//! nothing here (the key set is bounded by the schema), so table and query
//! lookups use a short integer mix instead.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` keyed by masks (or tuples of masks).
pub(crate) type MaskMap<K, V> = HashMap<K, V, BuildHasherDefault<MaskHasher>>;

#[derive(Clone, Copy)]
pub(crate) struct MaskHasher(u64);

impl Default for MaskHasher {
    /// A non-zero start, so that a zero word still changes the state.
    fn default() -> Self {
        MaskHasher(0x243f_6a88_85a3_08d3)
    }
}

impl MaskHasher {
    /// Folds `word` in with the murmur3 finalizer, which mixes every input bit
    /// into every output bit: `HashMap` picks buckets from the low bits, and a
    /// plain multiply would leave them empty for high single-bit masks.
    #[inline]
    fn add(&mut self, word: u64) {
        let mut h = self.0 ^ word;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        self.0 = h ^ (h >> 33);
    }
}

impl Hasher for MaskHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_u128(&mut self, n: u128) {
        self.add(n as u64);
        self.add((n >> 64) as u64);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash<T: Hash>(value: T) -> u64 {
        let mut hasher = MaskHasher::default();
        value.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn masks_of_every_width_hash_by_their_value() {
        // Each width goes through its own `write_*`: none may drop its value.
        let distinct = |hashes: Vec<u64>| {
            let count = hashes.len();
            let set: std::collections::HashSet<u64> = hashes.into_iter().collect();
            assert_eq!(set.len(), count);
        };
        distinct((0..8).map(|b| hash(1u8 << b)).collect());
        distinct((0..16).map(|b| hash(1u16 << b)).collect());
        distinct((0..32).map(|b| hash(1u32 << b)).collect());
        distinct((0..64).map(|b| hash(1u64 << b)).collect());
        distinct((0..usize::BITS).map(|b| hash(1usize << b)).collect());
        distinct((0..16u8).map(|b| hash([1u8 << (b % 8), b])).collect());
        let bytes = |b: u32| {
            let mut hasher = MaskHasher::default();
            hasher.write(&(1u128 << b).to_le_bytes());
            hasher.finish()
        };
        distinct((0..128).map(bytes).collect());
    }

    #[test]
    fn distinct_single_bits_hash_apart() {
        let hashes: std::collections::HashSet<u64> = (0..128).map(|b| hash(1u128 << b)).collect();
        assert_eq!(hashes.len(), 128);
        // Buckets come from the low bits: single-bit masks must spread there too.
        let buckets: std::collections::HashSet<u64> =
            (0..128).map(|b| hash(1u128 << b) & 0xff).collect();
        assert!(
            buckets.len() > 64,
            "only {} of 256 low-byte values used",
            buckets.len()
        );
        assert_ne!(hash((1u8, 2u8)), hash((2u8, 1u8)));
    }
}
