//! A backend that replays canned replies and injects faults, so that agents, runners and
//! the retry logic can be tested and benchmarked without a network or a model.
//!
//! A script is JSON Lines; each non-blank line is either a reply or a fault:
//!
//! ```text
//! {"text": "open door", "reasoning": "it is closed", "usage": {"input": 10, "output": 5}, "delay_ms": 20}
//! {"tool_calls": [{"name": "open", "arguments": {"door": 1}}]}
//! {"fault": "rate_limit", "retry_after_ms": 50}
//! {"fault": "server_error"}        HTTP 500
//! {"fault": "http", "status": 400, "body": "…"} any other status (permanent for 4xx)
//! {"fault": "timeout"}             never answers; the client's timeout fires
//! {"fault": "reset"}               connection reset
//! {"fault": "malformed"}           unreadable reply
//! {"fault": "empty"}               no choices
//! ```
//!
//! One global cursor walks the lines for every caller and wraps around at the end. A
//! fault consumes its line and fails that attempt, so the retry takes the next line. A
//! reply without `usage` reports about one token per four characters of request and
//! reply. A `comment` field is allowed anywhere; other unknown fields are errors.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{Backend, ChatRequest, ChatResponse, LlmError, Part, TokenUsage, ToolCall};

/// How long a `timeout` fault hangs: far longer than any sensible client timeout.
pub const HANG: Duration = Duration::from_secs(24 * 60 * 60);

/// One scripted failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// HTTP 429, optionally with a `Retry-After` in milliseconds.
    RateLimit {
        /// The wait the "provider" asks for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
    /// HTTP 500.
    ServerError,
    /// Any HTTP status (4xx are permanent, 5xx transient).
    Http {
        /// The status code.
        status: u16,
        /// The error body (default `scripted HTTP <status>`), e.g. a provider's
        /// context-length message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
    },
    /// Never answers (sleeps for [`HANG`] on the tokio clock).
    Timeout,
    /// The connection is reset.
    Reset,
    /// The reply cannot be parsed.
    Malformed,
    /// The reply has no choices.
    Empty,
}

/// A scripted tool call; `arguments` may be a JSON value or a raw (even malformed) string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptToolCall {
    /// Function name.
    pub name: String,
    /// Arguments: a string is sent verbatim, anything else as its JSON text.
    #[serde(default)]
    pub arguments: serde_json::Value,
    /// Call id; `call_<n>` when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// Token counts of a scripted reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptUsage {
    /// Prompt tokens.
    #[serde(default)]
    pub input: u64,
    /// Completion tokens.
    #[serde(default)]
    pub output: u64,
    /// Cached prompt tokens.
    #[serde(default)]
    pub cached: u64,
    /// The part of `output` spent thinking.
    #[serde(default)]
    pub reasoning: u64,
}

/// A scripted reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptReply {
    /// Reply text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Separate reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Native tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptToolCall>,
    /// Reported usage; estimated from text lengths when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ScriptUsage>,
    /// Simulated latency in milliseconds (0: answer at once, without sleeping).
    #[serde(default)]
    pub delay_ms: u64,
    /// Reported finish reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Free text for the script's reader; ignored.
    #[serde(default, skip_serializing)]
    pub comment: Option<String>,
}

/// One line of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptLine {
    /// Answer with this reply.
    Reply(ScriptReply),
    /// Fail this attempt.
    Fault(Fault),
}

impl ScriptLine {
    /// A plain text reply.
    pub fn text(text: impl Into<String>) -> Self {
        ScriptLine::Reply(ScriptReply {
            text: Some(text.into()),
            ..ScriptReply::default()
        })
    }

    /// Parses one JSON line.
    pub fn parse(line: &str) -> Result<Self, String> {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
        let Some(object) = value.as_object() else {
            return Err("expected a JSON object".into());
        };
        if object.contains_key("fault") {
            let mut object = object.clone();
            object.remove("comment");
            return serde_json::from_value::<Fault>(serde_json::Value::Object(object))
                .map(ScriptLine::Fault)
                .map_err(|e| {
                    format!(
                        "{e} (faults: rate_limit, server_error, http, timeout, reset, malformed, empty)"
                    )
                });
        }
        let reply: ScriptReply = serde_json::from_value(value).map_err(|e| e.to_string())?;
        if reply.text.is_none() && reply.tool_calls.is_empty() {
            return Err("a reply needs `text` or `tool_calls` (or use `fault`)".into());
        }
        Ok(ScriptLine::Reply(reply))
    }
}

/// Replays a script (see the module docs). Cheap to share; one cursor for all callers.
#[derive(Debug)]
pub struct ScriptedBackend {
    name: String,
    lines: Arc<[ScriptLine]>,
    cursor: AtomicUsize,
}

impl ScriptedBackend {
    /// A backend named `name` (e.g. `scripted/test`) replaying `lines`; refuses an empty
    /// script.
    pub fn from_lines(name: impl Into<String>, lines: Vec<ScriptLine>) -> Result<Self, LlmError> {
        let name = name.into();
        if lines.is_empty() {
            return Err(LlmError::Script {
                script: name,
                line: None,
                problem: "the script has no lines".into(),
            });
        }
        Ok(ScriptedBackend {
            name,
            lines: lines.into(),
            cursor: AtomicUsize::new(0),
        })
    }

    /// Parses JSONL `text` (blank lines skipped); errors name the 1-based line.
    pub fn from_str(name: impl Into<String>, text: &str) -> Result<Self, LlmError> {
        let name = name.into();
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed = ScriptLine::parse(line).map_err(|e| LlmError::Script {
                script: name.clone(),
                line: Some(n + 1),
                problem: e.to_string(),
            })?;
            lines.push(parsed);
        }
        Self::from_lines(name, lines)
    }

    /// Reads the script at `path`; the backend is named `spec` (`scripted/<path>`).
    pub fn open(spec: &str, path: impl AsRef<Path>) -> Result<Self, LlmError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Script {
            script: path.display().to_string(),
            line: None,
            problem: format!("cannot read the file: {e}"),
        })?;
        Self::from_str(spec, &text)
    }

    /// Lines consumed so far (not wrapped).
    pub fn position(&self) -> usize {
        self.cursor.load(Ordering::Relaxed)
    }

    /// The script.
    pub fn lines(&self) -> &[ScriptLine] {
        &self.lines
    }
}

/// About one token per four characters, at least one ([`crate::tokens::text_tokens`]).
pub fn estimate_tokens(chars: usize) -> u64 {
    crate::tokens::text_tokens(chars)
}

fn request_chars(request: &ChatRequest) -> usize {
    request
        .messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .map(|p| match p {
            Part::Text { text } => text.chars().count(),
            // A small image costs a few hundred tokens on hosted models.
            Part::Image { .. } => 1000,
        })
        .sum()
}

fn reply(line: &ScriptReply, request: &ChatRequest, name: &str) -> ChatResponse {
    let tool_calls: Vec<ToolCall> = line
        .tool_calls
        .iter()
        .enumerate()
        .map(|(n, call)| ToolCall {
            id: call.id.clone().unwrap_or_else(|| format!("call_{n}")),
            name: call.name.clone(),
            arguments: match &call.arguments {
                serde_json::Value::String(raw) => raw.clone(),
                serde_json::Value::Null => "{}".into(),
                other => other.to_string(),
            },
        })
        .collect();
    let text = line.text.clone().unwrap_or_default();
    let usage = match line.usage {
        Some(u) => TokenUsage {
            input: u.input,
            output: u.output,
            cached: u.cached,
            reasoning: u.reasoning.min(u.output),
        },
        None => {
            let out_chars = text.chars().count()
                + tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.arguments.chars().count())
                    .sum::<usize>();
            // reasoning text is not counted: a script that tests reasoning tokens says
            // them in `usage`
            TokenUsage {
                input: estimate_tokens(request_chars(request)),
                output: estimate_tokens(out_chars),
                cached: 0,
                reasoning: 0,
            }
        }
    };
    let finish_reason = line.finish_reason.clone().or_else(|| {
        Some(
            if tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .to_string(),
        )
    });
    ChatResponse {
        text,
        reasoning: line.reasoning.clone(),
        tool_calls,
        finish_reason,
        usage,
        model: name.to_string(),
    }
}

#[async_trait]
impl Backend for ScriptedBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Never cached: a script answers by its position, not by the request, so a cached
    /// reply would skip its lines (and its faults).
    fn cache_identity(&self) -> Option<String> {
        None
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let index = self.cursor.fetch_add(1, Ordering::Relaxed) % self.lines.len();
        match &self.lines[index] {
            ScriptLine::Reply(line) => {
                if line.delay_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(line.delay_ms)).await;
                }
                Ok(reply(line, request, &self.name))
            }
            ScriptLine::Fault(fault) => Err(match fault.clone() {
                Fault::RateLimit { retry_after_ms } => LlmError::RateLimited {
                    retry_after: retry_after_ms.map(Duration::from_millis),
                },
                Fault::ServerError => LlmError::Http {
                    status: 500,
                    body: "scripted server error".into(),
                    retry_after: None,
                },
                Fault::Http { status, body } => LlmError::Http {
                    status,
                    body: body.unwrap_or_else(|| format!("scripted HTTP {status}")),
                    retry_after: None,
                },
                Fault::Timeout => {
                    tokio::time::sleep(HANG).await;
                    LlmError::Timeout(HANG)
                }
                Fault::Reset => LlmError::Connection("scripted connection reset".into()),
                Fault::Malformed => LlmError::Malformed("scripted malformed reply".into()),
                Fault::Empty => LlmError::Empty,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_replies_and_faults() {
        let backend = ScriptedBackend::from_str(
            "scripted/t",
            r#"{"text": "a", "usage": {"input": 1, "output": 2}, "delay_ms": 5}

{"tool_calls": [{"name": "f", "arguments": "{bad"}], "comment": "raw args"}
{"fault": "rate_limit", "retry_after_ms": 50}
{"fault": "http", "status": 404, "comment": "not found"}
{"fault": "empty"}"#,
        )
        .expect("valid script");
        assert_eq!(backend.lines().len(), 5);
        assert_eq!(
            backend.lines()[2],
            ScriptLine::Fault(Fault::RateLimit {
                retry_after_ms: Some(50)
            })
        );
        assert_eq!(
            backend.lines()[3],
            ScriptLine::Fault(Fault::Http {
                status: 404,
                body: None
            })
        );
    }

    #[test]
    fn invalid_scripts_name_the_line() {
        for (text, line) in [
            ("{\"text\": \"a\"}\n{\"nope\": 1}", "line 2"),
            ("{\"text\": \"a\"}\n\n{\"fault\": \"explode\"}", "line 3"),
            ("not json", "line 1"),
            ("{\"reasoning\": \"only\"}", "line 1"),
            ("[1, 2]", "line 1"),
        ] {
            match ScriptedBackend::from_str("scripted/t", text) {
                Err(e @ LlmError::Script { line: Some(_), .. }) => {
                    assert!(e.to_string().contains(line), "{e}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(
            ScriptedBackend::from_str("scripted/t", "\n  \n"),
            Err(LlmError::Script { .. })
        ));
        assert!(matches!(
            ScriptedBackend::open("scripted/missing", "/nonexistent/x.jsonl"),
            Err(LlmError::Script { .. })
        ));
    }
}
