//! The template library's contract: its shape (App. A.1), seeding that always yields
//! runnable, canonical, reproducible nodes, and functions that never panic.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use proptest::prelude::*;

use escapade_core::seed;
use escapade_tools::files::Files;
use escapade_tools::library::{self, ExecError};
use escapade_tools::sandbox::{CodeRunner, SandboxError};
use escapade_tools::template::{NodeKind, PortRole, Template};
use escapade_tools::value::PortType;

/// Pipes the program to `python3 -I -S -c code` directly (no sandbox: test programs only).
struct PlainPython;

/// The interpreter behind `python3` (resolved once: version-manager shims are slow).
fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        Command::new("python3")
            .args(["-I", "-S", "-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "python3".to_string())
    })
}

impl CodeRunner for PlainPython {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        let io = |action| move |source| SandboxError::Io { action, source };
        let mut child = Command::new(python())
            .args(["-I", "-S", "-c", code])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io("start python3"))?;
        if let Some(mut pipe) = child.stdin.take() {
            pipe.write_all(stdin.as_bytes())
                .map_err(io("write stdin"))?;
        }
        let out = child.wait_with_output().map_err(io("wait for python3"))?;
        if !out.status.success() {
            return Err(SandboxError::Exception {
                status: out.status.code().unwrap_or(-1),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        let text = String::from_utf8(out.stdout).map_err(|e| SandboxError::NotUtf8 {
            valid_up_to: e.utf8_error().valid_up_to(),
        })?;
        Ok(text.trim_end_matches(['\n', '\r']).to_string())
    }
}

fn non_items() -> impl Iterator<Item = &'static Template> {
    library::library()
        .iter()
        .filter(|t| t.kind != NodeKind::Item)
}

/// What seeding and then running a node gave: the outputs, the filled inputs, the files.
type Seeded = (Vec<String>, Vec<Option<String>>, Files);

/// Seeds every input of `t` (given ones kept), then executes. `Err` is instantiate's
/// refusal; an execute failure after an accepted instantiate breaks the contract and
/// panics.
fn seed_and_run(t: &Template, given: Vec<Option<String>>, seed: u64) -> Result<Seeded, ExecError> {
    let mut rng = seed::rng(seed);
    let mut files = Files::default();
    let mut inputs = given;
    library::instantiate(t, &mut inputs, &mut files, &mut rng, &PlainPython)?;
    let values: Vec<String> = inputs
        .iter()
        .map(|v| v.clone().expect("every input filled"))
        .collect();
    let out = library::execute(t, &values, &files, &PlainPython).unwrap_or_else(|e| {
        panic!(
            "{}: instantiate accepted {values:?} but execute failed: {e}",
            t.id
        )
    });
    Ok((out, inputs, files))
}

#[test]
fn the_library_has_the_papers_shape() {
    let lib = library::library();
    let count = |k| lib.iter().filter(|t| t.kind == k).count();
    assert_eq!(count(NodeKind::Tool), 32);
    assert_eq!(count(NodeKind::Terminal), 2);
    assert_eq!(count(NodeKind::Item), 16);
    assert_eq!(count(NodeKind::Container), 4);
    let mut ids: Vec<&str> = lib.iter().map(|t| t.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), lib.len(), "ids are unique");
    for t in lib {
        assert_eq!(library::template(t.id), Some(t));
    }
    assert!(library::template("no_such_tool").is_none());
}

#[test]
fn every_type_is_produced_and_consumed() {
    let lib = library::library();
    for ty in PortType::ALL {
        assert!(
            lib.iter().any(|t| t.outputs.iter().any(|p| p.ty == ty)),
            "{ty} is some output"
        );
        if !ty.is_physical() {
            assert!(
                lib.iter().any(|t| t.inputs.iter().any(|p| p.ty == ty)),
                "{ty} is some input"
            );
        }
    }
}

#[test]
fn every_template_is_documented_and_wired_by_the_rules() {
    for t in library::library() {
        assert!(!t.title.is_empty() && !t.family.is_empty(), "{}", t.id);
        assert!(t.semantics.len() > 30, "{} semantics", t.id);
        assert!(!t.outputs.is_empty(), "{} has outputs", t.id);
        for p in t.inputs.iter().chain(t.outputs) {
            assert!(
                !p.name.is_empty() && !p.doc.is_empty(),
                "{}.{}",
                t.id,
                p.name
            );
        }
        for p in t.outputs {
            assert_eq!(p.role, PortRole::Open, "{}.{}", t.id, p.name);
        }
        for p in t.inputs {
            if p.ty == PortType::FileId {
                assert_eq!(p.role, PortRole::Exclusive, "{}.{}", t.id, p.name);
            }
        }
        match t.kind {
            NodeKind::Item => assert!(t.inputs.is_empty(), "{} items have no inputs", t.id),
            _ => assert!(!t.inputs.is_empty(), "{} has inputs", t.id),
        }
    }
}

#[test]
fn items_seed_their_payloads() {
    for t in library::library()
        .iter()
        .filter(|t| t.kind == NodeKind::Item)
    {
        let mut files = Files::default();
        let a = library::seed_item(t, &mut files, &mut seed::rng(9));
        let mut again = Files::default();
        assert_eq!(
            a,
            library::seed_item(t, &mut again, &mut seed::rng(9)),
            "{}",
            t.id
        );
        assert_eq!(files, again);
        for (p, v) in t.outputs.iter().zip(&a) {
            assert_eq!(p.ty.canonicalize(v).as_ref(), Ok(v), "{}.{}", t.id, p.name);
            if p.ty == PortType::FileId {
                assert!(files.0.contains_key(v) && !files.is_written(v));
            }
        }
        assert!(
            library::instantiate(t, &mut [], &mut files, &mut seed::rng(1), &PlainPython).is_ok()
        );
    }
}

#[test]
fn seeded_programs_are_total() {
    let code = library::template("punch_card").expect("punch_card");
    let mut rng = seed::rng(4);
    for _ in 0..6 {
        let program = library::seed_item(code, &mut Files::default(), &mut rng).remove(0);
        for stdin in ["", "  Amber Lantern 42  ", "é ü"] {
            let out = PlainPython.run(&program, stdin);
            assert!(out.is_ok(), "{program}\non {stdin:?}: {out:?}");
        }
    }
}

#[test]
fn hostile_values_are_errors_not_panics() {
    let files = Files::default();
    let huge = "9".repeat(20_000);
    let cases: &[(&str, &[&str])] = &[
        ("big_multiply", &[&huge, &huge]),
        ("mod_pow", &["2", &huge, "1000003"]),
        ("mod_pow", &["2", "5", &huge]),
        ("big_gcd", &[&huge, "6"]),
        ("mod_inverse", &[&huge, "7"]),
        ("rsa_decrypt", &["5", &huge, "77"]),
        ("luhn_complete", &[&huge]),
        ("base_convert", &["5", &huge]),
        ("big_multiply", &["", "1"]),
        ("zip_extract", &["file-00000000", "a.txt"]),
        ("csv_query", &["file-00000000", "k", "c"]),
        ("json_query", &["file-00000000", "$"]),
        ("shortest_path", &["file-00000000", "A", "B"]),
        ("zip_extract", &["", ""]),
        ("aes_cbc_decrypt", &["", "", ""]),
        ("hex_to_bigint", &[&"ff".repeat(10_000)]),
        ("iban_compose", &["", ""]),
        ("timezone_convert", &["", "", ""]),
        ("unicode_normalize", &["", ""]),
        ("base64_decode", &["!!"]),
        ("zlib_inflate", &[""]),
        ("xor_hex", &["", ""]),
    ];
    for (id, inputs) in cases {
        let t = library::template(id).expect("template");
        let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        let r = library::execute(t, &inputs, &files, &PlainPython);
        assert!(r.is_err(), "{id} on hostile input gave {r:?}");
    }
    // JSONPath parsing recurses and can be exponential: deep paths are refused first
    let mut with_doc = Files::default();
    with_doc.write(
        "file-0000000d",
        "d.json",
        "application/json",
        br#"{"a": [1]}"#,
    );
    let json = library::template("json_query").expect("json_query");
    for deep in [
        format!("$[?{}@{}]", "(".repeat(5000), ")".repeat(5000)),
        format!("$[?{}{}]", "@[?".repeat(40), "]".repeat(40)),
    ] {
        let inputs = vec!["file-0000000d".to_string(), deep];
        assert!(library::execute(json, &inputs, &with_doc, &PlainPython).is_err());
    }
    // the largest accepted operands still finish quickly
    let big = format!("{}", num_bigint::BigUint::from(3u32).pow(2580));
    let t = library::template("mod_pow").expect("mod_pow");
    let inputs = vec![big.clone(), big.clone(), big.clone() + "000"];
    assert!(
        library::execute(t, &inputs, &files, &PlainPython).is_err(),
        "over 4096 bits"
    );
    let inputs = vec![
        huge.clone(),
        big[..1200].to_string(),
        big[..1230].to_string(),
    ];
    assert!(library::execute(t, &inputs, &files, &PlainPython).is_ok());
    let gcd = library::template("big_gcd").expect("big_gcd");
    let inputs = vec![huge[..4900].to_string(), "8".repeat(4800)];
    assert!(library::execute(gcd, &inputs, &files, &PlainPython).is_ok());
    // empty strings everywhere
    for t in non_items() {
        let inputs = vec![String::new(); t.inputs.len()];
        let _ = library::execute(t, &inputs, &files, &PlainPython);
    }
}

/// A canonical value of `ty` (never a physical type).
fn value_of(ty: PortType) -> BoxedStrategy<String> {
    match ty {
        PortType::BigInt => prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            "-?[1-9][0-9]{0,60}",
            Just("0".to_string()),
        ]
        .boxed(),
        PortType::Text | PortType::CodePython => prop_oneof![
            "[ -~]{0,24}",
            "\\PC{0,12}",
            Just("print(input())".to_string()),
        ]
        .prop_map(|s| s.trim().to_string())
        .boxed(),
        PortType::Hex => proptest::collection::vec(any::<u8>(), 0..24)
            .prop_map(hex::encode)
            .boxed(),
        PortType::HexKeyAes => prop_oneof![Just(16usize), Just(24), Just(32)]
            .prop_flat_map(|n| proptest::collection::vec(any::<u8>(), n))
            .prop_map(hex::encode)
            .boxed(),
        PortType::HexIvAes => proptest::collection::vec(any::<u8>(), 16)
            .prop_map(hex::encode)
            .boxed(),
        PortType::FileId => any::<u32>().prop_map(|n| format!("file-{n:08x}")).boxed(),
        PortType::Item | PortType::HiddenItem => Just(String::new()).boxed(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn seeding_gives_runnable_canonical_reproducible_nodes(seed in any::<u64>()) {
        for t in non_items() {
            let (out, inputs, files) = seed_and_run(t, vec![None; t.inputs.len()], seed)
                .unwrap_or_else(|e| panic!("{} with seed {seed}: {e}", t.id));
            prop_assert_eq!(out.len(), t.outputs.len());
            for (p, v) in t.inputs.iter().zip(&inputs) {
                let v = v.as_deref().unwrap_or_default();
                if !p.ty.is_physical() {
                    let canonical = p.ty.canonicalize(v);
                    prop_assert_eq!(canonical.as_deref(), Ok(v), "{}.{}", t.id, p.name);
                }
                if p.ty == PortType::FileId {
                    prop_assert!(files.is_written(v), "{}.{} file written", t.id, p.name);
                }
            }
            for (p, v) in t.outputs.iter().zip(&out) {
                if p.ty.is_physical() {
                    prop_assert_eq!(v, "");
                } else {
                    let canonical = p.ty.canonicalize(v);
                    prop_assert_eq!(canonical.as_ref(), Ok(v), "{}.{}", t.id, p.name);
                }
            }
            let (again, inputs2, files2) = seed_and_run(t, vec![None; t.inputs.len()], seed)
                .unwrap_or_else(|e| panic!("{} with seed {seed}, again: {e}", t.id));
            prop_assert_eq!(again, out, "{} outputs repeat", t.id);
            prop_assert_eq!(inputs2, inputs, "{} inputs repeat", t.id);
            prop_assert_eq!(files2, files, "{} files repeat", t.id);
        }
    }

    #[test]
    fn given_values_seed_or_fail_cleanly(seed in any::<u64>(), picks in proptest::collection::vec(
        (value_of(PortType::BigInt), value_of(PortType::Text), value_of(PortType::Hex),
         value_of(PortType::HexKeyAes), value_of(PortType::HexIvAes), value_of(PortType::FileId)),
        1..2,
    )) {
        let (int, text, hex, key, iv, file) = picks[0].clone();
        for t in non_items() {
            // python is slow: give it arbitrary code only once per case, below
            if t.id == "python_exec" {
                continue;
            }
            let given: Vec<Option<String>> = t
                .inputs
                .iter()
                .map(|p| match (p.role, p.ty) {
                    (PortRole::SeedOnly, _) => None,
                    (_, PortType::BigInt) => Some(int.clone()),
                    (_, PortType::Text) => Some(text.clone()),
                    (_, PortType::Hex) => Some(hex.clone()),
                    (_, PortType::HexKeyAes) => Some(key.clone()),
                    (_, PortType::HexIvAes) => Some(iv.clone()),
                    (_, PortType::FileId) => Some(file.clone()),
                    _ => None,
                })
                .collect();
            // instantiate may refuse; once it accepts, execute must succeed
            let _ = seed_and_run(t, given.clone(), seed);
            // one input given at a time, the others seeded
            for (i, value) in given.iter().enumerate() {
                let mut single = vec![None; given.len()];
                single[i] = value.clone();
                let _ = seed_and_run(t, single, seed);
            }
        }
        let py = library::template("python_exec").expect("python_exec");
        let _ = seed_and_run(py, vec![Some(text.clone()), None], seed);
    }
}
