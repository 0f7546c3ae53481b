//! The fidelity ledger (`docs/fidelity.md`) cannot drift from the code: every row names
//! at least one test, and every test it names exists where the row says.
//!
//! A row's **Test** cell lists tests as `` `path/to/file.rs::test_name` `` (paths from
//! the repository root). The check is textual — the file must define `fn test_name` —
//! because a test in another crate cannot be called from here; `cargo test` then runs
//! it with the rest of the workspace.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The four sections, in order, and the prefix of their row ids.
const SECTIONS: [(&str, &str); 4] = [
    ("## AgentEscapeBench (`tools`)", "T"),
    ("## COMMA (`comma`)", "C"),
    ("## VisEscape (`vis`)", "V"),
    ("## MM-Escape (`craft`)", "M"),
];

/// Rows each section must have: one per protocol rule of its paper (suite, prompt,
/// actions, observation, feedback, limits, decoding, scoring at the least).
const MIN_ROWS: usize = 8;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One table row: its id and its cells.
struct Row {
    section: usize,
    line: usize,
    cells: Vec<String>,
}

fn rows(text: &str) -> Result<Vec<Row>, String> {
    let mut section = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("## ") {
            section = SECTIONS.iter().position(|(h, _)| *h == line.trim());
            continue;
        }
        let Some(s) = section else { continue };
        let t = line.trim();
        if !t.starts_with('|') || t.starts_with("| #") || t.starts_with("|---") {
            continue;
        }
        let cells: Vec<String> = split_cells(t);
        if cells.len() != 6 {
            return Err(format!(
                "docs/fidelity.md:{}: a row has 6 cells (#, rule, paper, escapade, test, option), this one {}",
                i + 1,
                cells.len()
            ));
        }
        out.push(Row {
            section: s,
            line: i + 1,
            cells,
        });
    }
    Ok(out)
}

/// The cells of a `| a | b |` line; a `|` inside backticks does not split.
fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut code = false;
    let mut prev = ' ';
    for c in inner.chars() {
        match c {
            '`' => {
                code = !code;
                cur.push(c);
            }
            '|' if !code && prev != '\\' => cells.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
        prev = c;
    }
    cells.push(cur);
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The `path::name` references of a test cell.
fn tests_named(cell: &str) -> Vec<(String, String)> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|code| {
            let (path, name) = code.rsplit_once("::")?;
            path.ends_with(".rs")
                .then(|| (path.to_string(), name.to_string()))
        })
        .collect()
}

/// Whether `source` defines a function called `name` (plain, in `proptest!`, or async).
fn defines(source: &str, name: &str) -> bool {
    let needle = format!("fn {name}");
    source.match_indices(&needle).any(|(at, _)| {
        source[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c == '(' || c == '<')
    })
}

#[test]
fn every_row_names_a_test_that_exists() {
    let text = std::fs::read_to_string(root().join("docs/fidelity.md")).unwrap();
    let rows = rows(&text).unwrap();
    let mut problems = Vec::new();
    let mut ids = BTreeSet::new();
    for row in &rows {
        let (_, prefix) = SECTIONS[row.section];
        let id = &row.cells[0];
        let numbered = id
            .strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !numbered {
            problems.push(format!(
                "line {}: id `{id}` should be {prefix}<number>",
                row.line
            ));
        }
        if !ids.insert(id.clone()) {
            problems.push(format!("line {}: id `{id}` is used twice", row.line));
        }
        for (i, what) in [(1, "rule"), (2, "paper"), (3, "escapade"), (5, "option")] {
            if row.cells[i].is_empty() {
                problems.push(format!("line {}: {id} has no {what}", row.line));
            }
        }
        let named = tests_named(&row.cells[4]);
        if named.is_empty() {
            problems.push(format!(
                "line {}: {id} names no test (`path/file.rs::test_name`)",
                row.line
            ));
        }
        for (path, name) in named {
            match std::fs::read_to_string(root().join(&path)) {
                Ok(source) if defines(&source, &name) => {}
                Ok(_) => problems.push(format!(
                    "line {}: {id}: {path} has no `fn {name}`",
                    row.line
                )),
                Err(_) => problems.push(format!("line {}: {id}: no file {path}", row.line)),
            }
        }
    }
    for (s, (heading, _)) in SECTIONS.iter().enumerate() {
        let n = rows.iter().filter(|r| r.section == s).count();
        #[allow(clippy::absurd_extreme_comparisons)]
        // TODO(lead): MIN_ROWS goes to 8 once all four sections are filled
        if n < MIN_ROWS {
            problems.push(format!(
                "section {heading} has {n} rows (at least {MIN_ROWS})"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/fidelity.md:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_reads_rows_and_tests() {
    let cells = split_cells(
        "| T1 | a `x|y` b | §1 | `src/a.rs` | `crates/a/tests/b.rs::t_one`, `c.rs::two` | — |",
    );
    assert_eq!(cells.len(), 6);
    assert_eq!(cells[1], "a `x|y` b");
    assert_eq!(
        tests_named(&cells[4]),
        vec![
            ("crates/a/tests/b.rs".into(), "t_one".into()),
            ("c.rs".into(), "two".into())
        ]
    );
    assert!(defines("#[test]\nfn t_one() {}", "t_one"));
    assert!(!defines("fn t_one_more() {}", "t_one"));
    assert!(defines("proptest! { fn p(x in 0..3u8) {} }", "p"));
}
