//! LLM-as-judge metrics over run directories (`escapade judge`).
//!
//! Some of the papers' analyses need a model to read what an agent wrote (VisEscape's
//! reasoning units, COMMA's error types, MM-Escape's intent–outcome consistency and
//! debriefing). A judge is slow and costs money, so it is not part of `escapade report`:
//! it runs on demand and writes its verdicts beside the run, in
//! `<run-dir>/judge/<task>.jsonl` (one [`JudgeRow`] per judged item, appended and flushed
//! per row), and a later invocation judges only what is missing before it aggregates.
//!
//! The tasks themselves ([`JudgeTask`], `escapade_core::judge`) belong to the worlds whose
//! papers define them (`World::judge_tasks`); this module finds one by name ([`task`]),
//! plans the items of every run, sends the calls (at temperature 0, constrained to the
//! task's verdict schema where the backend supports it), stores the rows and aggregates
//! them. A task may decide an item without a call ([`Item::verdict`]), make a call
//! before the verdict (the debriefing's storyteller: [`JudgeTask::prior`]), and read the
//! scenario's ground truth ([`EpisodeInfo::scenario_json`], rebuilt by hash from the
//! worlds given to [`judge`]).
//!
//! Resume: a row is done for the same task, task version and judge model (and
//! storyteller, for `debrief`) unless it is `retryable` (the backend failed: nothing was judged). A reply the parser cannot read is
//! final — at temperature 0 the judge would say it again — and counts as an error. Only
//! the steps of episodes listed in `episodes.jsonl` are judged (a trajectory of an
//! episode still being played may be rewritten), and the inputs of one run (its shards)
//! are merged as `escapade report` merges them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use escapade_agents::Structured;
use escapade_core::action::truncate_chars;
use escapade_core::judge::{
    Aggregate, EpisodeInfo, Item, JudgeRequest, JudgeRow, JudgeTask, PriorCall, StepView,
};
use escapade_core::{FORMAT_VERSION, Usage, World};
use escapade_llm::{ChatRequest, Client, ClientOptions, Message, Role};
use futures::stream::{FuturesUnordered, StreamExt};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::progress::Progress;
use crate::report::{Episode, read_runs};
use crate::rundir::{TRAJECTORIES, open_append, read_jsonl, read_run_toml, repair_tail, try_lock};
use crate::suite::file_stem;

/// `judge/`: the judges' verdicts inside a run directory, one file per task.
pub const JUDGE_DIR: &str = "judge";
/// Judge calls in flight at once, unless `--concurrency` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;
/// Most characters of an item's text sent to the judge by default.
pub use escapade_core::judge::DEFAULT_MAX_CHARS;
/// Cap on the judge's reply in tokens: the reply repeats the text it labels.
pub const DEFAULT_MAX_TOKENS: u32 = 4_096;
/// `-A` keys read by the judge itself; the backend's keys (`base_url`, `timeout`,
/// `retries`, …) are [`escapade_agents::config::CLIENT_KEYS`].
pub const JUDGE_KEYS: [&str; 4] = ["max_chars", "max_tokens", "storyteller", "structured"];
/// Most characters of a reply kept in its row.
const MAX_REPLY_CHARS: usize = 32_000;
/// Errors printed one by one before the rest are only counted.
const WARN_LIMIT: usize = 5;

/// The judge tasks of `worlds`, in registry order (each world declares its paper's:
/// `World::judge_tasks`).
pub fn tasks(worlds: &[Box<dyn World>]) -> Vec<&'static dyn JudgeTask> {
    worlds.iter().flat_map(|w| w.judge_tasks()).collect()
}

/// The task called `name` among the worlds' tasks; an unknown name is an error listing
/// the known ones.
pub fn task(worlds: &[Box<dyn World>], name: &str) -> Result<&'static dyn JudgeTask> {
    let all = tasks(worlds);
    all.iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| RunError::unknown("judge task", name, all.iter().map(|t| t.name())))
}

/// What to judge and with which model.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSpec {
    /// The task's name (see [`TASKS`]).
    pub task: String,
    /// The judge model, `provider/model`.
    pub model: String,
    /// Judge calls in flight at once (at least 1).
    pub concurrency: usize,
    /// Judge only the first `limit` items of each run (scenario, epoch, step order).
    pub limit: Option<usize>,
    /// Most characters of an item's text sent (`-A max_chars=N`).
    pub max_chars: usize,
    /// Cap on the judge's reply in tokens (`-A max_tokens=N`).
    pub max_tokens: u32,
    /// The model asked before the judge by tasks with a prior call (`debrief`'s
    /// storyteller), `provider/model` (`-A storyteller=…`); `None`: the judge model.
    pub storyteller: Option<String>,
    /// Whether verdicts are constrained to the task's JSON Schema (`-A structured=…`):
    /// by default on for `local/…` models, as for agents.
    pub structured: Structured,
}

impl Default for JudgeSpec {
    fn default() -> Self {
        JudgeSpec {
            task: "reasoning".into(),
            model: String::new(),
            concurrency: DEFAULT_CONCURRENCY,
            limit: None,
            max_chars: DEFAULT_MAX_CHARS,
            max_tokens: DEFAULT_MAX_TOKENS,
            storyteller: None,
            structured: Structured::Auto,
        }
    }
}

impl JudgeSpec {
    /// Whether the judge's replies are constrained to a verdict schema.
    pub fn structured_on(&self) -> bool {
        match self.structured {
            Structured::On => true,
            Structured::Off => false,
            Structured::Auto => self.model.starts_with("local/"),
        }
    }

    /// Applies `-A key=value` options: [`JUDGE_KEYS`] set this spec, the backend's keys
    /// ([`escapade_agents::config::CLIENT_KEYS`]) make the returned client options. Any
    /// other key is an error listing the known ones.
    pub fn apply_options(&mut self, options: &BTreeMap<String, String>) -> Result<ClientOptions> {
        use escapade_agents::config::{CLIENT_KEYS, client_options};
        let mut client = BTreeMap::new();
        for (key, value) in options {
            let positive = || -> Result<usize> {
                match value.trim().parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(RunError::invalid(
                        key.as_str(),
                        format!("bad value `{value}` for {key}: expected a positive whole number"),
                    )),
                }
            };
            match key.as_str() {
                "max_chars" => self.max_chars = positive()?,
                "max_tokens" => {
                    self.max_tokens = u32::try_from(positive()?).map_err(|_| {
                        RunError::invalid(
                            "max_tokens",
                            format!("bad value `{value}` for max_tokens: too large"),
                        )
                    })?;
                }
                "storyteller" => {
                    if !value.contains('/') {
                        return Err(RunError::invalid(
                            "storyteller",
                            format!("bad value `{value}` for storyteller: expected provider/model"),
                        ));
                    }
                    self.storyteller = Some(value.trim().to_string());
                }
                "structured" => {
                    self.structured = match value.trim() {
                        "auto" => Structured::Auto,
                        "on" => Structured::On,
                        "off" => Structured::Off,
                        _ => {
                            return Err(RunError::invalid(
                                "structured",
                                format!(
                                    "bad value `{value}` for structured: expected auto, on or off"
                                ),
                            ));
                        }
                    }
                }
                k if CLIENT_KEYS.contains(&k) => {
                    client.insert(key.clone(), value.clone());
                }
                _ => {
                    let mut known: Vec<&str> =
                        JUDGE_KEYS.iter().chain(&CLIENT_KEYS).copied().collect();
                    known.sort_unstable();
                    return Err(RunError::unknown("judge option", key, known));
                }
            }
        }
        client_options(&client, ClientOptions::default()).map_err(|error| RunError::Agent {
            context: "invalid setting".into(),
            error,
        })
    }

    fn check(&self, worlds: &[Box<dyn World>]) -> Result<&'static dyn JudgeTask> {
        let task = task(worlds, &self.task)?;
        if self.concurrency == 0 {
            return Err(RunError::invalid(
                "concurrency",
                "concurrency must be at least 1",
            ));
        }
        if self.max_chars == 0 || self.max_tokens == 0 {
            return Err(RunError::invalid(
                "max_chars",
                "max_chars and max_tokens must be at least 1",
            ));
        }
        if self.model.trim().is_empty() {
            return Err(RunError::invalid(
                "model",
                "a judge needs a model: --model provider/model",
            ));
        }
        if self.storyteller.is_some() && task.prior_role().is_none() {
            return Err(RunError::invalid(
                "storyteller",
                format!(
                    "the `{}` task asks no storyteller: -A storyteller is for `debrief`",
                    task.name()
                ),
            ));
        }
        Ok(task)
    }

    /// The model of the call before the judge's, for a task that makes one.
    fn prior_model(&self, task: &dyn JudgeTask) -> Option<&str> {
        task.prior_role()
            .map(|_| self.storyteller.as_deref().unwrap_or(&self.model))
    }
}

/// One run's judgement: what was judged and the task's aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunJudgement {
    /// How tables name the run (agent and model, as in `escapade report`).
    pub label: String,
    /// The agent spec.
    pub agent: String,
    /// The agent's model, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The run directories read (the shards of the run).
    pub dirs: Vec<String>,
    /// Episodes read (finished, with a trajectory).
    pub episodes: usize,
    /// Steps read in the run's trajectories.
    pub steps: usize,
    /// Items to judge: steps with reasoning, after `--limit`.
    pub items: usize,
    /// Items with a verdict.
    pub judged: usize,
    /// Items whose last row is an error.
    pub errors: usize,
    /// Items sent to the judge by this invocation.
    pub requests: usize,
    /// Items an earlier invocation had judged (not sent again).
    pub skipped: usize,
    /// Usage and cost of the rows counted here (earlier invocations' included).
    pub usage: Usage,
    /// The task's aggregate over the judged items.
    #[serde(flatten)]
    pub aggregate: Aggregate,
}

/// The result of [`judge`]: one [`RunJudgement`] per run, in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// The task.
    pub task: String,
    /// The task's version.
    pub task_version: u32,
    /// The judge model.
    pub judge: String,
    /// The model asked before the judge (`debrief`: the storyteller); absent for tasks
    /// that ask once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storyteller: Option<String>,
    /// One entry per run.
    pub runs: Vec<RunJudgement>,
    /// Warnings (torn lines, missing trajectories, judge errors); not part of the JSON.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// What a run with nothing to judge lacks ([`JudgeTask::nothing_to_judge`]).
    #[serde(skip)]
    pub nothing_to_judge: String,
    /// How the tables name their columns ([`JudgeTask::table_words`]).
    #[serde(skip)]
    pub table_words: [String; 4],
}

impl Judgement {
    /// Items sent to the judge by this invocation, over all runs.
    pub fn requests(&self) -> usize {
        self.runs.iter().map(|r| r.requests).sum()
    }

    /// Items whose verdict is an error, over all runs.
    pub fn errors(&self) -> usize {
        self.runs.iter().map(|r| r.errors).sum()
    }

    /// Markdown: per run a line of counts and cost, a table of category shares and a
    /// table of the most frequent compositions (the first 5; `--json` has them all).
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "# escapade judge: {} (judge {})\n",
            self.task,
            escape(&self.judge)
        );
        if let Some(s) = &self.storyteller {
            out.push_str(&format!("\nStoryteller: {}.\n", escape(s)));
        }
        let nothing = &self.nothing_to_judge;
        if self.runs.is_empty() {
            out.push_str("\nNo finished episodes.\n");
        }
        for run in &self.runs {
            out.push_str(&format!("\n## {}\n\n", escape(&run.label)));
            if run.items == 0 {
                out.push_str(&format!(
                    "Nothing judged: of {} episode(s) and {} step(s), {nothing}.\n",
                    run.episodes, run.steps
                ));
                continue;
            }
            let a = &run.aggregate;
            out.push_str(&format!(
                "{} episode(s) and {} step(s) read, {} to judge: {} judged, {} error(s) ({} sent \
                 now, {} judged earlier); {} unit(s)",
                run.episodes,
                run.steps,
                run.items,
                run.judged,
                run.errors,
                run.requests,
                run.skipped,
                a.units
            ));
            if let Some(m) = a.mean_chars {
                out.push_str(&format!("; mean length {m:.1} characters"));
            }
            out.push_str(&format!(
                "; {} input + {} output tokens, ${:.4}.\n",
                run.usage.input, run.usage.output, run.usage.cost_usd
            ));
            if run.judged == 0 {
                continue;
            }
            if !a.scores.is_empty() {
                out.push_str("\n| measure | items | value |\n|:---|---:|---:|\n");
                for s in &a.scores {
                    let value = s.value.map_or("–".to_string(), |v| format!("{v:.3}"));
                    out.push_str(&format!(
                        "| {} | {} | {value} |\n",
                        escape(&s.label),
                        s.items
                    ));
                }
            }
            let words = &self.table_words;
            out.push_str(&format!(
                "\n| {} | {} | share (%) |\n|:---|---:|---:|\n",
                words[0], words[1]
            ));
            for c in &a.categories {
                out.push_str(&format!(
                    "| {} | {} | {:.1} |\n",
                    escape(&c.name),
                    c.units,
                    c.share * 100.0
                ));
            }
            if a.compositions.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "\n| {} | {} | share (%) | mean length (chars) |\n|:---|---:|---:|---:|\n",
                words[2], words[3]
            ));
            for c in a.compositions.iter().take(5) {
                out.push_str(&format!(
                    "| {} | {} | {:.1} | {:.1} |\n",
                    escape(&c.label),
                    c.steps,
                    c.share * 100.0,
                    c.mean_chars
                ));
            }
            if a.compositions.len() > 5 {
                out.push_str(&format!(
                    "\n{} more composition(s) in `--json`.\n",
                    a.compositions.len() - 5
                ));
            }
        }
        out
    }
}

/// A Markdown table cell: no pipes, no line breaks.
fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The key of an item in a judge file.
type Key = (String, u32, Option<u32>);

fn key_of(item: &Item) -> Key {
    (item.scenario.clone(), item.epoch, item.step)
}

/// A judge file being written: its rows so far, and its lock.
struct JudgeFile {
    path: PathBuf,
    file: Mutex<File>,
    rows: Vec<JudgeRow>,
    _lock: File,
}

impl JudgeFile {
    /// Opens (creating) `<dir>/judge/<task>.jsonl` under the judge lock, cutting off a
    /// torn last line.
    fn open(dir: &Path, task: &str, warnings: &mut Vec<String>) -> Result<JudgeFile> {
        let judge_dir = dir.join(JUDGE_DIR);
        std::fs::create_dir_all(&judge_dir)
            .map_err(|e| RunError::io("cannot create", &judge_dir, e))?;
        let lock = try_lock(&judge_dir)?.ok_or_else(|| RunError::JudgeLocked(dir.to_path_buf()))?;
        let path = judge_dir.join(format!("{task}.jsonl"));
        let mut rows = Vec::new();
        if path.is_file() {
            let read = read_jsonl::<JudgeRow>(&path)?;
            warnings.extend(read.warnings.iter().cloned());
            repair_tail(&path, &read)?;
            rows = read.rows;
        }
        let file = open_append(&path)?;
        Ok(JudgeFile {
            path,
            file: Mutex::new(file),
            rows,
            _lock: lock,
        })
    }

    fn append(&self, row: &JudgeRow) -> Result<()> {
        let mut line = serde_json::to_vec(row).expect("a judge row always serializes");
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)
            .and_then(|_| file.flush())
            .map_err(|e| RunError::io("cannot write", &self.path, e))
    }
}

/// One run's items and where their rows go.
struct Planned {
    label: String,
    agent: String,
    model: Option<String>,
    dirs: Vec<String>,
    episodes: usize,
    steps: usize,
    /// `(run directory, item)`, in scenario, epoch, step order, after `limit`.
    items: Vec<(PathBuf, Item)>,
}

/// Scenario JSON by SHA-256 of its bytes (what `episodes.jsonl` records as
/// `scenario_hash`), loaded from the `source` in each run directory's `run.toml`.
#[derive(Default)]
struct ScenarioIndex {
    /// Run directories already read.
    dirs: BTreeSet<PathBuf>,
    /// Sources already resolved (or that failed).
    sources: BTreeSet<String>,
    by_hash: BTreeMap<String, String>,
}

impl ScenarioIndex {
    /// Loads the scenarios of the run in `dir` (once per source); failures are warnings.
    fn load(&mut self, worlds: &[Box<dyn World>], dir: &Path, warnings: &mut Vec<String>) {
        if !self.dirs.insert(dir.to_path_buf()) {
            return;
        }
        let toml = match read_run_toml(dir) {
            Ok(toml) => toml,
            Err(e) => {
                warnings.push(format!(
                    "cannot tell where the scenarios of {} are: {e}",
                    dir.display()
                ));
                return;
            }
        };
        let source = toml.config.source;
        if !self.sources.insert(source.clone()) {
            return;
        }
        match crate::source::resolve(worlds, &source) {
            Ok(found) => {
                for (_, json) in found.scenarios {
                    let hash = escapade_core::hash::sha256_hex(json.as_bytes());
                    self.by_hash.insert(hash, json);
                }
            }
            Err(e) => warnings.push(format!(
                "cannot load the scenarios of {} from `{source}`: {e}",
                dir.display()
            )),
        }
    }
}

/// Reads the runs in `dirs` and the items `task` would judge in each.
fn plan(
    dirs: &[PathBuf],
    task: &dyn JudgeTask,
    spec: &JudgeSpec,
    worlds: &[Box<dyn World>],
    warnings: &mut Vec<String>,
) -> Result<Vec<Planned>> {
    let set = read_runs(dirs)?;
    warnings.extend(set.warnings);
    if task.needs_scenarios() && worlds.is_empty() {
        return Err(RunError::invalid(
            "task",
            format!(
                "the `{}` task reads the scenarios: judge with the worlds that made them",
                task.name()
            ),
        ));
    }
    let mut index = ScenarioIndex::default();
    let mut planned = Vec::with_capacity(set.runs.len());
    for run in set.runs {
        let mut steps = 0usize;
        let mut episodes = 0usize;
        let mut items = Vec::new();
        for episode in &run.episodes {
            let Some(dir) = &episode.dir else { continue };
            let Some(view) = read_steps(dir, episode, warnings) else {
                continue;
            };
            episodes += 1;
            steps += view.len();
            let row = &episode.row;
            if task.needs_scenarios() {
                index.load(worlds, dir, warnings);
            }
            let info = EpisodeInfo {
                scenario: &row.scenario,
                epoch: row.epoch,
                world: &row.world,
                difficulty: row.difficulty,
                success: row.success,
                scenario_json: index.by_hash.get(&row.scenario_hash).map(String::as_str),
            };
            match task.episode_items(&info, &view, spec.max_chars) {
                Ok(found) => items.extend(found.into_iter().map(|i| (dir.clone(), i))),
                Err(e) => warnings.push(format!(
                    "{} epoch {}: not judged: {e}",
                    row.scenario, row.epoch
                )),
            }
        }
        if let Some(limit) = spec.limit {
            items.truncate(limit);
        }
        planned.push(Planned {
            label: run.label,
            agent: run.agent,
            model: run.model,
            dirs: run.dirs.iter().map(|d| d.display().to_string()).collect(),
            episodes,
            steps,
            items,
        });
    }
    Ok(planned)
}

/// The steps of an episode's trajectory, by step number (first row of a number wins);
/// `None` with a warning when the file is missing. Unreadable lines are skipped with a
/// warning.
fn read_steps(dir: &Path, episode: &Episode, warnings: &mut Vec<String>) -> Option<Vec<StepView>> {
    let path = dir
        .join(TRAJECTORIES)
        .join(file_stem(&episode.row.scenario))
        .join(format!("{}.jsonl", episode.row.epoch));
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            if episode.row.steps > 0 {
                warnings.push(format!("cannot read {}: {e}", path.display()));
            }
            return None;
        }
    };
    let mut by_step: BTreeMap<u32, StepView> = BTreeMap::new();
    let mut bad = 0usize;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<StepView>(line) {
            Ok(s) => {
                by_step.entry(s.step).or_insert(s);
            }
            Err(_) => bad += 1,
        }
    }
    if bad > 0 {
        warnings.push(format!(
            "{}: skipped {bad} unreadable line(s)",
            path.display()
        ));
    }
    Some(by_step.into_values().collect())
}

/// [`judge_with`] without worlds: for tasks that read only the run directories (not
/// `debrief`, which needs the scenarios).
/// [`judge_async`] on a runtime of its own, for callers that are not async. `worlds`
/// rebuild the scenarios of tasks that read them ([`JudgeTask::needs_scenarios`]): each
/// run directory's `run.toml` names its source, resolved as `escapade run` resolves it,
/// and an episode's scenario is the one whose hash its row records.
pub fn judge(
    dirs: &[PathBuf],
    spec: &JudgeSpec,
    options: &ClientOptions,
    progress: Progress,
    worlds: &[Box<dyn World>],
) -> Result<Judgement> {
    spec.check(worlds)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::io("cannot start the async runtime", ".", e))?;
    runtime.block_on(judge_async(dirs, spec, options, progress, worlds))
}

/// Judges the items of the runs in `dirs` (run directories or `episodes.jsonl` files)
/// that no earlier invocation judged with the same task version and model (and
/// storyteller, for tasks with a prior call), writing a row per item to
/// `<run-dir>/judge/<task>.jsonl`, then aggregates every run. The backends are opened
/// only when there is something to ask. A failing call becomes a `retryable` row, never
/// an `Err`; only the run directories (unreadable, unwritable, being judged by another
/// process) and a backend that cannot be opened stop it.
pub async fn judge_async(
    dirs: &[PathBuf],
    spec: &JudgeSpec,
    options: &ClientOptions,
    progress: Progress,
    worlds: &[Box<dyn World>],
) -> Result<Judgement> {
    let task = spec.check(worlds)?;
    let prior_model = spec.prior_model(task);
    // a missing key or server address is refused before any directory is read
    for model in std::iter::once(spec.model.as_str()).chain(prior_model) {
        escapade_llm::preflight(model, options).map_err(|error| RunError::Backend {
            model: model.to_string(),
            error,
        })?;
    }
    let mut warnings = Vec::new();
    let planned = plan(dirs, task, spec, worlds, &mut warnings)?;

    // the judge files of every directory with items, each under its lock
    let mut files: IndexMap<PathBuf, JudgeFile> = IndexMap::new();
    for run in &planned {
        for (dir, _) in &run.items {
            if !files.contains_key(dir) {
                let file = JudgeFile::open(dir, task.name(), &mut warnings)?;
                files.insert(dir.clone(), file);
            }
        }
    }
    let ours = |r: &JudgeRow| {
        r.task == task.name()
            && r.task_version == task.version()
            && r.judge == spec.model
            && (r.no_call || r.prior.as_ref().map(|p| p.model.as_str()) == prior_model)
    };
    for file in files.values() {
        let old = file
            .rows
            .iter()
            .filter(|r| r.task == task.name() && r.task_version != task.version())
            .count();
        if old > 0 {
            warnings.push(format!(
                "{}: ignoring {old} row(s) of another version of the `{}` task",
                file.path.display(),
                task.name()
            ));
        }
    }
    let done: BTreeSet<(usize, Key)> = files
        .values()
        .enumerate()
        .flat_map(|(i, f)| {
            f.rows
                .iter()
                .filter(|r| ours(r) && !r.retryable)
                .map(move |r| (i, (r.scenario.clone(), r.epoch, r.step)))
        })
        .collect();
    // (run, file, item) still to judge
    let mut jobs: Vec<(usize, usize, &Item)> = Vec::new();
    let mut skipped = vec![0usize; planned.len()];
    for (r, run) in planned.iter().enumerate() {
        for (dir, item) in &run.items {
            let f = files.get_index_of(dir).expect("opened above");
            if done.contains(&(f, key_of(item))) {
                skipped[r] += 1;
            } else {
                jobs.push((r, f, item));
            }
        }
    }

    let mut requests = vec![0usize; planned.len()];
    let mut new_rows: Vec<(usize, JudgeRow)> = Vec::new();
    let mut reported = 0usize;
    if !jobs.is_empty() {
        let open = |model: &str| {
            let model = model.to_string();
            async move {
                escapade_llm::open(&model, options)
                    .await
                    .map_err(|error| RunError::Backend { model, error })
            }
        };
        // items decided without a call need no backend
        let calls = jobs.iter().any(|(_, _, item)| item.verdict.is_none());
        let client = if calls {
            Some(open(&spec.model).await?)
        } else {
            None
        };
        let prior_client = match prior_model {
            Some(m) if calls && m != spec.model => Some(open(m).await?),
            _ => None,
        };
        let clients = Clients {
            judge: client.as_ref(),
            prior: prior_client.as_ref().or(client.as_ref()),
        };
        let total: usize = planned.iter().map(|r| r.items.len()).sum();
        let bar = progress.bar(total as u64, "judged");
        bar.set_position((total - jobs.len()) as u64);
        let mut queue = jobs.into_iter();
        let mut in_flight = FuturesUnordered::new();
        let mut failure: Option<RunError> = None;
        loop {
            while failure.is_none() && in_flight.len() < spec.concurrency {
                let Some((r, f, item)) = queue.next() else {
                    break;
                };
                let clients = &clients;
                in_flight.push(async move {
                    let row = judge_item(task, clients, spec, item).await;
                    (r, f, row)
                });
            }
            let Some((r, f, row)) = in_flight.next().await else {
                break;
            };
            if let Err(e) = files[f].append(&row) {
                failure.get_or_insert(e);
                continue;
            }
            requests[r] += 1;
            if let Some(e) = &row.error {
                reported += 1;
                if reported <= WARN_LIMIT {
                    let at = row.step.map_or(String::new(), |s| format!(" step {s}"));
                    progress.warn(
                        Some(&bar),
                        &format!("{} epoch {}{at}: {e}", row.scenario, row.epoch),
                    );
                }
            }
            bar.inc(1);
            new_rows.push((f, row));
        }
        drop(in_flight);
        bar.finish_and_clear();
        if let Some(e) = failure {
            return Err(e);
        }
    }
    if reported > WARN_LIMIT {
        warnings.push(format!(
            "{} more judge error(s); see `error` in the judge files",
            reported - WARN_LIMIT
        ));
    }
    for (f, row) in new_rows {
        files[f].rows.push(row);
    }

    // the row that counts per item: the last that is not retryable, else the last
    let mut chosen: Vec<BTreeMap<Key, &JudgeRow>> = Vec::with_capacity(files.len());
    for file in files.values() {
        let mut by_key: BTreeMap<Key, &JudgeRow> = BTreeMap::new();
        for row in file.rows.iter().filter(|r| ours(r)) {
            let key = (row.scenario.clone(), row.epoch, row.step);
            match by_key.get(&key) {
                Some(prev) if !prev.retryable && row.retryable => {}
                _ => {
                    by_key.insert(key, row);
                }
            }
        }
        chosen.push(by_key);
    }
    let mut runs = Vec::with_capacity(planned.len());
    for (r, run) in planned.iter().enumerate() {
        let mut usage = Usage::default();
        let mut judged: Vec<&JudgeRow> = Vec::new();
        let mut errors = 0usize;
        for (dir, item) in &run.items {
            let f = files.get_index_of(dir).expect("opened above");
            let Some(row) = chosen[f].get(&key_of(item)) else {
                continue;
            };
            usage.add(&row.usage);
            if row.error.is_some() {
                errors += 1;
            } else {
                judged.push(row);
            }
        }
        let mut aggregate = task.aggregate(&judged);
        task.complete(&mut aggregate, run.episodes);
        runs.push(RunJudgement {
            label: run.label.clone(),
            agent: run.agent.clone(),
            model: run.model.clone(),
            dirs: run.dirs.clone(),
            episodes: run.episodes,
            steps: run.steps,
            items: run.items.len(),
            judged: judged.len(),
            errors,
            requests: requests[r],
            skipped: skipped[r],
            usage,
            aggregate,
        });
    }
    Ok(Judgement {
        task: task.name().to_string(),
        task_version: task.version(),
        judge: spec.model.clone(),
        storyteller: prior_model.map(String::from),
        runs,
        warnings,
        nothing_to_judge: task.nothing_to_judge().to_string(),
        table_words: task.table_words().map(String::from),
    })
}

/// The backends of one invocation: the judge's, and the one asked before it (the same
/// client when the models are the same). `None` when no item needs a call.
struct Clients<'a> {
    judge: Option<&'a Client>,
    prior: Option<&'a Client>,
}

/// `request` with the settings every judge call shares: temperature 0, seed 0, the
/// spec's token cap.
fn tuned(spec: &JudgeSpec, request: JudgeRequest) -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::text(Role::System, request.system),
            Message::text(Role::User, request.user),
        ],
        temperature: Some(0.0),
        seed: Some(0),
        max_tokens: Some(spec.max_tokens),
        ..ChatRequest::default()
    }
}

/// The judge's own request: [`tuned`], and constrained to the task's verdict schema when
/// the spec's `structured` is on (the prior call stays free text).
pub fn verdict_request(
    task: &dyn JudgeTask,
    spec: &JudgeSpec,
    request: JudgeRequest,
) -> ChatRequest {
    let mut request = tuned(spec, request);
    if spec.structured_on() {
        request.response_schema = task.verdict_schema();
    }
    request
}

/// Asks the judge about one item (after the prior call, for tasks with one); every
/// failure lands in the row.
async fn judge_item(
    task: &dyn JudgeTask,
    clients: &Clients<'_>,
    spec: &JudgeSpec,
    item: &Item,
) -> JudgeRow {
    let tune = |request: JudgeRequest| tuned(spec, request);
    let mut row = JudgeRow {
        format_version: FORMAT_VERSION,
        task: task.name().to_string(),
        task_version: task.version(),
        judge: spec.model.clone(),
        scenario: item.scenario.clone(),
        epoch: item.epoch,
        step: item.step,
        chars: item.chars,
        truncated: item.truncated,
        units: Vec::new(),
        reply: None,
        usage: Usage::default(),
        error: None,
        retryable: false,
        label: item.label.clone(),
        difficulty: item.difficulty,
        prior: None,
        no_call: false,
    };
    if let Some(units) = &item.verdict {
        row.units = units.clone();
        row.no_call = true;
        return row;
    }
    let (Some(judge), Some(prior_client)) = (clients.judge, clients.prior) else {
        // unreachable: the clients are opened when an item needs a call
        row.error = Some("no judge backend was opened".into());
        row.retryable = true;
        return row;
    };
    let mut request = task.request(item);
    if let (Some(role), Some(prior)) = (task.prior_role(), task.prior(item)) {
        let mut call = PriorCall {
            role: role.to_string(),
            model: spec.prior_model(task).unwrap_or(&spec.model).to_string(),
            reply: None,
            usage: Usage::default(),
        };
        match prior_client.chat(&tune(prior)).await {
            Ok(completion) => {
                let text = completion.response.text;
                call.usage = completion.usage;
                row.usage.add(&call.usage);
                call.reply = Some(truncate_chars(&text, MAX_REPLY_CHARS));
                if text.trim().is_empty() {
                    row.error = Some(format!("the {role}'s reply is empty"));
                    row.prior = Some(call);
                    return row;
                }
                request = task.request_after(item, &text);
                row.prior = Some(call);
            }
            Err(e) => {
                row.error = Some(format!("{role} failed: {e}"));
                row.retryable = true;
                row.prior = Some(call);
                return row;
            }
        }
    }
    match judge.chat(&verdict_request(task, spec, request)).await {
        Ok(completion) => {
            row.usage.add(&completion.usage);
            let text = completion.response.text;
            match task.parse(&text) {
                Ok(units) => row.units = units,
                Err(e) => row.error = Some(e),
            }
            row.reply = Some(truncate_chars(&text, MAX_REPLY_CHARS));
        }
        Err(e) => {
            row.error = Some(format!("judge failed: {e}"));
            row.retryable = true;
        }
    }
    row
}
