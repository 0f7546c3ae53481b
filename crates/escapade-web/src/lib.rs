//! The browser side of escapade: `escapade view` over run directories (and, beside it,
//! `escapade play --web`).
//!
//! A small axum server renders pages on the server (minijinja templates, CSS and a little
//! hand-written JavaScript, all embedded in the binary, so it works offline). It reads run
//! directories and never writes to them; a run is addressed by an id that resolves only
//! to a directory under the folders it was given ([`folders`]). It listens on loopback
//! unless given a host, and asks every request for the access token it printed
//! ([`auth`]). What guards the routes ([`guard`]: origins, hosts, tokens, a request log)
//! and the accept loop ([`net`]: timeouts, a connection cap) are shared with
//! `escapade serve` and `escapade mcp`, so all four servers promise the same.
//! It names no world: the binary hands it the world registry, as it does to
//! `escapade-run`. Start reading at [`server`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), escapade_web::WebError> {
//! let options = escapade_web::ViewOptions { dirs: vec!["runs".into()], ..Default::default() };
//! let site = escapade_web::Site::new(&options, std::sync::Arc::new(Vec::new()))?;
//! let server = escapade_web::Server::bind(&options, site).await?;
//! println!("open {}", server.url());
//! server.serve().await
//! # }
//! ```
#![deny(missing_docs)]

pub mod assets; // the stylesheet and the script, embedded, served under /assets/
pub mod auth; // the access token: made at start, given, or opted out of; where requests carry it
pub mod error; // WebError, this crate's error type; Problem, a page that says what went wrong
pub mod folders; // run ids, confined to the folders given; listing the runs under them
pub mod guard; // Host, Origin, content type, the token and its failures, a line per request
pub mod net; // the accept loop: header and body timeouts, a connection cap, the fd limit
pub mod pages; // the templates, embedded, and rendering them
pub mod play; // `escapade play --web` (its own module, filled by the play work)
pub mod server; // the site's state, its router, binding and serving
pub mod view; // `escapade view`: runs, a run, report, episode, live updates

pub use error::{Problem, WebError};
pub use server::{Server, Site, ViewOptions};
