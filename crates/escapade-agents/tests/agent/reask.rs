use std::collections::BTreeMap;

use escapade_agents::{AsyncAgent, LlmConfig};
use escapade_core::{Action, Observation};
use escapade_llm::Role;
use serde_json::json;

use crate::support::{check_tool_pairing, harness, roles, tools};

const PARSER: &str = "unknown action `junk`: send inc or dec";

#[tokio::test]
async fn a_reask_sends_the_parsers_error_after_the_rejected_reply() {
    let mut h = harness(&[json!({"text": "junk"}), json!({"text": "inc"})], &[]);
    h.start(&[]).await;
    let observation = Observation::text("count 0 of 2");
    let first = h.act(1, &observation, None, &[]).await.unwrap();
    assert_eq!(first.action, Action::text("junk"));
    let second = h.reask(PARSER, 1, &observation, None, &[]).await.unwrap();
    assert_eq!(second.action, Action::text("inc"));

    let request = h.last_request();
    assert_eq!(
        roles(&request),
        [Role::System, Role::User, Role::Assistant, Role::User]
    );
    assert_eq!(request.messages[2].joined_text(), "junk");
    let reask = request.messages[3].joined_text();
    assert!(reask.contains(PARSER), "{reask}");
    // the accepted reply's log (the one a step row keeps) covers the whole turn: the
    // observation, the rejected reply and the re-ask, and the system prompt
    let logged = second.request.unwrap();
    assert_eq!(logged["system"], crate::support::SYSTEM);
    let new = logged["new"].as_array().unwrap();
    let roles: Vec<&str> = new.iter().map(|e| e["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["env", "model", "env"]);
    assert_eq!(new[0]["text"], observation.text);
    assert_eq!(new[1]["text"], "junk");
    assert!(
        new[2]["text"].as_str().unwrap().contains(PARSER),
        "{logged}"
    );
}

#[tokio::test]
async fn a_rejected_call_is_answered_with_the_parsers_error() {
    let mut h = harness(
        &[
            json!({"tool_calls": [
                {"name": "investigate", "arguments": "{not json", "id": "bad"},
                {"name": "open", "arguments": {"node_id": "N2"}, "id": "extra"},
            ]}),
            json!({"tool_calls": [{"name": "investigate", "arguments": {"node_id": "N1"}, "id": "good"}]}),
        ],
        &[("protocol", "tools")],
    );
    h.start(&tools()).await;
    let observation = Observation::text("a desk (N1)");
    h.act(1, &observation, None, &tools()).await.unwrap();
    let error = "arguments of investigate are not JSON";
    let turn = h
        .reask(error, 1, &observation, None, &tools())
        .await
        .unwrap();
    assert_eq!(
        turn.action,
        Action::call("investigate", r#"{"node_id":"N1"}"#)
    );
    let request = h.last_request();
    check_tool_pairing(&request.messages).unwrap();
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
    let answer = &request.messages[3];
    assert_eq!(answer.tool_call_id.as_deref(), Some("bad"));
    assert!(answer.joined_text().contains(error), "{answer:?}");
    assert!(
        request.messages[4]
            .joined_text()
            .starts_with("Not executed"),
        "{:?}",
        request.messages[4]
    );
}

#[test]
fn the_reask_option_sets_the_agents_limit() {
    let make = |pairs: &[(&str, &str)]| {
        let options: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let config = LlmConfig::from_options("scripted/x", &options).unwrap();
        let backend = crate::support::Recording::new(&[json!({"text": "x"})]);
        escapade_agents::LlmAgent::new(
            config,
            escapade_llm::Client::new(backend, &escapade_llm::ClientOptions::default()),
        )
    };
    assert_eq!(make(&[]).reask_limit(), None, "the world decides");
    assert_eq!(make(&[("reask", "0")]).reask_limit(), Some(0));
    assert_eq!(make(&[("reask", "4")]).reask_limit(), Some(4));
}

/// Issue 25: in both originals a retry never enters the history (MM-Escape's client asks
/// again without recording the refused reply; VisEscape's retry is a prompt of its
/// own). By default a refused reply and its re-ask leave the conversation once a reply
/// is taken, and a second re-ask carries only the latest refusal; `reask_history=keep`
/// keeps them all, as escapade did before.
#[tokio::test]
async fn refused_replies_and_their_reasks_leave_the_conversation() {
    let script = [
        json!({"text": "junk-1"}),
        json!({"text": "junk-2"}),
        json!({"text": "inc"}),
        json!({"text": "dec"}),
    ];
    for keep in [false, true] {
        let options: &[(&str, &str)] = if keep {
            &[("reask_history", "keep")]
        } else {
            &[]
        };
        let mut h = harness(&script, options);
        h.start(&[]).await;
        let first = Observation::text("count 0 of 2");
        h.act(1, &first, None, &[]).await.unwrap();
        h.reask(PARSER, 1, &first, None, &[]).await.unwrap();
        // the second re-ask: the first refusal and its message are gone (by default)
        let turn = h
            .reask("junk-2 is no action", 1, &first, None, &[])
            .await
            .unwrap();
        assert_eq!(turn.action, Action::text("inc"));
        let second_reask = h.last_request();
        assert_eq!(
            crate::support::mentions(&second_reask, "junk-1"),
            keep,
            "{second_reask:?}"
        );
        assert!(crate::support::mentions(
            &second_reask,
            "junk-2 is no action"
        ));
        // the next turn sees the observation and the reply taken, nothing refused
        let next = Observation::text("count 1 of 2");
        let step = crate::support::step_to(&next, 0.5);
        h.act(2, &next, Some(&step), &[]).await.unwrap();
        let request = h.last_request();
        for refused in ["junk-1", "junk-2", PARSER, "could not be used"] {
            assert_eq!(
                crate::support::mentions(&request, refused),
                keep,
                "{refused} (keep: {keep})"
            );
        }
        if !keep {
            assert_eq!(
                roles(&request),
                [Role::System, Role::User, Role::Assistant, Role::User]
            );
            assert_eq!(request.messages[2].joined_text(), "inc");
        }
    }
}

#[tokio::test]
async fn a_reply_cut_at_the_token_limit_is_recorded_as_cut_and_the_reask_says_so() {
    let mut h = harness(
        &[
            json!({"text": "I think the best move is to", "finish_reason": "length",
                   "usage": {"input": 20, "output": 64, "reasoning": 60}}),
            json!({"text": "inc"}),
        ],
        &[("max_tokens", "64")],
    );
    h.start(&[]).await;
    let observation = Observation::text("count 0 of 2");
    let cut = h.act(1, &observation, None, &[]).await.unwrap();
    assert_eq!((cut.usage.truncated, cut.usage.reasoning), (1, 60));
    let again = h.reask(PARSER, 1, &observation, None, &[]).await.unwrap();
    assert_eq!(again.usage.truncated, 0);
    let reask = h.last_request().messages[3].joined_text();
    assert!(reask.contains(PARSER), "{reask}");
    assert!(
        reask.contains("cut off at the limit of 64 tokens"),
        "{reask}"
    );
}
