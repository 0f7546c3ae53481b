//! Recorded steps played again into a fresh environment: the one replay that both
//! `resume` (an interrupted episode continued at its checkpoint, [`crate::checkpoint`])
//! and `run --from` (a recorded episode forked at a step, [`Fork`]) use.
//!
//! Why one: worlds are deterministic (same seed, same actions, same observations), so an
//! episode's state at step K is rebuilt by replaying its first K-1 recorded actions, and
//! every replayed step is checked against its row (the observation, the agent's request
//! and action, the world's answer). The runner's `play` loop does this for a
//! [`Replay`]; what differs is only who answers the agent while the steps are replayed:
//!
//! - a checkpoint: the same agent, its model calls answered from the recorded replies,
//!   each request checked against the recorded request's SHA-256 ([`Tape::from_rows`]);
//! - a fork that keeps the conversation: another model, answered from the same replies
//!   without the request check (its requests name another model, [`Tape::lenient`]);
//! - a fork with `--fresh`: no agent at all; the recorded actions go to the environment
//!   and the new agent's conversation starts at step K.
//!
//! A fork also checks the observation at step K itself, the first one its agent sees,
//! against the recording, and refuses to play when it differs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use escapade_core::{Env, Image, Observation, Origin, StepRow};

use crate::checkpoint::Tape;
use crate::error::{Result, RunError};
use crate::rundir::{self, MEDIA, RunConfig, RunDir, TRAJECTORIES};

/// Recorded steps to replay before an episode goes on.
pub(crate) struct Replay {
    /// The recorded rows: the first `upto` are replayed; the one after them, when
    /// present, is checked (its observation) but played live.
    pub rows: Vec<StepRow>,
    /// How many of `rows` are replayed.
    pub upto: u32,
    /// How many of the replayed steps are sent as recorded, without the agent (a fresh
    /// fork's steps before its fork step); the agent takes the others.
    pub sent: u32,
    /// Answers the agent's model calls while the steps are replayed; `None`: the agent
    /// does not take the replayed steps (the recorded actions are sent as they are).
    pub tape: Option<Arc<Tape>>,
}

impl Replay {
    /// An interrupted episode's recorded steps, all replayed through the same agent.
    pub fn checkpoint(rows: Vec<StepRow>) -> Replay {
        Replay {
            tape: Some(Arc::new(Tape::from_rows(&rows))),
            upto: rows.len() as u32,
            sent: 0,
            rows,
        }
    }

    /// The recorded row of step `n + 1` when it is replayed.
    pub fn recorded(&self, n: u32) -> Option<&StepRow> {
        (n < self.upto).then(|| self.rows.get(n as usize)).flatten()
    }
}

/// `SCENARIO[:EPOCH]` (epoch 0 when absent), as `--episode` and a `from` take it.
pub fn parse_episode(episode: &str) -> (&str, u32) {
    match episode.rsplit_once(':') {
        Some((s, e)) if !s.is_empty() && e.parse::<u32>().is_ok() => {
            (s, e.parse().expect("checked"))
        }
        _ => (episode, 0),
    }
}

/// A recorded episode to fork at a step: `escapade run --from RUN --episode
/// SCENARIO[:EPOCH] --step K`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fork {
    /// What the forked episode's row records of its origin.
    pub origin: Origin,
    /// The origin's run directory.
    pub dir: PathBuf,
    /// The origin episode's rows up to and including step K.
    pub rows: Vec<StepRow>,
    /// The origin episode's seed (`seed::derive` of its run's seed, scenario and epoch).
    pub seed: u64,
    /// The world the origin played.
    pub world: String,
    /// The origin run's world options (`-W`).
    pub world_options: BTreeMap<String, String>,
}

impl Fork {
    /// Reads episode `scenario` epoch `epoch` of the run in `dir` and prepares its fork
    /// at `step` (from 1: the step the new agent plays first). Errors say what is
    /// missing: no such run, episode, or step.
    pub fn open(dir: &Path, scenario: &str, epoch: u32, step: u32, fresh: bool) -> Result<Fork> {
        let toml = rundir::read_run_toml(dir)?;
        let config: &RunConfig = &toml.config;
        if !config.scenarios.iter().any(|s| s.id == scenario) {
            let ids: Vec<&str> = config.scenarios.iter().map(|s| s.id.as_str()).collect();
            return Err(RunError::invalid(
                "episode",
                format!(
                    "run {} played no scenario `{scenario}` (it played {})",
                    dir.display(),
                    ids.join(", ")
                ),
            ));
        }
        let path = dir
            .join(TRAJECTORIES)
            .join(crate::suite::file_stem(scenario))
            .join(format!("{epoch}.jsonl"));
        if !path.is_file() {
            return Err(RunError::invalid(
                "episode",
                format!(
                    "run {} has no trajectory of `{scenario}` epoch {epoch} ({} is missing)",
                    dir.display(),
                    path.display()
                ),
            ));
        }
        let rows = rundir::read_jsonl::<StepRow>(&path)?.rows;
        let numbered = rows.iter().zip(1..).all(|(r, n)| r.step == n);
        if !numbered {
            return Err(RunError::BadFile {
                path,
                message: "its step rows are not numbered 1, 2, …".into(),
            });
        }
        if step == 0 || step as usize > rows.len() {
            return Err(RunError::invalid(
                "step",
                format!(
                    "--step must be between 1 and {} (the steps `{scenario}` epoch {epoch} \
                     recorded), not {step}",
                    rows.len()
                ),
            ));
        }
        let rows = rows.into_iter().take(step as usize).collect();
        Ok(Fork {
            origin: Origin {
                run: std::fs::canonicalize(dir)
                    .unwrap_or_else(|_| dir.to_path_buf())
                    .display()
                    .to_string(),
                config_hash: config.hash(),
                scenario: scenario.to_string(),
                epoch,
                step,
                fresh,
            },
            dir: dir.to_path_buf(),
            rows,
            seed: escapade_core::seed::derive(config.seed, scenario, u64::from(epoch)),
            world: config.world.clone(),
            world_options: config.world_options.clone(),
        })
    }

    /// Checks that an environment of `world` on scenario `scenario` with `options` is
    /// the one this fork's recording played (what [`Fork::restore`] needs).
    pub fn fits(
        &self,
        world: &str,
        scenario: &str,
        options: &BTreeMap<String, String>,
    ) -> Result<()> {
        if self.world != world || self.origin.scenario != scenario {
            return Err(RunError::invalid(
                "from",
                format!(
                    "the recording is of {} scenario `{}`, not of {world} scenario `{scenario}`",
                    self.world, self.origin.scenario
                ),
            ));
        }
        if &self.world_options != options {
            let shown = |o: &BTreeMap<String, String>| {
                let pairs: Vec<String> = o.iter().map(|(k, v)| format!("{k}={v}")).collect();
                if pairs.is_empty() {
                    "none".to_string()
                } else {
                    pairs.join(" ")
                }
            };
            return Err(RunError::invalid(
                "from",
                format!(
                    "the recording was played with world options {}, not {}",
                    shown(&self.world_options),
                    shown(options)
                ),
            ));
        }
        Ok(())
    }

    /// Puts `env` (the fork's world on its scenario, with its world options) where the
    /// recorded episode stood before step K, for a caller that plays on by itself (a
    /// Gymnasium or OpenEnv `reset` from a recording): resets it with the episode's seed
    /// and sends the recorded actions of steps 1 to K-1, each observation and answer
    /// checked against its row as `resume` checks them. Returns the observation at K
    /// (checked too) and the progress before it; a difference is an error naming the
    /// step.
    pub fn restore(&self, env: &mut dyn Env) -> Result<(Observation, f64)> {
        // the run by its directory's name: a server's client sees this message
        let run = Path::new(&self.origin.run).file_name().map_or_else(
            || self.origin.run.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
        let refused = |step: u32, why: String| {
            RunError::invalid(
                "from",
                format!(
                    "episode {}:{} of run {run} does not replay as recorded up to step {} \
                     (step {step}: {why})",
                    self.origin.scenario, self.origin.epoch, self.origin.step
                ),
            )
        };
        let mut observation = env.reset(self.seed);
        let mut progress = 0.0;
        for row in self.before() {
            if let Some(why) = crate::checkpoint::observation_differs(&observation, row) {
                return Err(refused(row.step, why));
            }
            let step = env
                .step(&row.action)
                .map_err(|e| refused(row.step, e.to_string()))?;
            if let Some(why) = crate::checkpoint::step_differs(&step, row) {
                return Err(refused(row.step, why));
            }
            progress = row.progress;
            observation = step.observation;
        }
        let at = self.rows.last().expect("Fork::open keeps step K's row");
        if let Some(why) = crate::checkpoint::observation_differs(&observation, at) {
            return Err(refused(at.step, why));
        }
        Ok((observation, progress))
    }

    /// The steps before the fork's, to replay: the agent takes them answered from the
    /// recorded replies (any model), or not at all with `fresh`.
    pub(crate) fn replay(&self) -> Replay {
        let upto = self.origin.step - 1;
        let before = &self.rows[..upto as usize];
        Replay {
            tape: (!self.origin.fresh).then(|| Arc::new(Tape::lenient(before))),
            upto,
            sent: if self.origin.fresh { upto } else { 0 },
            rows: self.rows.clone(),
        }
    }

    /// This fork's episode checkpointed at its last completed step (`rows`: the
    /// origin's steps before the fork step, then the fork's own), replayed as it was
    /// played: the steps before the fork step as [`Fork::replay`] plays them, the
    /// fork's own through its agent, answered from its recorded replies with every
    /// request checked.
    pub(crate) fn resume(&self, rows: Vec<StepRow>) -> Replay {
        let k = self.origin.step;
        let before = (k - 1) as usize;
        let (tape, sent) = if self.origin.fresh {
            (
                Tape::from_rows(rows.get(before..).unwrap_or_default()),
                k - 1,
            )
        } else {
            (Tape::lenient_before(&rows, k), 0)
        };
        Replay {
            tape: Some(Arc::new(tape)),
            upto: rows.len() as u32,
            sent,
            rows,
        }
    }

    /// The replayed rows, as the forked trajectory starts.
    pub(crate) fn before(&self) -> &[StepRow] {
        &self.rows[..(self.origin.step - 1) as usize]
    }

    /// Stores the pictures the replayed rows name, read from the origin's `media/`, in
    /// `dir`'s (the fork's trajectory holds those rows).
    pub(crate) fn copy_media(&self, dir: &RunDir) -> Result<()> {
        for row in self.before() {
            for sha in &row.observation.images {
                let from = self.dir.join(MEDIA).join(format!("{sha}.png"));
                let png =
                    std::fs::read(&from).map_err(|e| RunError::io("cannot read", &from, e))?;
                let stored = dir.store_images(&[Image::from_png(png)])?;
                if stored.first() != Some(sha) {
                    return Err(RunError::BadFile {
                        path: from,
                        message: "its bytes do not hash to its name".into(),
                    });
                }
            }
        }
        Ok(())
    }
}
