use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use escapade_core::{EpisodeRow, Usage};
use escapade_run::{Format, RunError, report};

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
    let r = report(&[write(dir.path(), &hand_made())]).unwrap();
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
            "cost_usd"
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

#[test]
fn json_has_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&r.render(Format::Json)).unwrap();
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(top, ["groups", "overall"]);
    let g = &v["groups"][0];
    let keys: Vec<&String> = g.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["world", "difficulty", "n", "metrics"]);
    assert_eq!(g["world"], "counter");
    assert_eq!(g["difficulty"], 1);
    assert_eq!(g["n"], 2);
    let stat: Vec<&String> = g["metrics"]["success"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(stat, ["mean", "se"]);
    assert_eq!(g["metrics"]["steps"]["mean"], 3.0);
    assert_eq!(v["overall"]["counter"]["errors"], 1);
    assert_eq!(v["overall"]["other"]["n"], 1);
}

#[test]
fn csv_has_a_row_per_group_and_metric() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())]).unwrap();
    let csv = r.render(Format::Csv);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "world,difficulty,n,metric,mean,se");
    assert_eq!(lines[1], "counter,1,2,success,0.5,0.5");
    let expected: usize = r.groups.iter().map(|g| g.metrics.len()).sum::<usize>()
        + r.overall.values().map(|w| w.metrics.len()).sum::<usize>();
    assert_eq!(lines.len(), 1 + expected);
    assert!(
        lines.contains(&"counter,all,4,success,0.5,0.28867513459481287"),
        "{csv}"
    );
}

#[test]
fn markdown_has_a_table_per_world_with_percent_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(&[write(dir.path(), &hand_made())]).unwrap();
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
}

#[test]
fn runs_merge_and_identical_rows_count_once() {
    let rows = hand_made();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = report(&[write(a.path(), &rows)]).unwrap();
    let split = report(&[write(a.path(), &rows[..3]), write(b.path(), &rows[2..])]).unwrap();
    assert_eq!(one, split);
    // rows of another config are other episodes, not duplicates
    let mut other = rows[0].clone();
    other.config_hash = "cfg2".into();
    let more = report(&[write(a.path(), &rows), write(b.path(), &[other])]).unwrap();
    assert_eq!(more.groups[0].n, 3);
}

#[test]
fn a_torn_last_line_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &hand_made());
    let path = dir.path().join("episodes.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"format_version\":1,\"sui");
    std::fs::write(&path, text).unwrap();
    let r = report(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(r.episodes(), 5);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
}

#[test]
fn missing_and_empty_directories_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = report(std::slice::from_ref(&missing)).unwrap_err();
    assert!(matches!(err, RunError::Io { .. }), "{err}");
    assert!(err.to_string().contains("nope"), "{err}");
    let err = report(&[dir.path().to_path_buf()]).unwrap_err();
    assert!(matches!(err, RunError::NotARunDir { .. }), "{err}");
    assert!(err.to_string().contains("episodes.jsonl"), "{err}");
    std::fs::write(dir.path().join("episodes.jsonl"), "").unwrap();
    let empty = report(&[dir.path().to_path_buf()]).unwrap();
    assert!(empty.groups.is_empty());
    assert!(
        empty
            .render(Format::Markdown)
            .contains("No finished episodes.")
    );
}
