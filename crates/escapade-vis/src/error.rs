//! Errors of the vis world.

/// What can go wrong building or loading a room. A bad *agent* action is never an error:
/// it becomes feedback in the next observation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VisError {
    /// Occurs when a room file is not valid JSON or TOML for the room schema.
    #[error("bad room file: {0}")]
    Format(String),
    /// Occurs when a room refers to something that does not exist or repeats an id.
    #[error("invalid room: {0}")]
    Invalid(String),
    /// Occurs when the oracle finds no way out of a room.
    #[error("room {room} cannot be escaped")]
    Unsolvable {
        /// The room's id.
        room: String,
    },
    /// Occurs when the oracle's search reaches its bound on states before finding a way
    /// out: the room is too large to verify, which is not the same as unsolvable.
    #[error(
        "the oracle's search of room {room} stopped at its limit of {states} states before \
         finding a way out: the room may still be escapable, but it is too large to verify"
    )]
    SearchLimit {
        /// The room's id.
        room: String,
        /// The bound that was reached.
        states: usize,
    },
    /// Occurs when the generator is asked for a size it does not make.
    #[error("bad generator input: {0}")]
    Generation(String),
    /// Occurs when drawing a view fails.
    #[error("cannot render: {0}")]
    Render(String),
}

impl From<VisError> for escapade_core::CoreError {
    fn from(e: VisError) -> Self {
        match e {
            VisError::Format(m) | VisError::Invalid(m) => {
                escapade_core::CoreError::InvalidScenario(m)
            }
            e @ VisError::SearchLimit { .. } => escapade_core::CoreError::World(e.to_string()),
            other => escapade_core::CoreError::Generation(other.to_string()),
        }
    }
}
