//! Load: 256 concurrent WebSocket sessions on loopback stepping random actions (the toy
//! counter world, so the figures are the server's, not a world's). Prints p50 / p99 step
//! latency over the wire and sessions per second (reset, 20 steps, close).
//! `cargo bench -p escapade-serve` (SESSIONS and STEPS override 256 and 20).

use std::time::{Duration, Instant};

use escapade_serve::{ServeOptions, Server};
use escapade_testkit::counter::{CounterWorld, scenario};
use futures::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn session(url: String, steps: usize, seed: u64) -> Vec<Duration> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let target = scenario("load", 1000).json();
    let reset = json!({"type": "reset", "data": {"scenario": target, "seed": seed}});
    ws.send(Message::text(reset.to_string())).await.unwrap();
    ws.next().await.unwrap().unwrap();
    let mut times = Vec::with_capacity(steps);
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for _ in 0..steps {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let action = if x >> 63 == 0 { "inc" } else { "dec" };
        let m = json!({"type": "step", "data": {"text": action}}).to_string();
        let t = Instant::now();
        ws.send(Message::text(m)).await.unwrap();
        ws.next().await.unwrap().unwrap();
        times.push(t.elapsed());
    }
    let _ = ws
        .send(Message::text(json!({"type": "close"}).to_string()))
        .await;
    times
}

fn main() {
    let (sessions, steps) = (env_or("SESSIONS", 256), env_or("STEPS", 20));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let options = ServeOptions {
            port: 0,
            rate: 0.0,
            max_sessions: sessions,
            ..Default::default()
        };
        let server = Server::bind(vec![Box::new(CounterWorld)], &options).await.unwrap();
        let url = format!("ws://{}/ws", server.addr());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = rx.await;
        }));
        let start = Instant::now();
        let handles: Vec<_> = (0..sessions)
            .map(|i| tokio::spawn(session(url.clone(), steps, i as u64)))
            .collect();
        let mut times = Vec::new();
        for h in handles {
            times.extend(h.await.unwrap());
        }
        let wall = start.elapsed();
        times.sort();
        let q = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
        println!(
            "serve load: {sessions} concurrent sessions × {steps} steps on loopback: step p50 {:.2} ms, p99 {:.2} ms; {:.0} sessions/s, {:.0} steps/s",
            q(0.50).as_secs_f64() * 1e3,
            q(0.99).as_secs_f64() * 1e3,
            sessions as f64 / wall.as_secs_f64(),
            times.len() as f64 / wall.as_secs_f64(),
        );
        let _ = tx.send(());
        task.await.unwrap().unwrap();
    });
}
