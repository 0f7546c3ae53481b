//! Errors of the craft world.
//!
//! One enum for the whole crate so callers can match on what went wrong; a bad *agent*
//! action is never an error here (the environment turns it into feedback).

/// What can go wrong building, importing or validating a craft scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CraftError {
    /// Occurs when a level, scene or scenario file is not valid JSON for its format.
    #[error("bad file: {0}")]
    Format(String),
    /// Occurs when a prop chain breaks a rule: a dangling reference, a cycle, a lock
    /// nothing opens, a prop nobody can reach, a repeated id.
    #[error("invalid prop chain: {0}")]
    InvalidChain(String),
    /// Occurs when a generator is asked for inputs it does not make (difficulty 0, a
    /// variant that needs a longer chain, an unknown variant name).
    #[error("bad generator input: {0}")]
    Input(String),
    /// Occurs when no attempt of the room generator produced a layout that passes its own
    /// checks (a bug in the generator if it ever happens).
    #[error("layout failed: {0}")]
    Layout(String),
    /// Occurs when a room index or an id given to a lookup does not exist.
    #[error("no such {what}: {name}")]
    Unknown {
        /// What kind of thing was asked for (room, prop).
        what: &'static str,
        /// The index or id given.
        name: String,
    },
    /// Occurs when drawing a texture with the 2D canvas fails.
    #[error("cannot render: {0}")]
    Render(#[from] escapade_render::RenderError),
}

impl From<CraftError> for escapade_core::CoreError {
    fn from(e: CraftError) -> Self {
        match e {
            CraftError::Format(m) => escapade_core::CoreError::InvalidScenario(m),
            CraftError::InvalidChain(m) => escapade_core::CoreError::InvalidScenario(m),
            other => escapade_core::CoreError::Generation(other.to_string()),
        }
    }
}
