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
//! `steps`, every key of the rows' world `metrics` maps (sorted; a row lacking a key does
//! not count towards it), then usage per episode: `input_tokens`, `output_tokens`,
//! `cached_tokens`, `cost_usd`, `latency_ms` (time waiting for the model),
//! `step_latency_ms` (that latency divided by the episode's steps) and `duration_ms`
//! (wall time of the episode).
//!
//! Several runs are compared side by side: every [`Group`] and [`WorldSummary`] carries
//! the [`RunInfo::label`] of its run (the agent, its model option if any, and a short
//! base hash when two runs would otherwise share a label).
//!
//! JSON (the documented shape): `{"groups": [{"world", "difficulty", "run", "n",
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
//! "Usage" table gives each run's totals — tokens, cost, latency per step — which is what
//! budgets are made of. With [`Report::per_scenario`] (`--per-scenario`) each world also
//! gets a table with a row per scenario (VisEscape's per-room results, Table 16), and the
//! JSON a `"scenarios"` list of `{"world", "scenario", "difficulty", "run", "n",
//! "metrics"}`; CSV keeps only the tier and overall rows.
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
use escapade_core::{EpisodeRow, Usage};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::rundir::{EPISODES, RUN_TOML, Shard, read_episodes, read_run_toml};

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

/// Metrics every row defines, before the world's.
const BUILTIN_METRICS: [&str; 2] = ["success", "steps"];

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
}

impl From<MeanSe> for Stat {
    fn from(m: MeanSe) -> Self {
        Stat {
            mean: m.mean,
            se: m.se,
            n: m.n,
        }
    }
}

impl Stat {
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
    /// Metric name → mean ± se, in column order.
    pub metrics: IndexMap<String, Stat>,
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
    /// comma: SR and PSR per capability category and run (COMMA §3.2, Fig. 6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<CapabilityGroup>,
    /// Success within the first k solver turns, per world and run (COMMA Fig. 4); filled
    /// only when asked for ([`Report::per_turn`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_turn: Vec<TurnCurve>,
    /// craft: episodes split by whether the exit was in view at the start, per run and
    /// difficulty (MM-Escape Fig. 4 b–d).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exit_view: Vec<ExitViewGroup>,
    /// Warnings met while reading (torn last lines, overlapping or missing shards,
    /// episodes left with a retryable error); not part of the JSON.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// The craft episodes of one run and difficulty whose exit was (or was not) in view at
/// the start (MM-Escape Fig. 4 b–d).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExitViewGroup {
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// The difficulty tier.
    pub difficulty: u32,
    /// Whether the exit was in view from the start pose.
    pub visible: bool,
    /// Number of episodes.
    pub n: usize,
    /// [`EXIT_VIEW_METRICS`], mean ± se.
    pub metrics: IndexMap<String, Stat>,
}

/// What the exit-in-view split compares (MM-Escape Fig. 4: escape, steps, grab success
/// rate and grab ratio).
pub const EXIT_VIEW_METRICS: [&str; 4] = ["success", "steps", "grab_success_rate", "grab_ratio"];

/// The episodes of one run on the comma puzzles that test one capability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapabilityGroup {
    /// The capability category (`memory`, `grounding`, `reasoning`, `privacy`).
    pub capability: String,
    /// The puzzles that test it, in tier order.
    pub puzzles: Vec<String>,
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// Number of episodes.
    pub n: usize,
    /// `success` (SR) and `psr` (PSR), mean ± se.
    pub metrics: IndexMap<String, Stat>,
}

/// Success against the number of allowed solver turns for one run in one world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnCurve {
    /// World name.
    pub world: String,
    /// Label of the run (see [`RunInfo::label`]).
    pub run: String,
    /// Episodes counted (those whose trajectory could be read, or that failed).
    pub n: usize,
    /// Entry `k - 1`: the share of episodes solved within their first `k` solver turns,
    /// mean ± se.
    pub success: Vec<Stat>,
}

/// Turns of COMMA's Fig. 4 (and of its protocol, §4.1).
pub const PER_TURN_MAX: u32 = 10;

/// The role whose turns are counted by [`Report::per_turn`] in multi-role worlds.
pub const SOLVER_ROLE: &str = "solver";

/// The comma capability categories of COMMA §3.2, in the paper's order.
pub const CAPABILITIES: [&str; 4] = ["memory", "grounding", "reasoning", "privacy"];

/// comma's tiers: `(difficulty, puzzle, capabilities)`, the tier being the puzzle's place
/// in the paper's table (escapade-comma's `PuzzleKind::ALL`). The paper marks each
/// puzzle's categories with icons in §3.3, which its text lost; this is our reading of
/// them: Wire and Who grounding; LED grounding and reasoning; Memory memory and
/// reasoning; Keypad grounding and reasoning; Password and Colour memory and reasoning;
/// Maze grounding and reasoning; ATM privacy; Telehealth privacy and grounding.
pub const COMMA_PUZZLES: [(u32, &str, &[&str]); 10] = [
    (1, "wire", &["grounding"]),
    (2, "telehealth", &["grounding", "privacy"]),
    (3, "who", &["grounding"]),
    (4, "led", &["grounding", "reasoning"]),
    (5, "memory", &["memory", "reasoning"]),
    (6, "keypad", &["grounding", "reasoning"]),
    (7, "password", &["memory", "reasoning"]),
    (8, "colour", &["memory", "reasoning"]),
    (9, "maze", &["grounding", "reasoning"]),
    (10, "atm", &["privacy"]),
];

/// The puzzle of a comma tier.
pub fn comma_puzzle(difficulty: u32) -> Option<&'static str> {
    COMMA_PUZZLES
        .iter()
        .find(|(d, _, _)| *d == difficulty)
        .map(|(_, name, _)| *name)
}

/// How a table (and `escapade list`) names a tier: comma's by their puzzle (`1 (wire)`),
/// craft's by their rooms (`11 (D1+D1)`), others by number.
pub fn tier_label(world: &str, difficulty: u32) -> String {
    match (world, comma_puzzle(difficulty)) {
        ("comma", Some(p)) => format!("{difficulty} ({p})"),
        // craft: D1, D2, … rooms and two-room games `10 a + b` (MM-Escape §3.3)
        ("craft", _) if (11..=99).contains(&difficulty) && !difficulty.is_multiple_of(10) => {
            format!("{difficulty} (D{}+D{})", difficulty / 10, difficulty % 10)
        }
        ("craft", _) => format!("{difficulty} (D{difficulty})"),
        _ => difficulty.to_string(),
    }
}

/// A tier's label in a table of metrics: [`tier_label`], and for craft's two-room tiers
/// the setting their episodes were played in, read from their `bootstrapped` metric
/// (MM-Escape Table 3's bootstrapped setting, App. F's autonomous one, or both mixed).
fn group_label(world: &str, difficulty: u32, metrics: &IndexMap<String, Stat>) -> String {
    let label = tier_label(world, difficulty);
    let setting = match metrics.get("bootstrapped") {
        Some(s) if world == "craft" && s.mean == 1.0 => "bootstrapped",
        Some(s) if world == "craft" && s.mean == 0.0 => "autonomous",
        Some(_) if world == "craft" => "bootstrapped and autonomous",
        _ => return label,
    };
    match label.strip_suffix(')') {
        Some(open) => format!("{open}, {setting})"),
        None => format!("{label} ({setting})"),
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

/// The counted turns of an episode's trajectory: steps of the solver role when any step
/// names it, else every step. `None` when the trajectory cannot be read.
fn counted_turns(dir: &Path, row: &EpisodeRow) -> Option<u32> {
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
    let solver = roles
        .iter()
        .filter(|r| r.as_deref() == Some(SOLVER_ROLE))
        .count();
    Some(match solver {
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
    /// The episodes, sorted by scenario id and epoch.
    pub episodes: Vec<Episode>,
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

/// Worlds whose reports always carry the success-within-k-turns curve (COMMA Fig. 4).
pub const PER_TURN_WORLDS: [&str; 1] = ["comma"];

/// Reads run directories (or `episodes.jsonl` files) and aggregates them: the inputs of
/// one run are merged, distinct runs are compared side by side (see the module docs).
pub fn report(dirs: &[PathBuf]) -> Result<Report> {
    let set = read_runs(dirs)?;
    Ok(Report::from_runs(&set).with_usual_extras(&set))
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
    for given in dirs {
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
                    model: config.agent_options.get("model").cloned(),
                    expert: config.expert.as_ref().map(|e| {
                        match config.expert_options.get("model") {
                            Some(m) => format!("{e} {m}"),
                            None => e.clone(),
                        }
                    }),
                    departures: crate::settings::departures(&config),
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

fn is_percent(name: &str) -> bool {
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
        || ["_rate", "success", "resolution", "discovery"]
            .iter()
            .any(|s| name.ends_with(s))
}

fn value(row: &EpisodeRow, name: &str) -> Option<f64> {
    match name {
        "success" => Some(if row.success { 1.0 } else { 0.0 }),
        "steps" => Some(f64::from(row.steps)),
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

fn aggregate(rows: &[&EpisodeRow]) -> IndexMap<String, Stat> {
    ordered(
        rows.iter()
            .flat_map(|r| r.metrics.keys().map(String::as_str)),
    )
    .into_iter()
    .filter_map(|name| {
        let xs: Vec<f64> = rows.iter().filter_map(|r| value(r, &name)).collect();
        // only `step_latency_ms` can be undefined for every row (no steps at all)
        (!xs.is_empty()).then(|| (name, Stat::from(MeanSe::of(&xs))))
    })
    .collect()
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
        Report::from_runs(&RunSet::from_rows(rows))
    }

    /// Aggregates runs read by [`read_runs`]; the warnings are carried over.
    pub fn from_runs(set: &RunSet) -> Report {
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
        let groups = by_group
            .into_iter()
            .map(|((world, difficulty, k), rows)| Group {
                world: world.to_string(),
                difficulty,
                run: set.runs[k].label.clone(),
                n: rows.len(),
                metrics: aggregate(&rows),
            })
            .collect();
        let mut runs_per_world: BTreeMap<&str, usize> = BTreeMap::new();
        for (world, _) in by_world.keys() {
            *runs_per_world.entry(world).or_default() += 1;
        }
        let overall = by_world
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
                    errors: rows.iter().filter(|r| r.error.is_some()).count(),
                    metrics: aggregate(&rows),
                };
                (key, summary)
            })
            .collect();
        let runs = set.runs.iter().map(run_info).collect();
        let mut capabilities = Vec::new();
        for capability in CAPABILITIES {
            let tiers: Vec<&(u32, &str, &[&str])> = COMMA_PUZZLES
                .iter()
                .filter(|(_, _, caps)| caps.contains(&capability))
                .collect();
            for run in &set.runs {
                let rows: Vec<&EpisodeRow> = run
                    .episodes
                    .iter()
                    .map(|e| &e.row)
                    .filter(|r| r.world == "comma")
                    .filter(|r| tiers.iter().any(|(d, _, _)| *d == r.difficulty))
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                let mut metrics = IndexMap::new();
                for name in ["success", "psr"] {
                    let xs: Vec<f64> = rows.iter().filter_map(|r| value(r, name)).collect();
                    if !xs.is_empty() {
                        metrics.insert(name.to_string(), Stat::from(MeanSe::of(&xs)));
                    }
                }
                capabilities.push(CapabilityGroup {
                    capability: capability.to_string(),
                    puzzles: tiers.iter().map(|(_, p, _)| p.to_string()).collect(),
                    run: run.label.clone(),
                    n: rows.len(),
                    metrics,
                });
            }
        }
        let mut exit_view = Vec::new();
        for run in &set.runs {
            let mut by: BTreeMap<(u32, bool), Vec<&EpisodeRow>> = BTreeMap::new();
            for r in run
                .episodes
                .iter()
                .map(|e| &e.row)
                .filter(|r| r.world == "craft")
            {
                if let Some(v) = r.metrics.get("exit_visible_at_start") {
                    by.entry((r.difficulty, *v > 0.5)).or_default().push(r);
                }
            }
            for ((difficulty, visible), rows) in by {
                let mut metrics = IndexMap::new();
                for name in EXIT_VIEW_METRICS {
                    let xs: Vec<f64> = rows.iter().filter_map(|r| value(r, name)).collect();
                    if !xs.is_empty() {
                        metrics.insert(name.to_string(), Stat::from(MeanSe::of(&xs)));
                    }
                }
                exit_view.push(ExitViewGroup {
                    run: run.label.clone(),
                    difficulty,
                    visible,
                    n: rows.len(),
                    metrics,
                });
            }
        }
        Report {
            groups,
            overall,
            runs,
            scenarios: Vec::new(),
            capabilities,
            exit_view,
            per_turn: Vec::new(),
            warnings: set.warnings.clone(),
        }
    }

    /// Adds what a world's report always shows: the per-turn curve for
    /// [`PER_TURN_WORLDS`]. `escapade run`, `report.md` and `escapade report` agree.
    pub fn with_usual_extras(self, set: &RunSet) -> Report {
        let talking = set.runs.iter().any(|r| {
            r.episodes
                .iter()
                .any(|e| PER_TURN_WORLDS.contains(&e.row.world.as_str()))
        });
        if talking { self.per_turn(set) } else { self }
    }

    /// Adds, per (world, run) of `set`, success within the first k solver turns for
    /// k = 1..=[`PER_TURN_MAX`] (COMMA Fig. 4), from the trajectories. An episode that
    /// ended with an error counts as unsolved; one whose trajectory cannot be read is left
    /// out with a warning.
    pub fn per_turn(mut self, set: &RunSet) -> Report {
        let mut by: BTreeMap<(&str, usize), Vec<Vec<bool>>> = BTreeMap::new();
        let mut unread = 0usize;
        for (k, run) in set.runs.iter().enumerate() {
            for e in &run.episodes {
                let r = &e.row;
                let solved = r.success && r.error.is_none();
                let turns = match (&e.dir, solved) {
                    (_, false) => 0,
                    (Some(dir), true) => match counted_turns(dir, r) {
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
                    .push(success_within(solved, turns, PER_TURN_MAX));
            }
        }
        if unread > 0 {
            self.warnings.push(format!(
                "per-turn success: {unread} solved episode(s) left out (no readable trajectory)"
            ));
        }
        self.per_turn = by
            .into_iter()
            .map(|((world, k), episodes)| TurnCurve {
                world: world.to_string(),
                run: set.runs[k].label.clone(),
                n: episodes.len(),
                success: (0..PER_TURN_MAX as usize)
                    .map(|i| {
                        let xs: Vec<f64> = episodes
                            .iter()
                            .map(|e| if e[i] { 1.0 } else { 0.0 })
                            .collect();
                        Stat::from(MeanSe::of(&xs))
                    })
                    .collect(),
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
                metrics: aggregate(&rows),
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
            Format::Markdown => self.markdown(),
        }
    }

    fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut rows: Vec<[String; 7]> = Vec::new();
        rows.push(["world", "difficulty", "n", "metric", "mean", "se", "run"].map(String::from));
        let mut push = |world: &str, tier: String, run: &str, metrics: &IndexMap<String, Stat>| {
            // each metric's own n: it can be defined for fewer episodes than the group
            for (name, s) in metrics {
                rows.push([
                    world.to_string(),
                    tier.clone(),
                    s.n.to_string(),
                    name.clone(),
                    s.mean.to_string(),
                    s.se.to_string(),
                    run.to_string(),
                ]);
            }
        };
        for g in &self.groups {
            push(&g.world, g.difficulty.to_string(), &g.run, &g.metrics);
        }
        for s in self.overall.values() {
            push(&s.world, "all".into(), &s.run, &s.metrics);
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
            out.push_str(&format!("\n## {world}\n\n"));
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
                out.push_str(&row(
                    group_label(world, g.difficulty, &g.metrics),
                    &g.run,
                    g.n,
                    &g.metrics,
                ));
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
            out.push_str(&self.capability_tables(world));
            out.push_str(&self.turn_table(world));
            out.push_str(&self.exit_view_table(world));
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
        }
        out.push_str(&self.departures());
        out.push_str(&self.usage_table());
        out
    }

    /// A note per run that departs from its suite's paper settings, so a reader does not
    /// put its numbers beside the paper's table unawares.
    fn departures(&self) -> String {
        let mut out = String::new();
        for run in self.runs.iter().filter(|r| !r.departures.is_empty()) {
            if out.is_empty() {
                out.push_str(
                    "
## Not the paper's settings

",
                );
            }
            out.push_str(&format!(
                "- {}: {}.\n",
                escape(&run.label),
                run.departures.join(", ")
            ));
        }
        out
    }

    /// comma: a table per capability category, a row per run: SR and PSR (%).
    fn capability_tables(&self, world: &str) -> String {
        if world != "comma" || self.capabilities.is_empty() {
            return String::new();
        }
        let mut out = format!("\n### {world}, per capability (COMMA §3.2)\n");
        for capability in CAPABILITIES {
            let rows: Vec<&CapabilityGroup> = self
                .capabilities
                .iter()
                .filter(|c| c.capability == capability)
                .collect();
            let Some(first) = rows.first() else { continue };
            out.push_str(&format!(
                "\n#### {} ({})\n\n| run | n | SR (%) | PSR (%) |\n|:---|---:|---:|---:|\n",
                capitalize(capability),
                first.puzzles.join(", ")
            ));
            for c in rows {
                let pct = |name: &str| {
                    c.metrics
                        .get(name)
                        .map_or("–".to_string(), |s| s.show(100.0, 1, c.n))
                };
                out.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    escape(&c.run),
                    c.n,
                    pct("success"),
                    pct("psr")
                ));
            }
        }
        out
    }

    /// craft: a row per (difficulty, exit in view or not, run): ER, steps, GSR, grab ratio.
    fn exit_view_table(&self, world: &str) -> String {
        if world != "craft" || self.exit_view.is_empty() {
            return String::new();
        }
        let mut out = format!(
            "\n### {world}, by whether the exit is in view at the start (MM-Escape Fig. 4)\n\n\
             | difficulty | exit in view | run | n | escape (%) | steps | grab success (%) | grab ratio |\n\
             |---:|:---|:---|---:|---:|---:|---:|---:|\n"
        );
        for g in &self.exit_view {
            let cell = |name: &str, pct: bool| {
                g.metrics.get(name).map_or("–".to_string(), |s| {
                    if pct {
                        s.show(100.0, 1, g.n)
                    } else {
                        s.show(1.0, 2, g.n)
                    }
                })
            };
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                tier_label(world, g.difficulty),
                if g.visible { "yes" } else { "no" },
                escape(&g.run),
                g.n,
                cell("success", true),
                cell("steps", false),
                cell("grab_success_rate", true),
                cell("grab_ratio", false),
            ));
        }
        out
    }

    /// Success within the first k solver turns (%), a row per run.
    fn turn_table(&self, world: &str) -> String {
        let curves: Vec<&TurnCurve> = self.per_turn.iter().filter(|c| c.world == world).collect();
        if curves.is_empty() {
            return String::new();
        }
        let mut out = format!(
            "\n### {world}, success within k solver turns (%, COMMA Fig. 4)\n\n| run | n |"
        );
        for k in 1..=PER_TURN_MAX {
            out.push_str(&format!(" {k} |"));
        }
        out.push_str("\n|:---|---:|");
        out.push_str(&"---:|".repeat(PER_TURN_MAX as usize));
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
        let columns: [Column; 6] = [
            ("input tokens", |r| nonzero(r.usage.input).map(thousands)),
            ("output tokens", |r| nonzero(r.usage.output).map(thousands)),
            ("cached tokens", |r| nonzero(r.usage.cached).map(thousands)),
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

fn run_info(run: &Run) -> RunInfo {
    let mut usage = Usage::default();
    let (mut steps, mut duration_ms, mut errors) = (0u64, 0u64, 0usize);
    for e in &run.episodes {
        usage.add(&e.row.usage);
        steps += u64::from(e.row.steps);
        duration_ms += e.row.duration_ms;
        errors += usize::from(e.row.error.is_some());
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

/// `memory` → `Memory`.
fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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
    fn comma_tiers_name_each_puzzle_once_with_known_capabilities() {
        let names: BTreeSet<&str> = COMMA_PUZZLES.iter().map(|(_, n, _)| *n).collect();
        assert_eq!(names.len(), 10);
        for (d, (tier, _, caps)) in COMMA_PUZZLES.iter().enumerate() {
            assert_eq!(*tier, d as u32 + 1);
            assert!(!caps.is_empty() && caps.iter().all(|c| CAPABILITIES.contains(c)));
        }
        assert_eq!(tier_label("comma", 10), "10 (atm)");
        assert_eq!(tier_label("vis", 1), "1");
    }

    #[test]
    fn craft_two_room_tiers_name_their_setting() {
        let with = |mean: f64| -> IndexMap<String, Stat> {
            [(
                "bootstrapped".to_string(),
                Stat {
                    mean,
                    se: 0.0,
                    n: 1,
                },
            )]
            .into_iter()
            .collect()
        };
        assert_eq!(
            group_label("craft", 12, &with(1.0)),
            "12 (D1+D2, bootstrapped)"
        );
        assert_eq!(
            group_label("craft", 22, &with(0.0)),
            "22 (D2+D2, autonomous)"
        );
        assert_eq!(
            group_label("craft", 11, &with(0.5)),
            "11 (D1+D1, bootstrapped and autonomous)"
        );
        assert_eq!(group_label("craft", 3, &IndexMap::new()), "3 (D3)");
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
        };
        assert_eq!(cell("success", &one, 1), "100.0");
        assert_eq!(cell("steps", &one, 3), "1.00 (n=1)");
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
