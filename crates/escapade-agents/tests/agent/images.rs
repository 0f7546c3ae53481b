use escapade_agents::llm::IMAGES_LEFT_OUT;
use escapade_llm::picture::{MediaType, to_jpeg};
use escapade_llm::{Detail, Part, Role};
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
                    Part::Image { sha256, bytes, .. } => {
                        assert!(!bytes.is_empty(), "the bytes travel with the request");
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

/// A real PNG of 64 × 48 pixels, different for each `n`.
fn real_png(n: u8) -> escapade_core::Image {
    let img = image::RgbImage::from_fn(64, 48, |x, y| {
        image::Rgb([(x as u8).wrapping_mul(n), (y as u8).wrapping_add(n), n])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    escapade_core::Image::from_png(out.into_inner())
}

/// Turns whose observations carry real pictures, under `options`; the requests sent and
/// the request records.
async fn play_real(
    turns: u8,
    options: &[(&str, &str)],
) -> (Vec<escapade_llm::ChatRequest>, Vec<serde_json::Value>) {
    let mut h = harness(&[json!({"text": "look"})], options);
    h.start(&[]).await;
    let mut last = None;
    let mut records = Vec::new();
    for t in 0..turns {
        let observation = escapade_core::Observation {
            images: vec![real_png(t + 1)],
            ..escapade_core::Observation::text(format!("<obs {t}>"))
        };
        let turn = h
            .act(u32::from(t) + 1, &observation, last.as_ref(), &[])
            .await
            .unwrap();
        records.push(turn.request.unwrap());
        last = Some(step_to(&observation, 0.0));
    }
    (h.requests(), records)
}

/// Issue 25: MM-Escape's client resends every frame of the conversation (the last 50
/// steps for GPT and Claude); `history_images=all` sends the picture of every exchange
/// the history sends, newest first while they fit the image budget, and the request's
/// record says how many it left out.
#[tokio::test]
async fn history_images_all_sends_every_frame_within_the_budget() {
    let (requests, records) = play_real(4, &[("history_images", "all")]).await;
    let counts: Vec<usize> = requests.iter().map(image_parts).collect();
    assert_eq!(counts, [1, 2, 3, 4], "one more frame each turn");
    assert!(!mentions(&requests[3], "image(s) shown"));
    assert!(records.iter().all(|r| r.get(IMAGES_LEFT_OUT).is_none()));
    // pictures in order, each after its own observation's text
    let shas: Vec<String> = requests[3]
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Image { sha256, .. } => Some(sha256.clone()),
            Part::Text { .. } => None,
        })
        .collect();
    let wanted: Vec<String> = (1..=4).map(|n| real_png(n).sha256).collect();
    assert_eq!(shas, wanted);
    // a budget of about two pictures keeps the newest two; the rest become markers
    let one = real_png(1).png.len() as f64;
    let budget = format!("{}", (2.5 * one) / 1e6);
    let (requests, records) =
        play_real(4, &[("history_images", "all"), ("image_budget", &budget)]).await;
    let counts: Vec<usize> = requests.iter().map(image_parts).collect();
    assert_eq!(counts, [1, 2, 2, 2]);
    assert_eq!(records[3][IMAGES_LEFT_OUT], 2, "{}", records[3]);
    assert!(records[1].get(IMAGES_LEFT_OUT).is_none());
    assert!(mentions(&requests[3], "(1 image(s) shown at this step)"));
    // the current picture always goes, however small the budget
    let (requests, _) = play_real(
        2,
        &[("history_images", "all"), ("image_budget", "0.000001")],
    )
    .await;
    assert_eq!(requests.iter().map(image_parts).collect::<Vec<_>>(), [1, 1]);
}

/// Issue 25: VisEscape's original re-encodes each view as JPEG (quality 75) and asks
/// OpenAI models for `detail: "low"`; the agent sends what `pictures` and `detail` say,
/// the world's PNG by default.
#[tokio::test]
async fn pictures_go_in_the_format_the_options_name() {
    let (requests, _) = play_real(1, &[]).await;
    let image = |r: &escapade_llm::ChatRequest| {
        r.messages
            .iter()
            .flat_map(|m| &m.parts)
            .find_map(|p| match p {
                Part::Image {
                    media_type,
                    detail,
                    bytes,
                    sha256,
                } => Some((*media_type, *detail, bytes.clone(), sha256.clone())),
                Part::Text { .. } => None,
            })
            .unwrap()
    };
    let (media, detail, bytes, _) = image(&requests[0]);
    assert_eq!((media, detail), (MediaType::Png, None));
    assert_eq!(*bytes, real_png(1).png);
    let (requests, _) = play_real(1, &[("pictures", "jpeg"), ("detail", "low")]).await;
    let (media, detail, bytes, sha) = image(&requests[0]);
    assert_eq!((media, detail), (MediaType::Jpeg, Some(Detail::Low)));
    assert_eq!(&bytes[..2], &[0xff, 0xd8], "a JPEG");
    assert_eq!(*bytes, to_jpeg(&real_png(1).png, 75).unwrap(), "quality 75");
    assert_eq!(sha, real_png(1).sha256, "named by the rendered PNG");
}
