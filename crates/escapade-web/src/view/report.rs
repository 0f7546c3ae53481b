//! The report of one or more runs: the tables `escapade report` prints (made by
//! `escapade-run`'s own report code, per world and difficulty, mean ± SE, each metric's n,
//! the worlds' breakdowns) and its plots inline, drawn in memory — never into the runs.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Html;
use escapade_run::Format;
use escapade_run::report::{Report, read_runs};

use super::markdown;
use super::query_pairs;
use crate::error::Problem;
use crate::pages;
use crate::server::Site;

/// `GET /report?run=…&run=…`.
pub async fn page(
    State(site): State<Arc<Site>>,
    RawQuery(query): RawQuery,
) -> Result<Html<String>, Problem> {
    let pairs = query_pairs(query.as_deref())?;
    let ids: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| k == "run")
        .map(|(_, v)| v.clone())
        .collect();
    if ids.is_empty() {
        return Err(Problem::bad_request(
            "no run chosen",
            "a report needs at least one run=… in its address: tick runs on the runs page",
        ));
    }
    // a report reads the trajectories too: each must be the run's own file
    let dirs = ids
        .iter()
        .map(|id| {
            let dir = site.folders.resolve(id)?;
            crate::folders::check_trajectories(&dir).map(|()| dir)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (tables, plots, warnings) = tokio::task::spawn_blocking(move || {
        let worlds = site.world_refs();
        let set = read_runs(&dirs).map_err(|e| Problem::internal(e.to_string()))?;
        let report = Report::from_runs(&set, &worlds).with_usual_extras(&set, &worlds);
        let tables = markdown::to_html(&report.render(Format::Markdown));
        let plots = escapade_run::plots::svg_plots(&set, &worlds)
            .map_err(|e| Problem::internal(e.to_string()))?;
        Ok::<_, Problem>((tables, plots, report.warnings.clone()))
    })
    .await
    .map_err(|e| Problem::internal(e.to_string()))??;
    let plots: Vec<minijinja::Value> = plots
        .into_iter()
        .map(|(name, svg)| {
            use base64::Engine;
            let data = base64::engine::general_purpose::STANDARD.encode(svg);
            // base64 and the prefix hold no character HTML would escape
            let src =
                minijinja::Value::from_safe_string(format!("data:image/svg+xml;base64,{data}"));
            minijinja::context! { name => name, src => src }
        })
        .collect();
    pages::page(
        "report.html",
        minijinja::context! {
            title => "Report",
            ids => ids,
            tables => minijinja::Value::from_safe_string(tables),
            plots => plots,
            warnings => warnings,
        },
    )
}
