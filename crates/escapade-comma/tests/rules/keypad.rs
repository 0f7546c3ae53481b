//! Keypad puzzle (App. A "KeyPad Puzzle"): one column holds all four symbols; press them in
//! that column's top-to-bottom order.
//!
//! Crate's documented choices followed here: the symbols are the crate's words (the paper
//! has pictures), read from its manual's column list; the solver sees each symbol drawn
//! or described in other words, so the test takes the symbols from the instance (the
//! column `strip_num` and the pictures `image_nums`, which fill the grid column by
//! column: top left, bottom left, top right, bottom right) and only the pressed lights
//! from the description; a press out of order is a mistake and releases every pressed
//! button; progress is correct presses ÷ 4.

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, generate, import};
use escapade_comma::puzzles::manual;
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

const PLACES: [&str; 4] = ["top left", "top right", "bottom left", "bottom right"];

/// The manual's columns, each top to bottom, as the expert reads them.
fn columns() -> Vec<Vec<String>> {
    let cols: Vec<Vec<String>> = manual(PuzzleKind::Keypad)
        .lines()
        .filter_map(|l| l.strip_prefix("Column "))
        .map(|l| {
            let (_, list) = l.split_once(": ").expect("Column N: …");
            list.split(", ").map(str::to_string).collect()
        })
        .collect();
    assert_eq!(cols.len(), 6);
    cols
}

/// Each place's symbol (from the instance) and whether it is pressed (from what the solver
/// sees).
fn visible(p: &dyn Puzzle) -> Vec<(String, bool)> {
    let d = p.describe();
    let inst = p.instance();
    let column = &columns()[inst["strip_num"].as_u64().expect("strip_num") as usize];
    let nums: Vec<usize> = inst["image_nums"]
        .as_array()
        .expect("image_nums")
        .iter()
        .map(|n| n.as_u64().expect("a number") as usize)
        .collect();
    // image_nums: top left, bottom left, top right, bottom right
    let symbols = [nums[0], nums[2], nums[1], nums[3]].map(|n| column[n].clone());
    let lower = d.to_lowercase();
    let buttons: Vec<(String, bool)> = PLACES
        .iter()
        .zip(symbols)
        .map(|(place, symbol)| {
            let seen = between(&lower, &format!("{place}: "), ";")
                .or_else(|| between(&lower, &format!("{place}: "), "."))
                .expect(&d);
            (symbol, seen.ends_with("(pressed)"))
        })
        .collect();
    buttons
}

/// App. A: the places in the order to press them (the one column with all four symbols,
/// top to bottom).
fn order(symbols: &[String]) -> Vec<usize> {
    let cols = columns();
    let fitting: Vec<&Vec<String>> = cols
        .iter()
        .filter(|c| symbols.iter().all(|s| c.contains(s)))
        .collect();
    assert_eq!(
        fitting.len(),
        1,
        "App. A: only one column has all four {symbols:?}"
    );
    let column = fitting[0];
    let mut places: Vec<usize> = (0..4).collect();
    places.sort_by_key(|&b| column.iter().position(|s| *s == symbols[b]));
    places
}

fn action_at(b: usize) -> String {
    format!("press_{}_button", PLACES[b].replace(' ', "_"))
}

fn play(p: &mut dyn Puzzle, dice: &mut Dice) {
    let mut wrong_left = 4;
    let mut last_progress = 0.0;
    for _ in 0..40 {
        if p.solved() {
            break;
        }
        let buttons = visible(p);
        let what = format!("{}\n{}", p.instance(), p.describe());
        let symbols: Vec<String> = buttons.iter().map(|(s, _)| s.clone()).collect();
        let order = order(&symbols);
        let done = buttons.iter().filter(|(_, pressed)| *pressed).count();
        // the pressed buttons are the first of the order
        for (k, &b) in order.iter().enumerate() {
            assert_eq!(buttons[b].1, k < done, "pressed out of order\n{what}");
        }
        assert_progress(p, done as f64 / 4.0, &what);
        let answer = vec![action_at(order[done])];
        assert_answer(p, &answer, &what);
        if wrong_left > 0 && dice.eighths(2) {
            wrong_left -= 1;
            let wrong = dice.pick(&others(p, &answer));
            act_wrong(p, &wrong, &what);
            assert!(
                visible(p).iter().all(|(_, pressed)| !pressed),
                "a wrong press releases every button\n{what}"
            );
            assert_progress(p, 0.0, &what);
            last_progress = 0.0;
            continue;
        }
        act_right(p, &answer[0], &what);
        assert!(
            p.progress() > last_progress,
            "progress did not grow\n{what}"
        );
        last_progress = p.progress();
    }
    let what = format!("{}", p.instance());
    assert_finished(p, &what);
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated keypads played to the end with presses out of order now and then.
    #[test]
    fn keypad_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Keypad, seed).unwrap();
        play(p.as_mut(), &mut dice);
    }

    /// Imported keypads: any column and any four of its symbols in any places; the
    /// symbols shown are the column's, placed column by column as the crate documents.
    #[test]
    fn keypad_imported_follows_app_a(
        strip in 0..6usize,
        nums in Just((0..6usize).collect::<Vec<_>>()).prop_shuffle(),
        mut dice in Dice::strategy(),
    ) {
        let nums = &nums[..4];
        let inst = json!({"strip_num": strip, "image_nums": nums});
        let mut p = import(PuzzleKind::Keypad, &inst, 0).unwrap();
        let column = &columns()[strip];
        let shown: Vec<String> = visible(p.as_ref()).into_iter().map(|(s, _)| s).collect();
        // image_nums order: top left, bottom left, top right, bottom right
        let expected: Vec<String> =
            [nums[0], nums[2], nums[1], nums[3]].iter().map(|&n| column[n].clone()).collect();
        prop_assert_eq!(shown, expected);
        play(p.as_mut(), &mut dice);
    }
}
