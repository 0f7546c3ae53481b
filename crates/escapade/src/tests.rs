//! Every subcommand against the testkit's counter world, with output captured.

use std::path::Path;

use anyhow::Result;
use escapade_core::World;

use crate::cli::{
    GenArgs, ListArgs, PlayArgs, ReportArgs, ReportFormat, ResumeArgs, RunArgs, SpendingArgs,
    SuiteArgs,
};
use crate::commands::{self, Ctx};
use escapade_testkit::counter::{CounterWorld, scenario};

/// Runs a command against the counter world; returns its result and what it printed.
fn call(f: impl FnOnce(&mut Ctx<'_>) -> Result<()>) -> (Result<()>, String) {
    let worlds: Vec<Box<dyn World>> = vec![Box::new(CounterWorld)];
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

/// The run directory `run` or `resume` printed on its last line.
fn run_dir(out: &str) -> std::path::PathBuf {
    let last = out.lines().last().unwrap_or_default();
    let dir = last.strip_prefix(commands::RUN_DIRECTORY);
    std::path::PathBuf::from(dir.unwrap_or_else(|| panic!("no run directory last in:\n{out}")))
}

fn run_args(source: &str, agent: &str, out: &Path) -> RunArgs {
    RunArgs {
        source: source.into(),
        from: None,
        episode: None,
        step: None,
        fresh: false,
        agent: agent.into(),
        epochs: None,
        limit: None,
        sample: None,
        concurrency: Some(1),
        seed: 0,
        max_steps: escapade_run::runner::DEFAULT_MAX_STEPS,
        out: out.to_path_buf(),
        model: None,
        agent_options: Vec::new(),
        expert: None,
        expert_model: None,
        expert_options: Vec::new(),
        world_options: Vec::new(),
        base_url: None,
        shard: None,
        wide: false,
        spending: SpendingArgs {
            cache: escapade_llm::CacheMode::Off,
            max_cost: None,
        },
        dry_run: false,
        reply_tokens: 100,
        json: false,
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
    assert_eq!(v["worlds"][0]["name"], "counter");
    assert_eq!(
        v["worlds"][0]["agents"],
        serde_json::json!(["oracle", "random", "broken", "down", "panicky", "stammer"])
    );
    assert_eq!(
        v["model_agents"],
        serde_json::json!(["llm", "base", "visescaper"])
    );
    assert_eq!(v["suites"][0]["name"], "counter@1");
    assert_eq!(
        v["suites"][0]["tiers"][0],
        serde_json::json!({"difficulty": 1, "count": 2})
    );
    assert!(v.get("catalogue").is_none());
    let one = ListArgs {
        world: Some("counter".into()),
        json: true,
    };
    let v: serde_json::Value = serde_json::from_str(&ok(|c| commands::list(c, &one))).unwrap();
    assert_eq!(v["catalogue"], "actions: inc, dec\n");
    let text = ok(|c| {
        commands::list(
            c,
            &ListArgs {
                world: Some("counter".into()),
                json: false,
            },
        )
    });
    assert!(
        text.contains("counter@1") && text.contains("actions: inc, dec"),
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
    // `list` takes a suite's name too
    assert_eq!(
        e,
        "unknown world or suite `nope`; known: counter, counter@1, counter-broken@1, counter-paper@1"
    );
}

#[test]
fn gen_prints_or_writes_scenarios() {
    let args = |count, out: Option<&Path>| GenArgs {
        world: "counter".into(),
        difficulty: Some(2),
        options: Vec::new(),
        puzzle: None,
        variant: None,
        seed: 5,
        count,
        out: out.map(Path::to_path_buf),
    };
    let v: serde_json::Value =
        serde_json::from_str(&ok(|c| commands::gen_scenarios(c, &args(1, None)))).unwrap();
    assert_eq!(v["id"], "c-d2-s5");
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
    assert_eq!(std::fs::read_to_string(&file).unwrap(), {
        let mut s = scenario("c-d2-s5", 2);
        s.seed = 5;
        s.json()
    });
    let many = dir.path().join("many");
    let out = ok(|c| commands::gen_scenarios(c, &args(2, Some(&many))));
    assert_eq!(out.lines().count(), 2);
    assert!(many.join("c-d2-s6.json").is_file());

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
    // no --difficulty: the world's own default (the counter declares none, so 1)
    let plain = GenArgs {
        difficulty: None,
        ..args(1, None)
    };
    let v: serde_json::Value =
        serde_json::from_str(&ok(|c| commands::gen_scenarios(c, &plain))).unwrap();
    assert_eq!(v["id"], "c-d1-s5");
    // an option the world's generator does not take is refused by name
    let e = err(|c| {
        commands::gen_scenarios(
            c,
            &GenArgs {
                options: vec!["colour=red".into()],
                ..args(1, None)
            },
        )
    });
    assert!(
        e.contains("world `counter` takes no generation option `colour` (it takes none)"),
        "{e}"
    );
    let e = err(|c| {
        commands::gen_scenarios(
            c,
            &GenArgs {
                world: "vis".into(),
                ..args(1, None)
            },
        )
    });
    assert!(e.contains("unknown world `vis`; known: counter"), "{e}");
}

#[test]
fn suite_prints_stats_and_fails_on_unsolved_scenarios() {
    let args = |name: &str, json, out: Option<&Path>| SuiteArgs {
        name: name.into(),
        out: out.map(Path::to_path_buf),
        json,
    };
    let v: serde_json::Value =
        serde_json::from_str(&ok(|c| commands::suite(c, &args("counter@1", true, None)))).unwrap();
    assert_eq!(v["suite"], "counter@1");
    assert_eq!(
        v["scenarios"][2]["oracle"],
        serde_json::json!({"solved": true, "steps": 3})
    );
    assert_eq!(v["stats"]["count"], 5);
    let text = ok(|c| commands::suite(c, &args("counter", false, None)));
    assert!(text.contains("5 scenarios, 5 solved"), "{text}");
    assert!(text.contains("suite hash: "), "{text}");

    let (r, out) = call(|c| commands::suite(c, &args("counter-broken@1", true, None)));
    let e = format!("{:#}", r.unwrap_err());
    assert!(
        e.contains("1 of 2 scenarios of counter-broken@1 are not solved") && e.ends_with(": bad"),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scenarios"][1]["oracle"]["solved"], false);

    let e = err(|c| commands::suite(c, &args("agentescape@2", false, None)));
    assert_eq!(
        e,
        "unknown suite `agentescape@2`; known: counter@1, counter-broken@1, counter-paper@1"
    );

    let dir = tempfile::tempdir().unwrap();
    ok(|c| commands::suite(c, &args("counter@1", false, Some(dir.path()))));
    assert!(dir.path().join("suite.json").is_file() && dir.path().join("c4.json").is_file());
}

/// A baseline run's default concurrency (every core) records what one episode at a time
/// records: the same config hash and the same rows, in another order.
#[test]
fn a_baseline_run_on_every_core_records_what_one_at_a_time_does() {
    let rows = |concurrency| {
        let runs = tempfile::tempdir().unwrap();
        let args = RunArgs {
            epochs: Some(3),
            concurrency,
            ..run_args("counter@1", "random", runs.path())
        };
        let dir = run_dir(&ok(|c| commands::run(c, &args)));
        let text = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
        let mut rows: Vec<serde_json::Value> = text
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("duration_ms");
                v
            })
            .collect();
        rows.sort_by_key(|r| (r["scenario"].to_string(), r["epoch"].as_u64()));
        rows
    };
    let (default, one) = (rows(None), rows(Some(1)));
    assert_eq!(default.len(), 15, "5 scenarios × 3 epochs");
    assert_eq!(default, one);
}

#[test]
fn run_resume_and_report() {
    let runs = tempfile::tempdir().unwrap();
    let args = RunArgs {
        epochs: Some(2),
        ..run_args("counter@1", "random", runs.path())
    };
    let out = ok(|c| commands::run(c, &args));
    let dir = run_dir(&out);
    assert!(
        dir.starts_with(runs.path()) && dir.join("run.toml").is_file(),
        "{out}"
    );
    assert!(
        out.contains("## counter") && out.contains("| all | 10 |"),
        "{out}"
    );

    // resume of a finished run plays nothing and reports the same
    let again = ok(|c| {
        commands::resume(
            c,
            &ResumeArgs {
                dir: dir.clone(),
                concurrency: Some(2),
                agent_options: Vec::new(),
                expert_options: Vec::new(),
                wide: false,
                spending: SpendingArgs {
                    cache: escapade_llm::CacheMode::Off,
                    max_cost: None,
                },
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
        wide: false,
    };
    let v: serde_json::Value = serde_json::from_str(&ok(|c| {
        commands::report(c, &report(ReportFormat::Md, true))
    }))
    .unwrap();
    assert_eq!(v["overall"]["counter"]["n"], 10);
    // --per-scenario (set with Md here): one group per scenario in the JSON and a table
    assert_eq!(v["scenarios"].as_array().map(Vec::len), Some(5), "{v}");
    let csv = ok(|c| commands::report(c, &report(ReportFormat::Csv, false)));
    assert!(
        csv.starts_with(
            "world,difficulty,n,metric,mean,se,run,lo,hi,paper_model,paper_value,paper_verdict\n"
        ),
        "{csv}"
    );
    let md = ok(|c| commands::report(c, &report(ReportFormat::Md, false)));
    assert!(md.contains("| 1 | 4 |"), "{md}");
    assert!(md.contains("### counter, per scenario"), "{md}");
    assert!(md.contains("| c0 | 2 |"), "{md}");
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
                name: "counter@1".into(),
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
    let dir = run_dir(&out);
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .contains("-counter@1-oracle-"),
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
                concurrency: Some(1),
                agent_options: Vec::new(),
                expert_options: Vec::new(),
                wide: false,
                spending: SpendingArgs {
                    cache: escapade_llm::CacheMode::Off,
                    max_cost: None,
                },
            },
        )
    });
    assert!(again.contains("| all | 2 | 100.0 ± 0.0 |"), "{again}");
    assert_eq!(
        std::fs::read_to_string(&episodes).unwrap().lines().count(),
        2
    );

    let file = tmp.path().join("one.json");
    std::fs::write(&file, scenario("one", 2).json()).unwrap();
    let out = ok(|c| commands::run(c, &run_args(file.to_str().unwrap(), "oracle", &runs)));
    assert!(
        run_dir(&out)
            .to_string_lossy()
            .contains("-file_one-oracle-"),
        "{out}"
    );

    let e = err(|c| commands::run(c, &run_args("counter@1", "genius", &runs)));
    assert_eq!(
        e,
        "unknown agent `genius`; known: oracle, random, broken, down, panicky, stammer, llm, base, \
         visescaper"
    );
    let e = err(|c| commands::run(c, &run_args("nowhere@3", "oracle", &runs)));
    assert!(
        e.contains("unknown suite, scenario file or directory `nowhere@3`; known: counter@1"),
        "{e}"
    );
    let e = err(|c| {
        commands::resume(
            c,
            &ResumeArgs {
                dir: tmp.path().to_path_buf(),
                concurrency: Some(1),
                agent_options: Vec::new(),
                expert_options: Vec::new(),
                wide: false,
                spending: SpendingArgs {
                    cache: escapade_llm::CacheMode::Off,
                    max_cost: None,
                },
            },
        )
    });
    // a folder of finished runs: none to resume
    assert!(
        e.contains("no interrupted run under") && e.contains("its 2 run(s) are finished"),
        "{e}"
    );
}

#[test]
fn play_reads_actions_and_records() {
    let args = |scenario: Option<&str>, record: Option<&Path>| PlayArgs {
        source: "counter@1".into(),
        scenario: scenario.map(String::from),
        seed: 0,
        record: record.map(Path::to_path_buf),
        images: std::env::temp_dir().join("escapade-play-unit-test"),
        world_options: Vec::new(),
        role: None,
        expert: None,
        expert_model: None,
        expert_options: Vec::new(),
        participant: None,
        web: false,
        host: None,
        port: 0,
        access: crate::cli::TokenArgs {
            token: None,
            no_token: false,
        },
    };
    let worlds: Vec<Box<dyn World>> = vec![Box::new(CounterWorld)];
    let mut printed = Vec::new();
    let mut ctx = Ctx {
        worlds: &worlds,
        out: &mut printed,
        quiet: true,
    };
    let dir = tempfile::tempdir().unwrap();
    let mut input: &[u8] = b"dec\ninc\ninc\ninc\n";
    commands::play(&mut ctx, &args(Some("c2"), Some(dir.path())), &mut input).unwrap();
    let text = String::from_utf8(printed).unwrap();
    assert!(text.starts_with("Send inc or dec."), "{text}");
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
    assert_eq!(
        e.to_string(),
        "unknown scenario `zz`; known: c0, c1, c2, c3, c4"
    );
}

#[test]
fn schema_is_json() {
    let v: serde_json::Value = serde_json::from_str(&ok(commands::schema)).unwrap();
    assert!(v["episode_row"]["properties"]["success"].is_object());
    assert!(v["step_row"]["properties"]["observation"].is_object());
}

#[test]
fn a_suites_paper_settings_are_the_defaults_and_departures_are_named() {
    let runs = tempfile::tempdir().unwrap();
    let toml_of = |out: &str| {
        let dir = run_dir(out);
        std::fs::read_to_string(dir.join("run.toml")).unwrap()
    };
    // a baseline takes the suite's epochs; it takes no model options
    let out = ok(|c| commands::run(c, &run_args("counter-paper@1", "random", runs.path())));
    let toml = toml_of(&out);
    assert!(toml.contains("epochs = 2"), "{toml}");
    assert!(
        toml.contains("[config.suite_settings]") && toml.contains("the counter paper §1"),
        "{toml}"
    );
    assert!(!out.contains("Not the paper's settings"), "{out}");
    // a flag wins, and the report says the run departs from the paper
    let one = RunArgs {
        epochs: Some(1),
        ..run_args("counter-paper@1", "random", runs.path())
    };
    let out = ok(|c| commands::run(c, &one));
    assert!(
        out.contains("## Not the paper's settings") && out.contains("epochs 1 (suite: 2)"),
        "{out}"
    );
    // a model agent gets the suite's temperature unless -A sets another
    let script = runs.path().join("inc.jsonl");
    std::fs::write(&script, "{\"text\": \"inc\"}\n").unwrap();
    let model = format!("scripted/{}", script.display());
    let llm = RunArgs {
        model: Some(model.clone()),
        ..run_args("counter-paper@1", "llm", runs.path())
    };
    let out = ok(|c| commands::run(c, &llm));
    assert!(
        toml_of(&out).contains("temperature = \"0.7\""),
        "{}",
        toml_of(&out)
    );
    assert!(!out.contains("Not the paper's settings"), "{out}");
    // run.toml records what every request carried, "not sent" included
    let toml = toml_of(&out);
    assert!(toml.contains("[sent.agent]"), "{toml}");
    assert!(toml.contains("top_p = \"not sent\""), "{toml}");
    assert!(
        toml.contains("reply_format = \"the world's text format\""),
        "{toml}"
    );
    assert!(!toml.contains("departures"), "{toml}");
    let cold = RunArgs {
        agent_options: vec!["temperature=0".into()],
        model: Some(model.clone()),
        ..run_args("counter-paper@1", "llm", runs.path())
    };
    let out = ok(|c| commands::run(c, &cold));
    assert!(out.contains("temperature 0 (suite: 0.7)"), "{out}");
    // issue 25: every departure, not only the suite's settings: structured output,
    // --limit, --max-steps and any -A that changes what the model is sent
    let shaped = RunArgs {
        agent_options: vec!["structured=on".into(), "history=last:2".into()],
        limit: Some(1),
        max_steps: 40,
        ..llm
    };
    let out = ok(|c| commands::run(c, &shaped));
    for phrase in [
        "replies in JSON {\"action\": …} by constrained decoding",
        "-A history=last:2",
        "--limit 1 (the suite's first 1 scenarios)",
        "--max-steps 40",
    ] {
        assert!(out.contains(phrase), "{phrase}: {out}");
    }
    let toml = toml_of(&out);
    assert!(
        toml.contains("departures = [") && toml.contains("--max-steps 40"),
        "{toml}"
    );
    // a suite without settings records none
    let out = ok(|c| commands::run(c, &run_args("counter@1", "random", runs.path())));
    assert!(!toml_of(&out).contains("suite_settings"));
    // list names the settings and their source
    let text = ok(|c| {
        commands::list(
            c,
            &ListArgs {
                world: None,
                json: false,
            },
        )
    });
    assert!(
        text.contains("paper settings (the counter paper §1): epochs 2, -A temperature=0.7"),
        "{text}"
    );
}

#[test]
fn a_retired_suite_names_its_replacement() {
    let runs = tempfile::tempdir().unwrap();
    let e = err(|c| commands::run(c, &run_args("counter@0", "random", runs.path())));
    assert_eq!(
        e,
        "suite `counter@0` was replaced by `counter@1` (counting starts at one now); run `counter@1`"
    );
    let e = err(|c| {
        commands::suite(
            c,
            &SuiteArgs {
                name: "counter@0".into(),
                json: false,
                out: None,
            },
        )
    });
    assert!(e.contains("was replaced by `counter@1`"), "{e}");
}

#[test]
fn a_scenario_id_that_cannot_name_a_file_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let file = dir.path().join("long.json");
    std::fs::write(&file, scenario(&"x".repeat(300), 1).json()).unwrap();
    let e = err(|c| commands::run(c, &run_args(file.to_str().unwrap(), "oracle", &runs)));
    assert!(
        e.contains("300 bytes long (at most 128)") && e.len() < 200,
        "{e}"
    );
    assert!(!runs.exists(), "no run directory for a refused scenario");
    let check = |file: &Path| crate::cli::CheckArgs {
        file: file.to_path_buf(),
        world: None,
        out: None,
    };
    let (result, out) = call(|c| commands::check(c, &check(&file)));
    assert!(
        result.is_err() && out.contains("problem: invalid scenario: the scenario id"),
        "{out}"
    );
    // a file that does not parse says why, not that it names no world
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"world\": \"counter\", \"id\": }").unwrap();
    let e = err(|c| commands::check(c, &check(&broken)));
    assert!(
        e.contains("not valid JSON") && e.contains("line 1 column"),
        "{e}"
    );
    let toml = dir.path().join("broken.toml");
    std::fs::write(&toml, "world = \n").unwrap();
    let e = err(|c| commands::check(c, &check(&toml)));
    assert!(e.contains("neither JSON nor TOML"), "{e}");
}

#[test]
fn tuning_is_not_identity_and_resume_may_change_it() {
    let runs = tempfile::tempdir().unwrap();
    let script = runs.path().join("inc.jsonl");
    std::fs::write(&script, "{\"text\": \"inc\"}\n").unwrap();
    let llm = |options: &[&str], out: &Path| RunArgs {
        model: Some(format!("scripted/{}", script.display())),
        agent_options: options.iter().map(|s| s.to_string()).collect(),
        ..run_args("counter@1", "llm", out)
    };
    let out = ok(|c| commands::run(c, &llm(&["timeout=30"], runs.path())));
    let dir = run_dir(&out);
    // the same run with gentler limits is the same run
    ok(|c| commands::run(c, &llm(&["timeout=90", "retries=9"], &dir)));
    let resume = |options: &[&str]| ResumeArgs {
        dir: dir.clone(),
        concurrency: Some(1),
        agent_options: options.iter().map(|s| s.to_string()).collect(),
        expert_options: Vec::new(),
        wide: false,
        spending: SpendingArgs {
            cache: escapade_llm::CacheMode::Off,
            max_cost: None,
        },
    };
    ok(|c| commands::resume(c, &resume(&["rpm=10", "backend_concurrency=2"])));
    // run.toml records the latest session's tuning, in its config and in what was sent
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    let toml: toml::Value = toml::from_str(&toml).unwrap();
    assert_eq!(
        toml["config"]["agent_options"]["rpm"].as_str(),
        Some("10"),
        "{toml}"
    );
    let client = toml["sent"]["agent"]["client"].as_str().unwrap();
    assert!(
        client.contains("at most 2 requests at once, 10 requests a minute"),
        "{client}"
    );
    let e = err(|c| commands::resume(c, &resume(&["temperature=1"])));
    assert!(
        e.contains("-A temperature=… cannot change on resume"),
        "{e}"
    );
    // what a run measures is still its identity
    let e = err(|c| commands::run(c, &llm(&["temperature=1"], &dir)));
    assert!(e.contains("differs in: agent_options"), "{e}");
}

#[test]
fn a_scripted_model_is_recorded_by_absolute_path_and_content() {
    let runs = tempfile::tempdir().unwrap();
    let script = runs.path().join("inc.jsonl");
    std::fs::write(&script, "{\"text\": \"inc\"}\n").unwrap();
    // given relative to the working directory
    let cwd = std::env::current_dir().unwrap();
    let relative = pathdiff(&script, &cwd);
    let args = RunArgs {
        model: Some(format!("scripted/{relative}")),
        ..run_args("counter@1", "llm", runs.path())
    };
    let out = ok(|c| commands::run(c, &args));
    let dir = run_dir(&out);
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    let abs = std::fs::canonicalize(&script).unwrap();
    assert!(
        toml.contains(&format!("model = \"scripted/{}\"", abs.display())),
        "{toml}"
    );
    assert!(toml.contains("[config.files]"), "{toml}");
    // a changed script is another run: resume refuses it
    std::fs::write(&script, "{\"text\": \"dec\"}\n").unwrap();
    let resume = ResumeArgs {
        dir: dir.clone(),
        concurrency: Some(1),
        agent_options: Vec::new(),
        expert_options: Vec::new(),
        wide: false,
        spending: SpendingArgs {
            cache: escapade_llm::CacheMode::Off,
            max_cost: None,
        },
    };
    let e = err(|c| commands::resume(c, &resume));
    assert!(e.contains("differs in: files"), "{e}");
}

#[test]
fn a_price_file_is_recorded_by_absolute_path_and_content() {
    let runs = tempfile::tempdir().unwrap();
    let script = runs.path().join("inc.jsonl");
    std::fs::write(&script, "{\"text\": \"inc\"}\n").unwrap();
    let prices = runs.path().join("prices.json");
    let table = |p: u32| {
        format!(
            "{{\"scripted\": {{\"input_per_mtok\": {p}, \"output_per_mtok\": {p}, \"cached_per_mtok\": 0}}}}"
        )
    };
    std::fs::write(&prices, table(1)).unwrap();
    let cwd = std::env::current_dir().unwrap();
    let args = RunArgs {
        model: Some(format!("scripted/{}", script.display())),
        agent_options: vec![format!("prices={}", pathdiff(&prices, &cwd))],
        ..run_args("counter@1", "llm", runs.path())
    };
    let out = ok(|c| commands::run(c, &args));
    let dir = run_dir(&out);
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    let abs = std::fs::canonicalize(&prices).unwrap();
    assert!(
        toml.contains(&format!("prices = \"{}\"", abs.display())),
        "{toml}"
    );
    // other prices are another run: resume refuses it
    std::fs::write(&prices, table(2)).unwrap();
    let resume = ResumeArgs {
        dir: dir.clone(),
        concurrency: Some(1),
        agent_options: Vec::new(),
        expert_options: Vec::new(),
        wide: false,
        spending: SpendingArgs {
            cache: escapade_llm::CacheMode::Off,
            max_cost: None,
        },
    };
    let e = err(|c| commands::resume(c, &resume));
    assert!(e.contains("differs in: files"), "{e}");
}

/// `path` relative to `base` (both absolute), with `..` steps.
fn pathdiff(path: &Path, base: &Path) -> String {
    let (p, b): (Vec<_>, Vec<_>) = (path.components().collect(), base.components().collect());
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out: Vec<String> = vec!["..".to_string(); b.len() - common];
    out.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    out.join("/")
}

#[test]
fn a_bad_world_option_fails_before_a_run_directory_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let args = RunArgs {
        world_options: vec!["size=huge".into()],
        ..run_args("counter@1", "oracle", &runs)
    };
    let e = err(|c| commands::run(c, &args));
    assert!(e.contains("unknown world option `size`"), "{e}");
    assert!(!runs.exists(), "a refused run leaves no run directory");
}

#[test]
fn view_refuses_a_missing_folder_by_name() {
    let args = crate::cli::ViewArgs {
        dirs: vec!["/no/such/runs/folder".into()],
        host: None,
        port: 0,
        access: crate::cli::TokenArgs {
            token: None,
            no_token: false,
        },
    };
    let e = err(|ctx| commands::view(ctx, &args));
    assert!(e.contains("/no/such/runs/folder"), "{e}");
}

/// The cost of a run directory's episodes, every row counted.
fn cost_of(dir: &Path) -> f64 {
    std::fs::read_to_string(dir.join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| r["usage"]["cost_usd"].as_f64().unwrap_or(0.0))
        .sum()
}

#[test]
fn a_run_stops_at_its_cost_cap_and_resume_with_a_higher_cap_finishes_it() {
    let runs = tempfile::tempdir().unwrap();
    let script = runs.path().join("inc.jsonl");
    std::fs::write(&script, "{\"text\": \"inc\"}\n").unwrap();
    let prices = runs.path().join("prices.json");
    // dear enough that every request shows: $1,000 per million tokens each way
    std::fs::write(
        &prices,
        r#"{"scripted/": {"input_per_mtok": 1000, "output_per_mtok": 1000, "cached_per_mtok": 0}}"#,
    )
    .unwrap();
    let args = |out: &Path, max_cost: Option<f64>| RunArgs {
        model: Some(format!("scripted/{}", script.display())),
        agent_options: vec![
            format!("prices={}", prices.display()),
            "max_tokens=20".into(),
        ],
        concurrency: Some(1),
        spending: SpendingArgs {
            cache: escapade_llm::CacheMode::Off,
            max_cost,
        },
        ..run_args("counter@1", "llm", out)
    };
    // what the whole run costs without a cap
    let whole = runs.path().join("whole");
    let out = ok(|c| commands::run(c, &args(&whole, None)));
    let full = cost_of(&run_dir(&out));
    assert!(
        full > 0.0,
        "{}",
        std::fs::read_to_string(run_dir(&out).join("episodes.jsonl")).unwrap()
    );
    // half of it: the run stops, says so, and has not spent more than the cap
    let capped = runs.path().join("capped");
    let cap = full / 2.0;
    let e = err(|c| commands::run(c, &args(&capped, Some(cap))));
    assert!(e.contains("the cost cap of") && e.contains("resume"), "{e}");
    let dir = std::fs::read_dir(&capped)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("run.toml").exists())
        .unwrap();
    let spent = cost_of(&dir);
    assert!(
        spent > 0.0 && spent <= cap,
        "spent {spent} of a cap of {cap}"
    );
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    assert!(
        toml.contains("[spending]") && toml.contains("cap_reached = true"),
        "{toml}"
    );
    // the episode the cap stopped is no error: it waits at its last completed step
    let capped_rows = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    assert!(!capped_rows.contains("\"error\":\""), "{capped_rows}");
    let waiting = escapade_run::rundir::checkpoints(&dir);
    assert_eq!(waiting.len(), 1, "{e}");
    assert!(waiting[0].steps > 0, "{:?}", waiting[0]);
    // what the checkpointed steps cost counts against the next session's cap
    let checkpointed = waiting[0].usage.cost_usd;
    assert!(checkpointed > 0.0, "{:?}", waiting[0]);
    let counted = commands::spent_by(&dir).unwrap();
    assert!(
        (counted - (spent + checkpointed)).abs() < 1e-9,
        "{counted} {spent}"
    );
    // a higher cap continues and finishes every episode
    let resume = ResumeArgs {
        dir: dir.clone(),
        concurrency: Some(1),
        agent_options: Vec::new(),
        expert_options: Vec::new(),
        wide: false,
        spending: SpendingArgs {
            cache: escapade_llm::CacheMode::Off,
            max_cost: Some(full * 2.0),
        },
    };
    ok(|c| commands::resume(c, &resume));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let won: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r["success"] == true)
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(won.len(), 5, "{summary}");
    let toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    assert!(!toml.contains("cap_reached"), "{toml}");
    // the cap counted the first session: the whole run cost at most the second cap
    assert!(cost_of(&dir) <= full * 2.0);
    // and the continued episode played on as the uncapped run played it
    let steps = |run: &Path, scenario: &str| -> Vec<(serde_json::Value, serde_json::Value)> {
        let file = run.join("trajectories").join(scenario).join("0.jsonl");
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .map(|r| (r["action"].clone(), r["observation"].clone()))
            .collect()
    };
    let whole_dir = run_dir(&out);
    assert_eq!(
        steps(&dir, &waiting[0].scenario),
        steps(&whole_dir, &waiting[0].scenario)
    );
}
