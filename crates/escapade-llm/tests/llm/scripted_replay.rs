//! The scripted backend: replay order, every fault kind, recovery through the client, and
//! a property test that random scripts never panic and always end every request.

use std::sync::Arc;
use std::time::Duration;

use escapade_llm::scripted::{Fault, ScriptLine, ScriptReply, ScriptToolCall, ScriptedBackend};
use escapade_llm::{Backend, Client, ClientOptions, LlmError};
use proptest::prelude::*;

use crate::support::ask;

fn fast_options(max_retries: u32) -> ClientOptions {
    ClientOptions {
        timeout: Duration::from_secs(5),
        max_retries,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(100),
        ..ClientOptions::default()
    }
}

fn client(lines: Vec<ScriptLine>, options: &ClientOptions) -> Client {
    let backend = ScriptedBackend::from_lines("scripted/test", lines).expect("non-empty script");
    Client::new(Arc::new(backend), options)
}

#[tokio::test]
async fn replays_in_order_and_wraps_around() {
    let backend = ScriptedBackend::from_str(
        "scripted/abc",
        "{\"text\": \"a\"}\n{\"text\": \"b\", \"reasoning\": \"why b\"}\n{\"tool_calls\": [{\"name\": \"f\", \"arguments\": \"{raw\"}, {\"name\": \"g\", \"arguments\": {\"x\": 1}, \"id\": \"c7\"}]}\n",
    )
    .expect("valid");
    let mut texts = Vec::new();
    for _ in 0..5 {
        let reply = backend.chat(&ask("hello there")).await.expect("reply");
        texts.push(if reply.text.is_empty() {
            format!("{} calls", reply.tool_calls.len())
        } else {
            reply.text.clone()
        });
        if reply.text == "b" {
            assert_eq!(reply.reasoning.as_deref(), Some("why b"));
        }
        if !reply.tool_calls.is_empty() {
            assert_eq!(reply.tool_calls[0].id, "call_0");
            assert_eq!(reply.tool_calls[0].arguments, "{raw");
            assert_eq!(reply.tool_calls[1].id, "c7");
            assert_eq!(reply.tool_calls[1].arguments, r#"{"x":1}"#);
            assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        }
    }
    assert_eq!(texts, ["a", "b", "2 calls", "a", "b"]);
    assert_eq!(backend.position(), 5);
}

#[tokio::test]
async fn usage_is_reported_or_estimated() {
    let backend = ScriptedBackend::from_lines(
        "scripted/u",
        vec![
            ScriptLine::Reply(ScriptReply {
                text: Some("x".into()),
                usage: Some(escapade_llm::scripted::ScriptUsage {
                    input: 10,
                    output: 5,
                    cached: 2,
                    reasoning: 0,
                }),
                ..ScriptReply::default()
            }),
            ScriptLine::text("twelve chars"),
        ],
    )
    .expect("valid");
    let reported = backend.chat(&ask("hi")).await.expect("reply");
    assert_eq!(
        (
            reported.usage.input,
            reported.usage.output,
            reported.usage.cached
        ),
        (10, 5, 2)
    );
    let estimated = backend.chat(&ask(&"y".repeat(400))).await.expect("reply");
    assert_eq!((estimated.usage.input, estimated.usage.output), (100, 3));
}

#[tokio::test]
async fn opens_a_script_file_by_spec() {
    let client = escapade_llm::open("scripted/tests/data/hello.jsonl", &ClientOptions::default())
        .await
        .expect("script opens");
    assert_eq!(client.name(), "scripted/tests/data/hello.jsonl");
    let reply = client.chat(&ask("hi")).await.expect("reply");
    assert_eq!(reply.response.text, "hello");
    assert_eq!(reply.usage.cost_usd, 0.0);

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, "{\"text\": \"ok\"}\n{\"fault\": \"gremlins\"}\n").expect("write");
    match escapade_llm::open(
        &format!("scripted/{}", path.display()),
        &ClientOptions::default(),
    )
    .await
    {
        Err(LlmError::Script {
            line: Some(2),
            problem,
            ..
        }) => assert!(problem.contains("gremlins"), "{problem}"),
        other => panic!("{other:?}"),
    }
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n").expect("write");
    assert!(matches!(
        escapade_llm::open(
            &format!("scripted/{}", empty.display()),
            &ClientOptions::default()
        )
        .await,
        Err(LlmError::Script { .. })
    ));
}

fn expected(fault: &Fault, error: &LlmError) -> bool {
    match (fault.clone(), error) {
        (Fault::RateLimit { retry_after_ms }, LlmError::RateLimited { retry_after }) => {
            *retry_after == retry_after_ms.map(Duration::from_millis)
        }
        (Fault::ServerError, LlmError::Http { status: 500, .. }) => true,
        (Fault::Http { status, .. }, LlmError::Http { status: s, .. }) => status == *s,
        (Fault::Timeout, LlmError::Timeout(_)) => true,
        (Fault::Reset, LlmError::Connection(_)) => true,
        (Fault::Malformed, LlmError::Malformed(_)) => true,
        (Fault::Empty, LlmError::Empty) => true,
        _ => false,
    }
}

const TRANSIENT: [Fault; 7] = [
    Fault::RateLimit {
        retry_after_ms: Some(50),
    },
    Fault::RateLimit {
        retry_after_ms: None,
    },
    Fault::ServerError,
    Fault::Http {
        status: 503,
        body: None,
    },
    Fault::Timeout,
    Fault::Reset,
    Fault::Malformed,
];

#[tokio::test(start_paused = true)]
async fn each_fault_maps_to_its_error_and_the_client_recovers() {
    for fault in TRANSIENT.into_iter().chain([Fault::Empty]) {
        // Straight from the backend: the matching error.
        let backend = ScriptedBackend::from_lines(
            "scripted/f",
            vec![ScriptLine::Fault(fault.clone()), ScriptLine::text("after")],
        )
        .expect("valid");
        let options = ClientOptions {
            timeout: Duration::from_secs(2),
            ..fast_options(3)
        };
        let error =
            match tokio::time::timeout(Duration::from_secs(3), backend.chat(&ask("x"))).await {
                Ok(Err(error)) => error,
                Ok(Ok(reply)) => panic!("{fault:?} replied {reply:?}"),
                Err(_) => LlmError::Timeout(Duration::from_secs(3)),
            };
        assert!(expected(&fault, &error), "{fault:?} gave {error:?}");
        assert!(error.is_transient(), "{fault:?}");

        // Through the client: the retry takes the next line.
        let client = client(
            vec![ScriptLine::Fault(fault.clone()), ScriptLine::text("after")],
            &options,
        );
        let started = tokio::time::Instant::now();
        let reply = client.chat(&ask("x")).await.expect("recovers");
        assert_eq!(reply.response.text, "after");
        assert_eq!(reply.attempts, 2, "{fault:?}");
        if let Fault::RateLimit {
            retry_after_ms: Some(ms),
        } = fault.clone()
        {
            assert!(
                started.elapsed() >= Duration::from_millis(ms),
                "honours retry_after_ms"
            );
        }
        if fault == Fault::Timeout {
            assert!(
                started.elapsed() >= Duration::from_secs(2),
                "the client's timeout fired"
            );
        }
    }
}

#[tokio::test]
async fn permanent_faults_return_at_once() {
    let client = client(
        vec![
            ScriptLine::Fault(Fault::Http {
                status: 400,
                body: None,
            }),
            ScriptLine::text("never"),
        ],
        &fast_options(5),
    );
    assert!(matches!(
        client.chat(&ask("x")).await,
        Err(LlmError::Http { status: 400, .. })
    ));
    let stats = client.stats();
    assert_eq!((stats.attempts, stats.retries, stats.failures), (1, 0, 1));
    // The cursor moved on: the next request gets the reply.
    assert_eq!(
        client.chat(&ask("x")).await.expect("reply").response.text,
        "never"
    );
}

fn line_strategy(permanent: bool) -> impl Strategy<Value = ScriptLine> {
    let reply = (
        any::<bool>(),
        "[a-z ]{0,20}",
        0u64..30,
        proptest::option::of((0u64..500, 0u64..100)),
    )
        .prop_map(|(tool, text, delay_ms, usage)| {
            ScriptLine::Reply(ScriptReply {
                text: (!tool).then_some(text.clone()),
                tool_calls: if tool {
                    vec![ScriptToolCall {
                        name: "f".into(),
                        arguments: serde_json::Value::String(text),
                        id: None,
                    }]
                } else {
                    Vec::new()
                },
                usage: usage.map(|(input, output)| escapade_llm::scripted::ScriptUsage {
                    input,
                    output,
                    cached: 0,
                    reasoning: 0,
                }),
                delay_ms,
                ..ScriptReply::default()
            })
        });
    let transient = prop_oneof![
        proptest::option::of(0u64..200)
            .prop_map(|retry_after_ms| Fault::RateLimit { retry_after_ms }),
        Just(Fault::ServerError),
        (500u16..600).prop_map(|status| Fault::Http { status, body: None }),
        Just(Fault::Timeout),
        Just(Fault::Reset),
        Just(Fault::Malformed),
        Just(Fault::Empty),
    ];
    let fault = if permanent {
        prop_oneof![
            transient,
            (400u16..408).prop_map(|status| Fault::Http { status, body: None })
        ]
        .boxed()
    } else {
        transient.boxed()
    };
    prop_oneof![2 => reply, 1 => fault.prop_map(ScriptLine::Fault)]
}

fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// With at least one reply in the script and as many retries as lines, every request
    /// (made one after another) ends with a reply, and the totals add up.
    #[test]
    fn every_request_eventually_returns(
        mut lines in proptest::collection::vec(line_strategy(false), 0..12),
        reply_at in any::<proptest::sample::Index>(),
        requests in 1usize..8,
    ) {
        let at = reply_at.index(lines.len() + 1);
        lines.insert(at, ScriptLine::text("anchor"));
        let options = ClientOptions { timeout: Duration::from_secs(1), ..fast_options(lines.len() as u32) };
        let client = client(lines, &options);
        paused_runtime().block_on(async {
            for _ in 0..requests {
                let reply = client.chat(&ask("go")).await;
                prop_assert!(reply.is_ok(), "{reply:?}");
            }
            let stats = client.stats();
            prop_assert_eq!(stats.requests, requests as u64);
            prop_assert_eq!(stats.failures, 0);
            prop_assert_eq!(stats.attempts, requests as u64 + stats.retries);
            prop_assert_eq!(stats.in_flight, 0);
            Ok(())
        })?;
    }

    /// Any script, permanent faults included, with requests racing: nothing panics, every
    /// request returns, and nothing is left in flight.
    #[test]
    fn random_scripts_never_panic(
        lines in proptest::collection::vec(line_strategy(true), 1..12),
        requests in 1usize..10,
        concurrency in 1usize..4,
        max_retries in 0u32..4,
    ) {
        let options = ClientOptions { timeout: Duration::from_secs(1), concurrency, ..fast_options(max_retries) };
        let client = client(lines, &options);
        paused_runtime().block_on(async {
            let tasks: Vec<_> = (0..requests)
                .map(|_| {
                    let client = client.clone();
                    tokio::spawn(async move { client.chat(&ask("go")).await })
                })
                .collect();
            let mut ok = 0u64;
            for task in tasks {
                let result = task.await;
                prop_assert!(result.is_ok(), "a request panicked");
                if let Ok(Ok(_)) = result {
                    ok += 1;
                }
            }
            let stats = client.stats();
            prop_assert_eq!(stats.requests, requests as u64);
            prop_assert_eq!(stats.failures + ok, requests as u64);
            prop_assert_eq!(stats.in_flight, 0);
            prop_assert!(stats.concurrency_limit >= 1 && stats.concurrency_limit <= concurrency);
            Ok(())
        })?;
    }
}
