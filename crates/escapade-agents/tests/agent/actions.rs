use escapade_core::{Action, Observation};
use escapade_llm::Role;
use serde_json::json;

use crate::support::{SYSTEM, harness, roles, tools};

#[tokio::test]
async fn a_text_reply_becomes_a_text_action() {
    let mut h = harness(
        &[json!({
            "text": "investigate N1",
            "reasoning": "start with the desk",
            "usage": {"input": 17, "output": 3, "cached": 5},
        })],
        &[],
    );
    h.start(&tools()).await;
    let observation = Observation::text("A desk (N1) and a door (N2).");
    let turn = h.act(1, &observation, None, &tools()).await.unwrap();
    assert_eq!(turn.action, Action::text("investigate N1"));
    assert_eq!(turn.raw_response.as_deref(), Some("investigate N1"));
    assert_eq!(turn.reasoning.as_deref(), Some("start with the desk"));
    assert_eq!(
        (turn.usage.input, turn.usage.output, turn.usage.cached),
        (17, 3, 5)
    );

    let request = h.last_request();
    assert_eq!(roles(&request), [Role::System, Role::User]);
    assert_eq!(request.messages[0].joined_text(), SYSTEM);
    assert_eq!(request.messages[1].joined_text(), observation.text);
    assert!(
        request.tools.is_empty(),
        "the text protocol sends no function schemas"
    );
    assert_eq!(request.response_schema, None);
    assert_eq!(request.temperature, Some(0.0));
}

#[tokio::test]
async fn structured_json_becomes_a_call_and_the_request_carries_the_schema() {
    let reply = r#"{"tool": "investigate", "arguments": {"node_id": "N1"}}"#;
    for protocol in ["text", "tools"] {
        let mut h = harness(
            &[json!({"text": reply})],
            &[("structured", "on"), ("protocol", protocol)],
        );
        h.start(&tools()).await;
        let turn = h
            .act(1, &Observation::text("a desk"), None, &tools())
            .await
            .unwrap();
        assert_eq!(
            turn.action,
            Action::call("investigate", r#"{"node_id":"N1"}"#),
            "{protocol}"
        );
        let request = h.last_request();
        let schema = request
            .response_schema
            .as_ref()
            .expect("structured requests carry a response schema");
        let variants = schema["anyOf"]
            .as_array()
            .expect("one variant per function");
        assert_eq!(variants.len(), 2);
        assert_eq!(variants[0]["properties"]["tool"]["const"], "investigate");
        assert_eq!(variants[1]["properties"]["tool"]["const"], "open");
        assert!(
            request.tools.is_empty(),
            "{protocol}: constrained replies replace native tool calls"
        );
        let system = request.messages[0].joined_text();
        assert!(
            system.starts_with(SYSTEM) && system.contains("Reply with a JSON object"),
            "{system}"
        );
        // the step row records the schema too
        let logged = turn.request.unwrap();
        assert_eq!(&logged["response_schema"], schema);
    }
}

#[tokio::test]
async fn structured_json_without_functions_becomes_text() {
    let mut h = harness(
        &[json!({"text": "```json\n{\"action\": \"open door\"}\n```"})],
        &[("structured", "on")],
    );
    h.start(&[]).await;
    let mut observation = Observation::text("a door");
    observation.actions = Some(vec!["open door".into(), "look".into()]);
    let turn = h.act(1, &observation, None, &[]).await.unwrap();
    assert_eq!(turn.action, Action::text("open door"));
    let schema = h.last_request().response_schema.unwrap();
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["open door", "look"])
    );
}

#[tokio::test]
async fn unstructured_json_stays_text() {
    let reply = r#"{"tool": "investigate", "arguments": {"node_id": "N1"}}"#;
    let mut h = harness(&[json!({"text": reply})], &[]);
    h.start(&tools()).await;
    let turn = h
        .act(1, &Observation::text("a desk"), None, &tools())
        .await
        .unwrap();
    assert_eq!(turn.action, Action::text(reply));
    assert_eq!(h.last_request().response_schema, None);
}

#[tokio::test]
async fn the_tools_protocol_sends_schemas_and_reads_the_first_call() {
    let mut h = harness(
        &[
            json!({"text": "Let me look.", "tool_calls": [
                {"name": "investigate", "arguments": {"node_id": "N1"}, "id": "c1"},
            ]}),
            json!({"text": "give_up"}),
        ],
        &[("protocol", "tools")],
    );
    h.start(&tools()).await;
    let first = Observation::text("a desk");
    let turn = h.act(1, &first, None, &tools()).await.unwrap();
    assert_eq!(
        turn.action,
        Action::call("investigate", r#"{"node_id":"N1"}"#)
    );
    let raw: serde_json::Value = serde_json::from_str(&turn.raw_response.unwrap()).unwrap();
    assert_eq!(raw["text"], "Let me look.");
    assert_eq!(raw["tool_calls"][0]["id"], "c1");
    assert_eq!(h.last_request().tools, tools());
    // a reply without a call is read as text
    let second = Observation::text("the desk is empty");
    let last = crate::support::step_to(&second, 0.0);
    let turn = h.act(2, &second, Some(&last), &tools()).await.unwrap();
    assert_eq!(turn.action, Action::text("give_up"));
}
