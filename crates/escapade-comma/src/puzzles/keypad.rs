//! The keypad puzzle (COMMA App. A "KeyPad Puzzle"): four buttons in a 2×2 grid show four
//! symbols from one column of the manual; press them in the column's top-to-bottom order.
//!
//! The original draws symbols from pictures (six folders of six, `images/keypad/Col1` …
//! `Col6`, picture `n` being the column's `n`-th symbol from the top). We give every
//! picture a short word ([`COLUMNS`]) that the solver's description and the manual share;
//! the words are ours. Facts about the original, learned from its traces: `strip_num`
//! (0–5) picks the column, `image_nums` lists the four pictures in the order top left,
//! bottom left, top right, bottom right (column by column), and the answer is the pictures
//! in increasing number. Our keypad depends on no file listing order.
//!
//! A wrong press (a button that is not the next one, or one already pressed) is a mistake
//! and releases every pressed button, so the order starts again. The traces cannot show
//! this; it is what the original's published random-baseline numbers imply (about 1 %
//! success and 18 % partial success with 2.97 mistakes; without the reset a random solver
//! would succeed about 4 % of the time with 25 % partial success).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};

/// The manual's six columns of six symbols, each top to bottom. Two columns share at most
/// two symbols, so four symbols of one column fit in no other column.
pub const COLUMNS: [[&str; 6]; 6] = [
    ["star", "moon", "hook", "crown", "leaf", "key"],
    ["bell", "star", "kite", "spiral", "hook", "harp"],
    ["anchor", "fork", "kite", "eye", "moon", "wave"],
    ["candle", "diamond", "shell", "bell", "eye", "sun"],
    ["wheel", "shell", "lamp", "anchor", "feather", "comet"],
    ["trident", "sun", "feather", "crown", "arrow", "diamond"],
];

/// Button actions in the order top left, top right, bottom left, bottom right.
pub const ACTIONS: [&str; 4] = [
    "press_top_left_button",
    "press_top_right_button",
    "press_bottom_left_button",
    "press_bottom_right_button",
];

const PLACES: [&str; 4] = ["top left", "top right", "bottom left", "bottom right"];

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
KEYPAD. The module has four buttons in a 2×2 grid, each showing a symbol. Symbols are named \
by one word. Exactly one of the six columns below holds all four symbols. Press the four \
buttons in the order their symbols appear in that column, from top to bottom. A press out of \
order is a mistake and releases every pressed button, so the order starts again from the top.

Column 1: star, moon, hook, crown, leaf, key
Column 2: bell, star, kite, spiral, hook, harp
Column 3: anchor, fork, kite, eye, moon, wave
Column 4: candle, diamond, shell, bell, eye, sun
Column 5: wheel, shell, lamp, anchor, feather, comet
Column 6: trident, sun, feather, crown, arrow, diamond";

/// A keypad puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keypad {
    column: usize,
    /// Symbol indices within the column, in the original's `image_nums` order.
    image_nums: [usize; 4],
    /// Which buttons (indices into [`ACTIONS`]) are pressed.
    pressed: [bool; 4],
}

/// The original's `image_nums` slot shown on each button (top left, top right, bottom
/// left, bottom right): the original fills the grid column by column.
const SLOT: [usize; 4] = [0, 2, 1, 3];

impl Keypad {
    /// From the original's fields `{strip_num 0–5, image_nums [4 distinct 0–5]}`.
    pub fn import(instance: &Value) -> Result<Keypad, CommaError> {
        let column = instance
            .get("strip_num")
            .and_then(Value::as_u64)
            .filter(|s| *s < COLUMNS.len() as u64)
            .ok_or_else(|| CommaError::Format("keypad: `strip_num` must be 0 to 5".into()))?
            as usize;
        let nums: Vec<usize> = instance
            .get("image_nums")
            .and_then(Value::as_array)
            .and_then(|l| {
                l.iter()
                    .map(|n| n.as_u64().filter(|n| *n < 6).map(|n| n as usize))
                    .collect::<Option<_>>()
            })
            .ok_or_else(|| CommaError::Format("keypad: `image_nums` must list 0 to 5".into()))?;
        let image_nums: [usize; 4] = nums
            .as_slice()
            .try_into()
            .map_err(|_| CommaError::Format("keypad: `image_nums` must hold four".into()))?;
        let mut sorted = image_nums;
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(CommaError::Format(
                "keypad: the four symbols must differ".into(),
            ));
        }
        Ok(Keypad {
            column,
            image_nums,
            pressed: [false; 4],
        })
    }

    /// A seeded random keypad: a column, then four of its symbols in random places.
    pub fn generate(seed: u64) -> Keypad {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let column = rng.random_range(0..COLUMNS.len());
        let mut all: Vec<usize> = (0..6).collect();
        all.shuffle(&mut rng);
        Keypad {
            column,
            image_nums: [all[0], all[1], all[2], all[3]],
            pressed: [false; 4],
        }
    }

    /// The symbol index (in the column) on button `b`.
    fn index_on(&self, b: usize) -> usize {
        self.image_nums[SLOT[b]]
    }

    /// The symbol word on button `b` (an index into [`ACTIONS`]).
    pub fn symbol(&self, b: usize) -> &'static str {
        COLUMNS[self.column][self.index_on(b)]
    }

    /// The buttons (indices into [`ACTIONS`]) in the order to press them.
    pub fn order(&self) -> [usize; 4] {
        let mut o = [0, 1, 2, 3];
        o.sort_by_key(|&b| self.index_on(b));
        o
    }

    fn done(&self) -> usize {
        self.pressed.iter().filter(|p| **p).count()
    }
}

impl Puzzle for Keypad {
    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Keypad
    }

    fn actions(&self) -> Vec<String> {
        ACTIONS.iter().map(|a| a.to_string()).collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        let Some(b) = ACTIONS.iter().position(|a| *a == action) else {
            return ActResult::unknown(action);
        };
        if self.solved() {
            return ActResult::already_solved();
        }
        let symbol = self.symbol(b);
        if self.order()[self.done()] == b {
            self.pressed[b] = true;
            let feedback = if self.solved() {
                format!("You pressed {symbol}. All four are pressed; the module is disarmed.")
            } else {
                format!("You pressed {symbol}. The button stays down.")
            };
            ActResult {
                mistake: false,
                feedback,
            }
        } else {
            self.pressed = [false; 4];
            ActResult {
                mistake: true,
                feedback: format!(
                    "You pressed {symbol}. Strike: wrong order; every button is released."
                ),
            }
        }
    }

    fn solved(&self) -> bool {
        self.done() == 4
    }

    fn progress(&self) -> f64 {
        self.done() as f64 / 4.0
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.solved() {
            Vec::new()
        } else {
            vec![ACTIONS[self.order()[self.done()]].to_string()]
        }
    }

    fn describe(&self) -> String {
        let list: Vec<String> = (0..4)
            .map(|b| {
                format!(
                    "{} {}{}",
                    PLACES[b],
                    self.symbol(b),
                    if self.pressed[b] { " (pressed)" } else { "" }
                )
            })
            .collect();
        format!(
            "A keypad with four buttons in a 2×2 grid, each showing a symbol: {}.{}",
            list.join(", "),
            if self.solved() {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn render(&self) -> Result<Vec<u8>, CommaError> {
        let symbols = [
            self.symbol(0),
            self.symbol(1),
            self.symbol(2),
            self.symbol(3),
        ];
        crate::render::keypad(symbols, self.pressed, self.solved())
    }

    fn instance(&self) -> Value {
        json!({"strip_num": self.column, "image_nums": self.image_nums})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keypad(strip: usize, nums: [usize; 4]) -> Keypad {
        Keypad::import(&json!({"strip_num": strip, "image_nums": nums})).unwrap()
    }

    #[test]
    fn four_symbols_of_a_column_fit_no_other_column() {
        for (i, a) in COLUMNS.iter().enumerate() {
            for b in &COLUMNS[i + 1..] {
                assert!(a.iter().filter(|s| b.contains(s)).count() <= 2);
            }
            let mut sorted = a.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 6);
        }
        assert!(
            COLUMNS
                .iter()
                .enumerate()
                .all(|(i, c)| MANUAL.contains(&format!("Column {}: {}", i + 1, c.join(", "))))
        );
    }

    #[test]
    fn the_order_follows_the_column() {
        // the original's first keypad instance: press top right, top left, bottom right, bottom left
        let k = keypad(2, [1, 4, 0, 2]);
        assert_eq!(k.order(), [1, 0, 3, 2]);
        assert_eq!(k.symbol(1), "anchor");
        assert!(k.describe().contains("top right anchor"));
    }

    #[test]
    fn a_wrong_press_releases_everything() {
        let mut k = keypad(2, [1, 4, 0, 2]);
        assert!(!k.act("press_top_right_button").mistake);
        assert_eq!(k.progress(), 0.25);
        assert!(k.act("press_top_right_button").mistake);
        assert_eq!(k.progress(), 0.0);
        for a in [
            "press_top_right_button",
            "press_top_left_button",
            "press_bottom_right_button",
            "press_bottom_left_button",
        ] {
            assert_eq!(k.correct_actions(), [a]);
            assert!(!k.act(a).mistake);
        }
        assert!(k.solved() && k.correct_actions().is_empty());
        assert!(!k.act("press_top_left_button").mistake);
    }

    #[test]
    fn bad_instances_are_refused() {
        assert!(Keypad::import(&json!({})).is_err());
        assert!(Keypad::import(&json!({"strip_num": 6, "image_nums": [0, 1, 2, 3]})).is_err());
        assert!(Keypad::import(&json!({"strip_num": 0, "image_nums": [0, 1, 2]})).is_err());
        assert!(Keypad::import(&json!({"strip_num": 0, "image_nums": [0, 1, 2, 2]})).is_err());
        assert!(Keypad::import(&json!({"strip_num": 0, "image_nums": [0, 1, 2, 6]})).is_err());
        assert!(Keypad::import(&json!({"strip_num": 0, "image_nums": [0, 1, 2, "3"]})).is_err());
        let mut k = keypad(0, [0, 1, 2, 3]);
        assert!(!k.act("press_center").mistake);
        assert!(k.load_screen(&json!({})).is_err());
    }

    #[test]
    fn generation_is_seeded() {
        assert_eq!(Keypad::generate(3), Keypad::generate(3));
        assert!((0..50).any(|s| Keypad::generate(s) != Keypad::generate(3)));
        let k = Keypad::generate(8);
        assert_eq!(Keypad::import(&k.instance()).unwrap(), k);
    }
}
