//! Real baseline runs for the pages to read, and a server over them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use escapade_core::World;
use escapade_run::{Baseline, Progress, RunSpec};
use escapade_web::auth::Access;
use escapade_web::server::{Site, Worlds, router};

/// The worlds the tests play: vis (pictures, one role) and comma (two roles).
pub fn worlds() -> Worlds {
    Arc::new(vec![
        Box::new(escapade_vis::VisWorld::new()) as Box<dyn World>,
        Box::new(escapade_comma::CommaWorld),
    ])
}

/// The first `limit` scenarios of `world`'s first suite.
pub fn scenarios(world: &dyn World, limit: usize) -> Vec<(String, String)> {
    let suite = world.suites()[0].name.clone();
    world
        .build_suite(&suite)
        .expect("the suite builds")
        .into_iter()
        .take(limit)
        .map(|json| (suite.clone(), json))
        .collect()
}

/// Plays `agent` (a baseline kind) over the first `limit` scenarios of the world named
/// `world` into a new run directory under `out`; returns the directory.
pub fn baseline_run(world: &str, agent: &str, limit: usize, out: &Path) -> PathBuf {
    let worlds = worlds();
    let world = worlds
        .iter()
        .find(|w| w.name() == world)
        .expect("a test world")
        .as_ref();
    let spec = RunSpec {
        agent: agent.into(),
        seed: 7,
        ..Default::default()
    };
    let summary = escapade_run::run(
        world,
        &scenarios(world, limit),
        &spec,
        &Baseline::new(world, agent).expect("a baseline"),
        out,
        Progress::quiet(),
    )
    .expect("the run finishes");
    summary.dir
}

/// A site over `dirs` with `access`.
pub fn site(dirs: &[PathBuf], access: Access) -> Site {
    let mut site = Site::new(
        &escapade_web::ViewOptions {
            dirs: dirs.to_vec(),
            ..Default::default()
        },
        worlds(),
    )
    .expect("the folders exist");
    site.access = access;
    site
}

/// The router of a site over `dirs` (loopback access).
pub fn app(dirs: &[PathBuf]) -> axum::Router {
    router(Arc::new(site(dirs, Access::Loopback)))
}

/// A finished baseline run of `world` into a temporary folder, off the async threads.
pub async fn baseline_run_async(
    world: &'static str,
    agent: &'static str,
    limit: usize,
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let dir = tokio::task::spawn_blocking(move || baseline_run(world, agent, limit, &out))
        .await
        .unwrap();
    (tmp, dir)
}

/// A run each of `(world, agent, limit)` `a` and `b` in one temporary folder, off the
/// async threads.
pub async fn two_runs(
    a: (&'static str, &'static str, usize),
    b: (&'static str, &'static str, usize),
) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let (first, second) = tokio::task::spawn_blocking(move || {
        (
            baseline_run(a.0, a.1, a.2, &out),
            baseline_run(b.0, b.1, b.2, &out),
        )
    })
    .await
    .unwrap();
    (tmp, first, second)
}

/// A vis oracle run of two rooms as it was after its first episode, and the row of its
/// second (to append, as the runner would).
pub async fn half_finished_run() -> (tempfile::TempDir, PathBuf, String) {
    let (tmp, dir) = baseline_run_async("vis", "oracle", 2).await;
    let episodes = dir.join("episodes.jsonl");
    let full = std::fs::read_to_string(&episodes).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    assert_eq!(lines.len(), 2);
    std::fs::write(&episodes, format!("{}\n", lines[0])).unwrap();
    (tmp, dir, format!("{}\n", lines[1]))
}

/// Appends `row` to the run's `episodes.jsonl`.
pub fn append_episode(dir: &Path, row: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("episodes.jsonl"))
        .unwrap();
    f.write_all(row.as_bytes()).unwrap();
}

/// A run of the generic model agent on the first vis room, its model a script: a reply
/// with reasoning, a reply the world's parser rejects (a re-ask), a valid reply, again.
pub async fn scripted_model_run(out: &Path) -> PathBuf {
    let script = out.join("script.jsonl");
    std::fs::write(
        &script,
        concat!(
            r#"{"text": "Looking around first. [ACTION] turn to west", "reasoning": "the room is new, so I turn", "usage": {"input": 120, "output": 12, "reasoning": 7}, "finish_reason": "length"}"#, "\n",
            r#"{"text": "hmm, no idea", "usage": {"input": 130, "output": 4}}"#, "\n",
            r#"{"text": "[ACTION] turn to east", "usage": {"input": 140, "output": 6}}"#, "\n",
        ),
    )
    .unwrap();
    let model = format!("scripted/{}", script.display());
    let options = std::collections::BTreeMap::from([("model".to_string(), model.clone())]);
    let client = escapade_llm::open(&model, &escapade_llm::ClientOptions::default())
        .await
        .expect("the script opens");
    let config = escapade_agents::LlmConfig::from_options(&model, &options).unwrap();
    let factory = escapade_run::LlmFactory::new(config, client);
    let world = escapade_vis::VisWorld::new();
    let spec = RunSpec {
        agent: "llm".into(),
        agent_options: options,
        seed: 7,
        ..Default::default()
    };
    let runs = out.join("runs");
    escapade_run::run_async(
        &world,
        &scenarios(&world, 1),
        &spec,
        &factory,
        &runs,
        Progress::quiet(),
    )
    .await
    .expect("the run finishes")
    .dir
}

/// Holds the run directory's lock as `escapade run` does while it plays (released when
/// the file is dropped): the pages then read the run as running.
pub fn hold_lock(dir: &Path) -> std::fs::File {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(escapade_run::rundir::LOCK))
        .unwrap();
    file.try_lock().expect("no one else holds the lock");
    file
}

/// A person's recorded game of the first comma puzzle under `out`: one solver turn,
/// then `:quit`. Returns the run directory.
pub fn gave_up_run(out: &Path) -> PathBuf {
    let world = escapade_comma::CommaWorld;
    let (_, json) = scenarios(&world, 1).remove(0);
    let options = escapade_run::PlayOptions {
        record: Some(out.to_path_buf()),
        suite: world.suites()[0].name.clone(),
        images: out.join("pictures"),
        ..Default::default()
    };
    let mut input: &[u8] = b"I see some wires\n:quit\n";
    let mut shown = Vec::new();
    let played =
        escapade_run::play_terminal(&world, &json, &options, &mut input, &mut shown).unwrap();
    assert!(played.quit);
    played.dir.expect("the game is recorded")
}

/// `s` encoded for a query string.
pub fn enc(s: &str) -> String {
    serde_urlencoded::to_string([("x", s)]).unwrap()[2..].to_string()
}

/// The id of the run in `dir`, the only folder's, encoded for a query string.
pub fn id_of(dir: &Path) -> String {
    enc(&format!("0/{}", dir.file_name().unwrap().to_string_lossy()))
}
