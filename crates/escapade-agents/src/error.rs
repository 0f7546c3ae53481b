//! Errors of agent loops.

use escapade_llm::LlmError;

/// Why an agent could not produce a turn.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// Occurs when the model backend fails for good (after its retries).
    #[error("model backend failed: {0}")]
    Backend(#[from] LlmError),
    /// Occurs when a baseline agent reports an error.
    #[error("{0}")]
    Baseline(String),
    /// Occurs when agent options are invalid (unknown key, bad value).
    #[error("agent option: {0}")]
    Config(String),
}

impl AgentError {
    /// Whether the failure came from outside the episode (a backend that kept failing on
    /// transient errors), so that replaying the episode later may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            // retries ran out on transient failures (429, 5xx, timeouts, resets): the
            // provider may recover; a 4xx (bad request, context too long) never will
            AgentError::Backend(LlmError::RetriesExhausted { .. }) => true,
            AgentError::Backend(e) => e.is_transient(),
            _ => false,
        }
    }
}
