//! The `craft` world: MM-Escape's EscapeCraft rooms for escapade, playable end to end.
//!
//! A [`CraftScenario`] is one game: one furnished 3D room (or two joined by a door) with a
//! prop chain of keys, boxes, notes, passwords and wall patterns that ends at the exit
//! (MM-Escape §3.3, App. C). This crate makes scenarios from `(difficulty, seed, variant)`,
//! imports the original's level files, builds the `mm-escape@3` suite, and plays it:
//! [`CraftEnv`] reads the paper's JSON actions (Table 13), moves the agent with
//! collisions, acts on what lies under the red dot, and shows first-person frames from
//! the ray caster; the oracle and random baselines and the registry entry
//! [`CraftWorld`] sit on top. It does no I/O and is not a renderer (that is
//! `escapade-render`). Start reading at [`chain`], then [`scenario`], then [`env`].
//!
//! ```
//! use escapade_craft::scenario::{generate, Variant};
//! let s = generate(3, 7, Variant::NoteFirst).unwrap();
//! assert_eq!(s.difficulty, 3);
//! assert_eq!(s.plan().unwrap().len(), 4); // grab, read, enter the password, use the key
//! ```
#![deny(missing_docs)]

pub mod action; // reading a reply into a Table 13 action object
pub mod art; // canvas-drawn pictures for rooms: paintings, rugs, a clock face, screens
pub mod baseline; // the oracle and the seeded random player
pub mod bench; // escapade bench craft: frames, PNG, env steps, suite build
pub mod chain; // the prop chain: props, locks, validation, the oracle's sub-goals
pub mod env; // CraftEnv: the rules, observations, step caps
pub mod error; // CraftError
pub mod furniture; // the furniture catalogue, built from primitives
pub mod geom; // floor rectangles, boxes, a ray–box test
pub mod importer; // the original's level and scene files
pub mod interface; // the interface: the system prompt, the step prompt, the function schema
pub mod judge; // MM-Escape §5.3-5.4: the intent and debriefing judges
pub mod layout; // the room generator and its floor and visibility checks
pub mod motion; // the agent's body: turning and walking with collisions
pub mod multi; // two rooms joined by a door
pub mod room; // a furnished room as plain data
pub mod scenario; // CraftScenario: the file format, generate, from_level
pub mod scene; // a room in a state as a 3D scene; object ids back to things
pub mod story; // background story templates
pub mod suite; // mm-escape@3 and its statistics
pub mod tally; // per-episode counters and the metrics made from them
pub mod world; // CraftWorld: the registry entry

pub use chain::{Chain, Prop, PropKind, Subgoal, Unlock};
pub use env::{CraftEnv, EnvOptions, GrabRule};
pub use error::CraftError;
pub use room::Room;
pub use scenario::{CraftScenario, Variant};
pub use scene::{Thing, WorldState};
pub use world::CraftWorld;
