//! Telehealth puzzle (App. A "Telehealth Puzzle"): diagnose the lesion as one of six
//! diseases, then choose surgery, cryotherapy or no treatment.
//!
//! App. A names the six diagnoses and three treatments but not the rule between them; the
//! crate documents its own (ACK, SEK → cryotherapy; NEV → no treatment; MEL, SCC →
//! surgery; BCC → cryotherapy only when flat, not bleeding and under 6 mm across, else
//! surgery), and the test follows it, written afresh from that text. Also the crate's
//! documented choices: the diagnosis is the record's `diagnostic`; any action but the
//! stage's right one is a strike, except repeating the accepted diagnosis; progress is
//! ½ per stage.

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, generate, import};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::*;

const CODES: [&str; 6] = ["ACK", "BCC", "MEL", "NEV", "SCC", "SEK"];

/// A yes/no field of the record: `None` when missing or unknown.
fn yes_no(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_u64() {
            Some(1) => Some(true),
            Some(0) => Some(false),
            _ => None,
        },
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A diameter in mm, when one is recorded (a positive finite number).
fn millimetres(v: &Value) -> Option<f64> {
    let x = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }?;
    (x.is_finite() && x > 0.0).then_some(x)
}

/// The treatment for a diagnosis, by the crate's documented rule.
fn treatment(
    code: &str,
    flat: Option<bool>,
    bleeds: Option<bool>,
    largest: Option<f64>,
) -> &'static str {
    match code {
        "ACK" | "SEK" => "cryotherapy",
        "NEV" => "no_treatment",
        "MEL" | "SCC" => "surgery",
        "BCC" => {
            if flat == Some(true) && bleeds == Some(false) && largest.is_some_and(|d| d < 6.0) {
                "cryotherapy"
            } else {
                "surgery"
            }
        }
        other => panic!("diagnosis {other}"),
    }
}

/// The right diagnosis and treatment from the instance's record.
fn answers(record: &Value) -> (String, &'static str) {
    let code = record["diagnostic"].as_str().unwrap().trim().to_uppercase();
    let flat = yes_no(&record["elevation"]).map(|raised| !raised);
    let bleeds = yes_no(&record["bleed"]);
    let largest = [
        millimetres(&record["diameter_1"]),
        millimetres(&record["diameter_2"]),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::max);
    let t = treatment(&code, flat, bleeds, largest);
    (code, t)
}

/// The same treatment from what the description tells the solver about the lesion (size,
/// bleeding, raised), given the diagnosis.
fn treatment_from_description(code: &str, d: &str) -> &'static str {
    let size = between(d, "Lesion: ", ";").expect(d);
    let sizes: Vec<f64> = if size == "size not recorded" {
        Vec::new()
    } else {
        size.trim_end_matches(" mm across")
            .trim_end_matches(" mm")
            .split(" × ")
            .map(|x| x.parse().expect(d))
            .collect()
    };
    let word = |said: &str| match said {
        "yes" => Some(true),
        "no" => Some(false),
        "unknown" => None,
        other => panic!("{other}\n{d}"),
    };
    let bleeds = word(between(d, "; bleeds: ", ";").expect(d));
    let flat = word(between(d, "; raised: ", ".").expect(d)).map(|r| !r);
    let largest = sizes.into_iter().reduce(f64::max);
    treatment(code, flat, bleeds, largest)
}

fn play(p: &mut dyn Puzzle, dice: &mut Dice) {
    let inst = p.instance();
    let (code, cure) = answers(&inst["record"]);
    let what = format!("{inst}\n{}", p.describe());
    let diagnose = format!("diagnose_{code}");
    let treat = format!("treat_{cure}");
    // stage 1: the diagnosis
    let answer = vec![diagnose.clone()];
    assert_answer(p, &answer, &what);
    assert_progress(p, 0.0, &what);
    for _ in 0..dice.below(3) {
        let wrong = dice.pick(&others(p, &answer));
        act_wrong(p, &wrong, &what);
        assert_answer(p, &answer, &what);
        assert_progress(p, 0.0, &what);
    }
    act_right(p, &diagnose, &what);
    assert_progress(p, 0.5, &what);
    // stage 2: the treatment
    let answer = vec![treat.clone()];
    assert_answer(p, &answer, &what);
    assert_eq!(
        treatment_from_description(&code, &p.describe()),
        cure,
        "the description tells the solver otherwise\n{what}"
    );
    for _ in 0..dice.below(3) {
        let wrong: Vec<String> = others(p, &answer)
            .into_iter()
            .filter(|a| *a != diagnose)
            .collect();
        act_wrong(p, &dice.pick(&wrong), &what);
        assert_answer(p, &answer, &what);
        assert_progress(p, 0.5, &what);
    }
    if dice.eighths(2) {
        act_right(
            p,
            &diagnose,
            &format!("repeating the accepted diagnosis\n{what}"),
        );
        assert_progress(p, 0.5, &what);
    }
    act_right(p, &treat, &what);
    assert_finished(p, &what);
}

fn flag_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("True")),
        Just(json!("False")),
        Just(json!("TRUE")),
        Just(json!("false")),
        Just(json!(" yes ")),
        Just(json!("no")),
        Just(json!("1")),
        Just(json!("0")),
        Just(json!("UNK")),
        Just(json!("")),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!(1)),
        Just(json!(0)),
        Just(json!(2)),
        Just(Value::Null),
    ]
}

fn diameter_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        // whole and one-decimal millimetres, as the dataset records them. Not finer: the
        // description rounds to one decimal, so a BCC recorded at 5.96 mm is shown as
        // "6.0 mm" while the rule (on the record) says cryotherapy — a known mismatch
        // between what the solver is told and the rule, reported rather than tested here.
        (0..=200u32).prop_map(|d| json!(format!("{:.1}", f64::from(d) / 10.0))),
        (0..=20u32).prop_map(|d| json!(d)),
        (0..=200u32).prop_map(|d| json!(f64::from(d) / 10.0)),
        Just(json!("6")),
        Just(json!("6.0")),
        Just(json!("5.9")),
        Just(json!(" 4 ")),
        Just(json!("-3")),
        Just(json!("0")),
        Just(json!("UNK")),
        Just(json!("")),
        Just(json!("NaN")),
        Just(json!("inf")),
        Just(Value::Null),
    ]
}

fn record_strategy() -> impl Strategy<Value = Value> {
    // half of the records are basal cell carcinomas near the rule's edges: mostly flat,
    // not bleeding, 5–7 mm across
    let no = || prop_oneof![Just(json!("False")), Just(json!(false)), Just(json!(0))];
    let near_six = || {
        prop_oneof![
            Just(json!("5.9")),
            Just(json!(6)),
            Just(json!("6.0")),
            Just(json!(6.1)),
            Just(json!("5")),
            Just(json!(7.0)),
        ]
    };
    let edge = (
        Just(1usize),
        0..3u8,
        proptest::option::weighted(0.95, prop_oneof![3 => no(), 1 => flag_value()]),
        proptest::option::weighted(0.95, prop_oneof![3 => no(), 1 => flag_value()]),
        proptest::option::of(prop_oneof![3 => near_six(), 1 => diameter_value()]),
        proptest::option::of(prop_oneof![3 => near_six(), 1 => diameter_value()]),
        proptest::option::of(10..90u32),
    );
    let any_record = (
        0..6usize,
        0..3u8,
        proptest::option::of(flag_value()),
        proptest::option::of(flag_value()),
        proptest::option::of(diameter_value()),
        proptest::option::of(diameter_value()),
        proptest::option::of(10..90u32),
    );
    prop_oneof![any_record, edge].prop_map(|(c, case, elevation, bleed, d1, d2, age)| {
        let code = match case {
            0 => CODES[c].to_lowercase(),
            1 => format!(" {} ", CODES[c]),
            _ => CODES[c].to_string(),
        };
        let mut r = json!({"diagnostic": code});
        for (k, v) in [
            ("elevation", elevation),
            ("bleed", bleed),
            ("diameter_1", d1),
            ("diameter_2", d2),
        ] {
            if let Some(v) = v {
                r[k] = v;
            }
        }
        if let Some(a) = age {
            r["age"] = json!(a);
        }
        r
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// Generated (synthetic) patients: the crate's diagnosis and treatment are the rule's.
    #[test]
    fn telehealth_generated_follows_the_rule(seed in any::<u64>(), mut dice in Dice::strategy()) {
        let mut p = generate(PuzzleKind::Telehealth, seed).unwrap();
        play(p.as_mut(), &mut dice);
    }

    /// Imported records with every spelling of yes, no and unknown, diameters missing,
    /// zero, negative, at and around 6 mm, as strings and as numbers.
    #[test]
    fn telehealth_imported_follows_the_rule(
        record in record_strategy(),
        idx in proptest::option::of(0..3000u64),
        mut dice in Dice::strategy(),
    ) {
        let mut inst = json!({"record": record});
        if let Some(i) = idx {
            inst["skin_lesion_idx"] = json!(i);
        }
        let mut p = import(PuzzleKind::Telehealth, &inst, 0).unwrap();
        // answers are computed from the JSON as given, not as the crate stores it
        let (code, cure) = answers(&record);
        prop_assert_eq!(p.correct_actions(), vec![format!("diagnose_{code}")]);
        prop_assert_eq!(answers(&p.instance()["record"]), (code, cure));
        play(p.as_mut(), &mut dice);
    }
}
