//! The MCP server's tool surface, called in process on the testkit's counter world:
//! what is listed, how a game is played and ended, every bad call as a tool error, the
//! episode table's limits, and recording. (The real worlds and the Python SDK client
//! are exercised by the binary's tests, `crates/escapade/tests/mcp.rs`.)

use std::time::Duration;

use escapade_core::World;
use escapade_serve::mcp::{McpOptions, McpServer};
use escapade_testkit::counter::{CounterWorld, scenario};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

fn server(options: McpOptions) -> McpServer {
    let worlds: Vec<Box<dyn World>> = vec![Box::new(CounterWorld)];
    McpServer::new(worlds, options)
}

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

/// All text of an answer.
fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

/// Calls a tool that must succeed; returns its structured content.
async fn ok(s: &McpServer, name: &str, a: Value) -> (Value, String) {
    let r = s.call(name, args(a)).await;
    assert!(!is_error(&r), "{name} failed: {}", text(&r));
    (
        r.structured_content.clone().unwrap_or(Value::Null),
        text(&r),
    )
}

/// Calls a tool that must fail; returns its message.
async fn err(s: &McpServer, name: &str, a: Value) -> String {
    let r = s.call(name, args(a)).await;
    assert!(is_error(&r), "{name} should have failed: {}", text(&r));
    text(&r)
}

async fn start(s: &McpServer, target: u32) -> String {
    let json = scenario("c-mcp", target).json();
    let (state, _) = ok(s, "start_episode", json!({"scenario": json})).await;
    state["episode"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn tools_are_the_episode_tools_and_each_worlds_actions() {
    let s = server(McpOptions::default());
    let names: Vec<String> = s.tool_defs().iter().map(|t| t.name.clone()).collect();
    assert_eq!(
        names,
        [
            "list_suites",
            "list_scenarios",
            "start_episode",
            "episode_state",
            "end_episode",
            "counter_act"
        ]
    );
    for t in s.tool_defs() {
        assert_eq!(t.input["type"], "object", "{}", t.name);
    }
}

#[tokio::test]
async fn a_game_is_played_to_its_end_with_the_outcome_and_metrics() {
    let s = server(McpOptions::default());
    let id = start(&s, 2).await;
    assert_eq!(id.len(), 32, "128 random bits in hex");
    let (state, _) = ok(&s, "counter_act", json!({"episode": id, "text": "inc"})).await;
    assert_eq!(state["over"], false);
    assert_eq!(state["actions"], 1);
    let (state, line) = ok(&s, "counter_act", json!({"episode": id, "text": "inc"})).await;
    assert_eq!(state["over"], true);
    assert_eq!(state["outcome"]["success"], true);
    assert_eq!(state["outcome"]["steps"], 2);
    assert!(state["outcome"]["metrics"].is_object());
    assert!(line.contains("escaped after 2 steps"), "{line}");
    // acting after the end is a tool error; the state is still there until it is ended
    let m = err(&s, "counter_act", json!({"episode": id, "text": "inc"})).await;
    assert!(m.contains("is over"), "{m}");
    let (state, _) = ok(&s, "episode_state", json!({"episode": id})).await;
    assert_eq!(state["outcome"]["success"], true);
    let (state, _) = ok(&s, "end_episode", json!({"episode": id})).await;
    assert_eq!(state["outcome"]["success"], true);
    let m = err(&s, "episode_state", json!({"episode": id})).await;
    assert!(m.contains("there is no episode"), "{m}");
    assert_eq!(s.episodes_in_play(), 0);
}

#[tokio::test]
async fn bad_calls_are_tool_errors_that_say_what_is_wrong() {
    let s = server(McpOptions::default());
    let id = start(&s, 5).await;
    let cases = [
        ("no_such_tool", json!({}), "there is no tool `no_such_tool`"),
        (
            "counter_act",
            json!({"text": "inc"}),
            "`episode` is required",
        ),
        ("counter_act", json!({"episode": id}), "needs `text`"),
        (
            "counter_act",
            json!({"episode": id, "text": 3}),
            "`text` must be a string",
        ),
        (
            "counter_act",
            json!({"episode": id, "text": "inc", "x": 1}),
            "no argument `x`",
        ),
        (
            "counter_act",
            json!({"episode": "feed", "text": "inc"}),
            "there is no episode `feed`",
        ),
        (
            "episode_state",
            json!({"episode": 7}),
            "`episode` must be a string",
        ),
        ("list_scenarios", json!({}), "`suite` is required"),
        (
            "list_scenarios",
            json!({"suite": "counter@1", "limit": 0}),
            "`limit` must be 1 to",
        ),
        ("list_scenarios", json!({"suite": "nope@1"}), "nope@1"),
        ("list_suites", json!({"world": "atlantis"}), "atlantis"),
        ("start_episode", json!({}), "give `suite`"),
        (
            "start_episode",
            json!({"suite": "counter@1", "scenario": "{}"}),
            "not both",
        ),
        (
            "start_episode",
            json!({"suite": "counter@1", "index": 999}),
            "index 0 to",
        ),
        (
            "start_episode",
            json!({"suite": "counter@1", "index": -1}),
            "whole number",
        ),
        ("start_episode", json!({"scenario": "not json"}), "scenario"),
        (
            "start_episode",
            json!({"scenario": 5}),
            "must be a JSON object",
        ),
        (
            "start_episode",
            json!({"suite": "counter@1", "options": {"nope": "1"}}),
            "nope",
        ),
        (
            "start_episode",
            json!({"suite": "counter@1", "options": [1]}),
            "`options` must be an object",
        ),
        (
            "start_episode",
            json!({"suite": "counter@1", "role": "solver", "partner": "oracle"}),
            "has one role",
        ),
        (
            "start_episode",
            json!({"suite": "counter@1", "seed": "x"}),
            "`seed` must be",
        ),
    ];
    for (tool, a, want) in cases {
        let m = err(&s, tool, a.clone()).await;
        assert!(m.contains(want), "{tool} {a}: `{m}` lacks `{want}`");
    }
    // the episode is untouched by all of it
    let (state, _) = ok(&s, "episode_state", json!({"episode": id})).await;
    assert_eq!(state["actions"], 0);
}

#[tokio::test]
async fn an_unreadable_action_spends_no_step_and_says_why() {
    let s = server(McpOptions::default());
    let mut c = scenario("c-reask", 2);
    c.reask_limit = Some(1);
    let (state, _) = ok(&s, "start_episode", json!({"scenario": c.json()})).await;
    let id = state["episode"].as_str().unwrap();
    let (state, t) = ok(&s, "counter_act", json!({"episode": id, "text": "jump"})).await;
    assert_eq!(state["actions"], 0, "{t}");
    assert!(
        state["unreadable"]
            .as_str()
            .unwrap()
            .contains("unknown action"),
        "{state}"
    );
    assert!(t.contains("cannot be read"), "{t}");
}

#[tokio::test]
async fn suites_and_scenarios_are_listed_without_their_contents() {
    let s = server(McpOptions::default());
    let (state, _) = ok(&s, "list_suites", json!({})).await;
    let names: Vec<&str> = state["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"counter@1"), "{names:?}");
    let (state, t) = ok(
        &s,
        "list_scenarios",
        json!({"suite": "counter", "limit": 2}),
    )
    .await;
    assert_eq!(state["suite"], "counter@1", "without @version: the latest");
    let built = CounterWorld.build_suite("counter@1").unwrap();
    assert_eq!(state["total"], built.len());
    let first = &state["scenarios"][0];
    assert_eq!(first["index"], 0);
    assert_eq!(
        first.as_object().unwrap().len(),
        3,
        "index, id, difficulty only"
    );
    assert!(t.contains("more from offset 2") || built.len() <= 2, "{t}");
    // an episode of the suite by index plays the suite's scenario
    let (state, _) = ok(
        &s,
        "start_episode",
        json!({"suite": "counter@1", "index": 1}),
    )
    .await;
    assert_eq!(state["scenario"], state_id(&built[1]));
}

fn state_id(json: &str) -> String {
    escapade_core::ScenarioHeader::parse(json).unwrap().id
}

#[tokio::test]
async fn a_full_table_closes_idle_episodes_or_refuses() {
    // no idle time allowed: every episode may be closed to make room
    let s = server(McpOptions {
        max_episodes: 2,
        idle: Duration::ZERO,
        ..McpOptions::default()
    });
    let a = start(&s, 5).await;
    let _b = start(&s, 5).await;
    let _c = start(&s, 5).await;
    assert_eq!(s.episodes_in_play(), 1, "the two idle ones were closed");
    let m = err(&s, "episode_state", json!({"episode": a})).await;
    assert!(m.contains("there is no episode"), "{m}");
    // an hour of idleness allowed: a full table refuses a third
    let s = server(McpOptions {
        max_episodes: 2,
        idle: Duration::from_secs(3600),
        ..McpOptions::default()
    });
    start(&s, 5).await;
    start(&s, 5).await;
    let json = scenario("c-mcp", 5).json();
    let m = err(&s, "start_episode", json!({"scenario": json})).await;
    assert!(m.contains("already holds 2 episodes"), "{m}");
}

#[tokio::test]
async fn two_clients_episodes_do_not_mix() {
    let s = server(McpOptions::default());
    let a = start(&s, 3).await;
    let b = start(&s, 3).await;
    assert_ne!(a, b);
    ok(&s, "counter_act", json!({"episode": a, "text": "inc"})).await;
    ok(&s, "counter_act", json!({"episode": a, "text": "inc"})).await;
    let (sa, _) = ok(&s, "episode_state", json!({"episode": a})).await;
    let (sb, _) = ok(&s, "episode_state", json!({"episode": b})).await;
    assert_eq!(
        (sa["actions"].as_u64(), sb["actions"].as_u64()),
        (Some(2), Some(0))
    );
}

#[tokio::test]
async fn recorded_episodes_are_run_directories_of_agent_remote() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(McpOptions {
        record: Some(dir.path().to_path_buf()),
        ..McpOptions::default()
    });
    // one played to the end, one ended early, one left in play when the server stops
    let won = start(&s, 1).await;
    ok(&s, "counter_act", json!({"episode": won, "text": "inc"})).await;
    let quit = start(&s, 4).await;
    ok(&s, "counter_act", json!({"episode": quit, "text": "inc"})).await;
    ok(&s, "end_episode", json!({"episode": quit})).await;
    let left = start(&s, 4).await;
    ok(&s, "counter_act", json!({"episode": left, "text": "inc"})).await;
    s.close_all().await;
    let mut rows = Vec::new();
    for run in std::fs::read_dir(dir.path()).unwrap() {
        let run = run.unwrap().path();
        let toml = std::fs::read_to_string(run.join("run.toml")).unwrap();
        assert!(toml.contains("agent = \"remote\""), "{toml}");
        let episodes = std::fs::read_to_string(run.join("episodes.jsonl")).unwrap();
        for line in episodes.lines() {
            let row: Value = serde_json::from_str(line).unwrap();
            rows.push((
                row["success"].as_bool().unwrap(),
                row["steps"].as_u64().unwrap(),
            ));
        }
        assert!(run.join("trajectories/c-mcp/0.jsonl").is_file());
    }
    rows.sort();
    assert_eq!(rows, [(false, 1), (false, 1), (true, 1)]);
}

/// The counter world with a slow step: a second call arrives while the first plays.
struct SlowWorld;

struct SlowEnv(Box<dyn escapade_core::Env + Send>);

impl escapade_core::Env for SlowEnv {
    fn reset(&mut self, seed: u64) -> escapade_core::Observation {
        self.0.reset(seed)
    }
    fn step(
        &mut self,
        action: &escapade_core::Action,
    ) -> Result<escapade_core::Step, escapade_core::EnvError> {
        std::thread::sleep(Duration::from_millis(400));
        self.0.step(action)
    }
    fn system_prompt(&self) -> String {
        self.0.system_prompt()
    }
    fn tool_schemas(&self) -> Vec<escapade_core::ToolSchema> {
        self.0.tool_schemas()
    }
    fn outcome(&self) -> escapade_core::Outcome {
        self.0.outcome()
    }
    fn secrets(&self) -> Vec<String> {
        self.0.secrets()
    }
}

impl World for SlowWorld {
    fn name(&self) -> &'static str {
        "counter"
    }
    fn description(&self) -> &'static str {
        "the counter world, slowly"
    }
    fn suites(&self) -> Vec<escapade_core::env::SuiteSpec> {
        CounterWorld.suites()
    }
    fn build_suite(&self, suite: &str) -> Result<Vec<String>, escapade_core::CoreError> {
        CounterWorld.build_suite(suite)
    }
    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<String, escapade_core::CoreError> {
        CounterWorld.generate(difficulty, seed, options)
    }
    fn env(
        &self,
        json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn escapade_core::Env + Send>, escapade_core::CoreError> {
        Ok(Box::new(SlowEnv(CounterWorld.env(json, options)?)))
    }
    fn agent(
        &self,
        kind: &str,
        json: &str,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn escapade_core::Agent + Send>, escapade_core::CoreError> {
        CounterWorld.agent(kind, json, seed, options)
    }
    fn agent_kinds(&self) -> Vec<&'static str> {
        CounterWorld.agent_kinds()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_call_while_one_plays_the_episode_is_refused() {
    let worlds: Vec<Box<dyn World>> = vec![Box::new(SlowWorld)];
    let s = McpServer::new(worlds, McpOptions::default());
    s.tool_defs();
    let id = start(&s, 5).await;
    let first = {
        let (s, id) = (s.clone(), id.clone());
        tokio::spawn(
            async move { ok(&s, "counter_act", json!({"episode": id, "text": "inc"})).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let m = err(&s, "counter_act", json!({"episode": id, "text": "inc"})).await;
    assert!(m.contains("still playing the previous action"), "{m}");
    let (state, _) = first.await.unwrap();
    assert_eq!(
        state["actions"], 1,
        "the first call was played, the second not"
    );
    // a client that goes away mid-step (its call dropped) leaves the episode usable
    let call = {
        let (s, id) = (s.clone(), id.clone());
        tokio::spawn(async move {
            s.call("counter_act", args(json!({"episode": id, "text": "inc"})))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    call.abort();
    let _ = call.await;
    let (state, _) = ok(&s, "counter_act", json!({"episode": id, "text": "inc"})).await;
    assert_eq!(state["over"], false);
    assert_eq!(state["actions"], 3, "the dropped call's action was played");
}
