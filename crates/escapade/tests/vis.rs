//! The vis world through the binary: suite → run (oracle, random) → report, play with
//! pictures, gen → check.

mod common;
use common::*;

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn the_suite_is_solved_and_compared_with_the_paper() {
    let out = ok(escapade(&["suite", "visescape@4", "--json"]));
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
    let text = ok(escapade(&["suite", "visescape@4"]));
    assert!(text.contains("oracle steps per room"), "{text}");
}

#[test]
fn the_oracle_escapes_every_room_and_the_report_has_a_row_per_room() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().to_str().unwrap();
    ok(escapade(&[
        "-q",
        "run",
        "visescape@4",
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
        .args(["play", "visescape@4", "--scenario", "vis-r02", "--images"])
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
    assert!(text.contains("not among the <Available Actions>"), "{text}");
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

/// `escapade show` of the suite: no system prompt, and a first observation that is the
/// whole prompt as the original's BaseAgent sends it (the instruction, the side of the
/// room with the picture's place, the actions in the original's names), and a picture
/// with nothing written on it (the picture is the one the vis crate's views test checks
/// for banners and tags); `-W labels=on -W prompt=helpful` give the old help back.
#[test]
fn show_gives_the_papers_prompt_and_unlabelled_pictures() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    ok(escapade(&[
        "show",
        "visescape@4",
        "--scenario",
        "vis-r05",
        "-o",
        plain.to_str().unwrap(),
    ]));
    let md = std::fs::read_to_string(plain.join("observation.md")).unwrap();
    assert!(
        md.contains("# System prompt\n\n(none: each observation is the whole prompt)"),
        "{md}"
    );
    assert!(md.contains(escapade_vis::interface::INSTRUCTIONS), "{md}");
    assert!(
        md.contains("<Current Observation>NORTH side of room - [IMAGE]</Current Observation>"),
        "{md}"
    );
    assert!(md.contains("'turn_to_east'"), "{md}");
    assert!(!md.contains("Clues for codes") && !md.contains("Step 1 of 300"));
    let room = escapade_vis::suite::rooms().unwrap().remove(4);
    let game = escapade_vis::Game::new(room).unwrap();
    let want = escapade_vis::render::render(&game, &game.start()).unwrap();
    assert_eq!(std::fs::read(plain.join("view-start-1.png")).unwrap(), want);
    let helped = dir.path().join("helped");
    ok(escapade(&[
        "show",
        "visescape@4",
        "--scenario",
        "vis-r05",
        "-W",
        "labels=on",
        "-W",
        "prompt=helpful",
        "-o",
        helped.to_str().unwrap(),
    ]));
    let md = std::fs::read_to_string(helped.join("observation.md")).unwrap();
    assert!(md.contains("Clues for codes are hidden elsewhere"), "{md}");
    assert_ne!(
        std::fs::read(helped.join("view-start-1.png")).unwrap(),
        want
    );
    // the retired names say what replaced them and why (`@2`: the RNG changed; `@3`: the
    // original's engine and protocol)
    let o = escapade(&["run", "visescape@1", "--agent", "oracle"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("visescape@4"), "{}", stderr(&o));
    let o = escapade(&["run", "visescape@2", "--agent", "oracle"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("visescape@4"), "{}", stderr(&o));
    assert!(stderr(&o).contains("ChaCha20"), "{}", stderr(&o));
    // `@3` played a solved lock's close-up on and kept used tools in the bag
    let o = escapade(&["run", "visescape-hints@3", "--agent", "oracle"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("visescape-hints@4"), "{}", stderr(&o));
    assert!(stderr(&o).contains("the view goes back"), "{}", stderr(&o));
    let o = escapade(&["run", "visescape-quiz@3", "--agent", "oracle"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("visescape-quiz@4"), "{}", stderr(&o));
    assert!(stderr(&o).contains("prompt=chat"), "{}", stderr(&o));
}

/// The terminal report keeps to 120 columns with §4.2's metrics.
#[test]
fn the_terminal_report_fits_120_columns() {
    let wide = report_fits_120_columns("visescape@4", &[]);
    assert!(wide.contains("brute_force_ratio"), "{wide}");
}

/// The requests the paper's agents send on `visescape@4` (App. A.5; the original's
/// `run_inference_vision`): no system message; the first (and only) user message holds
/// the instruction, the whole step prompt and the picture, in that order — for `base`,
/// `visescaper` and the chat agent `llm` (whose suite settings send no past exchanges).
#[test]
fn the_first_user_message_holds_the_instruction_and_the_picture() {
    let tmp = tempfile::tempdir().unwrap();
    // vis-r01 starts facing north: west, then east (VisEscaper's analysis between)
    let reply =
        |wall: &str| format!("{{\"text\": \"[THINK] look around\\n[ACTION] turn_to_{wall}\"}}\n");
    for agent in ["base", "visescaper", "llm"] {
        let script = tmp.path().join(format!("{agent}.jsonl"));
        let analysis = if agent == "visescaper" {
            "{\"text\": \"[ANALYSIS] the view turned\"}\n"
        } else {
            ""
        };
        std::fs::write(
            &script,
            format!("{}{analysis}{}", reply("west"), reply("east")),
        )
        .unwrap();
        let model = format!("scripted/{}", script.display());
        let runs = tmp.path().join(agent);
        ok(escapade(&[
            "run",
            "visescape@4",
            "--agent",
            agent,
            "--model",
            &model,
            "--limit",
            "1",
            "--epochs",
            "1",
            "--max-steps",
            "2",
            "-A",
            "log=full",
            "-q",
            "--out",
            runs.to_str().unwrap(),
        ]));
        let dir = run_dir_under(&runs);
        let rows = std::fs::read_to_string(dir.join("trajectories/vis-r01/0.jsonl")).unwrap();
        let rows: Vec<serde_json::Value> = rows
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 2, "{agent}");
        for row in &rows {
            let sent = row["request"]["sent"]
                .as_array()
                .unwrap_or_else(|| panic!("{agent}: {row}"));
            assert_eq!(
                sent.len(),
                1,
                "{agent}: one message, no system message: {row}"
            );
            assert_eq!(sent[0]["role"], "user", "{agent}");
            let parts = sent[0]["parts"].as_array().unwrap();
            assert_eq!(parts[0]["type"], "text", "{agent}");
            let text = parts[0]["text"].as_str().unwrap();
            assert!(
                text.starts_with(escapade_vis::interface::INSTRUCTIONS),
                "{agent}: {text}"
            );
            assert!(
                text.contains("side of room - [IMAGE]</Current Observation>"),
                "{agent}: {text}"
            );
            assert_eq!(parts.len(), 2, "{agent}: the text, then the picture");
            assert_eq!(parts[1]["type"], "image", "{agent}");
            assert_eq!(
                parts[1]["sha256"], row["observation"]["images"][0],
                "{agent}: this step's picture"
            );
        }
        let second = rows[1]["request"]["sent"][0]["parts"][0]["text"]
            .as_str()
            .unwrap();
        let before = if agent == "visescaper" {
            "<Your Thought and Action before this turn>[THINK] look around [ACTION] turn_to_west<"
        } else {
            "<Your action before this turn>turn_to_west<"
        };
        assert!(second.contains(before), "{agent}: {second}");
        assert_eq!(
            second.contains("[THINK]"),
            agent == "visescaper",
            "{agent}: {second}"
        );
    }
}
