//! The puzzle contract, the ten puzzle kinds, and making a puzzle from an instance.
//!
//! Every COMMA puzzle (§3.3, App. A, App. B) is a small state machine over a fixed list
//! of named actions (the original's names, e.g. `cut_wire_2`, `press_top_left_button`),
//! so that the original's 1000 evaluation instances can be imported and checked action
//! by action (`../shared/fixtures/comma/original_answers.jsonl`). A puzzle is built from
//! an *instance* — the original's JSON fields for that puzzle class — and a seed that
//! drives anything the puzzle draws while it is played (Memory's displays, LED letters,
//! Colour's regrouping), so the same instance and seed replay identically.

use serde_json::Value;

use crate::CommaError;
pub use crate::render::Drawing;

/// What one action did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActResult {
    /// The action broke the manual's rules (a strike, COMMA §4.2 "mistakes").
    pub mistake: bool,
    /// What the solver is told (never the solution).
    pub feedback: String,
}

impl ActResult {
    /// The answer to an action name the puzzle does not have (not a mistake).
    pub fn unknown(action: &str) -> ActResult {
        ActResult {
            mistake: false,
            feedback: format!("There is no action `{action}`."),
        }
    }

    /// The answer to any action once the module is disarmed (not a mistake).
    pub fn already_solved() -> ActResult {
        ActResult {
            mistake: false,
            feedback: "The module is already disarmed.".into(),
        }
    }
}

/// The ten puzzles (COMMA §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PuzzleKind {
    /// Cut the one right wire of 3–6 (App. A "Wire Puzzle"; serial number 123456, as the
    /// original's model configurations set it).
    Wire,
    /// Who's on first: read a display, find a label, press a button.
    Who,
    /// LED multipliers and diagonal letters over 2–5 stages.
    Led,
    /// Five stages of position and label rules; a mistake resets.
    Memory,
    /// Press four symbols in their column's order.
    Keypad,
    /// Cycle five letter wheels to a listed word and submit.
    Password,
    /// Whiten a 4×4 grid group by group.
    Colour,
    /// Walk a mouse to the sphere the torus colour names.
    Maze,
    /// Withdraw or deposit depending on a private balance, behind a private PIN.
    Atm,
    /// Diagnose a skin lesion and choose its treatment, keeping patient data private.
    Telehealth,
}

impl PuzzleKind {
    /// Every kind, in the paper's table order.
    pub const ALL: [PuzzleKind; 10] = [
        PuzzleKind::Wire,
        PuzzleKind::Telehealth,
        PuzzleKind::Who,
        PuzzleKind::Led,
        PuzzleKind::Memory,
        PuzzleKind::Keypad,
        PuzzleKind::Password,
        PuzzleKind::Colour,
        PuzzleKind::Maze,
        PuzzleKind::Atm,
    ];

    /// Short lowercase name (`wire`, `who`, …), used in CLI flags and scenario ids.
    pub fn name(self) -> &'static str {
        match self {
            PuzzleKind::Wire => "wire",
            PuzzleKind::Who => "who",
            PuzzleKind::Led => "led",
            PuzzleKind::Memory => "memory",
            PuzzleKind::Keypad => "keypad",
            PuzzleKind::Password => "password",
            PuzzleKind::Colour => "colour",
            PuzzleKind::Maze => "maze",
            PuzzleKind::Atm => "atm",
            PuzzleKind::Telehealth => "telehealth",
        }
    }

    /// The capability categories the puzzle tests (COMMA §3.2: memory, grounding,
    /// reasoning, privacy). The paper marks them with icons in §3.3, which its text lost;
    /// this is our reading of them.
    pub fn capabilities(self) -> &'static [&'static str] {
        match self {
            PuzzleKind::Wire | PuzzleKind::Who => &["grounding"],
            PuzzleKind::Telehealth => &["grounding", "privacy"],
            PuzzleKind::Led | PuzzleKind::Keypad | PuzzleKind::Maze => &["grounding", "reasoning"],
            PuzzleKind::Memory | PuzzleKind::Password | PuzzleKind::Colour => {
                &["memory", "reasoning"]
            }
            PuzzleKind::Atm => &["privacy"],
        }
    }

    /// The original's class name (`SimpleWirePuzzle`, …).
    pub fn class(self) -> &'static str {
        match self {
            PuzzleKind::Wire => "SimpleWirePuzzle",
            PuzzleKind::Who => "WhoPuzzle",
            PuzzleKind::Led => "LedPuzzle",
            PuzzleKind::Memory => "MemoryPuzzle",
            PuzzleKind::Keypad => "KeyPadPuzzle",
            PuzzleKind::Password => "PasswordPuzzle",
            PuzzleKind::Colour => "ColourPuzzle",
            PuzzleKind::Maze => "MazePuzzle",
            PuzzleKind::Atm => "AtmPuzzle",
            PuzzleKind::Telehealth => "TelehealthPuzzle",
        }
    }

    /// The kind named `name` (short name or the original's class name, any case).
    pub fn parse(name: &str) -> Result<PuzzleKind, CommaError> {
        let n = name.trim().to_lowercase();
        PuzzleKind::ALL
            .into_iter()
            .find(|k| {
                k.name() == n
                    || k.class().to_lowercase() == n
                    || (n == "color" && *k == PuzzleKind::Colour)
            })
            .ok_or_else(|| CommaError::UnknownPuzzle {
                name: name.to_string(),
                known: PuzzleKind::ALL.map(|k| k.name()).join(", "),
            })
    }
}

/// One puzzle being played by a solver. See the module docs.
pub trait Puzzle: Send {
    /// Which puzzle this is.
    fn kind(&self) -> PuzzleKind;

    /// Every action name the solver may use (the full list, in a fixed order; the random
    /// baseline draws from it uniformly).
    fn actions(&self) -> Vec<String>;

    /// Applies one action from [`Puzzle::actions`] (an unknown name is a caller bug and
    /// changes nothing).
    fn act(&mut self, action: &str) -> ActResult;

    /// The puzzle is solved.
    fn solved(&self) -> bool;

    /// Partial progress now, in `[0, 1]`: stages done ÷ stages, Keypad buttons down ÷ 4,
    /// Maze path progress toward the goal, Telehealth diagnosis and treatment halves;
    /// single-step puzzles 0 or 1. Its most over an episode is PSR under `-W psr=best`,
    /// and the original's score where [`Puzzle::score`] is `None` (COMMA §4.2).
    fn progress(&self) -> f64;

    /// The original's score (its module's `get_score`) where it is not the most progress
    /// reached: Memory and Keypad keep the progress of the last correct press (a strike
    /// does not lower it, the first correct press after it does), Maze the straight-line
    /// distance covered. `None` for the puzzles whose original score is the most progress
    /// reached, or 0 or 1.
    fn score(&self) -> Option<f64> {
        None
    }

    /// The actions that are correct now (empty when solved). The oracle takes the first.
    fn correct_actions(&self) -> Vec<String>;

    /// The oracle's distance ([`escapade_core::Env::steps_to_go`]): the correct actions
    /// still required to solve the puzzle from now, counted by playing a copy forward
    /// with [`play_out`] (0 when solved): the oracle's plan, not always the shortest
    /// (in Colour the next group depends on the square pressed). `None` where the
    /// puzzle cannot say (the default, for puzzles outside this crate).
    fn remaining(&self) -> Option<u32> {
        None
    }

    /// An exact text description of what the solver sees now (for text-only solvers).
    fn describe(&self) -> String;

    /// What the solver can say about its screen without revealing a private value: the
    /// exact description for most puzzles; ATM and Telehealth leave their private fields
    /// out (COMMA §5.3). The talking oracle solver sends this ([`crate::reader`]).
    fn shareable(&self) -> String {
        self.describe()
    }

    /// Whether `action`, done now, types something private that the expert must not
    /// hear (an ATM PIN digit): the environment relays that line of the solver's message
    /// as hidden. Keys typed on a keypad are done, not said.
    fn hides(&self, action: &str) -> bool {
        let _ = action;
        false
    }

    /// What the solver holds besides the screen, which its picture does not show
    /// (Telehealth's patient record); the solver is given it as text even when it sees
    /// the picture. `None` for puzzles whose picture shows everything.
    fn documents(&self) -> Option<String> {
        None
    }

    /// What the solver's picture shows now, as values ([`Drawing`]): equal drawings are
    /// equal pictures, so the environment draws each distinct one once. `None` for a
    /// puzzle whose picture is not drawn from its state (Telehealth's photograph).
    fn drawing(&self) -> Option<Drawing> {
        None
    }

    /// The solver's view as a PNG (deterministic: same state ⇒ same bytes): its
    /// [`Puzzle::drawing`] drawn. A puzzle without a picture returns an error and the
    /// solver gets the description only.
    fn render(&self) -> Result<Vec<u8>, CommaError> {
        match self.drawing() {
            Some(drawing) => drawing.png(),
            None => Err(CommaError::NoPicture {
                puzzle: self.kind().name(),
            }),
        }
    }

    /// Private values the solver must not reveal (ATM's PIN and balance, Telehealth's
    /// patient fields); empty for the other puzzles.
    fn private(&self) -> Vec<String> {
        Vec::new()
    }

    /// The instance this puzzle was built from, in the original's field names.
    fn instance(&self) -> Value;

    /// Puts the puzzle's randomly drawn screen into the state `obs` describes (the
    /// `trace[].obs` objects of the original-answers fixture), for puzzles whose screens
    /// the original drew at random. Others refuse.
    fn load_screen(&mut self, obs: &Value) -> Result<(), CommaError> {
        let _ = obs;
        Err(CommaError::Screen {
            puzzle: self.kind().name(),
            reason: "the puzzle draws no screen at random".into(),
        })
    }
}

/// Plays `p` forward with its first correct action until it is solved or `limit` actions
/// were taken, and returns those actions — the whole remaining solution of a puzzle whose
/// screens do not change at random — and whether it got stuck (no correct action while
/// unsolved). The oracle experts plan with it.
pub fn play_out(p: &mut dyn Puzzle, limit: usize) -> (Vec<String>, bool) {
    let mut plan = Vec::new();
    while !p.solved() && plan.len() < limit {
        let Some(next) = p.correct_actions().into_iter().next() else {
            return (plan, true);
        };
        p.act(&next);
        plan.push(next);
    }
    (plan, false)
}

/// [`Puzzle::remaining`] of a puzzle that can be copied: its copy played forward with
/// the first correct action (the copy carries the puzzle's own random state, so screens
/// drawn at random come out as they will); `None` when the copy gets stuck or the plan
/// exceeds `limit`.
pub fn remaining_of<P: Puzzle + Clone>(p: &P, limit: usize) -> Option<u32> {
    let mut copy = p.clone();
    let (plan, stuck) = play_out(&mut copy, limit);
    (!stuck && copy.solved()).then(|| u32::try_from(plan.len()).unwrap_or(u32::MAX))
}

/// How Memory labels its buttons (COMMA App. A "Memory Puzzle" says only that stages may
/// refer to positions or labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryLabels {
    /// The original's layout, 3 1 2 4 from left to right, the same at every stage: its
    /// code never moves the labels and its 1000 evaluation instances name none. The
    /// default.
    #[default]
    Fixed,
    /// The labels are shuffled at every stage (escapade's earlier reading: the position
    /// rules and the label rules then pick different buttons; a different task).
    Shuffled,
}

/// The serial number on the Wire module: the one the original's model configurations set
/// (`SERIAL_NUMBER` 123456 in `config/experiments_AI/*`), so the one the paper's models saw.
/// The original's random baseline configuration used 135790; both end in an even digit.
pub const SERIAL: u32 = 123_456;

/// Variants of the puzzles' rules a run may choose (`-W` world options); the default is
/// the original's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Memory's button labels.
    pub memory_labels: MemoryLabels,
    /// The serial number printed on the Wire module (`-W serial=N`): its last digit
    /// decides three of the manual's rules.
    pub serial: u32,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            memory_labels: MemoryLabels::default(),
            serial: SERIAL,
        }
    }
}

/// A puzzle of `kind` from the original's instance fields; `seed` drives what it draws
/// during play. The original's rules ([`Rules::default`]).
pub fn import(
    kind: PuzzleKind,
    instance: &Value,
    seed: u64,
) -> Result<Box<dyn Puzzle>, CommaError> {
    import_with(kind, instance, seed, Rules::default())
}

/// [`import`] under `rules`.
pub fn import_with(
    kind: PuzzleKind,
    instance: &Value,
    seed: u64,
    rules: Rules,
) -> Result<Box<dyn Puzzle>, CommaError> {
    crate::puzzles::import(kind, instance, seed, rules)
}

/// A fresh puzzle of `kind` drawn from `seed` (same seed ⇒ same instance). The generator's
/// random stream is derived from the kind and the seed, so puzzles of different kinds made
/// from one seed are independent (one seed does not fix, say, both the number of wires and
/// the number of LED stages).
pub fn generate(kind: PuzzleKind, seed: u64) -> Result<Box<dyn Puzzle>, CommaError> {
    let stream = escapade_core::seed::derive(seed, kind.name(), 0);
    crate::puzzles::generate(kind, stream)
}
