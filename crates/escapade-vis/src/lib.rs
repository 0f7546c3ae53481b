//! The `vis` world: VisEscape's escape rooms for escapade.
//!
//! A room ([`Room`]) is plain data: four walls, receptacles with state machines, items,
//! visual quizzes, interactions guarded by rules, checkpoints with hints and the exit
//! (VisEscape §3, App. B.4). [`Game`] compiles it into the game graph every part shares:
//! the environment ([`VisEnv`]), the oracle's breadth-first search, the validator and
//! the generator. Views (wall → receptacle → item, App. B.2) are drawn as PNGs with
//! `escapade-render` and described in exact text for text-only models. This crate does
//! no I/O. Start reading at [`room`], then [`game`].
//!
//! ```
//! use escapade_vis::{Game, generator, oracle};
//! let room = generator::generate(1, 7).unwrap();
//! let game = Game::new(room).unwrap();
//! let solution = oracle::solve(&game).unwrap();
//! assert!(!solution.moves.is_empty());
//! ```
#![deny(missing_docs)]

pub mod baseline; // the oracle and random baselines
pub mod bench; // escapade bench vis: env step, view drawing, suite build
pub mod describe; // exact text descriptions of views (image alt text)
pub mod env; // VisEnv: observations, parsing, limits, hints, metrics
pub mod error; // VisError
pub mod game; // the game graph: state, available moves, effects
pub mod generator; // rooms from a seed and a size (App. B.4 constraints)
pub mod import; // VisEscape's own rooms, from a dump of a user's copy
pub mod interface; // the interface: instructions, reply parsing, function schemas
pub mod judge; // VisEscape §6.2: the reasoning judge
pub mod options; // -W options: departures from the paper's protocol
pub mod oracle; // shortest solution by breadth-first search
pub mod pictures; // imported pictures per view and state
pub mod prompt; // the paper's step and retry prompts, the original's action names
pub mod quiz; // visual quizzes: kinds, seeded content, answers
pub mod quiztask; // the quiz-only evaluation (App. C.2)
pub mod render; // views drawn as PNG
pub mod room; // the room format (plain data, JSON or TOML)
pub mod suite; // the rooms of visescape@4 and their statistics
pub mod text; // small text helpers
pub mod validate; // structure checks and the author's lint
pub mod world; // VisWorld: the registry entry

pub use env::VisEnv;
pub use error::VisError;
pub use game::{Game, Move, State, View};
pub use options::Options;
pub use room::Room;
pub use world::VisWorld;
