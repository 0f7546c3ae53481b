//! Socratic mode for every model agent: `alt` sends the world's descriptions instead of
//! pictures, `captions` asks a model once per picture per episode and sends its caption,
//! and `images=off` falls back to the descriptions.

use std::collections::BTreeMap;

use escapade_agents::{AsyncAgent, LlmAgent, LlmConfig};
use escapade_core::{Image, Observation};
use escapade_llm::{ChatRequest, Client, Part};
use serde_json::json;

use crate::support::{
    Harness, escaper, harness, image_parts, mentions, prompt, quick_client, side_client, step_to,
};

/// An observation whose picture is `n` (same `n`, same picture), described by the world.
fn seen(text: &str, n: u8) -> Observation {
    Observation {
        text: text.into(),
        images: vec![Image::with_alt(
            vec![0x89, b'P', b'N', b'G', n],
            format!("a red safe with a four-digit lock (picture {n})"),
        )],
        actions: Some(vec!["open safe".into(), "turn to east".into()]),
        role: None,
    }
}

/// Plays the observations in order; the turns.
async fn play(h: &mut Harness, observations: &[Observation]) -> Vec<escapade_core::AgentTurn> {
    h.start(&[]).await;
    let mut turns = Vec::new();
    let mut last = None;
    for (t, observation) in observations.iter().enumerate() {
        turns.push(
            h.act(t as u32 + 1, observation, last.as_ref(), &[])
                .await
                .unwrap(),
        );
        last = Some(step_to(observation, 0.0));
    }
    turns
}

fn is_caption_call(request: &ChatRequest) -> bool {
    prompt(request).starts_with("This picture is what the player")
}

#[tokio::test]
async fn alt_sends_descriptions_and_no_pictures() {
    let observations = [seen("<obs 0>", 0), seen("<obs 1>", 1)];
    for kind in ["llm", "base", "visescaper"] {
        let script = [json!({"text": "[ACTION] open safe"})];
        let mut h = match kind {
            "llm" => harness(&script, &[("socratic", "alt")]),
            _ => escaper(kind, &script, &[("socratic", "alt"), ("reasoning", "off")]),
        };
        play(&mut h, &observations).await;
        let requests = h.requests();
        assert_eq!(requests.len(), 2, "{kind}: no caption calls");
        for (t, request) in requests.iter().enumerate() {
            assert_eq!(image_parts(request), 0, "{kind}");
            let wanted = format!("[image: a red safe with a four-digit lock (picture {t})]");
            assert!(mentions(request, &wanted), "{kind} {t}");
        }
    }
    // a picture the world did not describe is announced, not sent
    let mut h = harness(&[json!({"text": "open safe"})], &[("socratic", "alt")]);
    play(&mut h, &[crate::support::pictured("<obs>", 9)]).await;
    assert_eq!(image_parts(&h.last_request()), 0);
    assert!(mentions(
        &h.last_request(),
        "[image: no description available]"
    ));
}

#[tokio::test]
async fn images_off_falls_back_to_the_description() {
    let mut h = harness(&[json!({"text": "open safe"})], &[("images", "off")]);
    play(&mut h, &[seen("<obs 0>", 0)]).await;
    let request = h.last_request();
    assert_eq!(image_parts(&request), 0);
    assert!(mentions(
        &request,
        "[image: a red safe with a four-digit lock (picture 0)]"
    ));
    // with images on and socratic off, the picture itself goes, with no description
    let mut h = harness(&[json!({"text": "open safe"})], &[]);
    play(&mut h, &[seen("<obs 0>", 0)]).await;
    assert_eq!(image_parts(&h.last_request()), 1);
    assert!(!mentions(&h.last_request(), "[image:"));
}

#[tokio::test]
async fn captions_are_asked_once_per_picture_and_replace_it() {
    // turns see pictures 0, 0, 1: two caption calls, the second turn uses the cache
    let observations = [seen("<obs 0>", 0), seen("<obs 1>", 0), seen("<obs 2>", 1)];
    let script = [
        json!({"text": "A \"safe\" with a keypad.", "usage": {"input": 500, "output": 7}}),
        json!({"text": "open safe", "usage": {"input": 40, "output": 2}}),
        json!({"text": "turn to east", "usage": {"input": 40, "output": 2}}),
        json!({"text": "  The east wall: a \"poster\".  ", "usage": {"input": 500, "output": 9}}),
        json!({"text": "open safe", "usage": {"input": 40, "output": 2}}),
    ];
    let mut h = harness(&script, &[("socratic", "captions")]);
    let turns = play(&mut h, &observations).await;
    let requests = h.requests();
    let captions: Vec<&ChatRequest> = requests.iter().filter(|r| is_caption_call(r)).collect();
    assert_eq!(captions.len(), 2, "same picture, one caption call");
    // the caption call carries the picture and the text that names the objects
    assert_eq!(image_parts(captions[0]), 1);
    assert!(prompt(captions[0]).contains("<obs 0>"));
    assert!(prompt(captions[0]).contains("Do not open with"));
    // the acting model gets the caption, never the picture
    let acting: Vec<&ChatRequest> = requests.iter().filter(|r| !is_caption_call(r)).collect();
    assert_eq!(acting.len(), 3);
    for r in &acting {
        assert_eq!(image_parts(r), 0);
    }
    assert!(mentions(
        acting[1],
        "<obs 1>\n[image: A \"safe\" with a keypad.]"
    ));
    assert!(mentions(acting[2], "[image: The east wall: a \"poster\".]"));
    // caption usage is the turn's; a cached caption costs nothing
    assert_eq!((turns[0].usage.input, turns[0].usage.output), (540, 9));
    assert_eq!((turns[1].usage.input, turns[1].usage.output), (40, 2));
    assert_eq!((turns[2].usage.input, turns[2].usage.output), (540, 11));
    let record = |t: usize| turns[t].request.as_ref().unwrap()["captions"].clone();
    assert_eq!(record(0)[0]["cached"], false);
    assert_eq!(record(1)[0]["cached"], true);
    assert_eq!(record(1)[0]["caption"], "A \"safe\" with a keypad.");
    // a new episode forgets the captions
    play(&mut h, &observations[..1]).await;
    assert_eq!(
        h.requests().iter().filter(|r| is_caption_call(r)).count(),
        3
    );
}

#[tokio::test]
async fn a_captioner_captions_for_the_acting_model_of_any_kind() {
    for kind in ["llm", "visescaper"] {
        let (captioner, captioned) = side_client(&[json!({"text": "a \"safe\""})]);
        let options: BTreeMap<String, String> =
            [("socratic", "captions"), ("captioner", "scripted/other")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let acting = crate::support::Recording::new(&[
            json!({"text": "[ACTION] open safe"}),
            json!({"text": "[ANALYSIS] nothing changed"}),
        ]);
        let client = Client::new(acting.clone(), &quick_client(0));
        let agent: Box<dyn AsyncAgent> = match kind {
            "llm" => {
                let config = LlmConfig::from_options("scripted/test", &options).unwrap();
                Box::new(LlmAgent::new(config, client).with_captioner(captioner))
            }
            _ => {
                let config = escapade_agents::EscaperConfig::from_options(
                    escapade_agents::EscaperKind::VisEscaper,
                    "scripted/test",
                    &options,
                )
                .unwrap();
                Box::new(escapade_agents::Escaper::new(config, client).with_captioner(captioner))
            }
        };
        let mut h = Harness {
            agent,
            backend: acting.clone(),
        };
        play(&mut h, &[seen("<a>", 0), seen("<b>", 0), seen("<c>", 1)]).await;
        assert_eq!(captioned.requests().len(), 2, "{kind}");
        assert!(
            acting.requests().iter().all(|r| !is_caption_call(r)),
            "{kind}"
        );
        assert!(
            acting.requests().iter().all(|r| image_parts(r) == 0),
            "{kind}"
        );
        assert!(
            acting
                .requests()
                .iter()
                .any(|r| mentions(r, "[image: a \"safe\"]")),
            "{kind}"
        );
    }
}

#[tokio::test]
async fn memory_and_analysis_read_the_captions() {
    // visescaper with captions: the analysis compares captioned scenes, as text
    let script = [
        json!({"text": "a closed \"safe\""}),
        json!({"text": "[THINK] open it\n[ACTION] open safe"}),
        json!({"text": "an open \"safe\""}),
        json!({"text": "[ANALYSIS] the safe opened"}),
        json!({"text": "[THINK] look\n[ACTION] turn to east"}),
    ];
    let mut h = escaper("visescaper", &script, &[("socratic", "captions")]);
    play(&mut h, &[seen("<a>", 0), seen("<b>", 1)]).await;
    let requests = h.requests();
    assert_eq!(requests.len(), 5);
    let analysis = prompt(&requests[3]);
    assert!(
        analysis.contains("[image: a closed \"safe\"]"),
        "{analysis}"
    );
    assert!(analysis.contains("[image: an open \"safe\"]"), "{analysis}");
    let parts: Vec<&Part> = requests[4].messages.iter().flat_map(|m| &m.parts).collect();
    assert!(parts.iter().all(|p| matches!(p, Part::Text { .. })));
}

/// VisEscape's prompt says where its picture goes (`… side of room - [IMAGE]`); a
/// description takes that place, as the original's socratic mode puts its caption there.
#[tokio::test]
async fn a_description_takes_the_place_the_text_gives_its_picture() {
    let mut h = harness(&[json!({"text": "open safe"})], &[("socratic", "alt")]);
    let observation = seen(
        "<Current Observation>NORTH side of room - [IMAGE]</Current Observation>\nmore",
        4,
    );
    play(&mut h, &[observation]).await;
    let text = prompt(&h.last_request());
    assert!(
        text.starts_with(
            "<Current Observation>NORTH side of room - a red safe with a four-digit lock \
             (picture 4)</Current Observation>\nmore"
        ),
        "{text}"
    );
    assert!(
        !text.contains("[image:") && !text.contains("[IMAGE]"),
        "{text}"
    );
}
