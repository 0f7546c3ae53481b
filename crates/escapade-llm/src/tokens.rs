//! Token counts escapade has to work out without the provider's tokenizer: what a request
//! will cost before it is sent (the cost cap's reservation, `escapade estimate`), and the
//! reasoning part of a reply whose provider does not count it.
//!
//! Text is counted at about four characters a token, the figure the scripted backend
//! reports too, so an estimate and a scripted run count alike. Pictures are counted by
//! the provider's published formula when the backend is OpenAI's or Anthropic's, from the
//! picture's width and height (read from its PNG or JPEG header); other backends get a
//! flat [`OTHER_PICTURE_TOKENS`], the scripted backend's own figure.

use crate::{ChatRequest, Part, Role};

/// Characters per token in the estimates.
pub const CHARS_PER_TOKEN: u64 = 4;

/// Tokens a picture is counted at on backends without a published formula (local and
/// compatible servers, the scripted backend: 1,000 characters' worth).
pub const OTHER_PICTURE_TOKENS: u64 = 250;

/// Tokens every message adds beyond its content (role and separators), as OpenAI's
/// cookbook counts them for its chat models.
pub const MESSAGE_OVERHEAD: u64 = 4;

/// About one token per [`CHARS_PER_TOKEN`] characters, at least one.
pub fn text_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(CHARS_PER_TOKEN).max(1)
}

/// Width and height of a PNG (its IHDR) or a baseline or progressive JPEG (its first SOF
/// segment); `None` for anything else.
pub fn picture_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.starts_with(PNG) && bytes.len() >= 24 && &bytes[12..16] == b"IHDR" {
        let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
        let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
        return Some((w, h));
    }
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut i = 2usize;
    while i + 4 <= bytes.len() {
        if bytes[i] != 0xFF {
            return None;
        }
        let marker = bytes[i + 1];
        if marker == 0xFF {
            i += 1;
            continue;
        }
        let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC)
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let at = i + 5;
            if at + 4 > bytes.len() {
                return None;
            }
            let h = u32::from(u16::from_be_bytes([bytes[at], bytes[at + 1]]));
            let w = u32::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
            return Some((w, h));
        }
        i += 2 + len;
    }
    None
}

/// The tokens one picture costs on `backend` (`provider/model`).
///
/// - `openai/…`: the published tile formula of GPT-4o-class models at `detail` high or
///   auto — fit within 2048×2048, then the shorter side to at most 768, 170 tokens per
///   512-pixel tile plus 85 (platform.openai.com/docs/guides/images-vision, "Calculating
///   costs").
/// - `anthropic/…`: width × height / 750 after fitting the long side within 1568 pixels
///   (docs.anthropic.com/en/docs/build-with-claude/vision, "Evaluate image size").
/// - anything else, or a picture whose size cannot be read: [`OTHER_PICTURE_TOKENS`].
pub fn picture_tokens(backend: &str, bytes: &[u8]) -> u64 {
    let provider = backend.split_once('/').map_or(backend, |(p, _)| p);
    let Some((w, h)) = picture_size(bytes).filter(|(w, h)| *w > 0 && *h > 0) else {
        return OTHER_PICTURE_TOKENS;
    };
    let (w, h) = (f64::from(w), f64::from(h));
    match provider {
        "openai" => {
            let fit = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let shorter = (768.0 / w.min(h)).min(1.0);
            let (w, h) = (w * shorter, h * shorter);
            let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
            85 + 170 * tiles as u64
        }
        "anthropic" => {
            let fit = (1568.0 / w.max(h)).min(1.0);
            ((w * fit) * (h * fit) / 750.0).ceil() as u64
        }
        _ => OTHER_PICTURE_TOKENS,
    }
}

/// The input tokens of `request` on `backend`: text at [`CHARS_PER_TOKEN`], pictures by
/// [`picture_tokens`], [`MESSAGE_OVERHEAD`] per message, and the function schemas as JSON.
/// An assistant message counts as at least `reply_floor` tokens: an estimate made with
/// stand-in replies shorter than a model's counts the history a model's replies would
/// make.
pub fn request_tokens(backend: &str, request: &ChatRequest, reply_floor: u64) -> u64 {
    let mut total = 0u64;
    for m in &request.messages {
        let mut chars = 0usize;
        let mut pictures = 0u64;
        for p in &m.parts {
            match p {
                Part::Text { text } => chars += text.chars().count(),
                Part::Image { .. } => {
                    pictures += picture_tokens(backend, p.picture_bytes().unwrap_or_default())
                }
            }
        }
        for c in &m.tool_calls {
            chars += c.name.chars().count() + c.arguments.chars().count();
        }
        let mut text = (chars as u64).div_ceil(CHARS_PER_TOKEN);
        if m.role == Role::Assistant {
            text = text.max(reply_floor);
        }
        total += MESSAGE_OVERHEAD + text + pictures;
    }
    for t in &request.tools {
        let schema = t.parameters.to_string();
        total += text_tokens(t.name.len() + t.description.chars().count() + schema.len());
    }
    if let Some(schema) = &request.response_schema {
        total += text_tokens(schema.to_string().len());
    }
    total
}

/// The reasoning part of a reply's `output` tokens when the provider does not count it:
/// `output` less the visible reply's tokens (Anthropic bills a thinking block's full
/// thinking but may return a summary of it), else the reasoning text's own count, never
/// more than `output`. Zero without reasoning text.
pub fn reasoning_tokens(output: u64, visible_chars: usize, reasoning: Option<&str>) -> u64 {
    let Some(text) = reasoning.filter(|r| !r.is_empty()) else {
        return 0;
    };
    let visible = (visible_chars as u64).div_ceil(CHARS_PER_TOKEN);
    let by_difference = output.saturating_sub(visible);
    let by_text = text_tokens(text.chars().count());
    by_difference.max(by_text).min(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 2, 0, 0, 0]);
        b
    }

    fn jpeg(w: u16, h: u16) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8];
        b.extend(h.to_be_bytes());
        b.extend(w.to_be_bytes());
        b.extend([1, 1, 0x11, 0]);
        b
    }

    #[test]
    fn sizes_come_from_png_and_jpeg_headers() {
        assert_eq!(picture_size(&png(640, 480)), Some((640, 480)));
        assert_eq!(picture_size(&jpeg(1024, 768)), Some((1024, 768)));
        assert_eq!(picture_size(b"GIF89a"), None);
        assert_eq!(picture_size(&[0xFF, 0xD8, 0xFF]), None);
        assert_eq!(picture_size(&[]), None);
    }

    #[test]
    fn picture_tokens_follow_the_published_formulas() {
        // OpenAI's worked examples: 1024×1024 costs 765, 2048×4096 costs 1105
        assert_eq!(picture_tokens("openai/gpt-4o", &png(1024, 1024)), 765);
        assert_eq!(picture_tokens("openai/gpt-4o", &png(2048, 4096)), 1105);
        // Anthropic: 1092×1092 is about 1590 tokens; a larger picture is fitted first
        assert_eq!(picture_tokens("anthropic/claude", &png(1092, 1092)), 1590);
        assert_eq!(
            picture_tokens("anthropic/claude", &png(3000, 3000)),
            picture_tokens("anthropic/claude", &png(1568, 1568))
        );
        assert_eq!(
            picture_tokens("local/smollm2", &png(64, 64)),
            OTHER_PICTURE_TOKENS
        );
        assert_eq!(picture_tokens("openai/x", b"junk"), OTHER_PICTURE_TOKENS);
    }

    #[test]
    fn requests_count_text_pictures_overhead_and_a_reply_floor() {
        let request = ChatRequest {
            messages: vec![
                Message::text(Role::System, "a".repeat(40)),
                Message::text(Role::Assistant, "go"),
                Message {
                    role: Role::User,
                    parts: vec![Part::png(String::new(), std::sync::Arc::new(png(512, 512)))],
                    tool_calls: Vec::new(),
                    tool_call_id: None,
                },
            ],
            ..ChatRequest::default()
        };
        // 10 + 1 + 255 (one tile) and three overheads
        assert_eq!(
            request_tokens("openai/gpt-4o", &request, 0),
            10 + 1 + 255 + 12
        );
        // the reply counts as 50 when stand-in replies are shorter than a model's
        assert_eq!(
            request_tokens("openai/gpt-4o", &request, 50),
            10 + 50 + 255 + 12
        );
    }

    #[test]
    fn reasoning_is_the_unseen_part_of_the_output() {
        assert_eq!(reasoning_tokens(100, 40, None), 0);
        assert_eq!(reasoning_tokens(100, 40, Some("")), 0);
        // 100 out, 10 of them visible: 90 thinking, though the summary is short
        assert_eq!(reasoning_tokens(100, 40, Some("hmm")), 90);
        // a reasoning text longer than the difference counts, within the output
        assert_eq!(reasoning_tokens(20, 40, Some(&"x".repeat(400))), 20);
    }
}
