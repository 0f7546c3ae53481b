//! What escapade's tests share, so that each is written once: golden files and a toy world.
//!
//! Not for use outside tests: every crate takes it as a dev-dependency only (it is not
//! published). Start with [`golden::check`] (compare bytes with a file kept in the
//! repository, rewrite it with `ESCAPADE_BLESS=1`) and [`counter::CounterWorld`] (send `inc`
//! until the count reaches the target; its scenario fields switch on the faults a
//! runner or a checker must survive).
//!
//! ```
//! use escapade_core::{Action, Env, World};
//! use escapade_testkit::counter::{CounterWorld, scenario};
//!
//! let mut env = CounterWorld
//!     .env(&scenario("c0", 1).json(), &Default::default())
//!     .unwrap();
//! env.reset(0);
//! assert!(env.step(&Action::text("inc")).unwrap().terminated);
//! escapade_core::check::check_env(&mut *env, 0, &[Action::text("junk")]).unwrap();
//! ```
#![deny(missing_docs)]

pub mod counter; // CounterWorld: a toy world, with switchable faults and scripted agents
pub mod golden; // golden files: compare, rewrite with ESCAPADE_BLESS=1, say what differs
pub mod oracle; // the winning moves of a scenario, for tests that play through a client
pub mod paper; // a world's paper tables checked number by number against the paper's text
pub mod venv; // the project's Python environment, for tests with real Python clients
