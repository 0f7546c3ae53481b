//! File and archive operations: `zip_extract`, `csv_query`, `json_query`. Their files
//! are written here, at seeding, consistent with the other inputs.

use std::io::{Cursor, Read, Write};

use rand::Rng as _;
use rand::seq::SliceRandom;
use serde_json::{Map, Value};
use serde_json_path::{ExactlyOneError, JsonPath};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

use escapade_core::seed::Rng;

use super::words::{digits, phrase, pick, word};
use super::{Cx, ExecError, MAX_BYTES, Seed, exclusive, open, output, seed_only, utf8};
use crate::template::{NodeKind, Template};
use crate::value::PortType::{FileId, Text};

const FAMILY: &str = "file and archive";

pub(super) const ZIP_EXTRACT: Template = Template {
    id: "zip_extract",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "ZIP Extractor",
    semantics: "Opens the ZIP archive and returns the content of the member whose path \
        equals `member` exactly (case-sensitive, `/` separators), decoded as UTF-8 text. At \
        most 1 MiB is extracted.",
    inputs: &[
        exclusive("archive", FileId, "the file id of a ZIP archive"),
        seed_only(
            "member",
            Text,
            "the exact path of a member inside the archive",
        ),
    ],
    outputs: &[output(
        "content",
        Text,
        "the member's content as UTF-8 text",
    )],
};

pub(super) const CSV_QUERY: Template = Template {
    id: "csv_query",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "CSV Ledger Reader",
    semantics: "Reads the table as RFC 4180 CSV (comma-separated, double-quote quoting, \
        UTF-8). The first row is the header; the first column is the key column. Returns \
        the cell in the column whose header equals `column` exactly, in the first data row \
        whose key cell equals `key` exactly.",
    inputs: &[
        exclusive(
            "table",
            FileId,
            "the file id of a CSV table with a header row",
        ),
        open("key", Text, "the exact key to look up in the first column"),
        seed_only("column", Text, "the exact header of the column to read"),
    ],
    outputs: &[output("value", Text, "the cell's text")],
};

pub(super) const JSON_QUERY: Template = Template {
    id: "json_query",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "JSON Path Navigator",
    semantics: "Parses the document as JSON and evaluates the JSONPath (RFC 9535, e.g. \
        `$.vault.drawers[2]['code name']`), which must select exactly one node. A string \
        node yields the string itself; any other node yields its compact JSON (no spaces, \
        keys in document order).",
    inputs: &[
        exclusive("document", FileId, "the file id of a JSON document"),
        seed_only(
            "path",
            Text,
            "an RFC 9535 JSONPath selecting exactly one node",
        ),
    ],
    outputs: &[output(
        "value",
        Text,
        "a string node's text, or the node's compact JSON",
    )],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    let r = match cx.t.id {
        "zip_extract" => zip_extract(cx, v),
        "csv_query" => cx
            .file(v, 0)
            .and_then(|bytes| csv_lookup(&v[0], &bytes, &v[1], &v[2])),
        "json_query" => json_query(cx, v),
        _ => return None,
    };
    Some(r.map(|out| vec![out]))
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    Some(match s.t.id {
        "zip_extract" => seed_zip(s),
        "csv_query" => seed_csv(s),
        "json_query" => seed_json(s),
        _ => return None,
    })
}

// --- zip ---------------------------------------------------------------------------

fn zip_extract(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let bytes = cx.file(v, 0)?;
    let bad = || ExecError::BadFile {
        id: v[0].clone(),
        format: "ZIP archive",
    };
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|_| bad())?;
    let mut member = match archive.by_name(&v[1]) {
        Ok(m) => m,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(ExecError::NotFound {
                what: "archive member",
                name: v[1].clone(),
            });
        }
        Err(_) => return Err(bad()),
    };
    let mut out = Vec::new();
    member
        .by_ref()
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| bad())?;
    if out.len() > MAX_BYTES {
        return Err(ExecError::TooLarge {
            port: cx.port(1),
            limit: "1 MiB extracted",
        });
    }
    utf8(cx.port(0), out)
}

/// A member path such as `cellar/ember.txt`.
fn member_name(rng: &mut Rng) -> String {
    let ext = *pick(rng, &["txt", "log", "md", "cfg"]);
    format!("{}/{}.{ext}", word(rng), word(rng))
}

/// Writes a ZIP archive: deflate level 6, fixed modification time, mode 0644.
fn write_zip(members: &[(String, String)]) -> Result<Vec<u8>, ExecError> {
    let mtime = DateTime::from_date_and_time(2024, 3, 14, 15, 9, 26).unwrap_or_default();
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(mtime)
        .unix_permissions(0o644);
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let failed = |_| ExecError::Unsatisfiable {
        why: "the archive could not be written",
    };
    for (name, content) in members {
        w.start_file(name.as_str(), options).map_err(failed)?;
        w.write_all(content.as_bytes())
            .map_err(|_| ExecError::Unsatisfiable {
                why: "the archive could not be written",
            })?;
    }
    Ok(w.finish().map_err(failed)?.into_inner())
}

fn seed_zip(s: &mut Seed<'_>) -> Result<(), ExecError> {
    let (id, pending) = s.file_slot(0);
    if pending {
        let target = match s.get(1) {
            Some(m) => m.to_string(),
            None => member_name(s.rng),
        };
        let mut members = vec![(target.clone(), phrase(s.rng))];
        let decoys = s.rng.random_range(1..=3);
        while members.len() <= decoys {
            let name = member_name(s.rng);
            if members.iter().all(|(n, _)| *n != name) {
                members.push((name, phrase(s.rng)));
            }
        }
        members.shuffle(s.rng);
        let bytes = write_zip(&members)?;
        let name = format!("{}.zip", word(s.rng));
        s.files.write(&id, &name, "application/zip", &bytes);
        s.set(1, target);
    } else if s.is_none(1) {
        let bytes = s.files.get(&id).map(|f| f.bytes()).unwrap_or_default();
        let archive =
            ZipArchive::new(Cursor::new(bytes)).map_err(|_| ExecError::Unsatisfiable {
                why: "the archive is not a ZIP file",
            })?;
        let names: Vec<String> = archive
            .file_names()
            .filter(|n| !n.ends_with('/'))
            .map(str::to_string)
            .collect();
        if names.is_empty() {
            return Err(ExecError::Unsatisfiable {
                why: "the archive has no members",
            });
        }
        let i = s.rng.random_range(0..names.len());
        s.set(1, names[i].clone());
    }
    Ok(())
}

// --- csv ---------------------------------------------------------------------------

/// The cell of `column` in the first row whose first cell is `key`.
fn csv_lookup(id: &str, bytes: &[u8], key: &str, column: &str) -> Result<String, ExecError> {
    let bad = || ExecError::BadFile {
        id: id.to_string(),
        format: "CSV table",
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(bytes);
    let col = reader
        .headers()
        .map_err(|_| bad())?
        .iter()
        .position(|h| h == column)
        .ok_or_else(|| ExecError::NotFound {
            what: "column",
            name: column.to_string(),
        })?;
    for record in reader.records() {
        let record = record.map_err(|_| bad())?;
        if record.get(0) == Some(key) {
            return record.get(col).map(str::to_string).ok_or_else(bad);
        }
    }
    Err(ExecError::NotFound {
        what: "key",
        name: key.to_string(),
    })
}

const KEY_COLUMNS: &[&str] = &["codename", "agent", "locker", "case", "badge"];
const VALUE_COLUMNS: &[&str] = &["code", "city", "color", "owner", "status", "shelf", "year"];

/// A cell for a value column.
fn cell(rng: &mut Rng, column: &str) -> String {
    match column {
        "code" => digits(rng, 3, 6),
        "city" => (*pick(
            rng,
            &["Lisbon", "Oslo", "Quito", "Hanoi", "Tunis", "Perth", "Riga"],
        ))
        .to_string(),
        "color" => {
            (*pick(rng, &["teal", "ochre", "crimson", "slate", "amber", "jade"])).to_string()
        }
        "status" => (*pick(rng, &["sealed", "open", "missing", "archived", "flagged"])).to_string(),
        "shelf" => format!(
            "{}{}",
            char::from(b'A' + rng.random_range(0..8u8)),
            rng.random_range(1..20)
        ),
        "year" => rng.random_range(1890..2030).to_string(),
        _ => phrase(rng),
    }
}

/// A key such as `raven-42`.
fn row_key(rng: &mut Rng) -> String {
    format!("{}-{}", word(rng), digits(rng, 2, 3))
}

fn seed_csv(s: &mut Seed<'_>) -> Result<(), ExecError> {
    let (id, pending) = s.file_slot(0);
    if !pending {
        return seed_from_table(s, &id);
    }
    let key = match s.get(1) {
        Some(k) => k.to_string(),
        None => row_key(s.rng),
    };
    let key_column = (*pick(s.rng, KEY_COLUMNS)).to_string();
    let mut columns: Vec<String> = VALUE_COLUMNS.iter().map(|c| c.to_string()).collect();
    columns.shuffle(s.rng);
    columns.truncate(s.rng.random_range(2..=4));
    if let Some(c) = s
        .get(2)
        .filter(|c| *c != key_column && !columns.iter().any(|x| x == c))
    {
        columns[0] = c.to_string();
    }
    let rows = s.rng.random_range(3..=7);
    let target = s.rng.random_range(0..rows);
    let mut keys: Vec<String> = Vec::with_capacity(rows);
    while keys.len() < rows {
        let k = if keys.len() == target {
            key.clone()
        } else {
            row_key(s.rng)
        };
        if keys.len() == target || (k != key && !keys.contains(&k)) {
            keys.push(k);
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let failed = |_| ExecError::Unsatisfiable {
        why: "the table could not be written",
    };
    let header: Vec<&str> = std::iter::once(key_column.as_str())
        .chain(columns.iter().map(String::as_str))
        .collect();
    w.write_record(&header).map_err(failed)?;
    for k in &keys {
        let mut record = vec![k.clone()];
        for c in &columns {
            record.push(cell(s.rng, c));
        }
        w.write_record(&record).map_err(failed)?;
    }
    let bytes = w.into_inner().map_err(|_| ExecError::Unsatisfiable {
        why: "the table could not be written",
    })?;
    let name = format!("{}.csv", word(s.rng));
    s.files.write(&id, &name, "text/csv", &bytes);
    s.set(1, key);
    let column = columns[s.rng.random_range(0..columns.len())].clone();
    s.set(2, column);
    Ok(())
}

/// Seeds key and column from a table that is already written.
fn seed_from_table(s: &mut Seed<'_>, id: &str) -> Result<(), ExecError> {
    let bytes = s.files.get(id).map(|f| f.bytes()).unwrap_or_default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(&bytes[..]);
    let unusable = || ExecError::Unsatisfiable {
        why: "the table is not a CSV file with a header and rows",
    };
    let header: Vec<String> = reader
        .headers()
        .map_err(|_| unusable())?
        .iter()
        .map(str::to_string)
        .collect();
    let keys: Vec<String> = reader
        .records()
        .filter_map(Result::ok)
        .filter_map(|r| r.get(0).map(str::to_string))
        .collect();
    if header.is_empty() || keys.is_empty() {
        return Err(unusable());
    }
    if s.is_none(1) {
        let k = keys[s.rng.random_range(0..keys.len())].clone();
        s.set(1, k);
    }
    if s.is_none(2) {
        let first = usize::from(header.len() > 1);
        let c = header[s.rng.random_range(first..header.len())].clone();
        s.set(2, c);
    }
    Ok(())
}

// --- json --------------------------------------------------------------------------

fn json_query(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let bytes = cx.file(v, 0)?;
    let doc: Value = serde_json::from_slice(&bytes).map_err(|_| ExecError::BadFile {
        id: v[0].clone(),
        format: "JSON document",
    })?;
    if !tame_path(&v[1]) {
        return Err(ExecError::TooLarge {
            port: cx.port(1),
            limit: "1024 characters, 4 filters, nesting depth 16",
        });
    }
    let path = JsonPath::parse(&v[1]).map_err(|_| ExecError::Malformed {
        port: cx.port(1),
        format: "JSONPath (RFC 9535)",
    })?;
    match path.query(&doc).exactly_one() {
        Ok(Value::String(s)) => Ok(s.clone()),
        Ok(node) => serde_json::to_string(node).map_err(|_| ExecError::BadFile {
            id: v[0].clone(),
            format: "JSON document",
        }),
        Err(ExactlyOneError::MoreThanOne(count)) => Err(ExecError::Ambiguous { count }),
        Err(_) => Err(ExecError::NotFound {
            what: "JSON node",
            name: v[1].clone(),
        }),
    }
}

/// Whether a JSONPath is small enough to parse safely. The parser recurses on nesting
/// (a few hundred levels overflow the stack) and takes time exponential in the depth of
/// nested filters, so paths are capped at 1024 characters, 4 filter selectors (`?`) and
/// a bracket nesting depth of 16.
fn tame_path(path: &str) -> bool {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for c in path.chars() {
        match c {
            '(' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    path.len() <= 1024 && deepest <= 16 && path.matches('?').count() <= 4
}

/// A seeded JSON value; `depth` 0 is the root (always an object).
fn json_value(rng: &mut Rng, depth: u32) -> Value {
    let roll = rng.random_range(0..10);
    if depth == 0 || (depth < 3 && roll < 4) {
        let n = rng.random_range(2..=4);
        let mut map = Map::new();
        while map.len() < n {
            let key = if rng.random_range(0..8) == 0 {
                format!("{} {}", word(rng), word(rng))
            } else {
                word(rng)
            };
            if !map.contains_key(&key) {
                let v = json_value(rng, depth + 1);
                map.insert(key, v);
            }
        }
        Value::Object(map)
    } else if depth < 3 && roll < 6 {
        let n = rng.random_range(2..=4);
        Value::Array((0..n).map(|_| json_value(rng, depth + 1)).collect())
    } else {
        match rng.random_range(0..8) {
            0..=2 => Value::String(phrase(rng)),
            3 => Value::String(format!(
                "{}{}-{}",
                char::from(b'A' + rng.random_range(0..26u8)),
                char::from(b'A' + rng.random_range(0..26u8)),
                digits(rng, 2, 4)
            )),
            4 => Value::Bool(rng.random_bool(0.5)),
            _ => Value::from(rng.random_range(1u64..1_000_000)),
        }
    }
}

/// A normalized path (RFC 9535 §2.7) to a random node, usually a leaf.
fn random_path(rng: &mut Rng, doc: &Value) -> String {
    let mut path = String::from("$");
    let mut node = doc;
    let mut depth = 0;
    loop {
        if depth > 0 && rng.random_range(0..10) == 0 {
            return path;
        }
        match node {
            Value::Object(map) if !map.is_empty() => {
                let i = rng.random_range(0..map.len());
                let Some((k, v)) = map.iter().nth(i) else {
                    return path;
                };
                push_name(&mut path, k);
                node = v;
            }
            Value::Array(items) if !items.is_empty() => {
                let i = rng.random_range(0..items.len());
                path.push_str(&format!("[{i}]"));
                node = &items[i];
            }
            _ => return path,
        }
        depth += 1;
    }
}

/// Appends a member-name segment: `.name` for identifiers, else `['…']` escaped.
fn push_name(path: &mut String, key: &str) {
    let ident = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident {
        path.push('.');
        path.push_str(key);
        return;
    }
    path.push_str("['");
    for c in key.chars() {
        match c {
            '\'' => path.push_str("\\'"),
            '\\' => path.push_str("\\\\"),
            c if (c as u32) < 0x20 => path.push_str(&format!("\\u{:04x}", c as u32)),
            c => path.push(c),
        }
    }
    path.push_str("']");
}

fn seed_json(s: &mut Seed<'_>) -> Result<(), ExecError> {
    let (id, pending) = s.file_slot(0);
    let doc = if pending {
        let doc = json_value(s.rng, 0);
        let bytes = serde_json::to_vec_pretty(&doc).map_err(|_| ExecError::Unsatisfiable {
            why: "the document could not be written",
        })?;
        let name = format!("{}.json", word(s.rng));
        s.files.write(&id, &name, "application/json", &bytes);
        doc
    } else {
        let bytes = s.files.get(&id).map(|f| f.bytes()).unwrap_or_default();
        serde_json::from_slice(&bytes).map_err(|_| ExecError::Unsatisfiable {
            why: "the document is not JSON",
        })?
    };
    if s.is_none(1) {
        let path = random_path(s.rng, &doc);
        s.set(1, path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_lookup_reads_quoted_cells() {
        let table = b"id,code,note\nraven-1,42,\"a, b\"\n\"x\"\"y\",7,z\n";
        assert_eq!(csv_lookup("f", table, "raven-1", "note").unwrap(), "a, b");
        assert_eq!(csv_lookup("f", table, "x\"y", "code").unwrap(), "7");
        assert!(matches!(
            csv_lookup("f", table, "nope", "code"),
            Err(ExecError::NotFound { .. })
        ));
        assert!(csv_lookup("f", table, "raven-1", "nope").is_err());
    }

    #[test]
    fn paths_escape_odd_keys() {
        let mut p = String::from("$");
        push_name(&mut p, "cold storage");
        push_name(&mut p, "it's");
        push_name(&mut p, "ok_1");
        assert_eq!(p, "$['cold storage']['it\\'s'].ok_1");
        let doc: Value = serde_json::json!({"cold storage": {"it's": {"ok_1": 5}}});
        let path = JsonPath::parse(&p).unwrap();
        assert_eq!(path.query(&doc).exactly_one().unwrap(), &Value::from(5));
    }

    #[test]
    fn hostile_paths_are_refused_before_parsing() {
        assert!(tame_path("$.a['b c'][2]"));
        assert!(!tame_path(&format!(
            "$[?{}@{}]",
            "(".repeat(5000),
            ")".repeat(5000)
        )));
        assert!(!tame_path(&format!(
            "$[?{}{}]",
            "@[?".repeat(30),
            "]".repeat(30)
        )));
        assert!(!tame_path(&format!("${}", ".a".repeat(600))));
    }

    #[test]
    fn random_paths_select_one_node() {
        let mut rng = escapade_core::seed::rng(11);
        for _ in 0..50 {
            let doc = json_value(&mut rng, 0);
            let p = random_path(&mut rng, &doc);
            let path = JsonPath::parse(&p).unwrap();
            assert!(path.query(&doc).exactly_one().is_ok(), "{p}");
        }
    }

    #[test]
    fn zip_is_deterministic() {
        let members = vec![("a/b.txt".to_string(), "amber".to_string())];
        assert_eq!(write_zip(&members).unwrap(), write_zip(&members).unwrap());
    }
}
