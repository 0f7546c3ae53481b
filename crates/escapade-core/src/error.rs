//! Errors of the core contracts.

/// Errors from misusing an environment (never from a bad agent action).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvError {
    /// Occurs when `step` is called before `reset`.
    #[error("step called before reset")]
    NotReset,
    /// Occurs when `step` is called after the episode terminated or was truncated.
    #[error("the episode is over; call reset to start another")]
    EpisodeOver,
    /// Occurs when an agent fails to produce an action (its own error, passed through).
    #[error("agent failed: {0}")]
    Agent(String),
}

/// Errors of worlds, scenarios and suites as seen through the core traits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// Occurs when a scenario file is not valid JSON for its world.
    #[error("invalid scenario: {0}")]
    InvalidScenario(String),
    /// Occurs when a name (world, suite, agent kind) is not known.
    #[error("unknown {what} `{name}`; known: {known}")]
    Unknown {
        /// What kind of name (world, suite, agent).
        what: &'static str,
        /// The name given.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
    /// Occurs when a world option (`-W key=value`) names a key the world does not take.
    #[error("unknown world option `{key}`; {}", known_keys(known))]
    UnknownOption {
        /// The key given.
        key: String,
        /// The keys the world takes (empty: none).
        known: Vec<String>,
    },
    /// Occurs when a world option's value is not one its key takes.
    #[error("world option {key}={value}: expected {expected}")]
    BadOption {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes, in words (`one of on, off`, `16 to 8192`).
        expected: String,
    },
    /// Occurs when a generator cannot produce a valid scenario for the inputs.
    #[error("generation failed: {0}")]
    Generation(String),
    /// Occurs when an environment is misused.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// Occurs when an agent cannot act (model error, exhausted script).
    #[error("agent error: {0}")]
    Agent(String),
    /// Occurs for any other world-specific failure.
    #[error("{0}")]
    World(String),
}

fn known_keys(known: &[String]) -> String {
    if known.is_empty() {
        "this world takes none".to_string()
    } else {
        format!("known: {}", known.join(", "))
    }
}
