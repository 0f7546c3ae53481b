//! Memory puzzle (App. A "Memory Puzzle"): five stages; each stage's rule names a position
//! or a label, possibly the one pressed in an earlier stage; a wrong press goes back to
//! stage 1.
//!
//! Crate's documented choices followed here: the actions `press_N` press the button
//! *labelled* N; every stage draws a new display; the labels read 3, 1, 2, 4 at every
//! stage (the original's) unless the instance names the first stage's, or the
//! `shuffled` option draws new ones every stage; `load_screen` without `labels` uses the
//! original's fixed layout 3, 1, 2, 4.

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{MemoryLabels, PuzzleKind, Rules, generate, import, import_with};
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

/// What the solver sees now: the stage (1-based), the display and the labels left to
/// right; `None` once disarmed.
fn visible(p: &dyn Puzzle) -> Option<(usize, u8, [u8; 4])> {
    let d = p.describe();
    if p.solved() {
        assert!(d.contains("All five stages are done"), "{d}");
        return None;
    }
    let stage = between(&d, "at stage ", " of 5.")
        .expect(&d)
        .parse()
        .expect(&d);
    let display = between(&d, "The display shows ", ".")
        .expect(&d)
        .parse()
        .expect(&d);
    let labels: Vec<u8> = between(&d, "left to right are labelled ", ".")
        .expect(&d)
        .split(", ")
        .map(|l| l.parse().expect(&d))
        .collect();
    Some((stage, display, labels.try_into().expect(&d)))
}

/// App. A's rule for `stage` and `display`, given the labels left to right and what was
/// pressed in the stages passed (position 1–4 from the left, label). Returns the label
/// of the button to press.
#[allow(clippy::if_same_then_else)] // one branch per line of the manual, as printed
fn label_to_press(stage: usize, display: u8, labels: [u8; 4], pressed: &[(usize, u8)]) -> u8 {
    let in_position = |pos: usize| labels[pos - 1];
    let labelled = |label: u8| label;
    let position_pressed_in = |s: usize| pressed[s - 1].0;
    let label_pressed_in = |s: usize| pressed[s - 1].1;
    if stage == 1 {
        if display == 1 {
            in_position(2)
        } else if display == 2 {
            in_position(2)
        } else if display == 3 {
            in_position(3)
        } else {
            in_position(4)
        }
    } else if stage == 2 {
        if display == 1 {
            labelled(4)
        } else if display == 2 {
            in_position(position_pressed_in(1))
        } else if display == 3 {
            in_position(1)
        } else {
            in_position(position_pressed_in(1))
        }
    } else if stage == 3 {
        if display == 1 {
            labelled(label_pressed_in(2))
        } else if display == 2 {
            labelled(label_pressed_in(1))
        } else if display == 3 {
            in_position(3)
        } else {
            labelled(4)
        }
    } else if stage == 4 {
        if display == 1 {
            in_position(position_pressed_in(1))
        } else if display == 2 {
            in_position(1)
        } else if display == 3 {
            in_position(position_pressed_in(2))
        } else {
            in_position(position_pressed_in(2))
        }
    } else if display == 1 {
        labelled(label_pressed_in(1))
    } else if display == 2 {
        labelled(label_pressed_in(2))
    } else if display == 3 {
        labelled(label_pressed_in(4))
    } else {
        labelled(label_pressed_in(3))
    }
}

/// Plays to the end from a state whose earlier presses were `pressed`, pressing wrong now
/// and then (at most three times, each sending the module back to stage 1).
fn play(p: &mut dyn Puzzle, mut pressed: Vec<(usize, u8)>, dice: &mut Dice) {
    let mut wrong_left = 3;
    let mut last_progress = p.progress();
    for _ in 0..40 {
        let Some((stage, display, labels)) = visible(p) else {
            break;
        };
        let what = format!("{}\n{}\npressed {pressed:?}", p.instance(), p.describe());
        assert_eq!(stage, pressed.len() + 1, "{what}");
        assert_progress(p, (stage - 1) as f64 / 5.0, &what);
        let label = label_to_press(stage, display, labels, &pressed);
        let answer = vec![format!("press_{label}")];
        assert_answer(p, &answer, &what);
        if wrong_left > 0 && dice.eighths(2) {
            wrong_left -= 1;
            let wrong = dice.pick(&others(p, &answer));
            act_wrong(p, &wrong, &what);
            pressed.clear();
            let (stage, _, _) = visible(p).expect("not solved");
            assert_eq!(stage, 1, "a wrong press goes back to stage 1\n{what}");
            assert_progress(p, 0.0, &what);
            last_progress = 0.0;
            continue;
        }
        act_right(p, &answer[0], &what);
        let position = labels.iter().position(|&l| l == label).expect("a label") + 1;
        pressed.push((position, label));
        assert!(
            p.progress() > last_progress,
            "progress did not grow\n{what}"
        );
        last_progress = p.progress();
    }
    let what = format!("{}\npressed {pressed:?}", p.instance());
    assert_eq!(pressed.len(), 5, "{what}");
    assert_finished(p, &what);
}

fn labels_strategy() -> impl Strategy<Value = Vec<u8>> {
    Just(vec![1u8, 2, 3, 4]).prop_shuffle()
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated puzzles played through all five stages, with wrong presses that reset;
    /// the labels never move.
    #[test]
    fn memory_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Memory, seed).unwrap();
        prop_assert_eq!(visible(p.as_ref()).unwrap().2, [3, 1, 2, 4]);
        play(p.as_mut(), Vec::new(), &mut dice);
    }

    /// The option that shuffles the labels every stage: the same rules on whatever
    /// labels are shown.
    #[test]
    fn memory_shuffled_follows_app_a(
        display in 1..=4u8,
        seed in any::<u64>(),
        mut dice in Dice::strategy(),
    ) {
        let rules = Rules { memory_labels: MemoryLabels::Shuffled, ..Rules::default() };
        let mut p = import_with(PuzzleKind::Memory, &json!({"display_text": display}), seed, rules)
            .unwrap();
        play(p.as_mut(), Vec::new(), &mut dice);
    }

    /// Imported puzzles: the display as a number or a string, with or without the first
    /// labels (the crate's extension), any play seed.
    #[test]
    fn memory_imported_follows_app_a(
        display in 1..=4u8,
        as_text in any::<bool>(),
        labels in proptest::option::of(labels_strategy()),
        seed in any::<u64>(),
        mut dice in Dice::strategy(),
    ) {
        let mut inst = if as_text {
            json!({"display_text": display.to_string()})
        } else {
            json!({"display_text": display})
        };
        if let Some(l) = &labels {
            inst["labels"] = json!(l);
        }
        let mut p = import(PuzzleKind::Memory, &inst, seed).unwrap();
        let (stage, shown, first) = visible(p.as_ref()).unwrap();
        prop_assert_eq!((stage, shown), (1, display));
        if let Some(l) = labels {
            prop_assert_eq!(first.to_vec(), l);
        }
        play(p.as_mut(), Vec::new(), &mut dice);
    }

    /// Any mid-puzzle screen in the original's trace format (stage, display, labels
    /// pressed so far, the original's fixed layout 3, 1, 2, 4), then played to the end.
    #[test]
    fn memory_loaded_screens_follow_app_a(
        seed in any::<u64>(),
        stage in 1..=5usize,
        display in 1..=4u8,
        history in proptest::collection::vec(1..=4u8, 4),
        mut dice in Dice::strategy(),
    ) {
        let mut p = generate(PuzzleKind::Memory, seed).unwrap();
        let history = &history[..stage - 1];
        let obs = json!({"stage": stage, "display": display, "history": history});
        p.load_screen(&obs).unwrap();
        let (_, _, labels) = visible(p.as_ref()).unwrap();
        prop_assert_eq!(labels, [3, 1, 2, 4]);
        let pressed = history
            .iter()
            .map(|&l| (labels.iter().position(|&x| x == l).unwrap() + 1, l))
            .collect();
        play(p.as_mut(), pressed, &mut dice);
    }
}
