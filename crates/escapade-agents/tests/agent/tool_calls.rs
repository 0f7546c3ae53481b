//! The native tools protocol: every call of a reply is sent (several as
//! `Action::Calls`), and every call the model made is answered exactly once in every
//! later request — by the world's own answer to it when the world ran several actions
//! (AgentEscapeBench App. C), by the observation and a "not executed" note when the world
//! takes one action per turn, or by a note that the history trimmed its answer.

use escapade_core::{Action, Observation, Step};
use escapade_llm::Role;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::{check_tool_pairing, harness, mentions, pictured, roles, step_to, tools};

fn call(id: &str, node: &str) -> Value {
    json!({"name": "investigate", "arguments": {"node_id": node}, "id": id})
}

#[tokio::test]
async fn a_one_action_world_runs_the_first_call_and_the_next_request_answers_both() {
    let mut h = harness(
        &[
            json!({"text": "", "tool_calls": [call("a", "N1"), call("b", "N2")]}),
            json!({"text": "done"}),
        ],
        &[("protocol", "tools")],
    );
    h.start(&tools()).await;
    let first = Observation::text("<obs 0>");
    let turn = h.act(1, &first, None, &tools()).await.unwrap();
    assert!(matches!(&turn.action, Action::Calls { calls } if calls.len() == 2));
    // what a world that takes one action per turn reads
    assert_eq!(
        turn.action.first(),
        Action::call("investigate", r#"{"node_id":"N1"}"#)
    );

    let second = Observation::text("N1 is a desk with a drawer");
    let last = step_to(&second, 0.0);
    h.act(2, &second, Some(&last), &tools()).await.unwrap();
    let request = h.last_request();
    assert_eq!(
        roles(&request),
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool
        ]
    );
    let assistant = &request.messages[2];
    assert!(
        assistant.parts.is_empty(),
        "an empty reply text is not sent"
    );
    assert_eq!(assistant.tool_calls.len(), 2);
    let (answer, skipped) = (&request.messages[3], &request.messages[4]);
    assert_eq!(answer.tool_call_id.as_deref(), Some("a"));
    assert_eq!(
        answer.joined_text(),
        second.text,
        "the observation answers call 1"
    );
    assert_eq!(skipped.tool_call_id.as_deref(), Some("b"));
    assert!(
        skipped.joined_text().starts_with("Not executed"),
        "{skipped:?}"
    );
    assert_eq!(
        request
            .messages
            .iter()
            .filter(|m| m.joined_text().contains("desk with a drawer"))
            .count(),
        1,
        "the observation is sent once, as the tool result"
    );
}

#[tokio::test]
async fn a_world_that_ran_every_call_answers_each_call_id_with_its_own_result() {
    let mut h = harness(
        &[
            json!({"text": "three at once", "tool_calls": [call("a", "N1"), call("b", "N2"), call("c", "N3")]}),
            json!({"text": "done"}),
        ],
        &[("protocol", "tools")],
    );
    h.start(&tools()).await;
    let turn = h
        .act(1, &Observation::text("<obs 0>"), None, &tools())
        .await
        .unwrap();
    let Action::Calls { calls } = &turn.action else {
        panic!("{:?}", turn.action)
    };
    let nodes: Vec<&str> = calls.iter().map(|c| c.arguments.as_str()).collect();
    assert_eq!(
        nodes,
        [
            r#"{"node_id":"N1"}"#,
            r#"{"node_id":"N2"}"#,
            r#"{"node_id":"N3"}"#
        ]
    );
    // the world's step: one result per call, the observation begins with them
    let results: Vec<escapade_core::ActionResult> = ["desk", "lamp", "safe"]
        .iter()
        .map(|w| escapade_core::ActionResult {
            action: "investigate".into(),
            valid: true,
            feedback: format!("it is a {w}"),
            error: None,
        })
        .collect();
    let text = "it is a desk\n\nit is a lamp\n\nit is a safe\n\n[turn 1/35]";
    let second = Observation::text(text);
    let last = Step {
        results,
        ..step_to(&second, 0.0)
    };
    h.act(2, &second, Some(&last), &tools()).await.unwrap();
    let request = h.last_request();
    assert_eq!(
        roles(&request),
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::Tool,
            Role::User
        ]
    );
    for (m, (id, w)) in
        request.messages[3..6]
            .iter()
            .zip([("a", "desk"), ("b", "lamp"), ("c", "safe")])
    {
        assert_eq!(m.tool_call_id.as_deref(), Some(id));
        assert_eq!(m.joined_text(), format!("it is a {w}"));
    }
    assert_eq!(
        request.messages[6].joined_text(),
        "[turn 1/35]",
        "the rest of the observation follows once"
    );
    check_tool_pairing(&request.messages).unwrap();
}

#[tokio::test]
async fn a_call_whose_answer_was_trimmed_is_still_closed() {
    // history key:0 keeps only key steps: exchange 0 made progress, 1 and 2 did not
    let mut h = harness(
        &[json!({"tool_calls": [call("k", "N1")]})],
        &[("protocol", "tools"), ("history", "key:0")],
    );
    h.start(&tools()).await;
    let mut last: Option<Step> = None;
    for t in 0..4u32 {
        let observation = Observation::text(format!("<obs {t}>"));
        h.act(t + 1, &observation, last.as_ref(), &tools())
            .await
            .unwrap();
        // progress rises once, after the first action, and then stays
        last = Some(step_to(&observation, 0.5));
    }
    let request = h.last_request();
    check_tool_pairing(&request.messages).unwrap();
    // system, exchange 0 (user, assistant), its call closed, then the current observation
    assert_eq!(
        roles(&request),
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::User
        ]
    );
    assert!(
        request.messages[3].joined_text().contains("omitted"),
        "{:?}",
        request.messages[3]
    );
    assert_eq!(request.messages[4].joined_text(), "<obs 3>");
    assert!(!mentions(&request, "<obs 1>") && !mentions(&request, "<obs 2>"));
}

/// One model reply in a generated episode.
#[derive(Debug, Clone)]
struct Reply {
    /// Number of tool calls (0: a text reply).
    calls: usize,
    /// Whether the calls carry ids of their own (else the backend numbers them).
    ids: bool,
}

/// One turn: the reply to the observation, then the replies to re-asks.
#[derive(Debug, Clone)]
struct Turn {
    replies: Vec<Reply>,
    /// The action made progress (a key step).
    progress: bool,
    /// The observation has a picture.
    image: bool,
}

fn reply() -> impl Strategy<Value = Reply> {
    (0usize..=3, any::<bool>()).prop_map(|(calls, ids)| Reply { calls, ids })
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        prop::collection::vec(reply(), 1..=3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(replies, progress, image)| Turn {
            replies,
            progress,
            image,
        })
}

fn history() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("full".to_string()),
        (0usize..4).prop_map(|k| format!("last:{k}")),
        (0usize..3).prop_map(|k| format!("key:{k}")),
    ]
}

/// The script that answers the requests of `turns` in order.
fn script(turns: &[Turn]) -> Vec<Value> {
    let mut lines = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        for (r, reply) in turn.replies.iter().enumerate() {
            if reply.calls == 0 {
                lines.push(json!({"text": format!("thinking {t}.{r}")}));
                continue;
            }
            let calls: Vec<Value> = (0..reply.calls)
                .map(|k| {
                    let mut c = call(&format!("t{t}r{r}c{k}"), &format!("N{k}"));
                    if !reply.ids {
                        c.as_object_mut().unwrap().remove("id");
                    }
                    c
                })
                .collect();
            lines.push(json!({"text": "", "tool_calls": calls}));
        }
    }
    lines
}

/// The past exchanges `history` sends at turn `t`, given which turns were key steps.
fn expected(history: &str, keys: &[bool], t: usize) -> Vec<usize> {
    let (mode, k) = history.split_once(':').unwrap_or((history, "0"));
    let k: usize = k.parse().unwrap();
    let mut shown: Vec<usize> = match mode {
        "full" => (0..t).collect(),
        "last" => (t.saturating_sub(k)..t).collect(),
        _ => (0..t).filter(|&i| keys[i] || i + k >= t).collect(),
    };
    shown.push(t);
    shown
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn every_call_is_answered_exactly_once_in_every_request(
        turns in prop::collection::vec(turn(), 1..10),
        history in history(),
        keep in any::<bool>(),
    ) {
        let reasks = if keep { "keep" } else { "drop" };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let requests = runtime.block_on(async {
            let mut h = harness(
                &script(&turns),
                &[("protocol", "tools"), ("history", &history), ("reask_history", reasks)],
            );
            h.start(&tools()).await;
            let mut last: Option<Step> = None;
            let mut progress = 0.0;
            for (t, turn) in turns.iter().enumerate() {
                let text = format!("<obs {t}>");
                let observation = if turn.image {
                    pictured(&text, t as u8)
                } else {
                    Observation::text(text)
                };
                h.act(t as u32 + 1, &observation, last.as_ref(), &tools()).await.unwrap();
                for r in 1..turn.replies.len() {
                    h.reask(&format!("<bad {t}.{r}>"), t as u32 + 1, &observation, last.as_ref(), &tools())
                        .await
                        .unwrap();
                }
                if turn.progress {
                    progress += 0.05;
                }
                last = Some(step_to(&observation, progress));
            }
            h.requests()
        });
        let total: usize = turns.iter().map(|t| t.replies.len()).sum();
        prop_assert_eq!(requests.len(), total);
        let keys: Vec<bool> = turns.iter().map(|t| t.progress).collect();
        let mut n = 0;
        for (t, turn) in turns.iter().enumerate() {
            for r in 0..turn.replies.len() {
                let request = &requests[n];
                n += 1;
                let at = format!("turn {t} request {r} ({history}, {reasks})");
                if let Err(e) = check_tool_pairing(&request.messages) {
                    prop_assert!(false, "{}: {}\n{:#?}", at, e, request.messages);
                }
                prop_assert_eq!(request.messages[0].role, Role::System);
                prop_assert!(
                    request.messages.last().unwrap().role != Role::Assistant,
                    "{}: a request ends with the environment speaking", at
                );
                let shown: Vec<usize> = (0..turns.len())
                    .filter(|i| mentions(request, &format!("<obs {i}>")))
                    .collect();
                prop_assert_eq!(shown, expected(&history, &keys, t), "{}", at);
                // this turn's earlier re-ask messages are all in the request when kept;
                // else only the latest, and no earlier turn's
                for k in 1..=r {
                    prop_assert_eq!(
                        mentions(request, &format!("<bad {t}.{k}>")),
                        keep || k == r,
                        "{}", at
                    );
                }
                if !keep {
                    for (u, earlier) in turns.iter().enumerate().take(t) {
                        for k in 1..earlier.replies.len() {
                            prop_assert!(!mentions(request, &format!("<bad {u}.{k}>")), "{}", at);
                        }
                    }
                }
                prop_assert_eq!(crate::support::image_parts(request), usize::from(turn.image), "{}", at);
            }
        }
    }
}
