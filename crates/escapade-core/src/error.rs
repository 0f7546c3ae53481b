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

/// A world's own error behind a [`CoreError`]: shown by its message, and kept whole, so a
/// caller that knows the world can downcast it to the world's typed error
/// (`cause.downcast_ref::<VisError>()`) and act on its fields. Any error type converts
/// into one, and so do `String` and `&str` for a message alone.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors of worlds, scenarios and suites as seen through the core traits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// Occurs when a scenario file is not valid JSON for its world.
    #[error("invalid scenario: {0}")]
    InvalidScenario(Cause),
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
    Generation(Cause),
    /// Occurs when an environment is misused.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// Occurs when an agent cannot act (model error, exhausted script).
    #[error("agent error: {0}")]
    Agent(String),
    /// Occurs for any other world-specific failure.
    #[error("{0}")]
    World(Cause),
}

impl CoreError {
    /// [`CoreError::InvalidScenario`] of a world's error or a message.
    pub fn invalid_scenario(cause: impl Into<Cause>) -> CoreError {
        CoreError::InvalidScenario(cause.into())
    }

    /// [`CoreError::Generation`] of a world's error or a message.
    pub fn generation(cause: impl Into<Cause>) -> CoreError {
        CoreError::Generation(cause.into())
    }

    /// [`CoreError::World`] of a world's error or a message.
    pub fn world(cause: impl Into<Cause>) -> CoreError {
        CoreError::World(cause.into())
    }

    /// The world's own error inside, when it is of type `E` (see [`Cause`]).
    pub fn cause<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            CoreError::InvalidScenario(c) | CoreError::Generation(c) | CoreError::World(c) => {
                c.downcast_ref::<E>()
            }
            _ => None,
        }
    }
}

fn known_keys(known: &[String]) -> String {
    if known.is_empty() {
        "this world takes none".to_string()
    } else {
        format!("known: {}", known.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("lamp {lamp} is not wired")]
    struct Unwired {
        lamp: u32,
    }

    #[test]
    fn a_worlds_error_is_shown_by_its_message_and_kept_whole() {
        let e = CoreError::invalid_scenario(Unwired { lamp: 3 });
        assert_eq!(e.to_string(), "invalid scenario: lamp 3 is not wired");
        assert_eq!(e.cause::<Unwired>().map(|u| u.lamp), Some(3));
        assert!(e.cause::<std::io::Error>().is_none());
        // a message alone is a cause too, with nothing to downcast to
        let e = CoreError::generation("too few lamps");
        assert_eq!(e.to_string(), "generation failed: too few lamps");
        assert!(e.cause::<Unwired>().is_none());
        assert!(CoreError::Agent("x".into()).cause::<Unwired>().is_none());
    }
}
