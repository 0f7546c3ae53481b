use std::sync::{Arc, Mutex};

use escapade_core::{Agent, CoreError, EpisodeRow, StepRow, World, hash};
use escapade_run::rundir::{self, EPISODES, MEDIA, REPORT_MD, SUMMARY, TRAJECTORIES};
use escapade_run::{AgentFactory, Progress, RunSpec};

use crate::fake::{CounterWorld, labelled, rows, run_in, small_suite, spec};

#[test]
fn a_run_writes_every_file_with_valid_rows() {
    let out = tempfile::tempdir().unwrap();
    let suite = small_suite();
    let spec = RunSpec {
        epochs: 2,
        ..spec("oracle")
    };
    let summary = run_in(out.path(), &labelled("counter@1", &suite), &spec).unwrap();
    assert_eq!(
        (summary.total, summary.played, summary.skipped),
        (10, 10, 0)
    );
    assert!(!summary.resumed);

    // runs/<utc-time>-<suite>-<agent>-<id>/
    assert_eq!(summary.dir.parent().unwrap(), out.path());
    let name = summary
        .dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let parts: Vec<&str> = name.splitn(2, '-').collect();
    assert_eq!(parts[0].len(), "20260101T000000Z".len(), "{name}");
    assert!(parts[0].ends_with('Z') && parts[0].contains('T'), "{name}");
    assert!(parts[1].starts_with("counter@1-oracle-"), "{name}");

    let toml = rundir::read_run_toml(&summary.dir).unwrap();
    assert_eq!(toml.format_version, escapade_core::FORMAT_VERSION);
    assert_eq!(toml.config_hash, summary.config_hash);
    assert_eq!(toml.config.hash(), toml.config_hash);
    assert_eq!(toml.config.epochs, 2);
    assert_eq!(toml.config.agent, "oracle");
    assert_eq!(toml.config.scenarios.len(), 5);
    assert_eq!(
        toml.config.scenarios[2].hash,
        hash::sha256_hex(suite[2].json().as_bytes())
    );
    assert!(!toml.escapade_version.is_empty());

    let episodes: Vec<EpisodeRow> = rows(&summary.dir.join(EPISODES));
    assert_eq!(episodes.len(), 10);
    for row in &episodes {
        let target = suite.iter().find(|s| s.id == row.scenario).unwrap().target;
        assert!(row.success, "{row:?}");
        assert_eq!(row.steps, target);
        assert_eq!(row.world, "counter");
        assert_eq!(row.suite, "counter@1");
        assert_eq!(row.agent, "oracle");
        assert_eq!(row.config_hash, summary.config_hash);
        assert_eq!(row.difficulty, target);
        assert_eq!(row.error, None);
        assert_eq!(row.metrics["progress_rate"], 1.0);

        let path = summary
            .dir
            .join(TRAJECTORIES)
            .join(&row.scenario)
            .join(format!("{}.jsonl", row.epoch));
        let steps: Vec<StepRow> = rows(&path);
        assert_eq!(steps.len() as u32, target);
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step.step, i as u32 + 1);
            assert_eq!(step.role, "agent");
            assert_eq!(step.terminated, i + 1 == steps.len());
            assert!(step.valid);
            assert!(
                step.observation
                    .text
                    .ends_with(&format!("count {i} of {target}"))
            );
            for sha in &step.observation.images {
                let png =
                    std::fs::read(summary.dir.join(MEDIA).join(format!("{sha}.png"))).unwrap();
                assert_eq!(&hash::sha256_hex(&png), sha);
            }
        }
    }

    // one file per distinct image: the agent saw counts 0, 1 and 2
    let media: Vec<_> = std::fs::read_dir(summary.dir.join(MEDIA))
        .unwrap()
        .collect();
    assert_eq!(media.len(), 3);

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(summary.dir.join(SUMMARY)).unwrap()).unwrap();
    assert_eq!(json["groups"].as_array().unwrap().len(), 3);
    assert_eq!(json["overall"]["counter"]["n"], 10);
    let md = std::fs::read_to_string(summary.dir.join(REPORT_MD)).unwrap();
    assert!(md.contains("## counter"), "{md}");
    assert!(md.contains("| all | 10 | 100.0 ± 0.0 |"), "{md}");
}

/// Wraps the oracle and, before each episode and each turn, counts the rows already on
/// disk; each turn takes `pause` (a model's think time).
struct Peeking {
    out: std::path::PathBuf,
    seen: Arc<Mutex<Vec<(String, usize)>>>,
    pause: std::time::Duration,
}

impl Peeking {
    fn run_dir(&self) -> std::path::PathBuf {
        std::fs::read_dir(&self.out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap()
    }
    fn lines(path: &std::path::Path) -> usize {
        std::fs::read_to_string(path)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }
}

struct PeekingAgent {
    inner: Box<dyn Agent + Send>,
    trajectory: std::path::PathBuf,
    seen: Arc<Mutex<Vec<(String, usize)>>>,
    turn: usize,
    pause: std::time::Duration,
}

impl Agent for PeekingAgent {
    fn name(&self) -> String {
        "peek".into()
    }
    fn reset(&mut self, start: escapade_core::EpisodeStart<'_>) {
        self.inner.reset(start);
    }
    fn act(
        &mut self,
        obs: &escapade_core::Observation,
        last: Option<&escapade_core::Step>,
    ) -> Result<escapade_core::AgentTurn, CoreError> {
        let n = Peeking::lines(&self.trajectory);
        self.seen
            .lock()
            .unwrap()
            .push((format!("turn {}", self.turn), n));
        self.turn += 1;
        std::thread::sleep(self.pause);
        self.inner.act(obs, last)
    }
}

impl AgentFactory for Peeking {
    fn name(&self) -> String {
        "peek".into()
    }
    fn make(
        &self,
        world: &dyn World,
        json: &str,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn escapade_agents::AsyncAgent>, escapade_agents::AgentError> {
        let dir = self.run_dir();
        let n = Self::lines(&dir.join(EPISODES));
        self.seen.lock().unwrap().push(("episode".into(), n));
        let id = escapade_core::ScenarioHeader::parse(json).unwrap().id;
        let inner = world
            .agent("oracle", json, seed, options)
            .map_err(|e| escapade_agents::AgentError::Baseline(e.to_string()))?;
        Ok(Box::new(escapade_agents::Blocking(Box::new(
            PeekingAgent {
                inner,
                trajectory: dir.join(TRAJECTORIES).join(id).join("0.jsonl"),
                seen: self.seen.clone(),
                turn: 0,
                pause: self.pause,
            },
        ))))
    }
}

/// Plays `suite` with a [`Peeking`] oracle taking `pause` a turn; what it saw.
fn peek(suite: &[crate::fake::Counter], pause: std::time::Duration) -> Vec<(String, usize)> {
    let out = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agents = Peeking {
        out: out.path().to_path_buf(),
        seen: seen.clone(),
        pause,
    };
    escapade_run::run(
        &CounterWorld,
        &labelled("counter@1", suite),
        &spec("peek"),
        &agents,
        out.path(),
        Progress::quiet(),
    )
    .unwrap();
    seen.lock().unwrap().clone()
}

#[test]
fn episode_rows_are_flushed_at_once_and_step_rows_within_the_flush_interval() {
    // A burst of steps (a baseline's) waits in the trajectory's buffer, but each episode
    // row is on disk before the next episode starts.
    let suite = small_suite();
    let seen = peek(&suite, std::time::Duration::ZERO);
    let mut episodes = 0;
    for (what, n) in &seen {
        if what == "episode" {
            assert_eq!(*n, episodes, "{seen:?}");
            episodes += 1;
        } else {
            let turn: usize = what["turn ".len()..].parse().unwrap();
            assert!(*n <= turn, "{seen:?}");
        }
    }
    assert_eq!(episodes, suite.len());
    // A model's steps, further apart than the flush interval, reach the file one by
    // one: a running episode can be followed.
    let slow = escapade_run::rundir::TRAJECTORY_FLUSH + std::time::Duration::from_millis(20);
    let seen = peek(&suite[2..3], slow);
    let expected: Vec<(String, usize)> = std::iter::once(("episode".to_string(), 0))
        .chain((0..suite[2].target as usize).map(|t| (format!("turn {t}"), t)))
        .collect();
    assert_eq!(seen, expected);
}
