//! `ServeError`, the one error type of this crate, and how each reaches a client: an HTTP
//! status and an OpenEnv error code (`WSErrorCode` of openenv-core).

/// What can go wrong serving a client. Each variant names the OpenEnv code it is sent
/// with ([`ServeError::code`]) and the HTTP status ([`ServeError::status`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Occurs when a request's body or a WebSocket message is not JSON.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// Occurs when a request is JSON but not of the expected shape (a missing field, a
    /// wrong type, an unknown message type).
    #[error("{0}")]
    Invalid(String),
    /// Occurs when a session id names no live session (never opened, closed, or reaped
    /// after its idle timeout).
    #[error(
        "no session `{0}`: it was never opened, was closed, or was idle too long; reset to start one"
    )]
    UnknownSession(String),
    /// Occurs when a step or a state is asked of a session before its first reset.
    #[error("this session has no episode yet; send reset first")]
    NoEpisode,
    /// Occurs when a step is sent after the episode ended.
    #[error("the episode is over; reset to start another")]
    Over,
    /// Occurs when a second step reaches a session while its first is being played.
    #[error("a step of this session is still being played; wait for its answer")]
    Busy,
    /// Occurs when every session slot is taken.
    #[error("the server holds its maximum of {0} sessions; try again when one ends")]
    Full(usize),
    /// Occurs when the server has no file descriptor to spare for recording another
    /// episode (each recorded episode holds one while it is played).
    #[error(
        "the server is out of file descriptors to record another episode; try again when a \
         session ends"
    )]
    OutOfFiles,
    /// Occurs when a client sends more requests a second than its rate allows.
    #[error("too many requests from this client; slow down")]
    RateLimited,
    /// Occurs when a body or message is larger than the server accepts.
    #[error("the request is {size} bytes; this server takes at most {limit}")]
    TooLarge {
        /// The request's size (or a lower bound).
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Occurs when an episode cannot be started: an unknown suite or world, an index
    /// out of range, a scenario of another world, a bad world option or role.
    #[error("{0}")]
    Episode(String),
    /// Occurs when the server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// Occurs when the server cannot bind its address or serve.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl ServeError {
    /// The OpenEnv error code (`WSErrorCode`; `SESSION_ERROR` for session faults).
    pub fn code(&self) -> &'static str {
        match self {
            ServeError::Json(_) => "INVALID_JSON",
            ServeError::Invalid(_) | ServeError::TooLarge { .. } => "VALIDATION_ERROR",
            ServeError::UnknownSession(_) | ServeError::NoEpisode | ServeError::Busy => {
                "SESSION_ERROR"
            }
            ServeError::Over => "EPISODE_OVER",
            ServeError::Full(_) | ServeError::OutOfFiles => "CAPACITY_REACHED",
            ServeError::RateLimited => "RATE_LIMITED",
            ServeError::Episode(_) => "FACTORY_ERROR",
            ServeError::ShuttingDown | ServeError::Io(_) => "EXECUTION_ERROR",
        }
    }

    /// The HTTP status it is answered with.
    pub fn status(&self) -> u16 {
        match self {
            ServeError::Json(_) | ServeError::Invalid(_) | ServeError::Episode(_) => 400,
            ServeError::UnknownSession(_) => 404,
            ServeError::NoEpisode | ServeError::Over | ServeError::Busy => 409,
            ServeError::TooLarge { .. } => 413,
            ServeError::RateLimited => 429,
            ServeError::Full(_) | ServeError::OutOfFiles | ServeError::ShuttingDown => 503,
            ServeError::Io(_) => 500,
        }
    }

    /// The error as OpenEnv's error data: `{"message", "code"}`.
    pub fn data(&self) -> serde_json::Value {
        serde_json::json!({"message": self.to_string(), "code": self.code()})
    }
}
