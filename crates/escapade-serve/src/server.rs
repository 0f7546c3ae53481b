//! Binding, serving and stopping: [`Server::bind`] then [`Server::run`].

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use escapade_core::World;
use escapade_web::auth::{Access, TokenChoice};
use escapade_web::guard::Guard;
use escapade_web::net::Limits as NetLimits;

use crate::app::App;
use crate::error::ServeError;
use crate::openenv::{Shared, router};
use crate::rate::Rate;
use crate::session::{Limits, Sessions};

/// How `escapade serve` is started.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeOptions {
    /// Listen on this address; `None`: 127.0.0.1.
    pub host: Option<IpAddr>,
    /// The port (0: any free port).
    pub port: u16,
    /// Record every episode as a run directory under this directory.
    pub record: Option<PathBuf>,
    /// Sessions held at once.
    pub max_sessions: usize,
    /// A session unused for this long is removed (its episode recorded as given up).
    pub idle_timeout: Duration,
    /// Largest request body or WebSocket message, in bytes.
    pub max_message: usize,
    /// Requests (and WebSocket messages) a second per client address; 0: no limit.
    pub rate: f64,
    /// Requests a client may make at once above the rate.
    pub burst: f64,
    /// The token every request carries: a fresh random one (the default, printed once
    /// by the binary), one given, or none.
    pub token: TokenChoice,
    /// The largest picture a client may ask an environment to draw (craft's `width` ×
    /// `height`), in pixels.
    pub max_pixels: u64,
    /// Timeouts of a request's head and body, and the connection cap (`0`: as many as
    /// the limit on open files leaves beside the sessions).
    pub limits: NetLimits,
    /// Log a line per HTTP request (a WebSocket: its opening) to standard error.
    pub log: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            host: None,
            port: 8000,
            record: None,
            max_sessions: 256,
            idle_timeout: Duration::from_secs(300),
            max_message: 1 << 20,
            rate: 200.0,
            burst: 400.0,
            token: TokenChoice::Fresh,
            max_pixels: crate::app::MAX_PIXELS,
            limits: NetLimits {
                max_connections: 0,
                ..NetLimits::default()
            },
            log: false,
        }
    }
}

/// A bound server, not yet serving.
pub struct Server {
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    access: Arc<Access>,
    guard: Arc<Guard>,
    limits: NetLimits,
}

impl Server {
    /// Binds the address with `worlds` served.
    pub async fn bind(
        worlds: Vec<Box<dyn World>>,
        options: &ServeOptions,
    ) -> Result<Server, ServeError> {
        if options.max_sessions == 0 {
            return Err(ServeError::Invalid(
                "--max-sessions must be at least 1".into(),
            ));
        }
        if options.idle_timeout.is_zero() {
            return Err(ServeError::Invalid("--idle-timeout must be above 0".into()));
        }
        if !(options.rate >= 0.0 && options.rate.is_finite()) {
            return Err(ServeError::Invalid(
                "--rate must be 0 (no limit) or more".into(),
            ));
        }
        let ip = options.host.unwrap_or(IpAddr::from([127, 0, 0, 1]));
        let access = Access::choose(&options.token, ip.is_loopback())
            .map_err(|e| ServeError::Invalid(e.to_string()))?;
        let mut guard = Guard::new();
        guard.loopback = ip.is_loopback();
        guard.json_only = true;
        guard.log = options.log.then_some("serve");
        guard.open_paths = &["/health"];
        // a recorded episode holds one descriptor (its run directory's lock) beside its
        // connection; the rest of the limit is the connections'
        escapade_web::net::raise_fd_limit();
        let mut limits = options.limits;
        if limits.max_connections == 0 {
            let held = if options.record.is_some() {
                options.max_sessions
            } else {
                0
            };
            limits.max_connections = NetLimits::connections_for(held);
        }
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(ip, options.port)).await?;
        let sessions = Sessions::new(Limits {
            max_sessions: options.max_sessions,
            idle_timeout: options.idle_timeout,
        });
        let app = App::new(
            worlds.into_iter().map(Arc::from).collect(),
            sessions,
            options.record.clone(),
            Rate::new(options.rate, options.burst),
            options.max_message,
        )
        .with_max_pixels(options.max_pixels);
        Ok(Server {
            listener,
            app: Arc::new(app),
            access: Arc::new(access),
            guard: Arc::new(guard),
            limits,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The token clients must send (`None` with [`TokenChoice::None`]).
    pub fn token(&self) -> Option<&str> {
        self.access.token()
    }

    /// The address clients connect to, with the token as the password of the URL when
    /// there is one (`http://escapade:<token>@127.0.0.1:8000`): openenv-core's clients
    /// take it as `base_url` and send the token on every request and WebSocket.
    pub fn base_url(&self) -> String {
        let addr = self.addr();
        let shown = match addr.ip().is_unspecified() {
            true => SocketAddr::new(IpAddr::from([127, 0, 0, 1]), addr.port()),
            false => addr,
        };
        match self.token() {
            Some(t) => format!("http://escapade:{t}@{shown}"),
            None => format!("http://{shown}"),
        }
    }

    /// The server's state (the session table, for tests and status lines).
    pub fn app(&self) -> Arc<App> {
        self.app.clone()
    }

    /// Serves until `stop` completes; then stops taking connections, lets every step in
    /// progress finish, gives the open episodes up and waits until they are recorded.
    pub async fn run(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let (tx, rx) = tokio::sync::watch::channel(false);
        let shared = Shared {
            app: self.app.clone(),
            access: self.access.clone(),
            guard: self.guard.clone(),
            stop: rx,
        };
        let reaper = tokio::spawn(reap(self.app.clone()));
        let result =
            escapade_web::net::serve(self.listener, router(shared), self.limits, async move {
                stop.await;
                tx.send_replace(true);
            })
            .await;
        reaper.abort();
        self.app.drain().await;
        result.map_err(ServeError::Io)
    }
}

/// Removes idle sessions, every quarter of the idle timeout (at most every second).
async fn reap(app: Arc<App>) {
    let every = (app.sessions.limits().idle_timeout / 4)
        .clamp(Duration::from_millis(10), Duration::from_secs(1));
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        app.reap();
    }
}
