//! The provider-neutral chat request and response.
//!
//! Agents build a [`ChatRequest`]; each backend translates it to its provider's wire format
//! and translates the reply back into a [`ChatResponse`]. Images travel as bytes (PNG, or
//! JPEG when the agent re-encoded them: [`crate::picture`]) and become data URLs (OpenAI)
//! or base64 sources (Anthropic) only at the wire.

use std::sync::Arc;

use escapade_core::ToolSchema;
use serde::{Deserialize, Serialize};

use crate::picture::{Detail, MediaType};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions (the world's system prompt).
    System,
    /// The environment speaking to the model (observations, feedback, parse errors).
    User,
    /// The model's earlier replies.
    Assistant,
    /// The result of a native tool call (`tool_call_id` names the call).
    Tool,
}

/// One piece of message content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A picture (bytes shared, never copied per request), in the format the agent's
    /// [`crate::picture::Pictures`] setting chose.
    Image {
        /// Lowercase hex SHA-256 of the PNG the world rendered (`media/<sha256>.png`),
        /// whatever the format sent.
        sha256: String,
        /// The format of `bytes`; PNG (the default) is left out of logs.
        #[serde(default, skip_serializing_if = "MediaType::is_png")]
        media_type: MediaType,
        /// OpenAI's `detail` for this picture, when one is sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Detail>,
        /// The bytes sent; not serialized (logs keep only the hash).
        #[serde(skip)]
        bytes: Arc<Vec<u8>>,
    },
}

/// A native function call made by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned call id (synthesized when the provider gives none).
    pub id: String,
    /// Function name.
    pub name: String,
    /// Arguments as raw JSON text, exactly as the model produced them (may be malformed).
    pub arguments: String,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Author.
    pub role: Role,
    /// Content parts, in order.
    pub parts: Vec<Part>,
    /// Calls the assistant made (assistant messages only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call this message answers (tool messages only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Part {
    /// A PNG as rendered, with no `detail` (the default format).
    pub fn png(sha256: impl Into<String>, png: Arc<Vec<u8>>) -> Part {
        Part::Image {
            sha256: sha256.into(),
            media_type: MediaType::Png,
            detail: None,
            bytes: png,
        }
    }
}

impl Message {
    /// A text-only message.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message {
            role,
            parts: vec![Part::Text { text: text.into() }],
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// All text parts joined by newlines.
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                Part::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// A request for one model reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation, system message first when there is one.
    pub messages: Vec<Message>,
    /// Functions the model may call (empty: no tool calling).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSchema>,
    /// When set, the reply must be JSON matching this schema (OpenAI `response_format`
    /// `json_schema`, llama.cpp grammar-constrained decoding; Anthropic: a forced tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<serde_json::Value>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Sampling seed, where the provider supports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Cap on output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
}

/// Token counts of one reply, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens (including reasoning tokens).
    pub output: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached: u64,
    /// The part of `output` spent thinking: as reported (OpenAI
    /// `completion_tokens_details.reasoning_tokens`), else estimated from the reasoning
    /// text the provider returned (see [`crate::tokens`]).
    #[serde(default)]
    pub reasoning: u64,
}

/// One model reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The reply's text (empty when the model only called tools).
    pub text: String,
    /// Reasoning the provider exposed separately (`reasoning_content`, thinking blocks).
    pub reasoning: Option<String>,
    /// Native function calls.
    pub tool_calls: Vec<ToolCall>,
    /// Why generation stopped, when the provider said (may be missing or empty).
    pub finish_reason: Option<String>,
    /// Token counts.
    pub usage: TokenUsage,
    /// The model name the provider reported.
    pub model: String,
}

impl ChatResponse {
    /// Whether the provider cut the reply at the output token limit: `finish_reason`
    /// `length` (OpenAI and the servers that imitate it), `stop_reason` `max_tokens`
    /// (Anthropic). A reasoning model that thought until the limit returns an empty or
    /// partial answer this way; it is a cut reply, not an unreadable one.
    pub fn truncated(&self) -> bool {
        matches!(self.finish_reason.as_deref(), Some("length" | "max_tokens"))
    }
}

impl Part {
    /// The bytes of a picture as sent (`None` for text).
    pub fn picture_bytes(&self) -> Option<&[u8]> {
        match self {
            Part::Image { bytes, .. } => Some(bytes.as_slice()),
            Part::Text { .. } => None,
        }
    }
}

/// A reply with what it cost, as returned by [`crate::Client::chat`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    /// The reply.
    pub response: ChatResponse,
    /// Usage, cost (from the price table) and latency summed over all attempts; a reply
    /// from the response cache counts one cache hit and costs nothing.
    pub usage: escapade_core::Usage,
    /// HTTP attempts made (1 when the first succeeded, 0 for a reply from the response
    /// cache).
    pub attempts: u32,
    /// Pictures of the request replaced by a placeholder to fit the provider's picture
    /// budget, or because the provider refused the request as too large (oldest first;
    /// see [`crate::pictures`]).
    pub pictures_dropped: u32,
}
