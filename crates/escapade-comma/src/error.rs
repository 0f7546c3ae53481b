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
    /// Occurs when an instance has a field its puzzle does not read (a misspelt name).
    #[error("{puzzle}: unknown field `{field}`; the puzzle reads {}", known.join(", "))]
    UnknownField {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// The field given.
        field: String,
        /// The fields the puzzle reads.
        known: &'static [&'static str],
    },
    /// Occurs when a numeric field of an instance is not a whole number in its range.
    #[error("{puzzle}: `{field}` must be a whole number from {} to {}, not {value}", expected.start(), expected.end())]
    OutOfRange {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// The field.
        field: &'static str,
        /// The value given, as JSON text.
        value: String,
        /// The range the field must be in.
        expected: std::ops::RangeInclusive<u64>,
    },
    /// Occurs when an instance is well formed but cannot be played (no solution).
    #[error("invalid puzzle: {0}")]
    Invalid(String),
}
