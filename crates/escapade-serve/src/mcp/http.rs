//! MCP over streamable HTTP, at `/mcp`.
//!
//! Without a host the server listens on 127.0.0.1 and rmcp refuses requests whose
//! `Host` header names another machine (a web page elsewhere cannot reach it through a
//! name that resolves to 127.0.0.1). With a host given, every request must
//! carry the token printed at start as `Authorization: Bearer <token>` — the access
//! scheme of `escapade view` ([`escapade_web::auth`]), in the header MCP clients send.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use escapade_web::auth::{Access, same};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{McpServer, ToolError};

/// The path MCP is served at.
pub const PATH: &str = "/mcp";

/// The port `escapade mcp --http` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8642;

/// Where to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// The address (`None`: 127.0.0.1, no token); any address given needs the token.
    pub host: Option<String>,
    /// The port (0: any free port).
    pub port: u16,
}

/// A bound HTTP server: its address and, when a host was given, its token.
pub struct Bound {
    listener: tokio::net::TcpListener,
    /// The URL clients connect to.
    pub url: String,
    /// Who is admitted.
    pub access: Access,
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
    // as `escapade serve` and `escapade view`: naming a host at all asks for the token
    let access = match options.host {
        None => Access::Loopback,
        Some(_) => Access::new_token(),
    };
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
    })
}

/// Serves MCP on `bound` until `stop` completes, then closes every episode in play
/// (recordings get their rows).
pub async fn serve_http(
    server: McpServer,
    bound: Bound,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ToolError> {
    let mut config = StreamableHttpServerConfig::default();
    if !matches!(bound.access, Access::Loopback) {
        // the token admits a request, whatever name it reached this machine by
        config = config.disable_allowed_hosts();
    }
    let handler = server.clone();
    let service: StreamableHttpService<McpServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), config);
    let access = Arc::new(bound.access);
    let router = axum::Router::new()
        .nest_service(PATH, service)
        .layer(axum::middleware::from_fn_with_state(access, admit));
    let served = axum::serve(bound.listener, router)
        .with_graceful_shutdown(stop)
        .await;
    server.close_all().await;
    served.map_err(|e| ToolError::Internal(format!("the HTTP server stopped: {e}")))
}

/// Admits a request: always without a host (loopback; rmcp checks its `Host`), with
/// the token otherwise.
async fn admit(State(access): State<Arc<Access>>, req: Request, next: Next) -> Response {
    let Some(token) = access.token() else {
        return next.run(req).await;
    };
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if given.is_some_and(|g| same(g.trim(), token)) {
        return next.run(req).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "this MCP server needs the token it printed at start, as `Authorization: Bearer <token>`\n",
    )
        .into_response()
}
