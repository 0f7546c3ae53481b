//! Errors of the comma world.

/// What can go wrong loading or making a puzzle. A bad *agent* action is never an error:
/// it becomes feedback (and, when the manual says so, a mistake).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CommaError {
    /// Occurs when a puzzle instance does not fit the puzzle's schema: `field` names the
    /// field at fault when one does (`led_colors`), `reason` says what it must be.
    #[error("bad puzzle instance: {puzzle}: {}{reason}", quoted(field))]
    Format {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// The field at fault, if one is.
        field: Option<&'static str>,
        /// What is wrong, or what the field must be.
        reason: String,
    },
    /// Occurs when a screen given to a puzzle (`trace[].obs` of the original-answers
    /// fixture) does not describe a screen of that puzzle, or the puzzle has none.
    #[error("bad puzzle instance: {puzzle} screen: {reason}")]
    Screen {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// What is wrong with the screen.
        reason: String,
    },
    /// Occurs when PAD-UFES-20's `metadata.csv` (Telehealth's records) cannot be read:
    /// no header, no `diagnostic` column, or a row (`line`, counted from 1) that does
    /// not fit.
    #[error("bad puzzle instance: metadata.csv{}: {reason}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Metadata {
        /// The line at fault; `None` for the file as a whole.
        line: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// Occurs when a Telehealth instance's `record` is not a record of the dataset's
    /// metadata (a field of the wrong kind).
    #[error("bad puzzle instance: telehealth: record: {error}")]
    Record {
        /// The parser's error (in the message, not the error chain, so that it is printed
        /// once).
        error: std::sync::Arc<serde_json::Error>,
    },
    /// Occurs when a puzzle name is not one of the ten.
    #[error("unknown puzzle `{name}`; known: {known}")]
    UnknownPuzzle {
        /// The name given.
        name: String,
        /// The known names.
        known: String,
    },
    /// Occurs when an instance has a field its puzzle does not read (a misspelt name).
    #[error("{puzzle}: unknown field `{field}`; the puzzle reads {}", known.join(", "))]
    UnknownField {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// The field given.
        field: String,
        /// The fields the puzzle reads.
        known: &'static [&'static str],
    },
    /// Occurs when a numeric field of an instance is not a whole number in its range.
    #[error("{puzzle}: `{field}` must be a whole number from {} to {}, not {value}", expected.start(), expected.end())]
    OutOfRange {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// The field.
        field: &'static str,
        /// The value given, as JSON text.
        value: String,
        /// The range the field must be in.
        expected: std::ops::RangeInclusive<u64>,
    },
    /// Occurs when an instance is well formed but cannot be played (no solution).
    #[error("invalid puzzle: {puzzle}: {reason}")]
    Invalid {
        /// The puzzle's short name.
        puzzle: &'static str,
        /// Why it cannot be played.
        reason: String,
    },
    /// Occurs when a picture is asked of a puzzle that shows none.
    #[error("{puzzle} has no picture")]
    NoPicture {
        /// The puzzle's short name.
        puzzle: &'static str,
    },
    /// Occurs when drawing a puzzle's picture fails.
    #[error("cannot draw the picture: {0}")]
    Render(#[from] escapade_render::RenderError),
}

/// `` `field` `` and a space, or nothing.
fn quoted(field: &Option<&'static str>) -> String {
    field.map(|f| format!("`{f}` ")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{PuzzleKind, Rules};
    use serde_json::json;

    fn import(kind: PuzzleKind, instance: serde_json::Value) -> CommaError {
        match crate::puzzles::import(kind, &instance, 1, Rules::default()) {
            Err(e) => e,
            Ok(_) => panic!("{instance} was accepted"),
        }
    }

    #[test]
    fn a_bad_field_is_named_for_the_caller_and_in_the_message() {
        let e = import(PuzzleKind::Wire, json!({"colors": "red"}));
        assert!(
            matches!(
                &e,
                CommaError::Format {
                    puzzle: "wire",
                    field: Some("colors"),
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "bad puzzle instance: wire: `colors` must be a list"
        );
    }

    #[test]
    fn a_record_that_does_not_parse_keeps_the_parse_error() {
        let record =
            json!({"record": {"diagnostic": "BCC", "colour": "red"}, "skin_lesion_idx": 1});
        let e = import(PuzzleKind::Telehealth, record);
        let CommaError::Record { error } = &e else {
            panic!("{e:?}")
        };
        assert!(error.to_string().contains("colour"), "{error}");
        assert!(
            e.to_string()
                .starts_with("bad puzzle instance: telehealth: record: "),
            "{e}"
        );
    }
}
