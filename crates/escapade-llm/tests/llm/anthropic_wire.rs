//! The Anthropic backend against a loopback server: system prompt, images, tool_use and
//! merged tool_result blocks, the forced `respond` tool, usage and overload retries.

use std::sync::Arc;
use std::time::Duration;

use escapade_core::ToolSchema;
use escapade_llm::client::open_with_env;
use escapade_llm::{ChatRequest, Client, ClientOptions, LlmError, Message, Part, Role, ToolCall};
use serde_json::json;

use crate::support::{MockServer, Reply, ask};

async fn client(server: &MockServer) -> Client {
    let options = ClientOptions {
        base_url: Some(server.url.clone()),
        backoff_base: Duration::from_millis(1),
        backoff_max: Duration::from_millis(5),
        max_retries: 2,
        ..ClientOptions::default()
    };
    let env = |var: &str| (var == "ANTHROPIC_API_KEY").then(|| "sk-ant-test".to_string());
    open_with_env("anthropic/claude-sonnet-4-5", &options, &env)
        .await
        .expect("opens")
}

fn text_reply(text: &str) -> serde_json::Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 2}
    })
}

fn tool_result(id: &str, text: &str) -> Message {
    Message {
        role: Role::Tool,
        parts: vec![Part::Text { text: text.into() }],
        tool_calls: Vec::new(),
        tool_call_id: Some(id.into()),
    }
}

#[tokio::test]
async fn request_mapping_merges_tool_results() {
    let server = MockServer::start(vec![Reply::ok(text_reply("done"))]).await;
    let client = client(&server).await;
    let request = ChatRequest {
        messages: vec![
            Message::text(Role::System, "rules"),
            Message {
                role: Role::User,
                parts: vec![
                    Part::Text { text: "see".into() },
                    Part::png("s", Arc::new(vec![1, 2, 3])),
                ],
                tool_calls: Vec::new(),
                tool_call_id: None,
            },
            Message {
                role: Role::Assistant,
                parts: vec![Part::Text {
                    text: "trying both".into(),
                }],
                tool_calls: vec![
                    ToolCall {
                        id: "tu_1".into(),
                        name: "open".into(),
                        arguments: r#"{"door":1}"#.into(),
                    },
                    ToolCall {
                        id: "tu_2".into(),
                        name: "look".into(),
                        arguments: "not json".into(),
                    },
                ],
                tool_call_id: None,
            },
            tool_result("tu_1", "opened"),
            tool_result("tu_2", "dark"),
            Message::text(Role::User, "what now?"),
        ],
        tools: vec![ToolSchema {
            name: "open".into(),
            description: "open a door".into(),
            parameters: json!({"type": "object", "properties": {"door": {"type": "integer"}}}),
        }],
        temperature: Some(0.7),
        stop: vec!["STOP".into()],
        ..ChatRequest::default()
    };
    let reply = client.chat(&request).await.expect("replies");
    assert_eq!(reply.response.text, "done");
    assert_eq!(reply.response.finish_reason.as_deref(), Some("end_turn"));

    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert!(r.header("authorization").is_none());
    let body = &r.body;
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["system"], "rules");
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(
        body["temperature"], 0.7,
        "the decimal given, not a widened f32"
    );
    assert_eq!(body["stop_sequences"], json!(["STOP"]));
    assert_eq!(
        body["tools"],
        json!([{"name": "open", "description": "open a door",
        "input_schema": {"type": "object", "properties": {"door": {"type": "integer"}}}}])
    );
    assert!(body.get("tool_choice").is_none());
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(
        messages.len(),
        3,
        "user, assistant, merged user: {messages:?}"
    );
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "text", "text": "trying both"})
    );
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "tu_1", "name": "open", "input": {"door": 1}})
    );
    assert_eq!(
        messages[1]["content"][2]["input"],
        json!({}),
        "malformed arguments become an empty object"
    );
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(
        messages[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "tu_1", "content": [{"type": "text", "text": "opened"}]},
            {"type": "tool_result", "tool_use_id": "tu_2", "content": [{"type": "text", "text": "dark"}]},
            {"type": "text", "text": "what now?"}
        ])
    );
}

#[tokio::test]
async fn response_mapping() {
    let server = MockServer::start(vec![Reply::ok(json!({
        "type": "message", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "thinking": "the door is locked", "signature": "sig"},
            {"type": "text", "text": "I will open it."},
            {"type": "tool_use", "id": "toolu_01", "name": "open", "input": {"door": 1}}
        ],
        "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50, "cache_creation_input_tokens": 0},
        "extra": "ignored"
    }))])
    .await;
    let reply = client(&server)
        .await
        .chat(&ask("go"))
        .await
        .expect("replies");
    let r = &reply.response;
    assert_eq!(r.text, "I will open it.");
    assert_eq!(r.reasoning.as_deref(), Some("the door is locked"));
    assert_eq!(
        r.tool_calls,
        vec![ToolCall {
            id: "toolu_01".into(),
            name: "open".into(),
            arguments: r#"{"door":1}"#.into()
        }]
    );
    assert_eq!(
        (reply.usage.input, reply.usage.output, reply.usage.cached),
        (150, 20, 50)
    );
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cached per million.
    let expected = (100.0 * 3.0 + 50.0 * 0.3 + 20.0 * 15.0) / 1e6;
    assert!(
        (reply.usage.cost_usd - expected).abs() < 1e-12,
        "{}",
        reply.usage.cost_usd
    );
}

#[tokio::test]
async fn response_schema_forces_the_respond_tool() {
    let server = MockServer::start(vec![Reply::ok(json!({
        "content": [{"type": "tool_use", "id": "t", "name": "respond", "input": {"action": "look"}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1}
    }))])
    .await;
    let schema = json!({"type": "object", "properties": {"action": {"enum": ["open door", "look"]}}, "required": ["action"]});
    let request = ChatRequest {
        response_schema: Some(schema.clone()),
        max_tokens: Some(50),
        ..ask("act")
    };
    let reply = client(&server).await.chat(&request).await.expect("replies");
    assert_eq!(reply.response.text, r#"{"action":"look"}"#);
    assert!(reply.response.tool_calls.is_empty());
    let body = &server.requests()[0].body;
    assert_eq!(body["max_tokens"], 50);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "respond"})
    );
    assert_eq!(body["tools"][0]["name"], "respond");
    assert_eq!(body["tools"][0]["input_schema"], schema);
}

#[tokio::test]
async fn overload_is_retried_and_rate_limits_honoured() {
    let server = MockServer::start(vec![
        Reply::status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error"}}"#,
        ),
        Reply::Http(429, vec![("retry-after", "0".into())], "{}".into()),
        Reply::ok(text_reply("hello")),
    ])
    .await;
    let client = client(&server).await;
    let reply = client.chat(&ask("go")).await.expect("recovers");
    assert_eq!(reply.response.text, "hello");
    assert_eq!(reply.attempts, 3);
    assert_eq!(client.stats().rate_limited, 1);

    let server = MockServer::start(vec![Reply::status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error"}}"#,
    )])
    .await;
    match crate::anthropic_wire::client(&server)
        .await
        .chat(&ask("go"))
        .await
    {
        Err(LlmError::Http {
            status: 401, body, ..
        }) => assert!(body.contains("authentication_error")),
        other => panic!("{other:?}"),
    }
}
