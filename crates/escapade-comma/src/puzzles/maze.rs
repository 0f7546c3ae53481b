//! The maze puzzle (COMMA App. A "Maze Puzzle"): walk the mouse through a grid maze to the
//! sphere that the torus colour names, then press the labyrinth button there.
//!
//! Facts taken from the original's code, all consistent with the original-answers fixture:
//! - `maze[row][column]`, with `start_x` the row (0 at the top) and `start_y` the column;
//!   `0` is an open square, `1` a wall, `2` the square the torus stands on, which the
//!   mouse cannot enter. `move_up` / `move_down` change the row, `move_left` /
//!   `move_right` the column.
//! - The four spheres stand at fixed squares: green (1, 1), blue (1, 7), red (7, 1),
//!   yellow (7, 7) as (row, column). App. A's table maps the torus colour to the sphere:
//!   green → blue, blue → red, red → green, yellow → yellow.
//! - Moving into a wall or off the grid leaves the mouse where it is and is **not** a
//!   strike (the original ignores it; the paper's random row — about 2 strikes in 10
//!   turns over 5 actions — matches strikes from the button alone).
//! - Pressing the button (`check_position`) anywhere but the accepting sphere is a strike
//!   and puts the mouse back on its starting square.
//!
//! Partial success (COMMA §4.2 PSR) is the original's score by default ([`Maze::score`]):
//! the straight-line distance from the start to the accepting sphere, less the distance
//! left where the mouse stands at the end, as a share of the first (its `get_score` takes
//! the absolute difference, so moving away counts as well; capped at 1 here, where the
//! original's could exceed it). Progress ([`Puzzle::progress`], which `-W psr=best` keeps
//! at its most) is 1 − (shortest-path distance left ÷ distance at the start), clamped to
//! `[0, 1]`: what "toward the goal" means in a maze. Both are 1 once solved; when the
//! mouse starts on the accepting sphere the distance at the start is 0 and both stay 0
//! until the button is pressed (as the original's score does).

use std::collections::VecDeque;

use rand::Rng;
use serde_json::{Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Scene};

/// The original's maze (its only layout; every instance of its evaluation set uses it).
pub const LAYOUT: [[u8; 9]; 9] = [
    [1, 0, 1, 1, 1, 1, 1, 1, 1],
    [1, 0, 1, 0, 0, 0, 1, 0, 1],
    [1, 0, 1, 0, 1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1, 0, 0, 0, 1],
    [1, 1, 1, 0, 2, 1, 1, 0, 1],
    [1, 0, 0, 0, 0, 0, 1, 0, 1],
    [1, 0, 1, 1, 1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1, 0, 0, 0, 1],
    [1, 1, 1, 0, 1, 1, 1, 1, 1],
];

/// Most rows or columns an imported grid may have: the picture numbers every row and
/// column, which stays legible up to here (the original's only layout is 9 × 9).
pub const MAX_SIDE: usize = 20;

/// The four colours, in App. A's torus order.
pub const COLOURS: [&str; 4] = ["Green", "Blue", "Red", "Yellow"];

/// Where each sphere stands, as (row, column), indexed like [`COLOURS`].
pub const SPHERES: [(usize, usize); 4] = [(1, 1), (1, 7), (7, 1), (7, 7)];

/// App. A's table: torus colour → sphere colour, indexed like [`COLOURS`]
/// (green → blue, blue → red, red → green, yellow → yellow).
pub const SPHERE_FOR_TORUS: [usize; 4] = [1, 2, 0, 3];

/// The moves, with their (row, column) steps.
const MOVES: [(&str, isize, isize); 4] = [
    ("move_up", -1, 0),
    ("move_down", 1, 0),
    ("move_left", 0, -1),
    ("move_right", 0, 1),
];

/// The expert's manual, in our own words.
pub const MANUAL: &str = "\
MAZE. The solver sees a maze from above: open (white) squares, dark walls, a grey sphere \
that is the mouse, a torus in the middle, four coloured spheres, and a round button with a \
labyrinth on it. The mouse moves one square at a time up, down, left or right, and only onto \
open squares; walking into a wall does nothing. Guide the mouse onto the accepting sphere, \
then press the labyrinth button. Pressing the button anywhere else is a strike and sends the \
mouse back to where it started.

Which sphere accepts depends on the colour of the torus:
- green torus: the blue sphere;
- blue torus: the red sphere;
- red torus: the green sphere;
- yellow torus: the yellow sphere.";

/// A maze puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maze {
    grid: Vec<Vec<u8>>,
    start: (usize, usize),
    at: (usize, usize),
    torus: usize,
    /// Path distance to the accepting sphere from every square (`None`: unreachable).
    dist: Vec<Vec<Option<usize>>>,
    solved: bool,
}

fn distances(grid: &[Vec<u8>], goal: (usize, usize)) -> Vec<Vec<Option<usize>>> {
    let mut d: Vec<Vec<Option<usize>>> = grid.iter().map(|r| vec![None; r.len()]).collect();
    d[goal.0][goal.1] = Some(0);
    let mut q = VecDeque::from([goal]);
    while let Some((r, c)) = q.pop_front() {
        let here = d[r][c].unwrap_or(0);
        for (_, dr, dc) in MOVES {
            if let Some((nr, nc)) = step(grid, (r, c), dr, dc)
                && d[nr][nc].is_none()
            {
                d[nr][nc] = Some(here + 1);
                q.push_back((nr, nc));
            }
        }
    }
    d
}

/// The square one step away, if it is on the grid and open.
fn step(grid: &[Vec<u8>], (r, c): (usize, usize), dr: isize, dc: isize) -> Option<(usize, usize)> {
    let nr = r.checked_add_signed(dr)?;
    let nc = c.checked_add_signed(dc)?;
    (grid.get(nr)?.get(nc)? == &0).then_some((nr, nc))
}

impl Maze {
    fn build(grid: Vec<Vec<u8>>, start: (usize, usize), torus: usize) -> Result<Maze, CommaError> {
        let goal = SPHERES[SPHERE_FOR_TORUS[torus]];
        if let Some((r, c)) = SPHERES
            .into_iter()
            .find(|&(r, c)| grid.get(r).and_then(|row| row.get(c)) != Some(&0))
        {
            return Err(CommaError::Format {
                puzzle: "maze",
                field: None,
                reason: format!("a sphere's square ({r}, {c}) is missing or not open"),
            });
        }
        if grid.get(start.0).and_then(|r| r.get(start.1)) != Some(&0) {
            return Err(CommaError::Format {
                puzzle: "maze",
                field: None,
                reason: format!(
                    "the start (start_x {}, start_y {}) is not an open square",
                    start.0, start.1
                ),
            });
        }
        let dist = distances(&grid, goal);
        if dist[start.0][start.1].is_none() {
            return Err(CommaError::Invalid {
                puzzle: "maze",
                reason: "the accepting sphere cannot be reached from the start".into(),
            });
        }
        Ok(Maze {
            grid,
            start,
            at: start,
            torus,
            dist,
            solved: false,
        })
    }

    /// From the original's fields `{maze, start_x, start_y, torus_color}` (see the module
    /// docs for their meaning). Any rectangular grid of 0/1/2 is accepted as long as the
    /// four spheres' squares exist and are open and the accepting one can be reached.
    pub fn import(instance: &Value) -> Result<Maze, CommaError> {
        let grid: Vec<Vec<u8>> = instance
            .get("maze")
            .and_then(Value::as_array)
            .ok_or_else(|| CommaError::Format {
                puzzle: "maze",
                field: Some("maze"),
                reason: "must be a list of rows".into(),
            })?
            .iter()
            .map(|row| {
                row.as_array()?
                    .iter()
                    .map(|c| c.as_u64().filter(|c| *c <= 2).map(|c| c as u8))
                    .collect::<Option<Vec<u8>>>()
            })
            .collect::<Option<_>>()
            .ok_or_else(|| CommaError::Format {
                puzzle: "maze",
                field: None,
                reason: "every row must be a list of 0, 1 or 2".into(),
            })?;
        let width = grid.first().map_or(0, Vec::len);
        if width == 0 || grid.iter().any(|r| r.len() != width) {
            return Err(CommaError::Format {
                puzzle: "maze",
                field: None,
                reason: "the grid must be non-empty and rectangular".into(),
            });
        }
        if grid.len() > MAX_SIDE || width > MAX_SIDE {
            return Err(CommaError::Format {
                puzzle: "maze",
                field: None,
                reason: format!(
                    "the grid is {} × {width}; at most {MAX_SIDE} rows and columns",
                    grid.len()
                ),
            });
        }
        let coord = |k: &'static str| {
            instance
                .get(k)
                .and_then(Value::as_u64)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| CommaError::Format {
                    puzzle: "maze",
                    field: Some(k),
                    reason: "must be a whole number".into(),
                })
        };
        let start = (coord("start_x")?, coord("start_y")?);
        let colour = instance
            .get("torus_color")
            .and_then(Value::as_str)
            .ok_or_else(|| CommaError::Format {
                puzzle: "maze",
                field: Some("torus_color"),
                reason: "must be a string".into(),
            })?;
        let torus = COLOURS
            .iter()
            .position(|c| c.eq_ignore_ascii_case(colour))
            .ok_or_else(|| CommaError::Format {
                puzzle: "maze",
                field: None,
                reason: format!("unknown torus colour `{colour}`"),
            })?;
        Maze::build(grid, start, torus)
    }

    /// A seeded random puzzle on the original's layout: a start uniform over its open
    /// squares and a torus colour uniform over the four, as the original draws them.
    pub fn generate(seed: u64) -> Maze {
        let mut rng = escapade_core::seed::rng(seed);
        let grid: Vec<Vec<u8>> = LAYOUT.iter().map(|r| r.to_vec()).collect();
        let open: Vec<(usize, usize)> = (0..9)
            .flat_map(|r| (0..9).map(move |c| (r, c)))
            .filter(|&(r, c)| LAYOUT[r][c] == 0)
            .collect();
        let start = open[rng.random_range(0..open.len())];
        let torus = rng.random_range(0..COLOURS.len());
        // The layout is connected and every sphere's square is open.
        Maze::build(grid, start, torus).expect("the original layout is playable")
    }

    /// The accepting square, as (row, column).
    pub fn goal(&self) -> (usize, usize) {
        SPHERES[SPHERE_FOR_TORUS[self.torus]]
    }

    /// The mouse's square, as (row, column).
    pub fn mouse(&self) -> (usize, usize) {
        self.at
    }

    fn left(&self) -> usize {
        self.dist[self.at.0][self.at.1].unwrap_or(0)
    }
}

impl Puzzle for Maze {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Maze
    }

    fn actions(&self) -> Vec<String> {
        MOVES
            .iter()
            .map(|(m, _, _)| m.to_string())
            .chain(["check_position".to_string()])
            .collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        let mv = MOVES.iter().find(|(m, _, _)| *m == action);
        if mv.is_none() && action != "check_position" {
            return ActResult::unknown(action);
        }
        if self.solved {
            return ActResult::already_solved();
        }
        if let Some((m, dr, dc)) = mv {
            let way = m.trim_start_matches("move_");
            return match step(&self.grid, self.at, *dr, *dc) {
                Some(to) => {
                    self.at = to;
                    ActResult {
                        mistake: false,
                        feedback: format!(
                            "The mouse moved {way} to row {}, column {}.",
                            to.0 + 1,
                            to.1 + 1
                        ),
                    }
                }
                None => ActResult {
                    mistake: false,
                    feedback: format!("The mouse cannot move {way}: the way is blocked."),
                },
            };
        }
        if self.at == self.goal() {
            self.solved = true;
            ActResult {
                mistake: false,
                feedback: "You pressed the labyrinth button. The module is disarmed.".into(),
            }
        } else {
            self.at = self.start;
            ActResult {
                mistake: true,
                feedback: "You pressed the labyrinth button. Strike: this is not the accepting \
                           position. The mouse is back where it started."
                    .into(),
            }
        }
    }

    fn solved(&self) -> bool {
        self.solved
    }

    fn progress(&self) -> f64 {
        if self.solved {
            return 1.0;
        }
        let total = self.dist[self.start.0][self.start.1].unwrap_or(0);
        if total == 0 {
            return 0.0;
        }
        (1.0 - self.left() as f64 / total as f64).clamp(0.0, 1.0)
    }

    /// The original's `get_score`: `|d(start) − d(now)| ÷ d(start)`, `d` the
    /// straight-line distance to the accepting sphere in squares; 0 when the mouse started
    /// on it, 1 once solved, at most 1.
    fn score(&self) -> Option<f64> {
        if self.solved {
            return Some(1.0);
        }
        let goal = self.goal();
        let d = |(r, c): (usize, usize)| {
            let (dr, dc) = (r as f64 - goal.0 as f64, c as f64 - goal.1 as f64);
            (dr * dr + dc * dc).sqrt()
        };
        let total = d(self.start);
        if total == 0.0 {
            return Some(0.0);
        }
        Some(((total - d(self.at)).abs() / total).min(1.0))
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.solved {
            return Vec::new();
        }
        if self.at == self.goal() {
            return vec!["check_position".into()];
        }
        let here = self.left();
        MOVES
            .iter()
            .filter(|(_, dr, dc)| {
                step(&self.grid, self.at, *dr, *dc)
                    .and_then(|(r, c)| self.dist[r][c])
                    .is_some_and(|d| d < here)
            })
            .map(|(m, _, _)| m.to_string())
            .collect()
    }

    fn describe(&self) -> String {
        let sphere_at = |r: usize, c: usize| {
            SPHERES
                .iter()
                .position(|&s| s == (r, c))
                .map(|i| COLOURS[i])
        };
        let rows: Vec<String> = self
            .grid
            .iter()
            .enumerate()
            .map(|(r, row)| {
                row.iter()
                    .enumerate()
                    .map(|(c, cell)| {
                        if (r, c) == self.at {
                            "M"
                        } else if let Some(s) = sphere_at(r, c) {
                            &s[..1]
                        } else {
                            match cell {
                                0 => ".",
                                1 => "#",
                                _ => "T",
                            }
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let on = sphere_at(self.at.0, self.at.1)
            .map(|s| format!(" The mouse stands on the {} sphere.", s.to_lowercase()))
            .unwrap_or_default();
        format!(
            "A maze of {} rows and {} columns seen from above (row 1 at the top, column 1 at \
             the left). # is a wall, . an open square, M the mouse (a grey sphere), T the torus, \
             which is {}; the coloured spheres are G green, B blue, R red and Y yellow.\n{}\n\
             The mouse is at row {}, column {}.{on} Beside the maze is a round button with a \
             labyrinth on it.{}",
            self.grid.len(),
            self.grid.first().map_or(0, Vec::len),
            COLOURS[self.torus].to_lowercase(),
            rows.join("\n"),
            self.at.0 + 1,
            self.at.1 + 1,
            if self.solved {
                " The module is disarmed."
            } else {
                ""
            }
        )
    }

    fn drawing(&self) -> Option<Drawing> {
        Some(Drawing::new(Scene::Maze {
            grid: self.grid.clone(),
            spheres: SPHERES.iter().copied().zip(COLOURS).collect(),
            mouse: self.at,
            torus: COLOURS[self.torus],
            solved: self.solved,
        }))
    }

    fn instance(&self) -> Value {
        json!({
            "maze": self.grid,
            "start_x": self.start.0,
            "start_y": self.start.1,
            "torus_color": COLOURS[self.torus],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maze(x: usize, y: usize, torus: &str) -> Maze {
        Maze::import(&json!({"maze": LAYOUT, "start_x": x, "start_y": y, "torus_color": torus}))
            .unwrap()
    }

    #[test]
    fn the_torus_names_the_sphere() {
        assert_eq!(maze(3, 7, "Green").goal(), (1, 7));
        assert_eq!(maze(3, 7, "Blue").goal(), (7, 1));
        assert_eq!(maze(3, 7, "Red").goal(), (1, 1));
        assert_eq!(maze(3, 7, "Yellow").goal(), (7, 7));
    }

    #[test]
    fn walls_block_without_a_strike_and_a_wrong_check_resets() {
        let mut m = maze(3, 7, "Yellow");
        assert!(!m.act("move_right").mistake);
        assert_eq!(m.mouse(), (3, 7));
        assert!(!m.act("move_down").mistake);
        assert_eq!(m.mouse(), (4, 7));
        assert!(m.act("check_position").mistake);
        assert_eq!(m.mouse(), (3, 7));
        // The torus square is not walkable.
        let mut t = maze(4, 3, "Yellow");
        t.act("move_right");
        assert_eq!(t.mouse(), (4, 3));
        // Off the grid is blocked too.
        let mut e = maze(0, 1, "Red");
        e.act("move_up");
        assert_eq!(e.mouse(), (0, 1));
    }

    #[test]
    fn shortest_path_moves_and_progress() {
        let mut m = maze(3, 7, "Yellow");
        assert_eq!(m.correct_actions(), vec!["move_down"]);
        assert_eq!(m.progress(), 0.0);
        m.act("move_down");
        m.act("move_down");
        assert_eq!(m.progress(), 0.5);
        m.act("move_down");
        m.act("move_down");
        assert_eq!(m.correct_actions(), vec!["check_position"]);
        assert!(!m.act("check_position").mistake);
        assert!(m.solved() && m.progress() == 1.0 && m.correct_actions().is_empty());
        // Starting on the sphere: no progress until the button is pressed.
        let s = maze(7, 7, "Yellow");
        assert_eq!(s.progress(), 0.0);
        assert_eq!(s.correct_actions(), vec!["check_position"]);
    }

    /// The original's score: straight-line distances, moving away counts, capped at 1.
    #[test]
    fn the_original_s_score_is_the_straight_line_covered() {
        // from (5, 3) to the red sphere at (7, 1) (torus blue): √8 at the start
        let mut m = maze(5, 3, "Blue");
        assert_eq!(m.score(), Some(0.0));
        m.act("move_left");
        let want = 1.0 - 5f64.sqrt() / 8f64.sqrt();
        assert!((m.score().unwrap() - want).abs() < 1e-12);
        // back to the start and then away, to (5, 4): |√8 − √13| ÷ √8 = 0.27
        m.act("move_right");
        assert_eq!(m.score(), Some(0.0));
        m.act("move_right");
        let want = (13f64.sqrt() - 8f64.sqrt()) / 8f64.sqrt();
        assert!((m.score().unwrap() - want).abs() < 1e-12);
        // far away, at (1, 3): |√8 − √40| ÷ √8 = 1.24, capped at 1
        for a in ["move_left", "move_up", "move_up", "move_up", "move_up"] {
            m.act(a);
        }
        assert_eq!(m.mouse(), (1, 3));
        assert_eq!(m.score(), Some(1.0));
        assert!(m.progress() < 1.0);
        // a strike puts the mouse back: 0
        m.act("check_position");
        assert_eq!(m.score(), Some(0.0));
    }

    #[test]
    fn the_description_draws_the_maze() {
        let d = maze(3, 7, "Yellow").describe();
        assert!(
            d.contains("\n# . # # # # # # #\n# G # . . . # B #\n"),
            "{d}"
        );
        assert!(d.contains("# . . . # . . M #"), "{d}");
        assert!(d.contains("# # # . T # # . #"), "{d}");
        assert!(d.contains("which is yellow"));
        assert!(d.contains("The mouse is at row 4, column 8."));
        assert!(!d.contains("accept"));
    }

    #[test]
    fn bad_instances_are_refused() {
        let with = |v: Value| Maze::import(&v);
        assert!(with(json!({})).is_err());
        assert!(
            with(json!({"maze": [], "start_x": 0, "start_y": 0, "torus_color": "Red"})).is_err()
        );
        assert!(
            with(json!({"maze": [[0, 0], [0]], "start_x": 0, "start_y": 0, "torus_color": "Red"}))
                .is_err()
        );
        assert!(
            with(json!({"maze": LAYOUT, "start_x": 0, "start_y": 0, "torus_color": "Red"}))
                .is_err()
        );
        assert!(
            with(json!({"maze": LAYOUT, "start_x": 99, "start_y": 0, "torus_color": "Red"}))
                .is_err()
        );
        assert!(
            with(json!({"maze": LAYOUT, "start_x": -1, "start_y": 1, "torus_color": "Red"}))
                .is_err()
        );
        assert!(
            with(json!({"maze": LAYOUT, "start_x": 0, "start_y": 1, "torus_color": "Pink"}))
                .is_err()
        );
        assert!(
            with(json!({"maze": [[0, 3]], "start_x": 0, "start_y": 0, "torus_color": "Red"}))
                .is_err()
        );
        // Too small for the spheres.
        assert!(
            with(
                json!({"maze": [[0, 0], [0, 0]], "start_x": 0, "start_y": 0, "torus_color": "Red"})
            )
            .is_err()
        );
        // The accepting sphere walled off.
        let mut walled = LAYOUT;
        walled[1][1] = 1;
        assert!(
            with(json!({"maze": walled, "start_x": 3, "start_y": 7, "torus_color": "Red"}))
                .is_err()
        );
        let mut cut = LAYOUT;
        cut[2][1] = 1;
        assert!(
            with(json!({"maze": cut, "start_x": 3, "start_y": 7, "torus_color": "Red"})).is_err()
        );
    }

    #[test]
    fn generation_is_seeded() {
        assert_eq!(Maze::generate(3), Maze::generate(3));
        assert!((0..50).any(|s| Maze::generate(s) != Maze::generate(3)));
        for s in 0..100 {
            let g = Maze::generate(s);
            assert_eq!(Maze::import(&g.instance()).unwrap(), g);
        }
    }
}
