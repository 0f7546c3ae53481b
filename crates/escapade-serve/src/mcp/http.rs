//! MCP over streamable HTTP, at `/mcp`.
//!
//! The server guards its route as every escapade server does ([`escapade_web::guard`]):
//! a token by default, printed once (`Authorization: Bearer <token>`, as MCP clients send
//! it, or `?token=` in the URL); `Origin` checked, as the MCP specification asks of a
//! server (a web page elsewhere cannot reach it, nor through a name that resolves to
//! 127.0.0.1: the `Host` of a loopback server must name this machine); JSON bodies only;
//! wrong tokens slowed down; a line per request in the log. The accept loop has header
//! and body timeouts and a connection cap ([`escapade_web::net`]).
//!
//! Transport sessions (the handshake of protocol versions before 2026-07-28; from it on,
//! requests stand alone) are capped at [`HttpOptions::max_sessions`]: one more
//! `initialize` is answered `503` until a session ends (closed by its client, or idle for
//! rmcp's five minutes).

use std::cell::Cell;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use escapade_web::auth::{Access, TokenChoice};
use escapade_web::guard::{Guard, Refusal};
use escapade_web::net::Limits;
use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{McpServer, ToolError};

/// The path MCP is served at.
pub const PATH: &str = "/mcp";

/// The port `escapade mcp --http` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8642;

/// Transport sessions held at once unless told otherwise (as `escapade serve` holds 256
/// episodes).
pub const DEFAULT_MAX_SESSIONS: usize = 256;

/// Where to listen, and who is let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// The address (`None`: 127.0.0.1).
    pub host: Option<String>,
    /// The port (0: any free port).
    pub port: u16,
    /// The token: a fresh one (the default), one given, or none.
    pub token: TokenChoice,
    /// Transport sessions held at once.
    pub max_sessions: usize,
    /// Log a line per request to standard error.
    pub log: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            host: None,
            port: DEFAULT_PORT,
            token: TokenChoice::Fresh,
            max_sessions: DEFAULT_MAX_SESSIONS,
            log: false,
        }
    }
}

/// A bound HTTP server: its address and its token.
pub struct Bound {
    listener: tokio::net::TcpListener,
    /// The URL clients connect to (without the token).
    pub url: String,
    /// Who is admitted.
    pub access: Access,
    guard: Guard,
    max_sessions: usize,
    /// The timeouts and the connection cap it serves with.
    pub limits: Limits,
}

impl Bound {
    /// The URL with the token in its query, for clients configured with a URL alone.
    pub fn url_with_token(&self) -> String {
        match self.access.token() {
            Some(t) => format!("{}?token={t}", self.url),
            None => self.url.clone(),
        }
    }
}

/// Binds the address `options` ask for.
pub async fn bind(options: &HttpOptions) -> Result<Bound, ToolError> {
    let ip: IpAddr = match &options.host {
        None => IpAddr::V4(Ipv4Addr::LOCALHOST),
        Some(h) => h.parse().map_err(|_| {
            ToolError::Internal(format!(
                "`{h}` is not an IP address to listen on (e.g. 0.0.0.0)"
            ))
        })?,
    };
    if options.max_sessions == 0 {
        return Err(ToolError::Internal(
            "--max-sessions must be at least 1".into(),
        ));
    }
    let access = Access::choose(&options.token, ip.is_loopback())
        .map_err(|e| ToolError::Internal(e.to_string()))?;
    let mut guard = Guard::new();
    guard.loopback = ip.is_loopback();
    guard.json_only = true;
    guard.log = options.log.then_some("mcp");
    escapade_web::net::raise_fd_limit();
    let addr = SocketAddr::new(ip, options.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ToolError::Internal(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| ToolError::Internal(e.to_string()))?;
    let shown = if ip.is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), bound.port())
    } else {
        bound
    };
    Ok(Bound {
        listener,
        url: format!("http://{shown}{PATH}"),
        access,
        guard,
        max_sessions: options.max_sessions,
        limits: Limits::default(),
    })
}

/// What the route's middleware reads.
struct Gate {
    access: Access,
    guard: Guard,
}

/// Serves MCP on `bound` until `stop` completes, then closes every episode in play
/// (recordings get their rows, their error saying the server stopped).
pub async fn serve_http(
    server: McpServer,
    bound: Bound,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ToolError> {
    // the guard checks hosts and origins, in front of rmcp's own
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    let handler = server.clone();
    let sessions = Arc::new(Capped {
        inner: LocalSessionManager::default(),
        max: bound.max_sessions,
    });
    let service: StreamableHttpService<McpServer, Capped> =
        StreamableHttpService::new(move || Ok(handler.clone()), sessions, config);
    let gate = Arc::new(Gate {
        access: bound.access,
        guard: bound.guard,
    });
    let router = axum::Router::new()
        .nest_service(PATH, service)
        .layer(axum::middleware::from_fn(full))
        .layer(axum::middleware::from_fn_with_state(gate, admit));
    let served = escapade_web::net::serve(bound.listener, router, bound.limits, stop).await;
    server.close_all().await;
    served.map_err(|e| ToolError::Internal(format!("the HTTP server stopped: {e}")))
}

/// In front of the route: [`Guard`], refusals as plain text (`WWW-Authenticate:
/// Bearer` on a missing token).
async fn admit(State(gate): State<Arc<Gate>>, req: Request, next: Next) -> Response {
    gate.guard.run(&gate.access, req, next, refused).await
}

fn refused(refusal: &Refusal) -> Response {
    let text = format!(
        "{}: {}\n",
        refusal.title(),
        refusal.detail(
            "send the token the server printed at start as `Authorization: Bearer <token>` \
             (or ?token=<token> in the URL)"
        )
    );
    let mut response = (refusal.status(), text).into_response();
    if matches!(refusal, Refusal::Token) {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

tokio::task_local! {
    /// Set by [`Capped`] when it refused to open a session during this request.
    static REFUSED: Cell<bool>;
}

/// Answers `503` (rmcp would say 500) when the request asked for a session over the cap.
async fn full(req: Request, next: Next) -> Response {
    REFUSED
        .scope(Cell::new(false), async move {
            let response = next.run(req).await;
            if REFUSED.with(Cell::get) {
                let text = "this MCP server holds its maximum of sessions; close one (DELETE \
                            with its Mcp-Session-Id) or try again when one ends\n";
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "5")],
                    text,
                )
                    .into_response();
            }
            response
        })
        .await
}

/// rmcp's session table with a maximum.
struct Capped {
    inner: LocalSessionManager,
    max: usize,
}

/// Why [`Capped`] refused.
#[derive(Debug, thiserror::Error)]
enum CappedError {
    /// Occurs when the table is full.
    #[error("the server holds its maximum of {0} MCP sessions")]
    Full(usize),
    /// Occurs when rmcp's table fails.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl SessionManager for Capped {
    type Error = CappedError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        if self.inner.sessions.read().await.len() >= self.max {
            let _ = REFUSED.try_with(|r| r.set(true));
            return Err(CappedError::Full(self.max));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        if self.inner.sessions.read().await.len() >= self.max {
            let _ = REFUSED.try_with(|r| r.set(true));
            return Err(CappedError::Full(self.max));
        }
        Ok(self.inner.restore_session(id).await?)
    }
}
