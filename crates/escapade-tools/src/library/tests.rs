//! Known-answer vectors for every primitive, run through [`execute`].

use super::*;
use crate::sandbox::SandboxError;

/// A runner for tests that never reach Python.
struct NoPython;

impl CodeRunner for NoPython {
    fn run(&self, _code: &str, _stdin: &str) -> Result<String, SandboxError> {
        Err(SandboxError::Unsupported)
    }
}

/// Runs template `id` on `inputs` with no files.
fn run(id: &str, inputs: &[&str]) -> Result<Vec<String>, ExecError> {
    run_with(id, inputs, &Files::default())
}

fn run_with(id: &str, inputs: &[&str], files: &Files) -> Result<Vec<String>, ExecError> {
    let t = template(id).expect("template exists");
    let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
    execute(t, &inputs, files, &NoPython)
}

fn one(id: &str, inputs: &[&str]) -> String {
    let out = run(id, inputs).unwrap_or_else(|e| panic!("{id}: {e}"));
    assert_eq!(out.len(), 1);
    out[0].clone()
}

#[test]
fn hashes_and_macs() {
    assert_eq!(
        one("sha256_digest", &["abc"]),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        one("md5_digest", &["abc"]),
        "900150983cd24fb0d6963f7d28e17f72"
    );
    assert_eq!(one("md5_digest", &[""]), "d41d8cd98f00b204e9800998ecf8427e");
    // RFC 4231, test case 2
    assert_eq!(
        one("hmac_sha256", &["Jefe", "what do ya want for nothing?"]),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(one("crc32", &["123456789"]), "cbf43926");
    assert_eq!(one("crc32", &[""]), "00000000");
}

#[test]
fn aes_round_trip_through_the_tool() {
    let key = "2b7e151628aed2a6abf7158809cf4f3c";
    let iv = "000102030405060708090a0b0c0d0e0f";
    let k = hex::decode(key).unwrap();
    let i = hex::decode(iv).unwrap();
    let ct = crypto::aes_cbc(&k, &i, "amber lantern".as_bytes(), true, true).unwrap();
    assert_eq!(ct.len(), 16);
    assert_eq!(
        one("aes_cbc_decrypt", &[&hex::encode(&ct), key, iv]),
        "amber lantern"
    );
    let wrong_iv = "00".repeat(16);
    assert!(run("aes_cbc_decrypt", &[&hex::encode(&ct), key, &wrong_iv]).is_err());
    assert!(matches!(
        run("aes_cbc_decrypt", &["", key, iv]),
        Err(ExecError::Decrypt)
    ));
    assert!(matches!(
        run("aes_cbc_decrypt", &["00", key, iv]),
        Err(ExecError::Decrypt)
    ));
}

#[test]
fn rsa_textbook() {
    // p = 61, q = 53, e = 17, d = 2753; m = 65 ('A') encrypts to 2790
    assert_eq!(one("rsa_decrypt", &["2790", "2753", "3233"]), "A");
    assert!(run("rsa_decrypt", &["2790", "2753", "1"]).is_err());
    assert!(run("rsa_decrypt", &["2790", "-1", "3233"]).is_err());
}

#[test]
fn big_integer_arithmetic() {
    assert_eq!(
        one(
            "big_multiply",
            &["123456789012345678901234567890", "-987654321"]
        ),
        "-121932631124828532112482853211126352690"
    );
    assert_eq!(one("mod_pow", &["4", "13", "497"]), "445");
    assert_eq!(one("mod_pow", &["-2", "3", "7"]), "6");
    assert_eq!(one("mod_pow", &["5", "0", "7"]), "1");
    assert!(matches!(
        run("mod_pow", &["5", "3", "1"]),
        Err(ExecError::OutOfRange { .. })
    ));
    assert!(run("mod_pow", &["5", "-3", "7"]).is_err());
    assert_eq!(one("big_gcd", &["462", "-1071"]), "21");
    assert_eq!(one("big_gcd", &["0", "0"]), "0");
    assert_eq!(one("mod_inverse", &["3", "11"]), "4");
    assert_eq!(one("mod_inverse", &["-3", "11"]), "7");
    assert!(matches!(
        run("mod_inverse", &["6", "9"]),
        Err(ExecError::NoInverse)
    ));
    assert!(matches!(
        run("mod_inverse", &["0", "9"]),
        Err(ExecError::NoInverse)
    ));
}

#[test]
fn encodings() {
    assert_eq!(one("base64_encode", &["hello"]), "aGVsbG8=");
    assert_eq!(one("base64_decode", &["aGVsbG8="]), "hello");
    assert!(run("base64_decode", &["aGVsbG8"]).is_err());
    assert!(matches!(
        run("base64_decode", &["/w=="]),
        Err(ExecError::NotUtf8 { .. })
    ));
    assert_eq!(one("hex_encode", &["hi"]), "6869");
    assert_eq!(one("hex_decode", &["6869"]), "hi");
    assert!(matches!(
        run("hex_decode", &["ff"]),
        Err(ExecError::NotUtf8 { .. })
    ));
    use base64::Engine;
    let packed = base64::engine::general_purpose::STANDARD.encode(encoding::deflate(b"quartz"));
    assert_eq!(one("zlib_inflate", &[&packed]), "quartz");
    assert!(run("zlib_inflate", &["aGVsbG8="]).is_err());
    assert_eq!(one("rot_n", &["Hello, World!", "13"]), "Uryyb, Jbeyq!");
    assert_eq!(one("rot_n", &["abc", "-27"]), "zab");
    assert_eq!(one("xor_hex", &["00ff10", "0f"]), "0ff01f");
    assert_eq!(one("xor_hex", &["", "0f"]), "");
    assert!(run("xor_hex", &["00", ""]).is_err());
}

#[test]
fn numeric_conversions() {
    assert_eq!(one("base_convert", &["255", "16"]), "ff");
    assert_eq!(one("base_convert", &["-10", "2"]), "-1010");
    assert_eq!(one("base_convert", &["35", "36"]), "z");
    assert_eq!(one("base_convert", &["0", "7"]), "0");
    assert!(run("base_convert", &["5", "37"]).is_err());
    assert!(run("base_convert", &["5", "1"]).is_err());
    assert_eq!(one("luhn_complete", &["7992739871"]), "79927398713");
    assert_eq!(one("luhn_complete", &["0"]), "0");
    assert!(run("luhn_complete", &["-5"]).is_err());
    assert_eq!(
        one("iban_compose", &["GB", "WEST12345698765432"]),
        "GB82WEST12345698765432"
    );
    assert_eq!(
        one("iban_compose", &["DE", "370400440532013000"]),
        "DE89370400440532013000"
    );
    assert!(run("iban_compose", &["gb", "WEST1"]).is_err());
    assert!(run("iban_compose", &["GB", "west 1"]).is_err());
    assert_eq!(one("hex_to_bigint", &["0100"]), "256");
    assert_eq!(one("hex_to_bigint", &[""]), "0");
}

#[test]
fn text_processing() {
    assert_eq!(one("unicode_normalize", &["e\u{301}", "NFC"]), "\u{e9}");
    assert_eq!(one("unicode_normalize", &["\u{e9}", "NFD"]), "e\u{301}");
    assert_eq!(
        one("unicode_normalize", &["\u{fb01}x\u{b2}", "NFKC"]),
        "fix2"
    );
    assert!(run("unicode_normalize", &["x", "NFX"]).is_err());
    assert_eq!(
        one("bidi_sanitize", &["ab\u{202E}cd\u{2069}\u{200F}"]),
        "abcd"
    );
    assert_eq!(
        one(
            "regex_search",
            &["the code is AB-1234 now", r"[A-Z]{2}-\d{4}"]
        ),
        "AB-1234"
    );
    assert!(matches!(
        run("regex_search", &["abc", r"\d"]),
        Err(ExecError::NotFound { .. })
    ));
    assert!(run("regex_search", &["abc", "("]).is_err());
    assert_eq!(
        one(
            "timezone_convert",
            &["2024-01-15 12:00", "Europe/London", "Asia/Tokyo"]
        ),
        "2024-01-15 21:00"
    );
    assert_eq!(
        one(
            "timezone_convert",
            &["2024-07-04 09:30", "America/New_York", "UTC"]
        ),
        "2024-07-04 13:30"
    );
    // 02:30 on 2024-03-10 does not exist in New York
    assert!(
        run(
            "timezone_convert",
            &["2024-03-10 02:30", "America/New_York", "UTC"]
        )
        .is_err()
    );
    assert!(
        run(
            "timezone_convert",
            &["2024-03-10 02:30", "Mars/Olympus", "UTC"]
        )
        .is_err()
    );
    assert!(run("timezone_convert", &["yesterday", "UTC", "UTC"]).is_err());
}

#[test]
fn key_derivation() {
    // SHA-256("abc") with an empty salt
    assert_eq!(
        one("derive_aes_key", &["abc", ""]),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // SHA-256("abc") again: salt "ab" then passphrase "c"
    assert_eq!(
        one("derive_aes_key", &["c", "6162"]),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // MD5("123")
    assert_eq!(
        one("derive_aes_iv", &["123"]),
        "202cb962ac59075b964b07152d234b70"
    );
}

#[test]
fn files_tools() {
    let mut files = Files::default();
    files.write(
        "file-0000000a",
        "t.csv",
        "text/csv",
        b"id,code\nraven-1,42\nowl-2,7\n",
    );
    files.write(
        "file-0000000b",
        "g.txt",
        "text/plain",
        b"A B 2\nB C 2\nA C 5\n",
    );
    files.write(
        "file-0000000c",
        "d.json",
        "application/json",
        br#"{"a": {"b c": [1, "x", {"k": true}]}}"#,
    );
    assert_eq!(
        run_with("csv_query", &["file-0000000a", "owl-2", "code"], &files).unwrap(),
        ["7"]
    );
    assert_eq!(
        run_with("shortest_path", &["file-0000000b", "A", "C"], &files).unwrap(),
        ["A>B>C", "4"]
    );
    let json = |p: &str| run_with("json_query", &["file-0000000c", p], &files);
    assert_eq!(json("$.a['b c'][1]").unwrap(), ["x"]);
    assert_eq!(json("$.a['b c'][2]").unwrap(), [r#"{"k":true}"#]);
    assert_eq!(json("$.a['b c'][0]").unwrap(), ["1"]);
    assert!(matches!(
        json("$.a['b c'][*]"),
        Err(ExecError::Ambiguous { count: 3 })
    ));
    assert!(matches!(json("$.zzz"), Err(ExecError::NotFound { .. })));
    assert!(matches!(json("$$"), Err(ExecError::Malformed { .. })));
    assert!(matches!(
        run_with("zip_extract", &["file-0000000a", "x"], &files),
        Err(ExecError::BadFile { .. })
    ));
    assert!(matches!(
        run("csv_query", &["file-0000000a", "owl-2", "code"]),
        Err(ExecError::NoSuchFile(_))
    ));
}

#[test]
fn terminals_and_containers() {
    let f = one("exit_keypad", &["42"]);
    assert!(f.starts_with("ESCAPE-") && f.len() == 19);
    assert_eq!(
        one("exit_keypad", &["+0042"]),
        f,
        "inputs are canonicalized"
    );
    assert_eq!(run("cipher_chest", &["open sesame"]).unwrap(), ["", ""]);
    assert!(matches!(
        run("coin", &[]),
        Err(ExecError::NotExecutable("coin"))
    ));
}

#[test]
fn misuse_is_an_error() {
    assert!(matches!(
        run("big_gcd", &["1"]),
        Err(ExecError::Arity { .. })
    ));
    assert!(matches!(
        run("big_gcd", &["1", "x"]),
        Err(ExecError::BadInput { .. })
    ));
    let mut fake = *template("big_gcd").unwrap();
    fake.id = "no_such_tool";
    assert!(matches!(
        execute(&fake, &[], &Files::default(), &NoPython),
        Err(ExecError::UnknownTemplate(_))
    ));
    // a trailing trigger value is accepted and ignored
    assert_eq!(run("big_gcd", &["4", "6", ""]).unwrap(), ["2"]);
}
