//! The real openenv-core client (`GenericEnvClient`, from the project's `.venv`) plays
//! every world against the server: full episodes of tools, vis and craft, a comma game
//! with the client in both roles and one with an oracle partner, and the oracle's moves
//! (worked out here, in Rust, on a copy of the scenario) escape through it.
//! `tests/python/test_openenv.py` is the client side, run with pytest.

use std::path::PathBuf;
use std::process::Command;

use escapade_core::World;
use escapade_serve::ServeOptions;
use serde_json::{Value, json};

use crate::kit::start_with;

/// The project's Python with the openenv-core client, or `None` (skipped) outside CI.
fn python() -> Option<PathBuf> {
    escapade_testkit::venv::python("openenv.core, pytest", "the openenv-core client test")
}

fn worlds() -> Vec<Box<dyn World>> {
    escapade_worlds::worlds().expect("the worlds start (python3 for the tools world)")
}

/// The oracle's moves through `json` with `seed`, as wire actions.
fn oracle_moves(world: &dyn World, json: &str, seed: u64) -> Vec<Value> {
    escapade_testkit::oracle::oracle_actions(world, json, seed)
        .into_iter()
        .map(|(_, action)| serde_json::to_value(&action).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openenv_client_plays_every_world() {
    let Some(python) = python() else { return };
    let worlds = worlds();
    let dir = tempfile::tempdir().unwrap();
    // scenarios of each world (generated: a suite of hundreds is not built for this)
    let mut scenarios = serde_json::Map::new();
    for (name, difficulty) in [("tools", 5), ("vis", 1), ("craft", 1)] {
        let w = worlds.iter().find(|w| w.name() == name).unwrap();
        let json = w.generate(difficulty, 7, &Default::default()).unwrap();
        scenarios.insert(name.into(), serde_json::from_str(&json).unwrap());
    }
    let tools = &scenarios["tools"];
    let moves = oracle_moves(worlds[0].as_ref(), &tools.to_string(), 11);
    let plan =
        json!({"scenarios": scenarios, "oracle": {"world": "tools", "seed": 11, "moves": moves}});
    let plan_file = dir.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let record = dir.path().join("runs");
    let r = start_with(
        worlds,
        ServeOptions {
            record: Some(record.clone()),
            ..Default::default()
        },
    )
    .await;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/test_openenv.py");
    let out = tokio::task::spawn_blocking({
        // the token as the URL's password: what the server prints as its base_url, and
        // how openenv-core's HTTP and WebSocket clients send it (Basic authorization)
        let token = r.token.clone().expect("a token by default");
        let url = format!("http://escapade:{token}@{}", r.addr);
        move || {
            Command::new(python)
                .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
                .arg(script)
                .env("ESCAPADE_URL", url)
                .env("ESCAPADE_PLAN", plan_file)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("passed"), "{text}");
    r.stop().await;
    // every episode played is a run directory the report reads, its agent `remote`
    let runs: Vec<PathBuf> = std::fs::read_dir(&record)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(runs.len() >= 6, "{runs:?}");
    let report = escapade_run::report(&runs, &[]).unwrap();
    let worlds: std::collections::BTreeSet<&str> =
        report.groups.iter().map(|g| g.world.as_str()).collect();
    assert_eq!(worlds.len(), 4, "{worlds:?}");
    let oracle = runs.iter().any(|run| {
        std::fs::read_to_string(run.join("episodes.jsonl")).is_ok_and(|rows| {
            rows.lines().any(|l| {
                let row: Value = serde_json::from_str(l).unwrap();
                row["world"] == "tools" && row["success"] == true && row["agent"] == "remote"
            })
        })
    });
    assert!(oracle, "the oracle's escape is recorded");
}
