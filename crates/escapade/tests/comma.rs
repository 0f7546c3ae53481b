//! The comma world through the binary: generating by puzzle name, importing the
//! original's puzzle file, model agents per role and `--expert`, playing one role,
//! comma reports and the `errors` judge.

mod common;
use common::*;

use std::path::{Path, PathBuf};

/// A wire scenario in `dir/w.json` whose answer is to cut wire 2 (three wires, blue, white,
/// black: no red wire).
fn wire(dir: &Path) -> String {
    let file = dir.join("w.json");
    std::fs::write(
        &file,
        serde_json::json!({
            "world": "comma", "id": "comma-wire-test", "difficulty": 1, "seed": 0,
            "puzzle": "wire", "instance": {"n_wires": 3, "colors": ["blue", "white", "black"]},
        })
        .to_string(),
    )
    .unwrap();
    file.to_str().unwrap().to_string()
}

/// A scripted model that always says `text`.
fn model(dir: &Path, name: &str, text: &str) -> String {
    let script = dir.join(name);
    std::fs::write(
        &script,
        format!("{}\n", serde_json::json!({ "text": text })),
    )
    .unwrap();
    format!("scripted/{}", script.display())
}

fn run_toml(dir: &Path) -> toml::Value {
    toml::from_str(&std::fs::read_to_string(dir.join("run.toml")).unwrap()).unwrap()
}

#[test]
fn gen_picks_a_comma_puzzle_by_name_and_refuses_it_elsewhere() {
    let v: serde_json::Value = serde_json::from_str(&ok(escapade(&[
        "gen", "comma", "--puzzle", "wire", "--seed", "3",
    ])))
    .unwrap();
    assert_eq!(
        (&v["puzzle"], &v["difficulty"], &v["id"]),
        (&"wire".into(), &1.into(), &"comma-wire-s3".into())
    );
    let atm = ok(escapade(&["gen", "comma", "--puzzle", "ATM"]));
    assert!(atm.contains("\"difficulty\": 10"), "{atm}");
    // no difficulty: comma's default, the first puzzle
    let first = ok(escapade(&["gen", "comma", "--seed", "3"]));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&first).unwrap(),
        v
    );
    // the same option in its general spelling
    let same = ok(escapade(&[
        "gen",
        "comma",
        "-W",
        "puzzle=wire",
        "--seed",
        "3",
    ]));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&same).unwrap(), v);
    let o = escapade(&["gen", "vis", "--puzzle", "wire"]);
    assert!(
        stderr(&o).contains("world `vis` takes no generation option `puzzle`"),
        "{}",
        stderr(&o)
    );
    let o = escapade(&["gen", "comma", "--puzzle", "sudoku"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("sudoku"), "{}", stderr(&o));
}

#[test]
fn import_writes_a_scenario_per_entry_and_reports_bad_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../escapade-comma/tests/fixtures/puzzles_small.json"
    );
    let out = tmp.path().join("imported");
    let printed = ok(escapade(&[
        "import",
        "comma",
        fixture,
        "--out",
        out.to_str().unwrap(),
    ]));
    assert_eq!(printed.lines().count(), 5, "{printed}");
    let wire: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("comma-import-1-wire.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(wire["instance"]["n_wires"], 4);
    assert!(wire["instance"].get("notes").is_none());
    assert!(out.join("comma-import-2-atm.json").exists());
    // every imported scenario plays
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        out.to_str().unwrap(),
        "--agent",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));

    let bad = tmp.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"[{"SimpleWirePuzzle": {"n_wires": 3, "colors": ["red", "red", "red"]}},
            {"BombPuzzle": {"wires": 3}},
            {"SimpleWirePuzzle": {"n_wires": 3}}]"#,
    )
    .unwrap();
    let o = escapade(&["import", "comma", bad.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("entry 2: skipped: unknown puzzle class `BombPuzzle`"),
        "{e}"
    );
    assert!(e.contains("entry 3: skipped: SimpleWirePuzzle:"), "{e}");
    assert!(e.contains("imported 1 of 3 entries"), "{e}");
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(list[0]["id"], "comma-import-1-wire");

    std::fs::write(&bad, r#"[{"BombPuzzle": {}}]"#).unwrap();
    let o = escapade(&["import", "comma", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let o = escapade(&["import", "tools", bad.to_str().unwrap()]);
    assert!(stderr(&o).contains("knows comma's, craft's and vis's originals"));
}

#[test]
fn a_model_agent_plays_each_role_and_an_expert_spec_is_recorded_for_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let w = wire(tmp.path());
    let m = model(tmp.path(), "cut.jsonl", "cut_wire_2");

    // --agent llm alone: one model agent per role
    let runs = tmp.path().join("team");
    ok(escapade(&[
        "run",
        &w,
        "--agent",
        "llm",
        "--model",
        &m,
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let dir = run_dir_under(&runs);
    let row: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(dir.join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(row["agent"], format!("solver=llm:{},expert=llm:{}", &m, &m));
    assert_eq!(row["success"], true);
    assert!(run_toml(&dir)["config"].get("expert").is_none());

    // a model solver with the oracle expert; resume rebuilds the same pair
    let runs = tmp.path().join("pair");
    let out = ok(escapade(&[
        "run",
        &w,
        "--agent",
        "llm",
        "--model",
        &m,
        "--expert",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    assert!(out.contains("llm "), "{out}");
    assert!(out.contains("expert oracle"), "{out}");
    let dir = run_dir_under(&runs);
    assert_eq!(run_toml(&dir)["config"]["expert"].as_str(), Some("oracle"));
    let row = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    assert!(row.contains("\"agent\":\"solver=llm:"), "{row}");
    assert!(row.contains("expert=oracle"), "{row}");
    let o = escapade(&["resume", dir.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));

    // a model expert on its own model, options recorded
    let runs = tmp.path().join("model-expert");
    let e = model(tmp.path(), "say.jsonl", "cut_wire_2 please");
    ok(escapade(&[
        "run",
        &w,
        "--agent",
        "random",
        "--expert-model",
        &e,
        "-E",
        "temperature=0.5",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let config = run_toml(&run_dir_under(&runs))["config"].clone();
    assert_eq!(config["expert"].as_str(), Some("llm"));
    assert_eq!(
        config["expert_options"]["temperature"].as_str(),
        Some("0.5")
    );
    assert_eq!(config["expert_options"]["model"].as_str(), Some(e.as_str()));

    // the talking oracle solver describes, then does what a model expert names
    let runs = tmp.path().join("talking-solver");
    ok(escapade(&[
        "run",
        &w,
        "--agent",
        "oracle-talk",
        "--expert-model",
        &e,
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let dir = run_dir_under(&runs);
    let rows = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    assert!(rows.contains("\"success\":true"), "{rows}");
    let steps: Vec<serde_json::Value> = std::fs::read_dir(dir.join("trajectories"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .flat_map(|f| {
            std::fs::read_to_string(f.unwrap().path())
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let said: Vec<&str> = steps
        .iter()
        .filter(|s| s["role"] == "solver")
        .map(|s| s["action"]["text"].as_str().unwrap_or(""))
        .collect();
    assert!(said[0].starts_with("I see: A wire module"), "{said:?}");
    assert_eq!(said[1], "cut_wire_2", "{said:?}");

    // baselines stay the world's own pair
    let runs = tmp.path().join("oracle");
    ok(escapade(&[
        "run",
        &w,
        "--agent",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let rows = std::fs::read_to_string(run_dir_under(&runs).join("episodes.jsonl")).unwrap();
    assert!(rows.contains("\"agent\":\"oracle\""), "{rows}");
}

#[test]
fn expert_flags_are_refused_where_they_do_not_apply() {
    let tmp = tempfile::tempdir().unwrap();
    let room = tmp.path().join("room.json");
    ok(escapade(&[
        "gen",
        "vis",
        "-d",
        "1",
        "--out",
        room.to_str().unwrap(),
    ]));
    let runs = tmp.path().join("runs");
    let o = escapade(&[
        "run",
        room.to_str().unwrap(),
        "--agent",
        "random",
        "--expert",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--expert applies only to worlds whose scenarios have two roles"),
        "{}",
        stderr(&o)
    );
    let w = wire(tmp.path());
    let o = escapade(&[
        "run",
        &w,
        "--expert",
        "oracle",
        "-E",
        "temperature=1",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("apply only to model agents"),
        "{}",
        stderr(&o)
    );
    let o = escapade(&[
        "run",
        &w,
        "-E",
        "temperature=1",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("-E (expert options) needs --expert"),
        "{}",
        stderr(&o)
    );
    assert!(find_run_dir(&runs).is_none());
}

#[test]
fn a_person_plays_one_role_against_an_agent_or_every_role() {
    let tmp = tempfile::tempdir().unwrap();
    let w = wire(tmp.path());
    let images = tmp.path().join("img");
    let record = tmp.path().join("rec");
    // the solver asks, the oracle expert answers, the solver cuts
    let (ok_, out, err) = play(
        &[
            "play",
            &w,
            "--role",
            "solver",
            "--images",
            images.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ],
        "what now?\ncut_wire_2\n",
    );
    assert!(ok_, "{err}");
    assert!(out.contains("You are the solver"), "{out}");
    assert!(!out.contains("MANUAL"), "{out}");
    assert!(out.contains("The expert says: cut_wire_2"), "{out}");
    assert!(out.contains("episode over: escaped after 3 steps"), "{out}");
    let dir = run_dir_under(&record);
    let rows = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    assert!(
        rows.contains("\"agent\":\"solver=human,expert=oracle\""),
        "{rows}"
    );

    // the expert's seat: a scripted model solver that always cuts wire 2
    let m = model(tmp.path(), "cut.jsonl", "cut_wire_2");
    let (ok_, out, err) = play(
        &[
            "play",
            &w,
            "--role",
            "expert",
            "--expert-model",
            &m,
            "--images",
            images.to_str().unwrap(),
        ],
        "",
    );
    assert!(ok_, "{err}");
    assert!(out.contains("MANUAL"), "{out}");
    assert!(out.contains("escaped after 1 step"), "{out}");

    // both roles: each turn says whose it is
    let (ok_, out, _) = play(
        &["play", &w, "--images", images.to_str().unwrap()],
        "hello\ncut wire 2 please\ncut_wire_2\n",
    );
    assert!(ok_);
    assert!(out.contains("== rules for the expert =="), "{out}");
    assert!(out.contains("== the solver's turn =="), "{out}");
    assert!(out.contains("== the expert's turn =="), "{out}");
    assert!(out.contains("escaped after 3 steps"), "{out}");

    let (ok_, _, err) = play(&["play", &w, "--role", "pilot"], "");
    assert!(!ok_);
    assert!(err.contains("unknown role `pilot`"), "{err}");
    let (ok_, _, err) = play(&["play", &w, "--expert", "random"], "");
    assert!(!ok_);
    assert!(err.contains("needs --role"), "{err}");
}

/// A comma run of the oracle and random pairs over wire and ATM, returned as run dirs.
fn comma_runs(tmp: &Path) -> Vec<PathBuf> {
    let scenarios = tmp.join("scenarios");
    for (p, s) in [("wire", "1"), ("atm", "2")] {
        ok(escapade(&[
            "gen",
            "comma",
            "--puzzle",
            p,
            "--seed",
            s,
            "-n",
            "2",
            "--out",
            &format!("{}/", scenarios.display()),
        ]));
    }
    ["oracle", "random", "oracle-talk"]
        .iter()
        .map(|agent| {
            let runs = tmp.join(agent);
            let printed = ok(escapade(&[
                "run",
                scenarios.to_str().unwrap(),
                "--agent",
                agent,
                "--out",
                runs.to_str().unwrap(),
                "-q",
            ]));
            // the run's own report carries the per-turn curve too
            assert!(
                printed.contains("success within k solver turns"),
                "{printed}"
            );
            let dir = run_dir_under(&runs);
            let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
            assert!(md.contains("success within k solver turns"), "{md}");
            dir
        })
        .collect()
}

#[test]
fn comma_reports_name_puzzles_and_give_capabilities_and_success_per_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = comma_runs(tmp.path());
    let (a, b) = (dirs[0].to_str().unwrap(), dirs[1].to_str().unwrap());
    let md = ok(escapade(&["report", a, b]));
    assert!(md.contains("| 1 (wire) | oracle | 2 |"), "{md}");
    assert!(md.contains("| 10 (atm) | oracle | 2 |"), "{md}");
    assert!(
        md.contains("### comma, per capability (COMMA §3.2)"),
        "{md}"
    );
    assert!(
        md.contains("| privacy (telehealth, atm) | oracle | 2 |"),
        "{md}"
    );
    assert!(md.contains("| grounding ("), "{md}");
    assert!(!md.contains("| memory ("), "{md}");
    assert!(md.contains("success within k solver turns"), "{md}");
    // the oracle pair solves in its second solver turn: 0% within 1, 100% within 2
    let oracle_row = md
        .lines()
        .find(|l| l.starts_with("| oracle | 4 | 0.0 ± 0.0 |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(oracle_row.contains("| 100.0 ± 0.0 | 100.0"), "{oracle_row}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(escapade(&["report", a, "--json"]))).unwrap();
    let table = v["breakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "capabilities")
        .unwrap();
    let privacy = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["group"] == "privacy (telehealth, atm)")
        .unwrap();
    assert_eq!(privacy["n"], 2);
    assert_eq!(privacy["metrics"]["success"]["mean"], 1.0);
    assert_eq!(v["per_turn"][0]["success"][1]["mean"], 1.0);
    assert_eq!(v["per_turn"][0]["success"][0]["mean"], 0.0);
}

#[test]
fn the_talking_pair_describes_then_acts_and_the_plots_show_turns_and_capabilities() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = comma_runs(tmp.path());
    let talk = dirs[2].to_str().unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&ok(escapade(&["report", talk, "--json"]))).unwrap();
    // wire: describe, then cut (2 turns); ATM: describe, log in to read the balance,
    // describe, finish (4 turns) — never saying the PIN or the balance
    let within: Vec<f64> = v["per_turn"][0]["success"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["mean"].as_f64().unwrap())
        .collect();
    assert_eq!(&within[..4], &[0.0, 0.5, 0.5, 1.0], "{within:?}");
    let overall = &v["overall"]["comma"]["metrics"];
    assert_eq!(overall["success"]["mean"], 1.0, "{overall}");
    assert_eq!(overall["leaked"]["mean"], 0.0, "{overall}");
    let plots = tmp.path().join("plots");
    let all: Vec<&str> = dirs.iter().map(|d| d.to_str().unwrap()).collect();
    let mut args = vec!["report"];
    args.extend(&all);
    args.extend(["--plots", plots.to_str().unwrap()]);
    ok(escapade(&args));
    for stem in [
        "success_within_turns",
        "success_by_capabilities",
        "success_by_difficulty",
    ] {
        for ext in ["svg", "png"] {
            let path = plots.join(format!("{stem}.{ext}"));
            assert!(path.is_file(), "{} missing", path.display());
        }
    }
    let svg = std::fs::read_to_string(plots.join("success_by_capabilities.svg")).unwrap();
    assert!(
        svg.contains("privacy") && svg.contains("grounding"),
        "{svg}"
    );
}

#[test]
fn the_errors_judge_labels_each_conversation_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = comma_runs(tmp.path());
    let d = dirs[1].to_str().unwrap();
    let judge = model(tmp.path(), "judge.jsonl", "ERRORS: repetition, Role-play");
    let v: serde_json::Value = serde_json::from_str(&ok(escapade(&[
        "judge", d, "--task", "errors", "-m", &judge, "--json", "-q",
    ])))
    .unwrap();
    let run = &v["runs"][0];
    assert_eq!(
        (&run["items"], &run["judged"]),
        (&4.into(), &4.into()),
        "{run}"
    );
    let share = |c: &str| {
        run["categories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["category"] == c)
            .unwrap()["share"]
            .clone()
    };
    assert_eq!(share("repetition"), 1.0);
    assert_eq!(share("roleplay"), 1.0);
    assert_eq!(share("miscommunication"), 0.0);
    assert_eq!(share("none"), 0.0);
    let rows = std::fs::read_to_string(dirs[1].join("judge").join("errors.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 4);
    assert!(rows.contains("\"step\":null"), "{rows}");
    let md = ok(escapade(&[
        "judge", d, "--task", "errors", "-m", &judge, "-q",
    ]));
    assert!(md.contains("| Repetition loop | 4 | 100.0 |"), "{md}");
    assert!(md.contains("| error type | episodes | share (%) |"), "{md}");
    assert!(md.contains("0 sent now, 4 judged earlier"), "{md}");
}

/// Item 12 and the versions: `list` names comma's tiers by puzzle and no longer calls the
/// world unfinished; the retired `comma@1`, `comma@2` and `comma@3` name `comma@4`
/// (`comma@2` says the RNG changed, `comma@3` the protocol), `comma-gen@1` and
/// `comma-gen@2` name `comma-gen@3`; `comma` alone is `comma@4`.
#[test]
fn list_names_tiers_by_puzzle_and_retired_suites_point_to_comma_4() {
    let out = ok(escapade(&["list", "comma"]));
    assert!(!out.contains("work in progress"), "{out}");
    assert!(out.contains("comma@4"), "{out}");
    assert!(out.contains("comma-gen@3"), "{out}");
    assert!(
        out.contains("100×1 (wire), 100×2 (telehealth)") && out.contains("100×10 (atm)"),
        "{out}"
    );
    assert!(out.contains("-W memory_labels="), "{out}");
    for args in [
        vec!["suite", "comma@1"],
        vec!["run", "comma@1", "--agent", "random"],
    ] {
        let o = escapade(&args);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("`comma@1` was replaced by `comma@4`"),
            "{}",
            stderr(&o)
        );
    }
    for (old, new, why) in [
        ("comma@2", "comma@4", "ChaCha20"),
        ("comma-gen@1", "comma-gen@3", "ChaCha20"),
        ("comma@3", "comma@4", "original's protocol"),
        ("comma-gen@2", "comma-gen@3", "original's protocol"),
    ] {
        let o = escapade(&["run", old, "--agent", "random"]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(
            err.contains(&format!("`{old}` was replaced by `{new}`")),
            "{err}"
        );
        assert!(err.contains(why), "{err}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        "comma",
        "--agent",
        "oracle",
        "--limit",
        "2",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let rows = std::fs::read_to_string(run_dir_under(&runs).join("episodes.jsonl")).unwrap();
    assert!(rows.contains("\"suite\":\"comma@4\""), "{rows}");
    assert!(rows.contains("\"scenario\":\"comma-wire-000\""), "{rows}");
}

/// The suite declares the original's decoding settings — temperature 0 and at most 1024
/// tokens a reply, what the original's model agents send — and a model run on it uses
/// and records them; the user's `-A max_tokens` still wins and is named as a departure.
#[test]
fn a_model_on_the_comma_suite_gets_the_original_s_max_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    let m = model(tmp.path(), "cut.jsonl", "cut_wire_1");
    for (given, want) in [(None, "1024"), (Some("2048"), "2048")] {
        let runs = tmp.path().join(want);
        let mut args = vec!["run", "comma@4", "--model", &m, "--limit", "1", "--out"];
        let out = runs.to_str().unwrap().to_string();
        args.push(&out);
        args.push("-q");
        let option = given.map(|g| format!("max_tokens={g}"));
        if let Some(o) = &option {
            args.extend(["-A", o.as_str()]);
        }
        ok(escapade(&args));
        let config = run_toml(&run_dir_under(&runs))["config"].clone();
        assert_eq!(
            config["agent_options"]["max_tokens"].as_str(),
            Some(want),
            "{config}"
        );
        assert_eq!(config["agent_options"]["temperature"].as_str(), Some("0"));
        let report = std::fs::read_to_string(run_dir_under(&runs).join("report.md")).unwrap();
        assert_eq!(
            report.contains("max_tokens 2048 (suite: 1024)"),
            given.is_some(),
            "{report}"
        );
    }
}

/// World options reach the run and are recorded; a bad one is refused before anything
/// runs.
#[test]
fn world_options_are_recorded_and_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        "comma-gen@3",
        "--agent",
        "oracle",
        "--limit",
        "3",
        "-W",
        "memory_labels=shuffled",
        "-W",
        "feedback=detailed",
        "-W",
        "psr=best",
        "-W",
        "acl=turns",
        "-W",
        "serial=135791",
        "-W",
        "action_warning=on",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let dir = run_dir_under(&runs);
    let config = run_toml(&dir)["config"].clone();
    assert_eq!(
        config["world_options"]["memory_labels"].as_str(),
        Some("shuffled")
    );
    for (key, value) in [
        ("psr", "best"),
        ("acl", "turns"),
        ("serial", "135791"),
        ("action_warning", "on"),
    ] {
        assert_eq!(config["world_options"][key].as_str(), Some(value), "{key}");
    }
    // the oracle solves in two solver turns, which `acl=turns` counts
    let rows = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    assert_eq!(
        rows.matches("\"conversation_length\":2.0").count(),
        3,
        "{rows}"
    );
    let o = escapade(&[
        "run",
        "comma@4",
        "--agent",
        "random",
        "-W",
        "memory_labels=sorted",
        "--out",
        tmp.path().join("bad").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("one of fixed, shuffled"),
        "{}",
        stderr(&o)
    );
}

/// Item 7: a square already white does nothing — a solver that presses the same square
/// again and again makes no mistake (the issue's repro, on a grid whose first group is
/// the top left square).
#[test]
fn pressing_a_white_square_again_is_no_mistake() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("colour.json");
    let grid = [
        "Red", "Red", "Green", "Blue", "Red", "Yellow", "Green", "Red", "Green", "Magenta",
        "Green", "Magenta", "Blue", "Yellow", "Green", "Yellow",
    ];
    std::fs::write(
        &file,
        serde_json::json!({
            "world": "comma", "id": "comma-colour-test", "difficulty": 8, "seed": 0,
            "puzzle": "colour", "instance": {"colors": grid},
        })
        .to_string(),
    )
    .unwrap();
    let m = model(
        tmp.path(),
        "twice.jsonl",
        "click_row_0_col_0\nclick_row_0_col_0",
    );
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        file.to_str().unwrap(),
        "--agent",
        "llm",
        "--model",
        &m,
        "--expert",
        "random",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let row: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(run_dir_under(&runs).join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(row["metrics"]["mistakes"], 0.0, "{row}");
    assert!(row["metrics"]["psr"].as_f64().unwrap() > 0.0, "{row}");
}

/// `n_wires` of -1 or 2^64, and a field the puzzle does not read, are refused by `check`
/// and `run`.
#[test]
fn out_of_range_wire_counts_are_refused_by_check_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(wire(dir.path())).unwrap()).unwrap();
    for n in [
        serde_json::json!(-1),
        serde_json::json!(18446744073709551616.0),
    ] {
        let mut bad = v.clone();
        bad["instance"]["n_wires"] = n;
        refused(&bad, "`n_wires` must be a whole number from 3 to 6");
    }
    let mut bad = v.clone();
    bad["instance"]["n_wire"] = 3.into();
    refused(&bad, "unknown field `n_wire`");
}

/// The terminal report keeps to 120 columns (§4.2's metrics; Fig. 4's ten turns cut).
#[test]
fn the_terminal_report_fits_120_columns() {
    let wide = report_fits_120_columns("comma@4", &[]);
    assert!(wide.contains("| 10 |"), "{wide}");
}
