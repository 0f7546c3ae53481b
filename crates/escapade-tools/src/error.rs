//! Errors of the tools world's API (bad agent actions are feedback, not errors).

use crate::sandbox::SandboxError;

/// Errors of the tools world.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsError {
    /// Occurs when a scenario file cannot be parsed or is not a tools scenario.
    #[error("invalid tools scenario: {0}")]
    InvalidScenario(String),
    /// Occurs when a scenario fails the final validation (A.6).
    #[error("scenario `{scenario}` failed validation: {problem}")]
    Validation {
        /// The scenario's id.
        scenario: String,
        /// The first problem found.
        problem: String,
    },
    /// Occurs when the generator is asked for a node count it does not make.
    #[error(
        "difficulty must be a node count between {} and {}, got {given}",
        expected.start(),
        expected.end()
    )]
    Difficulty {
        /// The difficulty given.
        given: u32,
        /// The node counts the generator makes.
        expected: std::ops::RangeInclusive<u32>,
    },
    /// Occurs when every attempt of the generator failed for the inputs.
    #[error(
        "no valid scenario for difficulty {difficulty}, seed {seed} after {attempts} attempts: {last}"
    )]
    Generation {
        /// The difficulty asked for.
        difficulty: u32,
        /// The seed asked for.
        seed: u64,
        /// How many attempts were made.
        attempts: u32,
        /// Why the last attempt failed.
        last: String,
    },
    /// Occurs when the Python sandbox cannot be set up.
    #[error("python sandbox: {0}")]
    Sandbox(#[from] SandboxError),
}

impl From<ToolsError> for escapade_core::CoreError {
    fn from(e: ToolsError) -> Self {
        match e {
            ToolsError::InvalidScenario(m) => escapade_core::CoreError::invalid_scenario(m),
            e @ ToolsError::Validation { .. } => escapade_core::CoreError::invalid_scenario(e),
            e @ (ToolsError::Difficulty { .. } | ToolsError::Generation { .. }) => {
                escapade_core::CoreError::generation(e)
            }
            other => escapade_core::CoreError::world(other),
        }
    }
}
