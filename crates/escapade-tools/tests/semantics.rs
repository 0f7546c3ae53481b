//! Stated semantics match outputs: every template's `semantics` text, re-implemented here
//! from its words alone (not from the crate's code), gives the golden output of every
//! node of `agentescape@2`, character for character.
//!
//! An agent that works a value out from the semantics must get what the scenario holds:
//! no hidden trimming (issue: `hex_decode` of `0a79550c` is `"\nyU\x0c"`), no regex
//! dialect surprise (issue: a JSON value used as a pattern). Where Python's standard
//! library has the function (regular expressions, Unicode normalization, time zones, the
//! interpreter itself) the reference is Python, a second implementation in a second
//! language; the rest uses general-purpose crates directly.

mod common;
use common::{suite, world};

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::{Command, Stdio};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use serde_json::{Value, json};
use sha2::Digest;

use escapade_tools::files::Files;
use escapade_tools::scenario::Node;
use escapade_tools::template::NodeKind;

/// Python's answers for a batch of `[kind, args...]` requests (one interpreter for all).
fn python_batch(requests: &[Value]) -> Vec<Value> {
    const HELPER: &str = r#"
import json, re, subprocess, sys, unicodedata, zoneinfo, datetime
out = []
for req in json.loads(sys.stdin.read()):
    kind = req[0]
    if kind == "regex":
        m = re.search(req[2], req[1])
        out.append(m.group(0) if m else None)
    elif kind == "normalize":
        out.append(unicodedata.normalize(req[2].upper(), req[1]))
    elif kind == "timezone":
        naive = datetime.datetime.strptime(req[1], "%Y-%m-%d %H:%M")
        local = naive.replace(tzinfo=zoneinfo.ZoneInfo(req[2]))
        out.append(local.astimezone(zoneinfo.ZoneInfo(req[3])).strftime("%Y-%m-%d %H:%M"))
    elif kind == "python":
        r = subprocess.run([sys.executable, "-I", "-S", "-c", req[1]], input=req[2].encode(),
                           capture_output=True)
        out.append(r.stdout.decode().rstrip("\n\r") if r.returncode == 0 else None)
sys.stdout.write(json.dumps(out))
"#;
    let mut child = Command::new("python3")
        .args(["-I", "-c", HELPER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(Value::Array(requests.to_vec()).to_string().as_bytes())
        .unwrap();
    let mut text = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert!(child.wait().unwrap().success());
    serde_json::from_str(&text).unwrap()
}

fn big(s: &str) -> BigInt {
    s.parse().unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn utf8(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap()
}

/// "Finds x in 0..modulus with value × x ≡ 1 (mod modulus)", by the extended Euclidean
/// algorithm.
fn inverse(value: &BigInt, m: &BigInt) -> BigInt {
    let (mut r0, mut r1) = (value.mod_floor(m), m.clone());
    let (mut s0, mut s1) = (BigInt::one(), BigInt::zero());
    while !r1.is_zero() {
        let q = &r0 / &r1;
        (r0, r1) = (r1.clone(), &r0 - &q * &r1);
        (s0, s1) = (s1.clone(), &s0 - &q * &s1);
    }
    assert!(r0.is_one());
    s0.mod_floor(m)
}

/// "Rotates every ASCII letter forward … by shift positions (shift taken modulo 26)".
fn rot(text: &str, shift: &BigInt) -> String {
    let k = shift.mod_floor(&BigInt::from(26)).to_u32().unwrap();
    text.chars()
        .map(|c| {
            for base in [b'a', b'A'] {
                let b = base as u32;
                if (b..b + 26).contains(&(c as u32)) {
                    return char::from_u32((c as u32 - b + k) % 26 + b).unwrap();
                }
            }
            c
        })
        .collect()
}

/// "Dijkstra from start to goal … Ties … are broken by taking, walking back from the
/// goal, the alphabetically smallest predecessor."
fn route(graph: &str, start: &str, goal: &str) -> (String, String) {
    let mut adj: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    for line in graph.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let w: u64 = f[2].parse().unwrap();
        adj.entry(f[0].into()).or_default().push((f[1].into(), w));
        adj.entry(f[1].into()).or_default().push((f[0].into(), w));
    }
    let mut dist: BTreeMap<String, u64> = BTreeMap::from([(start.to_string(), 0)]);
    let mut done = std::collections::BTreeSet::new();
    while let Some((d, v)) = dist
        .iter()
        .filter(|(v, _)| !done.contains(*v))
        .map(|(v, d)| (*d, v.clone()))
        .min()
    {
        done.insert(v.clone());
        for (u, w) in adj.get(&v).cloned().unwrap_or_default() {
            let nd = d + w;
            if dist.get(&u).is_none_or(|x| nd < *x) {
                dist.insert(u, nd);
            }
        }
    }
    let mut path = vec![goal.to_string()];
    let mut v = goal.to_string();
    while v != start {
        let prev = adj[&v]
            .iter()
            .filter(|(u, w)| dist.get(u).is_some_and(|du| du + w == dist[&v]))
            .map(|(u, _)| u.clone())
            .min()
            .unwrap();
        path.push(prev.clone());
        v = prev;
    }
    path.reverse();
    (path.join(">"), dist[goal].to_string())
}

/// The digits of `n` in base `b` (2–36), `0–9` then `a–z`, `-` for negatives.
fn radix(n: &BigInt, b: u32) -> String {
    if n.is_zero() {
        return "0".into();
    }
    let mut m = n.abs();
    let mut digits = Vec::new();
    let base = BigInt::from(b);
    while !m.is_zero() {
        let d = (&m % &base).to_u32().unwrap();
        digits.push(std::char::from_digit(d, 36).unwrap());
        m /= &base;
    }
    if n.is_negative() {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

/// "from the rightmost digit leftwards, every first, third, … digit is doubled".
fn luhn(digits: &str) -> String {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let x = 2 * d;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    format!("{digits}{}", (10 - sum % 10) % 10)
}

/// "98 minus the remainder mod 97 of account + country + `00` with letters as 10–35".
fn iban(country: &str, account: &str) -> String {
    let numeric: String = format!("{account}{country}00")
        .chars()
        .map(|c| c.to_digit(36).unwrap().to_string())
        .collect();
    let k = 98 - (big(&numeric) % BigInt::from(97)).to_u32().unwrap();
    format!("{country}{k:02}{account}")
}

fn aes_cbc(ciphertext: &[u8], key: &[u8], iv: &[u8]) -> String {
    use aes::cipher::{BlockDecryptMut, KeyIvInit, block_padding::Pkcs7};
    let mut buf = ciphertext.to_vec();
    let plain = match key.len() {
        16 => cbc::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
            .unwrap()
            .decrypt_padded_mut::<Pkcs7>(&mut buf)
            .unwrap()
            .to_vec(),
        24 => cbc::Decryptor::<aes::Aes192>::new_from_slices(key, iv)
            .unwrap()
            .decrypt_padded_mut::<Pkcs7>(&mut buf)
            .unwrap()
            .to_vec(),
        _ => cbc::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
            .unwrap()
            .decrypt_padded_mut::<Pkcs7>(&mut buf)
            .unwrap()
            .to_vec(),
    };
    utf8(plain)
}

fn flag(terminal: &str, input: &str) -> String {
    let digest = sha2::Sha256::digest(format!("escapade/{terminal}:{input}").as_bytes());
    format!("ESCAPE-{}", &hex::encode(digest)[..12])
}

/// What the semantics say the node outputs, or a request for Python to answer.
enum Expect {
    Now(Vec<String>),
    Python(Value),
}

fn expect(node: &Node, files: &Files) -> Option<Expect> {
    let v: Vec<&str> = node.parameters().map(|(_, p)| p.value.as_str()).collect();
    let file = |id: &str| files.get(id).unwrap().bytes();
    let one = |s: String| Some(Expect::Now(vec![s]));
    match node.template.as_str() {
        "big_multiply" => one((big(v[0]) * big(v[1])).to_string()),
        "mod_pow" => {
            let m = big(v[2]);
            one(big(v[0]).mod_floor(&m).modpow(&big(v[1]), &m).to_string())
        }
        "big_gcd" => one(big(v[0]).gcd(&big(v[1])).to_string()),
        "mod_inverse" => one(inverse(&big(v[0]), &big(v[1])).to_string()),
        "sha256_digest" => one(hex::encode(sha2::Sha256::digest(v[0].as_bytes()))),
        "md5_digest" => one(hex::encode(md5::Md5::digest(v[0].as_bytes()))),
        "hmac_sha256" => {
            use hmac::Mac;
            let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(v[0].as_bytes()).unwrap();
            mac.update(v[1].as_bytes());
            one(hex::encode(mac.finalize().into_bytes()))
        }
        "aes_cbc_decrypt" => one(aes_cbc(&unhex(v[0]), &unhex(v[1]), &unhex(v[2]))),
        "rsa_decrypt" => {
            let m = big(v[0]).modpow(&big(v[1]), &big(v[2]));
            one(utf8(m.to_biguint().unwrap().to_bytes_be()))
        }
        "base64_decode" => one(utf8(STANDARD.decode(v[0]).unwrap())),
        "base64_encode" => one(STANDARD.encode(v[0].as_bytes())),
        "hex_decode" => one(utf8(unhex(v[0]))),
        "hex_encode" => one(hex::encode(v[0].as_bytes())),
        "zlib_inflate" => {
            let mut out = String::new();
            flate2::read::ZlibDecoder::new(&STANDARD.decode(v[0]).unwrap()[..])
                .read_to_string(&mut out)
                .unwrap();
            one(out)
        }
        "rot_n" => one(rot(v[0], &big(v[1]))),
        "xor_hex" => {
            let (d, k) = (unhex(v[0]), unhex(v[1]));
            let x: Vec<u8> = d
                .iter()
                .enumerate()
                .map(|(i, b)| b ^ k[i % k.len()])
                .collect();
            one(hex::encode(x))
        }
        "zip_extract" => {
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(file(v[0]))).unwrap();
            let mut out = String::new();
            zip.by_name(v[1]).unwrap().read_to_string(&mut out).unwrap();
            one(out)
        }
        "csv_query" => {
            let bytes = file(v[0]);
            let mut r = csv::ReaderBuilder::new()
                .has_headers(true)
                .from_reader(&bytes[..]);
            let col = r.headers().unwrap().iter().position(|h| h == v[2]).unwrap();
            let row = r
                .records()
                .map(Result::unwrap)
                .find(|rec| rec.get(0) == Some(v[1]))
                .unwrap();
            one(row[col].to_string())
        }
        "json_query" => {
            let doc: Value = serde_json::from_slice(&file(v[0])).unwrap();
            let path = serde_json_path::JsonPath::parse(v[1]).unwrap();
            let nodes = path.query(&doc).all();
            assert_eq!(nodes.len(), 1, "{}: the path selects one node", node.id);
            one(match nodes[0] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
        }
        "regex_search" => Some(Expect::Python(json!(["regex", v[0], v[1]]))),
        "shortest_path" => {
            let (p, d) = route(&utf8(file(v[0])), v[1], v[2]);
            Some(Expect::Now(vec![p, d]))
        }
        "python_exec" => Some(Expect::Python(json!(["python", v[0], v[1]]))),
        "base_convert" => one(radix(&big(v[0]), v[1].parse().unwrap())),
        "crc32" => one(format!("{:08x}", crc32fast::hash(v[0].as_bytes()))),
        "luhn_complete" => one(big(luhn(v[0]).as_str()).to_string()),
        "iban_compose" => one(iban(v[0], v[1])),
        "hex_to_bigint" => one(BigUint::from_bytes_be(&unhex(v[0])).to_string()),
        "unicode_normalize" => Some(Expect::Python(json!(["normalize", v[0], v[1]]))),
        "bidi_sanitize" => one(v[0]
            .chars()
            .filter(|c| {
                !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
                        | '\u{200E}' | '\u{200F}' | '\u{061C}')
            })
            .collect()),
        "timezone_convert" => Some(Expect::Python(json!(["timezone", v[0], v[1], v[2]]))),
        "derive_aes_key" => {
            let mut h = sha2::Sha256::new();
            h.update(unhex(v[1]));
            h.update(v[0].as_bytes());
            one(hex::encode(h.finalize()))
        }
        "derive_aes_iv" => one(hex::encode(md5::Md5::digest(big(v[0]).to_string()))),
        "exit_keypad" | "exit_console" => one(flag(&node.template, v[0])),
        _ => {
            assert!(
                matches!(node.kind, NodeKind::Item | NodeKind::Container),
                "{}: template {} has no reference here",
                node.id,
                node.template
            );
            None
        }
    }
}

#[test]
fn every_output_of_the_suite_is_what_its_semantics_say() {
    let mut python = Vec::new();
    let mut checked = BTreeMap::<String, usize>::new();
    for s in suite() {
        for node in &s.nodes {
            let golden: Vec<String> = node
                .outputs
                .values()
                .filter(|p| !p.ty.is_physical())
                .map(|p| p.value.clone())
                .collect();
            match expect(node, &s.files) {
                None => continue,
                Some(Expect::Now(want)) => {
                    assert_eq!(want, golden, "{} {} ({})", s.id, node.id, node.template)
                }
                Some(Expect::Python(request)) => {
                    python.push((format!("{} {}", s.id, node.id), request, golden[0].clone()))
                }
            }
            *checked.entry(node.template.clone()).or_default() += 1;
        }
    }
    let requests: Vec<Value> = python.iter().map(|(_, r, _)| r.clone()).collect();
    for ((at, request, golden), got) in python.iter().zip(python_batch(&requests)) {
        assert_eq!(got, json!(golden), "{at}: {request}");
    }
    eprintln!("outputs checked per template: {checked:?}");
    // every tool and terminal template is exercised by the suite
    let callable = escapade_tools::library::library()
        .iter()
        .filter(|t| matches!(t.kind, NodeKind::Tool | NodeKind::Terminal))
        .count();
    assert_eq!(checked.len(), callable, "{checked:?}");
}

#[test]
fn text_outputs_keep_their_whitespace() {
    // the issue's case: hex_decode of bytes that begin and end with control whitespace
    let world = world();
    let hex_decode = escapade_tools::library::template("hex_decode").unwrap();
    let out = escapade_tools::library::execute(
        hex_decode,
        &["0a79550c".to_string()],
        &Files::default(),
        &*world.runner(),
    )
    .unwrap();
    assert_eq!(out, ["\nyU\u{c}"]);
    // python_exec drops only the final line breaks its print adds
    let python = escapade_tools::library::template("python_exec").unwrap();
    let out = escapade_tools::library::execute(
        python,
        &[
            "import sys\nprint(' ' + sys.stdin.read() + ' ')".to_string(),
            "a b".to_string(),
        ],
        &Files::default(),
        &*world.runner(),
    )
    .unwrap();
    assert_eq!(out, [" a b "]);
    // a value an agent passes is compared as given
    let text = escapade_tools::value::PortType::Text;
    assert_eq!(text.canonicalize(" x\n").unwrap(), " x\n");
}

#[test]
fn wired_regex_patterns_are_plain_text() {
    // a pattern taken from another node's output matches itself in every dialect
    let mut wired = 0;
    for s in suite() {
        for e in s.edges.iter().filter(|e| e.to_port == "pattern") {
            let n = &s.nodes[s.node_index(&e.to).unwrap()];
            if n.template != "regex_search" {
                continue;
            }
            wired += 1;
            let p = &n.inputs["pattern"].value;
            assert!(
                !p.contains([
                    '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$'
                ]),
                "{} {}: wired pattern {p:?}",
                s.id,
                n.id
            );
        }
    }
    eprintln!("{wired} wired regex patterns in the suite");
    // the issue's case is refused when seeding: the generator looks for another skeleton
    let t = escapade_tools::library::template("regex_search").unwrap();
    let mut inputs = vec![None, Some("[[729544,16577],214456]".to_string())];
    let err = escapade_tools::library::instantiate(
        t,
        &mut inputs,
        &mut Files::default(),
        &mut escapade_core::seed::rng(1),
        &*world().runner(),
    );
    assert!(err.is_err());
}
