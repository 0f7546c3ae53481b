//! One module per puzzle, and the dispatch from a [`PuzzleKind`] to its module.
//!
//! Each module owns its rules (cited to COMMA App. A), its importer from the original's
//! instance fields, its seeded generator, its manual text (in our own words) and its
//! exact text description.

use serde_json::Value;

use crate::CommaError;
use crate::puzzle::{Puzzle, PuzzleKind};

pub mod wire; // SimpleWirePuzzle

/// See [`crate::puzzle::import`].
pub fn import(
    kind: PuzzleKind,
    instance: &Value,
    seed: u64,
) -> Result<Box<dyn Puzzle>, CommaError> {
    let _ = seed;
    match kind {
        PuzzleKind::Wire => Ok(Box::new(wire::Wire::import(instance)?)),
        other => Err(CommaError::Invalid(format!(
            "{} is not implemented yet",
            other.name()
        ))),
    }
}

/// See [`crate::puzzle::generate`].
pub fn generate(kind: PuzzleKind, seed: u64) -> Result<Box<dyn Puzzle>, CommaError> {
    match kind {
        PuzzleKind::Wire => Ok(Box::new(wire::Wire::generate(seed))),
        other => Err(CommaError::Invalid(format!(
            "{} is not implemented yet",
            other.name()
        ))),
    }
}

/// The expert's manual for `kind`, in our own words (COMMA App. A).
pub fn manual(kind: PuzzleKind) -> &'static str {
    match kind {
        PuzzleKind::Wire => wire::MANUAL,
        _ => "",
    }
}
