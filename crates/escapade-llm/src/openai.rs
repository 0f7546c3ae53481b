//! OpenAI chat completions, and every server that imitates them (vLLM, llama.cpp, Ollama,
//! OpenRouter), so one backend reaches most models.
//!
//! Requests follow OpenAI's documented shape. Replies are read leniently, because the
//! imitations differ in the details: unknown fields are ignored, `finish_reason` and
//! `usage` may be missing, `content` may be null, a string or an array of parts,
//! `reasoning_content` carries reasoning, tool call arguments may arrive as an object, and
//! tool call ids may be missing.

use std::fmt;

use async_trait::async_trait;
use base64::Engine as _;
use serde_json::{Map, Value, json};

use crate::http;
use crate::picture::MediaType;
use crate::{
    Backend, ChatRequest, ChatResponse, LlmError, Message, Part, Role, TokenUsage, ToolCall,
};

/// Which dialect of the API to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// api.openai.com: sends `max_completion_tokens` (required by reasoning models).
    OpenAi,
    /// Compatible servers: sends `max_tokens`, which they all understand.
    Compatible,
}

impl Flavor {
    /// The dialect `provider` speaks (`openai`, `openai-compatible`, and `local`, whose
    /// server imitates it), or `None` for a provider that is not OpenAI-shaped.
    pub fn of_provider(provider: &str) -> Option<Flavor> {
        match provider {
            "openai" => Some(Flavor::OpenAi),
            "openai-compatible" | "local" => Some(Flavor::Compatible),
            _ => None,
        }
    }

    /// The name the output cap goes by on the wire.
    pub fn max_tokens_field(self) -> &'static str {
        match self {
            Flavor::OpenAi => "max_completion_tokens",
            Flavor::Compatible => "max_tokens",
        }
    }
}

/// A chat completions endpoint (`POST {base}/chat/completions`).
#[derive(Clone)]
pub struct OpenAiBackend {
    name: String,
    model: String,
    base: String,
    key: Option<String>,
    flavor: Flavor,
    http: reqwest::Client,
    /// `reasoning_effort` sent with every request (`-A reasoning_effort=…`).
    reasoning_effort: Option<String>,
}

impl fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key.
        f.debug_struct("OpenAiBackend")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("base", &self.base)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("flavor", &self.flavor)
            .field("reasoning_effort", &self.reasoning_effort)
            .finish()
    }
}

impl OpenAiBackend {
    /// A backend named `name` (the spec) that asks `base_url` for `model`, sending `api_key`
    /// as a bearer token when given.
    pub fn new(
        name: impl Into<String>,
        model: impl Into<String>,
        base_url: &str,
        api_key: Option<String>,
        flavor: Flavor,
    ) -> Result<Self, LlmError> {
        let base = http::normalize_base_url(base_url)?;
        Ok(OpenAiBackend {
            http: http::http_client(&base)?,
            name: name.into(),
            model: model.into(),
            base,
            key: api_key,
            flavor,
            reasoning_effort: None,
        })
    }

    /// Sends `reasoning_effort` (`low`, `medium`, `high`, … as the model takes it) with
    /// every request: how long a reasoning model thinks before it answers.
    pub fn with_reasoning_effort(mut self, effort: Option<String>) -> Self {
        self.reasoning_effort = effort;
        self
    }

    /// The `reasoning_effort` sent with every request, if any.
    pub fn reasoning_effort(&self) -> Option<&str> {
        self.reasoning_effort.as_deref()
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base)
    }

    /// The model name sent in requests.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The JSON body sent for `request`.
    pub fn request_body(&self, request: &ChatRequest) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        body.insert(
            "messages".into(),
            Value::Array(wire_messages(&request.messages, &data_url)),
        );
        if !request.tools.is_empty() {
            body.insert("tools".into(), Value::Array(wire_tools(&request.tools)));
        }
        if let Some(schema) = &request.response_schema {
            body.insert(
                "response_format".into(),
                json!({
                    "type": "json_schema",
                    "json_schema": { "name": "action", "schema": schema, "strict": false }
                }),
            );
        }
        if let Some(t) = request.temperature {
            body.insert("temperature".into(), http::decimal(t));
        }
        if let Some(seed) = request.seed {
            body.insert("seed".into(), json!(seed));
        }
        if let Some(max) = request.max_tokens {
            body.insert(self.flavor.max_tokens_field().into(), json!(max));
        }
        if !request.stop.is_empty() {
            body.insert("stop".into(), json!(request.stop));
        }
        if let Some(effort) = &self.reasoning_effort {
            body.insert("reasoning_effort".into(), json!(effort));
        }
        Value::Object(body)
    }
}

#[async_trait]
impl Backend for OpenAiBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The spec, the server and the reasoning effort: another server may serve another
    /// model under the same name.
    fn cache_identity(&self) -> Option<String> {
        Some(format!(
            "{} at {} reasoning_effort={}",
            self.name,
            self.base,
            self.reasoning_effort.as_deref().unwrap_or("-")
        ))
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut builder = self
            .http
            .post(self.endpoint())
            .json(&self.request_body(request));
        if let Some(key) = &self.key {
            builder = builder.bearer_auth(key);
        }
        let body = http::send(builder).await?;
        parse_response(&body)
    }
}

/// A PNG as a data URL.
pub fn png_data_url(png: &[u8]) -> String {
    data_url(MediaType::Png, png)
}

/// Picture bytes of `media_type` as a data URL.
pub fn data_url(media_type: MediaType, bytes: &[u8]) -> String {
    format!(
        "data:{};base64,{}",
        media_type.mime(),
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Function schemas in OpenAI's shape (`{"type": "function", "function": {…}}`).
pub fn wire_tools(tools: &[escapade_core::ToolSchema]) -> Vec<Value> {
    tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                }
            })
        })
        .collect()
}

/// An assistant's function calls in OpenAI's shape (`{"id", "type": "function",
/// "function": {"name", "arguments"}}`).
pub fn wire_tool_calls(calls: &[ToolCall]) -> Value {
    calls
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "type": "function",
                "function": { "name": c.name, "arguments": c.arguments }
            })
        })
        .collect()
}

/// Gives the `image_url` of a picture's bytes: a data URL on the wire, a file's path in an
/// exported data set (`escapade export`).
pub type PictureUrl<'a> = dyn Fn(MediaType, &[u8]) -> String + 'a;

fn content(parts: &[Part], url: &PictureUrl<'_>) -> Value {
    let texts_only = parts.iter().all(|p| matches!(p, Part::Text { .. }));
    if texts_only {
        let texts: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                Part::Image { .. } => None,
            })
            .collect();
        return Value::String(texts.join("\n"));
    }
    Value::Array(
        parts
            .iter()
            .map(|p| match p {
                Part::Text { text } => json!({ "type": "text", "text": text }),
                Part::Image {
                    media_type,
                    detail,
                    bytes,
                    ..
                } => {
                    let mut image = json!({ "url": url(*media_type, bytes) });
                    if let Some(detail) = detail {
                        image["detail"] = json!(detail);
                    }
                    json!({ "type": "image_url", "image_url": image })
                }
            })
            .collect(),
    )
}

/// Our messages in OpenAI's shape, each picture's `image_url` made by `url`. Tool
/// messages may not carry images there, so images of a run of tool results follow it in
/// one user message.
pub fn wire_messages(messages: &[Message], url: &PictureUrl<'_>) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut tool_images: Vec<Part> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            Role::System | Role::User => {
                let role = if m.role == Role::System {
                    "system"
                } else {
                    "user"
                };
                out.push(json!({ "role": role, "content": content(&m.parts, url) }));
            }
            Role::Assistant => {
                let text = m.joined_text();
                let mut msg = Map::new();
                msg.insert("role".into(), json!("assistant"));
                if m.tool_calls.is_empty() || !text.is_empty() {
                    msg.insert("content".into(), json!(text));
                } else {
                    msg.insert("content".into(), Value::Null);
                }
                if !m.tool_calls.is_empty() {
                    msg.insert("tool_calls".into(), wire_tool_calls(&m.tool_calls));
                }
                out.push(Value::Object(msg));
            }
            Role::Tool => {
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.joined_text(),
                }));
                tool_images.extend(
                    m.parts
                        .iter()
                        .filter(|p| matches!(p, Part::Image { .. }))
                        .cloned(),
                );
                let run_ends = messages
                    .get(i + 1)
                    .is_none_or(|next| next.role != Role::Tool);
                if run_ends && !tool_images.is_empty() {
                    let mut parts = vec![Part::Text {
                        text: "Images returned by the tool calls above:".into(),
                    }];
                    parts.append(&mut tool_images);
                    out.push(json!({ "role": "user", "content": content(&parts, url) }));
                }
            }
        }
    }
    out
}

fn as_count(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f as u64)
        })
        .unwrap_or(0)
}

/// The text of a `content` field: a string, an array of parts (strings or objects with
/// `text`), or null.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// Reads a chat completions reply, leniently (see the module docs).
pub fn parse_response(body: &str) -> Result<ChatResponse, LlmError> {
    let v: Value = serde_json::from_str(body)
        .map_err(|e| LlmError::Malformed(format!("invalid JSON ({e}): {}", http::snippet(body))))?;
    let Some(root) = v.as_object() else {
        return Err(LlmError::Malformed(format!(
            "expected a JSON object: {}",
            http::snippet(body)
        )));
    };
    let choice = match root.get("choices") {
        Some(Value::Array(choices)) => choices.first(),
        None | Some(Value::Null) => None,
        Some(_) => {
            return Err(LlmError::Malformed(format!(
                "`choices` is not an array: {}",
                http::snippet(body)
            )));
        }
    };
    let Some(choice) = choice else {
        if let Some(error) = root.get("error") {
            return Err(LlmError::Malformed(format!(
                "the provider reported an error: {}",
                http::snippet(&error.to_string())
            )));
        }
        return Err(LlmError::Empty);
    };
    let message = choice
        .get("message")
        .or_else(|| choice.get("delta"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut text = content_text(message.get("content").unwrap_or(&Value::Null));
    if text.is_empty() {
        // Legacy completions shape.
        text = choice
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
    }
    let reasoning = message
        .get("reasoning_content")
        .and_then(http::non_empty_str)
        .or_else(|| message.get("reasoning").and_then(http::non_empty_str));
    let tool_calls = match message.get("tool_calls") {
        Some(Value::Array(calls)) => calls
            .iter()
            .enumerate()
            .map(|(n, call)| {
                let function = call.get("function").unwrap_or(&Value::Null);
                let arguments = match function.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    None | Some(Value::Null) => "{}".to_string(),
                    Some(other) => other.to_string(),
                };
                ToolCall {
                    id: call
                        .get("id")
                        .and_then(http::non_empty_str)
                        .unwrap_or_else(|| format!("call_{n}")),
                    name: function
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    arguments,
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    let usage = root.get("usage").unwrap_or(&Value::Null);
    let output = as_count(usage.get("completion_tokens").unwrap_or(&Value::Null));
    // OpenAI counts reasoning tokens; servers that return reasoning text without the
    // count (llama.cpp, vLLM) get an estimate from the text
    let reported = usage
        .get("completion_tokens_details")
        .and_then(|d| d.get("reasoning_tokens"))
        .map(as_count);
    let visible = text.chars().count()
        + tool_calls
            .iter()
            .map(|c| c.name.len() + c.arguments.chars().count())
            .sum::<usize>();
    let usage = TokenUsage {
        input: as_count(usage.get("prompt_tokens").unwrap_or(&Value::Null)),
        output,
        cached: as_count(
            usage
                .get("prompt_tokens_details")
                .and_then(|d| d.get("cached_tokens"))
                .unwrap_or(&Value::Null),
        ),
        reasoning: match reported {
            Some(n) if n > 0 || reasoning.is_none() => n.min(output),
            _ => crate::tokens::reasoning_tokens(output, visible, reasoning.as_deref()),
        },
    };
    Ok(ChatResponse {
        text,
        reasoning,
        tool_calls,
        finish_reason: choice.get("finish_reason").and_then(http::non_empty_str),
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

    #[test]
    fn lenient_parsing() {
        let r = parse_response(
            r#"{"id":"x","object":"chat.completion","model":"m","extra":{"a":1},
                "choices":[{"index":0,"finish_reason":"","message":{"role":"assistant","content":null,
                "reasoning_content":"think","tool_calls":[
                    {"type":"function","function":{"name":"open","arguments":{"door":1}}},
                    {"id":"","function":{"name":"look"}},
                    {"id":"abc","function":{"name":"go","arguments":"{\"to\":"}}]}}],
                "timings":{"x":1}}"#,
        )
        .expect("parses");
        assert_eq!(r.text, "");
        assert_eq!(r.reasoning.as_deref(), Some("think"));
        assert_eq!(r.finish_reason, None);
        assert_eq!(r.usage, TokenUsage::default());
        assert_eq!(r.model, "m");
        assert_eq!(r.tool_calls.len(), 3);
        assert_eq!(r.tool_calls[0].id, "call_0");
        assert_eq!(r.tool_calls[0].arguments, r#"{"door":1}"#);
        assert_eq!(r.tool_calls[1].id, "call_1");
        assert_eq!(r.tool_calls[1].arguments, "{}");
        assert_eq!(r.tool_calls[2].id, "abc");
        assert_eq!(r.tool_calls[2].arguments, r#"{"to":"#, "kept raw");

        let r = parse_response(
            r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}}"#,
        )
        .expect("parses");
        assert_eq!(r.text, "ab");
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            r.usage,
            TokenUsage {
                input: 10,
                output: 3,
                cached: 4,
                reasoning: 0,
            }
        );
    }

    /// VisEscape's original sends JPEG with `detail: "low"` to OpenAI models: a part's
    /// media type and detail reach the wire as given, and a PNG without detail as before.
    #[test]
    fn pictures_go_in_their_format_with_their_detail() {
        use crate::picture::Detail;
        let backend =
            OpenAiBackend::new("t/m", "m", "http://localhost:1/v1", None, Flavor::OpenAi).unwrap();
        let jpeg = Part::Image {
            sha256: "s".into(),
            media_type: MediaType::Jpeg,
            detail: Some(Detail::Low),
            bytes: std::sync::Arc::new(vec![1, 2, 3]),
        };
        let png = Part::png("t", std::sync::Arc::new(vec![1, 2, 3]));
        let request = ChatRequest {
            messages: vec![Message {
                role: Role::User,
                parts: vec![jpeg, png],
                tool_calls: Vec::new(),
                tool_call_id: None,
            }],
            ..ChatRequest::default()
        };
        let body = backend.request_body(&request);
        let content = &body["messages"][0]["content"];
        assert_eq!(
            content[0]["image_url"],
            json!({"url": "data:image/jpeg;base64,AQID", "detail": "low"})
        );
        assert_eq!(
            content[1]["image_url"],
            json!({"url": "data:image/png;base64,AQID"})
        );
        // nothing the request leaves unset is sent
        for key in [
            "temperature",
            "max_completion_tokens",
            "seed",
            "stop",
            "top_p",
        ] {
            assert!(body.get(key).is_none(), "{key}");
        }
    }

    /// `escapade export` writes a conversation as the wire does, but with its own picture
    /// URLs: the same messages and tools as the request body, only the URLs differ, and
    /// the pictures of tool results still follow them in one user message.
    #[test]
    fn exported_messages_are_the_bodys_with_their_own_picture_urls() {
        let backend =
            OpenAiBackend::new("t/m", "m", "http://localhost:1/v1", None, Flavor::OpenAi).unwrap();
        let picture = || Part::png("p", std::sync::Arc::new(vec![1, 2, 3]));
        let request = ChatRequest {
            messages: vec![
                Message::text(Role::System, "rules"),
                Message {
                    role: Role::User,
                    parts: vec![
                        Part::Text {
                            text: "look".into(),
                        },
                        picture(),
                    ],
                    tool_calls: Vec::new(),
                    tool_call_id: None,
                },
                Message {
                    role: Role::Assistant,
                    parts: Vec::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "open".into(),
                        arguments: "{}".into(),
                    }],
                    tool_call_id: None,
                },
                Message {
                    role: Role::Tool,
                    parts: vec![
                        Part::Text {
                            text: "done".into(),
                        },
                        picture(),
                    ],
                    tool_calls: Vec::new(),
                    tool_call_id: Some("c1".into()),
                },
            ],
            tools: vec![escapade_core::ToolSchema {
                name: "open".into(),
                description: "opens it".into(),
                parameters: json!({"type": "object"}),
            }],
            ..ChatRequest::default()
        };
        let body = backend.request_body(&request);
        let wired = wire_messages(&request.messages, &data_url);
        assert_eq!(Value::Array(wired), body["messages"]);
        assert_eq!(Value::Array(wire_tools(&request.tools)), body["tools"]);
        let named = |_: MediaType, bytes: &[u8]| format!("images/{}.png", bytes.len());
        let exported = Value::Array(wire_messages(&request.messages, &named));
        let text = exported.to_string();
        assert!(!text.contains("data:image"), "{text}");
        assert_eq!(
            exported[1]["content"][1]["image_url"]["url"],
            "images/3.png"
        );
        // the tool's picture follows the tool message in a user message
        assert_eq!(exported[3]["role"], "tool");
        assert_eq!(exported[4]["role"], "user");
        assert_eq!(
            exported[4]["content"][1]["image_url"]["url"],
            "images/3.png"
        );
    }

    #[test]
    fn reasoning_tokens_are_read_or_estimated_and_a_cut_reply_is_truncated() {
        // OpenAI: counted apart in completion_tokens_details, part of completion_tokens
        let r = parse_response(
            r#"{"choices":[{"message":{"content":""},"finish_reason":"length"}],
                "usage":{"prompt_tokens":10,"completion_tokens":512,
                         "completion_tokens_details":{"reasoning_tokens":512}}}"#,
        )
        .expect("parses");
        assert_eq!((r.usage.output, r.usage.reasoning), (512, 512));
        assert!(r.truncated(), "a reply cut at the limit");
        // a server that returns the thinking text but no count: estimated from it
        let r = parse_response(
            r#"{"choices":[{"message":{"content":"open door","reasoning_content":"the door is the only way out of here"},
                "finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":20}}"#,
        )
        .expect("parses");
        assert_eq!(r.usage.reasoning, 17, "20 out less 3 for `open door`");
        assert!(!r.truncated());
    }

    #[test]
    fn bad_replies() {
        assert!(matches!(
            parse_response("<html>"),
            Err(LlmError::Malformed(_))
        ));
        assert!(matches!(parse_response("[1]"), Err(LlmError::Malformed(_))));
        assert!(matches!(
            parse_response(r#"{"choices":[]}"#),
            Err(LlmError::Empty)
        ));
        assert!(matches!(parse_response("{}"), Err(LlmError::Empty)));
        assert!(matches!(
            parse_response(r#"{"error":{"message":"boom"}}"#),
            Err(LlmError::Malformed(m)) if m.contains("boom")
        ));
    }
}
