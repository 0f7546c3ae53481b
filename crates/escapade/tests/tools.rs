//! The tools world through the binary: gen → run (oracle, random) → report; several
//! actions in one turn (App. C) from a scripted model, in text and with native tool
//! calls; the suite's version, settings and clue option.

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

/// Writes scenario `tools-d<d>-s<seed>` under `dir`; returns its path and the ids of the
/// nodes visible at the start.
fn scenario(dir: &std::path::Path, d: &str, seed: &str) -> (String, Vec<String>) {
    let path = dir.join(format!("d{d}-s{seed}.json"));
    let p = path.to_str().unwrap().to_string();
    ok(escapade(&[
        "gen",
        "tools",
        "--difficulty",
        d,
        "--seed",
        seed,
        "--out",
        &p,
    ]));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let visible = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["hidden"] == false)
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect();
    (p, visible)
}

/// Runs the scripted model on a scenario; returns the episode row and the step rows.
fn run_scripted(
    dir: &std::path::Path,
    scenario: &str,
    replies: &[serde_json::Value],
    options: &[&str],
) -> (serde_json::Value, Vec<serde_json::Value>) {
    let script = dir.join("script.jsonl");
    let lines: Vec<String> = replies.iter().map(|r| r.to_string()).collect();
    std::fs::write(&script, lines.join("\n") + "\n").unwrap();
    let model = format!("scripted/{}", script.display());
    let runs = dir.join("runs");
    let mut args = vec![
        "run",
        scenario,
        "--agent",
        "llm",
        "--model",
        &model,
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(options);
    ok(escapade(&args));
    let run = run_dir_under(&runs);
    let episode: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(run.join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let dir = std::fs::read_dir(run.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = std::fs::read_dir(dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let steps = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (episode, steps)
}

#[test]
fn three_actions_on_three_lines_run_in_one_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (s, ids) = scenario(dir.path(), "5", "3");
    let reply = format!(
        "Reading three nodes first.\ninvestigate {}\ninvestigate {}\ninvestigate {}",
        ids[0], ids[1], ids[2]
    );
    let (episode, steps) = run_scripted(
        dir.path(),
        &s,
        &[
            serde_json::json!({"text": reply}),
            serde_json::json!({"text": "give_up"}),
        ],
        &[],
    );
    assert_eq!(episode["steps"], 2, "two replies, two turns");
    assert_eq!(episode["metrics"]["investigations"], 3.0);
    assert_eq!(episode["metrics"]["actions"], 4.0);
    let results = steps[0]["results"].as_array().expect("per-action results");
    assert_eq!(results.len(), 3);
    for (r, id) in results.iter().zip(&ids) {
        assert_eq!(r["valid"], true);
        assert!(
            r["feedback"]
                .as_str()
                .unwrap()
                .contains(&format!("{id} · ")),
            "{r}"
        );
    }
    assert!(steps[0]["feedback"].as_str().unwrap().contains("[3/3]"));
    assert!(
        steps[1].get("results").is_none(),
        "one action: no per-action list"
    );
}

#[test]
fn a_native_reply_with_three_calls_runs_three_actions_in_one_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (s, ids) = scenario(dir.path(), "5", "3");
    let call = |id: &str, node: &str| serde_json::json!({"id": id, "name": "investigate", "arguments": {"node_id": node}});
    let (episode, steps) = run_scripted(
        dir.path(),
        &s,
        &[
            serde_json::json!({"tool_calls": [call("c1", &ids[0]), call("c2", &ids[1]), call("c3", &ids[2])]}),
            serde_json::json!({"tool_calls": [{"id": "c4", "name": "give_up", "arguments": {}}]}),
        ],
        &["-A", "protocol=tools", "-A", "log=full"],
    );
    assert_eq!(episode["steps"], 2, "two replies, two turns");
    assert_eq!(episode["metrics"]["investigations"], 3.0);
    assert_eq!(steps[0]["action"]["kind"], "calls");
    assert_eq!(steps[0]["results"].as_array().unwrap().len(), 3);
    // the second request answers each call id with that call's own result
    let sent = steps[1]["request"]["sent"]
        .as_array()
        .expect("full request log");
    let answers: Vec<&serde_json::Value> = sent.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(answers.len(), 3, "{sent:?}");
    for (m, (call_id, node)) in
        answers
            .iter()
            .zip([("c1", &ids[0]), ("c2", &ids[1]), ("c3", &ids[2])])
    {
        assert_eq!(m["tool_call_id"], call_id);
        let text = m.to_string();
        assert!(text.contains(&format!("{node} · ")), "{call_id}: {text}");
        for other in ids.iter().take(3).filter(|o| *o != node) {
            assert!(
                !text.contains(&format!("{other} · ")),
                "{call_id} holds {other}"
            );
        }
    }
}

#[test]
fn the_suite_is_agentescape_2_and_literal_clues_are_an_easier_option() {
    let list = ok(escapade(&["list", "tools"]));
    assert!(list.contains("agentescape@2"), "{list}");
    let clues = list
        .lines()
        .find(|l| l.contains("-W clues="))
        .expect("the option is listed");
    assert!(
        clues.contains("literal") && clues.contains("easier"),
        "{clues}"
    );

    let old = escapade(&["run", "agentescape@1", "--agent", "oracle", "-q"]);
    assert!(!old.status.success());
    assert!(
        stderr(&old).contains("replaced by `agentescape@2`"),
        "{}",
        stderr(&old)
    );

    let dir = tempfile::tempdir().unwrap();
    let (s, _) = scenario(dir.path(), "5", "3");
    let runs = dir.path().join("runs");
    let bad = escapade(&["run", &s, "--agent", "oracle", "-W", "clues=loud", "-q"]);
    assert!(!bad.status.success() && stderr(&bad).contains("literal"));
    ok(escapade(&[
        "run",
        &s,
        "--agent",
        "oracle",
        "-W",
        "clues=literal",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let run = run_dir_under(&runs);
    let toml = std::fs::read_to_string(run.join("run.toml")).unwrap();
    assert!(toml.contains("clues = \"literal\""), "{toml}");
    // the literal clues name node ids
    let trajectory = std::fs::read_dir(run.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let steps = std::fs::read_to_string(
        std::fs::read_dir(trajectory)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    )
    .unwrap();
    assert!(
        steps.contains("Clue: it takes") || steps.contains(" feeds `"),
        "literal clues wire by id"
    );
}

/// An edge listed twice is refused by `check` and `run`.
#[test]
fn an_edge_listed_twice_is_refused_by_check_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("x.json");
    ok(escapade(&[
        "gen",
        "tools",
        "--difficulty",
        "5",
        "--seed",
        "2",
        "--out",
        scenario.to_str().unwrap(),
    ]));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&scenario).unwrap()).unwrap();
    let e = v["edges"][0].clone();
    v["edges"].as_array_mut().unwrap().push(e.clone());
    let wanted = format!(
        "edge {}.{} → {}.{} is listed twice",
        e["from"].as_str().unwrap(),
        e["from_port"].as_str().unwrap(),
        e["to"].as_str().unwrap(),
        e["to_port"].as_str().unwrap()
    );
    refused(&v, &wanted);
}

/// The terminal report keeps to 120 columns with Table 1's columns (27 with `--wide`).
#[test]
fn the_terminal_report_fits_120_columns() {
    let wide = report_fits_120_columns("agentescape@2", &[]);
    assert!(wide.contains("premature_invocation_rate"), "{wide}");
}
