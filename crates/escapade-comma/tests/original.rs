//! Differential test against the original COMMA code: for each of the original's 1000
//! evaluation instances, `original_answers.jsonl` (made by replaying the original's puzzle
//! modules) lists the actions its rules accept. Importing each instance here must give a
//! puzzle that accepts exactly those actions (state by state where the original drew its
//! screens at random).

use escapade_comma::puzzle::{PuzzleKind, import};
use escapade_comma::puzzles::telehealth::Telehealth;
use serde_json::Value;

/// The fixture rows of puzzle `kind`.
fn rows(kind: PuzzleKind) -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/original_answers.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("tests/fixtures/original_answers.jsonl");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a fixture row"))
        .filter(|r| r["puzzle"] == kind.class())
        .collect()
}

/// Checks every fixture row of `kind` (there must be 100) with `agrees`, and names the
/// rows that disagree.
fn check_rows(kind: PuzzleKind, agrees: impl Fn(&Value) -> bool) {
    let rows = rows(kind);
    assert_eq!(rows.len(), 100, "{} rows", kind.name());
    let disagreements: Vec<&Value> = rows
        .iter()
        .filter(|row| !agrees(row))
        .map(|row| &row["index"])
        .collect();
    assert!(
        disagreements.is_empty(),
        "{}: disagree on {disagreements:?}",
        kind.name()
    );
}

/// `actions` are, one after the other, the correct action(s) of `p` and no mistake, and
/// they leave it solved. `only` asks that each be the single correct action.
fn plays_through(p: &mut dyn escapade_comma::Puzzle, actions: &[&str], only: bool) -> bool {
    for a in actions {
        let correct = p.correct_actions();
        let fits = if only {
            correct == [a.to_string()]
        } else {
            correct.iter().any(|c| c == a)
        };
        if !fits || p.act(a).mistake {
            return false;
        }
    }
    p.solved()
}

/// The row's `correct_actions`.
fn listed(row: &Value) -> Vec<&str> {
    row["correct_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect()
}

/// Deterministic puzzles: from the start, each listed action is correct in turn and the
/// puzzle ends solved with no mistake.
fn replay(kind: PuzzleKind) {
    check_rows(kind, |row| {
        let mut p = import(kind, &row["instance"], 0).unwrap();
        plays_through(p.as_mut(), &listed(row), false)
    });
}

#[test]
fn wire_agrees_with_the_original() {
    replay(PuzzleKind::Wire);
}

#[test]
fn who_agrees_with_the_original() {
    replay(PuzzleKind::Who);
}

#[test]
fn password_agrees_with_the_original() {
    replay(PuzzleKind::Password);
}

#[test]
fn maze_agrees_with_the_original() {
    replay(PuzzleKind::Maze);
}

#[test]
fn atm_agrees_with_the_original() {
    replay(PuzzleKind::Atm);
}

/// Puzzles whose screens the original drew at random: for each `trace` entry, put the
/// entry's screen (`obs`) on the puzzle, check that exactly the entry's `correct` actions
/// are correct (in any order), then press the first of them.
fn walk(kind: PuzzleKind) {
    check_rows(kind, |row| {
        let seed = row["rng_seed"].as_u64().unwrap_or(0);
        let mut p = import(kind, &row["instance"], seed).unwrap();
        row["trace"].as_array().unwrap().iter().all(|entry| {
            p.load_screen(&entry["obs"]).unwrap();
            let mut ours = p.correct_actions();
            let mut theirs: Vec<String> = entry["correct"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect();
            ours.sort();
            theirs.sort();
            ours == theirs && !p.act(&theirs[0]).mistake
        })
    });
}

#[test]
fn memory_agrees_with_the_original() {
    walk(PuzzleKind::Memory);
}

#[test]
fn led_agrees_with_the_original() {
    walk(PuzzleKind::Led);
}

#[test]
fn keypad_agrees_with_the_original() {
    replay(PuzzleKind::Keypad);
}

#[test]
fn colour_agrees_with_the_original() {
    walk(PuzzleKind::Colour);
}

/// Telehealth: the original's instances name a PAD-UFES-20 row we do not have, so import
/// refuses them; each row is tested with a record carrying the row's `diagnostic` and a
/// size on the side of the original's 5 mm rule the row's treatment says, and with the
/// synthetic stand-in `comma@4` plays for it.
#[test]
fn telehealth_agrees_with_the_original() {
    let stand_ins = escapade_comma::world::stand_in_answers();
    check_rows(PuzzleKind::Telehealth, |row| {
        assert!(import(PuzzleKind::Telehealth, &row["instance"], 0).is_err());
        let expected = listed(row);
        let code = row["diagnostic"].as_str().unwrap();
        let mut record = serde_json::json!({"diagnostic": code});
        if code == "BCC" || code == "SCC" {
            let big = expected.contains(&"treat_surgery");
            record["diameter_1"] = if big { "12.0" } else { "4.0" }.into();
            record["diameter_2"] = "3.0".into();
        }
        let mut instance = row["instance"].clone();
        instance["record"] = record;
        let mut p = import(PuzzleKind::Telehealth, &instance, 0).unwrap();
        let by_record = plays_through(p.as_mut(), &expected, true);
        // the stand-in: the same answers, from the crate's own table
        let idx = row["instance"]["skin_lesion_idx"].as_u64().unwrap();
        let (d, t) = &stand_ins[&idx];
        let mut s = Telehealth::stand_in(idx, d, t).unwrap();
        by_record && plays_through(&mut s, &expected, true)
    });
}
