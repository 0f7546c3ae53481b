//! How a model request is recorded in a step row's `request` field.
//!
//! Every agent here logs the same core — the number of messages and the SHA-256 of the
//! request exactly as serialized — so that a row can be matched to what a provider saw
//! without storing megabytes of repeated context; [`RequestLog::Full`] adds the messages.
//! The hash is streamed: a request with images is never held as one JSON buffer.

use escapade_llm::ChatRequest;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::config::RequestLog;

/// Feeds written bytes to a SHA-256.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Lowercase hex SHA-256 of the request's JSON serialization.
pub(crate) fn digest(request: &ChatRequest) -> String {
    let mut hasher = HashWriter(Sha256::new());
    // writing into a hasher cannot fail, and the request types always serialize
    let _ = serde_json::to_writer(&mut hasher, request);
    hex::encode(hasher.0.finalize())
}

/// `{"messages", "sha256"}` of a request, plus `"sent"` (every message) in
/// [`RequestLog::Full`] mode.
pub(crate) fn summary(request: &ChatRequest, log: RequestLog) -> Value {
    let mut record = json!({"messages": request.messages.len(), "sha256": digest(request)});
    if log == RequestLog::Full {
        record["sent"] = serde_json::to_value(&request.messages).unwrap_or(Value::Null);
    }
    record
}

/// The first `max` characters of `text` (whole characters, never a split code point),
/// with a note of how much was cut. Bounds what a model's reply can add to later prompts.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!(
            "{}… [{} more characters cut]",
            &text[..end],
            text[end..].chars().count()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_whole_characters() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("ééé", 1), "é… [2 more characters cut]");
        assert_eq!(clip("", 0), "");
    }
}
