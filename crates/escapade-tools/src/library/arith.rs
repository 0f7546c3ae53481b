//! Big-integer arithmetic: `big_multiply`, `mod_pow`, `big_gcd`, `mod_inverse`, and the
//! Miller–Rabin prime helpers the seeding rules (and RSA) use.

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use rand::Rng as _;

use escapade_core::seed::Rng;

use super::words::{big_below, big_bits, digits};
use super::{Cx, ExecError, MAX_EUCLID_BITS, MAX_POW_BITS, Seed, open, output, signed};
use crate::template::{NodeKind, Template};
use crate::value::PortType::BigInt as Int;

const FAMILY: &str = "big-integer arithmetic";

pub(super) const BIG_MULTIPLY: Template = Template {
    id: "big_multiply",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Big Multiplier",
    semantics: "Multiplies two arbitrary-precision integers exactly. Inputs and output are \
        decimal integers (`-` for negatives, no leading zeros); the product may have at \
        most 20000 characters.",
    inputs: &[
        open("a", Int, "the first factor, a decimal integer"),
        open("b", Int, "the second factor, a decimal integer"),
    ],
    outputs: &[output("product", Int, "a × b as a decimal integer")],
};

pub(super) const MOD_POW: Template = Template {
    id: "mod_pow",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Modular Exponentiator",
    semantics: "Computes base^exponent mod modulus with arbitrary-precision integers. The \
        base may be any integer (it is reduced into 0..modulus first); the exponent must be \
        0 or more and the modulus 2 or more, each at most 4096 bits. The result is the \
        decimal integer in 0..modulus.",
    inputs: &[
        open("base", Int, "the base, a decimal integer"),
        open(
            "exponent",
            Int,
            "the exponent, a decimal integer ≥ 0 (at most 4096 bits)",
        ),
        open(
            "modulus",
            Int,
            "the modulus, a decimal integer ≥ 2 (at most 4096 bits)",
        ),
    ],
    outputs: &[output(
        "result",
        Int,
        "base^exponent mod modulus, in 0..modulus",
    )],
};

pub(super) const BIG_GCD: Template = Template {
    id: "big_gcd",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Greatest Common Divisor Engine",
    semantics: "Computes the greatest common divisor of two integers (each at most 16384 \
        bits), ignoring signs. gcd(0, 0) is 0. Output: a non-negative decimal integer.",
    inputs: &[
        open("a", Int, "the first integer, decimal"),
        open("b", Int, "the second integer, decimal"),
    ],
    outputs: &[output(
        "gcd",
        Int,
        "the greatest common divisor, a decimal integer ≥ 0",
    )],
};

pub(super) const MOD_INVERSE: Template = Template {
    id: "mod_inverse",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Modular Inverter",
    semantics: "Finds x in 0..modulus with value × x ≡ 1 (mod modulus). The value may be \
        any integer (reduced modulo the modulus first); the modulus must be 2 or more; both \
        at most 16384 bits. Fails when value and modulus are not coprime.",
    inputs: &[
        open("value", Int, "the integer to invert, decimal"),
        open("modulus", Int, "the modulus, a decimal integer ≥ 2"),
    ],
    outputs: &[output(
        "inverse",
        Int,
        "the inverse, a decimal integer in 0..modulus",
    )],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    let r = match cx.t.id {
        "big_multiply" => multiply(cx, v),
        "mod_pow" => mod_pow(cx, v),
        "big_gcd" => gcd(cx, v),
        "mod_inverse" => inverse(cx, v),
        _ => return None,
    };
    Some(r.map(|n| vec![n.to_string()]))
}

fn multiply(cx: &Cx<'_>, v: &[String]) -> Result<BigInt, ExecError> {
    let (a, b) = (cx.big(v, 0)?, cx.big(v, 1)?);
    // a Big_Int has at most 20000 characters, i.e. fewer than 66 440 bits
    if a.bits() + b.bits() > 66_440 + 1 {
        return Err(ExecError::TooLarge {
            port: cx.port(1),
            limit: "a product of 20000 digits",
        });
    }
    Ok(a * b)
}

fn mod_pow(cx: &Cx<'_>, v: &[String]) -> Result<BigInt, ExecError> {
    let base = cx.big(v, 0)?;
    let exponent = cx.big_capped(v, 1, MAX_POW_BITS, "4096 bits")?;
    let modulus = cx.big_capped(v, 2, MAX_POW_BITS, "4096 bits")?;
    Ok(signed(pow_mod(cx, &base, &exponent, &modulus, (1, 2))?))
}

/// `base^exponent mod modulus` after the domain checks (`ports` name the exponent and
/// modulus inputs for errors).
pub(super) fn pow_mod(
    cx: &Cx<'_>,
    base: &BigInt,
    exponent: &BigInt,
    modulus: &BigInt,
    ports: (usize, usize),
) -> Result<BigUint, ExecError> {
    if exponent.is_negative() {
        return Err(ExecError::OutOfRange {
            port: cx.port(ports.0),
            why: "the exponent must be 0 or more",
        });
    }
    if modulus < &BigInt::from(2) {
        return Err(ExecError::OutOfRange {
            port: cx.port(ports.1),
            why: "the modulus must be 2 or more",
        });
    }
    let (Some(m), Some(e), Some(b)) = (
        modulus.to_biguint(),
        exponent.to_biguint(),
        base.mod_floor(modulus).to_biguint(),
    ) else {
        return Err(ExecError::OutOfRange {
            port: cx.port(ports.1),
            why: "the modulus must be 2 or more",
        });
    };
    Ok(b.modpow(&e, &m))
}

fn gcd(cx: &Cx<'_>, v: &[String]) -> Result<BigInt, ExecError> {
    let a = cx.big_capped(v, 0, MAX_EUCLID_BITS, "16384 bits")?;
    let b = cx.big_capped(v, 1, MAX_EUCLID_BITS, "16384 bits")?;
    Ok(a.gcd(&b))
}

fn inverse(cx: &Cx<'_>, v: &[String]) -> Result<BigInt, ExecError> {
    let value = cx.big_capped(v, 0, MAX_EUCLID_BITS, "16384 bits")?;
    let modulus = cx.big_capped(v, 1, MAX_EUCLID_BITS, "16384 bits")?;
    if modulus < BigInt::from(2) {
        return Err(ExecError::OutOfRange {
            port: cx.port(1),
            why: "the modulus must be 2 or more",
        });
    }
    let (Some(m), Some(x)) = (modulus.to_biguint(), value.mod_floor(&modulus).to_biguint()) else {
        return Err(ExecError::NoInverse);
    };
    x.modinv(&m).map(signed).ok_or(ExecError::NoInverse)
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    match s.t.id {
        "big_multiply" => {
            s.fill(0, |r| digits(r, 3, 12));
            s.fill(1, |r| digits(r, 3, 12));
        }
        "mod_pow" => {
            if s.is_none(0) {
                let base = match s.big(2) {
                    Some(m) if m > BigInt::from(3) && m.bits() <= MAX_POW_BITS => {
                        let m = m.magnitude();
                        (big_below(s.rng, &(m - 2u32)) + 2u32).to_string()
                    }
                    _ => digits(s.rng, 3, 12),
                };
                s.set(0, base);
            }
            s.fill(1, |r| digits(r, 2, 6));
            if s.is_none(2) {
                let base = s.big(0).unwrap_or_default();
                let lo = (base.magnitude() + 1u32).max(BigUint::from(10_000_000u32));
                let modulus = if lo.bits() < MAX_POW_BITS - 1 {
                    (&lo + big_below(s.rng, &lo)).to_string()
                } else {
                    digits(s.rng, 12, 15)
                };
                s.set(2, modulus);
            }
        }
        "big_gcd" => match (s.big(0), s.big(1)) {
            (None, None) if s.is_none(0) && s.is_none(1) => {
                let g = BigUint::from(s.rng.random_range(2u32..100_000));
                let x = BigUint::from(s.rng.random_range(2u32..100_000));
                let y = BigUint::from(s.rng.random_range(2u32..100_000));
                s.set(0, (&g * x).to_string());
                s.set(1, (&g * y).to_string());
            }
            (Some(a), _) if s.is_none(1) => {
                let b = gcd_companion(s.rng, a.magnitude());
                s.set(1, b.to_string());
            }
            (_, Some(b)) if s.is_none(0) => {
                let a = gcd_companion(s.rng, b.magnitude());
                s.set(0, a.to_string());
            }
            _ => {}
        },
        "mod_inverse" => return Some(seed_inverse(s)),
        _ => return None,
    }
    Some(Ok(()))
}

/// A number sharing a non-trivial factor with `n` when `n` ≥ 2: a multiple of one of
/// its small prime factors, or of `n` itself when it has none below 1000.
fn gcd_companion(rng: &mut Rng, n: &BigUint) -> BigUint {
    let k = BigUint::from(rng.random_range(2u32..100_000));
    if n < &BigUint::from(2u32) {
        return k;
    }
    let factors: Vec<u32> = small_primes().filter(|&p| (n % p).is_zero()).collect();
    if factors.is_empty() {
        n * BigUint::from(rng.random_range(2u32..1000))
    } else {
        let p = factors[rng.random_range(0..factors.len())];
        k * p
    }
}

fn seed_inverse(s: &mut Seed<'_>) -> Result<(), ExecError> {
    if s.is_none(0) {
        match s.big(1) {
            Some(m) => {
                let x = m
                    .to_biguint()
                    .and_then(|m| invertible_below(s.rng, &m))
                    .ok_or(ExecError::Unsatisfiable {
                        why: "no value is invertible modulo the given modulus",
                    })?;
                s.set(0, x.to_string());
            }
            None => s.fill(0, |r| digits(r, 3, 12)),
        }
    }
    if s.is_none(1) {
        let Some(value) = s.big(0) else {
            return Err(ExecError::Unsatisfiable {
                why: "the value is not an integer",
            });
        };
        let a = value.magnitude();
        if a.is_zero() {
            return Err(ExecError::Unsatisfiable {
                why: "0 has no modular inverse",
            });
        }
        let modulus = if a.bits() <= 256 {
            // a prime above the value: coprime to it
            let start = a + 2u32 + big_below(s.rng, &(a + 10u32));
            next_prime(&start)
        } else {
            // too big to search for a prime: a + k with gcd(a, k) = 1 is coprime to a
            let mut m = a + 1u32;
            for _ in 0..64 {
                let k = BigUint::from(s.rng.random_range(1u32..1_000_000));
                if a.gcd(&k).is_one() {
                    m = a + k;
                    break;
                }
            }
            m
        };
        s.set(1, modulus.to_string());
    }
    Ok(())
}

/// A value invertible modulo `m` (used when only the modulus is wired); `None` when
/// the modulus is below 2 or too large.
fn invertible_below(rng: &mut Rng, m: &BigUint) -> Option<BigUint> {
    if m < &BigUint::from(2u32) || m.bits() > MAX_EUCLID_BITS {
        return None;
    }
    if m <= &BigUint::from(3u32) {
        return Some(m - 1u32);
    }
    (0..64)
        .map(|_| big_below(rng, &(m - 2u32)) + 2u32)
        .find(|x| x.gcd(m).is_one())
}

/// The primes below 1000.
fn small_primes() -> impl Iterator<Item = u32> {
    (2u32..1000).filter(|&n| (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0))
}

/// Miller–Rabin with the first 16 primes as bases, after trial division by the primes
/// below 1000 (deterministic; no false answer is known for random inputs).
pub(super) fn is_probable_prime(n: &BigUint) -> bool {
    if n < &BigUint::from(2u32) {
        return false;
    }
    for p in small_primes() {
        if n == &BigUint::from(p) {
            return true;
        }
        if (n % p).is_zero() {
            return false;
        }
    }
    let n1 = n - 1u32;
    let s = n1.trailing_zeros().unwrap_or(0);
    let d = &n1 >> s;
    'bases: for a in [
        2u32, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
    ] {
        let mut x = BigUint::from(a).modpow(&d, n);
        if x.is_one() || x == n1 {
            continue;
        }
        for _ in 1..s {
            x = x.modpow(&BigUint::from(2u32), n);
            if x == n1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// The smallest probable prime ≥ `from`.
pub(super) fn next_prime(from: &BigUint) -> BigUint {
    let mut n = from.clone();
    if n <= BigUint::from(2u32) {
        return BigUint::from(2u32);
    }
    if n.is_even() {
        n += 1u32;
    }
    while !is_probable_prime(&n) {
        n += 2u32;
    }
    n
}

/// A random probable prime of exactly `bits` bits (`bits` ≥ 8).
pub(super) fn random_prime(rng: &mut Rng, bits: u64) -> BigUint {
    loop {
        let n = big_bits(rng, bits) | BigUint::one();
        if is_probable_prime(&n) {
            return n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_core::seed;

    #[test]
    fn primes() {
        let small: Vec<u32> = small_primes().take(6).collect();
        assert_eq!(small, [2, 3, 5, 7, 11, 13]);
        assert!(is_probable_prime(&BigUint::from(1_000_000_007u32)));
        assert!(!is_probable_prime(&BigUint::from(561u32))); // Carmichael
        // 2^61 - 1 is prime; (2^61 - 1)(2^31 - 1) is not
        let m61 = (BigUint::one() << 61) - 1u32;
        assert!(is_probable_prime(&m61));
        assert!(!is_probable_prime(
            &(&m61 * ((BigUint::one() << 31) - 1u32))
        ));
        assert_eq!(next_prime(&BigUint::from(90u32)), BigUint::from(97u32));
        let mut rng = seed::rng(3);
        let p = random_prime(&mut rng, 64);
        assert_eq!(p.bits(), 64);
        assert!(is_probable_prime(&p));
    }

    #[test]
    fn companion_shares_a_factor() {
        let mut rng = seed::rng(5);
        for n in [12u32, 97, 1001, 65_537] {
            let n = BigUint::from(n);
            let c = gcd_companion(&mut rng, &n);
            assert!(n.gcd(&c) > BigUint::one(), "{n} {c}");
        }
    }
}
