//! Live updates of a run in progress: server-sent events that follow its
//! `episodes.jsonl` (new episode rows, and the figures the progress bar of `escapade run`
//! shows), so its page grows without reloading.
//!
//! `GET /events?run=…&from=N` sends the rows after the first `N`: an `episode` event per
//! new row (its table row, rendered), then a `figures` event (JSON); and a `playing`
//! event (the list of episodes in progress, rendered) whenever that list changes. It looks at the file
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

use super::run::{EpisodeLine, episode_row_html, episode_rows, playing_html, unfinished};
use super::runs::{Figures, planned, status};
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

/// What the stream of one run has sent and seen.
struct Follow {
    /// Episode rows sent.
    sent: usize,
    /// The length of `episodes.jsonl` when last read.
    seen_len: Option<u64>,
    /// Every planned episode is in: the stream ends.
    finished: bool,
    /// The rows last read.
    rows: Arc<Vec<escapade_core::EpisodeRow>>,
    /// The list of unfinished episodes last sent.
    playing: Option<String>,
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
    let start = Follow {
        sent: from,
        seen_len: None,
        finished: false,
        rows: Arc::new(Vec::new()),
        playing: None,
    };
    let stream = futures::stream::unfold(start, move |mut state| {
        let (dir, episodes, id) = (dir.clone(), episodes.clone(), id.clone());
        async move {
            if state.finished {
                return None;
            }
            loop {
                let len = tokio::fs::metadata(&episodes).await.map(|m| m.len()).ok();
                let changed = len.is_some() && len != state.seen_len;
                let (dir2, id2, before) = (dir.clone(), id.clone(), state.rows.clone());
                let read = tokio::task::spawn_blocking(move || {
                    let rows = match changed {
                        true => Arc::new(episode_rows(&dir2)?),
                        false => before,
                    };
                    let toml = escapade_run::rundir::read_run_toml(&dir2)
                        .map_err(|e| Problem::internal(e.to_string()))?;
                    let planned = planned(&toml.config);
                    let playing = unfinished(&dir2, &toml.config, &rows);
                    let status = status(&dir2, rows.len(), planned);
                    let html = playing_html(&id2, &playing, status)?;
                    Ok::<_, Problem>((rows, planned, html))
                })
                .await;
                if let Ok(Ok((rows, planned, html))) = read {
                    let mut events = Vec::new();
                    if changed {
                        for row in rows.iter().skip(state.sent) {
                            if let Ok(html) = episode_row_html(&id, &EpisodeLine::of(row)) {
                                events.push(Event::default().event("episode").data(html));
                            }
                        }
                        let figures = figures_view(&Figures::of(&rows), planned);
                        if let Ok(ev) = Event::default().event("figures").json_data(&figures) {
                            events.push(ev);
                        }
                        state.sent = rows.len().max(state.sent);
                        state.seen_len = len;
                    }
                    // the episodes being played, whenever the list (or a step count) changes
                    if state.playing.as_ref() != Some(&html) {
                        events.push(Event::default().event("playing").data(html.clone()));
                        state.playing = Some(html);
                    }
                    if changed && planned > 0 && rows.len() >= planned {
                        events.push(
                            Event::default()
                                .event("done")
                                .data("all planned episodes are in"),
                        );
                        state.finished = true;
                    }
                    state.rows = rows;
                    if !events.is_empty() {
                        let batch = futures::stream::iter(events.into_iter().map(Ok));
                        return Some((batch, state));
                    }
                }
                tokio::time::sleep(POLL).await;
            }
        }
    });
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
    /// `running`, `finished` or `interrupted`.
    pub status: String,
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
                            status: l.status.to_string(),
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
