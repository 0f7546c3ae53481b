//! The model harness's performance self-check (`escapade bench`).
//!
//! A zero-latency scripted model ([`escapade_llm::scripted`]) plays the harness's own
//! [`crate::counting`] world (a step costs next to nothing there) through the real loop — [`crate::run_async`], [`LlmFactory`], `LlmAgent`, the shared
//! `escapade_llm::Client` and a real run directory in a temporary folder — so every
//! figure is the cost of the harness itself, not of a model. Three checks:
//!
//! - **per step**: wall time of a run at concurrency 1 divided by its steps, beside the
//!   cost of stepping the same environments with the same actions directly; the
//!   difference is the harness's overhead (target: at most 1 ms per step in total);
//! - **throughput**: 1000 episodes (target: at most 60 s on 2 cores);
//! - **in flight**: 256 episodes at concurrency 256 with 10 ms per reply (target: every
//!   episode finishes without an error).
//!
//! Figures mean something only in release builds; [`BenchReport::release`] says which
//! build measured them. The run directories are deleted afterwards.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use escapade_agents::{LlmAgent, LlmConfig};
use escapade_core::{Action, CoreError, World};
use escapade_llm::scripted::{ScriptLine, ScriptReply, ScriptedBackend};
use escapade_llm::{Client, ClientOptions};
use serde::Serialize;

use crate::counting::{COUNT, Counting, CountingWorld};
use crate::error::{Result, RunError};
use crate::progress::Progress;
use crate::rundir::{EPISODES, read_episodes};
use crate::runner::{LlmFactory, RunSpec, run_async};

/// Target of the per-step check: total wall time per step, in milliseconds.
pub const TARGET_MS_PER_STEP: f64 = 1.0;
/// Target of the throughput check: wall time of the episodes, in seconds.
pub const TARGET_THROUGHPUT_S: f64 = 60.0;

/// What the scripted model answers, every turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchReply {
    /// `count`, a valid action.
    #[default]
    Count,
    /// A sentence the world cannot parse: each reply costs a step as `wrong_format`.
    Junk,
}

impl fmt::Display for BenchReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BenchReply::Count => COUNT,
            BenchReply::Junk => "junk",
        })
    }
}

/// The junk reply of [`BenchReply::Junk`].
pub const JUNK_REPLY: &str = "Let me think about this room for a moment.";

/// Settings of [`harness_benchmarks`]; `Default` gives the documented checks.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// Difficulty of the counting scenarios; 5 has a step budget of 35.
    pub difficulty: u32,
    /// Scenarios generated (seeds 1..=n); episodes cycle through them as epochs.
    pub scenarios: usize,
    /// What the scripted model answers.
    pub reply: BenchReply,
    /// Episodes of the per-step check (played one at a time).
    pub step_episodes: usize,
    /// Episodes of the throughput check.
    pub episodes: usize,
    /// Episodes in flight at once in the throughput check.
    pub concurrency: usize,
    /// Episodes of the in-flight check, all in flight at once.
    pub flight_episodes: usize,
    /// Simulated model latency per reply in the in-flight check, in milliseconds.
    pub flight_delay_ms: u64,
    /// Where the temporary run directories go (default: the system's temporary folder).
    pub temp_dir: Option<PathBuf>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            difficulty: 5,
            scenarios: 4,
            reply: BenchReply::Count,
            step_episodes: 100,
            episodes: 1000,
            concurrency: 8,
            flight_episodes: 256,
            flight_delay_ms: 10,
            temp_dir: None,
        }
    }
}

/// What one run of the harness did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunFigures {
    /// Episodes played.
    pub episodes: usize,
    /// Steps over all episodes (from `episodes.jsonl`).
    pub steps: u64,
    /// Episodes in flight at once.
    pub concurrency: usize,
    /// Episodes whose row has an error.
    pub errors: usize,
    /// Model requests that failed at the client (after its retries).
    pub client_failures: u64,
    /// Wall time of the whole run (run directory, episodes, summary), in seconds.
    pub wall_s: f64,
}

impl RunFigures {
    /// Wall time per step, in milliseconds (0 without steps).
    pub fn ms_per_step(&self) -> f64 {
        per(self.wall_s * 1e3, self.steps as f64)
    }

    /// Episodes finished per second.
    pub fn episodes_per_s(&self) -> f64 {
        per(self.episodes as f64, self.wall_s)
    }

    /// Steps taken per second.
    pub fn steps_per_s(&self) -> f64 {
        per(self.steps as f64, self.wall_s)
    }
}

/// The cost of stepping the environments directly, without agent or runner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnvFigures {
    /// Episodes played.
    pub episodes: usize,
    /// Steps over all episodes.
    pub steps: u64,
    /// Wall time of opening, resetting and stepping, in seconds.
    pub wall_s: f64,
}

impl EnvFigures {
    /// Wall time per step, in milliseconds (0 without steps).
    pub fn ms_per_step(&self) -> f64 {
        per(self.wall_s * 1e3, self.steps as f64)
    }
}

fn per(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// Check (a): the cost of one step, at concurrency 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepCheck {
    /// The run through the harness.
    pub run: RunFigures,
    /// The same episodes stepped directly.
    pub env: EnvFigures,
    /// Total wall time per step through the harness, in milliseconds.
    pub total_ms_per_step: f64,
    /// Environment-only time per step, in milliseconds.
    pub env_ms_per_step: f64,
    /// `total − env`, in milliseconds.
    pub overhead_ms_per_step: f64,
    /// Target for `total_ms_per_step`.
    pub target_ms_per_step: f64,
    /// Whether the target is met.
    pub pass: bool,
}

/// Check (b): many episodes of the zero-latency agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThroughputCheck {
    /// The run.
    pub run: RunFigures,
    /// Episodes per second.
    pub episodes_per_s: f64,
    /// Steps per second.
    pub steps_per_s: f64,
    /// Target for the run's wall time, in seconds.
    pub target_s: f64,
    /// Whether the target is met (and no episode failed).
    pub pass: bool,
}

/// Check (c): every episode in flight at once with a slow model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlightCheck {
    /// The run.
    pub run: RunFigures,
    /// Simulated latency per reply, in milliseconds.
    pub delay_ms: u64,
    /// The shortest possible wall time: one episode's replies back to back, in seconds.
    pub ideal_s: f64,
    /// Whether every episode finished without an error.
    pub pass: bool,
}

/// The results of [`harness_benchmarks`]: a table with `Display`, JSON with `Serialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    /// Whether the harness was compiled with optimizations (debug figures are not
    /// comparable with the targets).
    pub release: bool,
    /// Cores available to the process.
    pub cores: usize,
    /// The world played.
    pub world: String,
    /// Difficulty of its scenarios.
    pub difficulty: u32,
    /// Scenarios played (as epochs of each other).
    pub scenarios: usize,
    /// Step budget of the scenarios (every episode is truncated there).
    pub step_budget: u32,
    /// What the scripted model answered.
    pub reply: BenchReply,
    /// Check (a).
    pub per_step: StepCheck,
    /// Check (b).
    pub throughput: ThroughputCheck,
    /// Check (c).
    pub in_flight: FlightCheck,
}

impl BenchReport {
    /// Whether every check met its target.
    pub fn passed(&self) -> bool {
        self.per_step.pass && self.throughput.pass && self.in_flight.pass
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "model harness: {} world, difficulty {} (budget {} steps), {} scenario(s), \
             scripted model replying `{}`, {} build, {} core(s)",
            self.world,
            self.difficulty,
            self.step_budget,
            self.scenarios,
            self.reply,
            if self.release { "release" } else { "DEBUG" },
            self.cores
        )?;
        let (a, b, c) = (&self.per_step, &self.throughput, &self.in_flight);
        let ok = |pass: bool| if pass { "ok" } else { "MISSED" };
        let rows: Vec<[String; 4]> = vec![
            [
                format!(
                    "per step, total ({} episodes, {} steps, concurrency 1)",
                    a.run.episodes, a.run.steps
                ),
                format!("{:.3} ms", a.total_ms_per_step),
                format!("<= {} ms", a.target_ms_per_step),
                ok(a.pass).into(),
            ],
            [
                "  environment only".into(),
                format!("{:.3} ms", a.env_ms_per_step),
                String::new(),
                String::new(),
            ],
            [
                "  harness overhead (total - env)".into(),
                format!("{:.3} ms", a.overhead_ms_per_step),
                String::new(),
                String::new(),
            ],
            [
                format!(
                    "{} episodes (concurrency {})",
                    b.run.episodes, b.run.concurrency
                ),
                format!("{:.2} s", b.run.wall_s),
                format!("<= {} s", b.target_s),
                ok(b.pass).into(),
            ],
            [
                "  episodes/s".into(),
                format!("{:.1}", b.episodes_per_s),
                String::new(),
                String::new(),
            ],
            [
                "  steps/s".into(),
                format!("{:.0}", b.steps_per_s),
                String::new(),
                String::new(),
            ],
            [
                format!(
                    "{} episodes in flight ({} ms per reply)",
                    c.run.episodes, c.delay_ms
                ),
                format!("{} error(s)", c.run.errors),
                "0 errors".into(),
                ok(c.pass).into(),
            ],
            [
                format!("  wall time (ideal {:.2} s)", c.ideal_s),
                format!("{:.2} s", c.run.wall_s),
                String::new(),
                String::new(),
            ],
        ];
        let header = [
            "check".to_string(),
            "measured".into(),
            "target".into(),
            "".into(),
        ];
        let mut width = [0usize; 3];
        for row in std::iter::once(&header).chain(&rows) {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&header).chain(&rows) {
            let line = format!(
                "{:<w0$}  {:>w1$}  {:<w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = width[0],
                w1 = width[1],
                w2 = width[2]
            );
            writeln!(f, "{}", line.trim_end())?;
        }
        if !self.release {
            writeln!(
                f,
                "warning: a debug build; run `escapade bench` from a release build to compare with the targets"
            )?;
        }
        Ok(())
    }
}

/// The fixture every check shares: the counting world, its bench scenarios and the
/// scripted model's replies. The criterion benches (`benches/harness.rs`) use it too.
pub struct HarnessBench {
    world: CountingWorld,
    difficulty: u32,
    scenarios: Vec<(String, String)>,
    replies: Vec<String>,
    reply: BenchReply,
    step_budget: u32,
}

/// Suite label of the bench scenarios in run directories.
const LABEL: &str = "bench";

impl HarnessBench {
    /// Generates `scenarios` counting scenarios of `difficulty` (seeds `1..=scenarios`)
    /// and the replies of `reply`.
    pub fn new(difficulty: u32, scenarios: usize, reply: BenchReply) -> Result<Self> {
        if scenarios == 0 {
            return Err(RunError::invalid(
                "scenarios",
                "the bench needs at least 1 scenario",
            ));
        }
        let world = CountingWorld;
        let mut jsons = Vec::new();
        let mut step_budget = 0;
        for seed in 1..=scenarios as u64 {
            step_budget = step_budget.max(Counting::new(difficulty, seed)?.step_budget);
            let json = world.generate(difficulty, seed, &escapade_core::Options::new())?;
            jsons.push((LABEL.to_string(), json));
        }
        let replies = match reply {
            BenchReply::Count => vec![COUNT.to_string()],
            BenchReply::Junk => vec![JUNK_REPLY.to_string()],
        };
        Ok(HarnessBench {
            world,
            difficulty,
            scenarios: jsons,
            replies,
            reply,
            step_budget,
        })
    }

    /// The world (counting).
    pub fn world(&self) -> &dyn World {
        &self.world
    }

    /// The scenarios as `(suite label, JSON)`, as [`crate::run_async`] takes them.
    pub fn scenarios(&self) -> &[(String, String)] {
        &self.scenarios
    }

    /// The scripted model's replies, in the order it gives them (cycling).
    pub fn replies(&self) -> &[String] {
        &self.replies
    }

    /// The largest step budget of the scenarios: steps per episode, since none ends
    /// before it.
    pub fn step_budget(&self) -> u32 {
        self.step_budget
    }

    /// A client over a fresh scripted backend answering [`Self::replies`] after
    /// `delay_ms`, allowing `concurrency` requests at once.
    pub fn client(&self, delay_ms: u64, concurrency: usize) -> Result<Client> {
        let lines = self
            .replies
            .iter()
            .map(|text| {
                ScriptLine::Reply(ScriptReply {
                    text: Some(text.clone()),
                    delay_ms,
                    ..ScriptReply::default()
                })
            })
            .collect();
        let backend = ScriptedBackend::from_lines(self.model(), lines).map_err(|error| {
            RunError::Backend {
                model: self.model(),
                error,
            }
        })?;
        let options = ClientOptions {
            concurrency: concurrency.max(1),
            ..ClientOptions::default()
        };
        Ok(Client::new(Arc::new(backend), &options))
    }

    /// The model agents' settings (the defaults of a `scripted/…` model: full history,
    /// text protocol, delta request logs).
    pub fn config(&self) -> Result<LlmConfig> {
        LlmConfig::from_options(&self.model(), &BTreeMap::new()).map_err(|error| RunError::Agent {
            context: "bench agent".into(),
            error,
        })
    }

    /// A model agent over [`Self::client`] (zero latency), for measuring it alone.
    pub fn agent(&self) -> Result<LlmAgent> {
        Ok(LlmAgent::new(self.config()?, self.client(0, 1)?))
    }

    fn model(&self) -> String {
        format!("scripted/bench-{}", self.difficulty)
    }

    /// Plays at least `episodes` episodes (whole epochs over the scenarios) at
    /// `concurrency` into a new run directory under `out`, with `delay_ms` per reply, and
    /// counts what the run wrote.
    pub async fn run(
        &self,
        episodes: usize,
        concurrency: usize,
        delay_ms: u64,
        out: &Path,
    ) -> Result<RunFigures> {
        let n = self.scenarios.len();
        let epochs = episodes.max(1).div_ceil(n);
        let epochs = u32::try_from(epochs).map_err(|_| {
            RunError::invalid("episodes", format!("too many bench episodes: {episodes}"))
        })?;
        let agents = LlmFactory::new(self.config()?, self.client(delay_ms, concurrency)?);
        let mut agent_options = BTreeMap::new();
        agent_options.insert("model".to_string(), self.model());
        let spec = RunSpec {
            agent: "llm".into(),
            agent_options,
            epochs,
            concurrency: concurrency.max(1),
            source: format!("bench:counting-d{}-x{n}", self.difficulty),
            ..RunSpec::default()
        };
        let start = Instant::now();
        let summary = run_async(
            &self.world,
            &self.scenarios,
            &spec,
            &agents,
            out,
            Progress::quiet(),
        )
        .await?;
        let wall = start.elapsed();
        let rows = read_episodes(&summary.dir.join(EPISODES))?.rows;
        Ok(RunFigures {
            episodes: rows.len(),
            steps: rows.iter().map(|r| u64::from(r.steps)).sum(),
            concurrency: spec.concurrency,
            errors: rows.iter().filter(|r| r.error.is_some()).count(),
            client_failures: agents.client().stats().failures,
            wall_s: wall.as_secs_f64(),
        })
    }

    /// Plays the episodes of [`Self::run`] at concurrency 1 on the environments alone:
    /// open, reset and step with the replies in the order the shared script hands them
    /// out, with no agent, runner or run directory.
    pub fn env_only(&self, episodes: usize) -> Result<EnvFigures> {
        let n = self.scenarios.len();
        let played = episodes.max(1).div_ceil(n) * n;
        let actions: Vec<Action> = self.replies.iter().map(Action::text).collect();
        let cap = u64::from(self.step_budget) + 1;
        let mut cursor = 0usize;
        let mut steps = 0u64;
        let start = Instant::now();
        for k in 0..played {
            // the runner's job order: epoch by epoch, scenarios in order within each
            let mut env = self
                .world
                .env(&self.scenarios[k % n].1, &escapade_core::Options::new())?;
            env.reset(k as u64);
            for _ in 0..cap {
                let step = env.step(&actions[cursor % actions.len()]);
                cursor += 1;
                let step = step.map_err(CoreError::from)?;
                steps += 1;
                if step.terminated || step.truncated {
                    break;
                }
            }
        }
        Ok(EnvFigures {
            episodes: played,
            steps,
            wall_s: start.elapsed().as_secs_f64(),
        })
    }
}

/// The processor time this process has used so far (user and system, every thread,
/// those that have ended too), in milliseconds, from `/proc/self/stat` (Linux; its
/// clock ticks are 1/100 s). `None` elsewhere. Summed over many frames the tick
/// rounding evens out; it tells a busy machine (wall time well above it) from a slow
/// frame.
pub fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the fields after the command name, which is in parentheses and may hold spaces
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

/// What a world's bench may ask of this system ([`escapade_core::bench::Probe`]).
pub fn probe() -> escapade_core::bench::Probe {
    escapade_core::bench::Probe { cpu_ms }
}

/// Runs the bench of the world named `name` among `worlds` (`escapade bench <world>`).
///
/// # Errors
/// [`RunError::Invalid`] for a name no world has, or a world without a bench; the
/// world's own error when its bench fails.
pub fn world_bench(worlds: &[&dyn World], name: &str) -> Result<escapade_core::bench::BenchReport> {
    let Some(world) = worlds.iter().find(|w| w.name() == name) else {
        let known = std::iter::once("harness").chain(worlds.iter().map(|w| w.name()));
        return Err(RunError::unknown("benchmark", name, known));
    };
    match world.bench(&probe()) {
        Some(report) => Ok(report?),
        None => Err(RunError::invalid(
            "world",
            format!("world `{name}` has no bench; `escapade bench harness` measures the harness"),
        )),
    }
}

/// Runs the three checks (see the module docs) on a runtime of its own and reports the
/// figures. Run directories go to a temporary folder that is removed afterwards. `Err`
/// only when the bench cannot be set up or a run directory cannot be written; episodes
/// that fail are counted in the report.
pub fn harness_benchmarks(options: &BenchOptions) -> Result<BenchReport> {
    for (name, value) in [
        ("scenarios", options.scenarios),
        ("step episodes", options.step_episodes),
        ("episodes", options.episodes),
        ("concurrency", options.concurrency),
        ("in-flight episodes", options.flight_episodes),
    ] {
        if value == 0 {
            return Err(RunError::invalid(
                name,
                format!("bench {name} must be at least 1"),
            ));
        }
    }
    let bench = HarnessBench::new(options.difficulty, options.scenarios, options.reply)?;
    let parent = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let temp = tempfile::Builder::new()
        .prefix("escapade-bench-")
        .tempdir_in(&parent)
        .map_err(|e| RunError::io("cannot create a temporary folder in", &parent, e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::io("cannot start the async runtime", temp.path(), e))?;

    // (a) one episode at a time, then the same episodes on the environments alone
    let step_run = runtime.block_on(bench.run(options.step_episodes, 1, 0, temp.path()))?;
    let env = bench.env_only(options.step_episodes)?;
    let total_ms = step_run.ms_per_step();
    let env_ms = env.ms_per_step();
    let per_step = StepCheck {
        total_ms_per_step: total_ms,
        env_ms_per_step: env_ms,
        overhead_ms_per_step: total_ms - env_ms,
        target_ms_per_step: TARGET_MS_PER_STEP,
        pass: step_run.errors == 0 && total_ms <= TARGET_MS_PER_STEP,
        run: step_run,
        env,
    };

    // (b) many zero-latency episodes
    let run = runtime.block_on(bench.run(options.episodes, options.concurrency, 0, temp.path()))?;
    let throughput = ThroughputCheck {
        episodes_per_s: run.episodes_per_s(),
        steps_per_s: run.steps_per_s(),
        target_s: TARGET_THROUGHPUT_S,
        pass: run.errors == 0 && run.wall_s <= TARGET_THROUGHPUT_S,
        run,
    };

    // (c) every episode in flight at once, each reply taking `flight_delay_ms`
    let delay = options.flight_delay_ms;
    let flight = options.flight_episodes;
    let run = runtime.block_on(bench.run(flight, flight, delay, temp.path()))?;
    let ideal = Duration::from_millis(delay) * bench.step_budget();
    let expected = flight.div_ceil(options.scenarios) * options.scenarios;
    let in_flight = FlightCheck {
        delay_ms: delay,
        ideal_s: ideal.as_secs_f64(),
        pass: run.errors == 0 && run.client_failures == 0 && run.episodes == expected,
        run,
    };

    drop(runtime);
    temp.close()
        .map_err(|e| RunError::io("cannot remove the temporary folder", &parent, e))?;
    Ok(BenchReport {
        release: !cfg!(debug_assertions),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        world: bench.world.name().to_string(),
        difficulty: options.difficulty,
        scenarios: options.scenarios,
        step_budget: bench.step_budget(),
        reply: bench.reply,
        per_step,
        throughput,
        in_flight,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_bench_plays_every_check_and_cleans_up() {
        let parent = tempfile::tempdir().expect("temp dir");
        let options = BenchOptions {
            scenarios: 2,
            step_episodes: 2,
            episodes: 3,
            concurrency: 2,
            flight_episodes: 4,
            flight_delay_ms: 1,
            temp_dir: Some(parent.path().to_path_buf()),
            ..BenchOptions::default()
        };
        let report = harness_benchmarks(&options).expect("bench runs");
        assert_eq!(report.step_budget, 35);
        assert_eq!(report.per_step.run.episodes, 2);
        assert_eq!(report.per_step.run.steps, 70);
        assert_eq!(report.per_step.env.steps, 70);
        assert_eq!(report.throughput.run.episodes, 4);
        assert_eq!(report.in_flight.run.episodes, 4);
        assert_eq!(report.in_flight.run.errors, 0);
        assert!(report.in_flight.pass);
        let table = report.to_string();
        assert!(table.contains("per step, total"), "{table}");
        let json = serde_json::to_value(&report).expect("serializes");
        assert_eq!(json["reply"], "count");
        assert_eq!(
            std::fs::read_dir(parent.path()).expect("readable").count(),
            0,
            "run directories are removed"
        );
    }

    #[test]
    fn a_world_bench_is_found_by_name_and_a_world_without_one_says_so() {
        let counting = CountingWorld;
        let worlds: [&dyn World; 1] = [&counting];
        let e = world_bench(&worlds, "nope").unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("harness, counting"), "{e}");
        let e = world_bench(&worlds, "counting").unwrap_err().to_string();
        assert!(e.contains("world `counting` has no bench"), "{e}");
    }

    #[test]
    fn junk_replies_are_truncated_at_the_budget() {
        let bench = HarnessBench::new(5, 1, BenchReply::Junk).expect("bench");
        assert_eq!(bench.replies(), [JUNK_REPLY]);
        let env = bench.env_only(1).expect("steps");
        assert_eq!(env.steps, u64::from(bench.step_budget()));
    }
}
