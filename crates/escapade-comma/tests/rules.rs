//! Property tests of each puzzle's rules against an independent reading of COMMA App. A
//! (`../shared/papers/comma.md`).
//!
//! Every test builds random puzzles — from the puzzle's own seeded generator
//! (`generate(kind, seed)`) and, where the instance fields are simple, from random instance
//! JSON fed through `import` (edge cases included) — and plays them. At each state it
//! reads only what a solver could know (the `describe()` text, the `instance()` JSON for
//! what the solver is given privately, and the solver's own memory of what it pressed),
//! recomputes the right action(s) with rules written afresh in `rules/<puzzle>.rs` from the
//! paper's text (never calling or copying the crate's rule functions), and checks that
//! `correct_actions()` agrees, that acting on the answer advances or solves with no
//! mistake, that a wrong action is the mistake the manual says it is, and that progress
//! is what §4.2 and the crate's documented reading say and never goes back on a right
//! action.
//!
//! Where the crate documents a reconstruction of the original that differs from, or goes
//! beyond, the paper's text, the tests follow the documented choice and say so where they
//! do.

#[path = "rules/common.rs"]
mod common;

#[path = "rules/atm.rs"]
mod atm;
#[path = "rules/colour.rs"]
mod colour;
#[path = "rules/keypad.rs"]
mod keypad;
#[path = "rules/led.rs"]
mod led;
#[path = "rules/maze.rs"]
mod maze;
#[path = "rules/memory.rs"]
mod memory;
#[path = "rules/password.rs"]
mod password;
#[path = "rules/telehealth.rs"]
mod telehealth;
#[path = "rules/who.rs"]
mod who;
#[path = "rules/wire.rs"]
mod wire;
