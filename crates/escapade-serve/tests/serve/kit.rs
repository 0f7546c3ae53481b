//! A server on a free port with the toy counter world (or the real worlds), and clients
//! that carry its token as real ones do (`Authorization: Bearer` over HTTP and on the
//! WebSocket's opening request).

use std::net::SocketAddr;
use std::time::Duration;

use escapade_core::World;
use escapade_serve::{ServeOptions, Server};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

pub use escapade_testkit::counter::{CounterWorld, scenario};

/// A running server: its address, its token, its app, and the task serving it.
pub struct Running {
    pub addr: SocketAddr,
    /// The token every request carries (a fresh one unless the options say otherwise).
    pub token: Option<String>,
    pub app: std::sync::Arc<escapade_serve::app::App>,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub task: tokio::task::JoinHandle<Result<(), escapade_serve::ServeError>>,
}

impl Running {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// An HTTP client that sends the token with every request.
    pub fn client(&self) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(t) = &self.token {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {t}").parse().unwrap(),
            );
        }
        reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap()
    }

    /// GETs `path` with the token.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client().get(self.url(path)).send().await.unwrap()
    }

    /// Stops the server and waits until it has finished.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

/// Starts a server with `worlds` and `options` (port 0).
pub async fn start_with(worlds: Vec<Box<dyn World>>, options: ServeOptions) -> Running {
    let options = ServeOptions { port: 0, ..options };
    let server = Server::bind(worlds, &options).await.unwrap();
    let addr = server.addr();
    let token = server.token().map(str::to_string);
    let app = server.app();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run(async move {
        let _ = rx.await;
    }));
    Running {
        addr,
        token,
        app,
        stop: Some(tx),
        task,
    }
}

/// A server with the counter world and no rate limit.
pub async fn start(options: ServeOptions) -> Running {
    start_with(
        vec![Box::new(CounterWorld)],
        ServeOptions {
            rate: 0.0,
            ..options
        },
    )
    .await
}

/// An inline counter scenario with target `target`.
pub fn counter(target: u32) -> Value {
    serde_json::from_str(&scenario("c", target).json()).unwrap()
}

/// POSTs `body` (raw bytes) to `path`; status and JSON answer.
pub async fn post_raw(r: &Running, path: &str, body: Vec<u8>) -> (u16, Value) {
    let response = r
        .client()
        .post(r.url(path))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// POSTs JSON.
pub async fn post(r: &Running, path: &str, body: Value) -> (u16, Value) {
    post_raw(r, path, body.to_string().into_bytes()).await
}

/// A WebSocket session.
pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn ws(r: &Running) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{}/ws", r.addr).into_client_request().unwrap();
    if let Some(t) = &r.token {
        request
            .headers_mut()
            .insert("authorization", format!("Bearer {t}").parse().unwrap());
    }
    let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    ws
}

/// Sends `message`, returns the answer.
pub async fn send(ws: &mut Ws, message: Value) -> Value {
    ws.send(Message::text(message.to_string())).await.unwrap();
    next(ws).await
}

/// The next text message.
pub async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("an answer within 30 s")
            .expect("the connection is open")
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

pub fn reset(scenario: Value) -> Value {
    json!({"type": "reset", "data": {"scenario": scenario}})
}

pub fn step(text: &str) -> Value {
    json!({"type": "step", "data": {"text": text}})
}

/// Waits until `f` holds (up to 30 s); whether it did.
pub async fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}
