//! The tools world through the binary: gen → run (oracle, random) → report.

mod common;
use common::*;

use std::process::Command;

#[test]
fn gen_run_report_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("x.json");
    let s = scenario.to_str().unwrap();
    ok(escapade(&[
        "gen",
        "tools",
        "--difficulty",
        "10",
        "--seed",
        "7",
        "--out",
        s,
    ]));
    let first = std::fs::read(&scenario).unwrap();
    ok(escapade(&[
        "gen",
        "tools",
        "--difficulty",
        "10",
        "--seed",
        "7",
        "--out",
        s,
    ]));
    assert_eq!(
        first,
        std::fs::read(&scenario).unwrap(),
        "same seed, same bytes"
    );

    for agent in ["oracle", "random"] {
        let runs = dir.path().join(format!("runs-{agent}"));
        ok(escapade(&[
            "run",
            s,
            "--agent",
            agent,
            "--epochs",
            "2",
            "--out",
            runs.to_str().unwrap(),
            "-q",
        ]));
        let run = run_dir_under(&runs);
        for f in ["run.toml", "episodes.jsonl", "summary.json", "report.md"] {
            assert!(run.join(f).exists(), "{agent}: missing {f}");
        }
        let report: serde_json::Value =
            serde_json::from_str(&ok(escapade(&["report", run.to_str().unwrap(), "--json"])))
                .unwrap();
        let group = &report["groups"][0];
        assert_eq!(group["world"], "tools");
        assert_eq!(group["difficulty"], 10);
        assert_eq!(group["n"], 2);
        let m = &group["metrics"];
        for name in [
            "success",
            "sub_problem_resolution",
            "tool_calls",
            "min_tool_calls",
            "errors_wrong_format",
        ] {
            assert!(m.get(name).is_some(), "{agent}: report lacks {name}");
        }
        if agent == "oracle" {
            assert_eq!(m["success"]["mean"], 1.0);
            assert_eq!(m["tool_calls"]["mean"], m["min_tool_calls"]["mean"]);
        }
    }
}

#[test]
fn play_reads_actions_from_stdin() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("x.json");
    ok(escapade(&[
        "gen",
        "tools",
        "--difficulty",
        "5",
        "--seed",
        "3",
        "--out",
        scenario.to_str().unwrap(),
    ]));
    let mut child = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(["play", scenario.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"investigate N000\n\xff\xfe\ngive_up\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("There is no node `N000`"), "{text}");
    assert!(text.contains("not valid UTF-8"), "{text}");
    assert!(text.contains("episode over"), "{text}");
}
