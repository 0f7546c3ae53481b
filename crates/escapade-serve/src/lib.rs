//! escapade's worlds over the wire: `escapade serve`, an environment server that speaks
//! the protocol of OpenEnv (openenv-core 0.3.0: its `EnvClient` over `/ws`, and `/reset`,
//! `/step`, `/state`, `/health`, `/schema` over HTTP), so reinforcement-learning trainers
//! and agents in any language play the escape rooms without Rust; and `escapade mcp`
//! ([`mcp`]), the worlds as tools of an MCP server for assistants and agent frameworks.
//!
//! Each session holds one episode, played by the same loop as `escapade play`
//! ([`escapade_run::remote`]); sessions are isolated, limited in number and reaped when
//! idle; with a record directory every episode is an ordinary run directory. It is not an
//! agent runner (that is `escapade run`) and holds no world rules. Start reading at
//! [`server::Server`]; the protocol is in [`openenv`] and `docs/serve.md`.
//!
//! ```
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let worlds: Vec<Box<dyn escapade_core::World>> = Vec::new();
//! let options = escapade_serve::ServeOptions { port: 0, ..Default::default() };
//! let server = escapade_serve::Server::bind(worlds, &options).await?;
//! // loopback, with a fresh token printed once (in the base URL, as the password)
//! assert!(server.addr().ip().is_loopback() && server.token().is_some());
//! assert!(server.base_url().starts_with("http://escapade:"));
//! server.run(async {}).await?; // stops at once
//! # Ok::<(), escapade_serve::ServeError>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod app; // the shared state and the reset / step / state operations on a session
pub mod error; // ServeError, with its HTTP status and OpenEnv error code
pub mod mcp; // `escapade mcp`: an MCP server (rmcp) whose tools list suites and play episodes
pub mod openenv; // the OpenEnv protocol: HTTP routes, the /ws session loop, admission
pub mod rate; // a token bucket per client address
pub mod schema; // the JSON Schemas of /schema
pub mod server; // bind, serve, reap, stop gracefully
pub mod session; // the session table: ids, maximum count, idle timeout, reaping
pub mod wire; // reset parameters, action forms, the observation JSON

pub use error::ServeError;
pub use rmcp;
pub use server::{ServeOptions, Server}; // the MCP SDK, for callers that read the answers' content
