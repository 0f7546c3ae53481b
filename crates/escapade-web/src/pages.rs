//! The templates, embedded in the binary, and rendering them.
//!
//! Pages are rendered on the server with minijinja; autoescaping is on for every `.html`
//! template, so text from a run directory (a model's reply, a scenario id) is shown, never
//! interpreted. `base.html` holds the layout every page extends; the play pages add their
//! templates to [`TEMPLATES`].

use std::sync::OnceLock;

use axum::response::Html;
use minijinja::Environment;

use crate::error::{Problem, WebError};

/// Every template: `(name, source)`.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("templates/base.html")),
    ("problem.html", include_str!("templates/problem.html")),
    ("runs.html", include_str!("templates/runs.html")),
    ("run.html", include_str!("templates/run.html")),
    (
        "episode_row.html",
        include_str!("templates/episode_row.html"),
    ),
    ("report.html", include_str!("templates/report.html")),
    ("playing.html", include_str!("templates/playing.html")),
    ("episode.html", include_str!("templates/episode.html")),
    ("steps.html", include_str!("templates/steps.html")),
    ("compare.html", include_str!("templates/compare.html")),
    ("play_start.html", include_str!("templates/play_start.html")),
    ("play_game.html", include_str!("templates/play_game.html")),
];

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        for (name, source) in TEMPLATES {
            // a template that does not parse is a bug caught by the tests; rendering it
            // then says so (below) instead of stopping the server
            if let Err(e) = env.add_template(name, source) {
                eprintln!("escapade-web: template {name}: {e}");
            }
        }
        env
    })
}

/// Renders template `name` with `ctx`.
pub fn render(name: &str, ctx: minijinja::Value) -> Result<String, WebError> {
    let fail = |e: minijinja::Error| WebError::Template {
        name: name.to_string(),
        message: format!("{e:#}"),
    };
    environment()
        .get_template(name)
        .map_err(fail)?
        .render(ctx)
        .map_err(fail)
}

/// Renders template `name` as a page, or the problem page when that fails.
pub fn page(name: &str, ctx: minijinja::Value) -> Result<Html<String>, Problem> {
    render(name, ctx).map(Html).map_err(Problem::from)
}
