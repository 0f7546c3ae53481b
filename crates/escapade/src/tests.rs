//! Every subcommand against the demo world, with output captured.

use std::path::Path;

use anyhow::Result;
use escapade_core::World;

use crate::cli::{
    GenArgs, ListArgs, PlayArgs, ReportArgs, ReportFormat, ResumeArgs, RunArgs, SuiteArgs,
};
use crate::commands::{self, Ctx};
use crate::worlds::demo::{Demo, scenario};

/// Runs a command against the demo world; returns its result and what it printed.
fn call(f: impl FnOnce(&mut Ctx<'_>) -> Result<()>) -> (Result<()>, String) {
    let worlds: Vec<Box<dyn World>> = vec![Box::new(Demo)];
    let mut out = Vec::new();
    let result = f(&mut Ctx {
        worlds: &worlds,
        out: &mut out,
        quiet: true,
    });
    (result, String::from_utf8(out).unwrap())
}

fn ok(f: impl FnOnce(&mut Ctx<'_>) -> Result<()>) -> String {
    let (r, out) = call(f);
    r.unwrap();
    out
}

fn err(f: impl FnOnce(&mut Ctx<'_>) -> Result<()>) -> String {
    let (r, _) = call(f);
    format!("{:#}", r.unwrap_err())
}

fn run_args(source: &str, agent: &str, out: &Path) -> RunArgs {
    RunArgs {
        source: source.into(),
        agent: agent.into(),
        epochs: 1,
        limit: None,
        concurrency: 1,
        seed: 0,
        max_steps: 1000,
        out: out.to_path_buf(),
        model: None,
        agent_options: Vec::new(),
        expert: None,
        expert_model: None,
        expert_options: Vec::new(),
        world_options: Vec::new(),
        base_url: None,
        shard: None,
    }
}

#[test]
fn list_names_worlds_suites_and_agents() {
    let out = ok(|c| {
        commands::list(
            c,
            &ListArgs {
                world: None,
                json: true,
            },
        )
    });
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["worlds"][0]["name"], "demo");
    assert_eq!(
        v["worlds"][0]["agents"],
        serde_json::json!(["oracle", "random"])
    );
    assert_eq!(
        v["model_agents"],
        serde_json::json!(["llm", "base", "visescaper"])
    );
    assert_eq!(v["suites"][0]["name"], "demo@1");
    assert_eq!(
        v["suites"][0]["tiers"][0],
        serde_json::json!({"difficulty": 1, "count": 2})
    );
    assert!(v.get("catalogue").is_none());
    let one = ListArgs {
        world: Some("demo".into()),
        json: true,
    };
    let v: serde_json::Value = serde_json::from_str(&ok(|c| commands::list(c, &one))).unwrap();
    assert_eq!(v["catalogue"], "actions: inc, dec\n");
    let text = ok(|c| {
        commands::list(
            c,
            &ListArgs {
                world: Some("demo".into()),
                json: false,
            },
        )
    });
    assert!(
        text.contains("demo@1") && text.contains("actions: inc, dec"),
        "{text}"
    );
    assert!(
        text.contains("model agents (any world, with --model): llm, base, visescaper"),
        "{text}"
    );
    let e = err(|c| {
        commands::list(
            c,
            &ListArgs {
                world: Some("nope".into()),
                json: false,
            },
        )
    });
    assert_eq!(e, "unknown world `nope`; known: demo");
}

#[test]
fn gen_prints_or_writes_scenarios() {
    let args = |count, out: Option<&Path>| GenArgs {
        world: "demo".into(),
        difficulty: Some(2),
        puzzle: None,
        variant: None,
        seed: 5,
        count,
        out: out.map(Path::to_path_buf),
    };
    let v: serde_json::Value =
        serde_json::from_str(&ok(|c| commands::gen_scenarios(c, &args(1, None)))).unwrap();
    assert_eq!(v["id"], "demo-d2-s5");
    let v: serde_json::Value =
        serde_json::from_str(&ok(|c| commands::gen_scenarios(c, &args(3, None)))).unwrap();
    let seeds: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, [5, 6, 7]);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sub/one.json");
    ok(|c| commands::gen_scenarios(c, &args(1, Some(&file))));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        scenario("demo-d2-s5", 2, 5, false)
    );
    let many = dir.path().join("many");
    let out = ok(|c| commands::gen_scenarios(c, &args(2, Some(&many))));
    assert_eq!(out.lines().count(), 2);
    assert!(many.join("demo-d2-s6.json").is_file());

    let e = err(|c| {
        commands::gen_scenarios(
            c,
            &GenArgs {
                difficulty: Some(0),
                ..args(1, None)
            },
        )
    });
    assert!(e.contains("difficulty must be at least 1"), "{e}");
    let e = err(|c| {
        commands::gen_scenarios(
            c,
            &GenArgs {
                world: "vis".into(),
                ..args(1, None)
            },
        )
    });
    assert!(e.contains("unknown world `vis`; known: demo"), "{e}");
}

#[test]
fn suite_prints_stats_and_fails_on_unsolved_scenarios() {
    let args = |name: &str, json, out: Option<&Path>| SuiteArgs {
        name: name.into(),
        out: out.map(Path::to_path_buf),
        json,
    };
    let v: serde_json::Value =
        serde_json::from_str(&ok(|c| commands::suite(c, &args("demo@1", true, None)))).unwrap();
    assert_eq!(v["suite"], "demo@1");
    assert_eq!(
        v["scenarios"][2]["oracle"],
        serde_json::json!({"solved": true, "steps": 3})
    );
    assert_eq!(v["stats"]["count"], 3);
    let text = ok(|c| commands::suite(c, &args("demo", false, None)));
    assert!(text.contains("3 scenarios, 3 solved"), "{text}");
    assert!(text.contains("suite hash: "), "{text}");

    let (r, out) = call(|c| commands::suite(c, &args("demo-stuck@1", true, None)));
    let e = format!("{:#}", r.unwrap_err());
    assert!(
        e.contains("1 of 2 scenarios of demo-stuck@1 are not solved") && e.contains("st"),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scenarios"][1]["oracle"]["solved"], false);

    let e = err(|c| commands::suite(c, &args("agentescape@2", false, None)));
    assert_eq!(
        e,
        "unknown suite `agentescape@2`; known: demo@1, demo-stuck@1"
    );

    let dir = tempfile::tempdir().unwrap();
    ok(|c| commands::suite(c, &args("demo@1", false, Some(dir.path()))));
    assert!(dir.path().join("suite.json").is_file() && dir.path().join("c.json").is_file());
}

#[test]
fn run_resume_and_report() {
    let runs = tempfile::tempdir().unwrap();
    let args = RunArgs {
        epochs: 2,
        ..run_args("demo@1", "random", runs.path())
    };
    let out = ok(|c| commands::run(c, &args));
    let dir = Path::new(out.lines().next().unwrap()).to_path_buf();
    assert!(
        dir.starts_with(runs.path()) && dir.join("run.toml").is_file(),
        "{out}"
    );
    assert!(
        out.contains("## demo") && out.contains("| all | 6 |"),
        "{out}"
    );

    // resume of a finished run plays nothing and reports the same
    let again = ok(|c| {
        commands::resume(
            c,
            &ResumeArgs {
                dir: dir.clone(),
                concurrency: 2,
            },
        )
    });
    assert_eq!(again, out);
    // running into the run directory with another config is refused
    let other = RunArgs {
        seed: 1,
        out: dir.clone(),
        ..args
    };
    let e = err(|c| commands::run(c, &other));
    assert!(e.contains("differs in: seed"), "{e}");

    let report = |format, json| ReportArgs {
        dirs: vec![dir.clone()],
        format,
        json,
        plots: None,
        per_turn: false,
        per_scenario: format == ReportFormat::Md,
    };
    let v: serde_json::Value = serde_json::from_str(&ok(|c| {
        commands::report(c, &report(ReportFormat::Md, true))
    }))
    .unwrap();
    assert_eq!(v["overall"]["demo"]["n"], 6);
    // --per-scenario (set with Md here): one group per scenario in the JSON and a table
    assert_eq!(v["scenarios"].as_array().map(Vec::len), Some(3), "{v}");
    let csv = ok(|c| commands::report(c, &report(ReportFormat::Csv, false)));
    assert!(
        csv.starts_with("world,difficulty,n,metric,mean,se,run\n"),
        "{csv}"
    );
    let md = ok(|c| commands::report(c, &report(ReportFormat::Md, false)));
    assert!(md.contains("| 1 | 4 |"), "{md}");
    assert!(md.contains("### demo, per scenario"), "{md}");
    assert!(md.contains("| a | 2 |"), "{md}");
    let e = err(|c| {
        commands::report(
            c,
            &ReportArgs {
                dirs: vec![runs.path().join("missing")],
                ..report(ReportFormat::Md, false)
            },
        )
    });
    assert!(
        e.contains("missing") && e.contains("no such run directory"),
        "{e}"
    );
}

#[test]
fn runs_from_files_and_directories_resume_from_their_path() {
    let tmp = tempfile::tempdir().unwrap();
    let suite_dir = tmp.path().join("suite");
    ok(|c| {
        commands::suite(
            c,
            &SuiteArgs {
                name: "demo@1".into(),
                out: Some(suite_dir.clone()),
                json: false,
            },
        )
    });
    let runs = tmp.path().join("runs");
    let out = ok(|c| {
        commands::run(
            c,
            &RunArgs {
                limit: Some(2),
                ..run_args(suite_dir.to_str().unwrap(), "oracle", &runs)
            },
        )
    });
    let dir = Path::new(out.lines().next().unwrap()).to_path_buf();
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .contains("-demo@1-oracle-"),
        "{out}"
    );
    assert!(out.contains("| all | 2 | 100.0 ± 0.0 |"), "{out}");
    // kill the last row and resume from the recorded source
    let episodes = dir.join("episodes.jsonl");
    let text = std::fs::read_to_string(&episodes).unwrap();
    std::fs::write(&episodes, text.lines().next().unwrap().to_string() + "\n").unwrap();
    let again = ok(|c| {
        commands::resume(
            c,
            &ResumeArgs {
                dir: dir.clone(),
                concurrency: 1,
            },
        )
    });
    assert!(again.contains("| all | 2 | 100.0 ± 0.0 |"), "{again}");
    assert_eq!(
        std::fs::read_to_string(&episodes).unwrap().lines().count(),
        2
    );

    let file = tmp.path().join("one.json");
    std::fs::write(&file, scenario("one", 2, 0, false)).unwrap();
    let out = ok(|c| commands::run(c, &run_args(file.to_str().unwrap(), "oracle", &runs)));
    assert!(
        out.lines().next().unwrap().contains("-file_one-oracle-"),
        "{out}"
    );

    let e = err(|c| commands::run(c, &run_args("demo@1", "genius", &runs)));
    assert_eq!(
        e,
        "unknown agent `genius`; known: oracle, random, llm, base, visescaper"
    );
    let e = err(|c| commands::run(c, &run_args("nowhere@3", "oracle", &runs)));
    assert!(
        e.contains("unknown suite, scenario file or directory `nowhere@3`; known: demo@1"),
        "{e}"
    );
    let e = err(|c| {
        commands::resume(
            c,
            &ResumeArgs {
                dir: tmp.path().to_path_buf(),
                concurrency: 1,
            },
        )
    });
    assert!(
        e.contains("is not a run directory (run.toml is missing)"),
        "{e}"
    );
}

#[test]
fn play_reads_actions_and_records() {
    let args = |scenario: Option<&str>, record: Option<&Path>| PlayArgs {
        source: "demo@1".into(),
        scenario: scenario.map(String::from),
        seed: 0,
        record: record.map(Path::to_path_buf),
        images: std::env::temp_dir().join("escapade-play-unit-test"),
        world_options: Vec::new(),
        role: None,
        expert: None,
        expert_model: None,
        expert_options: Vec::new(),
    };
    let worlds: Vec<Box<dyn World>> = vec![Box::new(Demo)];
    let mut printed = Vec::new();
    let mut ctx = Ctx {
        worlds: &worlds,
        out: &mut printed,
        quiet: true,
    };
    let dir = tempfile::tempdir().unwrap();
    let mut input: &[u8] = b"dec\ninc\ninc\ninc\n";
    commands::play(&mut ctx, &args(Some("c"), Some(dir.path())), &mut input).unwrap();
    let text = String::from_utf8(printed).unwrap();
    assert!(text.starts_with("Type inc to count up."), "{text}");
    assert!(
        text.contains("episode over: escaped after 4 steps"),
        "{text}"
    );
    assert!(text.contains("recorded in "), "{text}");

    let mut printed = Vec::new();
    let mut ctx = Ctx {
        worlds: &worlds,
        out: &mut printed,
        quiet: true,
    };
    let mut input: &[u8] = b"";
    let e = commands::play(&mut ctx, &args(Some("zz"), None), &mut input).unwrap_err();
    assert_eq!(e.to_string(), "unknown scenario `zz`; known: a, b, c");
}

#[test]
fn schema_is_json() {
    let v: serde_json::Value = serde_json::from_str(&ok(commands::schema)).unwrap();
    assert!(v["episode_row"]["properties"]["success"].is_object());
    assert!(v["step_row"]["properties"]["observation"].is_object());
}
