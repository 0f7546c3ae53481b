//! Numeric conversion: `base_convert`, `crc32`, `luhn_complete`, `iban_compose`,
//! `hex_to_bigint`.

use num_bigint::BigUint;
use num_traits::{Signed, ToPrimitive};
use rand::Rng as _;

use escapade_core::seed::Rng;

use super::words::{bytes, digits, phrase, pick};
use super::{Cx, ExecError, Seed, open, output, seed_only, signed};
use crate::template::{NodeKind, Template};
use crate::value::PortType::{BigInt as Int, Hex, Text};

const FAMILY: &str = "numeric conversion";

pub(super) const BASE_CONVERT: Template = Template {
    id: "base_convert",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Radix Converter",
    semantics: "Writes the integer in the given base (2 to 36) with digits `0–9` then \
        lowercase `a–z`, most significant first, no prefix and no leading zeros; negative \
        numbers get a leading `-`.",
    inputs: &[
        open("number", Int, "the integer to convert, decimal"),
        seed_only(
            "to_base",
            Int,
            "the target base, a decimal integer from 2 to 36",
        ),
    ],
    outputs: &[output(
        "digits",
        Text,
        "the number written in the target base",
    )],
};

pub(super) const CRC32: Template = Template {
    id: "crc32",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "CRC-32 Checksum",
    semantics: "Computes CRC-32 (ISO-HDLC / zlib polynomial 0x04C11DB7, reflected, initial \
        and final XOR 0xFFFFFFFF) of the UTF-8 bytes of the text. Output: the 4-byte value \
        big-endian as 8 lowercase hex digits (`123456789` gives `cbf43926`).",
    inputs: &[open("text", Text, "the text to checksum (its UTF-8 bytes)")],
    outputs: &[output("checksum", Hex, "CRC-32 as 8 lowercase hex digits")],
};

pub(super) const LUHN_COMPLETE: Template = Template {
    id: "luhn_complete",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Luhn Check Digit Appender",
    semantics: "Appends the Luhn (mod 10) check digit to the decimal digits of a \
        non-negative integer: from the rightmost digit leftwards, every first, third, … \
        digit is doubled (subtracting 9 when above 9), all are summed, and the check digit \
        is (10 − sum mod 10) mod 10. Output: the digits followed by the check digit, as a \
        decimal integer.",
    inputs: &[open(
        "number",
        Int,
        "the payload, a non-negative decimal integer",
    )],
    outputs: &[output(
        "full",
        Int,
        "the payload with its check digit appended",
    )],
};

pub(super) const IBAN_COMPOSE: Template = Template {
    id: "iban_compose",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "IBAN Composer",
    semantics: "Composes an IBAN (ISO 13616): the check digits kk are 98 minus the remainder \
        mod 97 of the number formed by account + country + `00` with letters replaced by \
        10–35 (A = 10 … Z = 35). Country: two uppercase letters; account (BBAN): 1–30 \
        uppercase letters and digits. Output: country, kk (two digits) and account, no \
        spaces, e.g. `GB82WEST12345698765432`.",
    inputs: &[
        seed_only(
            "country",
            Text,
            "the ISO 3166 country code, two uppercase letters",
        ),
        seed_only(
            "account",
            Text,
            "the BBAN: uppercase letters and digits, no spaces",
        ),
    ],
    outputs: &[output(
        "iban",
        Text,
        "the IBAN in electronic form (no spaces)",
    )],
};

pub(super) const HEX_TO_BIGINT: Template = Template {
    id: "hex_to_bigint",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Hex to Integer",
    semantics: "Reads the hex bytes as one unsigned big-endian integer (the empty string is \
        0) and writes it in decimal. At most 8300 bytes.",
    inputs: &[open("hex", Hex, "the bytes as hex, most significant first")],
    outputs: &[output("value", Int, "the unsigned integer, decimal")],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    let r = match cx.t.id {
        "base_convert" => base_convert(cx, v),
        "crc32" => Ok(format!("{:08x}", crc32fast::hash(v[0].as_bytes()))),
        "luhn_complete" => luhn(cx, v),
        "iban_compose" => iban(cx, &v[0], &v[1]),
        "hex_to_bigint" => cx.hex(v, 0).and_then(|b| {
            if b.len() > 8300 {
                return Err(ExecError::TooLarge {
                    port: cx.port(0),
                    limit: "8300 bytes",
                });
            }
            Ok(signed(BigUint::from_bytes_be(&b)).to_string())
        }),
        _ => return None,
    };
    Some(r.map(|out| vec![out]))
}

fn base_convert(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let n = cx.big(v, 0)?;
    let base = cx
        .big(v, 1)?
        .to_u32()
        .filter(|b| (2..=36).contains(b))
        .ok_or(ExecError::OutOfRange {
            port: cx.port(1),
            why: "the base must be from 2 to 36",
        })?;
    Ok(n.to_str_radix(base))
}

/// The Luhn check digit for a string of decimal digits.
fn luhn_digit(payload: &str) -> u32 {
    let sum: u32 = payload
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let dd = d * 2;
                if dd > 9 { dd - 9 } else { dd }
            } else {
                d
            }
        })
        .sum();
    (10 - sum % 10) % 10
}

fn luhn(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let n = cx.big(v, 0)?;
    if n.is_negative() {
        return Err(ExecError::OutOfRange {
            port: cx.port(0),
            why: "the number must not be negative",
        });
    }
    let payload = n.to_string();
    Ok(format!("{payload}{}", luhn_digit(&payload)))
}

fn iban(cx: &Cx<'_>, country: &str, account: &str) -> Result<String, ExecError> {
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ExecError::Malformed {
            port: cx.port(0),
            format: "country code (two uppercase letters)",
        });
    }
    let alnum = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit();
    if account.is_empty() || account.len() > 30 || !account.bytes().all(alnum) {
        return Err(ExecError::Malformed {
            port: cx.port(1),
            format: "BBAN (1–30 uppercase letters and digits)",
        });
    }
    let rem = format!("{account}{country}00")
        .bytes()
        .fold(0u32, |acc, b| {
            if b.is_ascii_digit() {
                (acc * 10 + u32::from(b - b'0')) % 97
            } else {
                (acc * 100 + u32::from(b - b'A') + 10) % 97
            }
        });
    Ok(format!("{country}{:02}{account}", 98 - rem))
}

/// BBAN shapes by country: (letters `a`, digits `n`, alphanumerics `c`, count).
const BBANS: &[(&str, &[(char, usize)])] = &[
    ("GB", &[('a', 4), ('n', 14)]),
    ("IE", &[('a', 4), ('n', 14)]),
    ("DE", &[('n', 18)]),
    ("NL", &[('a', 4), ('n', 10)]),
    ("FR", &[('n', 10), ('c', 11), ('n', 2)]),
    ("BE", &[('n', 12)]),
    ("AT", &[('n', 16)]),
    ("CH", &[('n', 5), ('c', 12)]),
    ("ES", &[('n', 20)]),
    ("IT", &[('a', 1), ('n', 10), ('c', 12)]),
    ("NO", &[('n', 11)]),
    ("PL", &[('n', 24)]),
];

fn bban(rng: &mut Rng, shape: &[(char, usize)]) -> String {
    let mut s = String::new();
    for &(kind, count) in shape {
        for _ in 0..count {
            let letter = kind == 'a' || (kind == 'c' && rng.random_bool(0.4));
            s.push(if letter {
                char::from(b'A' + rng.random_range(0..26u8))
            } else {
                char::from(b'0' + rng.random_range(0..10u8))
            });
        }
    }
    s
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    match s.t.id {
        "base_convert" => {
            s.fill(0, |r| digits(r, 3, 12));
            s.fill(1, |r| {
                let b = r.random_range(2..=35u32);
                (if b >= 10 { b + 1 } else { b }).to_string()
            });
        }
        "crc32" => s.fill(0, phrase),
        "luhn_complete" => s.fill(0, |r| digits(r, 6, 15)),
        "iban_compose" => {
            let (country, shape) = *pick(s.rng, BBANS);
            let given = s.get(0).map(str::to_string);
            let shape = given
                .as_deref()
                .and_then(|c| BBANS.iter().find(|(k, _)| *k == c).map(|(_, sh)| *sh))
                .unwrap_or(shape);
            s.set(0, country.to_string());
            s.fill(1, |r| bban(r, shape));
        }
        "hex_to_bigint" => s.fill(0, |r| {
            let n = r.random_range(2..=12);
            hex::encode(bytes(r, n))
        }),
        _ => return None,
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_vectors() {
        assert_eq!(luhn_digit("7992739871"), 3);
        assert_eq!(luhn_digit("0"), 0);
        assert_eq!(luhn_digit("453201511283036"), 6);
    }
}
