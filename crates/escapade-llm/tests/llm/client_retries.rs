//! The client's own behaviour over in-process backends: concurrency limit and AIMD, RPM
//! and TPM windows, backoff bounds, and shared totals.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use escapade_llm::scripted::{Fault, ScriptLine, ScriptReply, ScriptUsage, ScriptedBackend};
use escapade_llm::{Backend, ChatRequest, ChatResponse, Client, ClientOptions, LlmError};
use tokio::time::Instant;

use crate::support::ask;

/// Counts how many calls run at once.
struct Gauge {
    now: AtomicUsize,
    peak: AtomicUsize,
}

#[async_trait]
impl Backend for Gauge {
    fn name(&self) -> String {
        "test/gauge".into()
    }

    async fn chat(&self, _request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.now.fetch_sub(1, Ordering::SeqCst);
        Ok(ChatResponse {
            text: "ok".into(),
            ..ChatResponse::default()
        })
    }
}

#[tokio::test(start_paused = true)]
async fn concurrency_is_capped() {
    let gauge = Arc::new(Gauge {
        now: AtomicUsize::new(0),
        peak: AtomicUsize::new(0),
    });
    let options = ClientOptions {
        concurrency: 3,
        ..ClientOptions::default()
    };
    let client = Client::new(gauge.clone(), &options);
    assert_eq!(client.name(), "test/gauge");
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.chat(&ask("x")).await })
        })
        .collect();
    for task in tasks {
        task.await.expect("no panic").expect("ok");
    }
    assert_eq!(gauge.peak.load(Ordering::SeqCst), 3);
    let stats = client.stats();
    assert_eq!(
        (stats.requests, stats.in_flight, stats.concurrency_limit),
        (12, 0, 3)
    );
}

#[tokio::test(start_paused = true)]
async fn rate_limits_halve_the_limit_and_successes_restore_it() {
    let mut lines = vec![
        ScriptLine::Fault(Fault::RateLimit {
            retry_after_ms: None
        });
        3
    ];
    lines.extend(std::iter::repeat_n(ScriptLine::text("ok"), 10));
    let backend = ScriptedBackend::from_lines("scripted/aimd", lines).expect("valid");
    let options = ClientOptions {
        concurrency: 16,
        backoff_base: Duration::from_millis(1),
        ..ClientOptions::default()
    };
    let client = Client::new(Arc::new(backend), &options);
    let reply = client.chat(&ask("x")).await.expect("recovers");
    assert_eq!(reply.attempts, 4);
    // 16 → 8 → 4 → 2, then +1 for the success.
    assert_eq!(client.stats().concurrency_limit, 3);
    assert_eq!(client.stats().rate_limited, 3);
    for _ in 0..9 {
        client.chat(&ask("x")).await.expect("ok");
    }
    assert_eq!(client.stats().concurrency_limit, 12);
}

#[tokio::test(start_paused = true)]
async fn rpm_window_spaces_requests() {
    let backend =
        ScriptedBackend::from_lines("scripted/rpm", vec![ScriptLine::text("ok")]).expect("valid");
    let options = ClientOptions {
        rpm: Some(2),
        ..ClientOptions::default()
    };
    let client = Client::new(Arc::new(backend), &options);
    let started = Instant::now();
    client.chat(&ask("1")).await.expect("ok");
    client.chat(&ask("2")).await.expect("ok");
    assert!(started.elapsed() < Duration::from_secs(1));
    client.chat(&ask("3")).await.expect("ok");
    assert!(
        started.elapsed() >= Duration::from_secs(60),
        "third request waits for the window"
    );
}

#[tokio::test(start_paused = true)]
async fn tpm_window_waits_for_reported_tokens_to_expire() {
    let big = ScriptLine::Reply(ScriptReply {
        text: Some("big".into()),
        usage: Some(ScriptUsage {
            input: 900,
            output: 200,
            cached: 0,
            reasoning: 0,
        }),
        ..ScriptReply::default()
    });
    let backend = ScriptedBackend::from_lines("scripted/tpm", vec![big]).expect("valid");
    let options = ClientOptions {
        tpm: Some(1000),
        ..ClientOptions::default()
    };
    let client = Client::new(Arc::new(backend), &options);
    let started = Instant::now();
    client.chat(&ask("1")).await.expect("ok");
    assert!(started.elapsed() < Duration::from_secs(1));
    client.chat(&ask("2")).await.expect("ok");
    assert!(
        started.elapsed() >= Duration::from_secs(60),
        "1100 tokens used: wait a minute"
    );
}

#[tokio::test(start_paused = true)]
async fn backoff_grows_but_stays_under_the_cap() {
    let mut lines = vec![ScriptLine::Fault(Fault::ServerError); 5];
    lines.push(ScriptLine::text("ok"));
    let backend = ScriptedBackend::from_lines("scripted/backoff", lines).expect("valid");
    let options = ClientOptions {
        max_retries: 5,
        backoff_base: Duration::from_millis(100),
        backoff_max: Duration::from_millis(300),
        ..ClientOptions::default()
    };
    let client = Client::new(Arc::new(backend), &options);
    let started = Instant::now();
    let reply = client.chat(&ask("x")).await.expect("recovers");
    assert_eq!(reply.attempts, 6);
    // Caps: 100 + 200 + 300 + 300 + 300 ms.
    assert!(
        started.elapsed() <= Duration::from_millis(1200),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(client.stats().retries, 5);
}

#[tokio::test]
async fn clones_share_totals() {
    let backend = ScriptedBackend::from_lines(
        "scripted/shared",
        vec![ScriptLine::Reply(ScriptReply {
            text: Some("x".into()),
            usage: Some(ScriptUsage {
                input: 1_000_000,
                output: 0,
                cached: 0,
                reasoning: 0,
            }),
            ..ScriptReply::default()
        })],
    )
    .expect("valid");
    let mut options = ClientOptions::default();
    options
        .prices
        .insert("scripted/shared", escapade_llm::Price::new(1.0, 0.0, 0.0));
    let a = Client::new(Arc::new(backend), &options);
    let b = a.clone();
    a.chat(&ask("x")).await.expect("ok");
    let reply = b.chat(&ask("x")).await.expect("ok");
    assert!(
        (reply.usage.cost_usd - 1.0).abs() < 1e-12,
        "exact spec beats the scripted/ prefix"
    );
    let stats = a.stats();
    assert_eq!(stats.requests, 2);
    assert_eq!(stats.input_tokens, 2_000_000);
    assert!((stats.cost_usd - 2.0).abs() < 1e-12);
}
