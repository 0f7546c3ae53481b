//! Agent loops for escapade: how a model plays any world through that world's interface.
//!
//! A world owns its interface (system prompt, observation text and images, parser,
//! function schemas); the [`LlmAgent`] here is generic over it: it keeps the conversation,
//! trims it by a [`History`] mode, sends it through an `escapade_llm::Client`, turns the
//! reply into an [`escapade_core::Action`] (text protocol, native tool calls, or JSON
//! constrained by a schema), and re-asks with the parser's message when the world rejects
//! a reply. VisEscape's BaseAgent and VisEscaper ([`Escaper`]) send one prompt per step
//! instead, built from memory. Either can see pictures as text ([`Socratic`]). No agent
//! steps an environment: the runner does, and calls [`AsyncAgent`]. Baselines (oracle,
//! random) are synchronous `escapade_core::Agent`s wrapped by [`Blocking`]. Start reading
//! at [`AsyncAgent`].
//!
//! ```
//! use escapade_agents::{History, LlmConfig};
//! let options = [("history".to_string(), "last:4".to_string())].into_iter().collect();
//! let config = LlmConfig::from_options("scripted/replies.jsonl", &options).unwrap();
//! assert_eq!(config.history, History::Last(4));
//! ```
#![deny(missing_docs)]

pub mod agent; // AsyncAgent, EpisodeStart, TurnInput, Blocking
pub mod config; // LlmConfig and the `-A key=value` options
pub mod error; // AgentError
pub mod format; // structured-output schemas and reading replies into actions
pub mod history; // History modes: full, last-K, key steps
pub mod llm; // LlmAgent: the generic model loop
mod record; // what a step row records of a request: count, SHA-256, messages
pub mod socratic; // pictures as text: the world's descriptions or a model's captions
pub mod team; // Team: one agent per role in worlds whose roles take turns
pub mod visescaper; // BaseAgent and VisEscaper: one prompt per step, memory, reasoning

pub use agent::{AsyncAgent, Blocking, EpisodeStart, TurnInput};
pub use config::{LlmConfig, MODEL_AGENTS, Protocol, RequestLog, Structured};
pub use error::AgentError;
pub use history::History;
pub use llm::LlmAgent;
pub use socratic::Socratic;
pub use team::Team;
pub use visescaper::{Escaper, EscaperConfig, EscaperKind};
