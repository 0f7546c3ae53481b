//! Answers as MCP content: the observation's text, its pictures as PNG images (base64),
//! and the episode's state as structured content (and a line of text for clients that
//! show only text).

use base64::Engine;
use escapade_core::Observation;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use super::play::{Held, View};

/// The text and pictures of an observation.
pub fn observation(o: &Observation) -> Vec<ContentBlock> {
    let mut out = vec![ContentBlock::text(o.text.clone())];
    for image in &o.images {
        out.push(ContentBlock::image(
            base64::engine::general_purpose::STANDARD.encode(&image.png),
            "image/png",
        ));
    }
    out
}

/// The episode's state after a call: whose turn, actions taken, how the last step
/// went, the oracle's distance from here (`steps_to_go`), and the ending once over.
pub fn state(e: &Held, v: &View, distance: bool) -> Value {
    let mut s = json!({
        "episode": e.id,
        "world": e.world,
        "scenario": e.scenario,
        "actions": e.actions,
        "over": v.over(),
    });
    if let Some(role) = &v.role {
        s["turn"] = json!(role);
    }
    if let Some(seat) = &e.seat {
        s["you_play"] = json!(seat);
    }
    if let Some(why) = &v.unreadable {
        s["unreadable"] = json!(why);
    }
    // the oracle's distance from here, a training signal (null where the world cannot
    // say), only when the server was asked for it (`escapade mcp --steps-to-go`)
    if distance {
        s["steps_to_go"] = json!(v.steps_to_go);
    }
    if let Some(step) = &v.step {
        s["valid"] = json!(step.valid());
        s["error"] = json!(step.error);
        s["progress"] = json!(if step.progress.is_finite() {
            step.progress
        } else {
            0.0
        });
        s["terminated"] = json!(step.terminated);
        s["truncated"] = json!(step.truncated);
    }
    if let Some(end) = &v.ending {
        s["outcome"] = json!({
            "success": end.success,
            "steps": end.steps,
            "terminated": end.terminated,
            "truncated": end.truncated,
            "metrics": end.metrics,
            "error": end.error,
        });
    }
    s
}

/// One line saying where the episode stands.
pub fn status_line(e: &Held, v: &View) -> String {
    match (&v.ending, &v.role) {
        (Some(end), _) => {
            let how = if end.success {
                "escaped"
            } else {
                "not escaped"
            };
            let metrics: Vec<String> = end
                .metrics
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let why = end
                .error
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            format!(
                "[episode over: {how} after {} steps{why}; {}]",
                end.steps,
                metrics.join(", ")
            )
        }
        (None, Some(role)) => format!("[{} actions taken; the {role}'s turn]", e.actions),
        (None, None) => format!("[{} actions taken]", e.actions),
    }
}

/// A successful answer: `blocks`, the status line, and the state as structured content
/// (with `steps_to_go` when `distance`).
pub fn success(
    e: &Held,
    v: &View,
    mut blocks: Vec<ContentBlock>,
    distance: bool,
) -> CallToolResult {
    blocks.push(ContentBlock::text(status_line(e, v)));
    let mut r = CallToolResult::success(blocks);
    r.structured_content = Some(state(e, v, distance));
    r
}

/// A tool error the client sees (`isError`).
pub fn error(message: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_string())])
}
