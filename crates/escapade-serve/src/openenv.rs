//! The OpenEnv protocol (openenv-core 0.3.0) over HTTP and WebSocket.
//!
//! - `GET /ws`: one session per connection, as openenv-core's `EnvClient` speaks it.
//!   The client sends `{"type": "reset", "data": {…}}`, `{"type": "step", "data":
//!   <action>}`, `{"type": "state"}` or `{"type": "close"}`; the server answers
//!   `{"type": "observation", "data": {"observation", "reward", "done"}}`, `{"type":
//!   "state", "data": {…}}` or `{"type": "error", "data": {"message", "code"}}`. An
//!   error never ends the session; closing the connection (cleanly or not) does.
//! - `POST /reset`, `POST /step`, `GET|POST /state`, `POST /close`: the same over HTTP.
//!   OpenEnv's HTTP endpoints are stateless (a fresh environment per request), which an
//!   escape room cannot be; here `/reset` opens a session and answers its `session_id`,
//!   which `/step`, `/state` and `/close` take.
//! - `GET /health`, `GET /metadata`, `GET /schema` as OpenEnv has them, and `GET
//!   /capacity` (`active_sessions`, `max_sessions`).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use escapade_web::auth::Access;
use escapade_web::guard::{Guard, Refusal, client};
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ServeError;
use crate::wire::ResetParams;

/// What the router needs besides the app: who may come in, and the stop signal.
#[derive(Clone)]
pub struct Shared {
    /// The app.
    pub app: Arc<App>,
    /// The token (or none).
    pub access: Arc<Access>,
    /// Hosts, origins, JSON bodies, the token's failures, the request log.
    pub guard: Arc<Guard>,
    /// Turns `true` when the server stops: connections close after their step.
    pub stop: tokio::sync::watch::Receiver<bool>,
}

/// The router of every endpoint.
pub fn router(shared: Shared) -> Router {
    let limit = shared.app.max_message;
    Router::new()
        .route("/", get(index))
        .route(
            "/health",
            get(|| async { axum::Json(json!({"status": "healthy"})) }),
        )
        .route("/metadata", get(metadata))
        .route("/schema", get(schema))
        .route("/capacity", get(capacity))
        .route("/reset", post(http_reset))
        .route("/step", post(http_step))
        .route("/state", get(http_state_get).post(http_state_post))
        .route("/close", post(http_close))
        .route("/ws", get(ws))
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            limit_rate,
        ))
        .layer(axum::middleware::from_fn_with_state(shared.clone(), admit))
        .with_state(shared)
}

impl IntoResponse for ServeError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::BAD_REQUEST);
        let mut response = (status, axum::Json(json!({"error": self.data()}))).into_response();
        if matches!(self, ServeError::RateLimited) {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// In front of every route: [`Guard`] (hosts, origins, JSON bodies, the token).
async fn admit(State(shared): State<Shared>, req: Request, next: Next) -> Response {
    shared.guard.run(&shared.access, req, next, refused).await
}

/// Behind [`admit`]: the rate limit (WebSocket messages are limited one by one in the
/// session loop instead).
async fn limit_rate(State(shared): State<Shared>, req: Request, next: Next) -> Response {
    if req.uri().path() != "/ws" && shared.app.rate.take(client(&req)).is_err() {
        return ServeError::RateLimited.into_response();
    }
    next.run(req).await
}

/// A refusal as OpenEnv's error answer: `{"error": {"message", "code"}}`.
fn refused(refusal: &Refusal) -> Response {
    let message = format!(
        "{}: {}",
        refusal.title(),
        refusal.detail(
            "send it as `Authorization: Bearer <token>`, or give the client the printed base_url \
             http://escapade:<token>@host:port (the token as the URL's password)"
        )
    );
    let data = json!({"message": message, "code": refusal.code()});
    (refusal.status(), axum::Json(json!({"error": data}))).into_response()
}

/// What a person who opens the printed address reads: what this is and where to go.
async fn index() -> &'static str {
    concat!(
        "escapade ",
        env!("CARGO_PKG_VERSION"),
        ": an OpenEnv-compatible environment server (openenv-core 0.3.0)\n\n",
        "  GET  /ws        a WebSocket session: reset, step, state, close messages\n",
        "  POST /reset     opens a session (suite + index or scenario, seed); /step /state /close take its session_id\n",
        "  GET  /health /metadata /schema /capacity\n\n",
        "Python: GenericEnvClient(base_url=...).sync() from openenv-core; see docs/serve.md\n",
    )
}

async fn metadata() -> axum::Json<Value> {
    axum::Json(json!({
        "name": "escapade",
        "description": "escape rooms of four benchmarks (tools: AgentEscapeBench, vis: VisEscape, \
            comma: COMMA, craft: MM-Escape/EscapeCraft); reset with a suite and index or a scenario",
        "readme_content": null,
        "version": env!("CARGO_PKG_VERSION"),
        "author": null,
        "documentation_url": "docs/serve.md",
    }))
}

async fn capacity(State(shared): State<Shared>) -> axum::Json<Value> {
    let limits = shared.app.sessions.limits();
    axum::Json(json!({
        "active_sessions": shared.app.sessions.len(),
        "max_sessions": limits.max_sessions,
    }))
}

/// OpenEnv's `/schema`: the action, observation and state as JSON Schema.
async fn schema() -> axum::Json<Value> {
    axum::Json(crate::schema::schemas())
}

/// A JSON body, with an oversized or unreadable one as a [`ServeError`].
fn body(bytes: Result<Bytes, BytesRejection>, limit: usize) -> Result<Value, ServeError> {
    let bytes = bytes.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ServeError::TooLarge {
            size: limit + 1,
            limit,
        },
        _ => ServeError::Invalid(e.body_text()),
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&bytes).map_err(|e| ServeError::Json(e.to_string()))
}

fn session_id(v: &Value) -> Result<String, ServeError> {
    match v.get("session_id") {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(ServeError::Invalid(
            "`session_id` (a string, from /reset) is required".into(),
        )),
    }
}

async fn http_reset(
    State(shared): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<Value>, ServeError> {
    let params = ResetParams::from_value(body(bytes, shared.app.max_message)?)?;
    let app = &shared.app;
    let (session, fresh) = match &params.session_id {
        Some(id) => (app.sessions.get(id)?, false),
        None => (app.sessions.open()?, true),
    };
    match app.reset(&session, params).await {
        Ok(mut result) => {
            result["session_id"] = json!(session.id);
            Ok(axum::Json(result))
        }
        Err(e) => {
            if fresh {
                app.sessions.close(&session.id);
            }
            Err(e)
        }
    }
}

async fn http_step(
    State(shared): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<Value>, ServeError> {
    let request = body(bytes, shared.app.max_message)?;
    let id = session_id(&request)?;
    let action = request
        .get("action")
        .ok_or_else(|| ServeError::Invalid("`action` is required".into()))?;
    let session = shared.app.sessions.get(&id)?;
    Ok(axum::Json(shared.app.step(&session, action).await?))
}

#[derive(serde::Deserialize)]
struct SessionQuery {
    session_id: Option<String>,
}

async fn http_state_get(
    State(shared): State<Shared>,
    Query(q): Query<SessionQuery>,
) -> Result<axum::Json<Value>, ServeError> {
    let id = q.session_id.ok_or_else(|| {
        ServeError::Invalid("`session_id` (from /reset) is required: /state?session_id=…".into())
    })?;
    let session = shared.app.sessions.get(&id)?;
    Ok(axum::Json(shared.app.state(&session)?))
}

async fn http_state_post(
    State(shared): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<Value>, ServeError> {
    let id = session_id(&body(bytes, shared.app.max_message)?)?;
    let session = shared.app.sessions.get(&id)?;
    Ok(axum::Json(shared.app.state(&session)?))
}

async fn http_close(
    State(shared): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<Value>, ServeError> {
    let id = session_id(&body(bytes, shared.app.max_message)?)?;
    if shared.app.close(&id).await {
        Ok(axum::Json(json!({"closed": true})))
    } else {
        Err(ServeError::UnknownSession(id))
    }
}

/// Messages larger than the limit are answered with an error; larger than this many
/// times the limit, the connection is dropped unread.
const HARD_FACTOR: usize = 4;

async fn ws(
    State(shared): State<Shared>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let hard = shared.app.max_message.saturating_mul(HARD_FACTOR);
    upgrade
        .max_message_size(hard)
        .max_frame_size(hard)
        .on_upgrade(move |socket| session_loop(shared, socket, addr.ip()))
}

fn reply(kind: &str, data: Value) -> Message {
    Message::Text(json!({"type": kind, "data": data}).to_string().into())
}

fn error(e: &ServeError) -> Message {
    reply("error", e.data())
}

/// Sends `message` on `socket`, waiting at most `bound`: whether it went. A client that
/// does not take its answers (it stopped reading, its buffers are full) would otherwise
/// hold the session's task, and its socket, until TCP gives up.
async fn send(socket: &mut WebSocket, message: Message, bound: std::time::Duration) -> bool {
    matches!(
        tokio::time::timeout(bound, socket.send(message)).await,
        Ok(Ok(()))
    )
}

/// One WebSocket connection: one session, from the first message to the close (or the
/// reaper, or the server's stop). A client that does not take an answer within the idle
/// timeout is let go as the reaper lets an idle one go.
async fn session_loop(shared: Shared, mut socket: WebSocket, ip: IpAddr) {
    let app = shared.app.clone();
    let bound = app.sessions.limits().idle_timeout;
    let session = match app.sessions.open() {
        Ok(s) => s,
        Err(e) => {
            if send(&mut socket, error(&e), bound).await {
                send(&mut socket, Message::Close(None), bound).await;
            }
            return;
        }
    };
    let mut closed = session.closed();
    let mut stop = shared.stop.clone();
    loop {
        let message = tokio::select! {
            m = socket.recv() => m,
            _ = closed.wait_for(|c| *c) => break,
            _ = stop.wait_for(|s| *s) => break,
        };
        let text = match message {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Binary(_))) => {
                let e = ServeError::Invalid("messages are JSON text, not binary".into());
                if !send(&mut socket, error(&e), bound).await {
                    break;
                }
                continue;
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
            Some(Ok(_)) => continue, // ping and pong: answered by the library
        };
        session.touch();
        app.rate.wait(ip).await;
        let (answer, close) = handle(&app, &session, text.as_str()).await;
        session.touch();
        if let Some(a) = answer
            && !send(&mut socket, a, bound).await
        {
            break;
        }
        if close {
            break;
        }
    }
    // a stop is the server's doing, not the client's
    let why = match *stop.borrow() {
        true => escapade_run::remote::STOPPED,
        false => escapade_run::remote::GONE,
    };
    app.close_because(&session.id, why).await;
    send(&mut socket, Message::Close(None), bound).await;
}

/// One message of a session: the answer, and whether the client asked to close.
async fn handle(
    app: &App,
    session: &crate::session::Session,
    text: &str,
) -> (Option<Message>, bool) {
    if text.len() > app.max_message {
        let e = ServeError::TooLarge {
            size: text.len(),
            limit: app.max_message,
        };
        return (Some(error(&e)), false);
    }
    let message: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return (Some(error(&ServeError::Json(e.to_string()))), false),
    };
    let kind = message.get("type").and_then(Value::as_str).unwrap_or("");
    let data = message.get("data").cloned().unwrap_or(Value::Null);
    let result = match kind {
        "reset" => match ResetParams::from_value(data) {
            Ok(p) if p.session_id.is_some() => Err(ServeError::Invalid(
                "`session_id` is for HTTP; a WebSocket is its own session".into(),
            )),
            Ok(p) => app.reset(session, p).await.map(|d| reply("observation", d)),
            Err(e) => Err(e),
        },
        "step" => app
            .step(session, &data)
            .await
            .map(|d| reply("observation", d)),
        "state" => app.state(session).map(|d| reply("state", d)),
        "close" => return (None, true),
        other => Err(ServeError::Invalid(format!(
            "unknown message type `{other}` (known: reset, step, state, close)"
        ))),
    };
    (Some(result.unwrap_or_else(|e| error(&e))), false)
}
