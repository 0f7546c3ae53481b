use escapade_llm::{Part, Role};
use serde_json::json;

use crate::support::{harness, image_parts, mentions, pictured, step_to, tools};

/// Three pictured turns under `options`; the requests sent.
async fn play(options: &[(&str, &str)]) -> Vec<escapade_llm::ChatRequest> {
    let mut h = harness(
        &[
            json!({"text": "look", "tool_calls": [{"name": "investigate", "arguments": {"node_id": "N1"}}]}),
        ],
        options,
    );
    h.start(&tools()).await;
    let mut last = None;
    for t in 0..3u8 {
        let observation = pictured(&format!("<obs {t}>"), t);
        h.act(u32::from(t) + 1, &observation, last.as_ref(), &tools())
            .await
            .unwrap();
        last = Some(step_to(&observation, 0.0));
    }
    h.requests()
}

fn sha_of(n: u8) -> String {
    pictured("", n).images[0].sha256.clone()
}

#[tokio::test]
async fn only_the_current_exchange_carries_images() {
    for protocol in ["text", "tools"] {
        let requests = play(&[("protocol", protocol)]).await;
        for (t, request) in requests.iter().enumerate() {
            assert_eq!(image_parts(request), 1, "{protocol} turn {t}");
            let shas: Vec<&str> = request
                .messages
                .iter()
                .flat_map(|m| &m.parts)
                .filter_map(|p| match p {
                    Part::Image { sha256, png } => {
                        assert!(!png.is_empty(), "the bytes travel with the request");
                        Some(sha256.as_str())
                    }
                    Part::Text { .. } => None,
                })
                .collect();
            assert_eq!(shas, [sha_of(t as u8).as_str()], "{protocol} turn {t}");
            // images ride in a user message, after the last assistant message
            let last_assistant = request
                .messages
                .iter()
                .rposition(|m| m.role == Role::Assistant);
            let with_image = request
                .messages
                .iter()
                .position(|m| m.parts.iter().any(|p| matches!(p, Part::Image { .. })))
                .unwrap();
            assert_eq!(request.messages[with_image].role, Role::User);
            assert!(last_assistant.is_none_or(|a| a < with_image));
            // earlier pictures leave a marker, and every observation's text stays
            let markers = request
                .messages
                .iter()
                .filter(|m| m.joined_text().contains("(1 image(s) shown at this step)"))
                .count();
            assert_eq!(markers, t, "{protocol} turn {t}");
            for k in 0..=t {
                assert!(
                    mentions(request, &format!("<obs {k}>")),
                    "{protocol} {t} {k}"
                );
            }
        }
    }
}

#[tokio::test]
async fn images_off_sends_no_images_and_no_markers() {
    let requests = play(&[("images", "off")]).await;
    for request in &requests {
        assert_eq!(image_parts(request), 0);
        assert!(!mentions(request, "image(s) shown"));
    }
    assert!(mentions(&requests[2], "<obs 0>"), "text is still sent");
}
