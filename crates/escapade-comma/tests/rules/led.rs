//! LED puzzle (App. A "LED Puzzle"): 2–5 stages; at each, a button is correct when its
//! letter's value times the LED's multiplier, mod 26, is the value of the letter on the
//! diagonally opposite button.
//!
//! Crate's documented choice followed here: each drawn stage plants one correct button
//! (so a drawn stage always has at least one); a wrong press keeps the stage.

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, generate, import};
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

/// App. A's colour → multiplier mapping.
fn multiplier(colour: &str) -> u32 {
    match colour {
        "red" => 2,
        "green" => 3,
        "blue" => 4,
        "yellow" => 5,
        "purple" => 6,
        "orange" => 7,
        other => panic!("no multiplier for {other}"),
    }
}

const PLACES: [&str; 4] = ["top left", "top right", "bottom left", "bottom right"];

/// The button diagonally opposite `place`.
fn opposite(place: &str) -> &'static str {
    match place {
        "top left" => "bottom right",
        "top right" => "bottom left",
        "bottom left" => "top right",
        _ => "top left",
    }
}

/// A = 0, B = 1, …
fn value(letter: char) -> u32 {
    letter as u32 - 'A' as u32
}

/// App. A: the places whose button is correct.
fn correct_places(colour: &str, letters: &[(String, char)]) -> Vec<String> {
    let letter_at = |place: &str| letters.iter().find(|(p, _)| p == place).unwrap().1;
    let m = multiplier(colour);
    PLACES
        .iter()
        .filter(|place| value(letter_at(place)) * m % 26 == value(letter_at(opposite(place))))
        .map(|p| p.to_string())
        .collect()
}

struct Screen {
    stage: usize,
    stages: usize,
    colour: String,
    letters: Vec<(String, char)>,
}

/// What the solver sees; `None` once disarmed.
fn visible(p: &dyn Puzzle) -> Option<Screen> {
    let d = p.describe();
    if p.solved() {
        assert!(d.contains("All stages are done"), "{d}");
        return None;
    }
    let stages: usize = between(&d, "An LED module with ", " stages")
        .expect(&d)
        .parse()
        .expect(&d);
    let stage = between(&d, "now at stage ", " of")
        .expect(&d)
        .parse()
        .expect(&d);
    let colour = between(&d, "the LED is ", ".").expect(&d).to_string();
    let letters = PLACES
        .iter()
        .map(|place| {
            let buttons = &d[d.find("buttons show: ").expect(&d)..];
            let after = &buttons[buttons.find(&format!("{place} ")).expect(&d) + place.len() + 1..];
            let c = after.chars().next().expect(&d);
            assert!(c.is_ascii_uppercase(), "{d}");
            (place.to_string(), c)
        })
        .collect();
    let colours = p.instance()["led_colors"].clone();
    assert_eq!(colours.as_array().map(Vec::len), Some(stages), "{d}");
    assert_eq!(colours[stage - 1], json!(colour), "{d}");
    Some(Screen {
        stage,
        stages,
        colour,
        letters,
    })
}

fn action_at(place: &str) -> String {
    format!("press_{}_button", place.replace(' ', "_"))
}

/// Plays to the end, pressing wrong buttons now and then; `planted` asks that every stage
/// have a correct button (the crate's documented draw). Returns false when a stage has
/// no correct button (only possible on a loaded screen).
fn play(p: &mut dyn Puzzle, planted: bool, dice: &mut Dice) -> bool {
    let mut last_progress = p.progress();
    for _ in 0..60 {
        let Some(s) = visible(p) else {
            break;
        };
        let what = format!("{}\n{}", p.instance(), p.describe());
        assert_progress(p, (s.stage - 1) as f64 / s.stages as f64, &what);
        let answer: Vec<String> = correct_places(&s.colour, &s.letters)
            .iter()
            .map(|pl| action_at(pl))
            .collect();
        assert_answer(p, &answer, &what);
        let wrong = others(p, &answer);
        if answer.is_empty() {
            assert!(!planted, "a drawn stage without a correct button\n{what}");
            for a in &wrong {
                act_wrong(p, a, &what);
            }
            return false;
        }
        if !wrong.is_empty() && dice.eighths(3) {
            let before = p.describe();
            act_wrong(p, &dice.pick(&wrong), &what);
            assert_eq!(
                p.describe(),
                before,
                "a wrong press changed the stage\n{what}"
            );
            continue;
        }
        act_right(p, &dice.pick(&answer), &what);
        assert!(
            p.progress() > last_progress,
            "progress did not grow\n{what}"
        );
        last_progress = p.progress();
    }
    let what = format!("{}", p.instance());
    assert_finished(p, &what);
    true
}

const COLOURS: [&str; 6] = ["red", "green", "blue", "yellow", "purple", "orange"];

fn colours_strategy() -> impl Strategy<Value = Vec<String>> {
    // the importer trims and lower-cases colour names
    proptest::collection::vec(
        (0..COLOURS.len(), 0..4u8).prop_map(|(c, style)| match style {
            0 => COLOURS[c].to_uppercase(),
            1 => format!(" {} ", COLOURS[c]),
            _ => COLOURS[c].to_string(),
        }),
        2..=5,
    )
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated puzzles played through every stage.
    #[test]
    fn led_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Led, seed).unwrap();
        prop_assert!(play(p.as_mut(), true, &mut dice));
    }

    /// Imported colour lists (with or without `num_stages`, any spelling case), any seed.
    #[test]
    fn led_imported_follows_app_a(
        colours in colours_strategy(),
        with_count in any::<bool>(),
        seed in any::<u64>(),
        mut dice in Dice::strategy(),
    ) {
        let mut inst = json!({"led_colors": colours});
        if with_count {
            inst["num_stages"] = json!(colours.len());
        }
        let mut p = import(PuzzleKind::Led, &inst, seed).unwrap();
        let clean: Vec<String> = colours.iter().map(|c| c.trim().to_lowercase()).collect();
        prop_assert_eq!(&p.instance()["led_colors"], &json!(clean));
        prop_assert!(play(p.as_mut(), true, &mut dice));
    }

    /// Any four letters on any stage (loaded in the original's trace format): zero, one or
    /// several correct buttons.
    #[test]
    fn led_loaded_screens_follow_app_a(
        colours in proptest::collection::vec(0..COLOURS.len(), 2..=5),
        stage in 0..5usize,
        letters in proptest::collection::vec(proptest::char::range('A', 'Z'), 4),
        seed in any::<u64>(),
        mut dice in Dice::strategy(),
    ) {
        let colours: Vec<&str> = colours.iter().map(|&c| COLOURS[c]).collect();
        let stage = stage % colours.len();
        let mut p = import(PuzzleKind::Led, &json!({"led_colors": colours}), seed).unwrap();
        let letters: Vec<String> = letters.iter().map(|c| c.to_string()).collect();
        let obs = json!({"stage": stage, "led_color": colours[stage], "letters_TL_TR_BL_BR": letters});
        p.load_screen(&obs).unwrap();
        let s = visible(p.as_ref()).unwrap();
        prop_assert_eq!(s.stage, stage + 1);
        let shown: Vec<String> = s.letters.iter().map(|(_, c)| c.to_string()).collect();
        prop_assert_eq!(shown, letters);
        play(p.as_mut(), false, &mut dice);
    }
}
