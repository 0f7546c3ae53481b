//! Paying once and never more than chosen, against a loopback provider that counts
//! requests: the response cache (hits, modes, samples that differ, a writer killed with
//! SIGKILL), the cost cap, and pictures dropped when the provider refuses a request as
//! too large.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use escapade_llm::cache::CACHE_FILE;
use escapade_llm::client::open_with_env;
use escapade_llm::pictures::{PLACEHOLDER, PictureBudget};
use escapade_llm::{
    CacheMode, CacheUse, ChatRequest, ChatResponse, Client, ClientOptions, CostCap, LlmError,
    Message, Part, Price, PriceTable, ResponseCache, Role,
};
use serde_json::json;

use crate::support::{MockServer, Reply, ask, openai_text};

/// A client of `openai-compatible/m` at `server` with the given cache and cap.
async fn client(server: &MockServer, cache: Option<CacheUse>, cap: Option<Arc<CostCap>>) -> Client {
    let mut prices = PriceTable::empty();
    // $10 per million tokens each way: 12 in and 3 out cost $0.00015
    prices.insert("openai-compatible/m", Price::new(10.0, 10.0, 0.0));
    let options = ClientOptions {
        base_url: Some(format!("{}/v1", server.url)),
        backoff_base: Duration::from_millis(1),
        max_retries: 2,
        prices,
        cache,
        cost_cap: cap,
        ..ClientOptions::default()
    };
    open_with_env("openai-compatible/m", &options, &|_| None)
        .await
        .expect("opens")
}

fn cache_in(dir: &Path, mode: CacheMode) -> CacheUse {
    CacheUse {
        store: Arc::new(ResponseCache::open(&dir.join(CACHE_FILE)).expect("opens")),
        mode,
    }
}

fn sampled(text: &str, seed: u64) -> ChatRequest {
    ChatRequest {
        temperature: Some(0.7),
        seed: Some(seed),
        ..ask(text)
    }
}

#[tokio::test]
async fn a_request_seen_before_is_answered_from_the_cache_without_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start(vec![Reply::ok(openai_text("open door"))]).await;
    let first = client(&server, Some(cache_in(dir.path(), CacheMode::On)), None).await;
    let paid = first.chat(&sampled("look", 1)).await.expect("reply");
    assert_eq!((paid.attempts, paid.usage.cache_hits), (1, 0));
    assert!(paid.usage.cost_usd > 0.0);
    // another client (a second run) on the same cache: no request, no cost
    let second = client(&server, Some(cache_in(dir.path(), CacheMode::On)), None).await;
    let free = second.chat(&sampled("look", 1)).await.expect("reply");
    assert_eq!(server.requests().len(), 1, "answered from the cache");
    assert_eq!(free.response, paid.response);
    assert_eq!((free.attempts, free.usage.cache_hits), (0, 1));
    assert_eq!((free.usage.input, free.usage.output), (12, 3));
    assert_eq!(free.usage.cost_usd, 0.0);
    assert_eq!(second.stats().cache_hits, 1);
    // another sample (the next epoch's seed) at temperature 0.7 is not collapsed
    second.chat(&sampled("look", 2)).await.expect("reply");
    assert_eq!(server.requests().len(), 2, "a new sample is a new request");
}

#[tokio::test]
async fn cache_modes_read_write_and_off() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start(vec![Reply::ok(openai_text("go"))]).await;
    let sent = || server.requests().len();
    let read = client(&server, Some(cache_in(dir.path(), CacheMode::Read)), None).await;
    read.chat(&ask("a")).await.unwrap();
    read.chat(&ask("a")).await.unwrap();
    assert_eq!(sent(), 2, "read-only keeps nothing");
    let write = client(&server, Some(cache_in(dir.path(), CacheMode::Write)), None).await;
    write.chat(&ask("a")).await.unwrap();
    write.chat(&ask("a")).await.unwrap();
    assert_eq!(sent(), 4, "write-only never reads");
    read.chat(&ask("a")).await.unwrap();
    assert_eq!(sent(), 4, "but what it wrote is there to read");
    let off = client(&server, Some(cache_in(dir.path(), CacheMode::Off)), None).await;
    off.chat(&ask("a")).await.unwrap();
    assert_eq!(sent(), 5);
    // a script answers by position: never cached
    let script = dir.path().join("s.jsonl");
    std::fs::write(&script, "{\"text\": \"one\"}\n{\"text\": \"two\"}\n").unwrap();
    let options = ClientOptions {
        cache: Some(cache_in(dir.path(), CacheMode::On)),
        ..ClientOptions::default()
    };
    let scripted = escapade_llm::open(&format!("scripted/{}", script.display()), &options)
        .await
        .unwrap();
    assert_eq!(scripted.chat(&ask("a")).await.unwrap().response.text, "one");
    assert_eq!(scripted.chat(&ask("a")).await.unwrap().response.text, "two");
}

/// Not a test of its own: the writer process [`the_cache_survives_a_writer_killed_mid_write`]
/// starts and kills. It writes large replies into the cache named by
/// `ESCAPADE_TEST_CACHE_WRITER` as fast as it can, forever.
#[test]
#[ignore = "run as a child process by the_cache_survives_a_writer_killed_mid_write"]
fn cache_writer_child() {
    let Some(path) = std::env::var_os("ESCAPADE_TEST_CACHE_WRITER") else {
        return;
    };
    let cache = ResponseCache::open(Path::new(&path)).expect("opens");
    let big = "w".repeat(256 << 10);
    for n in 0u64.. {
        let reply = ChatResponse {
            text: format!("{n} {big}"),
            ..ChatResponse::default()
        };
        cache
            .put(&format!("k{n}"), "child/m", &reply)
            .expect("writes");
    }
}

#[test]
fn the_cache_survives_a_writer_killed_mid_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CACHE_FILE);
    let ours = ResponseCache::open(&path).unwrap();
    ours.put("before", "parent/m", &ChatResponse::default())
        .unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "spending::cache_writer_child",
            "--ignored",
            "--nocapture",
        ])
        .env("ESCAPADE_TEST_CACHE_WRITER", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the test binary starts again");
    // wait until it has written a few, then kill it while it writes the next ones
    let start = std::time::Instant::now();
    while ours.stats().unwrap().entries < 6 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the writer wrote nothing"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL"); // kill() is SIGKILL on Unix
    child.wait().unwrap();
    drop(ours);
    let cache = ResponseCache::open(&path).expect("opens after the kill");
    assert_eq!(cache.integrity_check().unwrap(), "ok");
    let stats = cache.stats().unwrap();
    assert!(stats.entries >= 6, "{stats:?}");
    assert!(cache.get("before").unwrap().is_some());
    // every reply the writer committed reads back whole
    for n in 0..stats.entries - 1 {
        let reply = cache.get(&format!("k{n}")).unwrap().expect("committed");
        assert!(reply.text.starts_with(&format!("{n} ")) && reply.text.len() > 256 << 10);
    }
    cache
        .put("after", "parent/m", &ChatResponse::default())
        .unwrap();
    assert!(cache.get("after").unwrap().is_some());
}

#[tokio::test]
async fn the_cost_cap_refuses_a_request_the_run_cannot_afford_before_sending_it() {
    let server = MockServer::start(vec![Reply::ok(openai_text("go"))]).await;
    // the worst cost of `ask` with max_tokens 100: about 8 in and 100 out, $0.00108
    let request = ChatRequest {
        max_tokens: Some(100),
        ..ask("look around")
    };
    let cap = CostCap::new(0.0013, 0.0);
    let c = client(&server, None, Some(cap.clone())).await;
    assert!(
        (c.worst_cost(&request) - 0.00108).abs() < 1e-4,
        "{}",
        c.worst_cost(&request)
    );
    let first = c.chat(&request).await.expect("within the cap");
    assert!((cap.spent() - first.usage.cost_usd).abs() < 1e-12);
    // $0.00015 spent; the next may cost $0.00108 more: $0.00123, still within; the
    // third would make $0.00138
    c.chat(&request).await.expect("within the cap");
    match c.chat(&request).await {
        Err(LlmError::CostCap { limit_usd, .. }) => assert_eq!(limit_usd, 0.0013),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        server.requests().len(),
        2,
        "the refused request was not sent"
    );
    assert!(cap.reached());
    assert_eq!(c.stats().capped, 1);
    // a reply the cache holds costs nothing and is never refused
    let dir = tempfile::tempdir().unwrap();
    let cached = client(&server, Some(cache_in(dir.path(), CacheMode::On)), None).await;
    cached.chat(&request).await.unwrap();
    let capped = client(
        &server,
        Some(cache_in(dir.path(), CacheMode::On)),
        Some(cap),
    )
    .await;
    let free = capped.chat(&request).await.expect("from the cache");
    assert_eq!(free.usage.cache_hits, 1);
}

fn picture(tag: u8, size: usize) -> Part {
    Part::png(format!("{tag:02x}"), Arc::new(vec![tag; size]))
}

/// A history of `n` steps, one picture each.
fn history(n: u8) -> ChatRequest {
    let mut messages = vec![Message::text(Role::System, "escape")];
    for i in 0..n {
        messages.push(Message {
            role: Role::User,
            parts: vec![
                Part::Text {
                    text: format!("view {i}"),
                },
                picture(i, 1000),
            ],
            tool_calls: Vec::new(),
            tool_call_id: None,
        });
        messages.push(Message::text(Role::Assistant, "turn"));
    }
    ChatRequest {
        messages,
        ..ChatRequest::default()
    }
}

/// The pictures of the request a loopback server received, as data URLs.
fn pictures_sent(body: &serde_json::Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|p| p["type"] == "image_url")
        .count()
}

#[tokio::test]
async fn a_request_refused_as_too_large_loses_its_oldest_pictures_and_goes_again() {
    let too_large = Reply::status(413, r#"{"error":{"message":"Request Entity Too Large"}}"#);
    let server = MockServer::start(vec![
        too_large.clone(),
        too_large,
        Reply::ok(openai_text("open door")),
    ])
    .await;
    let c = client(&server, None, None).await;
    let done = c
        .chat(&history(8))
        .await
        .expect("goes on with fewer pictures");
    let sent: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| pictures_sent(&r.body))
        .collect();
    assert_eq!(sent, vec![8, 4, 2], "the older half goes each time");
    assert_eq!(done.pictures_dropped, 6);
    let last = &server.requests()[2].body;
    assert!(last.to_string().contains(PLACEHOLDER), "the model is told");
    // the newest two are the ones kept
    let kept: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["content"]
                .as_array()
                .is_some_and(|c| c.iter().any(|p| p["type"] == "image_url"))
        })
        .map(|m| m["content"][0]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kept, vec!["view 6", "view 7"]);
    // refused with no picture left: the error comes back for the agent to handle
    let server = MockServer::start(vec![Reply::status(413, "too large")]).await;
    let c = client(&server, None, None).await;
    match c.chat(&history(1)).await {
        Err(LlmError::Http { status: 413, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn the_picture_budget_applies_before_the_request_goes() {
    let server = MockServer::start(vec![Reply::ok(openai_text("ok"))]).await;
    let options = ClientOptions {
        base_url: Some(format!("{}/v1", server.url)),
        max_pictures: Some(3),
        max_picture_bytes: Some(2500),
        ..ClientOptions::default()
    };
    let c = open_with_env("openai-compatible/m", &options, &|_| None)
        .await
        .unwrap();
    let done = c.chat(&history(5)).await.unwrap();
    // 2500 bytes hold two of the 1000-byte pictures
    assert_eq!(done.pictures_dropped, 3);
    assert_eq!(pictures_sent(&server.requests()[0].body), 2);
    assert_eq!(c.stats().pictures_dropped, 3);
    assert_eq!(
        json!(PictureBudget::of_provider("anthropic").count),
        json!(100)
    );
}
