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
    // `list` also takes a suite's name
    assert!(
        e.starts_with("error: unknown world or suite `atlantis`; known: tools,"),
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
fn an_error_and_its_cause_are_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    for command in ["report", "resume"] {
        let o = escapade(&[command, missing.to_str().unwrap()]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        let said = e.matches("no such").count();
        assert_eq!(said, 1, "{command}: {e}");
    }
}

#[test]
fn errors_suggest_what_was_meant() {
    let o = escapade(&["run", "agentescap@2", "--agent", "oracle"]);
    let e = stderr(&o);
    assert!(e.contains("(did you mean `agentescape@2`?)"), "{e}");
    let o = escapade(&["run", "agentescape@2", "--model", "gpt-4o", "--limit", "1"]);
    let e = stderr(&o);
    assert!(e.contains("did you mean openai/gpt-4o?"), "{e}");
    // a suite's name answers `list` for its world
    let listed = ok(escapade(&["list", "visescape@4"]));
    assert!(
        listed.contains("  vis ") && !listed.contains("  comma "),
        "{listed}"
    );
    // a retired name too, saying what replaced it
    let o = escapade(&["list", "visescape@3"]);
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        listed.contains("  vis ") && !listed.contains("  comma "),
        "{listed}"
    );
    assert!(
        stderr(&o).contains("replaced by `visescape@4`"),
        "{}",
        stderr(&o)
    );
    let o = escapade(&["list", "visescap@4"]);
    assert!(
        stderr(&o).contains("did you mean `visescape@4`?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn report_on_a_folder_reads_the_runs_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let room = dir.path().join("room.json");
    ok(escapade(&["gen", "tools", "--out", room.to_str().unwrap()]));
    let runs = dir.path().join("runs");
    for (seed, sub) in [("1", "a"), ("2", "b/deeper")] {
        let out = runs.join(sub);
        ok(escapade(&[
            "run",
            room.to_str().unwrap(),
            "--agent",
            "random",
            "--seed",
            seed,
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]));
    }
    let o = escapade(&["report", "--json", runs.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", stderr(&o));
    });
    assert_eq!(v["runs"].as_array().unwrap().len(), 2, "{v}");
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
    // every metric with --wide; the terminal's default keeps the world's key metrics
    let o = escapade(&["report", "--wide", dir.path().to_str().unwrap()]);
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("| 5 | 1 | 100.0 | 4.00 | 50.0 |"), "{md}");
    let o = escapade(&["report", dir.path().to_str().unwrap()]);
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(
        md.contains("| 5 | 1 | 100.0 | 4.00 |") && !md.contains("discovery_rate"),
        "{md}"
    );
    // a bare --plots after the run directories draws into <first run>/plots
    let o = escapade(&["report", dir.path().to_str().unwrap(), "--plots"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plots: Vec<_> = std::fs::read_dir(dir.path().join("plots"))
        .unwrap()
        .collect();
    assert!(!plots.is_empty(), "{}", stderr(&o));
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

/// A run directory under `parent` whose two steps carry reasoning (one in the `reasoning`
/// field, one in a `[THINK]` section), or none when `reasoning` is false.
fn run_with_reasoning(parent: &std::path::Path, reasoning: bool) -> std::path::PathBuf {
    use escapade_core::trajectory::LoggedObservation;
    use escapade_core::{Action, EpisodeRow, FORMAT_VERSION, StepRow, Usage};
    use escapade_run::rundir::{RunConfig, RunDir, ScenarioRef};
    let config = RunConfig {
        suite: "s@1".into(),
        world: "vis".into(),
        source: "s@1".into(),
        agent: "llm".into(),
        agent_options: [("model".to_string(), "openai/gpt-4o".to_string())].into(),
        expert: None,
        expert_options: Default::default(),
        world_options: Default::default(),
        epochs: 1,
        suite_settings: Default::default(),
        files: Default::default(),
        limit: None,
        sample: None,
        seed: 0,
        max_steps: 10,
        scenarios: vec![ScenarioRef {
            id: "room".into(),
            hash: "00".into(),
        }],
        shard: None,
        fork: None,
    };
    let dir = RunDir::create(parent, &config).unwrap();
    let step = |n: u32, reasoning: Option<&str>, raw: &str| StepRow {
        format_version: FORMAT_VERSION,
        step: n,
        t_ms: 0,
        role: "agent".into(),
        observation: LoggedObservation::default(),
        request: None,
        raw_response: Some(raw.into()),
        reasoning: reasoning.map(String::from),
        action: Action::text("open door"),
        valid: true,
        feedback: String::new(),
        progress: 0.0,
        terminated: false,
        truncated: false,
        usage: Usage::default(),
        error: None,
        results: Vec::new(),
        reasks: Vec::new(),
        steps_to_go: None,
    };
    let steps = if reasoning {
        vec![
            step(1, Some("The door is shut. I will open it."), "open door"),
            step(
                2,
                None,
                "[THINK] Still shut. Open again. [ACTION] open door",
            ),
        ]
    } else {
        vec![step(1, None, "open door"), step(2, None, "open door")]
    };
    let mut t = dir.trajectory("room", 0).unwrap();
    for s in &steps {
        t.write(s).unwrap();
    }
    dir.append_episode(&EpisodeRow {
        format_version: FORMAT_VERSION,
        suite: "s@1".into(),
        scenario: "room".into(),
        scenario_hash: "00".into(),
        world: "vis".into(),
        difficulty: 1,
        epoch: 0,
        seed: 0,
        agent: "llm:openai/gpt-4o".into(),
        config_hash: dir.config_hash().into(),
        success: false,
        steps: 2,
        metrics: Default::default(),
        usage: Usage::default(),
        duration_ms: 1,
        error: None,
        retryable: false,
        rejected: Vec::new(),
        start_steps_to_go: None,
        step_cap: false,
        origin: None,
    })
    .unwrap();
    dir.path().to_path_buf()
}

#[test]
fn judge_labels_reasoning_with_a_scripted_model_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_reasoning(tmp.path(), true);
    let d = dir.to_str().unwrap();
    let script = tmp.path().join("judge.jsonl");
    std::fs::write(
        &script,
        "{\"text\": \"[Observation]: The door is shut.\\n[Planning]: I will open it.\", \
         \"usage\": {\"input\": 50, \"output\": 10}}\n",
    )
    .unwrap();
    let model = format!("scripted/{}", script.display());

    let out = ok(escapade(&["judge", d, "--model", &model, "--json", "-q"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&v["task"], &v["judge"]),
        (&"reasoning".into(), &model.as_str().into())
    );
    let run = &v["runs"][0];
    assert_eq!(run["label"], "llm openai/gpt-4o", "{run}");
    assert_eq!(
        (&run["judged"], &run["requests"]),
        (&2.into(), &2.into()),
        "{run}"
    );
    assert_eq!(run["usage"]["input"], 100, "{run}");
    assert_eq!(run["categories"][0]["category"], "observation", "{run}");
    assert_eq!(run["categories"][0]["share"], 0.5, "{run}");
    assert_eq!(run["compositions"][0]["label"], "(Obs, Plan)", "{run}");
    let rows = std::fs::read_to_string(dir.join("judge").join("reasoning.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 2);

    // again, as Markdown: nothing is sent twice
    let md = ok(escapade(&["judge", d, "-m", &model, "-q"]));
    assert!(md.contains("0 sent now, 2 judged earlier"), "{md}");
    assert!(md.contains("| (Obs, Plan) | 2 | 100.0 |"), "{md}");
    let rows = std::fs::read_to_string(dir.join("judge").join("reasoning.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 2);

    let o = escapade(&["judge", d, "-m", &model, "--task", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "error: unknown judge task `nope`; known: reasoning, errors, intent, debrief"
    );
    let o = escapade(&["judge", d, "-m", &model, "-A", "history=full"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown judge option `history`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn judging_a_run_without_reasoning_says_so_and_succeeds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_reasoning(tmp.path(), false);
    let judge = |key: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_escapade"));
        command.args([
            "judge",
            dir.to_str().unwrap(),
            "-m",
            "openai/gpt-4o",
            "--json",
        ]);
        match key {
            Some(key) => command.env("OPENAI_API_KEY", key),
            None => command.env_remove("OPENAI_API_KEY"),
        };
        command.output().unwrap()
    };
    // a missing key is refused before anything is read, whether or not there is work
    let o = judge(None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("OPENAI_API_KEY"), "{}", stderr(&o));
    // with a key, the backend is never opened: nothing needs it
    let o = judge(Some("never-sent"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nothing to judge: no step carries reasoning"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&v["runs"][0]["steps"], &v["runs"][0]["items"]),
        (&2.into(), &0.into())
    );
    assert!(!dir.join("judge").exists());
}

#[test]
fn terminal_play_shows_each_thing_once_and_the_pictures_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let images = tmp.path().join("pictures");
    let images = images.to_str().unwrap();
    // vis: the observation lists the actions; the list is not printed a second time
    let (_, out, _) = play(
        &[
            "play",
            "visescape@4",
            "--scenario",
            "vis-r05",
            "--images",
            images,
        ],
        "turn to east\n",
    );
    assert!(!out.contains("available actions:"), "{out}");
    // the description says no more than the prompt (the paper's agent reads no words of
    // the picture)
    assert!(
        out.contains("  | The east wall, with the shipping crate and the ice box."),
        "{out}"
    );
    assert!(out.contains("input ended after 1 step\n"), "{out}");
    // comma: the solver reads the picture's description
    let (ok, out, _) = play(
        &[
            "play",
            "comma@4",
            "--scenario",
            "comma-wire-000",
            "--role",
            "solver",
            "--images",
            images,
        ],
        "cut_wire_1\n",
    );
    assert!(ok, "{out}");
    assert!(out.contains("  | A wire module with 5 wires"), "{out}");
    assert_eq!(out.matches("cut_wire_5").count(), 1, "{out}");
    // craft: the reply format repeated every turn is shown once, then on :again
    let (_, out, _) = play(
        &[
            "play",
            "mm-escape",
            "--scenario",
            "craft-d1-01",
            "-W",
            "width=128",
            "-W",
            "height=64",
            "--images",
            images,
        ],
        "{\"rotate_right\": 30}\n:again\n",
    );
    let (_, after) = out
        .split_once("lines as in the previous turn; :again shows them")
        .unwrap_or_else(|| panic!("{out}"));
    // after the elided turn, only :again prints the format
    assert_eq!(after.matches("\"move_forward\": float").count(), 1, "{out}");
}

/// Quitting a game is giving up, not an agent error: the terminal says so, the recorded
/// episode's error is `gave up`, and the report counts no error.
#[test]
fn quitting_a_game_is_giving_up_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let (_, out, err) = play(
        &[
            "play",
            "comma@4",
            "--scenario",
            "comma-wire-000",
            "--record",
            runs.to_str().unwrap(),
            "--images",
            tmp.path().join("pictures").to_str().unwrap(),
        ],
        "I see five wires\n:quit\n",
    );
    assert!(
        out.contains("== episode over: gave up after 1 step"),
        "{out}"
    );
    assert!(
        !out.contains("agent failed") && !err.contains("agent failed"),
        "{out}{err}"
    );
    let dir = run_dir_under(&runs);
    let rows = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    let row: serde_json::Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(row["error"], "gave up", "{rows}");
    assert_eq!(row["success"], false, "{rows}");
    let report = ok(escapade(&["report", dir.to_str().unwrap()]));
    assert!(report.contains("Episodes with errors: 0 of 1."), "{report}");
}

/// `escapade serve --host` takes its token from `ESCAPADE_TOKEN` (which, unlike
/// `--token`, does not show in the process list), checked like the flag's.
#[test]
fn serve_takes_its_token_from_the_environment() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let serve = |token: &str| {
        Command::new(env!("CARGO_BIN_EXE_escapade"))
            .args(["serve", "--host", "127.0.0.1", "--port", "0"])
            .env("ESCAPADE_TOKEN", token)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let short = serve("short").wait_with_output().unwrap();
    assert_eq!(short.status.code(), Some(1));
    assert!(
        stderr(&short).contains("16 characters"),
        "{}",
        stderr(&short)
    );

    let chosen = "from-the-environment-0123";
    let mut child = serve(chosen);
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .take(3)
        .map(Result::unwrap)
        .collect();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("http://escapade:{chosen}@127.0.0.1:"))),
        "{lines:?}"
    );
    let help = ok(escapade(&["serve", "--help"]));
    assert!(help.contains("ESCAPADE_TOKEN"), "{help}");
    assert!(!help.contains(chosen), "{help}");
}
