//! Two runs compared on their common scenarios: a known difference (the oracle against
//! the random agent) is found, two runs of the same agent and seeds show none, and a
//! report over two runs of one suite carries the paired table.

use std::path::{Path, PathBuf};

use escapade_run::paired::{Comparison, compare};
use escapade_run::report::{Run, read_runs};

use crate::fake::{run_in, scenario, spec};

/// 30 counters to 8 within 12 steps (the random agent, which counts up one step in
/// two, escapes a few; the oracle all).
fn scenarios() -> Vec<(String, String)> {
    (0..30)
        .map(|i| {
            let mut s = scenario(&format!("c{i:02}"), 8);
            s.budget = Some(12);
            (s.id.clone(), s.json())
        })
        .collect()
}

fn run(out: &Path, agent: &str, seed: u64) -> PathBuf {
    let mut spec = spec(agent);
    spec.seed = seed;
    run_in(out, &scenarios(), &spec).unwrap().dir
}

fn one(dir: &Path) -> Run {
    let mut set = read_runs(&[dir.to_path_buf()]).unwrap();
    assert_eq!(set.runs.len(), 1);
    set.runs.remove(0)
}

fn all<'a>(c: &'a Comparison, metric: &str) -> &'a escapade_run::paired::PairedMetric {
    c.metrics
        .iter()
        .find(|m| m.metric == metric && m.tier == "all")
        .unwrap_or_else(|| panic!("no {metric} over all scenarios: {c:?}"))
}

#[test]
fn a_known_difference_is_found_and_its_absence_too() {
    let tmp = tempfile::tempdir().unwrap();
    let oracle = one(&run(&tmp.path().join("o"), "oracle", 0));
    let random = one(&run(&tmp.path().join("r"), "random", 0));
    let again = one(&run(&tmp.path().join("r2"), "random", 0));

    let c = compare(&oracle, &random, &[]);
    let s = all(&c, "success");
    assert_eq!(s.scenarios, 30);
    assert_eq!(s.test, "mcnemar");
    let (only_oracle, only_random) = s.discordant.unwrap();
    assert_eq!(only_random, 0, "the oracle escapes every room");
    assert!(only_oracle >= 6, "{s:?}");
    assert!(s.diff > 0.0 && s.lo.unwrap() > 0.0, "{s:?}");
    assert!(s.p < 0.05, "{s:?}");
    assert!(s.warning.is_none(), "{s:?}");
    // steps: a paired bootstrap; the oracle takes exactly eight
    let steps = all(&c, "steps");
    assert_eq!(steps.test, "paired bootstrap");
    assert!(
        steps.diff < 0.0 && steps.hi.unwrap() < 0.0 && steps.p < 0.05,
        "{steps:?}"
    );

    // the same agent and seeds: the same episodes, no difference at all
    let c = compare(&random, &again, &[]);
    for m in &c.metrics {
        assert_eq!(m.diff, 0.0, "{m:?}");
        assert_eq!(m.p, 1.0, "{m:?}");
    }
    assert_eq!(all(&c, "success").discordant, Some((0, 0)));

    // another seed of the random agent: a difference, if any, that n cannot tell
    let other = one(&run(&tmp.path().join("r3"), "random", 9));
    let s = compare(&random, &other, &[]).metrics[0].clone();
    assert!(s.p > 0.05 || s.warning.is_none(), "{s:?}");
}

#[test]
fn few_pairs_are_flagged_and_unshared_worlds_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let few: Vec<(String, String)> = scenarios().into_iter().take(4).collect();
    let o = run_in(&tmp.path().join("o"), &few, &spec("oracle"))
        .unwrap()
        .dir;
    let r = run_in(&tmp.path().join("r"), &few, &spec("down"))
        .unwrap()
        .dir;
    let c = compare(&one(&o), &one(&r), &[]);
    let s = all(&c, "success");
    // four disagreeing episodes can never reach p < 0.05
    assert_eq!(s.discordant, Some((4, 0)));
    assert!(s.p > 0.05);
    assert!(
        s.warning.as_deref().unwrap().contains("no split of so few"),
        "{s:?}"
    );
    let md = escapade_run::paired::markdown(&c);
    assert!(md.contains("Too few pairs to tell"), "{md}");
    assert!(
        md.contains("| counter | all | success | 4 | 100.0 | 0.0 |"),
        "{md}"
    );
}

#[test]
fn a_report_over_two_runs_of_a_suite_pairs_them() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&tmp.path().join("o"), "oracle", 0);
    let r = run(&tmp.path().join("r"), "random", 0);
    let report = escapade_run::report(&[o, r], &[]).unwrap();
    assert_eq!(report.paired.len(), 1);
    assert_eq!(report.paired[0].a, "oracle");
    assert_eq!(report.paired[0].b, "random");
    let md = report.render(escapade_run::Format::Markdown);
    assert!(md.contains("## Paired: oracle against random"), "{md}");
    let v: serde_json::Value =
        serde_json::from_str(&report.render(escapade_run::Format::Json)).unwrap();
    assert_eq!(v["paired"][0]["metrics"][0]["test"], "mcnemar");
}

/// A scenario is paired with itself only: one whose id two runs share but whose contents
/// differ (`scenario_hash`: another suite version, an edited file) is left out and
/// named; and pairs of episodes that started from different seeds are said to.
#[test]
fn only_the_same_scenario_is_paired_and_other_seeds_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let oracle = one(&run(&tmp.path().join("o"), "oracle", 0));
    let mut changed = scenarios();
    let mut s = scenario("c00", 3);
    s.budget = Some(12);
    changed[0] = (s.id.clone(), s.json());
    let other = one(&run_in(&tmp.path().join("r"), &changed, &spec("oracle"))
        .unwrap()
        .dir);
    let c = compare(&oracle, &other, &[]);
    assert_eq!(all(&c, "success").scenarios, 29, "{c:?}");
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("c00") && n.contains("scenario_hash")),
        "{:?}",
        c.notes
    );
    assert!(!c.notes.iter().any(|n| n.contains("seed")), "{:?}", c.notes);
    // another run seed: every pair started from other seeds, and the note says so
    let reseeded = one(&run(&tmp.path().join("r9"), "oracle", 9));
    let c = compare(&oracle, &reseeded, &[]);
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("30 of 30 paired episodes") && n.contains("seed")),
        "{:?}",
        c.notes
    );
}
