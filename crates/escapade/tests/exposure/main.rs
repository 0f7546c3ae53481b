//! Servers you can expose (issue 27): each defect found by attacking `serve`, `mcp`,
//! `view` and `play --web` as an attacker and as an operator would, replayed against the
//! binary over loopback. Every test is bounded in time.
//!
//! - signals: SIGTERM and SIGHUP stop every command as Ctrl-C does, and every episode in
//!   play is recorded (`serve`, `mcp`, `play` in the terminal and in the browser, `run`);
//!   a second signal quits a server at once, however long its graceful stop would wait;
//! - slow clients: idle, half-sent and slow-bodied connections are cut off, and a flood of
//!   them under a low file-descriptor limit leaves the server reachable, even while the
//!   flood is renewed, and none of them holds a stop;
//! - descriptors: `serve --record` raises its limit, holds few descriptors per session,
//!   and refuses cleanly when out of them;
//! - origins: a page of another origin, a `text/plain` body, a foreign WebSocket are
//!   refused by every server;
//! - tokens: a token by default on every server, taken from the environment, `--token`
//!   honoured without `--host`, `--no-token` to opt out; wrong tokens slowed down;
//!   a log line per request, without secrets;
//! - limits: MCP transport sessions capped; frame sizes bounded;
//! - leaks: neither a 500 page nor a long participant name shows a server path.

mod kit;

use std::path::Path;
use std::time::{Duration, Instant};

use kit::{Mcp, Running, get, json_headers, post, raw, rows_under, start};
use serde_json::{Value, json};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Opens an HTTP session of `serve` on room `index` of visescape@4.
fn serve_reset(r: &Running, index: usize, extra: Value) -> kit::Answer {
    let mut body = json!({"suite": "visescape@4", "index": index, "seed": 1});
    if let Value::Object(m) = extra {
        body.as_object_mut().unwrap().extend(m);
    }
    post(&r.addr, "/reset", &json_headers(r), &body.to_string())
}

// ------------------------------------------------------------------------- 4. signals

#[test]
fn sigterm_stops_serve_and_records_every_open_episode_as_stopped_by_the_server() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let mut r = start(&["serve", "--port", "0", "--record", s(&record)], &[], None);
    for i in 0..4 {
        let a = serve_reset(&r, i, json!({}));
        assert_eq!(a.status, 200, "{a:?}");
    }
    let status = r.signal("TERM", Duration::from_secs(60));
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}\n{}",
        r.stderr()
    );
    let (rows, empty) = rows_under(&record);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(empty.is_empty(), "{empty:?}");
    for row in rows {
        let error = row["error"].as_str().unwrap_or_default();
        assert!(error.contains("the server stopped"), "{error}");
    }
}

/// A recording holds the scenario, its answers with it, while the episode is played:
/// another local user must not read it (the run directory is the owner's only, whatever
/// the umask gives other directories).
#[cfg(unix)]
#[test]
fn another_local_user_cannot_read_a_recording_in_play() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp();
    let record = dir.path().join("runs");
    let mut r = start(&["serve", "--port", "0", "--record", s(&record)], &[], None);
    let a = serve_reset(&r, 0, json!({}));
    assert_eq!(a.status, 200, "{a:?}");
    let runs: Vec<std::path::PathBuf> = std::fs::read_dir(&record)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let mode = std::fs::metadata(&runs[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the run directory's mode is {mode:o}");
    let status = r.signal("TERM", Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

#[test]
fn sighup_stops_mcp_over_http_and_records_every_episode() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let mut r = start(
        &["mcp", "--http", "--port", "0", "--record", s(&record)],
        &[],
        None,
    );
    let mut client = Mcp::new(&r);
    assert_eq!(client.initialize().status, 200);
    for i in 0..3 {
        let a = client.call("start_episode", json!({"suite": "visescape@4", "index": i}));
        assert!(a.status == 200 && a.body.contains("started"), "{a:?}");
    }
    let status = r.signal("HUP", Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    let (rows, empty) = rows_under(&record);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(empty.is_empty(), "{empty:?}");
    assert!(
        rows.iter().all(|r| r["error"]
            .as_str()
            .unwrap_or("")
            .contains("the server stopped")),
        "{rows:?}"
    );
}

#[test]
fn sigterm_stops_a_terminal_game_and_records_it() {
    use std::io::Read;
    let dir = tmp();
    let record = dir.path().join("runs");
    let mut child = std::process::Command::new(kit::bin())
        .args(["play", "visescape@4", "--record", s(&record), "--images"])
        .arg(dir.path().join("pics"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // the prompt: the game waits for the player's move
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            if seen.ends_with(b"> ") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("the game asks for a move");
    kit::send_signal(&child, "TERM");
    let status = kit::wait_for(&mut child, Duration::from_secs(30));
    assert!(status.is_some_and(|s| s.code().is_some()), "{status:?}");
    let (rows, empty) = rows_under(&record);
    assert_eq!(rows.len(), 1, "{rows:?} {empty:?}");
    let error = rows[0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("SIGTERM"), "{error}");
}

#[test]
fn sigterm_stops_play_web_and_records_the_game_in_progress() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let mut r = start(
        &[
            "play",
            "--web",
            "visescape@4",
            "--port",
            "0",
            "--record",
            s(&record),
        ],
        &[],
        None,
    );
    let page = get(&r.addr, "/play", &r.auth());
    assert_eq!(page.status, 200, "{page:?}");
    let id = page
        .body
        .split("<option value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a scenario to pick")
        .to_string();
    let form = format!("participant=alice&scenario={id}");
    let headers = format!(
        "Content-Type: application/x-www-form-urlencoded\r\n{}",
        r.auth()
    );
    let started = post(&r.addr, "/play/start", &headers, &form);
    assert_eq!(started.status, 303, "{started:?}");
    let status = r.signal("TERM", Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    let (rows, _) = rows_under(&record);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("server stopped"),
        "{rows:?}"
    );
}

#[test]
fn sigterm_stops_view_cleanly() {
    let dir = tmp();
    let mut r = start(&["view", s(dir.path()), "--port", "0"], &[], None);
    let status = r.signal("TERM", Duration::from_secs(30));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

/// A request whose body never finishes: it holds a server's stop for the whole grace.
fn hold_a_request(r: &Running, path: &str, content_type: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(&r.addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\n{}\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{",
        r.addr,
        r.auth()
    )
    .unwrap();
    s
}

#[test]
fn a_second_signal_stops_every_server_at_once() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let servers = [
        (
            vec![
                "play",
                "--web",
                "visescape@4",
                "--port",
                "0",
                "--record",
                s(&record),
            ],
            "/play/start",
            "application/x-www-form-urlencoded",
        ),
        (
            vec!["serve", "--port", "0", "--record", s(&record)],
            "/reset",
            "application/json",
        ),
        (
            vec!["mcp", "--http", "--port", "0"],
            "/mcp",
            "application/json",
        ),
    ];
    std::thread::scope(|scope| {
        for (args, path, content_type) in &servers {
            scope.spawn(move || {
                let mut r = start(args, &[], None);
                // a request in progress: the first signal waits for it (up to the grace)
                let _held = hold_a_request(&r, path, content_type);
                std::thread::sleep(Duration::from_millis(300));
                kit::send_signal(&r.child, "TERM");
                std::thread::sleep(Duration::from_millis(1000));
                let at = Instant::now();
                let status = r.signal("INT", Duration::from_secs(5));
                assert_eq!(
                    status.and_then(|s| s.code()),
                    Some(130),
                    "{args:?}: a second signal did not stop it at once ({:?})\n{}",
                    at.elapsed(),
                    r.stderr()
                );
                assert!(r.stderr().contains("quit"), "{}", r.stderr());
            });
        }
    });
}

#[test]
fn a_half_sent_request_head_does_not_hold_a_stop() {
    use std::io::Write;
    let dir = tmp();
    let servers = [
        vec!["view", s(dir.path()), "--port", "0"],
        vec!["serve", "--port", "0"],
        vec!["mcp", "--http", "--port", "0"],
    ];
    std::thread::scope(|scope| {
        for args in &servers {
            scope.spawn(move || {
                let mut r = start(args, &[], None);
                // anyone who can connect: a head never finished, and an idle connection
                let mut half = std::net::TcpStream::connect(&r.addr).unwrap();
                write!(half, "GET / HTTP/1.1\r\nHost: {}\r\n", r.addr).unwrap();
                let _idle = std::net::TcpStream::connect(&r.addr).unwrap();
                std::thread::sleep(Duration::from_millis(300));
                let at = Instant::now();
                let status = r.signal("TERM", Duration::from_secs(30));
                assert!(status.is_some_and(|s| s.success()), "{args:?}: {status:?}");
                assert!(
                    at.elapsed() < Duration::from_secs(5),
                    "{args:?}: the stop waited {:?} for a request that never came",
                    at.elapsed()
                );
            });
        }
    });
}

#[test]
fn sigterm_stops_a_run_and_records_the_episodes_in_flight() {
    let dir = tmp();
    let out = dir.path().join("runs");
    let mut child = std::process::Command::new(kit::bin())
        .args([
            "run", "comma@4", "--agent", "random", "-e", "1000", "-c", "2", "-q", "--out",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(180);
    while rows_under(&out).0.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!rows_under(&out).0.is_empty(), "the run plays episodes");
    kit::send_signal(&child, "TERM");
    let status = kit::wait_for(&mut child, Duration::from_secs(120));
    // an interrupted run: its summary written, status 130
    assert_eq!(status.and_then(|s| s.code()), Some(130), "{status:?}");
    let run = std::fs::read_dir(&out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(run.join("summary.json").is_file());
}

// ------------------------------------------------------------------- 5. slow clients

/// Whether the server closes `stream` within `wait` (a read ends or fails other than by
/// timing out).
fn closed_within(stream: &mut std::net::TcpStream, wait: Duration) -> bool {
    use std::io::Read;
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 4096];
    let start = Instant::now();
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue, // an answer (a 408, a 400): the close follows
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return start.elapsed() < wait,
        }
    }
}

/// An idle connection, a half-sent head and (with `body_path`) a slow body, each closed
/// by the server within `wait`.
fn slow_clients_cut_off(r: &Running, body_path: Option<(&str, &str)>, wait: Duration) {
    use std::io::Write;
    let idle = std::net::TcpStream::connect(&r.addr).unwrap();
    let mut half = std::net::TcpStream::connect(&r.addr).unwrap();
    write!(half, "GET / HTTP/1.1\r\nHost: {}\r\n", r.addr).unwrap();
    let mut slow = body_path.map(|(path, content_type)| {
        let mut s = std::net::TcpStream::connect(&r.addr).unwrap();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\n{}Content-Length: 100000\r\n\r\n0123456789",
            r.addr,
            r.auth()
        )
        .unwrap();
        s
    });
    let mut idle = idle;
    assert!(
        closed_within(&mut idle, wait),
        "an idle connection stays open"
    );
    assert!(
        closed_within(&mut half, wait),
        "a half-sent request head stays open"
    );
    if let Some(slow) = slow.as_mut() {
        assert!(closed_within(slow, wait), "a slow body stays open");
    }
}

#[test]
fn slow_and_idle_clients_are_cut_off_by_every_server() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let wait = Duration::from_secs(45);
    let servers = [
        (vec!["view", s(dir.path()), "--port", "0"], None),
        (
            vec![
                "play",
                "--web",
                "visescape@4",
                "--port",
                "0",
                "--record",
                s(&record),
            ],
            Some(("/play/start", "application/x-www-form-urlencoded")),
        ),
        (
            vec!["serve", "--port", "0"],
            Some(("/reset", "application/json")),
        ),
        (
            vec!["mcp", "--http", "--port", "0"],
            Some(("/mcp", "application/json")),
        ),
    ];
    std::thread::scope(|scope| {
        for (args, body) in &servers {
            scope.spawn(move || {
                let r = start(args, &[], None);
                slow_clients_cut_off(&r, *body, wait);
            });
        }
    });
}

#[test]
fn a_flood_of_idle_connections_under_a_low_fd_limit_leaves_view_reachable() {
    let dir = tmp();
    let r = start(&["view", s(dir.path()), "--port", "0"], &[], Some("-n 256"));
    // more idle connections than the process may have descriptors (each connect
    // bounded: a server that stops accepting fills its backlog, and a connect then
    // waits for minutes)
    let to = r.addr.parse().unwrap();
    let flood: Vec<std::net::TcpStream> = (0..400)
        .map_while(|_| std::net::TcpStream::connect_timeout(&to, Duration::from_secs(3)).ok())
        .collect();
    assert!(
        flood.len() == 400,
        "the server stopped accepting after {} connections\n{}",
        flood.len(),
        r.stderr()
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = None;
    while Instant::now() < deadline {
        let a = kit::raw(
            &r.addr,
            &format!(
                "GET /{} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                r.query(true),
                r.addr
            ),
            Duration::from_secs(5),
        );
        if a.status == 200 {
            return;
        }
        last = Some(a.status);
        std::thread::sleep(Duration::from_millis(500));
    }
    drop(flood);
    panic!(
        "view stayed unreachable (last status {last:?})\n{}",
        r.stderr()
    );
}

#[test]
fn a_flood_of_unfinished_heads_does_not_lock_a_client_out() {
    use std::io::Write;
    let dir = tmp();
    // a cap of 64 connections: 128 descriptors, less what the server keeps for itself
    let r = start(&["view", s(dir.path()), "--port", "0"], &[], Some("-n 128"));
    let to = r.addr.parse().unwrap();
    // anyone who can connect, without the token: more heads begun than the cap, each
    // kept within the head timeout
    let flood: Vec<std::net::TcpStream> = (0..150)
        .filter_map(|_| {
            let mut s = std::net::TcpStream::connect_timeout(&to, Duration::from_secs(3)).ok()?;
            write!(s, "GET / HTTP/1.1\r\nHost: {}\r\n", r.addr).ok()?;
            Some(s)
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let a = get(&r.addr, &format!("/{}", r.query(true)), "");
    assert_eq!(
        a.status,
        200,
        "a client with the token was locked out by {} unfinished heads: {a:?}",
        flood.len()
    );
    drop(flood);
}

// -------------------------------------------------------------------- 6. descriptors

#[test]
fn serve_record_raises_a_low_soft_fd_limit_and_records_every_session() {
    let dir = tmp();
    let record = dir.path().join("runs");
    // the soft limit low, the hard one as the system has it
    let mut r = start(
        &[
            "serve",
            "--port",
            "0",
            "--record",
            s(&record),
            "--rate",
            "0",
        ],
        &[],
        Some("-Sn 100"),
    );
    let statuses: Vec<u16> = (0..60)
        .map(|i| serve_reset(&r, i % 20, json!({})).status)
        .collect();
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert!(r.signal("TERM", Duration::from_secs(120)).is_some());
    let (rows, empty) = rows_under(&record);
    assert_eq!(rows.len(), 60);
    assert!(empty.is_empty(), "{empty:?}");
}

#[test]
fn serve_record_out_of_fds_refuses_cleanly_and_leaves_no_run_without_a_row() {
    let dir = tmp();
    let record = dir.path().join("runs");
    // soft and hard limits both low: nothing to raise
    let mut r = start(
        &[
            "serve",
            "--port",
            "0",
            "--record",
            s(&record),
            "--rate",
            "0",
        ],
        &[],
        Some("-n 100"),
    );
    let answers: Vec<kit::Answer> = (0..80)
        .map(|i| serve_reset(&r, i % 20, json!({})))
        .collect();
    let ok = answers.iter().filter(|a| a.status == 200).count();
    assert!(ok >= 10, "{answers:?}");
    for a in answers.iter().filter(|a| a.status != 200) {
        assert_eq!(a.status, 503, "{a:?}");
        assert!(a.body.contains("file descriptors"), "{a:?}");
        assert!(!a.body.contains(s(dir.path())), "{a:?}");
    }
    // the server still answers
    assert_eq!(get(&r.addr, "/health", "").status, 200);
    assert!(r.signal("TERM", Duration::from_secs(120)).is_some());
    let (rows, empty) = rows_under(&record);
    assert_eq!(rows.len(), ok);
    assert!(empty.is_empty(), "run directories without a row: {empty:?}");
}

// ------------------------------------------------------------------------ 7. origins

const EVIL: &str = "Origin: http://evil.example\r\n";

#[test]
fn serve_refuses_foreign_pages_and_text_bodies() {
    let r = start(&["serve", "--port", "0"], &[], None);
    let upgrade = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\n{EVIL}{}Upgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        r.addr,
        r.auth()
    );
    let ws = raw(&r.addr, &upgrade, Duration::from_secs(5));
    assert_eq!(ws.status, 403, "{ws:?}");
    let body = json!({"suite": "visescape@4", "index": 0}).to_string();
    let text = post(
        &r.addr,
        "/reset",
        &format!("Content-Type: text/plain\r\n{}", r.auth()),
        &body,
    );
    assert_eq!(text.status, 415, "{text:?}");
    let cross = post(
        &r.addr,
        "/reset",
        &format!("Sec-Fetch-Site: cross-site\r\n{}", json_headers(&r)),
        &body,
    );
    assert_eq!(cross.status, 403, "{cross:?}");
    assert_eq!(r_capacity(&r), 0, "no session was opened");
}

fn r_capacity(r: &Running) -> u64 {
    let a = get(&r.addr, "/capacity", &r.auth());
    let v: Value = serde_json::from_str(&a.body).unwrap();
    v["active_sessions"].as_u64().unwrap()
}

#[test]
fn play_web_refuses_a_start_from_a_foreign_page() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let r = start(
        &[
            "play",
            "--web",
            "visescape@4",
            "--port",
            "0",
            "--record",
            s(&record),
        ],
        &[],
        None,
    );
    let page = get(&r.addr, "/play", &r.auth());
    let id = page
        .body
        .split("<option value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    let headers = format!(
        "Content-Type: application/x-www-form-urlencoded\r\n{EVIL}{}",
        r.auth()
    );
    let claimed = post(
        &r.addr,
        "/play/start",
        &headers,
        &format!("participant=mallory&scenario={id}"),
    );
    assert_eq!(claimed.status, 403, "{claimed:?}");
    // the scenario is still offered
    let again = get(&r.addr, "/play", &r.auth());
    assert!(again.body.contains(&format!("<option value=\"{id}\"")));
}

#[test]
fn mcp_validates_origin() {
    let r = start(&["mcp", "--http", "--port", "0"], &[], None);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let a = post(
        &r.addr,
        "/mcp",
        &format!(
            "{EVIL}{}Accept: application/json, text/event-stream\r\n",
            json_headers(&r)
        ),
        &body,
    );
    assert_eq!(a.status, 403, "{a:?}");
    // a client that is not a browser sends no Origin and is served
    assert_eq!(Mcp::new(&r).initialize().status, 200);
}

#[test]
fn view_refuses_a_foreign_page() {
    let dir = tmp();
    let r = start(&["view", s(dir.path()), "--port", "0"], &[], None);
    let a = get(&r.addr, "/", &format!("{EVIL}{}", r.auth()));
    assert_eq!(a.status, 403, "{a:?}");
    assert_eq!(get(&r.addr, "/", &r.auth()).status, 200);
}

// ------------------------------------------------------------------------- 8. tokens

#[test]
fn every_server_needs_a_token_by_default() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let servers: [(Vec<&str>, &str); 4] = [
        (vec!["view", s(dir.path()), "--port", "0"], "/"),
        (
            vec![
                "play",
                "--web",
                "visescape@4",
                "--port",
                "0",
                "--record",
                s(&record),
            ],
            "/play",
        ),
        (vec!["serve", "--port", "0"], "/capacity"),
        (vec!["mcp", "--http", "--port", "0"], ""),
    ];
    std::thread::scope(|scope| {
        for (args, path) in &servers {
            scope.spawn(move || {
                let r = start(args, &[], None);
                assert!(r.token.is_some(), "{args:?} printed no token: {}", r.url);
                if args[0] == "mcp" {
                    let mut anonymous = Mcp::new(&r);
                    anonymous.anonymous = true;
                    assert_eq!(anonymous.initialize().status, 401);
                    assert_eq!(Mcp::new(&r).initialize().status, 200);
                    return;
                }
                assert_eq!(get(&r.addr, path, "").status, 401, "{args:?}");
                assert_eq!(get(&r.addr, path, &r.auth()).status, 200, "{args:?}");
                let q = format!("{path}{}", r.query(true));
                assert_eq!(get(&r.addr, &q, "").status, 200, "{args:?}");
            });
        }
    });
}

#[test]
fn a_token_from_the_environment_or_the_flag_holds_without_host() {
    let dir = tmp();
    let token = "given-token-0123456789";
    let view = start(
        &["view", s(dir.path()), "--port", "0"],
        &[("ESCAPADE_TOKEN", token)],
        None,
    );
    assert_eq!(get(&view.addr, "/", "").status, 401);
    let bearer = format!("Authorization: Bearer {token}\r\n");
    assert_eq!(get(&view.addr, "/", &bearer).status, 200);
    let serve = start(&["serve", "--port", "0", "--token", token], &[], None);
    assert_eq!(get(&serve.addr, "/capacity", "").status, 401);
    assert_eq!(get(&serve.addr, "/capacity", &bearer).status, 200);
    // a token too short to be safe is refused at start
    let short = std::process::Command::new(kit::bin())
        .args(["serve", "--port", "0", "--token", "short"])
        .output()
        .unwrap();
    assert!(!short.status.success());
    assert!(String::from_utf8_lossy(&short.stderr).contains("16 characters"));
}

#[test]
fn no_token_opts_out() {
    let dir = tmp();
    let r = start(
        &["view", s(dir.path()), "--port", "0", "--no-token"],
        &[],
        None,
    );
    assert!(r.token.is_none(), "{}", r.url);
    assert_eq!(get(&r.addr, "/", "").status, 200);
    // still this machine only
    let a = kit::raw(
        &r.addr,
        "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
        Duration::from_secs(10),
    );
    assert_eq!(a.status, 403);
}

#[test]
fn wrong_tokens_are_slowed_down_and_every_request_is_logged_without_secrets() {
    let r = start(&["serve", "--port", "0"], &[], None);
    let token = r.token.clone().expect("a token by default");
    let wrong = "Authorization: Bearer 00000000000000000000000000000000\r\n";
    let statuses: Vec<u16> = (0..12)
        .map(|_| get(&r.addr, "/capacity", wrong).status)
        .collect();
    assert!(statuses[..10].iter().all(|s| *s == 401), "{statuses:?}");
    let slowed = get(&r.addr, "/capacity", wrong);
    assert_eq!(slowed.status, 429, "{statuses:?} {slowed:?}");
    assert!(
        slowed.head.to_ascii_lowercase().contains("retry-after"),
        "{slowed:?}"
    );
    let q = format!("/capacity?token={token}");
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(get(&r.addr, &q, "").status, 200);
    std::thread::sleep(Duration::from_millis(300));
    let log = r.stderr();
    assert!(log.contains("GET /capacity 401"), "{log}");
    assert!(log.contains("GET /capacity 200"), "{log}");
    assert!(!log.contains(&token), "the log shows the token:\n{log}");
    assert!(!log.contains("0000000000000000"), "{log}");
}

// ------------------------------------------------------------------------- 9 and 10.

#[test]
fn mcp_caps_its_transport_sessions() {
    let r = start(
        &["mcp", "--http", "--port", "0", "--max-sessions", "3"],
        &[],
        None,
    );
    let statuses: Vec<u16> = (0..4).map(|_| Mcp::new(&r).initialize().status).collect();
    assert_eq!(statuses, [200, 200, 200, 503]);
}

#[test]
fn a_client_cannot_ask_for_huge_frames() {
    let dir = tmp();
    let file = dir.path().join("craft.json");
    let made = std::process::Command::new(kit::bin())
        .args(["gen", "craft", "-d", "1", "-o", s(&file)])
        .output()
        .unwrap();
    assert!(made.status.success());
    let scenario: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let huge = json!({"width": 4096, "height": 4096});
    let serve = start(&["serve", "--port", "0"], &[], None);
    let body = json!({"scenario": scenario, "options": huge}).to_string();
    let a = post(&serve.addr, "/reset", &json_headers(&serve), &body);
    assert_eq!(a.status, 400, "{}", &a.body[..a.body.len().min(300)]);
    assert!(a.body.contains("pixels"), "{}", a.body);
    let mcp = start(&["mcp", "--http", "--port", "0"], &[], None);
    let mut client = Mcp::new(&mcp);
    assert_eq!(client.initialize().status, 200);
    let a = client.call(
        "start_episode",
        json!({"scenario": scenario, "options": huge}),
    );
    assert!(
        a.body.contains("\"isError\":true") && a.body.contains("pixels"),
        "{}",
        &a.body[..a.body.len().min(300)]
    );
}

// ------------------------------------------------------------------------ also: leaks

#[test]
fn a_500_page_names_no_server_path() {
    let dir = tmp();
    let runs = dir.path().join("runs");
    let done = std::process::Command::new(kit::bin())
        .args([
            "run",
            "visescape@4",
            "--agent",
            "oracle",
            "-l",
            "1",
            "-q",
            "--out",
            s(&runs),
        ])
        .output()
        .unwrap();
    assert!(done.status.success());
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let row: Value = serde_json::from_str(
        std::fs::read_to_string(run.join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let scenario = row["scenario"].as_str().unwrap();
    // a trajectory the viewer cannot read: a bad row that is not the last
    let trajectory = run.join("trajectories").join(scenario).join("0.jsonl");
    std::fs::write(&trajectory, "not json\n{}\n").unwrap();
    let r = start(&["view", s(&run), "--port", "0"], &[], None);
    let path = format!(
        "/episode?run=0&scenario={scenario}&epoch=0{}",
        r.query(false)
    );
    let a = get(&r.addr, &path, "");
    assert_eq!(a.status, 500, "{a:?}");
    assert!(!a.body.contains(s(dir.path())), "{}", a.body);
    assert!(!a.body.contains("0.jsonl"), "{}", a.body);
}

#[test]
fn a_long_participant_name_reveals_no_server_path() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let r = start(&["serve", "--port", "0", "--record", s(&record)], &[], None);
    let long = "p".repeat(3000);
    let a = serve_reset(&r, 0, json!({"participant": long}));
    assert!(!a.body.contains(s(dir.path())), "{}", a.body);
    assert_eq!(a.status, 200, "{}", a.body);
}

#[test]
fn a_serve_clients_names_are_text_in_the_viewers_report() {
    let dir = tmp();
    let record = dir.path().join("runs");
    let serve = start(&["serve", "--port", "0", "--record", s(&record)], &[], None);
    // what a client of `serve` names: its participant, and an inline scenario's id
    let lure = "![p](http://evil.example/q.png) [d](javascript:alert(2)) <http://evil.example/a>";
    let opened = serve_reset(&serve, 0, json!({"participant": lure}));
    assert_eq!(opened.status, 200, "{opened:?}");
    let session: Value = serde_json::from_str(&opened.body).unwrap();
    let close = json!({"session_id": session["session_id"]}).to_string();
    let closed = post(&serve.addr, "/close", &json_headers(&serve), &close);
    assert_eq!(closed.status, 200, "{closed:?}");
    let run = std::fs::read_dir(&record)
        .unwrap()
        .next()
        .expect("the episode is recorded")
        .unwrap()
        .path();
    let view = start(&["view", s(&run), "--port", "0"], &[], None);
    let report = get(
        &view.addr,
        &format!("/report?run=0{}", view.query(false)),
        "",
    );
    assert_eq!(report.status, 200, "{report:?}");
    let page = report.body.to_ascii_lowercase();
    for bad in [
        "src=\"http://evil",
        "href=\"javascript:",
        "href=\"http://evil",
    ] {
        assert!(
            !page.contains(bad),
            "the report page holds `{bad}`:\n{}",
            report.body
        );
    }
    // the name is shown as written
    assert!(
        report.body.contains("javascript:alert(2)"),
        "{}",
        report.body
    );
}

/// The sockets `pid` holds open.
#[cfg(target_os = "linux")]
fn sockets_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
                .filter(|target| target.to_string_lossy().starts_with("socket:"))
                .count()
        })
        .unwrap_or(0)
}

/// A WebSocket client that asks and never reads its answers (its buffers full, the
/// server's send waits) is let go within the idle timeout, its socket closed: it does
/// not hold a descriptor until TCP gives up.
#[cfg(target_os = "linux")]
#[test]
fn a_websocket_client_that_never_reads_is_let_go() {
    use std::io::{Read, Write};
    let r = start(
        &["serve", "--port", "0", "--idle-timeout", "2", "--rate", "0"],
        &[],
        None,
    );
    let pid = r.child.id();
    let before = sockets_of(pid);
    let mut ws = std::net::TcpStream::connect(&r.addr).unwrap();
    write!(
        ws,
        "GET /ws HTTP/1.1\r\nHost: {}\r\n{}Upgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        r.addr,
        r.auth()
    )
    .unwrap();
    let mut head = [0u8; 12];
    ws.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 101", "the upgrade was refused");
    // resets answered with a picture each, far more than the socket buffers hold; a
    // client's frame is masked (with a zero key, which leaves the bytes as they are)
    let reset = json!({"type": "reset", "data": {"suite": "visescape@4", "index": 0}}).to_string();
    let mut frame = vec![0x81, 0x80 | 126];
    frame.extend_from_slice(&(reset.len() as u16).to_be_bytes());
    frame.extend_from_slice(&[0, 0, 0, 0]);
    frame.extend_from_slice(reset.as_bytes());
    ws.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
    for _ in 0..400 {
        if ws.write_all(&frame).is_err() {
            break;
        }
    }
    assert!(sockets_of(pid) > before, "the session's socket is open");
    let deadline = Instant::now() + Duration::from_secs(15);
    while sockets_of(pid) > before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        sockets_of(pid),
        before,
        "the server still holds the socket of a client that stopped reading 15 s ago\n{}",
        r.stderr()
    );
    drop(ws);
}
