//! The "who's on first" puzzle (COMMA App. A "Who Puzzle"): a display and six labelled
//! buttons in three rows of two. Step 1 maps the display to a button position whose
//! *label* must be read; step 2 maps that label to an ordered list of labels, and the
//! button to press is the first one on the module whose label appears in that list.
//! A wrong press is a strike and changes nothing else; the right press solves the module
//! (one stage, as in the original).
//!
//! The tables are App. A's, which are also the original's (an empty display is App. A's
//! "(No Text)").

use rand::Rng;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// The six button positions, in the original's order (row by row, left before right).
pub const POSITIONS: [&str; 6] = [
    "top_left",
    "top_right",
    "middle_left",
    "middle_right",
    "bottom_left",
    "bottom_right",
];

/// App. A step 1: what the display shows → the position (index into [`POSITIONS`]) whose
/// label to read. `""` is the empty display.
pub const STEP1: [(&str, usize); 28] = [
    ("YES", 2),
    ("FIRST", 1),
    ("DISPLAY", 5),
    ("OKAY", 1),
    ("SAYS", 5),
    ("NOTHING", 2),
    ("", 4),
    ("BLANK", 3),
    ("NO", 5),
    ("LED", 2),
    ("LEAD", 5),
    ("READ", 3),
    ("RED", 3),
    ("REED", 4),
    ("LEED", 4),
    ("HOLD ON", 5),
    ("YOU", 3),
    ("YOU ARE", 5),
    ("YOUR", 3),
    ("YOU'RE", 3),
    ("UR", 0),
    ("THERE", 5),
    ("THEY'RE", 4),
    ("THEIR", 3),
    ("THEY ARE", 2),
    ("SEE", 5),
    ("C", 1),
    ("CEE", 5),
];

/// App. A step 2: a label → the labels to look for, in order.
#[rustfmt::skip]
pub const STEP2: [(&str, [&str; 14]); 28] = [
    ("READY", ["YES", "OKAY", "WHAT", "MIDDLE", "LEFT", "PRESS", "RIGHT", "BLANK", "READY", "NO", "FIRST", "UHHH", "NOTHING", "WAIT"]),
    ("FIRST", ["LEFT", "OKAY", "YES", "MIDDLE", "NO", "RIGHT", "NOTHING", "UHHH", "WAIT", "READY", "BLANK", "WHAT", "PRESS", "FIRST"]),
    ("NO", ["BLANK", "UHHH", "WAIT", "FIRST", "WHAT", "READY", "RIGHT", "YES", "NOTHING", "LEFT", "PRESS", "OKAY", "NO", "MIDDLE"]),
    ("BLANK", ["WAIT", "RIGHT", "OKAY", "MIDDLE", "BLANK", "PRESS", "READY", "NOTHING", "NO", "WHAT", "LEFT", "UHHH", "YES", "FIRST"]),
    ("NOTHING", ["UHHH", "RIGHT", "OKAY", "MIDDLE", "YES", "BLANK", "NO", "PRESS", "LEFT", "WHAT", "WAIT", "FIRST", "NOTHING", "READY"]),
    ("YES", ["OKAY", "RIGHT", "UHHH", "MIDDLE", "FIRST", "WHAT", "PRESS", "READY", "NOTHING", "YES", "LEFT", "BLANK", "NO", "WAIT"]),
    ("WHAT", ["UHHH", "WHAT", "LEFT", "NOTHING", "READY", "BLANK", "MIDDLE", "NO", "OKAY", "FIRST", "WAIT", "YES", "PRESS", "RIGHT"]),
    ("UHHH", ["READY", "NOTHING", "LEFT", "WHAT", "OKAY", "YES", "RIGHT", "NO", "PRESS", "BLANK", "UHHH", "MIDDLE", "WAIT", "FIRST"]),
    ("LEFT", ["RIGHT", "LEFT", "FIRST", "NO", "MIDDLE", "YES", "BLANK", "WHAT", "UHHH", "WAIT", "PRESS", "READY", "OKAY", "NOTHING"]),
    ("RIGHT", ["YES", "NOTHING", "READY", "PRESS", "NO", "WAIT", "WHAT", "RIGHT", "MIDDLE", "LEFT", "UHHH", "BLANK", "OKAY", "FIRST"]),
    ("MIDDLE", ["BLANK", "READY", "OKAY", "WHAT", "NOTHING", "PRESS", "NO", "WAIT", "LEFT", "MIDDLE", "RIGHT", "FIRST", "UHHH", "YES"]),
    ("OKAY", ["MIDDLE", "NO", "FIRST", "YES", "UHHH", "NOTHING", "WAIT", "OKAY", "LEFT", "READY", "BLANK", "PRESS", "WHAT", "RIGHT"]),
    ("WAIT", ["UHHH", "NO", "BLANK", "OKAY", "YES", "LEFT", "FIRST", "PRESS", "WHAT", "WAIT", "NOTHING", "READY", "RIGHT", "MIDDLE"]),
    ("PRESS", ["RIGHT", "MIDDLE", "YES", "READY", "PRESS", "OKAY", "NOTHING", "UHHH", "BLANK", "LEFT", "FIRST", "WHAT", "NO", "WAIT"]),
    ("YOU", ["SURE", "YOU ARE", "YOUR", "YOU'RE", "NEXT", "UH HUH", "UR", "HOLD", "WHAT?", "YOU", "UH UH", "LIKE", "DONE", "U"]),
    ("YOU ARE", ["YOUR", "NEXT", "LIKE", "UH HUH", "WHAT?", "DONE", "UH UH", "HOLD", "YOU", "U", "YOU'RE", "SURE", "UR", "YOU ARE"]),
    ("YOUR", ["UH UH", "YOU ARE", "UH HUH", "YOUR", "NEXT", "UR", "SURE", "U", "YOU'RE", "YOU", "WHAT?", "HOLD", "LIKE", "DONE"]),
    ("YOU'RE", ["YOU", "YOU'RE", "UR", "NEXT", "UH UH", "YOU ARE", "U", "YOUR", "WHAT?", "UH HUH", "SURE", "DONE", "LIKE", "HOLD"]),
    ("UR", ["DONE", "U", "UR", "UH HUH", "WHAT?", "SURE", "YOUR", "HOLD", "YOU'RE", "LIKE", "NEXT", "UH UH", "YOU ARE", "YOU"]),
    ("U", ["UH HUH", "SURE", "NEXT", "WHAT?", "YOU'RE", "UR", "UH UH", "DONE", "U", "YOU", "LIKE", "HOLD", "YOU ARE", "YOUR"]),
    ("UH HUH", ["UH HUH", "YOUR", "YOU ARE", "YOU", "DONE", "HOLD", "UH UH", "NEXT", "SURE", "LIKE", "YOU'RE", "UR", "U", "WHAT?"]),
    ("UH UH", ["UR", "U", "YOU ARE", "YOU'RE", "NEXT", "UH UH", "DONE", "YOU", "UH HUH", "LIKE", "YOUR", "SURE", "HOLD", "WHAT?"]),
    ("WHAT?", ["YOU", "HOLD", "YOU'RE", "YOUR", "U", "DONE", "UH UH", "LIKE", "YOU ARE", "UH HUH", "UR", "NEXT", "WHAT?", "SURE"]),
    ("DONE", ["SURE", "UH HUH", "NEXT", "WHAT?", "YOUR", "UR", "YOU'RE", "HOLD", "LIKE", "YOU", "U", "YOU ARE", "UH UH", "DONE"]),
    ("NEXT", ["WHAT?", "UH HUH", "UH UH", "YOUR", "HOLD", "SURE", "NEXT", "LIKE", "DONE", "YOU ARE", "UR", "YOU'RE", "U", "YOU"]),
    ("HOLD", ["YOU ARE", "U", "DONE", "UH UH", "YOU", "UR", "SURE", "WHAT?", "YOU'RE", "NEXT", "HOLD", "UH HUH", "YOUR", "LIKE"]),
    ("SURE", ["YOU ARE", "DONE", "LIKE", "YOU'RE", "YOU", "HOLD", "UH HUH", "UR", "SURE", "U", "WHAT?", "NEXT", "YOUR", "UH UH"]),
    ("LIKE", ["YOU'RE", "NEXT", "U", "UR", "HOLD", "DONE", "UH UH", "WHAT?", "UH HUH", "YOU", "LIKE", "SURE", "YOU ARE", "YOUR"]),
];

/// The expert's manual, in our own words (App. A "Who Puzzle", tables unchanged).
pub const MANUAL: &str = "\
WHO'S ON FIRST. The module has a display and six labelled buttons in three rows of two \
(top left, top right, middle left, middle right, bottom left, bottom right). Solve it in \
two steps. A wrong press is a strike.

Step 1. Ask what the display shows, then ask for the label of the button at this position:
YES: middle left | FIRST: top right | DISPLAY: bottom right | OKAY: top right | \
SAYS: bottom right | NOTHING: middle left | (empty display): bottom left | \
BLANK: middle right | NO: bottom right | LED: middle left | LEAD: bottom right | \
READ: middle right | RED: middle right | REED: bottom left | LEED: bottom left | \
HOLD ON: bottom right | YOU: middle right | YOU ARE: bottom right | YOUR: middle right | \
YOU'RE: middle right | UR: top left | THERE: bottom right | THEY'RE: bottom left | \
THEIR: middle right | THEY ARE: middle left | SEE: bottom right | C: top right | \
CEE: bottom right

Step 2. Find that label below. Go along its list from the left; the first word that is \
also the label of a button on the module is the button to press.
READY: YES, OKAY, WHAT, MIDDLE, LEFT, PRESS, RIGHT, BLANK, READY, NO, FIRST, UHHH, NOTHING, WAIT
FIRST: LEFT, OKAY, YES, MIDDLE, NO, RIGHT, NOTHING, UHHH, WAIT, READY, BLANK, WHAT, PRESS, FIRST
NO: BLANK, UHHH, WAIT, FIRST, WHAT, READY, RIGHT, YES, NOTHING, LEFT, PRESS, OKAY, NO, MIDDLE
BLANK: WAIT, RIGHT, OKAY, MIDDLE, BLANK, PRESS, READY, NOTHING, NO, WHAT, LEFT, UHHH, YES, FIRST
NOTHING: UHHH, RIGHT, OKAY, MIDDLE, YES, BLANK, NO, PRESS, LEFT, WHAT, WAIT, FIRST, NOTHING, READY
YES: OKAY, RIGHT, UHHH, MIDDLE, FIRST, WHAT, PRESS, READY, NOTHING, YES, LEFT, BLANK, NO, WAIT
WHAT: UHHH, WHAT, LEFT, NOTHING, READY, BLANK, MIDDLE, NO, OKAY, FIRST, WAIT, YES, PRESS, RIGHT
UHHH: READY, NOTHING, LEFT, WHAT, OKAY, YES, RIGHT, NO, PRESS, BLANK, UHHH, MIDDLE, WAIT, FIRST
LEFT: RIGHT, LEFT, FIRST, NO, MIDDLE, YES, BLANK, WHAT, UHHH, WAIT, PRESS, READY, OKAY, NOTHING
RIGHT: YES, NOTHING, READY, PRESS, NO, WAIT, WHAT, RIGHT, MIDDLE, LEFT, UHHH, BLANK, OKAY, FIRST
MIDDLE: BLANK, READY, OKAY, WHAT, NOTHING, PRESS, NO, WAIT, LEFT, MIDDLE, RIGHT, FIRST, UHHH, YES
OKAY: MIDDLE, NO, FIRST, YES, UHHH, NOTHING, WAIT, OKAY, LEFT, READY, BLANK, PRESS, WHAT, RIGHT
WAIT: UHHH, NO, BLANK, OKAY, YES, LEFT, FIRST, PRESS, WHAT, WAIT, NOTHING, READY, RIGHT, MIDDLE
PRESS: RIGHT, MIDDLE, YES, READY, PRESS, OKAY, NOTHING, UHHH, BLANK, LEFT, FIRST, WHAT, NO, WAIT
YOU: SURE, YOU ARE, YOUR, YOU'RE, NEXT, UH HUH, UR, HOLD, WHAT?, YOU, UH UH, LIKE, DONE, U
YOU ARE: YOUR, NEXT, LIKE, UH HUH, WHAT?, DONE, UH UH, HOLD, YOU, U, YOU'RE, SURE, UR, YOU ARE
YOUR: UH UH, YOU ARE, UH HUH, YOUR, NEXT, UR, SURE, U, YOU'RE, YOU, WHAT?, HOLD, LIKE, DONE
YOU'RE: YOU, YOU'RE, UR, NEXT, UH UH, YOU ARE, U, YOUR, WHAT?, UH HUH, SURE, DONE, LIKE, HOLD
UR: DONE, U, UR, UH HUH, WHAT?, SURE, YOUR, HOLD, YOU'RE, LIKE, NEXT, UH UH, YOU ARE, YOU
U: UH HUH, SURE, NEXT, WHAT?, YOU'RE, UR, UH UH, DONE, U, YOU, LIKE, HOLD, YOU ARE, YOUR
UH HUH: UH HUH, YOUR, YOU ARE, YOU, DONE, HOLD, UH UH, NEXT, SURE, LIKE, YOU'RE, UR, U, WHAT?
UH UH: UR, U, YOU ARE, YOU'RE, NEXT, UH UH, DONE, YOU, UH HUH, LIKE, YOUR, SURE, HOLD, WHAT?
WHAT?: YOU, HOLD, YOU'RE, YOUR, U, DONE, UH UH, LIKE, YOU ARE, UH HUH, UR, NEXT, WHAT?, SURE
DONE: SURE, UH HUH, NEXT, WHAT?, YOUR, UR, YOU'RE, HOLD, LIKE, YOU, U, YOU ARE, UH UH, DONE
NEXT: WHAT?, UH HUH, UH UH, YOUR, HOLD, SURE, NEXT, LIKE, DONE, YOU ARE, UR, YOU'RE, U, YOU
HOLD: YOU ARE, U, DONE, UH UH, YOU, UR, SURE, WHAT?, YOU'RE, NEXT, HOLD, UH HUH, YOUR, LIKE
SURE: YOU ARE, DONE, LIKE, YOU'RE, YOU, HOLD, UH HUH, UR, SURE, U, WHAT?, NEXT, YOUR, UH UH
LIKE: YOU'RE, NEXT, U, UR, HOLD, DONE, UH UH, WHAT?, UH HUH, YOU, LIKE, SURE, YOU ARE, YOUR";

/// A who's-on-first puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Who {
    display: String,
    labels: Vec<String>,
    answer: usize,
    pressed: bool,
}

fn step1(display: &str) -> Option<usize> {
    STEP1.iter().find(|(d, _)| *d == display).map(|(_, p)| *p)
}

fn step2(label: &str) -> Option<&'static [&'static str; 14]> {
    STEP2
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, list)| list)
}

/// The position to press (index into [`POSITIONS`]), by App. A's two steps.
fn solve(display: &str, labels: &[String]) -> Result<usize, CommaError> {
    let read = step1(display).ok_or_else(|| CommaError::Format {
        puzzle: "who",
        field: None,
        reason: format!("unknown display text `{display}`"),
    })?;
    let label = labels.get(read).ok_or_else(|| CommaError::Format {
        puzzle: "who",
        field: None,
        reason: "six button labels".into(),
    })?;
    let list = step2(label).ok_or_else(|| CommaError::Invalid {
        puzzle: "who",
        reason: format!("the label `{label}` that step 1 reads has no step 2 list"),
    })?;
    list.iter()
        .find_map(|w| labels.iter().position(|l| l == w))
        .ok_or_else(|| CommaError::Invalid {
            puzzle: "who",
            reason: "no button label is on the step 2 list".into(),
        })
}

impl Who {
    /// From the original's fields `{display_text, button_texts}` (six labels, row by row).
    pub fn import(instance: &Value) -> Result<Who, CommaError> {
        let display = instance
            .get("display_text")
            .and_then(Value::as_str)
            .ok_or_else(|| CommaError::Format {
                puzzle: "who",
                field: Some("display_text"),
                reason: "must be a string".into(),
            })?
            .to_string();
        let labels: Vec<String> = instance
            .get("button_texts")
            .and_then(Value::as_array)
            .ok_or_else(|| CommaError::Format {
                puzzle: "who",
                field: Some("button_texts"),
                reason: "must be a list".into(),
            })?
            .iter()
            .map(|l| l.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| CommaError::Format {
                puzzle: "who",
                field: None,
                reason: "every button label must be a string".into(),
            })?;
        if labels.len() != 6 {
            return Err(CommaError::Format {
                puzzle: "who",
                field: None,
                reason: format!("six button labels, not {}", labels.len()),
            });
        }
        if let Some(l) = labels.iter().find(|l| step2(l).is_none()) {
            return Err(CommaError::Format {
                puzzle: "who",
                field: None,
                reason: format!("unknown button label `{l}`"),
            });
        }
        if (1..6).any(|i| labels[..i].contains(&labels[i])) {
            return Err(CommaError::Format {
                puzzle: "who",
                field: None,
                reason: "button labels must differ".into(),
            });
        }
        let answer = solve(&display, &labels)?;
        Ok(Who {
            display,
            labels,
            answer,
            pressed: false,
        })
    }

    /// A seeded random puzzle, drawn as the original draws one: a display uniform over
    /// step 1's 28 entries, six distinct labels uniform over step 2's 28 labels.
    pub fn generate(seed: u64) -> Who {
        let mut rng = escapade_core::seed::rng(seed);
        let display = STEP1[rng.random_range(0..STEP1.len())].0.to_string();
        let labels: Vec<String> = STEP2
            .choose_multiple(&mut rng, 6)
            .map(|(l, _)| l.to_string())
            .collect();
        // Every step 2 list holds its own label, so a solution always exists.
        let answer = solve(&display, &labels).unwrap_or(0);
        Who {
            display,
            labels,
            answer,
            pressed: false,
        }
    }

    /// The position to press, as an index into [`POSITIONS`].
    pub fn answer(&self) -> usize {
        self.answer
    }
}

impl Puzzle for Who {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Who
    }

    fn actions(&self) -> Vec<String> {
        POSITIONS
            .iter()
            .map(|p| format!("press_{p}_button"))
            .collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        let Some(i) = action
            .strip_prefix("press_")
            .and_then(|a| a.strip_suffix("_button"))
            .and_then(|p| POSITIONS.iter().position(|q| *q == p))
        else {
            return ActResult::unknown(action);
        };
        if self.pressed {
            return ActResult::already_solved();
        }
        let place = POSITIONS[i].replace('_', " ");
        if i == self.answer {
            self.pressed = true;
            ActResult {
                mistake: false,
                feedback: format!("You pressed the {place} button. The module is disarmed."),
            }
        } else {
            ActResult {
                mistake: true,
                feedback: format!(
                    "You pressed the {place} button. Strike: that was the wrong button."
                ),
            }
        }
    }

    fn solved(&self) -> bool {
        self.pressed
    }

    fn progress(&self) -> f64 {
        if self.pressed { 1.0 } else { 0.0 }
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.pressed {
            Vec::new()
        } else {
            vec![format!("press_{}_button", POSITIONS[self.answer])]
        }
    }

    fn describe(&self) -> String {
        let display = if self.display.is_empty() {
            "The display is empty.".to_string()
        } else {
            format!("The display shows \"{}\".", self.display)
        };
        let buttons: Vec<String> = POSITIONS
            .iter()
            .zip(&self.labels)
            .map(|(p, l)| format!("{} \"{l}\"", p.replace('_', " ")))
            .collect();
        format!(
            "A module with a display and six labelled buttons in three rows of two. {display} \
             The buttons are labelled: {}.{}",
            buttons.join(", "),
            if self.pressed {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Who {
            display: self.display.clone(),
            labels: self.labels.clone(),
            solved: self.pressed,
        }))
    }

    fn instance(&self) -> Value {
        json!({"display_text": self.display, "button_texts": self.labels})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(display: &str, labels: [&str; 6]) -> Who {
        Who::import(&json!({"display_text": display, "button_texts": labels})).unwrap()
    }

    #[test]
    fn the_two_steps_pick_the_button() {
        // READ → middle right "RIGHT"; RIGHT's list: YES, NOTHING, READY, PRESS → "PRESS".
        let w = who(
            "READ",
            ["SURE", "PRESS", "LIKE", "RIGHT", "YOU'RE", "YOU ARE"],
        );
        assert_eq!(w.correct_actions(), vec!["press_top_right_button"]);
        // Empty display → bottom left "UR"; UR's list starts DONE, U, UR → "UR" itself.
        let w = who("", ["YES", "NO", "LEFT", "RIGHT", "UR", "WAIT"]);
        assert_eq!(w.answer(), 4);
    }

    #[test]
    fn a_wrong_press_is_a_mistake_and_the_right_one_solves() {
        let mut w = who(
            "READ",
            ["SURE", "PRESS", "LIKE", "RIGHT", "YOU'RE", "YOU ARE"],
        );
        assert!(w.act("press_top_left_button").mistake);
        assert!(!w.solved() && w.progress() == 0.0);
        assert!(!w.act("press_top_right_button").mistake);
        assert!(w.solved() && w.correct_actions().is_empty());
        assert!(!w.act("press_top_left_button").mistake);
        assert!(!w.act("press_nowhere").mistake);
    }

    #[test]
    fn the_description_shows_the_screen_not_the_answer() {
        let w = who("", ["YES", "NO", "LEFT", "RIGHT", "UR", "WAIT"]);
        assert_eq!(
            w.describe(),
            "A module with a display and six labelled buttons in three rows of two. The \
             display is empty. The buttons are labelled: top left \"YES\", top right \"NO\", \
             middle left \"LEFT\", middle right \"RIGHT\", bottom left \"UR\", bottom right \
             \"WAIT\"."
        );
    }

    #[test]
    fn bad_instances_are_refused() {
        let six = ["YES", "NO", "LEFT", "RIGHT", "UR", "WAIT"];
        assert!(Who::import(&json!({})).is_err());
        assert!(Who::import(&json!({"display_text": 3, "button_texts": six})).is_err());
        assert!(Who::import(&json!({"display_text": "HELLO", "button_texts": six})).is_err());
        assert!(Who::import(&json!({"display_text": "YES", "button_texts": ["YES"]})).is_err());
        assert!(
            Who::import(&json!({"display_text": "YES",
                "button_texts": ["YES", "NO", "LEFT", "RIGHT", "UR", "ZEBRA"]}))
            .is_err()
        );
        assert!(
            Who::import(&json!({"display_text": "YES",
                "button_texts": ["YES", "YES", "LEFT", "RIGHT", "UR", "WAIT"]}))
            .is_err()
        );
        assert!(
            Who::import(&json!({"display_text": "YES", "button_texts": [1, 2, 3, 4, 5, 6]}))
                .is_err()
        );
    }

    #[test]
    fn generation_is_seeded_and_solvable() {
        assert_eq!(Who::generate(3), Who::generate(3));
        assert!((0..50).any(|s| Who::generate(s) != Who::generate(3)));
        for s in 0..200 {
            let g = Who::generate(s);
            let again = Who::import(&g.instance()).unwrap();
            assert_eq!(again.answer(), g.answer());
        }
    }
}
