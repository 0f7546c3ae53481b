//! Errors of the tools world's API (bad agent actions are feedback, not errors).

/// Errors of the tools world.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsError {
    /// Occurs when a scenario file cannot be parsed or is not a tools scenario.
    #[error("invalid tools scenario: {0}")]
    InvalidScenario(String),
    /// Occurs when a scenario fails the final validation (A.6).
    #[error("scenario failed validation: {0}")]
    Validation(String),
    /// Occurs when the generator cannot produce a scenario for the inputs.
    #[error("{0}")]
    Generation(String),
    /// Occurs when a suite name is not one of this world's suites.
    #[error("unknown suite `{0}`")]
    UnknownSuite(String),
    /// Occurs when the Python sandbox cannot be set up.
    #[error("python sandbox: {0}")]
    Sandbox(String),
}

impl From<ToolsError> for escapade_core::CoreError {
    fn from(e: ToolsError) -> Self {
        match e {
            ToolsError::InvalidScenario(m) => escapade_core::CoreError::InvalidScenario(m),
            ToolsError::Generation(m) => escapade_core::CoreError::Generation(m),
            other => escapade_core::CoreError::World(other.to_string()),
        }
    }
}
