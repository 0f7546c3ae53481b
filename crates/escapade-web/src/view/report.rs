//! The report of one or more runs: the tables `escapade report` prints (made by
//! `escapade-run`'s own report code, per world and difficulty, mean ± SE, each metric's n,
//! the worlds' breakdowns) and its plots inline, drawn in memory — never into the runs.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Html;
use escapade_run::Format;
use escapade_run::report::{Definition, Report, read_runs};

use super::markdown;
use super::query_pairs;
use crate::error::Problem;
use crate::pages;
use crate::server::Site;

/// `html` with every table cell that names a defined metric — by its key (`psr`,
/// `psr (%)`) or its paper's name (`Partial success rate (PSR) (%)`) — showing the
/// metric's name, definition and paper section on hover.
pub fn with_definitions(html: &str, definitions: &[Definition]) -> String {
    // a world's section runs from its `<h3>world</h3>` to the next `<h3>`: its own
    // definitions apply there (`success` means something else in each world)
    let mut out = String::with_capacity(html.len() * 2);
    let mut world: Option<&str> = None;
    for (i, part) in html.split("<h3>").enumerate() {
        if i > 0 {
            out.push_str("<h3>");
            let heading = part.split("</h3>").next().unwrap_or_default();
            // the sections that are no world's (the usage, the profile) define nothing
            world = definitions
                .iter()
                .find(|d| d.world == heading)
                .map(|d| d.world.as_str());
        }
        let own: Vec<&Definition> = definitions
            .iter()
            .filter(|d| Some(d.world.as_str()) == world)
            .collect();
        out.push_str(&define(part, &own));
    }
    out
}

/// `part` with the cells naming one of `definitions` explained on hover.
fn define(part: &str, definitions: &[&Definition]) -> String {
    let mut out = part.to_string();
    for d in definitions {
        let about = format!("{}: {} ({})", d.name, d.definition, d.section);
        let title = escape_html(&about);
        for label in [&d.metric, &d.name] {
            for unit in ["", " (%)"] {
                let text = escape_html(&format!("{label}{unit}"));
                for cell in ["td", "th"] {
                    // a whole cell's text: `…>label</td>`
                    let whole = format!(">{text}</{cell}>");
                    let shown = format!("><abbr title=\"{title}\">{text}</abbr></{cell}>");
                    out = out.replace(&whole, &shown);
                }
            }
        }
    }
    out
}

/// Text made safe inside HTML, attribute values included.
fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

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
        let tables = with_definitions(
            &markdown::to_html(&report.render(Format::Markdown)),
            &report.definitions,
        );
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
    // each run by its directory's name: its id's folder number means nothing to a reader
    let runs: Vec<(String, String)> = ids
        .iter()
        .map(|id| {
            let name = id.split_once('/').map_or(id.as_str(), |(_, name)| name);
            (id.clone(), name.to_string())
        })
        .collect();
    pages::page(
        "report.html",
        minijinja::context! {
            title => "Report",
            ids => ids,
            runs => runs,
            tables => minijinja::Value::from_safe_string(tables),
            plots => plots,
            warnings => warnings,
        },
    )
}
