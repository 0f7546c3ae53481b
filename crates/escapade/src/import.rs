//! Converters of the original benchmarks' files into scenarios (`escapade import`).
//!
//! comma: the original's puzzle file is a JSON list of one-key objects,
//! `[{"SimpleWirePuzzle": {"n_wires": 4, "colors": [...], "notes": "..."}}, …]`. Each
//! entry becomes one scenario (`comma-import-<n>-<puzzle>`, `n` from 1 in file order,
//! seed 0) whose instance is the entry's fields without `notes` (the original's comments
//! to authors). An entry that is not such an object, names an unknown class, or holds an
//! instance the puzzle refuses is an `Err` of its own; the others still convert.
//!
//! This lives in the binary because the comma crate is being reworked at the time of
//! writing; it only calls `escapade_comma`'s public API and could move there as is.

use anyhow::{Context as _, Result, bail};
use escapade_comma::PuzzleKind;
use escapade_comma::world::CommaScenario;
use serde_json::Value;

/// The scenarios (JSON) of the original comma puzzle file `text`, one result per entry.
/// `Err` only when the file is not a JSON list.
pub fn comma(text: &str) -> Result<Vec<Result<String, String>>> {
    let value: Value = serde_json::from_str(text).context("not JSON")?;
    let Value::Array(entries) = value else {
        bail!("expected a JSON list of {{\"ClassName\": {{fields…}}}} entries");
    };
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, entry)| comma_entry(i + 1, entry))
        .collect())
}

/// One entry, numbered `n` from 1.
fn comma_entry(n: usize, entry: &Value) -> Result<String, String> {
    let known = || {
        PuzzleKind::ALL
            .iter()
            .map(|k| k.class())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (class, fields) = match entry {
        Value::Object(map) if map.len() == 1 => map.iter().next().expect("one key"),
        _ => {
            return Err(format!(
                "expected an object with one key, the puzzle class ({})",
                known()
            ));
        }
    };
    // the original's class names only: a short name (`wire`) is not a class
    let kind = PuzzleKind::ALL
        .into_iter()
        .find(|k| k.class() == class)
        .ok_or_else(|| format!("unknown puzzle class `{class}`; known: {}", known()))?;
    let Value::Object(fields) = fields else {
        return Err(format!("the fields of {class} must be an object"));
    };
    let mut instance = fields.clone();
    instance.remove("notes");
    let id = format!("comma-import-{n}-{}", kind.name());
    let scenario = CommaScenario::of(kind, 0, Value::Object(instance), id);
    let json = scenario.to_json();
    // the world's own check: the puzzle must accept the instance
    CommaScenario::from_json(&json).map_err(|e| format!("{class}: {e}"))?;
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_convert_one_by_one() {
        let text = r#"[
            {"SimpleWirePuzzle": {"notes": "n", "n_wires": 3, "colors": ["blue", "white", "black"]}},
            {"NoSuchPuzzle": {}},
            {"SimpleWirePuzzle": {"n_wires": 9}},
            [1, 2]
        ]"#;
        let out = comma(text).unwrap();
        assert_eq!(out.len(), 4);
        let first: Value = serde_json::from_str(out[0].as_ref().unwrap()).unwrap();
        assert_eq!(first["id"], "comma-import-1-wire");
        assert_eq!(first["difficulty"], 1);
        assert!(first["instance"].get("notes").is_none());
        let e = out[1].as_ref().unwrap_err();
        assert!(e.contains("unknown puzzle class `NoSuchPuzzle`"), "{e}");
        assert!(e.contains("SimpleWirePuzzle"), "{e}");
        assert!(
            out[2]
                .as_ref()
                .unwrap_err()
                .starts_with("SimpleWirePuzzle:")
        );
        assert!(out[3].is_err());
        assert!(comma("{}").is_err());
    }
}
