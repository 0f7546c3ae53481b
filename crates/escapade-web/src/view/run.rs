//! A run's page: its settings, the live figures, and its episodes (failing ones findable).

use std::path::Path;
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Html;
use escapade_core::EpisodeRow;
use escapade_run::rundir::{EPISODES, RunConfig, read_episodes, read_run_toml};
use serde::Serialize;

use super::runs::{Figures, run_line};
use super::{query_pairs, required};
use crate::error::Problem;
use crate::folders::trajectory_path;
use crate::pages;
use crate::server::Site;

/// One episode, as a row of the run's episode table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpisodeLine {
    /// Scenario id.
    pub scenario: String,
    /// Epoch.
    pub epoch: u32,
    /// Difficulty tier.
    pub difficulty: u32,
    /// Whether it succeeded.
    pub success: bool,
    /// Steps taken.
    pub steps: u32,
    /// The error that ended it, if any.
    pub error: Option<String>,
    /// Cost in US dollars.
    pub cost_usd: f64,
    /// Wall time in seconds.
    pub seconds: f64,
}

impl EpisodeLine {
    /// The line of `row`.
    pub fn of(row: &EpisodeRow) -> EpisodeLine {
        EpisodeLine {
            scenario: row.scenario.clone(),
            epoch: row.epoch,
            difficulty: row.difficulty,
            success: row.success,
            steps: row.steps,
            error: row.error.clone(),
            cost_usd: row.usage.cost_usd,
            seconds: row.duration_ms as f64 / 1000.0,
        }
    }
}

/// An episode begun and not finished: in progress while its run is running.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Playing {
    /// Scenario id.
    pub scenario: String,
    /// Epoch.
    pub epoch: u32,
    /// Steps written so far.
    pub steps: usize,
}

/// The episodes of the run in `dir` that have a trajectory and no row in `rows`: the
/// ones being played while the run is running, the ones left unfinished when it was
/// interrupted. Only the run's planned episodes (its `run.toml`) are looked for.
pub fn unfinished(dir: &Path, config: &RunConfig, rows: &[EpisodeRow]) -> Vec<Playing> {
    let done: std::collections::BTreeSet<(&str, u32)> = rows
        .iter()
        .filter(|r| !r.retryable)
        .map(|r| (r.scenario.as_str(), r.epoch))
        .collect();
    // the runner's canonical order: epoch by epoch, the scenarios in suite order
    let planned =
        (0..config.epochs).flat_map(|epoch| config.scenarios.iter().map(move |s| (s, epoch)));
    planned
        .enumerate()
        .filter(|(k, _)| config.shard.is_none_or(|s| s.contains(*k)))
        .filter(|(_, (s, epoch))| !done.contains(&(s.id.as_str(), *epoch)))
        .filter_map(|(_, (s, epoch))| {
            let path = trajectory_path(dir, &s.id, epoch);
            let file = crate::folders::run_file(dir, &path).ok().flatten()?;
            let bytes = std::fs::read(file).ok()?;
            Some(Playing {
                scenario: s.id.clone(),
                epoch,
                steps: bytes.iter().filter(|b| **b == b'\n').count(),
            })
        })
        .collect()
}

/// Renders the list of unfinished episodes (the run page, and its live updates).
pub fn playing_html(run: &str, playing: &[Playing], status: &str) -> Result<String, Problem> {
    pages::render(
        "playing.html",
        minijinja::context! { run => run, playing => playing, status => status },
    )
    .map_err(Problem::from)
}

/// The episodes of the run in `dir` (none when it has not finished one yet).
pub fn episode_rows(dir: &Path) -> Result<Vec<EpisodeRow>, Problem> {
    let Some(path) = crate::folders::run_file(dir, &dir.join(EPISODES))? else {
        return Ok(Vec::new());
    };
    read_episodes(&path)
        .map(|f| f.rows)
        .map_err(|e| Problem::internal(e.to_string()))
}

/// Renders one episode row (the run page's table, and the live updates).
pub fn episode_row_html(run: &str, line: &EpisodeLine) -> Result<String, Problem> {
    pages::render(
        "episode_row.html",
        minijinja::context! { run => run, e => line },
    )
    .map_err(Problem::from)
}

/// `GET /run?id=…`.
pub async fn page(
    State(site): State<Arc<Site>>,
    RawQuery(query): RawQuery,
) -> Result<Html<String>, Problem> {
    let pairs = query_pairs(query.as_deref())?;
    let id = required(&pairs, "id")?.to_string();
    let dir = site.folders.resolve(&id)?;
    let (toml, rows, line, playing) = tokio::task::spawn_blocking({
        let id = id.clone();
        move || {
            let toml = read_run_toml(&dir).map_err(|e| Problem::internal(e.to_string()))?;
            let rows = episode_rows(&dir)?;
            let playing = unfinished(&dir, &toml.config, &rows);
            Ok::<_, Problem>((toml, rows, run_line(&id, &dir), playing))
        }
    })
    .await
    .map_err(|e| Problem::internal(e.to_string()))??;
    let figures = Figures::of(&rows);
    let episodes: Vec<EpisodeLine> = rows.iter().map(EpisodeLine::of).collect();
    let c = &toml.config;
    let mut settings: Vec<(String, String)> = vec![
        ("suite".into(), c.suite.clone()),
        ("world".into(), c.world.clone()),
        ("agent".into(), c.agent.clone()),
    ];
    settings.extend(
        c.agent_options
            .iter()
            .map(|(k, v)| (format!("-A {k}"), v.clone())),
    );
    if let Some(expert) = &c.expert {
        settings.push(("expert".into(), expert.clone()));
    }
    settings.extend(
        c.world_options
            .iter()
            .map(|(k, v)| (format!("-W {k}"), v.clone())),
    );
    settings.push(("epochs".into(), c.epochs.to_string()));
    settings.push(("seed".into(), c.seed.to_string()));
    if let Some(s) = c.shard {
        settings.push(("shard".into(), format!("{}/{}", s.index, s.count)));
    }
    settings.push(("created".into(), toml.created.clone()));
    settings.push(("escapade".into(), toml.escapade_version.clone()));
    let playing = playing_html(&id, &playing, line.status)?;
    page_html(&id, &line, &settings, &figures, &episodes, playing)
}

fn page_html(
    id: &str,
    line: &super::runs::RunLine,
    settings: &[(String, String)],
    figures: &Figures,
    episodes: &[EpisodeLine],
    playing: String,
) -> Result<Html<String>, Problem> {
    let rows = episodes
        .iter()
        .map(|e| episode_row_html(id, e))
        .collect::<Result<Vec<_>, _>>()?;
    pages::page(
        "run.html",
        minijinja::context! {
            title => &line.name,
            id => id,
            line => line,
            settings => settings,
            figures => figures,
            live => super::live::figures_view(figures, line.planned),
            rows => rows,
            playing => minijinja::Value::from_safe_string(playing),
            failing => episodes.iter().filter(|e| !e.success).count(),
        },
    )
}
