//! The contracts every escapade world, agent and runner share.
//!
//! escapade is an arena where agents try to escape rooms drawn from four published
//! benchmarks. This crate holds only the vocabulary and the contracts: a **world** makes
//! **scenarios** and plays them through the [`Env`] trait (Gymnasium semantics); an
//! **agent** ([`Agent`]) picks [`Action`]s from [`Observation`]s; one play is an
//! **episode**, recorded as [`StepRow`]s and an [`EpisodeRow`]; a **run** is a suite ×
//! agent × epochs; a **report** aggregates runs with [`metrics::MeanSe`]. It does no I/O:
//! files, processes and networks live in `escapade-run` and the binary.
//!
//! Start reading at [`Env`]: `reset(seed)` gives the first observation, `step(action)`
//! the next one with `terminated` (the task ended) and `truncated` (a limit stopped it).
//! A [`World`] is the registry entry of one family of rules: eight required methods
//! (suites, `generate`, `env` and `agent` with the run's [`Options`]) and optional
//! pieces with defaults — its report ([`report::ReportSpec`]), judge tasks
//! ([`judge::JudgeTask`]), bench ([`bench::BenchReport`]). The runner and the binary
//! name no world; `docs/world-contract.md` adds a fifth.
//!
//! ```
//! use escapade_core::{Action, Env, Observation, Outcome, Step, ToolSchema};
//! # #[derive(Default)]
//! # struct Door { open: bool }
//! # impl Env for Door {
//! #     fn reset(&mut self, _seed: u64) -> Observation { *self = Door::default(); Observation::text("A shut door.") }
//! #     fn step(&mut self, action: &Action) -> Result<Step, escapade_core::EnvError> {
//! #         self.open = *action == Action::text("open door");
//! #         Ok(Step { observation: Observation::text("The door."), feedback: "ok".into(),
//! #                   terminated: self.open, ..Step::default() })
//! #     }
//! #     fn system_prompt(&self) -> String { "Get out.".into() }
//! #     fn tool_schemas(&self) -> Vec<ToolSchema> { Vec::new() }
//! #     fn outcome(&self) -> Outcome { Outcome { success: self.open, ..Outcome::default() } }
//! #     fn secrets(&self) -> Vec<String> { Vec::new() }
//! # }
//! let mut env = Door::default(); // any world's environment, from `World::env`
//! let first = env.reset(7);
//! assert_eq!(first.text, "A shut door.");
//! let step = env.step(&Action::text("open door"))?;
//! assert!(step.terminated && !step.truncated);
//! assert!(env.outcome().success);
//! # Ok::<(), escapade_core::EnvError>(())
//! ```
#![deny(missing_docs)]

pub mod action; // what an agent sends: free text, a function call, or raw bytes
pub mod agent; // the Agent trait, what an episode's start gives it and what one turn produces
pub mod bench; // what `escapade bench <world>` reports: rows of timings against targets
pub mod check; // check_env: the conformance checker every world runs over its suite
pub mod env; // the Env contract (reset/step), Step, and the World registry trait
pub mod error; // CoreError and EnvError
pub mod hash; // stable content hashes of canonical JSON
pub mod judge; // judge tasks: what a model labels in agents' words, and the rows it writes
pub mod metrics; // mean ± standard error and rates
pub mod observation; // Observation, Image, ToolSchema
pub mod options; // world options (-W key=value) and their typed errors
pub mod paper; // a paper's results tables as data: models, settings, values beside a run's
pub mod report; // what a world adds to its report: tier labels, breakdowns, the turn curve
pub mod reward; // the reward a trainer sees: progress, sparse or the oracle's distance
pub mod scenario; // the scenario header every world's scenario file carries
pub mod seed; // seeded ChaCha RNGs and seed derivation
pub mod trajectory; // the run-directory row types (step rows, episode rows, usage)

pub use action::{Action, FunctionCall};
pub use agent::{Agent, AgentTurn, EpisodeStart};
pub use env::{ActionResult, Env, Outcome, Step, World};
pub use error::{Cause, CoreError, EnvError};
pub use observation::{Image, Observation, PictureForm, Pixels, ToolSchema};
pub use options::Options;
pub use scenario::ScenarioHeader;
pub use trajectory::{Checkpoint, EpisodeRow, FORMAT_VERSION, Origin, Reask, StepRow, Usage};
