//! The environment contract, in Gymnasium's terms.
//!
//! `reset(seed)` starts an episode and returns the first observation; `step(action)`
//! applies one agent action and returns a [`Step`]. `terminated` means the task itself
//! ended (escaped, gave up, out of mistakes); `truncated` means a limit outside the task
//! stopped it (the step budget). Stepping after either is an API misuse and returns
//! [`EnvError::EpisodeOver`]. A bad *agent* action is never an `Err`: it becomes feedback
//! (`error` set, so [`Step::valid`] is false) and costs a step, like any other action.
//!
//! A [`World`] is the registry entry for one family of rules: it makes scenarios, builds
//! suites, and opens environments and baseline agents for a scenario file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::report::ReportSpec;
use crate::{Action, Agent, CoreError, EnvError, Observation, Options, ToolSchema};

/// The result of one [`Env::step`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What the agent sees next (includes `feedback` in its text).
    pub observation: Observation,
    /// The world's answer to this action alone (execution result or error message).
    pub feedback: String,
    /// Task progress in `[0, 1]` (world-defined; tools: share of nodes resolved).
    pub progress: f64,
    /// The task ended: success, explicit give-up, or a rule that ends the task.
    pub terminated: bool,
    /// A limit outside the task ended the episode (step budget).
    pub truncated: bool,
    /// World-specific error kind when the action failed (tools: the B.1 taxonomy name);
    /// for a reply with several actions, the first failed action's kind. `None`: the
    /// action was valid ([`Step::valid`]).
    pub error: Option<String>,
    /// The world's answer to each action of a reply that carried several, in order
    /// (AgentEscapeBench App. C: a turn of ten investigations); empty when the world took
    /// one action. An agent answering native tool calls answers call `k` with
    /// `results[k]`; `observation.text` then begins with the results' feedback joined by
    /// [`RESULTS_SEPARATOR`], and what follows it is the rest of the observation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<ActionResult>,
    /// The oracle's distance after this step: the fewest steps the world's oracle still
    /// needs to escape from the state the step left, in the unit the world documents
    /// (`docs/world-contract.md`: vis moves, tools tool calls and the submission, COMMA
    /// puzzle actions, craft oracle replies). `Some(0)` exactly when the episode was
    /// won; `None` where the world cannot say. What [`Env::steps_to_go`] answers after
    /// the step. For trainers and reports: an agent under evaluation is never shown it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_to_go: Option<u32>,
}

impl Step {
    /// The action parsed and was applied as a legal move (even if it achieved nothing):
    /// the step has no error kind. The trajectory row records it as `valid`.
    pub fn valid(&self) -> bool {
        self.error.is_none()
    }
}

/// What separates the feedback of the actions of one reply at the start of the
/// observation text (see [`Step::results`]).
pub const RESULTS_SEPARATOR: &str = "\n\n";

/// The world's answer to one action of a reply that carried several.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActionResult {
    /// The action as the world read it (one line of text, or `name(arguments)`).
    pub action: String,
    /// The action parsed and was applied as a legal move.
    pub valid: bool,
    /// The world's answer to this action alone.
    pub feedback: String,
    /// World-specific error kind when the action failed.
    pub error: Option<String>,
}

/// Per-episode outcome: whether the agent escaped, and the world's metrics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The episode's success criterion was met.
    pub success: bool,
    /// Number of agent actions taken.
    pub steps: u32,
    /// The world's per-episode metrics; a metric that is undefined for this episode
    /// (e.g. discovery rate with no hidden nodes) is absent rather than NaN.
    pub metrics: BTreeMap<String, f64>,
}

/// One playable instance of a world's rules (Gymnasium `Env`).
pub trait Env {
    /// Starts the episode from the scenario's initial state. `seed` drives any randomness
    /// the world uses during play (e.g. shuffled action lists); same seed and same actions
    /// give byte-identical observations.
    fn reset(&mut self, seed: u64) -> Observation;

    /// Applies one action. `Err` only for API misuse (no `reset`, or stepping after the
    /// episode ended); a malformed or illegal agent action is feedback, not an error.
    fn step(&mut self, action: &Action) -> Result<Step, EnvError>;

    /// The system prompt this world gives an agent (rules, action protocol).
    fn system_prompt(&self) -> String;

    /// The roles that take turns, in a fixed order (PettingZoo AEC style; COMMA: `solver`
    /// and `expert`). One-role worlds have none: an empty list means the single role
    /// `agent`. In a multi-role world every observation names, in
    /// [`crate::Observation::role`], the role whose turn it is and holds only what that
    /// role may see; `step` applies the action as that role's.
    fn roles(&self) -> Vec<String> {
        Vec::new()
    }

    /// The system prompt of one role (multi-role worlds; others ignore `role`).
    fn role_prompt(&self, role: &str) -> String {
        let _ = role;
        self.system_prompt()
    }

    /// Function schemas for the native tool-calling protocol, given the current state.
    fn tool_schemas(&self) -> Vec<ToolSchema>;

    /// Outcome and metrics of the episode so far.
    fn outcome(&self) -> Outcome;

    /// Parses `action` without applying it. `Err` carries a message a model can act on;
    /// an agent loop may then re-ask (up to [`Env::reask_limit`] times) instead of
    /// spending a step. The default accepts everything; worlds whose paper counts
    /// malformed output as a step (tools, AgentEscapeBench App. B.1) may still reject it
    /// here and keep a re-ask limit of 0, so re-asking is opt-in.
    fn check_action(&self, action: &Action) -> Result<(), String> {
        let _ = action;
        Ok(())
    }

    /// How many times an agent loop re-asks after [`Env::check_action`] rejects a reply
    /// before the reply is stepped anyway (MM-Escape: 5, VisEscape: 3; default 0).
    fn reask_limit(&self) -> u32 {
        0
    }

    /// The most steps an episode of this scenario can take before the world truncates
    /// it (VisEscape's step limit, COMMA's turns, a tools room's budget), when the world
    /// has one. The runner's progress line estimates the time left from it; nothing
    /// else depends on it. Default: none.
    fn step_budget(&self) -> Option<u32> {
        None
    }

    /// Strings an agent must never see unless it earns them (answers, hidden names).
    /// [`crate::check::check_env`] plays junk actions and asserts none appear.
    fn secrets(&self) -> Vec<String>;

    /// The oracle's distance from the current state (see [`Step::steps_to_go`]): after
    /// `reset`, the oracle's steps from the start; after a step, what that step reported.
    /// `None` (the default) where the world cannot say. A world that knows it computes
    /// it once per step (or keeps what it computed), so this is cheap to ask.
    fn steps_to_go(&self) -> Option<u32> {
        None
    }

    /// Asks for pictures in `form` from the next observation on. A world whose frames
    /// cost more to encode than to draw (craft) honours [`crate::PictureForm::Pixels`];
    /// the default ignores it and keeps giving PNG. Callers must read either form.
    fn set_picture_form(&mut self, form: crate::PictureForm) {
        let _ = form;
    }

    /// Asks the world to measure [`Env::steps_to_go`] (`true`, the default) or not
    /// (`false`) from the next reset or step on. A world whose distance costs a replan
    /// per step (craft's oracle) honours `false`: its steps then report `None` and pay
    /// nothing for it (a trainer that never reads the distance, e.g. the Python
    /// environment's `steps_to_go=False`); the default ignores the request and keeps
    /// answering, so callers that asked for none must not read it.
    fn set_distance(&mut self, on: bool) {
        let _ = on;
    }
}

/// A named, versioned list of scenarios rebuilt byte for byte from seeds.
///
/// Build one with `..Default::default()` so that new fields do not break worlds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteSpec {
    /// Name with version, e.g. `agentescape@2`.
    pub name: String,
    /// The world the suite belongs to.
    pub world: String,
    /// One line for `escapade list`.
    pub description: String,
    /// `(difficulty, count)` tiers, in order.
    pub tiers: Vec<(u32, u32)>,
    /// The run settings of the suite's paper, applied by the runner unless a flag
    /// overrides them (empty: none declared).
    #[serde(default, skip_serializing_if = "SuiteSettings::is_empty")]
    pub settings: SuiteSettings,
}

/// How a suite's paper ran its agents (AgentEscapeBench App. B: temperature 0.7, one run
/// per instance; VisEscape §4.1: three trials, the last 20 steps). `escapade run` uses
/// them as defaults, records them in `run.toml`, and the report names every departure,
/// so a score is comparable with the paper's table unless the user chose otherwise.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteSettings {
    /// Epochs (trials) per scenario; `None` leaves the runner's default of one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epochs: Option<u32>,
    /// Options for model agents (`temperature`, `history`, …), each applied to an agent
    /// whose kind takes that key and whose user did not set it (`-A` wins).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agent: BTreeMap<String, String>,
    /// Where the paper states these settings (`AgentEscapeBench App. B`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

impl SuiteSettings {
    /// No settings declared.
    pub fn is_empty(&self) -> bool {
        self.epochs.is_none() && self.agent.is_empty()
    }
}

/// A suite name that no longer builds, and the suite that replaced it (a change of
/// bytes bumps a suite's version; the old name answers with this instead of silently
/// building something else).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetiredSuite {
    /// The old name with its version (`agentescape@1`).
    pub name: String,
    /// The suite to use instead (`agentescape@2`).
    pub replaced_by: String,
    /// What changed, in one line.
    pub why: String,
}

impl RetiredSuite {
    /// `name` is retired for `replaced_by` because of `why`.
    pub fn new(
        name: impl Into<String>,
        replaced_by: impl Into<String>,
        why: impl Into<String>,
    ) -> RetiredSuite {
        RetiredSuite {
            name: name.into(),
            replaced_by: replaced_by.into(),
            why: why.into(),
        }
    }
}

/// One statistic of a suite beside the paper's value, for `escapade suite` (e.g.
/// VisEscape Table 1: receptacles per room).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperStat {
    /// What is measured (`receptacles per room`).
    pub name: String,
    /// This suite's value.
    pub ours: f64,
    /// The paper's value, when it reports one.
    pub paper: Option<f64>,
    /// Where the paper reports it (`VisEscape Table 1`).
    pub source: String,
}

/// What [`World::check`] found in an authored scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// The scenario as canonical JSON (what `escapade run` and `play` read).
    pub scenario: String,
    /// Problems an author should fix (empty: the scenario is sound).
    pub problems: Vec<String>,
    /// Facts worth knowing (oracle steps, checkpoints, …).
    pub notes: Vec<String>,
}

/// The oracle's verdict on one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleReport {
    /// The oracle escaped.
    pub solved: bool,
    /// The oracle's action count, as the world's paper counts its minimum.
    pub steps: u32,
}

/// A family of rules: makes scenarios and opens environments and baseline agents.
///
/// Scenarios cross this boundary as JSON text so the runner stays world-agnostic; the
/// binary keeps one registry (`Vec<Box<dyn World>>`) and names no world elsewhere.
///
/// | method | required | what it gives |
/// |---|---|---|
/// | [`name`](World::name), [`description`](World::description) | yes | `tools`; one line for `escapade list` |
/// | [`suites`](World::suites), [`build_suite`](World::build_suite) | yes | the suites it ships, and their scenarios |
/// | [`generate`](World::generate) | yes | one scenario from `(difficulty, seed, options)` |
/// | [`env`](World::env) | yes | an [`Env`] on a scenario, with the run's `-W` options |
/// | [`agent`](World::agent), [`agent_kinds`](World::agent_kinds) | yes | baseline agents (`oracle`, `random`) |
/// | [`env_options`](World::env_options) | no | the `-W` keys it takes (default none) |
/// | [`generation`](World::generation) | no | `escapade gen`'s default difficulty and options |
/// | [`oracle`](World::oracle), [`check`](World::check) | no | solvability; checking an authored scenario |
/// | [`paper_stats`](World::paper_stats), [`catalogue`](World::catalogue) | no | `escapade suite` / `list` extras |
/// | [`retired_suites`](World::retired_suites) | no | old suite names and what replaced them |
/// | [`report`](World::report) | no | tier labels, breakdowns, turn curve, terminal columns ([`ReportSpec`]) |
/// | [`paper`](World::paper) | no | the paper's results tables, set beside runs ([`crate::paper::Paper`]) |
/// | [`judge_tasks`](World::judge_tasks) | no | `escapade judge --task NAME` |
/// | [`bench`](World::bench) | no | `escapade bench <world>` |
///
/// `docs/world-contract.md` walks through adding a fifth world.
pub trait World: Send + Sync {
    /// Short name: `tools`, `vis`, `comma`, `craft`.
    fn name(&self) -> &'static str;
    /// One line for `escapade list`.
    fn description(&self) -> &'static str;
    /// The suites this world ships.
    fn suites(&self) -> Vec<SuiteSpec>;
    /// Builds every scenario of a suite, in suite order, as JSON.
    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError>;
    /// Generates one scenario as JSON with `options` (keys of
    /// [`Generation::options`]; empty: the world's standard scenario). Same inputs ⇒
    /// same bytes.
    fn generate(&self, difficulty: u32, seed: u64, options: &Options) -> Result<String, CoreError>;
    /// Opens an environment on a scenario with `options` (keys of
    /// [`World::env_options`]; empty: the paper's protocol). Options change what agents
    /// see or a rule's variant, never the scenario; a run records them. An unknown key
    /// is [`CoreError::UnknownOption`], a bad value [`CoreError::BadOption`].
    fn env(&self, scenario_json: &str, options: &Options)
    -> Result<Box<dyn Env + Send>, CoreError>;
    /// Makes a baseline agent (`oracle`, `random`) for a scenario, for an environment
    /// opened with the same `options`, so an oracle plays by the run's rules.
    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
        options: &Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError>;
    /// Names of the baseline agents [`World::agent`] accepts.
    fn agent_kinds(&self) -> Vec<&'static str>;

    /// The environment options this world takes (`escapade run -W key=value`): each key
    /// and what it sets. By default none.
    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// The pixels (width × height) of each picture an environment opened with `options`
    /// draws, when the options choose that size; `None` when they do not (the world's
    /// pictures have one size, or none is drawn). Servers bound what a network client may
    /// ask for with it: a craft frame of 8192 × 8192 takes 200 MB to draw. A bad option is
    /// the error [`World::env`] would give.
    fn frame_pixels(&self, options: &Options) -> Result<Option<u64>, CoreError> {
        let _ = options;
        Ok(None)
    }
    /// What `escapade gen` uses when the user gives no `--difficulty`, and the options
    /// [`World::generate`] takes.
    fn generation(&self) -> Generation {
        Generation::default()
    }
    /// Plays the oracle on a scenario (the paper's protocol).
    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        let none = Options::new();
        let mut env = self.env(scenario_json, &none)?;
        let mut agent = self.agent("oracle", scenario_json, 0, &none)?;
        let (outcome, _) = crate::agent::play(env.as_mut(), agent.as_mut(), 0, 100_000)?;
        Ok(OracleReport {
            solved: outcome.success,
            steps: outcome
                .metrics
                .get("oracle_steps")
                .map(|v| *v as u32)
                .unwrap_or(outcome.steps),
        })
    }
    /// Checks a scenario written by hand (JSON, or another format the world accepts such
    /// as TOML): loads it, reports what an author should fix, and returns it as JSON.
    /// The default checks that an environment opens on it and the oracle solves it.
    fn check(&self, text: &str) -> Result<Validation, CoreError> {
        self.env(text, &Options::new())?;
        let solved = self.oracle(text)?;
        Ok(Validation {
            scenario: text.to_string(),
            problems: if solved.solved {
                Vec::new()
            } else {
                vec!["the oracle cannot solve it".into()]
            },
            notes: vec![format!("oracle steps: {}", solved.steps)],
        })
    }
    /// Statistics of a built suite beside the paper's (empty when the world has none).
    fn paper_stats(&self, suite: &str, scenarios: &[String]) -> Result<Vec<PaperStat>, CoreError> {
        let _ = (suite, scenarios);
        Ok(Vec::new())
    }
    /// A multi-line catalogue of the world's building blocks for `escapade list <world>`.
    fn catalogue(&self) -> String {
        String::new()
    }
    /// Suites this world used to ship under names that no longer build.
    fn retired_suites(&self) -> Vec<RetiredSuite> {
        Vec::new()
    }
    /// What every report of this world's runs adds: tier labels, the paper's
    /// breakdowns, its turn curve, the terminal's key metrics. By default tiers are
    /// numbers, nothing is added and the terminal shows every metric.
    fn report(&self) -> ReportSpec {
        ReportSpec::default()
    }
    /// The results tables of this world's paper (models, baselines, settings), which
    /// reports set beside runs and `escapade paper` prints; `None` for a world without a
    /// paper.
    fn paper(&self) -> Option<crate::paper::Paper> {
        None
    }
    /// The judge tasks of this world's paper (`escapade judge --task NAME`): a model
    /// labels what agents wrote (VisEscape's reasoning units, COMMA's error types, …).
    fn judge_tasks(&self) -> Vec<&'static dyn crate::judge::JudgeTask> {
        Vec::new()
    }
    /// Measures this world's own costs for `escapade bench <world>` (frames, pictures,
    /// steps), with what `probe` can tell of the system; `None` for worlds without a
    /// bench.
    fn bench(
        &self,
        probe: &crate::bench::Probe,
    ) -> Option<Result<crate::bench::BenchReport, CoreError>> {
        let _ = probe;
        None
    }
}

/// How `escapade gen` makes a world's scenarios beyond `(difficulty, seed)`
/// ([`World::generation`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generation {
    /// The difficulty used when the user gives none (the world's first suite tier, say).
    pub default_difficulty: u32,
    /// The options [`World::generate`] takes (`escapade gen -W key=value`): each key and
    /// what it sets.
    pub options: Vec<(&'static str, &'static str)>,
}

impl Default for Generation {
    fn default() -> Self {
        Generation {
            default_difficulty: 1,
            options: Vec::new(),
        }
    }
}
