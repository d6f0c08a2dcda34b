//! Deterministic randomness.
//!
//! Every random stream is a ChaCha8 generator keyed from the user's seed and told
//! apart by a ChaCha stream number, so each part of the graph (document titles,
//! chunk-to-document assignment, mention counts, ...) has its own independent
//! stream and can be regenerated alone. Only `next_u64` is used: bounded integers
//! and floats are derived here, not by `rand`, so the output cannot change with a
//! `rand` release, and it is the same on every platform.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a random stream is used for; the value is the ChaCha stream number.
#[derive(Debug, Clone, Copy)]
#[repr(u64)]
pub(crate) enum Stream {
    DocProps = 1,
    ChunkAssign = 2,
    ChunkProps = 3,
    EntityProps = 4,
    MentionCounts = 5,
    MentionTargets = 6,
    SampleDocuments = 7,
    SampleChunks = 8,
    SampleEntities = 9,
}

/// SplitMix64 step: a bijective mixer, used to expand a `u64` seed into key bytes.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A generator for `stream`, keyed from `seed`.
pub(crate) fn rng(seed: u64, stream: Stream) -> Rng {
    let mut state = seed;
    let mut key = [0u8; 32];
    for word in key.chunks_exact_mut(8) {
        word.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    let mut inner = ChaCha8Rng::from_seed(key);
    inner.set_stream(stream as u64);
    Rng(inner)
}

/// A thin wrapper with the few sampling helpers the generator needs.
pub(crate) struct Rng(ChaCha8Rng);

impl Rng {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform integer in `0..n` (`n > 0`), unbiased (Lemire's multiply-and-reject).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0, "below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        let mut low = m as u64;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
                low = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// Uniform integer in `lo..=hi`.
    pub(crate) fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform `f64` in `[0, 1)`, 53 random bits.
    pub(crate) fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniformly chosen element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Fisher–Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = rng(7, Stream::SampleDocuments);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            seen[r.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert_eq!(r.below(1), 0);
    }

    fn first4(seed: u64, stream: Stream) -> Vec<u64> {
        let mut r = rng(seed, stream);
        (0..4).map(|_| r.next_u64()).collect()
    }

    #[test]
    fn streams_are_independent_and_reproducible() {
        let a = first4(1, Stream::DocProps);
        assert_eq!(a, first4(1, Stream::DocProps));
        assert_ne!(a, first4(1, Stream::ChunkProps));
        assert_ne!(a, first4(2, Stream::DocProps));
    }

    #[test]
    fn unit_f64_is_in_unit_interval() {
        let mut r = rng(3, Stream::MentionCounts);
        for _ in 0..10_000 {
            let u = r.unit_f64();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
