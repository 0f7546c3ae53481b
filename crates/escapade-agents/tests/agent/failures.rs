use std::collections::BTreeMap;

use escapade_agents::{AgentError, LlmConfig};
use escapade_core::Observation;
use escapade_llm::LlmError;
use serde_json::json;

use crate::support::{harness, harness_with, quick_client};

#[tokio::test]
async fn a_permanent_http_error_is_a_backend_error_that_resume_does_not_replay() {
    let mut h = harness(&[json!({"fault": "http", "status": 400})], &[]);
    h.start(&[]).await;
    let err = h
        .act(1, &Observation::text("a room"), None, &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, AgentError::Backend(LlmError::Http { status: 400, .. })),
        "{err:?}"
    );
    assert!(
        !err.is_retryable(),
        "a 400 fails the same way when replayed"
    );
    assert!(
        err.to_string().starts_with("model backend failed: "),
        "{err}"
    );
    assert_eq!(h.requests().len(), 1, "4xx is not retried");
}

#[tokio::test]
async fn exhausted_retries_are_a_retryable_backend_error() {
    let mut h = harness_with(&[json!({"fault": "server_error"})], &[], quick_client(1));
    h.start(&[]).await;
    let err = h
        .act(1, &Observation::text("a room"), None, &[])
        .await
        .unwrap_err();
    match &err {
        AgentError::Backend(LlmError::RetriesExhausted { attempts, last }) => {
            assert_eq!(*attempts, 2);
            assert!(
                matches!(**last, LlmError::Http { status: 500, .. }),
                "{last:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(err.is_retryable());
    assert_eq!(h.requests().len(), 2, "one try and one retry");
}

#[tokio::test]
async fn a_transient_fault_is_retried_into_a_turn() {
    let mut h = harness_with(
        &[
            json!({"fault": "reset"}),
            json!({"fault": "empty"}),
            json!({"text": "look"}),
        ],
        &[],
        quick_client(3),
    );
    h.start(&[]).await;
    let turn = h
        .act(1, &Observation::text("a room"), None, &[])
        .await
        .unwrap();
    assert_eq!(turn.action, escapade_core::Action::text("look"));
    let requests = h.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests.windows(2).all(|w| w[0] == w[1]),
        "a retry sends the same request"
    );
}

#[test]
fn bad_options_are_not_retryable() {
    let options: BTreeMap<String, String> = [("histroy".to_string(), "full".to_string())].into();
    let err = LlmConfig::from_options("scripted/x", &options).unwrap_err();
    assert!(matches!(err, AgentError::Config(_)), "{err:?}");
    assert!(!err.is_retryable());
}
