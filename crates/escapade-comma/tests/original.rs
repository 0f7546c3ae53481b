//! Differential test against the original COMMA code: for each of the original's 1000
//! evaluation instances, `original_answers.jsonl` (made by replaying the original's puzzle
//! modules) lists the actions its rules accept. Importing each instance here must give a
//! puzzle that accepts exactly those actions (state by state where the original drew its
//! screens at random).

use escapade_comma::puzzle::{PuzzleKind, import};
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

/// Deterministic puzzles: from the start, each listed action is correct in turn and the
/// puzzle ends solved with no mistake.
fn replay(kind: PuzzleKind) {
    let rows = rows(kind);
    assert_eq!(rows.len(), 100, "{} rows", kind.name());
    let mut disagreements = Vec::new();
    for row in &rows {
        let mut p = import(kind, &row["instance"], 0).unwrap();
        let mut ok = true;
        for a in row["correct_actions"].as_array().unwrap() {
            let a = a.as_str().unwrap();
            if !p.correct_actions().iter().any(|c| c == a) || p.act(a).mistake {
                ok = false;
                break;
            }
        }
        if !ok || !p.solved() {
            disagreements.push(row["index"].clone());
        }
    }
    assert!(
        disagreements.is_empty(),
        "{}: disagree on {disagreements:?}",
        kind.name()
    );
}

#[test]
fn wire_agrees_with_the_original() {
    replay(PuzzleKind::Wire);
}
