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

    /// What identifies this backend's replies in the response cache beyond the request
    /// itself ([`crate::cache`]): its spec, and whatever else changes a reply (the server
    /// it talks to, settings it adds to every request). `None`: its replies are never
    /// cached. Default: the spec.
    fn cache_identity(&self) -> Option<String> {
        Some(self.name())
    }

    /// One attempt at one reply; no retries here.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}
