//! The colour puzzle (COMMA App. A "Color Puzzle"): a 4×4 grid of coloured squares must be
//! turned white group by group. The first group is the smallest colour group; after that a
//! table indexed by the number of white squares and the group pressed last names the next
//! group. Pressing any square of the right group turns the whole group white (as in the
//! original: one press per group). Pressing a square that is already white does nothing
//! (as in the original's code: not a mistake, no reset). Pressing a coloured square outside
//! the right group is a mistake and resets the module to its first grid.
//!
//! The paper does not print the table; [`TABLE`] is the original's (its code, MIT; every
//! entry its evaluation traces reach agrees with them). The non-white squares change
//! colour after every stage, drawn from the puzzle's own seeded RNG the way the original
//! does it: while five or more squares are coloured, the first five of them in reading
//! order become red, blue, green, yellow and magenta (so every colour the table can name is
//! present) and the rest are uniform; with four or fewer, all are uniform (the table then
//! names only Row or Column). The original treats the imported grid the same way at the
//! start.
//!
//! Progress is the share of white squares (white ÷ 16).

use rand::Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// The five colours, in the manual's tie-break order.
pub const COLOURS: [&str; 5] = ["Red", "Blue", "Green", "Yellow", "Magenta"];

/// A group: a colour (index into [`COLOURS`]), the row group or the column group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// All squares of one colour.
    Colour(usize),
    /// The non-white squares of the topmost row that has any.
    Row,
    /// The non-white squares of the leftmost column that has any.
    Column,
}

impl Group {
    /// The name used in the manual and in trace observations.
    pub fn name(self) -> &'static str {
        match self {
            Group::Colour(c) => COLOURS[c],
            Group::Row => "Row",
            Group::Column => "Column",
        }
    }

    fn parse(name: &str) -> Option<Group> {
        let n = name.trim().to_lowercase();
        match n.as_str() {
            "row" => Some(Group::Row),
            "column" => Some(Group::Column),
            _ => COLOURS
                .iter()
                .position(|c| c.to_lowercase() == n)
                .map(Group::Colour),
        }
    }

    /// Column of [`TABLE`] for this previous group.
    fn table_column(self) -> usize {
        match self {
            Group::Colour(c) => c,
            Group::Row => 5,
            Group::Column => 6,
        }
    }
}

const R: Group = Group::Colour(0);
const B: Group = Group::Colour(1);
const G: Group = Group::Colour(2);
const Y: Group = Group::Colour(3);
const M: Group = Group::Colour(4);
const ROW: Group = Group::Row;
const COL: Group = Group::Column;

/// The next group: `TABLE[white squares - 1][previous]`, previous in the order Red, Blue,
/// Green, Yellow, Magenta, Row, Column — the original's table. From 12 white squares on
/// (four or fewer coloured, so not every colour is on the grid) it names only Row or
/// Column; below that, every colour is on the grid after each recolouring.
pub const TABLE: [[Group; 7]; 15] = [
    [B, COL, R, Y, ROW, G, M],           // 1
    [ROW, G, B, M, R, COL, Y],           // 2
    [Y, M, G, ROW, B, R, COL],           // 3
    [B, G, Y, COL, R, ROW, M],           // 4
    [Y, ROW, B, M, COL, R, G],           // 5
    [M, R, Y, G, COL, B, ROW],           // 6
    [G, ROW, COL, B, M, Y, R],           // 7
    [M, R, G, B, Y, COL, ROW],           // 8
    [COL, Y, R, G, ROW, M, B],           // 9
    [G, COL, ROW, R, M, B, Y],           // 10
    [R, Y, ROW, COL, G, M, B],           // 11
    [COL, ROW, COL, ROW, ROW, COL, ROW], // 12
    [ROW, COL, ROW, COL, ROW, COL, COL], // 13
    [COL, COL, ROW, ROW, COL, ROW, COL], // 14
    [ROW, ROW, COL, ROW, COL, COL, ROW], // 15
];

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
COLOUR. The module is a 4×4 grid of squares coloured red, blue, green, yellow or magenta. \
Turn every square white. Squares are pressed group by group; pressing any square of the \
right group turns the whole group white. A group is either all squares of one colour, or \
\"Row\": the non-white squares of the topmost row that still has any, or \"Column\": the \
non-white squares of the leftmost column that still has any. After each group the coloured \
squares may change colour (white squares stay white, and pressing one does nothing). \
Pressing a coloured square outside the right group is a mistake and resets the whole \
module to its first grid.

First press: the colour with the fewest squares; on a tie, the one first in the order red, \
blue, green, yellow, magenta.

Every later press: count the white squares, and take the group pressed last; the table gives \
the next group. Columns: the group pressed last.

white | Red     | Blue    | Green   | Yellow  | Magenta | Row     | Column
    1 | Blue    | Column  | Red     | Yellow  | Row     | Green   | Magenta
    2 | Row     | Green   | Blue    | Magenta | Red     | Column  | Yellow
    3 | Yellow  | Magenta | Green   | Row     | Blue    | Red     | Column
    4 | Blue    | Green   | Yellow  | Column  | Red     | Row     | Magenta
    5 | Yellow  | Row     | Blue    | Magenta | Column  | Red     | Green
    6 | Magenta | Red     | Yellow  | Green   | Column  | Blue    | Row
    7 | Green   | Row     | Column  | Blue    | Magenta | Yellow  | Red
    8 | Magenta | Red     | Green   | Blue    | Yellow  | Column  | Row
    9 | Column  | Yellow  | Red     | Green   | Row     | Magenta | Blue
   10 | Green   | Column  | Row     | Red     | Magenta | Blue    | Yellow
   11 | Red     | Yellow  | Row     | Column  | Green   | Magenta | Blue
   12 | Column  | Row     | Column  | Row     | Row     | Column  | Row
   13 | Row     | Column  | Row     | Column  | Row     | Column  | Column
   14 | Column  | Column  | Row     | Row     | Column  | Row     | Column
   15 | Row     | Row     | Column  | Row     | Column  | Column  | Row";

/// A square: a colour index, or `None` for white.
type Square = Option<usize>;

/// A colour puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colour {
    /// The grid as imported (what `instance()` gives back).
    imported: [usize; 16],
    /// The grid the module starts from and resets to.
    start: [Square; 16],
    grid: [Square; 16],
    previous: Option<Group>,
    rng: escapade_core::seed::Rng,
}

/// The original's way of colouring: the first five coloured squares (reading order) get the
/// five colours in order when there are at least five; the others keep `keep` or are drawn.
fn recolour(grid: &mut [Square; 16], mut draw: impl FnMut(usize) -> usize) {
    let coloured: Vec<usize> = (0..16).filter(|&i| grid[i].is_some()).collect();
    let forced = if coloured.len() >= COLOURS.len() {
        COLOURS.len()
    } else {
        0
    };
    for (k, &i) in coloured.iter().enumerate() {
        grid[i] = Some(if k < forced { k } else { draw(i) });
    }
}

impl Colour {
    fn with(imported: [usize; 16], seed: u64) -> Colour {
        let mut start = imported.map(Some);
        recolour(&mut start, |i| imported[i]);
        Colour {
            imported,
            start,
            grid: start,
            previous: None,
            rng: escapade_core::seed::rng(seed),
        }
    }

    /// From the original's field `{colors: [16 colour names, row by row]}`.
    pub fn import(instance: &Value, seed: u64) -> Result<Colour, CommaError> {
        let list = instance
            .get("colors")
            .and_then(Value::as_array)
            .filter(|l| l.len() == 16)
            .ok_or_else(|| CommaError::Format {
                puzzle: "colour",
                field: Some("colors"),
                reason: "must list 16 colours".into(),
            })?;
        let mut imported = [0usize; 16];
        for (o, v) in imported.iter_mut().zip(list) {
            *o = v
                .as_str()
                .and_then(Group::parse)
                .and_then(|g| match g {
                    Group::Colour(c) => Some(c),
                    _ => None,
                })
                .ok_or_else(|| CommaError::Format {
                    puzzle: "colour",
                    field: None,
                    reason: format!("unknown colour {v}"),
                })?;
        }
        Ok(Colour::with(imported, seed))
    }

    /// A seeded random colour puzzle (16 uniform colours).
    pub fn generate(seed: u64) -> Colour {
        let mut rng = escapade_core::seed::rng(seed);
        let mut imported = [0usize; 16];
        for c in &mut imported {
            *c = rng.random_range(0..COLOURS.len());
        }
        Colour::with(imported, rng.random())
    }

    fn whites(&self) -> usize {
        self.grid.iter().filter(|s| s.is_none()).count()
    }

    /// The squares (row-major indices) of `group` now.
    pub fn members(&self, group: Group) -> Vec<usize> {
        let coloured = |i: usize| self.grid[i].is_some();
        match group {
            Group::Colour(c) => (0..16).filter(|&i| self.grid[i] == Some(c)).collect(),
            Group::Row => (0..4)
                .map(|r| (0..4).map(|c| r * 4 + c).filter(|&i| coloured(i)).collect())
                .find(|v: &Vec<usize>| !v.is_empty())
                .unwrap_or_default(),
            Group::Column => (0..4)
                .map(|c| (0..4).map(|r| r * 4 + c).filter(|&i| coloured(i)).collect())
                .find(|v: &Vec<usize>| !v.is_empty())
                .unwrap_or_default(),
        }
    }

    /// The group to press now, by the manual's rules (`None` once solved).
    pub fn target(&self) -> Option<Group> {
        let w = self.whites();
        if w == 16 {
            return None;
        }
        let group = match self.previous {
            None => (0..COLOURS.len())
                .map(Group::Colour)
                .filter(|g| !self.members(*g).is_empty())
                .min_by_key(|g| self.members(*g).len())?,
            Some(p) => TABLE[w.clamp(1, 15) - 1][p.table_column()],
        };
        // never on a screen the rules reach (see [`TABLE`]); a screen loaded by hand may
        // lack the colour the table names
        if self.members(group).is_empty() {
            Some(Group::Row)
        } else {
            Some(group)
        }
    }
}

fn action(i: usize) -> String {
    format!("click_row_{}_col_{}", i / 4, i % 4)
}

impl Puzzle for Colour {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Colour
    }

    fn actions(&self) -> Vec<String> {
        (0..16).map(action).collect()
    }

    fn act(&mut self, name: &str) -> ActResult {
        let Some(i) = (0..16).find(|&i| action(i) == name) else {
            return ActResult::unknown(name);
        };
        let Some(target) = self.target() else {
            return ActResult::already_solved();
        };
        let (r, c) = (i / 4, i % 4);
        if self.grid[i].is_none() {
            // the original ignores a press on a white square
            return ActResult {
                mistake: false,
                feedback: format!(
                    "You pressed row {r} column {c}; it is already white, so nothing happens."
                ),
            };
        }
        let members = self.members(target);
        if members.contains(&i) {
            for &m in &members {
                self.grid[m] = None;
            }
            self.previous = Some(target);
            if self.whites() == 16 {
                return ActResult {
                    mistake: false,
                    feedback: format!(
                        "You pressed row {r} column {c}; its group turned white. Every square \
                         is white; the module is disarmed."
                    ),
                };
            }
            let rng = &mut self.rng;
            recolour(&mut self.grid, |_| rng.random_range(0..COLOURS.len()));
            ActResult {
                mistake: false,
                feedback: format!(
                    "You pressed row {r} column {c}; {} squares turned white. The coloured \
                     squares may have changed colour.",
                    members.len()
                ),
            }
        } else {
            self.grid = self.start;
            self.previous = None;
            ActResult {
                mistake: true,
                feedback: format!(
                    "You pressed row {r} column {c}. Strike: wrong group; the module is reset."
                ),
            }
        }
    }

    fn solved(&self) -> bool {
        self.whites() == 16
    }

    fn progress(&self) -> f64 {
        self.whites() as f64 / 16.0
    }

    fn correct_actions(&self) -> Vec<String> {
        self.target()
            .map(|g| self.members(g).into_iter().map(action).collect())
            .unwrap_or_default()
    }

    fn describe(&self) -> String {
        let rows: Vec<String> = (0..4)
            .map(|r| {
                let cells: Vec<&str> = (0..4)
                    .map(|c| self.grid[r * 4 + c].map_or("White", |k| COLOURS[k]))
                    .collect();
                format!("row {r}: {}", cells.join(", "))
            })
            .collect();
        format!(
            "A colour module: a 4×4 grid, rows and columns numbered 0 to 3 from the top left, \
             each row listed left to right. {}.{}",
            rows.join("; "),
            if self.solved() {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Colour {
            grid: self.grid.map(|square| square.map(|k| COLOURS[k])),
            solved: self.solved(),
        }))
    }

    fn instance(&self) -> Value {
        json!({"colors": self.imported.map(|c| COLOURS[c])})
    }

    /// Reads `{grid_row_major: [16 names incl. White], previous_group: name or null}`.
    fn load_screen(&mut self, obs: &Value) -> Result<(), CommaError> {
        let bad = |what: &str| CommaError::Screen {
            puzzle: "colour",
            reason: what.to_string(),
        };
        let list = obs
            .get("grid_row_major")
            .and_then(Value::as_array)
            .filter(|l| l.len() == 16)
            .ok_or_else(|| bad("`grid_row_major` must list 16 squares"))?;
        let mut grid: [Square; 16] = [None; 16];
        for (o, v) in grid.iter_mut().zip(list) {
            let name = v.as_str().ok_or_else(|| bad("squares must be names"))?;
            *o = if name.eq_ignore_ascii_case("white") {
                None
            } else {
                match Group::parse(name) {
                    Some(Group::Colour(c)) => Some(c),
                    _ => return Err(bad("unknown square colour")),
                }
            };
        }
        let previous = match obs.get("previous_group") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(Group::parse)
                    .ok_or_else(|| bad("unknown `previous_group`"))?,
            ),
        };
        if previous.is_none() && grid.iter().any(Option::is_none) {
            return Err(bad("white squares need a `previous_group`"));
        }
        self.grid = grid;
        self.previous = previous;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: [&str; 16] = [
        "Red", "Red", "Green", "Blue", "Red", "Yellow", "Green", "Red", "Green", "Magenta",
        "Green", "Magenta", "Blue", "Yellow", "Green", "Yellow",
    ];

    #[test]
    fn the_start_forces_the_five_colours_and_the_smallest_group_goes_first() {
        let c = Colour::import(&json!({ "colors": FIRST }), 0).unwrap();
        assert!(
            c.describe()
                .contains("row 0: Red, Blue, Green, Yellow; row 1: Magenta")
        );
        assert_eq!(
            c.correct_actions(),
            ["click_row_0_col_0", "click_row_1_col_3"]
        );
        assert_eq!(c.instance()["colors"], json!(FIRST));
    }

    #[test]
    fn the_table_picks_the_next_group() {
        let mut c = Colour::generate(0);
        let grid = [
            "White", "Red", "Blue", "Green", "Yellow", "Magenta", "Magenta", "White", "Green",
            "Red", "Yellow", "Blue", "Magenta", "Blue", "Red", "Magenta",
        ];
        c.load_screen(&json!({"grid_row_major": grid, "previous_group": "Red"}))
            .unwrap();
        // two white squares after Red: the Row group
        assert_eq!(
            c.correct_actions(),
            [
                "click_row_0_col_1",
                "click_row_0_col_2",
                "click_row_0_col_3"
            ]
        );
    }

    #[test]
    fn the_manual_prints_the_table() {
        let names = |g: Group| g.name();
        for (w, row) in TABLE.iter().enumerate() {
            let cells: Vec<String> = row.iter().map(|g| format!("{:<7}", names(*g))).collect();
            let line = format!("{:>5} | {}", w + 1, cells.join(" | "));
            assert!(MANUAL.contains(line.trim_end()), "{line}");
        }
    }

    #[test]
    fn the_oracle_solves_and_a_wrong_press_resets() {
        for seed in 0..100 {
            let mut c = Colour::generate(seed);
            let start = c.describe();
            let mut steps = 0;
            while !c.solved() {
                let a = c.correct_actions();
                assert!(!a.is_empty(), "seed {seed}");
                assert!(!c.act(&a[0]).mistake);
                steps += 1;
                assert!(steps <= 16);
            }
            assert_eq!(c.progress(), 1.0);
            let mut c = Colour::generate(seed);
            let a = c.correct_actions()[0].clone();
            c.act(&a);
            let bad = (0..16)
                .filter(|&i| c.grid[i].is_some())
                .map(action)
                .find(|x| !c.correct_actions().contains(x))
                .unwrap();
            assert!(c.act(&bad).mistake);
            assert_eq!(c.describe(), start);
            assert_eq!(c.progress(), 0.0);
        }
    }

    #[test]
    fn a_white_square_does_nothing() {
        // the repro: press a square twice; the second press finds it white
        let mut c = Colour::import(&json!({ "colors": FIRST }), 0).unwrap();
        let first = c.correct_actions()[0].clone();
        assert!(!c.act(&first).mistake);
        let after = c.describe();
        let r = c.act(&first);
        assert!(!r.mistake, "{}", r.feedback);
        assert!(r.feedback.contains("already white"));
        assert_eq!(c.describe(), after);
        assert!(c.progress() > 0.0);
    }

    #[test]
    fn bad_instances_and_screens_are_refused() {
        assert!(Colour::import(&json!({}), 0).is_err());
        assert!(Colour::import(&json!({"colors": ["Red"]}), 0).is_err());
        let mut bad = FIRST.to_vec();
        bad[3] = "White";
        assert!(Colour::import(&json!({ "colors": bad }), 0).is_err());
        bad[3] = "Pink";
        assert!(Colour::import(&json!({ "colors": bad }), 0).is_err());
        let mut c = Colour::generate(1);
        let (whites, reds) = (["White"; 16], ["Red"; 15]);
        for obs in [
            json!({}),
            json!({"grid_row_major": FIRST, "previous_group": "Purple"}),
            json!({"grid_row_major": whites, "previous_group": null}),
            json!({"grid_row_major": reds, "previous_group": null}),
        ] {
            assert!(c.load_screen(&obs).is_err(), "{obs}");
        }
        assert!(!c.act("click_row_4_col_0").mistake);
    }

    #[test]
    fn generation_and_play_are_seeded() {
        let play = |seed| {
            let mut c = Colour::generate(seed);
            let mut seen = vec![c.describe()];
            for _ in 0..3 {
                let a = c.correct_actions()[0].clone();
                c.act(&a);
                seen.push(c.describe());
            }
            seen
        };
        assert_eq!(play(2), play(2));
        assert!((0..20).any(|s| play(s) != play(2)));
    }
}
