//! The LED puzzle (COMMA App. A "LED Puzzle"): 2–5 stages, each lit in one LED colour that
//! gives a multiplier; four buttons show letters; a button is correct when its letter's
//! value (A = 0 … Z = 25) times the multiplier, mod 26, is the value of the letter on the
//! diagonally opposite button.
//!
//! Each stage's letters are drawn from the puzzle's own seeded RNG. To make sure a stage
//! can always be passed, one button is picked at random and the letter opposite it is set
//! so that the button is correct; the other letters stay uniform. The original does the
//! same as far as its traces show: every stage has a correct button, letters repeat about
//! as often as uniform draws would, and two or more buttons are correct in 12 % of its
//! stages (a draw-until-solvable scheme would give about 6 %). A wrong press is a mistake
//! and changes nothing else.

use rand::Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// LED colours and their multipliers.
pub const MULTIPLIERS: [(&str, u8); 6] = [
    ("red", 2),
    ("green", 3),
    ("blue", 4),
    ("yellow", 5),
    ("purple", 6),
    ("orange", 7),
];

/// Button actions by our button index: top left, top right, bottom left, bottom right.
const BUTTONS: [&str; 4] = [
    "press_top_left_button",
    "press_top_right_button",
    "press_bottom_left_button",
    "press_bottom_right_button",
];

/// The action list as the original orders it: top left, top right, bottom right, bottom
/// left.
pub const ACTIONS: [&str; 4] = [BUTTONS[0], BUTTONS[1], BUTTONS[3], BUTTONS[2]];

const PLACES: [&str; 4] = ["top left", "top right", "bottom left", "bottom right"];

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
LED. The module has two to five stages, passed one after another; a number at its top left \
says which stage it is in, and a coloured LED lights for the current stage. Four buttons in a \
2×2 grid each show a letter; the letters change at every stage.

Give each letter a value: A is 0, B is 1, and so on up to Z, 25. The LED colour gives a \
multiplier: red 2, green 3, blue 4, yellow 5, purple 6, orange 7.

A button is correct when (its letter's value × the multiplier) mod 26 equals the value of the \
letter on the button diagonally opposite it (top left is opposite bottom right, top right is \
opposite bottom left). At each stage press one correct button; more than one may be correct. \
Pressing a button that is not correct is a mistake.";

/// An LED puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Led {
    colours: Vec<String>,
    /// The current stage, 0-based; `colours.len()` once solved.
    stage: usize,
    /// Letter values, top left, top right, bottom left, bottom right.
    letters: [u8; 4],
    rng: escapade_core::seed::Rng,
}

fn multiplier(colour: &str) -> Option<u8> {
    MULTIPLIERS
        .iter()
        .find(|(c, _)| *c == colour)
        .map(|(_, m)| *m)
}

fn letter(v: u8) -> char {
    char::from(b'A' + v % 26)
}

impl Led {
    fn with(colours: Vec<String>, seed: u64) -> Led {
        let mut led = Led {
            colours,
            stage: 0,
            letters: [0; 4],
            rng: escapade_core::seed::rng(seed),
        };
        led.draw();
        led
    }

    /// From the original's fields `{num_stages 2–5, led_colors}`.
    pub fn import(instance: &Value, seed: u64) -> Result<Led, CommaError> {
        let colours: Vec<String> = instance
            .get("led_colors")
            .and_then(Value::as_array)
            .ok_or_else(|| CommaError::Format {
                puzzle: "led",
                field: Some("led_colors"),
                reason: "must be a list".into(),
            })?
            .iter()
            .map(|c| c.as_str().map(|s| s.trim().to_lowercase()))
            .collect::<Option<_>>()
            .ok_or_else(|| CommaError::Format {
                puzzle: "led",
                field: None,
                reason: "every colour must be a string".into(),
            })?;
        if let Some(n) = crate::puzzles::count_in("led", instance, "num_stages", 2..=5)?
            && n != colours.len() as u64
        {
            return Err(CommaError::Format {
                puzzle: "led",
                field: Some("num_stages"),
                reason: format!("is {n} but {} colours are given", colours.len()),
            });
        }
        if !(2..=5).contains(&colours.len()) {
            return Err(CommaError::Format {
                puzzle: "led",
                field: None,
                reason: "2 to 5 stages".into(),
            });
        }
        if let Some(c) = colours.iter().find(|c| multiplier(c).is_none()) {
            return Err(CommaError::Format {
                puzzle: "led",
                field: None,
                reason: format!("unknown colour `{c}`"),
            });
        }
        Ok(Led::with(colours, seed))
    }

    /// A seeded random LED puzzle (2–5 stages, colours uniform).
    pub fn generate(seed: u64) -> Led {
        let mut rng = escapade_core::seed::rng(seed);
        let n = rng.random_range(2..=5);
        let colours = (0..n)
            .map(|_| {
                MULTIPLIERS[rng.random_range(0..MULTIPLIERS.len())]
                    .0
                    .to_string()
            })
            .collect();
        Led::with(colours, rng.random())
    }

    fn multiplier(&self) -> u8 {
        self.colours
            .get(self.stage)
            .and_then(|c| multiplier(c))
            .unwrap_or(1)
    }

    /// Draws the current stage's letters: uniform, then one random button made correct.
    fn draw(&mut self) {
        for l in &mut self.letters {
            *l = self.rng.random_range(0..26);
        }
        let b = self.rng.random_range(0..4);
        self.letters[3 - b] = (self.letters[b] as u16 * self.multiplier() as u16 % 26) as u8;
    }

    /// The correct buttons now (top left, top right, bottom left, bottom right).
    pub fn answers(&self) -> Vec<usize> {
        if self.solved() {
            return Vec::new();
        }
        let m = self.multiplier() as u16;
        (0..4)
            .filter(|&b| (self.letters[b] as u16 * m % 26) as u8 == self.letters[3 - b])
            .collect()
    }
}

impl Puzzle for Led {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Led
    }

    fn actions(&self) -> Vec<String> {
        ACTIONS.iter().map(|a| a.to_string()).collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        let Some(b) = BUTTONS.iter().position(|a| *a == action) else {
            return ActResult::unknown(action);
        };
        if self.solved() {
            return ActResult::already_solved();
        }
        if self.answers().contains(&b) {
            self.stage += 1;
            if self.solved() {
                return ActResult {
                    mistake: false,
                    feedback: format!(
                        "You pressed the {} button. The last stage is done; the module is \
                         disarmed.",
                        PLACES[b]
                    ),
                };
            }
            self.draw();
            ActResult {
                mistake: false,
                feedback: format!(
                    "You pressed the {} button. The module moves to stage {}.",
                    PLACES[b],
                    self.stage + 1
                ),
            }
        } else {
            ActResult {
                mistake: true,
                feedback: format!(
                    "You pressed the {} button. Strike: that button was not correct.",
                    PLACES[b]
                ),
            }
        }
    }

    fn solved(&self) -> bool {
        self.stage >= self.colours.len()
    }

    fn progress(&self) -> f64 {
        self.stage.min(self.colours.len()) as f64 / self.colours.len().max(1) as f64
    }

    fn correct_actions(&self) -> Vec<String> {
        self.answers()
            .into_iter()
            .map(|b| BUTTONS[b].to_string())
            .collect()
    }

    fn describe(&self) -> String {
        let n = self.colours.len();
        if self.solved() {
            return format!(
                "An LED module with {n} stages. All stages are done; the module is disarmed."
            );
        }
        let l = self.letters;
        format!(
            "An LED module with {n} stages, now at stage {} of {n}; the LED is {}. The four \
             buttons show: top left {}, top right {}, bottom left {}, bottom right {}.",
            self.stage + 1,
            self.colours[self.stage],
            letter(l[0]),
            letter(l[1]),
            letter(l[2]),
            letter(l[3])
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        let now = (!self.solved()).then(|| {
            let l = self.letters;
            let letters = [letter(l[0]), letter(l[1]), letter(l[2]), letter(l[3])];
            (self.stage, self.colours[self.stage].clone(), letters)
        });
        Some(Drawing::new(Scene::Led {
            stages: self.colours.len(),
            now,
        }))
    }

    fn instance(&self) -> Value {
        json!({"num_stages": self.colours.len(), "led_colors": self.colours})
    }

    /// Reads `{stage (0-based), led_color, letters_TL_TR_BL_BR}`; the colour must be the
    /// instance's colour for that stage.
    fn load_screen(&mut self, obs: &Value) -> Result<(), CommaError> {
        let bad = |what: &str| CommaError::Screen {
            puzzle: "led",
            reason: what.to_string(),
        };
        let stage = obs
            .get("stage")
            .and_then(Value::as_u64)
            .filter(|s| (*s as usize) < self.colours.len())
            .ok_or_else(|| bad("`stage` must be a stage of this puzzle, counted from 0"))?
            as usize;
        let colour = obs
            .get("led_color")
            .and_then(Value::as_str)
            .map(str::to_lowercase);
        if colour.as_deref() != Some(self.colours[stage].as_str()) {
            return Err(bad("`led_color` must be the colour of that stage"));
        }
        let list = obs
            .get("letters_TL_TR_BL_BR")
            .and_then(Value::as_array)
            .filter(|l| l.len() == 4)
            .ok_or_else(|| bad("`letters_TL_TR_BL_BR` must hold four letters"))?;
        let mut letters = [0u8; 4];
        for (o, v) in letters.iter_mut().zip(list) {
            let s = v.as_str().unwrap_or("");
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => {
                    *o = c.to_ascii_uppercase() as u8 - b'A';
                }
                _ => return Err(bad("each letter must be one letter A to Z")),
            }
        }
        self.stage = stage;
        self.letters = letters;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn led(colours: &[&str]) -> Led {
        Led::import(
            &json!({"num_stages": colours.len(), "led_colors": colours}),
            9,
        )
        .unwrap()
    }

    #[test]
    fn the_rule_picks_the_buttons() {
        let mut l = led(&["red", "purple"]);
        let obs =
            json!({"stage": 0, "led_color": "red", "letters_TL_TR_BL_BR": ["O", "W", "G", "C"]});
        l.load_screen(&obs).unwrap();
        assert_eq!(l.correct_actions(), ["press_top_left_button"]);
        let obs =
            json!({"stage": 1, "led_color": "purple", "letters_TL_TR_BL_BR": ["R", "K", "T", "C"]});
        l.load_screen(&obs).unwrap();
        assert_eq!(l.correct_actions(), ["press_bottom_left_button"]);
    }

    #[test]
    fn every_drawn_stage_has_a_correct_button() {
        for seed in 0..200 {
            let mut l = Led::generate(seed);
            while !l.solved() {
                let a = l.correct_actions();
                assert!(!a.is_empty(), "seed {seed}");
                assert!(!l.act(&a[0]).mistake);
            }
            assert_eq!(l.progress(), 1.0);
        }
    }

    #[test]
    fn a_wrong_press_is_a_mistake_and_keeps_the_stage() {
        let mut l = led(&["green", "blue", "orange"]);
        let before = l.describe();
        if let Some(bad) = l
            .actions()
            .into_iter()
            .find(|a| !l.correct_actions().contains(a))
        {
            assert!(l.act(&bad).mistake);
            assert_eq!(l.describe(), before);
        }
        let a = l.correct_actions()[0].clone();
        assert!(!l.act(&a).mistake);
        assert!((l.progress() - 1.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn bad_instances_and_screens_are_refused() {
        assert!(Led::import(&json!({}), 0).is_err());
        assert!(Led::import(&json!({"led_colors": ["red"]}), 0).is_err());
        assert!(Led::import(&json!({"led_colors": ["red", "pink"]}), 0).is_err());
        assert!(Led::import(&json!({"num_stages": 3, "led_colors": ["red", "red"]}), 0).is_err());
        let mut l = led(&["red", "blue"]);
        for obs in [
            json!({}),
            json!({"stage": 2, "led_color": "red", "letters_TL_TR_BL_BR": ["A", "B", "C", "D"]}),
            json!({"stage": 0, "led_color": "blue", "letters_TL_TR_BL_BR": ["A", "B", "C", "D"]}),
            json!({"stage": 0, "led_color": "red", "letters_TL_TR_BL_BR": ["A", "B", "C"]}),
            json!({"stage": 0, "led_color": "red", "letters_TL_TR_BL_BR": ["A", "B", "C", "DD"]}),
            json!({"stage": 0, "led_color": "red", "letters_TL_TR_BL_BR": ["A", "B", "C", 4]}),
        ] {
            assert!(l.load_screen(&obs).is_err(), "{obs}");
        }
        assert!(!l.act("press_middle").mistake);
    }

    #[test]
    fn generation_is_seeded() {
        assert_eq!(Led::generate(4), Led::generate(4));
        assert!((0..20).any(|s| Led::generate(s).describe() != Led::generate(4).describe()));
    }
}
