//! The model harness through the binary: a run killed with SIGKILL resumes to the same
//! results as an uninterrupted one, and misused agent flags fail clearly.

mod common;
use common::*;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Complete (newline-terminated) lines of `episodes.jsonl` so far.
fn finished_rows(dir: &Path) -> usize {
    std::fs::read(dir.join("episodes.jsonl"))
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

/// Every row of `episodes.jsonl`, each of which must parse.
fn rows(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// What must not depend on being killed: `(scenario, epoch, success, steps, metrics)`.
fn outcomes(rows: &[serde_json::Value]) -> BTreeSet<String> {
    rows.iter()
        .map(|r| {
            serde_json::json!([
                r["scenario"],
                r["epoch"],
                r["success"],
                r["steps"],
                r["metrics"]
            ])
            .to_string()
        })
        .collect()
}

/// `escapade run agentescape@2 --limit 12 -c 3` with every reply the same, slow enough to
/// take a few seconds.
fn run_args<'a>(model: &'a str, runs: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "agentescape@2",
        "--agent",
        "llm",
        "--model",
        model,
        "--limit",
        "12",
        "-c",
        "3",
        "--out",
        runs,
        "--quiet",
    ]
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_uninterrupted_results() {
    let tmp = tempfile::tempdir().unwrap();
    // One line, repeated: every request gets the same reply whatever the arrival order,
    // so results are deterministic. Each episode investigates until its step budget.
    let script = tmp.path().join("script.jsonl");
    std::fs::write(
        &script,
        "{\"text\": \"investigate N1\", \"delay_ms\": 30}\n",
    )
    .unwrap();
    let model = format!("scripted/{}", script.display());
    let killed_runs = tmp.path().join("killed");
    let clean_runs = tmp.path().join("clean");
    let (killed_out, clean_out) = (
        killed_runs.to_str().unwrap().to_string(),
        clean_runs.to_str().unwrap().to_string(),
    );

    let clean = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(run_args(&model, &clean_out))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut victim = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(run_args(&model, &killed_out))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // a generous safety net for slow machines, not a timing assertion
    let deadline = Instant::now() + Duration::from_secs(300);
    let dir = loop {
        if let Some(status) = victim.try_wait().unwrap() {
            panic!("the run ended ({status}) before it could be killed");
        }
        if let Some(dir) = find_run_dir(&killed_runs)
            && finished_rows(&dir) >= 3
        {
            break dir;
        }
        assert!(Instant::now() < deadline, "no rows appeared");
        std::thread::sleep(Duration::from_millis(10));
    };
    victim.kill().unwrap(); // SIGKILL: no cleanup, no flush
    victim.wait().unwrap();
    let before = finished_rows(&dir);
    assert!(
        (3..12).contains(&before),
        "killed with {before} of 12 episodes finished"
    );

    let dir_arg = dir.to_str().unwrap();
    ok(escapade(&["resume", dir_arg, "-c", "3", "--quiet"]));
    let resumed = rows(&dir);
    assert_eq!(
        resumed.len(),
        12,
        "every episode once, none lost or doubled"
    );
    let ids: BTreeSet<(String, u64)> = resumed
        .iter()
        .map(|r| {
            (
                r["scenario"].as_str().unwrap().to_string(),
                r["epoch"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ids.len(), 12);
    for r in &resumed {
        assert!(r["error"].is_null(), "{r}");
        // an episode cut off by the kill was replayed from its start
        let trajectory = dir
            .join("trajectories")
            .join(r["scenario"].as_str().unwrap())
            .join(format!("{}.jsonl", r["epoch"]));
        let text = std::fs::read_to_string(&trajectory).unwrap();
        assert_eq!(text.lines().count() as u64, r["steps"].as_u64().unwrap());
        for line in text.lines() {
            serde_json::from_str::<serde_json::Value>(line).unwrap();
        }
    }

    let clean = clean.wait_with_output().unwrap();
    assert!(clean.status.success(), "{}", stderr(&clean));
    let clean_dir = find_run_dir(&clean_runs).unwrap();
    let uninterrupted = rows(&clean_dir);
    assert_eq!(uninterrupted.len(), 12);
    assert_eq!(outcomes(&resumed), outcomes(&uninterrupted));
    assert_eq!(outcomes(&resumed).len(), 12);

    // the report of the resumed run counts each episode once
    let report: serde_json::Value =
        serde_json::from_str(&ok(escapade(&["report", dir_arg, "--json"]))).unwrap();
    assert_eq!(report["overall"]["tools"]["n"], 12, "{report}");
    assert_eq!(report["overall"]["tools"]["errors"], 0, "{report}");
}

/// A small tools scenario file (quicker to load than a suite).
fn scenario_file(dir: &Path) -> String {
    let path = dir.join("room.json");
    ok(escapade(&[
        "gen",
        "tools",
        "--difficulty",
        "5",
        "--out",
        path.to_str().unwrap(),
    ]));
    path.to_str().unwrap().to_string()
}

#[test]
fn misused_agent_flags_fail_clearly_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let room = scenario_file(tmp.path());
    let script = tmp.path().join("script.jsonl");
    std::fs::write(&script, "{\"text\": \"give_up\"}\n").unwrap();
    let model = format!("scripted/{}", script.display());
    let runs = tmp.path().join("runs");
    let out = runs.to_str().unwrap();

    let cases: [(Vec<&str>, &[&str]); 4] = [
        (
            vec!["--agent", "random", "--model", "x"],
            &["--model applies only to `--agent llm`", "random"],
        ),
        (
            vec!["--agent", "llm", "--model", &model, "-A", "nokey=1"],
            &[
                "unknown option `nokey`",
                "known options:",
                "history",
                "reask",
                "timeout",
            ],
        ),
        (
            vec!["--agent", "llm", "--model", &model, "-A", "history=forever"],
            &["bad history `forever`", "last:K"],
        ),
        (
            vec!["--agent", "random", "--shard", "0/2"],
            &["bad shard `0/2`", "i/N"],
        ),
    ];
    for (flags, wanted) in cases {
        let mut args = vec!["run", room.as_str(), "--out", out, "--quiet"];
        args.extend(&flags);
        let o = escapade(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {e}");
        assert!(e.starts_with("error: "), "{flags:?}: {e}");
        for w in wanted {
            assert!(e.contains(w), "{flags:?}: `{w}` not in {e}");
        }
    }
    assert!(!runs.exists(), "a refused run writes no run directory");
    // the same flags, used right, run
    ok(escapade(&[
        "run", &room, "--agent", "llm", "--model", &model, "--out", out, "--quiet",
    ]));
    assert!(find_run_dir(&runs).is_some());
}

#[test]
fn visescape_agents_run_like_llm_and_refuse_foreign_options() {
    let tmp = tempfile::tempdir().unwrap();
    let room = scenario_file(tmp.path());
    let script = tmp.path().join("script.jsonl");
    std::fs::write(
        &script,
        "{\"text\": \"[THINK] nothing to lose\\n[ACTION] give_up\"}\n",
    )
    .unwrap();
    let model = format!("scripted/{}", script.display());
    for (kind, thinks) in [("visescaper", true), ("base", false)] {
        let runs = tmp.path().join(format!("runs-{kind}"));
        let out = runs.to_str().unwrap();
        ok(escapade(&[
            "run", &room, "--agent", kind, "--model", &model, "-A", "window=5", "--out", out,
            "--quiet",
        ]));
        let dir = run_dir_under(&runs);
        let row = &rows(&dir)[0];
        assert_eq!(row["agent"], format!("{kind}:{model}"), "{row}");
        assert!(row["error"].is_null(), "{row}");
        let trajectory = dir
            .join("trajectories")
            .join(row["scenario"].as_str().unwrap())
            .join("0.jsonl");
        let text = std::fs::read_to_string(trajectory).unwrap();
        let step: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(step["action"]["text"], "give_up", "{step}");
        // what the model wrote before [ACTION] is its reasoning, asked for or not
        assert_eq!(step["reasoning"], "nothing to lose", "{step}");
        let prompt = step["request"]["prompt"].as_str().unwrap();
        assert_eq!(prompt.contains("[THINK]"), thinks, "{prompt}");
    }
    let runs = tmp.path().join("refused");
    let out = runs.to_str().unwrap();
    let cases: [(Vec<&str>, &[&str]); 3] = [
        (
            vec!["--agent", "base", "--model", &model, "-A", "history=full"],
            &["unknown option `history`", "navigation", "window"],
        ),
        (
            vec!["--agent", "llm", "--model", &model, "-A", "memory=on"],
            &["unknown option `memory`", "socratic"],
        ),
        (
            vec!["--agent", "random", "-A", "memory=on"],
            &["apply only to model agents", "visescaper"],
        ),
    ];
    for (flags, wanted) in cases {
        let mut args = vec!["run", room.as_str(), "--out", out, "--quiet"];
        args.extend(&flags);
        let o = escapade(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {e}");
        for w in wanted {
            assert!(e.contains(w), "{flags:?}: `{w}` not in {e}");
        }
    }
    assert!(!runs.exists(), "a refused run writes no run directory");
}

#[test]
fn ctrl_c_finishes_the_episodes_in_flight_and_writes_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("script.jsonl");
    std::fs::write(
        &script,
        "{\"text\": \"investigate N1\", \"delay_ms\": 20}\n",
    )
    .unwrap();
    let model = format!("scripted/{}", script.display());
    let runs = tmp.path().join("runs");
    let out = runs.to_str().unwrap().to_string();
    let run = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(run_args(&model, &out))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // a generous safety net for slow machines, not a timing assertion
    let deadline = Instant::now() + Duration::from_secs(300);
    let dir = loop {
        if let Some(dir) = find_run_dir(&runs)
            && finished_rows(&dir) >= 2
        {
            break dir;
        }
        assert!(Instant::now() < deadline, "no rows appeared");
        std::thread::sleep(Duration::from_millis(10));
    };
    let interrupt = Command::new("kill")
        .args(["-INT", &run.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupt.success());
    let o = run.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopping: no new episodes start"),
        "{stderr}"
    );
    assert!(stderr.contains("`escapade resume"), "{stderr}");
    // the report and the run directory were printed, the summary written
    assert!(
        stdout.contains("## tools") && stdout.contains("run directory: "),
        "{stdout}"
    );
    assert!(dir.join("summary.json").is_file() && dir.join("report.md").is_file());
    // the episodes in flight finished: every row is whole and none is an error
    let stopped = rows(&dir);
    assert!((2..12).contains(&stopped.len()), "{} rows", stopped.len());
    assert!(stopped.iter().all(|r| r["error"].is_null()));
    ok(escapade(&[
        "resume",
        dir.to_str().unwrap(),
        "-c",
        "3",
        "--quiet",
    ]));
    assert_eq!(rows(&dir).len(), 12);
}
