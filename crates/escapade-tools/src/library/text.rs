//! Text processing: `regex_search`, `unicode_normalize`, `bidi_sanitize`,
//! `timezone_convert`.

use chrono::{Datelike, LocalResult, NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;
use rand::Rng as _;
use regex::RegexBuilder;
use unicode_bidi::{BidiClass, bidi_class};
use unicode_normalization::UnicodeNormalization;

use escapade_core::seed::Rng;

use super::words::{digits, phrase, pick, word};
use super::{Cx, ExecError, Seed, exclusive, open, output, seed_only};
use crate::template::{NodeKind, Template};
use crate::value::PortType::Text;

const FAMILY: &str = "text processing";

pub(super) const REGEX_SEARCH: Template = Template {
    id: "regex_search",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Pattern Scanner",
    semantics: "Searches the text for the regular expression (Rust `regex` syntax: \
        Perl-like classes such as `\\d` and `\\w`, no look-around or back-references; `.` \
        does not match a newline) and returns the whole leftmost-first match (not a capture \
        group). A pattern with none of the characters `\\ . + * ? ( ) | [ ] { } ^ $` \
        matches itself literally. Fails when nothing matches.",
    inputs: &[
        open("text", Text, "the text to search"),
        exclusive("pattern", Text, "the regular expression"),
    ],
    outputs: &[output("match", Text, "the first whole match")],
};

pub(super) const UNICODE_NORMALIZE: Template = Template {
    id: "unicode_normalize",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Unicode Normalizer",
    semantics: "Normalizes the text to a Unicode normalization form (UAX #15): NFC \
        (canonical composition), NFD (canonical decomposition), NFKC or NFKD (compatibility \
        composition or decomposition: ligatures, full-width and superscript characters \
        become their plain forms).",
    inputs: &[
        open("text", Text, "the text to normalize"),
        seed_only(
            "form",
            Text,
            "one of NFC, NFD, NFKC, NFKD (lower case is accepted too)",
        ),
    ],
    outputs: &[output("text", Text, "the normalized text")],
};

pub(super) const BIDI_SANITIZE: Template = Template {
    id: "bidi_sanitize",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Bidi Sanitizer",
    semantics: "Removes every bidirectional formatting control: the embeddings and \
        overrides LRE, RLE, PDF, LRO, RLO (U+202A–U+202E), the isolates LRI, RLI, FSI, PDI \
        (U+2066–U+2069) and the marks LRM (U+200E), RLM (U+200F) and ALM (U+061C). Every \
        other character is kept in order.",
    inputs: &[open("text", Text, "the text to clean")],
    outputs: &[output("text", Text, "the text without bidi controls")],
};

pub(super) const TIMEZONE_CONVERT: Template = Template {
    id: "timezone_convert",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "Time Zone Converter",
    semantics: "Reads a wall-clock time `YYYY-MM-DD HH:MM` in the IANA time zone from_tz \
        (e.g. `Europe/London`, exact spelling), and returns the same instant as wall-clock \
        time in to_tz, in the same format. Fails when the local time is ambiguous or does \
        not exist in from_tz (daylight-saving transitions).",
    inputs: &[
        seed_only("datetime", Text, "local date and time, `YYYY-MM-DD HH:MM`"),
        seed_only("from_tz", Text, "the IANA name of the source time zone"),
        seed_only("to_tz", Text, "the IANA name of the target time zone"),
    ],
    outputs: &[output(
        "datetime",
        Text,
        "the converted time, `YYYY-MM-DD HH:MM`",
    )],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    let r = match cx.t.id {
        "regex_search" => regex_search(cx, v),
        "unicode_normalize" => normalize(cx, &v[0], &v[1]),
        "bidi_sanitize" => Ok(v[0].chars().filter(|c| !is_bidi_control(*c)).collect()),
        "timezone_convert" => convert(cx, v),
        _ => return None,
    };
    Some(r.map(|out| vec![out]))
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    Some(match s.t.id {
        "regex_search" => seed_regex(s),
        "unicode_normalize" => {
            s.fill(1, |r| (*pick(r, FORMS)).to_string());
            let form = s.get(1).unwrap_or("NFC").to_string();
            s.fill(0, |r| normalizable(r, &form));
            Ok(())
        }
        "bidi_sanitize" => {
            s.fill(0, with_controls);
            Ok(())
        }
        "timezone_convert" => seed_time(s),
        _ => return None,
    })
}

// --- regex -------------------------------------------------------------------------

fn compile(pattern: &str) -> Option<regex::Regex> {
    RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .ok()
}

fn regex_search(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let re = compile(&v[1]).ok_or(ExecError::Malformed {
        port: cx.port(1),
        format: "regular expression",
    })?;
    re.find(&v[0])
        .map(|m| m.as_str().to_string())
        .ok_or_else(|| ExecError::NotFound {
            what: "match of pattern",
            name: v[1].clone(),
        })
}

/// A pattern that matches inside `text`: two escaped characters of a window followed by
/// `.{k}` (windows avoid newlines and, when possible, whitespace at their ends).
fn window_pattern(rng: &mut Rng, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 3 {
        return format!("^{}", regex::escape(text));
    }
    let len = rng.random_range(3..=chars.len().min(9));
    let starts: Vec<usize> = (0..=chars.len() - len)
        .filter(|&i| !chars[i..i + len].contains(&'\n'))
        .collect();
    let tidy: Vec<usize> = starts
        .iter()
        .copied()
        .filter(|&i| !chars[i].is_whitespace() && !chars[i + len - 1].is_whitespace())
        .collect();
    let pool = if tidy.is_empty() { &starts } else { &tidy };
    if pool.is_empty() {
        return regex::escape(&chars[..1].iter().collect::<String>());
    }
    let i = pool[rng.random_range(0..pool.len())];
    let head: String = chars[i..i + 2].iter().collect();
    format!("{}.{{{}}}", regex::escape(&head), len - 2)
}

/// Characters with a special meaning outside a bracket class in Rust's `regex` (and in
/// Python's `re`, PCRE, JavaScript): a pattern without them is a literal in every common
/// dialect.
const META: &[char] = &[
    '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$',
];

/// Whether `pattern` means itself, character for character, in every common dialect.
pub(super) fn is_literal_pattern(pattern: &str) -> bool {
    !pattern.contains(META)
}

fn seed_regex(s: &mut Seed<'_>) -> Result<(), ExecError> {
    // A pattern wired from another node's output (a JSON value, Base64, a sentence) was
    // not written as a regular expression: `[[729544,16577],214456]` is a character
    // class in Rust's syntax, something else in Python's, while a reader takes it for
    // itself. Only patterns that are plain text in every dialect may be wired; others
    // make the generator try another skeleton.
    if s.get(1).is_some_and(|p| !is_literal_pattern(p)) {
        return Err(ExecError::Unsatisfiable {
            why: "a wired regex pattern must be plain text (no special characters)",
        });
    }
    match (s.is_none(0), s.is_none(1)) {
        (true, true) => {
            let (token, pattern) = match s.rng.random_range(0..4) {
                0 => {
                    let a = char::from(b'A' + s.rng.random_range(0..26u8));
                    let b = char::from(b'A' + s.rng.random_range(0..26u8));
                    (
                        format!("{a}{b}-{}", digits(s.rng, 4, 4)),
                        r"[A-Z]{2}-\d{4}".to_string(),
                    )
                }
                1 => (
                    format!("{}{}", word(s.rng), digits(s.rng, 2, 4)),
                    r"[a-z]+\d{2,}".to_string(),
                ),
                2 => {
                    let hex = hex::encode(super::words::bytes(s.rng, 3));
                    (format!("#{hex}"), "#[0-9a-f]{6}".to_string())
                }
                _ => {
                    let text = phrase(s.rng);
                    let p = window_pattern(s.rng, &text);
                    s.set(0, text);
                    s.set(1, p);
                    return Ok(());
                }
            };
            let text = format!("{} {token} {}", phrase(s.rng), word(s.rng));
            s.set(0, text);
            s.set(1, pattern);
        }
        (false, true) => {
            let text = s.get(0).unwrap_or_default().to_string();
            let p = window_pattern(s.rng, &text);
            s.set(1, p);
        }
        (true, false) => {
            let pattern = s.get(1).unwrap_or_default().to_string();
            let re = compile(&pattern).ok_or(ExecError::Unsatisfiable {
                why: "the given pattern is not a regular expression",
            })?;
            let mut candidates = Vec::new();
            for _ in 0..8 {
                candidates.push(format!("{} {pattern} {}", word(s.rng), word(s.rng)));
                candidates.push(phrase(s.rng));
            }
            let text = candidates.into_iter().find(|t| re.is_match(t)).ok_or(
                ExecError::Unsatisfiable {
                    why: "no seeded text matches the given pattern",
                },
            )?;
            s.set(0, text);
        }
        (false, false) => {}
    }
    Ok(())
}

// --- unicode normalization -----------------------------------------------------------

const FORMS: &[&str] = &["NFC", "NFD", "NFKC", "NFKD"];
const ACCENTED: &[&str] = &[
    "café",
    "naïve",
    "résumé",
    "façade",
    "jalapeño",
    "Ångström",
    "über",
    "crème",
    "brûlée",
    "São",
    "Zoë",
    "piñata",
];
const COMPATIBLE: &[&str] = &[
    "ﬁnal",
    "ﬂare",
    "oﬀset",
    "１２３",
    "x²",
    "Ⅻ",
    "ｋｅｙ",
    "№7",
    "½",
];

fn normalize(cx: &Cx<'_>, text: &str, form: &str) -> Result<String, ExecError> {
    Ok(match form.to_ascii_uppercase().as_str() {
        "NFC" => text.nfc().collect(),
        "NFD" => text.nfd().collect(),
        "NFKC" => text.nfkc().collect(),
        "NFKD" => text.nfkd().collect(),
        _ => {
            return Err(ExecError::Malformed {
                port: cx.port(1),
                format: "normalization form (NFC, NFD, NFKC or NFKD)",
            });
        }
    })
}

/// Text that the given form changes: decomposed accents for NFC, precomposed ones for
/// NFD, and compatibility characters (ligatures, full-width digits, …) for NFKC/NFKD.
fn normalizable(rng: &mut Rng, form: &str) -> String {
    let accented = format!("{} {}", pick(rng, ACCENTED), word(rng));
    match form {
        "NFC" => accented.nfd().collect(),
        "NFD" => accented,
        _ => format!("{} {}", pick(rng, COMPATIBLE), accented),
    }
}

// --- bidi --------------------------------------------------------------------------

/// Whether `c` is a bidi formatting control (embeddings, overrides, isolates, marks).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
        || matches!(
            bidi_class(c),
            BidiClass::LRE
                | BidiClass::RLE
                | BidiClass::PDF
                | BidiClass::LRO
                | BidiClass::RLO
                | BidiClass::LRI
                | BidiClass::RLI
                | BidiClass::FSI
                | BidiClass::PDI
        )
}

const CONTROLS: &[char] = &[
    '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
];

/// A phrase with two to four bidi controls inserted between its characters.
fn with_controls(rng: &mut Rng) -> String {
    let mut chars: Vec<char> = phrase(rng).chars().collect();
    for _ in 0..rng.random_range(2..=4) {
        let at = rng.random_range(1..chars.len());
        chars.insert(at, *pick(rng, CONTROLS));
    }
    chars.into_iter().collect()
}

// --- time zones --------------------------------------------------------------------

const ZONES: &[&str] = &[
    "Europe/London",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Istanbul",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "America/St_Johns",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Asia/Shanghai",
    "Asia/Singapore",
    "Asia/Dubai",
    "Australia/Sydney",
    "Australia/Adelaide",
    "Pacific/Auckland",
    "Africa/Nairobi",
    "Africa/Cairo",
    "UTC",
];

const FORMAT: &str = "%Y-%m-%d %H:%M";

fn zone(cx: &Cx<'_>, v: &[String], i: usize) -> Result<Tz, ExecError> {
    v[i].parse().map_err(|_| ExecError::Malformed {
        port: cx.port(i),
        format: "IANA time-zone name",
    })
}

fn convert(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let naive = NaiveDateTime::parse_from_str(&v[0], FORMAT).map_err(|_| ExecError::Malformed {
        port: cx.port(0),
        format: "date and time `YYYY-MM-DD HH:MM`",
    })?;
    if !(1..=9999).contains(&naive.year()) {
        return Err(ExecError::OutOfRange {
            port: cx.port(0),
            why: "the year must be between 1 and 9999",
        });
    }
    let (from, to) = (zone(cx, v, 1)?, zone(cx, v, 2)?);
    match from.from_local_datetime(&naive) {
        LocalResult::Single(dt) => Ok(dt.with_timezone(&to).format(FORMAT).to_string()),
        _ => Err(ExecError::OutOfRange {
            port: cx.port(0),
            why: "the local time is ambiguous or does not exist in from_tz",
        }),
    }
}

/// Whether the local time (if given and valid) exists exactly once in the zone.
fn unambiguous(datetime: &str, tz: &str) -> bool {
    match (
        NaiveDateTime::parse_from_str(datetime, FORMAT),
        tz.parse::<Tz>(),
    ) {
        (Ok(naive), Ok(tz)) => matches!(tz.from_local_datetime(&naive), LocalResult::Single(_)),
        _ => false,
    }
}

fn seed_time(s: &mut Seed<'_>) -> Result<(), ExecError> {
    for _ in 0..64 {
        let datetime = match s.get(0) {
            Some(d) => d.to_string(),
            None => {
                let date = NaiveDate::from_ymd_opt(
                    s.rng.random_range(2000..=2035),
                    s.rng.random_range(1..=12),
                    s.rng.random_range(1..=28),
                );
                let Some(dt) = date.and_then(|d| {
                    d.and_hms_opt(s.rng.random_range(0..24), s.rng.random_range(0..12) * 5, 0)
                }) else {
                    continue;
                };
                dt.format(FORMAT).to_string()
            }
        };
        let from = match s.get(1) {
            Some(z) => z.to_string(),
            None => (*pick(s.rng, ZONES)).to_string(),
        };
        let to = match s.get(2) {
            Some(z) => z.to_string(),
            None => (*pick(s.rng, ZONES)).to_string(),
        };
        if from != to && unambiguous(&datetime, &from) {
            s.set(0, datetime);
            s.set(1, from);
            s.set(2, to);
            return Ok(());
        }
    }
    Err(ExecError::Unsatisfiable {
        why: "no unambiguous local time in distinct zones was found",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_controls() {
        let dirty = "a\u{202E}b\u{2066}c\u{200F}d\u{061C}e\u{200E}";
        let clean: String = dirty.chars().filter(|c| !is_bidi_control(*c)).collect();
        assert_eq!(clean, "abcde");
        assert!(CONTROLS.iter().all(|c| is_bidi_control(*c)));
        assert!(!is_bidi_control('א') && !is_bidi_control(' '));
    }

    #[test]
    fn window_patterns_match() {
        let mut rng = escapade_core::seed::rng(1);
        for text in [
            "amber lantern",
            "a.b*c?d",
            "x",
            "",
            "line one\nline two",
            "é ü ß",
        ] {
            for _ in 0..10 {
                let p = window_pattern(&mut rng, text);
                assert!(compile(&p).unwrap().is_match(text), "{p:?} on {text:?}");
            }
        }
    }
}
