//! An episode played from outside, one action at a time: the core both servers
//! (`escapade serve`, `escapade mcp`) step.
//!
//! [`Episode::start`] plays a scenario on a thread of its own with the same loop as
//! `escapade play` ([`crate::play_person`]): the seat the client holds is an agent named
//! [`REMOTE`] that hands each turn to the [`Episode`] and waits for the client's action.
//! So everything `play` does, a remote episode does too — a reply the world cannot read is
//! answered without spending a step ([`Turn::unreadable`]), a partner agent can hold the
//! other comma role ([`Spec::partner`]), and with [`PlayOptions::record`] the episode is an
//! ordinary run directory (`escapade report` and `escapade view` read it), whose agent is
//! `remote`.
//!
//! The client side is a plain value: [`Episode::seen`] is what the client sees now (a
//! [`Turn`] waiting for an action, or the [`Ending`]); [`Episode::act`] (async) or
//! [`Episode::act_blocking`] hands one action over and returns what the client sees next.
//! `act` takes `&mut self`, so one episode takes one step at a time; a server that shares
//! an episode puts it behind a lock and refuses a second step while the first runs.
//!
//! `act` is cancel-safe: a client that goes away mid-step (the future is dropped) leaves
//! the step to finish on the episode's thread; the next call collects its answer first.
//! Dropping an [`Episode`] gives up: the thread ends the episode with the error
//! [`GONE`] and still records it. [`Episode::give_up`] does the same and waits for the
//! record to be written (a graceful shutdown).
//!
//! ```
//! use escapade_run::remote::{Episode, Seen, Spec};
//! use escapade_core::{Action, World};
//! let world: std::sync::Arc<dyn World> = std::sync::Arc::new(escapade_run::counting::CountingWorld);
//! let json = world.generate(1, 0, &Default::default())?; // seven steps of `count`
//! let mut episode = Episode::start_blocking(Spec::new(world, json))?;
//! while let Seen::Turn(_) = episode.seen() {
//!     episode.act_blocking(Action::text("count"))?;
//! }
//! let Seen::Over(ending) = episode.seen() else { unreachable!() };
//! assert_eq!((ending.steps, ending.truncated), (7, true));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use escapade_core::{Action, Agent, AgentTurn, CoreError, EpisodeStart, Observation, Step};
use escapade_core::{ToolSchema, World};
use tokio::sync::mpsc;

use crate::error::{Result, RunError};
use crate::play::{Partner, PlayOptions, Reasks, UNREADABLE, play_person};
use crate::runner::AgentFactory;

/// The agent name of a client playing through a server (DESIGN.md: "`remote` (anything
/// speaking the server API)"); run directories of remote episodes are named after it.
pub const REMOTE: &str = "remote";

/// The error an episode ends with when its client went away (the [`Episode`] was dropped
/// or [`Episode::give_up`] was called) before it ended.
pub const GONE: &str = "the client went away before the episode ended";

/// The error an episode ends with when the server stopped (a signal) before it ended:
/// [`Episode::give_up_because`] with this.
pub const STOPPED: &str = "the server stopped before the episode ended";

/// How a remote episode is started.
pub struct Spec {
    /// The world whose scenario is played.
    pub world: Arc<dyn World>,
    /// The scenario's JSON.
    pub json: String,
    /// Seed, step cap, record directory, suite label, role, world options, participants,
    /// re-asks — as `escapade play` takes them. The images directory is not used.
    /// [`Spec::new`] sets [`Reasks::World`]: a client is re-asked as `escapade run`
    /// re-asks a model (the papers' protocol), not without end as a person is.
    pub options: PlayOptions,
    /// Who plays the roles the client does not ([`PlayOptions::role`] names the client's):
    /// the agents' maker, and the runtime their model clients live on (`None`: a runtime
    /// of the episode's own, enough for baselines such as `oracle` and `random`).
    pub partner: Option<(Arc<dyn AgentFactory>, Option<tokio::runtime::Handle>)>,
}

impl Spec {
    /// A spec with [`PlayOptions::default`] (seed 0, no record) and no partner: the
    /// client plays every role.
    pub fn new(world: Arc<dyn World>, json: String) -> Spec {
        Spec {
            world,
            json,
            options: PlayOptions {
                reasks: Reasks::World,
                ..PlayOptions::default()
            },
            partner: None,
        }
    }
}

/// A turn waiting for the client's action.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// What the client sees: text, pictures, the available actions, and in a multi-role
    /// world ([`Episode::roles`]) the role whose turn it is (`observation.role`).
    pub observation: Observation,
    /// The world's function schemas in the current state (they can grow: the tools world
    /// adds one per node investigated).
    pub tools: Vec<ToolSchema>,
    /// The step that led here (`None` on the first turn); a partner's step in a
    /// multi-role world when the partner moved last.
    pub last: Option<Step>,
    /// The client's last reply could not be read: why. No step was spent; the
    /// observation is the one the reply answered, and the client replies again.
    pub unreadable: Option<String>,
    /// The oracle's distance from the current state (`None` where the world cannot say):
    /// the last step's, or the start's before the first ([`Env::steps_to_go`]).
    ///
    /// [`Env::steps_to_go`]: escapade_core::Env::steps_to_go
    pub steps_to_go: Option<u32>,
}

impl Turn {
    /// Task progress in `[0, 1]` after the last step (0 before the first).
    pub fn progress(&self) -> f64 {
        self.last.as_ref().map_or(0.0, |s| s.progress)
    }
}

/// How the episode ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    /// The episode's success criterion was met (and it did not stop on an error).
    pub success: bool,
    /// Steps taken.
    pub steps: u32,
    /// The world's per-episode metrics (finite values only, as episode rows hold them).
    pub metrics: BTreeMap<String, f64>,
    /// The last step, if any was taken: its observation holds the world's last words.
    pub last: Option<Step>,
    /// The task itself ended (escaped, out of mistakes, …).
    pub terminated: bool,
    /// A limit outside the task ended it: the world's step budget, or the step cap
    /// ([`PlayOptions::max_steps`]).
    pub truncated: bool,
    /// Why it stopped early: [`GONE`], a failing partner agent, a failing environment.
    pub error: Option<String>,
    /// The run directory written, with [`PlayOptions::record`].
    pub dir: Option<PathBuf>,
}

impl Ending {
    /// The oracle's distance after the last step (0 on an escape; `None` before any step
    /// or where the world cannot say).
    pub fn steps_to_go(&self) -> Option<u32> {
        self.last.as_ref().and_then(|s| s.steps_to_go)
    }
}

/// What the client sees now.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// The episode waits for the client's action.
    Turn(Turn),
    /// The episode is over.
    Over(Ending),
}

/// Misuse of an [`Episode`]: its turn is not the client's to take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EpisodeError {
    /// Occurs when an action is handed to an episode that has ended.
    #[error("the episode is over; reset to start another")]
    Over,
}

/// A scenario being played from outside (see the [module docs](self)).
#[derive(Debug)]
pub struct Episode {
    /// Actions to the episode's thread; `None` once given up.
    to_thread: Option<mpsc::UnboundedSender<Input>>,
    from_thread: mpsc::UnboundedReceiver<Message>,
    /// What the client sees now.
    seen: Seen,
    /// An action was handed over and its answer not yet collected (a dropped `act`).
    pending: bool,
    rules: String,
    roles: Vec<String>,
    world: &'static str,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What the client hands the episode's thread.
#[derive(Debug)]
enum Input {
    Act(Action),
    /// Give up, with the error the episode ends with.
    Quit(String),
}

/// What the episode's thread tells the client.
#[derive(Debug)]
enum Message {
    /// The rules (system prompt) and the roles, before the first turn.
    Rules(String, Vec<String>),
    Seen(Box<Seen>),
    /// The episode could not be played at all (a bad scenario, a role the world lacks).
    Failed(RunError),
}

impl Episode {
    /// Starts playing `spec` on a thread of its own and waits for the first turn. `Err`
    /// when the episode cannot be played at all: the scenario is not the world's, a world
    /// option is unknown, a role is wrong or lacks a partner, the record directory cannot
    /// be written.
    pub async fn start(spec: Spec) -> Result<Episode> {
        let mut episode = Episode::spawn(spec)?;
        loop {
            let message = episode.from_thread.recv().await;
            if episode.opening(message)? {
                return Ok(episode);
            }
        }
    }

    /// [`Episode::start`] for a caller outside an async runtime.
    pub fn start_blocking(spec: Spec) -> Result<Episode> {
        let mut episode = Episode::spawn(spec)?;
        loop {
            let message = episode.from_thread.blocking_recv();
            if episode.opening(message)? {
                return Ok(episode);
            }
        }
    }

    fn spawn(spec: Spec) -> Result<Episode> {
        let (to_thread, inputs) = mpsc::unbounded_channel();
        let (outbox, from_thread) = mpsc::unbounded_channel();
        let world = spec.world.name();
        let thread = std::thread::Builder::new()
            .name(format!("remote {world}"))
            .spawn(move || play(spec, inputs, outbox))
            .map_err(|e| RunError::invalid("episode", format!("cannot start a thread: {e}")))?;
        Ok(Episode {
            to_thread: Some(to_thread),
            from_thread,
            seen: Seen::Over(stopped(None)),
            pending: false,
            rules: String::new(),
            roles: Vec::new(),
            world,
            thread: Some(thread),
        })
    }

    /// Takes one message before the first turn: `true` when the episode is ready.
    fn opening(&mut self, message: Option<Message>) -> Result<bool> {
        match message {
            Some(Message::Rules(rules, roles)) => {
                self.rules = rules;
                self.roles = roles;
                Ok(false)
            }
            Some(Message::Seen(seen)) => {
                self.seen = *seen;
                Ok(true)
            }
            Some(Message::Failed(e)) => Err(e),
            None => Err(RunError::invalid(
                "episode",
                "the episode's thread stopped before the first turn",
            )),
        }
    }

    /// What the client sees now: the turn waiting for its action, or the ending.
    pub fn seen(&self) -> &Seen {
        &self.seen
    }

    /// The episode has ended.
    pub fn is_over(&self) -> bool {
        matches!(self.seen, Seen::Over(_))
    }

    /// The rules the client plays by: the world's system prompt, the role's prompt when
    /// the client holds one role, or every role's under a heading when it holds them all.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    /// The roles that take turns (PettingZoo AEC order); empty in one-role worlds.
    pub fn roles(&self) -> &[String] {
        &self.roles
    }

    /// The world's name.
    pub fn world(&self) -> &'static str {
        self.world
    }

    /// Hands `action` to the turn waiting for it and returns what the client sees next
    /// (the next turn — the partner's moves played in between — or the ending).
    /// Cancel-safe (see the [module docs](self)). `Err` when the episode is over.
    pub async fn act(&mut self, action: Action) -> std::result::Result<&Seen, EpisodeError> {
        if self.pending {
            let message = self.from_thread.recv().await;
            self.collect(message);
        }
        self.send(action)?;
        let message = self.from_thread.recv().await;
        self.collect(message);
        Ok(&self.seen)
    }

    /// [`Episode::act`] for a caller outside an async runtime.
    pub fn act_blocking(&mut self, action: Action) -> std::result::Result<&Seen, EpisodeError> {
        if self.pending {
            let message = self.from_thread.blocking_recv();
            self.collect(message);
        }
        self.send(action)?;
        let message = self.from_thread.blocking_recv();
        self.collect(message);
        Ok(&self.seen)
    }

    fn send(&mut self, action: Action) -> std::result::Result<(), EpisodeError> {
        if self.is_over() {
            return Err(EpisodeError::Over);
        }
        match &self.to_thread {
            Some(tx) if tx.send(Input::Act(action)).is_ok() => {
                self.pending = true;
                Ok(())
            }
            _ => Err(EpisodeError::Over),
        }
    }

    /// Takes the thread's answer to the action handed over.
    fn collect(&mut self, message: Option<Message>) {
        self.pending = false;
        self.seen = match message {
            Some(Message::Seen(seen)) => *seen,
            // the thread sends nothing else after the first turn; a closed channel means
            // it ended without an ending (it cannot panic on input, but say so if it did)
            _ => Seen::Over(stopped(Some(
                "the episode's thread stopped without an ending".into(),
            ))),
        };
    }

    /// Gives up (when not over) and waits until the episode is recorded; returns the
    /// ending (its error is [`GONE`] when the client gave up).
    pub async fn give_up(self) -> Ending {
        self.give_up_because(GONE).await
    }

    /// [`Episode::give_up`] with `why` as the episode's error (a server that stops says
    /// [`STOPPED`], not that the client went away).
    pub async fn give_up_because(mut self, why: &str) -> Ending {
        if let Some(tx) = self.to_thread.take() {
            let _ = tx.send(Input::Quit(why.to_string()));
        }
        while !self.is_over() {
            let message = self.from_thread.recv().await;
            self.collect(message);
        }
        let thread = self.thread.take();
        if let Some(t) = thread {
            // the ending is sent after the record is written; the join is immediate
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
        match &self.seen {
            Seen::Over(ending) => ending.clone(),
            Seen::Turn(_) => unreachable!("the loop runs until the episode is over"),
        }
    }

    /// [`Episode::give_up`] for a caller outside an async runtime.
    pub fn give_up_blocking(mut self) -> Ending {
        if let Some(tx) = self.to_thread.take() {
            let _ = tx.send(Input::Quit(GONE.to_string()));
        }
        while !self.is_over() {
            let message = self.from_thread.blocking_recv();
            self.collect(message);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        match &self.seen {
            Seen::Over(ending) => ending.clone(),
            Seen::Turn(_) => unreachable!("the loop runs until the episode is over"),
        }
    }
}

impl Drop for Episode {
    /// Closes the channel: the thread gives up with [`GONE`], records the episode and
    /// ends on its own (nobody waits for it).
    fn drop(&mut self) {
        self.to_thread.take();
    }
}

/// An ending with no step taken.
fn stopped(error: Option<String>) -> Ending {
    Ending {
        success: false,
        steps: 0,
        metrics: BTreeMap::new(),
        last: None,
        terminated: false,
        truncated: false,
        error,
        dir: None,
    }
}

/// The episode's thread: plays it to the end with a [`Client`] in the client's seat.
fn play(
    spec: Spec,
    inputs: mpsc::UnboundedReceiver<Input>,
    outbox: mpsc::UnboundedSender<Message>,
) {
    let Spec {
        world,
        json,
        options,
        partner,
    } = spec;
    let tools = Arc::new(Mutex::new(Vec::new()));
    let mut client = Client {
        inputs,
        outbox: outbox.clone(),
        tools: tools.clone(),
        last_seen: Observation::default(),
        roles: Vec::new(),
        started: false,
        start_steps_to_go: None,
    };
    // the roles, for the client's Rules message (the loop opens its own environment)
    client.roles = match world.env(&json, &options.world_options) {
        Ok(env) => env.roles(),
        Err(e) => {
            let _ = outbox.send(Message::Failed(e.into()));
            return;
        }
    };
    // baselines play on a runtime of this thread's own; model clients on theirs
    let own = match &partner {
        Some((_, None)) => match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => Some(rt),
            Err(e) => {
                let why = format!("cannot start a runtime for the partner: {e}");
                let _ = outbox.send(Message::Failed(RunError::invalid("partner", why)));
                return;
            }
        },
        _ => None,
    };
    let handle = match &partner {
        Some((_, Some(h))) => Some(h.clone()),
        _ => own.as_ref().map(|rt| rt.handle().clone()),
    };
    let mut schemas =
        move |t: Vec<ToolSchema>| *tools.lock().unwrap_or_else(|p| p.into_inner()) = t;
    let partner = match (&partner, &handle) {
        (Some((agents, _)), Some(runtime)) => Some(Partner {
            agents: agents.as_ref(),
            runtime,
        }),
        _ => None,
    };
    let result = play_person(
        world.as_ref(),
        &json,
        &options,
        partner,
        &mut client,
        Some(&mut schemas),
    );
    let message = match result {
        Ok((played, dir)) => {
            let last = played.last;
            let terminated = last.as_ref().is_some_and(|s| s.terminated);
            let error = played.error;
            Message::Seen(Box::new(Seen::Over(Ending {
                success: played.outcome.success && error.is_none(),
                steps: played.outcome.steps,
                metrics: crate::runner::finite(played.outcome.metrics),
                // the step cap is a limit outside the task, as the world's budget is
                truncated: last.as_ref().is_some_and(|s| s.truncated)
                    || (!terminated && error.is_none()),
                terminated,
                last,
                error,
                dir,
            })))
        }
        Err(e) => match client.started {
            // failed before the first turn: the client hears why at start
            false => Message::Failed(e),
            true => Message::Seen(Box::new(Seen::Over(stopped(Some(format!(
                "the episode could not be recorded: {e}"
            )))))),
        },
    };
    let _ = outbox.send(message);
    // the partner's runtime is dropped here, outside any runtime
    drop(own);
}

/// The client's seat, as an [`Agent`]: each turn goes to the [`Episode`], each action
/// comes back from it.
struct Client {
    inputs: mpsc::UnboundedReceiver<Input>,
    outbox: mpsc::UnboundedSender<Message>,
    /// The function schemas of the current state (`play_person` hands them over).
    tools: Arc<Mutex<Vec<ToolSchema>>>,
    /// The observation the client answers (an unreadable reply is answered with it).
    last_seen: Observation,
    /// The world's roles, sent with the rules.
    roles: Vec<String>,
    /// The rules were sent: the loop reached the client's seat.
    started: bool,
    /// The oracle's distance at the start of the episode.
    start_steps_to_go: Option<u32>,
}

impl Agent for Client {
    fn name(&self) -> String {
        REMOTE.to_string()
    }

    fn reset(&mut self, start: EpisodeStart<'_>) {
        *self.tools.lock().unwrap_or_else(|p| p.into_inner()) = start.tools.to_vec();
        self.started = true;
        self.start_steps_to_go = start.steps_to_go;
        let roles = self.roles.clone();
        let _ = self
            .outbox
            .send(Message::Rules(start.system_prompt.to_string(), roles));
    }

    fn act(
        &mut self,
        observation: &Observation,
        last: Option<&Step>,
    ) -> std::result::Result<AgentTurn, CoreError> {
        let reask = observation.text.starts_with(UNREADABLE) && observation.images.is_empty();
        let (seen, unreadable) = match reask {
            true => (
                self.last_seen.clone(),
                Some(observation.text[UNREADABLE.len()..].to_string()),
            ),
            false => {
                self.last_seen = observation.clone();
                (observation.clone(), None)
            }
        };
        let turn = Turn {
            observation: seen,
            tools: self.tools.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            last: last.cloned(),
            unreadable,
            steps_to_go: last.map_or(self.start_steps_to_go, |s| s.steps_to_go),
        };
        let _ = self.outbox.send(Message::Seen(Box::new(Seen::Turn(turn))));
        match self.inputs.blocking_recv() {
            Some(Input::Act(action)) => Ok(AgentTurn::action(action)),
            Some(Input::Quit(why)) => Err(CoreError::Agent(why)),
            None => Err(CoreError::Agent(GONE.into())),
        }
    }
}
