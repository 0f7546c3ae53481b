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

use crate::auth::Access;
use crate::error::{Problem, WebError};
use crate::folders::Folders;

/// The port `escapade view` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8640;

/// How `escapade view` was asked to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewOptions {
    /// The folders to serve runs from (each searched recursively).
    pub dirs: Vec<PathBuf>,
    /// The address to listen on; `None`: 127.0.0.1 only, without a token.
    pub host: Option<String>,
    /// The port (0: any free port).
    pub port: u16,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            dirs: vec![PathBuf::from("runs")],
            host: None,
            port: DEFAULT_PORT,
        }
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
    /// A site over `options.dirs`: loopback without a host, a fresh token with one.
    pub fn new(options: &ViewOptions, worlds: Worlds) -> Result<Site, WebError> {
        Ok(Site {
            folders: Folders::new(&options.dirs)?,
            access: match options.host {
                None => Access::Loopback,
                Some(_) => Access::new_token(),
            },
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
        .with_state(site)
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
}

impl Server {
    /// Binds the address `options` ask for (127.0.0.1 without a host).
    pub async fn bind(options: &ViewOptions, site: Site) -> Result<Server, WebError> {
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
        })
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
        axum::serve(self.listener, self.router)
            .await
            .map_err(WebError::Serve)
    }

    /// Serves until `stop` completes.
    pub async fn serve_until(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), WebError> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(stop)
            .await
            .map_err(WebError::Serve)
    }
}

/// `escapade view`: serves `options.dirs` until Ctrl-C, after writing the address (and
/// with `--host`, the token, once) to `out`.
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
        let shared = site.access.token().is_some();
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
        if shared {
            let _ = writeln!(
                out,
                "anyone on your network with this address (its token) can read these runs; \
                 the token is not shown again"
            );
        }
        let _ = writeln!(out, "Ctrl-C stops the server");
        let _ = out.flush();
        server
            .serve_until(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    })
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
        };
        (tmp, options)
    }

    #[tokio::test]
    async fn loopback_without_a_host_and_a_token_with_one() {
        let (_tmp, plain) = options(None);
        let server = Server::bind(&plain, Site::new(&plain, Arc::new(Vec::new())).unwrap())
            .await
            .unwrap();
        assert!(
            server.url().starts_with("http://127.0.0.1:"),
            "{}",
            server.url()
        );
        assert!(!server.url().contains("token"));
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
