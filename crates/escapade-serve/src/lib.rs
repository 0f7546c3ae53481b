//! escapade's worlds over the wire.
#![deny(missing_docs)]

pub mod mcp; // `escapade mcp`: an MCP server (rmcp) whose tools play episodes
pub use rmcp; // the SDK, for callers that read the answers' content
