//! Maze puzzle (App. A "Maze Puzzle"): walk the mouse through open squares to the sphere
//! the torus colour names, then press the labyrinth button there.
//!
//! Crate's documented choices followed here: the spheres stand at fixed squares and the
//! test finds them in the description; the torus square cannot be entered; a move into a
//! wall or off the grid does nothing and is no strike; the right moves are those along a
//! shortest path; pressing the button elsewhere is a strike and puts the mouse back on
//! its start; progress is 1 − (path distance left ÷ path distance at the start), 0 while
//! the start is the goal, 1 once solved. Instance coordinates: `start_x` is the row,
//! `start_y` the column, from 0 (the description counts from 1).

use std::collections::VecDeque;

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, generate, import};
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

/// App. A's table: torus colour → the colour of the accepting sphere.
fn accepting_sphere(torus: &str) -> &'static str {
    match torus {
        "green" => "blue",
        "blue" => "red",
        "red" => "green",
        "yellow" => "yellow",
        other => panic!("torus {other}"),
    }
}

/// What the solver sees.
struct View {
    /// Each square: true when the mouse may stand on it (open, a sphere, or the mouse).
    open: Vec<Vec<bool>>,
    mouse: (usize, usize),
    /// The accepting sphere's square.
    goal: (usize, usize),
}

fn visible(p: &dyn Puzzle) -> View {
    let d = p.describe();
    let rows: usize = between(&d, "A maze of ", " rows")
        .expect(&d)
        .parse()
        .expect(&d);
    let cols: usize = between(&d, " rows and ", " columns")
        .expect(&d)
        .parse()
        .expect(&d);
    let torus = between(&d, "the torus, which is ", ";").expect(&d);
    let want = accepting_sphere(torus);
    let letter = want[..1].to_uppercase();
    let lines: Vec<&str> = d.lines().skip(1).take(rows).collect();
    let mut open = vec![vec![false; cols]; rows];
    let mut mouse = None;
    let mut goal = None;
    for (r, line) in lines.iter().enumerate() {
        let cells: Vec<&str> = line.split(' ').collect();
        assert_eq!(cells.len(), cols, "{d}");
        for (c, cell) in cells.iter().enumerate() {
            open[r][c] = match *cell {
                "#" | "T" => false,
                "." | "G" | "B" | "R" | "Y" => true,
                "M" => {
                    mouse = Some((r, c));
                    true
                }
                other => panic!("square {other}\n{d}"),
            };
            if *cell == letter {
                goal = Some((r, c));
            }
        }
    }
    let mouse = mouse.expect("the mouse");
    let at: (usize, usize) = {
        let place = between(&d, "The mouse is at row ", ".").expect(&d);
        let (r, c) = place.split_once(", column ").expect(&d);
        let (r, c) = (r.parse::<usize>().expect(&d), c.parse::<usize>().expect(&d));
        (r - 1, c - 1)
    };
    assert_eq!(at, mouse, "{d}");
    if d.contains(&format!("The mouse stands on the {want} sphere.")) {
        assert!(goal.is_none(), "{d}");
        goal = Some(mouse);
    }
    View {
        open,
        mouse,
        goal: goal.expect("the accepting sphere"),
    }
}

const MOVES: [(&str, isize, isize); 4] = [
    ("move_up", -1, 0),
    ("move_down", 1, 0),
    ("move_left", 0, -1),
    ("move_right", 0, 1),
];

/// Where a move takes the mouse (nowhere new when blocked).
fn moved(open: &[Vec<bool>], (r, c): (usize, usize), dr: isize, dc: isize) -> (usize, usize) {
    let (nr, nc) = (r as isize + dr, c as isize + dc);
    if nr < 0 || nc < 0 {
        return (r, c);
    }
    let (nr, nc) = (nr as usize, nc as usize);
    if open
        .get(nr)
        .and_then(|row| row.get(nc))
        .copied()
        .unwrap_or(false)
    {
        (nr, nc)
    } else {
        (r, c)
    }
}

/// Steps from every square to `goal` (breadth first).
fn steps_to(open: &[Vec<bool>], goal: (usize, usize)) -> Vec<Vec<Option<usize>>> {
    let mut dist = vec![vec![None; open[0].len()]; open.len()];
    dist[goal.0][goal.1] = Some(0);
    let mut queue = VecDeque::from([goal]);
    while let Some(here) = queue.pop_front() {
        let d = dist[here.0][here.1].unwrap();
        for (_, dr, dc) in MOVES {
            let next = moved(open, here, dr, dc);
            if dist[next.0][next.1].is_none() {
                dist[next.0][next.1] = Some(d + 1);
                queue.push_back(next);
            }
        }
    }
    dist
}

fn play(p: &mut dyn Puzzle, dice: &mut Dice) {
    let first = visible(p);
    let inst = p.instance();
    let what0 = format!("{inst}\n{}", p.describe());
    assert_eq!(
        (inst["start_x"].as_u64(), inst["start_y"].as_u64()),
        (Some(first.mouse.0 as u64), Some(first.mouse.1 as u64)),
        "{what0}"
    );
    let start = first.mouse;
    let dist = steps_to(&first.open, first.goal);
    let total = dist[start.0][start.1].expect("the goal can be reached");
    let mut wrong_left = 12;
    let mut last_progress = 0.0;
    for _ in 0..2000 {
        if p.solved() {
            break;
        }
        let v = visible(p);
        let what = format!("{what0}\nmouse at {:?}", v.mouse);
        let left = dist[v.mouse.0][v.mouse.1].expect("reachable");
        let progress = if total == 0 {
            0.0
        } else {
            1.0 - left as f64 / total as f64
        };
        assert_progress(p, progress.max(0.0), &what);
        let answer: Vec<String> = if left == 0 {
            vec!["check_position".to_string()]
        } else {
            MOVES
                .iter()
                .filter(|(_, dr, dc)| {
                    let n = moved(&v.open, v.mouse, *dr, *dc);
                    dist[n.0][n.1] == Some(left - 1)
                })
                .map(|(m, _, _)| m.to_string())
                .collect()
        };
        assert_answer(p, &answer, &what);
        if wrong_left > 0 && dice.eighths(3) {
            wrong_left -= 1;
            let a = dice.pick(&others(p, &answer));
            if a == "check_position" {
                act_wrong(p, &a, &what);
                assert_eq!(visible(p).mouse, start, "back to the start\n{what}");
            } else {
                act_right(p, &a, &format!("a move is never a strike\n{what}"));
                let (_, dr, dc) = MOVES.iter().find(|(m, _, _)| *m == a).unwrap();
                assert_eq!(
                    visible(p).mouse,
                    moved(&v.open, v.mouse, *dr, *dc),
                    "{a}\n{what}"
                );
            }
            last_progress = p.progress();
            continue;
        }
        act_right(p, &dice.pick(&answer), &what);
        // a right move never loses progress (it can stay 0 while the mouse is farther
        // from the goal than at the start, progress being clamped at 0)
        assert!(p.progress() >= last_progress, "progress went back\n{what}");
        last_progress = p.progress();
    }
    assert_finished(p, &what0);
}

/// The sphere squares the crate documents, as (row, column).
const SPHERES: [(&str, (usize, usize)); 4] = [
    ("green", (1, 1)),
    ("blue", (1, 7)),
    ("red", (7, 1)),
    ("yellow", (7, 7)),
];
const TORUS: [&str; 4] = ["Green", "Blue", "Red", "Yellow"];

proptest! {
    #![proptest_config(config(256))]

    /// Generated puzzles (the original's layout, any start, any torus): the crate's moves
    /// are the shortest-path moves to App. A's sphere, and progress follows the distance.
    #[test]
    fn maze_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Maze, seed).unwrap();
        play(p.as_mut(), &mut dice);
    }

    /// Imported random mazes of 8–12 rows and columns with walls and torus squares
    /// anywhere: refused exactly when the accepting sphere cannot be reached, else played.
    #[test]
    fn maze_imported_follows_app_a(
        rows in 8..=12usize,
        cols in 8..=12usize,
        cells in proptest::collection::vec(prop_oneof![6 => Just(0u8), 3 => Just(1u8), 1 => Just(2u8)], 144),
        start in (0..12usize, 0..12usize),
        torus in 0..4usize,
        case in 0..3u8,
        mut dice in Dice::strategy(),
    ) {
        let mut maze: Vec<Vec<u8>> = (0..rows).map(|r| cells[r * 12..r * 12 + cols].to_vec()).collect();
        for (_, (r, c)) in SPHERES {
            maze[r][c] = 0;
        }
        let start = (start.0 % rows, start.1 % cols);
        maze[start.0][start.1] = 0;
        let colour = match case {
            0 => TORUS[torus].to_lowercase(),
            1 => TORUS[torus].to_uppercase(),
            _ => TORUS[torus].to_string(),
        };
        let inst = json!({"maze": maze, "start_x": start.0, "start_y": start.1, "torus_color": colour});
        let open: Vec<Vec<bool>> = maze.iter().map(|r| r.iter().map(|&c| c == 0).collect()).collect();
        let sphere = accepting_sphere(&TORUS[torus].to_lowercase());
        let goal = SPHERES.iter().find(|(s, _)| *s == sphere).unwrap().1;
        let reachable = steps_to(&open, goal)[start.0][start.1].is_some();
        match import(PuzzleKind::Maze, &inst, 0) {
            Ok(mut p) => {
                prop_assert!(reachable, "imported although the goal is cut off: {}", inst);
                play(p.as_mut(), &mut dice);
            }
            Err(e) => prop_assert!(!reachable, "refused a playable maze: {e}\n{}", inst),
        }
    }
}
