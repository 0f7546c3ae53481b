//! Reading the original EscapeCraft's files.
//!
//! Why: the original's levels are the reference chains (Table 7 is one of them); reading
//! them lets the suite, the tests and users check that escapade plays the same puzzles.
//! [`level`] turns a level file into a [`Chain`](crate::chain::Chain) (passwords from a
//! seed, ids kept); [`scene_file`] reads the LEGENT scene files far enough for reference
//! statistics (the prefabs they name are Unity assets we do not have).

pub mod level; // level files: room.exit, room.items, story
pub mod scene_file; // LEGENT scene files: agent pose, room polygon, prefab poses

pub use level::{ImportedLevel, parse_level};
pub use scene_file::{SceneFile, parse_scene};
