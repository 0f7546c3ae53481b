//! The runs page: every run under the folders, one line each.

use std::path::Path;
use std::sync::Arc;

use axum::extract::State;
use axum::response::Html;
use escapade_core::EpisodeRow;
use escapade_run::rundir::{EPISODES, RunConfig, read_episodes, read_run_toml};
use serde::Serialize;

use crate::error::Problem;
use crate::pages;
use crate::server::Site;

/// One run, summed up for the runs page (and the live figures of its own page).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLine {
    /// The run's id.
    pub id: String,
    /// The run directory's name.
    pub name: String,
    /// Suite label.
    pub suite: String,
    /// World name.
    pub world: String,
    /// Agent spec (with the expert's, in a two-role world with another expert).
    pub agent: String,
    /// The agent's model, when it has one.
    pub model: Option<String>,
    /// Episodes finished.
    pub done: usize,
    /// Episodes the run plans (this shard's share of scenarios × epochs).
    pub planned: usize,
    /// Episodes that succeeded.
    pub successes: usize,
    /// Episodes that ended with an error.
    pub errors: usize,
    /// Tokens in and out.
    pub tokens: u64,
    /// Cost in US dollars.
    pub cost_usd: f64,
    /// When the run was created (RFC 3339).
    pub started: String,
    /// A problem reading the run (a malformed file), shown instead of figures.
    pub problem: Option<String>,
    /// `running`, `finished` or `interrupted` ([`status`]).
    pub status: &'static str,
}

/// A run's status: `running` while a process writes it (`escapade run`, `resume`),
/// else `finished` when every planned episode is in, else `interrupted` (`escapade
/// resume` finishes it).
pub fn status(dir: &Path, done: usize, planned: usize) -> &'static str {
    if escapade_run::rundir::is_running(dir) {
        "running"
    } else if done >= planned {
        "finished"
    } else {
        "interrupted"
    }
}

impl RunLine {
    /// Success rate in percent, when any episode finished.
    pub fn success_pct(&self) -> Option<f64> {
        (self.done > 0).then(|| self.successes as f64 * 100.0 / self.done as f64)
    }
}

/// The figures of a run's finished episodes: the ones the progress bar of `escapade run`
/// shows (episodes, success, tokens, cost, errors).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Figures {
    /// Episodes finished.
    pub done: usize,
    /// Episodes that succeeded.
    pub successes: usize,
    /// Episodes that ended with an error.
    pub errors: usize,
    /// Tokens in and out.
    pub tokens: u64,
    /// Cost in US dollars.
    pub cost_usd: f64,
}

impl Figures {
    /// Adds one episode.
    pub fn add(&mut self, row: &EpisodeRow) {
        self.done += 1;
        self.successes += usize::from(row.success);
        self.errors += usize::from(escapade_run::ending::is_error(row));
        self.tokens += row.usage.input + row.usage.output;
        self.cost_usd += row.usage.cost_usd;
    }

    /// The figures of `rows`.
    pub fn of(rows: &[EpisodeRow]) -> Figures {
        let mut f = Figures::default();
        rows.iter().for_each(|r| f.add(r));
        f
    }
}

/// The episodes a run plans: its shard's share of scenarios × epochs.
pub fn planned(c: &RunConfig) -> usize {
    let total = c.scenarios.len() * c.epochs as usize;
    match c.shard {
        Some(s) => (0..total).filter(|k| s.contains(*k)).count(),
        None => total,
    }
}

/// Reads a run's `run.toml` and `episodes.jsonl` into its line.
pub fn run_line(id: &str, dir: &Path) -> RunLine {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut line = RunLine {
        id: id.to_string(),
        name,
        suite: String::new(),
        world: String::new(),
        agent: String::new(),
        model: None,
        done: 0,
        planned: 0,
        successes: 0,
        errors: 0,
        tokens: 0,
        cost_usd: 0.0,
        started: String::new(),
        problem: None,
        status: "finished",
    };
    let own = |name: &str| crate::folders::run_file(dir, &dir.join(name));
    if let Err(p) = own(escapade_run::rundir::RUN_TOML) {
        line.problem = Some(p.detail);
        return line;
    }
    match read_run_toml(dir) {
        Ok(toml) => {
            let c = &toml.config;
            line.suite = c.suite.clone();
            line.world = c.world.clone();
            line.agent = match &c.expert {
                Some(expert) => format!("{} + {expert}", c.agent),
                None => c.agent.clone(),
            };
            line.model = c.agent_options.get("model").cloned();
            line.planned = planned(c);
            line.started = toml.created.clone();
        }
        Err(e) => line.problem = Some(e.to_string()),
    }
    match own(EPISODES) {
        Ok(Some(episodes)) => match read_episodes(&episodes) {
            Ok(file) => {
                let f = Figures::of(&file.rows);
                line.done = f.done;
                line.successes = f.successes;
                line.errors = f.errors;
                line.tokens = f.tokens;
                line.cost_usd = f.cost_usd;
            }
            Err(e) => line.problem = Some(e.to_string()),
        },
        Ok(None) => {}
        Err(p) => line.problem = Some(p.detail),
    }
    line.status = status(dir, line.done, line.planned);
    line
}

/// What a run's line was read from: the length and modification time of its
/// `run.toml` and `episodes.jsonl`.
type Stamp = [Option<(u64, std::time::SystemTime)>; 2];

fn stamp(dir: &Path) -> Stamp {
    let of = |name: &str| {
        std::fs::metadata(dir.join(name))
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?)))
    };
    [of(escapade_run::rundir::RUN_TOML), of(EPISODES)]
}

/// Run lines by directory, each with the stamp of the files it was read from: the runs
/// page reads a run's episodes again only when they changed (episodes are appended, so
/// a finished run is read once).
#[derive(Debug, Default)]
pub struct LineCache(
    std::sync::Mutex<std::collections::BTreeMap<std::path::PathBuf, (Stamp, RunLine)>>,
);

impl LineCache {
    /// The line of the run `id` in `dir`, from the cache when its files are unchanged.
    pub fn line(&self, id: &str, dir: &Path) -> RunLine {
        let now = stamp(dir);
        let lock = || self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, line)) = lock().get(dir)
            && *seen == now
            && line.id == id
        {
            // a run stops without its files changing: its status is looked at each time
            let mut line = line.clone();
            line.status = status(dir, line.done, line.planned);
            return line;
        }
        let line = run_line(id, dir);
        lock().insert(dir.to_path_buf(), (now, line.clone()));
        line
    }
}

/// Every run under the site's folders, newest first.
pub fn run_lines(site: &Site) -> Vec<RunLine> {
    let mut lines: Vec<RunLine> = site
        .folders
        .list()
        .iter()
        .map(|f| site.lines.line(&f.id, &f.path))
        .collect();
    lines.sort_by(|a, b| b.started.cmp(&a.started).then_with(|| a.id.cmp(&b.id)));
    lines
}

/// `GET /`: the runs page.
pub async fn page(State(site): State<Arc<Site>>) -> Result<Html<String>, Problem> {
    let lines = tokio::task::spawn_blocking(move || {
        let lines = run_lines(&site);
        let folders: Vec<String> = site
            .folders
            .roots()
            .iter()
            .map(|r| r.display().to_string())
            .collect();
        (lines, folders)
    })
    .await
    .map_err(|e| Problem::internal(e.to_string()))?;
    let (lines, folders) = lines;
    let rows: Vec<minijinja::Value> = lines
        .iter()
        .map(|l| {
            minijinja::context! {
                line => l,
                success_pct => l.success_pct(),
            }
        })
        .collect();
    pages::page(
        "runs.html",
        minijinja::context! { title => "Runs", rows => rows, folders => folders },
    )
}
