//! `escapade view`: the pages over run directories.
//!
//! - `/` — every run under the folders ([`runs`]), filterable, several picked to compare;
//! - `/run?id=…` — one run: its settings, live figures and episodes;
//! - `/report?run=…&run=…` — the report of one or more runs, plots inline;
//! - `/episode?run=…&scenario=…&epoch=…` — a trajectory step by step;
//! - `/compare?a=…&b=…&scenario=…&epoch=…` — two runs side by side on one scenario;
//! - `/media?run=…&sha=…` — a picture an agent saw;
//! - `/events?run=…` — live updates of a run in progress (server-sent events);
//! - `/events/runs` — the runs page's figures as runs progress (server-sent events).
//!
//! Every handler only reads; none writes to a run directory.

use std::sync::Arc;

use axum::Router;
use axum::routing::get;

use crate::error::Problem;
use crate::server::Site;

pub mod episode; // an episode step by step, two runs side by side, the pictures
pub mod live; // server-sent events following a run in progress
pub mod markdown; // the report's Markdown as HTML
pub mod report; // the report of one or more runs, plots inline
pub mod run; // one run: settings, live figures, episodes
pub mod runs; // the runs page and each run's one-line summary

/// The viewer's routes.
pub fn routes() -> Router<Arc<Site>> {
    Router::new()
        .route("/", get(runs::page))
        .route("/run", get(run::page))
        .route("/report", get(report::page))
        .route("/episode", get(episode::page))
        .route("/compare", get(episode::compare))
        .route("/media", get(episode::media))
        .route("/events", get(live::events))
        .route("/events/runs", get(live::runs_events))
}

/// The query string as `(key, value)` pairs in order (keys may repeat: `run=a&run=b`).
pub fn query_pairs(query: Option<&str>) -> Result<Vec<(String, String)>, Problem> {
    serde_urlencoded::from_str(query.unwrap_or("")).map_err(|e| {
        Problem::bad_request(
            "malformed query",
            format!("the query string does not parse: {e}"),
        )
    })
}

/// The one value of `key` in `pairs`, or a 400 naming it.
pub fn required<'a>(pairs: &'a [(String, String)], key: &str) -> Result<&'a str, Problem> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| {
            Problem::bad_request(
                "missing parameter",
                format!("this page needs `{key}=…` in its address"),
            )
        })
}
