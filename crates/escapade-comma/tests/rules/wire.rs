//! Wire puzzle (App. A "Wire Puzzle"): one wire to cut among 3–6.

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, Rules, generate, import, import_with};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::*;

const COLOURS: [&str; 5] = ["red", "white", "yellow", "blue", "black"];

/// App. A's rules, as the manual reads them, for wires `w` (top first) and the serial
/// number printed on the module. The answer is 1-based.
#[allow(clippy::if_same_then_else)] // one branch per line of the manual, as printed
fn wire_to_cut(w: &[String], serial: &str) -> usize {
    let n = w.len();
    let last_digit_odd = serial
        .chars()
        .last()
        .and_then(|c| c.to_digit(10))
        .expect("a serial number ending in a digit")
        % 2
        == 1;
    let how_many = |colour: &str| w.iter().filter(|x| x.as_str() == colour).count();
    let last_is = |colour: &str| w[n - 1] == colour;
    let last_one = |colour: &str| {
        let mut found = 0;
        for (i, x) in w.iter().enumerate() {
            if x == colour {
                found = i + 1;
            }
        }
        found
    };
    if n == 3 {
        if how_many("red") == 0 {
            2
        } else if last_is("white") {
            n
        } else if how_many("blue") > 1 {
            last_one("blue")
        } else {
            n
        }
    } else if n == 4 {
        if how_many("red") > 1 && last_digit_odd {
            last_one("red")
        } else if last_is("yellow") && how_many("red") == 0 {
            1
        } else if how_many("blue") == 1 {
            1
        } else if how_many("yellow") > 1 {
            n
        } else {
            2
        }
    } else if n == 5 {
        if last_is("black") && last_digit_odd {
            4
        } else if how_many("red") == 1 && how_many("yellow") > 1 {
            1
        } else if how_many("black") == 0 {
            2
        } else {
            1
        }
    } else if n == 6 {
        if how_many("yellow") == 0 && last_digit_odd {
            3
        } else if how_many("yellow") == 1 && how_many("white") > 1 {
            4
        } else if how_many("red") == 0 {
            n
        } else {
            4
        }
    } else {
        panic!("{n} wires")
    }
}

/// What the solver sees: the wires top to bottom and the serial number, read from the
/// description (and checked against the instance).
fn visible(p: &dyn Puzzle) -> (Vec<String>, String) {
    let d = p.describe();
    let list = between(&d, "counted from the top: ", ". The serial number ").expect(&d);
    let wires: Vec<String> = list
        .split(", ")
        .enumerate()
        .map(|(i, s)| {
            s.strip_prefix(&format!("wire {} is ", i + 1))
                .expect(&d)
                .to_string()
        })
        .collect();
    let serial = between(&d, "The serial number ", " ")
        .expect(&d)
        .to_string();
    let inst = p.instance();
    assert_eq!(inst["colors"], json!(wires), "{d}");
    assert_eq!(inst["n_wires"], json!(wires.len()), "{d}");
    (wires, serial)
}

/// Plays `p`, whose module must show serial number `printed`.
fn play(p: &mut dyn Puzzle, dice: &mut Dice, printed: &str) {
    let (wires, serial) = visible(p);
    let what = format!("{}\n{}", p.instance(), p.describe());
    assert_eq!(serial, printed, "the serial number\n{what}");
    let cut = format!("cut_wire_{}", wire_to_cut(&wires, &serial));
    let answer = vec![cut.clone()];
    assert_answer(p, &answer, &what);
    assert_progress(p, 0.0, &what);
    let wrong = others(p, &answer);
    assert_eq!(wrong.len(), wires.len() - 1, "{what}");
    // some wrong cuts first: each a strike that changes nothing
    for _ in 0..dice.below(wrong.len() + 1) {
        act_wrong(p, &dice.pick(&wrong), &what);
        assert_answer(p, &answer, &what);
        assert_progress(p, 0.0, &what);
    }
    act_right(p, &cut, &what);
    assert_finished(p, &what);
}

fn colour_strategy() -> impl Strategy<Value = String> {
    // the original writes lower case; the importer also takes other cases
    (0..COLOURS.len(), 0..4u8).prop_map(|(c, case)| match case {
        0 => COLOURS[c].to_uppercase(),
        1 => {
            let mut s = COLOURS[c].to_string();
            s[..1].make_ascii_uppercase();
            s
        }
        _ => COLOURS[c].to_string(),
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated wire puzzles: the crate's answer is App. A's, a wrong cut is a strike,
    /// the right one solves.
    #[test]
    fn wire_generated_follows_app_a(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Wire, seed).unwrap();
        // the serial number of the original's model configurations
        play(p.as_mut(), &mut dice, "123456");
    }

    /// Imported wire puzzles of every size and colour mix (with and without `n_wires`,
    /// any letter case).
    #[test]
    fn wire_imported_follows_app_a(
        colours in proptest::collection::vec(colour_strategy(), 3..=6),
        with_count in any::<bool>(),
        mut dice in Dice::strategy(),
    ) {
        let inst = if with_count {
            json!({"n_wires": colours.len(), "colors": colours})
        } else {
            json!({"colors": colours})
        };
        let mut p = import(PuzzleKind::Wire, &inst, 0).unwrap();
        let lower: Vec<String> = colours.iter().map(|c| c.to_lowercase()).collect();
        prop_assert_eq!(&p.instance()["colors"], &json!(lower));
        play(p.as_mut(), &mut dice, "123456");
    }

    /// Any serial number (`-W serial=N`), odd last digits included: the manual's
    /// serial-number rules follow what the module shows.
    #[test]
    fn wire_with_any_serial_follows_app_a(
        colours in proptest::collection::vec(colour_strategy(), 3..=6),
        serial in 0..=999_999u32,
        mut dice in Dice::strategy(),
    ) {
        let rules = Rules { serial, ..Rules::default() };
        let mut p = import_with(PuzzleKind::Wire, &json!({"colors": colours}), 0, rules).unwrap();
        play(p.as_mut(), &mut dice, &serial.to_string());
    }

    /// Instances outside App. A (too few or many wires, unknown colours, a wrong count)
    /// are refused.
    #[test]
    fn wire_refuses_what_app_a_has_not(
        colours in proptest::collection::vec(
            prop_oneof![colour_strategy(), Just("green".to_string()), Just(String::new())],
            0..9,
        ),
        count in proptest::option::of(0..10usize),
    ) {
        let mut inst = json!({"colors": colours});
        if let Some(n) = count {
            inst["n_wires"] = Value::from(n);
        }
        let fine = (3..=6).contains(&colours.len())
            && colours.iter().all(|c| COLOURS.contains(&c.to_lowercase().as_str()))
            && count.is_none_or(|n| n == colours.len());
        prop_assert_eq!(import(PuzzleKind::Wire, &inst, 0).is_ok(), fine, "{}", inst);
    }
}
