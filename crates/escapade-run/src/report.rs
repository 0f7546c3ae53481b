//! Reports: metrics tables from one or more runs (`escapade report`).
//!
//! [`report`] reads the `episodes.jsonl` of each run directory, drops repeated
//! `(config_hash, scenario, epoch)` rows (the first wins), groups the rest by world and
//! difficulty (in a canonical order, so row order never changes a digit), and gives every metric as mean ± standard error
//! ([`escapade_core::metrics::MeanSe`]). Metrics, in column order: `success` (0/1),
//! `steps`, every key of the rows' world `metrics` maps (sorted; a row lacking a key does
//! not count towards it), then usage: `input_tokens`, `output_tokens`, `cost_usd`.
//!
//! JSON (the documented shape): `{"groups": [{"world", "difficulty", "n", "metrics":
//! {name: {"mean", "se"}}}], "overall": {world: {"n", "errors", "metrics"}}}`. CSV: one
//! row per group × metric (`world,difficulty,n,metric,mean,se`), overall rows with
//! difficulty `all`. Markdown: one table per world, a row per tier and an `all` row, a
//! column per metric as `mean ± se`; rate-like metrics (names ending in `_rate`,
//! `success`, `resolution`, `discovery`) are shown ×100 with one decimal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use escapade_core::EpisodeRow;
use escapade_core::metrics::MeanSe;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::rundir::{EPISODES, read_episodes};

/// Usage metrics appended after the world's metrics.
const USAGE_METRICS: [&str; 3] = ["input_tokens", "output_tokens", "cost_usd"];

/// A metric's mean and standard error over episodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Mean over the episodes that define the metric.
    pub mean: f64,
    /// Standard error of the mean (0 with fewer than two episodes).
    pub se: f64,
}

impl From<MeanSe> for Stat {
    fn from(m: MeanSe) -> Self {
        Stat {
            mean: m.mean,
            se: m.se,
        }
    }
}

/// The episodes of one world at one difficulty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// World name.
    pub world: String,
    /// Difficulty tier.
    pub difficulty: u32,
    /// Number of episodes.
    pub n: usize,
    /// Metric name → mean ± se, in column order.
    pub metrics: IndexMap<String, Stat>,
}

/// All episodes of one world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldSummary {
    /// Number of episodes.
    pub n: usize,
    /// Number of episodes that ended with an error.
    pub errors: usize,
    /// Metric name → mean ± se, in column order.
    pub metrics: IndexMap<String, Stat>,
}

/// Metrics tables over one or more runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Report {
    /// One group per (world, difficulty), sorted.
    pub groups: Vec<Group>,
    /// One summary per world, sorted by world name.
    pub overall: BTreeMap<String, WorldSummary>,
    /// Warnings met while reading (torn last lines); not part of the JSON.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// An output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown tables, one per world.
    Markdown,
    /// CSV, one row per group × metric.
    Csv,
    /// The documented JSON shape.
    Json,
}

impl FromStr for Format {
    type Err = RunError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "md" | "markdown" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            _ => Err(RunError::unknown("format", s, ["md", "csv", "json"])),
        }
    }
}

/// Reads the episodes of run directories (or `episodes.jsonl` files) and aggregates them.
pub fn report(dirs: &[PathBuf]) -> Result<Report> {
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for dir in dirs {
        let path = episodes_path(dir)?;
        let file = read_episodes(&path)?;
        warnings.extend(file.warnings);
        rows.extend(file.rows);
    }
    let mut report = Report::from_rows(&rows);
    report.warnings = warnings;
    Ok(report)
}

fn episodes_path(dir: &Path) -> Result<PathBuf> {
    if dir.is_file() && dir.extension().is_some_and(|e| e == "jsonl") {
        return Ok(dir.to_path_buf());
    }
    if !dir.is_dir() {
        return Err(RunError::io(
            "cannot open",
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such run directory"),
        ));
    }
    let path = dir.join(EPISODES);
    if !path.is_file() {
        return Err(RunError::NotARunDir {
            path: dir.to_path_buf(),
            missing: EPISODES,
        });
    }
    Ok(path)
}

fn is_percent(name: &str) -> bool {
    ["_rate", "success", "resolution", "discovery"]
        .iter()
        .any(|s| name.ends_with(s))
}

fn value(row: &EpisodeRow, name: &str) -> Option<f64> {
    match name {
        "success" => Some(if row.success { 1.0 } else { 0.0 }),
        "steps" => Some(f64::from(row.steps)),
        "input_tokens" => Some(row.usage.input as f64),
        "output_tokens" => Some(row.usage.output as f64),
        "cost_usd" => Some(row.usage.cost_usd),
        _ => row.metrics.get(name).copied(),
    }
}

fn metric_names(rows: &[&EpisodeRow]) -> Vec<String> {
    let builtin = ["success", "steps"];
    let world: BTreeSet<&String> = rows
        .iter()
        .flat_map(|r| r.metrics.keys())
        .filter(|k| !builtin.contains(&k.as_str()) && !USAGE_METRICS.contains(&k.as_str()))
        .collect();
    builtin
        .iter()
        .map(|s| s.to_string())
        .chain(world.into_iter().cloned())
        .chain(USAGE_METRICS.iter().map(|s| s.to_string()))
        .collect()
}

fn aggregate(rows: &[&EpisodeRow]) -> IndexMap<String, Stat> {
    metric_names(rows)
        .into_iter()
        .map(|name| {
            let xs: Vec<f64> = rows.iter().filter_map(|r| value(r, &name)).collect();
            let stat = Stat::from(MeanSe::of(&xs));
            (name, stat)
        })
        .collect()
}

impl Report {
    /// Aggregates episode rows (repeated `(config_hash, scenario, epoch)` rows count once).
    pub fn from_rows(rows: &[EpisodeRow]) -> Report {
        let mut seen = BTreeSet::new();
        let mut rows: Vec<&EpisodeRow> = rows
            .iter()
            .filter(|r| seen.insert((r.config_hash.as_str(), r.scenario.as_str(), r.epoch)))
            .collect();
        // a canonical order, so that sums (and so the last bits of means) do not depend
        // on the order in which concurrent workers finished
        rows.sort_by(|a, b| {
            (&a.scenario, a.epoch, &a.config_hash).cmp(&(&b.scenario, b.epoch, &b.config_hash))
        });
        let mut by_group: BTreeMap<(&str, u32), Vec<&EpisodeRow>> = BTreeMap::new();
        let mut by_world: BTreeMap<&str, Vec<&EpisodeRow>> = BTreeMap::new();
        for r in &rows {
            by_group
                .entry((r.world.as_str(), r.difficulty))
                .or_default()
                .push(r);
            by_world.entry(r.world.as_str()).or_default().push(r);
        }
        let groups = by_group
            .into_iter()
            .map(|((world, difficulty), rows)| Group {
                world: world.to_string(),
                difficulty,
                n: rows.len(),
                metrics: aggregate(&rows),
            })
            .collect();
        let overall = by_world
            .into_iter()
            .map(|(world, rows)| {
                let summary = WorldSummary {
                    n: rows.len(),
                    errors: rows.iter().filter(|r| r.error.is_some()).count(),
                    metrics: aggregate(&rows),
                };
                (world.to_string(), summary)
            })
            .collect();
        Report {
            groups,
            overall,
            warnings: Vec::new(),
        }
    }

    /// Number of episodes over all worlds.
    pub fn episodes(&self) -> usize {
        self.overall.values().map(|w| w.n).sum()
    }

    /// Number of episodes that ended with an error, over all worlds.
    pub fn errors(&self) -> usize {
        self.overall.values().map(|w| w.errors).sum()
    }

    /// Renders the report in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Json => serde_json::to_string_pretty(self).expect("a report serializes"),
            Format::Csv => self.csv(),
            Format::Markdown => self.markdown(),
        }
    }

    fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut rows: Vec<[String; 6]> = Vec::new();
        rows.push(["world", "difficulty", "n", "metric", "mean", "se"].map(String::from));
        let mut push = |world: &str, tier: String, n: usize, metrics: &IndexMap<String, Stat>| {
            for (name, s) in metrics {
                rows.push([
                    world.to_string(),
                    tier.clone(),
                    n.to_string(),
                    name.clone(),
                    s.mean.to_string(),
                    s.se.to_string(),
                ]);
            }
        };
        for g in &self.groups {
            push(&g.world, g.difficulty.to_string(), g.n, &g.metrics);
        }
        for (world, s) in &self.overall {
            push(world, "all".into(), s.n, &s.metrics);
        }
        for row in rows {
            w.write_record(&row)
                .expect("writing CSV to memory cannot fail");
        }
        String::from_utf8(w.into_inner().expect("in-memory writer")).expect("CSV of UTF-8")
    }

    fn markdown(&self) -> String {
        let mut out = String::from("# escapade report\n");
        if self.overall.is_empty() {
            out.push_str("\nNo finished episodes.\n");
            return out;
        }
        for (world, summary) in &self.overall {
            let names: Vec<&String> = summary.metrics.keys().collect();
            out.push_str(&format!("\n## {world}\n\n| difficulty | n |"));
            for name in &names {
                let unit = if is_percent(name) { " (%)" } else { "" };
                out.push_str(&format!(" {name}{unit} |"));
            }
            out.push_str("\n|---:|---:|");
            out.push_str(&"---:|".repeat(names.len()));
            out.push('\n');
            let row = |tier: String, n: usize, metrics: &IndexMap<String, Stat>| {
                let mut line = format!("| {tier} | {n} |");
                for name in &names {
                    match metrics.get(*name) {
                        Some(s) => line.push_str(&format!(" {} |", cell(name, s))),
                        None => line.push_str(" – |"),
                    }
                }
                line.push('\n');
                line
            };
            for g in self.groups.iter().filter(|g| &g.world == world) {
                out.push_str(&row(g.difficulty.to_string(), g.n, &g.metrics));
            }
            out.push_str(&row("all".into(), summary.n, &summary.metrics));
            out.push_str(&format!(
                "\nEpisodes with errors: {} of {}.\n",
                summary.errors, summary.n
            ));
        }
        out
    }
}

/// `mean ± se` with the precision the metric calls for.
fn cell(name: &str, s: &Stat) -> String {
    if is_percent(name) {
        return format!("{:.1} ± {:.1}", s.mean * 100.0, s.se * 100.0);
    }
    let decimals = match name {
        "cost_usd" => 4,
        "input_tokens" | "output_tokens" => 0,
        _ => 2,
    };
    format!("{:.*} ± {:.*}", decimals, s.mean, decimals, s.se)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_metrics_by_suffix() {
        for n in ["success", "discovery_rate", "node_resolution", "discovery"] {
            assert!(is_percent(n), "{n}");
        }
        for n in ["steps", "cost_usd", "success_steps"] {
            assert!(!is_percent(n), "{n}");
        }
        let s = Stat {
            mean: 0.5,
            se: 0.125,
        };
        assert_eq!(cell("success", &s), "50.0 ± 12.5");
        assert_eq!(cell("steps", &s), "0.50 ± 0.12");
        assert_eq!(cell("cost_usd", &s), "0.5000 ± 0.1250");
    }

    #[test]
    fn formats_parse() {
        assert_eq!("md".parse::<Format>().unwrap(), Format::Markdown);
        assert!("xml".parse::<Format>().is_err());
    }
}
