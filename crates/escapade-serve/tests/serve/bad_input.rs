//! Bad input gets a clear error and the server keeps serving; no session sees another's.

use escapade_serve::ServeOptions;
use futures::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::kit::*;

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_bad_requests_are_clear_errors() {
    let r = start(ServeOptions {
        max_message: 4096,
        ..Default::default()
    })
    .await;
    let (s, v) = post_raw(&r, "/reset", b"{not json".to_vec()).await;
    assert_eq!((s, code(&v)), (400, "INVALID_JSON"), "{v}");
    let (s, v) = post_raw(&r, "/reset", vec![b' '; 10_000]).await;
    assert_eq!((s, code(&v)), (413, "VALIDATION_ERROR"), "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("4096"),
        "{v}"
    );
    let (s, v) = post(&r, "/reset", json!({"suite": "nope@1"})).await;
    assert_eq!((s, code(&v)), (400, "FACTORY_ERROR"), "{v}");
    let (s, v) = post(&r, "/reset", json!({"sede": 1, "scenario": counter(1)})).await;
    assert_eq!(s, 400, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("sede"),
        "{v}"
    );
    let (s, v) = post(
        &r,
        "/reset",
        json!({"scenario": {"world": "vis", "id": "x", "difficulty": 1, "seed": 0}}),
    )
    .await;
    assert_eq!(s, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no world `vis`"),
        "{v}"
    );
    let (s, v) = post(
        &r,
        "/step",
        json!({"session_id": "0123", "action": {"text": "inc"}}),
    )
    .await;
    assert_eq!((s, code(&v)), (404, "SESSION_ERROR"), "{v}");
    let (s, v) = post(&r, "/step", json!({"action": {"text": "inc"}})).await;
    assert_eq!(s, 400, "{v}");
    // a failed reset holds no slot
    assert_eq!(r.app.sessions.len(), 0);

    let (s, v) = post(&r, "/reset", json!({"scenario": counter(1), "seed": 3})).await;
    assert_eq!(s, 200, "{v}");
    let id = v["session_id"].as_str().unwrap().to_string();
    assert_eq!(v["done"], false);
    assert!(v["reward"].is_null());
    let (s, v) = post(
        &r,
        "/step",
        json!({"session_id": id, "action": {"texts": "inc"}}),
    )
    .await;
    assert_eq!((s, code(&v)), (400, "VALIDATION_ERROR"), "{v}");
    let (s, v) = post(
        &r,
        "/step",
        json!({"session_id": id, "action": {"text": "inc"}}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["done"].as_bool(), v["reward"].as_f64()),
        (Some(true), Some(1.0)),
        "{v}"
    );
    assert_eq!(v["observation"]["success"], true);
    assert_eq!(v["observation"]["terminated"], true);
    let (s, v) = post(
        &r,
        "/step",
        json!({"session_id": id, "action": {"text": "inc"}}),
    )
    .await;
    assert_eq!((s, code(&v)), (409, "EPISODE_OVER"), "{v}");
    let state: Value = r
        .get(&format!("/state?session_id={id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (state["step_count"].as_u64(), state["done"].as_bool()),
        (Some(1), Some(true)),
        "{state}"
    );
    let (s, _) = post(&r, "/close", json!({"session_id": id})).await;
    assert_eq!(s, 200);
    let (s, v) = post(
        &r,
        "/step",
        json!({"session_id": id, "action": {"text": "inc"}}),
    )
    .await;
    assert_eq!((s, code(&v)), (404, "SESSION_ERROR"), "{v}");
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_steps_on_one_session_are_refused_not_mixed() {
    let r = start(ServeOptions::default()).await;
    let (_, v) = post(&r, "/reset", json!({"scenario": counter(1000)})).await;
    let id = v["session_id"].as_str().unwrap().to_string();
    // a step in progress holds the session: another is refused at once
    let session = r.app.sessions.get(&id).unwrap();
    let held = session.live.try_lock().unwrap();
    let (s, v) = post(
        &r,
        "/step",
        json!({"session_id": id, "action": {"text": "inc"}}),
    )
    .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (409, Some("SESSION_ERROR")),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still being played")
    );
    drop(held);
    // a burst: every step either played or refused, and the count is the played ones
    let mut tasks = Vec::new();
    for _ in 0..32 {
        let (url, id, client) = (r.url("/step"), id.clone(), r.client());
        tasks.push(tokio::spawn(async move {
            let response = client
                .post(url)
                .json(&json!({"session_id": id, "action": {"text": "inc"}}))
                .send()
                .await
                .unwrap();
            response.status().as_u16()
        }));
    }
    let mut played = 0;
    for t in tasks {
        match t.await.unwrap() {
            200 => played += 1,
            409 => {}
            other => panic!("status {other}"),
        }
    }
    assert!(played >= 1);
    let state: Value = r
        .get(&format!("/state?session_id={id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(state["step_count"].as_u64(), Some(played), "{state}");
    assert_eq!(
        state["progress"].as_f64(),
        Some(played as f64 / 1000.0),
        "{state}"
    );
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_errors_keep_the_session_and_no_session_sees_another() {
    let r = start(ServeOptions {
        max_message: 2048,
        ..Default::default()
    })
    .await;
    let (mut a, mut b) = (ws(&r).await, ws(&r).await);
    let e = send(&mut a, step("inc")).await;
    assert_eq!(
        (e["type"].as_str(), e["data"]["code"].as_str()),
        (Some("error"), Some("SESSION_ERROR")),
        "{e}"
    );
    a.send(Message::text("{oops")).await.unwrap();
    assert_eq!(next(&mut a).await["data"]["code"], "INVALID_JSON");
    let e = send(&mut a, json!({"type": "jump"})).await;
    assert!(
        e["data"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown message type"),
        "{e}"
    );
    let e = send(
        &mut a,
        json!({"type": "step", "data": {"text": "x".repeat(3000)}}),
    )
    .await;
    assert_eq!(e["data"]["code"], "VALIDATION_ERROR", "{e}");
    a.send(Message::binary(vec![1, 2, 3])).await.unwrap();
    assert_eq!(next(&mut a).await["type"], "error");
    // the session still plays after all that
    let o = send(&mut a, reset(counter(3))).await;
    assert_eq!(o["type"], "observation", "{o}");
    let o = send(&mut b, reset(counter(5))).await;
    assert!(
        o["data"]["observation"]["text"]
            .as_str()
            .unwrap()
            .contains("of 5"),
        "{o}"
    );
    for _ in 0..2 {
        send(&mut a, step("inc")).await;
    }
    let ob = send(&mut b, step("inc")).await;
    assert!(
        ob["data"]["observation"]["text"]
            .as_str()
            .unwrap()
            .contains("count 1 of 5"),
        "{ob}"
    );
    let sa = send(&mut a, json!({"type": "state"})).await;
    let sb = send(&mut b, json!({"type": "state"})).await;
    assert_eq!(
        (
            sa["data"]["step_count"].as_u64(),
            sb["data"]["step_count"].as_u64()
        ),
        (Some(2), Some(1))
    );
    assert_ne!(sa["data"]["session_id"], sb["data"]["session_id"]);
    assert_eq!(r.app.sessions.len(), 2);
    // a client dropping mid-step: the server answers into a closed socket and goes on
    a.send(Message::text(step("inc").to_string()))
        .await
        .unwrap();
    drop(a);
    let ob = send(&mut b, step("inc")).await;
    assert!(
        ob["data"]["observation"]["text"]
            .as_str()
            .unwrap()
            .contains("count 2 of 5"),
        "{ob}"
    );
    assert!(eventually(|| r.app.sessions.len() == 1).await);
    // OpenEnv's close: no answer, the session ends
    b.send(Message::text(json!({"type": "close"}).to_string()))
        .await
        .unwrap();
    assert!(eventually(|| r.app.sessions.is_empty()).await);
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_refuses_clearly_and_a_token_is_required_off_loopback() {
    let r = start(ServeOptions {
        max_sessions: 1,
        ..Default::default()
    })
    .await;
    let mut a = ws(&r).await;
    send(&mut a, reset(counter(2))).await;
    let mut b = ws(&r).await;
    let e = next(&mut b).await;
    assert_eq!(e["data"]["code"], "CAPACITY_REACHED", "{e}");
    let (s, v) = post(&r, "/reset", json!({"scenario": counter(1)})).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (503, Some("CAPACITY_REACHED"))
    );
    drop(a);
    assert!(eventually(|| r.app.sessions.is_empty()).await);
    r.stop().await;

    let r = start(ServeOptions {
        host: Some("127.0.0.1".parse().unwrap()),
        token: escapade_web::auth::TokenChoice::Given("0123456789abcdef0123".into()),
        ..Default::default()
    })
    .await;
    // `/health` answers a liveness probe without the token; the rest need it
    let open = reqwest::get(r.url("/health")).await.unwrap();
    assert_eq!(open.status(), 200);
    let health = |auth: Option<(&str, &str)>| {
        let mut request = reqwest::Client::new().get(r.url("/capacity"));
        match auth {
            Some(("bearer", t)) => request = request.bearer_auth(t),
            Some((_, t)) => request = request.basic_auth("escapade", Some(t)),
            None => {}
        }
        async move { request.send().await.unwrap().status().as_u16() }
    };
    let token = "0123456789abcdef0123";
    assert_eq!(health(None).await, 401);
    assert_eq!(health(Some(("bearer", "wrong"))).await, 401);
    assert_eq!(health(Some(("bearer", token))).await, 200);
    assert_eq!(health(Some(("basic", token))).await, 200);
    assert_eq!(health(Some(("basic", "wrong"))).await, 401);
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_clients_over_the_rate_are_told_to_slow_down() {
    let r = start_with(
        vec![Box::new(CounterWorld)],
        ServeOptions {
            rate: 1.0,
            burst: 2.0,
            ..Default::default()
        },
    )
    .await;
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(
            reqwest::get(r.url("/health"))
                .await
                .unwrap()
                .status()
                .as_u16(),
        );
    }
    assert_eq!(&statuses[..2], &[200, 200]);
    assert!(statuses[2..].contains(&429), "{statuses:?}");
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_stop_records_open_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let r = start(ServeOptions {
        record: Some(dir.path().to_path_buf()),
        ..Default::default()
    })
    .await;
    let mut a = ws(&r).await;
    send(&mut a, reset(counter(4))).await;
    send(&mut a, step("inc")).await;
    r.stop().await;
    let runs: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(runs.len(), 1);
    let run = runs[0].as_ref().unwrap().path();
    let rows = std::fs::read_to_string(run.join("episodes.jsonl")).unwrap();
    let row: Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(
        (row["agent"].as_str(), row["steps"].as_u64()),
        (Some("remote"), Some(1)),
        "{row}"
    );
    // the server stopped, not the client
    assert!(
        row["error"]
            .as_str()
            .unwrap()
            .contains("the server stopped before the episode ended"),
        "{row}"
    );
    // the recorded run reads as any other: a report over it
    let report = escapade_run::report(&[run], &[]).unwrap();
    assert_eq!(report.groups.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replaced_and_reaped_episodes_are_recorded_before_a_stop_returns() {
    let dir = tempfile::tempdir().unwrap();
    let r = start(ServeOptions {
        record: Some(dir.path().to_path_buf()),
        // long enough that a loaded machine never reaps the session between two messages
        idle_timeout: std::time::Duration::from_secs(3),
        ..Default::default()
    })
    .await;
    // one session resets ten times (each episode replaced by the next), then falls silent
    let mut a = ws(&r).await;
    for target in 4..14 {
        send(&mut a, reset(counter(target))).await;
        send(&mut a, step("inc")).await;
    }
    // the reaper takes it; the server stops at once after
    assert!(eventually(|| r.app.sessions.is_empty()).await);
    r.stop().await;
    let mut rows: Vec<Value> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|run| {
            let rows = std::fs::read_to_string(run.unwrap().path().join("episodes.jsonl"))
                .expect("a replaced or reaped episode's run has its row when the stop returns");
            serde_json::from_str(rows.lines().next().unwrap()).unwrap()
        })
        .collect();
    rows.sort_by_key(|row| row["scenario"].as_str().map(String::from));
    let seen: Vec<_> = rows
        .iter()
        .map(|row| (row["steps"].as_u64(), row["success"].as_bool()))
        .collect();
    assert_eq!(seen, vec![(Some(1), Some(false)); 10], "{rows:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_printed_address_says_what_the_server_is() {
    let r = start(ServeOptions::default()).await;
    let page = r.get("/").await;
    assert_eq!(page.status(), 200);
    let text = page.text().await.unwrap();
    assert!(
        text.contains("OpenEnv") && text.contains("/ws") && text.contains("/reset"),
        "{text}"
    );
    assert_eq!(r.get("/nowhere").await.status(), 404);
    r.stop().await;
}
