//! One game: a scenario played on its own thread by the same episode loop as the terminal
//! play ([`escapade_run::play_person`]), with a [`WebPerson`] in the people's seats.
//!
//! The thread owns the environment (and the partner's agents); the pages only read the
//! [`Table`] the person agent publishes — what the seat in front of them observes, their
//! own history and the ending — and hand actions over a channel. A browser that goes
//! away loses nothing: the thread waits for the next action, and a reload shows the same
//! table. When the server stops, the channel closes, the person "gives up" and the
//! episode is recorded with that error, so no game is lost unrecorded.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};

use escapade_core::{Action, Agent, AgentTurn, CoreError, EpisodeStart, Observation, Step, World};
use escapade_run::play::UNREADABLE;
use escapade_run::{AgentFactory, Partner, PlayOptions};

/// What a seat's page shows of one turn it took: what it observed and what it did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Turn {
    /// The observation's text (what an agent reads).
    pub text: String,
    /// The pictures' addresses.
    pub images: Vec<String>,
    /// What the seat answered (`None` while it is still its turn).
    pub action: Option<String>,
}

/// Whose turn it is, with what they observe.
#[derive(Debug, Clone)]
pub struct Waiting {
    /// The role whose turn it is (`None` in one-role worlds).
    pub role: Option<String>,
    /// The observation in full (text, pictures, the available actions).
    pub observation: Observation,
    /// The world's answer to an unreadable reply (no step was spent).
    pub unreadable: Option<String>,
    /// An action was handed over and the loop has not taken its next turn yet.
    pub handed: bool,
}

/// How the episode ended.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ending {
    /// Escaped.
    pub success: bool,
    /// Steps taken.
    pub steps: u32,
    /// The world's last words (the final observation's text).
    pub last_text: String,
    /// The role the final observation is for (`None` in one-role worlds): a seat of
    /// another role is not shown `last_text`.
    pub last_role: Option<String>,
    /// Metrics, by name.
    pub metrics: BTreeMap<String, f64>,
    /// Why it stopped early, when it did (not when the player gave up).
    pub error: Option<String>,
    /// How it ended, in a few words (`escaped`, `gave up`, `out of budget`, …).
    pub how: String,
    /// The run directory written.
    pub dir: Option<String>,
}

/// Everything the pages read of a game; the person agent writes it.
#[derive(Debug, Default)]
pub struct Table {
    /// Rules per role (`""`: the one role of a one-role world).
    pub rules: BTreeMap<String, String>,
    /// The function schemas the episode started with (forms on the page).
    pub tools: Vec<escapade_core::ToolSchema>,
    /// The turns each role took, in order (key as in `rules`).
    pub history: BTreeMap<String, Vec<Turn>>,
    /// Pictures shown, by address, with the roles that were shown them.
    pub images: BTreeMap<String, (Arc<Vec<u8>>, Vec<String>)>,
    /// Waiting for a person.
    pub waiting: Option<Waiting>,
    /// The episode is over.
    pub ending: Option<Ending>,
    /// Counts every change (pages poll it to know when to reload).
    pub version: u64,
}

/// What a page hands the game thread.
#[derive(Debug)]
pub enum Input {
    /// An action by the seat whose turn it is.
    Act(Action),
    /// The person gives up.
    Quit,
}

/// A game's shared half: the table and the channel to its thread.
#[derive(Debug)]
pub struct Game {
    /// The scenario's id.
    pub scenario: String,
    /// The scenario's index in the setup.
    pub index: usize,
    /// The world's name.
    pub world: String,
    /// The roles people play: `[""]` (one person, one role, or every role of a
    /// multi-role world), or role names.
    pub seats: Vec<String>,
    table: Mutex<Table>,
    input: Mutex<Option<mpsc::Sender<Input>>>,
    changed: tokio::sync::watch::Sender<u64>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// The key of a one-role world's rules and history.
pub const ONE: &str = "";

impl Game {
    /// The table, for reading (a poisoned lock still holds the last table).
    pub fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A receiver that sees every change of the table.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn bump(&self, table: &mut Table) {
        table.version += 1;
        self.changed.send_replace(table.version);
    }

    /// Hands `input` to the game thread for `role` (`ONE` in one-role worlds); `Err`
    /// says why not (not this role's turn, an action already on its way, over).
    pub fn hand(&self, role: &str, input: Input) -> Result<(), String> {
        let mut table = self.table();
        if table.ending.is_some() {
            return Err("this game is over".into());
        }
        let Some(waiting) = table.waiting.as_mut() else {
            return Err("the game is not waiting for anyone yet; reload in a moment".into());
        };
        let turn = waiting.role.as_deref().unwrap_or(ONE);
        let quitting = matches!(input, Input::Quit);
        if turn != role && !(quitting && self.seats.iter().any(|s| s == role)) {
            return Err(format!("it is the {turn}'s turn, not yours"));
        }
        if waiting.handed {
            return Err("your last action is still being played; reload in a moment".into());
        }
        let sender = self.input.lock().unwrap_or_else(|p| p.into_inner());
        let Some(tx) = sender.as_ref() else {
            return Err("this game has stopped".into());
        };
        tx.send(input)
            .map_err(|_| "this game has stopped".to_string())?;
        waiting.handed = true;
        self.bump(&mut table);
        Ok(())
    }

    /// Closes the channel (the thread records the episode, ended by the stop) and waits for
    /// the thread.
    pub fn stop(&self) {
        self.input.lock().unwrap_or_else(|p| p.into_inner()).take();
        let handle = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(h) = handle {
            let _ = h.join();
        }
    }
}

/// How a game is started.
pub struct Start {
    /// The worlds (the game's is found by name).
    pub worlds: crate::server::Worlds,
    /// The scenario's JSON.
    pub json: String,
    /// The play options (record directory, role, participants, …).
    pub options: PlayOptions,
    /// The other roles' agents and the runtime their clients live on (`None`: a
    /// runtime of the game's own, for baselines).
    pub partner: Option<(Arc<dyn AgentFactory>, Option<tokio::runtime::Handle>)>,
}

/// Starts a game of scenario `index` (id `scenario`) of world `world` on its own thread.
pub fn spawn(
    world: &dyn World,
    scenario: String,
    index: usize,
    seats: Vec<String>,
    start: Start,
) -> Result<Arc<Game>, String> {
    // the rules of each role, from an environment of its own (the game's is on its thread)
    let mut env = world
        .env(&start.json, &start.options.world_options)
        .map_err(|e| e.to_string())?;
    env.reset(start.options.seed);
    let roles = env.roles();
    let rules: BTreeMap<String, String> = if roles.is_empty() {
        BTreeMap::from([(ONE.to_string(), env.system_prompt())])
    } else {
        roles
            .iter()
            .map(|r| (r.clone(), env.role_prompt(r)))
            .collect()
    };
    drop(env);
    let (tx, rx) = mpsc::channel();
    let game = Arc::new(Game {
        scenario,
        index,
        world: world.name().to_string(),
        seats,
        table: Mutex::new(Table {
            rules,
            ..Table::default()
        }),
        input: Mutex::new(Some(tx)),
        changed: tokio::sync::watch::channel(0).0,
        thread: Mutex::new(None),
    });
    let shared = game.clone();
    let handle = std::thread::Builder::new()
        .name(format!("play {}", game.scenario))
        .spawn(move || run(shared, rx, start))
        .map_err(|e| format!("cannot start the game: {e}"))?;
    *game.thread.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
    Ok(game)
}

/// The game thread: plays the episode to its end and writes the ending.
fn run(game: Arc<Game>, rx: mpsc::Receiver<Input>, start: Start) {
    let Start {
        worlds,
        json,
        options,
        partner,
    } = start;
    let ending = |error: Option<String>| Ending {
        success: false,
        steps: 0,
        last_text: String::new(),
        last_role: None,
        metrics: BTreeMap::new(),
        error,
        how: escapade_run::ending::Ending::Error.label().into(),
        dir: None,
    };
    let Some(world) = worlds.iter().find(|w| w.name() == game.world) else {
        let mut table = game.table();
        table.ending = Some(ending(Some("the world is gone".into())));
        game.bump(&mut table);
        return;
    };
    let mut person = WebPerson {
        game: game.clone(),
        rx,
        role: None,
    };
    // baselines play on a runtime of this thread's own; model clients on theirs
    let own = match &partner {
        Some((_, None)) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok(),
        _ => None,
    };
    let handle = match &partner {
        Some((_, Some(h))) => Some(h.clone()),
        Some((_, None)) => own.as_ref().map(|rt| rt.handle().clone()),
        None => None,
    };
    // the functions of the current state, for the page's forms
    let shared = game.clone();
    let mut schemas = move |tools: Vec<escapade_core::ToolSchema>| shared.table().tools = tools;
    let result = match (&partner, &handle) {
        (Some((agents, _)), Some(runtime)) => escapade_run::play_person(
            world.as_ref(),
            &json,
            &options,
            Some(Partner {
                agents: agents.as_ref(),
                runtime,
            }),
            &mut person,
            Some(&mut schemas),
        ),
        (Some(_), None) => Err(escapade_run::RunError::invalid(
            "partner",
            "cannot start a runtime for the partner",
        )),
        (None, _) => escapade_run::play_person(
            world.as_ref(),
            &json,
            &options,
            None,
            &mut person,
            Some(&mut schemas),
        ),
    };
    let mut table = game.table();
    table.waiting = None;
    table.ending = Some(match result {
        Ok((played, dir)) => Ending {
            success: played.outcome.success && played.error.is_none(),
            steps: played.outcome.steps,
            last_text: played
                .last
                .as_ref()
                .filter(|s| s.terminated || s.truncated)
                .map(|s| s.observation.text.clone())
                .unwrap_or_default(),
            last_role: played
                .last
                .as_ref()
                .and_then(|s| s.observation.role.clone()),
            how: played.ending().label().into(),
            metrics: escapade_run::runner::finite(played.outcome.metrics),
            error: played.error.filter(|e| !escapade_run::ending::gave_up(e)),
            dir: dir.map(|d| d.display().to_string()),
        },
        Err(e) => ending(Some(format!("the game could not be played: {e}"))),
    });
    game.bump(&mut table);
    drop(table);
    // the runtime of this thread is dropped here, outside any runtime
    drop(own);
}

/// The people in the seats, as one [`Agent`]: each turn is published on the table and
/// waits for a page to hand an action.
struct WebPerson {
    game: Arc<Game>,
    rx: mpsc::Receiver<Input>,
    /// The role of the turn being played (a re-ask keeps it).
    role: Option<String>,
}

impl Agent for WebPerson {
    fn name(&self) -> String {
        escapade_run::play::HUMAN.to_string()
    }

    fn reset(&mut self, start: EpisodeStart<'_>) {
        let mut table = self.game.table();
        table.tools = start.tools.to_vec();
    }

    fn act(
        &mut self,
        observation: &Observation,
        _last: Option<&Step>,
    ) -> Result<AgentTurn, CoreError> {
        let reask = observation.text.starts_with(UNREADABLE) && observation.images.is_empty();
        {
            let mut table = self.game.table();
            if reask {
                if let Some(w) = table.waiting.as_mut() {
                    w.unreadable = Some(observation.text.clone());
                    w.handed = false;
                }
            } else {
                self.role = observation.role.clone();
                let key = self.role.clone().unwrap_or_default();
                for image in &observation.images {
                    let entry = table
                        .images
                        .entry(image.sha256.clone())
                        .or_insert_with(|| (Arc::new(image.png.clone()), Vec::new()));
                    if !entry.1.contains(&key) {
                        entry.1.push(key.clone());
                    }
                }
                table.history.entry(key).or_default().push(Turn {
                    text: observation.text.clone(),
                    images: observation
                        .images
                        .iter()
                        .map(|i| i.sha256.clone())
                        .collect(),
                    action: None,
                });
                table.waiting = Some(Waiting {
                    role: self.role.clone(),
                    observation: observation.clone(),
                    unreadable: None,
                    handed: false,
                });
            }
            self.game.bump(&mut table);
        }
        let input = self.rx.recv();
        let mut table = self.game.table();
        let result = match input {
            Ok(Input::Act(action)) => {
                let key = self.role.clone().unwrap_or_default();
                if let Some(turn) = table.history.get_mut(&key).and_then(|h| h.last_mut()) {
                    let said = action_text(&action);
                    turn.action = Some(match &turn.action {
                        // a re-typed reply after an unreadable one
                        Some(before) => format!("{before}\n{said}"),
                        None => said,
                    });
                }
                Ok(AgentTurn::action(action))
            }
            Ok(Input::Quit) => Err(CoreError::Agent(escapade_run::ending::PLAYER_QUIT.into())),
            Err(_) => Err(CoreError::Agent(
                "the server stopped before the episode ended".into(),
            )),
        };
        self.game.bump(&mut table);
        result
    }
}

/// An action as the person's history shows it.
pub fn action_text(action: &Action) -> String {
    match action {
        Action::Text { text } => text.clone(),
        Action::Call { name, arguments } => format!("{name}({arguments})"),
        Action::Calls { calls } => calls
            .iter()
            .map(|c| format!("{}({})", c.name, c.arguments))
            .collect::<Vec<_>>()
            .join("\n"),
        Action::Bytes { bytes } => String::from_utf8_lossy(bytes).into_owned(),
    }
}
