//! Starting the binary's servers as a person or an operator would, and talking to them
//! the way the attacks of issue 27 did: raw HTTP over loopback, signals by `kill`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A server started from the binary: its process, the address it printed, the token in
/// that address (when there is one), and what it wrote.
pub struct Running {
    pub child: Child,
    /// `host:port`.
    pub addr: String,
    /// The first address it printed, as printed.
    pub url: String,
    pub token: Option<String>,
    pub out: Arc<Mutex<String>>,
    pub err: Arc<Mutex<String>>,
}

/// The binary under test: this build, or the one `ESCAPADE_EXPOSURE_BIN` names (to
/// replay the attacks against another build, e.g. the one before the fixes).
pub fn bin() -> String {
    std::env::var("ESCAPADE_EXPOSURE_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_escapade").to_string())
}

/// How long a server may take to print its address (the worlds load first).
const START: Duration = Duration::from_secs(180);

/// Starts `escapade ARGS` (with `env` set, and with the shell's `ulimit ULIMIT` first
/// when given) and waits for the first `http://` address it prints.
pub fn start(args: &[&str], env: &[(&str, &str)], ulimit: Option<&str>) -> Running {
    let bin = bin();
    let mut command = match ulimit {
        Some(u) => {
            let mut c = Command::new("bash");
            c.arg("-c")
                .arg(format!("ulimit {u} && exec \"$0\" \"$@\""))
                .arg(&bin);
            c
        }
        None => Command::new(&bin),
    };
    command
        .args(args)
        .env_remove("ESCAPADE_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("the binary starts");
    let out = Arc::new(Mutex::new(String::new()));
    let err = Arc::new(Mutex::new(String::new()));
    let lines = pump(child.stdout.take().unwrap(), out.clone());
    pump(child.stderr.take().unwrap(), err.clone());
    let deadline = Instant::now() + START;
    let url = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => {
                if let Some(at) = line.find("http://") {
                    let url: String = line[at..]
                        .chars()
                        .take_while(|c| !c.is_whitespace())
                        .collect();
                    break url;
                }
            }
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "escapade {args:?} printed no address:\n{}\n{}",
                    out.lock().unwrap(),
                    err.lock().unwrap()
                );
            }
        }
    };
    let rest = &url["http://".len()..];
    let authority = rest.split(['/', '?']).next().unwrap();
    let (userinfo, addr) = match authority.rsplit_once('@') {
        Some((u, a)) => (Some(u), a),
        None => (None, authority),
    };
    let token = userinfo
        .and_then(|u| u.split_once(':').map(|(_, p)| p.to_string()))
        .or_else(|| {
            url.split_once("token=")
                .map(|(_, t)| t.split('&').next().unwrap().to_string())
        });
    Running {
        child,
        addr: addr.to_string(),
        url,
        token,
        out,
        err,
    }
}

/// Copies a stream into `into`, line by line, and each line to the channel returned.
fn pump(stream: impl Read + Send + 'static, into: Arc<Mutex<String>>) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            into.lock().unwrap().push_str(&format!("{line}\n"));
            let _ = tx.send(line);
        }
    });
    rx
}

impl Running {
    /// Sends `signal` (`TERM`, `HUP`, `INT`) and waits up to `wait` for the process to
    /// end; its exit status (`None`: it did not end, and was killed).
    pub fn signal(&mut self, signal: &str, wait: Duration) -> Option<ExitStatus> {
        send_signal(&self.child, signal);
        wait_for(&mut self.child, wait)
    }

    /// The `Authorization` header line for the token (empty without one).
    pub fn auth(&self) -> String {
        self.token
            .as_ref()
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default()
    }

    /// `?token=…` to append to a path (empty without a token).
    pub fn query(&self, first: bool) -> String {
        match &self.token {
            Some(t) => format!("{}token={t}", if first { "?" } else { "&" }),
            None => String::new(),
        }
    }

    /// What it wrote to standard error so far.
    pub fn stderr(&self) -> String {
        self.err.lock().unwrap().clone()
    }

    /// What it wrote to standard output so far.
    pub fn stdout(&self) -> String {
        self.out.lock().unwrap().clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `signal` to `child` with `kill`.
pub fn send_signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits up to `wait` for `child` to end; kills it when it does not.
pub fn wait_for(child: &mut Child, wait: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// An HTTP answer: status (0 when none came), headers and body, as text.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

/// Sends `raw` (a whole request, `Connection: close`) to `addr` and reads the answer to
/// its end (at most `wait`).
pub fn raw(addr: &str, raw: &str, wait: Duration) -> Answer {
    let to = addr.parse().expect("a socket address");
    let Ok(mut s) = TcpStream::connect_timeout(&to, Duration::from_secs(10)) else {
        return Answer {
            status: 0,
            head: String::new(),
            body: "cannot connect".into(),
        };
    };
    s.set_read_timeout(Some(wait)).unwrap();
    let _ = s.write_all(raw.as_bytes());
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// A GET of `path` with `headers` (each ending in `\r\n`).
pub fn get(addr: &str, path: &str, headers: &str) -> Answer {
    raw(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"),
        Duration::from_secs(120),
    )
}

/// A POST of `body` to `path` with `headers` (each ending in `\r\n`, the content type
/// among them).
pub fn post(addr: &str, path: &str, headers: &str, body: &str) -> Answer {
    raw(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
        Duration::from_secs(300),
    )
}

/// `Content-Type: application/json` and the token.
pub fn json_headers(r: &Running) -> String {
    format!("Content-Type: application/json\r\n{}", r.auth())
}

/// The rows of every `episodes.jsonl` under `dir`, and the run directories with none.
pub fn rows_under(dir: &Path) -> (Vec<serde_json::Value>, Vec<PathBuf>) {
    let mut rows = Vec::new();
    let mut empty = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (rows, empty);
    };
    for run in entries {
        let run = run.unwrap().path();
        if !run.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(run.join("episodes.jsonl")).unwrap_or_default();
        let before = rows.len();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            rows.push(serde_json::from_str(line).unwrap());
        }
        if rows.len() == before {
            empty.push(run);
        }
    }
    (rows, empty)
}

/// An MCP client of the handshake era (protocol 2025-11-25) over raw HTTP.
pub struct Mcp<'a> {
    pub server: &'a Running,
    pub path: String,
    pub session: Option<String>,
    /// Sends no token.
    pub anonymous: bool,
    next: u32,
}

impl<'a> Mcp<'a> {
    /// A client of `server`'s `/mcp`.
    pub fn new(server: &'a Running) -> Mcp<'a> {
        Mcp {
            server,
            path: "/mcp".into(),
            session: None,
            anonymous: false,
            next: 1,
        }
    }

    /// Sends one JSON-RPC message; the answer (an SSE stream read until the result).
    pub fn send(&mut self, method: &str, params: serde_json::Value, notify: bool) -> Answer {
        let mut message = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        if !notify {
            message["id"] = self.next.into();
            self.next += 1;
        }
        let auth = match self.anonymous {
            true => "Content-Type: application/json\r\n".to_string(),
            false => json_headers(self.server),
        };
        let mut headers = format!("{auth}Accept: application/json, text/event-stream\r\n");
        if let Some(s) = &self.session {
            headers.push_str(&format!(
                "Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            ));
        }
        let body = message.to_string();
        let request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.path,
            self.server.addr,
            body.len()
        );
        let answer = sse(&self.server.addr, &request, Duration::from_secs(300));
        if self.session.is_none()
            && let Some(line) = answer
                .head
                .lines()
                .find(|l| l.to_ascii_lowercase().starts_with("mcp-session-id:"))
        {
            self.session = Some(line.split_once(':').unwrap().1.trim().to_string());
        }
        answer
    }

    /// The handshake: `initialize`, then `notifications/initialized`.
    pub fn initialize(&mut self) -> Answer {
        let init = self.send(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "exposure", "version": "1"}}),
            false,
        );
        if init.status == 200 {
            self.send("notifications/initialized", serde_json::json!({}), true);
        }
        init
    }

    /// Calls a tool.
    pub fn call(&mut self, tool: &str, args: serde_json::Value) -> Answer {
        self.send(
            "tools/call",
            serde_json::json!({"name": tool, "arguments": args}),
            false,
        )
    }
}

/// Sends `request` and reads the answer until its end, or (an event stream) until an
/// event with a JSON-RPC result or error has come.
fn sse(addr: &str, request: &str, wait: Duration) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(wait)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Some((_, body)) = text.split_once("\r\n\r\n")
            && body.lines().any(|l| {
                l.starts_with("data:") && (l.contains("\"result\"") || l.contains("\"error\""))
            })
        {
            break;
        }
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Answer {
        status: head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        head: head.to_string(),
        body: body.to_string(),
    }
}
