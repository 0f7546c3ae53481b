//! The header every scenario file starts with.
//!
//! Each world defines its own scenario type; all of them carry these fields at the top
//! level so that tools (the runner, `escapade show`) can route a file to its world and
//! name it without knowing the world's schema.

use serde::{Deserialize, Serialize};

/// Fields common to every world's scenario JSON (other fields are ignored here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioHeader {
    /// Which world plays it: `tools`, `vis`, `comma`, `craft`.
    pub world: String,
    /// Stable id, unique within a suite (e.g. `tools-d10-s7`).
    pub id: String,
    /// Difficulty tier (tools: node count).
    pub difficulty: u32,
    /// The seed it was generated from (0 for hand-authored or imported scenarios).
    pub seed: u64,
}

/// A scenario as pretty JSON, the one policy every world follows. Scenarios are plain
/// data (structs, strings, numbers, vectors, string-keyed maps), on which serde_json cannot
/// fail; a failure would be a bug in a scenario type, so it panics naming the type
/// instead of writing an empty file.
pub fn to_json<T: Serialize>(scenario: &T) -> String {
    serde_json::to_string_pretty(scenario)
        .unwrap_or_else(|e| panic!("a {} did not serialize: {e}", std::any::type_name::<T>()))
}

/// The longest scenario id, in bytes. Ids name files in run directories
/// (`trajectories/<id>/<epoch>.jsonl`), and file systems refuse names over 255 bytes.
pub const MAX_ID_BYTES: usize = 128;

impl ScenarioHeader {
    /// Reads the header from a scenario's JSON text. The id must be 1 to
    /// [`MAX_ID_BYTES`] bytes without control characters, so that a run can name its
    /// files after it.
    pub fn parse(json: &str) -> Result<Self, crate::CoreError> {
        let header: ScenarioHeader =
            serde_json::from_str(json).map_err(crate::CoreError::invalid_scenario)?;
        let bad = |why: String| Err(crate::CoreError::invalid_scenario(why));
        if header.id.trim().is_empty() {
            return bad("the scenario id is empty".into());
        }
        if header.id.len() > MAX_ID_BYTES {
            let start: String = header.id.chars().take(24).collect();
            return bad(format!(
                "the scenario id `{start}…` is {} bytes long (at most {MAX_ID_BYTES})",
                header.id.len()
            ));
        }
        if header.id.chars().any(char::is_control) {
            return bad(format!(
                "the scenario id {:?} holds a control character",
                header.id
            ));
        }
        Ok(header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(id: &str) -> Result<ScenarioHeader, crate::CoreError> {
        let json = serde_json::json!({"world": "w", "id": id, "difficulty": 1, "seed": 0});
        ScenarioHeader::parse(&json.to_string())
    }

    #[test]
    fn ids_must_fit_a_file_name() {
        assert_eq!(header("tools-d10-s7").unwrap().id, "tools-d10-s7");
        let long = "x".repeat(300);
        let e = header(&long).unwrap_err().to_string();
        assert!(
            e.contains("300 bytes long (at most 128)") && e.len() < 120,
            "{e}"
        );
        assert!(header("").is_err());
        assert!(header("a\nb").is_err());
        assert!(header(&"é".repeat(64)).is_ok(), "128 bytes is the limit");
        assert!(header(&"é".repeat(65)).is_err());
    }
}
