//! A capability profile: each model's headline score on every world it played, side by
//! side, each also normalised between the world's random baseline and its oracle.
//!
//! Why normalise: the four benchmarks score on different scales — AgentEscapeBench's
//! success, VisEscape's success over 300 steps, COMMA's partial success (which a random
//! pair already lifts to 19 %), MM-Escape's escape rate — so raw numbers side by side
//! mislead. `(score − random) ÷ (oracle − random)` puts 0 at chance and 1 at the best
//! possible play on every world, and `(score − random) ÷ (human − random)` does the same
//! against people when the report holds a human run of the world.
//!
//! A world's headline metric is its paper's ([`escapade_core::paper::Paper::headline`],
//! else `success`). Runs are grouped by model (`local/smollm2` across the four suites,
//! whatever agent loop drove it); the anchors are the report's own `random`, `oracle`
//! and `human` runs of the world, each measured on the scenarios the model's run played
//! (a `--limit` run is compared with its baselines on the same rooms).

use std::collections::{BTreeMap, BTreeSet};

use escapade_core::EpisodeRow;
use serde::{Deserialize, Serialize};

use crate::report::{Run, RunSet, Stat, Worlds, value};

/// One model on one world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileCell {
    /// The model (or a baseline's agent kind).
    pub model: String,
    /// World name.
    pub world: String,
    /// The headline metric.
    pub metric: String,
    /// Episodes counted.
    pub n: usize,
    /// Scenarios played.
    pub scenarios: usize,
    /// The headline metric's mean, standard error and 95 % interval.
    pub score: Stat,
    /// The random baseline on the same scenarios, when the report has a random run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<f64>,
    /// The oracle on the same scenarios, when the report has an oracle run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle: Option<f64>,
    /// People on the same scenarios, when the report has a human run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<f64>,
    /// `(score − random) ÷ (oracle − random)`, when both anchors exist and differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalised: Option<f64>,
    /// The same between the random baseline and people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_human: Option<f64>,
}

/// The models of a report across its worlds.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Profile {
    /// The worlds, in the registry's order.
    pub worlds: Vec<String>,
    /// Each world's headline metric.
    pub metrics: BTreeMap<String, String>,
    /// One cell per (model, world) played, models in the order their first run was
    /// given, worlds in order.
    pub cells: Vec<ProfileCell>,
}

/// How the profile names a run's player: its model, else its agent kind.
pub fn player(run: &Run) -> String {
    run.model.clone().unwrap_or_else(|| run.agent.clone())
}

/// The mean of `metric` over a run's episodes of `world` on `scenarios`; `None` when it
/// played none of them.
fn anchor(run: &Run, world: &str, metric: &str, scenarios: &BTreeSet<&str>) -> Option<f64> {
    let xs: Vec<f64> = run
        .episodes
        .iter()
        .filter(|e| e.row.world == world && scenarios.contains(e.row.scenario.as_str()))
        .filter_map(|e| value(&e.row, metric))
        .collect();
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The profile of the runs of `set`; `None` when they cover fewer than two worlds.
pub fn profile(set: &RunSet, worlds: Worlds<'_>) -> Option<Profile> {
    let played: BTreeSet<&str> = set
        .runs
        .iter()
        .flat_map(|r| r.episodes.iter().map(|e| e.row.world.as_str()))
        .collect();
    if played.len() < 2 {
        return None;
    }
    // the registry's order (tools, vis, comma, craft), then any other world by name
    let rank = |w: &str| {
        worlds
            .iter()
            .position(|x| x.name() == w)
            .unwrap_or(usize::MAX)
    };
    let mut present: Vec<&str> = played.into_iter().collect();
    present.sort_by_key(|w| rank(w));
    let metrics: BTreeMap<String, String> = present
        .iter()
        .map(|w| {
            let headline = worlds
                .iter()
                .find(|x| x.name() == *w)
                .and_then(|x| x.paper())
                .map_or_else(|| "success".to_string(), |p| p.headline);
            (w.to_string(), headline)
        })
        .collect();
    let mut players: Vec<String> = Vec::new();
    for run in &set.runs {
        let p = player(run);
        if !players.contains(&p) {
            players.push(p);
        }
    }
    let baseline = |kind: &str, world: &str| {
        set.runs
            .iter()
            .find(|r| r.agent == kind && r.episodes.iter().any(|e| e.row.world == world))
    };
    let mut cells = Vec::new();
    for p in &players {
        for world in &present {
            let metric = &metrics[*world];
            // every run of this player on this world, merged
            let rows: Vec<&EpisodeRow> = set
                .runs
                .iter()
                .filter(|r| &player(r) == p)
                .flat_map(|r| r.episodes.iter().map(|e| &e.row))
                .filter(|r| r.world == *world)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let mut by_scenario: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for r in &rows {
                if let Some(x) = value(r, metric) {
                    by_scenario.entry(r.scenario.as_str()).or_default().push(x);
                }
            }
            if by_scenario.is_empty() {
                continue;
            }
            let scenarios: BTreeSet<&str> = by_scenario.keys().copied().collect();
            let clusters: Vec<Vec<f64>> = by_scenario.into_values().collect();
            let score = Stat::of_clusters(&clusters, &format!("profile/{world}/{metric}"));
            let random =
                baseline("random", world).and_then(|r| anchor(r, world, metric, &scenarios));
            let oracle =
                baseline("oracle", world).and_then(|r| anchor(r, world, metric, &scenarios));
            let human = baseline(crate::play::HUMAN, world)
                .and_then(|r| anchor(r, world, metric, &scenarios));
            let scale = |top: Option<f64>| {
                let (lo, hi) = (random?, top?);
                ((hi - lo).abs() > 1e-12).then(|| (score.mean - lo) / (hi - lo))
            };
            cells.push(ProfileCell {
                model: p.clone(),
                world: world.to_string(),
                metric: metric.clone(),
                n: rows.len(),
                scenarios: scenarios.len(),
                score,
                random,
                oracle,
                human,
                normalised: scale(oracle),
                vs_human: scale(human),
            });
        }
    }
    Some(Profile {
        worlds: present.iter().map(|w| w.to_string()).collect(),
        metrics,
        cells,
    })
}

/// The Markdown of a profile: a row per (model, world).
pub fn markdown(p: &Profile) -> String {
    let mut out = String::from(
        "\n## Capability profile\n\nEach world's headline metric, and that score normalised: 0 is the random \
         baseline, 1 the oracle (and people, where a human run exists), both on the scenarios the model \
         played.\n\n| model | world | metric | episodes | score [95% CI] | random | oracle | normalised | \
         vs people |\n|:---|:---|:---|---:|---:|---:|---:|---:|---:|\n",
    );
    let pct = |metric: &str, x: f64| {
        if crate::report::is_percent(metric) {
            format!("{:.1}", x * 100.0)
        } else {
            format!("{x:.2}")
        }
    };
    let opt = |metric: &str, x: Option<f64>| x.map_or_else(|| "–".to_string(), |x| pct(metric, x));
    for c in &p.cells {
        let (scale, decimals) = if crate::report::is_percent(&c.metric) {
            (100.0, 1)
        } else {
            (1.0, 2)
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            c.model.replace('|', "\\|"),
            c.world,
            c.metric,
            c.n,
            c.score.show_interval(scale, decimals),
            opt(&c.metric, c.random),
            opt(&c.metric, c.oracle),
            c.normalised
                .map_or_else(|| "–".into(), |x| format!("{x:.2}")),
            c.vs_human.map_or_else(|| "–".into(), |x| format!("{x:.2}")),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(world: &str, scenario: &str, agent: &str, success: bool) -> EpisodeRow {
        serde_json::from_value(serde_json::json!({
            "format_version": 1, "suite": format!("{world}@1"), "scenario": scenario,
            "scenario_hash": "h", "world": world, "difficulty": 1, "epoch": 0, "seed": 0,
            "agent": agent, "config_hash": format!("{world}-{agent}"), "success": success,
            "steps": 1, "metrics": {},
            "usage": {"input": 0, "output": 0, "cached": 0, "cost_usd": 0.0, "latency_ms": 0},
            "duration_ms": 0, "error": null
        }))
        .unwrap()
    }

    #[test]
    fn scores_are_normalised_on_the_scenarios_the_model_played() {
        let mut rows = Vec::new();
        for world in ["a", "b"] {
            for (i, s) in ["s1", "s2", "s3", "s4"].iter().enumerate() {
                rows.push(row(world, s, "oracle", true));
                // the random agent solves s1 and s2 only
                rows.push(row(world, s, "random", i < 2));
            }
        }
        // the model played two scenarios of `a` (one solved) and none of `b`
        rows.push(row("a", "s2", "llm", true));
        rows.push(row("a", "s3", "llm", false));
        let set = RunSet::from_rows(&rows);
        let p = profile(&set, &[]).expect("two worlds");
        assert_eq!(p.worlds, ["a", "b"]);
        let cell = p.cells.iter().find(|c| c.model == "llm").unwrap();
        assert_eq!((cell.world.as_str(), cell.scenarios), ("a", 2));
        // random on s2, s3: 0.5; oracle 1; the model 0.5: normalised 0
        assert_eq!((cell.random, cell.oracle), (Some(0.5), Some(1.0)));
        assert_eq!(cell.normalised, Some(0.0));
        assert_eq!(cell.vs_human, None, "no human run");
        assert!(!p.cells.iter().any(|c| c.model == "llm" && c.world == "b"));
        let random = p
            .cells
            .iter()
            .find(|c| c.model == "random" && c.world == "b")
            .unwrap();
        assert_eq!(random.normalised, Some(0.0));
        // one world: no profile
        let one: Vec<EpisodeRow> = rows.into_iter().filter(|r| r.world == "a").collect();
        assert!(profile(&RunSet::from_rows(&one), &[]).is_none());
    }
}
