//! Reports: metrics tables from one or more runs (`escapade report`).
//!
//! A report compares *runs*, not directories: a run may be split over machines
//! (`--shard i/N`), resumed, or given twice, and its numbers must not depend on that.
//! So [`read_runs`] keys every input by the run it belongs to — the base hash of its
//! `run.toml` (the config hash with the shard cleared, equal for every shard of a run and
//! equal to the `config_hash` of an unsharded run), or the rows' `config_hash` for a bare
//! `episodes.jsonl` (or a directory without `run.toml`) — and merges the inputs of one run. Within a run each episode `(scenario, epoch)` counts
//! once: the first row that is not `retryable` wins; when every row of an episode is a
//! retryable error the last one is kept (a later attempt replaces a failed one). Shards
//! that overlap, shards that are missing, and episodes left with a retryable error are
//! reported as warnings, not errors: a partial report is still worth reading.
//!
//! [`report`] then groups each run's episodes by world and difficulty (in a canonical
//! order, so row order never changes a digit) and gives every metric as mean ± standard
//! error ([`escapade_core::metrics::MeanSe`]). Metrics, in column order: `success` (0/1),
//! `steps`, `regret` (steps taken minus the oracle's from the start, `start_steps_to_go`,
//! over won episodes, in the world's unit of `steps_to_go`; absent where the world cannot
//! say), every key of the rows' world `metrics` maps (sorted; a row lacking a key does
//! not count towards it), then usage per episode: `input_tokens`, `output_tokens`,
//! `cached_tokens`, `cost_usd`, `latency_ms` (time waiting for the model),
//! `step_latency_ms` (that latency divided by the episode's steps) and `duration_ms`
//! (wall time of the episode).
//!
//! Several runs are compared side by side: every [`Group`] and [`WorldSummary`] carries
//! the [`RunInfo::label`] of its run (the agent, its model option if any, and a short
//! base hash when two runs would otherwise share a label).
//!
//! JSON (the documented shape): `{"groups": [{"world", "difficulty", "label", "run", "n",
//! "metrics": {name: {"mean", "se", "n"}}}], "overall": {key: {"world", "run", "n", "errors",
//! "metrics"}}, "runs": [{"label", "agent", "base_hash", "dirs", "episodes", "errors",
//! "steps", "usage", "duration_ms", "departures"?}]}`, where an `overall` key is the
//! world, or `world/run` when several runs report on that world, a metric's `n` counts
//! the episodes that define it (a metric that does not apply to an episode is left out of
//! its row), and `departures` lists where a run left its suite's paper settings. CSV: one
//! row per group × metric (`world,difficulty,n,metric,mean,se,run`, `n` the metric's),
//! overall rows with difficulty `all`. Markdown: one table per world, a row per tier (and
//! per run, tier-major, when there are several) and `all` rows, a column per metric as
//! `mean ± se` — no `±` from a single value, and `(n=K)` when the metric is defined for
//! fewer episodes than the row; rate-like metrics (names
//! ending in `_rate`, `success`, `resolution`, `discovery`) are shown ×100 with one
//! decimal; usage columns that are zero throughout (baselines) are left out. A closing
//! "Usage" table gives each run's totals — tokens (reasoning tokens apart), cost, latency
//! per step, replies answered by the response cache and replies cut at the token limit —
//! which is what budgets are made of. With [`Report::per_scenario`] (`--per-scenario`) each world also
//! gets a table with a row per scenario (VisEscape's per-room results, Table 16), and the
//! JSON a `"scenarios"` list of `{"world", "scenario", "difficulty", "run", "n",
//! "metrics"}`; CSV keeps only the tier and overall rows. The terminal
//! ([`Format::Terminal`], what `escapade report` and `escapade run` print unless given
//! `--wide`) shows the same markdown with each world's key metrics
//! (`ReportSpec::key_metrics`, the paper's headline columns) and no line over
//! [`TERMINAL_WIDTH`] characters: a table still wider loses columns from the right and
//! says how many; `report.md` is always the full markdown.
//!
//! comma: tiers are puzzles, so the Markdown names them (`1 (wire)`), and a table per
//! capability category of COMMA §3.2 (Memory, Grounding, Reasoning, Privacy) gives SR
//! and PSR over the puzzles that test it ([`COMMA_PUZZLES`]; JSON `"capabilities"`).
//! With [`Report::per_turn`] (`--per-turn`, always on for comma) each run also gets
//! success had the episode been cut after k solver turns, k = 1..10 (COMMA Fig. 4; JSON
//! `"per_turn"`), read from the trajectories.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use escapade_core::metrics::MeanSe;
use escapade_core::report::Grouping;
use escapade_core::{EpisodeRow, Usage, World};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::rundir::{EPISODES, RUN_TOML, Shard, is_run_dir, read_episodes, read_run_toml};

/// Usage metrics appended after the world's metrics, in column order.
const USAGE_METRICS: [&str; 7] = [
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost_usd",
    "latency_ms",
    "step_latency_ms",
    "duration_ms",
];

/// Metrics every row defines, before the world's (`regret` only the won episodes of a
/// world that knows its oracle's distance: see [`value`]).
const BUILTIN_METRICS: [&str; 3] = ["success", "steps", "regret"];

/// Length of the base-hash prefix that tells runs apart in labels and tables.
const SHORT_HASH: usize = 8;

/// A metric's mean and standard error over episodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Mean over the episodes that define the metric.
    pub mean: f64,
    /// Standard error of the mean (0 with fewer than two episodes: tables then show no
    /// `±`).
    pub se: f64,
    /// Episodes that define the metric (a metric that does not apply to an episode is
    /// left out of its row, so this can be less than the group's `n`).
    #[serde(default)]
    pub n: usize,
    /// Lower bound of the mean's 95 % interval, bootstrapped over scenarios (the epochs
    /// of a scenario resampled together); absent with fewer than two scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lo: Option<f64>,
    /// Upper bound of the same interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hi: Option<f64>,
}

impl From<MeanSe> for Stat {
    fn from(m: MeanSe) -> Self {
        Stat {
            mean: m.mean,
            se: m.se,
            n: m.n,
            lo: None,
            hi: None,
        }
    }
}

impl Stat {
    /// The mean ± se of values grouped by scenario (each group a scenario's epochs),
    /// with the 95 % interval bootstrapped over scenarios, its resamples seeded by `key`
    /// (the same statistic gets the same resamples in every report).
    pub fn of_clusters(clusters: &[Vec<f64>], key: &str) -> Stat {
        let all: Vec<f64> = clusters.iter().flatten().copied().collect();
        let mut stat = Stat::from(MeanSe::of(&all));
        if let Some(ci) = crate::stats::bootstrap_ci(
            clusters,
            crate::stats::RESAMPLES,
            crate::stats::seed_for(key),
        ) {
            stat.lo = Some(ci.lo);
            stat.hi = Some(ci.hi);
        }
        stat
    }

    /// The 95 % interval, when there is one.
    pub fn interval(&self) -> Option<crate::stats::Interval> {
        Some(crate::stats::Interval {
            lo: self.lo?,
            hi: self.hi?,
        })
    }

    /// `mean [lo, hi]` scaled by `scale` with `decimals` digits; the mean alone without
    /// an interval.
    pub fn show_interval(&self, scale: f64, decimals: usize) -> String {
        let mut out = format!("{:.*}", decimals, self.mean * scale);
        if let (Some(lo), Some(hi)) = (self.lo, self.hi) {
            out.push_str(&format!(
                " [{:.*}, {:.*}]",
                decimals,
                lo * scale,
                decimals,
                hi * scale
            ));
        }
        out
    }

    /// `mean ± se` scaled by `scale` with `decimals` digits; no `±` from fewer than two
    /// values (a standard error of one value means nothing), and `(n=K)` when the metric
    /// is defined for `n` episodes other than the `of` episodes of its row.
    fn show(&self, scale: f64, decimals: usize, of: usize) -> String {
        let mut out = format!("{:.*}", decimals, self.mean * scale);
        if self.n >= 2 {
            out.push_str(&format!(" ± {:.*}", decimals, self.se * scale));
        }
        if self.n != of {
            out.push_str(&format!(" (n={})", self.n));
        }
        out
    }
}

/// The episodes of one run in one world at one difficulty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// World name.
    pub world: String,
    /// Difficulty tier.
    pub difficulty: u32,
    /// How tables name the tier (the world's tier label: `1 (wire)`, `3 (D3)`).
    #[serde(default)]
    pub label: String,
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// Number of episodes.
    pub n: usize,
    /// Metric name → mean ± se, in column order.
    pub metrics: IndexMap<String, Stat>,
}

/// The episodes of one run on one scenario (VisEscape reports per room, Table 16).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioGroup {
    /// World name.
    pub world: String,
    /// Scenario id.
    pub scenario: String,
    /// Difficulty tier.
    pub difficulty: u32,
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// Number of episodes (epochs).
    pub n: usize,
    /// Metric name → mean ± se, in column order.
    pub metrics: IndexMap<String, Stat>,
}

/// All episodes of one run in one world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldSummary {
    /// World name.
    pub world: String,
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// Number of episodes.
    pub n: usize,
    /// Number of episodes that ended with an error.
    pub errors: usize,
    /// Number of episodes the run's step cap (`--max-steps`) ended before the world did
    /// (not errors); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub step_capped: usize,
    /// Metric name → mean ± se, in column order.
    pub metrics: IndexMap<String, Stat>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One run of a report: where its episodes came from and what they cost in total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// How tables and plots name the run: the agent, its `model` option if any, and the
    /// first 8 characters of the base hash in brackets when another run of the report
    /// would have the same label.
    pub label: String,
    /// The agent spec (from `run.toml`, else the rows' agent name).
    pub agent: String,
    /// The agent's `model` option, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The hash of the run's config with the shard cleared (equal for all shards of the
    /// run, and to `config_hash` when unsharded); the rows' `config_hash` for inputs
    /// without `run.toml`.
    pub base_hash: String,
    /// The inputs (run directories or `episodes.jsonl` files) merged into this run.
    pub dirs: Vec<String>,
    /// Number of episodes, after merging.
    pub episodes: usize,
    /// Number of episodes that ended with an error.
    pub errors: usize,
    /// Total agent steps.
    pub steps: u64,
    /// Total usage: tokens, cost, and time waiting for the model.
    pub usage: Usage,
    /// Total wall time of the episodes in milliseconds (more than the run's wall time
    /// when episodes ran concurrently).
    pub duration_ms: u64,
    /// Where the run departs from its suite's paper settings (`epochs 1 (suite: 3)`);
    /// absent when it follows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub departures: Vec<String>,
}

/// Metrics tables over one or more runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Report {
    /// One group per (world, difficulty, run), sorted by world and difficulty, runs in
    /// the order of [`Report::runs`].
    pub groups: Vec<Group>,
    /// One summary per (world, run), sorted by world, runs in the order of
    /// [`Report::runs`]; keyed by the world, or by `world/run` when several runs report
    /// on that world.
    pub overall: IndexMap<String, WorldSummary>,
    /// The runs compared, in the order their first input was given.
    pub runs: Vec<RunInfo>,
    /// One group per (world, scenario, run), sorted by world and scenario; filled only
    /// when asked for ([`Report::per_scenario`], `escapade report --per-scenario`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenarios: Vec<ScenarioGroup>,
    /// The worlds' own cuts of their results (`World::breakdowns`: COMMA's capabilities,
    /// MM-Escape's exit-in-view split), one table per world and breakdown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breakdowns: Vec<BreakdownTable>,
    /// Success within the first k turns, per world and run (`World::turn_curve`: COMMA
    /// Fig. 4); filled for worlds that declare the curve, and for every world when asked
    /// ([`Report::per_turn`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_turn: Vec<TurnCurve>,
    /// Each run's headline metrics and tiers beside its world's paper: the paper's values
    /// and whether the run reproduces the one of its own model ([`crate::beside`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paper: Vec<crate::beside::Beside>,
    /// Runs of one suite compared on the scenarios both played: each later run against
    /// the first ([`crate::paired`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired: Vec<crate::paired::Comparison>,
    /// The capability profile, when the runs cover two worlds or more
    /// ([`crate::profile`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::profile::Profile>,
    /// What the key metrics of the report's worlds mean, from their papers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<Definition>,
    /// Warnings met while reading (torn last lines, overlapping or missing shards,
    /// episodes left with a retryable error); not part of the JSON.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Each world's key metrics (`ReportSpec::key_metrics`), for [`Format::Terminal`]; not
    /// part of the JSON.
    #[serde(skip)]
    pub key_metrics: BTreeMap<String, Vec<String>>,
    /// Each world's paper, for the tables' metric names; not part of the JSON.
    #[serde(skip)]
    pub papers: BTreeMap<String, escapade_core::paper::Paper>,
}

/// A metric of a world, for people (from the world's paper).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    /// World name.
    pub world: String,
    /// The metric's key (`success`).
    pub metric: String,
    /// Its name (`Success rate (SR)`).
    pub name: String,
    /// What it measures, in one line.
    pub definition: String,
    /// Where the paper defines it (`AgentEscapeBench §3.1, Table 1`).
    pub section: String,
}

/// One of a world's breakdowns ([`Breakdown`]) over the runs of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakdownTable {
    /// World name.
    pub world: String,
    /// The breakdown's key (`capabilities`, `exit_view`).
    pub name: String,
    /// Its heading (`per capability (COMMA §3.2)`).
    pub title: String,
    /// The heading of the column naming a group.
    pub column: String,
    /// The metrics shown, in column order.
    pub metrics: Vec<String>,
    /// One row per (tier, when the breakdown splits by tier; group; run).
    pub rows: Vec<BreakdownRow>,
}

/// The episodes of one run in one group of a breakdown (and one tier, when it splits by
/// tier).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakdownRow {
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// The tier, when the breakdown splits by tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<u32>,
    /// How the tables name the tier (the world's tier label).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// The group (`memory (memory, password, colour)`, `yes`).
    pub group: String,
    /// Number of episodes.
    pub n: usize,
    /// The breakdown's metrics, mean ± se.
    pub metrics: IndexMap<String, Stat>,
}

/// Success against the number of allowed turns for one run in one world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnCurve {
    /// World name.
    pub world: String,
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// The heading (the world's, or a plain one when `--per-turn` asked for it).
    pub title: String,
    /// Episodes counted (those whose trajectory could be read, or that failed).
    pub n: usize,
    /// Entry `k - 1`: the share of episodes solved within their first `k` turns,
    /// mean ± se.
    pub success: Vec<Stat>,
}

/// Turns drawn by `--per-turn` for a world that declares no curve of its own.
pub const PER_TURN_MAX: u32 = 10;

/// The worlds a report asks how to show their results (tier labels, breakdowns, the
/// turn curve); episodes of a world not among them are shown plainly.
pub type Worlds<'a> = &'a [&'a dyn World];

/// A world's key metrics (`ReportSpec::key_metrics`), owned.
pub(crate) fn key_metrics_of(world: &dyn World) -> Vec<String> {
    world
        .report()
        .key_metrics
        .iter()
        .map(|k| k.to_string())
        .collect()
}

fn world_named<'a>(worlds: Worlds<'a>, name: &str) -> Option<&'a dyn World> {
    worlds.iter().copied().find(|w| w.name() == name)
}

/// How tables name a tier of `world` whose episodes have the mean metrics `metrics`
/// (the world's `tier_label`; the number for a world not given).
fn label_of(
    worlds: Worlds<'_>,
    world: &str,
    difficulty: u32,
    metrics: &IndexMap<String, Stat>,
) -> String {
    match world_named(worlds, world) {
        Some(w) => {
            let means: BTreeMap<String, f64> =
                metrics.iter().map(|(k, s)| (k.clone(), s.mean)).collect();
            w.report().tier(difficulty, &means)
        }
        None => difficulty.to_string(),
    }
}

/// Whether an episode was solved within its first `k` counted turns, for k = 1..=`max`:
/// `turns` is the number of counted turns the episode took (its solver steps); an
/// unsolved episode is unsolved at every k.
pub fn success_within(success: bool, turns: u32, max: u32) -> Vec<bool> {
    (1..=max).map(|k| success && turns <= k).collect()
}

/// The step rows' fields [`Report::per_turn`] reads.
#[derive(Deserialize)]
struct TurnRow {
    #[serde(default)]
    role: Option<String>,
}

/// The counted turns of an episode's trajectory: the steps of `role` when any step names
/// it, else every step. `None` when the trajectory cannot be read.
fn counted_turns(dir: &Path, row: &EpisodeRow, role: Option<&str>) -> Option<u32> {
    let path = dir
        .join(crate::rundir::TRAJECTORIES)
        .join(crate::suite::file_stem(&row.scenario))
        .join(format!("{}.jsonl", row.epoch));
    let text = std::fs::read_to_string(path).ok()?;
    let roles: Vec<Option<String>> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<TurnRow>(l).ok())
        .map(|r| r.role)
        .collect();
    let theirs = match role {
        Some(role) => roles.iter().filter(|r| r.as_deref() == Some(role)).count(),
        None => 0,
    };
    Some(match theirs {
        0 => roles.len(),
        n => n,
    } as u32)
}

/// An output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown tables, one per world, and a usage table.
    Markdown,
    /// CSV, one row per group × metric.
    Csv,
    /// The documented JSON shape.
    Json,
    /// Markdown for a terminal: each world's key metrics (`ReportSpec::key_metrics`), every
    /// line at most [`TERMINAL_WIDTH`] characters (wider tables lose columns from the
    /// right, and say so; long sentences are wrapped).
    Terminal,
}

/// The widest line [`Format::Terminal`] prints.
pub const TERMINAL_WIDTH: usize = 120;

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

/// One episode kept for a report, and the run directory that holds its trajectory.
#[derive(Debug, Clone, PartialEq)]
pub struct Episode {
    /// The row that counts for this episode.
    pub row: EpisodeRow,
    /// The run directory the row was read from (trajectories live under it); `None` for
    /// rows given in memory ([`Report::from_rows`]).
    pub dir: Option<PathBuf>,
}

/// One run read from its inputs: the shards (or repeats) of one run, merged, with one
/// episode per `(scenario, epoch)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// How tables and plots name the run (see [`RunInfo::label`]).
    pub label: String,
    /// The agent spec (from `run.toml`, else the rows' agent name).
    pub agent: String,
    /// The agent's `model` option, when it has one.
    pub model: Option<String>,
    /// The run's base hash (the rows' `config_hash` for inputs without `run.toml`).
    pub base_hash: String,
    /// The inputs merged into this run, in the order given.
    pub dirs: Vec<PathBuf>,
    /// Where the run's config departs from its suite's paper settings
    /// ([`crate::settings::departures`]); empty without `run.toml`.
    pub departures: Vec<String>,
    /// The suite it ran (`visescape@3`; the rows' suite without `run.toml`).
    pub suite: String,
    /// The agent's options (empty without `run.toml`).
    pub agent_options: BTreeMap<String, String>,
    /// The world options (`-W`; empty without `run.toml`).
    pub world_options: BTreeMap<String, String>,
    /// What each model player's requests carried (`agent`, `expert`:
    /// [`crate::settings::sent`]); empty without `run.toml` and for baselines.
    pub sent: BTreeMap<String, BTreeMap<String, String>>,
    /// The episodes, sorted by scenario id and epoch.
    pub episodes: Vec<Episode>,
}

impl Run {
    /// What a paper's settings match a run by ([`escapade_core::paper::Setting`]).
    pub fn traits(&self) -> escapade_core::paper::RunTraits<'_> {
        escapade_core::paper::RunTraits {
            suite: &self.suite,
            agent: &self.agent,
            agent_options: &self.agent_options,
            world_options: &self.world_options,
        }
    }
}

/// Runs read from run directories (see [`read_runs`]) and the warnings met.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSet {
    /// The runs, in the order their first input was given.
    pub runs: Vec<Run>,
    /// Torn last lines, overlapping or missing shards, ignored rows, episodes left with a
    /// retryable error.
    pub warnings: Vec<String>,
}

/// Reads run directories (or `episodes.jsonl` files) and aggregates them: the inputs of
/// one run are merged, distinct runs are compared side by side (see the module docs).
pub fn report(dirs: &[PathBuf], worlds: Worlds<'_>) -> Result<Report> {
    let set = read_runs(dirs)?;
    Ok(Report::from_runs(&set, worlds).with_usual_extras(&set, worlds))
}

/// One input of a report, read.
struct Input {
    /// The path given.
    path: Option<PathBuf>,
    /// The run directory (for trajectories): the path, or a bare file's parent.
    dir: Option<PathBuf>,
    /// `(config, recorded config hash)` from `run.toml`, when there is one.
    config: Option<(crate::rundir::RunConfig, String)>,
    /// The rows of its `episodes.jsonl`, in file order.
    rows: Vec<EpisodeRow>,
}

/// Reads the inputs of a report and merges them into runs: inputs with the same base
/// hash (the shards of one run, or one directory given twice) become one [`Run`] with one
/// episode per `(scenario, epoch)`. Runs come in the order their first input was given.
pub fn read_runs(dirs: &[PathBuf]) -> Result<RunSet> {
    let mut inputs = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = BTreeSet::new();
    // a folder that is no run directory stands for the runs below it (as `view` reads it)
    let mut expanded = Vec::with_capacity(dirs.len());
    for given in dirs {
        let runs = if given.is_dir() && !given.join(EPISODES).is_file() && !is_run_dir(given) {
            crate::rundir::runs_below(given)
        } else {
            Vec::new()
        };
        if runs.is_empty() {
            expanded.push(given.clone());
        } else {
            expanded.extend(runs);
        }
    }
    for given in &expanded {
        let (file, dir) = episodes_path(given)?;
        // the same directory given twice (or through another path) is read once
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if !seen.insert(canonical) {
            continue;
        }
        let config = match &dir {
            Some(d) if d.join(RUN_TOML).is_file() && !given.is_file() => {
                let toml = read_run_toml(d)?;
                Some((toml.config, toml.config_hash))
            }
            _ => None,
        };
        let read = read_episodes(&file)?;
        warnings.extend(read.warnings);
        let mut rows = read.rows;
        if let Some((_, hash)) = &config {
            let foreign = rows.iter().filter(|r| &r.config_hash != hash).count();
            if foreign > 0 {
                warnings.push(format!(
                    "{}: ignoring {foreign} row(s) with another config hash than run.toml's",
                    file.display()
                ));
                rows.retain(|r| &r.config_hash == hash);
            }
        }
        inputs.push(Input {
            path: Some(given.clone()),
            dir,
            config,
            rows,
        });
    }
    let mut set = assemble(inputs);
    warnings.append(&mut set.warnings);
    set.warnings = warnings;
    Ok(set)
}

/// The `episodes.jsonl` of an input, and the run directory it belongs to.
fn episodes_path(given: &Path) -> Result<(PathBuf, Option<PathBuf>)> {
    if given.is_file() && given.extension().is_some_and(|e| e == "jsonl") {
        let parent = given
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        return Ok((given.to_path_buf(), Some(parent)));
    }
    if !given.is_dir() {
        return Err(RunError::io(
            "cannot open",
            given,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such run directory"),
        ));
    }
    let path = given.join(EPISODES);
    if !path.is_file() {
        return Err(RunError::NotARunDir {
            path: given.to_path_buf(),
            missing: EPISODES,
        });
    }
    Ok((path, Some(given.to_path_buf())))
}

/// A run being put together from its inputs.
struct Building {
    base_hash: String,
    agent: String,
    model: Option<String>,
    /// The expert's spec and model, when the run gave the expert its own agent.
    expert: Option<String>,
    /// Departures from the suite's settings (from `run.toml`).
    departures: Vec<String>,
    /// The suite, agent options and world options (from `run.toml`, else the rows'
    /// suite).
    suite: String,
    agent_options: BTreeMap<String, String>,
    world_options: BTreeMap<String, String>,
    sent: BTreeMap<String, BTreeMap<String, String>>,
    /// Indices into the inputs, in order, each with its shard (`None`: unsharded or
    /// unknown) and whether it has a `run.toml`.
    inputs: Vec<(usize, Option<Shard>, bool)>,
    /// `(input index, row)` in input order, then file order.
    rows: Vec<(usize, EpisodeRow)>,
}

/// Merges inputs into runs, deduplicates episodes, and labels the runs.
fn assemble(inputs: Vec<Input>) -> RunSet {
    let mut building: IndexMap<String, Building> = IndexMap::new();
    let mut paths = Vec::with_capacity(inputs.len());
    let mut dirs = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.into_iter().enumerate() {
        paths.push(input.path);
        dirs.push(input.dir);
        match input.config {
            Some((config, _)) => {
                let key = crate::rundir::RunConfig::base_hash(&config);
                let run = building.entry(key.clone()).or_insert_with(|| Building {
                    base_hash: key,
                    agent: config.agent.clone(),
                    // a model's name, or the label of the person who played (play --record)
                    model: config
                        .agent_options
                        .get("model")
                        .or_else(|| config.agent_options.get(crate::play::PARTICIPANT))
                        .cloned(),
                    expert: config.expert.as_ref().map(|e| {
                        match config
                            .expert_options
                            .get("model")
                            .or_else(|| config.expert_options.get(crate::play::PARTICIPANT))
                        {
                            Some(m) => format!("{e} {m}"),
                            None => e.clone(),
                        }
                    }),
                    departures: crate::settings::departures(&config),
                    suite: config.suite.clone(),
                    agent_options: config.agent_options.clone(),
                    world_options: config.world_options.clone(),
                    sent: crate::settings::sent(&config),
                    inputs: Vec::new(),
                    rows: Vec::new(),
                });
                run.inputs.push((i, config.shard, true));
                run.rows.extend(input.rows.into_iter().map(|r| (i, r)));
            }
            None => {
                for row in input.rows {
                    let run = building
                        .entry(row.config_hash.clone())
                        .or_insert_with(|| Building {
                            base_hash: row.config_hash.clone(),
                            agent: row.agent.clone(),
                            model: None,
                            expert: None,
                            departures: Vec::new(),
                            suite: row.suite.clone(),
                            agent_options: BTreeMap::new(),
                            world_options: BTreeMap::new(),
                            sent: BTreeMap::new(),
                            inputs: Vec::new(),
                            rows: Vec::new(),
                        });
                    if run.inputs.last().is_none_or(|(j, _, _)| *j != i) {
                        run.inputs.push((i, None, false));
                    }
                    run.rows.push((i, row));
                }
            }
        }
    }
    let labels = labels(building.values());
    let name = |i: usize| match &paths[i] {
        Some(p) => p.display().to_string(),
        None => "(rows)".to_string(),
    };
    let mut warnings = Vec::new();
    let mut runs = Vec::with_capacity(building.len());
    for (run, label) in building.into_values().zip(labels) {
        shard_warnings(&run, &label, &name, &mut warnings);
        let mut by_episode: BTreeMap<(String, u32), Vec<usize>> = BTreeMap::new();
        for (k, (_, row)) in run.rows.iter().enumerate() {
            by_episode
                .entry((row.scenario.clone(), row.epoch))
                .or_default()
                .push(k);
        }
        // overlaps: (first input, other input) → (count, an example)
        let mut overlaps: BTreeMap<(usize, usize), (usize, (String, u32))> = BTreeMap::new();
        let mut episodes = Vec::with_capacity(by_episode.len());
        for (key, candidates) in by_episode {
            let mut sources: Vec<usize> = Vec::new();
            for &k in &candidates {
                let i = run.rows[k].0;
                if !sources.contains(&i) {
                    sources.push(i);
                }
            }
            for &other in &sources[1..] {
                let entry = overlaps
                    .entry((sources[0], other))
                    .or_insert_with(|| (0, key.clone()));
                entry.0 += 1;
            }
            let chosen = candidates
                .iter()
                .copied()
                .find(|&k| !run.rows[k].1.retryable)
                .unwrap_or(*candidates.last().expect("an episode has a row"));
            let (i, row) = &run.rows[chosen];
            episodes.push(Episode {
                row: row.clone(),
                dir: dirs[*i].clone(),
            });
        }
        for ((a, b), (n, (scenario, epoch))) in overlaps {
            warnings.push(format!(
                "run `{label}`: {} and {} both hold {n} episode(s) (e.g. `{scenario}` epoch \
                 {epoch}); each episode counts once",
                name(a),
                name(b)
            ));
        }
        let retryable = episodes.iter().filter(|e| e.row.retryable).count();
        if retryable > 0 {
            warnings.push(format!(
                "run `{label}`: {retryable} episode(s) ended with a retryable error and count \
                 as failures; `escapade resume` plays them again"
            ));
        }
        let mut inputs: Vec<PathBuf> = Vec::new();
        for (i, _, _) in &run.inputs {
            if let Some(p) = &paths[*i] {
                inputs.push(p.clone());
            }
        }
        runs.push(Run {
            label,
            agent: run.agent,
            model: run.model,
            base_hash: run.base_hash,
            dirs: inputs,
            departures: run.departures,
            suite: run.suite,
            agent_options: run.agent_options,
            world_options: run.world_options,
            sent: run.sent,
            episodes,
        });
    }
    RunSet { runs, warnings }
}

/// Warns when the shards of a run do not cover it: some index of a known count is absent.
fn shard_warnings(
    run: &Building,
    label: &str,
    name: &dyn Fn(usize) -> String,
    warnings: &mut Vec<String>,
) {
    // an unsharded directory (or one without run.toml) may hold any part of the run
    if run
        .inputs
        .iter()
        .any(|(_, shard, has_toml)| shard.is_none() || !has_toml)
    {
        return;
    }
    let mut by_count: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (_, shard, _) in &run.inputs {
        if let Some(s) = shard {
            by_count.entry(s.count).or_default().insert(s.index);
        }
    }
    for (count, present) in by_count {
        let missing: Vec<String> = (1..=count)
            .filter(|i| !present.contains(i))
            .map(|i| format!("{i}/{count}"))
            .collect();
        if !missing.is_empty() {
            let given: Vec<String> = run.inputs.iter().map(|(i, _, _)| name(*i)).collect();
            warnings.push(format!(
                "run `{label}`: shard(s) {} missing (given: {}); the report covers part of \
                 the run",
                missing.join(", "),
                given.join(", ")
            ));
        }
    }
}

/// Labels of runs: agent and model, with a short base hash where two would collide.
fn labels<'a>(runs: impl Iterator<Item = &'a Building>) -> Vec<String> {
    let runs: Vec<&Building> = runs.collect();
    let plain: Vec<String> = runs
        .iter()
        .map(|r| {
            let agent = match &r.model {
                Some(model) => format!("{} {model}", r.agent),
                None => r.agent.clone(),
            };
            match &r.expert {
                Some(expert) => format!("{agent}, expert {expert}"),
                None => agent,
            }
        })
        .collect();
    plain
        .iter()
        .zip(&runs)
        .map(|(label, run)| {
            if plain.iter().filter(|l| *l == label).count() > 1 {
                format!("{label} [{}]", short(&run.base_hash))
            } else {
                label.clone()
            }
        })
        .collect()
}

/// The first [`SHORT_HASH`] characters of a hash.
fn short(hash: &str) -> &str {
    hash.char_indices()
        .nth(SHORT_HASH)
        .map_or(hash, |(i, _)| &hash[..i])
}

/// Whether a metric is a share the tables show as a percentage.
pub(crate) fn is_percent(name: &str) -> bool {
    // VisEscape's shares (§4.2, Table 6, App. C.2, C.3) and COMMA's partial success and
    // leaks (§4.2, §5.3) are percentages in the papers too
    const SHARES: [&str; 10] = [
        "psr",
        "leaked",
        "gc",
        "spl",
        "repeated_action_ratio",
        "brute_force_ratio",
        "essential_views_seen",
        "essential_views_seen_100",
        "pass_at_1",
        "pass_at_k",
    ];
    SHARES.contains(&name)
        || name.starts_with("pass@")
        || name.starts_with("pass^")
        || ["_rate", "success", "resolution", "discovery"]
            .iter()
            .any(|s| name.ends_with(s))
}

/// An episode's value of a metric: success (0/1), steps, usage, or one of its world's
/// metrics.
pub(crate) fn value(row: &EpisodeRow, name: &str) -> Option<f64> {
    match name {
        "success" => Some(if row.success { 1.0 } else { 0.0 }),
        "steps" => Some(f64::from(row.steps)),
        // issue 29: steps taken minus the oracle's from the start, over won episodes
        // (a lost one has no path to compare); absent where the world cannot say
        "regret" => row
            .start_steps_to_go
            .filter(|_| row.success)
            .map(|d| f64::from(row.steps) - f64::from(d)),
        "input_tokens" => Some(row.usage.input as f64),
        "output_tokens" => Some(row.usage.output as f64),
        "cached_tokens" => Some(row.usage.cached as f64),
        "cost_usd" => Some(row.usage.cost_usd),
        "latency_ms" => Some(row.usage.latency_ms as f64),
        "step_latency_ms" => {
            (row.steps > 0).then(|| row.usage.latency_ms as f64 / f64::from(row.steps))
        }
        "duration_ms" => Some(row.duration_ms as f64),
        _ => row.metrics.get(name).copied(),
    }
}

fn is_reserved(name: &str) -> bool {
    BUILTIN_METRICS.contains(&name) || USAGE_METRICS.contains(&name)
}

/// Column order: built-in metrics, the world's (sorted), then usage.
fn ordered<'a>(world: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let world: BTreeSet<&str> = world.into_iter().filter(|k| !is_reserved(k)).collect();
    BUILTIN_METRICS
        .iter()
        .copied()
        .chain(world)
        .chain(USAGE_METRICS)
        .map(str::to_string)
        .collect()
}

/// Every metric of `rows` with its interval over scenarios, in column order, and with
/// several epochs pass@k and pass^k for success; `key` names the group (world and tier)
/// to seed the resamples.
fn aggregate(rows: &[&EpisodeRow], key: &str) -> IndexMap<String, Stat> {
    // rows by scenario, in canonical (scenario) order
    let mut by_scenario: BTreeMap<&str, Vec<&EpisodeRow>> = BTreeMap::new();
    for r in rows {
        by_scenario.entry(r.scenario.as_str()).or_default().push(r);
    }
    let mut out: IndexMap<String, Stat> = ordered(
        rows.iter()
            .flat_map(|r| r.metrics.keys().map(String::as_str)),
    )
    .into_iter()
    .filter_map(|name| {
        let clusters: Vec<Vec<f64>> = by_scenario
            .values()
            .map(|rs| rs.iter().filter_map(|r| value(r, &name)).collect())
            .collect();
        // only `step_latency_ms` (no steps at all) and `regret` (no distance, or no
        // episode won) can be undefined for every row
        clusters.iter().any(|c| !c.is_empty()).then(|| {
            let stat = Stat::of_clusters(&clusters, &format!("{key}/{name}"));
            (name, stat)
        })
    })
    .collect();
    let passes = pass_metrics(&by_scenario, key);
    if !passes.is_empty() {
        // right after success, where a reader looks for them
        let mut with = IndexMap::new();
        for (name, stat) in out.drain(..) {
            let after_success = name == "success";
            with.insert(name, stat);
            if after_success {
                with.extend(passes.iter().map(|(k, v)| (k.clone(), *v)));
            }
        }
        out = with;
    }
    out
}

/// pass@k and pass^k (`pass@2`, `pass^2`, …) for k = 2 up to the fewest epochs a scenario
/// of the group has (k = 1 is the success rate itself): each scenario's unbiased
/// estimate from its `n` epochs and `c` successes, averaged over scenarios, with an
/// interval bootstrapped over scenarios. Empty with one epoch per scenario.
fn pass_metrics(by_scenario: &BTreeMap<&str, Vec<&EpisodeRow>>, key: &str) -> Vec<(String, Stat)> {
    let Some(k_max) = by_scenario.values().map(|rs| rs.len() as u64).min() else {
        return Vec::new();
    };
    let counts: Vec<(u64, u64)> = by_scenario
        .values()
        .map(|rs| {
            (
                rs.len() as u64,
                rs.iter().filter(|r| r.success).count() as u64,
            )
        })
        .collect();
    let mut out = Vec::new();
    for k in 2..=k_max {
        for (name, f) in [
            (
                format!("pass@{k}"),
                crate::stats::pass_at_k as fn(u64, u64, u64) -> Option<f64>,
            ),
            (format!("pass^{k}"), crate::stats::pass_hat_k),
        ] {
            let clusters: Vec<Vec<f64>> = counts
                .iter()
                .filter_map(|&(n, c)| f(n, c, k))
                .map(|x| vec![x])
                .collect();
            out.push((
                name.clone(),
                Stat::of_clusters(&clusters, &format!("{key}/{name}")),
            ));
        }
    }
    out
}

/// Each given world's breakdowns over the runs of `set`: a row per (tier, if split;
/// group; run) with at least one episode.
fn breakdown_tables(set: &RunSet, worlds: Worlds<'_>) -> Vec<BreakdownTable> {
    let present: BTreeSet<&str> = set
        .runs
        .iter()
        .flat_map(|r| r.episodes.iter().map(|e| e.row.world.as_str()))
        .collect();
    let mut tables = Vec::new();
    for world in present {
        let Some(w) = world_named(worlds, world) else {
            continue;
        };
        for b in w.report().breakdowns {
            // (tier, group order, run) → rows
            let labels: Vec<String> = match &b.by {
                Grouping::Metric { values, .. } => values.iter().map(|(_, l)| l.clone()).collect(),
                Grouping::Tiers(groups) => groups.iter().map(|(l, _)| l.clone()).collect(),
            };
            let mut cells: BTreeMap<(Option<u32>, usize, usize), Vec<&EpisodeRow>> =
                BTreeMap::new();
            for (k, run) in set.runs.iter().enumerate() {
                for r in run
                    .episodes
                    .iter()
                    .map(|e| &e.row)
                    .filter(|r| r.world == world)
                {
                    for g in b.by.groups_of(r.difficulty, |m| value(r, m)) {
                        let gi = labels.iter().position(|l| l == g).unwrap_or(0);
                        let tier = b.per_tier.then_some(r.difficulty);
                        cells.entry((tier, gi, k)).or_default().push(r);
                    }
                }
            }
            if cells.is_empty() {
                continue;
            }
            let rows = cells
                .into_iter()
                .map(|((tier, gi, k), rows)| {
                    let mut metrics = IndexMap::new();
                    for name in &b.metrics {
                        // by scenario, so the interval resamples scenarios
                        let mut clusters: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
                        for r in &rows {
                            if let Some(x) = value(r, name) {
                                clusters.entry(r.scenario.as_str()).or_default().push(x);
                            }
                        }
                        if !clusters.is_empty() {
                            let clusters: Vec<Vec<f64>> = clusters.into_values().collect();
                            let key = format!("{world}/{}/{gi}/{tier:?}/{name}", b.name);
                            metrics.insert(name.clone(), Stat::of_clusters(&clusters, &key));
                        }
                    }
                    BreakdownRow {
                        run: set.runs[k].label.clone(),
                        difficulty: tier,
                        tier: tier.map(|d| w.report().tier(d, &BTreeMap::new())),
                        group: labels[gi].clone(),
                        n: rows.len(),
                        metrics,
                    }
                })
                .collect();
            tables.push(BreakdownTable {
                world: world.to_string(),
                name: b.name,
                title: b.title,
                column: b.column,
                metrics: b.metrics,
                rows,
            });
        }
    }
    tables
}

impl RunSet {
    /// Episode rows given in memory, as if read from one bare `episodes.jsonl`: one run
    /// per `config_hash`.
    pub fn from_rows(rows: &[EpisodeRow]) -> RunSet {
        assemble(vec![Input {
            path: None,
            dir: None,
            config: None,
            rows: rows.to_vec(),
        }])
    }
}

impl Report {
    /// Aggregates episode rows as if read from one bare `episodes.jsonl`: one run per
    /// `config_hash`, one episode per `(scenario, epoch)` within it.
    pub fn from_rows(rows: &[EpisodeRow]) -> Report {
        Report::from_runs(&RunSet::from_rows(rows), &[])
    }

    /// Aggregates runs read by [`read_runs`]; the warnings are carried over. `worlds` say
    /// how their tiers are named and which breakdowns their papers draw.
    pub fn from_runs(set: &RunSet, worlds: Worlds<'_>) -> Report {
        // (world, difficulty, run index) → rows; episodes are already in canonical order,
        // so sums (and so the last bits of means) do not depend on the order in which
        // concurrent workers finished
        let mut by_group: BTreeMap<(&str, u32, usize), Vec<&EpisodeRow>> = BTreeMap::new();
        let mut by_world: BTreeMap<(&str, usize), Vec<&EpisodeRow>> = BTreeMap::new();
        for (k, run) in set.runs.iter().enumerate() {
            for e in &run.episodes {
                let r = &e.row;
                by_group
                    .entry((r.world.as_str(), r.difficulty, k))
                    .or_default()
                    .push(r);
                by_world.entry((r.world.as_str(), k)).or_default().push(r);
            }
        }
        let groups: Vec<Group> = by_group
            .into_iter()
            .map(|((world, difficulty, k), rows)| {
                let metrics = aggregate(&rows, &format!("{world}/{difficulty}"));
                Group {
                    world: world.to_string(),
                    difficulty,
                    label: label_of(worlds, world, difficulty, &metrics),
                    run: set.runs[k].label.clone(),
                    n: rows.len(),
                    metrics,
                }
            })
            .collect();
        let mut runs_per_world: BTreeMap<&str, usize> = BTreeMap::new();
        for (world, _) in by_world.keys() {
            *runs_per_world.entry(world).or_default() += 1;
        }
        let overall: IndexMap<String, WorldSummary> = by_world
            .into_iter()
            .map(|((world, k), rows)| {
                let run = &set.runs[k].label;
                let key = if runs_per_world[world] > 1 {
                    format!("{world}/{run}")
                } else {
                    world.to_string()
                };
                let summary = WorldSummary {
                    world: world.to_string(),
                    run: run.clone(),
                    n: rows.len(),
                    errors: rows.iter().filter(|r| crate::ending::is_error(r)).count(),
                    step_capped: rows.iter().filter(|r| r.step_cap).count(),
                    metrics: aggregate(&rows, &format!("{world}/all")),
                };
                (key, summary)
            })
            .collect();
        let runs = set.runs.iter().map(run_info).collect();
        let breakdowns = breakdown_tables(set, worlds);
        let key_metrics = worlds
            .iter()
            .map(|w| (w.name().to_string(), key_metrics_of(*w)))
            .collect();
        let paper = crate::beside::beside(set, worlds, &groups, &overall);
        let papers = worlds
            .iter()
            .filter_map(|w| Some((w.name().to_string(), w.paper()?)))
            .collect();
        let paired = paired_runs(set, worlds);
        let profile = crate::profile::profile(set, worlds);
        let definitions = definitions(&overall, worlds);
        Report {
            groups,
            overall,
            runs,
            scenarios: Vec::new(),
            breakdowns,
            per_turn: Vec::new(),
            paper,
            paired,
            profile,
            definitions,
            warnings: set.warnings.clone(),
            key_metrics,
            papers,
        }
    }

    /// Adds what a world's report always shows: the turn curve of each world that
    /// declares one (`World::turn_curve`). `escapade run`, `report.md` and `escapade
    /// report` agree.
    pub fn with_usual_extras(self, set: &RunSet, worlds: Worlds<'_>) -> Report {
        let curves = set.runs.iter().any(|r| {
            r.episodes.iter().any(|e| {
                world_named(worlds, &e.row.world).is_some_and(|w| w.report().turn_curve.is_some())
            })
        });
        if curves {
            self.per_turn(set, worlds)
        } else {
            self
        }
    }

    /// Adds, per (world, run) of `set`, success within the first k turns for k = 1..=max,
    /// from the trajectories: as the world's turn curve counts them (COMMA Fig. 4: the
    /// solver's turns, up to 10), else every step up to [`PER_TURN_MAX`]. An episode that
    /// ended with an error counts as unsolved; one whose trajectory cannot be read is left
    /// out with a warning.
    pub fn per_turn(mut self, set: &RunSet, worlds: Worlds<'_>) -> Report {
        let spec = |world: &str| {
            world_named(worlds, world)
                .and_then(|w| w.report().turn_curve)
                .unwrap_or_else(|| escapade_core::report::TurnCurve {
                    role: None,
                    max: PER_TURN_MAX,
                    title: "success within k steps".into(),
                })
        };
        let mut specs: BTreeMap<&str, escapade_core::report::TurnCurve> = BTreeMap::new();
        let mut by: BTreeMap<(&str, usize), Vec<Vec<bool>>> = BTreeMap::new();
        let mut unread = 0usize;
        for (k, run) in set.runs.iter().enumerate() {
            for e in &run.episodes {
                let r = &e.row;
                let curve = specs
                    .entry(r.world.as_str())
                    .or_insert_with(|| spec(&r.world));
                let solved = r.success && r.error.is_none();
                let turns = match (&e.dir, solved) {
                    (_, false) => 0,
                    (Some(dir), true) => match counted_turns(dir, r, curve.role.as_deref()) {
                        Some(t) => t,
                        None => {
                            unread += 1;
                            continue;
                        }
                    },
                    (None, true) => {
                        unread += 1;
                        continue;
                    }
                };
                by.entry((r.world.as_str(), k))
                    .or_default()
                    .push(success_within(solved, turns, curve.max));
            }
        }
        if unread > 0 {
            self.warnings.push(format!(
                "per-turn success: {unread} solved episode(s) left out (no readable trajectory)"
            ));
        }
        self.per_turn = by
            .into_iter()
            .map(|((world, k), episodes)| {
                let curve = &specs[world];
                TurnCurve {
                    world: world.to_string(),
                    run: set.runs[k].label.clone(),
                    title: curve.title.clone(),
                    n: episodes.len(),
                    success: (0..curve.max as usize)
                        .map(|i| {
                            let xs: Vec<f64> = episodes
                                .iter()
                                .map(|e| if e[i] { 1.0 } else { 0.0 })
                                .collect();
                            Stat::from(MeanSe::of(&xs))
                        })
                        .collect(),
                }
            })
            .collect();
        self
    }

    /// Adds one group per (world, scenario, run) of `set`: the per-room table.
    pub fn per_scenario(mut self, set: &RunSet) -> Report {
        let mut by: BTreeMap<(&str, &str, usize), Vec<&EpisodeRow>> = BTreeMap::new();
        for (k, run) in set.runs.iter().enumerate() {
            for e in &run.episodes {
                by.entry((e.row.world.as_str(), e.row.scenario.as_str(), k))
                    .or_default()
                    .push(&e.row);
            }
        }
        self.scenarios = by
            .into_iter()
            .map(|((world, scenario, k), rows)| ScenarioGroup {
                world: world.to_string(),
                scenario: scenario.to_string(),
                difficulty: rows[0].difficulty,
                run: set.runs[k].label.clone(),
                n: rows.len(),
                metrics: aggregate(&rows, &format!("{world}/{scenario}")),
            })
            .collect();
        self
    }

    /// Number of episodes over all worlds and runs.
    pub fn episodes(&self) -> usize {
        self.overall.values().map(|w| w.n).sum()
    }

    /// Number of episodes that ended with an error, over all worlds and runs.
    pub fn errors(&self) -> usize {
        self.overall.values().map(|w| w.errors).sum()
    }

    /// Renders the report in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Json => serde_json::to_string_pretty(self).expect("a report serializes"),
            Format::Csv => self.csv(),
            Format::Markdown => self.markdown(false),
            Format::Terminal => fit(&self.markdown(true), TERMINAL_WIDTH),
        }
    }

    fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut rows: Vec<[String; 12]> = Vec::new();
        rows.push(
            [
                "world",
                "difficulty",
                "n",
                "metric",
                "mean",
                "se",
                "run",
                "lo",
                "hi",
                "paper_model",
                "paper_value",
                "paper_verdict",
            ]
            .map(String::from),
        );
        let opt = |x: Option<f64>| x.map_or_else(String::new, |x| x.to_string());
        let mut push = |world: &str,
                        tier: String,
                        difficulty: Option<u32>,
                        run: &str,
                        metrics: &IndexMap<String, Stat>| {
            // each metric's own n: it can be defined for fewer episodes than the group
            for (name, s) in metrics {
                let verdict = self
                    .paper
                    .iter()
                    .find(|b| {
                        b.world == world
                            && b.run == run
                            && &b.metric == name
                            && b.difficulty == difficulty
                    })
                    .and_then(|b| b.verdict.as_ref());
                rows.push([
                    world.to_string(),
                    tier.clone(),
                    s.n.to_string(),
                    name.clone(),
                    s.mean.to_string(),
                    s.se.to_string(),
                    run.to_string(),
                    opt(s.lo),
                    opt(s.hi),
                    verdict.map_or_else(String::new, |v| v.model.clone()),
                    opt(verdict.map(|v| v.paper)),
                    verdict.map_or_else(String::new, |v| v.text.clone()),
                ]);
            }
        };
        for g in &self.groups {
            push(
                &g.world,
                g.difficulty.to_string(),
                Some(g.difficulty),
                &g.run,
                &g.metrics,
            );
        }
        for s in self.overall.values() {
            push(&s.world, "all".into(), None, &s.run, &s.metrics);
        }
        for row in rows {
            w.write_record(&row)
                .expect("writing CSV to memory cannot fail");
        }
        String::from_utf8(w.into_inner().expect("in-memory writer")).expect("CSV of UTF-8")
    }

    /// The markdown report; `key` keeps each world's key metrics only (all of them for a
    /// world that declares none).
    fn markdown(&self, key: bool) -> String {
        let mut out = String::from("# escapade report\n");
        if self.overall.is_empty() {
            out.push_str("\nNo finished episodes.\n");
            return out;
        }
        let several = self.runs.len() > 1;
        let worlds: BTreeSet<&str> = self.overall.values().map(|s| s.world.as_str()).collect();
        for world in worlds {
            let summaries: Vec<&WorldSummary> =
                self.overall.values().filter(|s| s.world == world).collect();
            let groups: Vec<&Group> = self.groups.iter().filter(|g| g.world == world).collect();
            let all_metrics = || {
                groups
                    .iter()
                    .map(|g| &g.metrics)
                    .chain(summaries.iter().map(|s| &s.metrics))
            };
            let keys: BTreeSet<&str> = all_metrics()
                .flat_map(|m| m.keys().map(String::as_str))
                .collect();
            // usage columns that are zero throughout (baselines) say nothing
            let names: Vec<String> = ordered(keys.iter().copied())
                .into_iter()
                .filter(|name| keys.contains(name.as_str()))
                .filter(|name| {
                    !USAGE_METRICS.contains(&name.as_str())
                        || all_metrics()
                            .any(|m| m.get(name).is_some_and(|s| s.mean != 0.0 || s.se != 0.0))
                })
                .collect();
            let names = match self.key_metrics.get(world) {
                Some(wanted) if key && !wanted.is_empty() => wanted
                    .iter()
                    .flat_map(|k| {
                        // pass@k and pass^k follow success wherever success is shown
                        let passes = names.iter().filter(move |n| {
                            k == "success" && (n.starts_with("pass@") || n.starts_with("pass^"))
                        });
                        std::iter::once(k).chain(passes)
                    })
                    .filter(|k| names.contains(k))
                    .cloned()
                    .collect(),
                _ => names,
            };
            // the header of a table whose first column is `first`, aligned `align`
            let header = |first: &str, align: &str| {
                let mut h = format!("| {first} |");
                if several {
                    h.push_str(" run |");
                }
                h.push_str(" n |");
                for name in &names {
                    let unit = if is_percent(name) { " (%)" } else { "" };
                    h.push_str(&format!(" {name}{unit} |"));
                }
                h.push_str(&format!("\n|{align}|"));
                if several {
                    h.push_str(":---|");
                }
                h.push_str("---:|");
                h.push_str(&"---:|".repeat(names.len()));
                h.push('\n');
                h
            };
            out.push_str(&format!("\n## {world}\n"));
            // the headline metrics beside the paper's values come first
            let beside: Vec<&crate::beside::Beside> =
                self.paper.iter().filter(|b| b.world == world).collect();
            if !beside.is_empty() {
                out.push_str(&crate::beside::markdown(
                    &beside,
                    self.papers.get(world),
                    several,
                ));
                out.push_str(&format!("\n### {world}, every metric\n"));
            }
            out.push('\n');
            out.push_str(&header("difficulty", "---:"));
            let row = |tier: String, run: &str, n: usize, metrics: &IndexMap<String, Stat>| {
                let mut line = format!("| {tier} |");
                if several {
                    line.push_str(&format!(" {} |", escape(run)));
                }
                line.push_str(&format!(" {n} |"));
                for name in &names {
                    match metrics.get(name) {
                        Some(s) => line.push_str(&format!(" {} |", cell(name, s, n))),
                        None => line.push_str(" – |"),
                    }
                }
                line.push('\n');
                line
            };
            for g in &groups {
                let label = match g.label.is_empty() {
                    true => g.difficulty.to_string(),
                    false => escape(&g.label),
                };
                out.push_str(&row(label, &g.run, g.n, &g.metrics));
            }
            for s in &summaries {
                out.push_str(&row("all".into(), &s.run, s.n, &s.metrics));
            }
            let per: Vec<&ScenarioGroup> =
                self.scenarios.iter().filter(|g| g.world == world).collect();
            if !per.is_empty() {
                out.push_str(&format!("\n### {world}, per scenario\n\n"));
                out.push_str(&header("scenario", ":---"));
                for g in per {
                    out.push_str(&row(escape(&g.scenario), &g.run, g.n, &g.metrics));
                }
            }
            out.push_str(&self.breakdown_tables(world));
            out.push_str(&self.turn_table(world));
            if several {
                let parts: Vec<String> = summaries
                    .iter()
                    .map(|s| format!("{} {} of {}", escape(&s.run), s.errors, s.n))
                    .collect();
                out.push_str(&format!("\nEpisodes with errors: {}.\n", parts.join("; ")));
            } else {
                let s = summaries[0];
                out.push_str(&format!(
                    "\nEpisodes with errors: {} of {}.\n",
                    s.errors, s.n
                ));
            }
            for s in summaries.iter().filter(|s| s.step_capped > 0) {
                out.push_str(&format!(
                    "Episodes ended by the step cap (--max-steps){}: {} of {}.\n",
                    if several {
                        format!(" in {}", escape(&s.run))
                    } else {
                        String::new()
                    },
                    s.step_capped,
                    s.n
                ));
            }
        }
        out.push_str(&self.departures());
        for c in &self.paired {
            out.push_str(&crate::paired::markdown(c));
        }
        if let Some(p) = &self.profile {
            out.push_str(&crate::profile::markdown(p));
        }
        out.push_str(&self.definitions_list());
        out.push_str(&self.usage_table());
        out
    }

    /// The key metrics' names, definitions and the paper's sections, a line each.
    fn definitions_list(&self) -> String {
        if self.definitions.is_empty() {
            return String::new();
        }
        let mut out = String::from("\n## Metrics\n\n");
        for d in &self.definitions {
            out.push_str(&format!(
                "- {} `{}`: {}: {} ({}).\n",
                d.world, d.metric, d.name, d.definition, d.section
            ));
        }
        out
    }

    /// A note per run that departs from its suite's paper protocol, one line per
    /// departure, so a reader does not put its numbers beside the paper's table unawares.
    fn departures(&self) -> String {
        let mut out = String::new();
        for run in self.runs.iter().filter(|r| !r.departures.is_empty()) {
            if out.is_empty() {
                out.push_str("\n## Not the paper's settings\n\n");
            }
            out.push_str(&format!("- {}:\n", escape(&run.label)));
            for d in &run.departures {
                out.push_str(&format!("  - {}\n", escape(d)));
            }
        }
        out
    }

    /// The world's breakdowns: a table each, a row per (tier, when split; group; run).
    fn breakdown_tables(&self, world: &str) -> String {
        let mut out = String::new();
        for t in self.breakdowns.iter().filter(|t| t.world == world) {
            let split = t.rows.iter().any(|r| r.difficulty.is_some());
            out.push_str(&format!("\n### {world}, {}\n\n|", t.title));
            if split {
                out.push_str(" difficulty |");
            }
            out.push_str(&format!(" {} | run | n |", t.column));
            for m in &t.metrics {
                let unit = if is_percent(m) { " (%)" } else { "" };
                out.push_str(&format!(" {m}{unit} |"));
            }
            out.push_str(if split { "\n|---:|" } else { "\n|" });
            out.push_str(":---|:---|---:|");
            out.push_str(&"---:|".repeat(t.metrics.len()));
            out.push('\n');
            for r in &t.rows {
                out.push('|');
                if split {
                    let tier = r.tier.clone().unwrap_or_default();
                    out.push_str(&format!(" {} |", escape(&tier)));
                }
                out.push_str(&format!(
                    " {} | {} | {} |",
                    escape(&r.group),
                    escape(&r.run),
                    r.n
                ));
                for m in &t.metrics {
                    match r.metrics.get(m) {
                        Some(s) => out.push_str(&format!(" {} |", cell(m, s, r.n))),
                        None => out.push_str(" – |"),
                    }
                }
                out.push('\n');
            }
        }
        out
    }

    /// Success within the first k turns (%), a row per run.
    fn turn_table(&self, world: &str) -> String {
        let curves: Vec<&TurnCurve> = self.per_turn.iter().filter(|c| c.world == world).collect();
        let Some(first) = curves.first() else {
            return String::new();
        };
        let max = curves.iter().map(|c| c.success.len()).max().unwrap_or(0);
        let mut out = format!("\n### {world}, {} (%)\n\n| run | n |", first.title);
        for k in 1..=max {
            out.push_str(&format!(" {k} |"));
        }
        out.push_str("\n|:---|---:|");
        out.push_str(&"---:|".repeat(max));
        out.push('\n');
        for c in curves {
            out.push_str(&format!("| {} | {} |", escape(&c.run), c.n));
            for s in &c.success {
                out.push_str(&format!(" {} |", s.show(100.0, 1, c.n)));
            }
            out.push('\n');
        }
        out
    }

    /// The closing "Usage" table: one row per run with its totals.
    fn usage_table(&self) -> String {
        type Column = (&'static str, fn(&RunInfo) -> Option<String>);
        let columns: [Column; 9] = [
            ("input tokens", |r| nonzero(r.usage.input).map(thousands)),
            ("output tokens", |r| nonzero(r.usage.output).map(thousands)),
            ("reasoning tokens", |r| {
                nonzero(r.usage.reasoning).map(thousands)
            }),
            ("cached tokens", |r| nonzero(r.usage.cached).map(thousands)),
            // replies answered by escapade's response cache (no request, no cost)
            ("cache hits", |r| nonzero(r.usage.cache_hits).map(thousands)),
            // replies the provider cut at the output token limit
            ("truncated", |r| nonzero(r.usage.truncated).map(thousands)),
            ("cost (USD)", |r| {
                (r.usage.cost_usd != 0.0).then(|| format!("{:.4}", r.usage.cost_usd))
            }),
            ("latency per step (ms)", |r| {
                (r.usage.latency_ms > 0 && r.steps > 0)
                    .then(|| format!("{:.0}", r.usage.latency_ms as f64 / r.steps as f64))
            }),
            ("episode time (s)", |r| {
                nonzero(r.duration_ms).map(|ms| format!("{:.1}", ms as f64 / 1000.0))
            }),
        ];
        let shown: Vec<&Column> = columns
            .iter()
            .filter(|(_, f)| self.runs.iter().any(|r| f(r).is_some()))
            .collect();
        let mut out = String::from("\n## Usage\n\n| run | config | inputs | episodes | steps |");
        for (name, _) in &shown {
            out.push_str(&format!(" {name} |"));
        }
        out.push_str("\n|:---|:---|---:|---:|---:|");
        out.push_str(&"---:|".repeat(shown.len()));
        out.push('\n');
        for r in &self.runs {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |",
                escape(&r.label),
                short(&r.base_hash),
                r.dirs.len(),
                r.episodes,
                thousands(r.steps)
            ));
            for (_, f) in &shown {
                out.push_str(&format!(" {} |", f(r).unwrap_or_else(|| "0".into())));
            }
            out.push('\n');
        }
        out
    }
}

/// Each later run of a suite compared with the first run of that suite, on the
/// scenarios both played.
fn paired_runs(set: &RunSet, worlds: Worlds<'_>) -> Vec<crate::paired::Comparison> {
    let mut out = Vec::new();
    for (j, b) in set.runs.iter().enumerate() {
        if let Some(a) = set.runs[..j].iter().find(|a| a.suite == b.suite) {
            let c = crate::paired::compare(a, b, worlds);
            if !c.metrics.is_empty() {
                out.push(c);
            }
        }
    }
    out
}

/// The definitions of each present world's key metrics (every metric its paper defines
/// when it declares no key metrics), from its paper.
fn definitions(overall: &IndexMap<String, WorldSummary>, worlds: Worlds<'_>) -> Vec<Definition> {
    let present: BTreeSet<&str> = overall.values().map(|s| s.world.as_str()).collect();
    let mut out = Vec::new();
    for world in present {
        let Some(w) = world_named(worlds, world) else {
            continue;
        };
        let Some(paper) = w.paper() else { continue };
        let keys: Vec<&str> = w.report().key_metrics.to_vec();
        for m in &paper.metrics {
            if keys.is_empty() || keys.contains(&m.key.as_str()) {
                out.push(Definition {
                    world: world.to_string(),
                    metric: m.key.clone(),
                    name: m.name.clone(),
                    definition: m.definition.clone(),
                    section: format!("{} {}", paper.name, m.section),
                });
            }
        }
    }
    out
}

fn run_info(run: &Run) -> RunInfo {
    let mut usage = Usage::default();
    let (mut steps, mut duration_ms, mut errors) = (0u64, 0u64, 0usize);
    for e in &run.episodes {
        usage.add(&e.row.usage);
        steps += u64::from(e.row.steps);
        duration_ms += e.row.duration_ms;
        errors += usize::from(crate::ending::is_error(&e.row));
    }
    RunInfo {
        label: run.label.clone(),
        agent: run.agent.clone(),
        model: run.model.clone(),
        base_hash: run.base_hash.clone(),
        dirs: run
            .dirs
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect(),
        episodes: run.episodes.len(),
        errors,
        steps,
        usage,
        duration_ms,
        departures: run.departures.clone(),
    }
}

/// `markdown` fitted to `width` columns: a table with a longer line loses columns from
/// the right until every line fits, and a line after it says how many went; any other
/// longer line is wrapped at spaces (a word longer than `width` stays whole).
fn fit(markdown: &str, width: usize) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with('|') {
            let end = (i..lines.len())
                .find(|&j| !lines[j].starts_with('|'))
                .unwrap_or(lines.len());
            out.push_str(&fit_table(&lines[i..end], width));
            i = end;
        } else {
            out.push_str(&wrap(lines[i], width));
            i += 1;
        }
    }
    out
}

/// A markdown table cut to `width` (see [`fit`]).
fn fit_table(rows: &[&str], width: usize) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(|r| table_cells(r)).collect();
    let is_rule = |c: &[String]| {
        c.iter()
            .all(|x| !x.is_empty() && x.chars().all(|ch| ch == '-' || ch == ':'))
    };
    let render = |cols: usize| -> Vec<String> {
        cells
            .iter()
            .map(|c| {
                let kept = &c[..cols.min(c.len())];
                match is_rule(c) {
                    // the alignment row has no spaces around its bars
                    true => format!("|{}|", kept.join("|")),
                    false => format!("| {} |", kept.join(" | ")),
                }
            })
            .collect()
    };
    let total = cells.iter().map(Vec::len).max().unwrap_or(0);
    let too_wide = |lines: &[String]| lines.iter().any(|l| l.chars().count() > width);
    if !too_wide(&render(total)) {
        // as written: no column cut, the table's own spacing kept
        return rows.iter().map(|r| format!("{r}\n")).collect();
    }
    let mut cols = total;
    let mut shown = render(cols);
    while cols > 1 && too_wide(&shown) {
        cols -= 1;
        shown = render(cols);
    }
    let mut out = shown.join("\n");
    out.push('\n');
    let cut = total - cols;
    let s = if cut == 1 { "" } else { "s" };
    out.push_str(&wrap(
        &format!("({cut} more column{s} with --wide, and in report.md, CSV and JSON)"),
        width,
    ));
    out
}

/// The cells of a markdown table row, trimmed (`\|` is part of a cell, not a bar).
fn table_cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row
        .strip_suffix('|')
        .filter(|r| !r.ends_with('\\'))
        .unwrap_or(row);
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for ch in row.chars() {
        match ch {
            '|' if !escaped => cells.push(String::new()),
            _ => cells.last_mut().expect("one cell at least").push(ch),
        }
        escaped = ch == '\\' && !escaped;
    }
    cells.iter().map(|c| c.trim().to_string()).collect()
}

/// `line` wrapped at spaces to `width` characters.
fn wrap(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return format!("{line}\n");
    }
    let mut out = String::new();
    let mut current = String::new();
    for word in line.split(' ') {
        let len = current.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push_str(current.trim_end());
            out.push('\n');
            current.clear();
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    out.push_str(&current);
    out.push('\n');
    out
}

fn nonzero(x: u64) -> Option<u64> {
    (x != 0).then_some(x)
}

/// `1234567` → `1,234,567`.
fn thousands(x: u64) -> String {
    let digits = x.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A label made safe for a Markdown table cell.
fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// `mean ± se` with the precision the metric calls for, in a row of `of` episodes (see
/// [`Stat::show`]).
fn cell(name: &str, s: &Stat, of: usize) -> String {
    if is_percent(name) {
        return s.show(100.0, 1, of);
    }
    let decimals = match name {
        "cost_usd" => 4,
        "input_tokens" | "output_tokens" | "cached_tokens" => 0,
        "latency_ms" | "step_latency_ms" | "duration_ms" => 0,
        _ => 2,
    };
    s.show(1.0, decimals, of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_within_k_turns_counts_only_solved_episodes() {
        assert_eq!(success_within(true, 2, 4), vec![false, true, true, true]);
        assert_eq!(success_within(false, 1, 3), vec![false; 3]);
        assert_eq!(success_within(true, 11, 10), vec![false; 10]);
    }

    #[test]
    fn percent_metrics_by_suffix() {
        for n in ["success", "discovery_rate", "node_resolution", "discovery"] {
            assert!(is_percent(n), "{n}");
        }
        for n in ["steps", "cost_usd", "success_steps", "step_latency_ms"] {
            assert!(!is_percent(n), "{n}");
        }
        let s = Stat {
            mean: 0.5,
            se: 0.125,
            n: 4,
            lo: None,
            hi: None,
        };
        assert_eq!(cell("success", &s, 4), "50.0 ± 12.5");
        assert_eq!(cell("steps", &s, 4), "0.50 ± 0.12");
        assert_eq!(cell("cost_usd", &s, 4), "0.5000 ± 0.1250");
        assert_eq!(cell("step_latency_ms", &s, 4), "0 ± 0");
        // a metric defined for fewer episodes than its row says so
        assert_eq!(cell("success", &s, 6), "50.0 ± 12.5 (n=4)");
        // one value has no standard error
        let one = Stat {
            mean: 1.0,
            se: 0.0,
            n: 1,
            lo: None,
            hi: None,
        };
        assert_eq!(cell("success", &one, 1), "100.0");
        assert_eq!(cell("steps", &one, 3), "1.00 (n=1)");
    }

    #[test]
    fn a_wide_table_loses_columns_from_the_right_and_says_so() {
        let md = "# t\n\n| a | b \\| c | d |\n|:---|---:|---:|\n| 1 | 2 | 3 |\n\nAfter.\n";
        // fits: unchanged
        assert_eq!(fit(md, 80), md);
        // too wide for 16: two columns, the escaped bar kept inside its cell
        let got = fit(md, 16);
        assert_eq!(
            got,
            "# t\n\n| a | b \\| c |\n|:---|---:|\n| 1 | 2 |\n(1 more column\nwith --wide, and\n\
             in report.md,\nCSV and JSON)\n\nAfter.\n"
        );
        assert!(got.lines().all(|l| l.chars().count() <= 16), "{got}");
    }

    #[test]
    fn long_sentences_wrap_at_spaces() {
        assert_eq!(wrap("one two three", 7), "one two\nthree\n");
        assert_eq!(wrap("unbreakable-word x", 5), "unbreakable-word\nx\n");
        assert_eq!(wrap("", 5), "\n");
    }

    #[test]
    fn formats_parse() {
        assert_eq!("md".parse::<Format>().unwrap(), Format::Markdown);
        assert!("xml".parse::<Format>().is_err());
    }

    #[test]
    fn thousands_and_short_hashes() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(short("abcdef0123456789"), "abcdef01");
        assert_eq!(short("cfg"), "cfg");
    }
}
