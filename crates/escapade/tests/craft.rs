//! The craft world through the binary: the suite is verified by the oracle, and an
//! oracle run escapes with first-person frames stored in the run directory.

mod common;
use common::*;

#[test]
fn the_suite_is_solved_and_compared_with_the_paper() {
    let out = ok(escapade(&["suite", "mm-escape@3", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scenarios = v["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 73);
    assert!(scenarios.iter().all(|s| s["oracle"]["solved"] == true));
    assert!(scenarios.iter().all(|s| s["world"] == "craft"));
    let paper = v["stats"]["paper"].as_array().unwrap();
    // §3.3's objects per room, each tier within 15 %
    for (d, want) in [(1, 20.18), (2, 14.55), (3, 15.24)] {
        let name = format!("objects per room, difficulty {d}");
        let stat = paper.iter().find(|p| p["name"] == name.as_str()).unwrap();
        assert_eq!(stat["paper"], want);
        let ours = stat["ours"].as_f64().unwrap();
        assert!((ours - want).abs() <= 0.15 * want, "{name}: {ours}");
    }
    let least = paper
        .iter()
        .find(|p| p["name"] == "start free view, least (m)")
        .unwrap();
    assert!(least["ours"].as_f64().unwrap() >= 1.5);
}

#[test]
fn the_first_version_is_retired_with_a_pointer_to_the_second() {
    for old in ["mm-escape@1", "mm-escape@2"] {
        let o = escapade(&["suite", old]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(err.contains("replaced by `mm-escape@3`"), "{err}");
    }
}

#[test]
fn an_oracle_run_escapes_and_keeps_its_frames() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().to_str().unwrap();
    ok(escapade(&[
        "-q",
        "run",
        "mm-escape@3",
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
    // step rows keep each frame's exact description beside its hash
    let trajectory = std::fs::read_to_string(run.join("trajectories/craft-d1-01/0.jsonl")).unwrap();
    let first: serde_json::Value =
        serde_json::from_str(trajectory.lines().next().unwrap()).unwrap();
    let described = first["observation"]["descriptions"][0].as_str().unwrap();
    assert!(described.contains("Under the red dot"), "{first}");
    assert_eq!(first["observation"]["images"].as_array().unwrap().len(), 1);
    // the report splits by the exit's visibility at the start (Fig. 4) and names tiers
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        md.contains("exit is in view at the start (MM-Escape Fig. 4)"),
        "{md}"
    );
    assert!(md.contains("| 1 (D1) |"), "{md}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(escapade(&["report", run.to_str().unwrap(), "--json"]))).unwrap();
    let table = v["breakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "exit_view")
        .unwrap();
    let split = table["rows"].as_array().unwrap();
    let counted: u64 = split.iter().map(|g| g["n"].as_u64().unwrap()).sum();
    assert_eq!(counted, 3);
    assert!(split.iter().all(|g| g["metrics"]["success"]["mean"] == 1.0));
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

#[test]
fn the_craft_judges_read_an_oracle_run_and_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let room = tmp.path().join("r.json");
    let room = room.to_str().unwrap();
    ok(escapade(&[
        "gen",
        "craft",
        "--difficulty",
        "3",
        "--seed",
        "5",
        "--out",
        room,
    ]));
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "-q",
        "run",
        room,
        "--agent",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
    ]));
    let run = run_dir_under(&runs);
    let d = run.to_str().unwrap();
    let script = |name: &str, lines: &[&str]| {
        let path = tmp.path().join(name);
        std::fs::write(&path, lines.join("\n")).unwrap();
        format!("scripted/{}", path.display())
    };

    // intent: the oracle's pickup, box and escape, each with its rationale
    let judge = script("intent.jsonl", &[r#"{"text": "{\"consistent\": 1}"}"#]);
    let out = ok(escapade(&[
        "judge", d, "--task", "intent", "-m", &judge, "--json", "-q",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &v["runs"][0];
    assert_eq!((&r["items"], &r["judged"]), (&3.into(), &3.into()), "{r}");
    let score = |name: &str| {
        r["scores"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {r}"))["value"]
            .clone()
    };
    assert_eq!(score("c_io"), 1.0);
    assert_eq!(score("c_io_d3"), 1.0);
    assert_eq!(score("no_rationale"), 0.0);
    let rows = std::fs::read_to_string(run.join("judge").join("intent.jsonl")).unwrap();
    let labels: Vec<String> = rows
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["label"].to_string())
        .collect();
    assert_eq!(labels, ["\"pickup\"", "\"box\"", "\"escape\""]);

    // debrief: the storyteller's account, then the judge's score
    let model = script(
        "debrief.jsonl",
        &[
            r#"{"text": "A bedroom. I found a key on a shelf; the note had 4578."}"#,
            r#"{"text": "{\"score\": 2}"}"#,
        ],
    );
    let out = ok(escapade(&[
        "judge", d, "--task", "debrief", "-m", &model, "--json", "-q",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["storyteller"], model.as_str());
    let r = &v["runs"][0];
    assert_eq!((&r["items"], &r["judged"]), (&1.into(), &1.into()), "{r}");
    let debrief = r["scores"].as_array().unwrap();
    assert_eq!(debrief[0]["name"], "debrief");
    assert_eq!(debrief[0]["value"], 2.0);
    assert!(
        debrief
            .iter()
            .any(|s| s["name"] == "debrief_share" && s["value"] == 1.0)
    );
    let rows = std::fs::read_to_string(run.join("judge").join("debrief.jsonl")).unwrap();
    let row: serde_json::Value = serde_json::from_str(rows.trim()).unwrap();
    assert_eq!(row["prior"]["role"], "storyteller");
    assert!(row["prior"]["reply"].as_str().unwrap().contains("4578"));

    // again: nothing is asked twice
    let md = ok(escapade(&[
        "judge", d, "--task", "debrief", "-m", &model, "-q",
    ]));
    assert!(md.contains("0 sent now, 1 judged earlier"), "{md}");
    assert!(
        md.contains("| debriefing score (0-5) | 1 | 2.000 |"),
        "{md}"
    );
}

#[test]
fn gen_makes_each_variant_and_refuses_it_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    for (variant, difficulty) in [
        ("two-key", "3"),
        ("wall-pattern", "2"),
        ("multi-room", "12"),
    ] {
        let out = dir.path().join(format!("{variant}.json"));
        ok(escapade(&[
            "gen",
            "craft",
            "-d",
            difficulty,
            "--variant",
            variant,
            "--seed",
            "4",
            "--out",
            out.to_str().unwrap(),
        ]));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(v["variant"], variant);
        assert_eq!(v["difficulty"].to_string(), difficulty);
    }
    let o = escapade(&["gen", "tools", "-d", "5", "--variant", "two-key"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("world `tools` takes no generation option `variant`"),
        "{}",
        stderr(&o)
    );
    let o = escapade(&["gen", "craft", "-d", "1", "--variant", "two-key"]);
    assert!(stderr(&o).contains("needs difficulty 3"), "{}", stderr(&o));
}

#[test]
fn world_options_reach_the_environment_and_the_oracle_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("two-rooms.json");
    ok(escapade(&[
        "gen",
        "craft",
        "-d",
        "12",
        "--variant",
        "multi-room",
        "--seed",
        "3",
        "--out",
        game.to_str().unwrap(),
    ]));
    let runs = dir.path().join("runs");
    ok(escapade(&[
        "-q",
        "run",
        game.to_str().unwrap(),
        "--agent",
        "oracle",
        "-W",
        "bootstrap=on",
        "-W",
        "width=128",
        "-W",
        "height=64",
        "--out",
        runs.to_str().unwrap(),
    ]));
    let run = run_dir_under(&runs);
    let toml = std::fs::read_to_string(run.join("run.toml")).unwrap();
    assert!(toml.contains("bootstrap = \"on\""), "{toml}");
    let row: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(run.join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(row["success"], true, "{row}");
    // only room 2 is played: one room escaped
    assert_eq!(row["metrics"]["rooms_escaped"], 1.0, "{row}");
    let media = std::fs::read_dir(run.join("media"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let png = std::fs::read(media.path()).unwrap();
    let (w, h) = (
        u32::from_be_bytes(png[16..20].try_into().unwrap()),
        u32::from_be_bytes(png[20..24].try_into().unwrap()),
    );
    assert_eq!((w, h), (128, 64));
    // a bad option stops the run before any episode
    let o = escapade(&[
        "-q",
        "run",
        game.to_str().unwrap(),
        "--agent",
        "oracle",
        "-W",
        "bootstrap=maybe",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("bootstrap=maybe"), "{}", stderr(&o));
}

/// Generates a craft scenario into `dir` with `gen` arguments, returning its path.
fn generated(dir: &std::path::Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut all = vec!["gen", "craft"];
    all.extend(args);
    all.extend(["--out", path.to_str().unwrap()]);
    ok(escapade(&all));
    path
}

/// Plays the oracle on `scenario` without frames, with `-W` `options`, into `runs`;
/// returns the first step row and the episode row of that only episode.
fn oracle_run(
    scenario: &std::path::Path,
    runs: &std::path::Path,
    options: &[&str],
) -> (serde_json::Value, serde_json::Value) {
    let mut args = vec![
        "-q",
        "run",
        scenario.to_str().unwrap(),
        "--agent",
        "oracle",
        "-W",
        "frames=off",
        "--out",
        runs.to_str().unwrap(),
    ];
    for o in options {
        args.extend(["-W", o]);
    }
    ok(escapade(&args));
    let run = run_dir_under(runs);
    let episode = std::fs::read_to_string(run.join("episodes.jsonl")).unwrap();
    let scenario = std::fs::read_dir(run.join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let trajectory = std::fs::read_to_string(scenario.join("0.jsonl")).unwrap();
    (
        serde_json::from_str(trajectory.lines().next().unwrap()).unwrap(),
        serde_json::from_str(episode.lines().next().unwrap()).unwrap(),
    )
}

/// MM-Escape Table 3 reports two-room games bootstrapped (room 1 shown escaped); that is
/// the default, `escapade list` and the report say so, and `-W bootstrap=off` plays both
/// rooms (App. F).
#[test]
fn two_room_games_are_bootstrapped_by_default_and_say_so() {
    let list = ok(escapade(&["list"]));
    assert!(
        list.lines()
            .any(|l| l.contains("mm-escape@") && l.contains("bootstrapped")),
        "{list}"
    );
    let dir = tempfile::tempdir().unwrap();
    let game = generated(
        dir.path(),
        "two-rooms.json",
        &["-d", "12", "--variant", "multi-room", "--seed", "3"],
    );
    for (options, rooms, setting) in [
        (vec![], 1.0, "bootstrapped"),
        (vec!["bootstrap=off"], 2.0, "autonomous"),
    ] {
        let runs = dir.path().join(setting);
        let (first, row) = oracle_run(&game, &runs, &options);
        assert_eq!(row["success"], true, "{row}");
        assert_eq!(row["metrics"]["rooms_escaped"], rooms, "{row}");
        let bootstrapped = if setting == "bootstrapped" { 1.0 } else { 0.0 };
        assert_eq!(row["metrics"]["bootstrapped"], bootstrapped, "{row}");
        let shown = first["observation"]["text"].as_str().unwrap();
        assert_eq!(
            shown.contains("You have already escaped the first room"),
            setting == "bootstrapped",
            "{shown}"
        );
        let md = std::fs::read_to_string(run_dir_under(&runs).join("report.md")).unwrap();
        assert!(md.contains(&format!("| 12 (D1+D2, {setting}) |")), "{md}");
    }
}

/// The feedback and prompt options change what the agent is told and are recorded; the
/// defaults are the paper's prompt and the original client's level of information.
#[test]
fn feedback_and_prompt_options_change_the_words_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let room = generated(dir.path(), "d2.json", &["-d", "2", "--seed", "9"]);
    for (options, moved, left) in [
        (vec![], "You moved.", false),
        (
            vec!["feedback=detailed", "prompt=helpful"],
            "You walked",
            true,
        ),
    ] {
        let runs = dir.path().join(if left { "helpful" } else { "paper" });
        let (first, row) = oracle_run(&room, &runs, &options);
        assert_eq!(row["success"], true, "{row}");
        let feedback = first["feedback"].as_str().unwrap();
        assert!(feedback.contains(moved), "{feedback}");
        let text = first["observation"]["text"].as_str().unwrap();
        assert_eq!(text.contains("Steps left"), left, "{text}");
        let toml = std::fs::read_to_string(run_dir_under(&runs).join("run.toml")).unwrap();
        assert_eq!(toml.contains("feedback = \"detailed\""), left, "{toml}");
    }
    let o = escapade(&[
        "-q",
        "run",
        room.to_str().unwrap(),
        "--agent",
        "oracle",
        "-W",
        "feedback=loud",
        "--out",
        dir.path().join("refused").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("feedback=loud"), "{}", stderr(&o));
}

/// A person's unreadable reply is told back and typed again without a step, so the
/// world's rule that a reply still unreadable after the re-asks ends the game never
/// cuts a person's game short.
#[test]
fn a_person_who_types_junk_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let room = generated(dir.path(), "d1.json", &["-d", "1", "--seed", "4"]);
    let (_, out, err) = play(
        &[
            "play",
            room.to_str().unwrap(),
            "--images",
            dir.path().join("pictures").to_str().unwrap(),
        ],
        "turn left please\n{\"rotate_right\": 30}\n:quit\n",
    );
    assert!(out.contains("That reply cannot be read"), "{out}\n{err}");
    assert!(out.contains("You moved."), "{out}");
    assert!(out.contains("gave up after 1 step"), "{out}");
}

/// Furniture with a repeated id, on itself or in a loop is refused by `check` and `run`.
#[test]
fn broken_furniture_is_refused_by_check_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let room = generated(dir.path(), "r.json", &["--difficulty", "1", "--seed", "3"]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(room).unwrap()).unwrap();
    let id = |n: usize| {
        v["rooms"][0]["furniture"][n]["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (a, b) = (id(0), id(1));
    let mut twice = v.clone();
    twice["rooms"][0]["furniture"][1]["id"] = a.clone().into();
    refused(
        &twice,
        &format!("two pieces of furniture have the id `{a}`"),
    );
    let mut itself = v.clone();
    itself["rooms"][0]["furniture"][0]["on"] = a.clone().into();
    refused(&itself, &format!("furniture `{a}` stands on itself"));
    let mut cycle = v.clone();
    cycle["rooms"][0]["furniture"][0]["on"] = b.clone().into();
    cycle["rooms"][0]["furniture"][1]["on"] = a.clone().into();
    refused(&cycle, &format!("{a} → {b} → {a}"));
}

/// The terminal report keeps to 120 columns with MM-Escape's Table 2 columns.
#[test]
fn the_terminal_report_fits_120_columns() {
    let wide = report_fits_120_columns("mm-escape@3", &["-W", "frames=off"]);
    assert!(wide.contains("grab_count"), "{wide}");
}
