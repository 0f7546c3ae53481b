//! Two runs compared on the scenarios both played (`escapade compare`, and a report over
//! two runs of one suite).
//!
//! Why paired: scenarios differ far more than two agents on one scenario do, so a
//! comparison of two means over different or unmatched scenarios hides a real
//! difference in that spread. Pairing each scenario with itself removes it:
//!
//! - success: McNemar's test on the episodes both runs played (a scenario's epoch in one
//!   run against the same epoch in the other: the same seed when the runs share their
//!   seed, and a note counts the pairs that do not), which looks only at the pairs that
//!   disagree — the exact test when each scenario has one such pair, Durkalski's
//!   clustered test when some have several, since the epochs of one scenario tend to
//!   agree with each other and are not independent pairs;
//! - every metric (success too, for its interval): the mean over the scenario's epochs in
//!   each run, and a paired bootstrap over scenarios of the differences — the mean
//!   difference, its 95 % interval and a two-sided p-value.
//!
//! A scenario is paired with itself only: an id the two runs share whose rows name
//! different `scenario_hash`es (another suite version, an edited file) is left out and
//! named in the notes. Each comparison says how many scenarios were paired, and warns when that number
//! cannot separate the difference seen from chance (fewer than six disagreeing
//! episodes, or with several epochs fewer than four scenarios that lean one way, can
//! never give McNemar's p below 0.05). It lists the settings the two runs
//! differ in — the suite, each `-W` option, and each parameter their requests carried
//! (`run.toml`'s `[sent]`: temperature, output cap, thinking, pictures, …) — so a
//! difference is read against what was changed, not only against the agent's label.

use std::collections::BTreeMap;

use escapade_core::EpisodeRow;
use serde::{Deserialize, Serialize};

use crate::report::{Run, Worlds, value};
use crate::stats;

/// The significance level the warnings use.
pub const ALPHA: f64 = 0.05;

/// One metric of one tier (or the whole suite), compared between two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedMetric {
    /// World name.
    pub world: String,
    /// The tier; absent for every paired scenario of the world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<u32>,
    /// How tables name the tier (`all` for the whole world).
    pub tier: String,
    /// The metric.
    pub metric: String,
    /// Scenarios both runs played (with the metric defined in both).
    pub scenarios: usize,
    /// The first run's mean over those scenarios.
    pub a: f64,
    /// The second run's.
    pub b: f64,
    /// `a - b`: the mean of the per-scenario differences.
    pub diff: f64,
    /// Lower bound of the difference's 95 % paired-bootstrap interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lo: Option<f64>,
    /// Upper bound of the same interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hi: Option<f64>,
    /// The test: `mcnemar` (success, one epoch a scenario paired), `mcnemar clustered`
    /// (success, several: [`stats::mcnemar_clustered`]) or `paired bootstrap`.
    pub test: String,
    /// Its two-sided p-value.
    pub p: f64,
    /// For McNemar: episodes the first run solved and the second did not, and the
    /// reverse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discordant: Option<(u64, u64)>,
    /// When the pairs are too few to separate the difference from chance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Two runs compared world by world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Label of the first run.
    pub a: String,
    /// Label of the second run.
    pub b: String,
    /// The comparisons, world by world, tiers in order then the whole world, metrics in
    /// the world's order.
    pub metrics: Vec<PairedMetric>,
    /// Worlds the runs share no scenario of, and other reasons a comparison is partial.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The settings the two runs differ in ([`settings_differ`]); empty when they agree
    /// in all, or when neither has a `run.toml`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<SettingDiff>,
}

/// One setting two compared runs differ in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingDiff {
    /// What it is: `suite`, `-W <key>`, or `<agent|expert> <key>` of `[sent]`.
    pub setting: String,
    /// The first run's value (`-` where it has none).
    pub a: String,
    /// The second run's.
    pub b: String,
}

/// The settings `a` and `b` differ in: the suite, each world option, and each entry of
/// their `[sent]` tables (what their model requests carried), in that order.
pub fn settings_differ(a: &Run, b: &Run) -> Vec<SettingDiff> {
    fn pairs<'a>(
        out: &mut Vec<SettingDiff>,
        prefix: &str,
        x: Option<&'a BTreeMap<String, String>>,
        y: Option<&'a BTreeMap<String, String>>,
    ) {
        let empty = BTreeMap::new();
        let (x, y) = (x.unwrap_or(&empty), y.unwrap_or(&empty));
        let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
        for k in keys {
            let (va, vb) = (x.get(k), y.get(k));
            if va != vb {
                let shown = |v: Option<&String>| v.map_or_else(|| "-".to_string(), Clone::clone);
                out.push(SettingDiff {
                    setting: format!("{prefix}{k}"),
                    a: shown(va),
                    b: shown(vb),
                });
            }
        }
    }
    let mut out = Vec::new();
    if a.suite != b.suite {
        out.push(SettingDiff {
            setting: "suite".into(),
            a: a.suite.clone(),
            b: b.suite.clone(),
        });
    }
    pairs(
        &mut out,
        "-W ",
        Some(&a.world_options),
        Some(&b.world_options),
    );
    let roles: std::collections::BTreeSet<&String> = a.sent.keys().chain(b.sent.keys()).collect();
    for role in roles {
        pairs(
            &mut out,
            &format!("{role} "),
            a.sent.get(role),
            b.sent.get(role),
        );
    }
    out
}

/// `(world, scenario)` → the episodes of a run, by epoch.
type ByScenario<'a> = BTreeMap<(&'a str, &'a str), BTreeMap<u32, &'a EpisodeRow>>;

/// World → tier → the `(world, scenario)` keys both runs played.
type Shared<'a> = BTreeMap<&'a str, BTreeMap<u32, Vec<(&'a str, &'a str)>>>;

fn by_scenario(run: &Run) -> ByScenario<'_> {
    let mut out: ByScenario<'_> = BTreeMap::new();
    for e in &run.episodes {
        out.entry((e.row.world.as_str(), e.row.scenario.as_str()))
            .or_default()
            .insert(e.row.epoch, &e.row);
    }
    out
}

/// Whether two runs' episodes of one id played the same scenario: their rows name the
/// same `scenario_hash` (rows without one are taken at their id).
fn same_scenario(a: &BTreeMap<u32, &EpisodeRow>, b: &BTreeMap<u32, &EpisodeRow>) -> bool {
    let hashes: std::collections::BTreeSet<&str> = a
        .values()
        .chain(b.values())
        .map(|r| r.scenario_hash.as_str())
        .filter(|h| !h.is_empty())
        .collect();
    hashes.len() <= 1
}

/// The metrics compared in `world`: its key metrics (every metric both runs have when
/// it declares none), success first.
fn metrics_of(world: &str, worlds: Worlds<'_>, rows: &[&EpisodeRow]) -> Vec<String> {
    let declared: Vec<String> = worlds
        .iter()
        .find(|w| w.name() == world)
        .map(|w| {
            w.report()
                .key_metrics
                .iter()
                .map(|k| k.to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut names = if declared.is_empty() {
        let mut all: Vec<String> = vec!["success".into(), "steps".into()];
        let extra: std::collections::BTreeSet<&String> =
            rows.iter().flat_map(|r| r.metrics.keys()).collect();
        all.extend(extra.into_iter().cloned());
        all
    } else {
        declared
    };
    names.dedup();
    if let Some(i) = names.iter().position(|n| n == "success") {
        let s = names.remove(i);
        names.insert(0, s);
    }
    names
}

/// Compares run `a` with run `b` on the scenarios both played.
pub fn compare(a: &Run, b: &Run, worlds: Worlds<'_>) -> Comparison {
    let (sa, sb) = (by_scenario(a), by_scenario(b));
    let mut notes = Vec::new();
    // world → tier → paired scenarios
    let mut shared: Shared<'_> = BTreeMap::new();
    // world → ids that name different scenarios in the two runs
    let mut unlike: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let (mut paired, mut reseeded) = (0usize, 0usize);
    for key in sa.keys().filter(|k| sb.contains_key(*k)) {
        if !same_scenario(&sa[key], &sb[key]) {
            unlike.entry(key.0).or_default().push(key.1);
            continue;
        }
        for (epoch, ra) in &sa[key] {
            if let Some(rb) = sb[key].get(epoch) {
                paired += 1;
                reseeded += usize::from(ra.seed != rb.seed);
            }
        }
        let tier = sa[key].values().next().map_or(0, |r| r.difficulty);
        shared
            .entry(key.0)
            .or_default()
            .entry(tier)
            .or_default()
            .push(*key);
    }
    for (world, ids) in &unlike {
        let shown: Vec<&str> = ids.iter().take(5).copied().collect();
        let more = if ids.len() > shown.len() { ", …" } else { "" };
        notes.push(format!(
            "{world}: {} scenario(s) share an id but not their contents (scenario_hash: \
             another suite version or an edited file), not paired: {}{more}",
            ids.len(),
            shown.join(", ")
        ));
    }
    if reseeded > 0 {
        notes.push(format!(
            "{reseeded} of {paired} paired episodes started from different seeds (the runs' \
             seeds differ): McNemar pairs them by scenario and epoch number, not by their start"
        ));
    }
    let worlds_a: std::collections::BTreeSet<&str> = sa.keys().map(|k| k.0).collect();
    let worlds_b: std::collections::BTreeSet<&str> = sb.keys().map(|k| k.0).collect();
    for w in worlds_a.union(&worlds_b) {
        if !shared.contains_key(w) {
            notes.push(format!("{w}: the runs share no scenario, nothing to pair"));
        }
    }
    let mut metrics = Vec::new();
    for (world, tiers) in &shared {
        let rows: Vec<&EpisodeRow> = tiers
            .values()
            .flatten()
            .flat_map(|k| sa[k].values().chain(sb[k].values()))
            .copied()
            .collect();
        let names = metrics_of(world, worlds, &rows);
        let label = |d: u32| {
            worlds
                .iter()
                .find(|w| w.name() == *world)
                .map_or_else(|| d.to_string(), |w| w.report().tier(d, &BTreeMap::new()))
        };
        let all: Vec<(&str, &str)> = tiers.values().flatten().copied().collect();
        let cuts = tiers
            .iter()
            .map(|(d, keys)| (Some(*d), label(*d), keys.clone()))
            .chain(std::iter::once((None, "all".to_string(), all)));
        for (difficulty, tier, keys) in cuts {
            for name in &names {
                if let Some(m) = paired_metric(world, difficulty, &tier, name, &keys, &sa, &sb) {
                    metrics.push(m);
                }
            }
        }
    }
    Comparison {
        a: a.label.clone(),
        b: b.label.clone(),
        metrics,
        notes,
        settings: settings_differ(a, b),
    }
}

/// One metric over the paired scenarios `keys`; `None` when no scenario defines it in
/// both runs.
fn paired_metric(
    world: &str,
    difficulty: Option<u32>,
    tier: &str,
    name: &str,
    keys: &[(&str, &str)],
    sa: &ByScenario<'_>,
    sb: &ByScenario<'_>,
) -> Option<PairedMetric> {
    let mean = |rows: &BTreeMap<u32, &EpisodeRow>| {
        let xs: Vec<f64> = rows.values().filter_map(|r| value(r, name)).collect();
        (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
    };
    let (xa, xb): (Vec<f64>, Vec<f64>) = keys
        .iter()
        .filter_map(|k| Some((mean(&sa[k])?, mean(&sb[k])?)))
        .unzip();
    if xa.is_empty() {
        return None;
    }
    let n = xa.len();
    let seed = stats::seed_for(&format!("paired/{world}/{tier}/{name}"));
    let boot = stats::paired_bootstrap(&xa, &xb, stats::RESAMPLES, seed);
    // with several epochs a scenario: the scenarios whose epochs lean one way
    let (mut clustered, mut leaning) = (false, 0usize);
    let (test, p, discordant) = if name == "success" {
        // each epoch against the same epoch (the same seed) of the other run, counted
        // scenario by scenario
        let mut per_scenario = Vec::with_capacity(keys.len());
        for k in keys {
            let (mut only_a, mut only_b, mut pairs) = (0u64, 0u64, 0usize);
            for (epoch, ra) in &sa[k] {
                if let Some(rb) = sb[k].get(epoch) {
                    pairs += 1;
                    match (ra.success, rb.success) {
                        (true, false) => only_a += 1,
                        (false, true) => only_b += 1,
                        _ => {}
                    }
                }
            }
            clustered |= pairs > 1;
            per_scenario.push((only_a, only_b));
        }
        leaning = per_scenario.iter().filter(|(a, b)| a != b).count();
        let only_a = per_scenario.iter().map(|d| d.0).sum();
        let only_b = per_scenario.iter().map(|d| d.1).sum();
        let (test, p) = match clustered {
            true => ("mcnemar clustered", stats::mcnemar_clustered(&per_scenario)),
            false => ("mcnemar", stats::mcnemar_exact(only_a, only_b)),
        };
        (test.to_string(), p, Some((only_a, only_b)))
    } else {
        ("paired bootstrap".to_string(), boot.p, None)
    };
    let warning = if let Some((x, y)) = discordant {
        // the smallest p the test can give here: every disagreement one way, or (clustered)
        // every leaning scenario leaning one way by as much
        let floor = match clustered {
            true => stats::mcnemar_clustered(&vec![(1, 0); leaning]),
            false => stats::mcnemar_floor(x + y),
        };
        if x + y == 0 {
            // the runs agree on every paired episode: nothing to tell apart
            None
        } else if floor >= ALPHA && clustered {
            Some(format!(
                "{} disagreeing episode(s) in {leaning} scenario(s) that lean one way: no \
                 split of so few scenarios can reach p < {ALPHA}",
                x + y
            ))
        } else if floor >= ALPHA {
            Some(format!(
                "{} disagreeing episode(s) over {n} scenario(s): no split of so few can reach \
                 p < {ALPHA}",
                x + y
            ))
        } else if p >= ALPHA {
            Some(format!(
                "{n} paired scenario(s) cannot tell this difference from chance (p = {p:.3})"
            ))
        } else {
            None
        }
    } else if n < 2 {
        Some("one paired scenario: no interval, no test".into())
    } else if p >= ALPHA {
        Some(format!(
            "{n} paired scenario(s) cannot tell this difference from chance (p = {p:.3})"
        ))
    } else {
        None
    };
    Some(PairedMetric {
        world: world.to_string(),
        difficulty,
        tier: tier.to_string(),
        metric: name.to_string(),
        scenarios: n,
        a: xa.iter().sum::<f64>() / n as f64,
        b: xb.iter().sum::<f64>() / n as f64,
        diff: boot.diff,
        lo: boot.interval.map(|i| i.lo),
        hi: boot.interval.map(|i| i.hi),
        test,
        p,
        discordant,
        warning,
    })
}

/// The Markdown of a comparison: a table of every tier and metric.
pub fn markdown(c: &Comparison) -> String {
    let escape = |s: &str| s.replace('|', "\\|");
    let mut out = format!(
        "\n## Paired: {} against {}\n\nOn the scenarios both runs played; success by McNemar's test on the \
         episodes both played (exact with one epoch a scenario, Durkalski's clustered test with several), every metric's difference (first minus second) with a 95% paired-bootstrap \
         interval.\n\n| world | tier | metric | scenarios | first | second | difference [95% CI] | test | p |\n\
         |:---|:---|:---|---:|---:|---:|---:|:---|---:|\n",
        escape(&c.a),
        escape(&c.b)
    );
    let mut warnings = Vec::new();
    let settings = if c.settings.is_empty() {
        String::new()
    } else {
        let mut t = "\nThe runs differ in these settings (what their requests carried; \
                     `run.toml`):\n\n| setting | first | second |\n|:---|:---|:---|\n"
            .to_string();
        for d in &c.settings {
            t.push_str(&format!(
                "| {} | {} | {} |\n",
                escape(&d.setting),
                escape(&d.a),
                escape(&d.b)
            ));
        }
        t
    };
    for m in &c.metrics {
        let (scale, decimals) = if crate::report::is_percent(&m.metric) {
            (100.0, 1)
        } else {
            (1.0, 2)
        };
        let f = |x: f64| format!("{:.*}", decimals, x * scale);
        let diff = match (m.lo, m.hi) {
            (Some(lo), Some(hi)) => format!("{} [{}, {}]", f(m.diff), f(lo), f(hi)),
            _ => f(m.diff),
        };
        let test = match m.discordant {
            Some((x, y)) => format!("{} ({x}/{y})", m.test),
            None => m.test.clone(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.3} |\n",
            m.world,
            escape(&m.tier),
            m.metric,
            m.scenarios,
            f(m.a),
            f(m.b),
            diff,
            test,
            m.p
        ));
        if let Some(w) = &m.warning {
            warnings.push(format!("- {} {} {}: {w}", m.world, m.tier, m.metric));
        }
    }
    if !warnings.is_empty() {
        out.push_str("\nToo few pairs to tell:\n\n");
        out.push_str(&warnings.join("\n"));
        out.push('\n');
    }
    out.push_str(&settings);
    for n in &c.notes {
        out.push_str(&format!("\n{n}.\n"));
    }
    out
}
