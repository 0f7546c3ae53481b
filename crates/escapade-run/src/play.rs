//! A person plays one scenario in the terminal (`escapade play`).
//!
//! The rules (system prompt) are printed once, then each observation; every input line
//! becomes `Action::text(line)`, or `Action::Bytes` when it is not UTF-8. `:help` prints
//! the rules again, `:quit` gives up, an empty line is ignored, and end of input ends the
//! episode cleanly. With a record directory the episode is written as a run directory
//! whose agent is `human`. Worlds that show pictures (vis, craft, comma) get them written
//! to an images directory the person can open: each picture once under its SHA-256, and
//! `current.png` rewritten at every step with the view in front of them.
//!
//! Worlds whose roles take turns (COMMA's solver and expert): without a role the person
//! plays every role, and each turn is headed by whose turn it is; with
//! [`PlayOptions::role`] the person plays that role and a [`Partner`] — any
//! [`AgentFactory`], a world baseline or a model agent — plays the others, one agent per
//! role as a [`Team`]. The partner is async; the loop stays synchronous (a terminal
//! blocks on input) and drives it with `block_on` on the partner's runtime.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, FORMAT_VERSION, Observation, ScenarioHeader, Step,
    ToolSchema, World, hash,
};

use escapade_agents::{AsyncAgent, EpisodeStart, Team, TurnInput};

use crate::ending::{Ending, GAVE_UP, PLAYER_QUIT};
use crate::error::{Result, RunError};
use crate::rundir::{RunConfig, RunDir, ScenarioRef};
use crate::runner::{AgentFactory, DEFAULT_MAX_STEPS, Played, Recorder};

/// The agent name of a person playing.
pub const HUMAN: &str = "human";

/// What takes the function schemas of the current state before each of a person's turns
/// ([`play_person`]).
pub type Schemas<'a> = &'a mut dyn FnMut(Vec<ToolSchema>);

/// How the observation starts that answers a reply the world cannot read (no step is
/// spent; the person types again).
pub const UNREADABLE: &str = "That reply cannot be read: ";

/// Settings of [`play_terminal`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlayOptions {
    /// Seed given to `reset`.
    pub seed: u64,
    /// Safety cap on steps.
    pub max_steps: u32,
    /// Write a run directory under this directory.
    pub record: Option<PathBuf>,
    /// The suite label recorded (`file:<name>` or the suite name).
    pub suite: String,
    /// The source recorded (suite name or absolute path).
    pub source: String,
    /// Where pictures are written (`<sha256>.png` and `current.png`); created on the
    /// first picture.
    pub images: PathBuf,
    /// In a world whose roles take turns, the one role the person plays (the others are
    /// the [`Partner`]'s); `None`: every role.
    pub role: Option<String>,
    /// The world's environment options (`-W key=value`).
    pub world_options: BTreeMap<String, String>,
    /// Who played, as labels the people typed, keyed by role (`agent` in one-role
    /// worlds): recorded in `run.toml` as the seat's `participant` option, and naming
    /// the run directory. A label for `expert` with no [`PlayOptions::role`] means two
    /// people played the two roles.
    pub participants: BTreeMap<String, String>,
    /// How often a reply the world cannot read is asked again without a step.
    pub reasks: Reasks,
    /// Start where a recorded episode stood before a step instead of at the scenario's
    /// start (a server's `reset` with `from`): the environment is restored by
    /// [`crate::replay::Fork::restore`], with the recording's seed, and a record of the
    /// episode is a fork of it (its trajectory starts with the recording's rows).
    pub from: Option<Arc<crate::replay::Fork>>,
}

/// How often a reply the world cannot read ([`escapade_core::Env::check_action`]) is
/// asked again, without spending a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reasks {
    /// Until it can be read: a person at a terminal or in a browser types again.
    #[default]
    Unlimited,
    /// Up to the world's [`escapade_core::Env::reask_limit`], then the reply is stepped
    /// as it is (and costs its step), as `escapade run` does with a model: the papers'
    /// protocol (AgentEscapeBench App. B.1 counts a malformed reply as a step; VisEscape
    /// re-asks 3 times, MM-Escape 5). What a server's client gets.
    World,
}

/// Who plays the roles the person does not: agents made by `agents`, driven on
/// `runtime` (the runtime their model clients were opened on).
pub struct Partner<'a> {
    /// Makes the agent of each other role.
    pub agents: &'a dyn AgentFactory,
    /// Runs the agents' turns (from the thread that plays, outside the runtime).
    pub runtime: &'a tokio::runtime::Handle,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            seed: 0,
            max_steps: DEFAULT_MAX_STEPS,
            record: None,
            suite: "play".into(),
            source: String::new(),
            images: PathBuf::from("escapade-play"),
            role: None,
            world_options: Default::default(),
            participants: Default::default(),
            reasks: Reasks::Unlimited,
            from: None,
        }
    }
}

/// How a played episode ended.
#[derive(Debug, Clone)]
pub struct PlayResult {
    /// The episode's result.
    pub played: Played,
    /// The player gave up with `:quit`.
    pub quit: bool,
    /// Input ended before the episode did.
    pub end_of_input: bool,
    /// The run directory written, with `record`.
    pub dir: Option<PathBuf>,
}

/// Plays `scenario_json` of `world` with a person at `input`/`output` (every role of a
/// multi-role world: see [`play_terminal_with`] for a partner).
pub fn play_terminal(
    world: &dyn World,
    scenario_json: &str,
    options: &PlayOptions,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<PlayResult> {
    play_terminal_with(world, scenario_json, options, None, input, output)
}

/// Plays `scenario_json` of `world` with a person at `input`/`output` in
/// [`PlayOptions::role`], and `partner` in the other roles. A role the world does not
/// have, a role without a partner, or a partner in a one-role world is refused.
pub fn play_terminal_with(
    world: &dyn World,
    scenario_json: &str,
    options: &PlayOptions,
    partner: Option<Partner<'_>>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<PlayResult> {
    let (played, dir, quit, end_of_input) = {
        let mut human = Human {
            input,
            output: &mut *output,
            prompt: String::new(),
            quit: false,
            eof: false,
            images: options.images.clone(),
            // every role is the person's: each turn names its role (one-role worlds name none)
            show_role: options.role.is_none(),
            shown: Vec::new(),
            last_full: String::new(),
        };
        let (played, dir) = play_person(world, scenario_json, options, partner, &mut human, None)?;
        (played, dir, human.quit, human.eof)
    };
    print_ending(output, &played, quit, end_of_input);
    Ok(PlayResult {
        played,
        quit,
        end_of_input,
        dir,
    })
}

/// Plays `scenario_json` of `world` with `person` — an [`Agent`] that stands for a person
/// (a terminal, a browser) — in [`PlayOptions::role`] (`None`: every role) and `partner`
/// in the other roles, recorded as a run directory under [`PlayOptions::record`] when
/// set, exactly as [`play_terminal_with`] records — under the person's [`Agent::name`]
/// (`human` at a terminal or in a browser, `remote` for a server's client, see
/// [`crate::remote`]). Returns the episode and the run
/// directory written. A reply the world cannot read reaches `person` again as an
/// observation that says why, without a step. With `schemas`, the world's function
/// schemas for the current state are handed to it before each of the person's turns (a
/// page offers a form per function; the tools world adds one per node investigated).
pub fn play_person(
    world: &dyn World,
    scenario_json: &str,
    options: &PlayOptions,
    partner: Option<Partner<'_>>,
    person: &mut dyn Agent,
    schemas: Option<Schemas<'_>>,
) -> Result<(Played, Option<PathBuf>)> {
    let header = ScenarioHeader::parse(scenario_json)?;
    if let Some(fork) = &options.from {
        fork.fits(world.name(), &header.id, &options.world_options)?;
    }
    let mut env = world.env(scenario_json, &options.world_options)?;
    let roles = env.roles();
    let seat = seat(&roles, options.role.as_deref(), partner.is_some(), world)?;
    // the partner's team: one agent per role the person does not play
    let team = match (&partner, &seat) {
        (Some(p), Some(mine)) => {
            let mut members = Vec::new();
            for role in roles.iter().filter(|r| *r != mine) {
                // made with the same world options as the environment
                let agent = p
                    .agents
                    .make(world, scenario_json, options.seed, &options.world_options)
                    .map_err(|error| RunError::Agent {
                        context: format!("cannot make the {role}"),
                        error,
                    })?;
                members.push((role.clone(), agent));
            }
            let team = Team::new(members).map_err(|error| RunError::Agent {
                context: "cannot make the partner team".into(),
                error,
            })?;
            Some((team, p.runtime, p.agents.name()))
        }
        _ => None,
    };
    // the person's name: `human` (a terminal, a browser), `remote` (a server's client)
    let me = person.name();
    // the agent of the episode row: the person, or each role's player as a team names them
    let agent_name = match (&team, &seat) {
        (Some((_, _, other)), Some(mine)) => roles
            .iter()
            .map(|r| match r == mine {
                true => format!("{r}={me}"),
                false => format!("{r}={other}"),
            })
            .collect::<Vec<_>>()
            .join(","),
        _ => me.clone(),
    };
    let recording = match &options.record {
        Some(parent) => {
            let partner_name = team.as_ref().map(|(_, _, n)| n.as_str());
            Some(record_dir(
                world,
                &header,
                scenario_json,
                options,
                (seat.as_deref(), partner_name),
                &me,
                parent,
            )?)
        }
        None => None,
    };
    // a directory whose episode cannot start holds no row: it is removed
    let trajectory = match recording.as_ref().map(|d| d.trajectory(&header.id, 0)) {
        Some(Err(e)) => {
            if let Some(dir) = recording {
                dir.discard();
            }
            return Err(e);
        }
        Some(Ok(t)) => Some(t),
        None => None,
    };
    let mut recorder = recording
        .as_ref()
        .zip(trajectory)
        .map(|(dir, trajectory)| Recorder { dir, trajectory });
    let start = std::time::Instant::now();
    let table = Seats {
        mine: seat.clone(),
        roles: roles.clone(),
        partner: team.map(|(t, rt, _)| (t, rt)),
    };
    if let (Some(fork), Some(r)) = (&options.from, recorder.as_mut()) {
        // a recorded fork's trajectory starts with the recording's rows
        fork.copy_media(r.dir)?;
        for row in fork.before() {
            r.trajectory.write(row)?;
        }
    }
    let played = play_sync(
        env.as_mut(),
        (person, schemas),
        table,
        (options.seed, options.max_steps, options.reasks),
        options.from.as_deref(),
        recorder.as_mut(),
    )?;
    if let Some(dir) = &recording {
        let row = escapade_core::EpisodeRow {
            format_version: FORMAT_VERSION,
            suite: options.suite.clone(),
            scenario: header.id.clone(),
            scenario_hash: hash::sha256_hex(scenario_json.as_bytes()),
            world: world.name().to_string(),
            difficulty: header.difficulty,
            epoch: 0,
            seed: options.from.as_ref().map_or(options.seed, |f| f.seed),
            agent: agent_name.clone(),
            config_hash: dir.config_hash().to_string(),
            success: played.outcome.success && played.error.is_none(),
            steps: played.outcome.steps,
            metrics: crate::runner::finite(played.outcome.metrics.clone()),
            usage: played.usage,
            duration_ms: start.elapsed().as_millis() as u64,
            error: played.error.clone(),
            retryable: false,
            rejected: Vec::new(),
            start_steps_to_go: played.start_steps_to_go,
            step_cap: false,
            origin: options.from.as_ref().map(|f| f.origin.clone()),
        };
        if let Some(r) = recorder.as_mut() {
            r.trajectory.finish()?;
        }
        dir.append_episode(&row)?;
        dir.write_summary(world)?;
    }
    Ok((played, recording.map(|d| d.path().to_path_buf())))
}

/// The role the person plays (`None`: every role), checked against the world's roles.
fn seat(
    roles: &[String],
    role: Option<&str>,
    partner: bool,
    world: &dyn World,
) -> Result<Option<String>> {
    match role {
        None if partner => Err(RunError::invalid(
            "role",
            "an agent for the other role needs the role you play (--role)",
        )),
        None => Ok(None),
        Some(r) if roles.is_empty() => Err(RunError::invalid(
            "role",
            format!(
                "world `{}` has one role; --role `{r}` applies only to worlds whose roles take \
             turns (comma)",
                world.name()
            ),
        )),
        Some(r) if !roles.iter().any(|x| x == r) => Err(RunError::unknown(
            "role",
            r,
            roles.iter().map(String::as_str),
        )),
        Some(_) if !partner => Err(RunError::invalid(
            "role",
            "playing one role needs an agent for the others",
        )),
        Some(r) => Ok(Some(r.to_string())),
    }
}

/// `agent` and `expert` of a recorded play: the person (`me`: `human`, `remote`) alone
/// is `me`; with a partner the solver's seat is `agent` and the expert's `expert` (as
/// `escapade run --expert`). With [`PlayOptions::participants`] naming the expert, two
/// people played both roles: the expert's seat is `me` too.
fn seats_config(
    seat: Option<&str>,
    partner: Option<&str>,
    me: &str,
    participants: &BTreeMap<String, String>,
) -> (String, Option<String>) {
    match (seat, partner) {
        (Some("expert"), Some(other)) => (other.to_string(), Some(me.into())),
        (Some(_), Some(other)) => (me.to_string(), Some(other.to_string())),
        (None, _) if participants.contains_key(EXPERT) => (me.to_string(), Some(me.into())),
        _ => (me.to_string(), None),
    }
}

/// The expert's role name (COMMA), the seat `run.toml` records as `expert`.
const EXPERT: &str = "expert";

/// The participant key of run.toml's agent and expert options.
pub const PARTICIPANT: &str = "participant";

/// `(agent_options, expert_options)` of a recorded play: each human seat's participant
/// label as `participant` (the agent seat's label is keyed by its role, or `agent` in
/// one-role worlds; the expert's by `expert`).
fn participant_options(
    agent_is_human: bool,
    expert_is_human: bool,
    participants: &BTreeMap<String, String>,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let label = |k: Option<&String>| {
        k.filter(|l| !l.trim().is_empty())
            .map(|l| BTreeMap::from([(PARTICIPANT.to_string(), l.trim().to_string())]))
            .unwrap_or_default()
    };
    let agent = participants
        .iter()
        .find(|(k, _)| k.as_str() != EXPERT)
        .map(|(_, v)| v);
    (
        if agent_is_human {
            label(agent)
        } else {
            BTreeMap::new()
        },
        if expert_is_human {
            label(participants.get(EXPERT))
        } else {
            BTreeMap::new()
        },
    )
}

fn record_dir(
    world: &dyn World,
    header: &ScenarioHeader,
    json: &str,
    options: &PlayOptions,
    (seat, partner): (Option<&str>, Option<&str>),
    me: &str,
    parent: &Path,
) -> Result<RunDir> {
    let (agent, expert) = seats_config(seat, partner, me, &options.participants);
    let (agent_options, expert_options) = participant_options(
        agent == me,
        expert.as_deref() == Some(me),
        &options.participants,
    );
    // the directory is named after the person when there is one label
    let name = match agent_options.get(PARTICIPANT) {
        Some(p) => format!("{agent}-{p}"),
        None => agent.clone(),
    };
    let config = RunConfig {
        suite: options.suite.clone(),
        world: world.name().to_string(),
        source: options.source.clone(),
        agent,
        agent_options,
        expert,
        expert_options,
        world_options: options.world_options.clone(),
        epochs: 1,
        suite_settings: Default::default(),
        files: Default::default(),
        limit: None,
        sample: None,
        seed: options.from.as_ref().map_or(options.seed, |f| f.seed),
        max_steps: options.max_steps,
        scenarios: vec![ScenarioRef {
            id: header.id.clone(),
            hash: hash::sha256_hex(json.as_bytes()),
        }],
        shard: None,
        fork: options.from.as_ref().map(|f| f.origin.clone()),
    };
    // a person's or a client's recording: no other local user reads its answers
    RunDir::create_private(parent, &config, &name)
}

fn print_ending(out: &mut dyn Write, played: &Played, quit: bool, eof: bool) {
    let mut text = String::new();
    if let Some(step) = &played.last
        && (step.terminated || step.truncated)
    {
        text.push_str(&format!("\n{}\n", step.observation.text));
    }
    let o = &played.outcome;
    let how = match played.ending() {
        Ending::Escaped => Ending::Escaped.label().to_string(),
        _ if quit => Ending::GaveUp.label().to_string(),
        _ if eof => "input ended".to_string(),
        Ending::Error => format!("stopped: {}", played.error.as_deref().unwrap_or_default()),
        other => other.label().to_string(),
    };
    let steps = match o.steps {
        1 => "1 step".to_string(),
        n => format!("{n} steps"),
    };
    text.push_str(&format!("\n== episode over: {how} after {steps}\n"));
    for (name, value) in &o.metrics {
        text.push_str(&format!("   {name}: {value}\n"));
    }
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Who sits where: the person's role (`None`: every role), the world's roles, and the
/// partner's team with its runtime.
struct Seats<'a> {
    mine: Option<String>,
    roles: Vec<String>,
    partner: Option<(Team, &'a tokio::runtime::Handle)>,
}

/// The episode loop for a person: synchronous, because a terminal blocks on input and a
/// locked standard output cannot cross threads. A reply the world cannot read is told
/// back at once and typed again, without a step (as the runner re-asks a model; a world
/// may end the game on a reply that stays unreadable). Rows are written as the runner
/// writes them.
/// A partner's turns are driven with `block_on`.
fn play_sync(
    env: &mut dyn Env,
    (agent, mut schemas): (&mut dyn Agent, Option<Schemas<'_>>),
    mut seats: Seats<'_>,
    (seed, max_steps, reasks): (u64, u32, Reasks),
    from: Option<&crate::replay::Fork>,
    mut recorder: Option<&mut Recorder<'_>>,
) -> Result<Played> {
    let start = std::time::Instant::now();
    let (mut observation, seed, replayed) = match from {
        Some(fork) => (fork.restore(env)?.0, fork.seed, fork.origin.step - 1),
        None => (env.reset(seed), seed, 0),
    };
    let tools = env.tool_schemas();
    let prompt = match (&seats.mine, seats.roles.len()) {
        (Some(role), _) => env.role_prompt(role),
        (None, 0) => env.system_prompt(),
        (None, _) => seats
            .roles
            .iter()
            .map(|r| format!("== rules for the {r} ==\n{}", env.role_prompt(r).trim_end()))
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    let start_steps_to_go = env.steps_to_go();
    agent.reset(EpisodeStart {
        steps_to_go: start_steps_to_go,
        ..EpisodeStart::new(seed, &prompt, &tools)
    });
    let mut played = Played {
        start_steps_to_go,
        ..Played::default()
    };
    if let Some((team, runtime)) = &mut seats.partner {
        let roles: Vec<(String, String)> = seats
            .roles
            .iter()
            .filter(|r| Some(*r) != seats.mine.as_ref())
            .map(|r| (r.clone(), env.role_prompt(r)))
            .collect();
        let system_prompt = env.system_prompt();
        let reset = runtime.block_on(team.reset(EpisodeStart {
            seed,
            system_prompt: &system_prompt,
            tools: &tools,
            roles: &roles,
            steps_to_go: start_steps_to_go,
        }));
        if let Err(e) = reset {
            played.error = Some(format!("agent failed: {e}"));
            played.outcome = env.outcome();
            return Ok(played);
        }
    }
    // a restored episode goes on from the recording's step K
    let mut n = replayed;
    while n < max_steps {
        let theirs = match (&seats.mine, observation.role.as_deref()) {
            (Some(mine), Some(role)) => role != mine,
            _ => false,
        };
        let turn = if theirs {
            let (team, runtime) = seats.partner.as_mut().expect("a seat implies a partner");
            let tools = env.tool_schemas();
            runtime
                .block_on(team.act(TurnInput {
                    step: n + 1,
                    observation: &observation,
                    last: played.last.as_ref(),
                    tools: &tools,
                }))
                .map_err(|e| e.to_string())
        } else {
            if let Some(hand) = schemas.as_deref_mut() {
                hand(env.tool_schemas());
            }
            agent
                .act(&observation, played.last.as_ref())
                .map_err(|e| match e {
                    CoreError::Agent(message) => message,
                    other => other.to_string(),
                })
        };
        let mut turn = match turn {
            Ok(turn) => turn,
            // the person quitting is an ending, not a failure
            Err(message) if !theirs && message == PLAYER_QUIT => {
                played.error = Some(GAVE_UP.into());
                break;
            }
            Err(message) => {
                played.error = Some(format!("agent failed: {message}"));
                break;
            }
        };
        let mut gave_up = None;
        let mut asked = 0;
        while !theirs && let Err(message) = env.check_action(&turn.action) {
            if reasks == Reasks::World && asked >= env.reask_limit() {
                // the world reads it as it is: a step, with the world's feedback
                break;
            }
            asked += 1;
            let again = Observation {
                text: format!("{UNREADABLE}{message}"),
                ..Observation::default()
            };
            match agent.act(&again, played.last.as_ref()) {
                Ok(t) => turn = t,
                Err(e) => {
                    gave_up = Some(match e {
                        CoreError::Agent(message) => message,
                        other => other.to_string(),
                    });
                    break;
                }
            }
        }
        if let Some(message) = gave_up {
            played.error = Some(match message == PLAYER_QUIT {
                true => GAVE_UP.into(),
                false => format!("agent failed: {message}"),
            });
            break;
        }
        if theirs {
            // the person reads the partner's words in their own next observation
            played.usage.add(&turn.usage);
        }
        let step = match env.step(&turn.action) {
            Ok(step) => step,
            Err(e) => {
                played.error = Some(format!("environment failed: {e}"));
                break;
            }
        };
        n += 1;
        if let Some(rec) = recorder.as_deref_mut() {
            let t_ms = start.elapsed().as_millis() as u64;
            let usage = turn.usage;
            // the episode ends, and its row is still written (with why)
            if let Err(e) = rec.write(n, t_ms, &observation, turn, &step, usage, Vec::new()) {
                played.error = Some(format!("the step could not be recorded: {e}"));
                played.last = Some(step);
                break;
            }
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

/// A person at a terminal, as an [`Agent`].
struct Human<'a> {
    input: &'a mut dyn BufRead,
    output: &'a mut dyn Write,
    prompt: String,
    quit: bool,
    eof: bool,
    images: PathBuf,
    /// The person plays every role of a multi-role world: each turn says whose it is.
    show_role: bool,
    /// The paragraphs of the last observation shown, so that long ones repeated word for
    /// word every turn (a reply format) are not printed again.
    shown: Vec<String>,
    /// The last observation in full, for `:again`.
    last_full: String,
}

/// Paragraphs of at least this many lines that repeat the previous turn's are elided.
const ELIDE_LINES: usize = 4;

/// `text` with every paragraph that `before` also held, and that runs to
/// [`ELIDE_LINES`] lines or more, replaced by a one-line note.
fn elide_repeats(text: &str, before: &[String]) -> String {
    let paragraphs = text.split("\n\n");
    let mut out = Vec::new();
    for p in paragraphs {
        if p.lines().count() >= ELIDE_LINES && before.iter().any(|b| b == p) {
            out.push(format!(
                "({} lines as in the previous turn; :again shows them)",
                p.lines().count()
            ));
        } else {
            out.push(p.to_string());
        }
    }
    out.join("\n\n")
}

impl Human<'_> {
    /// Writes a picture where the person can open it; returns the line that points to it.
    fn show(&self, image: &escapade_core::Image, current: bool) -> String {
        let write = || -> std::io::Result<PathBuf> {
            std::fs::create_dir_all(&self.images)?;
            let path = self.images.join(format!("{}.png", image.sha256));
            if !path.exists() {
                std::fs::write(&path, &image.png)?;
            }
            if current {
                let tmp = self.images.join(".current.png.tmp");
                std::fs::write(&tmp, &image.png)?;
                std::fs::rename(&tmp, self.images.join("current.png"))?;
            }
            Ok(path)
        };
        match write() {
            Ok(path) if current => format!(
                "[picture: {} (also {})]\n",
                self.images.join("current.png").display(),
                path.display()
            ),
            Ok(path) => format!("[picture: {}]\n", path.display()),
            Err(e) => format!("[picture not written: {e}]\n"),
        }
    }

    fn say(&mut self, text: &str) {
        let _ = self.output.write_all(text.as_bytes());
        let _ = self.output.flush();
    }

    fn print_rules(&mut self) {
        let text = format!(
            "{}\n\n(type an action and press Enter; :help shows these rules again, :again the \
             last observation in full, :quit gives up)\n",
            self.prompt.trim_end()
        );
        self.say(&text);
    }
}

impl Agent for Human<'_> {
    fn name(&self) -> String {
        HUMAN.to_string()
    }

    fn reset(&mut self, start: EpisodeStart<'_>) {
        self.prompt = start.system_prompt.to_string();
        self.print_rules();
    }

    fn act(
        &mut self,
        observation: &Observation,
        _last: Option<&Step>,
    ) -> std::result::Result<AgentTurn, CoreError> {
        let mut text = match (&observation.role, self.show_role) {
            (Some(role), true) => format!("\n== the {role}'s turn ==\n"),
            _ => String::new(),
        };
        let full = observation.text.trim_end();
        text.push_str(&format!("\n{}\n", elide_repeats(full, &self.shown)));
        self.shown = full.split("\n\n").map(String::from).collect();
        self.last_full = full.to_string();
        for (i, image) in observation.images.iter().enumerate() {
            text.push_str(&self.show(image, i == 0));
            // what a text-only agent reads in place of the picture
            if let Some(alt) = image.alt.as_deref().filter(|a| !a.trim().is_empty()) {
                for line in alt.trim().lines() {
                    text.push_str(&format!("  | {line}\n"));
                }
            }
        }
        // the list, unless the observation's text already lists every action
        if let Some(actions) = &observation.actions {
            let listed = actions.iter().all(|a| observation.text.contains(a.trim()));
            if !listed {
                text.push_str("available actions:\n");
                for a in actions {
                    text.push_str(&format!("  {a}\n"));
                }
            }
        }
        self.say(&text);
        loop {
            self.say("> ");
            let mut line = Vec::new();
            let n = self
                .input
                .read_until(b'\n', &mut line)
                .map_err(|e| CoreError::Agent(format!("cannot read input: {e}")))?;
            if n == 0 {
                self.eof = true;
                self.say("\n");
                return Err(CoreError::Agent("end of input".into()));
            }
            while matches!(line.last(), Some(b'\n' | b'\r')) {
                line.pop();
            }
            match line.as_slice() {
                b":quit" => {
                    self.quit = true;
                    return Err(CoreError::Agent(PLAYER_QUIT.into()));
                }
                b":help" => self.print_rules(),
                b":again" => {
                    let full = format!("\n{}\n", self.last_full);
                    self.say(&full);
                }
                l if l.iter().all(u8::is_ascii_whitespace) => {}
                _ => {
                    let action = match String::from_utf8(line) {
                        Ok(s) => Action::text(s),
                        Err(e) => Action::Bytes {
                            bytes: e.into_bytes(),
                        },
                    };
                    return Ok(AgentTurn::action(action));
                }
            }
        }
    }
}
