//! Load: 256 concurrent WebSocket sessions on loopback stepping random actions. Prints
//! p50 / p99 step latency over the wire and sessions per second (reset, 20 steps, close).
//! By default the toy counter world (the figures are the server's, not a world's);
//! `WORLD=vis` plays generated VisEscape rooms (a random available action each step, the
//! pictures drawn and sent as PNG). `cargo bench -p escapade-serve` (SESSIONS and STEPS
//! override 256 and 20).

use std::time::{Duration, Instant};

use escapade_core::World;
use escapade_serve::{ServeOptions, Server};
use escapade_testkit::counter::{CounterWorld, scenario};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn answer(ws: &mut Ws) -> Value {
    match ws.next().await.unwrap().unwrap() {
        Message::Text(t) => serde_json::from_str(&t).unwrap(),
        other => panic!("{other:?}"),
    }
}

async fn session(url: String, scenario: String, steps: usize, seed: u64) -> Vec<Duration> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let reset = json!({"type": "reset", "data": {"scenario": scenario, "seed": seed}}).to_string();
    ws.send(Message::text(reset.clone())).await.unwrap();
    let mut seen = answer(&mut ws).await;
    let mut times = Vec::with_capacity(steps);
    let lcg = |x: u64| {
        x.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut x = lcg(seed);
    for _ in 0..steps {
        x = lcg(x);
        if seen["data"]["done"] == true {
            ws.send(Message::text(reset.clone())).await.unwrap();
            seen = answer(&mut ws).await;
        }
        // a random available action (vis), or inc / dec (counter)
        let action = match seen["data"]["observation"]["actions"].as_array() {
            Some(a) if !a.is_empty() => a[(x >> 33) as usize % a.len()]
                .as_str()
                .unwrap_or("")
                .to_string(),
            _ if x >> 63 == 0 => "inc".into(),
            _ => "dec".into(),
        };
        let m = json!({"type": "step", "data": {"text": action}}).to_string();
        let t = Instant::now();
        ws.send(Message::text(m)).await.unwrap();
        seen = answer(&mut ws).await;
        assert_eq!(seen["type"], "observation", "{seen}");
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
            // the figures are the sessions', not the token check's (one comparison)
            token: escapade_web::auth::TokenChoice::None,
            ..Default::default()
        };
        let world = std::env::var("WORLD").unwrap_or_else(|_| "counter".into());
        let (worlds, scenarios): (Vec<Box<dyn World>>, Vec<String>) = match world.as_str() {
            "vis" => {
                let vis = escapade_vis::VisWorld::new();
                let rooms = (0..8).map(|s| vis.generate(1, s, &Default::default()).unwrap()).collect();
                (vec![Box::new(vis)], rooms)
            }
            _ => (vec![Box::new(CounterWorld)], vec![scenario("load", 1000).json()]),
        };
        let server = Server::bind(worlds, &options).await.unwrap();
        let url = format!("ws://{}/ws", server.addr());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = rx.await;
        }));
        let start = Instant::now();
        let handles: Vec<_> = (0..sessions)
            .map(|i| {
                let room = scenarios[i % scenarios.len()].clone();
                tokio::spawn(session(url.clone(), room, steps, i as u64))
            })
            .collect();
        let mut times = Vec::new();
        for h in handles {
            times.extend(h.await.unwrap());
        }
        let wall = start.elapsed();
        times.sort();
        let q = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
        println!(
            "serve load ({world}): {sessions} concurrent sessions × {steps} steps on loopback: step p50 {:.2} ms, p99 {:.2} ms; {:.0} sessions/s, {:.0} steps/s",
            q(0.50).as_secs_f64() * 1e3,
            q(0.99).as_secs_f64() * 1e3,
            sessions as f64 / wall.as_secs_f64(),
            times.len() as f64 / wall.as_secs_f64(),
        );
        let _ = tx.send(());
        task.await.unwrap().unwrap();
    });
}
