//! The runner: plays every scenario × epoch with an agent into a run directory.
//!
//! Episodes are independent: the episode seed is
//! `seed::derive(run_seed, scenario_id, epoch)`, given to both `Env::reset` and the
//! agent, so results do not depend on `concurrency` (only the order of rows in
//! `episodes.jsonl` does). An agent or environment failure — an `Err`, a panic, or the
//! safety cap on steps — ends that episode with `error` set and `success` false; it never
//! aborts the run. Only failing to write the run directory does.
//!
//! Agents are made per episode by an [`AgentFactory`]; [`Baseline`] makes a world's own
//! baseline agents (`oracle`, `random`), and model agents slot in as other factories.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use escapade_core::env::Outcome;
use escapade_core::trajectory::LoggedObservation;
use escapade_core::{
    Agent, CoreError, Env, EpisodeRow, FORMAT_VERSION, Observation, ScenarioHeader, Step, StepRow,
    Usage, World, hash, seed,
};

use crate::error::{Result, RunError};
use crate::progress::Progress;
use crate::report::Report;
use crate::rundir::{RunConfig, RunDir, ScenarioRef, TrajectoryWriter};

/// Default safety cap on steps per episode.
pub const DEFAULT_MAX_STEPS: u32 = 10_000;

/// Makes one agent per episode.
pub trait AgentFactory: Sync {
    /// The agent's name in episode rows and run-directory names (`random`, `llm:gpt-4o`).
    fn name(&self) -> String;
    /// Makes a fresh agent for one episode of a scenario.
    fn make(
        &self,
        world: &dyn World,
        scenario_json: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + Send>, CoreError>;
}

/// A world's baseline agent kind (`oracle`, `random`, … as [`World::agent_kinds`] lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    kind: String,
}

impl Baseline {
    /// The baseline `kind` of `world`; an unknown kind is an error naming the known ones.
    pub fn new(world: &dyn World, kind: &str) -> Result<Self> {
        let kinds = world.agent_kinds();
        if !kinds.contains(&kind) {
            return Err(RunError::unknown("agent", kind, kinds));
        }
        Ok(Baseline {
            kind: kind.to_string(),
        })
    }
}

impl AgentFactory for Baseline {
    fn name(&self) -> String {
        self.kind.clone()
    }

    fn make(
        &self,
        world: &dyn World,
        scenario_json: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        world.agent(&self.kind, scenario_json, seed)
    }
}

/// What to run (the scenarios and the agent factory are passed beside it).
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// The agent spec as the user gave it; recorded in `run.toml` and hashed.
    pub agent: String,
    /// Agent options (model, temperature, …); recorded and hashed.
    pub agent_options: BTreeMap<String, String>,
    /// Epochs per scenario (at least 1).
    pub epochs: u32,
    /// Play only the first `limit` scenarios, in suite order.
    pub limit: Option<usize>,
    /// The run seed.
    pub seed: u64,
    /// Worker threads (at least 1); does not change results.
    pub concurrency: usize,
    /// Safety cap on steps per episode.
    pub max_steps: u32,
    /// Where the scenarios come from (suite name or absolute path), for `resume`.
    pub source: String,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            agent: "random".into(),
            agent_options: BTreeMap::new(),
            epochs: 1,
            limit: None,
            seed: 0,
            concurrency: 1,
            max_steps: DEFAULT_MAX_STEPS,
            source: String::new(),
        }
    }
}

impl RunSpec {
    /// The spec a run directory's config was made with (for `escapade resume`).
    pub fn from_config(config: &RunConfig, concurrency: usize) -> Self {
        RunSpec {
            agent: config.agent.clone(),
            agent_options: config.agent_options.clone(),
            epochs: config.epochs,
            limit: config.limit.map(|l| l as usize),
            seed: config.seed,
            concurrency,
            max_steps: config.max_steps,
            source: config.source.clone(),
        }
    }
}

/// What a finished run did.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The run directory.
    pub dir: PathBuf,
    /// The config hash.
    pub config_hash: String,
    /// Episodes in the run (scenarios × epochs).
    pub total: usize,
    /// Episodes skipped because a previous invocation finished them.
    pub skipped: usize,
    /// Episodes played now.
    pub played: usize,
    /// Episodes played now that ended with an error.
    pub errors: usize,
    /// Whether an existing run directory was resumed.
    pub resumed: bool,
    /// The run's report (as written to `summary.json` and `report.md`).
    pub report: Report,
    /// Warnings met (a torn last line of `episodes.jsonl`, …).
    pub warnings: Vec<String>,
}

/// One scenario ready to play.
struct Scenario<'a> {
    label: &'a str,
    header: ScenarioHeader,
    hash: String,
    json: &'a str,
}

/// Plays `scenarios` (`(suite label, scenario JSON)` in suite order) with agents from
/// `agents` into `out`: a new run directory under `out`, or `out` itself resumed when it
/// is a run directory (refused if its config differs). Writes `summary.json` and
/// `report.md` at the end.
pub fn run(
    world: &dyn World,
    scenarios: &[(String, String)],
    spec: &RunSpec,
    agents: &dyn AgentFactory,
    out: &Path,
    progress: Progress,
) -> Result<RunSummary> {
    if spec.epochs == 0 {
        return Err(RunError::Invalid("epochs must be at least 1".into()));
    }
    if spec.concurrency == 0 {
        return Err(RunError::Invalid("concurrency must be at least 1".into()));
    }
    if spec.max_steps == 0 {
        return Err(RunError::Invalid("max steps must be at least 1".into()));
    }
    let scenarios = prepare(world, scenarios, spec.limit)?;
    let config = config_for(world, &scenarios, spec);
    let opened = RunDir::open(out, &config)?;
    let dir = opened.dir;
    for w in &opened.warnings {
        progress.warn(None, w);
    }
    let done: BTreeSet<(String, u32)> = opened
        .finished
        .iter()
        .map(|r| (r.scenario.clone(), r.epoch))
        .collect();
    let mut jobs = Vec::new();
    for epoch in 0..spec.epochs {
        for (i, s) in scenarios.iter().enumerate() {
            if !done.contains(&(s.header.id.clone(), epoch)) {
                jobs.push((i, epoch));
            }
        }
    }
    let total = scenarios.len() * spec.epochs as usize;
    let skipped = total - jobs.len();
    let previous_successes = opened
        .finished
        .iter()
        .filter(|r| {
            r.success
                && scenarios.iter().any(|s| s.header.id == r.scenario)
                && r.epoch < spec.epochs
        })
        .count();

    let bar = progress.bar(total as u64, "episodes");
    bar.set_position(skipped as u64);
    let successes = AtomicUsize::new(previous_successes);
    let finished = AtomicUsize::new(skipped);
    let errors = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<RunError>> = Mutex::new(None);
    let agent_name = agents.name();
    let update_message = |bar: &indicatif::ProgressBar| {
        let f = finished.load(Ordering::Relaxed);
        if f > 0 {
            let rate = successes.load(Ordering::Relaxed) as f64 / f as f64;
            bar.set_message(format!("success {:.1}%", rate * 100.0));
        }
    };
    update_message(&bar);

    let worker = || {
        while !stop.load(Ordering::Relaxed) {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(i, epoch)) = jobs.get(k) else {
                break;
            };
            let s = &scenarios[i];
            let episode = Episode {
                suite: s.label,
                header: &s.header,
                hash: &s.hash,
                json: s.json,
                epoch,
                seed: seed::derive(spec.seed, &s.header.id, u64::from(epoch)),
                agent: &agent_name,
                max_steps: spec.max_steps,
            };
            match run_episode(world, agents, &episode, &dir) {
                Ok(row) => {
                    if row.success {
                        successes.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some(e) = &row.error {
                        errors.fetch_add(1, Ordering::Relaxed);
                        progress.warn(
                            Some(&bar),
                            &format!("episode {} epoch {epoch}: {e}", s.header.id),
                        );
                    }
                    finished.fetch_add(1, Ordering::Relaxed);
                    bar.inc(1);
                    update_message(&bar);
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                    f.get_or_insert(e);
                }
            }
        }
    };
    let threads = spec.concurrency.min(jobs.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(worker);
        }
        worker();
    });
    bar.finish_and_clear();
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let report = dir.write_summary()?;
    let mut warnings = opened.warnings;
    warnings.extend(report.warnings.iter().cloned());
    Ok(RunSummary {
        dir: dir.path().to_path_buf(),
        config_hash: dir.config_hash().to_string(),
        total,
        skipped,
        played: jobs.len(),
        errors: errors.into_inner(),
        resumed: opened.resumed,
        report,
        warnings,
    })
}

/// Parses headers, checks world and unique ids, hashes, and applies `limit`.
fn prepare<'a>(
    world: &dyn World,
    scenarios: &'a [(String, String)],
    limit: Option<usize>,
) -> Result<Vec<Scenario<'a>>> {
    let take = limit.unwrap_or(usize::MAX);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (label, json) in scenarios.iter().take(take) {
        let header = ScenarioHeader::parse(json)?;
        if header.world != world.name() {
            return Err(RunError::MixedWorlds(
                world.name().to_string(),
                header.world,
            ));
        }
        if !seen.insert(header.id.clone()) {
            return Err(RunError::DuplicateScenario(header.id));
        }
        out.push(Scenario {
            label,
            hash: hash::sha256_hex(json.as_bytes()),
            header,
            json,
        });
    }
    if out.is_empty() {
        return Err(RunError::NoScenarios);
    }
    Ok(out)
}

/// The run's suite label: the scenarios' common label, else `mixed`.
fn run_label(scenarios: &[Scenario<'_>]) -> String {
    let first = scenarios[0].label;
    if scenarios.iter().all(|s| s.label == first) {
        first.to_string()
    } else {
        "mixed".to_string()
    }
}

fn config_for(world: &dyn World, scenarios: &[Scenario<'_>], spec: &RunSpec) -> RunConfig {
    RunConfig {
        suite: run_label(scenarios),
        world: world.name().to_string(),
        source: spec.source.clone(),
        agent: spec.agent.clone(),
        agent_options: spec.agent_options.clone(),
        epochs: spec.epochs,
        limit: spec.limit.map(|l| l as u64),
        seed: spec.seed,
        max_steps: spec.max_steps,
        scenarios: scenarios
            .iter()
            .map(|s| ScenarioRef {
                id: s.header.id.clone(),
                hash: s.hash.clone(),
            })
            .collect(),
    }
}

/// Everything that names one episode.
struct Episode<'a> {
    suite: &'a str,
    header: &'a ScenarioHeader,
    hash: &'a str,
    json: &'a str,
    epoch: u32,
    seed: u64,
    agent: &'a str,
    max_steps: u32,
}

/// Plays one episode into the run directory and appends its row. `Err` only for
/// run-directory I/O; everything an agent or environment does wrong lands in the row.
fn run_episode(
    world: &dyn World,
    agents: &dyn AgentFactory,
    ep: &Episode<'_>,
    dir: &RunDir,
) -> Result<EpisodeRow> {
    let start = Instant::now();
    let mut recorder = Recorder {
        dir,
        trajectory: dir.trajectory(&ep.header.id, ep.epoch)?,
    };
    let played = catch_unwind(AssertUnwindSafe(|| -> Result<Played> {
        let mut env = match world.env(ep.json) {
            Ok(env) => env,
            Err(e) => return Ok(Played::failed(format!("cannot open the environment: {e}"))),
        };
        let mut agent = match agents.make(world, ep.json, ep.seed) {
            Ok(agent) => agent,
            Err(e) => return Ok(Played::failed(format!("cannot make the agent: {e}"))),
        };
        play_episode(
            env.as_mut(),
            agent.as_mut(),
            ep.seed,
            ep.max_steps,
            Some(&mut recorder),
        )
    }));
    let played = match played {
        Ok(result) => result?,
        Err(panic) => Played::failed(format!("panicked: {}", panic_message(&panic))),
    };
    let row = EpisodeRow {
        format_version: FORMAT_VERSION,
        suite: ep.suite.to_string(),
        scenario: ep.header.id.clone(),
        scenario_hash: ep.hash.to_string(),
        world: world.name().to_string(),
        difficulty: ep.header.difficulty,
        epoch: ep.epoch,
        seed: ep.seed,
        agent: ep.agent.to_string(),
        config_hash: dir.config_hash().to_string(),
        success: played.outcome.success && played.error.is_none(),
        steps: played.outcome.steps,
        metrics: finite(played.outcome.metrics),
        usage: played.usage,
        duration_ms: start.elapsed().as_millis() as u64,
        error: played.error,
    };
    dir.append_episode(&row)?;
    Ok(row)
}

fn finite(metrics: BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    metrics.into_iter().filter(|(_, v)| v.is_finite()).collect()
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Writes the steps of one episode into a run directory.
#[derive(Debug)]
pub struct Recorder<'a> {
    /// The run directory (images go to its `media/`).
    pub dir: &'a RunDir,
    /// The episode's trajectory file.
    pub trajectory: TrajectoryWriter,
}

/// The result of [`play_episode`].
#[derive(Debug, Clone, Default)]
pub struct Played {
    /// The environment's outcome (default when the episode could not start).
    pub outcome: Outcome,
    /// Usage summed over the agent's turns.
    pub usage: Usage,
    /// Why the episode ended early, if it did.
    pub error: Option<String>,
    /// The last step, if any step was taken.
    pub last: Option<Step>,
}

impl Played {
    fn failed(error: String) -> Self {
        Played {
            error: Some(error),
            ..Played::default()
        }
    }
}

/// Plays one episode: `reset`, then `act` → `step` until the episode is terminated or
/// truncated, writing one [`StepRow`] per step to `recorder`. An agent `Err`, an
/// environment `Err` or reaching `max_steps` ends the episode with `error` set; `Err` is
/// returned only when the recorder cannot write.
pub fn play_episode(
    env: &mut dyn Env,
    agent: &mut dyn Agent,
    seed: u64,
    max_steps: u32,
    mut recorder: Option<&mut Recorder<'_>>,
) -> Result<Played> {
    let start = Instant::now();
    let mut observation: Observation = env.reset(seed);
    agent.reset(seed, &env.system_prompt(), &env.tool_schemas());
    let mut played = Played::default();
    let mut n = 0u32;
    loop {
        if n >= max_steps {
            played.error = Some(format!(
                "stopped at the safety cap of {max_steps} steps: the episode neither \
                 terminated nor was truncated"
            ));
            break;
        }
        let turn = match agent.act(&observation, played.last.as_ref()) {
            Ok(turn) => turn,
            Err(e) => {
                played.error = Some(match e {
                    CoreError::Agent(message) => format!("agent failed: {message}"),
                    other => format!("agent failed: {other}"),
                });
                break;
            }
        };
        played.usage.add(&turn.usage);
        let step = match env.step(&turn.action) {
            Ok(step) => step,
            Err(e) => {
                played.error = Some(format!("environment failed: {e}"));
                break;
            }
        };
        n += 1;
        if let Some(rec) = recorder.as_deref_mut() {
            let images = rec.dir.store_images(&observation.images)?;
            let row = StepRow {
                format_version: FORMAT_VERSION,
                step: n,
                t_ms: start.elapsed().as_millis() as u64,
                role: "agent".to_string(),
                observation: LoggedObservation {
                    text: observation.text.clone(),
                    images,
                },
                request: turn.request,
                raw_response: turn.raw_response,
                reasoning: turn.reasoning,
                action: turn.action,
                valid: step.valid,
                feedback: step.feedback.clone(),
                progress: if step.progress.is_finite() {
                    step.progress
                } else {
                    0.0
                },
                terminated: step.terminated,
                truncated: step.truncated,
                usage: turn.usage,
                error: step.error.clone(),
            };
            rec.trajectory.write(&row)?;
        }
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        played.last = Some(step);
        if over {
            break;
        }
    }
    played.outcome = env.outcome();
    Ok(played)
}
