//! The vis world through the binary: suite → run (oracle, random) → report, play with
//! pictures, gen → check.

mod common;
use common::*;

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn the_suite_is_solved_and_compared_with_the_paper() {
    let out = ok(escapade(&["suite", "visescape@1", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scenarios = v["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 20);
    assert!(scenarios.iter().all(|s| s["oracle"]["solved"] == true));
    let paper = v["stats"]["paper"].as_array().unwrap();
    assert!(
        paper
            .iter()
            .any(|p| p["name"] == "quizzes per room" && p["paper"] == 1.4)
    );
    let text = ok(escapade(&["suite", "visescape@1"]));
    assert!(text.contains("oracle steps per room"), "{text}");
}

#[test]
fn the_oracle_escapes_every_room_and_the_report_has_a_row_per_room() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().to_str().unwrap();
    ok(escapade(&[
        "-q",
        "run",
        "visescape@1",
        "--agent",
        "oracle",
        "--out",
        runs,
    ]));
    let run = run_dir_under(dir.path());
    let report = ok(escapade(&[
        "report",
        run.to_str().unwrap(),
        "--json",
        "--per-scenario",
    ]));
    let v: serde_json::Value = serde_json::from_str(&report).unwrap();
    let all = &v["overall"]["vis"]["metrics"];
    assert_eq!(all["success"]["mean"], 1.0);
    assert_eq!(all["spl"]["mean"], 1.0);
    assert_eq!(all["gc"]["mean"], 1.0);
    assert_eq!(v["scenarios"].as_array().unwrap().len(), 20);
    // every view the agent saw is in media/ as a PNG
    let media: Vec<_> = std::fs::read_dir(run.join("media")).unwrap().collect();
    assert!(media.len() > 100);
}

#[test]
fn a_person_plays_with_pictures_in_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let pictures = dir.path().join("pictures");
    let mut child = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(["play", "visescape@1", "--scenario", "vis-r02", "--images"])
        .arg(&pictures)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"turn to east\nfly\n<ANSWER>12</ANSWER>\n:quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("current.png"), "{text}");
    assert!(text.contains("not one of the available actions"), "{text}");
    assert!(text.contains("gave up"), "{text}");
    let current = std::fs::read(pictures.join("current.png")).unwrap();
    assert_eq!(&current[1..4], b"PNG");
    assert!(std::fs::read_dir(&pictures).unwrap().count() >= 2);
}

#[test]
fn generated_and_hand_written_rooms_check_clean() {
    let dir = tempfile::tempdir().unwrap();
    let room = dir.path().join("r.json");
    ok(escapade(&[
        "gen",
        "vis",
        "--difficulty",
        "3",
        "--seed",
        "11",
        "--out",
        room.to_str().unwrap(),
    ]));
    let out = ok(escapade(&["check", room.to_str().unwrap()]));
    assert!(
        out.contains("oracle steps:") && out.ends_with("ok\n"),
        "{out}"
    );
    // a broken room names its problem and fails
    let text = std::fs::read_to_string(&room).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut broken = v.clone();
    broken["interactions"] = serde_json::json!([]);
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, broken.to_string()).unwrap();
    let o = escapade(&["check", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("cannot be escaped"), "{said}");
    let o = escapade(&["check", "/nonexistent/room.toml"]);
    assert!(stderr(&o).contains("cannot read"));
}
