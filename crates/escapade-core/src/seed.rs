//! Seeds and random number generators.
//!
//! Every random choice in escapade comes from a ChaCha20 generator seeded explicitly by
//! the caller; there is no global RNG. Child seeds are derived by hashing the parent seed
//! with a label and an index, so adding a new consumer never shifts another one's stream.
//! This module is the one place that names the generator: the workspace's `clippy.toml`
//! disallows the ChaCha types elsewhere, so a world cannot drift to another stream.
#![allow(clippy::disallowed_types)]

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// The generator type used everywhere.
pub type Rng = ChaCha20Rng;

/// A generator seeded from a `u64`.
pub fn rng(seed: u64) -> Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A child seed: SHA-256 of `(seed, label, index)`, first 8 bytes little-endian.
pub fn derive(seed: u64, label: &str, index: u64) -> u64 {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update((label.len() as u64).to_le_bytes());
    h.update(label.as_bytes());
    h.update(index.to_le_bytes());
    let out = h.finalize();
    u64::from_le_bytes(out[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    /// `rng(0).next_u64()` with rand_chacha 0.9 (recorded when the test was written).
    const PINNED_FIRST: u64 = 449_479_075_714_955_186;

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (rng(42), rng(42));
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(rng(1).next_u64(), rng(2).next_u64());
    }

    #[test]
    fn derived_seeds_differ_by_label_and_index() {
        assert_ne!(derive(1, "a", 0), derive(1, "b", 0));
        assert_ne!(derive(1, "a", 0), derive(1, "a", 1));
        // pinned (SHA-256 computed independently) so that a change of algorithm is a
        // visible, versioned decision: every suite's bytes hang on these numbers
        assert_eq!(derive(0, "", 0), 16_021_189_222_653_137_053);
        assert_eq!(derive(7, "tier", 3), 12_401_550_097_449_326_933);
    }

    #[test]
    fn the_generator_stream_is_pinned() {
        let first = rng(0).next_u64();
        assert_eq!(
            first, PINNED_FIRST,
            "ChaCha20 seeded from 0 changed: suites change"
        );
    }
}
