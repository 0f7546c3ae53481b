//! The wire puzzle (COMMA App. A "Wire Puzzle"): 3–6 coloured wires, cut the one the
//! manual's rules pick. The serial number is 123456 ([`crate::puzzle::SERIAL`]), the one
//! the original's model configurations set and so the one the paper's models saw (its
//! random baseline's configuration set 135790; both end in an even digit, so every rule
//! that asks for an odd last digit is false). `-W serial=N` sets another.
//!
//! Where the serial number is: on the solver's side, as in the original (it prints
//! "Serial Number" under the module in the solver's screenshot, and its manual only
//! refers to "the last digit of the serial number"). The picture and its description
//! show it; the expert's manual only names it, as the original's does, so an expert who
//! needs it must ask. The picture draws the wires unnumbered, each with a CUT button on
//! it, as the original's screen does; the description counts them from the top.

use rand::Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind, SERIAL};
use crate::render::{Drawing, Scene};

/// Wire colours the original uses.
pub const COLOURS: [&str; 5] = ["red", "white", "yellow", "blue", "black"];

/// The expert's manual, in our own words: like the original's, it names the serial
/// number only in the rules that read it, and says nothing of who can see it.
pub const MANUAL: &str = "\
WIRES. The module has between 3 and 6 wires. Exactly one must be cut. Wires are counted \
from the top (the first wire is the top one).

With 3 wires:
- no red wire: cut the second wire;
- else, the last wire is white: cut the last wire;
- else, more than one blue wire: cut the last blue wire;
- else: cut the last wire.

With 4 wires:
- more than one red wire and the serial number ends in an odd digit: cut the last red wire;
- else, the last wire is yellow and there is no red wire: cut the first wire;
- else, exactly one blue wire: cut the first wire;
- else, more than one yellow wire: cut the last wire;
- else: cut the second wire.

With 5 wires:
- the last wire is black and the serial number ends in an odd digit: cut the fourth wire;
- else, exactly one red wire and more than one yellow wire: cut the first wire;
- else, no black wire: cut the second wire;
- else: cut the first wire.

With 6 wires:
- no yellow wire and the serial number ends in an odd digit: cut the third wire;
- else, exactly one yellow wire and more than one white wire: cut the fourth wire;
- else, no red wire: cut the last wire;
- else: cut the fourth wire.";

/// A wire puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wire {
    colours: Vec<String>,
    cut: Option<usize>,
    serial: u32,
}

impl Wire {
    /// From the original's fields `{n_wires, colors}`.
    pub fn import(instance: &Value) -> Result<Wire, CommaError> {
        let colours: Vec<String> = instance
            .get("colors")
            .and_then(Value::as_array)
            .ok_or_else(|| CommaError::Format {
                puzzle: "wire",
                field: Some("colors"),
                reason: "must be a list".into(),
            })?
            .iter()
            .map(|c| c.as_str().map(str::to_lowercase))
            .collect::<Option<_>>()
            .ok_or_else(|| CommaError::Format {
                puzzle: "wire",
                field: None,
                reason: "every colour must be a string".into(),
            })?;
        // App. A: "3 to 6 colored wires"
        if let Some(n) = crate::puzzles::count_in("wire", instance, "n_wires", 3..=6)?
            && n != colours.len() as u64
        {
            return Err(CommaError::Format {
                puzzle: "wire",
                field: Some("n_wires"),
                reason: format!("is {n} but {} colours are given", colours.len()),
            });
        }
        if !(3..=6).contains(&colours.len()) {
            return Err(CommaError::Format {
                puzzle: "wire",
                field: None,
                reason: format!("3 to 6 wires, not {}", colours.len()),
            });
        }
        if let Some(c) = colours.iter().find(|c| !COLOURS.contains(&c.as_str())) {
            return Err(CommaError::Format {
                puzzle: "wire",
                field: None,
                reason: format!("unknown colour `{c}`"),
            });
        }
        Ok(Wire {
            colours,
            cut: None,
            serial: SERIAL,
        })
    }

    /// A seeded random wire puzzle (3–6 wires, colours uniform).
    pub fn generate(seed: u64) -> Wire {
        let mut rng = escapade_core::seed::rng(seed);
        let n = rng.random_range(3..=6);
        let colours = (0..n)
            .map(|_| COLOURS[rng.random_range(0..COLOURS.len())].to_string())
            .collect();
        Wire {
            colours,
            cut: None,
            serial: SERIAL,
        }
    }

    /// The same wires under serial number `serial`.
    pub fn with_serial(self, serial: u32) -> Wire {
        Wire { serial, ..self }
    }

    /// The serial number printed on the module.
    pub fn serial(&self) -> u32 {
        self.serial
    }

    /// The wire to cut, 1-based, by the manual's rules.
    pub fn answer(&self) -> usize {
        let serial_odd = || self.serial % 2 == 1;
        let c = &self.colours;
        let n = c.len();
        let count = |x: &str| c.iter().filter(|w| *w == x).count();
        let last_of = |x: &str| c.iter().rposition(|w| w == x).map_or(n, |i| i + 1);
        let last = c[n - 1].as_str();
        match n {
            3 => {
                if count("red") == 0 {
                    2
                } else if last == "white" {
                    n
                } else if count("blue") > 1 {
                    last_of("blue")
                } else {
                    n
                }
            }
            4 => {
                if count("red") > 1 && serial_odd() {
                    last_of("red")
                } else if (last == "yellow" && count("red") == 0) || count("blue") == 1 {
                    // the manual's second and third rules both cut the first wire
                    1
                } else if count("yellow") > 1 {
                    n
                } else {
                    2
                }
            }
            5 => {
                if last == "black" && serial_odd() {
                    4
                } else if count("red") == 1 && count("yellow") > 1 {
                    1
                } else if count("black") == 0 {
                    2
                } else {
                    1
                }
            }
            _ => {
                if count("yellow") == 0 && serial_odd() {
                    3
                } else if count("yellow") == 1 && count("white") > 1 {
                    4
                } else if count("red") == 0 {
                    n
                } else {
                    4
                }
            }
        }
    }

    /// The colours, top to bottom.
    pub fn colours(&self) -> &[String] {
        &self.colours
    }
}

impl Puzzle for Wire {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Wire
    }

    fn actions(&self) -> Vec<String> {
        (1..=self.colours.len())
            .map(|i| format!("cut_wire_{i}"))
            .collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        let Some(i) = action
            .strip_prefix("cut_wire_")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|i| (1..=self.colours.len()).contains(i))
        else {
            return ActResult::unknown(action);
        };
        if self.cut.is_some() {
            return ActResult::already_solved();
        }
        if i == self.answer() {
            self.cut = Some(i);
            ActResult {
                mistake: false,
                feedback: format!("You cut wire {i}. The module is disarmed."),
            }
        } else {
            ActResult {
                mistake: true,
                feedback: format!("You cut wire {i}. Strike: that was the wrong wire."),
            }
        }
    }

    fn solved(&self) -> bool {
        self.cut.is_some()
    }

    fn progress(&self) -> f64 {
        if self.solved() { 1.0 } else { 0.0 }
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.solved() {
            Vec::new()
        } else {
            vec![format!("cut_wire_{}", self.answer())]
        }
    }

    fn describe(&self) -> String {
        let list: Vec<String> = self
            .colours
            .iter()
            .enumerate()
            .map(|(i, c)| format!("wire {} is {c}", i + 1))
            .collect();
        format!(
            "A wire module with {} wires, counted from the top: {}. The serial number {} \
             is printed on the module.{}",
            self.colours.len(),
            list.join(", "),
            self.serial,
            if self.solved() {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Wire {
            colours: self.colours.clone(),
            serial: self.serial,
            solved: self.solved(),
        }))
    }

    fn instance(&self) -> Value {
        json!({"n_wires": self.colours.len(), "colors": self.colours})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(colours: &[&str]) -> Wire {
        Wire::import(&json!({"n_wires": colours.len(), "colors": colours})).unwrap()
    }

    #[test]
    fn the_manual_picks_the_wire() {
        assert_eq!(wire(&["blue", "white", "black"]).answer(), 2);
        assert_eq!(wire(&["red", "blue", "white"]).answer(), 3);
        assert_eq!(wire(&["blue", "red", "blue"]).answer(), 3);
        assert_eq!(wire(&["blue", "blue", "red"]).answer(), 2);
        assert_eq!(wire(&["blue", "black", "white", "yellow"]).answer(), 1);
        assert_eq!(wire(&["red", "red", "white", "black"]).answer(), 2);
        assert_eq!(
            wire(&["red", "black", "yellow", "red", "white"]).answer(),
            1
        );
        assert_eq!(
            wire(&["black", "black", "red", "blue", "blue", "red"]).answer(),
            4
        );
    }

    #[test]
    fn a_wrong_cut_is_a_mistake_and_the_right_one_solves() {
        let mut w = wire(&["blue", "white", "black"]);
        assert!(w.act("cut_wire_1").mistake);
        assert!(!w.solved());
        assert!(!w.act("cut_wire_2").mistake);
        assert!(w.solved() && w.correct_actions().is_empty());
        assert_eq!(w.progress(), 1.0);
    }

    /// An odd last digit turns on the manual's serial-number rules.
    #[test]
    fn the_serial_number_s_last_digit_decides() {
        let four = wire(&["red", "blue", "red", "white"]);
        assert_eq!(four.answer(), 1, "one blue wire: the first");
        assert_eq!(
            four.clone().with_serial(135_791).answer(),
            3,
            "the last red"
        );
        assert_eq!(four.clone().with_serial(135_790).answer(), 1);
        let w = wire(&["red", "white", "black"]).with_serial(777_777);
        assert!(w.describe().contains("The serial number 777777 is printed"));
    }

    #[test]
    fn bad_instances_are_refused() {
        assert!(Wire::import(&json!({"colors": ["red"]})).is_err());
        assert!(Wire::import(&json!({"colors": ["red", "pink", "blue"]})).is_err());
        assert!(Wire::import(&json!({"n_wires": 4, "colors": ["red", "red", "blue"]})).is_err());
        assert!(Wire::import(&json!({})).is_err());
    }

    #[test]
    fn generation_is_seeded() {
        assert_eq!(Wire::generate(3), Wire::generate(3));
        assert!((0..50).any(|s| Wire::generate(s) != Wire::generate(3)));
    }
}
