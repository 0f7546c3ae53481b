//! The run directory: the log format users build on (DESIGN.md, "Run directory").
//!
//! ```text
//! runs/<utc-time>-<suite>-<agent>-<id>/
//!   run.toml                                resolved config, its hash, versions
//!   episodes.jsonl                          one EpisodeRow per finished episode
//!   trajectories/<scenario>/<epoch>.jsonl   one StepRow per step
//!   media/<sha256>.png                      images, written once
//!   summary.json, report.md                 the run's report (JSON and Markdown)
//!   judge/<task>.jsonl                      verdicts of `escapade judge` (see `judge`)
//!   checkpoints/<scenario>/<epoch>.json     an episode interrupted at a step boundary
//! ```
//!
//! Episode rows are appended and flushed one at a time, so a killed run loses at most the
//! line being written; [`RunDir::resume`] ignores such a torn last line with a warning and
//! cuts it off. Step rows are buffered per episode ([`TrajectoryWriter`]) and written
//! before the episode's row. The config hash is the SHA-256 of the canonical JSON of [`RunConfig`] without
//! its `source` (the scenarios enter through their content hashes) plus the format
//! version; resuming refuses a directory whose hash differs, so configs never mix.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use escapade_agents::config::TUNING_KEYS;
use escapade_core::env::SuiteSettings;
use escapade_core::{Checkpoint, EpisodeRow, FORMAT_VERSION, Image, StepRow, hash};
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::report::{Format, Report, report};
use crate::suite::file_stem;

/// `run.toml`: the resolved configuration and its provenance.
pub const RUN_TOML: &str = "run.toml";
/// `episodes.jsonl`: one [`EpisodeRow`] per finished episode.
pub const EPISODES: &str = "episodes.jsonl";
/// `trajectories/`: one JSON Lines file of [`StepRow`]s per episode.
pub const TRAJECTORIES: &str = "trajectories";
/// `media/`: images by SHA-256.
pub const MEDIA: &str = "media";
/// `summary.json`: the run's report as JSON.
pub const SUMMARY: &str = "summary.json";
/// `report.md`: the run's report as Markdown.
pub const REPORT_MD: &str = "report.md";
/// `checkpoints/`: one [`Checkpoint`] per episode interrupted at a step boundary (see
/// [`crate::checkpoint`]).
pub const CHECKPOINTS: &str = "checkpoints";

/// The resolved configuration of a run: everything that decides its results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Suite label: suite name with version, `file:<name>` or `dir:<name>`.
    pub suite: String,
    /// World name.
    pub world: String,
    /// Where the scenarios were loaded from (suite name or absolute path), so that
    /// `escapade resume` can load them again. Not hashed: `scenarios` carries their hashes.
    pub source: String,
    /// The agent spec as given (`random`, `oracle`, …).
    pub agent: String,
    /// Agent options (model, temperature, …), when the agent kind has any.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agent_options: BTreeMap<String, String>,
    /// In a two-role world, the agent spec of the expert role when it is not `agent`'s
    /// (`--expert`): `agent` then plays the solver. Absent otherwise (and in run
    /// directories written before the flag existed, so their hashes stay the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expert: Option<String>,
    /// The expert's options (its model, temperature, …), like `agent_options`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expert_options: BTreeMap<String, String>,
    /// The world's environment options (`-W key=value`: frame size, a rule's variant);
    /// absent when none were given, so older run directories keep their hashes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub world_options: BTreeMap<String, String>,
    /// Epochs per scenario (at least 1).
    pub epochs: u32,
    /// Files the agents' options name — a scripted model's replies, a price table — by
    /// absolute path, with the SHA-256 of their contents: part of the run's identity, so
    /// a run is never resumed against a changed script. Absent when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// The run settings the suite's paper states (epochs, decoding), as declared by the
    /// suite when the run started; the report compares the run against them. Absent when
    /// the suite declares none (and in run directories written before suites did).
    #[serde(default, skip_serializing_if = "SuiteSettings::is_empty")]
    pub suite_settings: SuiteSettings,
    /// Only the first `limit` scenarios of the suite, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Only `sample` scenarios of the suite, drawn evenly over its difficulty tiers with
    /// the run's seed (`--sample N`), when set; absent otherwise, so older run
    /// directories keep their hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u64>,
    /// Run seed; episode seeds are derived from it, the scenario id and the epoch.
    #[serde(with = "toml_u64")]
    pub seed: u64,
    /// Safety cap on steps per episode (worlds normally truncate long before).
    pub max_steps: u32,
    /// The scenarios played, in suite order (after `limit` or `sample`).
    pub scenarios: Vec<ScenarioRef>,
    /// The slice of the run this directory holds, when the run was split with
    /// `--shard i/N`. Shards of one run differ only here: see [`RunConfig::base_hash`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The recorded episode this run forks (`escapade run --from`): the run plays that
    /// one episode, its steps before `fork.step` replayed. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<escapade_core::Origin>,
}

/// One slice of a run split over machines (`--shard i/N`, 1-based like jest and
/// Playwright): episode `k` of the run's canonical episode list (epoch-major, suite
/// order) belongs to shard `k mod N + 1`, so shards are disjoint, cover the run, and
/// stay balanced across difficulty tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, from 1 to `count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// Whether episode number `k` (0-based, canonical order) belongs to this shard.
    pub fn contains(&self, k: usize) -> bool {
        k % self.count as usize + 1 == self.index as usize
    }
}

impl std::str::FromStr for Shard {
    type Err = RunError;

    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            RunError::invalid(
                "shard",
                format!("bad shard `{s}`: expected i/N with 1 <= i <= N, e.g. 1/4"),
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The shard a batch scheduler gave this process: `auto` reads a Slurm job array
    /// (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT`), `auto/N`
    /// takes the count from the argument and the 0-based index from a Kubernetes indexed
    /// job (`JOB_COMPLETION_INDEX`) or a Slurm array; anything else is `i/N` (1-based).
    /// `env` looks a variable up (the binary passes `std::env::var`).
    pub fn from_arg(arg: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard> {
        let Some(rest) = arg.trim().strip_prefix("auto") else {
            return arg.parse();
        };
        let number = |name: &str| -> Result<Option<u32>> {
            env(name)
                .map(|v| {
                    v.trim().parse::<u32>().map_err(|_| {
                        RunError::invalid(
                            "shard",
                            format!("--shard {arg}: {name}=`{v}` is not a number"),
                        )
                    })
                })
                .transpose()
        };
        let (index, from) = match (
            number("JOB_COMPLETION_INDEX")?,
            number("SLURM_ARRAY_TASK_ID")?,
        ) {
            (Some(i), _) => (i, "JOB_COMPLETION_INDEX"),
            (None, Some(id)) => {
                let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
                let i = id.checked_sub(min).ok_or_else(|| {
                    RunError::invalid("shard", format!("--shard {arg}: SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"))
                })?;
                (i, "SLURM_ARRAY_TASK_ID")
            }
            (None, None) => {
                return Err(RunError::invalid(
                    "shard",
                    format!(
                        "--shard {arg}: no scheduler index found (set JOB_COMPLETION_INDEX, as a \
                     Kubernetes indexed job does, or run in a Slurm job array); give i/N instead"
                    ),
                ));
            }
        };
        let count = match rest.strip_prefix('/') {
            Some(n) => n.trim().parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(|| {
                RunError::invalid("shard", format!("bad shard `{arg}`: expected auto or auto/N with N >= 1"))
            })?,
            None if rest.trim().is_empty() => number("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                RunError::invalid("shard", format!("--shard {arg}: the shard count is unknown outside a Slurm array; give auto/N"))
            })?,
            None => {
                return Err(RunError::invalid("shard", format!("bad shard `{arg}`: expected auto or auto/N with N >= 1")));
            }
        };
        if index >= count {
            return Err(RunError::invalid(
                "shard",
                format!(
                    "--shard {arg}: {from} {index} is not below the shard count {count} (indices start at 0)"
                ),
            ));
        }
        Ok(Shard {
            index: index + 1,
            count,
        })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A scenario of a run: its id and content hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioRef {
    /// Scenario id.
    pub id: String,
    /// SHA-256 of the scenario's JSON bytes.
    pub hash: String,
}

impl RunConfig {
    /// The canonical JSON that is hashed: every field but `source`, plus the format version.
    fn hashed(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut identity = self.clone();
        for options in [&mut identity.agent_options, &mut identity.expert_options] {
            options.retain(|k, _| !TUNING_KEYS.contains(&k.as_str()));
        }
        identity.hashed_with_tuning()
    }

    fn hashed_with_tuning(&self) -> serde_json::Map<String, serde_json::Value> {
        let value = serde_json::to_value(self).expect("a run config always serializes");
        let mut map = match value {
            serde_json::Value::Object(map) => map,
            _ => unreachable!("a struct serializes to an object"),
        };
        map.remove("source");
        map.insert("format_version".into(), FORMAT_VERSION.into());
        map
    }

    /// SHA-256 of the canonical JSON of the config: the run's identity. Leaves out
    /// `source` (the scenarios' hashes stand for it) and the client's tuning keys
    /// ([`TUNING_KEYS`]: timeouts, retries, rate limits), which change how a run talks to
    /// its backend, not what it measures.
    pub fn hash(&self) -> String {
        hash::content_hash(&self.hashed())
    }

    /// The hash as run directories made before tuning keys left the identity computed it
    /// (so that they resume).
    fn legacy_hash(&self) -> String {
        hash::content_hash(&self.hashed_with_tuning())
    }

    /// The hash of the whole run this directory is a shard of: [`RunConfig::hash`]
    /// without `shard`. Equal for every shard of one run, so reports merge them.
    pub fn base_hash(&self) -> String {
        let whole = RunConfig {
            shard: None,
            ..self.clone()
        };
        whole.hash()
    }

    /// Names of the hashed fields in which `self` and `other` differ.
    pub fn differing_fields(&self, other: &RunConfig) -> Vec<String> {
        let (a, b) = (self.hashed(), other.hashed());
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        keys.into_iter()
            .filter(|k| a.get(*k) != b.get(*k))
            .cloned()
            .collect()
    }
}

/// The contents of `run.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunToml {
    /// Run-directory format version.
    pub format_version: u32,
    /// Version of escapade that made the directory.
    pub escapade_version: String,
    /// Git revision of the escapade source, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
    /// When the run was created (UTC, RFC 3339).
    pub created: String,
    /// Hash of `config` (see [`RunConfig::hash`]).
    pub config_hash: String,
    /// Every way the run departs from its suite's paper protocol, one phrase each
    /// ([`crate::settings::departures`]), as of the run's start; empty (absent) when it
    /// follows the protocol. Not hashed: it follows from `config` and the escapade
    /// version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub departures: Vec<String>,
    /// The resolved configuration.
    pub config: RunConfig,
    /// What each model player's requests carry (`agent`, `expert`): every decoding
    /// parameter as sent or "not sent", the reply format, how pictures go
    /// ([`crate::settings::sent`]). Absent for baselines, and in directories written
    /// before it was recorded. Not hashed, like `departures`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sent: BTreeMap<String, BTreeMap<String, String>>,
    /// How the latest session spent: the response cache and the cost cap (`[spending]`).
    /// Not part of the run's identity: `escapade resume` may change them and rewrites
    /// this table. Absent when neither was set (a baseline's run).
    #[serde(default, skip_serializing_if = "Spending::is_empty")]
    pub spending: Spending,
}

/// How a run's model requests were paid for (`[spending]` in `run.toml`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spending {
    /// The response cache mode: `on` (read and write), `read`, `write` or `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// The cost cap in US dollars (`--max-cost`), over every session of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The cap stopped the latest session: episodes are left for `resume --max-cost`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cap_reached: bool,
}

impl Spending {
    /// Nothing recorded.
    pub fn is_empty(&self) -> bool {
        *self == Spending::default()
    }
}

/// Serializes a `u64` as a TOML integer when it fits in `i64`, else as a decimal string
/// (TOML integers are signed 64-bit).
mod toml_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*v) {
            Ok(i) => s.serialize_i64(i),
            Err(_) => s.serialize_str(&v.to_string()),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Int(u64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Int(v) => Ok(v),
            Repr::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Whether `dir` holds a run (has a `run.toml`).
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join(RUN_TOML).is_file()
}

/// How deep [`runs_below`] looks for run directories.
const RUNS_DEPTH: usize = 8;

/// The run directories at or below `dir`, in path order: `dir` itself when it is one,
/// else those found in its folders (not entering hidden folders, symbolic links, or a
/// run directory's own folders), as `escapade view` finds them.
pub fn runs_below(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
        if is_run_dir(dir) {
            found.push(dir.to_path_buf());
            return;
        }
        if depth >= RUNS_DEPTH {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut subs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            // file_type() does not follow symbolic links: a link is never entered
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        subs.sort();
        for sub in subs {
            walk(&sub, depth + 1, found);
        }
    }
    let mut found = Vec::new();
    walk(dir, 0, &mut found);
    found
}

/// Reads and parses `<dir>/run.toml`.
pub fn read_run_toml(dir: &Path) -> Result<RunToml> {
    let path = dir.join(RUN_TOML);
    if !dir.is_dir() {
        return Err(RunError::io(
            "cannot open",
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
        ));
    }
    if !path.is_file() {
        return Err(RunError::NotARunDir {
            path: dir.to_path_buf(),
            missing: RUN_TOML,
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|e| RunError::io("cannot read", &path, e))?;
    toml::from_str(&text).map_err(|e| RunError::BadFile {
        path,
        message: e.to_string(),
    })
}

/// Rows of a JSON Lines file of the run directory, and warnings about a torn last line.
#[derive(Debug, Clone)]
pub struct JsonlFile<T> {
    /// The valid rows, in file order.
    pub rows: Vec<T>,
    /// Warnings (a torn last line).
    pub warnings: Vec<String>,
    /// Byte length of the valid prefix (everything up to the last valid line's newline).
    pub valid_len: u64,
    /// Whether the valid prefix ends without a newline (a complete last row, cut short
    /// before its newline).
    pub missing_newline: bool,
}

impl<T> Default for JsonlFile<T> {
    fn default() -> Self {
        JsonlFile {
            rows: Vec::new(),
            warnings: Vec::new(),
            valid_len: 0,
            missing_newline: false,
        }
    }
}

/// Rows of an `episodes.jsonl` file, and warnings about a torn last line.
pub type EpisodesFile = JsonlFile<EpisodeRow>;

/// Reads an `episodes.jsonl` file. A malformed *last* line (a killed process) is skipped
/// with a warning; a malformed line before it is an error. Blank lines are skipped.
pub fn read_episodes(path: &Path) -> Result<EpisodesFile> {
    read_jsonl(path)
}

/// Reads a JSON Lines file of rows of type `T` (episodes, judge verdicts). A malformed
/// *last* line (a killed process) is skipped with a warning; a malformed line before it
/// is an error. Blank lines are skipped.
pub fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<JsonlFile<T>> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| RunError::io("cannot read", path, e))?;
    let mut out = JsonlFile::default();
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        line_no += 1;
        let (end, next) = match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => (start + i, start + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        let line = &bytes[start..end];
        let is_last = next >= bytes.len();
        if line.iter().all(u8::is_ascii_whitespace) {
            start = next;
            if end < next {
                out.valid_len = next as u64;
            }
            continue;
        }
        match serde_json::from_slice::<T>(line) {
            Ok(row) => {
                out.rows.push(row);
                out.valid_len = next as u64;
                out.missing_newline = end == next;
            }
            Err(e) if is_last => {
                out.warnings.push(format!(
                    "{}:{line_no}: ignoring a malformed last line (was the process killed?): {e}",
                    path.display()
                ));
            }
            Err(e) => {
                return Err(RunError::BadRow {
                    path: path.to_path_buf(),
                    line: line_no,
                    message: e.to_string(),
                });
            }
        }
        start = next;
    }
    Ok(out)
}

/// Makes `path` end with the valid rows `file` read from it, so that new rows append
/// cleanly: cuts off a torn last line and adds the newline a complete last row lacks.
/// Call it only while holding the directory's lock.
pub(crate) fn repair_tail<T>(path: &Path, file: &JsonlFile<T>) -> Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| RunError::io("cannot open", path, e))?;
    let len = f
        .metadata()
        .map_err(|e| RunError::io("cannot read", path, e))?
        .len();
    if len > file.valid_len {
        f.set_len(file.valid_len)
            .map_err(|e| RunError::io("cannot truncate", path, e))?;
    }
    if file.missing_newline {
        f.seek(SeekFrom::End(0))
            .and_then(|_| f.write_all(b"\n"))
            .map_err(|e| RunError::io("cannot write", path, e))?;
    }
    Ok(())
}

/// An open run directory that episodes are written into. Shareable between threads.
///
/// It holds one file descriptor, its lock: `episodes.jsonl` is opened for each row
/// appended and a trajectory for each batch of rows written, so that a server recording
/// hundreds of episodes at once (`escapade serve --record`) needs one descriptor per
/// episode beside its connection, not four.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    config_hash: String,
    /// Serializes appends to `episodes.jsonl` (one row is one write).
    episodes: Mutex<()>,
    media: Arc<Media>,
    /// The scenarios (their file stems) whose `trajectories/` folder this value has
    /// made or found, so that an episode of a scenario seen before asks for no folder.
    trajectory_dirs: Mutex<BTreeSet<String>>,
    /// Held for the life of the value: one process writes a run directory at a time.
    _lock: File,
}

/// A run directory opened by [`RunDir::open`]: new or resumed.
#[derive(Debug)]
pub struct Opened {
    /// The directory.
    pub dir: RunDir,
    /// Episodes already finished (empty for a new directory), with this config hash.
    pub finished: Vec<EpisodeRow>,
    /// Warnings met while opening (a torn last line, foreign rows).
    pub warnings: Vec<String>,
    /// Whether an existing run directory was resumed.
    pub resumed: bool,
}

impl RunDir {
    /// Resumes `out` if it is a run directory, else creates a new run directory under it.
    pub fn open(out: &Path, config: &RunConfig) -> Result<Opened> {
        if is_run_dir(out) {
            Self::resume(out, config)
        } else {
            Ok(Opened {
                dir: Self::create(out, config)?,
                finished: Vec::new(),
                warnings: Vec::new(),
                resumed: false,
            })
        }
    }

    /// Creates `<parent>/<utc-time>-<suite>-<agent>-<id>/` with its `run.toml`.
    pub fn create(parent: &Path, config: &RunConfig) -> Result<RunDir> {
        Self::create_named(parent, config, &config.agent)
    }

    /// Like [`RunDir::create`], naming the directory after `agent_name` (for example the
    /// model name of an LLM agent) instead of the agent spec.
    pub fn create_named(parent: &Path, config: &RunConfig, agent_name: &str) -> Result<RunDir> {
        Self::make(parent, config, agent_name, false)
    }

    /// Like [`RunDir::create_named`], the directory readable by this user only (mode
    /// 0700 on Unix): a recording made for a server's clients or for people at `play`,
    /// whose scenarios (their answers with them) another local user must not read while
    /// the episode is being played.
    pub fn create_private(parent: &Path, config: &RunConfig, agent_name: &str) -> Result<RunDir> {
        Self::make(parent, config, agent_name, true)
    }

    fn make(parent: &Path, config: &RunConfig, agent_name: &str, private: bool) -> Result<RunDir> {
        std::fs::create_dir_all(parent).map_err(|e| RunError::io("cannot create", parent, e))?;
        let now = chrono::Utc::now();
        let stamp = now.format("%Y%m%dT%H%M%SZ").to_string();
        let config_hash = config.hash();
        // a file name has at most 255 bytes: a long label (a participant's name typed
        // on a web page) is cut, never a reason the directory cannot be made
        let short = |s: &str| file_stem(s).chars().take(NAME_PART).collect::<String>();
        let (suite, agent) = (short(&config.suite), short(agent_name));
        let mut attempt = 0u64;
        let path = loop {
            let id = &hash::sha256_hex(
                format!(
                    "{config_hash}/{}/{}/{attempt}",
                    now.timestamp_nanos_opt().unwrap_or_default(),
                    std::process::id()
                )
                .as_bytes(),
            )[..6];
            let path = parent.join(format!("{stamp}-{suite}-{agent}-{id}"));
            match new_dir(&path, private) {
                Ok(()) => break path,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => return Err(RunError::io("cannot create", &path, e)),
            }
        };
        let toml = RunToml {
            format_version: FORMAT_VERSION,
            escapade_version: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: git_revision(),
            created: now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            config_hash: config_hash.clone(),
            departures: crate::settings::departures(config),
            config: config.clone(),
            sent: crate::settings::sent(config),
            spending: Spending::default(),
        };
        let text = toml::to_string(&toml).map_err(|e| RunError::BadFile {
            path: path.join(RUN_TOML),
            message: format!("cannot serialize the run config: {e}"),
        })?;
        // a directory left half made (out of file descriptors, a full disk) holds no
        // episode: it is removed rather than left for `report` to trip over
        let made = (|| -> Result<File> {
            write_atomic(&path.join(RUN_TOML), text.as_bytes())?;
            for sub in [TRAJECTORIES, MEDIA] {
                let p = path.join(sub);
                std::fs::create_dir_all(&p).map_err(|e| RunError::io("cannot create", &p, e))?;
            }
            let lock = lock(&path)?;
            open_append(&path.join(EPISODES))?;
            Ok(lock)
        })();
        let lock = match made {
            Ok(lock) => lock,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&path);
                return Err(e);
            }
        };
        Ok(RunDir {
            media: Media::new(&path, true),
            path,
            config_hash,
            episodes: Mutex::new(()),
            trajectory_dirs: Mutex::new(BTreeSet::new()),
            _lock: lock,
        })
    }

    /// Removes this directory, which must hold no episode row yet (an episode that
    /// could not start after its directory was made).
    pub fn discard(self) {
        let path = self.path.clone();
        drop(self);
        let _ = std::fs::remove_dir_all(path);
    }

    /// A private directory at `path` that one episode played away from its run (a
    /// worker of [`crate::distributed`]) is recorded into, with the run's `config_hash`:
    /// the same `trajectories/` and `media/` layout, no `run.toml`. Its owner reads the
    /// files back and removes it.
    pub(crate) fn scratch(path: &Path, config_hash: &str) -> Result<RunDir> {
        for sub in [TRAJECTORIES, MEDIA] {
            let p = path.join(sub);
            std::fs::create_dir_all(&p).map_err(|e| RunError::io("cannot create", &p, e))?;
        }
        let lock = lock(path)?;
        open_append(&path.join(EPISODES))?;
        Ok(RunDir {
            path: path.to_path_buf(),
            config_hash: config_hash.to_string(),
            episodes: Mutex::new(()),
            media: Media::new(path, true),
            trajectory_dirs: Mutex::new(BTreeSet::new()),
            _lock: lock,
        })
    }

    /// Reopens an existing run directory for `config`. Refuses it when its config hash
    /// differs; returns the episodes already finished. Tuning keys that `config` changes
    /// (they are not hashed) are written to `run.toml`, with its `[sent]` tables. A torn last line of
    /// `episodes.jsonl` is cut off (with a warning) so that new rows append cleanly.
    pub fn resume(dir: &Path, config: &RunConfig) -> Result<Opened> {
        let toml = read_run_toml(dir)?;
        let mut expected = config.hash();
        if toml.config_hash == config.legacy_hash() {
            // made when tuning keys were part of the identity: its rows carry that hash
            expected = toml.config_hash.clone();
        }
        if toml.config_hash != expected {
            let fields = config.differing_fields(&toml.config);
            return Err(RunError::ConfigMismatch {
                path: dir.to_path_buf(),
                expected,
                found: toml.config_hash,
                fields: if fields.is_empty() {
                    "the recorded hash".to_string()
                } else {
                    fields.join(", ")
                },
            });
        }
        // before reading or truncating anything another process may be appending to
        let lock = lock(dir)?;
        // the same identity with other tuning keys (`resume -A timeout=…`): run.toml
        // records the latest session's, and what its requests went with
        if toml.config.agent_options != config.agent_options
            || toml.config.expert_options != config.expert_options
        {
            let mut retuned = toml.clone();
            retuned.config.agent_options = config.agent_options.clone();
            retuned.config.expert_options = config.expert_options.clone();
            retuned.sent = crate::settings::sent(&retuned.config);
            let at = dir.join(RUN_TOML);
            let text = toml::to_string(&retuned).map_err(|e| RunError::BadFile {
                path: at.clone(),
                message: format!("cannot serialize the run config: {e}"),
            })?;
            write_atomic(&at, text.as_bytes())?;
        }
        let path = dir.join(EPISODES);
        let mut warnings = Vec::new();
        let ours = env!("CARGO_PKG_VERSION");
        if toml.escapade_version != ours {
            warnings.push(format!(
                "{}: the run was started by escapade {} and is resumed by escapade {ours}; \
                 episodes of the two versions may not be comparable",
                dir.display(),
                toml.escapade_version
            ));
        }
        let mut finished = Vec::new();
        if path.is_file() {
            let file = read_episodes(&path)?;
            warnings.extend(file.warnings.iter().cloned());
            repair_tail(&path, &file)?;
            let foreign = file
                .rows
                .iter()
                .filter(|r| r.config_hash != expected)
                .count();
            if foreign > 0 {
                warnings.push(format!(
                    "{}: ignoring {foreign} row(s) with another config hash",
                    path.display()
                ));
            }
            finished = file
                .rows
                .into_iter()
                .filter(|r| r.config_hash == expected)
                .collect();
        }
        for sub in [TRAJECTORIES, MEDIA] {
            let p = dir.join(sub);
            std::fs::create_dir_all(&p).map_err(|e| RunError::io("cannot create", &p, e))?;
        }
        open_append(&path)?;
        Ok(Opened {
            dir: RunDir {
                path: dir.to_path_buf(),
                config_hash: expected,
                episodes: Mutex::new(()),
                media: Media::new(dir, false),
                trajectory_dirs: Mutex::new(BTreeSet::new()),
                _lock: lock,
            },
            finished,
            warnings,
            resumed: true,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rewrites the `[spending]` table of `run.toml` (the rest stays as it is).
    pub fn record_spending(&self, spending: &Spending) -> Result<()> {
        let mut toml = read_run_toml(&self.path)?;
        if toml.spending == *spending {
            return Ok(());
        }
        toml.spending = spending.clone();
        let path = self.path.join(RUN_TOML);
        let text = toml::to_string(&toml).map_err(|e| RunError::BadFile {
            path: path.clone(),
            message: format!("cannot serialize the run config: {e}"),
        })?;
        write_atomic(&path, text.as_bytes())
    }

    /// The config hash every row of this directory carries.
    pub fn config_hash(&self) -> &str {
        &self.config_hash
    }

    /// Starts (or restarts, truncating) the trajectory file of one episode.
    pub fn trajectory(&self, scenario: &str, epoch: u32) -> Result<TrajectoryWriter> {
        let path = self.trajectory_path(scenario, epoch);
        let stem = file_stem(scenario);
        let mut made = self
            .trajectory_dirs
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !made.contains(&stem) {
            let dir = path.parent().expect("a trajectory file has a folder");
            std::fs::create_dir_all(dir).map_err(|e| RunError::io("cannot create", dir, e))?;
            made.insert(stem);
        }
        drop(made);
        File::create(&path).map_err(|e| RunError::io("cannot create", &path, e))?;
        Ok(TrajectoryWriter {
            buffer: Vec::new(),
            path,
            flushed: std::time::Instant::now(),
        })
    }

    /// Reopens the trajectory of an episode continued from a checkpoint: its first
    /// `keep` bytes (the checkpoint's rows) stay, anything after them is cut off, and new
    /// rows are appended.
    pub fn continue_trajectory(
        &self,
        scenario: &str,
        epoch: u32,
        keep: u64,
    ) -> Result<TrajectoryWriter> {
        let path = self.trajectory_path(scenario, epoch);
        OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|e| RunError::io("cannot open", &path, e))?
            .set_len(keep)
            .map_err(|e| RunError::io("cannot truncate", &path, e))?;
        // the writer appends: the file is open only while a batch is written
        Ok(TrajectoryWriter {
            buffer: Vec::new(),
            path,
            flushed: std::time::Instant::now(),
        })
    }

    /// Where the checkpoint of one episode is kept.
    pub fn checkpoint_path(&self, scenario: &str, epoch: u32) -> PathBuf {
        checkpoint_path(&self.path, scenario, epoch)
    }

    /// Writes (atomically) the checkpoint of an interrupted episode.
    pub fn write_checkpoint(&self, checkpoint: &Checkpoint) -> Result<()> {
        let path = self.checkpoint_path(&checkpoint.scenario, checkpoint.epoch);
        let dir = path.parent().expect("a checkpoint file has a folder");
        std::fs::create_dir_all(dir).map_err(|e| RunError::io("cannot create", dir, e))?;
        let mut json = serde_json::to_vec(checkpoint).expect("a checkpoint always serializes");
        json.push(b'\n');
        write_atomic(&path, &json)
    }

    /// The checkpoint of one episode, if it has one; `Err` says why a file there cannot
    /// be used.
    pub fn read_checkpoint(
        &self,
        scenario: &str,
        epoch: u32,
    ) -> std::result::Result<Option<Checkpoint>, String> {
        let path = self.checkpoint_path(scenario, epoch);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Removes the checkpoint of one episode (finished, or played again from its start).
    pub fn remove_checkpoint(&self, scenario: &str, epoch: u32) -> Result<()> {
        let path = self.checkpoint_path(scenario, epoch);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(RunError::io("cannot remove", &path, e))
            }
            _ => Ok(()),
        }
    }

    /// Where the trajectory of one episode is written.
    pub fn trajectory_path(&self, scenario: &str, epoch: u32) -> PathBuf {
        self.path
            .join(TRAJECTORIES)
            .join(file_stem(scenario))
            .join(format!("{epoch}.jsonl"))
    }

    /// Stores images under `media/<sha256>.png` (each written once) and returns their
    /// addresses in order: [`Media::store`].
    pub fn store_images(&self, images: &[Image]) -> Result<Vec<String>> {
        self.media.store(images)
    }

    /// The directory's `media/` store, to share with a thread that stores pictures where
    /// they are made (the runner stores an environment call's pictures on the blocking
    /// pool, beside the call, so that episodes in flight hash and write in parallel).
    pub fn media(&self) -> Arc<Media> {
        self.media.clone()
    }

    /// Appends one episode row to `episodes.jsonl` and flushes it.
    pub fn append_episode(&self, row: &EpisodeRow) -> Result<()> {
        let mut line = serde_json::to_vec(row).expect("an episode row always serializes");
        line.push(b'\n');
        let path = self.path.join(EPISODES);
        let _one = self.episodes.lock().unwrap_or_else(|p| p.into_inner());
        open_append(&path)?
            .write_all(&line)
            .map_err(|e| RunError::io("cannot write", path, e))
    }

    /// Writes `summary.json` and `report.md` from this directory's episodes, with the
    /// tier labels and breakdowns of `world` (the run's).
    pub fn write_summary(&self, world: &dyn escapade_core::World) -> Result<Report> {
        let report = report(std::slice::from_ref(&self.path), &[world])?;
        let mut json = report.render(Format::Json);
        json.push('\n');
        write_atomic(&self.path.join(SUMMARY), json.as_bytes())?;
        write_atomic(
            &self.path.join(REPORT_MD),
            report.render(Format::Markdown).as_bytes(),
        )?;
        Ok(report)
    }
}

/// Makes the directory `path` (its parent exists), for this user only when `private`.
fn new_dir(path: &Path, private: bool) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    #[cfg(not(unix))]
    let _ = private;
    builder.create(path)
}

/// `checkpoints/<scenario>/<epoch>.json` of the run directory `dir`.
fn checkpoint_path(dir: &Path, scenario: &str, epoch: u32) -> PathBuf {
    dir.join(CHECKPOINTS)
        .join(file_stem(scenario))
        .join(format!("{epoch}.json"))
}

/// The checkpoints of the run directory `dir` that parse (any config hash), in path
/// order: the episodes `escapade resume` continues.
pub fn checkpoints(dir: &Path) -> Vec<Checkpoint> {
    let mut out = Vec::new();
    let Ok(scenarios) = std::fs::read_dir(dir.join(CHECKPOINTS)) else {
        return out;
    };
    let mut files: Vec<PathBuf> = scenarios
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_dir(e.path()).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for path in files {
        if let Some(c) = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Checkpoint>(&b).ok())
        {
            out.push(c);
        }
    }
    out
}

/// The `media/` folder of a run directory, and the addresses this process stored there.
#[derive(Debug)]
pub struct Media {
    /// The run directory (the files are under its `media/`).
    dir: PathBuf,
    written: Mutex<BTreeSet<String>>,
    /// Made by this process: its `media/` holds only what [`Media::store`] wrote, so a
    /// file not in `written` is known to be absent without asking the file system.
    created: bool,
}

impl Media {
    fn new(dir: &Path, created: bool) -> Arc<Media> {
        Arc::new(Media {
            dir: dir.to_path_buf(),
            written: Mutex::new(BTreeSet::new()),
            created,
        })
    }

    /// Stores images under `media/<sha256>.png` (each written once) and returns their
    /// addresses in order. Any thread may call it; one file is written at a time.
    ///
    /// A file is complete before its address is returned, so a row that names it is
    /// written after it. In a directory this process created, a new file is written in
    /// place, without a temporary file and a rename (a COMMA run stores two thousand
    /// pictures): a run killed while writing one leaves it torn, but no row names it.
    /// A resumed directory therefore trusts no file it did not write: one found there is
    /// used only when its bytes hash to its name, and written again (atomically)
    /// otherwise.
    ///
    /// An image whose address was already stored by this process is not hashed again:
    /// its address is trusted ([`Image::sha256`] is the hash of its bytes, as
    /// [`Image::from_png`] makes it). An address not seen yet is checked — the bytes are
    /// hashed and stored under their true address — so a mislabelled image never names
    /// a file that does not hold it.
    pub fn store(&self, images: &[Image]) -> Result<Vec<String>> {
        let mut shas = Vec::with_capacity(images.len());
        for image in images {
            let known = image.png.is_empty()
                || (self.written.lock().unwrap_or_else(|p| p.into_inner())).contains(&image.sha256);
            if known {
                shas.push(image.sha256.clone());
                continue;
            }
            // hashed outside the lock, so that episodes in flight hash in parallel
            let sha = hash::sha256_hex(&image.png);
            let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
            if !written.contains(&sha) {
                let path = self.dir.join(MEDIA).join(format!("{sha}.png"));
                if self.created {
                    write_new(&path, &image.png)?;
                } else if !holds(&path, &sha) {
                    // absent, or torn by a run killed while writing it
                    write_atomic(&path, &image.png)?;
                }
                written.insert(sha.clone());
            }
            shas.push(sha);
        }
        Ok(shas)
    }
}

/// How long a step row may wait in a [`TrajectoryWriter`]'s buffer while more rows come.
pub const TRAJECTORY_FLUSH: std::time::Duration = std::time::Duration::from_millis(250);

/// Writes the [`StepRow`]s of one episode, one line each.
///
/// Rows that come in a burst (a baseline plays hundreds of steps a second) are buffered
/// and reach the file together: when a row comes [`TRAJECTORY_FLUSH`] or more after the
/// last write to the file, at [`TrajectoryWriter::finish`], or when the writer is
/// dropped. A model's steps, seconds apart, reach the file one by one, so a running
/// episode can still be followed. The runner finishes an episode's trajectory before it
/// appends the episode's row, so a killed run loses at most the rows of episodes without
/// a row — the episodes `resume` plays again from their start. The file is open only
/// while a batch is written (see [`RunDir`]: one descriptor per episode in play).
#[derive(Debug)]
pub struct TrajectoryWriter {
    buffer: Vec<u8>,
    path: PathBuf,
    flushed: std::time::Instant,
}

impl TrajectoryWriter {
    /// Appends one step row (see the type's docs for when it reaches the file).
    pub fn write(&mut self, row: &StepRow) -> Result<()> {
        serde_json::to_writer(&mut self.buffer, row).expect("a step row always serializes");
        self.buffer.push(b'\n');
        if self.flushed.elapsed() >= TRAJECTORY_FLUSH || self.buffer.len() >= 64 << 10 {
            self.finish()?;
        }
        Ok(())
    }

    /// Appends step rows already serialized as JSON Lines (an episode recorded by a
    /// worker), as they are.
    pub(crate) fn write_lines(&mut self, jsonl: &[u8]) -> Result<()> {
        self.buffer.extend_from_slice(jsonl);
        self.finish()
    }

    /// Writes every buffered row to the file.
    pub fn finish(&mut self) -> Result<()> {
        if !self.buffer.is_empty() {
            open_append(&self.path)?
                .write_all(&self.buffer)
                .map_err(|e| RunError::io("cannot write", &self.path, e))?;
            self.buffer.clear();
        }
        self.flushed = std::time::Instant::now();
        Ok(())
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TrajectoryWriter {
    /// Writes the rows still buffered, as a dropped buffered file would.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Most characters of the suite and of the agent in a run directory's name.
pub const NAME_PART: usize = 64;

/// Name of the lock file in a run directory.
pub const LOCK: &str = ".lock";

/// Takes the run directory's exclusive lock (released when the file closes, also when
/// the process is killed), or fails when another process holds it (after
/// [`LOCK_PATIENCE`]).
fn lock(dir: &Path) -> Result<File> {
    try_lock(dir)?.ok_or_else(|| RunError::Locked(dir.to_path_buf()))
}

/// Whether a process is writing the run directory `dir` now (`escapade run` or
/// `resume` holds its lock): a run that is neither finished nor running was
/// interrupted. It only reads: a directory without a lock file is not running, and none
/// is made.
pub fn is_running(dir: &Path) -> bool {
    let Ok(file) = File::open(dir.join(LOCK)) else {
        return false;
    };
    // a shared lock, let go at once, can be had only while no writer holds the
    // exclusive one; a writer starting in that instant waits (`LOCK_PATIENCE`)
    matches!(
        file.try_lock_shared(),
        Err(std::fs::TryLockError::WouldBlock)
    )
}

/// How long [`try_lock`] keeps asking before it says another process holds the lock.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Takes the exclusive lock of `dir` (its `.lock` file): `None` when another process
/// holds it.
///
/// It asks again for up to [`LOCK_PATIENCE`] before giving up. The lock is an `flock` on
/// the file, and a child process started at the moment this process still had the file
/// open shares it until the child's `exec` closes its copy; so a run directory closed
/// and reopened at once (a `run` then a `resume`, while another thread starts the Python
/// sandbox or the local model) can find it held for a few milliseconds by no one. A
/// real writer holds it for its whole run, and the wait costs it nothing.
pub(crate) fn try_lock(dir: &Path) -> Result<Option<File>> {
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| RunError::io("cannot open", &path, e))?;
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(RunError::io("cannot lock", &path, e));
            }
        }
    }
}

pub(crate) fn open_append(path: &Path) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| RunError::io("cannot open", path, e))
}

/// Writes `bytes` to `path`, which must not exist yet.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    File::create_new(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| RunError::io("cannot write", path, e))
}

/// Whether the file at `path` exists and its bytes hash to `sha` (lowercase hex SHA-256).
fn holds(path: &Path, sha: &str) -> bool {
    std::fs::read(path).is_ok_and(|bytes| hash::sha256_hex(&bytes) == sha)
}

/// Writes `bytes` to a temporary sibling and renames it over `path`.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| RunError::io("cannot write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| RunError::io("cannot write", path, e))
}

/// The git revision of the escapade source tree this binary was built from, when that
/// tree is still a git checkout; best effort (no git, no repository: `None`).
///
/// Read from the repository's files ([`revision_from_files`]) when they are laid out
/// as usual; only otherwise asked of `git` — starting a process costs a run 5–100 ms
/// of wall time on a loaded machine, as much as a whole baseline episode.
fn git_revision() -> Option<String> {
    revision_from_files(Path::new(env!("CARGO_MANIFEST_DIR"))).or_else(git_rev_parse)
}

/// `HEAD`'s commit of the repository holding `dir`, read from its files: the nearest
/// `.git` above `dir` (a directory, or a worktree's file naming its git directory),
/// `HEAD` there (a commit, or a branch looked up as a loose ref, then in `packed-refs`,
/// in the worktree's and then the common git directory). `None` for anything else
/// (a reftable, a symbolic ref to a symbolic ref): the caller asks `git`.
fn revision_from_files(dir: &Path) -> Option<String> {
    let is_hash =
        |s: &str| (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
    let dot_git = dir
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|p| p.exists())?;
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let named = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
        dot_git.parent()?.join(named)
    };
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => git_dir.join(rel.trim()),
        Err(_) => git_dir.clone(),
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(name) = head.strip_prefix("ref:").map(str::trim) else {
        return is_hash(head).then(|| head.to_string());
    };
    if !name.starts_with("refs/") || name.split('/').any(|part| part == "..") {
        return None;
    }
    for base in [&git_dir, &common] {
        if let Ok(loose) = std::fs::read_to_string(base.join(name)) {
            let loose = loose.trim();
            return is_hash(loose).then(|| loose.to_string());
        }
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (hash, refname) = line.split_once(' ')?;
        (refname == name && is_hash(hash)).then(|| hash.to_string())
    })
}

/// `git rev-parse HEAD` in the source tree.
fn git_rev_parse() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let rev = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !rev.is_empty()).then_some(rev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_read_from_files_is_what_git_says() {
        // a repository of each layout: a plain one with a loose branch, the same after
        // `git pack-refs`, a worktree of it, and a detached HEAD
        let git = |dir: &Path, args: &[&str]| {
            std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "init.defaultBranch=main",
                ])
                .arg("-C")
                .arg(dir)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        if git(&repo, &["init", "-q"]).is_none() {
            eprintln!("note: no git here, the revision test is skipped");
            return;
        }
        let sub = repo.join("crates/x");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("f"), "1").unwrap();
        git(&repo, &["add", "."]).unwrap();
        git(&repo, &["commit", "-q", "-m", "one"]).unwrap();
        let head = git(&repo, &["rev-parse", "HEAD"]).unwrap();
        assert_eq!(revision_from_files(&sub), Some(head.clone()), "loose ref");
        git(&repo, &["pack-refs", "--all"]).unwrap();
        assert!(!repo.join(".git/refs/heads/main").exists());
        assert_eq!(revision_from_files(&sub), Some(head.clone()), "packed ref");
        let tree = tmp.path().join("tree");
        git(
            &repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "other",
                tree.to_str().unwrap(),
            ],
        )
        .unwrap();
        std::fs::write(tree.join("crates/x/f"), "2").unwrap();
        git(&tree, &["commit", "-q", "-am", "two"]).unwrap();
        let other = git(&tree, &["rev-parse", "HEAD"]).unwrap();
        assert_ne!(other, head);
        assert_eq!(
            revision_from_files(&tree.join("crates/x")),
            Some(other),
            "worktree"
        );
        assert_eq!(
            revision_from_files(&sub),
            Some(head.clone()),
            "main tree unchanged"
        );
        git(&repo, &["checkout", "-q", "--detach"]).unwrap();
        assert_eq!(revision_from_files(&sub), Some(head), "detached");
        assert_eq!(revision_from_files(&tmp.path().join("nowhere")), None);
    }

    #[test]
    fn a_shard_comes_from_the_scheduler_with_auto() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let shard = |arg, vars| Shard::from_arg(arg, env(vars)).map(|s| s.to_string());
        assert_eq!(shard("2/8", &[]).unwrap(), "2/8");
        // Kubernetes: 0-based index, count given
        assert_eq!(
            shard("auto/8", &[("JOB_COMPLETION_INDEX", "0")]).unwrap(),
            "1/8"
        );
        assert_eq!(
            shard("auto/8", &[("JOB_COMPLETION_INDEX", "7")]).unwrap(),
            "8/8"
        );
        assert!(shard("auto/8", &[("JOB_COMPLETION_INDEX", "8")]).is_err());
        assert!(shard("auto", &[("JOB_COMPLETION_INDEX", "1")]).is_err());
        // Slurm: --array=1-4 gives MIN 1, COUNT 4
        let slurm = &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard("auto", slurm).unwrap(), "3/4");
        assert_eq!(
            shard(
                "auto",
                &[
                    ("SLURM_ARRAY_TASK_ID", "0"),
                    ("SLURM_ARRAY_TASK_COUNT", "2")
                ]
            )
            .unwrap(),
            "1/2"
        );
        let e = shard("auto", &[]).unwrap_err().to_string();
        assert!(e.contains("no scheduler index"), "{e}");
        assert!(shard("auto/0", &[("JOB_COMPLETION_INDEX", "0")]).is_err());
        assert!(shard("auto/x", &[("JOB_COMPLETION_INDEX", "0")]).is_err());
        assert!(shard("autox", &[("JOB_COMPLETION_INDEX", "0")]).is_err());
        assert!(shard("auto/4", &[("JOB_COMPLETION_INDEX", "one")]).is_err());
    }

    fn config() -> RunConfig {
        RunConfig {
            suite: "s@1".into(),
            world: "w".into(),
            source: "s@1".into(),
            agent: "random".into(),
            agent_options: BTreeMap::new(),
            expert: None,
            expert_options: Default::default(),
            world_options: Default::default(),
            epochs: 2,
            files: Default::default(),
            suite_settings: Default::default(),
            limit: None,
            sample: None,
            seed: u64::MAX,
            max_steps: 100,
            scenarios: vec![ScenarioRef {
                id: "a".into(),
                hash: "00".into(),
            }],
            shard: None,
            fork: None,
        }
    }

    #[test]
    fn tuning_keys_are_not_identity_and_older_hashes_still_resume() {
        let mut a = config();
        a.agent = "llm".into();
        a.agent_options.insert("temperature".into(), "0.7".into());
        let mut b = a.clone();
        b.agent_options.insert("timeout".into(), "30".into());
        b.expert_options.insert("rpm".into(), "5".into());
        assert_eq!(a.hash(), b.hash());
        b.agent_options.insert("temperature".into(), "1".into());
        assert_ne!(a.hash(), b.hash());

        // a directory whose run.toml holds the hash with tuning keys in it
        let tmp = tempfile::tempdir().unwrap();
        let mut tuned = a.clone();
        tuned.agent_options.insert("timeout".into(), "30".into());
        let dir = RunDir::create(tmp.path(), &tuned)
            .unwrap()
            .path()
            .to_path_buf();
        let toml_path = dir.join("run.toml");
        let mut toml = read_run_toml(&dir).unwrap();
        toml.config_hash = tuned.legacy_hash();
        toml.escapade_version = "0.0.1".into();
        std::fs::write(&toml_path, toml::to_string(&toml).unwrap()).unwrap();
        let opened = RunDir::resume(&dir, &tuned).unwrap();
        assert_eq!(opened.dir.config_hash(), tuned.legacy_hash());
        assert!(
            opened
                .warnings
                .iter()
                .any(|w| w.contains("started by escapade 0.0.1")),
            "{:?}",
            opened.warnings
        );
    }

    #[test]
    fn hash_ignores_source_but_not_epochs() {
        let a = config();
        let mut b = config();
        b.source = "/elsewhere".into();
        assert_eq!(a.hash(), b.hash());
        b.epochs = 3;
        assert_ne!(a.hash(), b.hash());
        assert_eq!(a.differing_fields(&b), vec!["epochs".to_string()]);
    }

    #[test]
    fn one_process_at_a_time_writes_a_run_directory() {
        let parent = tempfile::tempdir().unwrap();
        let dir = RunDir::create(parent.path(), &config()).unwrap();
        let err = RunDir::resume(dir.path(), &config()).unwrap_err();
        assert!(matches!(err, RunError::Locked(_)), "{err}");
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(RunDir::resume(&path, &config()).is_ok());
    }

    #[test]
    fn a_resumed_directory_rewrites_a_torn_picture_and_keeps_a_whole_one() {
        let parent = tempfile::tempdir().unwrap();
        let dir = RunDir::create(parent.path(), &config()).unwrap();
        let (a, b) = (
            Image::from_png(b"picture a".to_vec()),
            Image::from_png(b"picture b".to_vec()),
        );
        let shas = dir
            .store_images(&[a.clone(), b.clone(), a.clone()])
            .unwrap();
        assert_eq!(shas, [a.sha256.clone(), b.sha256.clone(), a.sha256.clone()]);
        let media = dir.path().join(MEDIA);
        let file = |i: &Image| media.join(format!("{}.png", i.sha256));
        assert_eq!(std::fs::read(file(&a)).unwrap(), a.png);
        // a run killed while writing `b`: its file holds half of it
        std::fs::write(file(&b), &b.png[..4]).unwrap();
        let whole_a = std::fs::metadata(file(&a)).unwrap().modified().unwrap();
        let path = dir.path().to_path_buf();
        drop(dir);
        let dir = RunDir::resume(&path, &config()).unwrap().dir;
        dir.store_images(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(
            std::fs::read(file(&b)).unwrap(),
            b.png,
            "torn file rewritten"
        );
        assert_eq!(std::fs::read(file(&a)).unwrap(), a.png);
        let after = std::fs::metadata(file(&a)).unwrap().modified().unwrap();
        assert_eq!(whole_a, after, "a whole file is left as it is");
        let names: Vec<String> = std::fs::read_dir(path.join(MEDIA))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }

    #[test]
    fn run_toml_round_trips_a_large_seed_and_agent_options() {
        let mut cfg = config();
        cfg.agent = "llm".into();
        cfg.agent_options
            .insert("model".into(), "openai/gpt-4o".into());
        cfg.limit = Some(3);
        let t = RunToml {
            format_version: FORMAT_VERSION,
            escapade_version: "0".into(),
            git_revision: None,
            created: "now".into(),
            config_hash: cfg.hash(),
            departures: crate::settings::departures(&cfg),
            sent: crate::settings::sent(&cfg),
            config: cfg,
            spending: Spending {
                cache: Some("on".into()),
                max_cost_usd: Some(2.5),
                cap_reached: true,
            },
        };
        assert_eq!(
            t.departures,
            [
                "--limit 3 (the suite's first 3 scenarios)",
                "--max-steps 100 (default 10000: the world's own limit ends an episode)"
            ]
        );
        assert_eq!(t.sent["agent"]["temperature"], "0");
        let text = toml::to_string(&t).unwrap();
        assert!(text.contains("[spending]"), "{text}");
        let back: RunToml = toml::from_str(&text).unwrap();
        assert_eq!(back, t);
        let mut small = config();
        small.seed = 7;
        let text = toml::to_string(&small).unwrap();
        assert!(text.contains("seed = 7"), "{text}");
    }
}
