//! What `run.toml`'s `[sent.agent]` says a run's requests carried is what the provider
//! received: each decoding parameter under the name it went by, or "not sent" when no
//! request had it, and the reasoning settings and API version as the backend put them
//! on the wire (a reader reproduces the request from the record; no default the backend
//! fills in, clamp or provider-specific name is left out).

mod common;

use std::collections::BTreeMap;

use common::{Provider, completion, run_dir_under, stderr};

/// An Anthropic Messages reply saying `text`.
fn message(text: &str) -> String {
    serde_json::json!({
        "id": "m", "type": "message", "role": "assistant", "model": "claude-t",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 50, "output_tokens": 5}
    })
    .to_string()
}

/// Plays one VisEscape episode of at most three steps against `provider` and returns
/// `[sent.agent]` of its `run.toml`.
fn sent_of_run(
    provider: &Provider,
    agent: &str,
    model: &str,
    extra: &[&str],
) -> BTreeMap<String, String> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("runs");
    let mut args = vec![
        "run",
        "visescape@4",
        "--agent",
        agent,
        "--model",
        model,
        "--base-url",
        &provider.url,
        "--limit",
        "1",
        "--max-steps",
        "3",
        "--cache",
        "off",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(&args)
        .env("OPENAI_API_KEY", "test")
        .env("ANTHROPIC_API_KEY", "test")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert!(o.status.success(), "{model}: {}", stderr(&o));
    let dir = run_dir_under(&out);
    let episodes = std::fs::read_to_string(dir.join("episodes.jsonl")).unwrap();
    for row in episodes.lines() {
        let row: serde_json::Value = serde_json::from_str(row).unwrap();
        assert!(row["error"].is_null(), "{model}: {row}");
    }
    let text = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    let toml: toml::Value = toml::from_str(&text).unwrap();
    toml["sent"]["agent"]
        .as_table()
        .unwrap_or_else(|| panic!("no [sent.agent]: {text}"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

/// A wire value as a record shows it (`0.7`, `2048`, `"low"` without quotes).
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Checks `sent` against every body the provider received: for each parameter (named
/// `key` in the record, `wire` on the wire), a request that carried it carried a value
/// the record names, under the wire's name when it differs, and the record says "not
/// sent" exactly when some request went without it.
fn check(sent: &BTreeMap<String, String>, bodies: &[serde_json::Value], key: &str, wire: &[&str]) {
    let record = sent
        .get(key)
        .unwrap_or_else(|| panic!("`{key}` not recorded: {sent:?}"));
    assert!(!bodies.is_empty());
    let mut missing = 0;
    for body in bodies {
        let Some((name, value)) = wire.iter().find_map(|w| body.get(*w).map(|v| (*w, v))) else {
            missing += 1;
            continue;
        };
        let value = shown(value);
        if key != "seed" {
            assert!(
                record.contains(&value),
                "`{key} = {record}` but a request sent {name} = {value}"
            );
        }
        if name != key {
            assert!(
                record.contains(name),
                "`{key} = {record}` does not say it went as `{name}`"
            );
        }
    }
    assert_eq!(
        record.contains("not sent"),
        missing > 0,
        "`{key} = {record}`: {missing} of {} requests went without it",
        bodies.len()
    );
}

/// Every parameter the record lists, checked against every request.
fn check_all(sent: &BTreeMap<String, String>, provider: &Provider) {
    let bodies = provider.bodies.lock().unwrap().clone();
    check(sent, &bodies, "temperature", &["temperature"]);
    check(
        sent,
        &bodies,
        "max_tokens",
        &["max_tokens", "max_completion_tokens"],
    );
    check(sent, &bodies, "top_p", &["top_p"]);
    check(sent, &bodies, "stop", &["stop", "stop_sequences"]);
    check(sent, &bodies, "seed", &["seed"]);
    check(sent, &bodies, "tool_choice", &["tool_choice"]);
}

#[test]
fn openai_requests_are_recorded_as_sent() {
    let provider = Provider::start(Box::new(|_| (200, completion("[ACTION] turn_to_west"))));
    let sent = sent_of_run(
        &provider,
        "llm",
        "openai/gpt-t",
        &["-A", "temperature=0.7", "-A", "reasoning_effort=low"],
    );
    check_all(&sent, &provider);
    let bodies = provider.bodies.lock().unwrap().clone();
    assert!(bodies.iter().all(|b| b["reasoning_effort"] == "low"));
    assert_eq!(sent["reasoning_effort"], "low");
}

#[test]
fn anthropic_requests_are_recorded_as_sent() {
    let provider = Provider::start(Box::new(|_| (200, message("[ACTION] turn_to_west"))));
    let sent = sent_of_run(
        &provider,
        "llm",
        "anthropic/claude-t",
        &["-A", "temperature=0.7"],
    );
    check_all(&sent, &provider);
    let version = provider.headers.lock().unwrap()[0]
        .iter()
        .find(|(k, _)| k == "anthropic-version")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert_eq!(sent["api_version"], format!("anthropic-version {version}"));
}

/// Extended thinking changes what goes out: `max_tokens` is the answer's cap plus the
/// budget, and no temperature is sent.
#[test]
fn anthropic_thinking_is_recorded_as_sent() {
    let provider = Provider::start(Box::new(|_| (200, message("[ACTION] turn_to_west"))));
    let sent = sent_of_run(
        &provider,
        "llm",
        "anthropic/claude-t",
        &["-A", "temperature=0.7", "-A", "thinking_budget=1024"],
    );
    check_all(&sent, &provider);
    let bodies = provider.bodies.lock().unwrap().clone();
    assert!(
        bodies
            .iter()
            .all(|b| b["thinking"]["budget_tokens"] == 1024)
    );
    assert!(sent["thinking"].contains("1024"), "{sent:?}");
}

/// VisEscaper's analysis calls cap their reply shorter than its acting calls.
#[test]
fn visescaper_requests_are_recorded_as_sent() {
    let provider = Provider::start(Box::new(|_| {
        (
            200,
            completion("[THINK] look around\n[ACTION] turn_to_west"),
        )
    }));
    let sent = sent_of_run(&provider, "visescaper", "openai-compatible/m", &[]);
    check_all(&sent, &provider);
}
