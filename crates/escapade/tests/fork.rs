//! `escapade run --from RUN --episode SCENARIO[:EPOCH] --step K`: a recorded episode
//! forked at a step in every world, its observation at K as recorded, another agent
//! playing it to the end, and a fork refused when the recording does not replay.

mod common;
use common::*;

use std::path::Path;

use serde_json::Value;

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The one episode row and the trajectory of a run directory.
fn episode(dir: &Path) -> (Value, Vec<Value>) {
    let row = rows(&dir.join("episodes.jsonl")).remove(0);
    // one scenario: one folder of trajectories
    let stem = std::fs::read_dir(dir.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let epoch = row["epoch"].as_u64().unwrap();
    (row.clone(), rows(&stem.join(format!("{epoch}.jsonl"))))
}

/// Records `random` on the suite's first scenario, forks it at step `k` with the oracle
/// (a fresh agent: a baseline has no conversation) and checks the fork.
fn fork_in(suite: &str, k: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let (origin_runs, fork_runs) = (tmp.path().join("origin"), tmp.path().join("fork"));
    ok(escapade(&[
        "run",
        suite,
        "--agent",
        "random",
        "--limit",
        "1",
        "--max-steps",
        "12",
        "--out",
        origin_runs.to_str().unwrap(),
        "-q",
    ]));
    let origin = run_dir_under(&origin_runs);
    let (origin_row, origin_steps) = episode(&origin);
    let k = k.min(origin_steps.len());
    let scenario = origin_row["scenario"].as_str().unwrap();
    // the row read is the first to finish, whichever epoch that was (a baseline plays
    // the suite's three epochs at once): fork that one
    let epoch = origin_row["epoch"].as_u64().unwrap();
    let step = k.to_string();
    ok(escapade(&[
        "run",
        "--from",
        origin.to_str().unwrap(),
        "--episode",
        &format!("{scenario}:{epoch}"),
        "--step",
        &step,
        "--agent",
        "oracle",
        "--out",
        fork_runs.to_str().unwrap(),
        "-q",
    ]));
    let forked = run_dir_under(&fork_runs);
    let (row, steps) = episode(&forked);
    // another agent finishes it
    assert_eq!(row["success"], true, "{suite}: {row}");
    assert_eq!(row["agent"], "oracle", "{suite}");
    let origin_link = &row["origin"];
    assert_eq!(origin_link["scenario"], scenario, "{suite}: {row}");
    assert_eq!(origin_link["step"], k as u64, "{suite}");
    assert_eq!(
        origin_link["run"].as_str().unwrap(),
        std::fs::canonicalize(&origin).unwrap().to_str().unwrap()
    );
    // the steps before K are the recording's, and the observation at K is its
    assert_eq!(steps[..k - 1], origin_steps[..k - 1], "{suite}");
    assert_eq!(
        steps[k - 1]["observation"],
        origin_steps[k - 1]["observation"],
        "{suite}: the observation at step {k}"
    );
    assert_eq!(row["steps"].as_u64().unwrap() as usize, steps.len());
    // its pictures are in the fork's own media
    for step in &steps {
        for sha in step["observation"]["images"].as_array().unwrap() {
            let file = forked
                .join("media")
                .join(format!("{}.png", sha.as_str().unwrap()));
            assert!(file.is_file(), "{suite}: {} missing", file.display());
        }
    }
    let toml = std::fs::read_to_string(forked.join("run.toml")).unwrap();
    assert!(toml.contains("[config.fork]"), "{toml}");

    // a recording that does not replay is refused: the observation at K changed
    let traj = std::fs::read_dir(origin.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join(format!("{epoch}.jsonl"));
    let mut changed = origin_steps.clone();
    changed[k - 1]["observation"]["text"] = Value::String("another room".into());
    let text: String = changed.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&traj, text).unwrap();
    let o = escapade(&[
        "run",
        "--from",
        origin.to_str().unwrap(),
        "--episode",
        &format!("{scenario}:{epoch}"),
        "--step",
        &step,
        "--agent",
        "oracle",
        "--out",
        tmp.path().join("refused").to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1), "{suite}");
    let e = stderr(&o);
    assert!(
        e.contains("does not replay as recorded") && e.contains("observation"),
        "{suite}: {e}"
    );
}

#[test]
fn a_fork_of_a_tools_episode_is_finished_by_the_oracle() {
    fork_in("agentescape@2", 3);
}

#[test]
fn a_fork_of_a_visescape_episode_is_finished_by_the_oracle() {
    fork_in("visescape@4", 4);
}

#[test]
fn a_fork_of_a_comma_episode_is_finished_by_the_oracle() {
    fork_in("comma@4", 3);
}

#[test]
fn a_fork_of_a_craft_episode_is_finished_by_the_oracle() {
    fork_in("mm-escape@3", 3);
}

#[test]
fn a_fork_names_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        "agentescape@2",
        "--agent",
        "random",
        "--limit",
        "1",
        "--max-steps",
        "4",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let origin = run_dir_under(&runs);
    let (row, _) = episode(&origin);
    let scenario = row["scenario"].as_str().unwrap();
    let fork = |episode: &str, step: &str| {
        stderr(&escapade(&[
            "run",
            "--from",
            origin.to_str().unwrap(),
            "--episode",
            episode,
            "--step",
            step,
            "--agent",
            "oracle",
            "--out",
            tmp.path().join("f").to_str().unwrap(),
        ]))
    };
    let e = fork(scenario, "9");
    assert!(e.contains("--step must be between 1 and 4"), "{e}");
    let e = fork("nowhere", "1");
    assert!(e.contains("played no scenario `nowhere`"), "{e}");
    let e = fork(&format!("{scenario}:3"), "1");
    assert!(e.contains("played epochs 0 to 0 only"), "{e}");
    assert!(!tmp.path().join("f").exists());
}

/// A model agent's fork keeps the recorded conversation (rebuilt from the recorded
/// replies, though the new model asks in other bytes) or, with `--fresh`, starts empty.
#[test]
fn a_model_agents_fork_keeps_the_conversation_or_starts_fresh() {
    let tmp = tempfile::tempdir().unwrap();
    let script = |name: &str| {
        let path = tmp.path().join(name);
        std::fs::write(&path, "{\"text\": \"investigate N1\"}\n").unwrap();
        format!("scripted/{}", path.display())
    };
    let (first, second) = (script("first.jsonl"), script("second.jsonl"));
    let origin_runs = tmp.path().join("origin");
    ok(escapade(&[
        "run",
        "agentescape@2",
        "--agent",
        "llm",
        "--model",
        &first,
        "--limit",
        "1",
        "--max-steps",
        "6",
        "--out",
        origin_runs.to_str().unwrap(),
        "-q",
    ]));
    let origin = run_dir_under(&origin_runs);
    let (origin_row, origin_steps) = episode(&origin);
    let scenario = origin_row["scenario"].as_str().unwrap();
    for fresh in [false, true] {
        let runs = tmp.path().join(format!("fork-{fresh}"));
        let mut args = vec![
            "run",
            "--from",
            origin.to_str().unwrap(),
            "--episode",
            scenario,
            "--step",
            "4",
            "--model",
            &second,
            "--max-steps",
            "6",
            "--out",
            runs.to_str().unwrap(),
            "-q",
        ];
        if fresh {
            args.push("--fresh");
        }
        ok(escapade(&args));
        let (row, steps) = episode(&run_dir_under(&runs));
        assert_eq!(row["origin"]["step"], 4);
        assert_eq!(row["origin"].get("fresh").is_some(), fresh, "{row}");
        assert_eq!(steps[..3], origin_steps[..3]);
        assert_eq!(steps[3]["observation"], origin_steps[3]["observation"]);
        // the kept conversation sends the recorded exchanges again: a longer prompt
        let input = |s: &Value| s["usage"]["input"].as_u64().unwrap();
        if fresh {
            assert!(input(&steps[3]) < input(&origin_steps[3]), "{fresh}");
        } else {
            assert_eq!(input(&steps[3]), input(&origin_steps[3]));
        }
    }
}

/// The steps of the one episode under `dir` with their times zeroed.
fn timeless(dir: &Path) -> (Value, Vec<Value>) {
    let (mut row, mut steps) = episode(dir);
    row["duration_ms"] = 0.into();
    row["usage"]["latency_ms"] = 0.into();
    for step in &mut steps {
        step["t_ms"] = 0.into();
        step["usage"]["latency_ms"] = 0.into();
        for reask in step["reasks"].as_array_mut().into_iter().flatten() {
            reask["usage"]["latency_ms"] = 0.into();
        }
    }
    (row, steps)
}

/// A fork stopped by Ctrl-C is checkpointed like any run, and `resume` plays it on to
/// the trajectory an uninterrupted fork records, with its conversation kept or fresh.
#[test]
fn an_interrupted_fork_resumes_to_the_uninterrupted_forks_trajectory() {
    use std::process::{Command, Stdio};

    let tmp = tempfile::tempdir().unwrap();
    let script = |name: &str, line: &str| {
        let path = tmp.path().join(name);
        std::fs::write(&path, format!("{line}\n")).unwrap();
        format!("scripted/{}", path.display())
    };
    let first = script("first.jsonl", r#"{"text": "look around"}"#);
    let second = script(
        "second.jsonl",
        r#"{"text": "look at the door", "delay_ms": 120}"#,
    );
    let origin_runs = tmp.path().join("origin");
    ok(escapade(&[
        "run",
        "visescape",
        "--agent",
        "llm",
        "--model",
        &first,
        "--limit",
        "1",
        "--max-steps",
        "6",
        "--out",
        origin_runs.to_str().unwrap(),
        "-q",
    ]));
    let origin = run_dir_under(&origin_runs);
    let scenario = episode(&origin).0["scenario"].as_str().unwrap().to_string();
    for fresh in [false, true] {
        let fork = |out: &Path| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_escapade"));
            c.args(["run", "--from", origin.to_str().unwrap(), "--episode"])
                .args([&scenario, "--step", "3", "--model", &second])
                .args(["--max-steps", "14", "-q", "--out", out.to_str().unwrap()]);
            if fresh {
                c.arg("--fresh");
            }
            c
        };
        let clean_runs = tmp.path().join(format!("clean-{fresh}"));
        let o = fork(&clean_runs).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let runs = tmp.path().join(format!("stopped-{fresh}"));
        let child = fork(&runs)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let dir = wait_for_run(&runs, "no steps appeared", |dir| {
            std::fs::read_dir(dir.join("trajectories"))
                .ok()
                .and_then(|mut d| d.next())
                .and_then(|e| std::fs::read_to_string(e.ok()?.path().join("0.jsonl")).ok())
                .is_some_and(|t| t.lines().count() >= 6)
        });
        ctrl_c(&child);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
        assert!(
            dir.join("checkpoints").is_dir(),
            "fresh={fresh}: no checkpoint"
        );
        let o = escapade(&["resume", dir.to_str().unwrap()]);
        assert!(o.status.success(), "fresh={fresh}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("1 continued from its checkpoint"),
            "fresh={fresh}: {}",
            stderr(&o)
        );
        let (clean_row, clean_steps) = timeless(&run_dir_under(&clean_runs));
        let (row, steps) = timeless(&dir);
        assert_eq!(steps.len(), 14, "fresh={fresh}");
        assert_eq!(steps, clean_steps, "fresh={fresh}");
        assert_eq!(row, clean_row, "fresh={fresh}");
    }
}
