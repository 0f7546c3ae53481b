//! Helpers shared by the binary's integration tests: run the built `escapade`, read
//! its output, find the run directory a run made.

// each test binary uses only some of these
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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
