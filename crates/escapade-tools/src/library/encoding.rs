//! Encoding and decoding: `base64_decode`, `base64_encode`, `hex_decode`, `hex_encode`,
//! `zlib_inflate`, `rot_n`, `xor_hex`.

use std::io::{Read, Write};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::ToPrimitive;
use rand::Rng as _;

use super::words::{bytes, phrase};
use super::{Cx, ExecError, MAX_BYTES, Seed, exclusive, open, output, seed_only, utf8};
use crate::template::{NodeKind, Template};
use crate::value::PortType::{BigInt as Int, Hex, Text};

const FAMILY: &str = "encoding";

pub(super) const BASE64_DECODE: Template = Template {
    id: "base64_decode",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Base64 Decoder",
    semantics: "Decodes standard Base64 (RFC 4648 alphabet `A–Z a–z 0–9 + /`, with `=` \
        padding, no line breaks) and returns the decoded bytes as UTF-8 text. Fails when \
        the data is not canonical Base64 or the bytes are not UTF-8.",
    inputs: &[exclusive("data", Text, "standard padded Base64 text")],
    outputs: &[output("text", Text, "the decoded bytes as UTF-8 text")],
};

pub(super) const BASE64_ENCODE: Template = Template {
    id: "base64_encode",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Base64 Encoder",
    semantics: "Encodes the UTF-8 bytes of the text as standard Base64 (RFC 4648 alphabet \
        `A–Z a–z 0–9 + /`, `=` padding, no line breaks).",
    inputs: &[open("text", Text, "the text to encode (its UTF-8 bytes)")],
    outputs: &[output("data", Text, "standard padded Base64")],
};

pub(super) const HEX_DECODE: Template = Template {
    id: "hex_decode",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Hex Decoder",
    semantics: "Decodes a hex string (two digits per byte) and returns the bytes as UTF-8 \
        text. Fails when the bytes are not UTF-8.",
    inputs: &[open("data", Hex, "the bytes as hex")],
    outputs: &[output("text", Text, "the bytes as UTF-8 text")],
};

pub(super) const HEX_ENCODE: Template = Template {
    id: "hex_encode",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Hex Encoder",
    semantics: "Encodes the UTF-8 bytes of the text as lowercase hex, two digits per byte.",
    inputs: &[open("text", Text, "the text to encode (its UTF-8 bytes)")],
    outputs: &[output("hex", Hex, "the UTF-8 bytes as lowercase hex")],
};

pub(super) const ZLIB_INFLATE: Template = Template {
    id: "zlib_inflate",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Zlib Inflater",
    semantics: "Decodes the data as standard padded Base64, inflates the bytes as a zlib \
        stream (RFC 1950, deflate inside) and returns the result as UTF-8 text. At most \
        1 MiB is inflated.",
    inputs: &[seed_only("data", Text, "standard Base64 of a zlib stream")],
    outputs: &[output("text", Text, "the inflated bytes as UTF-8 text")],
};

pub(super) const ROT_N: Template = Template {
    id: "rot_n",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "ROT-N Rotor",
    semantics: "Rotates every ASCII letter forward in the alphabet by shift positions \
        (shift taken modulo 26, negative shifts rotate backwards), keeping its case; every \
        other character is unchanged. ROT-13 is shift 13.",
    inputs: &[
        open("text", Text, "the text to rotate"),
        open(
            "shift",
            Int,
            "the shift, a decimal integer (used modulo 26)",
        ),
    ],
    outputs: &[output("text", Text, "the rotated text")],
};

pub(super) const XOR_HEX: Template = Template {
    id: "xor_hex",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "XOR Combiner",
    semantics: "XORs the data bytes with the key bytes, repeating the key as often as \
        needed (byte i uses key byte i mod key length). Both are hex; the key must not be \
        empty. Output: as many bytes as the data, lowercase hex.",
    inputs: &[
        open("data", Hex, "the data bytes as hex"),
        open("key", Hex, "the key bytes as hex (at least one byte)"),
    ],
    outputs: &[output(
        "result",
        Hex,
        "data XOR repeated key, lowercase hex",
    )],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    let r = match cx.t.id {
        "base64_decode" => b64(cx, &v[0]).and_then(|b| utf8(cx.port(0), b)),
        "base64_encode" => Ok(STANDARD.encode(v[0].as_bytes())),
        "hex_decode" => cx.hex(v, 0).and_then(|b| utf8(cx.port(0), b)),
        "hex_encode" => Ok(hex::encode(v[0].as_bytes())),
        "zlib_inflate" => inflate(cx, v),
        "rot_n" => cx.big(v, 1).map(|shift| rot(&v[0], &shift)),
        "xor_hex" => xor(cx, v),
        _ => return None,
    };
    Some(r.map(|out| vec![out]))
}

fn b64(cx: &Cx<'_>, data: &str) -> Result<Vec<u8>, ExecError> {
    STANDARD.decode(data).map_err(|_| ExecError::Malformed {
        port: cx.port(0),
        format: "standard padded Base64",
    })
}

fn inflate(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let packed = b64(cx, &v[0])?;
    let mut out = Vec::new();
    ZlibDecoder::new(&packed[..])
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| ExecError::Malformed {
            port: cx.port(0),
            format: "zlib stream",
        })?;
    if out.len() > MAX_BYTES {
        return Err(ExecError::TooLarge {
            port: cx.port(0),
            limit: "1 MiB inflated",
        });
    }
    utf8(cx.port(0), out)
}

/// Deflates bytes as a zlib stream at level 6 (deterministic).
pub(super) fn deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(Vec::new(), Compression::new(6));
    // writing into a Vec cannot fail
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

/// Rotates ASCII letters by `shift` mod 26.
pub(super) fn rot(text: &str, shift: &BigInt) -> String {
    let k = shift.mod_floor(&BigInt::from(26)).to_u8().unwrap_or(0);
    text.chars()
        .map(|c| match c {
            'a'..='z' => char::from(b'a' + (c as u8 - b'a' + k) % 26),
            'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + k) % 26),
            _ => c,
        })
        .collect()
}

fn xor(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let data = cx.hex(v, 0)?;
    let key = cx.hex(v, 1)?;
    if key.is_empty() {
        return Err(ExecError::OutOfRange {
            port: cx.port(1),
            why: "the key must have at least one byte",
        });
    }
    let out: Vec<u8> = data
        .iter()
        .zip(key.iter().cycle())
        .map(|(d, k)| d ^ k)
        .collect();
    Ok(hex::encode(out))
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    match s.t.id {
        "base64_decode" => s.fill(0, |r| STANDARD.encode(phrase(r))),
        "base64_encode" | "hex_encode" => s.fill(0, phrase),
        "hex_decode" => s.fill(0, |r| hex::encode(phrase(r))),
        "zlib_inflate" => s.fill(0, |r| STANDARD.encode(deflate(phrase(r).as_bytes()))),
        "rot_n" => {
            s.fill(0, phrase);
            s.fill(1, |r| r.random_range(1..26u32).to_string());
        }
        "xor_hex" => {
            s.fill(0, |r| {
                let n = r.random_range(4..=16);
                hex::encode(bytes(r, n))
            });
            s.fill(1, |r| {
                let n = r.random_range(1..=8);
                hex::encode(bytes(r, n))
            });
        }
        _ => return None,
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rot_and_deflate() {
        assert_eq!(rot("Hello, World!", &BigInt::from(13)), "Uryyb, Jbeyq!");
        assert_eq!(rot("abc", &BigInt::from(-1)), "zab");
        assert_eq!(
            rot("abc", &"1000000000000000000000001".parse().unwrap()),
            "pqr"
        );
        let packed = deflate(b"amber lantern");
        let mut out = String::new();
        ZlibDecoder::new(&packed[..])
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "amber lantern");
        assert_eq!(packed, deflate(b"amber lantern"));
    }
}
