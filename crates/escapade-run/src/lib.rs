//! The escapade runner: suites, run directories, resume, and reports.
//!
//! It composes a world (`escapade_core::World`) with agents: [`build_suite`] verifies a
//! suite with the oracle, [`run`] plays scenario × epoch episodes into a run directory
//! ([`RunDir`], the documented log format), and [`report()`] turns run directories into
//! mean ± standard error tables; [`judge()`] has a model label what agents wrote
//! (LLM-as-judge metrics). It holds no world rules and no model backends. Start reading
//! at [`runner`].
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let row = r#"{"format_version":1,"suite":"s@1","scenario":"a","scenario_hash":"h","world":"counting","difficulty":5,"epoch":0,"seed":1,"agent":"random","config_hash":"c","success":true,"steps":4,"metrics":{},"usage":{"input":0,"output":0,"cached":0,"cost_usd":0.0,"latency_ms":0},"duration_ms":3,"error":null}"#;
//! std::fs::write(dir.path().join("episodes.jsonl"), format!("{row}\n"))?;
//! let report = escapade_run::report(&[dir.path().to_path_buf()], &[])?;
//! assert_eq!(report.groups[0].metrics["success"].mean, 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod bench; // the harness's performance self-check (`escapade bench harness`), a world's bench, the system probe
pub mod beside; // the paper's reference values beside a run's, and whether it reproduces them
pub mod checkpoint; // an episode interrupted at a step boundary, and how resume replays it to go on
pub mod counting; // the harness bench's own small world (not in the registry)
pub mod distributed; // a run's episodes played by workers anywhere and committed once (Ray)
pub mod ending; // how an episode ended: escaped, out of budget, gave up, unreadable reply, error
pub mod error; // RunError, the one error type of this crate
pub mod estimate; // what a run would cost, played against a stand-in that counts tokens
pub mod export; // recorded episodes rebuilt as training data: SFT chat JSONL, DPO pairs, Parquet
pub mod judge; // LLM-as-judge metrics (reasoning units, COMMA errors, MM-Escape intent and debriefing) into <run-dir>/judge/
pub mod paired; // two runs compared on the scenarios both played: McNemar, paired bootstrap
pub mod play; // a person plays one scenario in the terminal
pub mod players; // who plays a run: agent flags read into players, and the agent factory made from them
pub mod plots; // the papers' figures from one or more runs, as SVG and PNG
pub mod profile; // a model's headline score on each world, normalised between random and oracle
pub mod progress; // progress bars and warnings on standard error
pub mod remote; // an episode played from outside one action at a time: the core of the servers
pub mod replay; // recorded steps played again into a fresh environment: resume and fork share it
pub mod report; // mean ± se and 95 % interval tables over episodes.jsonl, as JSON, CSV and Markdown
pub mod rundir; // the run directory: run.toml, episodes, trajectories, media, summaries
pub mod runner; // plays scenario × epoch episodes with agents into a run directory
pub mod settings; // a suite's paper settings applied to a run, and departures from them
pub mod show; // a scenario's first view (prompts, observation, pictures) written to a folder
pub mod signals; // SIGINT, SIGTERM and SIGHUP: the signals that stop a command, alike
pub mod source; // suite name, scenario file or directory → the scenarios to play
pub mod stats; // bootstrap intervals over scenarios, pass@k and pass^k, McNemar's exact test
pub mod suite; // builds and verifies suites, writes them to disk

pub use error::RunError;
pub use judge::{JudgeSpec, Judgement, judge};
pub use play::{Partner, PlayOptions, Reasks, play_person, play_terminal, play_terminal_with};
pub use plots::{PlotFormat, write_plots};
pub use progress::Progress;
pub use report::{Format, Report, report};
pub use rundir::{RunConfig, RunDir};
pub use runner::{
    AgentFactory, Baseline, LlmFactory, RunSpec, RunSummary, Stop, TeamFactory, run, run_async,
    run_async_until,
};
pub use show::show;
pub use source::{Source, resolve};
pub use suite::{SuiteBuild, build_suite, write_suite};
