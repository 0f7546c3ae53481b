//! A run's episodes played anywhere and committed here: the engine under distributed
//! runs (the Python package's `escapade.ray`).
//!
//! [`crate::run`] plays every episode of a run in one process. A distributed run splits
//! it in three, with no second episode loop:
//! - [`Driver::open`] plans the run as the runner does (the same checks, `run.toml`,
//!   config hash and resume) and lists the episodes still to play as [`Job`]s —
//!   self-contained and serializable, so they can travel to another machine — and says
//!   who plays them ([`Driver::cast`]: the world, its roles, the [`Players`]);
//! - a [`Worker`], made once per worker process from the cast, opens the agent factory
//!   (one model client, reused by every episode it plays), an async runtime and a scratch
//!   directory, and plays jobs one after the other with the runner's own episode loop
//!   and recorder; each comes back as a [`Record`]: the episode row, its step rows and
//!   its pictures ([`play_job`] plays one job with a factory of the caller's);
//! - [`Driver::commit`] writes a record into the run directory exactly once — a second
//!   record of the same episode (a retried task whose first attempt finished after all)
//!   changes nothing — and [`Driver::finish`] writes `summary.json` and `report.md`.
//!
//! An episode's seed depends only on the run seed, the scenario and the epoch, so the
//! rows equal those of a single-process run of the same seeds except for timing fields
//! (`duration_ms`, a step's `t_ms`). Rows are appended in the order records are
//! committed, as the runner appends them in the order episodes finish.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use escapade_core::{EpisodeRow, Image, ScenarioHeader, World, hash, seed};
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::players::{self, Players, PlayersError};
use crate::rundir::{MEDIA, RunDir, TRAJECTORIES};
use crate::runner::{AgentFactory, Episode, Opening, RunSpec, RunSummary, open_run};

/// One episode to play, with everything a worker needs to play it (no run directory).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The world that plays the scenario (a worker checks it holds this world).
    pub world: String,
    /// The scenario's suite label (`comma@4`, `file:<stem>`).
    pub suite: String,
    /// The scenario id.
    pub scenario: String,
    /// The scenario's JSON, as the run's source holds it.
    pub scenario_json: String,
    /// The epoch, from 0.
    pub epoch: u32,
    /// The episode seed (`seed::derive(run seed, scenario, epoch)`).
    pub seed: u64,
    /// The run's safety cap on steps.
    pub max_steps: u32,
    /// The run's world options (`-W`).
    pub world_options: BTreeMap<String, String>,
    /// The run's config hash, carried by the episode row.
    pub config_hash: String,
}

impl Job {
    /// The job as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a job always serializes")
    }

    /// A job from [`Job::to_json`]'s text.
    pub fn from_json(text: &str) -> Result<Job> {
        serde_json::from_str(text).map_err(|e| RunError::invalid("job", format!("bad job: {e}")))
    }
}

/// One episode played by [`play_job`]: what the runner would have written for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The episode row.
    pub row: EpisodeRow,
    /// Its step rows, as the lines of its trajectory file.
    pub trajectory: Vec<u8>,
    /// The pictures the step rows name, each once, each addressed by the hash of its
    /// bytes (as [`Image::from_png`] and [`Record::from_bytes`] make them).
    pub media: Vec<Image>,
    /// The agent's history was cut: a reply, or pictures beyond the image budget (the
    /// runner warns once per run).
    pub history_cut: bool,
}

/// The first line of [`Record::to_bytes`].
const RECORD_MAGIC: &[u8] = b"escapade-record 1\n";

/// What [`Record::to_bytes`] puts before the trajectory and pictures.
#[derive(Serialize, Deserialize)]
struct RecordHead {
    row: EpisodeRow,
    history_cut: bool,
    /// Length of the trajectory in bytes.
    trajectory: u64,
    /// Length of each picture in bytes, in order.
    media: Vec<u64>,
}

impl Record {
    /// The record as bytes: a magic line, the length of a JSON head (row, lengths) as
    /// 8 little-endian bytes, the head, the trajectory, then the PNG files one after the
    /// other. Pictures travel as they are, not as JSON text.
    pub fn to_bytes(&self) -> Vec<u8> {
        let head = RecordHead {
            row: self.row.clone(),
            history_cut: self.history_cut,
            trajectory: self.trajectory.len() as u64,
            media: self.media.iter().map(|i| i.png.len() as u64).collect(),
        };
        let head = serde_json::to_vec(&head).expect("a record head always serializes");
        let pictures: usize = self.media.iter().map(|i| i.png.len()).sum();
        let mut out = Vec::with_capacity(
            RECORD_MAGIC.len() + 8 + head.len() + self.trajectory.len() + pictures,
        );
        out.extend_from_slice(RECORD_MAGIC);
        out.extend_from_slice(&(head.len() as u64).to_le_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(&self.trajectory);
        for image in &self.media {
            out.extend_from_slice(&image.png);
        }
        out
    }

    /// A record from [`Record::to_bytes`]'s bytes; anything else is
    /// [`RunError::BadRecord`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Record> {
        let bad = |message: &str| RunError::BadRecord {
            message: message.to_string(),
        };
        let rest = bytes
            .strip_prefix(RECORD_MAGIC)
            .ok_or_else(|| bad("not an escapade episode record"))?;
        let mut cursor = Cursor(rest);
        let len = cursor.take(8).ok_or_else(|| bad("truncated"))?;
        let len = u64::from_le_bytes(len.try_into().expect("eight bytes"));
        let head = cursor.take_u64(len).ok_or_else(|| bad("truncated head"))?;
        let head: RecordHead = serde_json::from_slice(head)
            .map_err(|e| bad(&format!("the head does not decode: {e}")))?;
        let trajectory = cursor
            .take_u64(head.trajectory)
            .ok_or_else(|| bad("truncated trajectory"))?
            .to_vec();
        let mut media = Vec::with_capacity(head.media.len());
        for len in head.media {
            let png = cursor
                .take_u64(len)
                .ok_or_else(|| bad("truncated picture"))?;
            media.push(Image::from_png(png.to_vec()));
        }
        if !cursor.0.is_empty() {
            return Err(bad("bytes left after the last picture"));
        }
        Ok(Record {
            row: head.row,
            trajectory,
            media,
            history_cut: head.history_cut,
        })
    }
}

/// Reads a byte slice front to back.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn take_u64(&mut self, n: u64) -> Option<&'a [u8]> {
        self.take(usize::try_from(n).ok()?)
    }
}

/// Who plays a distributed run's jobs: what a [`Worker`] is made from, as the driver
/// planned it ([`Driver::cast`]); serializable, to travel to the workers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cast {
    /// The world that plays the run.
    pub world: String,
    /// The roles of its scenarios ([`players::roles_of`]; empty for one-role worlds).
    pub roles: Vec<String>,
    /// The agent (and expert) with their options, as `run.toml` records them.
    pub players: Players,
}

impl Cast {
    /// The cast as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a cast always serializes")
    }

    /// A cast from [`Cast::to_json`]'s text.
    pub fn from_json(text: &str) -> Result<Cast> {
        serde_json::from_str(text).map_err(|e| RunError::invalid("cast", format!("bad cast: {e}")))
    }

    /// The cast each of `workers` workers is made from: the agent's and the expert's rate
    /// limits (`rpm`, `tpm`) split among them ([`share_rate_limits`]), since each worker's
    /// client counts only its own requests and the provider counts them all. Also the
    /// warnings of a limit too small to split.
    ///
    /// [`share_rate_limits`]: escapade_agents::config::share_rate_limits
    pub fn for_workers(&self, workers: u32) -> (Cast, Vec<String>) {
        use escapade_agents::config::share_rate_limits;
        let mut cast = self.clone();
        let mut warnings = share_rate_limits(&mut cast.players.options, workers);
        if let Some((_, options)) = &mut cast.players.expert {
            warnings.extend(
                share_rate_limits(options, workers)
                    .into_iter()
                    .map(|w| format!("expert: {w}")),
            );
        }
        (cast, warnings)
    }
}

/// Plays jobs in a worker process: the run's agent factory, an async runtime and a
/// scratch directory, each made once and reused by every job (a model client's
/// connections and rate limits span the worker's episodes; a job costs no thread, no
/// runtime and no temporary directory of its own).
pub struct Worker<'w> {
    world: &'w dyn World,
    agents: Box<dyn crate::AgentFactory>,
    runtime: tokio::runtime::Runtime,
    scratch: tempfile::TempDir,
}

impl std::fmt::Debug for Worker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("world", &self.world.name())
            .field("agent", &self.agents.name())
            .field("scratch", &self.scratch.path())
            .finish()
    }
}

impl<'w> Worker<'w> {
    /// The scratch directory episodes are recorded in before they are sent back
    /// (removed when the worker is dropped).
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// A worker of `world` for `cast`: makes the agents as `escapade run` makes them
    /// ([`players::agents`]: a model agent opens its backend here, once).
    pub fn new(world: &'w dyn World, cast: &Cast) -> std::result::Result<Self, PlayersError> {
        if cast.world != world.name() {
            return Err(RunError::invalid(
                "cast",
                format!(
                    "the cast is of world `{}`, not `{}`",
                    cast.world,
                    world.name()
                ),
            )
            .into());
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| RunError::io("cannot start the async runtime", ".", e))?;
        let agents = runtime.block_on(players::agents(world, &cast.roles, &cast.players))?;
        Ok(Worker {
            world,
            agents,
            runtime,
            scratch: scratch_dir()?,
        })
    }

    /// The agent's name in episode rows.
    pub fn agent(&self) -> String {
        self.agents.name()
    }

    /// Plays `job` (see [`play_job_async`]).
    pub fn play(&mut self, job: &Job) -> Result<Record> {
        let record = self.runtime.block_on(play_in(
            self.world,
            self.agents.as_ref(),
            job,
            self.scratch.path(),
        ));
        // the next job starts from an empty scratch directory whatever this one left
        for sub in [TRAJECTORIES, MEDIA] {
            let path = self.scratch.path().join(sub);
            match std::fs::remove_dir_all(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(RunError::io("cannot remove", path, e));
                }
                _ => {}
            }
        }
        record
    }
}

/// Where scratch directories go when the machine has it: a memory file system.
const MEMORY_TMP: &str = "/dev/shm";

/// A new scratch directory for recording episodes: in memory (`/dev/shm`) when the
/// machine offers it, else in the temporary directory. An episode's files live there for
/// the length of the episode and are read back and removed at once, and on a disk file
/// system that churn is most of a short episode's cost (ext4 searches its recently
/// deleted inodes on every `mkdir` and `create` after a delete: about 1.5 ms of a
/// COMMA oracle episode that takes 0.2 ms to play).
fn scratch_dir() -> Result<tempfile::TempDir> {
    let builder = || {
        let mut b = tempfile::Builder::new();
        b.prefix("escapade-episode-");
        b
    };
    if Path::new(MEMORY_TMP).is_dir()
        && let Ok(dir) = builder().tempdir_in(MEMORY_TMP)
    {
        return Ok(dir);
    }
    builder()
        .tempdir()
        .map_err(|e| RunError::io("cannot create", std::env::temp_dir(), e))
}

/// Plays `job` with an agent of `agents` ([`play_job_async`] on a runtime of its own).
/// A worker playing many jobs makes a [`Worker`] instead.
pub fn play_job(world: &dyn World, agents: &dyn AgentFactory, job: &Job) -> Result<Record> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::io("cannot start the async runtime", ".", e))?;
    runtime.block_on(play_job_async(world, agents, job))
}

/// Plays `job` with an agent of `agents` as the runner plays an episode (the same loop,
/// recorder and row) into a scratch directory that is removed afterwards, and returns
/// the [`Record`]. As in the runner, whatever the agent or environment does wrong lands
/// in the row; `Err` means the job is not one this world plays or the scratch directory
/// failed.
pub async fn play_job_async(
    world: &dyn World,
    agents: &dyn AgentFactory,
    job: &Job,
) -> Result<Record> {
    let scratch = scratch_dir()?;
    let record = play_in(world, agents, job, scratch.path()).await?;
    scratch
        .close()
        .map_err(|e| RunError::io("cannot remove", std::env::temp_dir(), e))?;
    Ok(record)
}

/// Plays `job` into the run directory made in `scratch` (which holds no episode yet).
async fn play_in(
    world: &dyn World,
    agents: &dyn AgentFactory,
    job: &Job,
    scratch: &Path,
) -> Result<Record> {
    if job.world != world.name() {
        return Err(RunError::invalid(
            "job",
            format!(
                "the job is of world `{}`, not `{}`",
                job.world,
                world.name()
            ),
        ));
    }
    let header = ScenarioHeader::parse(&job.scenario_json)?;
    if header.id != job.scenario {
        return Err(RunError::invalid(
            "job",
            format!(
                "the job names scenario `{}` but carries `{}`",
                job.scenario, header.id
            ),
        ));
    }
    let dir = RunDir::scratch(scratch, &job.config_hash)?;
    let hash = hash::sha256_hex(job.scenario_json.as_bytes());
    let agent = agents.name();
    let episode = Episode {
        suite: &job.suite,
        header: &header,
        hash: &hash,
        json: &job.scenario_json,
        epoch: job.epoch,
        seed: job.seed,
        agent: &agent,
        max_steps: job.max_steps,
        options: &job.world_options,
        fork: None,
    };
    let (row, history_cut) =
        crate::runner::record_episode(world, agents, &episode, &dir, &|_| {}).await?;
    let path = dir.trajectory_path(&header.id, job.epoch);
    let trajectory = std::fs::read(&path).map_err(|e| RunError::io("cannot read", &path, e))?;
    let media = read_media(&dir.path().join(MEDIA))?;
    Ok(Record {
        row,
        trajectory,
        media,
        history_cut,
    })
}

/// The pictures of a scratch directory's `media/`, in name order.
fn read_media(media: &Path) -> Result<Vec<Image>> {
    let entries = std::fs::read_dir(media).map_err(|e| RunError::io("cannot read", media, e))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| RunError::io("cannot read", media, e))?;
        paths.push(entry.path());
    }
    paths.sort();
    paths
        .iter()
        .map(|p| {
            std::fs::read(p)
                .map(Image::from_png)
                .map_err(|e| RunError::io("cannot read", p, e))
        })
        .collect()
}

/// What [`Driver::commit`] did with a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// The episode was written: its steps, pictures and row.
    Recorded,
    /// The episode was already in the run directory; nothing was written.
    Duplicate,
}

/// The one process that writes a distributed run's directory: opens it, hands out its
/// [`Job`]s, commits the [`Record`]s that come back, and writes the summary. It holds
/// the run directory's lock for its life, as the runner does.
#[derive(Debug)]
pub struct Driver {
    dir: crate::rundir::RunDir,
    world: String,
    cast: Cast,
    /// The episodes that were still to play when the driver opened, in runner order.
    jobs: Vec<Job>,
    /// Every episode of this run (or shard): `(scenario, epoch)` → scenario hash.
    planned: BTreeMap<(String, u32), String>,
    /// Episodes in the directory that count as finished (not retryable).
    done: BTreeSet<(String, u32)>,
    total: usize,
    skipped: usize,
    resumed: bool,
    warnings: Vec<String>,
    committed: usize,
    errors: usize,
    /// Committed episodes the step cap ended.
    step_capped: usize,
    history_cut: bool,
}

impl Driver {
    /// Plans the run of `scenarios` by `spec` exactly as [`crate::run`] does and opens
    /// its run directory: a new one under `out`, or `out` itself resumed (refused when
    /// its config differs). `spec.concurrency` is not used.
    pub fn open(
        world: &dyn World,
        scenarios: &[(String, String)],
        spec: &RunSpec,
        out: &Path,
    ) -> Result<Driver> {
        // the roles as `escapade run` reads them before it opens the run directory
        let roles = players::roles_of(world, scenarios)?;
        let Opening {
            scenarios,
            opened,
            mine,
            jobs,
        } = open_run(world, scenarios, spec, out)?;
        let dir = opened.dir;
        let job = |&(i, epoch): &(usize, u32)| {
            let s = &scenarios[i];
            Job {
                world: world.name().to_string(),
                suite: s.label.to_string(),
                scenario: s.header.id.clone(),
                scenario_json: s.json.to_string(),
                epoch,
                seed: seed::derive(spec.seed, &s.header.id, u64::from(epoch)),
                max_steps: spec.max_steps,
                world_options: spec.world_options.clone(),
                config_hash: dir.config_hash().to_string(),
            }
        };
        let planned: BTreeMap<(String, u32), String> = mine
            .iter()
            .map(|&(i, e)| {
                let s = &scenarios[i];
                ((s.header.id.clone(), e), s.hash.clone())
            })
            .collect();
        let done = opened
            .finished
            .iter()
            .filter(|r| !r.retryable)
            .map(|r| (r.scenario.clone(), r.epoch))
            .filter(|k| planned.contains_key(k))
            .collect();
        let jobs: Vec<Job> = jobs.iter().map(job).collect();
        let cast = Cast {
            world: world.name().to_string(),
            roles,
            players: Players::of_spec(spec),
        };
        Ok(Driver {
            world: world.name().to_string(),
            cast,
            total: mine.len(),
            skipped: mine.len() - jobs.len(),
            jobs,
            planned,
            done,
            resumed: opened.resumed,
            warnings: opened.warnings,
            committed: 0,
            errors: 0,
            step_capped: 0,
            history_cut: false,
            dir,
        })
    }

    /// The run directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The config hash every row of the run carries.
    pub fn config_hash(&self) -> &str {
        self.dir.config_hash()
    }

    /// Who plays the run's jobs: what each [`Worker`] is made from.
    pub fn cast(&self) -> &Cast {
        &self.cast
    }

    /// The episodes not yet finished, in the order the runner would start them.
    pub fn pending(&self) -> Vec<&Job> {
        self.jobs
            .iter()
            .filter(|j| !self.done.contains(&(j.scenario.clone(), j.epoch)))
            .collect()
    }

    /// Warnings met while opening (a torn last line, a resumed run of another version).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Writes `record` into the run directory — its pictures, its trajectory file, then
    /// its row, as the runner does — unless its episode is already there
    /// ([`Commit::Duplicate`]). A record of another run, or of an episode this run does
    /// not hold, is [`RunError::BadRecord`] and writes nothing. A row with a retryable
    /// error is appended but does not finish its episode (resume plays it again).
    pub fn commit(&mut self, record: &Record) -> Result<Commit> {
        let row = &record.row;
        let bad = |message: String| Err(RunError::BadRecord { message });
        if row.config_hash != self.dir.config_hash() {
            return bad(format!(
                "episode {} epoch {} belongs to a run with config hash {}, not {}",
                row.scenario,
                row.epoch,
                row.config_hash,
                self.dir.config_hash()
            ));
        }
        let key = (row.scenario.clone(), row.epoch);
        match self.planned.get(&key) {
            None => {
                return bad(format!(
                    "episode {} epoch {} is not one of this run's",
                    row.scenario, row.epoch
                ));
            }
            Some(h) if *h != row.scenario_hash => {
                return bad(format!(
                    "episode {} epoch {} was played on another version of the scenario",
                    row.scenario, row.epoch
                ));
            }
            Some(_) => {}
        }
        if self.done.contains(&key) {
            return Ok(Commit::Duplicate);
        }
        // the steps are not parsed again: the driver is the one serial part of a
        // distributed run, and a record's bytes are framed (Record::from_bytes) and its
        // pictures' addresses computed from their bytes
        if !record.trajectory.is_empty() && !record.trajectory.ends_with(b"\n") {
            return bad("the trajectory does not end with a newline".into());
        }
        self.dir.store_images(&record.media)?;
        let mut trajectory = self.dir.trajectory(&row.scenario, row.epoch)?;
        trajectory.write_lines(&record.trajectory)?;
        trajectory.finish()?;
        self.dir.append_episode(row)?;
        // a checkpoint an interrupted `escapade run` left for this episode is spent
        self.dir.remove_checkpoint(&row.scenario, row.epoch)?;
        if !row.retryable {
            self.done.insert(key);
        }
        self.committed += 1;
        self.errors += usize::from(row.error.is_some());
        self.step_capped += usize::from(row.step_cap);
        self.history_cut |= record.history_cut;
        Ok(Commit::Recorded)
    }

    /// Removes the run directory this driver made when nothing was committed to it, and
    /// says whether it did: a run whose workers cannot make its agents (no API key, an
    /// unknown provider) leaves nothing behind, as `escapade run` leaves nothing when it
    /// cannot make them. A resumed directory, or one holding episodes, is kept.
    pub fn discard(self) -> Result<bool> {
        if self.resumed || self.committed > 0 {
            return Ok(false);
        }
        let path = self.dir.path().to_path_buf();
        drop(self.dir); // its lock first
        std::fs::remove_dir_all(&path)
            .map_err(|e| RunError::io("remove the unused run directory", &path, e))?;
        Ok(true)
    }

    /// Writes `summary.json` and `report.md` with `world`'s tiers and breakdowns (the
    /// run's world) and says what the run did, as [`crate::run`] does.
    /// [`RunSummary::unplayed`] counts the episodes no record was committed for.
    pub fn finish(self, world: &dyn World) -> Result<RunSummary> {
        if world.name() != self.world {
            return Err(RunError::invalid(
                "world",
                format!(
                    "the run is of world `{}`, not `{}`",
                    self.world,
                    world.name()
                ),
            ));
        }
        let unplayed = self.pending().len();
        let report = self.dir.write_summary(world)?;
        let mut warnings = self.warnings;
        if self.history_cut {
            warnings.push(crate::runner::history_cut_warning());
        }
        warnings.extend(report.warnings.iter().cloned());
        Ok(RunSummary {
            dir: self.dir.path().to_path_buf(),
            config_hash: self.dir.config_hash().to_string(),
            total: self.total,
            skipped: self.skipped,
            played: self.committed,
            errors: self.errors,
            step_capped: self.step_capped,
            resumed: self.resumed,
            unplayed,
            checkpointed: 0,
            continued: 0,
            halted: None,
            cost_cap: None,
            report,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn row() -> EpisodeRow {
        let text = r#"{"format_version":1,"suite":"s@1","scenario":"a","scenario_hash":"h","world":"w","difficulty":5,"epoch":0,"seed":1,"agent":"random","config_hash":"c","success":true,"steps":4,"metrics":{"m":0.5},"usage":{"input":0,"output":0,"cached":0,"cost_usd":0.0,"latency_ms":0},"duration_ms":3,"error":null}"#;
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn each_worker_gets_its_share_of_the_agents_and_the_experts_rate_limits() {
        let options = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let cast = Cast {
            world: "w".into(),
            roles: vec!["solver".into(), "expert".into()],
            players: Players {
                agent: "llm".into(),
                options: options(&[("model", "openai/x"), ("rpm", "60")]),
                expert: Some(("llm".into(), options(&[("tpm", "3")]))),
            },
        };
        let (shared, warnings) = cast.for_workers(4);
        assert_eq!(
            shared.players.options,
            options(&[("model", "openai/x"), ("rpm", "15")])
        );
        let expert = &shared.players.expert.as_ref().unwrap().1;
        assert_eq!(expert, &options(&[("tpm", "1")]));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("expert: tpm=3"), "{warnings:?}");
        // the driver's own cast is unchanged, and one worker takes it whole
        assert_eq!(cast.players.options["rpm"], "60");
        assert_eq!(cast.for_workers(1), (cast.clone(), vec![]));
    }

    proptest! {
        #[test]
        fn a_record_survives_its_bytes(
            trajectory in proptest::collection::vec(any::<u8>(), 0..300),
            media in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..4),
            cut in any::<bool>(),
        ) {
            let record = Record {
                row: row(),
                trajectory,
                media: media.into_iter().map(Image::from_png).collect(),
                history_cut: cut,
            };
            prop_assert_eq!(Record::from_bytes(&record.to_bytes()).unwrap(), record);
        }

        #[test]
        fn any_bytes_decode_or_fail_cleanly(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = Record::from_bytes(&bytes);
            let mut framed = RECORD_MAGIC.to_vec();
            framed.extend_from_slice(&bytes);
            if let Err(e) = Record::from_bytes(&framed) {
                let bad_record = matches!(e, RunError::BadRecord { .. });
                prop_assert!(bad_record, "{}", e);
            }
        }
    }
}
