//! Checks a world's paper tables ([`escapade_core::paper::Paper`]) against the paper's
//! text: every number must be found where the paper prints it.
//!
//! Why a check of its own: the tables are typed in by hand from `papers/*.md`, and a
//! digit slipped or a column shifted would put a wrong reference beside every run. So a
//! row's cells, in column order (each `x ± y` as two numbers, each `-` as a dash), must
//! be the numbers that follow the row's label in the paper — at some place where the
//! label starts a word — or, for values the paper quotes in its running text, lie in the
//! quoted words, which the paper must contain verbatim. Markup (`<b>`, `<u>`) and
//! decorations (`%`, `±`, arrows, brackets) are not numbers and are skipped.
//!
//! The papers live in the project's `shared/papers/` folder beside the repository (or
//! where `$ESCAPADE_PAPERS` points). Where it is missing the check is skipped with a
//! note — except under `CI=true`, where its absence fails the test.

use std::path::{Path, PathBuf};

use escapade_core::paper::Paper;

/// The folder of the papers' text: `$ESCAPADE_PAPERS`, else the first `shared/papers`
/// found walking up from this crate.
pub fn papers_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ESCAPADE_PAPERS") {
        return Some(PathBuf::from(dir));
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/papers"))
        .find(|p| p.is_dir())
}

/// The text with markup removed and every run of white space made one space.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            _ => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The words of normalised text with decorations removed: `(↑15.0)` is `15.0`,
/// `45.1%;` is `45.1`, a lone `±` or arrow is nothing.
pub fn tokens(text: &str) -> Vec<String> {
    const EDGES: &str = "()↑↓→%;:,±[]";
    text.split(' ')
        .filter_map(|word| {
            let t: String = word
                .trim_matches(|c| EDGES.contains(c))
                .chars()
                .filter(|c| !"↑↓→±".contains(*c))
                .collect();
            (!t.is_empty()).then_some(t)
        })
        .collect()
}

/// The numbers a row's cells should show, in order.
fn expected(cells: &[Option<String>]) -> Vec<String> {
    cells
        .iter()
        .flatten()
        .flat_map(|c| {
            c.split('±')
                .map(|part| part.trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether `want` are the first tokens after some occurrence of `label` in `text` that
/// starts a word.
fn follows(text: &str, label: &str, want: &[String]) -> bool {
    text.match_indices(label).any(|(i, _)| {
        let starts_word = i == 0 || text[..i].ends_with(' ');
        starts_word && tokens(&text[i + label.len()..]).starts_with(want)
    })
}

/// Every cell of `paper` that its paper's text does not show where the table says, as
/// `source, row: what`; empty when all are found.
pub fn missing(paper: &Paper, text: &str) -> Vec<String> {
    let text = normalise(text);
    let mut out = Vec::new();
    for table in &paper.tables {
        for row in &table.rows {
            let want = expected(&row.cells);
            let found = match &row.quote {
                Some(quote) => {
                    let quote = normalise(quote);
                    let words = tokens(&quote);
                    text.contains(&quote) && want.iter().all(|w| words.contains(w))
                }
                None => follows(&text, &normalise(&row.label), &want),
            };
            if !found {
                out.push(format!(
                    "{}, row `{}`: {} not found after it",
                    table.source,
                    row.label,
                    want.join(" ")
                ));
            }
        }
    }
    out
}

/// Panics listing every number of `paper` not found in its paper's text (see the module
/// docs); skips with a note when the papers are not on this machine (fails under
/// `CI=true`).
pub fn check_against_text(paper: &Paper) {
    let Some(dir) = papers_dir() else {
        let why = "the papers' folder (shared/papers, or $ESCAPADE_PAPERS) is not here";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI must have the papers: {why}");
        }
        eprintln!("note: {why}: {}'s tables were not checked", paper.name);
        return;
    };
    let path = dir.join(&paper.file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let missing = missing(paper, &text);
    assert!(
        missing.is_empty(),
        "{} numbers of {} are not where its tables say:\n{}",
        missing.len(),
        paper.name,
        missing.join("\n")
    );
    // a check that found every row of a file it never read would prove nothing
    assert!(paper.values().is_ok_and(|v| !v.is_empty()));
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Model SR\tGC\nGPT-4o\t<b>3.3</b>\t16.00\nGPT-4o-mini 0.0 5.37 - -\n\
                        Human 98 ± 1.4 64 3.3\nIt reached 45.1%; then (↑15.0) fell.";

    fn paper(rows: &str) -> Paper {
        Paper::from_json(&format!(
            r#"{{"name": "P", "file": "p.md", "headline": "success",
              "metrics": [{{"key": "success", "name": "SR", "definition": "d", "section": "s"}}],
              "settings": [{{"key": "s", "description": "d", "suites": ["p"]}}],
              "tables": [{{"source": "Table 1", "title": "t", "setting": "s",
                "defaults": {{"metric": "success"}},
                "columns": [{{}}, {{}}], "rows": [{rows}]}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn rows_are_found_after_their_label_and_quotes_in_the_text() {
        let ok = paper(
            r#"{"label": "GPT-4o", "cells": ["3.3", "16.00"]},
               {"label": "GPT-4o-mini", "cells": ["0.0", "5.37"]},
               {"label": "Human", "cells": ["98 ± 1.4", "64 ± 3.3"]},
               {"label": "x", "cells": ["45.1", null], "quote": "It reached 45.1%;"}"#,
        );
        assert_eq!(missing(&ok, TEXT), Vec::<String>::new());
    }

    #[test]
    fn a_wrong_digit_a_shifted_column_or_a_missing_quote_is_found() {
        for rows in [
            r#"{"label": "GPT-4o", "cells": ["3.3", "16.0"]}"#,
            r#"{"label": "GPT-4o", "cells": ["16.00", "3.3"]}"#,
            r#"{"label": "GPT-4o-mini", "cells": ["5.37", null]}"#,
            r#"{"label": "x", "cells": ["45.2", null], "quote": "It reached 45.1%;"}"#,
            r#"{"label": "x", "cells": ["45.1", null], "quote": "It fell to 45.1%;"}"#,
            // the label must start a word: `4o` is inside `GPT-4o`
            r#"{"label": "4o", "cells": ["3.3", "16.00"]}"#,
        ] {
            assert_eq!(missing(&paper(rows), TEXT).len(), 1, "{rows}");
        }
    }

    #[test]
    fn decorations_and_markup_are_not_numbers() {
        assert_eq!(
            tokens(&normalise("a <b>1.0</b> (↑2.5) 3% ± →")),
            ["a", "1.0", "2.5", "3"]
        );
    }
}
