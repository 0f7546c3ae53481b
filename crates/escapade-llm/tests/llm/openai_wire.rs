//! The OpenAI backend against a loopback server: what goes on the wire, how lenient the
//! reading is, and how HTTP failures reach the client.

use std::sync::Arc;
use std::time::{Duration, Instant};

use escapade_core::ToolSchema;
use escapade_llm::client::open_with_env;
use escapade_llm::openai::{Flavor, OpenAiBackend};
use escapade_llm::{
    Backend, ChatRequest, Client, ClientOptions, LlmError, Message, Part, Role, ToolCall,
};
use serde_json::json;

use crate::support::{MockServer, Reply, ask, dead_port, openai_text};

fn options(base: &str) -> ClientOptions {
    ClientOptions {
        base_url: Some(format!("{base}/v1")),
        backoff_base: Duration::from_millis(1),
        backoff_max: Duration::from_millis(5),
        max_retries: 3,
        timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    }
}

async fn client(options: &ClientOptions) -> Client {
    let env = |var: &str| (var == "OPENAI_API_KEY").then(|| "sk-test-key".to_string());
    open_with_env("openai-compatible/test-model", options, &env)
        .await
        .expect("opens")
}

fn full_request() -> ChatRequest {
    let png = Arc::new(vec![0x89, b'P', b'N', b'G']);
    ChatRequest {
        messages: vec![
            Message::text(Role::System, "you are in a room"),
            Message {
                role: Role::User,
                parts: vec![
                    Part::Text {
                        text: "look:".into(),
                    },
                    Part::png("abc", png),
                ],
                tool_calls: Vec::new(),
                tool_call_id: None,
            },
            Message {
                role: Role::Assistant,
                parts: Vec::new(),
                tool_calls: vec![ToolCall {
                    id: "call_9".into(),
                    name: "open".into(),
                    arguments: r#"{"door":1}"#.into(),
                }],
                tool_call_id: None,
            },
            Message {
                role: Role::Tool,
                parts: vec![Part::Text {
                    text: "the door opens".into(),
                }],
                tool_calls: Vec::new(),
                tool_call_id: Some("call_9".into()),
            },
        ],
        tools: vec![ToolSchema {
            name: "open".into(),
            description: "open something".into(),
            parameters: json!({"type": "object", "properties": {"door": {"type": "integer"}}}),
        }],
        response_schema: Some(json!({"type": "object"})),
        temperature: Some(0.7),
        seed: Some(7),
        max_tokens: Some(64),
        stop: vec!["END".into()],
    }
}

#[tokio::test]
async fn request_shape() {
    let server = MockServer::start(vec![Reply::ok(openai_text("ok"))]).await;
    let client = client(&options(&server.url)).await;
    let reply = client.chat(&full_request()).await.expect("replies");
    assert_eq!(reply.response.text, "ok");
    assert_eq!(reply.attempts, 1);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-key"));
    let body = &r.body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "you are in a room"})
    );
    // Images become data URLs inside a parts array.
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({"type": "text", "text": "look:"})
    );
    assert_eq!(body["messages"][1]["content"][1]["type"], "image_url");
    assert_eq!(
        body["messages"][1]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw=="
    );
    assert_eq!(body["messages"][2]["content"], serde_json::Value::Null);
    assert_eq!(
        body["messages"][2]["tool_calls"][0],
        json!({"id": "call_9", "type": "function", "function": {"name": "open", "arguments": "{\"door\":1}"}})
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_9", "content": "the door opens"})
    );
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "open");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["properties"]["door"]["type"],
        "integer"
    );
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "action", "schema": {"type": "object"}, "strict": false}})
    );
    assert_eq!(
        body["temperature"], 0.7,
        "the decimal given, not a widened f32"
    );
    assert_eq!(body["seed"], 7);
    assert_eq!(body["max_tokens"], 64, "compatible servers get max_tokens");
    assert_eq!(body["stop"], json!(["END"]));
}

#[tokio::test]
async fn openai_flavor_sends_max_completion_tokens_and_minimal_bodies() {
    let server = MockServer::start(vec![Reply::ok(openai_text("ok"))]).await;
    let backend = OpenAiBackend::new(
        "openai/o3",
        "o3",
        &format!("{}/v1", server.url),
        Some("k".into()),
        Flavor::OpenAi,
    )
    .expect("backend");
    let mut request = ask("hi");
    request.max_tokens = Some(10);
    backend.chat(&request).await.expect("replies");
    let body = &server.requests()[0].body;
    assert_eq!(body["max_completion_tokens"], 10);
    assert!(body.get("max_tokens").is_none());
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "hi"}]),
        "text-only content is a plain string"
    );
    for absent in ["tools", "response_format", "temperature", "seed", "stop"] {
        assert!(body.get(absent).is_none(), "{absent} should be omitted");
    }
}

#[tokio::test]
async fn tool_images_follow_the_tool_results() {
    let server = MockServer::start(vec![Reply::ok(openai_text("ok"))]).await;
    let backend =
        OpenAiBackend::new("t/m", "m", &server.url, None, Flavor::Compatible).expect("backend");
    let tool = |id: &str, image: bool| Message {
        role: Role::Tool,
        parts: if image {
            vec![
                Part::Text { text: id.into() },
                Part::png("s", Arc::new(vec![1])),
            ]
        } else {
            vec![Part::Text { text: id.into() }]
        },
        tool_calls: Vec::new(),
        tool_call_id: Some(id.into()),
    };
    let request = ChatRequest {
        messages: vec![
            tool("a", true),
            tool("b", false),
            Message::text(Role::User, "next"),
        ],
        ..ChatRequest::default()
    };
    backend.chat(&request).await.expect("replies");
    let messages = server.requests()[0].body["messages"].clone();
    let roles: Vec<&str> = messages
        .as_array()
        .expect("array")
        .iter()
        .map(|m| m["role"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(roles, ["tool", "tool", "user", "user"]);
    assert_eq!(messages[2]["content"][1]["type"], "image_url");
    assert!(
        server.requests()[0].header("authorization").is_none(),
        "no key, no header"
    );
}

#[tokio::test]
async fn lenient_replies() {
    let server = MockServer::start(vec![Reply::ok(json!({
        "id": "x", "object": "chat.completion", "created": 1, "system_fingerprint": null,
        "choices": [{
            "index": 0, "finish_reason": "", "logprobs": null,
            "message": {
                "role": "assistant", "content": null, "refusal": null,
                "tool_calls": [{"type": "function", "function": {"name": "open", "arguments": {"door": 2}}}]
            }
        }],
        "timings": {"prompt_n": 3}
    }))])
    .await;
    let client = client(&options(&server.url)).await;
    let reply = client.chat(&ask("go")).await.expect("lenient");
    let r = &reply.response;
    assert_eq!(r.text, "");
    assert_eq!(r.finish_reason, None);
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].id, "call_0");
    assert_eq!(r.tool_calls[0].arguments, r#"{"door":2}"#);
    assert_eq!(
        (reply.usage.input, reply.usage.output, reply.usage.cached),
        (0, 0, 0)
    );
}

#[tokio::test]
async fn usage_and_cost() {
    let server = MockServer::start(vec![Reply::ok(json!({
        "model": "test-model",
        "choices": [{"message": {"content": "hi", "reasoning_content": "thinking"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1_000_000, "completion_tokens": 1_000_000, "prompt_tokens_details": {"cached_tokens": 500_000}}
    }))])
    .await;
    let mut options = options(&server.url);
    options
        .prices
        .insert("test-model", escapade_llm::Price::new(2.0, 10.0, 1.0));
    let client = client(&options).await;
    let reply = client.chat(&ask("go")).await.expect("replies");
    assert_eq!(reply.response.reasoning.as_deref(), Some("thinking"));
    assert_eq!(reply.usage.cached, 500_000);
    assert!(
        (reply.usage.cost_usd - (1.0 + 0.5 + 10.0)).abs() < 1e-9,
        "{}",
        reply.usage.cost_usd
    );
    let stats = client.stats();
    assert_eq!(stats.input_tokens, 1_000_000);
    assert!((stats.cost_usd - reply.usage.cost_usd).abs() < 1e-12);
}

#[tokio::test]
async fn rate_limit_with_retry_after_then_success() {
    let server = MockServer::start(vec![
        Reply::Http(
            429,
            vec![("retry-after", "1".into())],
            r#"{"error":{"message":"slow down"}}"#.into(),
        ),
        Reply::ok(openai_text("finally")),
    ])
    .await;
    let options = ClientOptions {
        concurrency: 8,
        ..options(&server.url)
    };
    let client = client(&options).await;
    let started = Instant::now();
    let reply = client.chat(&ask("go")).await.expect("recovers");
    let waited = started.elapsed();
    assert_eq!(reply.response.text, "finally");
    assert_eq!(reply.attempts, 2);
    assert!(waited >= Duration::from_secs(1), "waited only {waited:?}");
    assert!(
        reply.usage.latency_ms >= 1000,
        "latency includes the backoff"
    );
    let stats = client.stats();
    assert_eq!(
        (
            stats.requests,
            stats.attempts,
            stats.retries,
            stats.rate_limited
        ),
        (1, 2, 1, 1)
    );
    // Halved on the 429, then grown by one on the success.
    assert_eq!(stats.concurrency_limit, 5);
}

#[tokio::test]
async fn server_errors_until_exhausted() {
    let server = MockServer::start(vec![Reply::status(500, "internal")]).await;
    let client = client(&options(&server.url)).await;
    match client.chat(&ask("go")).await {
        Err(LlmError::RetriesExhausted { attempts, last }) => {
            assert_eq!(attempts, 4);
            assert!(
                matches!(*last, LlmError::Http { status: 500, ref body, .. } if body == "internal"),
                "{last:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 4);
    assert_eq!(client.stats().failures, 1);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let long_body = format!("{{\"error\":\"{}\"}}", "x".repeat(3000));
    let server = MockServer::start(vec![Reply::status(400, &long_body)]).await;
    let client = client(&options(&server.url)).await;
    match client.chat(&ask("go")).await {
        Err(LlmError::Http {
            status: 400, body, ..
        }) => assert!(body.chars().count() <= 501),
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn timeout_fires() {
    let server = MockServer::start(vec![Reply::Hang]).await;
    let options = ClientOptions {
        timeout: Duration::from_millis(200),
        max_retries: 1,
        ..options(&server.url)
    };
    let client = client(&options).await;
    match client.chat(&ask("go")).await {
        Err(LlmError::RetriesExhausted { attempts: 2, last }) => {
            assert!(
                matches!(*last, LlmError::Timeout(d) if d == Duration::from_millis(200)),
                "{last:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn transport_failures() {
    let refused = OpenAiBackend::new(
        "t/m",
        "m",
        &format!("http://127.0.0.1:{}/v1", dead_port()),
        None,
        Flavor::Compatible,
    )
    .expect("backend");
    assert!(matches!(
        refused.chat(&ask("go")).await,
        Err(LlmError::Connection(_))
    ));

    let server = MockServer::start(vec![
        Reply::Close,
        Reply::status(200, "<html>not json</html>"),
        Reply::ok(json!({"choices": []})),
        Reply::ok(openai_text("ok")),
    ])
    .await;
    let backend =
        OpenAiBackend::new("t/m", "m", &server.url, None, Flavor::Compatible).expect("backend");
    assert!(matches!(
        backend.chat(&ask("a")).await,
        Err(LlmError::Connection(_))
    ));
    assert!(matches!(
        backend.chat(&ask("b")).await,
        Err(LlmError::Malformed(_))
    ));
    assert!(matches!(
        backend.chat(&ask("c")).await,
        Err(LlmError::Empty)
    ));
    assert_eq!(backend.chat(&ask("d")).await.expect("ok").text, "ok");

    // Through a client, all of these are transient and retried until the reply.
    let server = MockServer::start(vec![
        Reply::Close,
        Reply::status(200, "garbage"),
        Reply::ok(json!({"choices": []})),
        Reply::status(503, "busy"),
        Reply::ok(openai_text("ok")),
    ])
    .await;
    let client = client(&ClientOptions {
        max_retries: 4,
        ..options(&server.url)
    })
    .await;
    let reply = client.chat(&ask("go")).await.expect("recovers");
    assert_eq!(reply.attempts, 5);
}
