//! Socratic mode: pictures turned into text before a model sees them (VisEscape §7).
//!
//! The paper finds that a text-only LLM reasoning over captions written by a vision model
//! often beats the vision model reasoning over the pictures itself (Tables 7 and 13), and
//! VisEscaper replaces past pictures with captions to keep long episodes in context (§5.1).
//! Every model agent here therefore takes its observation through a [`Describer`]:
//! `off` sends the pictures (or, with `images=off`, the world's exact description of each
//! picture, where it has one); `alt` always sends the world's description instead of the
//! picture, which isolates reasoning from perception; `captions` asks a model to caption
//! each picture (the acting model's client, or a `captioner`), once per picture per
//! episode (cached by SHA-256), and sends the caption. A description stands where the
//! picture would: in place of the text's [`IMAGE_PLACEHOLDER`] when it has one (the
//! paper's prompt, `<Current Observation>NORTH side of room - [IMAGE]`, where the
//! original's socratic mode puts the caption), else after the text, as `[image: …]`.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use escapade_core::{Image, Observation, Usage};
use escapade_llm::{ChatRequest, Client, Message, Part, Role};
use serde_json::{Value, json};

use crate::AgentError;
use crate::config::{LlmConfig, RequestLog};
use crate::record::{clip, summary};

/// How pictures reach the acting model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Socratic {
    /// Pictures are sent as pictures (unless `images=off`).
    Off,
    /// Each picture is replaced by the world's exact description of it (`Image::alt`).
    Alt,
    /// Each picture is replaced by a model's caption of it.
    Captions,
}

impl FromStr for Socratic {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Socratic::Off),
            "alt" => Ok(Socratic::Alt),
            "captions" => Ok(Socratic::Captions),
            _ => Err(format!(
                "bad socratic mode `{s}`: expected off, alt or captions"
            )),
        }
    }
}

impl fmt::Display for Socratic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Socratic::Off => "off",
            Socratic::Alt => "alt",
            Socratic::Captions => "captions",
        })
    }
}

/// Longest caption kept, in characters (a runaway captioner cannot flood the prompts).
pub const MAX_CAPTION_CHARS: usize = 2000;

/// Where a text says its picture goes (VisEscape's prompt); a description replaces it.
pub const IMAGE_PLACEHOLDER: &str = "[IMAGE]";

/// What stands for a picture the world gave no description of, under `alt`.
pub const NO_ALT: &str = "no description available";

/// The captioning instructions, in our own words after the paper's Table 21: the text
/// the player reads with the picture names the objects, so the caption can use the same
/// names (Table 21 passes those names explicitly; a generic agent has only the text).
pub fn caption_prompt(context: &str) -> String {
    format!(
        "This picture is what the player of an escape-room game sees right now. The text \
         shown with it is:\n<text>\n{context}\n</text>\n\nDescribe the picture. Rules:\n\
         1. Cover every visual detail (objects, their states, colours, writing, numbers, \
         symbols), briefly and clearly.\n\
         2. Call each visible object by the name the text above uses for it, in double \
         quotes.\n\
         3. Describe only what is visible: no analysis of the room and no advice.\n\
         4. Do not open with phrases such as \"The image shows\" or \"The picture \
         depicts\"."
    )
}

/// An observation as it goes to the acting model.
#[derive(Debug, Clone, Default)]
pub struct Described {
    /// The observation's text with each picture that was replaced by text in place of
    /// an [`IMAGE_PLACEHOLDER`], or (when none is left) on an `[image: …]` line after it.
    pub text: String,
    /// The pictures still sent as pictures.
    pub images: Vec<Image>,
    /// Usage of the caption calls made for this observation.
    pub usage: Usage,
    /// One record per captioned picture (for the step row's `request.captions`).
    pub captions: Vec<Value>,
}

/// Turns observations into what the acting model is sent (see the module docs). One per
/// agent; [`Describer::reset`] at each episode clears the caption cache.
pub struct Describer {
    mode: Socratic,
    images: bool,
    captioner: Option<Client>,
    temperature: f32,
    max_tokens: u32,
    log: RequestLog,
    seed: u64,
    calls: u64,
    /// Caption per picture SHA-256, for this episode.
    cache: BTreeMap<String, String>,
    /// Answers caption calls instead of the captioner and the acting model while an
    /// interrupted episode is replayed ([`crate::AsyncAgent::replay_with`]).
    replay: Option<Client>,
}

impl Describer {
    /// A describer for an agent with `config`; `captioner` overrides the acting model's
    /// client for captions.
    pub fn new(config: &LlmConfig, captioner: Option<Client>) -> Self {
        Describer {
            mode: config.socratic,
            images: config.images,
            captioner,
            temperature: config.temperature,
            max_tokens: config.max_tokens,
            log: config.log,
            seed: 0,
            calls: 0,
            cache: BTreeMap::new(),
            replay: None,
        }
    }

    /// Has caption calls answered by `client` until called with `None` (see
    /// [`crate::AsyncAgent::replay_with`]).
    pub fn replay_with(&mut self, client: Option<Client>) {
        self.replay = client;
    }

    /// Uses `client` for captions instead of the acting model's.
    pub fn set_captioner(&mut self, client: Client) {
        self.captioner = Some(client);
    }

    /// Starts an episode: forgets every caption.
    pub fn reset(&mut self, seed: u64) {
        self.seed = seed;
        self.calls = 0;
        self.cache.clear();
    }

    /// The text and pictures to send for `observation`; `client` captions pictures when
    /// no captioner was given.
    pub async fn describe(
        &mut self,
        client: &Client,
        observation: &Observation,
    ) -> Result<Described, AgentError> {
        let mut out = Described {
            text: observation.text.clone(),
            ..Described::default()
        };
        let mut lines: Vec<String> = Vec::new();
        for image in &observation.images {
            match (self.mode, self.images) {
                (Socratic::Off, true) => out.images.push(image.clone()),
                // a text-only model still reads what the world says the picture shows
                (Socratic::Off, false) => {
                    if let Some(alt) = image.alt.as_deref().filter(|a| !a.trim().is_empty()) {
                        lines.push(alt.trim().to_string());
                    }
                }
                (Socratic::Alt, _) => lines.push(
                    image
                        .alt
                        .as_deref()
                        .map(str::trim)
                        .filter(|a| !a.is_empty())
                        .unwrap_or(NO_ALT)
                        .to_string(),
                ),
                (Socratic::Captions, _) => {
                    let caption = self.caption(client, image, observation, &mut out).await?;
                    lines.push(caption);
                }
            }
        }
        for line in lines {
            if out.text.contains(IMAGE_PLACEHOLDER) {
                out.text = out.text.replacen(IMAGE_PLACEHOLDER, &line, 1);
                continue;
            }
            if !out.text.is_empty() {
                out.text.push('\n');
            }
            out.text.push_str(&format!("[image: {line}]"));
        }
        Ok(out)
    }

    /// The caption of `image`, from the cache or from one model call.
    async fn caption(
        &mut self,
        client: &Client,
        image: &Image,
        observation: &Observation,
        out: &mut Described,
    ) -> Result<String, AgentError> {
        if let Some(caption) = self.cache.get(&image.sha256) {
            out.captions
                .push(json!({"image": image.sha256, "cached": true, "caption": caption}));
            return Ok(caption.clone());
        }
        let request = ChatRequest {
            messages: vec![Message {
                role: Role::User,
                parts: vec![
                    Part::Text {
                        text: caption_prompt(&observation.text),
                    },
                    Part::Image {
                        sha256: image.sha256.clone(),
                        png: std::sync::Arc::new(image.png.clone()),
                    },
                ],
                tool_calls: Vec::new(),
                tool_call_id: None,
            }],
            temperature: Some(self.temperature),
            // distinct from the acting model's seeds, still a function of the episode's
            seed: Some(self.seed.rotate_left(32).wrapping_add(self.calls)),
            max_tokens: Some(self.max_tokens),
            ..ChatRequest::default()
        };
        self.calls += 1;
        let client = self
            .replay
            .as_ref()
            .or(self.captioner.as_ref())
            .unwrap_or(client);
        let completion = client.chat(&request).await?;
        out.usage.add(&completion.usage);
        let text = completion.response.text.trim();
        let caption = if text.is_empty() {
            "the captioner gave no description".to_string()
        } else {
            clip(
                &text.split_whitespace().collect::<Vec<_>>().join(" "),
                MAX_CAPTION_CHARS,
            )
        };
        let mut record = summary(&request, self.log);
        record["image"] = image.sha256.clone().into();
        record["cached"] = false.into();
        record["model"] = client.name().into();
        record["caption"] = caption.clone().into();
        out.captions.push(record);
        self.cache.insert(image.sha256.clone(), caption.clone());
        Ok(caption)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print() {
        for s in ["off", "alt", "captions"] {
            assert_eq!(s.parse::<Socratic>().unwrap().to_string(), s);
        }
        assert!("on".parse::<Socratic>().is_err());
    }

    #[test]
    fn the_caption_prompt_carries_the_names_and_the_rules() {
        let p = caption_prompt("North side of the room. A \"wardrobe\" stands here.");
        assert!(p.contains("wardrobe"));
        assert!(p.contains("double quotes"));
        assert!(
            p.contains("The image shows"),
            "the opener it forbids is named"
        );
    }
}
