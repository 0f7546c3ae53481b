//! `escapade mcp` with the real worlds: the tool surface in process (secrets never
//! reach a client, a comma game with the server's partner, a call to the wrong world),
//! and the official `mcp` Python SDK client driving the built binary over stdio and over
//! streamable HTTP, playing a tools scenario and a vis room to the end with the winning
//! moves computed here from each world's oracle (the server never shows them).
//!
//! The Python tests need the project's virtual environment (`scripts/venv.sh`):
//! `$ESCAPADE_VENV/bin/python`, by default `.venv` at the workspace root. Without it they
//! print a note and pass, unless `CI` is `true`: then they fail.

mod common;

// The registry itself, so that what is played is what `escapade mcp` serves.
use escapade_worlds as worlds;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use escapade_core::{Action, World};
use escapade_serve::mcp::{McpOptions, McpServer};
use escapade_testkit::oracle::oracle_actions;
use serde_json::{Map, Value, json};

/// One MCP tool call: the tool and its arguments (without the episode id).
type Move = (String, Map<String, Value>);

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// The scenario `index` of `suite` and its world.
fn scenario(suite: &str, index: usize) -> (Box<dyn World>, String) {
    let registry = worlds::worlds().expect("the worlds start");
    let world = registry
        .into_iter()
        .find(|w| w.suites().iter().any(|s| s.name == suite))
        .expect("a world ships the suite");
    let json = world.build_suite(suite).unwrap().remove(index);
    (world, json)
}

/// An oracle action as the MCP tool call that does the same.
fn as_move(world: &str, role: Option<&str>, action: &Action) -> Move {
    let Action::Text { text } = action else {
        panic!("the oracles answer in text, not {action:?}");
    };
    match (world, role) {
        ("tools", _) => {
            use escapade_tools::interface::{ToolsAction, parse};
            match parse(action).expect("the oracle's action parses") {
                ToolsAction::Investigate { node } => {
                    ("tools_investigate".into(), obj(json!({"node_id": node})))
                }
                ToolsAction::Call { node, params } => (
                    "tools_call_tool".into(),
                    obj(json!({"node_id": node, "parameters": params})),
                ),
                ToolsAction::Submit { answer } => {
                    ("tools_submit_answer".into(), obj(json!({"answer": answer})))
                }
                ToolsAction::GiveUp => ("tools_give_up".into(), Map::new()),
            }
        }
        ("vis", _) => match text.trim().strip_prefix("<ANSWER>") {
            Some(rest) => (
                "vis_answer".into(),
                obj(json!({"answer": rest.trim_end_matches("</ANSWER>")})),
            ),
            None => (
                "vis_act".into(),
                obj(json!({"action": text.trim().trim_start_matches("[ACTION]").trim()})),
            ),
        },
        (w, Some(role)) => (format!("{w}_{role}"), obj(json!({"message": text}))),
        (w, None) => panic!("no move for world {w}"),
    }
}

/// The winning moves of scenario `index` of `suite`, as MCP calls.
fn winning_moves(suite: &str, index: usize, seed: u64) -> Vec<Move> {
    let (world, json) = scenario(suite, index);
    oracle_actions(world.as_ref(), &json, seed)
        .iter()
        .map(|(role, a)| as_move(world.name(), role.as_deref(), a))
        .collect()
}

/// The plan handed to the Python client: a tools scenario and a vis room.
fn plan() -> Value {
    let episode = |suite: &str, index: usize| {
        let moves: Vec<Value> = winning_moves(suite, index, 0)
            .into_iter()
            .map(|(t, a)| json!([t, a]))
            .collect();
        json!({"suite": suite, "index": index, "seed": 0, "moves": moves})
    };
    json!({"episodes": [episode("agentescape@2", 0), episode("visescape@4", 0)]})
}

// ---------------------------------------------------------------- in process

fn server() -> McpServer {
    McpServer::new(worlds::worlds().unwrap(), McpOptions::default())
}

fn text_of(r: &escapade_serve::rmcp::model::CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls a tool; returns (is error, all text, structured content).
async fn call(s: &McpServer, name: &str, args: Value) -> (bool, String, Value) {
    let r = s.call(name, args.as_object().cloned()).await;
    let v = r.structured_content.clone().unwrap_or(Value::Null);
    (r.is_error == Some(true), text_of(&r), v)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_winning_moves_escape_through_the_server_in_process() {
    let s = server();
    for (suite, index) in [("agentescape@2", 0), ("visescape@4", 0)] {
        let (failed, t, state) =
            call(&s, "start_episode", json!({"suite": suite, "index": index})).await;
        assert!(!failed, "{t}");
        let id = state["episode"].as_str().unwrap().to_string();
        let mut last = state;
        for (tool, mut args) in winning_moves(suite, index, 0) {
            args.insert("episode".into(), json!(id));
            let (failed, t, state) = call(&s, &tool, Value::Object(args)).await;
            assert!(!failed, "{tool}: {t}");
            assert_eq!(state["valid"], true, "{tool}: {t}");
            last = state;
        }
        assert_eq!(last["outcome"]["success"], true, "{suite}: {last}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_a_client_reaches_holds_a_secret() {
    let s = server();
    let mut kept = 0;
    for (suite, index) in [
        ("agentescape@2", 0),
        ("visescape@4", 1),
        ("comma@4", 0),
        ("mm-escape@3", 20),
    ] {
        let (world, json) = scenario(suite, index);
        let mut env = world.env(&json, &Default::default()).unwrap();
        env.reset(0);
        let secrets = env.secrets();
        kept += secrets.len();
        let mut seen = String::new();
        for (name, args) in [
            ("list_suites", json!({})),
            ("list_scenarios", json!({"suite": suite, "limit": 1000})),
        ] {
            let (_, t, v) = call(&s, name, args).await;
            seen.push_str(&format!("{t}\n{v}\n"));
        }
        let (failed, t, state) =
            call(&s, "start_episode", json!({"suite": suite, "index": index})).await;
        assert!(!failed, "{t}");
        seen.push_str(&format!("{t}\n{state}\n"));
        let id = state["episode"].as_str().unwrap().to_string();
        // junk through every tool of the world, then the state and the end
        let tools: Vec<String> = state["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        for tool in &tools {
            for junk in ["", "0000", "open", "N1"] {
                let mut args = Map::new();
                args.insert("episode".into(), json!(id));
                for key in ["node_id", "answer", "action", "message", "read"] {
                    args.insert(key.into(), json!(junk));
                }
                let def = s.tool_defs().iter().find(|d| d.name == *tool).unwrap();
                let props = def.input["properties"].as_object().unwrap();
                args.retain(|k, _| props.contains_key(k));
                let (_, t, v) = call(&s, tool, Value::Object(args)).await;
                seen.push_str(&format!("{t}\n{v}\n"));
            }
        }
        for name in ["episode_state", "end_episode"] {
            let (_, t, v) = call(&s, name, json!({"episode": id})).await;
            seen.push_str(&format!("{t}\n{v}\n"));
        }
        for secret in &secrets {
            assert!(
                !seen.contains(secret.as_str()),
                "{suite}: `{secret}` reached the client"
            );
        }
    }
    assert!(kept >= 2, "the scenarios have secrets to keep");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_comma_solver_plays_with_the_servers_oracle_expert() {
    let s = server();
    let (world, json) = scenario("comma@4", 0);
    let solver: Vec<Move> = oracle_actions(world.as_ref(), &json, 0)
        .iter()
        .filter(|(role, _)| role.as_deref() == Some("solver"))
        .map(|(role, a)| as_move("comma", role.as_deref(), a))
        .collect();
    let start = json!({"suite": "comma@4", "index": 0, "role": "solver", "partner": "oracle"});
    let (failed, t, state) = call(&s, "start_episode", start).await;
    assert!(!failed, "{t}");
    assert!(t.contains("solver"), "the solver's instructions: {t}");
    // the expert's manual reaches only the expert, here the server's oracle
    let mut env = world.env(&json, &Default::default()).unwrap();
    env.reset(0);
    let expert = env.role_prompt("expert");
    let manual = expert
        .split("MANUAL")
        .nth(1)
        .expect("the expert's prompt has its manual");
    let manual: String = manual.trim().chars().take(120).collect();
    assert!(manual.len() > 40 && !t.contains(&manual), "{t}");
    assert_eq!(state["you_play"], "solver");
    assert_eq!(state["turn"], "solver");
    let id = state["episode"].as_str().unwrap().to_string();
    // the expert is the server's: the client may not speak for it
    let (failed, t, _) = call(&s, "comma_expert", json!({"episode": id, "message": "hi"})).await;
    assert!(
        failed && t.contains("the server's partner plays the expert"),
        "{t}"
    );
    let mut last = Value::Null;
    for (tool, mut args) in solver {
        args.insert("episode".into(), json!(id));
        let (failed, t, state) = call(&s, &tool, Value::Object(args)).await;
        assert!(!failed, "{t}");
        assert!(!t.contains(&manual), "{t}");
        last = state;
    }
    assert_eq!(last["outcome"]["success"], true, "{last}");
    // a wrong world's tool on this episode names the right ones
    let (failed, t, _) = call(&s, "vis_act", json!({"episode": id, "action": "x"})).await;
    assert!(failed && t.contains("comma_solver"), "{t}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_world_has_its_papers_actions_as_tools() {
    let names: Vec<String> = server()
        .tool_defs()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    for want in [
        "tools_investigate",
        "tools_call_tool",
        "tools_submit_answer",
        "vis_act",
        "vis_answer",
        "comma_solver",
        "comma_expert",
        "craft_act",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
    // node-named functions of one tools scenario are not tools of the server
    assert!(!names.iter().any(|n| n.starts_with("tools_N")), "{names:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn docs_mcp_names_every_tool_the_server_lists() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/mcp.md"))
            .unwrap();
    for t in server().tool_defs() {
        assert!(
            doc.contains(&format!("`{}`", t.name)),
            "docs/mcp.md does not name `{}`",
            t.name
        );
    }
}

// ---------------------------------------------------------------- the Python SDK

/// The project's Python with the MCP SDK, or `None` (skipped) outside CI.
fn python() -> Option<PathBuf> {
    escapade_testkit::venv::python("mcp", "the MCP Python SDK test")
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../escapade-serve/tests/python/play_mcp.py")
}

/// Runs the Python client with `target` (`--stdio …` or `--url …`) on the plan; returns
/// its JSON report.
fn run_client(python: &Path, target: &[&str], dir: &Path) -> Value {
    let moves = dir.join("moves.json");
    std::fs::write(&moves, plan().to_string()).unwrap();
    let out = Command::new(python)
        .arg(script())
        .args(target)
        .args(["--moves", moves.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the Python client failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON line")
}

/// What the Python client must have seen: the tools, both episodes escaped (the vis
/// room with pictures), the bad calls refused with messages; the oracle's distance from
/// its first turn down to 0 when the server shows it (`distance`), else never.
fn check_report(report: &Value, distance: bool) {
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for want in [
        "list_suites",
        "start_episode",
        "tools_call_tool",
        "vis_act",
        "comma_solver",
        "craft_act",
    ] {
        assert!(tools.contains(&want), "{want} not in {tools:?}");
    }
    let episodes = report["episodes"].as_array().unwrap();
    assert_eq!(episodes.len(), 2);
    for e in episodes {
        assert_eq!(e["success"], true, "{e}");
        assert!(e["steps"].as_u64().unwrap() > 0);
    }
    assert_eq!(episodes[0]["world"], "tools");
    assert_eq!(episodes[1]["world"], "vis");
    assert!(
        episodes[1]["images"].as_u64().unwrap() > 0,
        "vis shows pictures"
    );
    for e in episodes {
        let seen = e["steps_to_go"].as_array().unwrap();
        match distance {
            true => {
                assert!(seen[0].as_u64().unwrap() > 0, "{e}");
                assert_eq!(seen.last().unwrap(), 0, "{e}");
            }
            false => assert!(seen.iter().all(Value::is_null), "{e}"),
        }
    }
    let errors: Vec<&str> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(errors[0].contains("there is no episode"), "{errors:?}");
    assert!(errors[1].contains("no-such-suite"), "{errors:?}");
    assert!(errors[3].contains("there is no tool"), "{errors:?}");
}

#[test]
fn the_python_sdk_plays_a_tools_scenario_and_a_vis_room_over_stdio() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("runs");
    let bin = env!("CARGO_BIN_EXE_escapade");
    let command = format!("'{bin}' mcp --steps-to-go --record '{}'", record.display());
    // the handshake of protocol versions before 2026-07-28, as older clients connect
    let report = run_client(
        &python,
        &["--stdio", &command, "--mode", "legacy"],
        dir.path(),
    );
    assert_eq!(report["protocol"], "2025-11-25");
    check_report(&report, true);
    check_recorded(&record);
}

/// `escapade mcp --http` on a free port, the URL it printed (`…/mcp`) and the token in
/// it.
fn http_server(extra: &[&str]) -> (Child, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(["mcp", "--http", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let printed = first.rsplit(' ').next().unwrap().to_string();
    let (url, token) = printed
        .split_once("?token=")
        .expect("the printed URL carries the token");
    // keep reading its output so that it never blocks on a full pipe
    std::thread::spawn(move || for _ in lines {});
    (child, url.to_string(), token.to_string())
}

/// Stops a server with Ctrl-C's signal, as a person would, and waits for it.
fn interrupt(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

#[test]
fn the_python_sdk_plays_a_tools_scenario_and_a_vis_room_over_http() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("runs");
    let (child, url, token) = http_server(&["--record", record.to_str().unwrap()]);
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    // the token as an MCP client sends it: `Authorization: Bearer`
    let report = run_client(&python, &["--url", &url, "--token", &token], dir.path());
    interrupt(child);
    assert_eq!(report["protocol"], "2026-07-28");
    check_report(&report, false);
    check_recorded(&record);
}

/// Both episodes are run directories of agent `remote` that escaped.
fn check_recorded(record: &Path) {
    let mut rows = Vec::new();
    for run in std::fs::read_dir(record).unwrap() {
        let run = run.unwrap().path();
        let episodes = std::fs::read_to_string(run.join("episodes.jsonl")).unwrap();
        for line in episodes.lines() {
            let row: Value = serde_json::from_str(line).unwrap();
            assert_eq!(row["agent"], "remote");
            rows.push((
                row["world"].as_str().unwrap().to_string(),
                row["success"].as_bool().unwrap(),
            ));
        }
    }
    rows.sort();
    assert_eq!(
        rows,
        [("tools".to_string(), true), ("vis".to_string(), true)]
    );
}

/// A raw HTTP request to the server; returns the status line.
fn post(url: &str, headers: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_once('/').unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /{path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

#[test]
fn off_loopback_every_request_needs_the_printed_token() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_escapade"))
        .args(["mcp", "--http", "--host", "0.0.0.0", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let printed = lines.next().unwrap().unwrap();
    let url = printed
        .rsplit(' ')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let token_line = lines.next().unwrap().unwrap();
    let token = token_line.rsplit(' ').next().unwrap().to_string();
    assert!(token_line.contains("Authorization: Bearer"), "{token_line}");
    assert_eq!(token.len(), 32);
    let none = post(&url, "");
    let wrong = post(
        &url,
        "Authorization: Bearer 00000000000000000000000000000000\r\n",
    );
    let right = post(&url, &format!("Authorization: Bearer {token}\r\n"));
    interrupt(child);
    assert!(none.contains(" 401 "), "{none}");
    assert!(wrong.contains(" 401 "), "{wrong}");
    assert!(!right.contains(" 401 "), "{right}");
}
