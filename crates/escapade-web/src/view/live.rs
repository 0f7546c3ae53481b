//! Live updates of a run in progress: server-sent events that follow its
//! `episodes.jsonl` (new episode rows, and the figures the progress bar of `escapade run`
//! shows), so its page grows without reloading.
//!
//! `GET /events?run=…&from=N` sends the rows after the first `N`: an `episode` event per
//! new row (its table row, rendered), then a `figures` event (JSON). It looks at the file
//! twice a second and only reads it again when its length changed; it sends `done` once
//! every planned episode is in, and ends.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use escapade_run::runner::human_count;
use futures::Stream;
use serde::Serialize;

use super::run::{EpisodeLine, episode_row_html, episode_rows};
use super::runs::{Figures, run_line};
use super::{query_pairs, required};
use crate::error::Problem;
use crate::server::Site;

/// How often the run directory is looked at.
pub const POLL: Duration = Duration::from_millis(500);

/// The live figures as the page shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveFigures {
    /// Episodes finished.
    pub done: usize,
    /// Episodes planned.
    pub planned: usize,
    /// Share finished, in percent (for the bar).
    pub done_pct: f64,
    /// `success 50.0%`, or empty before the first episode.
    pub success: String,
    /// Tokens, shortened (`12.3k`), or empty.
    pub tokens: String,
    /// `$0.0123`, or empty.
    pub cost: String,
    /// Episodes that ended with an error.
    pub errors: usize,
}

/// The figures `escapade run`'s progress bar shows, for `planned` episodes.
pub fn figures_view(f: &Figures, planned: usize) -> LiveFigures {
    LiveFigures {
        done: f.done,
        planned,
        done_pct: if planned == 0 {
            0.0
        } else {
            (f.done as f64 * 100.0 / planned as f64).min(100.0)
        },
        success: if f.done > 0 {
            format!("{:.1}%", f.successes as f64 * 100.0 / f.done as f64)
        } else {
            String::new()
        },
        tokens: if f.tokens > 0 {
            human_count(f.tokens)
        } else {
            String::new()
        },
        cost: if f.cost_usd > 0.0 {
            format!("${:.4}", f.cost_usd)
        } else {
            String::new()
        },
        errors: f.errors,
    }
}

/// `GET /events?run=…&from=N`.
pub async fn events(
    State(site): State<Arc<Site>>,
    RawQuery(query): RawQuery,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Problem> {
    let pairs = query_pairs(query.as_deref())?;
    let id = required(&pairs, "run")?.to_string();
    let from: usize = match pairs.iter().find(|(k, _)| k == "from") {
        None => 0,
        Some((_, v)) => v.parse().map_err(|_| {
            Problem::bad_request(
                "malformed parameter",
                format!("from=`{v}` is not a count of episodes"),
            )
        })?,
    };
    let dir = site.folders.resolve(&id)?;
    let episodes = dir.join(escapade_run::rundir::EPISODES);
    let stream = futures::stream::unfold(
        (from, None::<u64>, false),
        move |(sent, seen_len, finished)| {
            let (dir, episodes, id) = (dir.clone(), episodes.clone(), id.clone());
            async move {
                if finished {
                    return None;
                }
                loop {
                    let len = tokio::fs::metadata(&episodes).await.map(|m| m.len()).ok();
                    if len.is_some() && len != seen_len {
                        let (dir2, id2) = (dir.clone(), id.clone());
                        let read = tokio::task::spawn_blocking(move || {
                            let rows = episode_rows(&dir2)?;
                            Ok::<_, Problem>((rows, run_line(&id2, &dir2).planned))
                        })
                        .await;
                        if let Ok(Ok((rows, planned))) = read {
                            let mut events = Vec::new();
                            for row in rows.iter().skip(sent) {
                                if let Ok(html) = episode_row_html(&id, &EpisodeLine::of(row)) {
                                    events.push(Event::default().event("episode").data(html));
                                }
                            }
                            let figures = figures_view(&Figures::of(&rows), planned);
                            let done = planned > 0 && rows.len() >= planned;
                            if let Ok(ev) = Event::default().event("figures").json_data(&figures) {
                                events.push(ev);
                            }
                            if done {
                                events.push(
                                    Event::default()
                                        .event("done")
                                        .data("all planned episodes are in"),
                                );
                            }
                            let sent_now = rows.len().max(sent);
                            let batch = futures::stream::iter(events.into_iter().map(Ok));
                            return Some((batch, (sent_now, len, done)));
                        }
                    }
                    tokio::time::sleep(POLL).await;
                }
            }
        },
    );
    use futures::StreamExt;
    Ok(Sse::new(stream.flatten()).keep_alive(KeepAlive::default()))
}

/// One run's figures on the runs page, sent when they change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunFigures {
    /// The run's id (the row's `data-run`).
    pub id: String,
    /// `done / planned`.
    pub episodes: String,
    /// `50.0%`, or `—`.
    pub success: String,
    /// `$0.0123`, or `—`.
    pub cost: String,
    /// Episodes that ended with an error.
    pub errors: usize,
}

/// `GET /events/runs`: the runs page's rows as they change (a `run` event with
/// [`RunFigures`] for each run whose figures differ from the last sent; all of them
/// first). Runs unchanged on disk cost a file-length look each time.
pub async fn runs_events(
    State(site): State<Arc<Site>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = futures::stream::unfold(
        std::collections::BTreeMap::<String, RunFigures>::new(),
        move |mut sent| {
            let site = site.clone();
            async move {
                loop {
                    let s = site.clone();
                    let lines = tokio::task::spawn_blocking(move || super::runs::run_lines(&s))
                        .await
                        .unwrap_or_default();
                    let mut events = Vec::new();
                    for l in lines {
                        let f = RunFigures {
                            id: l.id.clone(),
                            episodes: format!("{} / {}", l.done, l.planned),
                            success: l
                                .success_pct()
                                .map_or("—".to_string(), |p| format!("{p:.1}%")),
                            cost: if l.cost_usd > 0.0 {
                                format!("${:.4}", l.cost_usd)
                            } else {
                                "—".to_string()
                            },
                            errors: l.errors,
                        };
                        if sent.get(&l.id) != Some(&f) {
                            if let Ok(ev) = Event::default().event("run").json_data(&f) {
                                events.push(Ok(ev));
                            }
                            sent.insert(l.id, f);
                        }
                    }
                    if !events.is_empty() {
                        return Some((futures::stream::iter(events), sent));
                    }
                    tokio::time::sleep(POLL * 2).await;
                }
            }
        },
    );
    use futures::StreamExt;
    Sse::new(stream.flatten()).keep_alive(KeepAlive::default())
}
