//! The memory puzzle (COMMA App. A "Memory Puzzle"): a display shows 1–4, four buttons
//! carry the labels 1–4, and five stages must be passed in a row; the rule of each stage
//! may refer to the position or the label pressed in earlier stages. A wrong press is a
//! mistake and sends the module back to stage 1.
//!
//! Actions are `press_1` … `press_4`: press the button *labelled* N (the original's names;
//! the original's traces only make sense with that reading). Each stage draws a new
//! display from the puzzle's own seeded RNG.
//!
//! The labels read 3, 1, 2, 4 from left to right and never move ([`ORIGINAL_LABELS`]): the
//! original's code draws them so and its 1000 evaluation instances name none, so a
//! position rule and a label rule can point at the same button. [`MemoryLabels::Shuffled`]
//! (`-W memory_labels=shuffled`) shuffles them at every stage instead, which makes the
//! position and label rules diverge: a different, harder task, kept as an option. An
//! instance may name the first stage's labels (`labels`, our extension).

use rand::Rng;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, MemoryLabels, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// Number of stages to pass.
pub const STAGES: usize = 5;

/// The original's button labels, left to right (its code never reorders them).
pub const ORIGINAL_LABELS: [u8; 4] = [3, 1, 2, 4];

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
MEMORY. The module has a display showing a number from 1 to 4 and four buttons in a row. \
Each button carries a label from 1 to 4; positions are counted from the left (position 1 is \
the leftmost button). Pass five stages in a row; at each stage press one button by the rule \
below. After each stage the display and the labels change. A wrong press is a mistake and \
sends the module back to stage 1, so remember the position and the label of every button \
pressed so far.

Stage 1:
- display 1: press the button in position 2;
- display 2: press the button in position 2;
- display 3: press the button in position 3;
- display 4: press the button in position 4.

Stage 2:
- display 1: press the button labelled 4;
- display 2: press the button in the position you pressed in stage 1;
- display 3: press the button in position 1;
- display 4: press the button in the position you pressed in stage 1.

Stage 3:
- display 1: press the button with the label you pressed in stage 2;
- display 2: press the button with the label you pressed in stage 1;
- display 3: press the button in position 3;
- display 4: press the button labelled 4.

Stage 4:
- display 1: press the button in the position you pressed in stage 1;
- display 2: press the button in position 1;
- display 3: press the button in the position you pressed in stage 2;
- display 4: press the button in the position you pressed in stage 2.

Stage 5:
- display 1: press the button with the label you pressed in stage 1;
- display 2: press the button with the label you pressed in stage 2;
- display 3: press the button with the label you pressed in stage 4;
- display 4: press the button with the label you pressed in stage 3.";

/// A memory puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    /// The display of the first stage and the labels the instance named (what
    /// `instance()` gives back).
    first_display: u8,
    given_labels: Option<[u8; 4]>,
    /// Labels are shuffled at every stage ([`MemoryLabels::Shuffled`]).
    shuffle: bool,
    /// The current stage, 1-based; `STAGES + 1` once solved.
    stage: usize,
    display: u8,
    /// Labels left to right.
    labels: [u8; 4],
    /// (position 0-based, label) pressed in each passed stage.
    pressed: Vec<(usize, u8)>,
    /// Stages passed when the last correct press was made (the original's `max_stage`,
    /// which its score reads: a strike leaves it, the next correct press sets it).
    scored: usize,
    rng: escapade_core::seed::Rng,
}

fn display_of(v: &Value) -> Option<u8> {
    let n = match v {
        Value::Number(n) => n.as_u64()?,
        Value::String(s) => s.trim().parse::<u64>().ok()?,
        _ => return None,
    };
    (1..=4).contains(&n).then_some(n as u8)
}

fn labels_of(v: &Value) -> Option<[u8; 4]> {
    let list = v.as_array()?;
    if list.len() != 4 {
        return None;
    }
    let mut out = [0u8; 4];
    for (o, l) in out.iter_mut().zip(list) {
        *o = display_of(l)?;
    }
    let mut sorted = out;
    sorted.sort_unstable();
    (sorted == [1, 2, 3, 4]).then_some(out)
}

impl Memory {
    fn with(display: u8, given: Option<[u8; 4]>, seed: u64, mode: MemoryLabels) -> Memory {
        let mut rng = escapade_core::seed::rng(seed);
        let shuffle = mode == MemoryLabels::Shuffled;
        let labels = match given {
            Some(l) => l,
            None if shuffle => draw_labels(&mut rng),
            None => ORIGINAL_LABELS,
        };
        Memory {
            first_display: display,
            given_labels: given,
            shuffle,
            stage: 1,
            display,
            labels,
            pressed: Vec::new(),
            scored: 0,
            rng,
        }
    }

    /// From the original's field `{display_text}` (1–4, number or string) and, as our
    /// extension, an optional `labels` (the first stage's labels left to right). Without
    /// it the labels are the original's [`ORIGINAL_LABELS`], or drawn from `seed` when
    /// `mode` shuffles them.
    pub fn import(instance: &Value, seed: u64, mode: MemoryLabels) -> Result<Memory, CommaError> {
        let display = instance
            .get("display_text")
            .and_then(display_of)
            .ok_or_else(|| CommaError::Format {
                puzzle: "memory",
                field: Some("display_text"),
                reason: "must be 1 to 4".into(),
            })?;
        let labels = match instance.get("labels") {
            None | Some(Value::Null) => None,
            Some(v) => Some(labels_of(v).ok_or_else(|| CommaError::Format {
                puzzle: "memory",
                field: Some("labels"),
                reason: "must be 1, 2, 3, 4 in some order".into(),
            })?),
        };
        Ok(Memory::with(display, labels, seed, mode))
    }

    /// A seeded random memory puzzle: the first display (the original's only field).
    pub fn generate(seed: u64) -> Memory {
        let mut rng = escapade_core::seed::rng(seed);
        let display = rng.random_range(1..=4u8);
        Memory::with(display, None, rng.random(), MemoryLabels::Fixed)
    }

    /// The position (0-based) of the button to press now, by the manual's rules.
    pub fn answer(&self) -> Option<usize> {
        if self.stage > STAGES {
            return None;
        }
        let d = self.display;
        let pos_of = |label: u8| self.labels.iter().position(|&l| l == label);
        let pos_in = |stage: usize| self.pressed.get(stage - 1).map(|p| p.0);
        let label_in = |stage: usize| self.pressed.get(stage - 1).and_then(|p| pos_of(p.1));
        match (self.stage, d) {
            (1, 1 | 2) => Some(1),
            (1, 3) => Some(2),
            (1, _) => Some(3),
            (2, 1) => pos_of(4),
            (2, 2 | 4) => pos_in(1),
            (2, _) => Some(0),
            (3, 1) => label_in(2),
            (3, 2) => label_in(1),
            (3, 3) => Some(2),
            (3, _) => pos_of(4),
            (4, 1) => pos_in(1),
            (4, 2) => Some(0),
            (4, _) => pos_in(2),
            (_, 1) => label_in(1),
            (_, 2) => label_in(2),
            (_, 3) => label_in(4),
            (_, _) => label_in(3),
        }
    }

    fn next_screen(&mut self) {
        self.display = self.rng.random_range(1..=4u8);
        if self.shuffle {
            self.labels = draw_labels(&mut self.rng);
        }
    }
}

fn draw_labels(rng: &mut escapade_core::seed::Rng) -> [u8; 4] {
    let mut l = [1, 2, 3, 4];
    l.shuffle(rng);
    l
}

impl Puzzle for Memory {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Memory
    }

    fn actions(&self) -> Vec<String> {
        (1..=4).map(|i| format!("press_{i}")).collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        let Some(label) = action
            .strip_prefix("press_")
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|l| (1..=4).contains(l))
        else {
            return ActResult::unknown(action);
        };
        if self.solved() {
            return ActResult::already_solved();
        }
        let pos = self.labels.iter().position(|&l| l == label).unwrap_or(0);
        if self.answer() == Some(pos) {
            self.pressed.push((pos, label));
            self.stage += 1;
            self.scored = self.stage - 1;
            if self.solved() {
                return ActResult {
                    mistake: false,
                    feedback: format!(
                        "You pressed the button labelled {label}. All five stages are done; \
                         the module is disarmed."
                    ),
                };
            }
            self.next_screen();
            ActResult {
                mistake: false,
                feedback: format!(
                    "You pressed the button labelled {label}. The module moves to stage {}.",
                    self.stage
                ),
            }
        } else {
            self.stage = 1;
            self.pressed.clear();
            self.next_screen();
            ActResult {
                mistake: true,
                feedback: format!(
                    "You pressed the button labelled {label}. Strike: wrong button; the module \
                     is back at stage 1."
                ),
            }
        }
    }

    fn solved(&self) -> bool {
        self.stage > STAGES
    }

    fn progress(&self) -> f64 {
        (self.stage - 1).min(STAGES) as f64 / STAGES as f64
    }

    /// The original's `max_stage / 5`: the stages passed at the last correct press.
    fn score(&self) -> Option<f64> {
        Some(self.scored.min(STAGES) as f64 / STAGES as f64)
    }

    fn correct_actions(&self) -> Vec<String> {
        self.answer()
            .map(|p| vec![format!("press_{}", self.labels[p])])
            .unwrap_or_default()
    }

    fn describe(&self) -> String {
        if self.solved() {
            return "A memory module. All five stages are done; the module is disarmed.".into();
        }
        let l = self.labels;
        format!(
            "A memory module at stage {} of {STAGES}. The display shows {}. Four buttons from \
             left to right are labelled {}, {}, {}, {}.",
            self.stage, self.display, l[0], l[1], l[2], l[3]
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Memory {
            stages: STAGES,
            now: (!self.solved()).then_some((self.stage, self.display, self.labels)),
        }))
    }

    fn instance(&self) -> Value {
        match self.given_labels {
            Some(labels) => json!({"display_text": self.first_display, "labels": labels}),
            None => json!({"display_text": self.first_display}),
        }
    }

    /// Reads `{stage 1–5, display 1–4, history [labels pressed in the passed stages],
    /// labels?}`; without `labels` the original's fixed layout [`ORIGINAL_LABELS`] is used,
    /// and each history label's position is its place in that layout.
    fn load_screen(&mut self, obs: &Value) -> Result<(), CommaError> {
        let bad = |what: &str| CommaError::Screen {
            puzzle: "memory",
            reason: what.to_string(),
        };
        let stage = obs
            .get("stage")
            .and_then(Value::as_u64)
            .filter(|s| (1..=STAGES as u64).contains(s))
            .ok_or_else(|| bad("`stage` must be 1 to 5"))? as usize;
        let display = obs
            .get("display")
            .and_then(display_of)
            .ok_or_else(|| bad("`display` must be 1 to 4"))?;
        let labels = match obs.get("labels") {
            None | Some(Value::Null) => ORIGINAL_LABELS,
            Some(v) => labels_of(v).ok_or_else(|| bad("`labels` must be 1 to 4 in some order"))?,
        };
        let history = obs
            .get("history")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("`history` must be a list"))?;
        if history.len() != stage - 1 {
            return Err(bad("`history` must hold one label per passed stage"));
        }
        let mut pressed = Vec::new();
        for h in history {
            // a label (the original's traces: its labels never move), or the position
            // (1-4, left to right) and label pressed (ours reshuffle every stage)
            let entry = match h.get("position").and_then(Value::as_u64) {
                Some(p @ 1..=4) => h
                    .get("label")
                    .and_then(display_of)
                    .map(|label| (p as usize - 1, label)),
                Some(_) => None,
                None => display_of(h)
                    .map(|label| (labels.iter().position(|&l| l == label).unwrap_or(0), label)),
            };
            pressed.push(entry.ok_or_else(|| {
                bad("history entries must be a label 1 to 4 or {position 1-4, label 1-4}")
            })?);
        }
        self.stage = stage;
        self.display = display;
        self.labels = labels;
        self.pressed = pressed;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(display: u8, labels: [u8; 4]) -> Memory {
        Memory::import(
            &json!({"display_text": display, "labels": labels}),
            1,
            MemoryLabels::Fixed,
        )
        .unwrap()
    }

    /// The labels left to right, read from the description.
    fn labels_seen(m: &Memory) -> String {
        let d = m.describe();
        d[d.find("labelled ").unwrap()..].to_string()
    }

    #[test]
    fn labels_stay_3_1_2_4_unless_shuffled() {
        for seed in 0..20 {
            let mut m =
                Memory::import(&json!({"display_text": 2}), seed, MemoryLabels::Fixed).unwrap();
            assert_eq!(m.instance(), json!({"display_text": 2}));
            for _ in 0..5 {
                assert_eq!(labels_seen(&m), "labelled 3, 1, 2, 4.");
                let a = m.correct_actions()[0].clone();
                m.act(&a);
                if m.solved() {
                    break;
                }
            }
        }
        // shuffled: some stage of some episode shows another order
        let moved = (0..20).any(|seed| {
            let mut m =
                Memory::import(&json!({"display_text": 2}), seed, MemoryLabels::Shuffled).unwrap();
            (0..4).any(|_| {
                let a = m.correct_actions()[0].clone();
                m.act(&a);
                !m.solved() && labels_seen(&m) != "labelled 3, 1, 2, 4."
            })
        });
        assert!(moved);
        assert!(Memory::generate(3).instance().get("labels").is_none());
    }

    #[test]
    fn stage_one_follows_the_display() {
        assert_eq!(memory(1, [3, 1, 2, 4]).correct_actions(), ["press_1"]);
        assert_eq!(memory(3, [3, 1, 2, 4]).correct_actions(), ["press_2"]);
        assert_eq!(memory(4, [4, 3, 2, 1]).correct_actions(), ["press_1"]);
    }

    #[test]
    fn later_stages_remember_positions_and_labels() {
        let mut m = memory(1, [3, 1, 2, 4]);
        let obs = json!({"stage": 4, "display": "3", "history": [1, 3, 2]});
        m.load_screen(&obs).unwrap();
        // stage 4, display 3: the position pressed in stage 2 (label 3 was leftmost)
        assert_eq!(m.correct_actions(), ["press_3"]);
        let obs =
            json!({"stage": 5, "display": 4, "history": [1, 1, 2, 1], "labels": [2, 4, 1, 3]});
        m.load_screen(&obs).unwrap();
        assert_eq!(m.correct_actions(), ["press_2"]);
    }

    #[test]
    fn a_wrong_press_resets_and_the_oracle_solves() {
        let mut m = Memory::generate(7);
        let good = m.correct_actions()[0].clone();
        let bad = m.actions().into_iter().find(|a| *a != good).unwrap();
        assert!(m.act(&bad).mistake);
        assert_eq!(m.progress(), 0.0);
        for i in 0..STAGES {
            assert_eq!(m.progress(), i as f64 / 5.0);
            let a = m.correct_actions()[0].clone();
            assert!(!m.act(&a).mistake);
        }
        assert!(m.solved() && m.correct_actions().is_empty());
        assert_eq!(m.progress(), 1.0);
        assert!(!m.act("press_1").mistake);
    }

    #[test]
    fn a_wrong_press_after_stage_two_goes_back_to_stage_one() {
        let mut m = Memory::generate(3);
        for _ in 0..2 {
            let a = m.correct_actions()[0].clone();
            m.act(&a);
        }
        let good = m.correct_actions()[0].clone();
        let bad = m.actions().into_iter().find(|a| *a != good).unwrap();
        assert!(m.act(&bad).mistake);
        assert!(m.describe().contains("stage 1 of 5"));
    }

    #[test]
    fn bad_instances_and_screens_are_refused() {
        let import = |v: Value| Memory::import(&v, 0, MemoryLabels::Fixed);
        assert!(import(json!({})).is_err());
        assert!(import(json!({"display_text": 5})).is_err());
        assert!(import(json!({"display_text": "x"})).is_err());
        assert!(import(json!({"display_text": 1, "labels": [1, 1, 2, 3]})).is_err());
        let mut m = Memory::generate(0);
        for obs in [
            json!({}),
            json!({"stage": 0, "display": 1, "history": []}),
            json!({"stage": 2, "display": 1, "history": []}),
            json!({"stage": 2, "display": 9, "history": [1]}),
            json!({"stage": 2, "display": 1, "history": [7]}),
        ] {
            assert!(m.load_screen(&obs).is_err(), "{obs}");
        }
        assert!(!m.act("press_9").mistake);
    }

    #[test]
    fn generation_and_play_are_seeded() {
        let play = |seed| {
            let mut m = Memory::generate(seed);
            let mut seen = vec![m.describe()];
            for a in ["press_1", "press_2", "press_3"] {
                m.act(a);
                seen.push(m.describe());
            }
            seen
        };
        assert_eq!(play(5), play(5));
        assert!((0..20).any(|s| play(s) != play(5)));
        assert!(!memory(2, [1, 2, 3, 4]).describe().contains("press"));
    }
}
