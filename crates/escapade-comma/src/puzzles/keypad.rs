//! The keypad puzzle (COMMA App. A "KeyPad Puzzle"): four buttons in a 2×2 grid show four
//! symbols from one column of the manual; press them in the column's top-to-bottom order.
//!
//! The original draws symbols from pictures (six folders of six, `images/keypad/Col1` …
//! `Col6`, picture `n` being the column's `n`-th symbol from the top), and its expert reads
//! a manual with the same pictures. Here the manual names every symbol by one word
//! ([`COLUMNS`], ours), and the solver's picture draws the symbol without any name, so the
//! step §3.3 tests stays: the solver must describe a symbol well enough for the expert to
//! find it in the manual. A text-only solver reads [`SHAPES`]: a plain description of
//! each drawing in words that are never the manual's (no symbol's name appears in any
//! description; a test checks every pair), so it too must be told apart by what it looks
//! like. The feedback names the button pressed, never its symbol.
//!
//! Facts about the original, learned from its code and traces: `strip_num` (0–5) picks
//! the column, `image_nums` lists the four pictures in the order top left, bottom left,
//! top right, bottom right (column by column, which is also the order of its action list),
//! and the answer is the pictures in increasing number. Our keypad depends on no file
//! listing order.
//!
//! A wrong press (a button that is not the next one, or one already pressed) is a mistake
//! and releases every pressed button, so the order starts again (the original's code).

use rand::Rng;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

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

/// Button actions in the order top left, top right, bottom left, bottom right (our
/// button indices).
const BUTTONS: [&str; 4] = [
    "press_top_left_button",
    "press_top_right_button",
    "press_bottom_left_button",
    "press_bottom_right_button",
];

/// The action list as the original orders it: top left, bottom left, top right, bottom
/// right.
pub const ACTIONS: [&str; 4] = [BUTTONS[0], BUTTONS[2], BUTTONS[1], BUTTONS[3]];

const PLACES: [&str; 4] = ["top left", "top right", "bottom left", "bottom right"];

/// What each symbol's drawing looks like, in words that name no symbol of the manual: the
/// text a solver without the picture reads (and all a describing solver can pass on).
pub const SHAPES: [(&str, &str); 24] = [
    ("star", "a solid five-pointed figure"),
    ("moon", "a solid crescent"),
    (
        "hook",
        "an upright line with a small ring at its top, curving at the bottom into a J that \
         ends in a barb",
    ),
    (
        "crown",
        "a solid band with three spikes, each topped by a ball, above a flat bar",
    ),
    (
        "leaf",
        "a solid pointed oval lying at a slant, with a short stalk and a pale middle vein \
         with side veins",
    ),
    (
        "key",
        "a ring on the left with a straight shaft running right, two teeth hanging from the \
         shaft",
    ),
    (
        "bell",
        "a solid dome that widens into a flared rim, a small ball under the rim and a knob on \
         top",
    ),
    (
        "kite",
        "a solid four-sided shape, taller than wide and pointed at the top, with a thin \
         zigzag tail carrying two bows",
    ),
    (
        "spiral",
        "a single line coiling outward from the middle in three turns",
    ),
    (
        "harp",
        "a slanted triangular frame with a thick upright on the left and four vertical \
         strings",
    ),
    (
        "anchor",
        "an upright shaft with a ring on top and a short crossbar under the ring, ending \
         below in a curve with an upturned barb at each end",
    ),
    (
        "fork",
        "a thick handle rising into four straight parallel prongs",
    ),
    (
        "eye",
        "an outlined almond shape with a solid disc in its middle and a small light dot in \
         the disc",
    ),
    ("wave", "two wavy horizontal lines, one above the other"),
    (
        "candle",
        "a solid upright bar on a flat base, with a short wick and a teardrop flame on top",
    ),
    (
        "diamond",
        "a solid gem: a flat top, cut corners, tapering to a point at the bottom, with pale \
         facet lines",
    ),
    (
        "shell",
        "a solid fan with pale ridges spreading upward from a small base",
    ),
    ("sun", "a solid disc ringed by eight short straight rays"),
    ("wheel", "a circle with six spokes meeting at a solid hub"),
    (
        "lamp",
        "a solid trapezoid shade, smaller at the top, on a thin stem standing on an oval foot",
    ),
    (
        "feather",
        "a long slim solid blade lying at a slant, a thin quill through its length and small \
         notches along both edges",
    ),
    (
        "comet",
        "a solid ball at the upper right trailing a tapering tail to the lower left, edged by \
         two thin lines",
    ),
    (
        "trident",
        "a long upright shaft ending at the top in three prongs with pointed tips, the outer \
         two joined by a curve",
    ),
    (
        "arrow",
        "a straight shaft pointing to the upper right with a triangular head, and two fins \
         at its lower left tail",
    ),
];

/// The description of symbol `name` ([`SHAPES`]).
pub fn shape(name: &str) -> &'static str {
    SHAPES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("an unknown symbol", |(_, d)| d)
}

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
    /// Which buttons (top left, top right, bottom left, bottom right) are pressed.
    pressed: [bool; 4],
    /// Buttons down after the last correct press (the original's `max_score`, which its
    /// score reads: a strike leaves it, the next correct press sets it).
    scored: usize,
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
            .ok_or_else(|| CommaError::Format {
                puzzle: "keypad",
                field: Some("strip_num"),
                reason: "must be 0 to 5".into(),
            })? as usize;
        let nums: Vec<usize> = instance
            .get("image_nums")
            .and_then(Value::as_array)
            .and_then(|l| {
                l.iter()
                    .map(|n| n.as_u64().filter(|n| *n < 6).map(|n| n as usize))
                    .collect::<Option<_>>()
            })
            .ok_or_else(|| CommaError::Format {
                puzzle: "keypad",
                field: Some("image_nums"),
                reason: "must list 0 to 5".into(),
            })?;
        let image_nums: [usize; 4] =
            nums.as_slice().try_into().map_err(|_| CommaError::Format {
                puzzle: "keypad",
                field: Some("image_nums"),
                reason: "must hold four".into(),
            })?;
        let mut sorted = image_nums;
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(CommaError::Format {
                puzzle: "keypad",
                field: None,
                reason: "the four symbols must differ".into(),
            });
        }
        Ok(Keypad {
            column,
            image_nums,
            pressed: [false; 4],
            scored: 0,
        })
    }

    /// A seeded random keypad: a column, then four of its symbols in random places.
    pub fn generate(seed: u64) -> Keypad {
        let mut rng = escapade_core::seed::rng(seed);
        let column = rng.random_range(0..COLUMNS.len());
        let mut all: Vec<usize> = (0..6).collect();
        all.shuffle(&mut rng);
        Keypad {
            column,
            image_nums: [all[0], all[1], all[2], all[3]],
            pressed: [false; 4],
            scored: 0,
        }
    }

    /// The symbol index (in the column) on button `b`.
    fn index_on(&self, b: usize) -> usize {
        self.image_nums[SLOT[b]]
    }

    /// The symbol word on button `b` (top left, top right, bottom left, bottom right).
    pub fn symbol(&self, b: usize) -> &'static str {
        COLUMNS[self.column][self.index_on(b)]
    }

    /// The buttons (top left, top right, bottom left, bottom right) in the order to press
    /// them.
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
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Keypad
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
        let place = PLACES[b];
        if self.order()[self.done()] == b {
            self.pressed[b] = true;
            self.scored = self.done();
            let feedback = if self.solved() {
                format!(
                    "You pressed the {place} button. All four are pressed; the module is \
                     disarmed."
                )
            } else {
                format!("You pressed the {place} button. It stays down.")
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
                    "You pressed the {place} button. Strike: wrong order; every button is \
                     released."
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

    /// The original's `max_score / 4`: the buttons down after the last correct press.
    fn score(&self) -> Option<f64> {
        Some(self.scored as f64 / 4.0)
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.solved() {
            Vec::new()
        } else {
            vec![BUTTONS[self.order()[self.done()]].to_string()]
        }
    }

    /// `A keypad … Top left: <shape>; top right: <shape> (pressed); …`, each shape in
    /// [`SHAPES`]' words.
    fn describe(&self) -> String {
        let list: Vec<String> = (0..4)
            .map(|b| {
                format!(
                    "{}: {}{}",
                    PLACES[b],
                    shape(self.symbol(b)),
                    if self.pressed[b] { " (pressed)" } else { "" }
                )
            })
            .collect();
        let mut list = list.join("; ");
        list[..1].make_ascii_uppercase();
        format!(
            "A keypad with four buttons in a 2×2 grid, each showing a symbol drawn in black. \
             {list}.{}",
            if self.solved() {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Keypad {
            symbols: [
                self.symbol(0),
                self.symbol(1),
                self.symbol(2),
                self.symbol(3),
            ],
            pressed: self.pressed,
            solved: self.solved(),
        }))
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
        assert!(
            k.describe()
                .contains("top right: an upright shaft with a ring on top")
        );
        assert_eq!(
            k.actions(),
            [
                "press_top_left_button",
                "press_bottom_left_button",
                "press_top_right_button",
                "press_bottom_right_button"
            ]
        );
    }

    /// §3.3: the solver describes, the expert looks up. No description of a drawing says a
    /// word the manual names a symbol by (not even inside another word), no two
    /// descriptions are alike, and every symbol of the manual has one.
    #[test]
    fn shapes_never_say_the_manual_s_words() {
        let names: Vec<&str> = COLUMNS.iter().flatten().copied().collect();
        for (name, text) in SHAPES {
            assert!(names.contains(&name), "{name}");
            for word in &names {
                assert!(
                    !text.to_lowercase().contains(word),
                    "the shape of {name} says `{word}`: {text}"
                );
            }
            assert!(!text.contains(';') && !text.contains("pressed"), "{text}");
        }
        for name in &names {
            assert_eq!(
                SHAPES.iter().filter(|(n, _)| n == name).count(),
                1,
                "{name}"
            );
        }
        let mut texts: Vec<&str> = SHAPES.iter().map(|(_, t)| *t).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), SHAPES.len());
        // nor does anything the solver is shown or told
        for strip in 0..6 {
            let mut k = keypad(strip, [0, 1, 2, 3]);
            let mut seen = vec![k.describe()];
            while !k.solved() {
                let a = k.correct_actions()[0].clone();
                seen.push(k.act(&a).feedback);
                seen.push(k.describe());
            }
            // ("keypad" names the module, so whole words here)
            for text in seen {
                let lower = text.to_lowercase();
                let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
                for name in &names {
                    let plural = format!("{name}s");
                    assert!(
                        !words.iter().any(|w| w == name || *w == plural),
                        "{name}: {text}"
                    );
                }
            }
        }
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
