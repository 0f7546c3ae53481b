//! The password puzzle (COMMA App. A "Password Puzzle"): five letter wheels, each with an
//! up and a down button, and a submit button. Each wheel cycles through three consecutive
//! letters; set the wheels to the one listed word they can spell, then submit.
//!
//! Wheel semantics, as the original's code has them (and as the original-answers fixture
//! confirms: every wheel is at most one press from its answer letter, and the BFS that made
//! the fixture never visits more than 3⁵ states): wheel *i* holds the answer's letter *i*
//! with the letter before and after it in the alphabet, wrapping (`a` → `z a b`), in that
//! order; up moves one letter forward along the wheel and down one back, both wrapping
//! within the three. The original draws each starting letter uniformly from its wheel.
//!
//! Only a submit with the wheels spelling a wrong word is a strike; turning wheels never
//! is. The module is a single stage, so progress is 0 until it is solved.
//!
//! Disagreement with App. A, documented: App. A says only one combination of the wheels'
//! letters is a listed word, but with the original's wheels `there` and `these` can each
//! be spelt by the other's wheels (r and s are neighbours). The original accepts only its
//! `answer_word`, and so does an imported puzzle; [`Password::generate`] never draws those
//! two words, so generated puzzles keep App. A's promise.

use rand::Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// The listed words (App. A; the original's `possible_words`).
pub const WORDS: [&str; 35] = [
    "about", "after", "again", "below", "could", "every", "first", "found", "great", "house",
    "large", "learn", "never", "other", "place", "plant", "point", "right", "small", "sound",
    "spell", "still", "study", "their", "there", "these", "thing", "think", "three", "water",
    "where", "which", "world", "would", "write",
];

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
PASSWORD. The module has five letter wheels in a row, each with an up button above it and \
a down button below it, and a SUBMIT button. Each wheel turns through three letters that \
follow each other in the alphabet (after Z comes A again). Exactly one way of setting the \
wheels spells a word from the list below. Have the solver find out which letters each wheel \
can show, set the wheels to that word, then press SUBMIT. Submitting any other word is a \
strike; turning the wheels is always safe.

Words: about, after, again, below, could, every, first, found, great, house, large, learn, \
never, other, place, plant, point, right, small, sound, spell, still, study, their, there, \
these, thing, think, three, water, where, which, world, would, write.";

/// A password puzzle. Letters are stored as 0–25 (`a` = 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Password {
    answer: [u8; 5],
    letters: [u8; 5],
    solved: bool,
}

fn letter(c: u8) -> char {
    char::from(b'a' + c % 26)
}

/// Wheel `i`'s three letters for answer letter `a`: the one before, `a`, the one after.
fn wheel(a: u8) -> [u8; 3] {
    [(a + 25) % 26, a, (a + 1) % 26]
}

fn parse_word(w: &str) -> Option<[u8; 5]> {
    let b = w.as_bytes();
    if b.len() != 5 || !b.iter().all(u8::is_ascii_lowercase) {
        return None;
    }
    Some([
        b[0] - b'a',
        b[1] - b'a',
        b[2] - b'a',
        b[3] - b'a',
        b[4] - b'a',
    ])
}

/// Whether the wheels built around `answer` can spell `word`.
fn spells(answer: [u8; 5], word: [u8; 5]) -> bool {
    (0..5).all(|i| wheel(answer[i]).contains(&word[i]))
}

impl Password {
    /// From the original's fields `{possible_words, answer_word, current_letters}`. The word
    /// list must be App. A's (the manual prints it); the answer must be on it; each current
    /// letter must be on its wheel.
    pub fn import(instance: &Value) -> Result<Password, CommaError> {
        let words: Vec<&str> = instance
            .get("possible_words")
            .and_then(Value::as_array)
            .ok_or_else(|| CommaError::Format {
                puzzle: "password",
                field: Some("possible_words"),
                reason: "must be a list".into(),
            })?
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()
            .ok_or_else(|| CommaError::Format {
                puzzle: "password",
                field: None,
                reason: "every word must be a string".into(),
            })?;
        let mut sorted = words.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted != WORDS {
            return Err(CommaError::Format {
                puzzle: "password",
                field: Some("possible_words"),
                reason: "must be the manual's 35 words".into(),
            });
        }
        let answer_word = instance
            .get("answer_word")
            .and_then(Value::as_str)
            .ok_or_else(|| CommaError::Format {
                puzzle: "password",
                field: Some("answer_word"),
                reason: "must be a string".into(),
            })?;
        if !WORDS.contains(&answer_word) {
            return Err(CommaError::Format {
                puzzle: "password",
                field: None,
                reason: format!("`{answer_word}` is not a listed word"),
            });
        }
        let answer = parse_word(answer_word).ok_or_else(|| CommaError::Format {
            puzzle: "password",
            field: None,
            reason: "five lowercase letters".into(),
        })?;
        let current: Vec<u8> = instance
            .get("current_letters")
            .and_then(Value::as_array)
            .ok_or_else(|| CommaError::Format {
                puzzle: "password",
                field: Some("current_letters"),
                reason: "must be a list".into(),
            })?
            .iter()
            .map(|l| {
                l.as_str()
                    .map(str::to_lowercase)
                    .and_then(|s| parse_one(&s))
            })
            .collect::<Option<_>>()
            .ok_or_else(|| CommaError::Format {
                puzzle: "password",
                field: None,
                reason: "every current letter must be one letter".into(),
            })?;
        let letters: [u8; 5] = current.try_into().map_err(|_| CommaError::Format {
            puzzle: "password",
            field: None,
            reason: "five current letters".into(),
        })?;
        if let Some(i) = (0..5).find(|&i| !wheel(answer[i]).contains(&letters[i])) {
            return Err(CommaError::Format {
                puzzle: "password",
                field: None,
                reason: format!(
                    "letter {} (`{}`) is not on its wheel",
                    i + 1,
                    letter(letters[i])
                ),
            });
        }
        Ok(Password {
            answer,
            letters,
            solved: false,
        })
    }

    /// A seeded random puzzle: an answer uniform over the listed words that no other
    /// listed word can be spelt from (all but `there` and `these`), each starting letter
    /// uniform over its wheel, as the original draws them.
    pub fn generate(seed: u64) -> Password {
        let mut rng = escapade_core::seed::rng(seed);
        let unique: Vec<[u8; 5]> = WORDS
            .iter()
            .filter_map(|w| parse_word(w))
            .filter(|&a| {
                WORDS
                    .iter()
                    .filter_map(|w| parse_word(w))
                    .filter(|&w| w != a)
                    .all(|w| !spells(a, w))
            })
            .collect();
        let answer = unique[rng.random_range(0..unique.len())];
        let letters = answer.map(|a| wheel(a)[rng.random_range(0..3)]);
        Password {
            answer,
            letters,
            solved: false,
        }
    }

    /// The word to set.
    pub fn answer(&self) -> String {
        self.answer.iter().map(|&c| letter(c)).collect()
    }

    /// What the wheels show now.
    pub fn current(&self) -> String {
        self.letters.iter().map(|&c| letter(c)).collect()
    }

    fn turn(&mut self, i: usize, up: bool) {
        let w = wheel(self.answer[i]);
        let at = w.iter().position(|&c| c == self.letters[i]).unwrap_or(1);
        let to = if up { (at + 1) % 3 } else { (at + 2) % 3 };
        self.letters[i] = w[to];
    }
}

fn parse_one(s: &str) -> Option<u8> {
    match s.as_bytes() {
        [c] if c.is_ascii_lowercase() => Some(c - b'a'),
        _ => None,
    }
}

impl Puzzle for Password {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Password
    }

    fn actions(&self) -> Vec<String> {
        let mut a = Vec::with_capacity(11);
        for i in 1..=5 {
            a.push(format!("up_button_{i}"));
            a.push(format!("down_button_{i}"));
        }
        a.push("submit".into());
        a
    }

    fn act(&mut self, action: &str) -> ActResult {
        let turn = action
            .strip_prefix("up_button_")
            .map(|n| (n, true))
            .or_else(|| action.strip_prefix("down_button_").map(|n| (n, false)))
            .and_then(|(n, up)| n.parse::<usize>().ok().map(|i| (i, up)))
            .filter(|(i, _)| (1..=5).contains(i));
        if turn.is_none() && action != "submit" {
            return ActResult::unknown(action);
        }
        if self.solved {
            return ActResult::already_solved();
        }
        if let Some((i, up)) = turn {
            self.turn(i - 1, up);
            return ActResult {
                mistake: false,
                feedback: format!(
                    "Wheel {i} now shows {}.",
                    letter(self.letters[i - 1]).to_ascii_uppercase()
                ),
            };
        }
        let word = self.current().to_uppercase();
        if self.letters == self.answer {
            self.solved = true;
            ActResult {
                mistake: false,
                feedback: format!("You submitted {word}. The module is disarmed."),
            }
        } else {
            ActResult {
                mistake: true,
                feedback: format!("You submitted {word}. Strike: that is not the password."),
            }
        }
    }

    fn solved(&self) -> bool {
        self.solved
    }

    fn progress(&self) -> f64 {
        if self.solved { 1.0 } else { 0.0 }
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.solved {
            return Vec::new();
        }
        if self.letters == self.answer {
            return vec!["submit".into()];
        }
        // On a three-letter wheel every other letter is one press away, in one direction.
        (0..5)
            .filter(|&i| self.letters[i] != self.answer[i])
            .map(|i| {
                if self.letters[i] == wheel(self.answer[i])[0] {
                    format!("up_button_{}", i + 1)
                } else {
                    format!("down_button_{}", i + 1)
                }
            })
            .collect()
    }

    fn describe(&self) -> String {
        let shown: Vec<String> = self
            .letters
            .iter()
            .map(|&c| letter(c).to_ascii_uppercase().to_string())
            .collect();
        format!(
            "A module with five letter wheels in a row, each with an up button above it and a \
             down button below it, and a SUBMIT button. From left to right the wheels show: {}.{}",
            shown.join(" "),
            if self.solved {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Password {
            letters: self.letters.map(letter),
            solved: self.solved,
        }))
    }

    fn instance(&self) -> Value {
        let current: Vec<String> = self
            .letters
            .iter()
            .map(|&c| letter(c).to_string())
            .collect();
        json!({
            "possible_words": WORDS.as_slice(),
            "answer_word": self.answer(),
            "current_letters": current,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn password(answer: &str, current: [&str; 5]) -> Password {
        Password::import(&json!({
            "possible_words": WORDS.as_slice(), "answer_word": answer, "current_letters": current
        }))
        .unwrap()
    }

    #[test]
    fn wheels_cycle_three_letters_around_the_answer() {
        let mut p = password("again", ["a", "f", "b", "j", "m"]);
        assert_eq!(
            p.correct_actions(),
            vec![
                "up_button_2",
                "down_button_3",
                "down_button_4",
                "up_button_5"
            ]
        );
        // Wheel 1 holds z, a, b: up twice from a wraps to z.
        p.act("up_button_1");
        assert_eq!(p.current(), "bfbjm");
        p.act("up_button_1");
        assert_eq!(p.current(), "zfbjm");
        p.act("down_button_1");
        assert_eq!(p.current(), "bfbjm");
        p.act("down_button_1");
        assert_eq!(p.current(), "afbjm");
        p.act("down_button_1");
        assert_eq!(p.current(), "zfbjm");
    }

    #[test]
    fn only_a_wrong_submit_is_a_mistake() {
        let mut p = password("again", ["a", "f", "b", "j", "m"]);
        assert!(p.act("submit").mistake);
        for a in [
            "up_button_2",
            "down_button_3",
            "down_button_4",
            "up_button_5",
        ] {
            assert!(!p.act(a).mistake);
        }
        assert_eq!(p.correct_actions(), vec!["submit"]);
        assert!(!p.act("submit").mistake);
        assert!(p.solved() && p.correct_actions().is_empty() && p.progress() == 1.0);
        assert!(!p.act("up_button_6").mistake);
    }

    #[test]
    fn the_description_shows_the_wheels_not_the_word() {
        let p = password("again", ["a", "f", "b", "j", "m"]);
        assert_eq!(
            p.describe(),
            "A module with five letter wheels in a row, each with an up button above it and a \
             down button below it, and a SUBMIT button. From left to right the wheels show: \
             A F B J M."
        );
    }

    #[test]
    fn bad_instances_are_refused() {
        let ok = |a: &str, c: Value| {
            Password::import(
                &json!({"possible_words": WORDS.as_slice(), "answer_word": a, "current_letters": c}),
            )
        };
        assert!(ok("again", json!(["a", "f", "b", "j", "m"])).is_ok());
        assert!(ok("again", json!(["a", "f", "b", "j"])).is_err());
        assert!(ok("again", json!(["a", "f", "b", "j", "x"])).is_err());
        assert!(ok("again", json!(["a", "f", "b", "j", "mm"])).is_err());
        assert!(ok("again", json!(["a", "f", "b", "j", 3])).is_err());
        assert!(ok("zebra", json!(["z", "e", "b", "r", "a"])).is_err());
        assert!(ok("é", json!(["a", "f", "b", "j", "m"])).is_err());
        assert!(
            Password::import(&json!({"possible_words": ["again"], "answer_word": "again",
                "current_letters": ["a", "g", "a", "i", "n"]}))
            .is_err()
        );
        assert!(Password::import(&json!({})).is_err());
    }

    #[test]
    fn generation_is_seeded_and_unambiguous() {
        assert_eq!(Password::generate(3), Password::generate(3));
        assert!((0..50).any(|s| Password::generate(s) != Password::generate(3)));
        for s in 0..300 {
            let g = Password::generate(s);
            assert!(!["there", "these"].contains(&g.answer().as_str()));
            assert_eq!(Password::import(&g.instance()).unwrap(), g);
        }
        assert!(spells(
            parse_word("there").unwrap(),
            parse_word("these").unwrap()
        ));
    }
}
