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
    /// Occurs when the agent's code panicked while choosing an action (the message of
    /// the panic).
    #[error("panicked: {0}")]
    Panicked(String),
}

impl AgentError {
    /// Whether the failure came from outside the episode (a backend that kept failing on
    /// transient errors, or refused the account or model: 401, 402, 403, 404), so that
    /// replaying the episode later may succeed. A request the provider rejects as such
    /// (400, context too long) fails the same way again and is an episode result.
    pub fn is_retryable(&self) -> bool {
        match self {
            // retries ran out on transient failures (429, 5xx, timeouts, resets): the
            // provider may recover; a 4xx (bad request, context too long) never will
            AgentError::Backend(LlmError::RetriesExhausted { .. }) => true,
            // the run's cost cap, not the episode: `resume --max-cost` plays it again
            AgentError::Backend(LlmError::CostCap { .. }) => true,
            // the account or endpoint, not the episode: bad key, no credit, forbidden,
            // unknown model — fixable before a resume
            AgentError::Backend(LlmError::Http {
                status: 401..=404, ..
            }) => true,
            AgentError::Backend(e) => e.is_transient(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> AgentError {
        AgentError::Backend(LlmError::Http {
            status,
            body: String::new(),
            retry_after: None,
        })
    }

    #[test]
    fn account_problems_are_replayed_bad_requests_are_not() {
        for status in [401, 402, 403, 404, 500, 503] {
            assert!(http(status).is_retryable(), "{status}");
        }
        for status in [400, 413, 422] {
            assert!(!http(status).is_retryable(), "{status}");
        }
        assert!(!AgentError::Config("x".into()).is_retryable());
        let capped = AgentError::Backend(LlmError::CostCap {
            limit_usd: 1.0,
            spent_usd: 1.0,
            pending_usd: 0.1,
        });
        assert!(capped.is_retryable());
    }
}
