//! How many pictures a request may carry, so that a long visual episode keeps going
//! instead of failing when its history outgrows what a provider accepts.
//!
//! Every request passes through [`fit`] before it is sent: past the backend's
//! [`PictureBudget`] (a count and a number of bytes), the oldest pictures are replaced by
//! [`PLACEHOLDER`], which tells the model a picture was left out. When a provider still
//! refuses a request as too large ([`refused_as_too_large`]: HTTP 413, or a 400 about the
//! context length or the number of pictures), the client drops the older half of the
//! pictures left and sends it again; only a request without pictures fails for good (and
//! the agent then trims its history). [`crate::Completion::pictures_dropped`] says how
//! many went, and the agents record it in the step row.

use crate::{ChatRequest, LlmError, Part};

/// What replaces a picture left out of a request.
pub const PLACEHOLDER: &str = "(a picture was left out of this message: the request would \
    have been larger than the provider accepts)";

/// The most pictures, and picture bytes, one request may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureBudget {
    /// Pictures per request.
    pub count: usize,
    /// Bytes of all pictures of a request, as sent (before base64).
    pub bytes: u64,
}

const MB: u64 = 1 << 20;

impl PictureBudget {
    /// No limit.
    pub const UNLIMITED: PictureBudget = PictureBudget {
        count: usize::MAX,
        bytes: u64::MAX,
    };

    /// The default budget of a provider, from its documented limits:
    ///
    /// - `openai`: up to 500 pictures and 50 MB of picture bytes per request
    ///   (platform.openai.com/docs/guides/images-vision, "Image input requirements");
    /// - `anthropic`: up to 100 pictures per request, and a request of at most 32 MB
    ///   (docs.anthropic.com/en/docs/build-with-claude/vision, "Image limits"; the API's
    ///   errors page, `request_too_large`), which base64 leaves 24 MB of pictures within
    ///   (a quarter of the body is the encoding's overhead);
    /// - servers that imitate OpenAI (`openai-compatible`, `local`) document no limit of
    ///   their own here: OpenAI's, and a refusal teaches the client the rest;
    /// - `scripted`: none.
    pub fn of_provider(provider: &str) -> PictureBudget {
        match provider {
            "openai" | "openai-compatible" | "local" => PictureBudget {
                count: 500,
                bytes: 50 * MB,
            },
            "anthropic" => PictureBudget {
                count: 100,
                bytes: 24 * MB,
            },
            _ => PictureBudget::UNLIMITED,
        }
    }
}

/// The pictures of a request: how many, and their bytes.
pub fn count(request: &ChatRequest) -> (usize, u64) {
    let mut n = 0usize;
    let mut bytes = 0u64;
    for p in request.messages.iter().flat_map(|m| &m.parts) {
        if let Some(b) = p.picture_bytes() {
            n += 1;
            bytes += b.len() as u64;
        }
    }
    (n, bytes)
}

/// Replaces the `n` oldest pictures of `request` by [`PLACEHOLDER`]; returns how many it
/// replaced (fewer when the request has fewer).
pub fn drop_oldest(request: &mut ChatRequest, n: usize) -> usize {
    let mut dropped = 0;
    for part in request.messages.iter_mut().flat_map(|m| m.parts.iter_mut()) {
        if dropped == n {
            break;
        }
        if part.picture_bytes().is_some() {
            *part = Part::Text {
                text: PLACEHOLDER.to_string(),
            };
            dropped += 1;
        }
    }
    dropped
}

/// `request` within `budget`: the oldest pictures replaced until the rest fit, and how
/// many were replaced. `None` when it fits as it is (nothing is copied).
pub fn fit(request: &ChatRequest, budget: PictureBudget) -> Option<(ChatRequest, usize)> {
    let (n, bytes) = count(request);
    if n <= budget.count && bytes <= budget.bytes {
        return None;
    }
    // the newest pictures that fit, counted from the end
    let mut kept = 0usize;
    let mut kept_bytes = 0u64;
    for p in request
        .messages
        .iter()
        .rev()
        .flat_map(|m| m.parts.iter().rev())
    {
        if let Some(b) = p.picture_bytes() {
            let size = b.len() as u64;
            if kept + 1 > budget.count || kept_bytes.saturating_add(size) > budget.bytes {
                break;
            }
            kept += 1;
            kept_bytes += size;
        }
    }
    let mut out = request.clone();
    let dropped = drop_oldest(&mut out, n - kept);
    Some((out, dropped))
}

/// Whether a provider refused a request for its size: HTTP 413, or a 400 that says the
/// prompt is longer than the context, too large, or has too many pictures (OpenAI
/// `context_length_exceeded`, Anthropic "prompt is too long", vLLM "At most N image(s)
/// may be provided", llama.cpp `exceed_context_size_error`).
pub fn refused_as_too_large(error: &LlmError) -> bool {
    match error {
        LlmError::Http { status: 413, .. } => true,
        LlmError::Http {
            status: 400, body, ..
        } => {
            let b = body.to_ascii_lowercase();
            b.contains("context")
                || b.contains("too long")
                || b.contains("too large")
                || b.contains("too many")
                || (b.contains("image") && b.contains("at most"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Message, Role};

    fn picture(size: usize, tag: u8) -> Part {
        Part::png(format!("{tag}"), Arc::new(vec![tag; size]))
    }

    fn request(sizes: &[usize]) -> ChatRequest {
        ChatRequest {
            messages: sizes
                .iter()
                .enumerate()
                .map(|(i, s)| Message {
                    role: Role::User,
                    parts: vec![
                        Part::Text {
                            text: format!("step {i}"),
                        },
                        picture(*s, i as u8),
                    ],
                    tool_calls: Vec::new(),
                    tool_call_id: None,
                })
                .collect(),
            ..ChatRequest::default()
        }
    }

    fn tags(r: &ChatRequest) -> Vec<u8> {
        r.messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| p.picture_bytes().map(|b| b[0]))
            .collect()
    }

    #[test]
    fn the_oldest_pictures_go_first_and_say_so() {
        let r = request(&[10, 10, 10, 10]);
        assert!(fit(&r, PictureBudget::UNLIMITED).is_none());
        let (by_count, n) = fit(
            &r,
            PictureBudget {
                count: 2,
                bytes: u64::MAX,
            },
        )
        .unwrap();
        assert_eq!((tags(&by_count), n), (vec![2, 3], 2));
        assert_eq!(
            by_count.messages[0].joined_text(),
            format!("step 0\n{PLACEHOLDER}")
        );
        let (by_bytes, n) = fit(
            &r,
            PictureBudget {
                count: 100,
                bytes: 25,
            },
        )
        .unwrap();
        assert_eq!((tags(&by_bytes), n), (vec![2, 3], 2));
        // a newest picture larger than the budget leaves none
        let (none, n) = fit(
            &request(&[5, 50]),
            PictureBudget {
                count: 9,
                bytes: 20,
            },
        )
        .unwrap();
        assert_eq!((tags(&none), n), (vec![], 2));
    }

    #[test]
    fn size_refusals_are_recognised() {
        let http = |status, body: &str| LlmError::Http {
            status,
            body: body.into(),
            retry_after: None,
        };
        assert!(refused_as_too_large(&http(413, "")));
        assert!(refused_as_too_large(&http(
            400,
            "This model's maximum context length is 128000 tokens"
        )));
        assert!(refused_as_too_large(&http(
            400,
            "At most 1 image(s) may be provided in one request."
        )));
        assert!(!refused_as_too_large(&http(400, "invalid model")));
        assert!(!refused_as_too_large(&http(500, "too large")));
    }
}
