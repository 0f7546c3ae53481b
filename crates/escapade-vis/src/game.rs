//! The game graph: a room compiled into indices, its state, the moves available in a
//! state, and what each move does (VisEscape §3.1 "Game Graph", "Actions").
//!
//! The environment, the oracle's search and the validator all go through
//! [`Game::available`] and [`Game::apply`], so the oracle can only do what a player can
//! and a rule is written once. A [`State`] is small and hashable (view, receptacle state
//! indices, taken items, fired triggers) so that breadth-first search over a room's whole
//! state space stays cheap.
//!
//! Views follow App. B.2: a wall view shows one wall; `inspect` moves to a receptacle
//! view and from there to an item view; `step back` goes up one level; `turn to`
//! faces another wall from any view; a lock solved from its close-up hands the view back
//! to its receptacle, as the original's engine does.

use crate::VisError;
use crate::room::{Cause, ItemKind, Room, Rule, Wall};

/// Where the player is looking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum View {
    /// A whole wall.
    Wall(Wall),
    /// A close-up of receptacle `n` (index into `Room::receptacles`).
    Receptacle(usize),
    /// A close-up of item `n` (index into `Room::items`).
    Item(usize),
}

/// One move a player can make.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Move {
    /// Face another wall (from a wall view).
    Turn(Wall),
    /// Look closely at a receptacle on the wall in view.
    InspectReceptacle(usize),
    /// Look closely at an item visible in the receptacle in view.
    InspectItem(usize),
    /// Go back up one view level.
    StepBack,
    /// A verb on the receptacle in view (`open`).
    Verb {
        /// Receptacle index.
        receptacle: usize,
        /// The verb phrase.
        verb: String,
    },
    /// Use an inventory item on the receptacle in view.
    Use(usize),
    /// Take an applicable item into the inventory.
    PickUp(usize),
    /// A verb on an item seen in the receptacle in view (`press button`).
    ItemVerb {
        /// Item index.
        item: usize,
        /// The verb.
        verb: String,
    },
    /// Enter an answer on the lock in view (the empty string stands for the template in
    /// action lists).
    Answer(String),
}

/// The action-list entry for entering an answer.
pub const ANSWER_TEMPLATE: &str = "<ANSWER>your answer</ANSWER>";

/// The state of one play: what is in view and everything that changed.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct State {
    view: View,
    receptacles: Vec<u8>,
    taken: Vec<bool>,
    fired: Vec<bool>,
    /// Per quiz: its clue has been looked at (a player can only know a code after
    /// seeing its clue, so the oracle may only answer then): every clue item of it, and
    /// one of its clue views if it has any.
    clues: Vec<bool>,
    /// Per item: a clue item that has been looked at closely.
    saw: Vec<bool>,
    /// Per quiz: one of its clue views has been seen.
    viewed: Vec<bool>,
}

// By hand for `clone_from`, which keeps the target's buffers: the oracle's search tries
// each move on one scratch copy of the state rather than a new copy per move.
impl Clone for State {
    fn clone(&self) -> State {
        State {
            view: self.view,
            receptacles: self.receptacles.clone(),
            taken: self.taken.clone(),
            fired: self.fired.clone(),
            clues: self.clues.clone(),
            saw: self.saw.clone(),
            viewed: self.viewed.clone(),
        }
    }

    fn clone_from(&mut self, source: &State) {
        self.view = source.view;
        self.receptacles.clone_from(&source.receptacles);
        self.taken.clone_from(&source.taken);
        self.fired.clone_from(&source.fired);
        self.clues.clone_from(&source.clues);
        self.saw.clone_from(&source.saw);
        self.viewed.clone_from(&source.viewed);
    }
}

// By hand because the derived hash feeds the hasher one flag at a time, which was the
// largest part of the oracle's search of a room: the flags go in 64 to a word.
impl std::hash::Hash for State {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        fn flags<H: std::hash::Hasher>(bits: &[bool], h: &mut H) {
            h.write_usize(bits.len());
            for word in bits.chunks(64) {
                h.write_u64(
                    word.iter()
                        .enumerate()
                        .fold(0, |w, (i, &b)| w | (u64::from(b) << i)),
                );
            }
        }
        self.view.hash(h);
        self.receptacles.hash(h);
        flags(&self.taken, h);
        flags(&self.fired, h);
        flags(&self.clues, h);
        flags(&self.saw, h);
        flags(&self.viewed, h);
    }
}

impl State {
    /// Where the player is looking.
    pub fn view(&self) -> View {
        self.view
    }

    /// Moves the view (for tools that render a chosen view, like the quiz suite).
    pub fn set_view(&mut self, view: View) {
        self.view = view;
    }

    /// Puts receptacle `r` in state index `s` (for tools that render a chosen view, like
    /// the quiz suite; play changes states only through [`Game::apply`]).
    pub fn set_receptacle(&mut self, r: usize, s: u8) {
        if let Some(slot) = self.receptacles.get_mut(r) {
            *slot = s;
        }
    }

    /// The state index of each receptacle.
    pub fn rec_states(&self) -> &[u8] {
        &self.receptacles
    }

    /// Whether item `n` has been taken into the inventory.
    pub fn taken(&self, n: usize) -> bool {
        self.taken.get(n).copied().unwrap_or(false)
    }

    /// Whether quiz `q`'s clue has been seen in close-up.
    pub fn clue_seen(&self, q: usize) -> bool {
        self.clues.get(q).copied().unwrap_or(false)
    }

    /// Indices of the triggers that have fired.
    pub fn fired_triggers(&self) -> impl Iterator<Item = usize> + '_ {
        self.fired
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(i, _)| i)
    }
}

/// What a move did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effect {
    /// What the player reads.
    pub feedback: String,
    /// Triggers that fired for the first time.
    pub fired: Vec<usize>,
    /// The move changed a receptacle or the inventory (an interaction, not navigation).
    pub changed: bool,
}

#[derive(Debug, Clone)]
struct Compiled {
    receptacle: usize,
    cause: CCause,
    from: u8,
    to: u8,
    guard: CRule,
    trigger: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
enum CCause {
    Verb(String),
    Item(usize),
    Answer(usize),
    ItemVerb(usize, String),
}

#[derive(Debug, Clone)]
enum CRule {
    Always,
    HasItem(usize),
    Trigger(usize),
    And(Vec<CRule>),
    Not(Box<CRule>),
}

/// A room compiled for play. Cheap to share; all methods are pure.
#[derive(Debug, Clone)]
pub struct Game {
    room: Room,
    triggers: Vec<String>,
    interactions: Vec<Compiled>,
    /// Per item: visible in each state of its receptacle.
    visible: Vec<Vec<bool>>,
    item_rec: Vec<usize>,
    picked: Vec<usize>,
    used: Vec<usize>,
    /// Per item: the `solved <item>` trigger (locks only) and the quiz index.
    lock: Vec<Option<(usize, usize)>>,
    checkpoints: Vec<usize>,
    escaped: usize,
    exit: (usize, u8),
    /// How answers are compared with a lock's code.
    answers: AnswerRule,
    /// Per quiz: the receptacle close-ups (receptacle, state) that show its clue.
    clue_views: Vec<Vec<(usize, u8)>>,
    /// Per quiz: its clue items.
    clue_items: Vec<Vec<usize>>,
}

/// How an entered answer is compared with a lock's code. The paper is silent; the
/// original compares letter for letter (`QuizItem.check_answer`), which is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnswerRule {
    /// As people write codes: case, spaces, dashes, commas, dots, slashes and a time's
    /// colon ignored; arrows and words read as directions ([`canonical_answer`]).
    Lenient,
    /// As the original compares them: the same characters, case aside (surrounding
    /// spaces trimmed).
    #[default]
    Exact,
}

fn state_index(room: &Room, rec: usize, name: &str) -> Result<u8, VisError> {
    room.receptacles[rec]
        .states
        .iter()
        .position(|s| s == name)
        .map(|i| i as u8)
        .ok_or_else(|| VisError::Invalid {
            field: "receptacles",
            reason: format!("no state `{name}`"),
        })
}

impl Game {
    /// Compiles a room (its structure must be valid; see [`crate::validate`]).
    pub fn new(room: Room) -> Result<Game, VisError> {
        crate::validate::check_structure(&room)?;
        if room.receptacles.iter().any(|r| r.states.len() > 250) || room.items.len() > 4096 {
            return Err(VisError::Invalid {
                field: "receptacles",
                reason: "room too large".into(),
            });
        }
        let mut triggers: Vec<String> = Vec::new();
        let mut intern = |name: String| -> usize {
            match triggers.iter().position(|t| *t == name) {
                Some(i) => i,
                None => {
                    triggers.push(name);
                    triggers.len() - 1
                }
            }
        };
        let rec_index = |id: &str| room.receptacles.iter().position(|r| r.id == id);
        let item_index = |id: &str| room.items.iter().position(|r| r.id == id);
        let picked = room
            .items
            .iter()
            .map(|i| intern(format!("picked {}", i.id)))
            .collect();
        let used = room
            .items
            .iter()
            .map(|i| intern(format!("used {}", i.id)))
            .collect();
        let mut lock = Vec::new();
        for item in &room.items {
            lock.push(match &item.kind {
                ItemKind::Lock { quiz } => {
                    let q = room.quizzes.iter().position(|x| &x.id == quiz).unwrap_or(0);
                    Some((intern(format!("solved {}", item.id)), q))
                }
                _ => None,
            });
        }
        let escaped = intern("escaped".to_string());
        fn compile_rule(
            rule: &Rule,
            item_index: &dyn Fn(&str) -> Option<usize>,
            intern: &mut dyn FnMut(String) -> usize,
        ) -> CRule {
            match rule {
                Rule::Always => CRule::Always,
                Rule::HasItem(i) => CRule::HasItem(item_index(i).unwrap_or(usize::MAX)),
                Rule::Trigger(t) => CRule::Trigger(intern(t.clone())),
                Rule::And(rules) => CRule::And(
                    rules
                        .iter()
                        .map(|r| compile_rule(r, item_index, intern))
                        .collect(),
                ),
                Rule::Not(r) => CRule::Not(Box::new(compile_rule(r, item_index, intern))),
            }
        }
        let mut interactions = Vec::new();
        for x in &room.interactions {
            let r = rec_index(&x.receptacle).ok_or_else(|| VisError::Invalid {
                field: "receptacles",
                reason: format!("unknown `{}`", x.receptacle),
            })?;
            let cause = match &x.cause {
                Cause::Verb { verb } => CCause::Verb(verb.trim().to_lowercase()),
                Cause::Item { item } => CCause::Item(item_index(item).unwrap_or(usize::MAX)),
                Cause::Answer { lock } => CCause::Answer(item_index(lock).unwrap_or(usize::MAX)),
                Cause::ItemVerb { verb, item } => CCause::ItemVerb(
                    item_index(item).unwrap_or(usize::MAX),
                    verb.trim().to_lowercase(),
                ),
            };
            interactions.push(Compiled {
                receptacle: r,
                cause,
                from: state_index(&room, r, &x.from)?,
                to: state_index(&room, r, &x.to)?,
                guard: compile_rule(&x.guard, &item_index, &mut intern),
                trigger: x.trigger.clone().map(&mut intern),
            });
        }
        let checkpoints = room
            .checkpoints
            .iter()
            .map(|c| intern(c.trigger.clone()))
            .collect();
        let mut visible = Vec::new();
        let mut item_rec = Vec::new();
        for item in &room.items {
            let r = rec_index(&item.receptacle).unwrap_or(0);
            item_rec.push(r);
            visible.push(
                room.receptacles[r]
                    .states
                    .iter()
                    .map(|s| item.visible_in.contains(s))
                    .collect(),
            );
        }
        let exit_rec = rec_index(&room.exit.receptacle).unwrap_or(0);
        let exit = (exit_rec, state_index(&room, exit_rec, &room.exit.state)?);
        let mut clue_views = Vec::new();
        for q in &room.quizzes {
            let mut views = Vec::new();
            for v in &q.clue_views {
                let r = rec_index(&v.receptacle).ok_or_else(|| VisError::Invalid {
                    field: "receptacles",
                    reason: format!("unknown `{}`", v.receptacle),
                })?;
                views.push((r, state_index(&room, r, &v.state)?));
            }
            clue_views.push(views);
        }
        let clue_items = room
            .quizzes
            .iter()
            .map(|q| {
                (0..room.items.len())
                    .filter(|&i| matches!(&room.items[i].kind, ItemKind::Clue { quiz } if quiz == &q.id))
                    .collect()
            })
            .collect();
        Ok(Game {
            room,
            triggers,
            interactions,
            visible,
            item_rec,
            picked,
            used,
            lock,
            checkpoints,
            escaped,
            exit,
            answers: AnswerRule::default(),
            clue_views,
            clue_items,
        })
    }

    /// The game with answers compared by `rule`.
    pub fn with_answers(mut self, rule: AnswerRule) -> Game {
        self.answers = rule;
        self
    }

    /// How this game compares answers.
    pub fn answer_rule(&self) -> AnswerRule {
        self.answers
    }

    /// Whether `text` opens the lock of `quiz`, by this game's [`AnswerRule`].
    pub fn accepts(&self, quiz: &crate::room::Quiz, text: &str) -> bool {
        match self.answers {
            AnswerRule::Lenient => accepts(quiz, text),
            AnswerRule::Exact => text.trim().to_lowercase() == quiz.answer.to_lowercase(),
        }
    }

    /// The room.
    pub fn room(&self) -> &Room {
        &self.room
    }

    /// The starting state.
    pub fn start(&self) -> State {
        State {
            view: View::Wall(self.room.start),
            receptacles: self
                .room
                .receptacles
                .iter()
                .enumerate()
                .map(|(i, r)| state_index(&self.room, i, &r.initial).unwrap_or(0))
                .collect(),
            taken: vec![false; self.room.items.len()],
            fired: vec![false; self.triggers.len()],
            // a quiz with no clue (an imported one whose code is on the walls) can be
            // answered from the start
            clues: (0..self.room.quizzes.len())
                .map(|q| self.clue_items[q].is_empty() && self.clue_views[q].is_empty())
                .collect(),
            saw: vec![false; self.room.items.len()],
            viewed: vec![false; self.room.quizzes.len()],
        }
    }

    /// The index of a trigger name.
    pub fn trigger_index(&self, name: &str) -> Option<usize> {
        self.triggers.iter().position(|t| t == name)
    }

    /// Quiz `q`'s clue counts as seen once every clue item of it has been looked at and,
    /// if it has clue views, one of them has been seen.
    fn update_clue(&self, state: &mut State, q: usize) {
        state.clues[q] = self.clue_items[q].iter().all(|&i| state.saw[i])
            && (self.clue_views[q].is_empty() || state.viewed[q]);
    }

    /// The name of trigger `t`.
    pub fn trigger_name(&self, t: usize) -> Option<&str> {
        self.triggers.get(t).map(String::as_str)
    }

    /// The checkpoint trigger indices, in solving order.
    pub fn checkpoints(&self) -> &[usize] {
        &self.checkpoints
    }

    /// How many checkpoints `state` has reached.
    pub fn reached(&self, state: &State) -> usize {
        self.checkpoints.iter().filter(|&&t| state.fired[t]).count()
    }

    /// The first checkpoint (in order) not reached yet.
    pub fn next_checkpoint(&self, state: &State) -> Option<usize> {
        self.checkpoints.iter().position(|&t| !state.fired[t])
    }

    /// The room has been escaped.
    pub fn escaped(&self, state: &State) -> bool {
        state.receptacles[self.exit.0] == self.exit.1
    }

    /// The name of receptacle `r`'s current state.
    pub fn state_name(&self, state: &State, r: usize) -> &str {
        let rec = &self.room.receptacles[r];
        rec.states
            .get(state.receptacles[r] as usize)
            .map(String::as_str)
            .unwrap_or("")
    }

    /// Item `i` can be seen now (not taken, its receptacle in a showing state).
    pub fn item_visible(&self, state: &State, i: usize) -> bool {
        !state.taken[i] && self.visible[i][state.receptacles[self.item_rec[i]] as usize]
    }

    /// The receptacle index item `i` is in.
    pub fn item_receptacle(&self, i: usize) -> usize {
        self.item_rec[i]
    }

    /// Items visible in receptacle `r` now, in room order.
    pub fn visible_items(&self, state: &State, r: usize) -> Vec<usize> {
        (0..self.room.items.len())
            .filter(|&i| self.item_rec[i] == r && self.item_visible(state, i))
            .collect()
    }

    /// Receptacle indices on wall `w`, in room order.
    pub fn on_wall(&self, w: Wall) -> Vec<usize> {
        (0..self.room.receptacles.len())
            .filter(|&r| self.room.receptacles[r].wall == w)
            .collect()
    }

    /// The inventory, in the order items were listed in the room.
    pub fn inventory(&self, state: &State) -> Vec<usize> {
        (0..self.room.items.len())
            .filter(|&i| self.held(state, i))
            .collect()
    }

    /// Item `i` is in the bag: taken, and not spent (a single-use item leaves the bag
    /// once used).
    pub fn held(&self, state: &State, i: usize) -> bool {
        state.taken.get(i).copied().unwrap_or(false)
            && !(self.room.items[i].single_use && state.fired[self.used[i]])
    }

    /// Lock item `i` has been answered correctly.
    pub fn solved(&self, state: &State, i: usize) -> bool {
        self.lock[i].is_some_and(|(t, _)| state.fired[t])
    }

    /// The quiz index of lock or clue item `i`.
    pub fn quiz_of(&self, i: usize) -> Option<usize> {
        match &self.room.items[i].kind {
            ItemKind::Lock { quiz } | ItemKind::Clue { quiz } => {
                self.room.quizzes.iter().position(|q| &q.id == quiz)
            }
            _ => None,
        }
    }

    /// What the current view shows, as a comparable key: two states with the same key
    /// show the same picture (App. C.3 counts *scenes*, and each receptacle state is its
    /// own picture, §3.1). The key holds the view, the state of each receptacle in it
    /// and, for each item in those receptacles, whether it is visible and (for locks)
    /// solved.
    pub fn scene(&self, state: &State) -> (View, Vec<u8>) {
        let mut key = Vec::new();
        let item_bits = |i: usize| {
            u8::from(self.item_visible(state, i)) | (u8::from(self.solved(state, i)) << 1)
        };
        let receptacle = |r: usize, key: &mut Vec<u8>| {
            key.push(state.receptacles[r]);
            for i in 0..self.room.items.len() {
                if self.item_rec[i] == r {
                    key.push(item_bits(i));
                }
            }
        };
        match state.view {
            View::Wall(w) => {
                for r in self.on_wall(w) {
                    receptacle(r, &mut key);
                }
            }
            View::Receptacle(r) => receptacle(r, &mut key),
            View::Item(i) => key.push(item_bits(i)),
        }
        (state.view, key)
    }

    /// The key of the current view's picture and description: the [`Game::scene`] and,
    /// for each receptacle in view, whether each trigger that a way out of its current
    /// state waits for has fired — an electric latch shows that as a green or red light
    /// (`render::marks`), so two states of one scene can still look different.
    pub fn picture_key(&self, state: &State) -> (View, Vec<u8>) {
        let (view, mut key) = self.scene(state);
        let in_view = match view {
            View::Wall(w) => self.on_wall(w),
            View::Receptacle(r) => vec![r],
            View::Item(_) => Vec::new(),
        };
        for r in in_view {
            let rec = &self.room.receptacles[r];
            let here = self.state_name(state, r);
            for x in self
                .room
                .interactions
                .iter()
                .filter(|x| x.receptacle == rec.id && x.from == here)
            {
                for t in x.guard.awaited() {
                    let fired = self
                        .trigger_index(t)
                        .is_some_and(|t| state.fired_triggers().any(|f| f == t));
                    key.push(u8::from(fired));
                }
            }
        }
        (view, key)
    }

    /// The wall that view `v` belongs to.
    pub fn wall_of(&self, v: View) -> Wall {
        match v {
            View::Wall(w) => w,
            View::Receptacle(r) => self.room.receptacles[r].wall,
            View::Item(i) => self.room.receptacles[self.item_rec[i]].wall,
        }
    }

    fn holds(&self, state: &State, rule: &CRule) -> bool {
        match rule {
            CRule::Always => true,
            CRule::HasItem(i) => *i < self.room.items.len() && self.held(state, *i),
            CRule::Trigger(t) => state.fired[*t],
            CRule::And(rules) => rules.iter().all(|r| self.holds(state, r)),
            CRule::Not(r) => !self.holds(state, r),
        }
    }

    /// Whether the guard of interaction `n` (an index into `Room::interactions`) holds in
    /// `state`.
    pub fn guard_holds(&self, state: &State, n: usize) -> bool {
        self.interactions
            .get(n)
            .is_some_and(|x| self.holds(state, &x.guard))
    }

    /// The moves available in `state`, in a fixed order (the environment shuffles them
    /// for display). An answer is listed as `Move::Answer("")`.
    ///
    /// As in the original game, `turn to` another wall is open from every view (a
    /// close-up included, which it leaves for that wall), and the bag's items can be
    /// used from a receptacle's close-up and from an item's.
    pub fn available(&self, state: &State) -> Vec<Move> {
        let mut out = Vec::new();
        match state.view {
            View::Wall(w) => {
                for r in self.on_wall(w) {
                    out.push(Move::InspectReceptacle(r));
                }
            }
            View::Receptacle(r) => {
                out.push(Move::StepBack);
                for i in self.visible_items(state, r) {
                    if self.room.items[i].inspectable {
                        out.push(Move::InspectItem(i));
                    }
                    if self.room.items[i].kind == ItemKind::Applicable {
                        out.push(Move::PickUp(i));
                    }
                    let mut verbs: Vec<&str> = Vec::new();
                    for x in &self.interactions {
                        if let CCause::ItemVerb(item, v) = &x.cause
                            && *item == i
                            && !verbs.contains(&v.as_str())
                        {
                            verbs.push(v);
                        }
                    }
                    out.extend(verbs.into_iter().map(|v| Move::ItemVerb {
                        item: i,
                        verb: v.to_string(),
                    }));
                }
                let mut verbs: Vec<&str> = Vec::new();
                for x in &self.interactions {
                    if let CCause::Verb(v) = &x.cause
                        && x.receptacle == r
                        && x.from == state.receptacles[r]
                        && !verbs.contains(&v.as_str())
                    {
                        verbs.push(v);
                    }
                }
                out.extend(verbs.into_iter().map(|v| Move::Verb {
                    receptacle: r,
                    verb: v.to_string(),
                }));
                for i in self.inventory(state) {
                    out.push(Move::Use(i));
                }
            }
            View::Item(i) => {
                out.push(Move::StepBack);
                if self.room.items[i].kind == ItemKind::Applicable && self.item_visible(state, i) {
                    out.push(Move::PickUp(i));
                }
                if self.lock[i].is_some() && !self.solved(state, i) {
                    out.push(Move::Answer(String::new()));
                }
                for held in self.inventory(state) {
                    out.push(Move::Use(held));
                }
            }
        }
        let here = self.wall_of(state.view);
        out.extend(Wall::ALL.into_iter().filter(|&w| w != here).map(Move::Turn));
        out
    }

    /// The action text of a move, as listed to the agent.
    pub fn label(&self, m: &Move) -> String {
        let room = &self.room;
        match m {
            Move::Turn(w) => format!("turn to {}", w.name()),
            Move::InspectReceptacle(r) => format!("inspect {}", room.receptacles[*r].name),
            Move::InspectItem(i) => format!("inspect {}", room.items[*i].name),
            Move::StepBack => "step back".into(),
            Move::Verb { receptacle, verb } => {
                format!("{verb} {}", room.receptacles[*receptacle].name)
            }
            Move::Use(i) => format!("use {}", room.items[*i].name),
            Move::PickUp(i) => format!("pick up {}", room.items[*i].name),
            Move::ItemVerb { item, verb } => format!("{verb} {}", room.items[*item].name),
            Move::Answer(a) if a.is_empty() => ANSWER_TEMPLATE.into(),
            Move::Answer(a) => format!("<ANSWER>{a}</ANSWER>"),
        }
    }

    /// The correct answer of lock item `i` (for the oracle; never shown to agents).
    pub fn answer_of(&self, i: usize) -> Option<&str> {
        self.lock[i].map(|(_, q)| self.room.quizzes[q].answer.as_str())
    }

    fn fire(&self, state: &mut State, t: usize, effect: &mut Effect) {
        if !state.fired[t] {
            state.fired[t] = true;
            effect.fired.push(t);
        }
    }

    fn transition(&self, state: &mut State, x: &Compiled, effect: &mut Effect) {
        state.receptacles[x.receptacle] = x.to;
        effect.changed = true;
        if let Some(t) = x.trigger {
            self.fire(state, t, effect);
        }
        if self.escaped(state) {
            self.fire(state, self.escaped, effect);
        }
    }

    fn describe_change(&self, x: &Compiled, index: usize) -> String {
        let spec = &self.room.interactions[index];
        spec.message.clone().unwrap_or_else(|| {
            let rec = &self.room.receptacles[x.receptacle];
            change_sentence(
                rec,
                &rec.states[x.from as usize],
                &rec.states[x.to as usize],
            )
        })
    }

    /// Does the first interaction that is `wanted`, applies in the current state of its
    /// receptacle and whose guard holds; else says the first such interaction's refusal,
    /// or `nothing`.
    fn act(
        &self,
        state: &mut State,
        effect: &mut Effect,
        wanted: impl Fn(&Compiled) -> bool,
        nothing: &str,
    ) {
        let candidates: Vec<usize> = (0..self.interactions.len())
            .filter(|&n| {
                let x = &self.interactions[n];
                wanted(x) && x.from == state.receptacles[x.receptacle]
            })
            .collect();
        match candidates
            .iter()
            .find(|&&n| self.holds(state, &self.interactions[n].guard))
        {
            Some(&n) => {
                let x = self.interactions[n].clone();
                self.transition(state, &x, effect);
                effect.feedback = self.describe_change(&x, n);
            }
            None => {
                effect.feedback = candidates
                    .first()
                    .and_then(|&n| self.room.interactions[n].refusal.clone())
                    .unwrap_or_else(|| nothing.into());
            }
        }
    }

    /// Applies `m`, which must be one of [`Game::available`]'s moves (an answer may carry
    /// any text). Returns what happened.
    ///
    /// A lock solved from its close-up (a right code, or an item used from the close-up
    /// with effect) returns the view to its receptacle's close-up, as the original's
    /// engine does (`game_state.py`; the paper is silent): the next picture shows what
    /// the lock opened.
    pub fn apply(&self, state: &mut State, m: &Move) -> Effect {
        let mut effect = Effect::default();
        let room = &self.room;
        match m {
            Move::Turn(w) => {
                state.view = View::Wall(*w);
                effect.feedback = format!("You turn to the {} wall.", w.name());
            }
            Move::InspectReceptacle(r) => {
                state.view = View::Receptacle(*r);
                effect.feedback = format!("You look closely at the {}.", room.receptacles[*r].name);
            }
            Move::InspectItem(i) => {
                state.view = View::Item(*i);
                if let (ItemKind::Clue { .. }, Some(q)) = (&room.items[*i].kind, self.quiz_of(*i)) {
                    state.saw[*i] = true;
                    self.update_clue(state, q);
                }
                effect.feedback = format!("You look closely at the {}.", room.items[*i].name);
            }
            Move::StepBack => {
                state.view = match state.view {
                    View::Item(i) => View::Receptacle(self.item_rec[i]),
                    View::Receptacle(r) => View::Wall(room.receptacles[r].wall),
                    v => v,
                };
                effect.feedback = "You step back.".into();
            }
            Move::Verb { receptacle, verb } => {
                let cause = CCause::Verb(verb.clone());
                let wanted = |x: &Compiled| x.receptacle == *receptacle && x.cause == cause;
                self.act(state, &mut effect, wanted, "It won't budge.");
            }
            Move::Use(i) => {
                let target = match state.view {
                    View::Receptacle(r) => Some(r),
                    View::Item(it) => Some(self.item_rec[it]),
                    View::Wall(_) => None,
                };
                let found = target.and_then(|r| {
                    (0..self.interactions.len()).find(|&n| {
                        let x = &self.interactions[n];
                        x.receptacle == r
                            && x.from == state.receptacles[r]
                            && x.cause == CCause::Item(*i)
                            && self.holds(state, &x.guard)
                    })
                });
                match found {
                    Some(n) => {
                        let x = self.interactions[n].clone();
                        self.transition(state, &x, &mut effect);
                        self.fire(state, self.used[*i], &mut effect);
                        // from a lock's close-up, back to its receptacle's
                        if let View::Item(it) = state.view {
                            state.view = View::Receptacle(self.item_rec[it]);
                        }
                        effect.feedback = format!(
                            "You use the {}. {}",
                            room.items[*i].name,
                            self.describe_change(&x, n)
                        );
                    }
                    None => {
                        effect.feedback =
                            format!("You use the {}, but nothing happens.", room.items[*i].name);
                    }
                }
            }
            Move::ItemVerb { item, verb } => {
                let cause = CCause::ItemVerb(*item, verb.clone());
                self.act(state, &mut effect, |x| x.cause == cause, "Nothing happens.");
            }
            Move::PickUp(i) => {
                state.taken[*i] = true;
                effect.changed = true;
                self.fire(state, self.picked[*i], &mut effect);
                if state.view == View::Item(*i) {
                    state.view = View::Receptacle(self.item_rec[*i]);
                }
                effect.feedback = format!("You put the {} in your bag.", room.items[*i].name);
            }
            Move::Answer(text) => {
                let View::Item(i) = state.view else {
                    effect.feedback = "There is no lock in view to answer.".into();
                    return effect;
                };
                let Some((solved, q)) = self.lock[i] else {
                    effect.feedback = "There is no lock in view to answer.".into();
                    return effect;
                };
                if self.accepts(&room.quizzes[q], text) {
                    let candidates: Vec<usize> = (0..self.interactions.len())
                        .filter(|&n| {
                            let x = &self.interactions[n];
                            x.cause == CCause::Answer(i)
                                && x.from == state.receptacles[x.receptacle]
                        })
                        .collect();
                    let open: Vec<usize> = candidates
                        .iter()
                        .copied()
                        .filter(|&n| self.holds(state, &self.interactions[n].guard))
                        .collect();
                    if !candidates.is_empty() && open.is_empty() {
                        // a right code that cannot act yet (say, no power) leaves the lock
                        // unsolved, so it can be answered again once the guard holds
                        effect.feedback = room.interactions[candidates[0]]
                            .refusal
                            .clone()
                            .unwrap_or_else(|| "The lock beeps, but nothing opens.".into());
                        return effect;
                    }
                    self.fire(state, solved, &mut effect);
                    effect.changed = true;
                    let mut messages = vec!["Correct: the lock clicks open.".to_string()];
                    for n in open {
                        let x = self.interactions[n].clone();
                        if x.from == state.receptacles[x.receptacle] {
                            self.transition(state, &x, &mut effect);
                            messages.push(self.describe_change(&x, n));
                        }
                    }
                    effect.feedback = messages.join(" ");
                    state.view = View::Receptacle(self.item_rec[i]);
                } else {
                    effect.feedback = format!(
                        "You enter {}, but the lock stays shut.",
                        crate::text::quote(text, 40)
                    );
                }
            }
        }
        // a close-up of something that just disappeared falls back to its receptacle
        if let View::Item(i) = state.view
            && !self.item_visible(state, i)
            && !state.taken[i]
        {
            state.view = View::Receptacle(self.item_rec[i]);
        }
        // a receptacle close-up whose picture shows a clue
        if let View::Receptacle(r) = state.view {
            for q in 0..self.clue_views.len() {
                if self.clue_views[q].contains(&(r, state.receptacles[r])) {
                    state.viewed[q] = true;
                    self.update_clue(state, q);
                }
            }
        }
        effect
    }
}

/// The default sentence for receptacle `rec` going from state `from` to state `to`
/// (when its interaction sets no message). A chest of two drawers has combined states
/// (`closed_open`: top shut, bottom open), so it says which drawer changed: "The top
/// drawer of the dresser is now open." A state that leaves a locked one for `closed`
/// reads as unlocked.
pub fn change_sentence(rec: &crate::room::Receptacle, from: &str, to: &str) -> String {
    let word = |from: &str, to: &str| -> String {
        if to == "closed" && from.contains("lock") {
            "unlocked".to_string()
        } else {
            to.replace('_', " ")
        }
    };
    if rec.furniture == crate::room::Furniture::Drawers {
        let (f, t): (Vec<&str>, Vec<&str>) = (from.split('_').collect(), to.split('_').collect());
        if f.len() == 2 && t.len() == 2 {
            let changed: Vec<(&str, String)> = ["top", "bottom"]
                .into_iter()
                .enumerate()
                .filter(|&(k, _)| f[k] != t[k])
                .map(|(k, which)| (which, word(f[k], t[k])))
                .collect();
            match changed.as_slice() {
                [(which, now)] => {
                    return format!("The {which} drawer of the {} is now {now}.", rec.name);
                }
                [(a, now_a), (b, now_b)] => {
                    return format!(
                        "The {a} drawer of the {} is now {now_a}, and its {b} drawer {now_b}.",
                        rec.name
                    );
                }
                _ => {}
            }
        }
    }
    format!("The {} is now {}.", rec.name, word(from, to))
}

/// Answers compare case-insensitively (§3.1), ignoring the separators people type
/// between characters: spaces, dashes, commas, underscores, slashes, dots and the colon
/// of a time (`07:45` is `0745`).
pub fn normalize_answer(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | ',' | '_' | ':' | '.' | '/'))
        .flat_map(char::to_uppercase)
        .collect()
}

/// An answer to a lock of `code` kind in canonical form: [`normalize_answer`], and for
/// direction locks arrows (`↑`) and words (`up`, `Right`) read as `U`, `D`, `L`, `R`.
pub fn canonical_answer(code: crate::room::CodeKind, text: &str) -> String {
    if code != crate::room::CodeKind::Direction {
        return normalize_answer(text);
    }
    let mapped: String = text
        .chars()
        .map(|c| match c {
            '↑' => 'U',
            '↓' => 'D',
            '←' => 'L',
            '→' => 'R',
            other => other,
        })
        .collect();
    let mut out = String::new();
    for word in mapped
        .split(|c: char| c.is_whitespace() || matches!(c, '-' | ',' | '_' | '/' | '.'))
        .filter(|w| !w.is_empty())
    {
        match word.to_uppercase().as_str() {
            "UP" => out.push('U'),
            "DOWN" => out.push('D'),
            "LEFT" => out.push('L'),
            "RIGHT" => out.push('R'),
            other => out.push_str(&normalize_answer(other)),
        }
    }
    out
}

/// Whether `text` opens a lock of `quiz`.
pub fn accepts(quiz: &crate::room::Quiz, text: &str) -> bool {
    canonical_answer(quiz.code, text) == canonical_answer(quiz.code, &quiz.answer)
}
