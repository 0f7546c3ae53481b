//! People beside models: a person's recorded play (agent `human`, a participant label)
//! and a model's run, reported together; and `escapade play --web` serving its start
//! page.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

mod common;
use common::play as run;

fn escapade() -> Command {
    Command::new(env!("CARGO_BIN_EXE_escapade"))
}

#[test]
fn report_puts_a_person_beside_a_model() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let runs_s = runs.to_str().unwrap();
    // a person plays the first scenario and gives up after one move
    let (ok, out, err) = run(
        &[
            "play",
            "visescape@4",
            "--record",
            runs_s,
            "--participant",
            "alice",
            "--images",
            tmp.path().join("pics").to_str().unwrap(),
        ],
        "turn to east\n:quit\n",
    );
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("recorded in"), "{out}");
    // a model (scripted replies) plays the same scenario
    let script = tmp.path().join("model.jsonl");
    std::fs::write(&script, "{\"text\": \"turn to west\"}\n".repeat(3)).unwrap();
    let model = format!("scripted/{}", script.display());
    let (ok, out, err) = run(
        &[
            "run",
            "visescape@4",
            "--agent",
            "llm",
            "--model",
            &model,
            "--limit",
            "1",
            "--max-steps",
            "3",
            "--out",
            runs_s,
            "-q",
        ],
        "",
    );
    assert!(ok, "{out}\n{err}");
    let dirs: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    let mut args = vec!["report"];
    args.extend(dirs.iter().map(String::as_str));
    let (ok, out, err) = run(&args, "");
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("human alice"), "{out}");
    assert!(
        out.contains(&format!("llm {model}")) || out.contains("llm scripted"),
        "{out}"
    );
}

#[test]
fn play_web_serves_the_start_page_and_refuses_a_bad_role() {
    let tmp = tempfile::tempdir().unwrap();
    let record = tmp.path().join("runs");
    let mut child = escapade()
        .args([
            "play",
            "--web",
            "comma@4",
            "--port",
            "0",
            "--record",
            record.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("the server prints its address")
            .unwrap();
        if let Some(u) = line.strip_prefix("open ") {
            break u.to_string();
        }
    };
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/play"),
        "{url}"
    );
    let addr = url.trim_start_matches("http://").trim_end_matches("/play");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /play HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut page = String::new();
    s.read_to_string(&mut page).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("Play comma@4") && page.contains("Your seat"),
        "{page}"
    );
    // a one-role world takes no --role
    let (ok, _, err) = run(
        &[
            "play",
            "--web",
            "visescape@4",
            "--role",
            "solver",
            "--port",
            "0",
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("one role"), "{err}");
}

#[test]
fn play_web_records_apart_from_the_runs_of_escapade_run() {
    // `escapade run` writes under ./runs; the games people play go elsewhere by default,
    // so a play server's record folder holds the people's runs only
    let tmp = tempfile::tempdir().unwrap();
    let mut child = escapade()
        .args(["play", "--web", "comma@4", "--port", "0"])
        .current_dir(tmp.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut said = String::new();
    while let Some(Ok(line)) = lines.next() {
        said.push_str(&line);
        said.push('\n');
        if line.starts_with("open ") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let folder = said
        .split("games are recorded under ")
        .nth(1)
        .and_then(|s| s.lines().next())
        .unwrap_or_else(|| panic!("no record folder named: {said}"));
    assert_eq!(folder, "play-runs", "{said}");
    assert!(tmp.path().join("play-runs").is_dir());
    assert!(!tmp.path().join("runs").exists(), "{said}");
}
