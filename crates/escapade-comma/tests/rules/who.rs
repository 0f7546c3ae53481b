//! Who's on first (App. A "Who Puzzle"): read a label by the display, then press the first
//! button whose label is on that label's list. One stage, as the crate documents (the
//! original's module is disarmed by one right press).

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, generate, import};
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

/// App. A step 1, as printed (display → the button whose label to read). The paper's
/// typographic apostrophes are written `'`, as on the original's buttons.
const STEP_1: [(&str, &str); 28] = [
    ("YES", "Middle Left"),
    ("FIRST", "Top Right"),
    ("DISPLAY", "Bottom Right"),
    ("OKAY", "Top Right"),
    ("SAYS", "Bottom Right"),
    ("NOTHING", "Middle Left"),
    ("(No Text)", "Bottom Left"),
    ("BLANK", "Middle Right"),
    ("NO", "Bottom Right"),
    ("LED", "Middle Left"),
    ("LEAD", "Bottom Right"),
    ("READ", "Middle Right"),
    ("RED", "Middle Right"),
    ("REED", "Bottom Left"),
    ("LEED", "Bottom Left"),
    ("HOLD ON", "Bottom Right"),
    ("YOU", "Middle Right"),
    ("YOU ARE", "Bottom Right"),
    ("YOUR", "Middle Right"),
    ("YOU'RE", "Middle Right"),
    ("UR", "Top Left"),
    ("THERE", "Bottom Right"),
    ("THEY'RE", "Bottom Left"),
    ("THEIR", "Middle Right"),
    ("THEY ARE", "Middle Left"),
    ("SEE", "Bottom Right"),
    ("C", "Top Right"),
    ("CEE", "Bottom Right"),
];

/// App. A step 2, as printed (label → the words to look for, in order).
#[rustfmt::skip]
const STEP_2: [(&str, &str); 28] = [
    ("READY", "YES, OKAY, WHAT, MIDDLE, LEFT, PRESS, RIGHT, BLANK, READY, NO, FIRST, UHHH, NOTHING, WAIT"),
    ("FIRST", "LEFT, OKAY, YES, MIDDLE, NO, RIGHT, NOTHING, UHHH, WAIT, READY, BLANK, WHAT, PRESS, FIRST"),
    ("NO", "BLANK, UHHH, WAIT, FIRST, WHAT, READY, RIGHT, YES, NOTHING, LEFT, PRESS, OKAY, NO, MIDDLE"),
    ("BLANK", "WAIT, RIGHT, OKAY, MIDDLE, BLANK, PRESS, READY, NOTHING, NO, WHAT, LEFT, UHHH, YES, FIRST"),
    ("NOTHING", "UHHH, RIGHT, OKAY, MIDDLE, YES, BLANK, NO, PRESS, LEFT, WHAT, WAIT, FIRST, NOTHING, READY"),
    ("YES", "OKAY, RIGHT, UHHH, MIDDLE, FIRST, WHAT, PRESS, READY, NOTHING, YES, LEFT, BLANK, NO, WAIT"),
    ("WHAT", "UHHH, WHAT, LEFT, NOTHING, READY, BLANK, MIDDLE, NO, OKAY, FIRST, WAIT, YES, PRESS, RIGHT"),
    ("UHHH", "READY, NOTHING, LEFT, WHAT, OKAY, YES, RIGHT, NO, PRESS, BLANK, UHHH, MIDDLE, WAIT, FIRST"),
    ("LEFT", "RIGHT, LEFT, FIRST, NO, MIDDLE, YES, BLANK, WHAT, UHHH, WAIT, PRESS, READY, OKAY, NOTHING"),
    ("RIGHT", "YES, NOTHING, READY, PRESS, NO, WAIT, WHAT, RIGHT, MIDDLE, LEFT, UHHH, BLANK, OKAY, FIRST"),
    ("MIDDLE", "BLANK, READY, OKAY, WHAT, NOTHING, PRESS, NO, WAIT, LEFT, MIDDLE, RIGHT, FIRST, UHHH, YES"),
    ("OKAY", "MIDDLE, NO, FIRST, YES, UHHH, NOTHING, WAIT, OKAY, LEFT, READY, BLANK, PRESS, WHAT, RIGHT"),
    ("WAIT", "UHHH, NO, BLANK, OKAY, YES, LEFT, FIRST, PRESS, WHAT, WAIT, NOTHING, READY, RIGHT, MIDDLE"),
    ("PRESS", "RIGHT, MIDDLE, YES, READY, PRESS, OKAY, NOTHING, UHHH, BLANK, LEFT, FIRST, WHAT, NO, WAIT"),
    ("YOU", "SURE, YOU ARE, YOUR, YOU'RE, NEXT, UH HUH, UR, HOLD, WHAT?, YOU, UH UH, LIKE, DONE, U"),
    ("YOU ARE", "YOUR, NEXT, LIKE, UH HUH, WHAT?, DONE, UH UH, HOLD, YOU, U, YOU'RE, SURE, UR, YOU ARE"),
    ("YOUR", "UH UH, YOU ARE, UH HUH, YOUR, NEXT, UR, SURE, U, YOU'RE, YOU, WHAT?, HOLD, LIKE, DONE"),
    ("YOU'RE", "YOU, YOU'RE, UR, NEXT, UH UH, YOU ARE, U, YOUR, WHAT?, UH HUH, SURE, DONE, LIKE, HOLD"),
    ("UR", "DONE, U, UR, UH HUH, WHAT?, SURE, YOUR, HOLD, YOU'RE, LIKE, NEXT, UH UH, YOU ARE, YOU"),
    ("U", "UH HUH, SURE, NEXT, WHAT?, YOU'RE, UR, UH UH, DONE, U, YOU, LIKE, HOLD, YOU ARE, YOUR"),
    ("UH HUH", "UH HUH, YOUR, YOU ARE, YOU, DONE, HOLD, UH UH, NEXT, SURE, LIKE, YOU'RE, UR, U, WHAT?"),
    ("UH UH", "UR, U, YOU ARE, YOU'RE, NEXT, UH UH, DONE, YOU, UH HUH, LIKE, YOUR, SURE, HOLD, WHAT?"),
    ("WHAT?", "YOU, HOLD, YOU'RE, YOUR, U, DONE, UH UH, LIKE, YOU ARE, UH HUH, UR, NEXT, WHAT?, SURE"),
    ("DONE", "SURE, UH HUH, NEXT, WHAT?, YOUR, UR, YOU'RE, HOLD, LIKE, YOU, U, YOU ARE, UH UH, DONE"),
    ("NEXT", "WHAT?, UH HUH, UH UH, YOUR, HOLD, SURE, NEXT, LIKE, DONE, YOU ARE, UR, YOU'RE, U, YOU"),
    ("HOLD", "YOU ARE, U, DONE, UH UH, YOU, UR, SURE, WHAT?, YOU'RE, NEXT, HOLD, UH HUH, YOUR, LIKE"),
    ("SURE", "YOU ARE, DONE, LIKE, YOU'RE, YOU, HOLD, UH HUH, UR, SURE, U, WHAT?, NEXT, YOUR, UH UH"),
    ("LIKE", "YOU'RE, NEXT, U, UR, HOLD, DONE, UH UH, WHAT?, UH HUH, YOU, LIKE, SURE, YOU ARE, YOUR"),
];

/// The positions as the description names them, row by row.
const PLACES: [&str; 6] = [
    "top left",
    "top right",
    "middle left",
    "middle right",
    "bottom left",
    "bottom right",
];

/// App. A's two steps: the place (as in [`PLACES`]) to press.
fn button_to_press(display: &str, labels: &[String; 6]) -> &'static str {
    // "(No Text)" is the empty display
    let shown = if display.is_empty() {
        "(No Text)"
    } else {
        display
    };
    let read_at = STEP_1
        .iter()
        .find(|(d, _)| *d == shown)
        .map(|(_, at)| at.to_lowercase())
        .expect("a display step 1 lists");
    let read_index = PLACES.iter().position(|p| *p == read_at).expect("a place");
    let label = &labels[read_index];
    let list = STEP_2
        .iter()
        .find(|(l, _)| l == label)
        .map(|(_, list)| *list)
        .expect("a label step 2 lists");
    for word in list.split(", ") {
        if let Some(i) = labels.iter().position(|l| l == word) {
            return PLACES[i];
        }
    }
    panic!("no button on {label}'s list")
}

fn action_at(place: &str) -> String {
    format!("press_{}_button", place.replace(' ', "_"))
}

/// What the solver sees: the display and the six labels, from the description.
fn visible(p: &dyn Puzzle) -> (String, [String; 6]) {
    let d = p.describe();
    let display = if d.contains("The display is empty.") {
        String::new()
    } else {
        between(&d, "The display shows \"", "\".")
            .expect(&d)
            .to_string()
    };
    let labels = PLACES.map(|place| {
        between(&d, &format!("{place} \""), "\"")
            .expect(&d)
            .to_string()
    });
    assert_eq!(
        p.instance(),
        json!({"display_text": display, "button_texts": labels}),
        "{d}"
    );
    (display, labels)
}

fn play(p: &mut dyn Puzzle, dice: &mut Dice) {
    let (display, labels) = visible(p);
    let what = format!("{}\n{}", p.instance(), p.describe());
    let press = action_at(button_to_press(&display, &labels));
    let answer = vec![press.clone()];
    assert_answer(p, &answer, &what);
    assert_progress(p, 0.0, &what);
    let wrong = others(p, &answer);
    assert_eq!(wrong.len(), 5, "{what}");
    for _ in 0..dice.below(4) {
        act_wrong(p, &dice.pick(&wrong), &what);
        assert_answer(p, &answer, &what);
        assert_progress(p, 0.0, &what);
    }
    act_right(p, &press, &what);
    assert_finished(p, &what);
}

/// A display from step 1 ("(No Text)" as the empty display) and six different labels
/// from step 2.
fn instance_strategy() -> impl Strategy<Value = serde_json::Value> {
    (
        0..STEP_1.len(),
        Just((0..STEP_2.len()).collect::<Vec<_>>()).prop_shuffle(),
    )
        .prop_map(|(d, order)| {
            let display = match STEP_1[d].0 {
                "(No Text)" => "",
                shown => shown,
            };
            let labels: Vec<&str> = order[..6].iter().map(|&i| STEP_2[i].0).collect();
            json!({"display_text": display, "button_texts": labels})
        })
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated puzzles: the crate presses the button App. A's two steps pick.
    #[test]
    fn who_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Who, seed).unwrap();
        play(p.as_mut(), &mut dice);
    }

    /// Imported puzzles: any display of step 1 (the empty one included), any six labels.
    #[test]
    fn who_imported_follows_app_a(inst in instance_strategy(), mut dice in Dice::strategy()) {
        let mut p = import(PuzzleKind::Who, &inst, 0).unwrap();
        play(p.as_mut(), &mut dice);
    }
}
