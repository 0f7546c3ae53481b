//! The craft world through the binary: the suite is verified by the oracle, and an
//! oracle run escapes with first-person frames stored in the run directory.

mod common;
use common::*;

#[test]
fn the_suite_is_solved_and_compared_with_the_paper() {
    let out = ok(escapade(&["suite", "mm-escape@1", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scenarios = v["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 73);
    assert!(scenarios.iter().all(|s| s["oracle"]["solved"] == true));
    assert!(scenarios.iter().all(|s| s["world"] == "craft"));
    let paper = v["stats"]["paper"].as_array().unwrap();
    assert!(
        paper
            .iter()
            .any(|p| p["name"] == "objects per room, difficulty 1" && p["paper"] == 20.18)
    );
}

#[test]
fn an_oracle_run_escapes_and_keeps_its_frames() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().to_str().unwrap();
    ok(escapade(&[
        "-q",
        "run",
        "mm-escape@1",
        "--agent",
        "oracle",
        "--limit",
        "3",
        "--out",
        runs,
    ]));
    let run = run_dir_under(dir.path());
    let rows = std::fs::read_to_string(run.join("episodes.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = rows
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r["world"], "craft");
        assert_eq!(r["success"], true, "{r}");
        assert_eq!(r["metrics"]["grab_success_rate"], 1.0);
        assert_eq!(
            r["metrics"]["distance_moved"],
            r["metrics"]["optimal_distance"]
        );
    }
    let media: Vec<_> = std::fs::read_dir(run.join("media"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let steps: u64 = rows.iter().map(|r| r["steps"].as_u64().unwrap()).sum();
    assert!(
        media.len() as u64 >= steps,
        "{} frames for {steps} steps",
        media.len()
    );
    let png = std::fs::read(&media[0]).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

#[test]
fn a_generated_room_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let room = dir.path().join("r.json");
    ok(escapade(&[
        "gen",
        "craft",
        "--difficulty",
        "3",
        "--seed",
        "5",
        "--out",
        room.to_str().unwrap(),
    ]));
    let out = ok(escapade(&["check", room.to_str().unwrap()]));
    assert!(out.contains("oracle steps:"), "{out}");
}

#[test]
fn an_original_level_file_imports_with_a_seed() {
    let level = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../escapade-craft/tests/fixtures/levels/level3_note_first.json"
    );
    let out = ok(escapade(&["import", "craft", level, "--seed", "4"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &v.as_array().unwrap()[0];
    assert_eq!(s["world"], "craft");
    assert_eq!(s["seed"], 4);
    assert_eq!(s["variant"], "note-first");
    let again = ok(escapade(&["import", "craft", level, "--seed", "4"]));
    assert_eq!(out, again);
    let o = escapade(&["import", "craft", "/nonexistent/level.json"]);
    assert!(stderr(&o).contains("cannot read"));
}
