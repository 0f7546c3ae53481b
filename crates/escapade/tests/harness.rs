//! The model harness through the binary: a run killed with SIGKILL resumes to the same
//! results as an uninterrupted one; Ctrl-C checkpoints the episode in flight and resume
//! continues it at the next step; progress without a terminal; the step cap; misused
//! agent and world flags fail clearly and early.

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
fn ctrl_c_stops_the_episodes_in_flight_and_writes_the_summary() {
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
    let dir = wait_for_run(&runs, "no rows appeared", |dir| finished_rows(dir) >= 2);
    ctrl_c(&run);
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
    // the episodes in flight were checkpointed, not recorded: every row is whole and
    // none is an error
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

/// The step rows of the one episode of the run in `dir`, timing zeroed.
fn steps_of(dir: &Path) -> Vec<serde_json::Value> {
    let scenario = std::fs::read_dir(dir.join("trajectories"))
        .ok()
        .and_then(|mut d| d.next())
        .and_then(|e| e.ok());
    let text = scenario
        .and_then(|s| std::fs::read_to_string(s.path().join("0.jsonl")).ok())
        .unwrap_or_default();
    text.lines()
        .map(|l| {
            let mut row: serde_json::Value = serde_json::from_str(l).unwrap();
            row["t_ms"] = 0.into();
            row["usage"]["latency_ms"] = 0.into();
            row
        })
        .collect()
}

/// The checkpoint file of the one episode of the run in `dir`, if there is one.
fn checkpoint_of(dir: &Path) -> Option<std::path::PathBuf> {
    let scenario = std::fs::read_dir(dir.join("checkpoints"))
        .ok()?
        .next()?
        .ok()?;
    Some(scenario.path().join("0.json")).filter(|p| p.is_file())
}

/// `escapade run agentescape@2 --limit 1` with a model that investigates every step,
/// slowly.
fn one_slow_episode(tmp: &Path, runs: &Path) -> Command {
    let script = tmp.join("slow.jsonl");
    std::fs::write(
        &script,
        "{\"text\": \"investigate N1\", \"delay_ms\": 150}\n",
    )
    .unwrap();
    let mut run = Command::new(env!("CARGO_BIN_EXE_escapade"));
    run.args(["run", "agentescape@2", "--agent", "llm", "--limit", "1"])
        .arg("--model")
        .arg(format!("scripted/{}", script.display()))
        .arg("--out")
        .arg(runs);
    run
}

#[test]
fn ctrl_c_checkpoints_the_episode_in_flight_and_resume_continues_it_at_the_next_step() {
    let tmp = tempfile::tempdir().unwrap();
    let (clean_runs, runs) = (tmp.path().join("clean"), tmp.path().join("runs"));
    let clean = one_slow_episode(tmp.path(), &clean_runs)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = one_slow_episode(tmp.path(), &runs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dir = wait_for_run(&runs, "no steps appeared", |dir| steps_of(dir).len() >= 3);
    ctrl_c(&run);
    let o = run.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{e}");
    // the message names the run directory and what resume does with it
    assert!(
        e.contains("1 episode(s) checkpointed at their last completed step")
            && e.contains(&format!(
                "`escapade resume {}` continues them",
                dir.display()
            )),
        "{e}"
    );
    let checkpoint_file = checkpoint_of(&dir).expect("a checkpoint");
    let checkpoint: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&checkpoint_file).unwrap()).unwrap();
    let k = checkpoint["steps"].as_u64().unwrap() as usize;
    assert!(k >= 3, "{checkpoint}");
    assert_eq!(
        steps_of(&dir).len(),
        k,
        "the checkpoint's steps are on disk"
    );
    assert_eq!(
        finished_rows(&dir),
        0,
        "no row: the episode is not finished"
    );

    // `resume` on the folder finds the one interrupted run below it
    let o = escapade(&["resume", runs.to_str().unwrap()]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("resuming the one interrupted run under"), "{e}");
    assert!(e.contains("1 continued from its checkpoint"), "{e}");
    assert!(!checkpoint_file.exists(), "the checkpoint is spent");

    let clean = clean.wait_with_output().unwrap();
    assert!(clean.status.success(), "{}", stderr(&clean));
    let clean_dir = find_run_dir(&clean_runs).unwrap();
    let (expected, got) = (steps_of(&clean_dir), steps_of(&dir));
    assert!(expected.len() > k);
    assert_eq!(got, expected, "the same trajectory as an uninterrupted run");
    let mut rows = (rows(&dir), rows(&clean_dir));
    for r in [&mut rows.0[0], &mut rows.1[0]] {
        r["duration_ms"] = 0.into();
        r["usage"]["latency_ms"] = 0.into();
    }
    assert_eq!(rows.0, rows.1);
    // nothing left to resume
    let o = escapade(&["resume", runs.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("no interrupted run under"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn without_a_terminal_a_run_prints_its_progress_by_step_with_a_finite_eta() {
    let tmp = tempfile::tempdir().unwrap();
    let o = one_slow_episode(tmp.path(), &tmp.path().join("runs"))
        .env("ESCAPADE_PROGRESS_SECS", "0.5")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    // `[00:00:02] episodes 0/1 · step 9/30 · 8 steps · 1.2k tok · eta 3s`
    let lines: Vec<&str> = e
        .lines()
        .filter(|l| l.starts_with("[00:") && l.contains("] episodes 0/1 · step "))
        .collect();
    assert!(lines.len() >= 2, "{e}");
    let last = lines.last().unwrap();
    assert!(
        last.contains(" steps · ") && last.contains(" tok · "),
        "{last}"
    );
    let eta = last.rsplit("eta ").next().unwrap();
    assert!(
        eta.ends_with('s') && eta.len() <= 6 && eta.chars().next().unwrap().is_ascii_digit(),
        "a finite estimate: {last}"
    );
}

#[test]
fn the_step_cap_ends_an_episode_without_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let o = escapade(&[
        "run",
        &scenario_file(tmp.path()),
        "--agent",
        "random",
        "--max-steps",
        "2",
        "--out",
        runs.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(!e.contains("warning") && !e.contains("error"), "{e}");
    assert!(e.contains("1 of 1 episodes ended at the step cap"), "{e}");
    let dir = run_dir_under(&runs);
    let row = &rows(&dir)[0];
    assert!(row["error"].is_null() && row["step_cap"] == true, "{row}");
    // a declared departure: in run.toml, and named by the report
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    assert!(toml.contains("max_steps = 2"), "{toml}");
    let o = escapade(&["report", dir.to_str().unwrap(), "--format", "md"]);
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(
        md.contains("## Not the paper's settings") && md.contains("--max-steps 2 (default 10000"),
        "{md}"
    );
}

#[test]
fn an_unknown_world_option_fails_before_anything_else_is_looked_at() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    // the agent is unknown too, but the -W key is refused first, before the suite is built
    let o = escapade(&[
        "run",
        "agentescape@2",
        "--agent",
        "nosuch",
        "-W",
        "nosuch=1",
        "--out",
        runs.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(e.starts_with("error: unknown world option `nosuch`"), "{e}");
    assert!(!runs.exists());
    // a model without its provider, too, with a guess
    let o = escapade(&[
        "run",
        "agentescape@2",
        "--model",
        "gpt-4o",
        "--out",
        runs.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(e.contains("did you mean openai/gpt-4o?"), "{e}");
    assert!(!runs.exists());
}

/// COMMA's expert model is checked with the agent's, before either backend opens: a
/// misspelled or keyless `--expert-model` fails at once with the same guess as `--model`,
/// not after the agent's local model has started (here it could not start at all: no
/// Python, so the old order failed on the agent's model instead).
#[test]
fn an_expert_model_is_checked_before_any_backend_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let run = |expert: &str| {
        Command::new(env!("CARGO_BIN_EXE_escapade"))
            .args([
                "run",
                "comma@4",
                "--model",
                "local/smollm2",
                "--expert-model",
                expert,
            ])
            .args(["--limit", "1", "--out", runs.to_str().unwrap()])
            .env("ESCAPADE_PYTHON", tmp.path().join("no-python"))
            .env_remove("ANTHROPIC_API_KEY")
            .output()
            .unwrap()
    };
    let o = run("gpt-4o");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("did you mean openai/gpt-4o?"), "{e}");
    let o = run("anthropic/claude-sonnet-4-5");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("ANTHROPIC_API_KEY is not set"), "{e}");
    assert!(!runs.exists());
}

#[test]
fn a_run_says_how_many_episodes_its_limit_or_sample_means() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let out = runs.to_str().unwrap();
    let o = escapade(&[
        "run", "comma@4", "--agent", "oracle", "--limit", "2", "--epochs", "3", "--out", out,
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains(": 6 episodes (2 scenarios × 3 epochs)"), "{e}");
    // --sample draws over the puzzles where --limit takes the first (two Wire puzzles)
    let sampled = tmp.path().join("sampled");
    let o = escapade(&[
        "run",
        "comma@4",
        "--agent",
        "oracle",
        "--sample",
        "10",
        "-q",
        "--out",
        sampled.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = run_dir_under(&sampled);
    let puzzles: BTreeSet<String> = rows(&dir)
        .iter()
        .map(|r| {
            r["scenario"]
                .as_str()
                .unwrap()
                .split('-')
                .nth(1)
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(puzzles.len(), 10, "{puzzles:?}");
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    assert!(toml.contains("sample = 10"), "{toml}");
    let o = escapade(&["run", "comma@4", "--sample", "2", "--limit", "2"]);
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}
