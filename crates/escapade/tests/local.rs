//! The built-in local model end to end: `escapade run` with `local/smollm2` on a short
//! tools scenario, at temperature 0, on one thread.
//!
//! Needs `escapade setup` (CI runs it). Without the model the test fails when `CI` is set
//! and otherwise skips with a printed reason, so a fresh clone's `cargo test` stays green.

mod common;
use common::*;

/// Whether the local model is installed; `false` means skip (outside CI).
fn local_model_ready() -> bool {
    let check = escapade(&["setup", "--check"]);
    if check.status.success() {
        return true;
    }
    let why = stderr(&check);
    if std::env::var_os("CI").is_some() {
        panic!("CI must install the local model (`escapade setup`), but: {why}");
    }
    eprintln!("skipping the local-model test: the model is not installed ({why})");
    false
}

#[test]
fn smollm2_plays_a_few_valid_steps_of_a_tools_scenario() {
    if !local_model_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.json");
    let gen_out = escapade(&[
        "gen",
        "tools",
        "-d",
        "5",
        "-s",
        "11",
        "-o",
        full.to_str().unwrap(),
    ]);
    assert!(gen_out.status.success(), "{}", stderr(&gen_out));
    // a short step budget keeps this test under a minute on one thread
    let mut scenario: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
    scenario["step_budget"] = 4.into();
    scenario["id"] = "tools-d5-s11-short".into();
    let short = dir.path().join("short.json");
    std::fs::write(&short, serde_json::to_vec(&scenario).unwrap()).unwrap();

    let runs = dir.path().join("runs");
    let run = escapade(&[
        "-q",
        "run",
        short.to_str().unwrap(),
        "--agent",
        "llm",
        "--model",
        "local/smollm2",
        "-A",
        "temperature=0",
        "-A",
        "threads=1",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run_dir = run_dir_under(&runs);

    let episodes = std::fs::read_to_string(run_dir.join("episodes.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = episodes
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{episodes}");
    assert_eq!(rows[0]["agent"], "llm:local/smollm2");
    assert!(rows[0]["error"].is_null(), "{}", rows[0]);
    assert!(rows[0]["usage"]["output"].as_u64().unwrap() > 0);

    let trajectory = run_dir
        .join("trajectories")
        .join("tools-d5-s11-short")
        .join("0.jsonl");
    let steps: Vec<serde_json::Value> = std::fs::read_to_string(&trajectory)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!steps.is_empty());
    assert_eq!(steps.len() as u64, rows[0]["steps"].as_u64().unwrap());
    for s in &steps {
        // a real reply from the model, read as an action the environment applied
        let raw = s["raw_response"]
            .as_str()
            .expect("the model's reply is logged");
        assert!(!raw.trim().is_empty());
        assert!(s["valid"].as_bool().unwrap(), "invalid turn: {s}");
        assert!(s["error"].is_null(), "{s}");
        assert!(!s["feedback"].as_str().unwrap().is_empty());
        assert!(s["usage"]["input"].as_u64().unwrap() > 0);
    }
    let last = steps.last().unwrap();
    assert!(last["terminated"].as_bool().unwrap() || last["truncated"].as_bool().unwrap());
}

#[test]
fn smollm2_gives_judge_verdicts_in_the_schema() {
    if !local_model_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("room.json");
    let path = scenario.to_str().unwrap();
    ok(escapade(&[
        "gen", "craft", "-d", "1", "--seed", "1", "--out", path,
    ]));
    let runs = dir.path().join("runs");
    // small frames: the judge reads the actions, not the pictures
    ok(escapade(&[
        "-q",
        "run",
        path,
        "--agent",
        "oracle",
        "-W",
        "width=256",
        "-W",
        "height=128",
        "--out",
        runs.to_str().unwrap(),
    ]));
    let run = run_dir_under(&runs);
    let judged: serde_json::Value = serde_json::from_str(&ok(escapade(&[
        "-q",
        "judge",
        run.to_str().unwrap(),
        "--task",
        "intent",
        "-m",
        "local/smollm2",
        "--json",
    ])))
    .unwrap();
    let r = &judged["runs"][0];
    assert!(r["items"].as_u64().unwrap() >= 1, "{judged}");
    // constrained decoding: every item gets a verdict, none is prose
    assert_eq!(r["errors"], 0, "{judged}");
    assert_eq!(r["judged"], r["items"], "{judged}");
}
