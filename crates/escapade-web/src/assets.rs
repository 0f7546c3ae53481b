//! The stylesheet and the script, embedded in the binary (no build step, works offline),
//! served under `/assets/`.

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::Problem;

/// The stylesheet of every page.
pub const CSS: &str = include_str!("assets/app.css");
/// The script of every page: filters, keyboard navigation, live updates.
pub const JS: &str = include_str!("assets/app.js");

/// `GET /assets/{name}`: one of the embedded files.
pub async fn asset(Path(name): Path<String>) -> Response {
    let (body, kind) = match name.as_str() {
        "app.css" => (CSS, "text/css; charset=utf-8"),
        "app.js" => (JS, "text/javascript; charset=utf-8"),
        _ => {
            return Problem::not_found(
                "no such asset",
                format!("`{name}` is not one of the viewer's files (app.css, app.js)"),
            )
            .into_response();
        }
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}
