//! Errors of the craft world.
//!
//! One enum for the whole crate so callers can match on what went wrong; a bad *agent*
//! action is never an error here (the environment turns it into feedback).

use std::sync::Arc;

/// What can go wrong building, importing or validating a craft scenario.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CraftError {
    /// Occurs when a scenario, level or scene file is not valid JSON for its format;
    /// `error` is the parser's error.
    #[error("bad file: {file}: {error}")]
    Parse {
        /// What the text should have been (`craft scenario`, `level file`, `scene file`).
        file: &'static str,
        /// The parser's error (in the message, not the error chain, so that it is printed
        /// once).
        error: Arc<serde_json::Error>,
    },
    /// Occurs when a level file parses but says something the format does not allow (an
    /// unknown item or lock type, a lock without its opener's id, a note naming no
    /// password).
    #[error("bad file: {part}: {reason}")]
    Level {
        /// The part of the level at fault (`item `box1``, `the exit`).
        part: String,
        /// What is wrong.
        reason: String,
    },
    /// Occurs when a prop chain or a scenario breaks a rule: a dangling reference, a
    /// cycle, a lock nothing opens, a prop nobody can reach, a repeated id, a room
    /// without its exit. `room` is the room at fault (0 the first) when the rule is one
    /// room's.
    #[error("invalid prop chain: {reason}")]
    InvalidChain {
        /// The room at fault, if one is.
        room: Option<usize>,
        /// The rule broken, naming the props.
        reason: String,
    },
    /// Occurs when a chain is asked for a length its order cannot have (0 hops, or
    /// fewer than the order's minimum).
    #[error("bad generator input: {reason}")]
    Hops {
        /// The hops asked for.
        hops: u32,
        /// What the order needs.
        reason: String,
    },
    /// Occurs when a scenario is asked for a difficulty its variant does not make.
    #[error("bad generator input: {reason}")]
    Difficulty {
        /// The difficulty asked for.
        difficulty: u32,
        /// What the variant takes.
        reason: String,
    },
    /// Occurs when a variant name is not one of the generator's.
    #[error("bad generator input: unknown variant `{name}`; known: {known}")]
    UnknownVariant {
        /// The name given.
        name: String,
        /// The known names.
        known: String,
    },
    /// Occurs when no attempt of the room generator produced a layout that passes its own
    /// checks (a bug in the generator if it ever happens).
    #[error(
        "layout failed: no playable room for seed {seed} after {attempts} attempts (last: {last})"
    )]
    Layout {
        /// The room's seed.
        seed: u64,
        /// How many layouts were tried.
        attempts: u64,
        /// Why the last one failed.
        last: String,
    },
    /// Occurs when a room index or an id given to a lookup does not exist.
    #[error("no such {what}: {name}")]
    Unknown {
        /// What kind of thing was asked for (room, prop).
        what: &'static str,
        /// The index or id given.
        name: String,
    },
    /// Occurs when drawing a texture with the 2D canvas fails.
    #[error("cannot render: {0}")]
    Render(#[from] escapade_render::RenderError),
}

impl From<CraftError> for escapade_core::CoreError {
    fn from(e: CraftError) -> Self {
        match e {
            e @ (CraftError::Parse { .. }
            | CraftError::Level { .. }
            | CraftError::InvalidChain { .. }) => escapade_core::CoreError::invalid_scenario(e),
            other => escapade_core::CoreError::generation(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CraftScenario, Variant, generate};

    #[test]
    fn a_parse_failure_keeps_the_parser_error() {
        let e = CraftScenario::from_json("{\"world\": ").unwrap_err();
        let CraftError::Parse {
            file: "craft scenario",
            error,
        } = &e
        else {
            panic!("{e:?}")
        };
        assert!(error.is_eof(), "{error}");
        assert_eq!(e.to_string(), format!("bad file: craft scenario: {error}"));
    }

    #[test]
    fn a_rule_of_one_room_names_the_room() {
        let mut s = generate(2, 3, Variant::Standard).unwrap();
        s.rooms[0].props.clear();
        let e = CraftScenario::from_json(&s.to_json()).unwrap_err();
        assert!(
            matches!(&e, CraftError::InvalidChain { room: Some(0), .. }),
            "{e:?}"
        );
    }

    #[test]
    fn generator_inputs_carry_the_value_asked_for() {
        let e = generate(1, 0, Variant::TwoKey).unwrap_err();
        assert!(
            matches!(e, CraftError::Difficulty { difficulty: 1, .. }),
            "{e:?}"
        );
        let e = Variant::parse("spiral").unwrap_err();
        assert!(matches!(&e, CraftError::UnknownVariant { name, .. } if name == "spiral"));
    }
}
