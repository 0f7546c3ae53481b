//! Recorded episodes as training data (`escapade export RUNS… --format sft|dpo|hf`).
//!
//! A trajectory row keeps what a step needs to be checked and replayed (the observation,
//! the action, the reply, the SHA-256 of the request), not the whole conversation a model
//! read. The conversation is therefore rebuilt the way `resume` and a fork rebuild it
//! ([`crate::replay`]): the episode is played again from its seed, the recorded actions
//! sent to a fresh environment, each observation checked against its row, and a model
//! agent takes every turn with its calls answered instead of sent:
//!
//! - a model agent's run: by the recorded replies ([`Tape::from_rows`], each request
//!   checked against the recorded SHA-256, so the messages are byte for byte the ones the
//!   model was sent);
//! - a baseline's run (the oracle's): by a stand-in that answers with what a model would
//!   have written to take the recorded action (the reply `escapade estimate` gives), so the
//!   messages are the ones the `llm` agent, under the suite's paper settings, would have
//!   been sent along that path. Oracle runs so make a ready SFT set for every world.
//!
//! What each request carried is kept per turn ([`Turn`]): the SFT line of an episode (one
//! per role) is its last request and the reply that followed; a DPO prompt is the request
//! at the step the two actions part.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use escapade_agents::{AgentError, AsyncAgent, EpisodeStart, MODEL_AGENTS, TurnInput};
use escapade_core::{AgentTurn, EpisodeRow, StepRow, World};
use escapade_llm::picture::MediaType;
use escapade_llm::{Backend, ChatRequest, ChatResponse, LlmError, Message, Part, Role};
use serde::Serialize;
use serde_json::{Value, json};

use crate::checkpoint::{Tape, observation_differs, response_of};
use crate::error::{Result, RunError};
use crate::estimate::reply_of;
use crate::players::{AgentFlags, Opener, Players, agents_with, roles_of};
use crate::report::{Episode, read_runs};
use crate::rundir::{RunConfig, TRAJECTORIES, read_jsonl, read_run_toml};
use crate::runner::{RunSpec, play_episode};

/// Which episodes an export keeps by their outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeFilter {
    /// Escaped episodes only (the default: SFT learns from what worked).
    #[default]
    Success,
    /// Episodes that did not escape.
    Failure,
    /// Every episode.
    Any,
}

impl OutcomeFilter {
    /// Reads `success`, `failure` or `any`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "success" => Ok(Self::Success),
            "failure" => Ok(Self::Failure),
            "any" => Ok(Self::Any),
            other => Err(RunError::invalid(
                "outcome",
                format!("--outcome is success, failure or any, not `{other}`"),
            )),
        }
    }

    fn keeps(self, success: bool) -> bool {
        match self {
            Self::Success => success,
            Self::Failure => !success,
            Self::Any => true,
        }
    }
}

/// The episodes an export keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Filter {
    /// Only this world's episodes (`tools`, `vis`, `comma`, `craft`).
    pub world: Option<String>,
    /// Only this difficulty tier.
    pub tier: Option<u32>,
    /// By outcome (successful episodes by default).
    pub outcome: OutcomeFilter,
}

impl Filter {
    /// Whether `row` passes: its world, tier and outcome, and no error (an episode that
    /// ended on an error is not a trajectory to learn from).
    pub fn keeps(&self, row: &EpisodeRow) -> bool {
        row.error.is_none()
            && self.world.as_ref().is_none_or(|w| *w == row.world)
            && self.tier.is_none_or(|t| t == row.difficulty)
            && self.outcome.keeps(row.success)
    }
}

/// Where pictures of an exported conversation go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pictures {
    /// Files in `images/` beside the output, named by their SHA-256; `image_url.url` is
    /// the path relative to the output's folder (the default: the JSONL stays small).
    #[default]
    Files,
    /// Inline `data:` URLs, as the request sent them.
    DataUrls,
}

/// One model call of a rebuilt episode: the request the agent made and the reply it got.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The step it chose (from 1).
    pub step: u32,
    /// Who acted (`agent`, or COMMA's `solver`/`expert`).
    pub role: String,
    /// The request, as it reached the backend.
    pub request: ChatRequest,
    /// The reply it was given.
    pub reply: ChatResponse,
}

/// A recorded episode rebuilt: its rows and every model call its turns made.
#[derive(Debug, Clone)]
pub struct Rebuilt {
    /// The episode's row.
    pub row: EpisodeRow,
    /// Its step rows.
    pub steps: Vec<StepRow>,
    /// Its model calls in order (each step's last call is the one that chose its action).
    pub turns: Vec<Turn>,
    /// The first step its own agent chose: 1, or a fork's step (the steps before it are
    /// the origin's, replayed; their calls are context, not examples).
    pub first: u32,
    /// The run directory it was read from.
    pub run: PathBuf,
    /// The world options the run played with (two episodes are at the same state only
    /// under the same options).
    pub options: BTreeMap<String, String>,
}

impl Rebuilt {
    /// Where a conversation of `role` in this episode came from, as an export's columns
    /// beside its messages: world, suite, scenario, epoch, tier, role, agent, success and
    /// steps.
    pub fn fields(&self, role: &str) -> serde_json::Map<String, Value> {
        let r = &self.row;
        let mut fields = origin_fields(r);
        fields.insert("role".into(), json!(role));
        fields.insert("agent".into(), json!(r.agent));
        fields.insert("success".into(), json!(r.success));
        fields.insert("steps".into(), json!(r.steps));
        fields
    }

    /// The turn that chose step `step`'s action (its last model call).
    pub fn turn_of(&self, step: u32) -> Option<&Turn> {
        self.turns.iter().rev().find(|t| t.step == step)
    }

    /// The conversations to train on, per role in order: each call that chose a step's
    /// action (re-asked replies the world refused are left out) whose request and reply
    /// the role's next such call does not carry on. An agent that keeps its history gives
    /// one conversation per role (its last call holds every earlier one); an agent that
    /// sends each step alone (VisEscape's paper agents) gives one per step.
    pub fn conversations(&self) -> Vec<(String, ChatRequest, ChatResponse)> {
        let chosen: Vec<&Turn> = self
            .turns
            .iter()
            .filter(|t| {
                t.step >= self.first
                    && self
                        .turn_of(t.step)
                        .is_some_and(|last| std::ptr::eq(last, *t))
            })
            .collect();
        let mut out = Vec::new();
        for (i, t) in chosen.iter().enumerate() {
            let next = chosen[i + 1..].iter().find(|n| n.role == t.role);
            let carried_on = next.is_some_and(|n| {
                let mut mine = t.request.messages.clone();
                mine.push(assistant(&t.reply));
                n.request.messages.len() >= mine.len()
                    && n.request.messages[..mine.len()] == mine[..]
            });
            if !carried_on {
                out.push((t.role.clone(), t.request.clone(), t.reply.clone()));
            }
        }
        out
    }
}

/// The assistant message of a reply.
pub fn assistant(reply: &ChatResponse) -> Message {
    let parts = match reply.text.is_empty() {
        true => Vec::new(),
        false => vec![Part::Text {
            text: reply.text.clone(),
        }],
    };
    Message {
        role: Role::Assistant,
        parts,
        tool_calls: reply.tool_calls.clone(),
        tool_call_id: None,
    }
}

/// A run read for export: its directory, config and the scenarios' JSON.
struct RunInput<'w> {
    dir: PathBuf,
    config: RunConfig,
    world: &'w dyn World,
    scenarios: Vec<(String, String)>,
    settings: escapade_core::env::SuiteSettings,
    /// The roles of its scenarios ([`roles_of`]: opening an environment, found once).
    roles: Vec<String>,
}

/// What an export came from and what it kept (the manifest, and the dataset card's
/// source section).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Provenance {
    /// escapade's version that wrote the export.
    pub escapade: String,
    /// The export's format (`sft`, `dpo`, `hf`).
    pub format: String,
    /// The filters applied.
    pub filter: Filter,
    /// Each run read: directory, suite, agent, model, config hash.
    pub runs: Vec<Value>,
    /// Episodes kept.
    pub episodes: usize,
    /// Lines (SFT: conversations, one per episode and role; DPO: pairs) written.
    pub records: usize,
    /// Episodes the filters kept that could not be rebuilt, with why.
    pub skipped: Vec<String>,
    /// DPO: episodes that parted at a state without giving a pair a reader might expect
    /// (no distance there, an action the prompt's agent cannot write), with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unpaired: Vec<String>,
}

impl Provenance {
    /// An export's provenance before anything is read.
    pub fn new(format: &str, filter: &Filter) -> Provenance {
        Provenance {
            escapade: env!("CARGO_PKG_VERSION").into(),
            format: format.into(),
            filter: filter.clone(),
            ..Provenance::default()
        }
    }
}

/// The model whose request format a baseline's episodes are written in (a model that
/// takes pictures and native function calls; only its format is used).
pub const REQUEST_MODEL: &str = "openai/gpt-4o";

/// The stand-in backend of a rebuild: records every request, and answers it from the
/// recorded replies (a model's run) or with the reply `slot` holds (a baseline's run).
struct Capture {
    name: String,
    tape: Option<Arc<Tape>>,
    state: Arc<Mutex<CaptureState>>,
}

#[derive(Default)]
struct CaptureState {
    reply: ChatResponse,
    step: u32,
    role: String,
    turns: Vec<Turn>,
}

#[async_trait]
impl Backend for Capture {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn cache_identity(&self) -> Option<String> {
        None
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let reply = match &self.tape {
            Some(tape) => tape.chat(request).await?,
            None => lock(&self.state).reply.clone(),
        };
        let mut state = lock(&self.state);
        let turn = Turn {
            step: state.step,
            role: state.role.clone(),
            request: request.clone(),
            reply: reply.clone(),
        };
        state.turns.push(turn);
        Ok(reply)
    }
}

fn lock<T>(state: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// The model agent playing the recorded rows: before each turn the stand-in learns the
/// step, role and reply; the action sent is the recorded one; the observation is checked.
struct Following {
    model: Box<dyn AsyncAgent>,
    rows: Vec<StepRow>,
    /// A fresh fork's steps before this one were sent as recorded, without the agent.
    sent_before: u32,
    state: Arc<Mutex<CaptureState>>,
    mismatch: Arc<Mutex<Option<String>>>,
}

impl Following {
    async fn turn(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        let Some(row) = self.rows.get(input.step as usize - 1).cloned() else {
            return Err(AgentError::Baseline(format!(
                "the recording has no step {}",
                input.step
            )));
        };
        if let Some(why) = observation_differs(input.observation, &row) {
            let why = format!("step {}: {why}", input.step);
            *self.mismatch.lock().unwrap_or_else(|p| p.into_inner()) = Some(why.clone());
            return Err(AgentError::Baseline(why));
        }
        if input.step < self.sent_before {
            return Ok(AgentTurn::action(row.action));
        }
        {
            let mut state = lock(&self.state);
            state.step = row.step;
            state.role = row.role.clone();
            state.reply = match &row.raw_response {
                Some(raw) => response_of(raw, row.reasoning.clone()),
                None => {
                    let (text, tool_calls) = reply_of(&row.action);
                    ChatResponse {
                        text,
                        tool_calls,
                        finish_reason: Some("stop".into()),
                        ..ChatResponse::default()
                    }
                }
            };
        }
        let mut turn = self.model.act(input).await?;
        turn.action = row.action;
        Ok(turn)
    }
}

#[async_trait]
impl AsyncAgent for Following {
    fn name(&self) -> String {
        self.model.name()
    }

    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
        self.model.reset(start).await
    }

    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        self.turn(input).await
    }

    async fn reask(&mut self, _error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        // the recorded actions were taken by the world: no re-ask follows them
        self.turn(input).await
    }

    fn uses_tools(&self) -> bool {
        self.model.uses_tools()
    }
}

impl RunInput<'_> {
    /// Who rebuilds the run's conversations: its own model agents, or the `llm` agent
    /// under the suite's paper settings for a baseline's run.
    fn players(&self) -> Result<(Players, bool)> {
        if MODEL_AGENTS.contains(&self.config.agent.as_str()) {
            let spec = RunSpec::from_config(&self.config, 1);
            return Ok((Players::of_spec(&spec), true));
        }
        // the requests of a model that sees pictures and calls functions natively: the
        // stand-in answers them, so nothing is sent and no key is needed
        let flags = AgentFlags {
            agent: "llm".into(),
            model: Some(REQUEST_MODEL.into()),
            ..AgentFlags::default()
        };
        let players = flags
            .players(&self.settings)
            .map_err(|e| RunError::invalid("agent", e.to_string()))?;
        Ok((players, false))
    }

    /// Plays `row`'s recorded episode again and keeps every model call it made.
    async fn rebuild(&self, row: &EpisodeRow) -> Result<Rebuilt> {
        let path = self
            .dir
            .join(TRAJECTORIES)
            .join(crate::suite::file_stem(&row.scenario))
            .join(format!("{}.jsonl", row.epoch));
        let steps = read_jsonl::<StepRow>(&path)?.rows;
        let json = self
            .scenarios
            .iter()
            .find(|(_, json)| {
                escapade_core::ScenarioHeader::parse(json).is_ok_and(|h| h.id == row.scenario)
            })
            .map(|(_, json)| json.clone())
            .ok_or_else(|| {
                RunError::invalid(
                    "episode",
                    format!("the run's suite has no scenario `{}`", row.scenario),
                )
            })?;
        let (players, recorded) = self.players()?;
        let state = Arc::new(Mutex::new(CaptureState::default()));
        // a fork's steps before its own were the origin's: a kept conversation asked
        // another model for them (its requests are not checked), a fresh one did not ask
        let first = row.origin.as_ref().map_or(1, |o| o.step.max(1));
        let fresh = row.origin.as_ref().is_some_and(|o| o.fresh);
        let tape = recorded.then(|| {
            Arc::new(match fresh {
                true => Tape::from_rows(steps.get(first as usize - 1..).unwrap_or_default()),
                false => Tape::lenient_before(&steps, first),
            })
        });
        let stand_in = {
            let (state, tape) = (Arc::clone(&state), tape.clone());
            move |model: &str| -> Arc<dyn Backend> {
                Arc::new(Capture {
                    name: model.to_string(),
                    tape: tape.clone(),
                    state: Arc::clone(&state),
                })
            }
        };
        let opener = Opener {
            base: escapade_llm::ClientOptions::default(),
            stand_in: Some(Arc::new(stand_in)),
        };
        let world = self.world;
        let factory = agents_with(world, &self.roles, &players, &opener)
            .await
            .map_err(|e| RunError::invalid("agent", e.to_string()))?;
        let options = &self.config.world_options;
        let agent_error = |error| RunError::Agent {
            context: "cannot make the agent that rebuilds the conversation".into(),
            error,
        };
        let model = factory
            .make(world, &json, row.seed, options)
            .map_err(agent_error)?;
        let mismatch = Arc::new(Mutex::new(None));
        let mut following = Following {
            model,
            rows: steps.clone(),
            sent_before: if fresh { first } else { 0 },
            state: Arc::clone(&state),
            mismatch: Arc::clone(&mismatch),
        };
        let env = world.env(&json, options)?;
        let max_steps = steps.len() as u32;
        let played = play_episode(env, &mut following, row.seed, max_steps, None, &|_| {}).await?;
        let mismatch = mismatch.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(why) = mismatch.or(played.error) {
            return Err(RunError::invalid(
                "episode",
                format!(
                    "`{}` epoch {} does not replay: {why}",
                    row.scenario, row.epoch
                ),
            ));
        }
        if let Some(why) = tape.as_ref().and_then(|t| t.failure()) {
            return Err(RunError::invalid(
                "episode",
                format!("`{}` epoch {}: {why}", row.scenario, row.epoch),
            ));
        }
        let turns = std::mem::take(&mut lock(&state).turns);
        Ok(Rebuilt {
            row: row.clone(),
            steps,
            turns,
            first,
            run: self.dir.clone(),
            options: self.config.world_options.clone(),
        })
    }
}

/// Writes the pictures of the exported lines and names them.
struct PictureSink {
    mode: Pictures,
    /// The output's folder (pictures go in its `images/`).
    folder: PathBuf,
}

impl PictureSink {
    /// `messages` in OpenAI's shape, each picture a data URL or a file written now.
    fn wire(&self, messages: &[Message]) -> Result<Vec<Value>> {
        match self.mode {
            Pictures::DataUrls => Ok(escapade_llm::openai::wire_messages(
                messages,
                &escapade_llm::openai::data_url,
            )),
            Pictures::Files => {
                let images = self.folder.join("images");
                for m in messages {
                    for part in &m.parts {
                        if let Part::Image {
                            media_type, bytes, ..
                        } = part
                        {
                            let path = self.folder.join(picture_path(*media_type, bytes));
                            if !path.is_file() {
                                std::fs::create_dir_all(&images)
                                    .map_err(|e| RunError::io("cannot create", &images, e))?;
                                std::fs::write(&path, bytes.as_slice())
                                    .map_err(|e| RunError::io("cannot write", &path, e))?;
                            }
                        }
                    }
                }
                Ok(escapade_llm::openai::wire_messages(messages, &picture_path))
            }
        }
    }
}

/// A picture's file in an export, relative to its folder: `images/<sha256>.png|jpg`.
fn picture_path(media_type: MediaType, bytes: &[u8]) -> String {
    let ext = match media_type {
        MediaType::Png => "png",
        MediaType::Jpeg => "jpg",
    };
    format!("images/{}.{ext}", escapade_core::hash::sha256_hex(bytes))
}

/// Reads the runs in `dirs` (run directories, or folders of them, as `report` reads
/// them), keeps the episodes `filter` passes and rebuilds each; `provenance` records
/// the runs read, the episodes kept and those that could not be rebuilt.
///
/// Episodes are rebuilt on every core (see [`rebuild_all`]); the result and the
/// provenance are in the runs' order whatever the threads' timing.
pub fn rebuild_runs(
    worlds: &[Box<dyn World>],
    dirs: &[PathBuf],
    filter: &Filter,
    provenance: &mut Provenance,
) -> Result<Vec<Rebuilt>> {
    let set = read_runs(dirs)?;
    let mut jobs: Vec<(&PathBuf, &EpisodeRow)> = Vec::new();
    let mut inputs: BTreeMap<PathBuf, RunInput<'_>> = BTreeMap::new();
    let mut sources: BTreeMap<String, crate::source::Source<'_>> = BTreeMap::new();
    for run in &set.runs {
        for Episode { row, dir } in &run.episodes {
            if !filter.keeps(row) {
                continue;
            }
            let Some(dir) = dir else { continue };
            if !inputs.contains_key(dir) {
                let toml = read_run_toml(dir)?;
                // runs of one suite side by side (DPO's usual input) build it once
                let source = match sources.get(&toml.config.source) {
                    Some(source) => source,
                    None => {
                        let source = crate::resolve(worlds, &toml.config.source).map_err(|e| {
                            RunError::invalid(
                                "run",
                                format!(
                                    "cannot load the scenarios of {} from `{}`: {e}",
                                    dir.display(),
                                    toml.config.source
                                ),
                            )
                        })?;
                        sources.entry(toml.config.source.clone()).or_insert(source)
                    }
                };
                provenance.runs.push(json!({
                    "dir": dir.display().to_string(),
                    "suite": source.label,
                    "agent": toml.config.agent,
                    "model": toml.config.agent_options.get("model"),
                    "config_hash": toml.config.hash(),
                }));
                inputs.insert(
                    dir.clone(),
                    RunInput {
                        dir: dir.clone(),
                        config: toml.config,
                        world: source.world,
                        scenarios: source.scenarios.clone(),
                        settings: source.settings.clone(),
                        roles: roles_of(source.world, &source.scenarios).map_err(RunError::Core)?,
                    },
                );
            }
            jobs.push((dir, row));
        }
    }
    let jobs: Vec<(&RunInput<'_>, &EpisodeRow)> = jobs
        .into_iter()
        .map(|(dir, row)| (&inputs[dir], row))
        .collect();
    let mut out = Vec::new();
    for ((input, row), rebuilt) in jobs.iter().zip(rebuild_all(&jobs)) {
        match rebuilt {
            Ok(rebuilt) => out.push(rebuilt),
            Err(e) => provenance
                .skipped
                .push(format!("{}: {e}", input.dir.join(&row.scenario).display())),
        }
    }
    provenance.episodes = out.len();
    Ok(out)
}

/// Rebuilds every episode of `jobs`, returned in their order. Most of a rebuild is
/// the model agent's own work (a picture it sends encoded as JPEG, 70 % of an export of
/// a VisEscape run), so episodes are shared among a thread per core, each with its own
/// single-threaded runtime, taking the next episode as it finishes one.
fn rebuild_all(jobs: &[(&RunInput<'_>, &EpisodeRow)]) -> Vec<Result<Rebuilt>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Result<Rebuilt>>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(jobs.len()).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(input, row)) = jobs.get(i) else {
                        break;
                    };
                    let rebuilt = match &runtime {
                        Ok(runtime) => runtime.block_on(input.rebuild(row)),
                        Err(e) => Err(RunError::invalid(
                            "export",
                            format!("cannot start an async runtime: {e}"),
                        )),
                    };
                    lock(&done)[i] = Some(rebuilt);
                }
            });
        }
    });
    let done = done.into_inner().unwrap_or_else(|p| p.into_inner());
    // every index below the length was taken by a thread that ran it to the end
    done.into_iter()
        .map(|r| r.expect("every episode was rebuilt"))
        .collect()
}

/// One SFT line per conversation ([`Rebuilt::conversations`]): its messages and reply in
/// OpenAI's messages format, the functions offered and where it came from.
fn sft_lines(episodes: &[Rebuilt], sink: &PictureSink) -> Result<Vec<Value>> {
    let mut lines = Vec::new();
    for e in episodes {
        for (role, request, reply) in e.conversations() {
            let mut messages = request.messages.clone();
            messages.push(assistant(&reply));
            let mut line = json!({
                "messages": sink.wire(&messages)?,
            });
            if !request.tools.is_empty() {
                line["tools"] = Value::Array(escapade_llm::openai::wire_tools(&request.tools));
            }
            line.as_object_mut()
                .expect("a line is an object")
                .extend(e.fields(&role));
            lines.push(line);
        }
    }
    Ok(lines)
}

/// Two episodes at the same state that parted there: the action of one lowered the
/// oracle's distance (`steps_to_go`) and the other's did not.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    /// The step both were at (from 1).
    pub step: u32,
    /// Who acted (`agent`, or COMMA's `solver`/`expert`).
    pub role: String,
    /// The oracle's distance at that state, before either action.
    pub before: u32,
    /// The episode whose action lowered it, and its distance after.
    pub chosen: (&'a Rebuilt, u32),
    /// The episode whose action did not, and its distance after.
    pub rejected: (&'a Rebuilt, u32),
    /// The prompt: the rejected episode's request at the step (the conversation of the
    /// agent that chose worse, the one to teach).
    pub prompt: &'a ChatRequest,
    /// The chosen reply: the chosen episode's own when its agent was sent the same
    /// request, else its action written as a reply to the prompt.
    pub chosen_reply: ChatResponse,
    /// The rejected episode's reply.
    pub rejected_reply: ChatResponse,
}

impl Pair<'_> {
    /// Where the pair came from, as an export's columns beside its messages (the runs'
    /// directories aside): the rejected episode's world, suite, scenario, epoch and tier,
    /// the step and role, the distance before and after each action, and both agents.
    pub fn fields(&self) -> serde_json::Map<String, Value> {
        let (c, r) = (self.chosen.0, self.rejected.0);
        let mut fields = origin_fields(&r.row);
        for (key, value) in [
            ("step", json!(self.step)),
            ("role", json!(self.role)),
            ("steps_to_go", json!(self.before)),
            ("chosen_agent", json!(c.row.agent)),
            ("chosen_steps_to_go", json!(self.chosen.1)),
            ("rejected_agent", json!(r.row.agent)),
            ("rejected_steps_to_go", json!(self.rejected.1)),
        ] {
            fields.insert(key.into(), value);
        }
        fields
    }
}

/// An episode's world, suite, scenario, epoch and tier.
fn origin_fields(row: &EpisodeRow) -> serde_json::Map<String, Value> {
    [
        ("world", json!(row.world)),
        ("suite", json!(row.suite)),
        ("scenario", json!(row.scenario)),
        ("epoch", json!(row.epoch)),
        ("tier", json!(row.difficulty)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The preference pairs among `episodes`, and why the partings that gave none did not.
///
/// Two episodes are at the same state as long as they played the same scenario (same
/// bytes) from the same seed under the same world options and every earlier action
/// and observation was the same (worlds are deterministic): a fork and its origin up to
/// the fork step, two runs of one suite side by side. At the first step their actions
/// differ, each action's effect is read from the row's `steps_to_go`: a pair is made when
/// one lowered the distance and the other did not (issue 29: "chosen: an action that
/// lowered steps_to_go, rejected: one that did not"). After they part, the states differ,
/// so each two episodes give at most one pair.
pub fn pairs(episodes: &[Rebuilt]) -> (Vec<Pair<'_>>, Vec<String>) {
    type Key<'k> = (&'k str, &'k str, &'k str, u64, &'k BTreeMap<String, String>);
    let mut groups: BTreeMap<Key<'_>, Vec<&Rebuilt>> = BTreeMap::new();
    for e in episodes {
        let key = (
            e.row.world.as_str(),
            e.row.scenario.as_str(),
            e.row.scenario_hash.as_str(),
            e.row.seed,
            &e.options,
        );
        groups.entry(key).or_default().push(e);
    }
    let (mut out, mut notes) = (Vec::new(), Vec::new());
    for group in groups.values() {
        for (i, a) in group.iter().enumerate() {
            for b in &group[i + 1..] {
                match pair_of(a, b) {
                    Ok(Some(pair)) => out.push(pair),
                    Ok(None) => {}
                    Err(why) => notes.push(format!(
                        "{} epoch {} ({} and {}): {why}",
                        a.row.scenario,
                        a.row.epoch,
                        a.run.display(),
                        b.run.display()
                    )),
                }
            }
        }
    }
    (out, notes)
}

/// The pair two episodes of one scenario and seed make where they part, if any; an error
/// says why a parting gave no pair that a reader would expect one from.
fn pair_of<'a>(a: &'a Rebuilt, b: &'a Rebuilt) -> Result<Option<Pair<'a>>, String> {
    let Some(i) = (0..a.steps.len().min(b.steps.len())).find(|&i| {
        let (x, y) = (&a.steps[i], &b.steps[i]);
        x.observation != y.observation || x.role != y.role || x.action != y.action
    }) else {
        return Ok(None);
    };
    let (x, y) = (&a.steps[i], &b.steps[i]);
    if x.observation != y.observation || x.role != y.role {
        // the same actions led to different states: not comparable from here
        return Ok(None);
    }
    let before = match i {
        0 => a.row.start_steps_to_go,
        _ => a.steps[i - 1].steps_to_go,
    };
    let (Some(before), Some(da), Some(db)) = (before, x.steps_to_go, y.steps_to_go) else {
        return Err(format!("step {}: the world gave no steps_to_go", x.step));
    };
    let ((chosen, dc), (rejected, dr)) = match (da < before, db < before) {
        (true, false) => ((a, da), (b, db)),
        (false, true) => ((b, db), (a, da)),
        // both lowered it, or neither: no preference by the oracle's distance
        _ => return Ok(None),
    };
    let step = x.step;
    fn their(e: &Rebuilt, step: u32) -> Result<&Turn, String> {
        e.turn_of(step)
            .filter(|_| step >= e.first)
            .ok_or_else(|| format!("step {step}: no model call of `{}` chose it", e.row.agent))
    }
    let rejected_turn = their(rejected, step)?;
    let prompt = &rejected_turn.request;
    let chosen_reply = match their(chosen, step) {
        Ok(t) if t.request == *prompt => t.reply.clone(),
        _ => {
            let action = &chosen.steps[i].action;
            let (text, tool_calls) = reply_of(action);
            if prompt.tools.is_empty() && !tool_calls.is_empty() {
                return Err(format!(
                    "step {step}: the chosen action is a function call, and the prompt's agent \
                     writes its actions as text"
                ));
            }
            ChatResponse {
                text,
                tool_calls,
                finish_reason: Some("stop".into()),
                ..ChatResponse::default()
            }
        }
    };
    Ok(Some(Pair {
        step,
        role: x.role.clone(),
        before,
        chosen: (chosen, dc),
        rejected: (rejected, dr),
        prompt,
        chosen_reply,
        rejected_reply: rejected_turn.reply.clone(),
    }))
}

/// One DPO line per pair, in the conversational preference format (TRL's `DPOTrainer`):
/// `prompt` the messages before the reply, `chosen` and `rejected` each one assistant
/// message, the functions offered in `tools`, and where the pair came from.
fn dpo_lines(pairs: &[Pair<'_>], sink: &PictureSink) -> Result<Vec<Value>> {
    let mut lines = Vec::new();
    for p in pairs {
        let (c, r) = (p.chosen.0, p.rejected.0);
        let mut line = json!({
            "prompt": sink.wire(&p.prompt.messages)?,
            "chosen": sink.wire(&[assistant(&p.chosen_reply)])?,
            "rejected": sink.wire(&[assistant(&p.rejected_reply)])?,
        });
        if !p.prompt.tools.is_empty() {
            line["tools"] = Value::Array(escapade_llm::openai::wire_tools(&p.prompt.tools));
        }
        let fields = line.as_object_mut().expect("a line is an object");
        fields.extend(p.fields());
        fields.insert("chosen_run".into(), json!(c.run.display().to_string()));
        fields.insert("rejected_run".into(), json!(r.run.display().to_string()));
        lines.push(line);
    }
    Ok(lines)
}

/// Writes `lines` as JSONL to `out`.
fn write_jsonl(out: &Path, lines: &[Value]) -> Result<()> {
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).expect("a JSON value serializes"));
        text.push('\n');
    }
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| RunError::io("cannot create", parent, e))?;
    }
    std::fs::write(out, text).map_err(|e| RunError::io("cannot write", out, e))
}

/// The manifest beside an export: `<out>.manifest.json`.
pub fn manifest_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".manifest.json");
    out.with_file_name(name)
}

/// Writes `provenance` as pretty JSON to `path`.
pub fn write_manifest(path: &Path, provenance: &Provenance) -> Result<()> {
    let text = serde_json::to_string_pretty(provenance).expect("the provenance serializes");
    std::fs::write(path, text + "\n").map_err(|e| RunError::io("cannot write", path, e))
}

fn folder_of(out: &Path) -> PathBuf {
    out.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// What `escapade export` writes as JSONL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Chat conversations for supervised fine-tuning ([`Rebuilt::conversations`]).
    Sft,
    /// Preference pairs at the same state ([`pairs`]).
    Dpo,
}

/// `escapade export --format sft|dpo`: the episodes of `dirs` that `filter` keeps, as
/// chat JSONL (SFT) or preference pairs (DPO) in `out` (pictures as `pictures` says), and
/// `<out>.manifest.json`. Writes nothing when no episode was kept.
pub fn export_jsonl(
    worlds: &[Box<dyn World>],
    dirs: &[PathBuf],
    filter: &Filter,
    format: Format,
    pictures: Pictures,
    out: &Path,
) -> Result<Provenance> {
    let name = match format {
        Format::Sft => "sft",
        Format::Dpo => "dpo",
    };
    let mut provenance = Provenance::new(name, filter);
    let episodes = rebuild_runs(worlds, dirs, filter, &mut provenance)?;
    if episodes.is_empty() {
        // nothing to write: the caller says why, and no empty file is left behind
        return Ok(provenance);
    }
    let sink = PictureSink {
        mode: pictures,
        folder: folder_of(out),
    };
    let lines = match format {
        Format::Sft => sft_lines(&episodes, &sink)?,
        Format::Dpo => {
            let (pairs, unpaired) = pairs(&episodes);
            provenance.unpaired = unpaired;
            dpo_lines(&pairs, &sink)?
        }
    };
    provenance.records = lines.len();
    write_jsonl(out, &lines)?;
    write_manifest(&manifest_path(out), &provenance)?;
    Ok(provenance)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_parse_and_filter() {
        assert_eq!(OutcomeFilter::parse("any").unwrap(), OutcomeFilter::Any);
        let err = OutcomeFilter::parse("won").unwrap_err().to_string();
        assert!(err.contains("success, failure or any"), "{err}");
        assert!(OutcomeFilter::Success.keeps(true) && !OutcomeFilter::Success.keeps(false));
        assert!(OutcomeFilter::Failure.keeps(false) && !OutcomeFilter::Failure.keeps(true));
    }

    #[test]
    fn a_picture_is_named_by_its_bytes() {
        let p = picture_path(MediaType::Jpeg, b"abc");
        assert!(
            p.starts_with("images/ba7816bf") && p.ends_with(".jpg"),
            "{p}"
        );
    }

    #[test]
    fn the_manifest_sits_beside_the_output() {
        let m = manifest_path(Path::new("out/oracle.jsonl"));
        assert_eq!(m, Path::new("out/oracle.jsonl.manifest.json"));
    }
}
