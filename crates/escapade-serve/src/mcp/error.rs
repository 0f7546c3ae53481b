//! What can go wrong in a tool call, in words a client (and the model behind it) can
//! act on. Every variant reaches the client as an MCP tool error (`isError: true`) with
//! this message; none ends the connection.

use escapade_core::CoreError;
use escapade_run::RunError;

/// A tool call that could not be carried out.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// Occurs when a tool name is not one the server lists.
    #[error("there is no tool `{name}`; the tools are: {known}")]
    UnknownTool {
        /// The name the client sent.
        name: String,
        /// The server's tool names, comma-separated.
        known: String,
    },
    /// Occurs when the arguments do not fit the tool's input schema.
    #[error("bad arguments for `{tool}`: {why}")]
    BadArguments {
        /// The tool called.
        tool: String,
        /// What is wrong with them.
        why: String,
    },
    /// Occurs when an episode id names no episode in play (never started, ended, or
    /// closed after being idle too long).
    #[error(
        "there is no episode `{0}` (it was never started, was ended, or sat idle too long); \
         start one with start_episode"
    )]
    UnknownEpisode(String),
    /// Occurs when an action is sent to an episode that has ended.
    #[error("episode `{0}` is over; its outcome is in end_episode's answer, or start a new one")]
    EpisodeOver(String),
    /// Occurs when a second call reaches an episode while its last action is still being
    /// played.
    #[error("episode `{0}` is still playing the previous action; wait for its answer")]
    Busy(String),
    /// Occurs when a world's tool is called on an episode of another world.
    #[error("episode `{episode}` plays world `{world}`: use its tools ({tools})")]
    WrongWorld {
        /// The episode.
        episode: String,
        /// The episode's world.
        world: String,
        /// The tools of that world, comma-separated.
        tools: String,
    },
    /// Occurs when a role's tool is called while it is not that role's turn, or for a
    /// role the server's partner plays.
    #[error("{0}")]
    NotYourTurn(String),
    /// Occurs when the server holds as many episodes as it allows.
    #[error(
        "the server already holds {0} episodes in play; end some with end_episode (idle ones \
         are closed after a while)"
    )]
    TooManyEpisodes(usize),
    /// Occurs when a suite, scenario or world option is refused by the world.
    #[error("{0}")]
    Core(#[from] CoreError),
    /// Occurs when a suite cannot be found or built, or a recording cannot be written
    /// (the message names no path on the server: [`RunError::public`]).
    #[error("{}", .0.public())]
    Run(#[from] RunError),
    /// Occurs when a blocking task of the server failed (a bug, reported instead of a
    /// crash).
    #[error("internal error: {0}")]
    Internal(String),
}

impl ToolError {
    /// A [`ToolError::BadArguments`] for `tool`.
    pub fn bad(tool: &str, why: impl Into<String>) -> ToolError {
        ToolError::BadArguments {
            tool: tool.to_string(),
            why: why.into(),
        }
    }
}
