//! Seeded building blocks for values: words, phrases, digit strings, random bytes and
//! big numbers. Every function draws only from the generator it is given.

use num_bigint::BigUint;
use rand::{Rng as _, RngCore};

use escapade_core::seed::Rng;

/// Lowercase words that phrases are made of (ASCII, no whitespace).
pub(super) const WORDS: &[&str] = &[
    "amber", "anchor", "atlas", "beacon", "bishop", "bramble", "cinder", "cobalt", "comet",
    "copper", "crimson", "dagger", "delta", "ember", "falcon", "fathom", "feather", "garnet",
    "glacier", "granite", "harbor", "hollow", "indigo", "ivory", "jasper", "juniper", "kestrel",
    "lantern", "lattice", "lunar", "marble", "meadow", "mirror", "nebula", "nimbus", "oracle",
    "orchid", "pebble", "pepper", "quartz", "quiver", "raven", "riddle", "saffron", "sable",
    "signal", "silver", "solace", "spindle", "tangle", "thistle", "tundra", "umber", "valley",
    "velvet", "violet", "walnut", "willow", "winter", "zephyr",
];

/// Capitalised room names (graph nodes; no whitespace, no `>`).
pub(super) const ROOMS: &[&str] = &[
    "Atrium",
    "Vault",
    "Cellar",
    "Library",
    "Gallery",
    "Attic",
    "Foyer",
    "Pantry",
    "Study",
    "Chapel",
    "Armory",
    "Tower",
    "Garden",
    "Crypt",
    "Observatory",
    "Boiler",
    "Parlor",
    "Kitchen",
    "Ballroom",
    "Greenhouse",
];

/// A uniformly chosen element of a non-empty constant list.
pub(super) fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// One word from [`WORDS`].
pub(super) fn word(rng: &mut Rng) -> String {
    (*pick(rng, WORDS)).to_string()
}

/// Two to four words separated by single spaces.
pub(super) fn phrase(rng: &mut Rng) -> String {
    let n = rng.random_range(2..=4);
    (0..n)
        .map(|_| *pick(rng, WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A decimal number of `lo..=hi` digits without a leading zero.
pub(super) fn digits(rng: &mut Rng, lo: usize, hi: usize) -> String {
    let n = rng.random_range(lo..=hi);
    let mut s = String::with_capacity(n);
    s.push(char::from(b'1' + rng.random_range(0..9u8)));
    for _ in 1..n {
        s.push(char::from(b'0' + rng.random_range(0..10u8)));
    }
    s
}

/// `n` random bytes.
pub(super) fn bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    rng.fill_bytes(&mut b);
    b
}

/// A uniformly random number of exactly `bits` bits (top bit set; `bits` ≥ 1).
pub(super) fn big_bits(rng: &mut Rng, bits: u64) -> BigUint {
    let bits = bits.max(1);
    let nbytes = bits.div_ceil(8) as usize;
    let mut b = bytes(rng, nbytes);
    let spare = nbytes as u64 * 8 - bits;
    b[0] &= 0xff >> spare;
    b[0] |= 0x80 >> spare;
    BigUint::from_bytes_be(&b)
}

/// A uniformly random number in `0..bound` (`bound` ≥ 1), by rejection sampling.
pub(super) fn big_below(rng: &mut Rng, bound: &BigUint) -> BigUint {
    let bits = bound.bits().max(1);
    let nbytes = bits.div_ceil(8) as usize;
    let spare = nbytes as u64 * 8 - bits;
    loop {
        let mut b = bytes(rng, nbytes);
        b[0] &= 0xff >> spare;
        let n = BigUint::from_bytes_be(&b);
        if &n < bound {
            return n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_core::seed;

    #[test]
    fn shapes() {
        let mut rng = seed::rng(7);
        for _ in 0..50 {
            let d = digits(&mut rng, 3, 5);
            assert!((3..=5).contains(&d.len()) && !d.starts_with('0'));
            let p = phrase(&mut rng);
            assert_eq!(p.trim(), p);
            assert_eq!(big_bits(&mut rng, 13).bits(), 13);
            let bound = BigUint::from(1000u32);
            assert!(big_below(&mut rng, &bound) < bound);
        }
    }
}
