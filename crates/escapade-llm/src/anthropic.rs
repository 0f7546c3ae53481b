//! Anthropic's Messages API (`POST {base}/v1/messages`), for Claude models, whose wire
//! format differs from OpenAI's in ways agents should not have to know about.
//!
//! The mapping: system messages become the top-level `system`; images become base64
//! sources of their media type (OpenAI's `detail` has no counterpart and is not sent); our tool calls are `tool_use` blocks and our `Role::Tool` messages are
//! `tool_result` blocks in user messages (consecutive messages of one role are merged, as
//! the API requires alternation); `thinking` blocks become reasoning. Claude has no JSON
//! mode, so a `response_schema` becomes a forced tool named `respond` whose input JSON is
//! returned as the reply text.

use std::fmt;

use async_trait::async_trait;
use base64::Engine as _;
use serde_json::{Map, Value, json};

use crate::http;
use crate::picture::MediaType;
use crate::{
    Backend, ChatRequest, ChatResponse, LlmError, Message, Part, Role, TokenUsage, ToolCall,
};

/// The API version header sent with every request.
pub const API_VERSION: &str = "2023-06-01";

/// `max_tokens` when the request sets none (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// The forced tool that carries structured replies.
pub const RESPOND_TOOL: &str = "respond";

/// The smallest thinking budget the API takes.
pub const MIN_THINKING_BUDGET: u32 = 1024;

/// A Messages API endpoint.
#[derive(Clone)]
pub struct AnthropicBackend {
    name: String,
    model: String,
    base: String,
    key: String,
    http: reqwest::Client,
    /// Extended thinking's `budget_tokens` (`-A thinking_budget=N`), when on.
    thinking_budget: Option<u32>,
}

impl fmt::Debug for AnthropicBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key.
        f.debug_struct("AnthropicBackend")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("base", &self.base)
            .field("key", &"<redacted>")
            .field("thinking_budget", &self.thinking_budget)
            .finish()
    }
}

/// How a `response_schema` was put on the wire, so the reply can be read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structured {
    /// No schema: plain text replies.
    No,
    /// The schema is an object schema and is the `respond` tool's input schema.
    Object,
    /// The schema is not an object schema, so it is wrapped as property `value`.
    Wrapped,
}

impl AnthropicBackend {
    /// A backend named `name` (the spec) asking `base_url` for `model` with `api_key`.
    pub fn new(
        name: impl Into<String>,
        model: impl Into<String>,
        base_url: &str,
        api_key: String,
    ) -> Result<Self, LlmError> {
        let base = http::normalize_base_url(base_url)?;
        Ok(AnthropicBackend {
            http: http::http_client(&base)?,
            name: name.into(),
            model: model.into(),
            base,
            key: api_key,
            thinking_budget: None,
        })
    }

    /// Turns on extended thinking with `budget` tokens to think in (at least
    /// [`MIN_THINKING_BUDGET`]; see [`request_body_with`] for what else changes).
    pub fn with_thinking_budget(mut self, budget: Option<u32>) -> Result<Self, LlmError> {
        if let Some(b) = budget.filter(|b| *b < MIN_THINKING_BUDGET) {
            return Err(LlmError::Config(format!(
                "thinking_budget={b}: Anthropic takes at least {MIN_THINKING_BUDGET} tokens"
            )));
        }
        self.thinking_budget = budget;
        Ok(self)
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.base)
    }

    /// The JSON body sent for `request`, and how a structured reply will come back.
    pub fn request_body(&self, request: &ChatRequest) -> (Value, Structured) {
        request_body_with(&self.model, request, self.thinking_budget)
    }
}

#[async_trait]
impl Backend for AnthropicBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The spec, the server and the thinking budget.
    fn cache_identity(&self) -> Option<String> {
        Some(format!(
            "{} at {} thinking_budget={}",
            self.name,
            self.base,
            self.thinking_budget
                .map_or("-".to_string(), |b| b.to_string())
        ))
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let (body, structured) = self.request_body(request);
        let builder = self
            .http
            .post(self.endpoint())
            .header("x-api-key", &self.key)
            .header("anthropic-version", API_VERSION)
            .json(&body);
        let text = http::send(builder).await?;
        parse_response(&text, structured)
    }
}

fn image_block(media_type: MediaType, bytes: &[u8]) -> Value {
    json!({
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": media_type.mime(),
            "data": base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    })
}

/// Text and image blocks of some parts; empty texts are dropped (the API refuses them).
fn part_blocks(parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } if text.is_empty() => None,
            Part::Text { text } => Some(json!({ "type": "text", "text": text })),
            // the API has no `detail`: it is not sent
            Part::Image {
                media_type, bytes, ..
            } => Some(image_block(*media_type, bytes)),
        })
        .collect()
}

fn message_blocks(m: &Message) -> Vec<Value> {
    match m.role {
        Role::System | Role::User => part_blocks(&m.parts),
        Role::Assistant => {
            let mut blocks = part_blocks(&m.parts);
            for call in &m.tool_calls {
                // The API wants an object; anything else (malformed model output from
                // another provider) is replaced by an empty object.
                let input = serde_json::from_str::<Value>(&call.arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({}));
                blocks.push(json!({
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": input,
                }));
            }
            blocks
        }
        Role::Tool => {
            let mut result = Map::new();
            result.insert("type".into(), json!("tool_result"));
            result.insert(
                "tool_use_id".into(),
                json!(m.tool_call_id.clone().unwrap_or_default()),
            );
            let content = part_blocks(&m.parts);
            if !content.is_empty() {
                result.insert("content".into(), Value::Array(content));
            }
            vec![Value::Object(result)]
        }
    }
}

/// Our conversation as Anthropic `messages`, with the system text separately.
fn wire_messages(messages: &[Message]) -> (Option<String>, Vec<Value>) {
    let system: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(Message::joined_text)
        .filter(|t| !t.is_empty())
        .collect();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in messages.iter().filter(|m| m.role != Role::System) {
        let role = if m.role == Role::Assistant {
            "assistant"
        } else {
            "user"
        };
        let blocks = message_blocks(m);
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    if turns.first().is_some_and(|(role, _)| *role == "assistant") {
        turns.insert(0, ("user", Vec::new()));
    }
    let wire = turns
        .into_iter()
        .map(|(role, mut blocks)| {
            if blocks.is_empty() {
                blocks.push(json!({ "type": "text", "text": "(empty)" }));
            }
            json!({ "role": role, "content": blocks })
        })
        .collect();
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    (system, wire)
}

/// The `max_tokens` a request with output cap `max_tokens` sends: the cap, or
/// [`DEFAULT_MAX_TOKENS`] when it sets none (the API requires one), plus the thinking
/// budget when extended thinking is on (`max_tokens` must exceed it; the answer keeps
/// its room). `run.toml` records the same figure.
pub fn wire_max_tokens(max_tokens: Option<u32>, thinking: Option<u32>) -> u32 {
    max_tokens
        .unwrap_or(DEFAULT_MAX_TOKENS)
        .saturating_add(thinking.unwrap_or(0))
}

/// The body for `request` on `model`, and how a structured reply will come back.
pub fn request_body(model: &str, request: &ChatRequest) -> (Value, Structured) {
    request_body_with(model, request, None)
}

/// [`request_body`] with extended thinking when `thinking` gives its budget. The API's
/// rules for thinking then apply: `max_tokens` must exceed the budget (it becomes the
/// request's own cap plus the budget, so the answer keeps its room), no temperature may
/// be set, and a tool may not be forced (the `respond` tool is offered, not forced).
pub fn request_body_with(
    model: &str,
    request: &ChatRequest,
    thinking: Option<u32>,
) -> (Value, Structured) {
    let (system, messages) = wire_messages(&request.messages);
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert(
        "max_tokens".into(),
        json!(wire_max_tokens(request.max_tokens, thinking)),
    );
    if let Some(budget) = thinking {
        body.insert(
            "thinking".into(),
            json!({ "type": "enabled", "budget_tokens": budget }),
        );
    }
    if let Some(system) = system {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages));
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "input_schema": t.parameters,
            })
        })
        .collect();
    let mut structured = Structured::No;
    if let Some(schema) = &request.response_schema {
        let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
        let input_schema = if is_object {
            structured = Structured::Object;
            schema.clone()
        } else {
            structured = Structured::Wrapped;
            json!({ "type": "object", "properties": { "value": schema }, "required": ["value"] })
        };
        tools.push(json!({
            "name": RESPOND_TOOL,
            "description": "Give your reply in exactly this format.",
            "input_schema": input_schema,
        }));
        // With other tools present the model may call them instead; alone, it must reply.
        // Thinking allows no forced tool: then the model is only offered it.
        let choice = if thinking.is_some() {
            json!({ "type": "auto" })
        } else if request.tools.is_empty() {
            json!({ "type": "tool", "name": RESPOND_TOOL })
        } else {
            json!({ "type": "any" })
        };
        body.insert("tool_choice".into(), choice);
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = request.temperature.filter(|_| thinking.is_none()) {
        body.insert("temperature".into(), http::decimal(t));
    }
    if !request.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(request.stop));
    }
    (Value::Object(body), structured)
}

fn count(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

/// Reads a Messages API reply. With `structured` set, a `respond` tool call becomes the
/// reply text (its input as JSON) instead of a tool call.
pub fn parse_response(body: &str, structured: Structured) -> Result<ChatResponse, LlmError> {
    let v: Value = serde_json::from_str(body)
        .map_err(|e| LlmError::Malformed(format!("invalid JSON ({e}): {}", http::snippet(body))))?;
    let Some(root) = v.as_object() else {
        return Err(LlmError::Malformed(format!(
            "expected a JSON object: {}",
            http::snippet(body)
        )));
    };
    if root.get("type").and_then(Value::as_str) == Some("error") {
        return Err(LlmError::Malformed(format!(
            "the provider reported an error: {}",
            http::snippet(&root.get("error").unwrap_or(&Value::Null).to_string())
        )));
    }
    let blocks = match root.get("content") {
        Some(Value::Array(blocks)) => blocks,
        Some(Value::Null) | None => return Err(LlmError::Empty),
        Some(_) => {
            return Err(LlmError::Malformed(format!(
                "`content` is not an array: {}",
                http::snippet(body)
            )));
        }
    };
    let mut text = String::new();
    let mut reasoning: Vec<&str> = Vec::new();
    let mut thought = false;
    let mut tool_calls = Vec::new();
    for (n, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("thinking") => {
                thought = true;
                if let Some(t) = block.get("thinking").and_then(Value::as_str) {
                    reasoning.push(t);
                }
            }
            // thinking the safety system encrypted: billed, but not readable
            Some("redacted_thinking") => thought = true,
            Some("tool_use") => {
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                if structured != Structured::No && name == RESPOND_TOOL {
                    let value = match structured {
                        Structured::Wrapped => input.get("value").cloned().unwrap_or(input),
                        _ => input,
                    };
                    text = value.to_string();
                    continue;
                }
                tool_calls.push(ToolCall {
                    id: block
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .map_or_else(|| format!("call_{n}"), str::to_string),
                    name: name.to_string(),
                    arguments: input.to_string(),
                });
            }
            _ => {}
        }
    }
    let usage = root.get("usage").unwrap_or(&Value::Null);
    let cached = count(usage.get("cache_read_input_tokens"));
    let output = count(usage.get("output_tokens"));
    let reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n"));
    // Anthropic's output_tokens include the thinking but do not count it apart: what the
    // visible reply does not account for was thinking
    let visible = text.chars().count()
        + tool_calls
            .iter()
            .map(|c: &ToolCall| c.name.len() + c.arguments.len())
            .sum::<usize>();
    let thinking_tokens = if thought {
        crate::tokens::reasoning_tokens(
            output,
            visible,
            Some(reasoning.as_deref().unwrap_or("(redacted)")),
        )
    } else {
        0
    };
    let usage = TokenUsage {
        // Anthropic's input_tokens excludes cache reads and writes; ours includes them.
        input: count(usage.get("input_tokens"))
            + cached
            + count(usage.get("cache_creation_input_tokens")),
        output,
        cached,
        reasoning: thinking_tokens,
    };
    Ok(ChatResponse {
        text,
        reasoning,
        tool_calls,
        finish_reason: root.get("stop_reason").and_then(http::non_empty_str),
        usage,
        model: root
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JPEG goes as a JPEG source; OpenAI's `detail` has no counterpart here.
    #[test]
    fn pictures_keep_their_media_type_and_drop_the_detail() {
        let request = ChatRequest {
            messages: vec![Message {
                role: Role::User,
                parts: vec![Part::Image {
                    sha256: "s".into(),
                    media_type: MediaType::Jpeg,
                    detail: Some(crate::picture::Detail::Low),
                    bytes: std::sync::Arc::new(vec![1, 2, 3]),
                }],
                tool_calls: Vec::new(),
                tool_call_id: None,
            }],
            ..ChatRequest::default()
        };
        let (body, _) = request_body("claude", &request);
        assert_eq!(
            body["messages"][0]["content"][0],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AQID"}})
        );
        // the API requires max_tokens: a request without one gets the default
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert!(body.get("temperature").is_none() && body.get("seed").is_none());
    }

    #[test]
    fn respond_tool_becomes_text() {
        let body = r#"{"type":"message","model":"claude","stop_reason":"tool_use",
            "content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"t1","name":"respond","input":{"action":"look"}}],
            "usage":{"input_tokens":5,"output_tokens":7,"cache_read_input_tokens":100}}"#;
        let r = parse_response(body, Structured::Object).expect("parses");
        assert_eq!(r.text, r#"{"action":"look"}"#);
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.reasoning.as_deref(), Some("hmm"));
        assert_eq!(
            r.usage,
            TokenUsage {
                input: 105,
                output: 7,
                cached: 100,
                // 7 out, the visible reply's 17 characters about 5: thinking, the rest
                reasoning: 2,
            }
        );
        // Without a schema the same block is an ordinary tool call.
        let r = parse_response(body, Structured::No).expect("parses");
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].arguments, r#"{"action":"look"}"#);

        let wrapped = r#"{"content":[{"type":"tool_use","id":"t","name":"respond","input":{"value":"look"}}]}"#;
        let r = parse_response(wrapped, Structured::Wrapped).expect("parses");
        assert_eq!(r.text, r#""look""#);
    }

    #[test]
    fn thinking_changes_what_the_api_requires() {
        let request = ChatRequest {
            messages: vec![Message::text(Role::User, "hi")],
            response_schema: Some(json!({"type": "object"})),
            temperature: Some(0.5),
            max_tokens: Some(500),
            ..ChatRequest::default()
        };
        let (plain, _) = request_body("claude", &request);
        assert_eq!(plain["max_tokens"], 500);
        assert_eq!(plain["temperature"], 0.5);
        assert_eq!(plain["tool_choice"]["type"], "tool");
        assert!(plain.get("thinking").is_none());
        let (thinking, _) = request_body_with("claude", &request, Some(2048));
        assert_eq!(
            thinking["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        );
        assert_eq!(thinking["max_tokens"], 2548, "the answer keeps its 500");
        assert!(thinking.get("temperature").is_none());
        assert_eq!(thinking["tool_choice"]["type"], "auto");
        // the reply's thinking is kept as reasoning and counted in output
        let r = parse_response(
            r#"{"content":[{"type":"thinking","thinking":"first the door","signature":"s"},
                {"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"open door"}],
                "stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":40}}"#,
            Structured::No,
        )
        .expect("parses");
        assert_eq!(r.reasoning.as_deref(), Some("first the door"));
        assert_eq!((r.usage.output, r.usage.reasoning), (40, 37));
        assert!(r.truncated());
    }

    #[test]
    fn bad_replies() {
        assert!(matches!(
            parse_response("nope", Structured::No),
            Err(LlmError::Malformed(_))
        ));
        assert!(matches!(
            parse_response("{}", Structured::No),
            Err(LlmError::Empty)
        ));
        assert!(matches!(
            parse_response(r#"{"type":"error","error":{"type":"overloaded_error"}}"#, Structured::No),
            Err(LlmError::Malformed(m)) if m.contains("overloaded")
        ));
    }
}
