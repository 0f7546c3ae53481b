//! The `comma` world: COMMA's ten two-agent puzzles for escapade.
//!
//! A solver sees a puzzle (a picture or its exact description) and a list of actions; an
//! expert reads a manual and never sees the puzzle; they talk until the solver succeeds,
//! runs out of turns, or makes three mistakes (COMMA §3–§4). This crate holds the puzzles
//! themselves — rules, importers for the original's instances, seeded generators, manuals
//! in our own words — behind one trait, [`Puzzle`]. It does no I/O. Start reading at
//! [`puzzle`].
//!
//! ```
//! use escapade_comma::puzzle::{PuzzleKind, import};
//! let p = import(PuzzleKind::Wire, &serde_json::json!({"n_wires": 3, "colors": ["blue", "white", "black"]}), 0).unwrap();
//! assert_eq!(p.correct_actions(), vec!["cut_wire_2".to_string()]);
//! ```
#![deny(missing_docs)]

pub mod bench; // escapade bench comma: puzzle step, picture, suite build
pub mod env; // CommaEnv: the solver-expert protocol around any puzzle
pub mod error; // CommaError
pub mod judge; // COMMA §5.2: the error-type judge
mod pictures; // the solver's pictures, drawn once per distinct drawing and shared
pub mod puzzle; // the Puzzle trait, the ten kinds, import and generate
pub mod puzzles; // one module per puzzle
pub mod reader; // the talking oracle pair: an expert that knows only the solver's words
mod render; // the solver's screen as a PNG, one function per puzzle
pub mod world; // CommaWorld: scenarios, comma@4 and comma-gen@3, options, the baseline pairs

pub use env::CommaEnv;
pub use error::CommaError;
pub use puzzle::{Puzzle, PuzzleKind};
pub use world::CommaWorld;
