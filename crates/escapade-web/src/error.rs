//! Errors of the web crate, and [`Problem`]: what a visitor sees when a request fails.

use std::path::PathBuf;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// What can go wrong starting or running the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebError {
    /// Occurs when a folder given to the viewer does not exist or cannot be read.
    #[error("cannot read folder {path}")]
    Folder {
        /// The folder as given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Occurs when the server cannot listen on the address asked for.
    #[error("cannot listen on {addr}")]
    Bind {
        /// `host:port`.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Occurs when the host given is not an address this machine can listen on.
    #[error("bad host `{host}`: expected an IP address such as 0.0.0.0 or 192.168.1.5")]
    BadHost {
        /// The host as given.
        host: String,
    },
    /// Occurs when a token given to the server (`--token`, `ESCAPADE_TOKEN`) is not one
    /// it can use.
    #[error("the token given cannot be used: {why}")]
    BadToken {
        /// What is wrong with it.
        why: &'static str,
    },
    /// Occurs when serving stops on an I/O error.
    #[error("the server stopped")]
    Serve(#[source] std::io::Error),
    /// Occurs when `play --web` cannot play what it was given (no scenario, a role or
    /// partner the world does not take).
    #[error("cannot play: {message}")]
    Play {
        /// What is wrong.
        message: String,
    },
    /// Occurs when a template fails to render (a bug in a template).
    #[error("template {name}: {message}")]
    Template {
        /// The template's name.
        name: String,
        /// minijinja's message.
        message: String,
    },
}

/// A failed request, shown as a page with a status code, a title and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The HTTP status.
    pub status: StatusCode,
    /// One line: what went wrong.
    pub title: String,
    /// More: what was asked, and what would work.
    pub detail: String,
}

impl Problem {
    /// A problem with `status`, `title` and `detail`.
    pub fn new(status: StatusCode, title: impl Into<String>, detail: impl Into<String>) -> Self {
        Problem {
            status,
            title: title.into(),
            detail: detail.into(),
        }
    }
    /// 400: the request itself is malformed.
    pub fn bad_request(title: impl Into<String>, detail: impl Into<String>) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, title, detail)
    }
    /// 404: nothing by that name here.
    pub fn not_found(title: impl Into<String>, detail: impl Into<String>) -> Self {
        Problem::new(StatusCode::NOT_FOUND, title, detail)
    }
    /// 500: the server failed (a file it could not read, a template bug).
    pub fn internal(detail: impl Into<String>) -> Self {
        Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the viewer could not make this page",
            detail,
        )
    }
}

impl From<WebError> for Problem {
    fn from(e: WebError) -> Self {
        Problem::internal(e.to_string())
    }
}

impl IntoResponse for Problem {
    /// The page. A server error (5xx) shows no detail — it may name the server's files —
    /// but a reference that its line on standard error carries with the detail.
    fn into_response(mut self) -> Response {
        if self.status.is_server_error() {
            let reference = format!("{:08x}", rand::random::<u32>());
            eprintln!(
                "escapade: error {reference}: {}: {}",
                self.title, self.detail
            );
            self.detail = format!(
                "the server's log says why (error {reference}); the page may work again later"
            );
        }
        let body = crate::pages::render(
            "problem.html",
            minijinja::context! {
                title => &self.title,
                status => self.status.as_u16(),
                detail => &self.detail,
            },
        )
        // the problem page itself failing leaves plain text, never a panic
        .unwrap_or_else(|e| format!("{}: {}\n({e})", self.title, self.detail));
        (
            self.status,
            [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response()
    }
}
