//! The native half of `escapade.ray`: a run's episodes played by Ray workers and
//! written into one ordinary run directory by the driver.
//!
//! Thin over [`escapade_run::distributed`]: [`RunDriver`] plans a run as `escapade run`
//! does (the source resolved, the agent flags read and the suite's paper settings
//! applied by [`escapade_run::players`], the same `run.toml` and config hash, resume) and
//! commits the records workers send back, each episode once; a [`Worker`] is what a
//! worker process holds (the run's agents, made once) and plays jobs with; [`play_job`]
//! plays one job with a baseline; [`run_local`] is the single-process runner (`escapade
//! run` itself), for comparisons and benchmarks. The GIL is released while Rust plans,
//! plays and writes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use escapade_core::World;
use escapade_run::distributed::{Cast, Commit, Driver, Job, Record, play_job as play};
use escapade_run::players::{self, AgentFlags, Players};
use escapade_run::rundir::{RunConfig, read_run_toml};
use escapade_run::runner::DEFAULT_MAX_STEPS;
use escapade_run::{Baseline, Progress, RunSpec, RunSummary};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::catalog::{registry, world};
use crate::error::{EscapadeError, to_py};

/// Adds the Ray functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RunDriver>()?;
    m.add_class::<Worker>()?;
    m.add_function(wrap_pyfunction!(play_job, m)?)?;
    m.add_function(wrap_pyfunction!(run_local, m)?)?;
    Ok(())
}

/// A run planned: its world, its `(suite label, scenario JSON)` list, its spec and who
/// plays it.
struct Plan {
    world: &'static dyn World,
    scenarios: Vec<(String, String)>,
    spec: RunSpec,
    players: Players,
}

/// The agent flags of `escapade run` as keyword arguments: `agent` (`--agent`), `model`,
/// `agent_options` (`-A` pairs), `base_url`, `expert`, `expert_model`, `expert_options`
/// (`-E` pairs).
#[derive(Default)]
struct Flags {
    model: Option<String>,
    agent_options: Option<Vec<String>>,
    base_url: Option<String>,
    expert: Option<String>,
    expert_model: Option<String>,
    expert_options: Option<Vec<String>>,
}

/// The plan of `escapade run <source> --agent <agent> [--model …] [-A …] [--expert …]
/// [-W …] [--epochs] [--limit] [--seed] [--max-steps]`: the same spec, hence the same
/// `run.toml` and config hash. The players are checked here, before any worker starts.
#[allow(clippy::too_many_arguments)]
fn plan(
    source: &str,
    agent: &str,
    flags: Flags,
    world_options: BTreeMap<String, String>,
    epochs: Option<u32>,
    limit: Option<usize>,
    seed: u64,
    max_steps: Option<u32>,
) -> PyResult<Plan> {
    let source = escapade_run::resolve(registry()?, source).map_err(to_py)?;
    // the suite's paper settings are the defaults; what the user gave wins
    let players = AgentFlags {
        agent: agent.to_string(),
        model: flags.model,
        options: flags.agent_options.unwrap_or_default(),
        base_url: flags.base_url,
        expert: flags.expert,
        expert_model: flags.expert_model,
        expert_options: flags.expert_options.unwrap_or_default(),
    }
    .players(&source.settings)
    .map_err(to_py)?;
    let roles = players::roles_of(source.world, &source.scenarios).map_err(to_py)?;
    players::check(source.world, &roles, &players).map_err(to_py)?;
    let world_options = world_options
        .into_iter()
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let spec = players.clone().into_spec(RunSpec {
        world_options,
        epochs: escapade_run::settings::epochs(&source.settings, epochs),
        suite_settings: source.settings.clone(),
        limit,
        seed,
        max_steps: max_steps.unwrap_or(DEFAULT_MAX_STEPS),
        source: source.origin.clone(),
        ..RunSpec::default()
    });
    Ok(Plan {
        world: source.world,
        scenarios: source.scenarios,
        spec,
        players,
    })
}

/// The baseline `agent` of `world` (a two-role world's own pair plays both roles).
fn baseline(world: &dyn World, agent: &str) -> PyResult<Baseline> {
    if !world.agent_kinds().contains(&agent) {
        return Err(EscapadeError::new_err(format!(
            "play_job plays the world's baseline agents ({}), not `{agent}`; a Worker made \
             from RunDriver.cast plays any agent",
            world.agent_kinds().join(", ")
        )));
    }
    Baseline::new(world, agent).map_err(to_py)
}

/// A run's config from its run directory, for resuming it.
fn config_of(dir: &str) -> PyResult<RunConfig> {
    Ok(read_run_toml(&PathBuf::from(dir)).map_err(to_py)?.config)
}

/// What a finished run did, as a dict: `dir`, `config_hash`, `total`, `skipped`, `played`,
/// `errors`, `resumed`, `unplayed`, `warnings`, and `summary` (the report as JSON text).
fn summary_dict<'py>(py: Python<'py>, s: &RunSummary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("dir", s.dir.display().to_string())?;
    d.set_item("config_hash", &s.config_hash)?;
    d.set_item("total", s.total)?;
    d.set_item("skipped", s.skipped)?;
    d.set_item("played", s.played)?;
    d.set_item("errors", s.errors)?;
    d.set_item("resumed", s.resumed)?;
    d.set_item("unplayed", s.unplayed)?;
    d.set_item("warnings", s.warnings.clone())?;
    d.set_item(
        "summary",
        s.report.render(escapade_run::Format::Json).to_string(),
    )?;
    Ok(d)
}

/// The driver of a distributed run: holds its run directory (and its lock) for its life,
/// hands out the episodes still to play as jobs, commits what workers send back.
#[pyclass(module = "escapade._escapade")]
pub struct RunDriver {
    driver: Option<Driver>,
    world: &'static dyn World,
    agent: String,
}

impl RunDriver {
    fn driver(&self) -> PyResult<&Driver> {
        self.driver.as_ref().ok_or_else(finished)
    }

    fn driver_mut(&mut self) -> PyResult<&mut Driver> {
        self.driver.as_mut().ok_or_else(finished)
    }

    /// The driver, taken out: the run ends with this call.
    fn take_driver(&mut self) -> PyResult<Driver> {
        self.driver.take().ok_or_else(finished)
    }
}

/// The error of a call on a driver whose run has ended (`finish`, `discard`).
fn finished() -> PyErr {
    EscapadeError::new_err("the run is finished")
}

/// Commits one record's bytes: whether it was written (not there already).
fn commit_bytes(driver: &mut Driver, bytes: &[u8]) -> PyResult<bool> {
    let record = Record::from_bytes(bytes).map_err(to_py)?;
    Ok(driver.commit(&record).map_err(to_py)? == Commit::Recorded)
}

#[pymethods]
impl RunDriver {
    /// Plans the run of `source` (suite name, scenario file or directory) by `agent`
    /// (a baseline or a model agent, with `escapade run`'s agent flags) as `escapade run`
    /// does and opens its run directory: a new one under `out`, or `out` itself resumed
    /// when it is a run directory of the same config.
    #[new]
    #[pyo3(signature = (source, agent = "random", *, model = None, agent_options = None, base_url = None, expert = None, expert_model = None, expert_options = None, out = PathBuf::from("runs"), epochs = None, limit = None, seed = 0, max_steps = None, world_options = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        source: &str,
        agent: &str,
        model: Option<String>,
        agent_options: Option<Vec<String>>,
        base_url: Option<String>,
        expert: Option<String>,
        expert_model: Option<String>,
        expert_options: Option<Vec<String>>,
        out: PathBuf,
        epochs: Option<u32>,
        limit: Option<usize>,
        seed: u64,
        max_steps: Option<u32>,
        world_options: Option<BTreeMap<String, String>>,
    ) -> PyResult<Self> {
        let flags = Flags {
            model,
            agent_options,
            base_url,
            expert,
            expert_model,
            expert_options,
        };
        py.detach(|| {
            let Plan {
                world,
                scenarios,
                spec,
                ..
            } = plan(
                source,
                agent,
                flags,
                world_options.unwrap_or_default(),
                epochs,
                limit,
                seed,
                max_steps,
            )?;
            let driver = Driver::open(world, &scenarios, &spec, &out).map_err(to_py)?;
            Ok(RunDriver {
                driver: Some(driver),
                world,
                agent: agent.to_string(),
            })
        })
    }

    /// Reopens the run directory `dir` with the config it was made with, as
    /// `escapade resume` does.
    #[staticmethod]
    fn resume(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        py.detach(|| {
            let config = config_of(&dir.display().to_string())?;
            let source = escapade_run::resolve(registry()?, &config.source).map_err(to_py)?;
            if source.world.name() != config.world {
                return Err(EscapadeError::new_err(format!(
                    "`{}` now holds scenarios of world `{}`, but the run was of world `{}`",
                    config.source,
                    source.world.name(),
                    config.world
                )));
            }
            let spec = RunSpec::from_config(&config, 1);
            let driver =
                Driver::open(source.world, &source.scenarios, &spec, &dir).map_err(to_py)?;
            Ok(RunDriver {
                driver: Some(driver),
                world: source.world,
                agent: config.agent.clone(),
            })
        })
    }

    /// The run directory.
    #[getter]
    fn path(&self) -> PyResult<String> {
        Ok(self.driver()?.path().display().to_string())
    }

    /// The run's config hash (every row carries it).
    #[getter]
    fn config_hash(&self) -> PyResult<String> {
        Ok(self.driver()?.config_hash().to_string())
    }

    /// The world that plays the run.
    #[getter]
    fn world(&self) -> &'static str {
        self.world.name()
    }

    /// The agent spec (`--agent`).
    #[getter]
    fn agent(&self) -> String {
        self.agent.clone()
    }

    /// Who plays the run, as JSON: what each [`Worker`] is made from (the world, its
    /// roles, the agents and their options as `run.toml` records them; no API key).
    #[getter]
    fn cast(&self) -> PyResult<String> {
        Ok(self.driver()?.cast().to_json())
    }

    /// The cast each of `workers` workers is made from: the agents' rate limits (`rpm`,
    /// `tpm`) split among them, since the provider counts every worker's requests. The
    /// cast's JSON and the warnings of a limit too small to split.
    fn cast_for(&self, workers: u32) -> PyResult<(String, Vec<String>)> {
        let (cast, warnings) = self.driver()?.cast().for_workers(workers);
        Ok((cast.to_json(), warnings))
    }

    /// Warnings met while opening the run directory.
    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        Ok(self.driver()?.warnings().to_vec())
    }

    /// The episodes not finished yet, as job texts (JSON) for [`play_job`], in the
    /// order `escapade run` starts them.
    fn pending(&self) -> PyResult<Vec<String>> {
        Ok(self
            .driver()?
            .pending()
            .into_iter()
            .map(Job::to_json)
            .collect())
    }

    /// Writes a record from [`play_job`] into the run directory: `True` when written,
    /// `False` when its episode was already there (a retried task's second answer).
    /// A record of another run or episode raises and writes nothing.
    fn commit(&mut self, py: Python<'_>, record: &[u8]) -> PyResult<bool> {
        let driver = self.driver_mut()?;
        py.detach(|| commit_bytes(driver, record))
    }

    /// Writes records from [`Worker::play`] (see [`RunDriver::commit`]) with one
    /// release of the GIL; returns how many were written (the rest were there already).
    fn commit_all(&mut self, py: Python<'_>, records: Vec<Vec<u8>>) -> PyResult<usize> {
        let driver = self.driver_mut()?;
        py.detach(|| {
            let mut written = 0;
            for bytes in &records {
                written += usize::from(commit_bytes(driver, bytes)?);
            }
            Ok(written)
        })
    }

    /// Ends the run without a summary, removing its run directory when this driver made
    /// it and nothing was committed (the run could not start); returns whether it was
    /// removed. A resumed directory, or one holding episodes, is kept as it is.
    fn discard(&mut self, py: Python<'_>) -> PyResult<bool> {
        let driver = self.take_driver()?;
        py.detach(|| driver.discard()).map_err(to_py)
    }

    /// Writes `summary.json` and `report.md`, releases the run directory, and returns
    /// what the run did (see [`summary_dict`]); `unplayed` counts episodes with no record.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let driver = self.take_driver()?;
        let world = self.world;
        let summary = py.detach(|| driver.finish(world)).map_err(to_py)?;
        summary_dict(py, &summary)
    }
}

/// What a worker process holds: the run's agents made from a cast (`RunDriver.cast`)
/// once — a model agent's backend opened once, its client reused by every job — with an
/// async runtime and a scratch directory, and plays jobs (`RunDriver.pending`) one after
/// the other.
#[pyclass(module = "escapade._escapade")]
pub struct Worker {
    worker: escapade_run::distributed::Worker<'static>,
}

#[pymethods]
impl Worker {
    /// Makes the agents of `cast` as `escapade run` makes them. A model agent's API key
    /// is read from this process's environment.
    #[new]
    fn new(py: Python<'_>, cast: &str) -> PyResult<Self> {
        py.detach(|| {
            let cast = Cast::from_json(cast).map_err(to_py)?;
            let world = world(&cast.world)?;
            let worker = escapade_run::distributed::Worker::new(world, &cast).map_err(to_py)?;
            Ok(Worker { worker })
        })
    }

    /// The agent's name in episode rows (`oracle`, `llm:openai/gpt-4o`).
    #[getter]
    fn agent(&self) -> String {
        self.worker.agent()
    }

    /// The scratch directory episodes are recorded in before they are sent back; it is
    /// removed when the worker is dropped.
    #[getter]
    fn scratch(&self) -> String {
        self.worker.scratch().display().to_string()
    }

    /// Plays `jobs` one after the other; their records as bytes for `RunDriver.commit`,
    /// in order.
    fn play<'py>(&mut self, py: Python<'py>, jobs: Vec<String>) -> PyResult<Bound<'py, PyList>> {
        let worker = &mut self.worker;
        let records = py.detach(|| {
            jobs.iter()
                .map(|job| {
                    let job = Job::from_json(job).map_err(to_py)?;
                    Ok(worker.play(&job).map_err(to_py)?.to_bytes())
                })
                .collect::<PyResult<Vec<Vec<u8>>>>()
        })?;
        PyList::new(py, records.iter().map(|r| PyBytes::new(py, r)))
    }
}

/// Plays one job (a text from `RunDriver.pending`) with the world's baseline `agent`,
/// wherever this is called, and returns its record as bytes for `RunDriver.commit`.
#[pyfunction]
fn play_job<'py>(py: Python<'py>, agent: &str, job: &str) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(|| {
        let job = Job::from_json(job).map_err(to_py)?;
        let world = world(&job.world)?;
        let agents = baseline(world, agent)?;
        let record = play(world, &agents, &job).map_err(to_py)?;
        Ok::<_, PyErr>(record.to_bytes())
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The single-process runner (what `escapade run` calls) on the same plan as
/// `RunDriver`, with the same agent flags: for comparing results and speed with a
/// distributed run.
#[pyfunction]
#[pyo3(signature = (source, agent = "random", *, model = None, agent_options = None, base_url = None, expert = None, expert_model = None, expert_options = None, out = PathBuf::from("runs"), epochs = None, limit = None, seed = 0, max_steps = None, world_options = None, concurrency = 1))]
#[allow(clippy::too_many_arguments)]
fn run_local<'py>(
    py: Python<'py>,
    source: &str,
    agent: &str,
    model: Option<String>,
    agent_options: Option<Vec<String>>,
    base_url: Option<String>,
    expert: Option<String>,
    expert_model: Option<String>,
    expert_options: Option<Vec<String>>,
    out: PathBuf,
    epochs: Option<u32>,
    limit: Option<usize>,
    seed: u64,
    max_steps: Option<u32>,
    world_options: Option<BTreeMap<String, String>>,
    concurrency: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let flags = Flags {
        model,
        agent_options,
        base_url,
        expert,
        expert_model,
        expert_options,
    };
    let summary = py.detach(|| {
        let Plan {
            world,
            scenarios,
            mut spec,
            players,
        } = plan(
            source,
            agent,
            flags,
            world_options.unwrap_or_default(),
            epochs,
            limit,
            seed,
            max_steps,
        )?;
        spec.concurrency = concurrency;
        // as `escapade run`: a multi-threaded runtime, the agents made on it
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(to_py)?;
        runtime.block_on(async {
            let roles = players::roles_of(world, &scenarios).map_err(to_py)?;
            let agents = players::agents(world, &roles, &players)
                .await
                .map_err(to_py)?;
            escapade_run::run_async(
                world,
                &scenarios,
                &spec,
                agents.as_ref(),
                &out,
                Progress::quiet(),
            )
            .await
            .map_err(to_py)
        })
    })?;
    summary_dict(py, &summary)
}
