//! Model backends for escapade: one [`Client`] API over OpenAI-compatible servers,
//! Anthropic's Messages API, a scripted replayer with fault injection, and a local
//! llama.cpp server that escapade starts itself.
//!
//! This crate does network and process I/O so that worlds and agents need none. It is not
//! an agent: it sends one [`ChatRequest`] and returns one [`Completion`]. Start reading at
//! [`Client`]: it wraps a [`Backend`] with retries (exponential backoff with jitter that
//! honours `Retry-After`), an adaptive concurrency limit, optional RPM/TPM limits, a
//! request timeout, and token usage and cost from a [`PriceTable`]; optionally a
//! [`ResponseCache`] that answers a request it has seen, and a [`CostCap`] that refuses
//! one the run cannot afford.
//!
//! ```
//! # async fn demo() -> Result<(), escapade_llm::LlmError> {
//! use escapade_llm::{ChatRequest, ClientOptions, Message, Role};
//! let client = escapade_llm::open("scripted/tests/data/hello.jsonl", &ClientOptions::default()).await?;
//! let request = ChatRequest { messages: vec![Message::text(Role::User, "hi")], ..Default::default() };
//! let reply = client.chat(&request).await?;
//! println!("{} ({} tokens out)", reply.response.text, reply.usage.output);
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod anthropic; // Anthropic Messages API backend
pub mod backend; // the Backend trait
pub mod cache; // the response cache: replies kept in SQLite, keyed by the request
pub mod client; // Client: retries, limits, timeout, usage and cost around a Backend
pub mod error; // LlmError
pub mod http; // HTTP plumbing shared by the hosted backends: statuses, Retry-After
pub mod limits; // adaptive concurrency limit and RPM/TPM windows
pub mod local; // local llama.cpp server (xllamacpp) and its installer
pub mod openai; // OpenAI and OpenAI-compatible chat completions backend
pub mod options; // ClientOptions, LocalOptions
pub mod picture; // how pictures are sent: PNG or JPEG, OpenAI's detail
pub mod pictures; // the pictures a request may carry, and dropping the oldest
pub mod prices; // PriceTable: cost per million tokens
pub mod scripted; // scripted replayer with fault injection
pub mod spend; // CostCap: a run's spending cap, shared by its clients
pub mod tokens; // token counts worked out without a tokenizer (estimates, reasoning)
pub mod types; // ChatRequest, Message, Part, ChatResponse, Completion

pub use backend::Backend;
pub use cache::{CacheMode, ResponseCache};
pub use client::{Client, ClientStats, open, preflight};
pub use error::LlmError;
pub use options::{CacheUse, ClientOptions, LocalOptions};
pub use picture::{Detail, Encoding, Pictures};
pub use prices::{Price, PriceTable};
pub use spend::CostCap;
pub use types::{ChatRequest, ChatResponse, Completion, Message, Part, Role, TokenUsage, ToolCall};
