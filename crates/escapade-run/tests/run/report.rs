use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use escapade_core::{EpisodeRow, Usage};
use escapade_run::rundir::{RunConfig, ScenarioRef, Shard};
use escapade_run::{Format, RunDir, RunError, report};

fn row(world: &str, d: u32, scenario: &str, success: bool, steps: u32) -> EpisodeRow {
    EpisodeRow {
        format_version: 1,
        suite: "s@1".into(),
        scenario: scenario.into(),
        scenario_hash: "h".into(),
        world: world.into(),
        difficulty: d,
        epoch: 0,
        seed: 1,
        agent: "random".into(),
        config_hash: "cfg".into(),
        success,
        steps,
        metrics: BTreeMap::new(),
        usage: Usage::default(),
        duration_ms: 5,
        error: None,
        retryable: false,
        rejected: Vec::new(),
        start_steps_to_go: None,
        step_cap: false,
        origin: None,
    }
}

fn with(mut r: EpisodeRow, metrics: &[(&str, f64)], input: u64, cost: f64) -> EpisodeRow {
    r.metrics = metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    r.usage.input = input;
    r.usage.output = input / 10;
    r.usage.cost_usd = cost;
    r
}

/// counter/1: two episodes; counter/2: one plus one errored; other/5: one; and a duplicate.
fn hand_made() -> Vec<EpisodeRow> {
    let mut errored = row("counter", 2, "b2", false, 0);
    errored.error = Some("agent failed: timeout".into());
    vec![
        with(
            row("counter", 1, "a1", true, 2),
            &[("progress_rate", 1.0)],
            10,
            0.5,
        ),
        with(
            row("counter", 1, "a2", false, 4),
            &[("progress_rate", 0.5)],
            20,
            0.25,
        ),
        with(
            row("counter", 2, "b1", true, 3),
            &[("progress_rate", 1.0), ("even_bonus", 1.0)],
            30,
            0.0,
        ),
        errored,
        with(
            row("counter", 1, "a1", true, 2),
            &[("progress_rate", 1.0)],
            10,
            0.5,
        ),
        row("other", 5, "z", true, 7),
    ]
}

fn write(dir: &Path, rows: &[EpisodeRow]) -> PathBuf {
    let text: String = rows
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    std::fs::write(dir.join("episodes.jsonl"), text).unwrap();
    dir.to_path_buf()
}

#[test]
fn groups_and_mean_se_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())], &[]).unwrap();
    let keys: Vec<(String, u32, usize)> = r
        .groups
        .iter()
        .map(|g| (g.world.clone(), g.difficulty, g.n))
        .collect();
    assert_eq!(
        keys,
        [
            ("counter".to_string(), 1, 2), // the duplicate a1 row counts once
            ("counter".to_string(), 2, 2),
            ("other".to_string(), 5, 1)
        ]
    );
    let g = &r.groups[0].metrics;
    let names: Vec<&str> = g.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "success",
            "steps",
            "progress_rate",
            "input_tokens",
            "output_tokens",
            "cached_tokens",
            "cost_usd",
            "latency_ms",
            "step_latency_ms",
            "duration_ms"
        ]
    );
    // success [1, 0]: mean 0.5, sd √0.5, se √0.5/√2 = 0.5
    assert_eq!((g["success"].mean, g["success"].se), (0.5, 0.5));
    assert_eq!((g["steps"].mean, g["steps"].se), (3.0, 1.0));
    assert_eq!(
        (g["progress_rate"].mean, g["progress_rate"].se),
        (0.75, 0.25)
    );
    assert_eq!((g["input_tokens"].mean, g["input_tokens"].se), (15.0, 5.0));
    assert_eq!((g["output_tokens"].mean, g["output_tokens"].se), (1.5, 0.5));
    assert_eq!((g["cost_usd"].mean, g["cost_usd"].se), (0.375, 0.125));
    assert_eq!((g["duration_ms"].mean, g["duration_ms"].se), (5.0, 0.0));
    // a metric only some episodes define is averaged over those
    let g2 = &r.groups[1].metrics;
    assert_eq!((g2["even_bonus"].mean, g2["even_bonus"].se), (1.0, 0.0));
    assert_eq!(g2["progress_rate"].mean, 1.0);
    assert_eq!(g2["success"].mean, 0.5);

    let counter = &r.overall["counter"];
    assert_eq!((counter.n, counter.errors), (4, 1));
    assert_eq!(counter.metrics["success"].mean, 0.5);
    assert_eq!((r.episodes(), r.errors()), (5, 1));
}

/// Regret (issue 29): steps taken minus the oracle's from the start, over the won
/// episodes of a world that knows its distance; no column where none can say.
#[test]
fn regret_is_steps_minus_the_oracles_over_won_episodes() {
    let known = |r: EpisodeRow, d: u32| EpisodeRow {
        start_steps_to_go: Some(d),
        ..r
    };
    let rows = vec![
        known(row("counter", 1, "a1", true, 5), 2),
        known(row("counter", 1, "a2", true, 4), 3),
        known(row("counter", 1, "a3", false, 9), 2),
    ];
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &rows)], &[]).unwrap();
    let regret = r.groups[0].metrics["regret"];
    assert_eq!(
        (regret.mean, regret.n),
        (2.0, 2),
        "(3 + 1) / 2, the lost one left out"
    );
    let names: Vec<&str> = r.groups[0].metrics.keys().map(String::as_str).collect();
    assert_eq!(&names[..3], ["success", "steps", "regret"]);
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())], &[]).unwrap();
    assert!(!r.groups[0].metrics.contains_key("regret"));
}

#[test]
fn json_has_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())], &[]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&r.render(Format::Json)).unwrap();
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    // two worlds: a capability profile too
    assert_eq!(top, ["groups", "overall", "runs", "profile"]);
    let g = &v["groups"][0];
    let keys: Vec<&String> = g.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["world", "difficulty", "label", "run", "n", "metrics"]
    );
    assert_eq!(g["world"], "counter");
    assert_eq!(g["run"], "random");
    assert_eq!(g["difficulty"], 1);
    assert_eq!(g["n"], 2);
    let stat: Vec<&String> = g["metrics"]["success"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    // with the 95 % interval bootstrapped over the group's two scenarios
    assert_eq!(stat, ["mean", "se", "n", "lo", "hi"]);
    assert_eq!(g["metrics"]["steps"]["mean"], 3.0);
    assert_eq!(v["overall"]["counter"]["errors"], 1);
    assert_eq!(v["overall"]["other"]["n"], 1);
    assert_eq!(v["overall"]["other"]["run"], "random");
    let run = &v["runs"][0];
    let keys: Vec<&String> = run.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "label",
            "agent",
            "base_hash",
            "dirs",
            "episodes",
            "errors",
            "steps",
            "usage",
            "duration_ms"
        ]
    );
    assert_eq!(run["label"], "random");
    assert_eq!(run["base_hash"], "cfg");
    assert_eq!(run["episodes"], 5);
    assert_eq!(run["usage"]["input"], 60);
    assert_eq!(run["usage"]["cost_usd"], 0.75);
}

#[test]
fn csv_has_a_row_per_group_and_metric() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())], &[]).unwrap();
    let csv = r.render(Format::Csv);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "world,difficulty,n,metric,mean,se,run,lo,hi,paper_model,paper_value,paper_verdict"
    );
    assert_eq!(lines[1], "counter,1,2,success,0.5,0.5,random,0,1,,,");
    let expected: usize = r.groups.iter().map(|g| g.metrics.len()).sum::<usize>()
        + r.overall.values().map(|w| w.metrics.len()).sum::<usize>();
    assert_eq!(lines.len(), 1 + expected);
    assert!(
        lines.contains(&"counter,all,4,success,0.5,0.28867513459481287,random,0,1,,,"),
        "{csv}"
    );
}

#[test]
fn markdown_has_a_table_per_world_with_percent_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())], &[]).unwrap();
    let md = r.render(Format::Markdown);
    assert!(md.contains("## counter\n"), "{md}");
    assert!(md.contains("## other\n"), "{md}");
    assert!(
        md.contains(
            "| difficulty | n | success (%) | steps | even_bonus | progress_rate (%) | \
             input_tokens | output_tokens | cost_usd |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| 1 | 2 | 50.0 ± 50.0 | 3.00 ± 1.00 | – | 75.0 ± 25.0 | 15 ± 5 |"),
        "{md}"
    );
    assert!(md.contains("Episodes with errors: 1 of 4."), "{md}");
    // one run: no run column; usage that is zero throughout is left out
    assert!(md.contains("| difficulty | n | success (%) |"), "{md}");
    assert!(
        !md.contains("cached_tokens") && !md.contains("latency_ms"),
        "{md}"
    );
    assert!(md.contains(" cost_usd | duration_ms |"), "{md}");
    // the usage table gives totals
    assert!(
        md.contains(
            "## Usage\n\n| run | config | inputs | episodes | steps | input tokens | \
             output tokens | cost (USD) | episode time (s) |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| random | cfg | 1 | 5 | 16 | 60 | 6 | 0.7500 | 0.0 |"),
        "{md}"
    );
}

#[test]
fn inputs_of_one_config_merge_and_identical_rows_count_once() {
    let rows = hand_made();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = report(&[write(a.path(), &rows)], &[]).unwrap();
    let split = report(
        &[write(a.path(), &rows[..3]), write(b.path(), &rows[2..])],
        &[],
    )
    .unwrap();
    assert_eq!((&one.groups, &one.overall), (&split.groups, &split.overall));
    assert_eq!(split.runs.len(), 1);
    assert_eq!(split.runs[0].dirs.len(), 2);
    // a1 and b1 are in both inputs: one warning naming both
    assert_eq!(split.warnings.len(), 1, "{:?}", split.warnings);
    let w = &split.warnings[0];
    assert!(
        w.contains("both hold 2 episode(s)") && w.contains("`a1` epoch 0"),
        "{w}"
    );
    // the same directory given twice is read once, without a warning
    let only_a = report(&[a.path().to_path_buf()], &[]).unwrap();
    let twice = report(&[a.path().to_path_buf(), a.path().join(".")], &[]).unwrap();
    assert_eq!(twice.groups, only_a.groups);
    assert!(twice.warnings.is_empty(), "{:?}", twice.warnings);
    // rows of another config are another run, compared side by side
    let mut other = rows[0].clone();
    other.config_hash = "cfg2".into();
    let more = report(&[write(a.path(), &rows), write(b.path(), &[other])], &[]).unwrap();
    let labels: Vec<&str> = more.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["random [cfg]", "random [cfg2]"]);
    let tier1: Vec<(&str, usize)> = more
        .groups
        .iter()
        .filter(|g| g.world == "counter" && g.difficulty == 1)
        .map(|g| (g.run.as_str(), g.n))
        .collect();
    assert_eq!(tier1, [("random [cfg]", 2), ("random [cfg2]", 1)]);
}

#[test]
fn a_torn_last_line_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &hand_made());
    let path = dir.path().join("episodes.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"format_version\":1,\"sui");
    std::fs::write(&path, text).unwrap();
    let r = report(&[dir.path().to_path_buf()], &[]).unwrap();
    assert_eq!(r.episodes(), 5);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
}

#[test]
fn missing_and_empty_directories_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = report(std::slice::from_ref(&missing), &[]).unwrap_err();
    assert!(matches!(err, RunError::Io { .. }), "{err}");
    assert!(err.to_string().contains("nope"), "{err}");
    let err = report(&[dir.path().to_path_buf()], &[]).unwrap_err();
    assert!(matches!(err, RunError::NotARunDir { .. }), "{err}");
    assert!(err.to_string().contains("episodes.jsonl"), "{err}");
    std::fs::write(dir.path().join("episodes.jsonl"), "").unwrap();
    let empty = report(&[dir.path().to_path_buf()], &[]).unwrap();
    assert!(empty.groups.is_empty());
    assert!(
        empty
            .render(Format::Markdown)
            .contains("No finished episodes.")
    );
}

/// A run config over the scenarios of `rows`, for `agent`, with a seed and a shard.
fn config(agent: &str, seed: u64, shard: Option<&str>, rows: &[EpisodeRow]) -> RunConfig {
    let mut ids: Vec<&str> = rows.iter().map(|r| r.scenario.as_str()).collect();
    ids.dedup();
    RunConfig {
        suite: "s@1".into(),
        world: "counter".into(),
        source: "s@1".into(),
        agent: agent.into(),
        agent_options: BTreeMap::new(),
        expert: None,
        expert_options: Default::default(),
        world_options: Default::default(),
        epochs: 1,
        suite_settings: Default::default(),
        files: Default::default(),
        limit: None,
        sample: None,
        seed,
        max_steps: 100,
        scenarios: ids
            .iter()
            .map(|id| ScenarioRef {
                id: id.to_string(),
                hash: "h".into(),
            })
            .collect(),
        shard: shard.map(|s| s.parse::<Shard>().unwrap()),
        fork: None,
    }
}

/// A run directory under `parent` holding `rows` (stamped with its config hash).
fn run_dir(parent: &Path, config: &RunConfig, rows: &[EpisodeRow]) -> PathBuf {
    let dir = RunDir::create(parent, config).unwrap();
    for row in rows {
        let mut row = row.clone();
        row.config_hash = dir.config_hash().to_string();
        row.agent = config.agent.clone();
        dir.append_episode(&row).unwrap();
    }
    dir.path().to_path_buf()
}

/// Eight distinct episodes over tiers 1–2 with usage, latency and mixed success.
fn episodes() -> Vec<EpisodeRow> {
    (0..8)
        .map(|i| {
            let mut r = row("counter", 1 + i % 2, &format!("c{i}"), i % 3 != 0, 2 + i);
            r.metrics = [("progress_rate".to_string(), f64::from(i) / 8.0)].into();
            r.usage = Usage {
                input: 100 * u64::from(i),
                output: 10,
                cached: 50,
                cost_usd: 0.25,
                latency_ms: 40 * u64::from(2 + i),
                ..Usage::default()
            };
            r.duration_ms = 1000;
            r
        })
        .collect()
}

#[test]
fn shards_merge_into_the_unsharded_report() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = episodes();
    let whole = run_dir(tmp.path(), &config("random", 0, None, &rows), &rows);
    let (odd, even): (Vec<_>, Vec<_>) = rows
        .iter()
        .cloned()
        .enumerate()
        .partition(|(i, _)| i % 2 == 1);
    let strip = |v: Vec<(usize, EpisodeRow)>| v.into_iter().map(|(_, r)| r).collect::<Vec<_>>();
    let one = run_dir(
        tmp.path(),
        &config("random", 0, Some("1/2"), &rows),
        &strip(even),
    );
    let two = run_dir(
        tmp.path(),
        &config("random", 0, Some("2/2"), &rows),
        &strip(odd),
    );

    let unsharded = report(std::slice::from_ref(&whole), &[]).unwrap();
    // shards given in any order make the same report
    let merged = report(&[two.clone(), one.clone()], &[]).unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    assert_eq!(merged.groups, unsharded.groups);
    assert_eq!(merged.overall, unsharded.overall);
    assert_eq!(merged.runs.len(), 1);
    let (m, u) = (&merged.runs[0], &unsharded.runs[0]);
    assert_eq!(m.base_hash, u.base_hash);
    assert_eq!(
        (m.episodes, m.steps, m.usage),
        (u.episodes, u.steps, u.usage)
    );
    assert_eq!(m.dirs.len(), 2);
    assert_eq!(
        merged.render(Format::Csv),
        unsharded.render(Format::Csv),
        "CSV does not name directories"
    );
    // the unsharded directory and a shard of it are one run too (they overlap)
    let both = report(&[whole.clone(), two.clone()], &[]).unwrap();
    assert_eq!(both.runs.len(), 1);
    assert_eq!(both.groups, unsharded.groups);
    assert_eq!(both.warnings.len(), 1, "{:?}", both.warnings);
    assert!(
        both.warnings[0].contains("both hold 4 episode(s)"),
        "{:?}",
        both.warnings
    );
    // a shard on its own is the same run, with a warning that the rest is missing
    let part = report(std::slice::from_ref(&one), &[]).unwrap();
    assert_eq!(part.runs[0].base_hash, u.base_hash);
    assert_eq!(part.episodes(), 4);
    assert_eq!(part.warnings.len(), 1, "{:?}", part.warnings);
    assert!(
        part.warnings[0].contains("shard(s) 2/2 missing"),
        "{:?}",
        part.warnings
    );
}

#[test]
fn overlapping_and_missing_shards_are_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = episodes();
    let first = run_dir(
        tmp.path(),
        &config("random", 0, Some("1/3"), &rows),
        &rows[..3],
    );
    let third = run_dir(
        tmp.path(),
        &config("random", 0, Some("3/3"), &rows),
        &rows[2..5],
    );
    let r = report(&[first.clone(), third.clone()], &[]).unwrap();
    assert_eq!(r.episodes(), 5, "c2 counts once");
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    let missing = &r.warnings[0];
    assert!(missing.contains("shard(s) 2/3 missing"), "{missing}");
    let overlap = &r.warnings[1];
    assert!(
        overlap.contains(&first.display().to_string())
            && overlap.contains(&third.display().to_string())
            && overlap.contains("both hold 1 episode(s) (e.g. `c2` epoch 0)"),
        "{overlap}"
    );
}

#[test]
fn a_retryable_error_is_replaced_by_a_later_row() {
    let tmp = tempfile::tempdir().unwrap();
    let failed = |scenario: &str, message: &str| {
        let mut r = row("counter", 1, scenario, false, 0);
        r.error = Some(message.into());
        r.retryable = true;
        r
    };
    let rows = vec![
        failed("a", "backend down"),
        row("counter", 1, "b", true, 3),
        failed("c", "backend down"),
        row("counter", 1, "a", true, 2), // a rerun replaces the failed attempt
        failed("b", "cancelled"),        // a later failure never replaces a result
        failed("c", "still down"),       // every attempt failed: the last one counts
    ];
    let dir = run_dir(tmp.path(), &config("random", 0, None, &rows), &rows);
    let r = report(&[dir], &[]).unwrap();
    let s = &r.overall["counter"];
    assert_eq!((s.n, s.errors), (3, 1));
    assert_eq!(s.metrics["success"].mean, 2.0 / 3.0);
    assert_eq!(s.metrics["steps"].mean, 5.0 / 3.0);
    let set = escapade_run::report::read_runs(&[tmp
        .path()
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()])
    .unwrap();
    let c = set.runs[0]
        .episodes
        .iter()
        .find(|e| e.row.scenario == "c")
        .unwrap();
    assert_eq!(c.row.error.as_deref(), Some("still down"));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("1 episode(s) ended with a retryable error"),
        "{:?}",
        r.warnings
    );
}

#[test]
fn two_runs_are_compared_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = episodes();
    let mut solved = rows.clone();
    for r in &mut solved {
        r.success = true;
        r.usage = Usage::default();
    }
    let random = run_dir(tmp.path(), &config("random", 0, None, &rows), &rows);
    let oracle = run_dir(tmp.path(), &config("oracle", 0, None, &solved), &solved);
    let r = report(&[random, oracle], &[]).unwrap();
    let groups: Vec<(u32, &str, usize, f64)> = r
        .groups
        .iter()
        .map(|g| (g.difficulty, g.run.as_str(), g.n, g.metrics["success"].mean))
        .collect();
    assert_eq!(
        groups,
        [
            (1, "random", 4, 0.5),
            (1, "oracle", 4, 1.0),
            (2, "random", 4, 0.75),
            (2, "oracle", 4, 1.0)
        ]
    );
    let keys: Vec<&str> = r.overall.keys().map(String::as_str).collect();
    assert_eq!(keys, ["counter/random", "counter/oracle"]);
    assert_eq!(r.overall["counter/oracle"].run, "oracle");

    let md = r.render(Format::Markdown);
    assert!(
        md.contains("| difficulty | run | n | success (%) |"),
        "{md}"
    );
    let rows_md: Vec<&str> = md.lines().filter(|l| l.starts_with("| 1 |")).collect();
    assert_eq!(rows_md.len(), 2, "{md}");
    assert!(
        rows_md[0].starts_with("| 1 | random | 4 | 50.0 ± 28.9 |"),
        "{md}"
    );
    assert!(
        rows_md[1].starts_with("| 1 | oracle | 4 | 100.0 ± 0.0 |"),
        "{md}"
    );
    assert!(md.contains("| all | oracle | 8 |"), "{md}");
    assert!(
        md.contains("Episodes with errors: random 0 of 8; oracle 0 of 8."),
        "{md}"
    );
    // usage columns stay while one run has usage; the oracle's are zeros
    assert!(md.contains("cached_tokens"), "{md}");

    let v: serde_json::Value = serde_json::from_str(&r.render(Format::Json)).unwrap();
    let runs: Vec<(&str, &str, u64)> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap(),
                r["agent"].as_str().unwrap(),
                r["episodes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(runs, [("random", "random", 8), ("oracle", "oracle", 8)]);
    assert_eq!(v["groups"][1]["run"], "oracle");
    let csv = r.render(Format::Csv);
    assert!(
        csv.contains("\ncounter,1,4,success,1,0,oracle,1,1,,,\n"),
        "{csv}"
    );
}

#[test]
fn labels_name_the_model_and_tell_colliding_runs_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = episodes();
    let mut llm = config("plain", 0, None, &rows);
    llm.agent_options
        .insert("model".into(), "openai/gpt-4o".into());
    let a = run_dir(tmp.path(), &config("random", 1, None, &rows), &rows);
    let b = run_dir(tmp.path(), &config("random", 2, None, &rows), &rows);
    let c = run_dir(tmp.path(), &llm, &rows);
    let r = report(&[a, b, c], &[]).unwrap();
    let labels: Vec<&str> = r.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels[2], "plain openai/gpt-4o");
    assert_eq!(r.runs[2].model.as_deref(), Some("openai/gpt-4o"));
    for (label, run) in labels[..2].iter().zip(&r.runs) {
        assert_eq!(*label, format!("random [{}]", &run.base_hash[..8]));
    }
    assert_ne!(labels[0], labels[1]);
}

#[test]
fn usage_metrics_and_totals_are_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = episodes();
    let dir = run_dir(tmp.path(), &config("random", 0, None, &rows), &rows);
    let r = report(&[dir], &[]).unwrap();
    // tier 1: episodes 0, 2, 4, 6 with steps 2, 4, 6, 8 and latency 40 ms per step
    let g = &r.groups[0].metrics;
    assert_eq!(g["input_tokens"].mean, 300.0);
    assert_eq!(g["cached_tokens"].mean, 50.0);
    assert_eq!(g["latency_ms"].mean, 200.0);
    assert_eq!(
        (g["step_latency_ms"].mean, g["step_latency_ms"].se),
        (40.0, 0.0)
    );
    assert_eq!(g["duration_ms"].mean, 1000.0);
    let run = &r.runs[0];
    assert_eq!(run.usage.input, 2800);
    assert_eq!((run.usage.output, run.usage.cached), (80, 400));
    assert_eq!(run.usage.cost_usd, 2.0);
    assert_eq!(run.steps, 44);
    assert_eq!(run.duration_ms, 8000);
    let md = r.render(Format::Markdown);
    assert!(
        md.contains(
            "| input tokens | output tokens | cached tokens | cost (USD) | latency per step \
             (ms) | episode time (s) |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| 1 | 8 | 44 | 2,800 | 80 | 400 | 2.0000 | 40 | 8.0 |"),
        "{md}"
    );
}
