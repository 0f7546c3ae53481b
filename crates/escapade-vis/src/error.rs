//! Errors of the vis world.

use std::sync::Arc;

/// What can go wrong building or loading a room. A bad *agent* action is never an error:
/// it becomes feedback in the next observation.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum VisError {
    /// Occurs when a room file, or a file an import reads, is not valid JSON or TOML for
    /// its schema: `file` names it when the caller knows it, `error` is the parser's
    /// error.
    #[error("bad room file: {}{error}", in_file(file))]
    Format {
        /// The file (`mapping/wall_view/north.json`), if known.
        file: Option<String>,
        /// The parser's error (in the message, not the error chain, so that it is printed
        /// once).
        error: Arc<dyn std::error::Error + Send + Sync>,
    },
    /// Occurs when a dump of the original's rooms has a format version this reader does
    /// not know.
    #[error("bad room file: dump format {found} is not 1")]
    DumpFormat {
        /// The dump's `format`.
        found: u32,
    },
    /// Occurs when a room refers to something that does not exist, repeats an id, or
    /// breaks another rule of the room schema: `field` is the part of the room at fault
    /// (`receptacles`, `items`, `quizzes`, `interactions`, `exit`, `checkpoints`,
    /// `pictures`, …), `reason` names the id and what is wrong.
    #[error("invalid room: {reason}")]
    Invalid {
        /// The part of the room at fault (a top-level field of the room schema).
        field: &'static str,
        /// What is wrong, naming the id.
        reason: String,
    },
    /// Occurs when a bundled or named file fails to load; `error` says why.
    #[error("{file}: {error}")]
    InFile {
        /// The file (`rooms/kitchen.toml`).
        file: String,
        /// What went wrong in it (in the message, not the error chain, so that it is
        /// printed once).
        error: Box<VisError>,
    },
    /// Occurs when the oracle finds no way out of a room.
    #[error("room {room} cannot be escaped")]
    Unsolvable {
        /// The room's id.
        room: String,
    },
    /// Occurs when the oracle's search reaches its bound on states before finding a way
    /// out: the room is too large to verify, which is not the same as unsolvable.
    #[error(
        "the oracle's search of room {room} stopped at its limit of {states} states before \
         finding a way out: the room may still be escapable, but it is too large to verify"
    )]
    SearchLimit {
        /// The room's id.
        room: String,
        /// The bound that was reached.
        states: usize,
    },
    /// Occurs when the generator is asked for a size it does not make.
    #[error(
        "bad generator input: difficulty {difficulty} is not a size class (1 small, 2 medium, \
         3 large)"
    )]
    Difficulty {
        /// The difficulty asked for.
        difficulty: u32,
    },
    /// Occurs when no attempt of the generator gives a solvable, lint-clean room (a bug
    /// in the generator if it ever happens).
    #[error(
        "no clean room for difficulty {difficulty}, seed {seed} after {attempts} attempts ({last})"
    )]
    Generation {
        /// The difficulty asked for.
        difficulty: u32,
        /// The seed asked for.
        seed: u64,
        /// How many rooms were drawn.
        attempts: u64,
        /// What was wrong with the last one.
        last: String,
    },
    /// Occurs when a view to draw is not in the room (a state from another room).
    #[error("cannot render: view {view} is not in room {room}")]
    NoView {
        /// The view, as debug text.
        view: String,
        /// The room's id.
        room: String,
    },
    /// Occurs when drawing a view fails.
    #[error("cannot render: {0}")]
    Render(#[from] escapade_render::RenderError),
}

impl VisError {
    /// A parse failure of `file` (if known).
    pub fn format(
        file: Option<String>,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> VisError {
        VisError::Format {
            file,
            error: Arc::new(error),
        }
    }
}

/// `file: `, or nothing.
fn in_file(file: &Option<String>) -> String {
    file.as_ref().map(|f| format!("{f}: ")).unwrap_or_default()
}

impl From<VisError> for escapade_core::CoreError {
    fn from(e: VisError) -> Self {
        match e {
            e @ (VisError::Format { .. }
            | VisError::DumpFormat { .. }
            | VisError::Invalid { .. }
            | VisError::InFile { .. }) => escapade_core::CoreError::invalid_scenario(e),
            e @ VisError::SearchLimit { .. } => escapade_core::CoreError::world(e),
            other => escapade_core::CoreError::generation(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::Room;

    #[test]
    fn a_parse_failure_keeps_the_parser_error() {
        let e = Room::from_json("{\"world\": ").unwrap_err();
        let VisError::Format { file: None, error } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(e.to_string(), format!("bad room file: {error}"));
    }

    #[test]
    fn an_invalid_room_names_the_part_at_fault() {
        let mut room = crate::generator::generate(1, 1).unwrap();
        let twin = room.items[0].clone();
        room.items.push(twin);
        let e = Room::from_json(&room.to_json()).unwrap_err();
        assert!(
            matches!(&e, VisError::Invalid { field: "items", .. }),
            "{e:?}"
        );
        assert!(
            e.to_string().starts_with("invalid room: duplicate id `"),
            "{e}"
        );
    }

    #[test]
    fn the_world_hands_its_typed_error_through_core_error() {
        use escapade_core::{CoreError, Options, World};
        let mut room = crate::generator::generate(1, 1).unwrap();
        let twin = room.items[0].clone();
        room.items.push(twin);
        let world = crate::VisWorld::default();
        let Err(e) = world.env(&room.to_json(), &Options::new()) else {
            panic!("a room with a duplicate item opened");
        };
        assert!(matches!(e, CoreError::InvalidScenario(_)), "{e:?}");
        // a caller that knows the world reads the field at fault, not a message
        assert!(
            matches!(
                e.cause::<VisError>(),
                Some(VisError::Invalid { field: "items", .. })
            ),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("invalid scenario: invalid room: duplicate id `"),
            "{e}"
        );
        let Err(e) = world.generate(9, 1, &Options::new()) else {
            panic!("difficulty 9 generated");
        };
        assert!(
            matches!(
                e.cause::<VisError>(),
                Some(VisError::Difficulty { difficulty: 9 })
            ),
            "{e:?}"
        );
    }

    #[test]
    fn generation_errors_carry_the_difficulty() {
        let e = crate::generator::generate(9, 1).unwrap_err();
        assert!(matches!(e, VisError::Difficulty { difficulty: 9 }), "{e:?}");
    }
}
