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

impl ScenarioHeader {
    /// Reads the header from a scenario's JSON text.
    pub fn parse(json: &str) -> Result<Self, crate::CoreError> {
        serde_json::from_str(json).map_err(|e| crate::CoreError::InvalidScenario(e.to_string()))
    }
}
