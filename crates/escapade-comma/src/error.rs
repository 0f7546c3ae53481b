//! Errors of the comma world.

/// What can go wrong loading or making a puzzle. A bad *agent* action is never an error:
/// it becomes feedback (and, when the manual says so, a mistake).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommaError {
    /// Occurs when a puzzle file or instance does not fit the puzzle's schema.
    #[error("bad puzzle instance: {0}")]
    Format(String),
    /// Occurs when a puzzle name is not one of the ten.
    #[error("unknown puzzle `{name}`; known: {known}")]
    UnknownPuzzle {
        /// The name given.
        name: String,
        /// The known names.
        known: String,
    },
    /// Occurs when an instance is well formed but cannot be played (no solution).
    #[error("invalid puzzle: {0}")]
    Invalid(String),
}
