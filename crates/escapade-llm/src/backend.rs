//! The one trait every provider implements, and how a backend spec string is opened.
//!
//! A [`Backend`] makes exactly one attempt per call and reports failures as typed
//! [`LlmError`]s; retries, rate limits and cost live in [`crate::Client`], so every
//! provider gets them the same way.

use async_trait::async_trait;

use crate::{ChatRequest, ChatResponse, LlmError};

/// One model provider. Implementations are cheap to share (`Arc<dyn Backend>`) and safe
/// to call from many tasks at once.
#[async_trait]
pub trait Backend: Send + Sync {
    /// `provider/model`, as the user named it.
    fn name(&self) -> String;

    /// One attempt at one reply; no retries here.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}
