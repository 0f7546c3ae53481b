//! Integration tests of the model agents over a scripted backend: how replies become
//! actions, how the conversation is assembled and trimmed, re-asks, request logs, images,
//! socratic mode, VisEscape's BaseAgent and VisEscaper, and backend failures. Requests are
//! inspected through a recording backend.

mod actions; // text replies, structured JSON and its schema, the native tools protocol
mod failures; // a backend that fails for good is a retryable `AgentError::Backend`
mod history; // message counts and chosen exchanges under full / last:K / key:K
mod images; // only the current exchange carries images; `images=off` sends none
mod reask; // the re-ask message carries the parser's error, in both protocols
mod request_log; // what step rows record: delta, full, hash
mod socratic; // pictures as text: alt descriptions, cached captions, images=off fallback
mod support; // the recording backend, an agent driver, the tool-call pairing check
mod tool_calls; // every call answered exactly once, even when history trims (property test)
mod visescaper; // BaseAgent and VisEscaper: one prompt per step, memory, analysis, reasoning
