//! The `request` field of step rows under `log=delta|full|hash`.

use escapade_core::Observation;
use escapade_llm::ChatRequest;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{SYSTEM, harness, step_to};

/// Three turns with `log`; the logged records and the requests actually sent.
async fn play(log: &str) -> (Vec<Value>, Vec<ChatRequest>) {
    let mut h = harness(
        &[json!({"text": "reply A"}), json!({"text": "reply B"})],
        &[("log", log)],
    );
    h.start(&[]).await;
    let mut last = None;
    let mut logged = Vec::new();
    for t in 0..3u32 {
        let observation = Observation::text(format!("<obs {t}>"));
        let turn = h
            .act(t + 1, &observation, last.as_ref(), &[])
            .await
            .unwrap();
        logged.push(turn.request.expect("model turns log their request"));
        last = Some(step_to(&observation, 0.0));
    }
    (logged, h.requests())
}

fn sha(request: &ChatRequest) -> String {
    hex::encode(Sha256::digest(serde_json::to_vec(request).unwrap()))
}

#[tokio::test]
async fn every_mode_records_the_count_and_the_hash_of_what_was_sent() {
    for log in ["delta", "full", "hash"] {
        let (logged, sent) = play(log).await;
        for (record, request) in logged.iter().zip(&sent) {
            assert_eq!(record["messages"], request.messages.len(), "{log}");
            assert_eq!(record["sha256"], sha(request), "{log}");
        }
    }
}

#[tokio::test]
async fn delta_logs_only_the_new_entries() {
    let (logged, _) = play("delta").await;
    assert_eq!(logged[0]["system"], SYSTEM);
    assert_eq!(logged[0]["history"], "full");
    assert_eq!(
        logged[0]["new"],
        json!([{"role": "env", "text": "<obs 0>", "images": []}])
    );
    for (t, record) in logged.iter().enumerate().skip(1) {
        assert!(
            record.get("system").is_none(),
            "system logged once: {record}"
        );
        let reply = if t % 2 == 1 { "reply A" } else { "reply B" };
        assert_eq!(
            record["new"],
            json!([
                {"role": "model", "text": reply, "tool_calls": []},
                {"role": "env", "text": format!("<obs {t}>"), "images": []},
            ]),
            "turn {t}"
        );
        assert!(!record.to_string().contains("<obs 0>"), "{record}");
        assert!(record.get("sent").is_none());
    }
}

#[tokio::test]
async fn full_logs_every_message_sent() {
    let (logged, sent) = play("full").await;
    for (record, request) in logged.iter().zip(&sent) {
        assert_eq!(
            record["sent"],
            serde_json::to_value(&request.messages).unwrap()
        );
        assert!(record.get("new").is_none());
    }
    assert_eq!(logged[2]["sent"].as_array().unwrap().len(), 6);
    assert!(logged[2].to_string().contains("<obs 0>"));
}

#[tokio::test]
async fn hash_logs_no_text() {
    let (logged, _) = play("hash").await;
    for record in &logged {
        let keys: Vec<&str> = record
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["messages", "sha256"], "{record}");
        let text = record.to_string();
        assert!(!text.contains("<obs") && !text.contains("reply") && !text.contains(SYSTEM));
    }
}

/// A step row's delta covers its turn whole: the observation and every request of the
/// turn. With `reask_history=keep` that is every refusal and re-ask; by default (the
/// originals' way) only the latest refusal and its re-ask were in the last request, and
/// the refusals leave the conversation, so the next row starts from the reply taken.
#[tokio::test]
async fn delta_with_reasks_logs_each_turn_whole_in_its_last_request() {
    for keep in [true, false] {
        let options: &[(&str, &str)] = if keep {
            &[("reask_history", "keep")]
        } else {
            &[]
        };
        let mut h = harness(
            &[
                json!({"text": "junk 1"}),
                json!({"text": "junk 2"}),
                json!({"text": "fine"}),
            ],
            options,
        );
        h.start(&[]).await;
        let mut last = None;
        let mut kept = Vec::new();
        for t in 0..2u32 {
            let observation = Observation::text(format!("<obs {t}>"));
            h.act(t + 1, &observation, last.as_ref(), &[])
                .await
                .unwrap();
            h.reask("<bad a>", t + 1, &observation, last.as_ref(), &[])
                .await
                .unwrap();
            // only the last turn of a step reaches its row
            let turn = h
                .reask("<bad b>", t + 1, &observation, last.as_ref(), &[])
                .await
                .unwrap();
            kept.push(turn.request.unwrap());
            last = Some(step_to(&observation, 0.0));
        }
        let texts = |record: &Value| -> Vec<String> {
            record["new"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let text = e["text"].as_str().unwrap();
                    let cut = text.find(">").map_or(text.len(), |i| i + 1);
                    format!("{}: {}", e["role"].as_str().unwrap(), &text[..cut])
                })
                .collect()
        };
        assert_eq!(kept[0]["system"], SYSTEM);
        assert!(kept[1].get("system").is_none());
        let refusals: &[&str] = if keep {
            &[
                "model: junk 1",
                "env: That reply could not be used: <bad a>",
                "model: junk 2",
                "env: That reply could not be used: <bad b>",
            ]
        } else {
            &[
                "model: junk 2",
                "env: That reply could not be used: <bad b>",
            ]
        };
        let mut first = vec!["env: <obs 0>"];
        first.extend_from_slice(refusals);
        assert_eq!(texts(&kept[0]), first, "keep: {keep}");
        let mut second = vec!["model: fine", "env: <obs 1>"];
        second.extend_from_slice(refusals);
        assert_eq!(texts(&kept[1]), second, "keep: {keep}");
        assert_eq!(kept[0].get("reask_history").is_some(), keep);
    }
}

/// Issue 25: VisEscape's original sends no temperature and no max_tokens (the provider's
/// defaults apply); `-A temperature=none` and `-A max_tokens=none` send neither, and the
/// agent's `sent()` record says so.
#[tokio::test]
async fn none_sends_no_temperature_and_no_max_tokens() {
    let mut h = crate::support::harness(
        &[json!({"text": "inc"})],
        &[("temperature", "none"), ("max_tokens", "none")],
    );
    h.start(&[]).await;
    h.act(1, &escapade_core::Observation::text("count 0"), None, &[])
        .await
        .unwrap();
    let request = h.last_request();
    assert_eq!((request.temperature, request.max_tokens), (None, None));
    assert!(request.stop.is_empty());
    let mut h = crate::support::harness(&[json!({"text": "inc"})], &[]);
    h.start(&[]).await;
    h.act(1, &escapade_core::Observation::text("count 0"), None, &[])
        .await
        .unwrap();
    let request = h.last_request();
    assert_eq!(
        (request.temperature, request.max_tokens),
        (Some(0.0), Some(2048))
    );
}
