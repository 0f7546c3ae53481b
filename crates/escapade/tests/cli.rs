//! The built `escapade` binary: exit codes, JSON outputs and error messages.
//!
//! These tests use only what needs no world; tests against a real world live beside it.

mod common;
use common::*;

#[test]
fn list_json_parses() {
    let o = escapade(&["list", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["worlds"].is_array() && v["suites"].is_array(), "{v}");
    for w in v["worlds"].as_array().unwrap() {
        assert!(w["name"].is_string() && w["agents"].is_array(), "{w}");
    }
}

#[test]
fn unknown_world_fails_naming_the_known_ones() {
    let o = escapade(&["list", "atlantis"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with("error: unknown world `atlantis`; known: "),
        "{e}"
    );
    let o = escapade(&["gen", "atlantis", "--difficulty", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown world `atlantis`; known: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unknown_suite_fails_naming_the_known_ones() {
    let o = escapade(&["suite", "atlantis@1"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with("error: unknown suite `atlantis@1`; known: "),
        "{e}"
    );
    let o = escapade(&["run", "atlantis@1", "--agent", "random", "--quiet"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("unknown suite, scenario file or directory `atlantis@1`"),
        "{e}"
    );
}

#[test]
fn schema_prints_valid_json() {
    let o = escapade(&["schema"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format_version"], escapade_core::FORMAT_VERSION);
    assert!(v["episode_row"]["properties"]["config_hash"].is_object());
    assert!(v["step_row"]["properties"]["usage"].is_object());
}

#[test]
fn report_on_a_missing_directory_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    let o = escapade(&["report", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with("error: cannot open ") && e.contains("no-such-run"),
        "{e}"
    );
    // an existing directory that is not a run directory
    let o = escapade(&["report", "--json", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not a run directory (episodes.jsonl is missing)"));
}

#[test]
fn report_reads_a_hand_made_run() {
    let dir = tempfile::tempdir().unwrap();
    let row = r#"{"format_version":1,"suite":"s@1","scenario":"a","scenario_hash":"h","world":"tools","difficulty":5,"epoch":0,"seed":1,"agent":"random","config_hash":"c","success":true,"steps":4,"metrics":{"discovery_rate":0.5},"usage":{"input":0,"output":0,"cached":0,"cost_usd":0.0,"latency_ms":0},"duration_ms":3,"error":null}"#;
    std::fs::write(dir.path().join("episodes.jsonl"), format!("{row}\n")).unwrap();
    let o = escapade(&["report", "--format", "json", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["groups"][0]["metrics"]["discovery_rate"]["mean"], 0.5);
    let o = escapade(&["report", dir.path().to_str().unwrap()]);
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(
        md.contains("| 5 | 1 | 100.0 ± 0.0 | 4.00 ± 0.00 | 50.0 ± 0.0 |"),
        "{md}"
    );
}

#[test]
fn resume_of_a_non_run_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let o = escapade(&["resume", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is not a run directory (run.toml is missing)"),
        "{}",
        stderr(&o)
    );
}
