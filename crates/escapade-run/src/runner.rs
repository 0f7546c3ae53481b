//! The runner: plays every scenario × epoch with an agent into a run directory.
//!
//! Episodes are independent: the episode seed is
//! `seed::derive(run_seed, scenario_id, epoch)`, given to both `Env::reset` and the
//! agent, so results do not depend on `concurrency` (only the order of rows in
//! `episodes.jsonl` does). Up to `concurrency` episodes are in flight at once on tokio.
//! Model agents' episodes are futures polled together, so an agent waiting on the
//! network costs no thread, while environment steps (pure computation, or the tools
//! world's sandboxed Python) run on tokio's blocking pool and so use every core. A
//! baseline's episodes, which wait on nothing, each get a thread of their own (a lane,
//! see `lanes`) and make their environment calls in place: a hand-off to another thread
//! and back costs more than a step of a few microseconds. At concurrency 1 a call that
//! follows a cheap one ([`INLINE_CALL`]) runs in place too. Wherever a call runs, the new
//! pictures of its observation are stored in the run directory beside it.
//!
//! An agent or environment failure — an `Err` or a panic — ends that episode with `error`
//! set and `success` false; it never aborts the run. The step cap (`--max-steps`) ends an
//! episode without an error, marked `step_cap`: the run chose to stop it there. A model
//! backend that kept failing on transient errors, or refused the account or model, marks
//! the row `retryable`, and `resume` plays it again.
//! Only failing to write the run directory stops the run. Episode rows are appended and
//! flushed per episode, each after its trajectory's buffered steps, so a killed process
//! loses at most the episodes in flight; resuming reruns them from their start (their
//! partial trajectories are overwritten). A run stopped by [`Stop`] (the first Ctrl-C)
//! loses nothing: each episode in flight is checkpointed at its last completed step and
//! resuming continues it there ([`crate::checkpoint`]).
//!
//! Agents are made per episode by an [`AgentFactory`]; [`Baseline`] makes a world's own
//! baseline agents (`oracle`, `random`), [`LlmFactory`] model agents (`llm`, and
//! VisEscape's `base` and `visescaper`) over one shared `escapade_llm::Client`.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use escapade_agents::{
    AgentError, AsyncAgent, Blocking, EpisodeStart, Escaper, EscaperConfig, LlmAgent, LlmConfig,
    MODEL_AGENTS, TurnInput,
};
use escapade_core::Options;
use escapade_core::env::{Outcome, SuiteSettings};
use escapade_core::trajectory::LoggedObservation;
use escapade_core::{
    Action, Env, EpisodeRow, FORMAT_VERSION, Observation, Reask, ScenarioHeader, Step, StepRow,
    Usage, World, hash, seed,
};
use futures::FutureExt;
use futures::stream::{FuturesUnordered, StreamExt};

use crate::error::{Result, RunError};
use crate::progress::{Live, Progress};
use crate::replay::{Fork, Replay};
use crate::report::Report;
use crate::rundir::{Media, RunConfig, RunDir, ScenarioRef, Shard, Spending, TrajectoryWriter};

/// Default cap on steps per episode (the worlds end theirs long before; a lower
/// `--max-steps` is a departure from the papers' protocols).
pub const DEFAULT_MAX_STEPS: u32 = 10_000;

/// Makes one agent per episode.
pub trait AgentFactory: Send + Sync {
    /// The agent's name in episode rows and run-directory names (`random`, `llm:gpt-4o`).
    fn name(&self) -> String;
    /// Whether its agents only compute, waiting on no server (a world's baselines): the
    /// runner may then give each episode in flight a thread of its own. Default: no.
    fn computes(&self) -> bool {
        false
    }
    /// Makes a fresh agent for one episode of a scenario, whose environment is opened
    /// with the run's world `options` (a baseline plays by the same rules).
    fn make(
        &self,
        world: &dyn World,
        scenario_json: &str,
        seed: u64,
        options: &Options,
    ) -> std::result::Result<Box<dyn AsyncAgent>, AgentError>;
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
            let mut known: Vec<&str> = kinds;
            known.extend(MODEL_AGENTS);
            return Err(RunError::unknown("agent", kind, known));
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

    fn computes(&self) -> bool {
        true
    }

    fn make(
        &self,
        world: &dyn World,
        scenario_json: &str,
        seed: u64,
        options: &Options,
    ) -> std::result::Result<Box<dyn AsyncAgent>, AgentError> {
        let agent = world
            .agent(&self.kind, scenario_json, seed, options)
            .map_err(|e| AgentError::Baseline(e.to_string()))?;
        Ok(Box::new(Blocking(agent)))
    }
}

/// The settings of the model agents a [`LlmFactory`] makes.
#[derive(Debug, Clone)]
enum ModelAgent {
    /// The generic loop, [`LlmAgent`].
    Llm(LlmConfig),
    /// VisEscape's BaseAgent or VisEscaper, [`Escaper`].
    Escaper(EscaperConfig),
}

/// Model agents ([`LlmAgent`], or [`Escaper`] for `base` and `visescaper`) sharing one
/// client, so that the backend's concurrency and rate limits (and the local model
/// server) are shared by every episode of the run; a captioner client likewise.
pub struct LlmFactory {
    config: ModelAgent,
    client: escapade_llm::Client,
    captioner: Option<escapade_llm::Client>,
}

impl LlmFactory {
    /// [`LlmAgent`]s with `config` talking through `client`.
    pub fn new(config: LlmConfig, client: escapade_llm::Client) -> Self {
        LlmFactory {
            config: ModelAgent::Llm(config),
            client,
            captioner: None,
        }
    }

    /// BaseAgents or VisEscapers ([`Escaper`]) with `config` talking through `client`.
    pub fn escaper(config: EscaperConfig, client: escapade_llm::Client) -> Self {
        LlmFactory {
            config: ModelAgent::Escaper(config),
            client,
            captioner: None,
        }
    }

    /// Captions pictures with `client` (`socratic=captions` with a `captioner`).
    pub fn with_captioner(mut self, client: escapade_llm::Client) -> Self {
        self.captioner = Some(client);
        self
    }

    /// The shared client (for live usage statistics).
    pub fn client(&self) -> &escapade_llm::Client {
        &self.client
    }
}

impl AgentFactory for LlmFactory {
    /// `llm:<model>`, `base:<model>` or `visescaper:<model>`.
    fn name(&self) -> String {
        match &self.config {
            ModelAgent::Llm(config) => format!("llm:{}", config.model),
            ModelAgent::Escaper(config) => config.name(),
        }
    }

    fn make(
        &self,
        _world: &dyn World,
        _scenario_json: &str,
        _seed: u64,
        _options: &Options,
    ) -> std::result::Result<Box<dyn AsyncAgent>, AgentError> {
        let client = self.client.clone();
        Ok(match (&self.config, &self.captioner) {
            (ModelAgent::Llm(c), None) => Box::new(LlmAgent::new(c.clone(), client)),
            (ModelAgent::Llm(c), Some(cap)) => {
                Box::new(LlmAgent::new(c.clone(), client).with_captioner(cap.clone()))
            }
            (ModelAgent::Escaper(c), None) => Box::new(Escaper::new(c.clone(), client)),
            (ModelAgent::Escaper(c), Some(cap)) => {
                Box::new(Escaper::new(c.clone(), client).with_captioner(cap.clone()))
            }
        })
    }
}

/// One agent per role for worlds whose roles take turns (COMMA's solver and expert):
/// makes an [`escapade_agents::Team`] of each member factory's agent.
pub struct TeamFactory {
    members: Vec<(String, Box<dyn AgentFactory>)>,
}

impl TeamFactory {
    /// A team of `(role, factory)` members.
    pub fn new(members: Vec<(String, Box<dyn AgentFactory>)>) -> Self {
        TeamFactory { members }
    }
}

impl AgentFactory for TeamFactory {
    fn name(&self) -> String {
        self.members
            .iter()
            .map(|(role, f)| format!("{role}={}", f.name()))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn computes(&self) -> bool {
        self.members.iter().all(|(_, f)| f.computes())
    }

    fn make(
        &self,
        world: &dyn World,
        scenario_json: &str,
        seed: u64,
        options: &Options,
    ) -> std::result::Result<Box<dyn AsyncAgent>, AgentError> {
        let members = self
            .members
            .iter()
            .map(|(role, f)| Ok((role.clone(), f.make(world, scenario_json, seed, options)?)))
            .collect::<std::result::Result<Vec<_>, AgentError>>()?;
        Ok(Box::new(escapade_agents::Team::new(members)?))
    }
}

/// What to run (the scenarios and the agent factory are passed beside it).
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// The agent spec as the user gave it; recorded in `run.toml` and hashed.
    pub agent: String,
    /// Agent options (model, temperature, …); recorded and hashed.
    pub agent_options: BTreeMap<String, String>,
    /// The expert role's agent spec in a two-role world (`--expert`); `agent` then plays
    /// the solver. Recorded and hashed when set.
    pub expert: Option<String>,
    /// The expert's options; recorded and hashed.
    pub expert_options: BTreeMap<String, String>,
    /// The world's environment options (`-W`); recorded and hashed when set.
    pub world_options: BTreeMap<String, String>,
    /// Epochs per scenario (at least 1).
    pub epochs: u32,
    /// The suite's paper settings, recorded so the report can name departures (apply
    /// them to `epochs` and the options with [`crate::settings`] first).
    pub suite_settings: SuiteSettings,
    /// Play only the first `limit` scenarios, in suite order.
    pub limit: Option<usize>,
    /// Play only `sample` scenarios drawn evenly over the suite's difficulty tiers with
    /// the run seed ([`sample`]), in suite order.
    pub sample: Option<usize>,
    /// The run seed.
    pub seed: u64,
    /// Episodes in flight at once (at least 1); does not change results.
    pub concurrency: usize,
    /// Safety cap on steps per episode.
    pub max_steps: u32,
    /// Where the scenarios come from (suite name or absolute path), for `resume`.
    pub source: String,
    /// Play only this slice of the run's episodes (`--shard i/N`).
    pub shard: Option<Shard>,
    /// How this session pays for model requests (the cache mode, the cost cap):
    /// recorded in `run.toml`'s `[spending]`, not hashed.
    pub spending: Spending,
    /// Play only this recorded episode, forked at a step with this run's agent (`run
    /// --from`): recorded (its origin) and hashed when set.
    pub fork: Option<Fork>,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            agent: "random".into(),
            agent_options: BTreeMap::new(),
            expert: None,
            expert_options: BTreeMap::new(),
            world_options: BTreeMap::new(),
            epochs: 1,
            suite_settings: SuiteSettings::default(),
            limit: None,
            sample: None,
            seed: 0,
            concurrency: 1,
            max_steps: DEFAULT_MAX_STEPS,
            source: String::new(),
            shard: None,
            spending: Spending::default(),
            fork: None,
        }
    }
}

impl RunSpec {
    /// The spec a run directory's config was made with (for `escapade resume`).
    pub fn from_config(config: &RunConfig, concurrency: usize) -> Self {
        RunSpec {
            agent: config.agent.clone(),
            agent_options: config.agent_options.clone(),
            expert: config.expert.clone(),
            expert_options: config.expert_options.clone(),
            world_options: config.world_options.clone(),
            epochs: config.epochs,
            suite_settings: config.suite_settings.clone(),
            limit: config.limit.map(|l| l as usize),
            sample: config.sample.map(|n| n as usize),
            seed: config.seed,
            concurrency,
            max_steps: config.max_steps,
            source: config.source.clone(),
            shard: config.shard,
            spending: Spending::default(),
            fork: None,
        }
    }
}

/// The warning of a run whose agent's history was cut: a reply too long to keep whole,
/// or past pictures beyond a request's image budget (the step rows say which).
pub fn history_cut_warning() -> String {
    format!(
        "the agent's history was cut: a reply over {} characters (the step row keeps it \
         whole) or pictures of past steps beyond the image budget (the step row's request \
         has `{}`)",
        escapade_agents::llm::MAX_HISTORY_REPLY_CHARS,
        escapade_agents::llm::IMAGES_LEFT_OUT
    )
}

/// What a finished run did.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The run directory.
    pub dir: PathBuf,
    /// The config hash.
    pub config_hash: String,
    /// Episodes in the run (scenarios × epochs, or this shard's share).
    pub total: usize,
    /// Episodes skipped because a previous invocation finished them.
    pub skipped: usize,
    /// Episodes played now.
    pub played: usize,
    /// Episodes played now that ended with an error.
    pub errors: usize,
    /// Whether an existing run directory was resumed.
    pub resumed: bool,
    /// Episodes played now that the step cap ended (`--max-steps`; not errors).
    pub step_capped: usize,
    /// Episodes left unfinished because the run was stopped ([`Stop`], or
    /// [`RunSummary::halted`]): not started, or checkpointed; `escapade resume` plays
    /// them.
    pub unplayed: usize,
    /// Of those, episodes in flight when the run was stopped, checkpointed at their last
    /// completed step; `escapade resume` continues them there.
    pub checkpointed: usize,
    /// Episodes continued from a checkpoint now.
    pub continued: usize,
    /// Why the runner stopped starting episodes on its own: the model backend failed
    /// [`BACKEND_DOWN_EPISODES`] episodes in a row (a server that is down, a wrong base
    /// URL), so the rest would only fail the same way.
    pub halted: Option<String>,
    /// The run's cost cap `(limit, spent)` in US dollars, when it was reached
    /// ([`Stop::on_cost_cap`]): no episode started after it, and those in flight were
    /// checkpointed at their last completed step.
    pub cost_cap: Option<(f64, f64)>,
    /// The run's report (as written to `summary.json` and `report.md`).
    pub report: Report,
    /// Warnings met (a torn last line of `episodes.jsonl`, …).
    pub warnings: Vec<String>,
}

/// One scenario ready to play.
pub(crate) struct Scenario<'a> {
    pub label: &'a str,
    pub header: ScenarioHeader,
    pub hash: String,
    pub json: &'a str,
}

/// After this many episodes in a row end with a retryable backend failure (their
/// retries exhausted), the run starts no more: the episodes in flight finish, the summary
/// is written, and `resume` plays the rest once the backend is back.
pub const BACKEND_DOWN_EPISODES: usize = 3;

/// A request to stop a run early (the binary sets it on the first Ctrl-C): no episode
/// starts after it, and each episode in flight stops at its last completed step — the
/// model call it waits on is given up — and is checkpointed there
/// ([`crate::checkpoint`]), so `resume` continues it at the next step. The summary is
/// written. [`Stop::request`] is the one call a signal handler makes.
///
/// A stop may also watch the run's cost cap ([`Stop::on_cost_cap`]): once the cap has
/// refused a request, no episode starts. An episode in flight cannot send another
/// request either: the turn the cap refused ends it at its last completed step, where it
/// is checkpointed like a stopped one, and `resume --max-cost` continues it there (the
/// calls of that unfinished turn, re-asks included, are sent again).
#[derive(Debug, Clone)]
pub struct Stop {
    asked: Arc<tokio::sync::watch::Sender<bool>>,
    cap: Option<Arc<escapade_llm::CostCap>>,
}

impl Default for Stop {
    fn default() -> Stop {
        Stop {
            asked: Arc::new(tokio::sync::watch::channel(false).0),
            cap: None,
        }
    }
}

impl Stop {
    /// A stop that has not been requested.
    pub fn new() -> Stop {
        Stop::default()
    }
    /// Requests the stop (from any thread; it wakes the episodes waiting on a model).
    pub fn request(&self) {
        self.asked.send_replace(true);
    }
    /// Whether the stop was requested (or the watched cost cap reached).
    pub fn requested(&self) -> bool {
        *self.asked.borrow() || self.cost_cap_reached()
    }
    /// Completes when the stop is requested.
    pub async fn wait(&self) {
        let mut seen = self.asked.subscribe();
        // the sender lives in `self`, so the channel cannot close while this waits
        let _ = seen.wait_for(|stopped| *stopped).await;
    }
    /// This stop, also requested (for new episodes) when `cap` refuses a request.
    pub fn on_cost_cap(mut self, cap: Arc<escapade_llm::CostCap>) -> Stop {
        self.cap = Some(cap);
        self
    }
    /// Whether the watched cost cap refused a request.
    pub fn cost_cap_reached(&self) -> bool {
        self.cap.as_ref().is_some_and(|c| c.reached())
    }
    /// The watched cost cap's limit and what the run has spent, when it was reached.
    pub fn cost_cap(&self) -> Option<(f64, f64)> {
        self.cap
            .as_ref()
            .filter(|c| c.reached())
            .map(|c| (c.limit(), c.spent()))
    }
}

/// [`run_async`] on a runtime of its own, for callers that are not async.
pub fn run(
    world: &dyn World,
    scenarios: &[(String, String)],
    spec: &RunSpec,
    agents: &dyn AgentFactory,
    out: &Path,
    progress: Progress,
) -> Result<RunSummary> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::io("cannot start the async runtime", out, e))?;
    runtime.block_on(run_async(world, scenarios, spec, agents, out, progress))
}

pub use crate::progress::human_count;

/// Plays `scenarios` (`(suite label, scenario JSON)` in suite order) with agents from
/// `agents` into `out`: a new run directory under `out`, or `out` itself resumed when it
/// is a run directory (refused if its config differs). Writes `summary.json` and
/// `report.md` at the end. Needs a tokio runtime with the blocking pool (any runtime
/// built with `Builder`).
pub async fn run_async(
    world: &dyn World,
    scenarios: &[(String, String)],
    spec: &RunSpec,
    agents: &dyn AgentFactory,
    out: &Path,
    progress: Progress,
) -> Result<RunSummary> {
    run_async_until(world, scenarios, spec, agents, out, progress, &Stop::new()).await
}

/// [`run_async`] that starts no episode after `stop` is requested: the episodes in
/// flight finish and are recorded, the summary is written, and
/// [`RunSummary::unplayed`] counts what is left for `resume`.
pub async fn run_async_until(
    world: &dyn World,
    scenarios: &[(String, String)],
    spec: &RunSpec,
    agents: &dyn AgentFactory,
    out: &Path,
    progress: Progress,
    stop: &Stop,
) -> Result<RunSummary> {
    let Opening {
        scenarios,
        opened,
        mine,
        jobs,
    } = open_run(world, scenarios, spec, out)?;
    let dir = opened.dir;
    for w in &opened.warnings {
        progress.warn(None, w);
    }
    if !spec.spending.is_empty() {
        dir.record_spending(&spec.spending)?;
    }
    let total = mine.len();
    let skipped = total - jobs.len();
    let live = Arc::new(Live::new(total, spec.max_steps));
    // this shard's episodes finished earlier, each counted once (its first row)
    let mut ours: BTreeSet<(&str, u32)> = mine
        .iter()
        .map(|(i, e)| (scenarios[*i].header.id.as_str(), *e))
        .collect();
    for r in opened.finished.iter().filter(|r| !r.retryable) {
        if ours.remove(&(r.scenario.as_str(), r.epoch)) {
            live.finished.fetch_add(1, Ordering::Relaxed);
            if r.success {
                live.successes.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    progress.say(&plan(
        spec,
        &dir,
        scenarios.len(),
        total,
        skipped,
        opened.resumed,
    ));
    let bar = progress.run_bar(total as u64);
    bar.set_position(skipped as u64);
    bar.set_message(live.message());
    let follow = progress.follow(live.clone(), bar.clone());
    let agent_name = agents.name();
    let drive = Drive {
        world,
        agents,
        spec,
        dir: &dir,
        scenarios: &scenarios,
        jobs: &jobs,
        agent_name: &agent_name,
        progress: &progress,
        bar: &bar,
        live: &live,
        stop,
        state: Mutex::new(DriveState::default()),
    };
    match lanes(spec, agents) {
        Some(handle) => {
            // each episode in flight on a thread of its own (see `lanes`)
            let lane = || handle.block_on(drive.run(1, Place::Thread));
            tokio::task::block_in_place(|| {
                std::thread::scope(|scope| {
                    for _ in 0..spec.concurrency {
                        scope.spawn(lane);
                    }
                })
            });
        }
        None => {
            let place = if spec.concurrency > 1 {
                Place::Pool
            } else {
                Place::Adaptive
            };
            drive.run(spec.concurrency, place).await;
        }
    }
    let DriveState {
        started,
        failure,
        halted,
        checkpointed,
        continued,
        notes,
        ..
    } = drive.state.into_inner().unwrap_or_else(|p| p.into_inner());
    drop(follow);
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    if stop.cost_cap_reached() {
        dir.record_spending(&Spending {
            cap_reached: true,
            ..spec.spending.clone()
        })?;
    }
    let report = dir.write_summary(world)?;
    let mut warnings = opened.warnings;
    warnings.extend(notes);
    warnings.extend(report.warnings.iter().cloned());
    Ok(RunSummary {
        dir: dir.path().to_path_buf(),
        config_hash: dir.config_hash().to_string(),
        total,
        skipped,
        played: started,
        errors: live.errors.load(Ordering::Relaxed),
        step_capped: live.capped.load(Ordering::Relaxed),
        resumed: opened.resumed,
        unplayed: jobs.len() - started + checkpointed,
        checkpointed,
        continued,
        halted,
        cost_cap: stop.cost_cap(),
        report,
        warnings,
    })
}

/// What a run is about to do, said before it starts: the run directory and how many
/// episodes — scenarios × epochs, so that `--limit 2` on a suite of three epochs reads as
/// the six episodes it is — or, resumed, how many are finished and how many continue
/// from a checkpoint.
fn plan(
    spec: &RunSpec,
    dir: &RunDir,
    scenarios: usize,
    total: usize,
    skipped: usize,
    resumed: bool,
) -> String {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if resumed {
        let hash = dir.config_hash();
        let checkpoints = crate::rundir::checkpoints(dir.path())
            .iter()
            .filter(|c| c.config_hash == hash)
            .count();
        let mut line = format!(
            "resuming {}: {skipped} of {total} episode{} finished",
            dir.path().display(),
            s(total)
        );
        if checkpoints > 0 {
            line.push_str(&format!(
                ", {checkpoints} to continue from {} checkpoint{}",
                if checkpoints == 1 { "its" } else { "their" },
                s(checkpoints)
            ));
        }
        return line;
    }
    let epochs = spec.epochs as usize;
    let whose = match spec.suite_settings.epochs {
        Some(e) if e == spec.epochs && e > 1 => ", as the suite's paper runs it",
        _ => "",
    };
    let mut line = format!(
        "run directory {}: {total} episode{} ({scenarios} scenario{} × {epochs} epoch{}{whose}",
        dir.path().display(),
        s(total),
        s(scenarios),
        s(epochs)
    );
    if let Some(shard) = spec.shard {
        line.push_str(&format!("; shard {shard}"));
    }
    line.push(')');
    line
}

/// The runtime to give each episode in flight a thread of its own, when that is how the
/// run goes fastest: more than one episode at once, agents that only compute
/// ([`AgentFactory::computes`]: a baseline has no server to wait on), and a multi-thread
/// runtime (whose workers drive timers and I/O while the lanes block on their
/// episodes).
///
/// Episodes polled together by one task take turns on one thread: a call run in place
/// holds up the others, and a call handed to the blocking pool costs a thread hand-off
/// each way — thousands of times in a baseline run. On lanes, each episode's calls run in
/// place on its own thread, side by side with the other lanes'.
fn lanes(spec: &RunSpec, agents: &dyn AgentFactory) -> Option<tokio::runtime::Handle> {
    if spec.concurrency < 2 || !agents.computes() {
        return None;
    }
    let handle = tokio::runtime::Handle::try_current().ok()?;
    (handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread).then_some(handle)
}

/// What one run's drivers share: the episodes to play and what finished ones said.
struct Drive<'a> {
    world: &'a dyn World,
    agents: &'a dyn AgentFactory,
    spec: &'a RunSpec,
    dir: &'a RunDir,
    scenarios: &'a [Scenario<'a>],
    jobs: &'a [(usize, u32)],
    agent_name: &'a str,
    progress: &'a Progress,
    bar: &'a indicatif::ProgressBar,
    live: &'a Live,
    stop: &'a Stop,
    state: Mutex<DriveState>,
}

/// The drivers' shared bookkeeping.
#[derive(Default)]
struct DriveState {
    /// The next of `jobs` to start.
    next: usize,
    started: usize,
    /// The first run-directory failure: no episode starts after it.
    failure: Option<RunError>,
    cut_warned: bool,
    down_in_a_row: usize,
    halted: Option<String>,
    /// Episodes checkpointed by the stop.
    checkpointed: usize,
    /// Episodes continued from a checkpoint.
    continued: usize,
    /// What the episodes said besides their rows (a checkpoint not used).
    notes: Vec<String>,
}

impl Drive<'_> {
    fn state(&self) -> std::sync::MutexGuard<'_, DriveState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next episode to start, unless the run is stopping.
    fn next_job(&self) -> Option<(usize, u32)> {
        let mut state = self.state();
        if state.failure.is_some() || state.halted.is_some() || self.stop.requested() {
            return None;
        }
        let job = *self.jobs.get(state.next)?;
        state.next += 1;
        state.started += 1;
        Some(job)
    }

    /// Plays episodes, up to `width` at once, until none is left to start; their
    /// environment calls run where `place` says.
    async fn run(&self, width: usize, place: Place) {
        let mut in_flight = FuturesUnordered::new();
        loop {
            while in_flight.len() < width {
                let Some((i, epoch)) = self.next_job() else {
                    break;
                };
                let s = &self.scenarios[i];
                let episode = Episode {
                    suite: s.label,
                    header: &s.header,
                    hash: &s.hash,
                    json: s.json,
                    epoch,
                    seed: seed::derive(self.spec.seed, &s.header.id, u64::from(epoch)),
                    agent: self.agent_name,
                    max_steps: self.spec.max_steps,
                    options: &self.spec.world_options,
                    fork: self.spec.fork.as_ref(),
                };
                let live = self.live;
                in_flight.push(PLACE.scope(place, async move {
                    let slot = live.started(0);
                    let on_step = |u: &Usage| live.step(slot, u);
                    let on_budget = |b: Option<u32>| live.budget(slot, b);
                    let watch = Watch {
                        on_step: &on_step,
                        on_budget: &on_budget,
                    };
                    let result = run_episode(
                        self.world,
                        self.agents,
                        &episode,
                        self.dir,
                        &watch,
                        self.stop,
                    )
                    .await;
                    let steps = match &result {
                        Ok(r) => r.row.as_ref().map(|row| row.steps),
                        Err(_) => None,
                    };
                    live.ended(slot, steps);
                    (result, episode.header.id.clone(), epoch)
                }));
            }
            let Some((result, id, epoch)) = in_flight.next().await else {
                break;
            };
            self.finished(result, &id, epoch);
        }
    }

    /// Counts and reports a finished episode (or the failure to record it).
    fn finished(&self, result: Result<Recorded>, id: &str, epoch: u32) {
        let (progress, bar, live) = (self.progress, self.bar, self.live);
        let recorded = match result {
            Ok(x) => x,
            Err(e) => {
                self.state().failure.get_or_insert(e);
                return;
            }
        };
        for note in &recorded.notes {
            progress.warn(Some(bar), note);
        }
        let mut state = self.state();
        state.notes.extend(recorded.notes);
        if recorded.continued.is_some() {
            state.continued += 1;
        }
        let Some(row) = recorded.row else {
            if recorded.checkpointed.is_some() {
                state.checkpointed += 1;
            } else {
                // stopped before its first step: simply not played
                state.started -= 1;
            }
            return;
        };
        let history_cut = recorded.history_cut;
        if history_cut && !state.cut_warned {
            state.cut_warned = true;
            progress.warn(
                Some(bar),
                &format!("episode {id} epoch {epoch}: {}", history_cut_warning()),
            );
        }
        if row.success {
            live.successes.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(e) = &row.error {
            live.errors.fetch_add(1, Ordering::Relaxed);
            progress.warn(Some(bar), &format!("episode {id} epoch {epoch}: {e}"));
        }
        if row.step_cap {
            live.capped.fetch_add(1, Ordering::Relaxed);
        }
        // an episode the cost cap ended says nothing about the backend
        state.down_in_a_row = if row.retryable && !self.stop.cost_cap_reached() {
            state.down_in_a_row + 1
        } else {
            0
        };
        if state.down_in_a_row >= BACKEND_DOWN_EPISODES && state.halted.is_none() {
            let why = format!(
                "the model backend failed {} episodes in a row (last: {})",
                state.down_in_a_row,
                row.error.as_deref().unwrap_or("no message")
            );
            progress.warn(Some(bar), &format!("{why}; starting no more episodes"));
            state.halted = Some(why);
        }
        live.finished.fetch_add(1, Ordering::Relaxed);
        bar.inc(1);
        bar.set_message(live.message());
    }
}

/// A run planned as `escapade run` plans it and its run directory opened (new or
/// resumed): what the runner and [`crate::distributed`]'s driver both start from.
pub(crate) struct Opening<'a> {
    /// The scenarios, parsed and hashed, after `limit`.
    pub scenarios: Vec<Scenario<'a>>,
    /// The run directory and the episodes it already holds.
    pub opened: crate::rundir::Opened,
    /// This shard's episodes (scenario index, epoch), in the order they are started.
    pub mine: Vec<(usize, u32)>,
    /// Those of `mine` still to play: not finished, or finished with a retryable error.
    pub jobs: Vec<(usize, u32)>,
}

/// Checks `spec`, prepares the scenarios, opens (creates or resumes) the run directory
/// under or at `out`, and lists the episodes still to play.
pub(crate) fn open_run<'a>(
    world: &dyn World,
    scenarios: &'a [(String, String)],
    spec: &RunSpec,
    out: &Path,
) -> Result<Opening<'a>> {
    if spec.epochs == 0 {
        return Err(RunError::invalid("epochs", "epochs must be at least 1"));
    }
    if spec.concurrency == 0 {
        return Err(RunError::invalid(
            "concurrency",
            "concurrency must be at least 1",
        ));
    }
    if spec.max_steps == 0 {
        return Err(RunError::invalid(
            "max_steps",
            "max steps must be at least 1",
        ));
    }
    // environments and baseline agents alike are made with the run's world options
    if spec.limit.is_some() && spec.sample.is_some() {
        return Err(RunError::invalid(
            "sample",
            "--sample and --limit both choose the scenarios; give one",
        ));
    }
    if spec.sample == Some(0) {
        return Err(RunError::invalid("sample", "--sample must be at least 1"));
    }
    let scenarios = prepare(world, scenarios, spec.limit)?;
    // a fork plays one recorded episode
    let scenarios = match &spec.fork {
        Some(fork) => {
            let one: Vec<Scenario<'a>> = scenarios
                .into_iter()
                .filter(|s| s.header.id == fork.origin.scenario)
                .collect();
            if one.is_empty() {
                return Err(RunError::invalid(
                    "episode",
                    format!(
                        "the suite no longer holds scenario `{}`",
                        fork.origin.scenario
                    ),
                ));
            }
            one
        }
        None => scenarios,
    };
    let scenarios = match spec.sample {
        Some(n) => {
            let tiers: Vec<u32> = scenarios.iter().map(|s| s.header.difficulty).collect();
            let keep: BTreeSet<usize> = sample(&tiers, n, spec.seed).into_iter().collect();
            scenarios
                .into_iter()
                .enumerate()
                .filter(|(i, _)| keep.contains(i))
                .map(|(_, s)| s)
                .collect()
        }
        None => scenarios,
    };
    // bad world options fail the run at once, before a run directory is made
    if let Some(s) = scenarios.first() {
        world.env(s.json, &spec.world_options)?;
    }
    let mut config = config_for(world, &scenarios, spec);
    config.files = named_files(spec)?;
    let opened = RunDir::open(out, &config)?;
    // a row with a retryable error (the backend kept failing) does not finish its episode
    let done: BTreeSet<(String, u32)> = opened
        .finished
        .iter()
        .filter(|r| !r.retryable)
        .map(|r| (r.scenario.clone(), r.epoch))
        .collect();
    let mut all = Vec::new();
    for epoch in 0..spec.epochs {
        for i in 0..scenarios.len() {
            all.push((i, epoch));
        }
    }
    let mine: Vec<(usize, u32)> = all
        .into_iter()
        .enumerate()
        .filter(|(k, _)| spec.shard.is_none_or(|s| s.contains(*k)))
        .filter(|(_, (_, epoch))| spec.fork.as_ref().is_none_or(|f| f.origin.epoch == *epoch))
        .map(|(_, job)| job)
        .collect();
    let jobs: Vec<(usize, u32)> = mine
        .iter()
        .copied()
        .filter(|(i, epoch)| !done.contains(&(scenarios[*i].header.id.clone(), *epoch)))
        .collect();
    Ok(Opening {
        scenarios,
        opened,
        mine,
        jobs,
    })
}

/// The indices of `n` scenarios (all of them when there are no more) of a suite whose
/// scenarios have difficulties `tiers`, in suite order: drawn evenly over the tiers —
/// one from each tier in turn, lowest first, until `n` — each tier's scenarios in an
/// order shuffled with `seed`. A quick look at a suite (`--sample 2` on comma gives two
/// puzzles, not two Wire instances as `--limit 2` does); the same seed draws the same.
pub fn sample(tiers: &[u32], n: usize, seed: u64) -> Vec<usize> {
    let mut by_tier: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, d) in tiers.iter().enumerate() {
        by_tier.entry(*d).or_default().push(i);
    }
    // Fisher-Yates with the derived seeds as the random source
    let mut queues: Vec<std::collections::VecDeque<usize>> = by_tier
        .into_iter()
        .map(|(d, mut members)| {
            for k in (1..members.len()).rev() {
                let r = seed::derive(seed, &format!("sample/{d}"), k as u64);
                members.swap(k, (r % (k as u64 + 1)) as usize);
            }
            members.into()
        })
        .collect();
    let mut chosen = Vec::new();
    while chosen.len() < n && queues.iter().any(|q| !q.is_empty()) {
        for q in &mut queues {
            if chosen.len() < n
                && let Some(i) = q.pop_front()
            {
                chosen.push(i);
            }
        }
    }
    chosen.sort_unstable();
    chosen
}

/// Parses headers, checks world and unique ids, hashes, and applies `limit`.
fn prepare<'a>(
    world: &dyn World,
    scenarios: &'a [(String, String)],
    limit: Option<usize>,
) -> Result<Vec<Scenario<'a>>> {
    let take = limit.unwrap_or(usize::MAX);
    let mut seen = BTreeSet::new();
    let mut stems: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::new();
    for (label, json) in scenarios.iter().take(take) {
        let header = ScenarioHeader::parse(json)?;
        if header.world != world.name() {
            return Err(RunError::MixedWorlds {
                first: world.name().to_string(),
                second: header.world,
            });
        }
        if !seen.insert(header.id.clone()) {
            return Err(RunError::DuplicateScenario { id: header.id });
        }
        // trajectories live under a file-system-safe, case-folded form of the id; two ids
        // that map to one directory would overwrite each other's steps
        let stem = crate::suite::file_stem(&header.id).to_lowercase();
        if let Some(other) = stems.insert(stem.clone(), header.id.clone()) {
            return Err(RunError::invalid(
                "scenarios",
                format!(
                    "scenarios `{other}` and `{}` would share the trajectory directory `{stem}`; \
                 rename one",
                    header.id
                ),
            ));
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
        expert: spec.expert.clone(),
        expert_options: spec.expert_options.clone(),
        world_options: spec.world_options.clone(),
        epochs: spec.epochs,
        files: BTreeMap::new(),
        suite_settings: spec.suite_settings.clone(),
        limit: spec.limit.map(|l| l as u64),
        sample: spec.sample.map(|n| n as u64),
        seed: spec.seed,
        max_steps: spec.max_steps,
        scenarios: scenarios
            .iter()
            .map(|s| ScenarioRef {
                id: s.header.id.clone(),
                hash: s.hash.clone(),
            })
            .collect(),
        shard: spec.shard,
        fork: spec.fork.as_ref().map(|f| f.origin.clone()),
    }
}

/// The files the agents' options name (`model`/`captioner` = `scripted/<file>`,
/// `prices` = `<file>`), each with the SHA-256 of its contents.
fn named_files(spec: &RunSpec) -> Result<BTreeMap<String, String>> {
    let mut files = BTreeMap::new();
    for options in [&spec.agent_options, &spec.expert_options] {
        for (key, value) in options {
            let path = match key.as_str() {
                "model" | "captioner" => value.strip_prefix("scripted/"),
                "prices" => Some(value.as_str()),
                _ => None,
            };
            // a name that is no file (a script built in memory) has nothing to record
            let Some(path) = path.filter(|p| Path::new(p).is_file()) else {
                continue;
            };
            let bytes =
                std::fs::read(path).map_err(|e| RunError::io("cannot read", Path::new(path), e))?;
            files.insert(path.to_string(), hash::sha256_hex(&bytes));
        }
    }
    Ok(files)
}

/// Everything that names one episode.
pub(crate) struct Episode<'a> {
    pub suite: &'a str,
    pub header: &'a ScenarioHeader,
    pub hash: &'a str,
    pub json: &'a str,
    pub epoch: u32,
    pub seed: u64,
    pub agent: &'a str,
    pub max_steps: u32,
    /// The run's world options (`-W`), for the environment and a baseline agent.
    pub options: &'a Options,
    /// The recorded episode this one forks, when the run is a fork (`run --from`).
    pub fork: Option<&'a Fork>,
}

/// Plays one episode into the run directory (continuing it from its checkpoint when it
/// has one) and appends its row, or checkpoints it when `stop` ended it early. `Err`
/// only for run-directory I/O; everything an agent or environment does wrong lands in
/// the row.
async fn run_episode(
    world: &dyn World,
    agents: &dyn AgentFactory,
    ep: &Episode<'_>,
    dir: &RunDir,
    watch: &Watch<'_>,
    stop: &Stop,
) -> Result<Recorded> {
    let recorded = record(world, agents, ep, dir, watch, Some(stop)).await?;
    if let Some(row) = &recorded.row {
        dir.append_episode(row)?;
        dir.remove_checkpoint(&ep.header.id, ep.epoch)?;
    }
    Ok(recorded)
}

/// What the runner's drivers are told while an episode plays.
pub(crate) struct Watch<'a> {
    /// Usage of each live step.
    pub on_step: &'a (dyn Fn(&Usage) + Sync),
    /// The world's step budget, once the environment is open.
    pub on_budget: &'a (dyn Fn(Option<u32>) + Sync),
}

/// What [`record`] did with an episode.
pub(crate) struct Recorded {
    /// The episode's row (not appended yet); `None` when it was checkpointed.
    pub row: Option<EpisodeRow>,
    /// A reply was cut in the agent's history.
    pub history_cut: bool,
    /// The steps it was checkpointed at, when the stop ended it.
    pub checkpointed: Option<u32>,
    /// The steps of the checkpoint it continued from, when it did.
    pub continued: Option<u32>,
    /// What to tell the user (a checkpoint that could not be used).
    pub notes: Vec<String>,
}

/// Plays one episode, writing its steps and pictures into `dir`, and returns its row
/// (not appended) and whether a reply was cut in the agent's history. The trajectory
/// is on disk when this returns.
pub(crate) async fn record_episode(
    world: &dyn World,
    agents: &dyn AgentFactory,
    ep: &Episode<'_>,
    dir: &RunDir,
    on_step: &(dyn Fn(&Usage) + Sync),
) -> Result<(EpisodeRow, bool)> {
    let watch = Watch {
        on_step,
        on_budget: &|_| {},
    };
    let recorded = record(world, agents, ep, dir, &watch, None).await?;
    let row = recorded
        .row
        .expect("an episode without a stop ends with a row");
    Ok((row, recorded.history_cut))
}

/// Plays one episode into `dir` (see [`run_episode`]): from its checkpoint when it has
/// one that replays as recorded, else from its start. With a `stop`, an episode it
/// ends is checkpointed at its last completed step and has no row.
async fn record(
    world: &dyn World,
    agents: &dyn AgentFactory,
    ep: &Episode<'_>,
    dir: &RunDir,
    watch: &Watch<'_>,
    stop: Option<&Stop>,
) -> Result<Recorded> {
    let start = Instant::now();
    let (id, epoch) = (ep.header.id.as_str(), ep.epoch);
    let mut notes = Vec::new();
    let mut continued = None;
    let mut attempt = None;
    if stop.is_some() {
        match crate::checkpoint::load(dir, ep) {
            Ok(None) => {}
            Ok(Some((checkpoint, rows))) => {
                let mut recorder = Recorder {
                    dir,
                    trajectory: dir.continue_trajectory(id, epoch, checkpoint.trajectory_bytes)?,
                };
                let replay = match ep.fork {
                    Some(fork) => fork.resume(rows),
                    None => Replay::checkpoint(rows),
                };
                let played = attempt_episode(
                    world,
                    agents,
                    ep,
                    &mut recorder,
                    watch,
                    stop,
                    Some(replay),
                    checkpoint.duration_ms,
                )
                .await?;
                match &played.replay_failed {
                    Some(why) => notes.push(format!(
                        "episode {id} epoch {epoch}: its checkpoint at step {} is not used \
                         ({why}); the episode is played from its start",
                        checkpoint.steps
                    )),
                    None => {
                        continued = Some(checkpoint.steps);
                        attempt = Some((played, recorder, checkpoint.duration_ms));
                    }
                }
            }
            Err(why) => notes.push(format!(
                "episode {id} epoch {epoch}: its checkpoint is not used ({why}); the \
                 episode is played from its start"
            )),
        }
    }
    let (played, mut recorder, offset_ms) = match attempt {
        Some(x) => x,
        None if ep.fork.is_some() => {
            let fork = ep.fork.expect("looked at above");
            dir.remove_checkpoint(id, epoch)?;
            let mut recorder = Recorder {
                dir,
                trajectory: dir.trajectory(id, epoch)?,
            };
            // the forked trajectory starts with the origin's rows, replayed
            fork.copy_media(dir)?;
            for row in fork.before() {
                recorder.trajectory.write(row)?;
            }
            let played = attempt_episode(
                world,
                agents,
                ep,
                &mut recorder,
                watch,
                stop,
                Some(fork.replay()),
                0,
            )
            .await?;
            if let Some(why) = &played.replay_failed {
                return Err(RunError::invalid(
                    "from",
                    format!(
                        "episode {id} epoch {epoch} of {} does not replay as recorded up to \
                         step {} ({why}); no fork is played",
                        fork.origin.run, fork.origin.step
                    ),
                ));
            }
            (played, recorder, 0)
        }
        None => {
            dir.remove_checkpoint(id, epoch)?;
            let mut recorder = Recorder {
                dir,
                trajectory: dir.trajectory(id, epoch)?,
            };
            let played =
                attempt_episode(world, agents, ep, &mut recorder, watch, stop, None, 0).await?;
            (played, recorder, 0)
        }
    };
    let duration_ms = offset_ms + start.elapsed().as_millis() as u64;
    // the steps reach the file before the row (or the checkpoint) that counts them
    recorder.trajectory.finish()?;
    if played.interrupted {
        let checkpointed = if played.steps > 0 {
            let checkpoint = crate::checkpoint::make(dir, ep, &played, duration_ms)?;
            dir.write_checkpoint(&checkpoint)?;
            Some(played.steps)
        } else {
            // nothing done yet: the episode simply starts again
            dir.remove_checkpoint(id, epoch)?;
            None
        };
        return Ok(Recorded {
            row: None,
            history_cut: played.history_cut,
            checkpointed,
            continued,
            notes,
        });
    }
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
        duration_ms,
        error: played.error,
        retryable: played.retryable,
        rejected: played.rejected,
        start_steps_to_go: played.start_steps_to_go,
        step_cap: played.step_cap,
        origin: ep.fork.map(|f| f.origin.clone()),
    };
    Ok(Recorded {
        row: Some(row),
        history_cut: played.history_cut,
        checkpointed: None,
        continued,
        notes,
    })
}

/// Opens the environment, makes the agent and plays (see [`play`]); a panic of either
/// becomes the episode's error.
#[allow(clippy::too_many_arguments)]
async fn attempt_episode(
    world: &dyn World,
    agents: &dyn AgentFactory,
    ep: &Episode<'_>,
    recorder: &mut Recorder<'_>,
    watch: &Watch<'_>,
    stop: Option<&Stop>,
    replay: Option<Replay>,
    offset_ms: u64,
) -> Result<Played> {
    let played = AssertUnwindSafe(async {
        let env = match world.env(ep.json, ep.options) {
            Ok(env) => env,
            Err(e) => return Ok(Played::failed(format!("cannot open the environment: {e}"))),
        };
        let mut agent = match agents.make(world, ep.json, ep.seed, ep.options) {
            Ok(agent) => agent,
            Err(e) => return Ok(Played::failed(format!("cannot make the agent: {e}"))),
        };
        let how = Playing {
            seed: ep.seed,
            max_steps: ep.max_steps,
            stop,
            replay,
            offset_ms,
            on_budget: watch.on_budget,
        };
        play(env, agent.as_mut(), how, Some(recorder), watch.on_step).await
    })
    .catch_unwind()
    .await;
    Ok(match played {
        Ok(result) => result?,
        Err(panic) => Played::failed(format!("panicked: {}", panic_message(&panic))),
    })
}

/// The metrics an episode row records: the finite ones (JSON has no NaN).
pub fn finite(metrics: BTreeMap<String, f64>) -> BTreeMap<String, f64> {
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

impl Recorder<'_> {
    /// Writes step `n`: what the agent saw, its turn (with any rejected replies and the
    /// usage of all of them), and the environment's answer.
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &mut self,
        n: u32,
        t_ms: u64,
        observation: &Observation,
        turn: escapade_core::AgentTurn,
        step: &Step,
        usage: Usage,
        reasks: Vec<Reask>,
    ) -> Result<()> {
        let images = self.dir.store_images(&observation.images)?;
        let row = StepRow {
            format_version: FORMAT_VERSION,
            step: n,
            t_ms,
            // multi-role worlds name the role whose turn it was (COMMA: solver, expert)
            role: observation
                .role
                .clone()
                .unwrap_or_else(|| "agent".to_string()),
            observation: LoggedObservation {
                text: observation.text.clone(),
                images,
                descriptions: if observation.images.iter().any(|i| i.alt.is_some()) {
                    observation
                        .images
                        .iter()
                        .map(|i| i.alt.clone().unwrap_or_default())
                        .collect()
                } else {
                    Vec::new()
                },
            },
            request: turn.request,
            raw_response: turn.raw_response,
            reasoning: turn.reasoning,
            action: turn.action,
            valid: step.valid(),
            feedback: step.feedback.clone(),
            progress: if step.progress.is_finite() {
                step.progress
            } else {
                0.0
            },
            terminated: step.terminated,
            truncated: step.truncated,
            usage,
            error: step.error.clone(),
            results: step.results.clone(),
            reasks,
            steps_to_go: step.steps_to_go,
        };
        self.trajectory.write(&row)
    }
}

/// The result of [`play_episode`].
#[derive(Debug, Clone, Default)]
pub struct Played {
    /// The environment's outcome (default when the episode could not start).
    pub outcome: Outcome,
    /// Usage summed over the agent's turns (re-asks included).
    pub usage: Usage,
    /// Why the episode ended early, if it did.
    pub error: Option<String>,
    /// The error came from outside the episode (a failing model backend).
    pub retryable: bool,
    /// The last step, if any step was taken.
    pub last: Option<Step>,
    /// Rejected replies of a last turn that failed before reaching the environment.
    pub rejected: Vec<Reask>,
    /// A reply was too long to be kept whole in the agent's history, or pictures of
    /// past steps did not fit a request's image budget (its request record says so with
    /// [`escapade_agents::llm::HISTORY_CUT`] or [`escapade_agents::llm::IMAGES_LEFT_OUT`]).
    pub history_cut: bool,
    /// The oracle's distance at the start ([`escapade_core::Env::steps_to_go`] after
    /// `reset`), for the episode row.
    pub start_steps_to_go: Option<u32>,
    /// Steps taken (replayed ones included).
    pub steps: u32,
    /// The step cap ended the episode before the world did.
    pub step_cap: bool,
    /// The run was stopped: the episode ended after its last completed step, to be
    /// checkpointed there.
    pub interrupted: bool,
    /// Why the steps of a checkpoint did not replay as recorded (the episode must be
    /// played from its start).
    pub replay_failed: Option<String>,
}

impl Played {
    /// How the episode ended.
    pub fn ending(&self) -> crate::ending::Ending {
        crate::ending::Ending::from_parts(
            self.outcome.success,
            self.error.as_deref(),
            self.step_cap,
            self.last
                .as_ref()
                .map(|s| crate::ending::Last::of(s.error.as_deref(), s.terminated, s.truncated)),
        )
    }

    /// An episode that ended before it could be played.
    pub fn failed(error: String) -> Self {
        Played {
            error: Some(error),
            ..Played::default()
        }
    }
}

/// A call to the environment that took at most this long lets the next call run in
/// place, on the episode's own task; a slower one sends the next call to tokio's blocking
/// pool again.
///
/// A baseline's episode makes thousands of calls of a few microseconds each (a COMMA
/// puzzle step, a VisEscape step whose picture is already drawn): handing each to
/// another thread and back cost more than the call. A heavy call (sandboxed Python, a
/// picture drawn for the first time) after a heavy one runs on the pool, where it stalls
/// no other episode; the first call of an episode, and the first slow call after a run of
/// cheap ones, run in place before the slowness is noticed.
pub const INLINE_CALL: std::time::Duration = std::time::Duration::from_micros(500);

/// Where an episode's environment calls run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In place after a cheap call, on the blocking pool after a slow one
    /// ([`INLINE_CALL`]): one episode at a time on the runner's task, or an episode
    /// played outside the runner.
    Adaptive,
    /// Always on tokio's blocking pool: the episode shares the runner's task with other
    /// episodes in flight, and a call in place would hold them all up.
    Pool,
    /// Always in place: the episode has a thread of its own ([`lanes`]).
    Thread,
}

tokio::task_local! {
    /// Where the calls of the episode polled in this scope run (absent: adaptive).
    static PLACE: Place;
}

/// An environment owned by the episode. Every call after a slow one ([`INLINE_CALL`]) is
/// moved to tokio's blocking pool so that heavy steps never stall the futures of other
/// episodes; the first call, and a call after a cheap one, runs in place (a world whose
/// calls are all heavy stalls the others once per episode, at its `reset`). Either way a
/// panic of the environment is caught and becomes the episode's error.
struct Stepper {
    env: Option<Box<dyn Env + Send>>,
    /// The last call was cheap: run the next one in place.
    inline: bool,
}

impl Stepper {
    fn new(env: Box<dyn Env + Send>) -> Self {
        Stepper {
            env: Some(env),
            inline: true,
        }
    }

    async fn with<R: Send + 'static>(
        &mut self,
        f: impl FnOnce(&mut dyn Env) -> R + Send + 'static,
    ) -> std::result::Result<R, String> {
        let mut env = self
            .env
            .take()
            .ok_or_else(|| "the environment was lost after a panic".to_string())?;
        // the call's own time, without the hand-off to the pool
        let call = move || {
            let start = Instant::now();
            let r = f(env.as_mut());
            (env, r, start.elapsed())
        };
        let inline = match PLACE.try_with(|place| *place).unwrap_or(Place::Adaptive) {
            Place::Adaptive => self.inline,
            Place::Pool => false,
            Place::Thread => true,
        };
        let result = if inline {
            // the environment is dropped (not used again) when it panics, as on the pool
            std::panic::catch_unwind(AssertUnwindSafe(call))
                .map_err(|panic| format!("environment panicked: {}", panic_message(&panic)))
        } else {
            match tokio::task::spawn_blocking(call).await {
                Ok(x) => Ok(x),
                Err(e) if e.is_panic() => {
                    let panic = e.into_panic();
                    Err(format!("environment panicked: {}", panic_message(&panic)))
                }
                Err(e) => Err(format!("environment task failed: {e}")),
            }
        };
        let (env, r, took) = result?;
        self.inline = took <= INLINE_CALL;
        self.env = Some(env);
        Ok(r)
    }

    fn get(&self) -> &dyn Env {
        self.env.as_deref().expect("present between calls")
    }
}

/// An agent call whose panic becomes an [`AgentError`] (not retryable: the same agent
/// would panic again).
async fn guarded<T>(
    call: impl std::future::Future<Output = std::result::Result<T, AgentError>>,
) -> std::result::Result<T, AgentError> {
    match AssertUnwindSafe(call).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => Err(AgentError::Panicked(panic_message(&panic))),
    }
}

fn agent_failure(played: &mut Played, e: AgentError) {
    played.retryable = e.is_retryable();
    played.error = Some(format!("agent failed: {e}"));
}

/// Plays one episode: `reset`, then `act` (with re-asks while the world's parser rejects
/// the reply, up to the re-ask limit) → `step` until the episode is terminated or
/// truncated, writing one [`StepRow`] per step to `recorder` and reporting each step's
/// usage to `on_step`. Reaching `max_steps` ends the episode with
/// [`Played::step_cap`] set (not an error). An agent `Err`, an environment `Err` or
/// panic ends the episode with `error` set; `Err` is returned only when the recorder
/// cannot write.
pub async fn play_episode(
    env: Box<dyn Env + Send>,
    agent: &mut dyn AsyncAgent,
    seed: u64,
    max_steps: u32,
    recorder: Option<&mut Recorder<'_>>,
    on_step: &(dyn Fn(&Usage) + Sync),
) -> Result<Played> {
    let how = Playing {
        seed,
        max_steps,
        stop: None,
        replay: None,
        offset_ms: 0,
        on_budget: &|_| {},
    };
    play(env, agent, how, recorder, on_step).await
}

/// How [`play`] plays an episode.
pub(crate) struct Playing<'a> {
    pub seed: u64,
    pub max_steps: u32,
    /// Stops the episode at its last completed step (the model call in flight is given
    /// up): [`Played::interrupted`].
    pub stop: Option<&'a Stop>,
    /// The steps of a checkpoint, replayed before the episode goes on.
    pub replay: Option<Replay>,
    /// Milliseconds the episode ran before its checkpoint (added to step times).
    pub offset_ms: u64,
    /// Told the world's step budget once the environment is open.
    pub on_budget: &'a (dyn Fn(Option<u32>) + Sync),
}

/// Awaits `f`, unless `stop` is requested first (`None`).
async fn unless_stopped<T>(
    stop: Option<&Stop>,
    f: impl std::future::Future<Output = T>,
) -> Option<T> {
    match stop {
        None => Some(f.await),
        Some(stop) => {
            tokio::select! {
                biased;
                value = f => Some(value),
                () = stop.wait() => None,
            }
        }
    }
}

/// [`play_episode`] with a stop and a checkpoint to continue from (see [`Playing`]).
pub(crate) async fn play(
    env: Box<dyn Env + Send>,
    agent: &mut dyn AsyncAgent,
    how: Playing<'_>,
    mut recorder: Option<&mut Recorder<'_>>,
    on_step: &(dyn Fn(&Usage) + Sync),
) -> Result<Played> {
    let Playing {
        seed,
        max_steps,
        stop,
        replay,
        offset_ms,
        on_budget,
    } = how;
    let start = Instant::now();
    let mut env = Stepper::new(env);
    let mut played = Played::default();
    // an observation's new pictures are hashed and written where the call made them
    // (on the blocking pool when episodes share the runner's task): the recorder then
    // finds them stored. Best effort: a failure here is met again, and reported, there.
    let media = recorder.as_ref().map(|r| r.dir.media());
    let store = move |media: &Option<Arc<Media>>, o: &Observation| {
        if let Some(m) = media
            && !o.images.is_empty()
        {
            let _ = m.store(&o.images);
        }
    };
    type Start = (
        Observation,
        String,
        Vec<escapade_core::ToolSchema>,
        Vec<(String, String)>,
        Option<u32>,
        Option<u32>,
    );
    let replayed = replay.as_ref().map_or(0, |r| r.upto);
    // a replayed observation's pictures are in the run directory already
    let media_at_reset = media.clone().filter(|_| replayed == 0);
    let observation: std::result::Result<Start, String> = env
        .with(move |e| {
            let o = e.reset(seed);
            store(&media_at_reset, &o);
            let roles = e
                .roles()
                .into_iter()
                .map(|r| {
                    let prompt = e.role_prompt(&r);
                    (r, prompt)
                })
                .collect();
            (
                o,
                e.system_prompt(),
                e.tool_schemas(),
                roles,
                e.step_budget(),
                e.steps_to_go(),
            )
        })
        .await;
    let (mut observation, system, tools, roles, budget, start_steps_to_go) = match observation {
        Ok(x) => x,
        Err(e) => return Ok(Played::failed(e)),
    };
    on_budget(budget);
    played.start_steps_to_go = start_steps_to_go;
    let reask_limit = agent.reask_limit().unwrap_or(env.get().reask_limit());
    if let Err(e) = agent
        .reset(EpisodeStart {
            seed,
            system_prompt: &system,
            tools: &tools,
            roles: &roles,
            steps_to_go: start_steps_to_go,
        })
        .await
    {
        agent_failure(&mut played, e);
        return Ok(played);
    }
    let mut tools = tools;
    let refresh_tools = agent.uses_tools();
    let tape = replay.as_ref().and_then(|r| r.tape.clone());
    if let Some(tape) = &tape {
        agent.replay_with(Some(tape.client()));
    }
    let mut n = 0u32;
    loop {
        if n == replayed
            && let Some(r) = &replay
        {
            // the checkpoint (or the fork's step) is reached: the agent talks to its
            // model again
            if let Some(tape) = &tape {
                agent.replay_with(None);
                if tape.left() > 0 {
                    played.replay_failed = Some(format!(
                        "the agent asked for {} recorded replies fewer than the recorded run",
                        tape.left()
                    ));
                    return Ok(played);
                }
            }
            // a fork's first step is played live, but must start where the recording did
            if let Some(row) = r.rows.get(n as usize)
                && let Some(why) = crate::checkpoint::observation_differs(&observation, row)
            {
                played.replay_failed = Some(format!("step {}: {why}", n + 1));
                return Ok(played);
            }
        }
        if n >= max_steps {
            played.step_cap = true;
            break;
        }
        let recorded = replay.as_ref().and_then(|r| r.recorded(n));
        // a replayed step is not interrupted: it waits on no model
        let live = if recorded.is_some() { None } else { stop };
        if let Some(row) = recorded
            && let Some(why) = crate::checkpoint::observation_differs(&observation, row)
        {
            played.replay_failed = Some(format!("step {}: {why}", n + 1));
            return Ok(played);
        }
        if live.is_some_and(Stop::requested) {
            played.interrupted = true;
            break;
        }
        let input = TurnInput {
            step: n + 1,
            observation: &observation,
            last: played.last.as_ref(),
            tools: &tools,
        };
        // an agent that panics ends the episode like one that fails, and the metrics
        // of the steps already taken stand
        // a fork with a fresh conversation sends the recorded actions as they are
        let skipped = recorded.filter(|_| replay.as_ref().is_some_and(|r| n < r.sent));
        let acted = match skipped {
            Some(row) => Some(Ok(escapade_core::AgentTurn::action(row.action.clone()))),
            None => unless_stopped(live, guarded(agent.act(input))).await,
        };
        let mut turn = match acted {
            None => {
                played.interrupted = true;
                break;
            }
            Some(Ok(turn)) => turn,
            Some(Err(e)) if recorded.is_some() => {
                played.replay_failed = Some(replay_error(&replay, n, &e));
                return Ok(played);
            }
            Some(Err(_)) if live.is_some_and(Stop::cost_cap_reached) => {
                // the cap refused the request: the episode waits at its last completed
                // step for `resume --max-cost`, as a stopped one does
                played.interrupted = true;
                break;
            }
            Some(Err(e)) => {
                agent_failure(&mut played, e);
                break;
            }
        };
        let mut reasks: Vec<Reask> = Vec::new();
        let mut usage = turn.usage;
        let mut failed = false;
        while skipped.is_none() && (reasks.len() as u32) < reask_limit {
            let Err(message) = env.get().check_action(&turn.action) else {
                break;
            };
            reasks.push(Reask {
                raw_response: turn.raw_response.clone(),
                action: turn.action.clone(),
                error: message.clone(),
                usage: turn.usage,
            });
            match unless_stopped(live, guarded(agent.reask(&message, input))).await {
                None => {
                    played.interrupted = true;
                    failed = true;
                    break;
                }
                Some(Ok(t)) => {
                    turn = t;
                    usage.add(&turn.usage);
                }
                Some(Err(e)) if recorded.is_some() => {
                    played.replay_failed = Some(replay_error(&replay, n, &e));
                    return Ok(played);
                }
                Some(Err(_)) if live.is_some_and(Stop::cost_cap_reached) => {
                    played.interrupted = true;
                    failed = true;
                    break;
                }
                Some(Err(e)) => {
                    agent_failure(&mut played, e);
                    failed = true;
                    break;
                }
            }
        }
        if played.interrupted {
            break;
        }
        if let Some(row) = recorded {
            if turn.action != row.action {
                played.replay_failed = Some(format!(
                    "step {}: the agent's action differs from the recorded one",
                    n + 1
                ));
                return Ok(played);
            }
            // the recorded usage: the replayed calls cost nothing
            usage = row.usage;
        } else {
            on_step(&usage);
        }
        played.usage.add(&usage);
        played.history_cut |= turn.request.as_ref().is_some_and(|r| {
            r.get(escapade_agents::llm::HISTORY_CUT).is_some()
                || r.get(escapade_agents::llm::IMAGES_LEFT_OUT).is_some()
        });
        if failed {
            // no step row will hold this turn's rejected replies: the episode row does
            played.rejected = reasks;
            break;
        }
        let action: Action = turn.action.clone();
        // the observation after the last step is in no row: nothing to store
        let media = media
            .clone()
            .filter(|_| n + 1 < max_steps && n + 1 >= replayed);
        let stepped = env
            .with(move |e| {
                e.step(&action).map(|s| {
                    if !(s.terminated || s.truncated) {
                        store(&media, &s.observation);
                    }
                    let tools = if refresh_tools {
                        e.tool_schemas()
                    } else {
                        Vec::new()
                    };
                    // kept so that a later panic of the environment loses no metrics
                    (s, tools, e.outcome())
                })
            })
            .await;
        let step = match stepped {
            Ok(Ok((step, next_tools, outcome))) => {
                if refresh_tools {
                    tools = next_tools;
                }
                played.outcome = outcome;
                step
            }
            Ok(Err(e)) if recorded.is_some() => {
                played.replay_failed = Some(format!("step {}: environment failed: {e}", n + 1));
                return Ok(played);
            }
            Err(e) if recorded.is_some() => {
                played.replay_failed = Some(format!("step {}: {e}", n + 1));
                return Ok(played);
            }
            Ok(Err(e)) => {
                played.error = Some(format!("environment failed: {e}"));
                break;
            }
            Err(e) => {
                played.error = Some(e);
                break;
            }
        };
        if let Some(row) = recorded
            && let Some(why) = crate::checkpoint::step_differs(&step, row)
        {
            played.replay_failed = Some(format!("step {}: {why}", n + 1));
            return Ok(played);
        }
        n += 1;
        played.steps = n;
        if recorded.is_none()
            && let Some(rec) = recorder.as_deref_mut()
        {
            let t_ms = offset_ms + start.elapsed().as_millis() as u64;
            rec.write(n, t_ms, &observation, turn, &step, usage, reasks)?;
        }
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        played.last = Some(step);
        if over {
            break;
        }
    }
    if let Some(e) = env.env.as_deref() {
        played.outcome = e.outcome();
    }
    // else the environment panicked: the outcome after its last good step stands
    Ok(played)
}

/// Why replaying step `n + 1` failed: the tape's refusal when it refused, else `e`.
fn replay_error(replay: &Option<Replay>, n: u32, e: &AgentError) -> String {
    let tape = replay
        .as_ref()
        .and_then(|r| r.tape.as_ref())
        .and_then(|t| t.failure());
    format!("step {}: {}", n + 1, tape.unwrap_or_else(|| e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A factory of agents that wait on a server (the trait's default).
    struct Waits;

    impl AgentFactory for Waits {
        fn name(&self) -> String {
            "waits".into()
        }

        fn make(
            &self,
            _: &dyn World,
            _: &str,
            _: u64,
            _: &Options,
        ) -> std::result::Result<Box<dyn AsyncAgent>, AgentError> {
            Err(AgentError::Baseline("never made".into()))
        }
    }

    #[test]
    fn only_baselines_at_a_concurrency_above_one_on_a_multi_thread_runtime_get_lanes() {
        let world = escapade_testkit::counter::CounterWorld;
        let random = Baseline::new(&world, "random").unwrap();
        let spec = |concurrency| RunSpec {
            concurrency,
            ..RunSpec::default()
        };
        let team = TeamFactory::new(vec![
            ("solver".into(), Box::new(random.clone())),
            ("expert".into(), Box::new(Waits)),
        ]);
        let multi = tokio::runtime::Builder::new_multi_thread().build().unwrap();
        multi.block_on(async {
            assert!(lanes(&spec(2), &random).is_some());
            assert!(lanes(&spec(1), &random).is_none());
            assert!(lanes(&spec(4), &Waits).is_none());
            // a team with a member that waits on a server is polled as model agents are
            assert!(lanes(&spec(4), &team).is_none());
        });
        let single = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        single.block_on(async { assert!(lanes(&spec(2), &random).is_none()) });
        // outside any runtime there is nothing to drive the lanes' timers
        assert!(lanes(&spec(2), &random).is_none());
    }
}
