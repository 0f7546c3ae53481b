//! The `tools` world: AgentEscapeBench (Guo et al., 2026) in escapade.
//!
//! A scenario is a DAG of tools, items, containers and one terminal, grown backwards
//! from the terminal (App. A.2), seeded and executed forward with real functions (A.4–A.5)
//! and dressed in one of eight narrative themes (A.6). The agent investigates nodes,
//! calls tools with parameters, watches containers drop hidden nodes, and submits the
//! terminal's output (§3.1, App. B). Not here: model backends and run directories.
//!
//! Start reading at [`env::ToolsEnv`]; the templates are in [`library`].
//!
//! ```
//! use escapade_tools::interface::{parse, ToolsAction};
//! let a = parse(&escapade_core::Action::text("investigate N123")).unwrap();
//! assert_eq!(a, ToolsAction::Investigate { node: "N123".into() });
//! ```
#![deny(missing_docs)]

pub mod baseline; // the oracle (minimum tool calls) and random baselines
pub mod clue; // themed clues (A.6) and the literal ones of `-W clues=literal`
pub mod env; // ToolsEnv: the Env implementation and the episode metrics
mod error; // ToolsError
pub mod files; // the scenario's files (zip, csv, json, graphs), written by their consumers
pub mod generator; // Algorithm 1, seeding, forward execution, assembly
pub mod interface; // the interface: text and function-call parsing, the B.1 error taxonomy
pub mod library; // the 54 templates and their real deterministic functions
pub mod narrative; // the eight themes (A.6)
pub mod render; // prompts, listings, node details and function schemas
#[allow(unsafe_code)] // fork, rlimits and waits: each block has its SAFETY comment
pub mod sandbox; // the sandboxed Python executor behind the CodeRunner trait
pub mod scenario; // the scenario file format
pub mod template; // Template, PortSpec, NodeKind: the template vocabulary
pub mod validate; // final validation of a scenario (A.6)
pub mod value; // port types and canonical value forms
mod world; // ToolsWorld: the registry entry and the agentescape@2 suite

pub use env::ToolsEnv;
pub use error::ToolsError;
pub use scenario::ToolsScenario;
pub use world::{AGENTESCAPE_V1, AGENTESCAPE_V2, ToolsWorld, suite_settings};
