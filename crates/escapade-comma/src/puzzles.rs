//! One module per puzzle, and the dispatch from a [`PuzzleKind`] to its module.
//!
//! Each module owns its rules (cited to COMMA App. A), its importer from the original's
//! instance fields, its seeded generator, its manual text (in our own words) and its
//! exact text description.

use serde_json::Value;

use crate::CommaError;
use crate::puzzle::{Puzzle, PuzzleKind, Rules};

pub mod atm; // AtmPuzzle
pub mod colour; // ColourPuzzle
pub mod keypad; // KeyPadPuzzle
pub mod led; // LedPuzzle
pub mod maze; // MazePuzzle
pub mod memory; // MemoryPuzzle
pub mod password; // PasswordPuzzle
pub mod telehealth; // TelehealthPuzzle
pub mod who; // WhoPuzzle
pub mod wire; // SimpleWirePuzzle

/// Correct actions [`crate::puzzle::remaining_of`] plays at most: far above any puzzle's
/// solution (a maze's longest path is a few tens of moves).
const REMAINING_LIMIT: usize = 10_000;

/// See [`crate::puzzle::import`].
pub fn import(
    kind: PuzzleKind,
    instance: &Value,
    seed: u64,
    rules: Rules,
) -> Result<Box<dyn Puzzle>, CommaError> {
    check_fields(kind, instance)?;
    match kind {
        PuzzleKind::Wire => Ok(Box::new(
            wire::Wire::import(instance)?.with_serial(rules.serial),
        )),
        PuzzleKind::Memory => Ok(Box::new(memory::Memory::import(
            instance,
            seed,
            rules.memory_labels,
        )?)),
        PuzzleKind::Led => Ok(Box::new(led::Led::import(instance, seed)?)),
        PuzzleKind::Keypad => Ok(Box::new(keypad::Keypad::import(instance)?)),
        PuzzleKind::Colour => Ok(Box::new(colour::Colour::import(instance, seed)?)),
        PuzzleKind::Who => Ok(Box::new(who::Who::import(instance)?)),
        PuzzleKind::Password => Ok(Box::new(password::Password::import(instance)?)),
        PuzzleKind::Maze => Ok(Box::new(maze::Maze::import(instance)?)),
        PuzzleKind::Atm => Ok(Box::new(atm::Atm::import(instance)?)),
        PuzzleKind::Telehealth => Ok(Box::new(telehealth::Telehealth::import(instance)?)),
    }
}

/// The instance fields each puzzle reads, in the original's names (its evaluation set,
/// `data/puzzles_final.json`, uses exactly these).
pub fn fields(kind: PuzzleKind) -> &'static [&'static str] {
    match kind {
        PuzzleKind::Wire => &["n_wires", "colors"],
        PuzzleKind::Memory => &["display_text", "labels"],
        PuzzleKind::Led => &["num_stages", "led_colors"],
        PuzzleKind::Keypad => &["strip_num", "image_nums"],
        PuzzleKind::Colour => &["colors"],
        PuzzleKind::Who => &["display_text", "button_texts"],
        PuzzleKind::Password => &["possible_words", "answer_word", "current_letters"],
        PuzzleKind::Maze => &["maze", "start_x", "start_y", "torus_color"],
        PuzzleKind::Atm => &["PIN", "Balance"],
        PuzzleKind::Telehealth => &["skin_lesion_idx", "record", "synthetic", "picture_png"],
    }
}

/// Refuses an instance that is not an object or has a field its puzzle does not read: a
/// misspelt field (`n_wire`) would otherwise be ignored without a word.
fn check_fields(kind: PuzzleKind, instance: &Value) -> Result<(), CommaError> {
    let obj = instance.as_object().ok_or_else(|| CommaError::Format {
        puzzle: kind.name(),
        field: None,
        reason: "the instance must be an object".into(),
    })?;
    let known = fields(kind);
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(CommaError::UnknownField {
            puzzle: kind.name(),
            field: k.clone(),
            known,
        }),
        None => Ok(()),
    }
}

/// Reads `field` of `instance`, if present, as a whole number in `expected`.
pub(crate) fn count_in(
    puzzle: &'static str,
    instance: &Value,
    field: &'static str,
    expected: std::ops::RangeInclusive<u64>,
) -> Result<Option<u64>, CommaError> {
    match instance.get(field) {
        None => Ok(None),
        Some(v) => match v.as_u64().filter(|n| expected.contains(n)) {
            Some(n) => Ok(Some(n)),
            None => Err(CommaError::OutOfRange {
                puzzle,
                field,
                value: v.to_string(),
                expected,
            }),
        },
    }
}

/// See [`crate::puzzle::generate`] (which derives `seed` from the kind first).
pub fn generate(kind: PuzzleKind, seed: u64) -> Result<Box<dyn Puzzle>, CommaError> {
    match kind {
        PuzzleKind::Wire => Ok(Box::new(wire::Wire::generate(seed))),
        PuzzleKind::Memory => Ok(Box::new(memory::Memory::generate(seed))),
        PuzzleKind::Led => Ok(Box::new(led::Led::generate(seed))),
        PuzzleKind::Keypad => Ok(Box::new(keypad::Keypad::generate(seed))),
        PuzzleKind::Colour => Ok(Box::new(colour::Colour::generate(seed))),
        PuzzleKind::Who => Ok(Box::new(who::Who::generate(seed))),
        PuzzleKind::Password => Ok(Box::new(password::Password::generate(seed))),
        PuzzleKind::Maze => Ok(Box::new(maze::Maze::generate(seed))),
        PuzzleKind::Atm => Ok(Box::new(atm::Atm::generate(seed))),
        PuzzleKind::Telehealth => Ok(Box::new(telehealth::Telehealth::generate(seed))),
    }
}

/// The expert's manual for `kind`, in our own words (COMMA App. A).
pub fn manual(kind: PuzzleKind) -> &'static str {
    match kind {
        PuzzleKind::Wire => wire::MANUAL,
        PuzzleKind::Memory => memory::MANUAL,
        PuzzleKind::Led => led::MANUAL,
        PuzzleKind::Keypad => keypad::MANUAL,
        PuzzleKind::Colour => colour::MANUAL,
        PuzzleKind::Who => who::MANUAL,
        PuzzleKind::Password => password::MANUAL,
        PuzzleKind::Maze => maze::MANUAL,
        PuzzleKind::Atm => atm::MANUAL,
        PuzzleKind::Telehealth => telehealth::MANUAL,
    }
}
