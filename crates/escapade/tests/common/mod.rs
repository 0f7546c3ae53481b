//! Helpers shared by the binary's integration tests: run the built `escapade`, read
//! its output, find the run directory a run made.

// each test binary uses only some of these
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

/// Runs the built binary with `args`.
pub fn escapade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output of a command that must have succeeded.
pub fn ok(o: Output) -> String {
    assert!(o.status.success(), "failed: {}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// The run directory under `runs`, if a run made one.
pub fn find_run_dir(runs: &Path) -> Option<PathBuf> {
    std::fs::read_dir(runs)
        .ok()?
        .map(|e| e.unwrap().path())
        .find(|p| p.join("run.toml").exists())
}

/// The run directory under `runs`, which must exist.
pub fn run_dir_under(runs: &Path) -> PathBuf {
    find_run_dir(runs).expect("a run directory")
}

/// `escapade play` with `input` on standard input.
pub fn play(args: &[&str], input: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr(&o),
    )
}

/// Runs the oracle over `target` (a suite, file or directory) into `runs` and returns the
/// rows of its `episodes.jsonl`.
pub fn oracle_episodes(target: &Path, runs: &Path) -> Vec<serde_json::Value> {
    ok(escapade(&[
        "run",
        target.to_str().unwrap(),
        "--agent",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    std::fs::read_to_string(run_dir_under(runs).join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes `scenario` to a file and asserts that `check` and `run` both refuse it with a
/// message holding `wanted`, and that the run made no run directory.
pub fn refused(scenario: &serde_json::Value, wanted: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let path = file.to_str().unwrap();
    let o = escapade(&["check", path]);
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(
        !o.status.success() && said.contains(wanted),
        "check: {said}"
    );
    let runs = dir.path().join("runs");
    let o = escapade(&[
        "run",
        path,
        "--agent",
        "random",
        "--quiet",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains(wanted),
        "run: {}",
        stderr(&o)
    );
    assert!(find_run_dir(&runs).is_none(), "a run directory was made");
}

/// Runs `source` with the random agent (`--limit 1`, plus `extra`) and asserts that the
/// closing report and `escapade report` keep every line within 120 columns, and that
/// `report --wide` shows the metrics they leave out; returns the wide report.
pub fn report_fits_120_columns(source: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let mut args = vec![
        "run",
        source,
        "--agent",
        "random",
        "--limit",
        "1",
        "--quiet",
        "--out",
        runs.to_str().unwrap(),
    ];
    args.extend(extra);
    let closing = ok(escapade(&args));
    let run = run_dir_under(&runs);
    let report = ok(escapade(&["report", run.to_str().unwrap()]));
    for (what, text) in [("run", &closing), ("report", &report)] {
        for line in text.lines() {
            assert!(line.chars().count() <= 120, "{what}: {line}");
        }
    }
    let wide = ok(escapade(&["report", "--wide", run.to_str().unwrap()]));
    assert!(wide.len() > report.len(), "{wide}");
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert_eq!(md, wide, "report.md is the wide report");
    wide
}

/// Waits until a run directory under `runs` is `ready`, and returns it: a generous
/// safety net for slow machines (300 s), not a timing assertion; `what` says what did
/// not appear when it runs out.
pub fn wait_for_run(runs: &Path, what: &str, ready: impl Fn(&Path) -> bool) -> PathBuf {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        if let Some(dir) = find_run_dir(runs)
            && ready(&dir)
        {
            return dir;
        }
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Sends `child` Ctrl-C's signal (SIGINT), as a person stopping a run would.
pub fn ctrl_c(child: &std::process::Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -INT {}", child.id());
}

/// What the fake provider answers to one request body: a status and a body.
pub type Answer = dyn Fn(&serde_json::Value) -> (u16, String) + Send + Sync;

/// One request's headers: lowercase names and their values.
pub type Headers = Vec<(String, String)>;

/// A model provider on 127.0.0.1 (OpenAI- or Anthropic-shaped, as `answer` replies):
/// answers every request with `answer` and keeps the request bodies and headers.
pub struct Provider {
    /// The base URL to pass as `--base-url`.
    pub url: String,
    /// Every request body, in the order received.
    pub bodies: Arc<Mutex<Vec<serde_json::Value>>>,
    /// Every request's headers (lowercase names), in the order received.
    pub headers: Arc<Mutex<Vec<Headers>>>,
}

impl Provider {
    pub fn start(answer: Box<Answer>) -> Provider {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&bodies);
        let headers = Arc::new(Mutex::new(Vec::new()));
        let kept_headers = Arc::clone(&headers);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0usize;
                let mut named = Vec::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                    if let Some((name, _)) = lower.split_once(':') {
                        let value = line[name.len() + 1..].trim().to_string();
                        named.push((name.trim().to_string(), value));
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    continue;
                }
                let body: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let (status, text) = answer(&body);
                kept.lock().unwrap().push(body);
                kept_headers.lock().unwrap().push(named);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        Provider {
            url,
            bodies,
            headers,
        }
    }

    pub fn requests(&self) -> usize {
        self.bodies.lock().unwrap().len()
    }
}

/// An OpenAI chat completion saying `text`.
pub fn completion(text: &str) -> String {
    serde_json::json!({
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
    })
    .to_string()
}
