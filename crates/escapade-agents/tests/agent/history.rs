//! Six turns of a text-protocol episode where only the second action makes progress
//! (exchange 1 is the one key step); each request has the system message, one user and one
//! assistant message per past exchange sent, and the current observation.

use escapade_core::Observation;
use serde_json::json;

use crate::support::{harness, mentions, step_to};

/// Plays six turns under `history`; returns, per request, its message count and which
/// observations (by turn) it carries.
async fn play(history: &str) -> Vec<(usize, Vec<usize>)> {
    let mut h = harness(&[json!({"text": "wait"})], &[("history", history)]);
    h.start(&[]).await;
    let mut last = None;
    let mut progress = 0.0;
    for t in 0..6u32 {
        let observation = Observation::text(format!("<obs {t}>"));
        h.act(t + 1, &observation, last.as_ref(), &[])
            .await
            .unwrap();
        if t == 1 {
            progress = 0.5;
        }
        last = Some(step_to(&observation, progress));
    }
    h.requests()
        .iter()
        .map(|r| {
            let shown = (0..6)
                .filter(|t| mentions(r, &format!("<obs {t}>")))
                .collect();
            (r.messages.len(), shown)
        })
        .collect()
}

#[tokio::test]
async fn full_history_sends_every_exchange() {
    let got = play("full").await;
    let want: Vec<(usize, Vec<usize>)> = (0..6).map(|t| (2 * t + 2, (0..=t).collect())).collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn last_k_sends_the_last_k_past_exchanges() {
    let got = play("last:2").await;
    let want = vec![
        (2, vec![0]),
        (4, vec![0, 1]),
        (6, vec![0, 1, 2]),
        (6, vec![1, 2, 3]),
        (6, vec![2, 3, 4]),
        (6, vec![3, 4, 5]),
    ];
    assert_eq!(got, want);
    let none = play("last:0").await;
    assert!(
        none.iter()
            .enumerate()
            .all(|(t, (n, shown))| *n == 2 && *shown == vec![t]),
        "{none:?}"
    );
}

#[tokio::test]
async fn key_k_keeps_key_steps_and_the_last_k() {
    let got = play("key:1").await;
    let want = vec![
        (2, vec![0]),
        (4, vec![0, 1]),
        (4, vec![1, 2]),
        (6, vec![1, 2, 3]),
        (6, vec![1, 3, 4]),
        (6, vec![1, 4, 5]),
    ];
    assert_eq!(got, want);
    let keys_only = play("key:0").await;
    assert_eq!(keys_only.last().unwrap(), &(4, vec![1, 5]), "{keys_only:?}");
}

#[tokio::test]
async fn history_never_drops_the_system_prompt() {
    let mut h = harness(&[json!({"text": "wait"})], &[("history", "last:0")]);
    h.start(&[]).await;
    let mut last = None;
    for t in 0..3u32 {
        let observation = Observation::text(format!("<obs {t}>"));
        h.act(t + 1, &observation, last.as_ref(), &[])
            .await
            .unwrap();
        last = Some(step_to(&observation, 0.0));
    }
    for r in h.requests() {
        assert_eq!(r.messages[0].role, escapade_llm::Role::System);
        assert_eq!(r.messages[0].joined_text(), crate::support::SYSTEM);
    }
}

/// A provider refusing a prompt longer than the model's context makes the agent drop the
/// older half of the past exchanges and ask again, and the trim sticks for later turns
/// (so the prompt's prefix, and a server's prompt cache, stays stable until the next one).
#[tokio::test]
async fn a_context_overflow_trims_the_older_half_and_retries() {
    let overflow = json!({"fault": "http", "status": 400,
        "body": "{\"error\":{\"message\":\"request (8302 tokens) exceeds the available context size (8192 tokens)\",\"type\":\"exceed_context_size_error\"}}"});
    let wait = json!({"text": "wait"});
    let script = [
        wait.clone(),
        wait.clone(),
        wait.clone(),
        wait.clone(),
        overflow,
        wait.clone(),
        wait,
    ];
    let mut h = harness(&script, &[("history", "full")]);
    h.start(&[]).await;
    let mut last = None;
    for t in 0..6u32 {
        let observation = Observation::text(format!("<obs {t}>"));
        let turn = h.act(t + 1, &observation, last.as_ref(), &[]).await;
        assert!(turn.is_ok(), "turn {t}: {turn:?}");
        if t == 4 {
            let log = turn.unwrap().request.unwrap();
            assert_eq!(log["history_trimmed_before"], 2, "{log}");
        }
        last = Some(step_to(&observation, 0.0));
    }
    let shown: Vec<Vec<usize>> = h
        .requests()
        .iter()
        .map(|r| {
            (0..6)
                .filter(|t| mentions(r, &format!("<obs {t}>")))
                .collect()
        })
        .collect();
    // requests 0–3 full; request 4 overflowed with all of 0..=4; the retry (5) and the
    // next turn (6) start at exchange 2
    assert_eq!(shown[4], vec![0, 1, 2, 3, 4]);
    assert_eq!(shown[5], vec![2, 3, 4]);
    assert_eq!(shown[6], vec![2, 3, 4, 5]);
}

/// A 400 that is not about context length is not retried.
#[tokio::test]
async fn other_bad_requests_are_not_trimmed_and_retried() {
    let script = [json!({"fault": "http", "status": 400, "body": "unknown model"})];
    let mut h = harness(&script, &[]);
    h.start(&[]).await;
    let observation = Observation::text("<obs 0>");
    assert!(h.act(1, &observation, None, &[]).await.is_err());
    assert_eq!(h.requests().len(), 1);
}

/// Trimming halves what the history mode still sends, so a windowed history does not
/// waste requests re-sending the same prompt.
#[tokio::test]
async fn a_context_overflow_under_last_k_drops_from_the_window() {
    let overflow = json!({"fault": "http", "status": 413, "body": "prompt is too long"});
    let wait = json!({"text": "wait"});
    let script = [
        wait.clone(),
        wait.clone(),
        wait.clone(),
        wait.clone(),
        overflow,
        wait,
    ];
    let mut h = harness(&script, &[("history", "last:2")]);
    h.start(&[]).await;
    let mut last = None;
    for t in 0..5u32 {
        let observation = Observation::text(format!("<obs {t}>"));
        assert!(h.act(t + 1, &observation, last.as_ref(), &[]).await.is_ok());
        last = Some(step_to(&observation, 0.0));
    }
    let shown: Vec<Vec<usize>> = h
        .requests()
        .iter()
        .map(|r| {
            (0..5)
                .filter(|t| mentions(r, &format!("<obs {t}>")))
                .collect()
        })
        .collect();
    assert_eq!(shown[4], vec![2, 3, 4]);
    assert_eq!(shown[5], vec![3, 4], "one request, one exchange dropped");
}

#[tokio::test]
async fn a_runaway_reply_is_cut_in_the_history_but_kept_in_the_row() {
    use escapade_agents::llm::{HISTORY_CUT, MAX_HISTORY_REPLY_CHARS};
    let huge = "x".repeat(1_000_000);
    let mut h = harness(&[json!({ "text": huge })], &[("history", "full")]);
    h.start(&[]).await;
    let first = Observation::text("<obs 0>");
    let turn = h.act(1, &first, None, &[]).await.unwrap();
    // the step row keeps the whole reply and says the history did not
    assert_eq!(turn.raw_response.as_deref().map(str::len), Some(1_000_000));
    let cut = turn.request.as_ref().unwrap()[HISTORY_CUT]
        .as_u64()
        .unwrap();
    assert_eq!(cut as usize, 1_000_000 - MAX_HISTORY_REPLY_CHARS);
    let second = Observation::text("<obs 1>");
    h.act(2, &second, Some(&step_to(&first, 0.0)), &[])
        .await
        .unwrap();
    let sent: usize = h.requests()[1]
        .messages
        .iter()
        .map(|m| m.joined_text().len())
        .sum();
    assert!(
        sent < MAX_HISTORY_REPLY_CHARS + 2_000,
        "{sent} characters re-sent"
    );
    assert!(mentions(
        &h.requests()[1],
        "more characters of this reply are left out"
    ));
}
