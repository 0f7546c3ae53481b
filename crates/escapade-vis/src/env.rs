//! `VisEnv`: one play of a room, with VisEscape's observations, limits, hints and metrics.
//!
//! Each observation (§4.1, and the original's step prompt) names the side of the room in
//! view, lists the bag, names the action before this turn, gives a hint when hint mode
//! has one, and lists the available actions — shuffled with the episode's RNG every step
//! (§3.1, §4.1), `<ANSWER>` among them only while a lock is in view — and carries the
//! view as a PNG whose `alt` is a text description (by default no more than the prompt
//! says: [`crate::describe::names`]). Under the paper's protocol the observation is the
//! whole prompt of the original's BaseAgent ([`crate::prompt`]): the instruction, the
//! action memory and recent actions this env keeps, and the rest, with no system prompt.
//! What an action did shows in the next view, not in words, unless `feedback=sentences`
//! (see [`crate::options`]). An episode ends when the exit opens
//! (terminated), after 300 steps, or after 100 steps without a new checkpoint
//! (truncated, §4.1). In hint mode (§5.4, App. A.4) the next checkpoint's hint is shown
//! once 30 steps pass without progress, until progress resumes.
//!
//! Per-episode metrics (§4.2, Table 4, Table 6, App. C.1, C.3): `gc`, `spl`,
//! `oracle_steps`, `checkpoints`, `hint_assisted_rate`, `repeated_action_ratio`,
//! `answer_attempts`, `brute_force_ratio`, `essential_views_seen`,
//! `essential_views_seen_100`, `invalid_actions`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use escapade_core::env::{Env, Outcome, Step};
use escapade_core::{Action, EnvError, Image, Observation, ToolSchema};
use escapade_render::memo::{Memo, Picture};
use rand::seq::SliceRandom;

use crate::game::{ANSWER_TEMPLATE, Game, Move, State, View};
use crate::interface::{self, Parsed};
use crate::options::{Descriptions, Feedback, Invalid, Options, Prompt};
use crate::room::ItemKind;
use crate::{describe, oracle, render};

/// Step limit per episode (§4.1).
pub const MAX_STEPS: u32 = 300;
/// Steps without a new checkpoint after which the episode is cut (§4.1).
pub const STUCK_LIMIT: u32 = 100;
/// Steps without a new checkpoint after which hint mode shows a hint (App. A.4).
pub const HINT_AFTER: u32 = 30;
/// Re-asks allowed for a reply that is not an available action (App. A.5 retries).
pub const REASK_LIMIT: u32 = 3;
/// Essential views are counted within this many first steps as well (App. C.3, Fig. 10).
pub const EARLY_STEPS: u32 = 100;

/// What the oracle's solution says about a room, computed once per environment.
#[derive(Debug, Clone)]
struct Reference {
    steps: u32,
    /// The scenes (view and what it shows) along the oracle's path.
    essential: BTreeSet<Scene>,
}

/// A scene: see [`Game::scene`].
type Scene = (View, Vec<u8>);

/// Bytes of pictures (PNG and description) [`PICTURES`] keeps at most.
pub const PICTURE_BYTES: usize = 64 << 20;

/// What a view's picture and description are drawn from: the room ([`oracle::room_key`]),
/// the drawing style (labels) and the scene ([`Game::scene`]: states that differ only
/// out of view show the same picture), with the whole state for a room that shows
/// imported pictures (chosen by the original's own rules).
type PictureKey = (String, bool, Scene, Option<State>);

/// Every view's picture and description, drawn once per [`PictureKey`] in a process and
/// shared by its environments: within an episode, across epochs, across the episodes in
/// flight. A picture is a pure function of its key, so what this holds never changes an
/// output, only how often the same bytes are made and hashed.
static PICTURES: Memo<PictureKey> = Memo::new(PICTURE_BYTES);

/// The environment for one room. See the module docs.
pub struct VisEnv {
    game: Arc<Game>,
    /// The room's [`oracle::room_key`].
    key: String,
    reference: Reference,
    options: Options,
    images: bool,
    state: State,
    seed: u64,
    steps: u32,
    stuck: u32,
    over: bool,
    started: bool,
    feedback: String,
    /// The action before this turn, as the next observation names it.
    last_action: Option<String>,
    /// `<Action Memory>` lines so far (paper's prompt).
    action_memory: Vec<String>,
    /// `<Recent actions…>` lines so far, of which the prompt shows the last ten.
    recent: Vec<String>,
    labels: Vec<String>,
    moves: Vec<Move>,
    hint_showing: bool,
    // metric counters
    reached_with_hint: u32,
    reached: u32,
    invalid: u32,
    interactions: u32,
    repeated: u32,
    tried: BTreeSet<(u64, String)>,
    answers: u32,
    brute_force: u32,
    /// Per quiz: its clue has been in view (in its receptacle's close-up or its own).
    clues_seen: Vec<bool>,
    seen: BTreeSet<Scene>,
    seen_early: BTreeSet<Scene>,
    /// The oracle's distance from each state searched ([`oracle::Distances`]).
    distances: oracle::Distances,
    /// Its value at the current state.
    steps_to_go: Option<u32>,
}

impl VisEnv {
    /// An environment on `game`. Solves the room (once per process, shared with its oracle
    /// agent: [`oracle::solve_shared`]) to know the oracle's step count and essential
    /// views; fails if the room cannot be escaped.
    pub fn new(game: Arc<Game>) -> Result<VisEnv, crate::VisError> {
        let key = oracle::room_key(&game);
        let solution = oracle::solve_keyed(&key, &game)?;
        let essential = solution.states.iter().map(|s| game.scene(s)).collect();
        let reference = Reference {
            steps: solution.moves.len() as u32,
            essential,
        };
        let state = game.start();
        let distances = oracle::Distances::new(&game, &solution, oracle::STATE_LIMIT);
        Ok(VisEnv {
            game,
            key,
            reference,
            options: Options::default(),
            images: true,
            state,
            seed: 0,
            steps: 0,
            stuck: 0,
            over: false,
            started: false,
            feedback: String::new(),
            last_action: None,
            action_memory: Vec::new(),
            recent: Vec::new(),
            labels: Vec::new(),
            moves: Vec::new(),
            hint_showing: false,
            reached_with_hint: 0,
            reached: 0,
            invalid: 0,
            interactions: 0,
            repeated: 0,
            tried: BTreeSet::new(),
            answers: 0,
            brute_force: 0,
            clues_seen: Vec::new(),
            seen: BTreeSet::new(),
            seen_early: BTreeSet::new(),
            distances,
            steps_to_go: None,
        })
    }

    /// The environment with `options` (see [`crate::options`]) in place of the paper's
    /// protocol.
    pub fn with_options(mut self, options: Options) -> Self {
        if self.game.answer_rule() != options.answers {
            self.game = Arc::new((*self.game).clone().with_answers(options.answers));
            self.key = oracle::room_key(&self.game);
        }
        self.options = options;
        self
    }

    /// The options in force.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Turns rendering off (observations keep the text description only). For
    /// benchmarks of the game logic and text-only tools.
    pub fn without_images(mut self) -> Self {
        self.images = false;
        self
    }

    /// The game being played.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The current state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The oracle's step count for this room.
    pub fn oracle_steps(&self) -> u32 {
        self.reference.steps
    }

    fn list_actions(&mut self) {
        let mut moves = self.game.available(&self.state);
        let mut rng = escapade_core::seed::rng(escapade_core::seed::derive(
            self.seed,
            "vis-actions",
            u64::from(self.steps),
        ));
        moves.shuffle(&mut rng);
        if self.options.prompt == Prompt::Paper {
            // the original appends the answer action after the shuffled list
            let (answer, rest): (Vec<Move>, Vec<Move>) = moves
                .into_iter()
                .partition(|m| matches!(m, Move::Answer(a) if a.is_empty()));
            moves = rest;
            moves.extend(answer);
        }
        self.labels = moves.iter().map(|m| self.label(m)).collect();
        self.moves = moves;
    }

    /// Reads `action` against the listed actions; under the paper's names a reply in our
    /// words (`pick up key` for `pick key`) is read too, since it cannot be mistaken.
    fn read(&self, action: &Action) -> Result<Parsed, String> {
        let listed = interface::parse(action, &self.labels);
        if listed.is_ok() || self.options.prompt != Prompt::Paper {
            return listed;
        }
        let ours: Vec<String> = self.moves.iter().map(|m| self.game.label(m)).collect();
        match interface::parse(action, &ours) {
            Ok(parsed) => Ok(parsed),
            Err(_) => listed,
        }
    }

    /// The name of move `m` as this protocol shows it: the original's names under the
    /// paper's prompt ([`crate::prompt::label`]), ours otherwise.
    fn label(&self, m: &Move) -> String {
        match self.options.prompt {
            Prompt::Paper => crate::prompt::label(&self.game, m),
            Prompt::Chat | Prompt::Helpful => self.game.label(m),
        }
    }

    /// `North` for the wall the current view belongs to.
    fn side(&self) -> String {
        let n = self.game.wall_of(self.state.view()).name();
        let mut c = n.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    }

    /// The first line of an observation. The paper's names the side of the room only
    /// (the original's `<Current Observation>{direction} side of room - [IMAGE]`); the
    /// helpful one also counts steps and names what is seen close up.
    fn view_title(&self) -> String {
        let side = self.side();
        if self.options.prompt != Prompt::Helpful {
            return format!("{side} side of the room.");
        }
        let room = self.game.room();
        let title = match self.state.view() {
            View::Wall(_) => format!("{side} side of the room: the whole wall."),
            View::Receptacle(r) => {
                format!(
                    "{side} side of the room: a close look at the {}.",
                    room.receptacles[r].name
                )
            }
            View::Item(i) => format!(
                "{side} side of the room: a close look at the {} in the {}.",
                room.items[i].name,
                room.receptacles[self.game.item_receptacle(i)].name
            ),
        };
        format!("Step {} of {MAX_STEPS}. {title}", self.steps + 1)
    }

    /// The picture of the current view with its exact description, from [`PICTURES`] or
    /// drawn and kept there.
    fn image(&self) -> Option<Image> {
        if !self.images {
            return None;
        }
        let labels = self.options.labels;
        let imported = self.game.room().pictures.is_some();
        let key = (
            self.key.clone(),
            labels,
            self.game.picture_key(&self.state),
            imported.then(|| self.state.clone()),
        );
        let picture = PICTURES
            .get_or_draw(&key, || {
                // the one place a view's picture is chosen: an imported room shows its
                // own pictures; views it has none for are drawn
                let (png, sha256) = match crate::pictures::png(&self.game, &self.state) {
                    Some(png) => (png.to_vec(), escapade_core::hash::sha256_hex(png)),
                    None => {
                        let drawn =
                            render::picture(&self.game, &self.state, render::Style { labels })?;
                        (drawn.png.clone(), drawn.sha256.clone())
                    }
                };
                Ok::<_, crate::VisError>(Picture {
                    sha256,
                    png,
                    alt: Some(describe::describe(&self.game, &self.state)),
                })
            })
            .ok()?;
        Some(Image {
            sha256: picture.sha256.clone(),
            png: picture.png.clone(),
            alt: match self.options.descriptions {
                // drawn with the picture, and kept with it
                Descriptions::Full => picture.alt.clone(),
                Descriptions::Names => Some(self.description()),
            },
            pixels: None,
        })
    }

    /// The description of the current view the options ask for.
    fn description(&self) -> String {
        describe::as_asked(self.options.descriptions, &self.game, &self.state)
    }

    /// The hint to show now, if hint mode has one (App. A.4: after [`HINT_AFTER`] steps
    /// without progress, the next checkpoint's).
    fn hint(&self) -> Option<&str> {
        if !self.game.room().hints || self.stuck < HINT_AFTER {
            return None;
        }
        let next = self.game.next_checkpoint(&self.state)?;
        Some(self.game.room().checkpoints[next].hint.as_str())
    }

    /// The observation under the paper's protocol: the whole step prompt
    /// ([`crate::prompt::step`]).
    fn paper_observation(&mut self) -> Observation {
        let side = self.side().to_uppercase();
        let scene = if self.images {
            crate::prompt::IMAGE.to_string()
        } else {
            self.description()
        };
        let bag: Vec<String> = self
            .game
            .inventory(&self.state)
            .into_iter()
            .map(|i| self.game.room().items[i].name.clone())
            .collect();
        let hint = self.hint().map(str::to_string);
        self.hint_showing = hint.is_some();
        let answer = self.labels.iter().any(|l| l == ANSWER_TEMPLATE);
        let actions: Vec<String> = self
            .labels
            .iter()
            .filter(|l| !crate::prompt::is_template(l))
            .cloned()
            .collect();
        let recent = &self.recent[self.recent.len().saturating_sub(crate::prompt::RECENT)..];
        let result = (self.options.feedback == Feedback::Sentences && !self.feedback.is_empty())
            .then_some(self.feedback.as_str());
        let text = crate::prompt::step(&crate::prompt::StepPrompt {
            first: self.steps == 0,
            memory: &self.action_memory,
            recent,
            side: &side,
            scene: &scene,
            inventory: &bag,
            previous: self.last_action.as_deref(),
            hint: hint.as_deref(),
            actions: &actions,
            answer,
            result,
        });
        Observation {
            text,
            images: self.image().into_iter().collect(),
            actions: Some(self.labels.clone()),
            role: None,
        }
    }

    /// The observation (§4.1; the original's step prompt, App. A.5 Table 17): the side of
    /// the room and the current view (a picture, or its description when pictures are
    /// off), the held items, the action before this turn, a hint when hint mode gives
    /// one, and the available actions — with `<ANSWER>` only while a lock is in view.
    /// `feedback=sentences` adds what the last action did; `prompt=helpful` counts
    /// steps, names the close-up and explains the answer format at length.
    fn observation(&mut self) -> Observation {
        self.list_actions();
        if self.options.prompt == Prompt::Paper {
            return self.paper_observation();
        }
        let paper = self.options.prompt == Prompt::Chat;
        let mut text = self.view_title();
        if !self.images {
            text.push_str("\nYou see: ");
            text.push_str(&self.description());
        }
        let bag: Vec<String> = self
            .game
            .inventory(&self.state)
            .into_iter()
            .map(|i| self.game.room().items[i].name.clone())
            .collect();
        text.push_str("\nIn your bag: ");
        text.push_str(&if bag.is_empty() {
            "nothing".to_string()
        } else {
            crate::text::list(&bag)
        });
        text.push('.');
        if paper && let Some(last) = &self.last_action {
            text.push_str("\nYour action before this turn: ");
            text.push_str(last);
        }
        if self.options.feedback == Feedback::Sentences && !self.feedback.is_empty() {
            text.push_str("\nResult of your last action: ");
            text.push_str(&self.feedback);
        }
        self.hint_showing = false;
        if let Some(hint) = self.hint().map(str::to_string) {
            text.push_str("\nHint: ");
            text.push_str(&hint);
            self.hint_showing = true;
        }
        // one action per line: agents that keep past observations drop the list by
        // matching these lines against `Observation::actions`
        text.push_str(if paper {
            "\nChoose your next action to progress in the game. The available actions are:"
        } else {
            "\nAvailable actions:"
        });
        for label in &self.labels {
            text.push('\n');
            text.push_str(label);
        }
        if self.labels.iter().any(|l| l == ANSWER_TEMPLATE) {
            if paper {
                text.push_str(
                    "\n<ANSWER> enters an answer into the lock you are facing: write \
                     <ANSWER>your answer</ANSWER> with your answer in place of `your answer`.",
                );
            } else {
                text.push_str(
                    "\nA code lock is in view: enter a code with <ANSWER>your code</ANSWER>.",
                );
                let directions = match self.state.view() {
                    View::Item(i) => self.game.quiz_of(i).is_some_and(|q| {
                        self.game.room().quizzes[q].code == crate::room::CodeKind::Direction
                    }),
                    _ => false,
                };
                if directions {
                    text.push_str(" Write directions as U, D, L and R (up, down, left, right).");
                }
            }
        }
        Observation {
            text,
            images: self.image().into_iter().collect(),
            actions: Some(self.labels.clone()),
            role: None,
        }
    }

    fn progress(&self) -> f64 {
        let total = self.game.checkpoints().len().max(1);
        self.game.reached(&self.state) as f64 / total as f64
    }

    fn note_view(&mut self) {
        let scene = self.game.scene(&self.state);
        if self.steps <= EARLY_STEPS && !self.seen_early.contains(&scene) {
            self.seen_early.insert(scene.clone());
        }
        self.seen.insert(scene);
        let in_view: Vec<usize> = match self.state.view() {
            View::Receptacle(r) => self.game.visible_items(&self.state, r),
            View::Item(i) => vec![i],
            View::Wall(_) => Vec::new(),
        };
        for i in in_view {
            if let (ItemKind::Clue { .. }, Some(q)) =
                (&self.game.room().items[i].kind, self.game.quiz_of(i))
                && let Some(seen) = self.clues_seen.get_mut(q)
            {
                *seen = true;
            }
        }
        // clues the game counts as seen (a clue item's close-up, a clue view)
        for (q, seen) in self.clues_seen.iter_mut().enumerate() {
            *seen |= self.state.clue_seen(q);
        }
    }

    /// A fingerprint of the whole state (view included), for "the same action in the same
    /// situation" (§6.1, App. C.5).
    fn situation(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        // a fixed hasher (not RandomState) so the metric does not vary between runs
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        self.state.hash(&mut h);
        h.finish()
    }

    fn apply(&mut self, m: &Move) -> crate::game::Effect {
        let interaction = matches!(
            m,
            Move::Verb { .. }
                | Move::ItemVerb { .. }
                | Move::Use(_)
                | Move::PickUp(_)
                | Move::Answer(_)
        );
        if interaction {
            self.interactions += 1;
            let key = (self.situation(), self.game.label(m).to_lowercase());
            if !self.tried.insert(key) {
                self.repeated += 1;
            }
        }
        if let (Move::Answer(text), View::Item(lock)) = (m, self.state.view()) {
            self.answers += 1;
            let correct = self
                .game
                .quiz_of(lock)
                .is_some_and(|q| self.game.accepts(&self.game.room().quizzes[q], text));
            let clue_seen = self
                .game
                .quiz_of(lock)
                .is_some_and(|q| self.clues_seen.get(q).copied().unwrap_or(false));
            if !correct && !clue_seen {
                self.brute_force += 1;
            }
        }
        self.game.apply(&mut self.state, m)
    }
}

/// The text of a reply (a call as `name(arguments)`).
fn reply_text(action: &Action) -> String {
    match action.first() {
        Action::Text { text } => text,
        Action::Bytes { bytes } => String::from_utf8_lossy(&bytes).into_owned(),
        Action::Call { name, arguments } => format!("{name}({arguments})"),
        // `first` never answers with several calls
        Action::Calls { .. } => String::new(),
    }
}

/// A short, one-line rendition of a reply, for "your action before this turn".
fn reply_excerpt(action: &Action) -> String {
    let text = reply_text(action);
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    crate::text::quote(line, 80)
}

/// FNV-1a, for deterministic fingerprints.
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl Env for VisEnv {
    fn reset(&mut self, seed: u64) -> Observation {
        self.state = self.game.start();
        self.seed = seed;
        self.steps = 0;
        self.stuck = 0;
        self.over = false;
        self.started = true;
        self.feedback = String::new();
        self.last_action = None;
        self.action_memory.clear();
        self.recent.clear();
        self.reached_with_hint = 0;
        self.reached = 0;
        self.invalid = 0;
        self.interactions = 0;
        self.repeated = 0;
        self.tried.clear();
        self.answers = 0;
        self.brute_force = 0;
        self.clues_seen = vec![false; self.game.room().quizzes.len()];
        self.seen.clear();
        self.seen_early.clear();
        self.steps_to_go = self.distances.of(&self.game, &self.state);
        self.note_view();
        self.observation()
    }

    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if !self.started {
            return Err(EnvError::NotReset);
        }
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        self.steps += 1;
        let hinted = self.hint_showing;
        let parsed = self.read(action);
        let (taken, error) = match parsed {
            Ok(Parsed::Listed(i)) => (Some(self.moves[i].clone()), None),
            Ok(Parsed::Answer(a)) => (Some(Move::Answer(a)), None),
            Err(message) => {
                self.invalid += 1;
                // the original's agents take the first listed action after their three
                // failed attempts (never the answer, which their list does not hold)
                let stand_in = match self.options.invalid {
                    Invalid::First => self
                        .moves
                        .iter()
                        .find(|m| !matches!(m, Move::Answer(_)))
                        .cloned(),
                    Invalid::Wasted => None,
                };
                (stand_in, Some(message))
            }
        };
        let mut reached = false;
        let location = crate::prompt::location(&self.game, &self.state);
        match &taken {
            Some(m) => {
                let effect = self.apply(m);
                let label = self.label(m);
                let record = match m {
                    Move::Answer(code) => crate::prompt::taken(code, true, &location),
                    _ => crate::prompt::taken(&label, false, &location),
                };
                self.action_memory.extend(record.memory);
                self.recent.extend(record.recent);
                self.feedback = match (self.options.feedback, &error) {
                    (Feedback::Sentences, None) => effect.feedback,
                    (Feedback::Sentences, Some(e)) => {
                        format!("{e} Instead: {label}. {}", effect.feedback)
                    }
                    // the new view is the answer; the step row keeps what was done
                    (Feedback::View, _) => label.clone(),
                };
                self.last_action = Some(match self.options.prompt {
                    // the original names an answer by its code alone
                    Prompt::Paper => record.previous,
                    Prompt::Chat | Prompt::Helpful => label,
                });
                let new_checkpoints = effect
                    .fired
                    .iter()
                    .filter(|t| self.game.checkpoints().contains(t))
                    .count() as u32;
                if new_checkpoints > 0 {
                    self.reached += new_checkpoints;
                    if hinted {
                        self.reached_with_hint += new_checkpoints;
                    }
                    reached = true;
                }
            }
            None => {
                let message = error.clone().unwrap_or_default();
                self.last_action = Some(format!(
                    "{} (not one of the available actions: nothing happened)",
                    reply_excerpt(action)
                ));
                self.feedback = message;
            }
        }
        if reached {
            self.stuck = 0;
        } else {
            self.stuck += 1;
        }
        let error = error.map(|_| "invalid_action".to_string());
        self.note_view();
        let terminated = self.game.escaped(&self.state);
        let truncated = !terminated && (self.steps >= MAX_STEPS || self.stuck >= STUCK_LIMIT);
        self.over = terminated || truncated;
        let feedback = self.feedback.clone();
        let observation = self.observation();
        self.steps_to_go = self.distances.of(&self.game, &self.state);
        Ok(Step {
            observation,
            feedback,
            progress: self.progress(),
            terminated,
            truncated,
            error,
            steps_to_go: self.steps_to_go,
            ..Default::default()
        })
    }

    fn system_prompt(&self) -> String {
        interface::system_prompt(self.options.prompt)
    }

    /// The oracle's moves still needed from the current state (every move one step,
    /// navigation included): [`oracle::Distances`].
    fn steps_to_go(&self) -> Option<u32> {
        self.started.then_some(self.steps_to_go).flatten()
    }

    fn tool_schemas(&self) -> Vec<ToolSchema> {
        interface::tool_schemas(&self.labels)
    }

    /// Under the paper's protocol a refused reply is answered with the original's retry
    /// prompt ([`crate::prompt::retry`]), a whole prompt without the picture; otherwise
    /// with a message naming the available actions.
    fn check_action(&self, action: &Action) -> Result<(), String> {
        self.read(action).map(|_| ()).map_err(|message| {
            if self.options.prompt != Prompt::Paper {
                return message;
            }
            let actions: Vec<String> = self
                .labels
                .iter()
                .filter(|l| !crate::prompt::is_template(l))
                .cloned()
                .collect();
            crate::prompt::retry(
                &self.side().to_uppercase(),
                &crate::prompt::attempt(&reply_text(action)),
                self.hint(),
                &actions,
            )
        })
    }

    fn reask_limit(&self) -> u32 {
        REASK_LIMIT
    }

    fn step_budget(&self) -> Option<u32> {
        Some(MAX_STEPS)
    }

    fn outcome(&self) -> Outcome {
        let success = self.game.escaped(&self.state);
        let oracle = f64::from(self.reference.steps);
        let mut m = BTreeMap::new();
        m.insert("gc".to_string(), self.progress());
        m.insert(
            "spl".to_string(),
            if success {
                oracle / oracle.max(f64::from(self.steps)).max(1.0)
            } else {
                0.0
            },
        );
        m.insert("oracle_steps".to_string(), oracle);
        m.insert("checkpoints".to_string(), f64::from(self.reached));
        if self.game.room().hints && self.reached > 0 {
            m.insert(
                "hint_assisted_rate".to_string(),
                f64::from(self.reached_with_hint) / f64::from(self.reached),
            );
        }
        if self.interactions > 0 {
            m.insert(
                "repeated_action_ratio".to_string(),
                f64::from(self.repeated) / f64::from(self.interactions),
            );
        }
        m.insert("answer_attempts".to_string(), f64::from(self.answers));
        // raw counts, for ratios pooled over episodes (Table 4's HCR, Table 10's ratio)
        m.insert(
            "brute_force_answers".to_string(),
            f64::from(self.brute_force),
        );
        if self.game.room().hints {
            m.insert(
                "hint_assisted_checkpoints".to_string(),
                f64::from(self.reached_with_hint),
            );
        }
        if self.answers > 0 {
            m.insert(
                "brute_force_ratio".to_string(),
                f64::from(self.brute_force) / f64::from(self.answers),
            );
        }
        let essential = self.reference.essential.len().max(1) as f64;
        let seen = |set: &BTreeSet<Scene>| {
            self.reference.essential.intersection(set).count() as f64 / essential
        };
        m.insert("essential_views_seen".to_string(), seen(&self.seen));
        m.insert(
            "essential_views_seen_100".to_string(),
            seen(&self.seen_early),
        );
        m.insert("invalid_actions".to_string(), f64::from(self.invalid));
        Outcome {
            success,
            steps: self.steps,
            metrics: m,
        }
    }

    fn secrets(&self) -> Vec<String> {
        self.game
            .room()
            .quizzes
            .iter()
            .map(|q| q.answer.clone())
            .collect()
    }
}
