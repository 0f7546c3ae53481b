//! The site's state, its router, and binding and serving it.
//!
//! [`Site`] is what every handler reads: the folders, the access rule and the world
//! registry. [`router`] puts the viewer's routes, the play routes, the assets and the
//! access check together; handlers return a page or a [`Problem`], so a bad request gets
//! a page that says what went wrong and the server keeps serving.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use escapade_core::World;

use crate::auth::{Access, TokenChoice};
use crate::error::{Problem, WebError};
use crate::folders::Folders;
use crate::guard::Guard;
use crate::net::Limits;

/// The port `escapade view` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8640;

/// How `escapade view` was asked to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewOptions {
    /// The folders to serve runs from (each searched recursively).
    pub dirs: Vec<PathBuf>,
    /// The address to listen on; `None`: 127.0.0.1.
    pub host: Option<String>,
    /// The port (0: any free port).
    pub port: u16,
    /// The token: a fresh one (the default), one given, or none.
    pub token: TokenChoice,
    /// Log a line per request to standard error.
    pub log: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            dirs: vec![PathBuf::from("runs")],
            host: None,
            port: DEFAULT_PORT,
            token: TokenChoice::Fresh,
            log: false,
        }
    }
}

impl ViewOptions {
    /// Whether the server listens on loopback (no host, or a loopback address).
    pub fn loopback(&self) -> bool {
        self.host
            .as_deref()
            .is_none_or(|h| h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()))
    }
}

/// The registry of worlds the binary plays, shared by every request.
pub type Worlds = Arc<Vec<Box<dyn World>>>;

/// What every handler reads.
pub struct Site {
    /// The folders served.
    pub folders: Folders,
    /// Who may use the site.
    pub access: Access,
    /// The check in front of every route (origins, the token's failures, the log).
    pub guard: Guard,
    /// The worlds (for reports: each world's breakdowns and key metrics).
    pub worlds: Worlds,
    /// Each run's summary line, kept while its files are unchanged (see
    /// [`crate::view::runs::LineCache`]).
    pub lines: crate::view::runs::LineCache,
    /// The games of `play --web` (`None`: this server does not play).
    pub play: Option<Arc<crate::play::Lobby>>,
}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Site")
            .field("folders", &self.folders)
            .field("access", &self.access)
            .field(
                "worlds",
                &self.worlds.iter().map(|w| w.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Site {
    /// A site over `options.dirs`, with the token `options` choose.
    pub fn new(options: &ViewOptions, worlds: Worlds) -> Result<Site, WebError> {
        let mut guard = Guard::new();
        guard.cookie = Some(crate::auth::COOKIE.to_string());
        guard.log = options.log.then_some("view");
        Ok(Site {
            folders: Folders::new(&options.dirs)?,
            access: Access::choose(&options.token, options.loopback())?,
            guard,
            worlds,
            lines: Default::default(),
            play: None,
        })
    }

    /// The worlds as `escapade-run`'s report functions take them.
    pub fn world_refs(&self) -> Vec<&dyn World> {
        self.worlds.iter().map(|w| w.as_ref()).collect()
    }
}

/// Every route of the site, behind the access check. A play server (`site.play`) has
/// the play routes only: the viewer's pages would show every role's view of every run
/// under the record folder, the games in progress among them; its `/` leads to `/play`.
pub fn router(site: Arc<Site>) -> Router {
    let pages = match site.play {
        Some(_) => crate::play::front(),
        None => crate::view::routes(),
    };
    Router::new()
        .merge(pages)
        .nest("/play", crate::play::routes())
        .route(
            "/play/",
            get(|| async { axum::response::Redirect::permanent("/play") }),
        )
        .route("/assets/{name}", get(crate::assets::asset))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            site.clone(),
            crate::auth::admit,
        ))
        // outermost: refusals carry them too
        .layer(axum::middleware::map_response(protect))
        .with_state(site)
}

/// What every answer tells the browser, beside the access check: run only this server's
/// own scripts (a name a client chose that slipped into a page still could not run), never
/// be framed by another site (a play page's buttons under a foreign page's clicks), never
/// send an address, a token in it, on to another site as a Referer, and never guess a
/// type.
const PROTECTIONS: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; \
         form-action 'self'; frame-ancestors 'none'",
    ),
    // not `no-referrer`: under it a browser sends `Origin: null` with a form's POST,
    // which the access check refuses as a foreign origin
    ("referrer-policy", "same-origin"),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
];

async fn protect(mut response: axum::response::Response) -> axum::response::Response {
    let headers = response.headers_mut();
    for (name, value) in PROTECTIONS {
        headers.insert(
            axum::http::HeaderName::from_static(name),
            axum::http::HeaderValue::from_static(value),
        );
    }
    response
}

async fn not_found(
    axum::extract::State(site): axum::extract::State<Arc<Site>>,
    uri: axum::http::Uri,
) -> Problem {
    let hint = match site.play {
        Some(_) => crate::play::NOT_SERVED,
        None => "the runs are at /",
    };
    Problem::not_found(
        "no such page",
        format!("`{}` is not a page of this server; {hint}", uri.path()),
    )
}

/// A bound server, ready to serve.
pub struct Server {
    listener: tokio::net::TcpListener,
    url: String,
    router: Router,
    limits: Limits,
}

impl Server {
    /// Binds the address `options` ask for (127.0.0.1 without a host). A server on
    /// loopback answers only requests that name this machine; the token's cookie is
    /// named after the port, so two servers on one machine keep theirs apart.
    pub async fn bind(options: &ViewOptions, mut site: Site) -> Result<Server, WebError> {
        crate::net::raise_fd_limit();
        let ip: IpAddr = match &options.host {
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
            Some(h) => h
                .parse()
                .map_err(|_| WebError::BadHost { host: h.clone() })?,
        };
        let addr = SocketAddr::new(ip, options.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| WebError::Bind {
                addr: addr.to_string(),
                source,
            })?;
        let bound = listener.local_addr().map_err(WebError::Serve)?;
        site.guard.loopback = ip.is_loopback();
        if site.guard.cookie.is_some() {
            site.guard.cookie = Some(format!("{}_{}", crate::auth::COOKIE, bound.port()));
        }
        let shown = if ip.is_unspecified() {
            // 0.0.0.0 is not an address to type; this machine's own name works there
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), bound.port()).to_string()
        } else {
            bound.to_string()
        };
        let url = match site.access.token() {
            Some(t) => format!("http://{shown}/?token={t}"),
            None => format!("http://{shown}/"),
        };
        Ok(Server {
            listener,
            url,
            router: router(Arc::new(site)),
            limits: Limits::default(),
        })
    }

    /// The timeouts and the connection cap it serves with.
    pub fn limits_mut(&mut self) -> &mut Limits {
        &mut self.limits
    }

    /// The address to open, with the token when there is one.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The port bound.
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map_or(0, |a| a.port())
    }

    /// Serves until the process stops.
    pub async fn serve(self) -> Result<(), WebError> {
        self.serve_until(std::future::pending()).await
    }

    /// Serves until `stop` completes ([`crate::net::serve`]: timeouts, a connection cap,
    /// a bounded grace for requests in progress).
    pub async fn serve_until(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), WebError> {
        crate::net::serve(self.listener, self.router, self.limits, stop)
            .await
            .map_err(WebError::Serve)
    }
}

/// `escapade view`: serves `options.dirs` until Ctrl-C, SIGTERM or SIGHUP, after writing
/// the address (with the token, once) to `out`.
pub fn view(
    options: &ViewOptions,
    worlds: Worlds,
    out: &mut dyn std::io::Write,
) -> Result<(), WebError> {
    let site = Site::new(options, worlds)?;
    let runs = site.folders.list().len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(WebError::Serve)?;
    runtime.block_on(async {
        let shared = !options.loopback();
        let signals = escapade_run::signals::Signals::listen();
        let server = Server::bind(options, site).await?;
        let dirs: Vec<String> = options
            .dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        let _ = writeln!(
            out,
            "escapade view: {runs} run{} under {}\nopen {}",
            if runs == 1 { "" } else { "s" },
            dirs.join(", "),
            server.url()
        );
        let _ = writeln!(
            out,
            "{}",
            exposure_note(shared, server.url.contains("token="), "read these runs")
        );
        let _ = writeln!(out, "Ctrl-C (or SIGTERM) stops the server");
        let _ = out.flush();
        server.serve_until(signals.first(|_| ())).await
    })
}

/// What a server says at start about who can reach it: `can` is what they can do
/// (`read these runs`).
pub fn exposure_note(shared: bool, token: bool, can: &str) -> String {
    match (shared, token) {
        (true, true) => format!(
            "anyone who can reach this address and has its token can {can}; the token is not \
             shown again"
        ),
        (true, false) => {
            format!("no token (--no-token): anyone who can reach this address can {can}")
        }
        (false, true) => {
            "this machine only, with the token in the address (not shown again)".to_string()
        }
        (false, false) => {
            format!("no token (--no-token): anyone logged in to this machine can {can}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(host: Option<&str>) -> (tempfile::TempDir, ViewOptions) {
        let tmp = tempfile::tempdir().unwrap();
        let options = ViewOptions {
            dirs: vec![tmp.path().to_path_buf()],
            host: host.map(str::to_string),
            port: 0,
            ..Default::default()
        };
        (tmp, options)
    }

    #[tokio::test]
    async fn a_token_by_default_on_loopback_and_elsewhere() {
        let (_tmp, plain) = options(None);
        let server = Server::bind(&plain, Site::new(&plain, Arc::new(Vec::new())).unwrap())
            .await
            .unwrap();
        assert!(
            server.url().starts_with("http://127.0.0.1:"),
            "{}",
            server.url()
        );
        assert!(server.url().contains("/?token="), "{}", server.url());
        let (_tmp, mut none) = options(None);
        none.token = TokenChoice::None;
        let server = Server::bind(&none, Site::new(&none, Arc::new(Vec::new())).unwrap())
            .await
            .unwrap();
        assert!(!server.url().contains("token"), "{}", server.url());
        let (_tmp, shared) = options(Some("0.0.0.0"));
        let site = Site::new(&shared, Arc::new(Vec::new())).unwrap();
        let token = site.access.token().unwrap().to_string();
        let server = Server::bind(&shared, site).await.unwrap();
        assert!(
            server.url().ends_with(&format!("/?token={token}")),
            "{}",
            server.url()
        );
        assert_ne!(server.port(), 0);
    }

    #[tokio::test]
    async fn a_bad_host_is_refused_by_name() {
        let (_tmp, bad) = options(Some("my laptop"));
        let site = Site::new(&bad, Arc::new(Vec::new())).unwrap();
        let e = Server::bind(&bad, site).await.err().unwrap();
        assert!(e.to_string().contains("my laptop"), "{e}");
    }
}
